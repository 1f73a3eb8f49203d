//! Twins of the pooling, unfold and fold functions of `burn::tensor::module`: max, average
//! and adaptive pools (one table row per function, a family per kind of pool), unfold, fold
//! and the pooling backwards; and the pooling rules the `burn::nn` pool layers share with them
//! ([`check_max_pool`], [`check_avg_pool`], [`check_adaptive_pool`]).
//!
//! burn checks none of their sizes: the backends compute output sizes with unsigned
//! arithmetic and panic when it underflows. Every twin refuses those inputs before dispatch,
//! by the rules in [`check::pool`](crate::check::pool), then an output that cannot fit on the
//! device (the byte rule, last).

use burn::tensor::module as burn_module;
use burn::tensor::ops::{AvgPoolOptions, MaxPoolOptions, UnfoldOptions};
use burn::tensor::{Int, Tensor};

use super::base::read_indices;
use super::output_fits;
use crate::check::pool;
use crate::check::pool::PoolDim;
use crate::error::{GuardError, Result};
use crate::panic::catch;

/// Each spatial dim of `x` with its window, from the options' per-dim arrays (an average pool
/// has no `dilation`: 1).
fn pool_dims(
    x: &[usize],
    kernel: &[usize],
    stride: &[usize],
    padding: &[(usize, usize)],
    dilation: &[usize],
) -> Vec<PoolDim> {
    (0..kernel.len())
        .map(|i| PoolDim {
            size: x.get(i + 2).copied().unwrap_or(0),
            kernel: kernel.get(i).copied().unwrap_or(0),
            stride: stride.get(i).copied().unwrap_or(0),
            padding: padding.get(i).copied().unwrap_or((0, 0)),
            dilation: dilation.get(i).copied().unwrap_or(1),
        })
        .collect()
}

/// The pooled shape: `x`'s batch and channels, then the `spatial` sizes.
fn pooled(x: &[usize], spatial: &[usize]) -> Vec<usize> {
    x.iter().take(2).chain(spatial).copied().collect()
}

/// The max-pool rule on the input's `dims`: the output shape.
fn max_pool_shape<const N: usize>(
    op: &'static str,
    dims: &[usize],
    options: &MaxPoolOptions<N>,
) -> Result<Vec<usize>> {
    let MaxPoolOptions {
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
    } = options;
    let windows = pool_dims(dims, kernel_size, stride, padding, dilation);
    let spatial = pool::pool(op, dims, &windows, *ceil_mode)?;
    Ok(pooled(dims, &spatial))
}

/// The max-pool rule on `x`'s dims, then the byte rule on the output.
pub(crate) fn check_max_pool<const D: usize, const N: usize>(
    op: &'static str,
    x: &Tensor<D>,
    options: &MaxPoolOptions<N>,
) -> Result<()> {
    let out = max_pool_shape(op, &x.dims(), options)?;
    output_fits(op, &out, x.dtype(), &x.device())
}

/// [`check_max_pool`], and the byte rule on the indices too (in the device's int dtype).
fn check_max_pool_with_indices<const D: usize, const N: usize>(
    op: &'static str,
    x: &Tensor<D>,
    options: &MaxPoolOptions<N>,
) -> Result<()> {
    let out = max_pool_shape(op, &x.dims(), options)?;
    let device = x.device();
    output_fits(op, &out, x.dtype(), &device)?;
    let int = device.settings().int_dtype.into();
    crate::capability::require_fits(op, &out, int, &device).map(drop)
}

/// The avg-pool rule on `x`'s dims, then the byte rule on the output.
pub(crate) fn check_avg_pool<const D: usize, const N: usize>(
    op: &'static str,
    x: &Tensor<D>,
    options: &AvgPoolOptions<N>,
) -> Result<()> {
    let dims = x.dims();
    let AvgPoolOptions {
        kernel_size,
        stride,
        padding,
        ceil_mode,
        ..
    } = options;
    let spatial = pool::pool(
        op,
        &dims,
        &pool_dims(&dims, kernel_size, stride, padding, &[]),
        *ceil_mode,
    )?;
    output_fits(op, &pooled(&dims, &spatial), x.dtype(), &x.device())
}

/// A size burn takes per spatial dim: one `usize` in 1d, an array otherwise (an adaptive
/// pool's output size; a `burn::nn` pool's kernel size and stride).
pub(crate) trait PerDim<const N: usize> {
    /// The size of each spatial dim.
    fn per_dim(&self) -> [usize; N];
}

impl PerDim<1> for usize {
    fn per_dim(&self) -> [usize; 1] {
        [*self]
    }
}

impl<const N: usize> PerDim<N> for [usize; N] {
    fn per_dim(&self) -> [usize; N] {
        *self
    }
}

/// The adaptive-pool rule on `x`'s dims, then the byte rule on the output.
pub(crate) fn check_adaptive_pool<const D: usize, const N: usize>(
    op: &'static str,
    x: &Tensor<D>,
    output_size: &impl PerDim<N>,
) -> Result<()> {
    let dims = x.dims();
    let sizes = output_size.per_dim();
    pool::adaptive_pool(op, &dims, &sizes)?;
    output_fits(op, &pooled(&dims, &sizes), x.dtype(), &x.device())
}

/// One row per pooling function of a family: the twin and burn's function (its op name), the
/// signature, the check; then the doc example: the input's shape and the example's lines. The
/// family gives what the checks refuse, the errors and the options' import.
macro_rules! pool_twins {
    (checks $checks:literal; errors $errors:literal; import $import:literal;
     $(fn $twin:ident = $burn:ident($op:literal)(x: Tensor<$d:literal>, $param:ident: $ty:ty)
        -> $out:ty, by $check:ident;
        example $x:literal $($line:literal)*;)*) => {$(
        #[doc = concat!("Fallible twin of [`burn_module::", $op, "`].")]
        ///
        #[doc = concat!("Checks ", $checks, " The output must fit on the device (the byte rule).")]
        ///
        /// # Errors
        ///
        #[doc = $errors]
        /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the
        /// device's largest buffer.
        ///
        /// ```
        /// use burn::tensor::{Device, Tensor};
        #[doc = $import]
        #[doc = concat!("use burn_guard::tensor::module::", stringify!($twin), ";")]
        ///
        #[doc = concat!("let x = Tensor::<", $d, ">::ones(", $x, ", &Device::flex());")]
        $(#[doc = $line])*
        /// # Ok::<(), burn_guard::GuardError>(())
        /// ```
        #[doc(alias = $op)]
        pub fn $twin(x: Tensor<$d>, $param: $ty) -> Result<$out> {
            const OP: &str = $op;
            $check(OP, &x, &$param)?;
            catch(OP, || burn_module::$burn(x, $param))
        }
    )*};
}

pool_twins! {
    checks "— beyond burn, which leaves them to the backend — non-zero kernel size, stride and \
        (for a max pool) dilation (the options' pub fields bypass the constructors' checks), a \
        non-empty input length and a (dilated) kernel that fits in the padded input (in ceil \
        mode, up to `stride - 1` past it). NdArray panics on the last two; Flex returns an \
        empty output or a window of nothing. An empty batch or channel dim is fine.";
    errors "[`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero option; \
        [`GuardError::Empty`](crate::GuardError::Empty) for an empty input length; \
        [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel larger \
        than the padded input;";
    import "use burn::tensor::ops::{AvgPoolOptions, MaxPoolOptions};";
    fn try_max_pool1d = max_pool1d("max_pool1d")(x: Tensor<3>, options: MaxPoolOptions<1>) -> Tensor<3>, by check_max_pool;
        example "[1, 2, 5]"
        "assert_eq!(try_max_pool1d(x.clone(), MaxPoolOptions::new([2]))?.dims(), [1, 2, 2]);"
        "assert!(try_max_pool1d(x, MaxPoolOptions::new([6])).is_err());";
    fn try_max_pool2d = max_pool2d("max_pool2d")(x: Tensor<4>, options: MaxPoolOptions<2>) -> Tensor<4>, by check_max_pool;
        example "[1, 2, 4, 4]"
        "assert_eq!(try_max_pool2d(x.clone(), MaxPoolOptions::new([2, 2]))?.dims(), [1, 2, 2, 2]);"
        "assert!(try_max_pool2d(x, MaxPoolOptions::new([2, 5])).is_err());";
    fn try_avg_pool1d = avg_pool1d("avg_pool1d")(x: Tensor<3>, options: AvgPoolOptions<1>) -> Tensor<3>, by check_avg_pool;
        example "[1, 2, 5]"
        "assert_eq!(try_avg_pool1d(x.clone(), AvgPoolOptions::new([2]))?.dims(), [1, 2, 2]);"
        "assert!(try_avg_pool1d(x, AvgPoolOptions::new([6])).is_err());";
    fn try_avg_pool2d = avg_pool2d("avg_pool2d")(x: Tensor<4>, options: AvgPoolOptions<2>) -> Tensor<4>, by check_avg_pool;
        example "[1, 2, 4, 4]"
        "assert_eq!(try_avg_pool2d(x.clone(), AvgPoolOptions::new([2, 2]))?.dims(), [1, 2, 2, 2]);"
        "assert!(try_avg_pool2d(x, AvgPoolOptions::new([2, 5])).is_err());";
    fn try_max_pool1d_with_indices = max_pool1d_with_indices("max_pool1d_with_indices")(x: Tensor<3>, options: MaxPoolOptions<1>) -> (Tensor<3>, Tensor<3, Int>), by check_max_pool_with_indices;
        example "[1, 2, 5]"
        "let (y, idx) = try_max_pool1d_with_indices(x.clone(), MaxPoolOptions::new([2]))?;"
        "assert_eq!((y.dims(), idx.dims()), ([1, 2, 2], [1, 2, 2]));"
        "assert!(try_max_pool1d_with_indices(x, MaxPoolOptions::new([6])).is_err());";
    fn try_max_pool2d_with_indices = max_pool2d_with_indices("max_pool2d_with_indices")(x: Tensor<4>, options: MaxPoolOptions<2>) -> (Tensor<4>, Tensor<4, Int>), by check_max_pool_with_indices;
        example "[1, 2, 4, 4]"
        "let (y, idx) = try_max_pool2d_with_indices(x.clone(), MaxPoolOptions::new([2, 2]))?;"
        "assert_eq!((y.dims(), idx.dims()), ([1, 2, 2, 2], [1, 2, 2, 2]));"
        "assert!(try_max_pool2d_with_indices(x, MaxPoolOptions::new([5, 2])).is_err());";
}

pool_twins! {
    checks "— beyond burn, which leaves it to the backend — a non-empty input along every \
        spatial dim (both CPU backends return averages of empty windows). An output size of 0 \
        gives an empty tensor.";
    errors "[`GuardError::Empty`](crate::GuardError::Empty) for an empty input length;";
    import "";
    fn try_adaptive_avg_pool1d = adaptive_avg_pool1d("adaptive_avg_pool1d")(x: Tensor<3>, output_size: usize) -> Tensor<3>, by check_adaptive_pool;
        example "[1, 2, 5]"
        "assert_eq!(try_adaptive_avg_pool1d(x, 3)?.dims(), [1, 2, 3]);"
        "assert!(try_adaptive_avg_pool1d(Tensor::<3>::ones([1, 2, 0], &Device::flex()), 3).is_err());";
    fn try_adaptive_avg_pool2d = adaptive_avg_pool2d("adaptive_avg_pool2d")(x: Tensor<4>, output_size: [usize; 2]) -> Tensor<4>, by check_adaptive_pool;
        example "[1, 2, 5, 5]"
        "assert_eq!(try_adaptive_avg_pool2d(x, [2, 3])?.dims(), [1, 2, 2, 3]);"
        "assert!(try_adaptive_avg_pool2d(Tensor::<4>::ones([1, 2, 0, 5], &Device::flex()), [2, 2]).is_err());";
    fn try_adaptive_avg_pool3d = adaptive_avg_pool3d("adaptive_avg_pool3d")(x: Tensor<5>, output_size: [usize; 3]) -> Tensor<5>, by check_adaptive_pool;
        example "[1, 1, 4, 4, 4]"
        "assert_eq!(try_adaptive_avg_pool3d(x, [2, 2, 1])?.dims(), [1, 1, 2, 2, 1]);"
        "assert!(try_adaptive_avg_pool3d(Tensor::<5>::ones([1, 1, 4, 0, 4], &Device::flex()), [2, 2, 1]).is_err());";
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
/// than the padded input; [`GuardError::TooLarge`](crate::GuardError::TooLarge) for columns
/// over the device's largest buffer.
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
    let (stride, padding, dilation) = (options.stride, options.padding, options.dilation);
    let [batch, channels, ..] = x.dims();
    let blocks = pool::unfold(OP, &x.dims(), kernel_size, stride, padding, dilation)?;
    // `[batch, channels · kh · kw, blocks]`, the columns burn materialises; a product that
    // overflows saturates, which the byte rule refuses as too large.
    let [kernel_h, kernel_w] = kernel_size;
    let columns = channels.saturating_mul(kernel_h).saturating_mul(kernel_w);
    let out = [batch, columns, blocks.height.saturating_mul(blocks.width)];
    output_fits(OP, &out, x.dtype(), &x.device())?;
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
    let (stride, padding, dilation) = (options.stride, options.padding, options.dilation);
    let out = pool::fold(
        OP,
        &x.dims(),
        output_size,
        kernel_size,
        stride,
        padding,
        dilation,
    )?;
    output_fits(OP, &out, x.dtype(), &x.device())?;
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
    pool::pool_backward(OP, &x_dims, &dims, ceil_mode, &grad.dims())?;
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
    let expected = pool::pool_backward(OP, &x_dims, &dims, ceil_mode, &output_grad.dims())?;
    let rule = "the indices must have the shape of the pooling output";
    crate::check::shape::same_shape(OP, rule, &indices.dims(), &expected)?;
    let device = x.device();
    crate::capability::same_devices(OP, &device, [output_grad.device(), indices.device()])?;
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
