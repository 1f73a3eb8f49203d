//! Guarded training: an optimizer step that cannot silently do nothing, and never writes NaN.
//!
//! burn-optim's `GradientsParams::from_grads` skips, without a word, every parameter that is not
//! a tracked leaf or has no gradient, and `ModuleOptimizer::step` returns those parameters
//! unchanged: a model built on a plain device, a `to_device` after the weights were drawn (the
//! parameters become non-leaves), a `fork`ed copy, gradients already taken: the loss curve is
//! flat and nothing says why. And no optimizer looks at values: one NaN batch writes NaN into
//! every parameter and every moment it reaches.
//!
//! - [`TryStep`] (in the prelude): `optimizer.try_step(lr, model, grads)?`, the twin of
//!   [`ModuleOptimizer::step`](burn::optim::ModuleOptimizer::step).
//! - [`GuardedOptimizer`]: the same in place, with a policy for non-finite gradients (refuse,
//!   or skip and count, GradScaler-style), a dynamic [`LossScale`] for half precision, and
//!   [`StepStats`]; [`GuardedOptimizer::muon`] routes
//!   what Muon cannot step to another optimizer.
//! - [`TryTrainingCalls`] (in the prelude): `try_to_device` (which refuses to make a trained
//!   model's parameters non-leaves), `try_fork`, `try_set_require_grad`, `try_unfreeze`,
//!   `try_train`.
//! - [`TryGradientClippingConfig`]: a clipping threshold that is finite and positive.
//! - [`TryGradientsParams`]: reading a gradient at the wrong rank is an `Err`, not a panic.
//! - [`TryLbfgs`]: L-BFGS refuses a model with a part it cannot step.
//! - [`TryAdafactorConfig`]: Adafactor's settings checked before `init`.
//! - [`TryGradientsAccumulator`]: gradients accumulated only when they are the model's.
//! - [`TryParam`]: `Param::try_from_tensor` (weight tying from a non-leaf is an `Err`) and
//!   `Param::try_from_data` (the rank checked).
//! - [`TryOptimizerRecord`]: an optimizer's saved state checked against the model it will step.
//!
//! **Reading batch norm's running statistics after a step.** A training forward of burn's
//! `BatchNorm` records this thread's batch statistics beside the running value, and folds them
//! in only when the value is next synced: `bn.running_mean.value()` returns the value from
//! *before* the last training forward, `bn.running_mean.value_sync()` the updated one (what
//! PyTorch's `bn.running_mean` holds after the same forward). Compare against PyTorch with
//! `value_sync()`, or after `model.valid()`, which syncs.
//!
//! Every check runs before any parameter or optimizer state changes. The structural ones read
//! nothing from a device (is each parameter a tracked leaf, drawn, on an autodiff device; does
//! the gradient container hold one of its rank and shape); the finite check reduces each
//! gradient to one value on its device and reads them all in one transaction per device.

mod accumulate;
mod adafactor;
mod clipping;
mod grads;
mod guarded;
mod lbfgs;
mod module_calls;
mod params;
mod record;
mod step;

pub use accumulate::TryGradientsAccumulator;
pub use adafactor::TryAdafactorConfig;
pub use clipping::TryGradientClippingConfig;
pub use grads::TryGradientsParams;
pub use guarded::{
    GuardedOptimizer, LossScale, OnNonFinite, OnZeroGradient, StepOutcome, StepStats,
};
pub use lbfgs::TryLbfgs;
pub use module_calls::TryTrainingCalls;
pub use params::TryParam;
pub use record::TryOptimizerRecord;
pub use step::TryStep;
