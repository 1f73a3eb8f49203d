//! [`QuantizedLinear`]: a linear layer of `burn::Tensor`s whose packed weight stays on the
//! device that quantized it. When that is a fallback device, each forward moves the
//! activations there and the product back — never the weight.

use std::marker::PhantomData;

use burn::nn::Linear;
use burn::tensor::quantization::QuantScheme;
use burn::tensor::{Device, Tensor};

use super::report::{LayerReport, Placement};
use crate::backend::quant::held_elsewhere;
use crate::capability::{Support, stack_of};
use crate::check;
use crate::check::module as shapes;
use crate::error::{GuardError, Result};
use crate::panic::catch;
use crate::policy::{Op, Policy, Steps, Target};
use crate::tensor::TryQuantize;
use crate::transfer::move_tensor;

/// What to do with a layer whose weight shape the scheme cannot apply to (a block size that
/// does not divide it, a packed store that does not fit its rows).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum InvalidLayer {
    /// Refuse: quantizing returns the [`GuardError::InvalidQuantScheme`]. The default.
    #[default]
    Refuse,
    /// Keep the layer in float and say so in its [`LayerReport`].
    KeepFloat,
}

/// How a layer stores its weight.
#[derive(Debug, Clone)]
enum Weight {
    /// Packed `[d_output, d_input]`: blocks run along the input features, the reduction
    /// dimension of the product, as in GGML and PyTorch's layouts.
    Quantized(Tensor<2>),
    /// Float `[d_input, d_output]`, burn's layout.
    Float(Tensor<2>),
}

/// A linear layer `y = x · W + b` with a quantized weight.
///
/// The weight is stored transposed, `[d_output, d_input]`, so that quantization blocks run
/// along the input features: a 10-class head `[128, 10]` quantizes in blocks of 32, which
/// burn's own layout (blocks along the 10 outputs) cannot. The bias stays in float on the
/// layer's own device.
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
    weight: Weight,
    bias: Option<Tensor<1>>,
    home: Device,
    d_input: usize,
    d_output: usize,
    policy: Policy,
    report: LayerReport,
}

impl QuantizedLinear {
    /// Quantizes `linear`'s weight with `scheme`: on the weight's device when it can, else on
    /// the first capable fallback device of `policy`. The layer keeps `policy` (and its
    /// statistics) for its forwards.
    ///
    /// # Errors
    ///
    /// - [`GuardError::InvalidQuantScheme`] when the scheme cannot apply to the weight's
    ///   `[d_output, d_input]` shape (see [`QuantizedLinear::quantize_or_keep`] to keep such
    ///   a layer in float instead).
    /// - [`GuardError::Unsupported`] when the device cannot quantize with `scheme` and the
    ///   policy forbids fallback or no fallback device can.
    /// - [`GuardError::Execution`] / [`GuardError::BackendPanic`] when reading the weights
    ///   back or quantizing fails.
    ///
    /// # Fallback
    ///
    /// As [`TryQuantize::quantize_dynamic_with`]: the weight moves once, at quantization.
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
    /// As [`QuantizedLinear::quantize`], without the [`GuardError::InvalidQuantScheme`] under
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
        const OP: &str = "quantize_linear";
        let weight = linear.weight.val();
        let bias = linear.bias.as_ref().map(|b| b.val());
        let home = weight.device();
        let [d_input, d_output] = weight.dims();
        if let Some(bias) = &bias {
            shapes::linear(OP, &[1, d_input], &[d_input, d_output], Some(&bias.dims()))?;
            check::same_device(OP, &home, &bias.device())?;
        }
        let bytes_before = stored_bytes(OP, &weight)?;
        let report = |scheme: String, device: &Device, placement, bytes_after| LayerReport {
            path: path.to_owned(),
            d_input,
            d_output,
            scheme,
            device: stack_of(device).label().to_owned(),
            placement,
            bytes_before,
            bytes_after,
        };
        let transposed = [d_output, d_input];
        if let Err(err) = check::quant_scheme(OP, scheme, &transposed) {
            return match invalid {
                InvalidLayer::Refuse => Err(err),
                InvalidLayer::KeepFloat => Ok(Self {
                    report: report(
                        "f32".into(),
                        &home,
                        Placement::KeptFloat {
                            reason: err.to_string(),
                        },
                        bytes_before,
                    ),
                    weight: Weight::Float(weight),
                    bias,
                    home,
                    d_input,
                    d_output,
                    policy: policy.clone(),
                }),
            };
        }
        let packed = catch(OP, || weight.transpose())?.quantize_dynamic_with(scheme, policy)?;
        let held = packed.device();
        let placement = if held == home {
            Placement::Native
        } else {
            Placement::Fallback {
                from: stack_of(&home).label().to_owned(),
                to: stack_of(&held).label().to_owned(),
            }
        };
        let bytes_after = stored_bytes(OP, &packed)?;
        Ok(Self {
            report: report(
                check::SchemeName(scheme).to_string(),
                &held,
                placement,
                bytes_after,
            ),
            weight: Weight::Quantized(packed),
            bias,
            home,
            d_input,
            d_output,
            policy: policy.clone(),
        })
    }

    /// `x · W + b` for `x` of shape `[..., d_input]` on the layer's device; the result is on
    /// the same device, `[..., d_output]`.
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`] / [`GuardError::ShapeMismatch`] when `x` is not
    ///   `[..., d_input]`.
    /// - [`GuardError::DeviceMismatch`] when `x` is not on the layer's device.
    /// - [`GuardError::BackendPanic`] if burn panics anyway.
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
        const OP: &str = Op::QuantizedLinear.name();
        let dims = x.dims();
        let checked = shapes::linear(OP, &dims, &[self.d_input, self.d_output], None)
            .and_then(|checked| check::same_device(OP, &x.device(), &self.home).map(|()| checked));
        let checked = self.policy.checked(Op::QuantizedLinear, checked)?;
        let mut output = dims;
        if let Some(last) = output.last_mut() {
            *last = self.d_output;
        }
        let empty = checked.rows == 0 || self.d_input == 0;
        let (weight, held) = match &self.weight {
            Weight::Quantized(w) | Weight::Float(w) => (w, w.device()),
        };
        // Nothing to multiply (or a sum over nothing) is answered at home without a kernel:
        // empty tensors have panicked in burn's kernels before (burn #4093).
        let native = if empty || held == self.home {
            Support::Native
        } else {
            held_elsewhere(
                stack_of(&self.home),
                weight.dtype(),
                &weight.dims(),
                stack_of(&held),
            )
        };
        let finish = |product: Tensor<2>| {
            let product = catch(OP, || product.reshape(output))?;
            self.add_bias(product)
        };
        let product = |rows: Tensor<2>| match &self.weight {
            Weight::Float(weight) => catch(OP, || rows.matmul(weight.clone())),
            Weight::Quantized(packed) => catch(OP, || rows.matmul(packed.clone().transpose())),
        };
        self.policy.run(Steps {
            op: Op::QuantizedLinear,
            home: &|| stack_of(&self.home).label().to_owned(),
            capability: &|| format!("quantized_linear with a {:?} weight", weight.dtype()),
            native,
            targets: [Target {
                label: stack_of(&held).label().to_owned(),
                place: held,
                support: Support::Native,
            }],
            input: x,
            validate: |_: &Tensor<D>| Ok(()),
            on_home: |x: Tensor<D>| {
                if empty {
                    let zeros = catch(OP, || Tensor::<D>::zeros(output, &self.home))?;
                    return self.add_bias(zeros);
                }
                let rows = catch(OP, || x.reshape([checked.rows, self.d_input]))?;
                finish(product(rows)?)
            },
            move_in: |x: Tensor<D>, held: &Device| {
                let rows = catch(OP, || x.reshape([checked.rows, self.d_input]))?;
                move_tensor(OP, rows, held)
            },
            on_target: |rows, _: &Device| product(rows),
            move_back: |product: Tensor<2>| {
                let (product, bytes) = move_tensor(OP, product, &self.home)?;
                Ok((finish(product)?, bytes))
            },
            _target: PhantomData,
        })
    }

    fn add_bias<const D: usize>(&self, y: Tensor<D>) -> Result<Tensor<D>> {
        match &self.bias {
            None => Ok(y),
            Some(bias) => catch(Op::QuantizedLinear.name(), || {
                y + bias.clone().unsqueeze::<D>()
            }),
        }
    }

    /// What quantizing this layer did.
    pub fn report(&self) -> &LayerReport {
        &self.report
    }

    /// The device the layer serves: inputs arrive and outputs leave here.
    pub fn device(&self) -> &Device {
        &self.home
    }

    /// The device that holds the weight (the layer's own, or a fallback).
    pub fn weight_device(&self) -> Device {
        match &self.weight {
            Weight::Quantized(w) | Weight::Float(w) => w.device(),
        }
    }

    /// Whether the weight is quantized (not kept in float).
    pub fn is_quantized(&self) -> bool {
        matches!(self.weight, Weight::Quantized(_))
    }

    /// `(d_input, d_output)`.
    pub fn dims(&self) -> (usize, usize) {
        (self.d_input, self.d_output)
    }

    /// The policy the layer records its forwards into.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }
}

/// Bytes of a tensor as stored: read from the tensor (values and, for a quantized tensor,
/// scales), not computed from a formula.
fn stored_bytes<const D: usize>(op: &'static str, tensor: &Tensor<D>) -> Result<u64> {
    let data = catch(op, || tensor.clone().try_into_data())?
        .map_err(|source| GuardError::Execution { op, source })?;
    Ok(u64::try_from(data.bytes().len()).unwrap_or(u64::MAX))
}
