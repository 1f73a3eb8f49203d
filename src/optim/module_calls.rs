//! Twins of the `Module` calls of a training loop that panic on, or silently break, a model's
//! trainability: `to_device`, `fork`, `set_require_grad`, `unfreeze`, `train`, and
//! `apply_qlora`, which panics as `quantize_weights` does.

use burn::module::{Lora, Module, QLora, Quantizer};
use burn::tensor::Device;

use super::step::states;
use crate::check::optim::{self as rules, ParamState};
use crate::error::Result;
use crate::panic::catch;
use crate::quant::TryQuantizeWeights;

mod sealed {
    pub trait Sealed {}
    impl<M: burn::module::Module> Sealed for M {}
}

/// Fallible twins of the `Module` calls a training loop makes. Sealed: implemented for every
/// `M: Module`. In the prelude (with the `optim` feature).
///
/// ```
/// use burn::module::{Lora, Module, QLora, Quantizer};
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::prelude::*;
///
/// let device = Device::flex().autodiff();
/// let model: Linear = LinearConfig::new(3, 2).init(&device);
/// let _ = model.forward(Tensor::<2>::ones([1, 3], &device)); // the weights are drawn
/// // burn's to_device would make every parameter a non-leaf the optimizer never updates.
/// let err = model.clone().try_to_device(&device).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::NoGradient);
/// let moved = model.try_fork(&device)?; // new leaves, trainable
/// # let _ = moved;
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub trait TryTrainingCalls: Module + sealed::Sealed {
    /// Fallible twin of [`Module::to_device`]: refuses a model whose drawn parameters are
    /// tracked on an autodiff device, which burn's `to_device` records as a move and leaves as
    /// non-leaves no optimizer updates (a flat loss curve, without a word). Lazy, frozen and
    /// plain parameters move as burn moves them.
    ///
    /// # Errors
    ///
    /// [`GuardError::NoGradient`](crate::GuardError::NoGradient) naming the parameters, with
    /// the remedy ([`Module::fork`]); a backend panic while moving, as
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic).
    #[doc(alias = "to_device")]
    fn try_to_device(self, device: &Device) -> Result<Self> {
        const OP: &str = "to_device";
        let tracked: Vec<String> = states(&self)
            .into_iter()
            .filter(|(_, state)| matches!(state, ParamState::Trainable | ParamState::NotLeaf))
            .map(|(path, _)| path)
            .collect();
        rules::moved_leaves(OP, tracked)?;
        catch(OP, || self.to_device(device))
    }

    /// Fallible twin of [`Module::fork`]: moves the model and makes its parameters new leaves.
    ///
    /// # Errors
    ///
    /// A backend panic while moving, as [`GuardError::BackendPanic`](crate::GuardError::BackendPanic).
    #[doc(alias = "fork")]
    fn try_fork(self, device: &Device) -> Result<Self> {
        catch("fork", || self.fork(device))
    }

    /// Fallible twin of [`Module::set_require_grad`]: `true` on a non-leaf parameter panics in
    /// burn (`Can't convert a non leaf tensor into a tracked tensor`).
    ///
    /// # Errors
    ///
    /// [`GuardError::NoGradient`](crate::GuardError::NoGradient) naming the non-leaves.
    #[doc(alias = "set_require_grad")]
    fn try_set_require_grad(self, require_grad: bool) -> Result<Self> {
        const OP: &str = "set_require_grad";
        if require_grad {
            rules::leaves_for_training(OP, not_leaves(&self))?;
        }
        catch(OP, || self.set_require_grad(require_grad))
    }

    /// Fallible twin of [`Module::unfreeze`]: as [`try_set_require_grad(true)`](Self::try_set_require_grad).
    ///
    /// # Errors
    ///
    /// [`GuardError::NoGradient`](crate::GuardError::NoGradient) naming the non-leaves.
    #[doc(alias = "unfreeze")]
    fn try_unfreeze(self) -> Result<Self> {
        const OP: &str = "unfreeze";
        rules::leaves_for_training(OP, not_leaves(&self))?;
        catch(OP, || self.unfreeze())
    }

    /// Fallible twin of [`Module::train`]: as [`try_set_require_grad(true)`](Self::try_set_require_grad).
    ///
    /// # Errors
    ///
    /// [`GuardError::NoGradient`](crate::GuardError::NoGradient) naming the non-leaves.
    #[doc(alias = "train")]
    fn try_train(self) -> Result<Self> {
        const OP: &str = "train";
        rules::leaves_for_training(OP, not_leaves(&self))?;
        catch(OP, || self.train())
    }

    /// Fallible twin of [`Module::apply_qlora`], taking QLoRA's two parts (burn's `QLora` keeps
    /// them private): every weight the quantizer selects is checked as
    /// [`try_quantize_weights`](crate::module::TryQuantizeWeights::try_quantize_weights) checks
    /// it (by running it on a copy, whose result is dropped), then burn's `apply_qlora` runs.
    /// burn's panics on the first weight the scheme cannot apply to.
    ///
    /// # Errors
    ///
    /// As [`try_quantize_weights`](crate::module::TryQuantizeWeights::try_quantize_weights).
    #[doc(alias = "apply_qlora")]
    fn try_apply_qlora(self, lora: Lora, mut quantizer: Quantizer) -> Result<Self> {
        const OP: &str = "apply_qlora";
        drop(self.try_quantize_weights(&mut quantizer)?);
        catch(OP, || self.apply_qlora(QLora::new(lora, quantizer)))
    }
}

impl<M: Module> TryTrainingCalls for M {}

fn not_leaves<M: Module>(module: &M) -> Vec<String> {
    states(module)
        .into_iter()
        .filter(|(_, state)| *state == ParamState::NotLeaf)
        .map(|(path, _)| path)
        .collect()
}
