//! Guarded dynamic quantization of `burn::Tensor`, with the policy deciding where it runs.

use std::time::Instant;

use burn::tensor::quantization::QuantScheme;
use burn::tensor::{Tensor, Transaction};

use super::sealed::Sealed;
use crate::capability::{Support, quantize_support, stack_of};
use crate::check;
use crate::error::{GuardError, Result, Unsupported};
use crate::panic::catch;
use crate::policy::Policy;

const OP: &str = "quantize_dynamic";

/// Guarded quantization of float tensors.
///
/// Sealed: implemented for `burn::Tensor<D>` only.
pub trait TryQuantize<const D: usize>: Sealed + Sized {
    /// Guarded [`Tensor::quantize_dynamic`] under the strict policy: checks the scheme against
    /// the shape, the shape for emptiness, the device's capability, then the values' range,
    /// then quantizes. Nothing is quantized on refusal.
    ///
    /// Costs one reduction and one synchronous read of two numbers (the count of non-finite
    /// values and the largest magnitude) before quantizing: burn computes its scale from the
    /// values and, for NaN, ±inf or a magnitude whose scale overflows, returns NaN or garbage
    /// on some backends without a word (see [`check::quant::quant_values`]).
    ///
    /// # Errors
    ///
    /// - [`GuardError::InvalidQuantScheme`] when no backend can apply the scheme to this shape.
    /// - [`GuardError::InvalidArgument`] for a tensor with no elements (no range to calibrate
    ///   from), for NaN or ±inf values (with their count), or when the largest magnitude needs
    ///   a scale its dtype cannot hold (`f32::MAX`; 1e7 with F16 scales).
    /// - [`GuardError::Unsupported`] when the device's backend cannot (NdArray with a packed
    ///   store, E4M3 on Flex, …).
    /// - [`GuardError::Execution`] when the values' range cannot be read back.
    /// - [`GuardError::BackendPanic`] if burn panics anyway.
    ///
    /// # Fallback
    ///
    /// Never; see [`TryQuantize::quantize_dynamic_with`].
    ///
    /// ```
    /// use burn::tensor::quantization::QuantScheme;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryQuantize;
    ///
    /// let t = Tensor::<2>::ones([4, 8], &Device::flex());
    /// assert!(t.clone().try_quantize_dynamic(&QuantScheme::default()).is_ok());
    /// #[allow(deprecated)]
    /// let on_ndarray = t.to_device(&Device::ndarray());
    /// let err = on_ndarray.try_quantize_dynamic(&QuantScheme::default()).unwrap_err();
    /// assert!(err.to_string().contains("not supported"));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "quantize_dynamic")]
    fn try_quantize_dynamic(self, scheme: &QuantScheme) -> Result<Self>;

    /// Guarded [`Tensor::quantize_dynamic`] under `policy`: on the tensor's device when it
    /// can; otherwise, when the policy allows, on the first capable device of
    /// [`Policy::devices`]. The result's [`device`](Tensor::device) says where it lives.
    ///
    /// # Errors
    ///
    /// As [`TryQuantize::try_quantize_dynamic`]; [`GuardError::Unsupported`] also when no
    /// fallback device can. The values are checked on the tensor's own device before they
    /// move, so refused values never reach a fallback device.
    ///
    /// # Fallback
    ///
    /// To the first capable device of the policy, through `Tensor::to_device`; counted in
    /// [`Policy::stats`] and logged once per (op, from, to) at `warn`.
    ///
    /// ```
    /// use burn::tensor::quantization::QuantScheme;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::policy::Policy;
    /// use burn_guard::tensor::TryQuantize;
    ///
    /// #[allow(deprecated)]
    /// let t = Tensor::<2>::ones([4, 8], &Device::ndarray());
    /// let policy = Policy::fallback_to([Device::flex()]);
    /// let q = t.quantize_dynamic_with(&QuantScheme::default(), &policy)?;
    /// assert_eq!(q.device(), Device::flex());
    /// assert_eq!(policy.stats()["quantize_dynamic"].fallbacks, 1);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    fn quantize_dynamic_with(self, scheme: &QuantScheme, policy: &Policy) -> Result<Self>;
}

impl<const D: usize> TryQuantize<D> for Tensor<D> {
    fn try_quantize_dynamic(self, scheme: &QuantScheme) -> Result<Self> {
        self.quantize_dynamic_with(scheme, &Policy::strict())
    }

    fn quantize_dynamic_with(self, scheme: &QuantScheme, policy: &Policy) -> Result<Self> {
        let stats = policy.recorder();
        let counted = |outcome: Result<Self>| {
            if outcome.is_err() {
                stats.error(OP);
            }
            outcome
        };
        let dims = self.dims();
        if let Err(err) = check::quant_scheme(OP, scheme, &dims)
            .and_then(|_| check::quant::quant_nonempty(OP, &dims))
        {
            stats.error(OP);
            return Err(err);
        }
        let stack = stack_of(&self.device());
        let reason = match quantize_support(stack, scheme, &dims) {
            Support::Native => {
                if let Err(err) = check_values(&self, scheme) {
                    stats.error(OP);
                    return Err(err);
                }
                let outcome = catch(OP, || self.quantize_dynamic(scheme));
                if outcome.is_ok() {
                    stats.native(OP);
                }
                return counted(outcome);
            }
            Support::Unsupported(reason) => reason,
        };
        let refusal = |reason: String| {
            GuardError::Unsupported(Unsupported {
                op: OP,
                backend: stack.name().to_owned(),
                capability: format!("quantization {}", check::SchemeName(scheme)),
                reason,
            })
        };
        if !policy.may_fall_back(OP) {
            stats.error(OP);
            return Err(refusal(reason));
        }
        let Some((target, target_stack)) = policy
            .devices()
            .iter()
            .map(|device| (device, stack_of(device)))
            .find(|(_, target)| quantize_support(target, scheme, &dims).is_native())
        else {
            stats.error(OP);
            return Err(refusal(format!(
                "{reason}; no fallback device of the policy can"
            )));
        };
        // Refused values never move: the check runs where the tensor is.
        if let Err(err) = check_values(&self, scheme) {
            stats.error(OP);
            return Err(err);
        }
        let bytes =
            u64::try_from(dims.iter().product::<usize>().saturating_mul(4)).unwrap_or(u64::MAX);
        let start = Instant::now();
        let moved = match catch(OP, || self.to_device(target)) {
            Ok(moved) => moved,
            Err(err) => {
                stats.error(OP);
                return Err(err);
            }
        };
        stats.moved(OP, bytes, 0, start.elapsed());
        stats.fallback(OP, stack.name(), target_stack.name());
        counted(catch(OP, || moved.quantize_dynamic(scheme)))
    }
}

/// Reads the values' range — one reduction and one synchronous read (a [`Transaction`] of the
/// non-finite count and the largest finite magnitude) — and checks it with
/// [`check::quant::quant_values`].
///
/// The read is the price of never returning a silently wrong quantization: burn computes the
/// scale from the values, and a NaN, an infinity or a magnitude whose scale overflows its dtype
/// gives a result that dequantizes to NaN or to garbage on some backend (see
/// [`check::quant::quant_values`]). Non-finite values are masked before the maximum, which
/// NdArray would otherwise panic on.
fn check_values<const D: usize>(tensor: &Tensor<D>, scheme: &QuantScheme) -> Result<()> {
    let values = tensor.clone();
    let len = u64::try_from(values.shape().num_elements()).unwrap_or(u64::MAX);
    let data = catch(OP, || {
        let bad = values.clone().is_finite().bool_not();
        let count = bad.clone().int().sum();
        let max_abs = values.abs().mask_fill(bad, 0.0).max();
        Transaction::default()
            .register(count)
            .register(max_abs)
            .try_execute()
    })?
    .map_err(|source| GuardError::Execution { op: OP, source })?;
    let range = check::quant::ValueRange::from_reads(OP, data, len)?;
    check::quant::quant_values(OP, scheme, range)
}
