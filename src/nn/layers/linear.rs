//! [`burn::nn::Linear`].

use burn::nn::{Linear, LinearConfig, LinearLayout};
use burn::tensor::{Device, Tensor};

use super::support::Sealed;
use crate::check::layer::initializer_fans;
use crate::error::Result;
use crate::nn::init::{TryInit, init_fitting};
use crate::params::read as params;
use crate::tensor::module::try_linear;

impl Sealed for LinearConfig {}

/// burn draws the parameters lazily: a Kaiming or Xavier initializer with a fan of 0
/// (`d_input` 0 for Kaiming) panics at the layer's first use, not in `init`. The twin refuses
/// the config up front, with the fans burn-nn passes (swapped for the column layout, as
/// burn-nn does), and a weight or bias over the device's largest buffer
/// ([`GuardError::TooLarge`](crate::GuardError::TooLarge) in a `weight` or `bias` context).
///
/// ```
/// use burn::nn::{Initializer, LinearConfig};
/// use burn::tensor::Device;
/// use burn_guard::prelude::*;
///
/// let device = Device::flex();
/// let kaiming = Initializer::KaimingUniform { gain: 1.0, fan_out_only: false };
/// assert!(LinearConfig::new(4, 2).with_initializer(kaiming.clone()).try_init(&device).is_ok());
/// let err = LinearConfig::new(0, 2).with_initializer(kaiming).try_init(&device).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::InvalidArgument);
/// # Ok::<(), GuardError>(())
/// ```
impl TryInit for LinearConfig {
    type Module = Linear;

    fn try_init(&self, device: &Device) -> Result<Linear> {
        const OP: &str = "linear_init";
        let (d_input, d_output) = (self.d_input, self.d_output);
        let (fan_in, fan_out) = match self.layout {
            LinearLayout::Row => (d_input, d_output),
            LinearLayout::Col => (d_output, d_input),
        };
        let weight_len = d_input.saturating_mul(d_output);
        initializer_fans(
            OP,
            "weight",
            &self.initializer,
            weight_len,
            Some(fan_in),
            Some(fan_out),
        )?;
        if self.bias {
            initializer_fans(
                OP,
                "bias",
                &self.initializer,
                d_output,
                Some(d_input),
                Some(d_output),
            )?;
        }
        let bias = [if self.bias { d_output } else { 0 }];
        crate::nn::init::require_params_fit(
            OP,
            device,
            &[("weight", &[d_input, d_output][..]), ("bias", &bias[..])],
        )?;
        init_fitting(OP, || self.init(device))
    }
}

twins! {
/// Twin of [`Linear::forward`].
pub trait TryLinear for Linear = "linear" {
    /// Fallible twin of [`Linear::forward`]: `[..., d_input]` → `[..., d_output]`.
    ///
    /// Checks the input's last dim against the weight's `d_input`, and that input, weight and
    /// bias share a device. An input with no rows (or a layer with no features) gives the
    /// empty or bias-filled result without dispatch, as [`try_linear`] does.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for a wrong feature
    /// count, [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a rank-0
    /// input, [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::LinearConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let layer = LinearConfig::new(3, 5).init(&device);
    /// assert_eq!(layer.try_forward(Tensor::<2>::ones([2, 3], &device))?.dims(), [2, 5]);
    /// let err = layer.try_forward(Tensor::<2>::ones([2, 4], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        // burn's forward is `linear(input, weight, bias)` after its own shape assertion; the
        // tensor twin runs the same call after the same check (and more).
        let (weight, bias) = params::weight_and_bias(OP, &self.weight, self.bias.as_ref())?;
        try_linear(input, weight, bias)
    }
}
}
