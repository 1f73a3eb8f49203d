//! Twins of burn's normalizations in `burn::tensor::module` — `layer_norm`, `batch_norm`,
//! `batch_norm_train` — and of `embedding`.
//!
//! burn's front end checks the batch norms' parameter shapes and neither of the others: a
//! wrong `gamma` length or a token id out of range panics inside the backend (on wgpu, inside
//! a kernel). The twins refuse those, and mismatched devices, before dispatch.

use burn::tensor::module::{self as burn_module, BatchNormTrainOutput};
use burn::tensor::{Int, Tensor};

use super::base::read_indices;
use super::same_devices;
use crate::check::{embedding, norm};
use crate::error::Result;
use crate::panic::catch;

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
    norm::layer_norm(
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
    let n_embedding = embedding::embedding(OP, &weights.dims(), &indices.dims())?;
    same_devices(OP, &[weights.device(), indices.device()])?;
    embedding::embedding_ids(OP, &read_indices(OP, &indices)?, n_embedding)?;
    catch(OP, || burn_module::embedding(weights, indices))
}

/// A batch norm parameter's name and dims, as the rule takes them.
fn param(name: &'static str, tensor: &Tensor<1>) -> (&'static str, Vec<usize>) {
    (name, tensor.dims().to_vec())
}

/// Fallible twin of [`burn_module::batch_norm`].
///
/// Checks that the input has rank ≥ 2 and that `gamma`, `beta`, `mean` and `variance` have
/// shape `[channels]` (`channels = input.dims()[1]`), and — beyond burn — that every tensor is
/// on the same device.
///
/// # Errors
///
/// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a rank below 2.
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) naming the parameter.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::module::try_batch_norm;
///
/// let device = Device::flex();
/// let x = Tensor::<3>::ones([2, 3, 4], &device);
/// let p = || Tensor::<1>::ones([3], &device);
/// assert_eq!(try_batch_norm(x.clone(), p(), p(), p(), p(), 1e-5)?.dims(), [2, 3, 4]);
/// let bad = Tensor::<1>::ones([2], &device);
/// assert!(try_batch_norm(x, p(), p(), p(), bad, 1e-5).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "batch_norm")]
pub fn try_batch_norm<const D: usize>(
    input: Tensor<D>,
    gamma: Tensor<1>,
    beta: Tensor<1>,
    mean: Tensor<1>,
    variance: Tensor<1>,
    epsilon: f64,
) -> Result<Tensor<D>> {
    const OP: &str = "batch_norm";
    let params = [
        param("gamma", &gamma),
        param("beta", &beta),
        param("mean", &mean),
        param("variance", &variance),
    ];
    norm::batch_norm(OP, &input.dims(), &params)?;
    same_devices(
        OP,
        &[
            input.device(),
            gamma.device(),
            beta.device(),
            mean.device(),
            variance.device(),
        ],
    )?;
    catch(OP, || {
        burn_module::batch_norm(input, gamma, beta, mean, variance, epsilon)
    })
}

/// Fallible twin of [`burn_module::batch_norm_train`].
///
/// Checks that the input has rank ≥ 2 and that `gamma` and `beta` have shape `[channels]`,
/// and — beyond burn — that the input is not empty (burn-backend divides by the channel
/// count, and the statistics of an empty batch are undefined) and that every tensor is on the
/// same device.
///
/// # Errors
///
/// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a rank below 2.
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) naming the parameter.
/// - [`GuardError::Empty`](crate::GuardError::Empty) for an empty input.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::module::try_batch_norm_train;
///
/// let device = Device::flex();
/// let x = Tensor::<3>::ones([2, 3, 4], &device);
/// let out = try_batch_norm_train(x.clone(), Tensor::ones([3], &device), Tensor::zeros([3], &device), 1e-5)?;
/// assert_eq!(out.mean.dims(), [3]);
/// assert!(try_batch_norm_train(x, Tensor::ones([4], &device), Tensor::zeros([3], &device), 1e-5).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "batch_norm_train")]
pub fn try_batch_norm_train<const D: usize>(
    input: Tensor<D>,
    gamma: Tensor<1>,
    beta: Tensor<1>,
    epsilon: f64,
) -> Result<BatchNormTrainOutput<D>> {
    const OP: &str = "batch_norm_train";
    let params = [param("gamma", &gamma), param("beta", &beta)];
    norm::batch_norm_train(OP, &input.dims(), &params)?;
    same_devices(OP, &[input.device(), gamma.device(), beta.device()])?;
    catch(OP, || {
        burn_module::batch_norm_train(input, gamma, beta, epsilon)
    })
}
