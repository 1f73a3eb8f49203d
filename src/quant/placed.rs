//! [`PlacedLinear`]: the quantized linear layer at the backend level, generic over any
//! `B: Backend` — a remote device (burn-router) included — with a concrete fallback backend
//! `C` for what `B` cannot quantize. [`QuantizedLinear`](super::QuantizedLinear) is this
//! layer on burn's own `Dispatch` backend, converted at the `burn::Tensor` boundary: one
//! quantize path, one forward path, one report for both.

use std::fmt;

use burn::tensor::quantization::QuantScheme;
use burn_backend::tensor::{FloatTensor, QuantizedTensor};
use burn_backend::{Backend, Shape, TensorMetadata};

use super::report::{ParamReport, Placement};
use crate::capability::BackendStack;
use crate::check;
use crate::check::linear;
use crate::check::linear::LinearShapes;
use crate::error::Result;
use crate::panic::catch;
use crate::policy::{Moved, Op, Outcome, Policy};
use crate::quant::engine::{Held, Placed, no_kernel_product, q_product, quantize_routed};

/// What to do with a layer whose weight shape the scheme cannot apply to (a block size that
/// does not divide it, a packed store that does not fit its rows).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum InvalidLayer {
    /// Refuse: quantizing returns the [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme). The default.
    #[default]
    Refuse,
    /// Keep the layer in float and say so in its [`ParamReport`](super::ParamReport).
    KeepFloat,
}

/// The op that quantizing a layer names in its errors.
const QUANTIZE: &str = "quantize_linear";
/// The op that a layer's forward names in its errors (whichever [`Op`] records it).
const FORWARD: &str = Op::QuantizedLinear.name();

/// How a layer stores its weight.
enum Weight<B: Backend, C: Backend> {
    /// Packed `[d_output, d_input]` on `B`: blocks run along the input features, the
    /// reduction dimension of the product, as in GGML and PyTorch's layouts.
    Native(QuantizedTensor<B>),
    /// Packed `[d_output, d_input]` on the device of `C` that quantized it.
    Held(Held<C>),
    /// Float `[d_input, d_output]`, burn's layout, on `B`: the scheme cannot apply to it and
    /// the layer was asked to keep it.
    Float(FloatTensor<B>),
}

impl<B: Backend, C: Backend> Clone for Weight<B, C> {
    fn clone(&self) -> Self {
        match self {
            Self::Native(q) => Self::Native(q.clone()),
            Self::Held(held) => Self::Held(held.clone()),
            Self::Float(w) => Self::Float(w.clone()),
        }
    }
}

/// A layer's parameters, their shapes checked: a weight `[d_input, d_output]` (burn's layout)
/// and a bias `[d_output]`.
pub(crate) struct Parts<B: Backend> {
    weight: FloatTensor<B>,
    bias: Option<FloatTensor<B>>,
    d_input: usize,
    d_output: usize,
}

impl<B: Backend> Parts<B> {
    /// Checks the weight's rank and the bias's shape against it.
    pub(crate) fn check(weight: FloatTensor<B>, bias: Option<FloatTensor<B>>) -> Result<Self> {
        let weight_shape = weight.shape().to_vec();
        let bias_shape = bias.as_ref().map(|b| b.shape().to_vec());
        let (d_input, d_output) = match weight_shape.as_slice() {
            [d_input, _] => {
                let checked = linear::linear(
                    QUANTIZE,
                    &[1, *d_input],
                    &weight_shape,
                    bias_shape.as_deref(),
                )?;
                (checked.d_input, checked.d_output)
            }
            _ => {
                // The check names the rank rule.
                linear::linear(QUANTIZE, &[0], &weight_shape, None)?;
                (0, 0)
            }
        };
        Ok(Self {
            weight,
            bias,
            d_input,
            d_output,
        })
    }
}

/// A linear layer `y = x · W + b` of backend `B` whose weight is quantized on `B` when it
/// can, else on `C` (when the policy allows), and stays there.
///
/// The weight is stored transposed, `[d_output, d_input]` (blocks along the input
/// features, see [`QuantizedLinear`](super::QuantizedLinear)); the bias stays in float on
/// `B`. A forward on a fallback-held weight moves the activations to `C` and the product back
/// (as [`q_matmul`](crate::quant::engine::q_matmul) does), counted under `"q_matmul"` in
/// [`Policy::stats`].
///
/// ```
/// use burn::tensor::quantization::QuantScheme;
/// use burn_backend::TensorData;
/// use burn_backend::ops::FloatTensorOps;
/// use burn_flex::Flex;
/// use burn_guard::nn::PlacedLinear;
/// use burn_guard::policy::Policy;
///
/// let device = Default::default();
/// let weight = Flex::float_from_data(TensorData::new(vec![0.5f32; 64 * 8], [64, 8]), &device);
/// let layer = PlacedLinear::<Flex, Flex>::quantize(
///     "fc", weight, None, &QuantScheme::default(), &Policy::strict(), &device,
/// )?;
/// let x = Flex::float_from_data(TensorData::new(vec![1.0f32; 2 * 64], [2, 64]), &device);
/// let y = layer.forward(x)?;
/// # let y = burn_backend::read_sync(Flex::float_into_data(y)).unwrap();
/// # assert_eq!(y.shape().to_vec(), vec![2, 8]);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub struct PlacedLinear<B: Backend, C: Backend> {
    weight: Weight<B, C>,
    bias: Option<FloatTensor<B>>,
    home: B::Device,
    home_label: String,
    d_input: usize,
    d_output: usize,
    policy: Policy,
    report: ParamReport,
}

impl<B: Backend, C: Backend> PlacedLinear<B, C> {
    /// Quantizes `weight` (`[d_input, d_output]`, burn's layout) with `scheme`: on `B` when it
    /// can, else on `C` at `fallback_device` when `policy` allows. `path` names the layer in
    /// its report.
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) / [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for a weight that is not
    ///   rank 2 or a bias that is not `[d_output]`.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch) for a bias on
    ///   another device than the weight.
    /// - [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme) when the scheme cannot apply to
    ///   `[d_output, d_input]`.
    /// - [`GuardError::Unsupported`](crate::GuardError::Unsupported) when `B` cannot and the policy forbids fallback (every
    ///   remote device under [`Policy::strict`]), or `C` cannot either.
    /// - [`GuardError::Execution`](crate::GuardError::Execution) / [`GuardError::Timeout`](crate::GuardError::Timeout) / [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) when a read or a backend
    ///   fails.
    ///
    /// # Fallback
    ///
    /// [`quantize_dynamic_or_fallback`](crate::quant::engine::quantize_dynamic_or_fallback):
    /// the weight moves to `C` once, here.
    ///
    /// ```
    /// use burn::tensor::quantization::QuantScheme;
    /// use burn_backend::TensorData;
    /// use burn_backend::ops::FloatTensorOps;
    /// use burn_flex::Flex;
    /// use burn_guard::devices::LoopbackRemote;
    /// use burn_guard::nn::{Placement, PlacedLinear};
    /// use burn_guard::policy::Policy;
    /// use burn_remote::RemoteBackend;
    ///
    /// let remote = LoopbackRemote::start()?;
    /// let weight = || RemoteBackend::float_from_data(TensorData::new(vec![0.25f32; 32 * 4], [32, 4]), remote.device());
    /// let scheme = QuantScheme::default();
    /// let strict = PlacedLinear::<RemoteBackend, Flex>::quantize("fc", weight(), None, &scheme, &Policy::strict(), &Default::default());
    /// assert!(strict.is_err());
    /// let layer = PlacedLinear::<RemoteBackend, Flex>::quantize("fc", weight(), None, &scheme, &Policy::fallback_to([]), &Default::default())?;
    /// assert!(matches!(layer.report().placement, Placement::Fallback { .. }));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn quantize(
        path: &str,
        weight: FloatTensor<B>,
        bias: Option<FloatTensor<B>>,
        scheme: &QuantScheme,
        policy: &Policy,
        fallback_device: &C::Device,
    ) -> Result<Self> {
        let device = weight.device();
        let bias_device = bias.as_ref().map(TensorMetadata::device);
        let parts = Parts::check(weight, bias)?;
        if let Some(bias_device) = &bias_device {
            crate::capability::same_device(QUANTIZE, &device, bias_device)?;
        }
        let home = (
            BackendStack::cached::<B>(&device),
            BackendStack::of::<B>(&device).label().to_owned(),
        );
        let target = (
            fallback_device.clone(),
            BackendStack::cached::<C>(fallback_device),
        );
        Self::quantize_parts(
            path,
            parts,
            scheme,
            policy,
            InvalidLayer::Refuse,
            home,
            [target],
        )
    }

    /// The one quantize path: checks the scheme against the transposed weight (refusing, or
    /// keeping the layer in float under [`InvalidLayer::KeepFloat`]), reads the float
    /// weight's bytes, then quantizes it where the policy says among `home` (its stack and
    /// label) and `targets` (devices of `C` with their stacks, in order) and reads the packed
    /// bytes. Every read is bounded by [`default_timeout`].
    pub(crate) fn quantize_parts(
        path: &str,
        parts: Parts<B>,
        scheme: &QuantScheme,
        policy: &Policy,
        invalid: InvalidLayer,
        home: (&BackendStack, String),
        targets: impl IntoIterator<Item = (C::Device, &'static BackendStack)>,
    ) -> Result<Self> {
        let Parts {
            weight,
            bias,
            d_input,
            d_output,
        } = parts;
        let (home_stack, home_label) = home;
        let kept = match check::quant_scheme(QUANTIZE, scheme, &[d_output, d_input]) {
            Ok(_) => None,
            Err(err) if invalid == InvalidLayer::KeepFloat => Some(err),
            Err(err) => return Err(err),
        };
        let device = weight.device();
        // The model's layout, `[d_input, d_output]`; counted with the one byte formula.
        let shape = vec![d_input, d_output];
        let bytes_before = check::bytes::counted_bytes(&shape, weight.dtype());
        let report = |scheme: String, device: String, placement, bytes_after| ParamReport {
            path: format!("{path}.weight"),
            shape: shape.clone(),
            scheme,
            device,
            placement,
            bytes_before,
            bytes_after,
            relative_error: None,
        };
        let (weight, report) = match kept {
            Some(err) => {
                let placement = Placement::KeptFloat {
                    reason: err.to_string(),
                };
                let report = report("f32".into(), home_label.clone(), placement, bytes_before);
                (Weight::Float(weight), report)
            }
            None => {
                let transposed = catch(QUANTIZE, || B::float_swap_dims(weight, 0, 1))?;
                let placed = quantize_routed::<B, C, _>(
                    transposed,
                    scheme,
                    policy,
                    home_stack,
                    &|| home_label.clone(),
                    targets,
                )?;
                match placed {
                    Placed::Native(q) => {
                        let (scheme, bytes) = stored(&q.shape(), q.dtype());
                        let report = report(scheme, home_label.clone(), Placement::Native, bytes);
                        (Weight::Native(q), report)
                    }
                    Placed::Fallback(held) => {
                        let (scheme, bytes) = stored(&held.tensor.shape(), held.tensor.dtype());
                        let placement = Placement::Fallback {
                            from: home_label.clone(),
                            to: held.label.clone(),
                        };
                        let report = report(scheme, held.label.clone(), placement, bytes);
                        (Weight::Held(held), report)
                    }
                }
            }
        };
        Ok(Self {
            weight,
            bias,
            home: device,
            home_label,
            d_input,
            d_output,
            policy: policy.clone(),
            report,
        })
    }

    /// `x · W + b` for `x` of shape `[..., d_input]` on the layer's device; the result is on
    /// `B`, `[..., d_output]`.
    ///
    /// An input with no rows (or a layer with no features) gives its output without a kernel,
    /// counted as a native run.
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) / [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) when `x` is not
    ///   `[..., d_input]`.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch) when `x` is not on
    ///   the layer's device.
    /// - [`GuardError::Execution`](crate::GuardError::Execution) / [`GuardError::Timeout`](crate::GuardError::Timeout) / [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) when a move or a backend
    ///   fails.
    ///
    /// Every call, and every error, is counted under [`Op::QMatmul`] in [`Policy::stats`].
    ///
    /// # Fallback
    ///
    /// When the weight lives on `C`: `x` moves there and the product back, counted as a
    /// fallback with the bytes each way.
    pub fn forward(&self, x: FloatTensor<B>) -> Result<FloatTensor<B>> {
        let checked =
            self.check_input(Op::QMatmul, x.shape().as_slice(), &x.device(), &self.home)?;
        self.forward_checked(Op::QMatmul, x, &checked)
    }

    /// Checks an input of shape `x` on `device` against the layer (features from the weight,
    /// the layer's device `home`), counting a refusal under `op`. Devices are compared in the
    /// caller's type, so that an error names them as the caller knows them.
    pub(crate) fn check_input<Dev: PartialEq + fmt::Debug + 'static>(
        &self,
        op: Op,
        x: &[usize],
        device: &Dev,
        home: &Dev,
    ) -> Result<LinearShapes> {
        let checked =
            linear::linear(FORWARD, x, &[self.d_input, self.d_output], None).and_then(|checked| {
                crate::capability::same_device(FORWARD, device, home).map(|()| checked)
            });
        self.policy.checked(op, checked)
    }

    /// The one forward path, for an input `check_input` accepted: the product where the weight
    /// lives, the bias at home, and one record under `op` of what ran (a fallback with its
    /// bytes when the weight is held on `C`) or of the error.
    pub(crate) fn forward_checked(
        &self,
        op: Op,
        x: FloatTensor<B>,
        checked: &LinearShapes,
    ) -> Result<FloatTensor<B>> {
        let ran = self.run(x, checked);
        let outcome = |(_, moved): &(FloatTensor<B>, Option<Moved>)| match moved {
            None => Outcome::Native,
            Some(moved) => moved.fallback(&self.home_label, self.weight_label()),
        };
        self.policy.recorded(op, ran, outcome).map(|(y, _)| y)
    }

    fn run(
        &self,
        x: FloatTensor<B>,
        checked: &LinearShapes,
    ) -> Result<(FloatTensor<B>, Option<Moved>)> {
        let out = [checked.rows, self.d_output];
        if out.contains(&0) || self.d_input == 0 {
            // Nothing to multiply, or a sum over nothing: answered at home without a kernel
            // (empty tensors have panicked in burn's kernels).
            let product = no_kernel_product::<B>(FORWARD, &x, &out)?;
            return Ok((self.add_bias(product, checked)?, None));
        }
        let rows = catch(FORWARD, || {
            B::float_reshape(x, Shape::from(vec![checked.rows, self.d_input]))
        })?;
        let (product, moved) = match &self.weight {
            Weight::Float(weight) => {
                let product = catch(FORWARD, || B::float_matmul(rows, weight.clone()))?;
                (product, None)
            }
            Weight::Native(q) => {
                let view = catch(FORWARD, || B::q_swap_dims(q.clone(), 0, 1))?;
                q_product::<B, C>(FORWARD, rows, Placed::Native(view), &out)?
            }
            Weight::Held(held) => {
                let view = catch(FORWARD, || C::q_swap_dims(held.tensor.clone(), 0, 1))?;
                let rhs = Placed::Fallback((view, &held.device));
                q_product::<B, C>(FORWARD, rows, rhs, &out)?
            }
        };
        Ok((self.add_bias(product, checked)?, moved))
    }

    /// `product + b`, shaped as the output.
    fn add_bias(&self, product: FloatTensor<B>, checked: &LinearShapes) -> Result<FloatTensor<B>> {
        catch(FORWARD, || {
            let y = match &self.bias {
                Some(bias) => B::float_add(
                    product,
                    B::float_reshape(bias.clone(), Shape::from(vec![1, self.d_output])),
                ),
                None => product,
            };
            B::float_reshape(y, Shape::from(checked.output.clone()))
        })
    }

    /// What quantizing this layer did.
    pub fn report(&self) -> &ParamReport {
        &self.report
    }

    /// Whether the weight lives on the fallback backend `C`.
    pub fn is_fallback(&self) -> bool {
        matches!(self.weight, Weight::Held(_))
    }

    /// `(d_input, d_output)`.
    pub fn dims(&self) -> (usize, usize) {
        (self.d_input, self.d_output)
    }

    /// The label of the stack that holds the weight.
    fn weight_label(&self) -> &str {
        match &self.weight {
            Weight::Held(held) => &held.label,
            Weight::Native(_) | Weight::Float(_) => &self.home_label,
        }
    }

    /// The device of `C` that holds the weight, when it is held there.
    pub(crate) fn held_device(&self) -> Option<&C::Device> {
        match &self.weight {
            Weight::Held(held) => Some(&held.device),
            Weight::Native(_) | Weight::Float(_) => None,
        }
    }

    /// Whether the weight is quantized (not kept in float).
    pub(crate) fn is_quantized(&self) -> bool {
        !matches!(self.weight, Weight::Float(_))
    }

    /// The policy the layer records its forwards into.
    pub(crate) fn policy(&self) -> &Policy {
        &self.policy
    }
}

impl<B: Backend, C: Backend> Clone for PlacedLinear<B, C> {
    fn clone(&self) -> Self {
        Self {
            weight: self.weight.clone(),
            bias: self.bias.clone(),
            home: self.home.clone(),
            home_label: self.home_label.clone(),
            d_input: self.d_input,
            d_output: self.d_output,
            policy: self.policy.clone(),
            report: self.report.clone(),
        }
    }
}

impl<B: Backend, C: Backend> fmt::Debug for PlacedLinear<B, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlacedLinear")
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

/// What a quantized weight of `shape` is stored as: the scheme's name, read from the tensor's
/// own dtype (a device may store another layout than asked: Flex stores every scheme natively),
/// and its bytes by the one byte formula.
fn stored(shape: &burn_backend::Shape, dtype: burn_backend::DType) -> (String, u64) {
    let name = match dtype {
        burn_backend::DType::QFloat(scheme) => check::SchemeName(&scheme).to_string(),
        other => format!("{other:?}").to_lowercase(),
    };
    (name, check::bytes::counted_bytes(shape.as_slice(), dtype))
}
