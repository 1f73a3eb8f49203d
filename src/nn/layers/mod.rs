//! The twin traits of `burn::nn` modules, one file per family; see [`crate::nn`].
//! Only traits are exported from here: the prelude takes this module whole.

pub(crate) mod support;

mod activation;
pub(crate) mod attention;
mod conv;
mod dropout;
mod embedding;
mod linear;
mod loss;
mod misc;
mod norm;
mod pool;
mod rnn;
pub(crate) mod transformer;

pub use activation::{
    TryActivation, TryCelu, TryElu, TryGLU, TryGelu, TryHardShrink, TryHardSigmoid, TryHardSwish,
    TryHardtanh, TryLeakyRelu, TryLogSigmoid, TryMish, TryPRelu, TryRRelu, TryRelu, TryRelu6,
    TrySelu, TryShrink, TrySiLU, TrySigmoid, TrySoftShrink, TrySoftplus, TrySoftsign, TrySwiGlu,
    TryTanh, TryTanhshrink, TryThreshold, TryThresholdedRelu,
};
pub use attention::{TryCrossAttention, TryMultiHeadAttention};
pub use conv::{
    TryConv1d, TryConv2d, TryConv3d, TryConvTranspose1d, TryConvTranspose2d, TryConvTranspose3d,
    TryDeformConv2d,
};
pub use dropout::TryDropout;
pub use embedding::TryEmbedding;
pub use linear::TryLinear;
pub use loss::{
    TryBinaryCrossEntropyLoss, TryCTCLoss, TryCosineEmbeddingLoss, TryCrossEntropyLoss,
    TryGaussianNLLLoss, TryHingeEmbeddingLoss, TryHuberLoss, TryKLDivLoss, TryLpLoss,
    TryMarginRankingLoss, TryMseLoss, TryMultiMarginLoss, TryPoissonNllLoss, TryRNNTLoss,
    TrySmoothL1Loss, TrySoftMarginLoss, TryTripletMarginLoss,
};
pub use misc::{
    TryCosineSimilarity, TryGaussianNoise, TryIdentity, TryPairwiseDistance, TryPositionalEncoding,
    TryRotaryEncoding,
};
pub use norm::{
    TryBatchNorm, TryGroupNorm, TryInstanceNorm, TryLayerNorm, TryLocalResponseNorm,
    TryNormalization, TryRmsNorm,
};
pub use pool::{
    TryAdaptiveAvgPool1d, TryAdaptiveAvgPool2d, TryAdaptiveAvgPool3d, TryAvgPool1d, TryAvgPool2d,
    TryFold4d, TryInterpolate1d, TryInterpolate2d, TryMaxPool1d, TryMaxPool2d, TryPixelShuffle,
    TryPixelUnshuffle, TryUnfold4d,
};
pub use rnn::{TryBiGru, TryBiLstm, TryBiRnn, TryGru, TryLstm, TryRnn};
pub use transformer::{
    TryPositionWiseFeedForward, TryTransformerDecoder, TryTransformerDecoderLayer,
    TryTransformerEncoder, TryTransformerEncoderLayer,
};
