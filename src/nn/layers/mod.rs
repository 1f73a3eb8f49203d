//! The twin traits of `burn::nn` modules, one file per family; see [`crate::nn`].
//! Only traits are exported from here: the prelude takes this module whole.

pub(crate) mod support;

pub(crate) mod attention;
mod dropout;
mod linear;
pub(crate) mod transformer;

pub use attention::{TryCrossAttention, TryMultiHeadAttention};
pub use dropout::TryDropout;
pub use linear::TryLinear;
pub use transformer::{
    TryPositionWiseFeedForward, TryTransformerDecoder, TryTransformerDecoderLayer,
    TryTransformerEncoder, TryTransformerEncoderLayer,
};
