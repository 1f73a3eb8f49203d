//! [`QuantizedLinear`]: a linear layer of `burn::Tensor`s whose packed weight stays on the
//! device that quantized it. When that is a fallback device, each forward moves the
//! activations there and the product back — never the weight.
//!
//! It is [`PlacedLinear`] on burn's own `Dispatch` backend (a `burn::Tensor` is a `Dispatch`
//! primitive inside), with the policy's devices as targets: this file converts at the
//! `burn::Tensor` boundary and checks devices as `burn::Tensor` names them.

use burn::backend::Dispatch;
use burn::nn::Linear;
use burn::tensor::quantization::QuantScheme;
use burn::tensor::{Device, Tensor};

use super::engine::dispatch_targets;
use super::placed::{InvalidLayer, Parts, PlacedLinear};
use super::report::ParamReport;
use crate::capability::stack_of;
use crate::error::Result;
use crate::panic::catch;
use crate::policy::{Op, Policy};

/// A linear layer `y = x · W + b` with a quantized weight.
///
/// The weight is stored transposed, `[d_output, d_input]`, so that quantization blocks run
/// along the input features: a 10-class head `[128, 10]` quantizes in blocks of 32, which
/// burn's own layout (blocks along the 10 outputs) cannot. The bias stays in float on the
/// layer's own device.
///
/// It is [`PlacedLinear`]`<Dispatch, Dispatch>` (burn's `Dispatch` backend, which every
/// `burn::Tensor` holds inside) with the policy's [devices](Policy::devices) as fallback
/// targets: the same quantize and forward, converted at the `burn::Tensor` boundary.
///
/// ```
/// use burn::nn::LinearConfig;
/// use burn::tensor::quantization::{QuantScheme, QuantStore, QuantValue, ScaleDtype};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::nn::QuantizedLinear;
/// use burn_guard::policy::Policy;
///
/// let device = Device::flex();
/// let linear = LinearConfig::new(64, 10).init(&device);
/// let scheme = QuantScheme::default()
///     .with_value(QuantValue::Q8S)
///     .with_store(QuantStore::PackedU32(0))
///     .per_block([32], ScaleDtype::F32);
/// let layer = QuantizedLinear::quantize(&linear, &scheme, &Policy::strict())?;
/// let y = layer.forward(Tensor::<2>::ones([3, 64], &device))?;
/// assert_eq!(y.dims(), [3, 10]);
/// assert!(layer.report().bytes_after * 3 < layer.report().bytes_before);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[derive(Debug, Clone)]
pub struct QuantizedLinear {
    layer: PlacedLinear<Dispatch, Dispatch>,
    home: Device,
}

impl QuantizedLinear {
    /// Quantizes `linear`'s weight with `scheme`: on the weight's device when it can, else on
    /// the first capable fallback device of `policy`. The layer keeps `policy` (and its
    /// statistics) for its forwards.
    ///
    /// # Errors
    ///
    /// - [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme) when the scheme cannot apply to the weight's
    ///   `[d_output, d_input]` shape (see [`QuantizedLinear::quantize_or_keep`] to keep such
    ///   a layer in float instead).
    /// - [`GuardError::Unsupported`](crate::GuardError::Unsupported) when the device cannot quantize with `scheme` and the
    ///   policy forbids fallback or no fallback device can.
    /// - [`GuardError::Execution`](crate::GuardError::Execution) / [`GuardError::Timeout`](crate::GuardError::Timeout) / [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) when reading the weights
    ///   back (within [`default_timeout`](crate::devices::default_timeout)) or quantizing
    ///   fails.
    ///
    /// # Fallback
    ///
    /// As [`TryQuantize::quantize_dynamic_with`](crate::tensor::TryQuantize::quantize_dynamic_with): the weight moves once, at quantization.
    ///
    /// ```
    /// use burn::nn::LinearConfig;
    /// use burn::tensor::Device;
    /// use burn::tensor::quantization::QuantScheme;
    /// use burn_guard::nn::{Placement, QuantizedLinear};
    /// use burn_guard::policy::Policy;
    ///
    /// // NdArray cannot quantize the default (packed) scheme: strict refuses, fallback moves
    /// // the weight to Flex.
    /// #[allow(deprecated)]
    /// let linear = LinearConfig::new(32, 8).init(&Device::ndarray());
    /// assert!(QuantizedLinear::quantize(&linear, &QuantScheme::default(), &Policy::strict()).is_err());
    /// let policy = Policy::fallback_to([Device::flex()]);
    /// let layer = QuantizedLinear::quantize(&linear, &QuantScheme::default(), &policy)?;
    /// assert!(matches!(layer.report().placement, Placement::Fallback { .. }));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn quantize(linear: &Linear, scheme: &QuantScheme, policy: &Policy) -> Result<Self> {
        Self::quantize_at("linear", linear, scheme, policy, InvalidLayer::Refuse)
    }

    /// As [`QuantizedLinear::quantize`], but a layer the scheme cannot apply to is kept in
    /// float (and reported so) when `invalid` is [`InvalidLayer::KeepFloat`].
    ///
    /// # Errors
    ///
    /// As [`QuantizedLinear::quantize`], without the [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme) under
    /// [`InvalidLayer::KeepFloat`].
    ///
    /// ```
    /// use burn::nn::LinearConfig;
    /// use burn::tensor::Device;
    /// use burn::tensor::quantization::{QuantScheme, ScaleDtype};
    /// use burn_guard::nn::{InvalidLayer, Placement, QuantizedLinear};
    /// use burn_guard::policy::Policy;
    ///
    /// // 20 input features: blocks of 32 cannot divide them.
    /// let linear = LinearConfig::new(20, 4).init(&Device::flex());
    /// let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
    /// let layer = QuantizedLinear::quantize_or_keep(&linear, &scheme, &Policy::strict(), InvalidLayer::KeepFloat)?;
    /// assert!(matches!(layer.report().placement, Placement::KeptFloat { .. }));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn quantize_or_keep(
        linear: &Linear,
        scheme: &QuantScheme,
        policy: &Policy,
        invalid: InvalidLayer,
    ) -> Result<Self> {
        Self::quantize_at("linear", linear, scheme, policy, invalid)
    }

    /// Quantizes the layer found at `path` of a module.
    pub(crate) fn quantize_at(
        path: &str,
        linear: &Linear,
        scheme: &QuantScheme,
        policy: &Policy,
        invalid: InvalidLayer,
    ) -> Result<Self> {
        let (weight, bias) = crate::params::read::weight_and_bias(
            "quantize_linear",
            &linear.weight,
            linear.bias.as_ref(),
        )?;
        let home = weight.device();
        let bias_device = bias.as_ref().map(Tensor::device);
        let parts = Parts::check(weight.into_dispatch(), bias.map(Tensor::into_dispatch))?;
        if let Some(bias_device) = &bias_device {
            crate::capability::same_device("quantize_linear", &home, bias_device)?;
        }
        let stack = stack_of(&home);
        let layer = PlacedLinear::quantize_parts(
            path,
            parts,
            scheme,
            policy,
            invalid,
            (stack, stack.label().to_owned()),
            dispatch_targets(policy),
        )?;
        Ok(Self { layer, home })
    }

    /// `x · W + b` for `x` of shape `[..., d_input]` on the layer's device; the result is on
    /// the same device, `[..., d_output]`.
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) / [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) when `x` is not
    ///   `[..., d_input]`.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch) when `x` is not on the layer's device.
    /// - [`GuardError::Execution`](crate::GuardError::Execution) / [`GuardError::Timeout`](crate::GuardError::Timeout) when the activations cannot be read
    ///   back for a move (within [`default_timeout`](crate::devices::default_timeout)).
    /// - [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics anyway.
    ///
    /// An input with no rows gives its output without a kernel, counted as a native run.
    ///
    /// # Fallback
    ///
    /// When the weight lives on a fallback device, `x` moves there and the product comes back;
    /// both moves are counted (bytes, time) in [`Policy::stats`] under
    /// [`Op::QuantizedLinear`], with one fallback per call. Bytes are counted from the
    /// activations' dtype (2 per element for f16 and bf16).
    ///
    /// ```
    /// use burn::nn::LinearConfig;
    /// use burn::tensor::quantization::QuantScheme;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::nn::QuantizedLinear;
    /// use burn_guard::policy::Policy;
    ///
    /// #[allow(deprecated)]
    /// let ndarray = Device::ndarray();
    /// let linear = LinearConfig::new(32, 8).init(&ndarray);
    /// let policy = Policy::fallback_to([Device::flex()]);
    /// let layer = QuantizedLinear::quantize(&linear, &QuantScheme::default(), &policy)?;
    /// let y = layer.forward(Tensor::<2>::ones([4, 32], &ndarray))?;
    /// assert_eq!(y.device(), ndarray);
    /// let stats = policy.stats_of(burn_guard::policy::Op::QuantizedLinear);
    /// assert_eq!((stats.fallbacks, stats.bytes_to_fallback, stats.bytes_from_fallback), (1, 4 * 32 * 4, 4 * 8 * 4));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn forward<const D: usize>(&self, x: Tensor<D>) -> Result<Tensor<D>> {
        const OP: Op = Op::QuantizedLinear;
        let checked = self
            .layer
            .check_input(OP, &x.dims(), &x.device(), &self.home)?;
        let y = self
            .layer
            .forward_checked(OP, x.into_dispatch(), &checked)?;
        catch(OP.name(), || Tensor::from_dispatch(y))
    }

    /// What quantizing this layer did.
    pub fn report(&self) -> &ParamReport {
        self.layer.report()
    }

    /// The device the layer serves: inputs arrive and outputs leave here.
    pub fn device(&self) -> &Device {
        &self.home
    }

    /// The device that holds the weight (the layer's own, or a fallback).
    pub fn weight_device(&self) -> Device {
        self.layer
            .held_device()
            .map_or_else(|| self.home.clone(), |held| Device::new(held.clone()))
    }

    /// Whether the weight is quantized (not kept in float).
    pub fn is_quantized(&self) -> bool {
        self.layer.is_quantized()
    }

    /// `(d_input, d_output)`.
    pub fn dims(&self) -> (usize, usize) {
        self.layer.dims()
    }

    /// The policy the layer records its forwards into.
    pub fn policy(&self) -> &Policy {
        self.layer.policy()
    }
}
