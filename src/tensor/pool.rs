//! Twins of the pooling, unfold and fold functions of `burn::tensor::module`.
//!
//! burn checks none of their sizes: the backends compute output sizes with unsigned
//! arithmetic and panic when it underflows. Every twin refuses those inputs before dispatch,
//! by the rules in [`check::pool`](crate::check::pool).

use burn::tensor::module as burn_module;
use burn::tensor::ops::{AvgPoolOptions, MaxPoolOptions, UnfoldOptions};
use burn::tensor::{Int, Tensor};

use crate::check::pool::{self as rules, PoolDim};
use crate::error::Result;
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
