//! Twins of the creation, conversion, autodiff and misc family: empty/zeros/ones/full (+ _like), from_data/floats/ints/bool, random, arange, eye, cartesian_grid, cast, scalar/data reads, autodiff switches, quantize.

use burn::tensor::Tensor;
use burn::tensor::kind::Basic;

use super::sealed::Sealed;

/// Fallible twins of the creation, conversion, autodiff and misc family: empty/zeros/ones/full (+ _like), from_data/floats/ints/bool, random, arange, eye, cartesian_grid, cast, scalar/data reads, autodiff switches, quantize.
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryConvert<const D: usize, K: Basic>: Sealed + Sized {}

impl<const D: usize, K: Basic> TryConvert<D, K> for Tensor<D, K> {}
