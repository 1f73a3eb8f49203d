//! [`burn::nn::pool`] layers, and the padding `burn::nn` computes for a `PaddingConfig*`.
//!
//! The pooling configs' `init` cannot panic (no twin): their forward builds the pooling
//! options, whose constructors panic on a zero kernel size, stride or dilation, then pools.
//! The twins check the module's fields and the input first, by the rules of the tensor
//! twins ([`try_max_pool2d`](crate::tensor::module::try_max_pool2d), …).

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
use crate::check::pool::{self as rules, same_padding};
use crate::error::Result;
use crate::panic::catch;
use crate::tensor::module::try_interpolate;
use crate::tensor::pool::{check_avg_pool, check_max_pool};

/// `Same` padding along one dim; the stride was checked non-zero before.
fn same(op: &'static str, kernel: usize, stride: usize, size: usize) -> Result<(usize, usize)> {
    rules::nonzero(op, "stride", &[stride])?;
    same_padding(kernel, stride, size).ok_or_else(|| GuardError::InvalidArgument {
        op,
        rule: "the same padding overflows",
        got: format!("kernel={kernel}, stride={stride}, size={size}"),
    })
}

/// The `(begin, end)` padding burn-nn's `PaddingConfig1d::calculate_padding_1d_pair` gives.
pub(super) fn padding_1d(
    op: &'static str,
    config: &PaddingConfig1d,
    size: usize,
    kernel: usize,
    stride: usize,
) -> Result<(usize, usize)> {
    match config {
        PaddingConfig1d::Valid => Ok((0, 0)),
        PaddingConfig1d::Same => same(op, kernel, stride, size),
        PaddingConfig1d::Explicit(left, right) => Ok((*left, *right)),
    }
}

/// The `[(top, bottom), (left, right)]` padding of burn-nn's
/// `PaddingConfig2d::calculate_padding_2d_pairs`.
pub(super) fn padding_2d(
    op: &'static str,
    config: &PaddingConfig2d,
    size: [usize; 2],
    kernel: [usize; 2],
    stride: [usize; 2],
) -> Result<[(usize, usize); 2]> {
    match config {
        PaddingConfig2d::Valid => Ok([(0, 0); 2]),
        PaddingConfig2d::Same => Ok([
            same(op, kernel[0], stride[0], size[0])?,
            same(op, kernel[1], stride[1], size[1])?,
        ]),
        PaddingConfig2d::Explicit(top, left, bottom, right) => {
            Ok([(*top, *bottom), (*left, *right)])
        }
    }
}

/// The symmetric padding of burn-nn's `PaddingConfig3d::calculate_padding_3d`, which panics
/// when `Same` needs asymmetric padding (an even kernel, or a stride that leaves an odd
/// remainder).
pub(super) fn padding_3d(
    op: &'static str,
    config: &PaddingConfig3d,
    size: [usize; 3],
    kernel: [usize; 3],
    stride: [usize; 3],
) -> Result<[usize; 3]> {
    match config {
        PaddingConfig3d::Valid => Ok([0; 3]),
        PaddingConfig3d::Explicit(d, h, w) => Ok([*d, *h, *w]),
        PaddingConfig3d::Same => {
            let mut out = [0; 3];
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
                *slot = begin;
            }
            Ok(out)
        }
    }
}

impl Sealed for MaxPool1d {}
impl Sealed for MaxPool2d {}
impl Sealed for AvgPool1d {}
impl Sealed for AvgPool2d {}
impl Sealed for AdaptiveAvgPool1d {}
impl Sealed for AdaptiveAvgPool2d {}
impl Sealed for AdaptiveAvgPool3d {}

/// Twin of [`MaxPool1d::forward`].
pub trait TryMaxPool1d: Sealed {
    /// Fallible twin of [`MaxPool1d::forward`]: `[batch, channels, length]` in.
    ///
    /// Checks the module's kernel size, stride and dilation (non-zero: burn's options
    /// constructor panics) and — beyond burn, which leaves them to the backend (NdArray
    /// panics) — a non-empty input length and a dilated kernel that fits in the padded input,
    /// as
    /// [`try_max_pool1d`](crate::tensor::module::try_max_pool1d) does.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero option;
    /// [`GuardError::Empty`](crate::GuardError::Empty) for an empty input length;
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel
    /// larger than the padded input.
    ///
    /// ```
    /// use burn::nn::pool::MaxPool1dConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let pool = MaxPool1dConfig::new(3).init();
    /// assert_eq!(pool.try_forward(Tensor::<3>::ones([1, 2, 6], &device))?.dims(), [1, 2, 2]);
    /// assert!(pool.try_forward(Tensor::<3>::ones([1, 2, 2], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<3>>;
}

impl TryMaxPool1d for MaxPool1d {
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<3>> {
        const OP: &str = "max_pool1d";
        let dims = input.dims();
        let padding = padding_1d(OP, &self.padding, dims[2], self.kernel_size, self.stride)?;
        let options = MaxPoolOptions {
            kernel_size: [self.kernel_size],
            stride: [self.stride],
            padding: [padding],
            dilation: [self.dilation],
            ceil_mode: self.ceil_mode,
        };
        check_max_pool(OP, &dims, &options)?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`MaxPool2d::forward`].
pub trait TryMaxPool2d: Sealed {
    /// Fallible twin of [`MaxPool2d::forward`]: `[batch, channels, height, width]` in.
    ///
    /// Checks what [`TryMaxPool1d::try_forward`] checks, per spatial dim.
    ///
    /// # Errors
    ///
    /// As [`TryMaxPool1d::try_forward`].
    ///
    /// ```
    /// use burn::nn::pool::MaxPool2dConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let pool = MaxPool2dConfig::new([2, 2]).init();
    /// assert_eq!(pool.try_forward(Tensor::<4>::ones([1, 2, 4, 4], &device))?.dims(), [1, 2, 2, 2]);
    /// assert!(pool.try_forward(Tensor::<4>::ones([1, 2, 1, 4], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>>;
}

impl TryMaxPool2d for MaxPool2d {
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>> {
        const OP: &str = "max_pool2d";
        let dims = input.dims();
        let padding = padding_2d(
            OP,
            &self.padding,
            [dims[2], dims[3]],
            self.kernel_size,
            self.stride,
        )?;
        let options = MaxPoolOptions {
            kernel_size: self.kernel_size,
            stride: self.stride,
            padding,
            dilation: self.dilation,
            ceil_mode: self.ceil_mode,
        };
        check_max_pool(OP, &dims, &options)?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`AvgPool1d::forward`].
pub trait TryAvgPool1d: Sealed {
    /// Fallible twin of [`AvgPool1d::forward`]: `[batch, channels, length]` in.
    ///
    /// Checks the module's kernel size and stride (non-zero: burn's options constructor
    /// panics) and — beyond burn, which leaves them to the backend (NdArray panics) — a
    /// non-empty input length and a kernel that fits in the padded input, as
    /// [`try_avg_pool1d`](crate::tensor::module::try_avg_pool1d) does.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero option;
    /// [`GuardError::Empty`](crate::GuardError::Empty) for an empty input length;
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel
    /// larger than the padded input.
    ///
    /// ```
    /// use burn::nn::pool::AvgPool1dConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let pool = AvgPool1dConfig::new(3).init();
    /// assert_eq!(pool.try_forward(Tensor::<3>::ones([1, 2, 6], &device))?.dims(), [1, 2, 2]);
    /// assert!(pool.try_forward(Tensor::<3>::ones([1, 2, 2], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<3>>;
}

impl TryAvgPool1d for AvgPool1d {
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<3>> {
        const OP: &str = "avg_pool1d";
        let dims = input.dims();
        let padding = padding_1d(OP, &self.padding, dims[2], self.kernel_size, self.stride)?;
        let options = AvgPoolOptions {
            kernel_size: [self.kernel_size],
            stride: [self.stride],
            padding: [padding],
            count_include_pad: self.count_include_pad,
            ceil_mode: self.ceil_mode,
        };
        check_avg_pool(OP, &dims, &options)?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`AvgPool2d::forward`].
pub trait TryAvgPool2d: Sealed {
    /// Fallible twin of [`AvgPool2d::forward`]: `[batch, channels, height, width]` in.
    ///
    /// Checks what [`TryAvgPool1d::try_forward`] checks, per spatial dim.
    ///
    /// # Errors
    ///
    /// As [`TryAvgPool1d::try_forward`].
    ///
    /// ```
    /// use burn::nn::pool::AvgPool2dConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let pool = AvgPool2dConfig::new([2, 2]).init();
    /// assert_eq!(pool.try_forward(Tensor::<4>::ones([1, 2, 4, 4], &device))?.dims(), [1, 2, 2, 2]);
    /// assert!(pool.try_forward(Tensor::<4>::ones([1, 2, 4, 1], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>>;
}

impl TryAvgPool2d for AvgPool2d {
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>> {
        const OP: &str = "avg_pool2d";
        let dims = input.dims();
        let padding = padding_2d(
            OP,
            &self.padding,
            [dims[2], dims[3]],
            self.kernel_size,
            self.stride,
        )?;
        let options = AvgPoolOptions {
            kernel_size: self.kernel_size,
            stride: self.stride,
            padding,
            count_include_pad: self.count_include_pad,
            ceil_mode: self.ceil_mode,
        };
        check_avg_pool(OP, &dims, &options)?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`AdaptiveAvgPool1d::forward`].
pub trait TryAdaptiveAvgPool1d: Sealed {
    /// Fallible twin of [`AdaptiveAvgPool1d::forward`]: `[batch, channels, length]` in.
    ///
    /// Checks — beyond burn, which leaves it to the backend — a non-empty input length, as
    /// [`try_adaptive_avg_pool1d`](crate::tensor::module::try_adaptive_avg_pool1d) does.
    ///
    /// # Errors
    ///
    /// [`GuardError::Empty`](crate::GuardError::Empty) for an empty input length.
    ///
    /// ```
    /// use burn::nn::pool::AdaptiveAvgPool1dConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let pool = AdaptiveAvgPool1dConfig::new(2).init();
    /// assert_eq!(pool.try_forward(Tensor::<3>::ones([1, 2, 5], &device))?.dims(), [1, 2, 2]);
    /// assert!(pool.try_forward(Tensor::<3>::ones([1, 2, 0], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<3>>;
}

impl TryAdaptiveAvgPool1d for AdaptiveAvgPool1d {
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<3>> {
        const OP: &str = "adaptive_avg_pool1d";
        rules::adaptive_pool(OP, &input.dims(), &[self.output_size])?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`AdaptiveAvgPool2d::forward`].
pub trait TryAdaptiveAvgPool2d: Sealed {
    /// Fallible twin of [`AdaptiveAvgPool2d::forward`]: `[batch, channels, height, width]` in.
    ///
    /// Checks what [`TryAdaptiveAvgPool1d::try_forward`] checks, per spatial dim.
    ///
    /// # Errors
    ///
    /// As [`TryAdaptiveAvgPool1d::try_forward`].
    ///
    /// ```
    /// use burn::nn::pool::AdaptiveAvgPool2dConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let pool = AdaptiveAvgPool2dConfig::new([2, 2]).init();
    /// assert_eq!(pool.try_forward(Tensor::<4>::ones([1, 2, 5, 5], &device))?.dims(), [1, 2, 2, 2]);
    /// assert!(pool.try_forward(Tensor::<4>::ones([1, 2, 0, 5], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>>;
}

impl TryAdaptiveAvgPool2d for AdaptiveAvgPool2d {
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>> {
        const OP: &str = "adaptive_avg_pool2d";
        rules::adaptive_pool(OP, &input.dims(), &self.output_size)?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`AdaptiveAvgPool3d::forward`].
pub trait TryAdaptiveAvgPool3d: Sealed {
    /// Fallible twin of [`AdaptiveAvgPool3d::forward`]: `[batch, channels, d, h, w]` in.
    ///
    /// Checks what [`TryAdaptiveAvgPool1d::try_forward`] checks, per spatial dim.
    ///
    /// # Errors
    ///
    /// As [`TryAdaptiveAvgPool1d::try_forward`].
    ///
    /// ```
    /// use burn::nn::pool::AdaptiveAvgPool3dConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let pool = AdaptiveAvgPool3dConfig::new([1, 2, 2]).init();
    /// let x = Tensor::<5>::ones([1, 1, 3, 4, 4], &device);
    /// assert_eq!(pool.try_forward(x)?.dims(), [1, 1, 1, 2, 2]);
    /// assert!(pool.try_forward(Tensor::<5>::ones([1, 1, 3, 0, 4], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<5>) -> Result<Tensor<5>>;
}

impl TryAdaptiveAvgPool3d for AdaptiveAvgPool3d {
    fn try_forward(&self, input: Tensor<5>) -> Result<Tensor<5>> {
        const OP: &str = "adaptive_avg_pool3d";
        rules::adaptive_pool(OP, &input.dims(), &self.output_size)?;
        catch(OP, || self.forward(input))
    }
}

impl Sealed for Unfold4d {}
impl Sealed for Fold4d {}
impl Sealed for Interpolate1d {}
impl Sealed for Interpolate2d {}
impl Sealed for PixelShuffle {}
impl Sealed for PixelUnshuffle {}

/// Twin of [`Unfold4d::forward`].
pub trait TryUnfold4d: Sealed {
    /// Fallible twin of [`Unfold4d::forward`]: `[batch, channels, height, width]` in,
    /// `[batch, channels · kh · kw, blocks]` out.
    ///
    /// Checks the module's kernel size, stride and dilation (non-zero: burn's options
    /// constructor panics) and — beyond burn, which leaves it to the backend — that the
    /// dilated kernel fits in the padded input, as
    /// [`try_unfold4d`](crate::tensor::module::try_unfold4d) does.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero option;
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel
    /// larger than the padded input.
    ///
    /// ```
    /// use burn::nn::Unfold4dConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let unfold = Unfold4dConfig::new([2, 2]).init();
    /// assert_eq!(unfold.try_forward(Tensor::<4>::ones([1, 2, 3, 3], &device))?.dims(), [1, 8, 4]);
    /// assert!(unfold.try_forward(Tensor::<4>::ones([1, 2, 1, 3], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<3>>;
}

impl TryUnfold4d for Unfold4d {
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<3>> {
        const OP: &str = "unfold4d";
        rules::unfold(
            OP,
            &input.dims(),
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
        )?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`Fold4d::forward`].
pub trait TryFold4d: Sealed {
    /// Fallible twin of [`Fold4d::forward`]: `[batch, channels · kh · kw, blocks]` in,
    /// `[batch, channels, output_size...]` out.
    ///
    /// Checks what [`try_fold4d`](crate::tensor::module::try_fold4d) checks on the module's
    /// output size, kernel size and options.
    ///
    /// # Errors
    ///
    /// As [`try_fold4d`](crate::tensor::module::try_fold4d).
    ///
    /// ```
    /// use burn::nn::Fold4dConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let fold = Fold4dConfig::new([3, 3], [2, 2]).init();
    /// assert_eq!(fold.try_forward(Tensor::<3>::ones([1, 8, 4], &device))?.dims(), [1, 2, 3, 3]);
    /// assert!(fold.try_forward(Tensor::<3>::ones([1, 8, 5], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<4>>;
}

impl TryFold4d for Fold4d {
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<4>> {
        const OP: &str = "fold4d";
        rules::fold(
            OP,
            &input.dims(),
            self.output_size,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
        )?;
        catch(OP, || self.forward(input))
    }
}

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
        crate::check::module::interpolate(OP, &[batch, channels, 1, length], &options)?;
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

/// Twin of [`PixelShuffle::forward`].
pub trait TryPixelShuffle: Sealed {
    /// Fallible twin of [`PixelShuffle::forward`]: `[batch, channels · r², h, w]` in,
    /// `[batch, channels, h · r, w · r]` out.
    ///
    /// Checks what burn asserts: a non-zero upscale factor `r` and channels divisible by `r²`;
    /// and refuses the empty inputs burn's reshapes panic on.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a factor of 0;
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for channels `r²` does
    /// not divide; [`GuardError::Empty`](crate::GuardError::Empty) for such an empty input.
    ///
    /// ```
    /// use burn::nn::PixelShuffleConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let shuffle = PixelShuffleConfig::new(2).init();
    /// assert_eq!(shuffle.try_forward(Tensor::<4>::ones([1, 8, 2, 2], &device))?.dims(), [1, 2, 4, 4]);
    /// assert!(shuffle.try_forward(Tensor::<4>::ones([1, 6, 2, 2], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>>;
}

impl TryPixelShuffle for PixelShuffle {
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>> {
        const OP: &str = "pixel_shuffle";
        rules::pixel_shuffle(OP, &input.dims(), self.upscale_factor, true)?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`PixelUnshuffle::forward`].
pub trait TryPixelUnshuffle: Sealed {
    /// Fallible twin of [`PixelUnshuffle::forward`]: `[batch, channels, h · r, w · r]` in,
    /// `[batch, channels · r², h, w]` out.
    ///
    /// Checks what burn asserts: a non-zero downscale factor `r` dividing height and width;
    /// and refuses the empty inputs burn's reshapes panic on.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a factor of 0;
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for sizes `r` does not
    /// divide; [`GuardError::Empty`](crate::GuardError::Empty) for such an empty input.
    ///
    /// ```
    /// use burn::nn::PixelUnshuffleConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let unshuffle = PixelUnshuffleConfig::new(2).init();
    /// assert_eq!(unshuffle.try_forward(Tensor::<4>::ones([1, 2, 4, 4], &device))?.dims(), [1, 8, 2, 2]);
    /// assert!(unshuffle.try_forward(Tensor::<4>::ones([1, 2, 4, 3], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>>;
}

impl TryPixelUnshuffle for PixelUnshuffle {
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>> {
        const OP: &str = "pixel_unshuffle";
        rules::pixel_shuffle(OP, &input.dims(), self.downscale_factor, false)?;
        catch(OP, || self.forward(input))
    }
}
