//! Guide: training that cannot silently go wrong — an optimizer step that refuses to do
//! nothing and never writes NaN into a model.
//!
//! # What it is for
//!
//! Two training failures make no noise in burn. burn-optim's `GradientsParams::from_grads`
//! skips every parameter that is not a tracked leaf or has no gradient, and
//! `ModuleOptimizer::step` returns those parameters unchanged without a word: a model built on
//! a plain device, a `to_device` after the weights were drawn (every parameter becomes a
//! non-leaf), gradients read through a `fork` or already taken, a frozen model. The loss curve
//! is flat and nothing says why. And no optimizer looks at values: one NaN batch writes NaN
//! into every weight and every Adam moment it reaches, for good.
//!
//! - [`optimizer.try_step(lr, model, grads)?`](crate::optim::TryStep::try_step) (in the
//!   prelude) is burn's step, checked: the same arguments, the model consumed as burn's is.
//! - [`GuardedOptimizer`](crate::optim::GuardedOptimizer) steps the model in place and
//!   decides what a step with non-finite gradients does
//!   ([`OnNonFinite`](crate::optim::OnNonFinite)): refuse (the default), or skip it and count
//!   it, GradScaler-style, up to `max_consecutive` skips in a row. It returns a
//!   [`StepOutcome`](crate::optim::StepOutcome) (applied, or skipped with the reason on one
//!   line) and keeps [`StepStats`](crate::optim::StepStats): steps, applied, skipped, skips in
//!   a row, device reads, and the parameters whose gradient is zero everywhere (a dead ReLU
//!   layer, a branch cut from the loss, an F16 gradient that underflowed), found from the
//!   same sums (a gradient summing to exactly 0 is read once more to confirm it);
//!   [`OnZeroGradient`](crate::optim::OnZeroGradient) reports them (the default),
//!   refuses the step or skips it (`tests/training.rs`,
//!   `zero_gradients_are_named_and_reported_refused_or_skipped`).
//!   [`with_loss_scale`](crate::optim::GuardedOptimizer::with_loss_scale) adds a dynamic
//!   [`LossScale`](crate::optim::LossScale) for half precision (skip and back off on overflow,
//!   grow after a run of finite steps);
//!   [`GuardedOptimizer::muon`](crate::optim::GuardedOptimizer::muon) routes what Muon cannot
//!   step (biases, norms, convolutions) to another optimizer.
//! - [`TryTrainingCalls`](crate::optim::TryTrainingCalls) (in the prelude): `try_to_device`,
//!   `try_fork`, `try_set_require_grad`, `try_unfreeze`, `try_train` refuse what would make a
//!   model untrainable or panic.
//!
//! Use `try_step` where a loop already owns its model by value; use `GuardedOptimizer` for a
//! long run that must survive a bad batch and say how many it skipped.
//!
//! # What a step checks
//!
//! Before any parameter or optimizer state changes:
//!
//! 1. Every parameter is classified from its metadata, with no device work: trainable leaf,
//!    non-leaf, on a plain device, frozen, never drawn. Each trainable one must have a
//!    gradient of its rank and shape. The refusal names the parameters without one, the
//!    likely cause and the fix (`Module::fork` instead of `to_device`; another copy of the
//!    model; gradients already taken);
//!    [`allow_missing_gradients`](crate::optim::GuardedOptimizer::allow_missing_gradients)
//!    makes a deliberate partial step.
//! 2. The learning rate is finite and not negative; a clipping threshold finite and positive.
//! 3. Every gradient is finite: each is reduced to one value on its device, the values are
//!    added there and read once, so a step costs one device read per device. A step found not
//!    finite reads each gradient once more to name the parameters and count their values.
//!
//! # Example
//!
//! On Flex with autodiff: the `to_device` mistake refused, a NaN batch skipped, and batch
//! norm's running statistics read after a training forward.
//!
//! ```
//! use burn::module::Module;
//! use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig};
//! use burn::optim::{AdamConfig, GradientsParams, SgdConfig};
//! use burn::tensor::{Device, Tensor};
//! use burn_guard::optim::{GuardedOptimizer, OnNonFinite, StepOutcome};
//! use burn_guard::prelude::*;
//!
//! #[derive(Module, Debug)]
//! struct Mlp {
//!     hidden: Linear,
//!     head: Linear,
//! }
//!
//! impl Mlp {
//!     fn new(device: &Device) -> Self {
//!         Self {
//!             hidden: LinearConfig::new(4, 8).init(device),
//!             head: LinearConfig::new(8, 1).init(device),
//!         }
//!     }
//!
//!     fn forward(&self, x: Tensor<2>) -> Tensor<2> {
//!         self.head.forward(self.hidden.forward(x).tanh())
//!     }
//! }
//!
//! fn grads(model: &Mlp, x: Tensor<2>) -> GradientsParams {
//!     let loss = model.forward(x).powf_scalar(2.0).mean();
//!     GradientsParams::from_grads(loss.backward(), model)
//! }
//!
//! let device = Device::flex().autodiff();
//! let batch = Tensor::<2>::ones([8, 4], &device);
//!
//! // 1. A model moved with `to_device` after its weights were drawn: burn's step would update
//! //    nothing. The checked step refuses, naming the parameters and the fix.
//! let model = Mlp::new(&device);
//! let _ = model.forward(batch.clone()); // draws the weights, as loading a checkpoint does
//! let moved = model.clone().to_device(&device);
//! let mut sgd = SgdConfig::new().init();
//! let err = sgd.try_step(0.1, moved.clone(), grads(&moved, batch.clone())).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::NoGradient);
//! assert!(err.to_string().contains("Module::fork"));
//! let _trained = sgd.try_step(0.1, model.clone(), grads(&model, batch.clone()))?;
//!
//! // 2. A NaN batch: skipped and counted, the weights and Adam's moments untouched.
//! let mut model = Mlp::new(&device);
//! let mut optimizer = GuardedOptimizer::new(AdamConfig::new().init())
//!     .on_non_finite(OnNonFinite::Skip { max_consecutive: Some(3) });
//! let clean = grads(&model, batch.clone());
//! assert_eq!(optimizer.step(1e-2, &mut model, clean)?, StepOutcome::Applied);
//! let weights = model.hidden.weight.val().into_data();
//! let nan_row = Tensor::<2>::full([1, 4], f32::NAN, &device);
//! let poisoned = grads(&model, batch.clone().slice_assign([0..1, 0..4], nan_row));
//! let StepOutcome::Skipped { reason } = optimizer.step(1e-2, &mut model, poisoned)? else {
//!     unreachable!()
//! };
//! // step: gradients must be finite; got NaN or ±inf in 4 parameters: hidden.weight 32 of 32,
//! // hidden.bias 8 of 8, head.weight 8 of 8, head.bias 1 of 1
//! println!("{reason}");
//! assert_eq!(model.hidden.weight.val().into_data(), weights);
//! let stats = optimizer.stats();
//! assert_eq!((stats.steps, stats.applied, stats.skipped), (2, 1, 1));
//! println!("{stats}"); // 2 steps: 1 applied, 1 skipped (1 in a row), 6 device reads
//!
//! // 3. Batch norm's running statistics after a training forward: `value()` is the value from
//! //    before that forward; `value_sync()` folds the forward's batch statistics in.
//! let norm: BatchNorm = BatchNormConfig::new(4).init(&device);
//! let x = Tensor::<2>::from_floats([[1.0, 2.0, 3.0, 4.0], [3.0, 4.0, 5.0, 6.0]], &device);
//! let _ = norm.forward(x);
//! let stale = norm.running_mean.value().into_data().try_to_vec::<f32>().unwrap();
//! let synced = norm.running_mean.value_sync().into_data().try_to_vec::<f32>().unwrap();
//! assert_eq!(stale, [0.0; 4]);
//! assert_eq!(synced, [0.2, 0.3, 0.4, 0.5]); // momentum 0.1 of the batch means [2, 3, 4, 5]
//! # Ok::<(), burn_guard::GuardError>(())
//! ```
//!
//! **Reading batch norm's running statistics.** A training forward of burn's `BatchNorm`
//! records this thread's batch statistics beside the running value and folds them in only when
//! the value is next synced: `running_mean.value()` returns the value from before the last
//! training forward, `running_mean.value_sync()` the updated one, which is what PyTorch's
//! `bn.running_mean` holds after the same forward. Compare against PyTorch with
//! `value_sync()`, or after `model.valid()`, which syncs.
//!
//! # Errors
//!
//! - [`GuardError::NoGradient`](crate::GuardError::NoGradient): a parameter the step would not
//!   update: a non-leaf, a model with nothing to train, a trainable parameter without a
//!   gradient. It names the rule with the likely cause and the remedy, and every parameter.
//! - [`GuardError::NonFiniteGradients`](crate::GuardError::NonFiniteGradients): each parameter
//!   whose gradient holds NaN or ±inf, as a [`NonFiniteParam`](crate::error::NonFiniteParam):
//!   its path, how many of its values are not finite, split into NaN, `+inf` and `-inf` (a
//!   gradient whose sum is not finite is read whole, so the split costs no read), its dtype
//!   and its shape. Under `OnNonFinite::Skip` it is the skipped step's `reason` instead, until
//!   `max_consecutive` skips in a row: a run that only skips has diverged, and the next is
//!   refused.
//! - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) /
//!   [`GuardError::RankMismatch`](crate::GuardError::RankMismatch): a gradient that does not
//!   fit its parameter; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange): a learning
//!   rate that is negative or not finite, a clipping threshold that is not finite and positive.
//!
//! On `Err` the model and the optimizer's state are as they were.
//!
//! # What it costs
//!
//! | what | figure | measured by |
//! |---|---|---|
//! | guarded step beside burn's, transformer encoder (d_model 64, 2 layers), Flex, dev profile | 1.012×, 1.008× (two runs) | `benches/training.rs` |
//! | the same, MLP 64→256→10, batch 64, release profile | 1.049×, 1.048× (the last two of six runs; about 15 µs a step whatever its length) | `benches/training.rs` |
//! | the MLP in instructions, release | 1.025× | `benches/training_instructions.rs` |
//! | device reads per step | 1 per device | `benches/training.rs` |
//! | the digits MLP through a NaN batch at step 100 | raw burn ends at 11.1 %, the guarded run skips that step and ends at the clean run's 86.4 % | `examples/training.rs` (run by `tests/training.rs`) |
//!
//! A model whose step is short pays most: the guard's cost is one reduction per gradient, one
//! `cat` and one read per device, and a walk of the model's metadata.
//!
//! # What it does not catch
//!
//! - **A NaN forward before the step.** A training forward of `BatchNorm` folds the batch's
//!   statistics into its running statistics whatever the step then does: a NaN batch the step
//!   skips still reaches `running_mean`. Check a batch before the forward
//!   ([`InputSpec::finite`](crate::input::InputSpec::finite)); inside
//!   [`detect_anomaly`](crate::verify::detect_anomaly) the layer twins name the first layer
//!   whose output is not finite, after that layer ran.
//! - **Finite but useless gradients**: a learning rate too small to matter, exploding but
//!   finite updates, a loss that does not depend on the weights you meant.
//! - **burn's own step.** A raw `ModuleOptimizer::step` elsewhere in your code is not guarded:
//!   `lint/clippy.toml` lists it.
