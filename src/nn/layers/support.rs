//! What the layer twins share.

use burn::module::Param;
use burn::tensor::{Device, Tensor};

use crate::check;
use crate::error::Result;
use crate::panic::catch;

/// Implemented for the burn modules and configs that have a twin trait, and nothing else.
pub trait Sealed {}

/// Every device equal to the first: a layer's parameters and its inputs.
pub fn same_devices(op: &'static str, devices: &[Device]) -> Result<()> {
    if let Some((first, rest)) = devices.split_first() {
        for device in rest {
            check::same_device(op, first, device)?;
        }
    }
    Ok(())
}

/// The dims of a tensor, as the checks take them.
pub fn dims<const D: usize>(tensor: &Tensor<D>) -> Vec<usize> {
    tensor.dims().to_vec()
}

/// A layer's weight and optional bias, read under one backstop scope: burn draws a parameter
/// at its first read, and the initializer can panic there (a Kaiming bound from a fan of 0).
pub fn weight_and_bias<const D: usize>(
    op: &'static str,
    weight: &Param<Tensor<D>>,
    bias: Option<&Param<Tensor<1>>>,
) -> Result<(Tensor<D>, Option<Tensor<1>>)> {
    catch(op, || (weight.val(), bias.map(Param::val)))
}
