//! Twins of the reshape/view and split family: reshape, permute, movedim, flip, flatten, squeeze*, unsqueeze*, expand, unfold, roll*, repeat*, pad, chunk, split*, iter_dim, meshgrid*.

use burn::tensor::Tensor;
use burn::tensor::kind::Basic;

use super::sealed::Sealed;

/// Fallible twins of the reshape/view and split family: reshape, permute, movedim, flip, flatten, squeeze*, unsqueeze*, expand, unfold, roll*, repeat*, pad, chunk, split*, iter_dim, meshgrid*.
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryView<const D: usize, K: Basic>: Sealed + Sized {}

impl<const D: usize, K: Basic> TryView<D, K> for Tensor<D, K> {}
