//! The twin traits of `burn::nn` modules, one file per family; see [`crate::nn`].
//! Only traits are exported from here: the prelude takes this module whole.

pub(crate) mod support;

mod activation;
mod dropout;
mod embedding;
mod linear;
mod misc;
mod norm;

pub use activation::{
    TryActivation, TryCelu, TryElu, TryGLU, TryGelu, TryHardShrink, TryHardSigmoid, TryHardSwish,
    TryHardtanh, TryLeakyRelu, TryLogSigmoid, TryMish, TryPRelu, TryRRelu, TryRelu, TryRelu6,
    TrySelu, TryShrink, TrySiLU, TrySigmoid, TrySoftShrink, TrySoftplus, TrySoftsign, TrySwiGlu,
    TryTanh, TryTanhshrink, TryThreshold, TryThresholdedRelu,
};
pub use dropout::TryDropout;
pub use embedding::TryEmbedding;
pub use linear::TryLinear;
pub use misc::{
    TryCosineSimilarity, TryGaussianNoise, TryIdentity, TryPairwiseDistance, TryPositionalEncoding,
    TryRotaryEncoding,
};
pub use norm::{
    TryBatchNorm, TryGroupNorm, TryInstanceNorm, TryLayerNorm, TryLocalResponseNorm,
    TryNormalization, TryRmsNorm,
};
