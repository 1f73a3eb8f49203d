//! [`burn::nn::pool`] layers and the other spatial layers (unfold, fold, interpolate, pixel
//! shuffle), and the padding `burn::nn` computes for a `PaddingConfig*` ([`Padding`]).
//!
//! The pooling configs' `init` cannot panic (no twin): their forward builds the pooling
//! options, whose constructors panic on a zero kernel size, stride or dilation, then pools.
//! The twins check the module's fields and the input first, by the rules of the tensor
//! twins ([`try_max_pool2d`](crate::tensor::module::try_max_pool2d), …), byte rule included.
//! The max, average and adaptive pools are rows of [`layer_twins!`](super::support), one per
//! dimension.

use burn::nn::interpolate::{Interpolate1d, Interpolate2d};
use burn::nn::pool::{
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AvgPool1d, AvgPool2d, MaxPool1d,
    MaxPool2d,
};
use burn::nn::{
    Fold4d, PaddingConfig1d, PaddingConfig2d, PaddingConfig3d, PixelShuffle, PixelUnshuffle,
    Unfold4d,
};
use burn::tensor::Tensor;
use burn::tensor::ops::{AvgPoolOptions, InterpolateOptions, MaxPoolOptions};

use super::support::Sealed;
use crate::GuardError;
use crate::check::pool;
use crate::check::pool::same_padding;
use crate::error::Result;
use crate::panic::catch;
use crate::tensor::module::try_interpolate;
use crate::tensor::pool::{PerDim, check_adaptive_pool, check_avg_pool, check_max_pool};

/// `Same` padding along one dim; the stride was checked non-zero before.
fn same(op: &'static str, kernel: usize, stride: usize, size: usize) -> Result<(usize, usize)> {
    pool::nonzero(op, "stride", &[stride])?;
    same_padding(kernel, stride, size).ok_or_else(|| GuardError::InvalidArgument {
        op,
        rule: "the same padding overflows",
        got: format!("kernel={kernel}, stride={stride}, size={size}"),
    })
}

/// The size of spatial dim `i` of an input of `dims`.
fn spatial(dims: &[usize], i: usize) -> usize {
    dims.get(i + 2).copied().unwrap_or(0)
}

/// The `(begin, end)` padding of each spatial dim, or the rule a padding config breaks.
type Pairs<const N: usize> = Result<[(usize, usize); N]>;

/// The padding burn-nn computes from a padding config for an input of `dims`, a kernel `k` and
/// a stride `s`.
pub(super) trait Padding<const N: usize> {
    /// The padding pairs, or the rule the config breaks on this input.
    fn pairs(&self, op: &'static str, dims: &[usize], k: [usize; N], s: [usize; N]) -> Pairs<N>;
}

/// burn-nn's `PaddingConfig1d::calculate_padding_1d_pair`.
impl Padding<1> for PaddingConfig1d {
    fn pairs(
        &self,
        op: &'static str,
        dims: &[usize],
        [k]: [usize; 1],
        [s]: [usize; 1],
    ) -> Pairs<1> {
        Ok([match self {
            Self::Valid => (0, 0),
            Self::Same => same(op, k, s, spatial(dims, 0))?,
            Self::Explicit(left, right) => (*left, *right),
        }])
    }
}

/// burn-nn's `PaddingConfig2d::calculate_padding_2d_pairs`.
impl Padding<2> for PaddingConfig2d {
    fn pairs(&self, op: &'static str, dims: &[usize], k: [usize; 2], s: [usize; 2]) -> Pairs<2> {
        match self {
            Self::Valid => Ok([(0, 0); 2]),
            Self::Same => Ok([
                same(op, k[0], s[0], spatial(dims, 0))?,
                same(op, k[1], s[1], spatial(dims, 1))?,
            ]),
            Self::Explicit(top, left, bottom, right) => Ok([(*top, *bottom), (*left, *right)]),
        }
    }
}

/// burn-nn's `PaddingConfig3d::calculate_padding_3d`: symmetric, and a panic when `Same` needs
/// asymmetric padding (an even kernel, or a stride that leaves an odd remainder).
impl Padding<3> for PaddingConfig3d {
    fn pairs(
        &self,
        op: &'static str,
        dims: &[usize],
        kernel: [usize; 3],
        stride: [usize; 3],
    ) -> Pairs<3> {
        match self {
            Self::Valid => Ok([(0, 0); 3]),
            Self::Explicit(d, h, w) => Ok([(*d, *d), (*h, *h), (*w, *w)]),
            Self::Same => {
                let size = [spatial(dims, 0), spatial(dims, 1), spatial(dims, 2)];
                let mut out = [(0, 0); 3];
                let dims = out.iter_mut().zip(kernel).zip(stride).zip(size);
                for (i, (((slot, k), s), n)) in dims.enumerate() {
                    let (begin, end) = same(op, k, s, n)?;
                    if begin != end {
                        return Err(GuardError::InvalidArgument {
                            op,
                            rule: "3D same padding must be symmetric",
                            got: format!(
                                "kernel={kernel:?}, stride={stride:?}, input={size:?}: dim {i} needs ({begin}, {end})"
                            ),
                        });
                    }
                    *slot = (begin, end);
                }
                Ok(out)
            }
        }
    }
}

/// A pooling window per spatial dim: kernel size, stride, padding pairs.
type Window<const N: usize> = ([usize; N], [usize; N], [(usize, usize); N]);

/// The kernel size, stride and padding a pool layer's forward computes for `input`.
fn window<const D: usize, const N: usize>(
    op: &'static str,
    input: &Tensor<D>,
    kernel: &impl PerDim<N>,
    stride: &impl PerDim<N>,
    padding: &impl Padding<N>,
) -> Result<Window<N>> {
    let (kernel, stride) = (kernel.per_dim(), stride.per_dim());
    Ok((
        kernel,
        stride,
        padding.pairs(op, &input.dims(), kernel, stride)?,
    ))
}

/// The doc of the max and average pool layer twins.
macro_rules! pool_doc {
    (checks) => {
        "Checks the module's kernel size, stride and (max pools) dilation (non-zero: burn's \
        options constructor panics) and — beyond burn, which leaves them to the backend (NdArray \
        panics) — a non-empty input and a (dilated) kernel that fits in the padded input, as the \
        tensor twins ([`try_max_pool1d`](crate::tensor::module::try_max_pool1d), \
        [`try_avg_pool1d`](crate::tensor::module::try_avg_pool1d), …) do, and that the output \
        fits on the device."
    };
    (errors) => {
        "[`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero option; \
        [`GuardError::Empty`](crate::GuardError::Empty) for an empty input length; \
        [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel \
        larger than the padded input; [`GuardError::TooLarge`](crate::GuardError::TooLarge) \
        for an output over the device's largest buffer."
    };
}

layer_twins! {
    checks pool_doc!(checks);
    errors pool_doc!(errors);
    import "use burn::nn::pool::*;";
    |layer, input, op| {
        let (kernel_size, stride, padding) = window(op, input, &layer.kernel_size, &layer.stride, &layer.padding)?;
        let (dilation, ceil_mode) = (layer.dilation.per_dim(), layer.ceil_mode);
        check_max_pool(op, input, &MaxPoolOptions { kernel_size, stride, padding, dilation, ceil_mode })
    }
    TryMaxPool1d, MaxPool1d, "max_pool1d", 3 => 3, "`[batch, channels, length]` in", "MaxPool1dConfig::new(3).init()", "[1, 2, 6]" => "[1, 2, 2]", "[1, 2, 2]" => InvalidArgument;
    TryMaxPool2d, MaxPool2d, "max_pool2d", 4 => 4, "`[batch, channels, height, width]` in", "MaxPool2dConfig::new([2, 2]).init()", "[1, 2, 4, 4]" => "[1, 2, 2, 2]", "[1, 2, 1, 4]" => InvalidArgument;
}

layer_twins! {
    checks pool_doc!(checks);
    errors pool_doc!(errors);
    import "use burn::nn::pool::*;";
    |layer, input, op| {
        let (kernel_size, stride, padding) = window(op, input, &layer.kernel_size, &layer.stride, &layer.padding)?;
        let (count_include_pad, ceil_mode) = (layer.count_include_pad, layer.ceil_mode);
        let options = AvgPoolOptions { kernel_size, stride, padding, count_include_pad, ceil_mode };
        check_avg_pool(op, input, &options)
    }
    TryAvgPool1d, AvgPool1d, "avg_pool1d", 3 => 3, "`[batch, channels, length]` in", "AvgPool1dConfig::new(3).init()", "[1, 2, 6]" => "[1, 2, 2]", "[1, 2, 2]" => InvalidArgument;
    TryAvgPool2d, AvgPool2d, "avg_pool2d", 4 => 4, "`[batch, channels, height, width]` in", "AvgPool2dConfig::new([2, 2]).init()", "[1, 2, 4, 4]" => "[1, 2, 2, 2]", "[1, 2, 4, 1]" => InvalidArgument;
}

layer_twins! {
    checks "Checks — beyond burn, which leaves it to the backend — a non-empty input along \
        every spatial dim, as \
        [`try_adaptive_avg_pool1d`](crate::tensor::module::try_adaptive_avg_pool1d) does, \
        and that the output fits on the device.";
    errors "[`GuardError::Empty`](crate::GuardError::Empty) for an empty input length; \
        [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the \
        device's largest buffer.";
    import "use burn::nn::pool::*;";
    |layer, input, op| { check_adaptive_pool(op, input, &layer.output_size) }
    TryAdaptiveAvgPool1d, AdaptiveAvgPool1d, "adaptive_avg_pool1d", 3 => 3, "`[batch, channels, length]` in", "AdaptiveAvgPool1dConfig::new(2).init()", "[1, 2, 5]" => "[1, 2, 2]", "[1, 2, 0]" => Empty;
    TryAdaptiveAvgPool2d, AdaptiveAvgPool2d, "adaptive_avg_pool2d", 4 => 4, "`[batch, channels, height, width]` in", "AdaptiveAvgPool2dConfig::new([2, 2]).init()", "[1, 2, 5, 5]" => "[1, 2, 2, 2]", "[1, 2, 0, 5]" => Empty;
    TryAdaptiveAvgPool3d, AdaptiveAvgPool3d, "adaptive_avg_pool3d", 5 => 5, "`[batch, channels, d, h, w]` in", "AdaptiveAvgPool3dConfig::new([1, 2, 2]).init()", "[1, 1, 3, 4, 4]" => "[1, 1, 1, 2, 2]", "[1, 1, 3, 0, 4]" => Empty;
}

layer_twins! {
    checks "Checks the module's kernel size, stride and dilation (non-zero: burn's options \
        constructor panics) and — beyond burn, which leaves it to the backend — that the \
        dilated kernel fits in the padded input, as \
        [`try_unfold4d`](crate::tensor::module::try_unfold4d) does.";
    errors "[`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero option; \
        [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel \
        larger than the padded input.";
    import "use burn::nn::*;";
    |layer, input, op| {
        let (kernel, stride, padding, dilation) =
            (layer.kernel_size, layer.stride, layer.padding, layer.dilation);
        pool::unfold(op, &input.dims(), kernel, stride, padding, dilation).map(drop)
    }
    TryUnfold4d, Unfold4d, "unfold4d", 4 => 3, "`[batch, channels, height, width]` in, `[batch, channels · kh · kw, blocks]` out", "Unfold4dConfig::new([2, 2]).init()", "[1, 2, 3, 3]" => "[1, 8, 4]", "[1, 2, 1, 3]" => InvalidArgument;
}

layer_twins! {
    checks "Checks what [`try_fold4d`](crate::tensor::module::try_fold4d) checks on the \
        module's output size, kernel size and options.";
    errors "As [`try_fold4d`](crate::tensor::module::try_fold4d).";
    import "use burn::nn::*;";
    |layer, input, op| {
        let sizes = (layer.output_size, layer.kernel_size);
        let (stride, padding, dilation) = (layer.stride, layer.padding, layer.dilation);
        pool::fold(op, &input.dims(), sizes.0, sizes.1, stride, padding, dilation).map(drop)
    }
    TryFold4d, Fold4d, "fold4d", 3 => 4, "`[batch, channels · kh · kw, blocks]` in, `[batch, channels, output_size...]` out", "Fold4dConfig::new([3, 3], [2, 2]).init()", "[1, 8, 4]" => "[1, 2, 3, 3]", "[1, 8, 5]" => ShapeMismatch;
}

layer_twins! {
    checks "Checks what burn asserts: a non-zero upscale factor `r` and channels divisible by \
        `r²`; and refuses the empty inputs burn's reshapes panic on.";
    errors "[`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a factor of 0; \
        [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for channels `r²` does \
        not divide; [`GuardError::Empty`](crate::GuardError::Empty) for such an empty input.";
    import "use burn::nn::*;";
    |layer, input, op| { pool::pixel_shuffle(op, &input.dims(), layer.upscale_factor, true) }
    TryPixelShuffle, PixelShuffle, "pixel_shuffle", 4 => 4, "`[batch, channels · r², h, w]` in, `[batch, channels, h · r, w · r]` out", "PixelShuffleConfig::new(2).init()", "[1, 8, 2, 2]" => "[1, 2, 4, 4]", "[1, 6, 2, 2]" => ShapeMismatch;
}

layer_twins! {
    checks "Checks what burn asserts: a non-zero downscale factor `r` dividing height and \
        width; and refuses the empty inputs burn's reshapes panic on.";
    errors "[`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a factor of 0; \
        [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for sizes `r` does not \
        divide; [`GuardError::Empty`](crate::GuardError::Empty) for such an empty input.";
    import "use burn::nn::*;";
    |layer, input, op| { pool::pixel_shuffle(op, &input.dims(), layer.downscale_factor, false) }
    TryPixelUnshuffle, PixelUnshuffle, "pixel_unshuffle", 4 => 4, "`[batch, channels, h · r, w · r]` in, `[batch, channels · r², h, w]` out", "PixelUnshuffleConfig::new(2).init()", "[1, 2, 4, 4]" => "[1, 8, 2, 2]", "[1, 2, 4, 3]" => ShapeMismatch;
}

impl Sealed for Interpolate1d {}
impl Sealed for Interpolate2d {}

/// Twin of [`Interpolate1d::forward`].
pub trait TryInterpolate1d: Sealed {
    /// Fallible twin of [`Interpolate1d::forward`]: `[batch, channels, length]` in.
    ///
    /// burn runs `interpolate` on the input with a unit height; the twin runs
    /// [`try_interpolate`](crate::tensor::module::try_interpolate) on the same tensor and
    /// options, so it checks the same: exactly one of output size and scale factor set, a
    /// positive finite scale factor, a non-empty input, a mode the backend implements.
    ///
    /// # Errors
    ///
    /// As [`try_interpolate`](crate::tensor::module::try_interpolate).
    ///
    /// ```
    /// use burn::nn::interpolate::Interpolate1dConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let up = Interpolate1dConfig::new().with_scale_factor(Some(2.0)).init();
    /// assert_eq!(up.try_forward(Tensor::<3>::ones([1, 2, 3], &device))?.dims(), [1, 2, 6]);
    /// let neither = Interpolate1dConfig::new().init();
    /// assert!(neither.try_forward(Tensor::<3>::ones([1, 2, 3], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<3>>;
}

impl TryInterpolate1d for Interpolate1d {
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<3>> {
        const OP: &str = "interpolate1d";
        // The options and reshapes of burn's forward, each step checked or infallible.
        let mut options = InterpolateOptions::new(self.mode.clone().into())
            .with_align_corners(self.align_corners);
        options.output_size = self.output_size.map(|size| [1, size]);
        options.scale_factor = self.scale_factor.map(|scale| [1.0, scale]);
        let [batch, channels, length] = input.dims();
        // burn's unsqueeze panics on some empty shapes: the interpolate rule (which refuses
        // an empty input) runs on the unsqueezed shape first.
        crate::check::interpolate::interpolate(OP, &[batch, channels, 1, length], &options)?;
        let input = catch(OP, || input.unsqueeze_dim::<4>(2))?;
        let output = try_interpolate(input, options)?;
        catch(OP, || output.squeeze_dims::<3>(&[2]))
    }
}

/// Twin of [`Interpolate2d::forward`].
pub trait TryInterpolate2d: Sealed {
    /// Fallible twin of [`Interpolate2d::forward`]: `[batch, channels, height, width]` in.
    ///
    /// Runs [`try_interpolate`](crate::tensor::module::try_interpolate) on the options
    /// burn's forward builds, so it checks the same.
    ///
    /// # Errors
    ///
    /// As [`try_interpolate`](crate::tensor::module::try_interpolate).
    ///
    /// ```
    /// use burn::nn::interpolate::Interpolate2dConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let up = Interpolate2dConfig::new().with_output_size(Some([4, 6])).init();
    /// assert_eq!(up.try_forward(Tensor::<4>::ones([1, 2, 2, 3], &device))?.dims(), [1, 2, 4, 6]);
    /// assert!(up.try_forward(Tensor::<4>::ones([1, 2, 0, 3], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>>;
}

impl TryInterpolate2d for Interpolate2d {
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>> {
        let mut options = InterpolateOptions::new(self.mode.clone().into())
            .with_align_corners(self.align_corners);
        options.output_size = self.output_size;
        options.scale_factor = self.scale_factor;
        try_interpolate(input, options)
    }
}
