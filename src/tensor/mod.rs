//! Fallible twins of `burn::Tensor` methods: the same name with a `try_` prefix, the same
//! arguments, a [`Result`](crate::Result) instead of a panic.
//!
//! Laid out like burn-tensor's `src/tensor/api/`: whoever finds `Tensor::narrow` in burn's
//! `api/base.rs` finds `try_narrow` in [`TryTensor`] (`tensor/base.rs`) and its rule in
//! [`check::narrow`](crate::check::narrow).
//!
//! Each twin does three things: gather the inputs (shapes, dims, devices), run the pure checks
//! in [`check`](crate::check), and call burn under the [panic backstop](mod@crate::panic). A
//! refused call dispatched nothing.
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
