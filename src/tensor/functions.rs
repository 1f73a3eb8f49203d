//! Twins of burn's free functions in `burn::tensor::module`, `burn::tensor::activation` and
//! `burn::tensor::loss` (and `affine_grid_2d`): `try_conv2d`, `try_softmax`, …
//!
//! burn checks few of these functions' preconditions itself and leaves the rest to the backend
//! (bias lengths, strides of 0, a kernel larger than the padded input, mismatched devices).
//! The twins refuse those before dispatch too; each twin's doc lists what goes beyond burn.

use burn::tensor::module::{self as burn_module, BatchNormTrainOutput};
use burn::tensor::ops::{ConvOptions, ConvTransposeOptions, DeformConvOptions, InterpolateOptions};
use burn::tensor::{AsIndex, Device, Tensor, activation, grid, loss};

use crate::check::{self, module as rules};
use crate::error::Result;
use crate::panic::catch;

/// Every device equal to the first (burn's module functions check none of them).
fn same_devices(op: &'static str, devices: &[Device]) -> Result<()> {
    if let Some(first) = devices.first() {
        for device in devices {
            crate::capability::same_device(op, first, device)?;
        }
    }
    Ok(())
}

fn dims<const D: usize>(tensor: &Tensor<D>) -> Vec<usize> {
    tensor.dims().to_vec()
}

/// Fallible twin of [`activation::softmax`].
///
/// Checks that `dim` is in `-D..D`. An empty tensor is returned as is, without dispatch
/// (NdArray panics reducing an empty axis).
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::activation::try_softmax;
///
/// let t = Tensor::<2>::ones([2, 4], &Device::flex());
/// assert_eq!(try_softmax(t.clone(), -1)?.dims(), [2, 4]);
/// assert!(try_softmax(t, 2).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "softmax")]
pub fn try_softmax<const D: usize>(tensor: Tensor<D>, dim: impl AsIndex) -> Result<Tensor<D>> {
    const OP: &str = "softmax";
    let dim = check::dim(OP, dim.as_index(), D)?;
    if tensor.shape().num_elements() == 0 {
        // NdArray panics reducing an empty axis; the result is the empty tensor itself.
        return Ok(tensor);
    }
    catch(OP, || activation::softmax(tensor, dim))
}

/// Fallible twin of [`activation::softmin`].
///
/// Checks that `dim` is in `-D..D`. An empty tensor is returned as is, without dispatch
/// (NdArray panics reducing an empty axis).
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::activation::try_softmin;
///
/// let t = Tensor::<2>::ones([2, 4], &Device::flex());
/// assert_eq!(try_softmin(t.clone(), 0)?.dims(), [2, 4]);
/// assert!(try_softmin(t, -3).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "softmin")]
pub fn try_softmin<const D: usize>(tensor: Tensor<D>, dim: impl AsIndex) -> Result<Tensor<D>> {
    const OP: &str = "softmin";
    let dim = check::dim(OP, dim.as_index(), D)?;
    if tensor.shape().num_elements() == 0 {
        // NdArray panics reducing an empty axis; the result is the empty tensor itself.
        return Ok(tensor);
    }
    catch(OP, || activation::softmin(tensor, dim))
}

/// Fallible twin of [`activation::quiet_softmax`].
///
/// Checks that `dim` is in `-D..D`. An empty tensor is returned as is, without dispatch
/// (burn's own `max_dim` inside `quiet_softmax` panics on an empty axis, on Flex and NdArray).
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::activation::try_quiet_softmax;
///
/// let t = Tensor::<2>::ones([2, 4], &Device::flex());
/// assert_eq!(try_quiet_softmax(t.clone(), 1)?.dims(), [2, 4]);
/// assert!(try_quiet_softmax(t, 2).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "quiet_softmax")]
pub fn try_quiet_softmax<const D: usize>(
    tensor: Tensor<D>,
    dim: impl AsIndex,
) -> Result<Tensor<D>> {
    const OP: &str = "quiet_softmax";
    let dim = check::dim(OP, dim.as_index(), D)?;
    if tensor.shape().num_elements() == 0 {
        // NdArray panics reducing an empty axis; the result is the empty tensor itself.
        return Ok(tensor);
    }
    catch(OP, || activation::quiet_softmax(tensor, dim))
}

/// Fallible twin of [`activation::log_softmax`].
///
/// Checks that `dim` is in `-D..D`. An empty tensor is returned as is, without dispatch
/// (NdArray panics reducing an empty axis).
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::activation::try_log_softmax;
///
/// let t = Tensor::<2>::ones([2, 4], &Device::flex());
/// assert_eq!(try_log_softmax(t.clone(), -1)?.dims(), [2, 4]);
/// let err = try_log_softmax(t, 5).unwrap_err();
/// assert_eq!(err.to_string(), "log_softmax: dimension out of range; got dim 5 for rank 2");
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "log_softmax")]
pub fn try_log_softmax<const D: usize>(tensor: Tensor<D>, dim: impl AsIndex) -> Result<Tensor<D>> {
    const OP: &str = "log_softmax";
    let dim = check::dim(OP, dim.as_index(), D)?;
    if tensor.shape().num_elements() == 0 {
        // NdArray panics reducing an empty axis; the result is the empty tensor itself.
        return Ok(tensor);
    }
    catch(OP, || activation::log_softmax(tensor, dim))
}

/// Fallible twin of [`activation::glu`].
///
/// Checks that `dim` is in `-D..D` and that the size along it is even.
///
/// # Errors
///
/// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
/// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for an odd size.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::activation::try_glu;
///
/// let t = Tensor::<2>::ones([2, 4], &Device::flex());
/// assert_eq!(try_glu(t.clone(), 1)?.dims(), [2, 2]);
/// assert!(try_glu(Tensor::<2>::ones([2, 3], &Device::flex()), 1).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "glu")]
pub fn try_glu<const D: usize>(tensor: Tensor<D>, dim: impl AsIndex) -> Result<Tensor<D>> {
    const OP: &str = "glu";
    let (dim, _) = rules::glu(OP, &dims(&tensor), dim.as_index())?;
    catch(OP, || activation::glu(tensor, dim))
}

/// Fallible twin of [`activation::prelu`].
///
/// Checks that `alpha` holds one weight, or (rank ≥ 2) one weight per channel (`dims[1]`),
/// and — beyond burn — that both are on the same device, and that the channel count is not 0
/// (burn's reshape of the weights panics on a zero-sized dim: a burn bug, refused here).
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with both shapes.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::activation::try_prelu;
///
/// let device = Device::flex();
/// let t = Tensor::<3>::ones([2, 3, 4], &device);
/// assert!(try_prelu(t.clone(), Tensor::<1>::ones([3], &device)).is_ok());
/// assert!(try_prelu(t, Tensor::<1>::ones([2], &device)).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "prelu")]
pub fn try_prelu<const D: usize>(tensor: Tensor<D>, alpha: Tensor<1>) -> Result<Tensor<D>> {
    const OP: &str = "prelu";
    rules::prelu(OP, &dims(&tensor), &dims(&alpha))?;
    same_devices(OP, &[tensor.device(), alpha.device()])?;
    catch(OP, || activation::prelu(tensor, alpha))
}

/// Fallible twin of [`loss::cross_entropy_with_logits`].
///
/// Checks that the shapes broadcast and the tensors are on the same device (burn's `mul`
/// check).
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with both shapes.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::loss::try_cross_entropy_with_logits;
///
/// let device = Device::flex();
/// let logits = Tensor::<2>::ones([2, 3], &device);
/// let loss = try_cross_entropy_with_logits(logits.clone(), Tensor::ones([2, 3], &device))?;
/// assert_eq!(loss.dims(), [1]);
/// assert!(try_cross_entropy_with_logits(logits, Tensor::ones([2, 4], &device)).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "cross_entropy_with_logits")]
pub fn try_cross_entropy_with_logits<const D: usize>(
    logits: Tensor<D>,
    target_probs: Tensor<D>,
) -> Result<Tensor<1>> {
    const OP: &str = "cross_entropy_with_logits";
    rules::cross_entropy_with_logits(OP, &dims(&logits), &dims(&target_probs))?;
    same_devices(OP, &[logits.device(), target_probs.device()])?;
    catch(OP, || loss::cross_entropy_with_logits(logits, target_probs))
}

/// Fallible twin of [`burn_module::linear`].
///
/// Checks — all beyond burn, which leaves them to the backend for a float weight — that
/// `input[.., k]` matches `weight[k, n]`, that `bias` has shape `[n]`, that every tensor is on
/// the same device, and that a rank-1 input is not empty (burn's `unsqueeze` panics on a
/// zero-sized dim: a burn bug, refused here).
///
/// An empty output, or an empty inner dimension `k`, is computed here without dispatching the
/// matmul (zeros, plus the bias): NdArray's matmul divides by zero on an empty operand.
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with the shapes involved.
/// - [`GuardError::Empty`](crate::GuardError::Empty) for an empty rank-1 input.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::module::try_linear;
///
/// let device = Device::flex();
/// let x = Tensor::<2>::ones([2, 3], &device);
/// let y = try_linear(x.clone(), Tensor::ones([3, 5], &device), Some(Tensor::zeros([5], &device)))?;
/// assert_eq!(y.dims(), [2, 5]);
/// assert!(try_linear(x, Tensor::ones([4, 5], &device), None).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "linear")]
pub fn try_linear<const D: usize>(
    input: Tensor<D>,
    weight: Tensor<2>,
    bias: Option<Tensor<1>>,
) -> Result<Tensor<D>> {
    const OP: &str = "linear";
    // Shapes on the stack and devices compared pairwise: this runs on every layer's forward.
    let bias_dims = bias.as_ref().map(Tensor::dims);
    let input_dims = input.dims();
    let d_output = rules::linear_features(
        OP,
        &input_dims,
        &weight.dims(),
        bias_dims.as_ref().map(|d| &d[..]),
    )?
    .d_output;
    // The output: the input's leading dims, then `d_output` (the rule refused rank 0).
    let mut out = input_dims;
    if let Some(last) = out.last_mut() {
        *last = d_output;
    }
    let device = input.device();
    crate::capability::same_device(OP, &device, &weight.device())?;
    if let Some(bias) = &bias {
        crate::capability::same_device(OP, &device, &bias.device())?;
    }
    let empty_output = out.contains(&0);
    let empty_inner = input_dims.last() == Some(&0);
    if empty_output || empty_inner {
        // NdArray's matmul divides by zero on an empty operand; the result is known without it.
        return catch(OP, || {
            let device = input.device();
            let dtype = input.dtype();
            let zeros = if dtype.is_float() {
                Tensor::<D>::zeros(out, (&device, dtype))
            } else {
                Tensor::<D>::zeros(out, &device)
            };
            match bias {
                Some(bias) if !empty_output => zeros + bias.unsqueeze::<D>(),
                _ => zeros,
            }
        });
    }
    catch(OP, || burn_module::linear(input, weight, bias))
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
        ("gamma", dims(&gamma)),
        ("beta", dims(&beta)),
        ("mean", dims(&mean)),
        ("variance", dims(&variance)),
    ];
    rules::batch_norm(OP, &dims(&input), &params)?;
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
    let params = [("gamma", dims(&gamma)), ("beta", dims(&beta))];
    rules::batch_norm_train(OP, &dims(&input), &params)?;
    same_devices(OP, &[input.device(), gamma.device(), beta.device()])?;
    catch(OP, || {
        burn_module::batch_norm_train(input, gamma, beta, epsilon)
    })
}

/// Converts burn's option argument, turning a panic in a conversion (the deprecated
/// `PaddedConvOptions` re-checks its stride) into a refusal.
fn into_options<T, O: Into<T>>(op: &'static str, options: O) -> Result<T> {
    catch(op, || options.into()).map_err(|err| crate::GuardError::InvalidArgument {
        op,
        rule: "the convolution options are invalid",
        got: format!("conversion={err}"),
    })
}

/// The devices of a convolution's operands, in argument order.
fn operand_devices<const D: usize>(
    x: &Tensor<D>,
    weight: &Tensor<D>,
    bias: Option<&Tensor<1>>,
) -> Vec<Device> {
    let mut devices = vec![x.device(), weight.device()];
    devices.extend(bias.map(Tensor::device));
    devices
}

/// The checks every `conv{1,2,3}d` twin runs: [`rules::conv`] and the devices.
fn check_conv<const D: usize, const N: usize>(
    op: &'static str,
    x: &Tensor<D>,
    weight: &Tensor<D>,
    bias: Option<&Tensor<1>>,
    options: &ConvOptions<N>,
    symmetric_only: bool,
) -> Result<()> {
    let bias_dims = bias.map(dims);
    rules::conv(
        op,
        &x.dims(),
        &weight.dims(),
        bias_dims.as_deref(),
        options,
        symmetric_only,
    )?;
    same_devices(op, &operand_devices(x, weight, bias))
}

/// Fallible twin of [`burn_module::conv1d`].
///
/// Checks burn's rule `x.dims()[1] == weight.dims()[1] · groups`, and — beyond burn,
/// which leaves these to the backend — that stride, dilation and groups are non-zero (the
/// options' pub fields bypass the constructors' checks), that `weight.dims()[0]` is divisible
/// by `groups`, that `bias` has shape `[weight.dims()[0]]`, that kernel sizes are non-zero,
/// that the dilated kernel fits in the padded input (burn-backend's output-size arithmetic
/// underflows otherwise), and that every tensor is on the same device.
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for channel, bias and
///   kernel mismatches.
/// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a stride, dilation or group
///   count of 0; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for other
///   bad options or a kernel larger than the padded input.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::ConvOptions;
/// use burn_guard::tensor::module::try_conv1d;
///
/// let device = Device::flex();
/// let x = Tensor::<3>::ones([1, 2, 5], &device);
/// let options = ConvOptions::new([1], [0], [1], 1);
/// assert_eq!(try_conv1d(x.clone(), Tensor::ones([4, 2, 3], &device), None, options.clone())?.dims(), [1, 4, 3]);
/// assert!(try_conv1d(x, Tensor::ones([4, 3, 3], &device), None, options).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "conv1d")]
pub fn try_conv1d(
    x: Tensor<3>,
    weight: Tensor<3>,
    bias: Option<Tensor<1>>,
    options: impl Into<ConvOptions<1>>,
) -> Result<Tensor<3>> {
    const OP: &str = "conv1d";
    let options = into_options(OP, options)?;
    check_conv(OP, &x, &weight, bias.as_ref(), &options, false)?;
    catch(OP, || burn_module::conv1d(x, weight, bias, options))
}

/// Fallible twin of [`burn_module::conv2d`].
///
/// Checks burn's rule `x.dims()[1] == weight.dims()[1] · groups`, and — beyond burn,
/// which leaves these to the backend — that stride, dilation and groups are non-zero (the
/// options' pub fields bypass the constructors' checks), that `weight.dims()[0]` is divisible
/// by `groups`, that `bias` has shape `[weight.dims()[0]]`, that kernel sizes are non-zero,
/// that the dilated kernel fits in the padded input (burn-backend's output-size arithmetic
/// underflows otherwise), and that every tensor is on the same device.
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for channel, bias and
///   kernel mismatches.
/// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a stride, dilation or group
///   count of 0; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for other
///   bad options or a kernel larger than the padded input.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::ConvOptions;
/// use burn_guard::tensor::module::try_conv2d;
///
/// let device = Device::flex();
/// let x = Tensor::<4>::ones([1, 2, 5, 5], &device);
/// let options = ConvOptions::new([1, 1], [0, 0], [1, 1], 1);
/// let w = Tensor::<4>::ones([4, 2, 3, 3], &device);
/// assert_eq!(try_conv2d(x.clone(), w.clone(), None, options.clone())?.dims(), [1, 4, 3, 3]);
/// // burn leaves the bias length to the backend; we refuse it.
/// assert!(try_conv2d(x, w, Some(Tensor::ones([3], &device)), options).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "conv2d")]
pub fn try_conv2d(
    x: Tensor<4>,
    weight: Tensor<4>,
    bias: Option<Tensor<1>>,
    options: impl Into<ConvOptions<2>>,
) -> Result<Tensor<4>> {
    const OP: &str = "conv2d";
    let options = into_options(OP, options)?;
    check_conv(OP, &x, &weight, bias.as_ref(), &options, false)?;
    catch(OP, || burn_module::conv2d(x, weight, bias, options))
}

/// Fallible twin of [`burn_module::conv3d`].
///
/// Checks burn's rule `x.dims()[1] == weight.dims()[1] · groups` and, for `conv3d`, symmetric padding (burn panics
/// otherwise), and — beyond burn,
/// which leaves these to the backend — that stride, dilation and groups are non-zero (the
/// options' pub fields bypass the constructors' checks), that `weight.dims()[0]` is divisible
/// by `groups`, that `bias` has shape `[weight.dims()[0]]`, that kernel sizes are non-zero,
/// that the dilated kernel fits in the padded input (burn-backend's output-size arithmetic
/// underflows otherwise), and that every tensor is on the same device.
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for channel, bias and
///   kernel mismatches.
/// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a stride, dilation or group
///   count of 0; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for other
///   bad options, asymmetric padding or a kernel larger than the padded input.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::ConvOptions;
/// use burn_guard::tensor::module::try_conv3d;
///
/// let device = Device::flex();
/// let x = Tensor::<5>::ones([1, 1, 3, 3, 3], &device);
/// let w = Tensor::<5>::ones([2, 1, 2, 2, 2], &device);
/// let options = ConvOptions::new([1, 1, 1], [0, 0, 0], [1, 1, 1], 1);
/// assert_eq!(try_conv3d(x.clone(), w.clone(), None, options)?.dims(), [1, 2, 2, 2, 2]);
/// let asym = ConvOptions::new_with_padding([1, 1, 1], [(1, 0), (0, 0), (0, 0)], [1, 1, 1], 1);
/// assert!(try_conv3d(x, w, None, asym).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "conv3d")]
pub fn try_conv3d(
    x: Tensor<5>,
    weight: Tensor<5>,
    bias: Option<Tensor<1>>,
    options: impl Into<ConvOptions<3>>,
) -> Result<Tensor<5>> {
    const OP: &str = "conv3d";
    let options = into_options(OP, options)?;
    check_conv(OP, &x, &weight, bias.as_ref(), &options, true)?;
    catch(OP, || burn_module::conv3d(x, weight, bias, options))
}

/// Fallible twin of [`burn_module::conv_transpose1d`].
///
/// Checks burn's rule `x.dims()[1] == weight.dims()[0]`, and — beyond burn, which leaves
/// these to the backend — that stride, dilation and groups are non-zero, that
/// `weight.dims()[0]` is divisible by `groups`, that `bias` has shape
/// `[weight.dims()[1] · groups]`, that kernel and input sizes are non-zero, that the output
/// size `(in - 1)·stride + dilation·(kernel - 1) + 1 + padding_out - 2·padding` is not
/// negative (0 is allowed: an empty result), and that every tensor is on the same device.
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for channel, bias and
///   kernel mismatches.
/// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a stride, dilation or group
///   count of 0; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for other
///   bad options or a negative output size.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::ConvTransposeOptions;
/// use burn_guard::tensor::module::try_conv_transpose1d;
///
/// let device = Device::flex();
/// let x = Tensor::<3>::ones([1, 2, 5], &device);
/// let options = ConvTransposeOptions::new([1], [0], [0], [1], 1);
/// assert_eq!(try_conv_transpose1d(x.clone(), Tensor::ones([2, 3, 3], &device), None, options.clone())?.dims(), [1, 3, 7]);
/// assert!(try_conv_transpose1d(x, Tensor::ones([3, 3, 3], &device), None, options).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "conv_transpose1d")]
pub fn try_conv_transpose1d(
    x: Tensor<3>,
    weight: Tensor<3>,
    bias: Option<Tensor<1>>,
    options: ConvTransposeOptions<1>,
) -> Result<Tensor<3>> {
    const OP: &str = "conv_transpose1d";
    let bias_dims = bias.as_ref().map(dims);
    rules::conv_transpose(
        OP,
        &x.dims(),
        &weight.dims(),
        bias_dims.as_deref(),
        &options,
    )?;
    same_devices(OP, &operand_devices(&x, &weight, bias.as_ref()))?;
    catch(OP, || {
        burn_module::conv_transpose1d(x, weight, bias, options)
    })
}

/// Fallible twin of [`burn_module::conv_transpose2d`].
///
/// Checks burn's rule `x.dims()[1] == weight.dims()[0]`, and — beyond burn, which leaves
/// these to the backend — that stride, dilation and groups are non-zero, that
/// `weight.dims()[0]` is divisible by `groups`, that `bias` has shape
/// `[weight.dims()[1] · groups]`, that kernel and input sizes are non-zero, that the output
/// size `(in - 1)·stride + dilation·(kernel - 1) + 1 + padding_out - 2·padding` is not
/// negative (0 is allowed: an empty result), and that every tensor is on the same device.
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for channel, bias and
///   kernel mismatches.
/// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a stride, dilation or group
///   count of 0; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for other
///   bad options or a negative output size.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::ConvTransposeOptions;
/// use burn_guard::tensor::module::try_conv_transpose2d;
///
/// let device = Device::flex();
/// let x = Tensor::<4>::ones([1, 2, 3, 3], &device);
/// let options = ConvTransposeOptions::new([2, 2], [0, 0], [0, 0], [1, 1], 1);
/// let w = Tensor::<4>::ones([2, 1, 2, 2], &device);
/// assert_eq!(try_conv_transpose2d(x.clone(), w.clone(), None, options.clone())?.dims(), [1, 1, 6, 6]);
/// assert!(try_conv_transpose2d(x, w, Some(Tensor::ones([2], &device)), options).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "conv_transpose2d")]
pub fn try_conv_transpose2d(
    x: Tensor<4>,
    weight: Tensor<4>,
    bias: Option<Tensor<1>>,
    options: ConvTransposeOptions<2>,
) -> Result<Tensor<4>> {
    const OP: &str = "conv_transpose2d";
    let bias_dims = bias.as_ref().map(dims);
    rules::conv_transpose(
        OP,
        &x.dims(),
        &weight.dims(),
        bias_dims.as_deref(),
        &options,
    )?;
    same_devices(OP, &operand_devices(&x, &weight, bias.as_ref()))?;
    catch(OP, || {
        burn_module::conv_transpose2d(x, weight, bias, options)
    })
}

/// Fallible twin of [`burn_module::conv_transpose3d`].
///
/// Checks burn's rule `x.dims()[1] == weight.dims()[0]`, and — beyond burn, which leaves
/// these to the backend — that stride, dilation and groups are non-zero, that
/// `weight.dims()[0]` is divisible by `groups`, that `bias` has shape
/// `[weight.dims()[1] · groups]`, that kernel and input sizes are non-zero, that the output
/// size `(in - 1)·stride + dilation·(kernel - 1) + 1 + padding_out - 2·padding` is not
/// negative (0 is allowed: an empty result), and that every tensor is on the same device.
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for channel, bias and
///   kernel mismatches.
/// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a stride, dilation or group
///   count of 0; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for other
///   bad options or a negative output size.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::ConvTransposeOptions;
/// use burn_guard::tensor::module::try_conv_transpose3d;
///
/// let device = Device::flex();
/// let x = Tensor::<5>::ones([1, 1, 2, 2, 2], &device);
/// let options = ConvTransposeOptions::new([1, 1, 1], [0, 0, 0], [0, 0, 0], [1, 1, 1], 1);
/// let w = Tensor::<5>::ones([1, 2, 2, 2, 2], &device);
/// assert_eq!(try_conv_transpose3d(x.clone(), w, None, options.clone())?.dims(), [1, 2, 3, 3, 3]);
/// assert!(try_conv_transpose3d(x, Tensor::ones([2, 2, 2, 2, 2], &device), None, options).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "conv_transpose3d")]
pub fn try_conv_transpose3d(
    x: Tensor<5>,
    weight: Tensor<5>,
    bias: Option<Tensor<1>>,
    options: ConvTransposeOptions<3>,
) -> Result<Tensor<5>> {
    const OP: &str = "conv_transpose3d";
    let bias_dims = bias.as_ref().map(dims);
    rules::conv_transpose(
        OP,
        &x.dims(),
        &weight.dims(),
        bias_dims.as_deref(),
        &options,
    )?;
    same_devices(OP, &operand_devices(&x, &weight, bias.as_ref()))?;
    catch(OP, || {
        burn_module::conv_transpose3d(x, weight, bias, options)
    })
}

/// Fallible twin of [`burn_module::deform_conv2d`].
///
/// Checks burn's rule `x.dims()[1] == weight.dims()[1] · weight_groups`, and — beyond burn,
/// which leaves these to the backend — non-zero stride, dilation and group counts,
/// `weight.dims()[0]` divisible by `weight_groups` and `x.dims()[1]` by `offset_groups`, a
/// kernel that fits in the padded input, `offset` of shape
/// `[batch, 2·offset_groups·kh·kw, out_h, out_w]`, `mask` of shape
/// `[batch, offset_groups·kh·kw, out_h, out_w]`, `bias` of shape `[weight.dims()[0]]`, and every
/// tensor on the same device.
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for shape mismatches.
/// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a stride or dilation of 0;
///   [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for other bad options
///   or a kernel larger than the padded input.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::DeformConvOptions;
/// use burn_guard::tensor::module::try_deform_conv2d;
///
/// let device = Device::flex();
/// let x = Tensor::<4>::ones([1, 2, 4, 4], &device);
/// let w = Tensor::<4>::ones([3, 2, 2, 2], &device);
/// let offset = Tensor::<4>::zeros([1, 8, 3, 3], &device);
/// let options = DeformConvOptions::new([1, 1], [0, 0], [1, 1], 1, 1);
/// let y = try_deform_conv2d(x.clone(), offset, w.clone(), None, None, options.clone())?;
/// assert_eq!(y.dims(), [1, 3, 3, 3]);
/// let bad_offset = Tensor::<4>::zeros([1, 8, 2, 2], &device);
/// assert!(try_deform_conv2d(x, bad_offset, w, None, None, options).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "deform_conv2d")]
pub fn try_deform_conv2d(
    x: Tensor<4>,
    offset: Tensor<4>,
    weight: Tensor<4>,
    mask: Option<Tensor<4>>,
    bias: Option<Tensor<1>>,
    options: DeformConvOptions<2>,
) -> Result<Tensor<4>> {
    const OP: &str = "deform_conv2d";
    let mask_dims = mask.as_ref().map(dims);
    let bias_dims = bias.as_ref().map(dims);
    rules::deform_conv2d(
        OP,
        &dims(&x),
        &dims(&offset),
        &dims(&weight),
        mask_dims.as_deref(),
        bias_dims.as_deref(),
        &options,
    )?;
    let mut devices = vec![x.device(), offset.device(), weight.device()];
    devices.extend(mask.as_ref().map(Tensor::device));
    devices.extend(bias.as_ref().map(Tensor::device));
    same_devices(OP, &devices)?;
    catch(OP, || {
        burn_module::deform_conv2d(x, offset, weight, mask, bias, options)
    })
}

/// Fallible twin of [`burn_module::interpolate`].
///
/// Checks that exactly one of `output_size` and `scale_factor` is set and that a scaled size
/// fits in `usize` (burn panics otherwise, and on a NaN factor), and — beyond burn — that the
/// scale factors are positive (a negative one would silently give size 0) and the input's
/// spatial sizes non-zero (Flex asserts; NdArray returns an arbitrary result). An output size
/// of 0 is allowed. On a Flex or NdArray device, `NearestExact` is refused: neither
/// implements it, and both panic.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) naming the options or
/// sizes; [`GuardError::Empty`](crate::GuardError::Empty) for an empty spatial dimension.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::{InterpolateMode, InterpolateOptions};
/// use burn_guard::tensor::module::try_interpolate;
///
/// let x = Tensor::<4>::ones([1, 1, 2, 3], &Device::flex());
/// let options = InterpolateOptions::new(InterpolateMode::Bilinear).with_scale_factor([2.0, 2.0]);
/// assert_eq!(try_interpolate(x.clone(), options)?.dims(), [1, 1, 4, 6]);
/// assert!(try_interpolate(x, InterpolateOptions::new(InterpolateMode::Bilinear)).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "interpolate")]
pub fn try_interpolate(x: Tensor<4>, options: InterpolateOptions) -> Result<Tensor<4>> {
    const OP: &str = "interpolate";
    rules::interpolate(OP, &dims(&x), &options)?;
    rules::interpolate_mode(
        OP,
        &options.mode,
        &crate::capability::quirks_of(&x.device()),
    )?;
    catch(OP, || burn_module::interpolate(x, options))
}

/// Fallible twin of [`grid::affine_grid_2d`].
///
/// Simulates burn's construction: `batch`, `height` and `width` must be non-zero (burn's
/// `reshape`/`expand` panic on 0: a burn bug for width or height 0, refused here), each entry
/// `transform[.., i, j]` must broadcast against `[batch, height, width]`, and the two grids
/// must have equal shapes. A `[batch, 2, 3]` (or `[1, 2, 3]`) transform always passes.
///
/// # Errors
///
/// - [`GuardError::Empty`](crate::GuardError::Empty) for a zero size.
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for a transform that does
///   not fit.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::grid::try_affine_grid_2d;
///
/// let transform = Tensor::<3>::ones([2, 2, 3], &Device::flex());
/// assert_eq!(try_affine_grid_2d(transform.clone(), [2, 1, 4, 5])?.dims(), [2, 4, 5, 2]);
/// assert!(try_affine_grid_2d(transform, [2, 1, 0, 5]).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "affine_grid_2d")]
pub fn try_affine_grid_2d(transform: Tensor<3>, dims: [usize; 4]) -> Result<Tensor<4>> {
    const OP: &str = "affine_grid_2d";
    rules::affine_grid_2d(OP, &transform.dims(), dims)?;
    catch(OP, || grid::affine_grid_2d(transform, dims))
}
