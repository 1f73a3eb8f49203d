//! Twins of the autodiff family: the switches that make a tensor tracked or not
//! (require_grad, set_require_grad), the graph's calls (backward, grad_replace,
//! with_gradient_checkpointing_strategy) and distributed parameters (is_distributed,
//! set_distributed), from burn's `api/autodiff.rs` and `api/float.rs`. Each checks that the
//! tensor is an autodiff one where burn asserts it.

use burn::tensor::kind::Basic;
use burn::tensor::{DType, Device, Tensor};

use super::sealed::Sealed;
use super::twins;
use crate::check::creation;
use crate::error::Result;
use crate::panic::catch;

twins! {
/// Fallible twin of `with_gradient_checkpointing_strategy`, which every autodiff kind has
/// (burn's `api/autodiff.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryAutodiff<const D: usize, K: Basic> for Tensor<D, K> {
    #[cfg(feature = "autodiff")]
    /// Fallible twin of [`Tensor::with_gradient_checkpointing_strategy`]: checks that the
    /// tensor has autodiff enabled (burn `assert!`s it).
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) without autodiff.
    ///
    /// ```
    /// use burn::tensor::{Device, GradientCheckpointingStrategy, Tensor};
    /// use burn_guard::tensor::TryAutodiff;
    ///
    /// let t = Tensor::<1>::ones([2], &Device::flex());
    /// let strategy = GradientCheckpointingStrategy::Disabled;
    /// assert!(t.clone().try_with_gradient_checkpointing_strategy(strategy).is_err());
    /// assert!(t.autodiff().try_with_gradient_checkpointing_strategy(strategy).is_ok());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "with_gradient_checkpointing_strategy")]
    fn try_with_gradient_checkpointing_strategy(
        self,
        strategy: burn::tensor::GradientCheckpointingStrategy,
    ) -> Self
    where K: burn::tensor::kind::Autodiff => with_gradient_checkpointing_strategy {
        creation::autodiff_state(
            OP,
            self.is_autodiff(),
            "a gradient checkpointing strategy needs an autodiff tensor; call Tensor::autodiff first",
            "autodiff=false",
        )?;
        catch(OP, || self.with_gradient_checkpointing_strategy(strategy))
    }
}
}

twins! {
/// Fallible twins of the autodiff switches of Float tensors: `require_grad`,
/// `set_require_grad`, `backward`, `grad_replace`, `is_distributed` and `set_distributed`
/// (burn's `api/autodiff.rs` and `api/float.rs`).
///
/// Sealed: implemented for `burn::Tensor<D>` only.
pub trait TryAutodiffFloat<const D: usize> for Tensor<D> {
    /// Fallible twin of [`Tensor::require_grad`]; the checks of
    /// [`TryAutodiffFloat::try_set_require_grad`] with `true`.
    ///
    /// # Errors
    ///
    /// As [`TryAutodiffFloat::try_set_require_grad`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryAutodiffFloat;
    ///
    /// let t = Tensor::<1>::ones([2], &Device::flex());
    /// assert!(t.clone().try_require_grad().is_err());
    /// assert!(t.autodiff().try_require_grad()?.is_require_grad());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "require_grad")]
    fn try_require_grad(self) -> Self => require_grad() [require_grad_checks(&self, true)];

    /// Fallible twin of [`Tensor::set_require_grad`].
    ///
    /// With `true` on a non-quantized tensor, checks that autodiff is enabled (burn
    /// `assert!`s it) and that the tensor is a leaf (burn-autodiff panics "Can't convert a non
    /// leaf tensor into a tracked tensor"). `false`, and quantized tensors, are always accepted.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) naming the rule.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryAutodiffFloat;
    ///
    /// let leaf = Tensor::<1>::ones([2], &Device::flex().autodiff()).require_grad();
    /// let derived = leaf * 2.0;
    /// assert!(derived.clone().try_set_require_grad(true).is_err());
    /// assert!(derived.try_set_require_grad(false).is_ok());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "set_require_grad")]
    fn try_set_require_grad(self, require_grad: bool) -> Self
    => set_require_grad(require_grad) [require_grad_checks(&self, require_grad)];

    #[cfg(feature = "autodiff")]
    /// Fallible twin of [`Tensor::backward`]: checks that the tensor is tracked by autodiff
    /// (burn `assert!`s it; a tensor is tracked when it requires gradients or derives from one
    /// that does).
    ///
    /// A second `backward` over a graph whose tape an earlier `backward` consumed panics in
    /// burn-autodiff ("graph tape has already been consumed"). burn exposes no way to see that
    /// before the call, so no check refuses it: the backstop catches it. The panic comes from
    /// burn-autodiff's tape bookkeeping (measured on Flex), not from a backend kernel.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for an untracked
    /// tensor; [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) for a consumed
    /// graph.
    ///
    /// Inside [`verify::detect_anomaly`](crate::verify::detect_anomaly), the gradients are
    /// checked too: [`GuardError::NonFinite`](crate::GuardError::NonFinite) names the layer
    /// twin whose own backward, or whose output's consumers' backward, gave NaN or ±inf
    /// (outside the mode: one thread-local read).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryAutodiffFloat;
    ///
    /// let device = Device::flex().autodiff();
    /// let x = Tensor::<1>::ones([2], &device).require_grad();
    /// let grads = (x.clone() * 3.0).sum().try_backward()?;
    /// assert_eq!(x.grad(&grads).unwrap().sum().into_scalar::<f32>(), 6.0);
    /// assert!(Tensor::<1>::ones([2], &device).try_backward().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "backward")]
    fn try_backward(&self) -> burn::tensor::Gradients => backward {
        creation::autodiff_state(
            OP,
            self.is_tracked(),
            "backward needs a tracked autodiff tensor; call Tensor::autodiff().require_grad() on the source leaf",
            "tracked=false",
        )?;
        crate::nn::anomaly::checked_backward(catch(OP, || self.backward())?)
    }

    #[cfg(feature = "autodiff")]
    /// Fallible twin of [`Tensor::grad_replace`].
    ///
    /// Checks that the tensor is not quantized (burn: "Should be Float primitive kind") and is
    /// an autodiff tensor ("Requires autodiff tensor."), that `grad` is not an autodiff tensor
    /// ("replacement gradients must use the inner backend") and that `grad` is on the tensor's
    /// device without autodiff (burn panics when the backends differ; a different device of the
    /// same backend is refused too, beyond burn). A quantized `grad` is dequantized by burn.
    ///
    /// # Errors
    ///
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for the tensor's
    ///   or the gradient's state.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryAutodiffFloat;
    ///
    /// let device = Device::flex().autodiff();
    /// let x = Tensor::<1>::ones([2], &device).require_grad();
    /// let mut grads = (x.clone() * 3.0).sum().backward();
    /// assert!(x.try_grad_replace(&mut grads, Tensor::zeros([2], &device)).is_err());
    /// x.try_grad_replace(&mut grads, Tensor::zeros([2], &Device::flex()))?;
    /// assert_eq!(x.grad(&grads).unwrap().sum().into_scalar::<f32>(), 0.0);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "grad_replace")]
    fn try_grad_replace(&self, grads: &mut burn::tensor::Gradients, grad: Tensor<D>) -> ()
    => grad_replace {
        creation::not_quantized(OP, self.dtype())?;
        creation::autodiff_state(
            OP,
            self.is_autodiff(),
            "replacing a gradient needs an autodiff tensor",
            "autodiff=false",
        )?;
        creation::autodiff_state(
            OP,
            !grad.is_autodiff(),
            "the replacement gradient must be on the inner backend; call Tensor::inner first",
            "grad autodiff=true",
        )?;
        crate::capability::same_device(OP, &self.device().without_autodiff(), &grad.device())?;
        catch(OP, || self.grad_replace(grads, grad))
    }

    /// Fallible twin of [`Tensor::is_distributed`]: checks that the tensor is not quantized
    /// (burn: `unimplemented!()`) and is an autodiff tensor (burn-dispatch: "Requires autodiff
    /// tensor.").
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) naming the rule.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryAutodiffFloat;
    ///
    /// assert!(!Tensor::<1>::ones([2], &Device::flex().autodiff()).try_is_distributed()?);
    /// assert!(Tensor::<1>::ones([2], &Device::flex()).try_is_distributed().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "is_distributed")]
    fn try_is_distributed(&self) -> bool
    => is_distributed() [creation::distributed(self.dtype(), self.is_autodiff(), true)];

    /// Fallible twin of [`Tensor::set_distributed`]: checks that the tensor is not quantized
    /// (burn: `unimplemented!()`), is an autodiff tensor (burn-dispatch: "Requires autodiff
    /// tensor.", although burn's doc says the call does nothing without autodiff), and runs on a
    /// backend with distributed support: CubeCL (wgpu, CUDA, …) or remote (burn-dispatch panics
    /// for Flex and NdArray). The backend is read from the device's `Debug` name.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) naming the rule.
    ///
    /// ```
    /// use burn_backend::distributed::DistributedParamId;
    /// use burn::tensor::quantization::QuantScheme;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryAutodiffFloat;
    ///
    /// let q = Tensor::<1>::ones([4], &Device::flex()).quantize_dynamic(&QuantScheme::default());
    /// assert!(q.try_set_distributed(DistributedParamId::new()).is_err());
    /// let flex = Tensor::<1>::ones([4], &Device::flex().autodiff());
    /// assert!(flex.try_set_distributed(DistributedParamId::new()).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "set_distributed")]
    fn try_set_distributed(
        self,
        param_id: burn_backend::distributed::DistributedParamId,
    ) -> Self => set_distributed {
        let supported = distributed_backend(&self.device());
        creation::distributed(OP, self.dtype(), self.is_autodiff(), supported)?;
        catch(OP, || self.set_distributed(param_id))
    }
}
}

/// Whether the device's backend supports distributed parameters (burn-dispatch implements
/// them for CubeCL and remote tensors only), read from the device's dispatch variant.
fn distributed_backend(device: &Device) -> bool {
    matches!(
        crate::capability::stack_of(device).base(),
        Some(crate::capability::Layer::Cubecl(_) | crate::capability::Layer::Remote)
    )
}

/// The facts `set_require_grad` depends on: quantized, autodiff, leaf.
fn require_grad_checks<const D: usize>(
    op: &'static str,
    tensor: &Tensor<D>,
    require_grad: bool,
) -> Result<()> {
    let quantized = matches!(tensor.dtype(), DType::QFloat(_));
    #[cfg(feature = "autodiff")]
    let non_leaf = tensor.is_tracked() && !tensor.is_require_grad();
    #[cfg(not(feature = "autodiff"))]
    let non_leaf = false;
    creation::require_grad(op, require_grad, quantized, tensor.is_autodiff(), non_leaf)
}
