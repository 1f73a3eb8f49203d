//! How the nn twins read a layer's parameters: the one place a `Param` is drawn in `src/nn`.
//!
//! burn-nn creates parameters lazily (`Param::uninitialized`): the initializer runs at the
//! parameter's first read — its `Deref`, so `shape()`, `dims()`, `device()` and `val()` alike —
//! and that draw can panic (a Kaiming bound from a fan of 0). Two questions, two readers:
//!
//! - What the forward will see ([`layout`], [`values`], [`weight_and_bias`]): the parameter is
//!   drawn here, under the backstop, as the forward would draw it. [`Param::lazy_shape`] would
//!   answer without drawing, but not always the shape the forward sees: a `LinearLayout::Col`
//!   `Linear` stores `[d_output, d_input]` and transposes in an `init_mapper` (burn-nn
//!   `modules/linear.rs`), so its lazy shape is the stored one, transposed.
//! - What `init` will allocate ([`declared`](crate::params::walk::declared), the walk every
//!   module reader shares): the stored shape and the device, read lazily, drawing nothing, for
//!   the byte rule before anything is allocated. A mapper may reorder the dims; it keeps the
//!   elements, which is all the byte rule counts.

use burn::module::Param;
use burn::tensor::{Device, Tensor};

use crate::error::Result;
use crate::panic::catch;

/// A parameter's dims and device as the forward sees them, read in place.
///
/// [`Param::val`] clones the tensor out of the parameter, and burn's forward reads it again;
/// the checks only need the dims and the device, so they read the stored tensor through
/// `Deref`. A parameter not drawn yet is drawn here, under the backstop (see the module doc).
///
/// The value read is the stored base; a reparameterization attached to the parameter (burn's
/// LoRA adapter) is applied to it by `val`, and LoRA keeps the base's shape and device.
pub(crate) fn layout<const D: usize>(
    op: &'static str,
    param: &Param<Tensor<D>>,
) -> Result<([usize; D], Device)> {
    let read = || {
        let tensor: &Tensor<D> = param;
        (tensor.dims(), tensor.device())
    };
    if param.is_initialized() {
        Ok(read())
    } else {
        catch(op, read)
    }
}

/// Parameters' values, read under one backstop scope: burn draws a parameter at its first
/// read (see the module doc).
pub(crate) fn values<const D: usize, const N: usize>(
    op: &'static str,
    params: [&Param<Tensor<D>>; N],
) -> Result<[Tensor<D>; N]> {
    catch(op, || params.map(Param::val))
}

/// A layer's weight and optional bias, read under one backstop scope, as [`values`].
pub(crate) fn weight_and_bias<const D: usize>(
    op: &'static str,
    weight: &Param<Tensor<D>>,
    bias: Option<&Param<Tensor<1>>>,
) -> Result<(Tensor<D>, Option<Tensor<1>>)> {
    catch(op, || (weight.val(), bias.map(Param::val)))
}
