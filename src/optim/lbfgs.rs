//! The twin of `LBFGS::step`, which flattens every float parameter but only the gradients
//! that exist: a model with a frozen (or unused) part panics on a shape mismatch.

use burn::module::Module;
use burn::optim::{GradientsParams, LBFGS};

use super::step::states;
use crate::check::optim::{ParamState, lbfgs_parameters};
use crate::error::Result;
use crate::panic::catch;

mod sealed {
    pub trait Sealed {}
    impl Sealed for burn::optim::LBFGS {}
}

/// Fallible twin of `LBFGS::step`. Sealed.
///
/// ```
/// use burn::module::Module;
/// use burn::nn::{Linear, LinearConfig};
/// use burn::optim::{GradientsParams, LBFGSConfig};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::optim::TryLbfgs;
///
/// let device = Device::flex().autodiff();
/// let model: Linear = LinearConfig::new(2, 1).init(&device);
/// let x = Tensor::<2>::ones([4, 2], &device);
/// let closure = |m: Linear| {
///     let loss = m.forward(x.clone()).powi_scalar(2).mean();
///     let value = loss.clone().into_scalar::<f64>();
///     (value, GradientsParams::from_grads(loss.backward(), &m))
/// };
/// let mut optimizer = LBFGSConfig::new().init();
/// let (model, _loss) = optimizer.try_step(0.1, model, closure)?;
/// // A frozen part: burn's L-BFGS panics on the flattened shapes.
/// let frozen = model.no_grad();
/// assert!(optimizer.try_step(0.1, frozen, closure).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub trait TryLbfgs: sealed::Sealed {
    /// Fallible twin of `LBFGS::step`: every float parameter of `module` must be trainable
    /// (L-BFGS steps the whole model as one vector).
    ///
    /// # Errors
    ///
    /// [`GuardError::NoGradient`](crate::GuardError::NoGradient) naming the parameters that are
    /// not; a panic inside (the closure's), as
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic).
    #[doc(alias = "step")]
    fn try_step<M, F>(&mut self, lr: f64, module: M, closure: F) -> Result<(M, f64)>
    where
        M: Module + Clone,
        F: FnMut(M) -> (f64, GradientsParams);
}

impl TryLbfgs for LBFGS {
    fn try_step<M, F>(&mut self, lr: f64, module: M, closure: F) -> Result<(M, f64)>
    where
        M: Module + Clone,
        F: FnMut(M) -> (f64, GradientsParams),
    {
        const OP: &str = "LBFGS::step";
        let untrainable: Vec<String> = states(&module)
            .into_iter()
            // A lazy parameter is drawn by the closure's forward, before L-BFGS flattens.
            .filter(|(_, state)| !matches!(state, ParamState::Trainable | ParamState::Unused))
            .map(|(path, _)| path)
            .collect();
        lbfgs_parameters(OP, untrainable)?;
        catch(OP, move || self.step(lr, module, closure))
    }
}
