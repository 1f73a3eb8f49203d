//! Twins of burn's `layer_norm` and `embedding` in `burn::tensor::module`.
//!
//! burn's front end checks neither: a wrong `gamma` length or a token id out of range panics
//! inside the backend (on wgpu, inside a kernel). The twins refuse both before dispatch.

use burn::tensor::module as burn_module;
use burn::tensor::{Device, Int, Tensor};

use super::base::read_indices;
use crate::check::norm as rules;
use crate::error::Result;
use crate::panic::catch;

fn same_devices(op: &'static str, devices: &[Device]) -> Result<()> {
    if let Some(first) = devices.first() {
        for device in devices {
            crate::capability::same_device(op, first, device)?;
        }
    }
    Ok(())
}

/// Fallible twin of [`burn_module::layer_norm`].
///
/// Checks — beyond burn's front end, which leaves them to the backend — that `gamma` (and
/// `beta`) has shape `[d_model]`, `d_model` being the input's last dimension, and that every
/// tensor is on the same device.
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with the input's and the
///   parameter's shapes.
/// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a rank-0 input.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::module::try_layer_norm;
///
/// let device = Device::flex();
/// let x = Tensor::<2>::ones([2, 4], &device);
/// let y = try_layer_norm(x.clone(), Tensor::ones([4], &device), None, 1e-5)?;
/// assert_eq!(y.dims(), [2, 4]);
/// assert!(try_layer_norm(x, Tensor::ones([3], &device), None, 1e-5).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "layer_norm")]
pub fn try_layer_norm<const D: usize>(
    input: Tensor<D>,
    gamma: Tensor<1>,
    beta: Option<Tensor<1>>,
    epsilon: f64,
) -> Result<Tensor<D>> {
    const OP: &str = "layer_norm";
    let beta_dims = beta.as_ref().map(Tensor::dims);
    rules::layer_norm(
        OP,
        &input.dims(),
        &gamma.dims(),
        beta_dims.as_ref().map(|d| d.as_slice()),
    )?;
    let mut devices = vec![input.device(), gamma.device()];
    devices.extend(beta.as_ref().map(Tensor::device));
    same_devices(OP, &devices)?;
    catch(OP, || burn_module::layer_norm(input, gamma, beta, epsilon))
}

/// Fallible twin of [`burn_module::embedding`]: `weights [n_embedding, d_model]`,
/// `indices [batch, seq]` → `[batch, seq, d_model]`.
///
/// Checks — beyond burn, which leaves them to the backend — that every id is in
/// `0..n_embedding` and that both tensors are on the same device.
///
/// The id check reads `indices` back from the device: one synchronous read, counted by
/// [`value_reads::count`](crate::value_reads::count) and skipped inside
/// [`value_reads::vouched`](crate::value_reads::vouched) (an id out of range then reaches the
/// backend: a backend panic on Flex and NdArray, caught as
/// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic); an unchecked read on wgpu).
///
/// # Errors
///
/// - [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange) with the first id
///   out of range.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Int, Tensor};
/// use burn_guard::tensor::module::try_embedding;
///
/// let device = Device::flex();
/// let weights = Tensor::<2>::ones([10, 4], &device);
/// let ids = Tensor::<2, Int>::from_ints([[1, 2, 9]], &device);
/// assert_eq!(try_embedding(weights.clone(), ids)?.dims(), [1, 3, 4]);
/// let bad = Tensor::<2, Int>::from_ints([[10]], &device);
/// assert!(try_embedding(weights, bad).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "embedding")]
pub fn try_embedding(weights: Tensor<2>, indices: Tensor<2, Int>) -> Result<Tensor<3>> {
    const OP: &str = "embedding";
    let n_embedding = rules::embedding(OP, &weights.dims(), &indices.dims())?;
    same_devices(OP, &[weights.device(), indices.device()])?;
    rules::embedding_ids(OP, &read_indices(OP, &indices)?, n_embedding)?;
    catch(OP, || burn_module::embedding(weights, indices))
}
