//! Every extension trait, and the error types: `use burn_guard::prelude::*;`.
//!
//! Traits only: with them in scope, method twins read `t.try_reshape([2, 3])?`, associated
//! twins `Tensor::<2>::try_zeros([2, 3], &device)?`, checked reads `t.into_scalar_checked::<f32>()?`.
//! The twins of burn's free functions (`burn::tensor::module::conv2d`, `activation::softmax`, …)
//! stay free functions under the same paths in [`crate::tensor`]
//! (`burn_guard::tensor::module::try_conv2d`, …) and are not part of the prelude.

pub use crate::error::{ErrorKind, GuardError, Result, ResultExt};
// The layer twins, one trait per burn module: `layer.try_forward(x)?`.
pub use crate::nn::layers::*;
pub use crate::nn::{TryInit, TryInitStateless};
#[cfg(feature = "optim")]
pub use crate::optim::{TryStep, TryTrainingCalls};
pub use crate::quant::TryQuantizeWeights;
pub use crate::store::CheckedLoad;
#[cfg(feature = "store")]
pub use crate::store::{CheckedSnapshot, CheckedStore, TryPathFilter};
pub use crate::tensor::{
    CheckedRead, TryAutodiff, TryAutodiffFloat, TryConvert, TryConvertFloat, TryCreate,
    TryCreateBool, TryCreateFloat, TryCreateInt, TryCreateLike, TryCreateMatrix, TryCreateNumeric,
    TryCreateRange, TryElementwise, TryElementwiseBool, TryElementwiseFloat, TryElementwiseInt,
    TryElementwiseVector, TryIndexing, TryIndexingNumeric, TryIndexingOrdered, TryNumeric,
    TryOversize, TryQuantize, TryReduce, TryReduceFloat, TryReduceNumeric, TryReduceOrdered,
    TrySample, TryTensor, TryView,
};
#[cfg(feature = "vision")]
pub use crate::vision::{
    TryColorConversion, TryConnectedComponents, TryMorphology, TryNms, TryTransform2D,
};
