//! [`PlacedLinear`]: the quantized linear layer at the backend level, generic over any
//! `B: Backend` — a remote device (burn-router) included — with a concrete fallback backend
//! `C` for what `B` cannot quantize.

use std::fmt;

use burn::tensor::FloatDType;
use burn::tensor::quantization::QuantScheme;
use burn_backend::tensor::FloatTensor;
use burn_backend::{Backend, Shape, TensorData, TensorMetadata};

use super::report::{LayerReport, Placement};
use crate::backend::quant::{Placed, PlacedQuantized, q_matmul, quantize_dynamic_or_fallback};
use crate::capability::BackendStack;
use crate::check;
use crate::check::module as shapes;
use crate::devices::{default_timeout, read_with_deadline};
use crate::error::Result;
use crate::panic::catch;
use crate::policy::Policy;

/// A linear layer `y = x · W + b` of backend `B` whose weight is quantized on `B` when it
/// can, else on `C` (when the policy allows), and stays there.
///
/// The weight is stored transposed, `[d_output, d_input]` (blocks along the input
/// features, see [`QuantizedLinear`](super::QuantizedLinear)); the bias stays in float on
/// `B`. A forward on a fallback-held weight is [`q_matmul`]: the activations go to `C` and the
/// product comes back, counted under `"q_matmul"` in [`Policy::stats`].
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
    weight: PlacedQuantized<B, C>,
    bias: Option<FloatTensor<B>>,
    d_input: usize,
    d_output: usize,
    fallback_device: C::Device,
    policy: Policy,
    report: LayerReport,
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
    /// - [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme) when the scheme cannot apply to
    ///   `[d_output, d_input]`.
    /// - [`GuardError::Unsupported`](crate::GuardError::Unsupported) when `B` cannot and the policy forbids fallback (every
    ///   remote device under [`Policy::strict`]), or `C` cannot either.
    /// - [`GuardError::Execution`](crate::GuardError::Execution) / [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) when a read or a backend
    ///   fails.
    ///
    /// # Fallback
    ///
    /// [`quantize_dynamic_or_fallback`]: the weight moves to `C` once, here.
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
        const OP: &str = "quantize_linear";
        let weight_shape = weight.shape().to_vec();
        let bias_shape = bias.as_ref().map(|b| b.shape().to_vec());
        let (d_input, d_output) = match weight_shape.as_slice() {
            [d_input, _] => {
                let checked =
                    shapes::linear(OP, &[1, *d_input], &weight_shape, bias_shape.as_deref())?;
                (checked.d_input, checked.d_output)
            }
            _ => {
                // The check names the rank rule.
                shapes::linear(OP, &[0], &weight_shape, None)?;
                (0, 0)
            }
        };
        check::quant_scheme(OP, scheme, &[d_output, d_input])?;
        let device = weight.device();
        let bytes_before = read_bytes(OP, catch(OP, || B::float_into_data(weight.clone()))?)?;
        let transposed = catch(OP, || B::float_swap_dims(weight, 0, 1))?;
        let packed =
            quantize_dynamic_or_fallback::<B, C>(transposed, scheme, policy, fallback_device)?;
        let home = BackendStack::of::<B>(&device).label().to_owned();
        let (placement, held, bytes_after) = match &packed {
            Placed::Native(q) => (
                Placement::Native,
                home.clone(),
                read_bytes(OP, catch(OP, || B::q_into_data(q.clone()))?)?,
            ),
            Placed::Fallback(q) => {
                let to = BackendStack::cached::<C>(fallback_device)
                    .label()
                    .to_owned();
                (
                    Placement::Fallback {
                        from: home,
                        to: to.clone(),
                    },
                    to,
                    read_bytes(OP, catch(OP, || C::q_into_data(q.clone()))?)?,
                )
            }
        };
        Ok(Self {
            weight: packed,
            bias,
            d_input,
            d_output,
            fallback_device: fallback_device.clone(),
            policy: policy.clone(),
            report: LayerReport {
                path: path.to_owned(),
                d_input,
                d_output,
                scheme: check::SchemeName(scheme).to_string(),
                device: held,
                placement,
                bytes_before,
                bytes_after,
            },
        })
    }

    /// `x · W + b` for `x` of shape `[..., d_input]` on `B`; the result is on `B`,
    /// `[..., d_output]`.
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) / [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) when `x` is not
    ///   `[..., d_input]`.
    /// - [`GuardError::Execution`](crate::GuardError::Execution) / [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) when a move or a backend
    ///   fails.
    ///
    /// # Fallback
    ///
    /// When the weight lives on `C`: [`q_matmul`] moves `x` there and the product back.
    pub fn forward(&self, x: FloatTensor<B>) -> Result<FloatTensor<B>> {
        const OP: &str = "quantized_linear";
        let checked = shapes::linear(
            OP,
            x.shape().as_slice(),
            &[self.d_input, self.d_output],
            None,
        )?;
        let device = x.device();
        let product = if checked.rows == 0 || self.d_input == 0 {
            // Known without a kernel; empty operands have panicked in burn's kernels (#4093).
            catch(OP, || {
                B::float_zeros(
                    Shape::from(vec![checked.rows, self.d_output]),
                    &device,
                    FloatDType::F32,
                )
            })?
        } else {
            let rows = catch(OP, || {
                B::float_reshape(x, Shape::from(vec![checked.rows, self.d_input]))
            })?;
            let view = match &self.weight {
                Placed::Native(q) => Placed::Native(catch(OP, || B::q_swap_dims(q.clone(), 0, 1))?),
                Placed::Fallback(q) => {
                    Placed::Fallback(catch(OP, || C::q_swap_dims(q.clone(), 0, 1))?)
                }
            };
            q_matmul::<B, C>(rows, &view, &self.policy, &self.fallback_device)?
        };
        catch(OP, || {
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
    pub fn report(&self) -> &LayerReport {
        &self.report
    }

    /// Whether the weight lives on the fallback backend `C`.
    pub fn is_fallback(&self) -> bool {
        self.weight.is_fallback()
    }

    /// `(d_input, d_output)`.
    pub fn dims(&self) -> (usize, usize) {
        (self.d_input, self.d_output)
    }
}

impl<B: Backend, C: Backend> Clone for PlacedLinear<B, C> {
    fn clone(&self) -> Self {
        Self {
            weight: self.weight.clone(),
            bias: self.bias.clone(),
            d_input: self.d_input,
            d_output: self.d_output,
            fallback_device: self.fallback_device.clone(),
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

/// Reads a tensor's data (within [`default_timeout`](crate::devices::default_timeout): a
/// remote read blocks forever on a frozen server) and returns its byte length: what the
/// tensor stores, values and scales, not a formula.
fn read_bytes(
    op: &'static str,
    data: impl Future<Output = std::result::Result<TensorData, burn_backend::ExecutionError>>
    + Send
    + 'static,
) -> Result<u64> {
    let data = read_with_deadline(op, default_timeout(), data)?;
    Ok(u64::try_from(data.bytes().len()).unwrap_or(u64::MAX))
}
