//! Twin of burn's `interpolate` in `burn::tensor::module`, which the `burn::nn` interpolate
//! layers run too.

use burn::tensor::Tensor;
use burn::tensor::module as burn_module;
use burn::tensor::ops::InterpolateOptions;

use super::output_fits;
use crate::check::interpolate;
use crate::error::Result;
use crate::panic::catch;

/// Fallible twin of [`burn_module::interpolate`].
///
/// Checks that exactly one of `output_size` and `scale_factor` is set and that a scaled size
/// fits in `usize` (burn panics otherwise, and on a NaN factor), and — beyond burn — that the
/// scale factors are positive (a negative one would silently give size 0) and the input's
/// spatial sizes non-zero (Flex asserts; NdArray returns an arbitrary result). An output size
/// of 0 is allowed. On a Flex or NdArray device, `NearestExact` is refused: neither
/// implements it, and both panic. Last, the output must fit on the device (the byte rule).
///
/// # Errors
///
/// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) naming the options or
/// sizes; [`GuardError::Empty`](crate::GuardError::Empty) for an empty spatial dimension;
/// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's
/// largest buffer.
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
    let dims = x.dims();
    let [height, width] = interpolate::interpolate(OP, &dims, &options)?;
    let device = x.device();
    interpolate::interpolate_mode(OP, &options.mode, &crate::capability::quirks_of(&device))?;
    let out = [dims[0], dims[1], height, width];
    output_fits(OP, &out, x.dtype(), &device)?;
    catch(OP, || burn_module::interpolate(x, options))
}
