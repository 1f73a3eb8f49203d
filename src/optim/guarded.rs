//! An optimizer for a training loop that must not go silently wrong: every step checked, a
//! step whose gradients are not finite refused or skipped and counted, and the parameters
//! whose gradient is zero everywhere reported (or the step refused or skipped).

use std::fmt;

use burn::module::{Module, ModuleVisitor, Param, ParamGroup, ParamId};
use burn::optim::grad_clipping::GradientClipping;
use burn::optim::lr_scheduler::module_lr_scheduler::ModuleLearningRate;
use burn::optim::{GradientsParams, ModuleOptimizer, MuonConfig};
use burn::tensor::Tensor;
use serde::Serialize;

use super::step::{census, finite, learning_rates};
use crate::error::{ErrorKind, GuardError, Result};
use crate::panic::catch;

/// What a step does when a gradient holds NaN or ±inf.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OnNonFinite {
    /// `Err(NonFiniteGradients)`, the model and the optimizer unchanged. The default.
    #[default]
    Refuse,
    /// The step is not applied (burn's `step` is not called: the optimizer's moments and
    /// counters do not advance, as if the batch had not been seen), and it is counted. After
    /// `max_consecutive` skips in a row the next is refused: a run that only skips has diverged.
    Skip {
        /// Skips in a row allowed before the step is refused; `None` for no limit.
        max_consecutive: Option<u32>,
    },
}

/// What a step does when a trainable parameter's gradient is zero everywhere: the step would
/// train nothing there (a ReLU layer whose inputs are all negative, a branch cut from the loss,
/// a half-precision gradient that underflowed, a loaded model whose backward gives zeros on
/// some backend). Found from the same fused check's sums as non-finite gradients (a gradient
/// whose sum is exactly 0 is read once more, to tell zeros from values that cancel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnZeroGradient {
    /// The step is applied; the parameters are listed in [`StepStats::zero_gradients`] and
    /// counted in [`StepStats::zero_gradient_steps`]. The default.
    #[default]
    Report,
    /// `Err(NoGradient)` naming the parameters, the model and the optimizer unchanged.
    Refuse,
    /// The step is not applied, and it is counted as skipped.
    Skip,
}

/// A dynamic loss scale for half-precision training, with PyTorch's `GradScaler` rules: the
/// loss is multiplied by the scale before `backward` ([`GuardedOptimizer::scale_loss`]); a step
/// whose scaled gradients are not finite is skipped and the scale multiplied by `backoff`; a
/// step that is finite divides the gradients by the scale, steps, and after `interval` such
/// steps in a row multiplies the scale by `growth`. The scale never goes below 1, so that
/// dividing by it cannot overflow and checking the scaled gradients is checking the real ones.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LossScale {
    scale: f64,
    growth: f64,
    backoff: f64,
    interval: u32,
    good_steps: u32,
}

impl LossScale {
    /// Starts at `initial` (PyTorch's default is 2¹⁶ = 65536; a power of two keeps scaling
    /// exact), growth 2, backoff 0.5, interval 2000. An `initial` below 1 or not finite is
    /// taken as 1.
    pub fn new(initial: f64) -> Self {
        Self {
            scale: if initial.is_finite() {
                initial.max(1.0)
            } else {
                1.0
            },
            growth: 2.0,
            backoff: 0.5,
            interval: 2000,
            good_steps: 0,
        }
    }

    /// Finite steps in a row before the scale grows.
    #[must_use]
    pub fn with_growth_interval(mut self, interval: u32) -> Self {
        self.interval = interval.max(1);
        self
    }

    /// The scale now.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    fn backed_off(&mut self) {
        self.scale = (self.scale * self.backoff).max(1.0);
        self.good_steps = 0;
    }

    fn stepped(&mut self) {
        self.good_steps += 1;
        if self.good_steps >= self.interval {
            let grown = self.scale * self.growth;
            if grown.is_finite() {
                self.scale = grown;
            }
            self.good_steps = 0;
        }
    }
}

/// What one guarded step did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StepOutcome {
    /// burn's step ran: every parameter with a gradient was updated.
    Applied,
    /// The step was skipped: the refusal it would have been, on one line.
    Skipped {
        /// The refusal, on one line (`step: gradients must be finite; got ...`).
        reason: String,
    },
}

/// Counts over a guarded optimizer's life.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StepStats {
    /// Steps asked for.
    pub steps: u64,
    /// Steps applied.
    pub applied: u64,
    /// Steps skipped for non-finite gradients.
    pub skipped: u64,
    /// Skips since the last applied step.
    pub consecutive_skipped: u32,
    /// Device reads the finite checks made (one per device per step; one more per gradient
    /// found not finite).
    pub device_reads: u64,
    /// Steps that found a trainable parameter whose gradient is zero everywhere.
    pub zero_gradient_steps: u64,
    /// The module paths of the parameters whose gradient was zero everywhere at the last
    /// checked step (empty when none was).
    pub zero_gradients: Vec<String>,
}

impl fmt::Display for StepStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} steps: {} applied, {} skipped ({} in a row), {} device reads",
            self.steps, self.applied, self.skipped, self.consecutive_skipped, self.device_reads
        )?;
        if self.zero_gradient_steps > 0 {
            write!(
                f,
                ", {} with zero gradients (last: {})",
                self.zero_gradient_steps,
                if self.zero_gradients.is_empty() {
                    "none".to_owned()
                } else {
                    self.zero_gradients.join(", ")
                }
            )?;
        }
        Ok(())
    }
}

/// burn-optim's [`ModuleOptimizer`] behind a checked step: before any parameter or state
/// changes, every trainable parameter must have a gradient (or the step names those without
/// one and the likely cause: a non-leaf after `to_device`, another copy of the model,
/// gradients already taken), and every gradient must be finite (one fused device read per
/// step and device). A step with non-finite gradients is refused, or skipped and counted.
///
/// ```
/// use burn::module::Module;
/// use burn::nn::{Linear, LinearConfig};
/// use burn::optim::{AdamConfig, GradientsParams};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::optim::{GuardedOptimizer, OnNonFinite, StepOutcome};
///
/// let device = Device::flex().autodiff();
/// let mut model: Linear = LinearConfig::new(3, 1).init(&device);
/// let mut optimizer = GuardedOptimizer::new(AdamConfig::new().init())
///     .on_non_finite(OnNonFinite::Skip { max_consecutive: Some(3) });
///
/// let x = Tensor::<2>::from_floats([[1.0, f32::NAN, 0.0]], &device); // a poisoned batch
/// let loss = model.forward(x).sum();
/// let grads = GradientsParams::from_grads(loss.backward(), &model);
/// let outcome = optimizer.step(1e-3, &mut model, grads)?;
/// assert!(matches!(outcome, StepOutcome::Skipped { .. }));
/// assert_eq!(optimizer.stats().skipped, 1);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub struct GuardedOptimizer {
    inner: ModuleOptimizer,
    on_non_finite: OnNonFinite,
    on_zero_gradient: OnZeroGradient,
    allow_missing: bool,
    loss_scale: Option<LossScale>,
    stats: StepStats,
}

impl GuardedOptimizer {
    /// Guards `optimizer` (an optimizer config's `init()`, or any `Optimizer` via `into()`).
    /// Refuses non-finite gradients until told otherwise.
    pub fn new(optimizer: impl Into<ModuleOptimizer>) -> Self {
        Self {
            inner: optimizer.into(),
            on_non_finite: OnNonFinite::Refuse,
            on_zero_gradient: OnZeroGradient::Report,
            allow_missing: false,
            loss_scale: None,
            stats: StepStats::default(),
        }
    }

    /// Muon for the model's 2-D parameters and `others` (an `AdamWConfig::init()`, say: the
    /// pairing Muon's authors use) for the rest, through burn's own
    /// `ModuleOptimizer::with_group`. burn's `MuonConfig::init()` alone panics at the first step
    /// of any model with a bias, a norm or a conv (`Newton-Schulz iteration requires 2D
    /// tensors`).
    ///
    /// ```
    /// use burn::nn::{Linear, LinearConfig};
    /// use burn::optim::{AdamWConfig, GradientsParams, MuonConfig};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::optim::{GuardedOptimizer, StepOutcome};
    ///
    /// let device = Device::flex().autodiff();
    /// let mut model: Linear = LinearConfig::new(3, 2).init(&device); // weight and bias
    /// let mut optimizer =
    ///     GuardedOptimizer::muon(&MuonConfig::new(), AdamWConfig::new().init(), &model);
    /// let loss = model.forward(Tensor::<2>::ones([4, 3], &device)).sum();
    /// let grads = GradientsParams::from_grads(loss.backward(), &model);
    /// assert_eq!(optimizer.step(0.02, &mut model, grads)?, StepOutcome::Applied);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn muon<M: Module>(muon: &MuonConfig, others: ModuleOptimizer, model: &M) -> Self {
        struct Matrices(Vec<ParamId>);
        impl ModuleVisitor for Matrices {
            fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
                if D == 2 {
                    self.0.push(param.id);
                }
            }
        }
        let mut matrices = Matrices(Vec::new());
        model.visit(&mut matrices);
        let routed = others.with_group(ParamGroup::from_ids(matrices.0), muon.build(), None);
        Self::new(routed)
    }

    setters! {
        /// What a step does with non-finite gradients.
        pub fn on_non_finite(policy: OnNonFinite) => on_non_finite;
        /// What a step does when a trainable parameter's gradient is zero everywhere
        /// ([`OnZeroGradient::Report`] by default).
        pub fn on_zero_gradient(policy: OnZeroGradient) => on_zero_gradient;

        /// A deliberate partial step: trainable parameters without a gradient are left as they are
        /// rather than refused (non-leaves and a model with nothing to train still are).
        pub fn allow_missing_gradients(allow: bool) => allow_missing;
    }

    /// Trains with a dynamic loss scale: scale the loss with
    /// [`scale_loss`](Self::scale_loss) before `backward`. A step with non-finite scaled
    /// gradients is then always skipped (and counted), whatever [`OnNonFinite`] says, since
    /// backing off is how the scale finds its level.
    #[must_use]
    pub fn with_loss_scale(mut self, scale: LossScale) -> Self {
        self.loss_scale = Some(scale);
        self
    }

    /// The loss times the scale (the loss itself without a loss scale).
    pub fn scale_loss<const D: usize>(&self, loss: Tensor<D>) -> Tensor<D> {
        match self.loss_scale {
            Some(scale) => loss.mul_scalar(scale.scale()),
            None => loss,
        }
    }

    /// The loss scale now, when training with one.
    pub fn loss_scale(&self) -> Option<f64> {
        self.loss_scale.map(|s| s.scale())
    }

    /// The counts so far.
    pub fn stats(&self) -> StepStats {
        self.stats.clone()
    }

    /// burn's optimizer, for what this type does not wrap (its record, its groups).
    pub fn inner(&self) -> &ModuleOptimizer {
        &self.inner
    }

    /// burn's optimizer back.
    pub fn into_inner(self) -> ModuleOptimizer {
        self.inner
    }

    /// Checks, then runs burn's [`ModuleOptimizer::step`] on `model` in place.
    ///
    /// # Errors
    ///
    /// As [`TryStep::try_step`](super::TryStep::try_step); non-finite gradients only under
    /// [`OnNonFinite::Refuse`], or past `max_consecutive` skips. On `Err` the model and the
    /// optimizer's state are as they were.
    pub fn step<M: Module>(
        &mut self,
        lr: impl Into<ModuleLearningRate>,
        model: &mut M,
        grads: GradientsParams,
    ) -> Result<StepOutcome> {
        const OP: &str = "step";
        self.stats.steps += 1;
        if let Some(GradientClipping::Value(threshold) | GradientClipping::Norm(threshold)) =
            self.inner.grad_clipping()
        {
            crate::check::optim::clipping_threshold(OP, *threshold)?;
        }
        let lr = lr.into();
        let census = census(OP, model, &grads, self.allow_missing)?;
        learning_rates(OP, &lr, &census)?;
        let devices = census.devices();
        let gradients = census.gradients();
        match finite(OP, census) {
            Ok(checked) => {
                self.stats.device_reads += u64::from(checked.reads);
                if !checked.zero.is_empty() {
                    self.stats.zero_gradient_steps += 1;
                }
                self.stats.zero_gradients.clone_from(&checked.zero);
                if !checked.zero.is_empty() && self.on_zero_gradient != OnZeroGradient::Report {
                    let err = crate::check::optim::nonzero_gradients(OP, checked.zero);
                    if self.on_zero_gradient == OnZeroGradient::Refuse {
                        return Err(err);
                    }
                    self.stats.skipped += 1;
                    self.stats.consecutive_skipped += 1;
                    return Ok(StepOutcome::Skipped {
                        reason: err.to_string(),
                    });
                }
            }
            Err(err) if err.kind() == ErrorKind::NonFiniteGradients => {
                // Reads made before the refusal: one per device, then one per gradient of the
                // devices whose total was not finite.
                self.stats.device_reads += (devices + gradients) as u64;
                if let Some(scale) = &mut self.loss_scale {
                    scale.backed_off();
                    self.stats.skipped += 1;
                    self.stats.consecutive_skipped += 1;
                    return Ok(StepOutcome::Skipped {
                        reason: err.to_string(),
                    });
                }
                return self.skip_or_refuse(err);
            }
            Err(err) => return Err(err),
        }
        let grads = match self.loss_scale {
            Some(scale) => unscaled(OP, model, grads, scale.scale())?,
            None => grads,
        };
        let staged = model.clone();
        let inner = &mut self.inner;
        *model = catch(OP, move || inner.step(lr, staged, grads))?;
        if let Some(scale) = &mut self.loss_scale {
            scale.stepped();
        }
        self.stats.applied += 1;
        self.stats.consecutive_skipped = 0;
        Ok(StepOutcome::Applied)
    }

    fn skip_or_refuse(&mut self, err: GuardError) -> Result<StepOutcome> {
        match self.on_non_finite {
            OnNonFinite::Refuse => Err(err),
            OnNonFinite::Skip { max_consecutive } => {
                if max_consecutive.is_some_and(|max| self.stats.consecutive_skipped >= max) {
                    return Err(err);
                }
                self.stats.skipped += 1;
                self.stats.consecutive_skipped += 1;
                Ok(StepOutcome::Skipped {
                    reason: err.to_string(),
                })
            }
        }
    }
}

/// The gradients divided by `scale`, each in its own dtype (a power-of-two scale divides
/// exactly).
fn unscaled<M: Module>(
    op: &'static str,
    model: &M,
    grads: GradientsParams,
    scale: f64,
) -> Result<GradientsParams> {
    struct Unscale {
        grads: GradientsParams,
        factor: f64,
    }
    impl ModuleVisitor for Unscale {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            if let Some(grad) = self.grads.remove::<D>(param.id) {
                self.grads.register(param.id, grad.mul_scalar(self.factor));
            }
        }
    }
    let mut unscale = Unscale {
        grads,
        factor: 1.0 / scale,
    };
    // The census has checked every gradient's rank against its parameter: `remove` cannot
    // fail its downcast here.
    catch(op, move || {
        model.visit(&mut unscale);
        unscale.grads
    })
}
