//! The twin traits of `burn::nn` modules, one file per family; see [`crate::nn`].
//! Only traits are exported from here: the prelude takes this module whole.

pub(crate) mod support;

mod conv;
mod dropout;
mod linear;
mod pool;

pub use conv::{
    TryConv1d, TryConv2d, TryConv3d, TryConvTranspose1d, TryConvTranspose2d, TryConvTranspose3d,
    TryDeformConv2d,
};
pub use dropout::TryDropout;
pub use linear::TryLinear;
pub use pool::{
    TryAdaptiveAvgPool1d, TryAdaptiveAvgPool2d, TryAdaptiveAvgPool3d, TryAvgPool1d, TryAvgPool2d,
    TryFold4d, TryInterpolate1d, TryInterpolate2d, TryMaxPool1d, TryMaxPool2d, TryPixelShuffle,
    TryPixelUnshuffle, TryUnfold4d,
};
