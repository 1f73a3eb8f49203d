//! Twins of the element-wise family: comparisons, pairwise max/min, closeness, powers, fmod/remainder, atan2/hypot, cross, dot, and every scalar op (class S).

use burn::tensor::Tensor;
use burn::tensor::kind::Basic;

use super::sealed::Sealed;

/// Fallible twins of the element-wise family: comparisons, pairwise max/min, closeness, powers, fmod/remainder, atan2/hypot, cross, dot, and every scalar op (class S).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryElementwise<const D: usize, K: Basic>: Sealed + Sized {}

impl<const D: usize, K: Basic> TryElementwise<D, K> for Tensor<D, K> {}
