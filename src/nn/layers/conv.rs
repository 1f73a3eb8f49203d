//! [`burn::nn::conv`] layers and their configs.
//!
//! A conv layer's forward computes its padding (`PaddingConfig*`), builds the convolution
//! options (whose constructors panic on a zero stride, dilation or group count) and runs
//! the tensor convolution. The twins compute the same padding, then check the input against
//! the layer's weight and bias by the rule of the tensor twin
//! ([`check::module::conv`](crate::check::module::conv),
//! [`check::module::conv_transpose`](crate::check::module::conv_transpose)), then run
//! burn's forward. The config twins check what the configs' `init` asserts, and the fans
//! burn-nn's initializer needs when it draws the parameters at their first use
//! ([`check::layer::initializer_fans`](crate::check::layer::initializer_fans)): a layer built by
//! `try_init` draws its parameters without panicking. One built by burn's `init` from a
//! config `try_init` refuses panics at its first use; the forward twins report that as
//! [`GuardError::BackendPanic`](crate::GuardError::BackendPanic).

use burn::nn::conv::{
    Conv1d, Conv1dConfig, Conv2d, Conv2dConfig, Conv3d, Conv3dConfig, ConvTranspose1d,
    ConvTranspose1dConfig, ConvTranspose2d, ConvTranspose2dConfig, ConvTranspose3d,
    ConvTranspose3dConfig, DeformConv2d, DeformConv2dConfig,
};
use burn::nn::{PaddingConfig2d, PaddingConfig3d};
use burn::tensor::ops::{ConvOptions, ConvTransposeOptions, DeformConvOptions};
use burn::tensor::{Device, Tensor};

use super::pool::{padding_1d, padding_2d, padding_3d};
use super::support::{Sealed, dims, same_devices, weight_and_bias};
use crate::GuardError;
use crate::check::layer::initializer_fans;
use crate::check::module as conv_rules;
use crate::check::pool::{conv_groups, same_padding_kernel};
use crate::error::Result;
use crate::nn::init::{TryInit, init_fitting};
use crate::panic::catch;

/// The devices of input, weight and bias.
fn devices<const D: usize>(
    input: &Tensor<D>,
    weight: &Tensor<D>,
    bias: Option<&Tensor<1>>,
) -> Vec<Device> {
    let mut devices = vec![input.device(), weight.device()];
    devices.extend(bias.map(Tensor::device));
    devices
}

/// The rule of `conv{1,2,3}d` on the layer's own weight and bias, and their devices.
fn check_conv<const D: usize, const N: usize>(
    op: &'static str,
    input: &Tensor<D>,
    weight: &Tensor<D>,
    bias: Option<&Tensor<1>>,
    options: &ConvOptions<N>,
    symmetric_only: bool,
) -> Result<()> {
    let bias_dims = bias.map(dims);
    conv_rules::conv(
        op,
        &input.dims(),
        &weight.dims(),
        bias_dims.as_deref(),
        options,
        symmetric_only,
    )?;
    same_devices(op, &devices(input, weight, bias))
}

/// The rule of `conv_transpose{1,2,3}d` on the layer's own weight and bias, and devices.
fn check_conv_transpose<const D: usize, const N: usize>(
    op: &'static str,
    input: &Tensor<D>,
    weight: &Tensor<D>,
    bias: Option<&Tensor<1>>,
    options: &ConvTransposeOptions<N>,
) -> Result<()> {
    let bias_dims = bias.map(dims);
    conv_rules::conv_transpose(
        op,
        &input.dims(),
        &weight.dims(),
        bias_dims.as_deref(),
        options,
    )?;
    same_devices(op, &devices(input, weight, bias))
}

impl Sealed for Conv1dConfig {}

impl TryInit for Conv1dConfig {
    type Module = Conv1d;

    fn try_init(&self, device: &Device) -> Result<Conv1d> {
        const OP: &str = "conv1d_init";
        conv_groups(OP, self.channels_in, self.channels_out, self.groups)?;
        // The fans burn-nn's `init` passes for each parameter.
        let k = self.kernel_size;
        let fan_in = (self.channels_in / self.groups).saturating_mul(k);
        let fan_out = (self.channels_out / self.groups).saturating_mul(k);
        let len = fan_in.saturating_mul(self.channels_out);
        initializer_fans(
            OP,
            "weight",
            &self.initializer,
            len,
            Some(fan_in),
            Some(fan_out),
        )?;
        if self.bias {
            let len = self.channels_out;
            initializer_fans(OP, "bias", &self.initializer, len, Some(fan_in), None)?;
        }
        init_fitting(OP, || self.init(device))
    }
}

impl Sealed for Conv2dConfig {}

impl TryInit for Conv2dConfig {
    type Module = Conv2d;

    fn try_init(&self, device: &Device) -> Result<Conv2d> {
        const OP: &str = "conv2d_init";
        conv_groups(OP, self.channels[0], self.channels[1], self.groups)?;
        // The fans burn-nn's `init` passes for each parameter.
        let k = self.kernel_size.iter().product::<usize>();
        let fan_in = (self.channels[0] / self.groups).saturating_mul(k);
        let fan_out = (self.channels[1] / self.groups).saturating_mul(k);
        let len = fan_in.saturating_mul(self.channels[1]);
        initializer_fans(
            OP,
            "weight",
            &self.initializer,
            len,
            Some(fan_in),
            Some(fan_out),
        )?;
        if self.bias {
            let len = self.channels[1];
            initializer_fans(
                OP,
                "bias",
                &self.initializer,
                len,
                Some(fan_in),
                Some(fan_out),
            )?;
        }
        init_fitting(OP, || self.init(device))
    }
}

impl Sealed for Conv3dConfig {}

impl TryInit for Conv3dConfig {
    type Module = Conv3d;

    fn try_init(&self, device: &Device) -> Result<Conv3d> {
        const OP: &str = "conv3d_init";
        conv_groups(OP, self.channels[0], self.channels[1], self.groups)?;
        if self.padding == PaddingConfig3d::Same {
            same_padding_kernel(OP, &self.kernel_size)?;
        }
        // The fans burn-nn's `init` passes for each parameter.
        let k = self.kernel_size.iter().product::<usize>();
        let fan_in = (self.channels[0] / self.groups).saturating_mul(k);
        let fan_out = (self.channels[1] / self.groups).saturating_mul(k);
        let len = fan_in.saturating_mul(self.channels[1]);
        initializer_fans(
            OP,
            "weight",
            &self.initializer,
            len,
            Some(fan_in),
            Some(fan_out),
        )?;
        if self.bias {
            let len = self.channels[1];
            initializer_fans(
                OP,
                "bias",
                &self.initializer,
                len,
                Some(fan_in),
                Some(fan_out),
            )?;
        }
        init_fitting(OP, || self.init(device))
    }
}

impl Sealed for ConvTranspose1dConfig {}

impl TryInit for ConvTranspose1dConfig {
    type Module = ConvTranspose1d;

    fn try_init(&self, device: &Device) -> Result<ConvTranspose1d> {
        const OP: &str = "conv_transpose1d_init";
        conv_groups(OP, self.channels[0], self.channels[1], self.groups)?;
        // burn-nn's fans (`init`): no fan_out for a transposed convolution's parameters.
        let k = self.kernel_size;
        let fan_in = (self.channels[1] / self.groups).saturating_mul(k);
        let len = fan_in.saturating_mul(self.channels[0]);
        initializer_fans(OP, "weight", &self.initializer, len, Some(fan_in), None)?;
        if self.bias {
            let len = self.channels[1];
            initializer_fans(OP, "bias", &self.initializer, len, Some(fan_in), None)?;
        }
        init_fitting(OP, || self.init(device))
    }
}

impl Sealed for ConvTranspose2dConfig {}

impl TryInit for ConvTranspose2dConfig {
    type Module = ConvTranspose2d;

    fn try_init(&self, device: &Device) -> Result<ConvTranspose2d> {
        const OP: &str = "conv_transpose2d_init";
        conv_groups(OP, self.channels[0], self.channels[1], self.groups)?;
        // burn-nn's fans (`init`): no fan_out for a transposed convolution's parameters.
        let k = self.kernel_size.iter().product::<usize>();
        let fan_in = (self.channels[1] / self.groups).saturating_mul(k);
        let len = fan_in.saturating_mul(self.channels[0]);
        initializer_fans(OP, "weight", &self.initializer, len, Some(fan_in), None)?;
        if self.bias {
            let len = self.channels[1];
            initializer_fans(OP, "bias", &self.initializer, len, Some(fan_in), None)?;
        }
        init_fitting(OP, || self.init(device))
    }
}

impl Sealed for ConvTranspose3dConfig {}

impl TryInit for ConvTranspose3dConfig {
    type Module = ConvTranspose3d;

    fn try_init(&self, device: &Device) -> Result<ConvTranspose3d> {
        const OP: &str = "conv_transpose3d_init";
        conv_groups(OP, self.channels[0], self.channels[1], self.groups)?;
        // burn-nn's fans (`init`): no fan_out for a transposed convolution's parameters.
        let k = self.kernel_size.iter().product::<usize>();
        let fan_in = (self.channels[1] / self.groups).saturating_mul(k);
        let len = fan_in.saturating_mul(self.channels[0]);
        initializer_fans(OP, "weight", &self.initializer, len, Some(fan_in), None)?;
        if self.bias {
            let len = self.channels[1];
            initializer_fans(OP, "bias", &self.initializer, len, Some(fan_in), None)?;
        }
        init_fitting(OP, || self.init(device))
    }
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
        // The fans burn-nn's `init` passes for each parameter.
        let k = self.kernel_size.iter().product::<usize>();
        let fan_in = (self.channels[0] / self.weight_groups).saturating_mul(k);
        let fan_out = (self.channels[1] / self.weight_groups).saturating_mul(k);
        let len = fan_in.saturating_mul(self.channels[1]);
        initializer_fans(
            OP,
            "weight",
            &self.initializer,
            len,
            Some(fan_in),
            Some(fan_out),
        )?;
        if self.bias {
            let len = self.channels[1];
            initializer_fans(
                OP,
                "bias",
                &self.initializer,
                len,
                Some(fan_in),
                Some(fan_out),
            )?;
        }
        init_fitting(OP, || self.init(device))
    }
}

impl Sealed for Conv1d {}

/// Twin of [`Conv1d::forward`].
pub trait TryConv1d: Sealed {
    /// Fallible twin of [`Conv1d::forward`].
    ///
    /// Computes the padding as burn does (`Same` needs a non-zero stride), then checks the
    /// input against the layer's weight and bias by the rule of the tensor twin
    /// (channels `weight.dims()[1] · groups`, a kernel that fits in the padded input, …).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for an input whose
    /// channels do not match the weight; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange)
    /// for a zero stride, dilation or group count in the module;
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel that
    /// does not fit the (padded) input or a negative output size;
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::conv::*;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let layer = Conv1dConfig::new(2, 4, 3).try_init(&device)?;
    /// assert_eq!(layer.try_forward(Tensor::<3>::ones([1, 2, 5], &device))?.dims(), [1, 4, 3]);
    /// let err = layer.try_forward(Tensor::<3>::ones([1, 3, 5], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<3>>;
}

impl TryConv1d for Conv1d {
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<3>> {
        const OP: &str = "conv1d";
        let (weight, bias) = weight_and_bias(OP, &self.weight, self.bias.as_ref())?;
        let dims = input.dims();
        let padding = padding_1d(OP, &self.padding, dims[2], self.kernel_size, self.stride)?;
        let options = ConvOptions {
            stride: [self.stride],
            padding: [padding],
            dilation: [self.dilation],
            groups: self.groups,
        };
        check_conv(OP, &input, &weight, bias.as_ref(), &options, false)?;
        catch(OP, || self.forward(input))
    }
}

impl Sealed for Conv2d {}

/// Twin of [`Conv2d::forward`].
pub trait TryConv2d: Sealed {
    /// Fallible twin of [`Conv2d::forward`].
    ///
    /// Computes the padding as burn does (`Same` needs a non-zero stride), then checks the
    /// input against the layer's weight and bias by the rule of the tensor twin
    /// (channels `weight.dims()[1] · groups`, a kernel that fits in the padded input, …).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for an input whose
    /// channels do not match the weight; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange)
    /// for a zero stride, dilation or group count in the module;
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel that
    /// does not fit the (padded) input or a negative output size;
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::conv::*;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let layer = Conv2dConfig::new([2, 4], [3, 3]).try_init(&device)?;
    /// assert_eq!(layer.try_forward(Tensor::<4>::ones([1, 2, 5, 5], &device))?.dims(), [1, 4, 3, 3]);
    /// let err = layer.try_forward(Tensor::<4>::ones([1, 3, 5, 5], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>>;
}

impl TryConv2d for Conv2d {
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>> {
        const OP: &str = "conv2d";
        let (weight, bias) = weight_and_bias(OP, &self.weight, self.bias.as_ref())?;
        let dims = input.dims();
        let padding = padding_2d(
            OP,
            &self.padding,
            [dims[2], dims[3]],
            self.kernel_size,
            self.stride,
        )?;
        let options = ConvOptions {
            stride: self.stride,
            padding,
            dilation: self.dilation,
            groups: self.groups,
        };
        check_conv(OP, &input, &weight, bias.as_ref(), &options, false)?;
        catch(OP, || self.forward(input))
    }
}

impl Sealed for Conv3d {}

/// Twin of [`Conv3d::forward`].
pub trait TryConv3d: Sealed {
    /// Fallible twin of [`Conv3d::forward`].
    ///
    /// Computes the padding as burn does (`Same` needs a non-zero stride), then checks the
    /// input against the layer's weight and bias by the rule of the tensor twin
    /// (channels `weight.dims()[1] · groups`, a kernel that fits in the padded input, …).
    /// `Same` padding that would be asymmetric (burn-nn panics) is refused.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for an input whose
    /// channels do not match the weight; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange)
    /// for a zero stride, dilation or group count in the module;
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel that
    /// does not fit the (padded) input or a negative output size;
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::conv::*;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let layer = Conv3dConfig::new([1, 2], [2, 2, 2]).try_init(&device)?;
    /// assert_eq!(layer.try_forward(Tensor::<5>::ones([1, 1, 3, 3, 3], &device))?.dims(), [1, 2, 2, 2, 2]);
    /// let err = layer.try_forward(Tensor::<5>::ones([1, 2, 3, 3, 3], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<5>) -> Result<Tensor<5>>;
}

impl TryConv3d for Conv3d {
    fn try_forward(&self, input: Tensor<5>) -> Result<Tensor<5>> {
        const OP: &str = "conv3d";
        let (weight, bias) = weight_and_bias(OP, &self.weight, self.bias.as_ref())?;
        let dims = input.dims();
        let padding = padding_3d(
            OP,
            &self.padding,
            [dims[2], dims[3], dims[4]],
            self.kernel_size,
            self.stride,
        )?;
        let options = ConvOptions {
            stride: self.stride,
            padding: padding.map(|p| (p, p)),
            dilation: self.dilation,
            groups: self.groups,
        };
        check_conv(OP, &input, &weight, bias.as_ref(), &options, true)?;
        catch(OP, || self.forward(input))
    }
}

impl Sealed for ConvTranspose1d {}

/// Twin of [`ConvTranspose1d::forward`].
pub trait TryConvTranspose1d: Sealed {
    /// Fallible twin of [`ConvTranspose1d::forward`].
    ///
    /// Checks the input against the layer's weight and bias by the rule of the tensor twin
    /// (channels `weight.dims()[0]`, a non-negative output size, …).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for an input whose
    /// channels do not match the weight; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange)
    /// for a zero stride, dilation or group count in the module;
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel that
    /// does not fit the (padded) input or a negative output size;
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::conv::*;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let layer = ConvTranspose1dConfig::new([2, 3], 3).try_init(&device)?;
    /// assert_eq!(layer.try_forward(Tensor::<3>::ones([1, 2, 5], &device))?.dims(), [1, 3, 7]);
    /// let err = layer.try_forward(Tensor::<3>::ones([1, 3, 5], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<3>>;
}

impl TryConvTranspose1d for ConvTranspose1d {
    fn try_forward(&self, input: Tensor<3>) -> Result<Tensor<3>> {
        const OP: &str = "conv_transpose1d";
        let (weight, bias) = weight_and_bias(OP, &self.weight, self.bias.as_ref())?;

        let options = ConvTransposeOptions {
            stride: [self.stride],
            padding: [self.padding],
            padding_out: [self.padding_out],
            dilation: [self.dilation],
            groups: self.groups,
        };
        check_conv_transpose(OP, &input, &weight, bias.as_ref(), &options)?;
        catch(OP, || self.forward(input))
    }
}

impl Sealed for ConvTranspose2d {}

/// Twin of [`ConvTranspose2d::forward`].
pub trait TryConvTranspose2d: Sealed {
    /// Fallible twin of [`ConvTranspose2d::forward`].
    ///
    /// Checks the input against the layer's weight and bias by the rule of the tensor twin
    /// (channels `weight.dims()[0]`, a non-negative output size, …).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for an input whose
    /// channels do not match the weight; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange)
    /// for a zero stride, dilation or group count in the module;
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel that
    /// does not fit the (padded) input or a negative output size;
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::conv::*;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let layer = ConvTranspose2dConfig::new([2, 3], [2, 2]).try_init(&device)?;
    /// assert_eq!(layer.try_forward(Tensor::<4>::ones([1, 2, 3, 3], &device))?.dims(), [1, 3, 4, 4]);
    /// let err = layer.try_forward(Tensor::<4>::ones([1, 3, 3, 3], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>>;
}

impl TryConvTranspose2d for ConvTranspose2d {
    fn try_forward(&self, input: Tensor<4>) -> Result<Tensor<4>> {
        const OP: &str = "conv_transpose2d";
        let (weight, bias) = weight_and_bias(OP, &self.weight, self.bias.as_ref())?;

        let options = ConvTransposeOptions {
            stride: self.stride,
            padding: self.padding,
            padding_out: self.padding_out,
            dilation: self.dilation,
            groups: self.groups,
        };
        check_conv_transpose(OP, &input, &weight, bias.as_ref(), &options)?;
        catch(OP, || self.forward(input))
    }
}

impl Sealed for ConvTranspose3d {}

/// Twin of [`ConvTranspose3d::forward`].
pub trait TryConvTranspose3d: Sealed {
    /// Fallible twin of [`ConvTranspose3d::forward`].
    ///
    /// Checks the input against the layer's weight and bias by the rule of the tensor twin
    /// (channels `weight.dims()[0]`, a non-negative output size, …).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for an input whose
    /// channels do not match the weight; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange)
    /// for a zero stride, dilation or group count in the module;
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a kernel that
    /// does not fit the (padded) input or a negative output size;
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::conv::*;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let layer = ConvTranspose3dConfig::new([2, 1], [2, 2, 2]).try_init(&device)?;
    /// assert_eq!(layer.try_forward(Tensor::<5>::ones([1, 2, 2, 2, 2], &device))?.dims(), [1, 1, 3, 3, 3]);
    /// let err = layer.try_forward(Tensor::<5>::ones([1, 1, 2, 2, 2], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<5>) -> Result<Tensor<5>>;
}

impl TryConvTranspose3d for ConvTranspose3d {
    fn try_forward(&self, input: Tensor<5>) -> Result<Tensor<5>> {
        const OP: &str = "conv_transpose3d";
        let (weight, bias) = weight_and_bias(OP, &self.weight, self.bias.as_ref())?;

        let options = ConvTransposeOptions {
            stride: self.stride,
            padding: self.padding,
            padding_out: self.padding_out,
            dilation: self.dilation,
            groups: self.groups,
        };
        check_conv_transpose(OP, &input, &weight, bias.as_ref(), &options)?;
        catch(OP, || self.forward(input))
    }
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
        let (weight, bias) = weight_and_bias(OP, &self.weight, self.bias.as_ref())?;
        let x = input.dims();
        let [(top, bottom), (left, right)] = padding_2d(
            OP,
            &self.padding,
            [x[2], x[3]],
            self.kernel_size,
            self.stride,
        )?;
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
        let mask_dims = mask.as_ref().map(dims);
        let bias_dims = bias.as_ref().map(dims);
        conv_rules::deform_conv2d(
            OP,
            &x,
            &offset.dims(),
            &weight.dims(),
            mask_dims.as_deref(),
            bias_dims.as_deref(),
            &options,
        )?;
        let mut all = devices(&input, &weight, bias.as_ref());
        all.push(offset.device());
        all.extend(mask.as_ref().map(Tensor::device));
        same_devices(OP, &all)?;
        catch(OP, || self.forward(input, offset, mask))
    }
}
