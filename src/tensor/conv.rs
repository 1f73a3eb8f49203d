//! Twins of burn's convolutions in `burn::tensor::module`: `conv{1,2,3}d` and
//! `conv_transpose{1,2,3}d` (one table row per dimension), `deform_conv2d` and
//! `conv2d_weight_backward`; and [`check_conv`], the operand rule the `burn::nn` conv layers
//! share with them.
//!
//! burn checks only the channel rule (and, for `conv3d`, symmetric padding) and leaves the
//! rest to the backend: bias lengths, strides of 0, a kernel larger than the padded input,
//! mismatched devices. The twins refuse those before dispatch, then an output that cannot fit
//! on the device (the byte rule, last).

use burn::tensor::Tensor;
use burn::tensor::module as burn_module;
use burn::tensor::ops::{ConvOptions, ConvTransposeOptions, DeformConvOptions};

use super::{output_fits, same_devices};
use crate::check::conv;
use crate::error::{GuardError, Result};
use crate::panic::catch;

/// A convolution's operands' dims: input, weight, bias.
type Operands<'a> = (&'a [usize], &'a [usize], Option<&'a [usize]>);

/// A convolution's options, ordinary or transposed: the rule they set on the operands' dims.
pub(crate) trait ConvRule {
    /// The output shape, or the rule the operands break.
    fn output(&self, op: &'static str, operands: Operands<'_>) -> Result<Vec<usize>>;
}

/// burn's `conv3d` alone asserts symmetric padding (`module::conv3d` panics).
impl<const N: usize> ConvRule for ConvOptions<N> {
    fn output(&self, op: &'static str, (x, w, bias): Operands<'_>) -> Result<Vec<usize>> {
        conv::conv(op, x, w, bias, self, N == 3)
    }
}

impl<const N: usize> ConvRule for ConvTransposeOptions<N> {
    fn output(&self, op: &'static str, (x, w, bias): Operands<'_>) -> Result<Vec<usize>> {
        conv::conv_transpose(op, x, w, bias, self)
    }
}

/// A convolution's operands: the rule of its options on their dims, one device, then the
/// byte rule on the output. The tensor twins and the `burn::nn` layer twins run this.
pub(crate) fn check_conv<const D: usize>(
    op: &'static str,
    x: &Tensor<D>,
    weight: &Tensor<D>,
    bias: Option<&Tensor<1>>,
    options: &impl ConvRule,
) -> Result<()> {
    let bias_dims = bias.map(Tensor::dims);
    let bias_dims = bias_dims.as_ref().map(|d| &d[..]);
    let out = options.output(op, (&x.dims(), &weight.dims(), bias_dims))?;
    let device = x.device();
    crate::capability::same_device(op, &device, &weight.device())?;
    if let Some(bias) = bias {
        crate::capability::same_device(op, &device, &bias.device())?;
    }
    output_fits(op, &out, x.dtype(), &device)
}

/// `deform_conv2d`'s operands: the rule on their dims, one device, then the byte rule on the
/// output. The tensor twin and the `DeformConv2d` layer twin run this.
pub(crate) fn check_deform_conv2d(
    op: &'static str,
    x: &Tensor<4>,
    offset: &Tensor<4>,
    weight: &Tensor<4>,
    mask: Option<&Tensor<4>>,
    bias: Option<&Tensor<1>>,
    options: &DeformConvOptions<2>,
) -> Result<()> {
    let mask_dims = mask.map(Tensor::dims);
    let bias_dims = bias.map(Tensor::dims);
    let out = conv::deform_conv2d(
        op,
        &x.dims(),
        &offset.dims(),
        &weight.dims(),
        mask_dims.as_ref().map(|d| &d[..]),
        bias_dims.as_ref().map(|d| &d[..]),
        options,
    )?;
    let device = x.device();
    let mut devices = vec![device.clone(), offset.device(), weight.device()];
    devices.extend(mask.map(Tensor::device));
    devices.extend(bias.map(Tensor::device));
    same_devices(op, &devices)?;
    output_fits(op, &out, x.dtype(), &device)
}

/// Converts burn's option argument, turning a panic in a conversion (the deprecated
/// `PaddedConvOptions` re-checks its stride) into a refusal.
fn into_options<T, O: Into<T>>(op: &'static str, options: O) -> Result<T> {
    catch(op, || options.into()).map_err(|err| GuardError::InvalidArgument {
        op,
        rule: "the convolution options are invalid",
        got: format!("conversion={err}"),
    })
}

/// The doc fragments of the two convolution families: what the twins check, and the option
/// errors beyond the shared ones.
macro_rules! conv_doc {
    (checks conv) => {
        "Checks burn's rule `x.dims()[1] == weight.dims()[1] · groups` (and, in 3d, symmetric \
        padding: burn panics otherwise), and — beyond burn, which leaves these to the backend — \
        that stride, dilation and groups are non-zero (the options' pub fields bypass the \
        constructors' checks), that `weight.dims()[0]` is divisible by `groups`, that `bias` \
        has shape `[weight.dims()[0]]`, that kernel sizes are non-zero, that the dilated kernel \
        fits in the padded input (burn-backend's output-size arithmetic underflows otherwise), \
        that every tensor is on the same device, and that the output fits on it."
    };
    (checks transpose) => {
        "Checks burn's rule `x.dims()[1] == weight.dims()[0]`, and — beyond burn, which leaves \
        these to the backend — that stride, dilation and groups are non-zero, that \
        `weight.dims()[0]` is divisible by `groups`, that `bias` has shape \
        `[weight.dims()[1] · groups]`, that kernel and input sizes are non-zero, that the \
        output size `(in - 1)·stride + dilation·(kernel - 1) + 1 + padding_out - 2·padding` is \
        not negative (0 is allowed: an empty result), that every tensor is on the same device, \
        and that the output fits on it."
    };
    (bad conv) => { "bad options, asymmetric padding in 3d or a kernel larger than the padded input." };
    (bad transpose) => { "bad options or a negative output size." };
}

/// One row per dimension of `conv{1,2,3}d` and `conv_transpose{1,2,3}d`: the family, the twin
/// with the input's rank and the options' type, burn's function (its op name); then the doc
/// example: input and weight shapes, the options, the output dims, and a refused call.
macro_rules! conv_twins {
    ($($kind:ident fn $twin:ident(x: Tensor<$d:literal>, options: $options_ty:ty)
            = $burn:ident($op:literal);
        example $x:literal, $w:literal, $options:literal => $out:literal;
        refused $refused:literal;)*) => {$(
        #[doc = concat!("Fallible twin of [`burn_module::", $op, "`].")]
        ///
        #[doc = conv_doc!(checks $kind)]
        ///
        /// # Errors
        ///
        /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for channel, bias
        ///   and kernel mismatches.
        /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a stride, dilation or
        ///   group count of 0; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument)
        #[doc = concat!("  for other ", conv_doc!(bad $kind))]
        /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
        /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the
        ///   device's largest buffer.
        ///
        /// ```
        /// use burn::tensor::{Device, Tensor};
        /// use burn::tensor::ops::{ConvOptions, ConvTransposeOptions};
        #[doc = concat!("use burn_guard::tensor::module::", stringify!($twin), ";")]
        ///
        /// let device = Device::flex();
        #[doc = concat!("let x = Tensor::<", $d, ">::ones(", $x, ", &device);")]
        #[doc = concat!("let w = Tensor::<", $d, ">::ones(", $w, ", &device);")]
        #[doc = concat!("let options = ", $options, ";")]
        #[doc = concat!("assert_eq!(", stringify!($twin), "(x.clone(), w.clone(), None, options.clone())?.dims(), ", $out, ");")]
        #[doc = $refused]
        /// # Ok::<(), burn_guard::GuardError>(())
        /// ```
        #[doc(alias = $op)]
        pub fn $twin(
            x: Tensor<$d>,
            weight: Tensor<$d>,
            bias: Option<Tensor<1>>,
            options: $options_ty,
        ) -> Result<Tensor<$d>> {
            const OP: &str = $op;
            // A conversion that panics (the deprecated `PaddedConvOptions`) is a refusal; a
            // transposed convolution's options convert to themselves.
            let options = into_options(OP, options)?;
            check_conv(OP, &x, &weight, bias.as_ref(), &options)?;
            catch(OP, || burn_module::$burn(x, weight, bias, options))
        }
    )*};
}

conv_twins! {
    conv fn try_conv1d(x: Tensor<3>, options: impl Into<ConvOptions<1>>) = conv1d("conv1d");
        example "[1, 2, 5]", "[4, 2, 3]", "ConvOptions::new([1], [0], [1], 1)" => "[1, 4, 3]";
        refused "assert!(try_conv1d(x, Tensor::ones([4, 3, 3], &device), None, options).is_err());";
    conv fn try_conv2d(x: Tensor<4>, options: impl Into<ConvOptions<2>>) = conv2d("conv2d");
        example "[1, 2, 5, 5]", "[4, 2, 3, 3]", "ConvOptions::new([1, 1], [0, 0], [1, 1], 1)" => "[1, 4, 3, 3]";
        refused "assert!(try_conv2d(x, w, Some(Tensor::ones([3], &device)), options).is_err());";
    conv fn try_conv3d(x: Tensor<5>, options: impl Into<ConvOptions<3>>) = conv3d("conv3d");
        example "[1, 1, 3, 3, 3]", "[2, 1, 2, 2, 2]", "ConvOptions::new([1; 3], [0; 3], [1; 3], 1)" => "[1, 2, 2, 2, 2]";
        refused "assert!(try_conv3d(x, w, None, ConvOptions::new_with_padding([1; 3], [(1, 0), (0, 0), (0, 0)], [1; 3], 1)).is_err());";
    transpose fn try_conv_transpose1d(x: Tensor<3>, options: ConvTransposeOptions<1>) = conv_transpose1d("conv_transpose1d");
        example "[1, 2, 5]", "[2, 3, 3]", "ConvTransposeOptions::new([1], [0], [0], [1], 1)" => "[1, 3, 7]";
        refused "assert!(try_conv_transpose1d(x, Tensor::ones([3, 3, 3], &device), None, options).is_err());";
    transpose fn try_conv_transpose2d(x: Tensor<4>, options: ConvTransposeOptions<2>) = conv_transpose2d("conv_transpose2d");
        example "[1, 2, 3, 3]", "[2, 1, 2, 2]", "ConvTransposeOptions::new([2; 2], [0; 2], [0; 2], [1; 2], 1)" => "[1, 1, 6, 6]";
        refused "assert!(try_conv_transpose2d(x, w, Some(Tensor::ones([2], &device)), options).is_err());";
    transpose fn try_conv_transpose3d(x: Tensor<5>, options: ConvTransposeOptions<3>) = conv_transpose3d("conv_transpose3d");
        example "[1, 1, 2, 2, 2]", "[1, 2, 2, 2, 2]", "ConvTransposeOptions::new([1; 3], [0; 3], [0; 3], [1; 3], 1)" => "[1, 2, 3, 3, 3]";
        refused "assert!(try_conv_transpose3d(x, Tensor::ones([2, 2, 2, 2, 2], &device), None, options).is_err());";
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
/// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's
///   largest buffer.
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
    let (m, b) = (mask.as_ref(), bias.as_ref());
    check_deform_conv2d(OP, &x, &offset, &weight, m, b, &options)?;
    catch(OP, || {
        burn_module::deform_conv2d(x, offset, weight, mask, bias, options)
    })
}

/// Fallible twin of [`burn_module::conv2d_weight_backward`].
///
/// Checks the [`try_conv2d`] rules on `x`, `weight` and `options`, and, beyond burn, an
/// `output_grad` of the convolution output's shape, and one device for all three.
///
/// # Errors
///
/// As [`try_conv2d`]; [`GuardError::ShapeMismatch`] for a gradient of another shape.
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
    let expected = conv::conv(OP, &x.dims(), &weight.dims(), None, &options, false)?;
    let rule = "the gradient must have the shape of the convolution output";
    crate::check::shape::same_shape(OP, rule, &output_grad.dims(), &expected)?;
    let device = x.device();
    crate::capability::same_devices(OP, &device, [weight.device(), output_grad.device()])?;
    catch(OP, || {
        burn_module::conv2d_weight_backward(x, weight, output_grad, options)
    })
}
