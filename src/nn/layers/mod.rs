//! The twin traits of `burn::nn` modules, one file per family; see [`crate::nn`].
//! Only traits are exported from here: the prelude takes this module whole.

pub(crate) mod support;

mod dropout;
mod linear;
mod loss;

pub use dropout::TryDropout;
pub use linear::TryLinear;
pub use loss::{
    TryBinaryCrossEntropyLoss, TryCTCLoss, TryCosineEmbeddingLoss, TryCrossEntropyLoss,
    TryGaussianNLLLoss, TryHingeEmbeddingLoss, TryHuberLoss, TryKLDivLoss, TryLpLoss,
    TryMarginRankingLoss, TryMseLoss, TryMultiMarginLoss, TryPoissonNllLoss, TryRNNTLoss,
    TrySmoothL1Loss, TrySoftMarginLoss, TryTripletMarginLoss,
};
