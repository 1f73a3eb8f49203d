//! Guarded dynamic quantization of `burn::Tensor`, with the policy deciding where it runs.

use std::time::Instant;

use burn::tensor::Tensor;
use burn::tensor::quantization::QuantScheme;

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
    /// the shape and the device's capability, then quantizes. Nothing runs on refusal.
    ///
    /// # Errors
    ///
    /// - [`GuardError::InvalidQuantScheme`] when no backend can apply the scheme to this shape.
    /// - [`GuardError::Unsupported`] when the device's backend cannot (NdArray with a packed
    ///   store, E4M3 on Flex, …).
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
    /// fallback device can.
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
        let dims = self.dims();
        if let Err(err) = check::quant_scheme(OP, scheme, &dims) {
            stats.error(OP);
            return Err(err);
        }
        let stack = stack_of(&self.device());
        let reason = match quantize_support(stack, scheme, &dims) {
            Support::Native => {
                let outcome = catch(OP, || self.quantize_dynamic(scheme));
                match &outcome {
                    Ok(_) => stats.native(OP),
                    Err(_) => stats.error(OP),
                }
                return outcome;
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
        let outcome = catch(OP, || moved.quantize_dynamic(scheme));
        if outcome.is_err() {
            stats.error(OP);
        }
        outcome
    }
}
