//! Fallible twins of `burn::Tensor` methods: the same name with a `try_` prefix, the same
//! arguments, a [`Result`](crate::Result) instead of a panic.
//!
//! Laid out by family of operation, not like burn-tensor's `src/tensor/api/` (which is split
//! by tensor kind and trait: `base.rs`, `numeric.rs`, `float.rs`, `int.rs`, `bool.rs`,
//! `orderable.rs`, …). Here `base.rs` holds the five twins of [`TryTensor`] (`narrow`,
//! `swap_dims`, `select`, `cat`, `stack`), `numeric.rs` the four arithmetic operators and
//! `matmul`, `quant.rs` the guarded `quantize_dynamic`, and `view`, `indexing`,
//! `elementwise`, `reduce`, `creation` and `module` the rest, whichever burn file defines them (`try_gather` and `try_slice` are in `indexing.rs`,
//! their burn methods in `api/base.rs`; `try_argmax` is in `reduce.rs`, `argmax` in
//! `api/orderable.rs`). [`check`](crate::check) is grouped the same way, with the rules the
//! families share (dims, devices, index ranges, broadcasting, `matmul`, `narrow`, `cat`,
//! `stack`) in `check/shape.rs`. To find a twin, search for `fn try_<name>`.
//!
//! Each twin does three things: gather the inputs (shapes, dims, devices), run the checks in
//! [`check`](crate::check), and call burn under the [panic backstop](mod@crate::panic). A call
//! refused on shapes, dims, dtypes or devices dispatched nothing; the few checks on values
//! (index ranges, one-hot classes, quantization ranges) read from the device first, as the
//! [crate documentation](crate#what-burn-guard-guarantees-and-what-it-cannot) lists.
//!
//! | burn method | twin | check |
//! |---|---|---|
//! | `Tensor::narrow` | [`TryTensor::try_narrow`] | [`check::dim`](crate::check::dim), [`check::narrow`](crate::check::narrow) |
//! | `Tensor::swap_dims` | [`TryTensor::try_swap_dims`] | [`check::dim`](crate::check::dim) |
//! | `Tensor::select` | [`TryTensor::try_select`] | [`check::dim`](crate::check::dim), [`check::same_device`](crate::check::same_device), [`check::indices`](crate::check::indices) |
//! | `Tensor::cat` | [`try_cat`] | [`check::dim`](crate::check::dim), [`check::cat`](crate::check::cat), [`check::same_device`](crate::check::same_device) |
//! | `Tensor::stack` | [`try_stack`] | [`check::dim`](crate::check::dim), [`check::stack`](crate::check::stack), [`check::same_device`](crate::check::same_device) |
//! | `Tensor::add`, `sub`, `mul`, `div` | [`TryNumeric::try_add`], … | [`check::same_device`](crate::check::same_device), [`check::broadcast`](crate::check::broadcast) |
//! | `Tensor::matmul` | [`TryNumeric::try_matmul`] | [`check::same_device`](crate::check::same_device), [`check::matmul`](crate::check::matmul) |
//!
//! Import every twin at once with `use burn_guard::prelude::*;`.

mod base;
mod convert;
mod creation;
mod elementwise;
mod indexing;
mod module;
mod numeric;
mod quant;
mod reduce;
mod view;

pub use base::{TryTensor, try_cat, try_stack};
pub use creation::*;
pub use elementwise::*;
pub use indexing::*;
pub use module::*;
pub use numeric::TryNumeric;
pub use quant::TryQuantize;
pub use reduce::*;
pub use view::*;

mod sealed {
    /// Only `burn::Tensor` implements the extension traits.
    pub trait Sealed {}
    impl<const D: usize, K: burn::tensor::kind::Basic> Sealed for burn::tensor::Tensor<D, K> {}
}
