//! What the layer twins share.

use burn::tensor::{Device, Tensor};

use crate::check;
use crate::error::Result;

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
