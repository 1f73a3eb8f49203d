//! Twins of the indexing family: slice*, select_dim, select_assign, gather*, scatter*, mask_select*, mask_fill, take, one_hot*, tril/triu and their masks.

use burn::tensor::Tensor;
use burn::tensor::kind::Basic;

use super::sealed::Sealed;

/// Fallible twins of the indexing family: slice*, select_dim, select_assign, gather*, scatter*, mask_select*, mask_fill, take, one_hot*, tril/triu and their masks.
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryIndexing<const D: usize, K: Basic>: Sealed + Sized {}

impl<const D: usize, K: Basic> TryIndexing<D, K> for Tensor<D, K> {}
