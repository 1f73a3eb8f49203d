//! The twin of `GradientsAccumulator::accumulate`, which downcasts each gradient to its
//! parameter's rank and adds it to the last: a gradient of another rank or shape panics.

use burn::module::Module;
use burn::optim::{GradientsAccumulator, GradientsParams};

use super::step::census;
use crate::error::Result;
use crate::panic::catch;

mod sealed {
    pub trait Sealed {}
    impl<M> Sealed for burn::optim::GradientsAccumulator<M> {}
}

/// Fallible twin of `GradientsAccumulator::accumulate`. Sealed.
///
/// ```
/// use burn::module::Module;
/// use burn::nn::{Linear, LinearConfig};
/// use burn::optim::{GradientsAccumulator, GradientsParams};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::optim::TryGradientsAccumulator;
///
/// let device = Device::flex().autodiff();
/// let model: Linear = LinearConfig::new(3, 2).init(&device);
/// let mut accumulator = GradientsAccumulator::new();
/// for _ in 0..2 {
///     let loss = model.forward(Tensor::<2>::ones([4, 3], &device)).sum();
///     let grads = GradientsParams::from_grads(loss.backward(), &model);
///     accumulator.try_accumulate(&model, grads)?;
/// }
/// // Another model's gradients are refused.
/// let other: Linear = LinearConfig::new(3, 2).init(&device);
/// let loss = other.forward(Tensor::<2>::ones([4, 3], &device)).sum();
/// let grads = GradientsParams::from_grads(loss.backward(), &other);
/// assert!(accumulator.try_accumulate(&model, grads).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub trait TryGradientsAccumulator<M>: sealed::Sealed {
    /// Adds `grads` to the accumulated gradients, after checking each against its parameter
    /// of `module` (rank and shape) and that every gradient is one of `module`'s.
    ///
    /// # Errors
    ///
    /// As [`TryStep::try_step`](super::TryStep::try_step)'s structural checks, with missing
    /// gradients allowed (an accumulation may cover part of the model).
    #[doc(alias = "accumulate")]
    fn try_accumulate(&mut self, module: &M, grads: GradientsParams) -> Result<()>;
}

impl<M: Module> TryGradientsAccumulator<M> for GradientsAccumulator<M> {
    fn try_accumulate(&mut self, module: &M, grads: GradientsParams) -> Result<()> {
        const OP: &str = "GradientsAccumulator::accumulate";
        census(OP, module, &grads, true)?;
        catch(OP, || self.accumulate(module, grads))
    }
}
