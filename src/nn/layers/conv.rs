//! [`burn::nn::conv`] layers and their configs.
//!
//! A conv layer's forward computes its padding (`PaddingConfig*`), builds the convolution
//! options (whose constructors panic on a zero stride, dilation or group count) and runs
//! the tensor convolution. The twins compute the same padding, then check the input against
//! the layer's weight and bias by the rule of the tensor twin
//! ([`check::conv::conv`](crate::check::conv::conv),
//! [`check::conv::conv_transpose`](crate::check::conv::conv_transpose)), byte rule
//! included, then run burn's forward. The convolutions and transposed convolutions are rows of
//! [`layer_twins!`](super::support), one per dimension. The config twins check what the
//! configs' `init` asserts, and the fans burn-nn's initializer needs when it draws the
//! parameters at their first use
//! ([`check::layer::initializer_fans`](crate::check::layer::initializer_fans)): a layer built by
//! `try_init` draws its parameters without panicking. One built by burn's `init` from a
//! config `try_init` refuses panics at its first use; the forward twins report that as
//! [`GuardError::BackendPanic`](crate::GuardError::BackendPanic).

use burn::nn::conv::{
    Conv1d, Conv1dConfig, Conv2d, Conv2dConfig, Conv3d, Conv3dConfig, ConvTranspose1d,
    ConvTranspose1dConfig, ConvTranspose2d, ConvTranspose2dConfig, ConvTranspose3d,
    ConvTranspose3dConfig, DeformConv2d, DeformConv2dConfig,
};
use burn::nn::{Initializer, PaddingConfig2d, PaddingConfig3d};
use burn::tensor::ops::{ConvOptions, ConvTransposeOptions, DeformConvOptions};
use burn::tensor::{Device, Tensor};

use super::pool::Padding;
use super::support::Sealed;
use crate::GuardError;
use crate::check::conv::{conv_groups, same_padding_kernel};
use crate::check::layer::initializer_fans;
use crate::error::Result;
use crate::nn::init::{TryInit, init_fitting};
use crate::panic::catch;
use crate::params::read as params;
use crate::tensor::pool::PerDim;
use crate::tensor::{check_conv, check_deform_conv2d};

/// How burn-nn's `init` of a convolution passes fans to its initializer.
#[derive(Clone, Copy)]
enum Fans {
    /// `fan_in` and `fan_out` from `channels` `[in, out]`; the bias gets `fan_out` only when
    /// `bias_fan_out` (burn's `Conv1d` passes none).
    Conv { bias_fan_out: bool },
    /// `fan_in` from the output channels, no `fan_out` for either parameter.
    Transposed,
}

/// The initializer's fans for a convolution's weight and (when `bias`) its bias, as burn-nn's
/// `init` passes them for `channels` `[in, out]`, `groups` and a kernel of `kernel` sizes.
fn conv_fans(
    op: &'static str,
    initializer: &Initializer,
    fans: Fans,
    [c_in, c_out]: [usize; 2],
    groups: usize,
    kernel: &[usize],
    bias: bool,
) -> Result<()> {
    let k = kernel.iter().product::<usize>();
    let (fan_in, rows, fan_out, bias_fan_out) = match fans {
        Fans::Conv { bias_fan_out } => {
            let fan_out = (c_out / groups).saturating_mul(k);
            let bias_fan_out = bias_fan_out.then_some(fan_out);
            (
                (c_in / groups).saturating_mul(k),
                c_out,
                Some(fan_out),
                bias_fan_out,
            )
        }
        Fans::Transposed => ((c_out / groups).saturating_mul(k), c_in, None, None),
    };
    let len = fan_in.saturating_mul(rows);
    initializer_fans(op, "weight", initializer, len, Some(fan_in), fan_out)?;
    if bias {
        initializer_fans(op, "bias", initializer, c_out, Some(fan_in), bias_fan_out)?;
    }
    Ok(())
}

impl Sealed for Conv1dConfig {}

impl TryInit for Conv1dConfig {
    type Module = Conv1d;

    fn try_init(&self, device: &Device) -> Result<Conv1d> {
        const OP: &str = "conv1d_init";
        let channels = [self.channels_in, self.channels_out];
        conv_groups(OP, channels[0], channels[1], self.groups)?;
        let fans = Fans::Conv {
            bias_fan_out: false,
        };
        let kernel = [self.kernel_size];
        conv_fans(
            OP,
            &self.initializer,
            fans,
            channels,
            self.groups,
            &kernel,
            self.bias,
        )?;
        init_fitting(OP, || self.init(device))
    }
}

/// One row per convolution config with burn-nn's common fields (`channels`, `groups`,
/// `kernel_size`, `bias`, `initializer`): the config, its module and op name, how burn-nn passes
/// the fans, and the padding type of a config whose `Same` padding needs odd kernels.
macro_rules! conv_inits {
    ($(impl TryInit for $config:ident = $module:ident($op:literal), $fans:expr
        $(, odd $padding:ident)?;)*) => {$(
        impl Sealed for $config {}

        impl TryInit for $config {
            type Module = $module;

            fn try_init(&self, device: &Device) -> Result<$module> {
                const OP: &str = $op;
                let (channels, groups) = (self.channels, self.groups);
                conv_groups(OP, channels[0], channels[1], groups)?;
                $(if self.padding == $padding::Same {
                    same_padding_kernel(OP, &self.kernel_size)?;
                })?
                let kernel = self.kernel_size.per_dim();
                conv_fans(OP, &self.initializer, $fans, channels, groups, &kernel, self.bias)?;
                init_fitting(OP, || self.init(device))
            }
        }
    )*};
}

conv_inits! {
impl TryInit for Conv2dConfig = Conv2d("conv2d_init"), Fans::Conv { bias_fan_out: true };
impl TryInit for Conv3dConfig = Conv3d("conv3d_init"), Fans::Conv { bias_fan_out: true },
    odd PaddingConfig3d;
impl TryInit for ConvTranspose1dConfig = ConvTranspose1d("conv_transpose1d_init"), Fans::Transposed;
impl TryInit for ConvTranspose2dConfig = ConvTranspose2d("conv_transpose2d_init"), Fans::Transposed;
impl TryInit for ConvTranspose3dConfig = ConvTranspose3d("conv_transpose3d_init"), Fans::Transposed;
}

impl Sealed for DeformConv2dConfig {}

impl TryInit for DeformConv2dConfig {
    type Module = DeformConv2d;

    fn try_init(&self, device: &Device) -> Result<DeformConv2d> {
        const OP: &str = "deform_conv2d_init";
        conv_groups(OP, self.channels[0], self.channels[1], self.weight_groups)?;
        if self.padding == PaddingConfig2d::Same {
            same_padding_kernel(OP, &self.kernel_size)?;
        }
        // burn: `channels[0].is_multiple_of(offset_groups)`, true for 0 groups and 0 channels.
        if !self.channels[0].is_multiple_of(self.offset_groups) {
            conv_groups(OP, self.channels[0], self.channels[0], self.offset_groups)?;
        }
        let (fans, groups) = (Fans::Conv { bias_fan_out: true }, self.weight_groups);
        let (channels, kernel) = (self.channels, &self.kernel_size);
        conv_fans(
            OP,
            &self.initializer,
            fans,
            channels,
            groups,
            kernel,
            self.bias,
        )?;
        init_fitting(OP, || self.init(device))
    }
}

/// The errors of both convolution families' layer twins.
macro_rules! conv_errors {
    () => {
        "[`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for an input whose \
        channels do not match the weight; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) \
        for a zero stride, dilation or group count in the module; \
        [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel that \
        does not fit the (padded) input or a negative output size; \
        [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch); \
        [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's \
        largest buffer."
    };
}

layer_twins! {
    checks "Computes the padding as burn does (`Same` needs a non-zero stride; in 3d, `Same` \
        padding that would be asymmetric, where burn-nn panics, is refused), then checks the \
        input against the layer's weight and bias by the rule of the tensor twin (channels \
        `weight.dims()[1] · groups`, a kernel that fits in the padded input, …) and that the \
        output fits on the device.";
    errors conv_errors!();
    import "use burn::nn::conv::*;";
    |layer, input, op| {
        let (weight, bias) = params::weight_and_bias(op, &layer.weight, layer.bias.as_ref())?;
        let (stride, kernel) = (layer.stride.per_dim(), layer.kernel_size.per_dim());
        let padding = layer.padding.pairs(op, &input.dims(), kernel, stride)?;
        let (dilation, groups) = (layer.dilation.per_dim(), layer.groups);
        check_conv(op, input, &weight, bias.as_ref(), &ConvOptions { stride, padding, dilation, groups })
    }
    TryConv1d, Conv1d, "conv1d", 3 => 3, "`[batch, channels, length]` in", "Conv1dConfig::new(2, 4, 3).try_init(&device)?", "[1, 2, 5]" => "[1, 4, 3]", "[1, 3, 5]" => ShapeMismatch;
    TryConv2d, Conv2d, "conv2d", 4 => 4, "`[batch, channels, height, width]` in", "Conv2dConfig::new([2, 4], [3, 3]).try_init(&device)?", "[1, 2, 5, 5]" => "[1, 4, 3, 3]", "[1, 3, 5, 5]" => ShapeMismatch;
    TryConv3d, Conv3d, "conv3d", 5 => 5, "`[batch, channels, d, h, w]` in", "Conv3dConfig::new([1, 2], [2, 2, 2]).try_init(&device)?", "[1, 1, 3, 3, 3]" => "[1, 2, 2, 2, 2]", "[1, 2, 3, 3, 3]" => ShapeMismatch;
}

layer_twins! {
    checks "Checks the input against the layer's weight and bias by the rule of the tensor twin \
        (channels `weight.dims()[0]`, a non-negative output size, …) and that the output fits \
        on the device.";
    errors conv_errors!();
    import "use burn::nn::conv::*;";
    |layer, input, op| {
        let (weight, bias) = params::weight_and_bias(op, &layer.weight, layer.bias.as_ref())?;
        let options = ConvTransposeOptions {
            stride: layer.stride.per_dim(),
            padding: layer.padding.per_dim(),
            padding_out: layer.padding_out.per_dim(),
            dilation: layer.dilation.per_dim(),
            groups: layer.groups,
        };
        check_conv(op, input, &weight, bias.as_ref(), &options)
    }
    TryConvTranspose1d, ConvTranspose1d, "conv_transpose1d", 3 => 3, "`[batch, channels, length]` in", "ConvTranspose1dConfig::new([2, 3], 3).try_init(&device)?", "[1, 2, 5]" => "[1, 3, 7]", "[1, 3, 5]" => ShapeMismatch;
    TryConvTranspose2d, ConvTranspose2d, "conv_transpose2d", 4 => 4, "`[batch, channels, height, width]` in", "ConvTranspose2dConfig::new([2, 3], [2, 2]).try_init(&device)?", "[1, 2, 3, 3]" => "[1, 3, 4, 4]", "[1, 3, 3, 3]" => ShapeMismatch;
    TryConvTranspose3d, ConvTranspose3d, "conv_transpose3d", 5 => 5, "`[batch, channels, d, h, w]` in", "ConvTranspose3dConfig::new([2, 1], [2, 2, 2]).try_init(&device)?", "[1, 2, 2, 2, 2]" => "[1, 1, 3, 3, 3]", "[1, 1, 2, 2, 2]" => ShapeMismatch;
}

impl Sealed for DeformConv2d {}

/// Twin of [`DeformConv2d::forward`].
pub trait TryDeformConv2d: Sealed {
    /// Fallible twin of [`DeformConv2d::forward`]: input `[batch, channels, h, w]`, offset
    /// `[batch, 2 · offset_groups · kh · kw, out_h, out_w]`, optional mask
    /// `[batch, offset_groups · kh · kw, out_h, out_w]`.
    ///
    /// Computes the padding as burn does — `Same` padding that would be asymmetric (a stride
    /// that leaves an odd remainder) is refused, where burn-nn panics — then checks the
    /// input, offset and mask against the layer's weight and bias by the rule of
    /// [`try_deform_conv2d`](crate::tensor::module::try_deform_conv2d).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for shape mismatches;
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero stride, dilation
    /// or group count; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument)
    /// for asymmetric same padding or a kernel larger than the padded input;
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::conv::DeformConv2dConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let layer = DeformConv2dConfig::new([2, 3], [2, 2]).try_init(&device)?;
    /// let x = Tensor::<4>::ones([1, 2, 4, 4], &device);
    /// let offset = Tensor::<4>::zeros([1, 8, 3, 3], &device);
    /// assert_eq!(layer.try_forward(x.clone(), offset, None)?.dims(), [1, 3, 3, 3]);
    /// let bad = Tensor::<4>::zeros([1, 8, 2, 2], &device);
    /// assert!(layer.try_forward(x, bad, None).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(
        &self,
        input: Tensor<4>,
        offset: Tensor<4>,
        mask: Option<Tensor<4>>,
    ) -> Result<Tensor<4>>;
}

impl TryDeformConv2d for DeformConv2d {
    fn try_forward(
        &self,
        input: Tensor<4>,
        offset: Tensor<4>,
        mask: Option<Tensor<4>>,
    ) -> Result<Tensor<4>> {
        const OP: &str = "deform_conv2d";
        let (weight, bias) = params::weight_and_bias(OP, &self.weight, self.bias.as_ref())?;
        let x = input.dims();
        let [(top, bottom), (left, right)] =
            self.padding.pairs(OP, &x, self.kernel_size, self.stride)?;
        if top != bottom || left != right {
            return Err(GuardError::InvalidArgument {
                op: OP,
                rule: "deformable convolution padding must be symmetric",
                got: format!("padding=[({top}, {bottom}), ({left}, {right})]"),
            });
        }
        let options = DeformConvOptions {
            stride: self.stride,
            padding: [top, left],
            dilation: self.dilation,
            weight_groups: self.weight_groups,
            offset_groups: self.offset_groups,
        };
        let (m, b) = (mask.as_ref(), bias.as_ref());
        check_deform_conv2d(OP, &input, &offset, &weight, m, b, &options)?;
        crate::nn::anomaly::checked_in(OP, self, catch(OP, || self.forward(input, offset, mask)))
    }
}
