//! The twin traits of `burn::nn` modules, one file per family; see [`crate::nn`].
//! Only traits are exported from here: the prelude takes this module whole.
//!
//! Each twin's signature is written once. The per-dimension families (conv, transposed conv,
//! max/avg/adaptive pools) are rows of `layer_twins!` (in `support.rs`), the parameterless
//! activations of `uniform_activation!` and the element-wise losses of `elementwise_loss!`: one
//! row per module. The other twin traits are declared by `twins!` (in `support.rs`), from the
//! methods of their impl: a row (`=> forward(..) [rule(args), ..];`: the rules, then burn's
//! method under the backstop) or a body. Config twins whose `try_init` is rules on the config's
//! fields are rows of `config_twins!`. A twin names the layer in its errors through
//! `support::in_layer`.
//!
//! There is no generic one-input trait over the guarded layers (candle's `Module`, tower's
//! `Service`), by decision. burn has none to mirror: its `forward`s are inherent methods of
//! different arities and outputs (`DeformConv2d` takes three inputs, `Lstm` returns a tuple,
//! `MultiHeadAttention` a struct), so such a trait would cover only the one-input layers. Its
//! method could not be named `try_forward`: with the twin traits in scope (the prelude), every
//! `layer.try_forward(x)` would become ambiguous (E0034), and a second name for the same call
//! is one more thing to learn. Code generic over a guarded layer takes a closure,
//! `impl Fn(I) -> burn_guard::Result<O>` (`|x| layer.try_forward(x)`), as tower's `service_fn`
//! does.

#[macro_use]
pub(crate) mod support;

mod activation;
pub(crate) mod attention;
mod conv;
mod distance;
mod dropout;
mod embedding;
mod encoding;
mod linear;
mod loss;
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
pub use distance::{TryCosineSimilarity, TryPairwiseDistance};
pub use dropout::{TryDropout, TryGaussianNoise, TryIdentity};
pub use embedding::TryEmbedding;
pub use encoding::{TryPositionalEncoding, TryRotaryEncoding};
pub use linear::TryLinear;
pub use loss::{
    TryBinaryCrossEntropyLoss, TryCTCLoss, TryCosineEmbeddingLoss, TryCrossEntropyLoss,
    TryGaussianNLLLoss, TryHingeEmbeddingLoss, TryHuberLoss, TryKLDivLoss, TryLpLoss,
    TryMarginRankingLoss, TryMseLoss, TryMultiMarginLoss, TryPoissonNllLoss, TryRNNTLoss,
    TrySmoothL1Loss, TrySoftMarginLoss, TryTripletMarginLoss,
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
