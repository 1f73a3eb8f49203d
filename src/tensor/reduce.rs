//! Twins of the reduction and ordering family: sum/mean/prod/max/min/max_abs over dims, argmax/argmin, sort/argsort, topk, cumulative ops, median, var/cov, any_dim/all_dim.

use burn::tensor::Tensor;
use burn::tensor::kind::Basic;

use super::sealed::Sealed;

/// Fallible twins of the reduction and ordering family: sum/mean/prod/max/min/max_abs over dims, argmax/argmin, sort/argsort, topk, cumulative ops, median, var/cov, any_dim/all_dim.
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryReduce<const D: usize, K: Basic>: Sealed + Sized {}

impl<const D: usize, K: Basic> TryReduce<D, K> for Tensor<D, K> {}
