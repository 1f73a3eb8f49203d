//! Fallible twins of `burn::Tensor`'s methods and associated functions: the same name with a
//! `try_` prefix, the same arguments, a [`Result`] instead of a panic.
//!
//! Three shapes of twin, each called the way burn's original is:
//!
//! - **methods**: `t.try_reshape([2, 3])?` — the `Try*` extension traits ([`TryTensor`],
//!   [`TryView`], [`TryIndexing`], …). burn has no method named `try_<name>` for any of them, so
//!   method-call syntax can only reach the twin.
//! - **associated functions**: `Tensor::<2>::try_zeros([2, 3], &device)?`,
//!   `Tensor::try_cat(vec![a, b], 0)?` — the `TryCreate*` traits, grouped as burn groups its
//!   inherent impls, by the kind bound: [`TryCreate`] (any kind: `empty`, `zeros`, `ones`,
//!   `full`, `from_data`, `from_dispatch`, `cat`, `stack`), [`TryCreateNumeric`] (`random`),
//!   [`TryCreateMatrix`] (`eye`, on `Tensor<2, K>`), [`TryCreateFloat`] (`from_floats`),
//!   [`TryCreateInt`] (`from_ints`, `cartesian_grid`), [`TryCreateRange`] (`arange`,
//!   `arange_step`, on `Tensor<1, Int>`) and [`TryCreateBool`] (`from_bool`, `triu_mask`,
//!   `tril_mask`, `diag_mask`).
//! - **checked reads**: `t.into_scalar_checked::<f32>()?` — [`CheckedRead`]. burn 0.22 has
//!   inherent `Tensor::try_into_scalar`, `try_to_data_as`, `try_into_data_as`,
//!   `try_to_data_dtype` and `try_into_data_dtype` that still panic on a value the target type
//!   cannot hold; an inherent method wins over a trait method, so a twin with that name would be
//!   silently bypassed. No twin shares a name with a burn inherent method.
//!
//! The twins of burn's *free* functions live under the same paths as burn's:
//! [`module::try_conv2d`] for `burn::tensor::module::conv2d`, [`activation::try_softmax`],
//! [`loss::try_cross_entropy_with_logits`], [`grid::try_meshgrid`],
//! [`quantization::try_compute_range`], and [`try_transaction_register`] for
//! `Transaction::register`. The [prelude](crate::prelude) holds the traits only.
//!
//! **No `try_` twin falls back**: a twin runs on the tensor's own device or refuses. Fallback
//! to another device exists for quantization and for outputs too large for their device, under
//! a [`Policy`](crate::policy::Policy) passed explicitly; see [`policy`](crate::policy),
//! [`TryQuantize::quantize_dynamic_with`] and [`TryOversize::try_matmul_or_fallback`].
//!
//! Laid out by family of operation, not like burn-tensor's `src/tensor/api/` (which is split
//! by tensor kind and trait: `base.rs`, `numeric.rs`, `float.rs`, `int.rs`, `bool.rs`,
//! `orderable.rs`, …). Here `base.rs` holds [`TryTensor`] (`narrow`, `swap_dims`, `select`) and
//! the bodies of `cat` and `stack`, `numeric.rs` the four arithmetic operators and `matmul`,
//! `quant.rs` the guarded `quantize_dynamic`, `creation.rs` the `TryCreate*` traits and
//! [`CheckedRead`], and `view`, `indexing`, `elementwise` and `reduce` the rest of the methods,
//! whichever burn file defines them (`try_gather` and `try_slice` are in `indexing.rs`, their
//! burn methods in `api/base.rs`; `try_argmax` is in `reduce.rs`, `argmax` in
//! `api/orderable.rs`). [`check`](crate::check) is grouped the same
//! way, with the rules the families share (dims, devices, index ranges, broadcasting, `matmul`,
//! `narrow`, `cat`, `stack`) in `check/shape.rs`. To find a twin, search for `fn try_<name>`
//! (or `fn <name>_checked`).
//!
//! The twins of burn's free functions are one file per concern: `activation.rs`, `loss.rs` and
//! `grid.rs` are the public modules of the same names; `conv.rs`, `pool.rs`, `interpolate.rs`,
//! `linear.rs`, `norm.rs`, `attention.rs` and `ctc.rs` make up [`module`]. The per-dimension
//! families (conv, transposed conv, max/avg/adaptive pools) and the softmax family are macro
//! tables, one row per function.
//!
//! Each twin does three things: gather the inputs (shapes, dims, devices), run the checks in
//! [`check`](crate::check), and call burn under the [panic backstop](mod@crate::panic). A call
//! refused on shapes, dims, dtypes or devices dispatched nothing; the few checks on values
//! (index ranges, one-hot classes, quantization ranges, checked reads) read from the device
//! first, as the [crate documentation](crate#what-burn-guard-guarantees-and-what-it-cannot)
//! lists.
//!
//! | burn | twin | check |
//! |---|---|---|
//! | `Tensor::narrow` | [`TryTensor::try_narrow`] | [`check::dim`](crate::check::dim), [`check::narrow`](crate::check::narrow) |
//! | `Tensor::swap_dims` | [`TryTensor::try_swap_dims`] | [`check::dim`](crate::check::dim) |
//! | `Tensor::select` | [`TryTensor::try_select`] | [`check::dim`](crate::check::dim), [`check::same_device`](crate::check::same_device), [`check::indices`](crate::check::indices) |
//! | `Tensor::cat` | [`TryCreate::try_cat`] | [`check::dim`](crate::check::dim), [`check::cat`](crate::check::cat), [`check::same_device`](crate::check::same_device) |
//! | `Tensor::stack` | [`TryCreate::try_stack`] | [`check::dim`](crate::check::dim), [`check::stack`](crate::check::stack), [`check::same_device`](crate::check::same_device) |
//! | `Tensor::add`, `sub`, `mul`, `div` | [`TryNumeric::try_add`], … | [`check::same_device`](crate::check::same_device), [`check::broadcast`](crate::check::broadcast) |
//! | `Tensor::matmul` | [`TryNumeric::try_matmul`] | [`check::same_device`](crate::check::same_device), [`check::matmul`](crate::check::matmul) |
//!
//! Import every trait at once with `use burn_guard::prelude::*;`.
//!
//! # The calls reach the twins
//!
//! These lines only type-check if method-call and path syntax reached burn-guard's twins:
//! each result is a [`crate::Result`], which burn's own methods never return.
//!
//! ```
//! use burn::tensor::{Device, Int, Tensor};
//! use burn_guard::prelude::*;
//!
//! let device = Device::flex();
//! let t = Tensor::<1>::from_floats([2.5], &device);
//! let v: burn_guard::Result<f32> = t.clone().into_scalar_checked::<f32>();
//! assert_eq!(v?, 2.5);
//! let z: burn_guard::Result<Tensor<2>> = Tensor::<2>::try_zeros([2, 3], &device);
//! assert_eq!(z?.dims(), [2, 3]);
//! let c: burn_guard::Result<Tensor<1>> = Tensor::try_cat(vec![t.clone(), t], 0);
//! assert_eq!(c?.dims(), [2]);
//! let r: burn_guard::Result<Tensor<1, Int>> = Tensor::<1, Int>::try_arange(0..4, &device);
//! assert_eq!(r?.dims(), [4]);
//! # Ok::<(), burn_guard::GuardError>(())
//! ```
//!
//! burn's inherent `try_into_scalar` is another function, with another error type: asking it for
//! a burn-guard result does not compile.
//!
//! ```compile_fail,E0308
//! use burn::tensor::{Device, Tensor};
//! use burn_guard::prelude::*;
//!
//! let t = Tensor::<1>::from_floats([2.5], &Device::flex());
//! let v: burn_guard::Result<f32> = t.try_into_scalar::<f32>();
//! ```
//!
//! The free `try_zeros` of earlier versions is gone: the prelude holds traits only.
//!
//! ```compile_fail,E0432
//! use burn_guard::prelude::try_zeros;
//! ```
//!
//! Nor is it under `burn_guard::tensor`:
//!
//! ```compile_fail,E0432
//! use burn_guard::tensor::try_zeros;
//! ```

use burn::tensor::{DType, Device};

use crate::error::Result;

pub mod activation;
mod attention;
mod autodiff;
mod base;
mod bitwise;
mod conv;
mod convert;
mod creation;
mod ctc;
mod elementwise;
mod float;
pub mod grid;
mod indexing;
mod interpolate;
mod linear;
pub mod loss;
mod norm;
mod numeric;
mod oversize;
pub(crate) mod pool;
mod quant;
mod read;
mod reduce;
mod rows;
mod view;

pub use autodiff::{TryAutodiff, TryAutodiffFloat};
pub use base::TryTensor;
pub(crate) use base::read_indices;
pub use bitwise::{TryElementwiseBool, TryElementwiseInt};
pub(crate) use conv::{check_conv, check_deform_conv2d};
pub use creation::{
    TryCreate, TryCreateBool, TryCreateFloat, TryCreateInt, TryCreateLike, TryCreateMatrix,
    TryCreateNumeric, TryCreateRange, TrySample,
};
pub(crate) use ctc::check_ctc;
pub use elementwise::{TryElementwise, TryElementwiseVector};
pub use float::TryElementwiseFloat;
pub use indexing::{TryIndexing, TryIndexingNumeric, TryIndexingOrdered};
pub use numeric::{EinsumOperand, TryNumeric};
pub use oversize::TryOversize;
pub use quant::TryQuantize;
pub use read::{CheckedRead, TryConvert, TryConvertFloat, try_transaction_register};
pub use reduce::{TryReduce, TryReduceFloat, TryReduceNumeric, TryReduceOrdered};
pub(crate) use rows::twins;
pub use view::{ExpandSpec, MovedimSpec, PaddingSpec, ReshapeSpec, TryView};

/// Twins of burn's free functions in `burn::tensor::module`: `try_conv2d`, `try_linear`, …
pub mod module {
    pub use super::attention::{try_attention, try_attention_fallback};
    pub use super::conv::{
        try_conv_transpose1d, try_conv_transpose2d, try_conv_transpose3d, try_conv1d, try_conv2d,
        try_conv2d_weight_backward, try_conv3d, try_deform_conv2d,
    };
    pub use super::ctc::try_ctc_loss;
    pub use super::interpolate::try_interpolate;
    pub use super::linear::try_linear;
    pub use super::norm::{try_batch_norm, try_batch_norm_train, try_embedding, try_layer_norm};
    pub use super::pool::{
        try_adaptive_avg_pool1d, try_adaptive_avg_pool2d, try_adaptive_avg_pool3d, try_avg_pool1d,
        try_avg_pool2d, try_avg_pool2d_backward, try_fold4d, try_max_pool1d,
        try_max_pool1d_with_indices, try_max_pool2d, try_max_pool2d_with_indices,
        try_max_pool2d_with_indices_backward, try_unfold4d,
    };
}

/// Twins of burn's free functions in `burn::tensor::quantization`.
pub mod quantization {
    pub use super::quant::{try_compute_q_params, try_compute_range};
}

/// Every device equal to the first (burn's module functions check none of them).
pub(crate) fn same_devices(op: &'static str, devices: &[Device]) -> Result<()> {
    if let Some((first, rest)) = devices.split_first() {
        for device in rest {
            crate::capability::same_device(op, first, device)?;
        }
    }
    Ok(())
}

/// The byte rule on an operation's output of `shape`, counted in the dtype
/// [`check::bytes::output_dtype`](crate::check::bytes::output_dtype) gives for the input's.
pub(crate) fn output_fits(
    op: &'static str,
    shape: &[usize],
    input: DType,
    device: &Device,
) -> Result<()> {
    let dtype = crate::check::bytes::output_dtype(input);
    crate::capability::require_fits(op, shape, dtype, device).map(drop)
}

mod sealed {
    /// Only `burn::Tensor` implements the extension traits.
    pub trait Sealed {}
    impl<const D: usize, K: burn::tensor::kind::Basic> Sealed for burn::tensor::Tensor<D, K> {}
}
