//! Twins of the pooling, unfold and fold functions of `burn::tensor::module`.
//!
//! burn checks none of their sizes: the backends compute output sizes with unsigned
//! arithmetic and panic when it underflows. Every twin refuses those inputs before dispatch,
//! by the rules in [`check::pool`](crate::check::pool).

use burn::tensor::module as burn_module;
use burn::tensor::ops::{AvgPoolOptions, ConvOptions, MaxPoolOptions, UnfoldOptions};
use burn::tensor::{Int, Tensor};

use super::base::read_indices;
use crate::check::module as conv_rules;
use crate::check::pool::{self as rules, PoolDim};
use crate::error::{GuardError, Result};
use crate::panic::catch;

fn max_dims<const N: usize>(x: &[usize], options: &MaxPoolOptions<N>) -> Vec<PoolDim> {
    (0..N)
        .map(|i| PoolDim {
            size: x.get(i + 2).copied().unwrap_or(0),
            kernel: options.kernel_size.get(i).copied().unwrap_or(0),
            stride: options.stride.get(i).copied().unwrap_or(0),
            padding: options.padding.get(i).copied().unwrap_or((0, 0)),
            dilation: options.dilation.get(i).copied().unwrap_or(0),
        })
        .collect()
}

fn avg_dims<const N: usize>(x: &[usize], options: &AvgPoolOptions<N>) -> Vec<PoolDim> {
    (0..N)
        .map(|i| PoolDim {
            size: x.get(i + 2).copied().unwrap_or(0),
            kernel: options.kernel_size.get(i).copied().unwrap_or(0),
            stride: options.stride.get(i).copied().unwrap_or(0),
            padding: options.padding.get(i).copied().unwrap_or((0, 0)),
            dilation: 1,
        })
        .collect()
}

/// The max-pool rule on `x`'s dims.
pub(crate) fn check_max_pool<const N: usize>(
    op: &'static str,
    x: &[usize],
    options: &MaxPoolOptions<N>,
) -> Result<()> {
    rules::pool(op, x, &max_dims(x, options), options.ceil_mode).map(drop)
}

/// The avg-pool rule on `x`'s dims.
pub(crate) fn check_avg_pool<const N: usize>(
    op: &'static str,
    x: &[usize],
    options: &AvgPoolOptions<N>,
) -> Result<()> {
    rules::pool(op, x, &avg_dims(x, options), options.ceil_mode).map(drop)
}

/// Fallible twin of [`burn_module::max_pool1d`].
///
/// Checks — beyond burn, which leaves them to the backend — non-zero kernel size, stride and
/// dilation (the options' pub fields bypass the constructor's checks), a non-empty input
/// length and a dilated kernel that fits in the padded input (in ceil mode, up to
/// `stride - 1` past it). NdArray panics on the last two; Flex returns an empty output or a
/// window of nothing. An empty batch or channel dim is fine.
///
/// # Errors
///
/// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero option;
/// [`GuardError::Empty`](crate::GuardError::Empty) for an empty input length;
/// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel larger
/// than the padded input.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::MaxPoolOptions;
/// use burn_guard::tensor::module::try_max_pool1d;
///
/// let x = Tensor::<3>::ones([1, 2, 5], &Device::flex());
/// assert_eq!(try_max_pool1d(x.clone(), MaxPoolOptions::new([2]))?.dims(), [1, 2, 2]);
/// assert!(try_max_pool1d(x, MaxPoolOptions::new([6])).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "max_pool1d")]
pub fn try_max_pool1d(x: Tensor<3>, options: MaxPoolOptions<1>) -> Result<Tensor<3>> {
    const OP: &str = "max_pool1d";
    check_max_pool(OP, &x.dims(), &options)?;
    catch(OP, || burn_module::max_pool1d(x, options))
}

/// Fallible twin of [`burn_module::max_pool2d`].
///
/// Checks what [`try_max_pool1d`] checks, per spatial dim.
///
/// # Errors
///
/// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero option;
/// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel larger
/// than the padded input.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::MaxPoolOptions;
/// use burn_guard::tensor::module::try_max_pool2d;
///
/// let x = Tensor::<4>::ones([1, 2, 4, 4], &Device::flex());
/// assert_eq!(try_max_pool2d(x.clone(), MaxPoolOptions::new([2, 2]))?.dims(), [1, 2, 2, 2]);
/// assert!(try_max_pool2d(x, MaxPoolOptions::new([2, 5])).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "max_pool2d")]
pub fn try_max_pool2d(x: Tensor<4>, options: MaxPoolOptions<2>) -> Result<Tensor<4>> {
    const OP: &str = "max_pool2d";
    check_max_pool(OP, &x.dims(), &options)?;
    catch(OP, || burn_module::max_pool2d(x, options))
}

/// Fallible twin of [`burn_module::max_pool1d_with_indices`].
///
/// Checks what [`try_max_pool1d`] checks.
///
/// # Errors
///
/// As [`try_max_pool1d`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::MaxPoolOptions;
/// use burn_guard::tensor::module::try_max_pool1d_with_indices;
///
/// let x = Tensor::<3>::ones([1, 2, 5], &Device::flex());
/// let (y, idx) = try_max_pool1d_with_indices(x.clone(), MaxPoolOptions::new([2]))?;
/// assert_eq!((y.dims(), idx.dims()), ([1, 2, 2], [1, 2, 2]));
/// assert!(try_max_pool1d_with_indices(x, MaxPoolOptions::new([6])).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "max_pool1d_with_indices")]
pub fn try_max_pool1d_with_indices(
    x: Tensor<3>,
    options: MaxPoolOptions<1>,
) -> Result<(Tensor<3>, Tensor<3, Int>)> {
    const OP: &str = "max_pool1d_with_indices";
    check_max_pool(OP, &x.dims(), &options)?;
    catch(OP, || burn_module::max_pool1d_with_indices(x, options))
}

/// Fallible twin of [`burn_module::max_pool2d_with_indices`].
///
/// Checks what [`try_max_pool1d`] checks, per spatial dim.
///
/// # Errors
///
/// As [`try_max_pool2d`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::MaxPoolOptions;
/// use burn_guard::tensor::module::try_max_pool2d_with_indices;
///
/// let x = Tensor::<4>::ones([1, 2, 4, 4], &Device::flex());
/// let (y, idx) = try_max_pool2d_with_indices(x.clone(), MaxPoolOptions::new([2, 2]))?;
/// assert_eq!((y.dims(), idx.dims()), ([1, 2, 2, 2], [1, 2, 2, 2]));
/// assert!(try_max_pool2d_with_indices(x, MaxPoolOptions::new([5, 2])).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "max_pool2d_with_indices")]
pub fn try_max_pool2d_with_indices(
    x: Tensor<4>,
    options: MaxPoolOptions<2>,
) -> Result<(Tensor<4>, Tensor<4, Int>)> {
    const OP: &str = "max_pool2d_with_indices";
    check_max_pool(OP, &x.dims(), &options)?;
    catch(OP, || burn_module::max_pool2d_with_indices(x, options))
}

/// Fallible twin of [`burn_module::avg_pool1d`].
///
/// Checks — beyond burn, which leaves them to the backend — non-zero kernel size and
/// stride, a non-empty input length and a kernel that fits in the padded input (in ceil
/// mode, up to `stride - 1` past it). NdArray panics on the last two; Flex returns an empty
/// output or a window of nothing.
///
/// # Errors
///
/// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero option;
/// [`GuardError::Empty`](crate::GuardError::Empty) for an empty input length;
/// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel larger
/// than the padded input.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::AvgPoolOptions;
/// use burn_guard::tensor::module::try_avg_pool1d;
///
/// let x = Tensor::<3>::ones([1, 2, 5], &Device::flex());
/// assert_eq!(try_avg_pool1d(x.clone(), AvgPoolOptions::new([2]))?.dims(), [1, 2, 2]);
/// assert!(try_avg_pool1d(x, AvgPoolOptions::new([6])).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "avg_pool1d")]
pub fn try_avg_pool1d(x: Tensor<3>, options: AvgPoolOptions<1>) -> Result<Tensor<3>> {
    const OP: &str = "avg_pool1d";
    check_avg_pool(OP, &x.dims(), &options)?;
    catch(OP, || burn_module::avg_pool1d(x, options))
}

/// Fallible twin of [`burn_module::avg_pool2d`].
///
/// Checks what [`try_avg_pool1d`] checks, per spatial dim.
///
/// # Errors
///
/// As [`try_avg_pool1d`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::AvgPoolOptions;
/// use burn_guard::tensor::module::try_avg_pool2d;
///
/// let x = Tensor::<4>::ones([1, 2, 4, 4], &Device::flex());
/// assert_eq!(try_avg_pool2d(x.clone(), AvgPoolOptions::new([2, 2]))?.dims(), [1, 2, 2, 2]);
/// assert!(try_avg_pool2d(x, AvgPoolOptions::new([2, 5])).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "avg_pool2d")]
pub fn try_avg_pool2d(x: Tensor<4>, options: AvgPoolOptions<2>) -> Result<Tensor<4>> {
    const OP: &str = "avg_pool2d";
    check_avg_pool(OP, &x.dims(), &options)?;
    catch(OP, || burn_module::avg_pool2d(x, options))
}

/// Fallible twin of [`burn_module::adaptive_avg_pool1d`].
///
/// Checks — beyond burn, which leaves it to the backend — a non-empty input length (both CPU
/// backends return averages of empty windows). An output size of 0 gives an empty tensor.
///
/// # Errors
///
/// [`GuardError::Empty`](crate::GuardError::Empty) for an empty input length.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::module::try_adaptive_avg_pool1d;
///
/// let x = Tensor::<3>::ones([1, 2, 5], &Device::flex());
/// assert_eq!(try_adaptive_avg_pool1d(x.clone(), 3)?.dims(), [1, 2, 3]);
/// assert!(try_adaptive_avg_pool1d(Tensor::<3>::ones([1, 2, 0], &Device::flex()), 3).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "adaptive_avg_pool1d")]
pub fn try_adaptive_avg_pool1d(x: Tensor<3>, output_size: usize) -> Result<Tensor<3>> {
    const OP: &str = "adaptive_avg_pool1d";
    rules::adaptive_pool(OP, &x.dims(), &[output_size])?;
    catch(OP, || burn_module::adaptive_avg_pool1d(x, output_size))
}

/// Fallible twin of [`burn_module::adaptive_avg_pool2d`].
///
/// Checks what [`try_adaptive_avg_pool1d`] checks, per spatial dim.
///
/// # Errors
///
/// As [`try_adaptive_avg_pool1d`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::module::try_adaptive_avg_pool2d;
///
/// let x = Tensor::<4>::ones([1, 2, 5, 5], &Device::flex());
/// assert_eq!(try_adaptive_avg_pool2d(x.clone(), [2, 3])?.dims(), [1, 2, 2, 3]);
/// assert!(try_adaptive_avg_pool2d(Tensor::<4>::ones([1, 2, 0, 5], &Device::flex()), [2, 2]).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "adaptive_avg_pool2d")]
pub fn try_adaptive_avg_pool2d(x: Tensor<4>, output_size: [usize; 2]) -> Result<Tensor<4>> {
    const OP: &str = "adaptive_avg_pool2d";
    rules::adaptive_pool(OP, &x.dims(), &output_size)?;
    catch(OP, || burn_module::adaptive_avg_pool2d(x, output_size))
}

/// Fallible twin of [`burn_module::adaptive_avg_pool3d`].
///
/// Checks what [`try_adaptive_avg_pool1d`] checks, per spatial dim.
///
/// # Errors
///
/// As [`try_adaptive_avg_pool1d`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::module::try_adaptive_avg_pool3d;
///
/// let x = Tensor::<5>::ones([1, 1, 4, 4, 4], &Device::flex());
/// assert_eq!(try_adaptive_avg_pool3d(x.clone(), [2, 2, 1])?.dims(), [1, 1, 2, 2, 1]);
/// assert!(try_adaptive_avg_pool3d(Tensor::<5>::ones([1, 1, 4, 0, 4], &Device::flex()), [2, 2, 1]).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "adaptive_avg_pool3d")]
pub fn try_adaptive_avg_pool3d(x: Tensor<5>, output_size: [usize; 3]) -> Result<Tensor<5>> {
    const OP: &str = "adaptive_avg_pool3d";
    rules::adaptive_pool(OP, &x.dims(), &output_size)?;
    catch(OP, || burn_module::adaptive_avg_pool3d(x, output_size))
}

/// Fallible twin of [`burn_module::unfold4d`].
///
/// Checks — beyond burn, which leaves them to the backend — non-zero kernel sizes, strides
/// and dilations and a dilated kernel that fits in the padded input.
///
/// # Errors
///
/// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero option;
/// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel larger
/// than the padded input.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::UnfoldOptions;
/// use burn_guard::tensor::module::try_unfold4d;
///
/// let x = Tensor::<4>::ones([1, 2, 4, 5], &Device::flex());
/// let options = UnfoldOptions::new([1, 1], [0, 0], [1, 1]);
/// assert_eq!(try_unfold4d(x.clone(), [2, 2], options.clone())?.dims(), [1, 8, 12]);
/// assert!(try_unfold4d(x, [5, 2], options).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "unfold4d")]
pub fn try_unfold4d(
    x: Tensor<4>,
    kernel_size: [usize; 2],
    options: UnfoldOptions,
) -> Result<Tensor<3>> {
    const OP: &str = "unfold4d";
    rules::unfold(
        OP,
        &x.dims(),
        kernel_size,
        options.stride,
        options.padding,
        options.dilation,
    )?;
    catch(OP, || burn_module::unfold4d(x, kernel_size, options))
}

/// Fallible twin of [`burn_module::fold4d`].
///
/// Checks — beyond burn, which leaves them to the backend — non-zero kernel sizes, strides
/// and dilations, a dilated kernel that fits in the padded `output_size`, an input dim 1
/// divisible by `kernel_h · kernel_w`, and an input dim 2 equal to the number of blocks an
/// unfold of `output_size` gives.
///
/// # Errors
///
/// As [`try_unfold4d`]; [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for
/// columns or blocks that do not match.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::UnfoldOptions;
/// use burn_guard::tensor::module::try_fold4d;
///
/// let x = Tensor::<3>::ones([1, 8, 12], &Device::flex());
/// let options = UnfoldOptions::new([1, 1], [0, 0], [1, 1]);
/// assert_eq!(try_fold4d(x.clone(), [4, 5], [2, 2], options.clone())?.dims(), [1, 2, 4, 5]);
/// assert!(try_fold4d(x, [4, 4], [2, 2], options).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "fold4d")]
pub fn try_fold4d(
    x: Tensor<3>,
    output_size: [usize; 2],
    kernel_size: [usize; 2],
    options: UnfoldOptions,
) -> Result<Tensor<4>> {
    const OP: &str = "fold4d";
    rules::fold(
        OP,
        &x.dims(),
        output_size,
        kernel_size,
        options.stride,
        options.padding,
        options.dilation,
    )?;
    catch(OP, || {
        burn_module::fold4d(x, output_size, kernel_size, options)
    })
}

fn symmetric_dims(
    x: &[usize],
    kernel: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
) -> Vec<PoolDim> {
    (0..2)
        .map(|i| PoolDim {
            size: x.get(i + 2).copied().unwrap_or(0),
            kernel: kernel.get(i).copied().unwrap_or(0),
            stride: stride.get(i).copied().unwrap_or(0),
            padding: padding.get(i).map(|&p| (p, p)).unwrap_or((0, 0)),
            dilation: dilation.get(i).copied().unwrap_or(0),
        })
        .collect()
}

/// Fallible twin of [`burn_module::avg_pool2d_backward`].
///
/// Checks the [`try_avg_pool2d`] rules on `x` and, beyond burn, a `grad` of the pooling
/// output's shape, and that both share a device.
///
/// # Errors
///
/// As [`try_avg_pool2d`]; [`GuardError::ShapeMismatch`] for a gradient of another shape;
/// [`GuardError::DeviceMismatch`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::module::try_avg_pool2d_backward;
///
/// let device = Device::flex();
/// let x = Tensor::<4>::ones([1, 1, 4, 4], &device);
/// let grad = Tensor::<4>::ones([1, 1, 2, 2], &device);
/// let dx = try_avg_pool2d_backward(x.clone(), grad, [2, 2], [2, 2], [0, 0], true, false)?;
/// assert_eq!(dx.dims(), [1, 1, 4, 4]);
/// let bad = Tensor::<4>::ones([1, 1, 3, 3], &device);
/// assert!(try_avg_pool2d_backward(x, bad, [2, 2], [2, 2], [0, 0], true, false).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "avg_pool2d_backward")]
pub fn try_avg_pool2d_backward(
    x: Tensor<4>,
    grad: Tensor<4>,
    kernel_size: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
    count_include_pad: bool,
    ceil_mode: bool,
) -> Result<Tensor<4>> {
    const OP: &str = "avg_pool2d_backward";
    let x_dims = x.dims();
    let dims = symmetric_dims(&x_dims, kernel_size, stride, padding, [1, 1]);
    rules::pool_backward(OP, &x_dims, &dims, ceil_mode, &grad.dims())?;
    crate::capability::same_device(OP, &x.device(), &grad.device())?;
    catch(OP, || {
        burn_module::avg_pool2d_backward(
            x,
            grad,
            kernel_size,
            stride,
            padding,
            count_include_pad,
            ceil_mode,
        )
    })
}

/// Fallible twin of [`burn_module::max_pool2d_with_indices_backward`].
///
/// Checks the [`try_max_pool2d`] rules on `x`, and, beyond burn, an `output_grad` and
/// `indices` of the pooling output's shape, every index a position in the input plane
/// (`0 ≤ i < height · width`), and one device for all three. The index check reads the
/// indices (one synchronous read); [`value_reads::vouched`](crate::value_reads::vouched)
/// skips it.
///
/// # Errors
///
/// As [`try_max_pool2d`]; [`GuardError::ShapeMismatch`] for a gradient or indices of another
/// shape; [`GuardError::IndexOutOfRange`] for an index outside the plane;
/// [`GuardError::DeviceMismatch`].
///
/// ```
/// use burn::tensor::{Device, Int, Tensor};
/// use burn::tensor::ops::MaxPoolOptions;
/// use burn_guard::tensor::module::{try_max_pool2d_with_indices, try_max_pool2d_with_indices_backward};
///
/// let device = Device::flex();
/// let x = Tensor::<4>::ones([1, 1, 4, 4], &device);
/// let (y, idx) = try_max_pool2d_with_indices(x.clone(), MaxPoolOptions::new([2, 2]))?;
/// let dx = try_max_pool2d_with_indices_backward(
///     x.clone(), [2, 2], [2, 2], [0, 0], [1, 1], false, y.ones_like(), idx)?;
/// assert_eq!(dx.dims(), [1, 1, 4, 4]);
/// let far = Tensor::<4, Int>::full([1, 1, 2, 2], 16, &device);
/// assert!(try_max_pool2d_with_indices_backward(
///     x, [2, 2], [2, 2], [0, 0], [1, 1], false, Tensor::ones([1, 1, 2, 2], &device), far).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "max_pool2d_with_indices_backward")]
#[allow(clippy::too_many_arguments)] // burn's signature
pub fn try_max_pool2d_with_indices_backward(
    x: Tensor<4>,
    kernel_size: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
    ceil_mode: bool,
    output_grad: Tensor<4>,
    indices: Tensor<4, Int>,
) -> Result<Tensor<4>> {
    const OP: &str = "max_pool2d_with_indices_backward";
    let x_dims = x.dims();
    let dims = symmetric_dims(&x_dims, kernel_size, stride, padding, dilation);
    let expected = rules::pool_backward(OP, &x_dims, &dims, ceil_mode, &output_grad.dims())?;
    if indices.dims().as_slice() != expected.as_slice() {
        return Err(GuardError::ShapeMismatch {
            op: OP,
            rule: "the indices must have the shape of the pooling output",
            shapes: vec![indices.dims().to_vec(), expected],
        });
    }
    let device = x.device();
    crate::capability::same_device(OP, &device, &output_grad.device())?;
    crate::capability::same_device(OP, &device, &indices.device())?;
    let plane = x_dims[2].saturating_mul(x_dims[3]);
    let limit = i64::try_from(plane).unwrap_or(i64::MAX);
    if let Some(&bad) = read_indices(OP, &indices)?
        .iter()
        .find(|&&i| i < 0 || i >= limit)
    {
        return Err(GuardError::IndexOutOfRange {
            op: OP,
            index: bad,
            size: plane,
            dim: 2,
        });
    }
    catch(OP, || {
        burn_module::max_pool2d_with_indices_backward(
            x,
            kernel_size,
            stride,
            padding,
            dilation,
            ceil_mode,
            output_grad,
            indices,
        )
    })
}

/// Fallible twin of [`burn_module::conv2d_weight_backward`].
///
/// Checks the [`try_conv2d`](crate::tensor::module::try_conv2d) rules on `x`, `weight` and
/// `options`, and, beyond burn, an `output_grad` of the convolution output's shape, and one
/// device for all three.
///
/// # Errors
///
/// As [`try_conv2d`](crate::tensor::module::try_conv2d);
/// [`GuardError::ShapeMismatch`] for a gradient of another shape.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn::tensor::ops::ConvOptions;
/// use burn_guard::tensor::module::try_conv2d_weight_backward;
///
/// let device = Device::flex();
/// let x = Tensor::<4>::ones([1, 2, 4, 4], &device);
/// let w = Tensor::<4>::ones([3, 2, 3, 3], &device);
/// let options = ConvOptions::new([1, 1], [0, 0], [1, 1], 1);
/// let g = Tensor::<4>::ones([1, 3, 2, 2], &device);
/// assert_eq!(try_conv2d_weight_backward(x.clone(), w.clone(), g, options.clone())?.dims(), [3, 2, 3, 3]);
/// let bad = Tensor::<4>::ones([1, 3, 3, 3], &device);
/// assert!(try_conv2d_weight_backward(x, w, bad, options).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "conv2d_weight_backward")]
pub fn try_conv2d_weight_backward(
    x: Tensor<4>,
    weight: Tensor<4>,
    output_grad: Tensor<4>,
    options: ConvOptions<2>,
) -> Result<Tensor<4>> {
    const OP: &str = "conv2d_weight_backward";
    let expected = conv_rules::conv(OP, &x.dims(), &weight.dims(), None, &options, false)?;
    if output_grad.dims().as_slice() != expected.as_slice() {
        return Err(GuardError::ShapeMismatch {
            op: OP,
            rule: "the gradient must have the shape of the convolution output",
            shapes: vec![output_grad.dims().to_vec(), expected],
        });
    }
    let device = x.device();
    crate::capability::same_device(OP, &device, &weight.device())?;
    crate::capability::same_device(OP, &device, &output_grad.device())?;
    catch(OP, || {
        burn_module::conv2d_weight_backward(x, weight, output_grad, options)
    })
}
