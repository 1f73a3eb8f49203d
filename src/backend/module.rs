//! Module operations that nested autodiff cannot differentiate, refused before dispatch.
//!
//! burn-autodiff's `Autodiff<B>` overrides the `*_backward` module ops with
//! `panic!("Can't differentiate …")`. Under `Autodiff<Autodiff<B>>`, the outer backward calls
//! them on the inner autodiff backend, so the first backward pass panics. `max_pool1d` is worse:
//! its second-order gradient silently comes back as nothing. These wrappers return
//! [`GuardError::NotDifferentiable`] on such stacks instead, whether or not the input is
//! tracked (a nested stack exists to be differentiated; refusing at the forward call keeps the
//! error next to its cause). On every other stack they run burn's op.
//!
//! `linear` is not here: [`linear`](super::linear) is routed through differentiable
//! primitives instead of being refused.

use burn_backend::ops::InterpolateOptions;
use burn_backend::tensor::{FloatTensor, IntTensor};
use burn_backend::{Backend, TensorMetadata};

use crate::capability::BackendStack;
use crate::check::rule::Rule;
use crate::error::{GuardError, Result};
use crate::panic;

/// A module operation whose backward burn-autodiff cannot differentiate again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NonDifferentiableOp {
    /// `embedding` (`Can't differentiate embedding backward.`).
    Embedding,
    /// `batch_norm` in training mode (`Can't differentiate batch norm train backward.`).
    BatchNormTrain,
    /// `deform_conv2d` (`Can't differentiate deform conv 2d backward.`).
    DeformConv2d,
    /// `avg_pool1d` (through the 2-D default: `Can't differentiate avg pool 2d backward.`).
    AvgPool1d,
    /// `avg_pool2d`.
    AvgPool2d,
    /// `max_pool1d` and `max_pool1d_with_indices`: no panic, the second-order gradient is
    /// silently dropped.
    MaxPool1d,
    /// `max_pool2d` and `max_pool2d_with_indices`.
    MaxPool2d,
    /// `adaptive_avg_pool1d` (through the 2-D default).
    AdaptiveAvgPool1d,
    /// `adaptive_avg_pool2d`.
    AdaptiveAvgPool2d,
    /// `adaptive_avg_pool3d`.
    AdaptiveAvgPool3d,
    /// `interpolate`, every mode.
    Interpolate,
}

impl NonDifferentiableOp {
    /// burn's name for the operation.
    ///
    /// ```
    /// use burn_guard::backend::NonDifferentiableOp;
    /// assert_eq!(NonDifferentiableOp::MaxPool1d.name(), "max_pool1d");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Self::Embedding => "embedding",
            Self::BatchNormTrain => "batch_norm",
            Self::DeformConv2d => "deform_conv2d",
            Self::AvgPool1d => "avg_pool1d",
            Self::AvgPool2d => "avg_pool2d",
            Self::MaxPool1d => "max_pool1d",
            Self::MaxPool2d => "max_pool2d",
            Self::AdaptiveAvgPool1d => "adaptive_avg_pool1d",
            Self::AdaptiveAvgPool2d => "adaptive_avg_pool2d",
            Self::AdaptiveAvgPool3d => "adaptive_avg_pool3d",
            Self::Interpolate => "interpolate",
        }
    }
}

/// Refuses `op` on a stack with nested autodiff (two or more `Autodiff` layers).
///
/// # Errors
///
/// [`GuardError::NotDifferentiable`] with `order` the stack's autodiff depth.
///
/// ```
/// use burn_guard::backend::{differentiable, NonDifferentiableOp};
/// type Nested = burn_autodiff::Autodiff<burn_autodiff::Autodiff<burn_flex::Flex>>;
/// type Plain = burn_autodiff::Autodiff<burn_flex::Flex>;
/// let device = Default::default();
/// assert!(differentiable::<Plain>(NonDifferentiableOp::Embedding, &device).is_ok());
/// let err = differentiable::<Nested>(NonDifferentiableOp::Embedding, &device).unwrap_err();
/// assert!(matches!(err, burn_guard::GuardError::NotDifferentiable { order: 2, .. }));
/// ```
pub fn differentiable<B: Backend>(op: NonDifferentiableOp, device: &B::Device) -> Result<()> {
    let depth = BackendStack::cached::<B>(device).autodiff_depth();
    if depth >= 2 {
        return Err(GuardError::NotDifferentiable {
            op: op.name(),
            backend: BackendStack::of::<B>(device).label().to_owned(),
            order: u8::try_from(depth).unwrap_or(u8::MAX),
        });
    }
    Ok(())
}

/// The layout of an image input, and its rank.
const IMAGE: (&str, usize) = ("input must be [batch, channels, height, width]", 4);

/// The three steps of every wrapper: refuse under nested autodiff, check the input's rank
/// (`layout` = the rule and the rank), run burn under the backstop; errors name `kind`.
fn guarded<B: Backend, T>(
    kind: NonDifferentiableOp,
    layout: (&'static str, usize),
    x: FloatTensor<B>,
    run: impl FnOnce(FloatTensor<B>) -> T,
) -> Result<T> {
    differentiable::<B>(kind, &x.device())?;
    Rule(kind.name(), layout.0).rank(&x.shape(), layout.1)?;
    panic::catch(kind.name(), || run(x))
}

/// burn's `embedding`: rows of `weights` `[n, d_model]` picked by `indices` `[batch, seq]`.
///
/// # Errors
///
/// - [`GuardError::NotDifferentiable`] under nested autodiff.
/// - [`GuardError::RankMismatch`] when `weights` is not rank 2 or `indices` not rank 2.
/// - [`GuardError::BackendPanic`] if the backend still panics (an index out of range).
///
/// ```
/// use burn_backend::ops::{FloatTensorOps, IntTensorOps};
/// use burn_backend::TensorData;
/// use burn_flex::Flex;
///
/// let device = Default::default();
/// let w = Flex::float_from_data(TensorData::new(vec![0.0f32, 1.0, 2.0, 3.0], [2, 2]), &device);
/// let i = Flex::int_from_data(TensorData::new(vec![1i64, 0], [1, 2]), &device);
/// let y = burn_guard::backend::embedding::<Flex>(w, i)?;
/// assert_eq!(burn_backend::TensorMetadata::shape(&y).as_slice(), &[1, 2, 2]);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn embedding<B: Backend>(
    weights: FloatTensor<B>,
    indices: IntTensor<B>,
) -> Result<FloatTensor<B>> {
    const OP: &str = "embedding";
    differentiable::<B>(NonDifferentiableOp::Embedding, &weights.device())?;
    Rule(OP, "weights must be [n, d_model]").rank(&weights.shape(), 2)?;
    Rule(OP, "indices must be [batch, seq]").rank(&indices.shape(), 2)?;
    panic::catch(OP, || B::embedding(weights, indices))
}

/// One row per wrapper of a pooling op on one float input: its name (burn's op), burn's other
/// parameters, the [`NonDifferentiableOp`], the input's layout and rank, a note where burn does
/// not panic under nested autodiff; then the doc example: the input's values and shape, the
/// arguments after it, and the values out.
macro_rules! pool_wrappers {
    ($(fn $name:ident($($param:ident: $ty:ty),*) = $kind:ident, $layout:literal, $rank:literal;
        $(note $note:literal;)?
        example $values:literal, $shape:literal, ($args:literal) => $out:literal;)*) => {$(
        #[doc = concat!("burn's `", stringify!($name), "` on `x` `", $layout, "`.")]
        $(#[doc = ""] #[doc = $note])?
        ///
        /// # Errors
        ///
        /// - [`GuardError::NotDifferentiable`] under nested autodiff.
        #[doc = concat!("- [`GuardError::RankMismatch`] when `x` is not rank ", $rank, ".")]
        /// - [`GuardError::BackendPanic`] if the backend still panics (a kernel larger than the
        ///   input).
        ///
        /// ```
        /// use burn_backend::ops::FloatTensorOps;
        /// use burn_backend::TensorData;
        /// use burn_flex::Flex;
        ///
        #[doc = concat!("let x = Flex::float_from_data(TensorData::new(vec!", $values, ", ", $shape, "), &Default::default());")]
        #[doc = concat!("let y = burn_guard::backend::", stringify!($name), "::<Flex>(x, ", $args, ")?;")]
        /// # let y = burn_backend::read_sync(Flex::float_into_data(y)).unwrap();
        #[doc = concat!("assert_eq!(y.try_to_vec::<f32>()?, vec!", $out, ");")]
        /// # Ok::<(), burn_guard::GuardError>(())
        /// ```
        pub fn $name<B: Backend>(x: FloatTensor<B>, $($param: $ty),*) -> Result<FloatTensor<B>> {
            let layout = (concat!("input must be ", $layout), $rank);
            guarded::<B, _>(NonDifferentiableOp::$kind, layout, x, |x| B::$name(x, $($param),*))
        }
    )*};
}

pool_wrappers! {
    fn avg_pool1d(kernel_size: usize, stride: usize, padding: usize, count_include_pad: bool,
        ceil_mode: bool) = AvgPool1d, "[batch, channels, length]", 3;
        example "[1.0f32, 3.0, 5.0, 7.0]", "[1, 1, 4]", ("2, 2, 0, true, false") => "[2.0, 6.0]";
    fn avg_pool2d(kernel_size: [usize; 2], stride: [usize; 2], padding: [usize; 2],
        count_include_pad: bool, ceil_mode: bool) = AvgPool2d, "[batch, channels, height, width]", 4;
        example "[1.0f32, 2.0, 3.0, 6.0]", "[1, 1, 2, 2]", ("[2, 2], [1, 1], [0, 0], true, false") => "[3.0]";
    fn max_pool1d(kernel_size: usize, stride: usize, padding: usize, dilation: usize,
        ceil_mode: bool) = MaxPool1d, "[batch, channels, length]", 3;
        note "Under nested autodiff burn does not panic here: the second-order gradient through \
            it is silently missing. We refuse it there.";
        example "[1.0f32, 3.0, 5.0, 2.0]", "[1, 1, 4]", ("2, 2, 0, 1, false") => "[3.0, 5.0]";
    fn max_pool2d(kernel_size: [usize; 2], stride: [usize; 2], padding: [usize; 2],
        dilation: [usize; 2], ceil_mode: bool) = MaxPool2d, "[batch, channels, height, width]", 4;
        example "[1.0f32, 2.0, 3.0, 6.0]", "[1, 1, 2, 2]", ("[2, 2], [1, 1], [0, 0], [1, 1], false") => "[6.0]";
    fn adaptive_avg_pool1d(output_size: usize) = AdaptiveAvgPool1d, "[batch, channels, length]", 3;
        example "[1.0f32, 2.0, 3.0, 6.0]", "[1, 1, 4]", ("1") => "[3.0]";
    fn adaptive_avg_pool2d(output_size: [usize; 2]) = AdaptiveAvgPool2d,
        "[batch, channels, height, width]", 4;
        example "[1.0f32, 2.0, 3.0, 6.0]", "[1, 1, 2, 2]", ("[1, 1]") => "[3.0]";
    fn adaptive_avg_pool3d(output_size: [usize; 3]) = AdaptiveAvgPool3d,
        "[batch, channels, depth, height, width]", 5;
        example "[2.0f32; 8]", "[1, 1, 2, 2, 2]", ("[1, 1, 1]") => "[2.0]";
}

/// burn's `interpolate` on `x` `[batch, channels, height, width]`.
///
/// # Errors
///
/// - [`GuardError::NotDifferentiable`] under nested autodiff.
/// - [`GuardError::RankMismatch`] when `x` is not rank 4.
/// - [`GuardError::BackendPanic`] if the backend still panics.
///
/// ```
/// use burn_backend::ops::{FloatTensorOps, InterpolateMode, InterpolateOptions};
/// use burn_backend::TensorData;
/// use burn_flex::Flex;
///
/// let x = Flex::float_from_data(TensorData::new(vec![1.0f32, 2.0, 3.0, 4.0], [1, 1, 2, 2]), &Default::default());
/// let options = InterpolateOptions::new(InterpolateMode::Nearest);
/// let y = burn_guard::backend::interpolate::<Flex>(x, [4, 4], options)?;
/// assert_eq!(burn_backend::TensorMetadata::shape(&y).as_slice(), &[1, 1, 4, 4]);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn interpolate<B: Backend>(
    x: FloatTensor<B>,
    output_size: [usize; 2],
    options: InterpolateOptions,
) -> Result<FloatTensor<B>> {
    let run = |x| B::interpolate(x, output_size, options);
    guarded::<B, _>(NonDifferentiableOp::Interpolate, IMAGE, x, run)
}

/// burn's `batch_norm_train` (statistics of the batch) on `x` `[batch, channels, ...]`.
///
/// # Errors
///
/// - [`GuardError::NotDifferentiable`] under nested autodiff (burn panics `Can't
///   differentiate batch norm train backward.`).
/// - [`GuardError::RankMismatch`] when `x` has rank < 2.
/// - [`GuardError::BackendPanic`] if the backend still panics.
///
/// ```
/// use burn_backend::ops::FloatTensorOps;
/// use burn_backend::TensorData;
/// use burn_flex::Flex;
///
/// let device = Default::default();
/// let x = Flex::float_from_data(TensorData::new(vec![1.0f32, 3.0], [2, 1]), &device);
/// let ones = Flex::float_from_data(TensorData::new(vec![1.0f32], [1]), &device);
/// let zeros = Flex::float_from_data(TensorData::new(vec![0.0f32], [1]), &device);
/// let out = burn_guard::backend::batch_norm_train::<Flex>(x, ones, zeros, 1e-5)?;
/// # let _ = out;
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn batch_norm_train<B: Backend>(
    x: FloatTensor<B>,
    gamma: FloatTensor<B>,
    beta: FloatTensor<B>,
    epsilon: f64,
) -> Result<burn_backend::ops::BatchNormTrain<B>> {
    const OP: &str = "batch_norm_train";
    differentiable::<B>(NonDifferentiableOp::BatchNormTrain, &x.device())?;
    Rule(OP, "input must be [batch, channels, ...]").rank_at_least(&x.shape(), 2)?;
    panic::catch(OP, || B::batch_norm_train(x, gamma, beta, epsilon))
}

/// burn's `deform_conv2d` on `x` `[batch, channels_in, height, width]`.
///
/// # Errors
///
/// - [`GuardError::NotDifferentiable`] under nested autodiff (burn panics `Can't
///   differentiate deform conv 2d backward.`).
/// - [`GuardError::RankMismatch`] when `x` is not rank 4.
/// - [`GuardError::BackendPanic`] if the backend still panics (shape rules of the offsets and
///   mask are checked by the `burn::Tensor`-level twin `try_deform_conv2d`).
///
/// ```
/// use burn_backend::ops::{DeformConvOptions, FloatTensorOps};
/// use burn_backend::TensorData;
/// use burn_flex::Flex;
///
/// let device = Default::default();
/// let x = Flex::float_from_data(TensorData::new(vec![1.0f32; 9], [1, 1, 3, 3]), &device);
/// let offset = Flex::float_from_data(TensorData::new(vec![0.0f32; 2 * 4 * 4], [1, 2, 4, 4]), &device);
/// let weight = Flex::float_from_data(TensorData::new(vec![1.0f32], [1, 1, 1, 1]), &device);
/// let options = DeformConvOptions::new([1, 1], [0, 0], [1, 1], 1, 1);
/// let y = burn_guard::backend::deform_conv2d::<Flex>(x, offset, weight, None, None, options);
/// # let _ = y;
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn deform_conv2d<B: Backend>(
    x: FloatTensor<B>,
    offset: FloatTensor<B>,
    weight: FloatTensor<B>,
    mask: Option<FloatTensor<B>>,
    bias: Option<FloatTensor<B>>,
    options: burn_backend::ops::DeformConvOptions<2>,
) -> Result<FloatTensor<B>> {
    let run = |x| B::deform_conv2d(x, offset, weight, mask, bias, options);
    guarded::<B, _>(NonDifferentiableOp::DeformConv2d, IMAGE, x, run)
}
