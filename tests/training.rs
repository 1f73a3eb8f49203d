//! Guarded optimizer steps against burn-optim's own `ModuleOptimizer::step`, on real backends:
//! where burn's step silently does nothing (a model on a plain device, non-leaves after
//! `to_device`, gradients of another copy, gradients already taken, a frozen model) or writes
//! NaN into the weights, the twin returns `Err` (or skips and counts) and the model is as it
//! was; where burn's step is right, the twin's values are burn's.

// NdArray is deprecated upstream and still supported.
#![allow(deprecated)]

mod common;

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::optim::{AdamConfig, GradientsParams, SgdConfig};
use burn::tensor::{DType, Device, FloatDType, Tensor, TensorData};
use burn_guard::GuardError;
use burn_guard::error::{NonFiniteParam, NonFiniteSplit};
use burn_guard::optim::{GuardedOptimizer, OnNonFinite, StepOutcome};
use burn_guard::prelude::*;

#[derive(Module, Debug)]
struct Mlp {
    fc1: Linear,
    fc2: Linear,
}

impl Mlp {
    fn new(device: &Device) -> Self {
        Self {
            fc1: LinearConfig::new(3, 4).init(device),
            fc2: LinearConfig::new(4, 2).init(device),
        }
    }

    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.fc2
            .forward(burn::tensor::activation::relu(self.fc1.forward(x)))
    }

    fn bits(&self) -> Vec<u32> {
        [self.fc1.weight.val(), self.fc2.weight.val()]
            .into_iter()
            .flat_map(|w| {
                w.into_data()
                    .convert::<f32>()
                    .try_to_vec::<f32>()
                    .unwrap()
                    .into_iter()
                    .map(f32::to_bits)
            })
            .collect()
    }
}

fn batch(device: &Device, poison: bool) -> Tensor<2> {
    let mut values: Vec<f32> = (0..12).map(|i| i as f32 / 8.0 - 0.5).collect();
    if poison {
        values[4] = f32::NAN;
    }
    Tensor::from_data(TensorData::new(values, [4, 3]), device)
}

fn grads_of(model: &Mlp, x: Tensor<2>) -> GradientsParams {
    let loss = model.forward(x).powi_scalar(2).mean();
    GradientsParams::from_grads(loss.backward(), model)
}

fn autodiff_devices() -> [Device; 2] {
    [Device::flex().autodiff(), Device::ndarray().autodiff()]
}

/// A clean step: the twin's parameters are burn's, bit for bit, with SGD and with Adam (whose
/// state the twin's checks must not disturb), over three steps.
#[test]
fn a_clean_step_equals_burns_step() {
    for device in autodiff_devices() {
        device.seed(7);
        let start = Mlp::new(&device);
        let mut burn_model = start.clone();
        let mut ours = start.clone();
        let mut burn_optim = AdamConfig::new().init();
        let mut our_optim = AdamConfig::new().init();
        for _ in 0..3 {
            let grads = grads_of(&burn_model, batch(&device, false));
            burn_model = burn_optim.step(1e-2, burn_model, grads);
            let grads = grads_of(&ours, batch(&device, false));
            ours = our_optim.try_step(1e-2, ours, grads).unwrap();
        }
        assert_eq!(ours.bits(), burn_model.bits());
        assert_ne!(ours.bits(), start.bits());

        let mut guarded = GuardedOptimizer::new(SgdConfig::new().init());
        let mut burn_sgd = SgdConfig::new().init();
        let mut model = start.clone();
        let grads = grads_of(&model, batch(&device, false));
        assert_eq!(
            guarded.step(0.1, &mut model, grads).unwrap(),
            StepOutcome::Applied
        );
        let grads = grads_of(&start, batch(&device, false));
        let burn_model = burn_sgd.step(0.1, start.clone(), grads);
        assert_eq!(model.bits(), burn_model.bits());
        let stats = guarded.stats();
        assert_eq!((stats.applied, stats.device_reads), (1, 1), "{stats}");
    }
}

/// Each way burn's step silently does nothing: burn returns the parameters unchanged; the twin
/// refuses, naming the parameters and the cause.
#[test]
fn a_step_that_would_do_nothing_is_refused() {
    let device = Device::flex().autodiff();
    device.seed(3);
    type Case = (
        &'static str,
        Box<dyn Fn() -> (Mlp, GradientsParams)>,
        &'static str,
    );
    let cases: Vec<Case> = vec![
        (
            "built on a plain device, tracked input",
            Box::new(|| {
                let model = Mlp::new(&Device::flex());
                let _ = model.forward(batch(&Device::flex(), false)); // draws the weights
                // A loss tracked through something else (an input that requires a gradient).
                let ad = Device::flex().autodiff();
                let x = batch(&ad, false).require_grad();
                let loss = x.matmul(Tensor::ones([3, 1], &ad)).sum();
                let grads = GradientsParams::from_grads(loss.backward(), &model);
                (model, grads)
            }),
            "no trainable parameter",
        ),
        (
            "to_device after the weights were drawn",
            Box::new(|| {
                let ad = Device::flex().autodiff();
                let model = Mlp::new(&ad);
                let _ = model.forward(batch(&ad, false)); // draws the weights
                let moved = model.to_device(&ad);
                let grads = grads_of(&moved, batch(&ad, false));
                (moved, grads)
            }),
            "must be a leaf",
        ),
        (
            "gradients read through a fork",
            Box::new(|| {
                let ad = Device::flex().autodiff();
                let model = Mlp::new(&ad);
                let loss = model.forward(batch(&ad, false)).sum();
                let forked = model.fork(&ad);
                let grads = GradientsParams::from_grads(loss.backward(), &forked);
                (forked, grads)
            }),
            "none has",
        ),
        (
            "gradients already taken",
            Box::new(|| {
                let ad = Device::flex().autodiff();
                let model = Mlp::new(&ad);
                let loss = model.forward(batch(&ad, false)).sum();
                let mut grads = loss.backward();
                let _first = GradientsParams::from_module(&mut grads, &model);
                let second = GradientsParams::from_module(&mut grads, &model);
                (model, second)
            }),
            "none has",
        ),
        (
            "frozen",
            Box::new(|| {
                let ad = Device::flex().autodiff();
                let model = Mlp::new(&ad);
                let _ = model.forward(batch(&ad, false));
                let frozen = model.no_grad();
                let x = batch(&ad, false).require_grad();
                let loss = frozen.forward(x).sum();
                let grads = GradientsParams::from_grads(loss.backward(), &frozen);
                (frozen, grads)
            }),
            "no trainable parameter",
        ),
    ];
    for (case, make, cause) in cases {
        let (model, grads) = make();
        let before = model.bits();
        let after = SgdConfig::new().init().step(0.5, model.clone(), grads);
        assert_eq!(
            after.bits(),
            before,
            "{case}: burn's step changed something"
        );

        let (model, grads) = make();
        let err = SgdConfig::new()
            .init()
            .try_step(0.5, model, grads)
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NoGradient, "{case}: {err}");
        assert!(err.to_string().contains(cause), "{case}: {err}");

        let (mut model, grads) = make();
        let before = model.bits();
        let mut guarded = GuardedOptimizer::new(SgdConfig::new().init());
        assert!(guarded.step(0.5, &mut model, grads).is_err(), "{case}");
        assert_eq!(model.bits(), before, "{case}");
    }
}

/// One NaN batch: burn's step writes NaN into the weights (and Adam's moments, for good); the
/// twin refuses naming each parameter and its count, or skips and counts, the model as it was.
#[test]
fn a_nan_batch_never_reaches_the_weights() {
    for device in autodiff_devices() {
        device.seed(11);
        let start = Mlp::new(&device);
        let grads = grads_of(&start, batch(&device, true));
        let poisoned = AdamConfig::new().init().step(1e-2, start.clone(), grads);
        let bits = poisoned.bits();
        assert!(bits.iter().any(|b| f32::from_bits(*b).is_nan()));

        let grads = grads_of(&start, batch(&device, true));
        let err = AdamConfig::new()
            .init()
            .try_step(1e-2, start.clone(), grads)
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NonFiniteGradients, "{err}");
        let text = err.to_string();
        assert!(
            text.contains("fc1.weight") && text.contains(" of 12"),
            "{text}"
        );

        let mut model = start.clone();
        let mut guarded =
            GuardedOptimizer::new(AdamConfig::new().init()).on_non_finite(OnNonFinite::Skip {
                max_consecutive: Some(2),
            });
        for step in 0..2 {
            let grads = grads_of(&model, batch(&device, true));
            let outcome = guarded.step(1e-2, &mut model, grads).unwrap();
            assert!(matches!(outcome, StepOutcome::Skipped { .. }), "{step}");
        }
        assert_eq!(model.bits(), start.bits());
        // A third in a row is refused: a run that only skips has diverged.
        let grads = grads_of(&model, batch(&device, true));
        assert!(guarded.step(1e-2, &mut model, grads).is_err());
        // A clean batch then steps as burn's first step would have.
        let grads = grads_of(&model, batch(&device, false));
        guarded.step(1e-2, &mut model, grads).unwrap();
        let grads = grads_of(&start, batch(&device, false));
        let burn_model = AdamConfig::new().init().step(1e-2, start.clone(), grads);
        assert_eq!(model.bits(), burn_model.bits());
        let stats = guarded.stats();
        assert_eq!(
            (stats.steps, stats.applied, stats.skipped),
            (4, 1, 2),
            "{stats}"
        );
    }
}

/// A gradient holding NaN, +inf and -inf: the refusal splits its count by class (the step
/// reads a non-finite gradient whole anyway), with the gradient's dtype and shape.
#[test]
fn a_non_finite_gradient_is_split_into_nan_and_infinities() {
    let device = Device::flex().autodiff();
    let model = Mlp::new(&device);
    let mut grads = grads_of(&model, batch(&device, false));
    let mut values = vec![0.25f32; 12];
    values[1] = f32::NAN;
    values[4] = f32::NAN;
    values[7] = f32::INFINITY;
    values[9] = f32::NEG_INFINITY;
    values[10] = f32::NEG_INFINITY;
    grads.register(
        model.fc1.weight.id,
        Tensor::<2>::from_data(TensorData::new(values, [3, 4]), &Device::flex()),
    );
    let err = SgdConfig::new()
        .init()
        .try_step(0.1, model, grads)
        .unwrap_err();
    let GuardError::NonFiniteGradients { params, .. } = err.root() else {
        panic!("{err}");
    };
    let expected = NonFiniteParam {
        split: Some(NonFiniteSplit {
            nan: 2,
            pos_inf: 1,
            neg_inf: 2,
        }),
        dtype: Some(FloatDType::F32),
        shape: Some(vec![3, 4]),
        ..NonFiniteParam::new("fc1.weight", 5, 12)
    };
    assert_eq!(params, &[expected], "{err}");
    assert!(
        err.to_string()
            .ends_with(": fc1.weight 5 of 12 (2 NaN, 1 +inf, 2 -inf) in F32 [3, 4]"),
        "{err}"
    );
}

/// A parameter the forward never used (a spare head): burn draws it and steps the rest; the
/// twin names it, and a partial step asked for updates the others.
#[test]
fn an_unused_parameter_is_named_and_a_partial_step_allowed() {
    #[derive(Module, Debug)]
    struct TwoHeads {
        body: Linear,
        spare: Linear,
    }
    let device = Device::flex().autodiff();
    let model = TwoHeads {
        body: LinearConfig::new(3, 2).init(&device),
        spare: LinearConfig::new(3, 2).init(&device),
    };
    let grads = || {
        let loss = model.body.forward(batch(&device, false)).sum();
        GradientsParams::from_grads(loss.backward(), &model)
    };
    let err = SgdConfig::new()
        .init()
        .try_step(0.1, model.clone(), grads())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NoGradient);
    assert!(err.to_string().contains("spare.weight"), "{err}");
    let mut partial = model.clone();
    let mut guarded = GuardedOptimizer::new(SgdConfig::new().init()).allow_missing_gradients(true);
    assert_eq!(
        guarded.step(0.1, &mut partial, grads()).unwrap(),
        StepOutcome::Applied
    );
}

/// On wgpu: a clean step equals burn's, a NaN batch is refused.
#[test]
fn a_guarded_step_on_wgpu() {
    let Some(wgpu) = common::wgpu_device() else {
        return;
    };
    let device = wgpu.autodiff();
    let start = Mlp::new(&device);
    let grads = grads_of(&start, batch(&device, false));
    let burn_model = SgdConfig::new().init().step(0.1, start.clone(), grads);
    let grads = grads_of(&start, batch(&device, false));
    let ours = SgdConfig::new()
        .init()
        .try_step(0.1, start.clone(), grads)
        .unwrap();
    assert_eq!(ours.bits(), burn_model.bits());
    let grads = grads_of(&start, batch(&device, true));
    let err = SgdConfig::new()
        .init()
        .try_step(0.1, start, grads)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NonFiniteGradients, "{err}");
}

#[path = "common/example.rs"]
mod example;

/// The example: the NaN batch skipped with the clean run's accuracy, raw burn at chance; the
/// `to_device` mistake refused at step 1 where raw burn's step changes nothing.
#[test]
fn the_training_example_catches_both_silent_failures() {
    let stdout = example::run_example("training", &[], "`cargo test --all-features`");
    let stdout = String::from_utf8(stdout).unwrap();
    let accuracy = |section: &str, name: &str| -> String {
        let start = stdout.find(section).unwrap();
        let line = stdout[start..]
            .lines()
            .find(|l| {
                l.trim_start()
                    .starts_with(&format!("{name}: test accuracy"))
            })
            .unwrap();
        line.rsplit(' ').next().unwrap().to_owned()
    };
    let clean = accuracy("clean:", "raw");
    assert_eq!(accuracy("a NaN batch", "guarded"), clean, "{stdout}");
    assert_ne!(accuracy("a NaN batch", "raw"), clean, "{stdout}");
    assert!(
        stdout.contains("step 100: skipped: step: gradients must be finite"),
        "{stdout}"
    );
    assert!(
        stdout.contains("raw burn's step changed no weight"),
        "{stdout}"
    );
    assert!(
        stdout.contains("guarded: stopped at step 1: step: every parameter must be a leaf"),
        "{stdout}"
    );
}

/// Muon alone panics at the first step of a model with a bias; routed by
/// `GuardedOptimizer::muon`, the matrices go to Muon and the rest to AdamW.
#[test]
fn muon_routes_what_it_cannot_step() {
    use burn::optim::{AdamWConfig, MuonConfig};
    let device = Device::flex().autodiff();
    let start = Mlp::new(&device);
    let grads = grads_of(&start, batch(&device, false));
    let raw = common::raw(|| MuonConfig::new().init().step(0.02, start.clone(), grads));
    assert!(raw.is_none(), "burn's Muon stepped a bias");
    let mut model = start.clone();
    let mut optimizer =
        GuardedOptimizer::muon(&MuonConfig::new(), AdamWConfig::new().init(), &model);
    let grads = grads_of(&model, batch(&device, false));
    assert_eq!(
        optimizer.step(0.02, &mut model, grads).unwrap(),
        StepOutcome::Applied
    );
    assert_ne!(model.bits(), start.bits());
    let bias = |m: &Mlp| m.fc1.bias.as_ref().unwrap().val().into_data();
    assert_ne!(bias(&model), bias(&start));
}

/// The module calls of a training loop: `to_device` of a drawn, tracked model makes non-leaves
/// (burn's step then trains nothing) and is refused; `set_require_grad(true)` on those
/// non-leaves panics in burn and is refused; `fork` moves and makes new leaves.
#[test]
fn module_calls_that_break_training_are_refused() {
    let device = Device::flex().autodiff();
    let model = Mlp::new(&device);
    let _ = model.forward(batch(&device, false));
    let err = model.clone().try_to_device(&device).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NoGradient);
    assert!(err.to_string().contains("Module::fork"), "{err}");

    let moved = model.clone().to_device(&device);
    assert!(common::raw(|| moved.clone().set_require_grad(true)).is_none());
    let err = moved.clone().try_set_require_grad(true).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NoGradient);
    assert!(moved.clone().try_unfreeze().is_err());
    assert!(moved.clone().try_set_require_grad(false).is_ok());

    let forked = model.try_fork(&device).unwrap();
    let grads = grads_of(&forked, batch(&device, false));
    SgdConfig::new()
        .init()
        .try_step(0.1, forked, grads)
        .unwrap();
}

/// A clipping threshold of 0 zeroes every update in burn without a word; the guarded step
/// refuses it, and so does the config's twin.
#[test]
fn a_clipping_threshold_that_zeroes_updates_is_refused() {
    use burn::optim::grad_clipping::GradientClippingConfig;
    use burn_guard::optim::TryGradientClippingConfig;
    let device = Device::flex().autodiff();
    let start = Mlp::new(&device);
    let config = SgdConfig::new().with_gradient_clipping(Some(GradientClippingConfig::Norm(0.0)));
    let grads = grads_of(&start, batch(&device, false));
    let after = config.init().step(0.1, start.clone(), grads);
    assert_eq!(
        after.bits(),
        start.bits(),
        "burn's Norm(0) clipping no longer zeroes"
    );
    let mut model = start.clone();
    let grads = grads_of(&model, batch(&device, false));
    let err = GuardedOptimizer::new(config.init())
        .step(0.1, &mut model, grads)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfRange, "{err}");
    assert!(GradientClippingConfig::Norm(0.0).try_init().is_err());
}

/// A learning rate that matches no parameter (burn's `ModuleLearningRate::default()`) panics in
/// burn's step; a negative one climbs the loss without a word. Both are refused before anything
/// changes. A gradient read at the wrong rank panics in burn; the twin returns `Err`.
#[test]
fn learning_rates_and_gradient_reads_are_checked() {
    use burn::optim::lr_scheduler::module_lr_scheduler::ModuleLearningRate;
    use burn_guard::optim::TryGradientsParams;
    let device = Device::flex().autodiff();
    let start = Mlp::new(&device);
    let grads = grads_of(&start, batch(&device, false));
    let raw = common::raw(|| {
        SgdConfig::new()
            .init()
            .step(ModuleLearningRate::default(), start.clone(), grads)
    });
    assert!(raw.is_none(), "burn stepped without a learning rate");
    let grads = grads_of(&start, batch(&device, false));
    let err = SgdConfig::new()
        .init()
        .try_step(ModuleLearningRate::default(), start.clone(), grads)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
    let grads = grads_of(&start, batch(&device, false));
    let err = SgdConfig::new()
        .init()
        .try_step(-0.1, start.clone(), grads)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfRange, "{err}");

    let grads = grads_of(&start, batch(&device, false));
    let id = start.fc1.weight.id;
    assert!(common::raw(|| grads.get::<1>(id)).is_none());
    assert!(grads.try_get::<1>(id).is_err());
    assert!(grads.try_get::<2>(id).unwrap().is_some());
}

/// A dynamic loss scale: with a power-of-two scale the step equals burn's step on the unscaled
/// loss, bit for bit; a scale that overflows the gradients skips the step, backs off, and the
/// next steps go on.
#[test]
fn a_loss_scale_steps_like_the_unscaled_loss_and_backs_off_on_overflow() {
    use burn_guard::optim::LossScale;
    let device = Device::flex().autodiff();
    device.seed(21);
    let start = Mlp::new(&device);
    let grads = grads_of(&start, batch(&device, false));
    let burn_model = AdamConfig::new().init().step(1e-2, start.clone(), grads);

    let mut model = start.clone();
    let mut optimizer =
        GuardedOptimizer::new(AdamConfig::new().init()).with_loss_scale(LossScale::new(1024.0));
    let loss = optimizer.scale_loss(model.forward(batch(&device, false)).powi_scalar(2).mean());
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    assert_eq!(
        optimizer.step(1e-2, &mut model, grads).unwrap(),
        StepOutcome::Applied
    );
    assert_eq!(model.bits(), burn_model.bits());

    // 2^127 on a loss of a few thousand: the scaled gradients overflow F32; the step is skipped
    // and the scale halves until they fit.
    let mut model = start.clone();
    let mut optimizer = GuardedOptimizer::new(AdamConfig::new().init())
        .with_loss_scale(LossScale::new(2f64.powi(127)));
    for _ in 0..40 {
        let loss = model
            .forward(batch(&device, false))
            .powi_scalar(2)
            .sum()
            .mul_scalar(4096.0);
        let loss = optimizer.scale_loss(loss);
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        optimizer.step(1e-2, &mut model, grads).unwrap();
    }
    let stats = optimizer.stats();
    assert!(stats.skipped >= 1 && stats.applied >= 1, "{stats}");
    assert!(optimizer.loss_scale().unwrap() < 2f64.powi(127));
    assert!(model.bits().iter().all(|b| f32::from_bits(*b).is_finite()));
}

/// `step_multi` over two parts of gradients: equal to burn's where the gradients are clean; a
/// NaN in one part is refused; a part holding another model's gradients is refused.
#[test]
fn step_multi_is_checked_across_its_parts() {
    use burn::optim::MultiGradientsParams;
    let device = Device::flex().autodiff();
    device.seed(4);
    let start = Mlp::new(&device);
    let multi = |poison: bool| MultiGradientsParams {
        grads: vec![
            (grads_of(&start, batch(&device, false)), device.clone()),
            (grads_of(&start, batch(&device, poison)), device.clone()),
        ],
    };
    let burn_model = SgdConfig::new()
        .init()
        .step_multi(0.1, start.clone(), multi(false));
    let ours = SgdConfig::new()
        .init()
        .try_step_multi(0.1, start.clone(), multi(false))
        .unwrap();
    assert_eq!(ours.bits(), burn_model.bits());
    let err = SgdConfig::new()
        .init()
        .try_step_multi(0.1, start.clone(), multi(true))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NonFiniteGradients, "{err}");
    let other = Mlp::new(&device);
    let foreign = MultiGradientsParams {
        grads: vec![(grads_of(&other, batch(&device, false)), device.clone())],
    };
    let err = SgdConfig::new()
        .init()
        .try_step_multi(0.1, start, foreign)
        .unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::NoGradient | ErrorKind::InvalidArgument
        ),
        "{err}"
    );
}

/// An optimizer's state loaded for another model: burn keeps it without a word (and the next
/// step of a model whose ids it does not know ignores it, or, for a matching id of another
/// rank, panics); the twin refuses it, and loads the model's own state.
#[test]
fn an_optimizer_state_of_another_model_is_refused() {
    use burn_guard::optim::TryOptimizerRecord;
    let device = Device::flex().autodiff();
    let model = Mlp::new(&device);
    let mut optimizer = AdamConfig::new().init();
    let grads = grads_of(&model, batch(&device, false));
    let model = optimizer.step(1e-2, model, grads);

    let other = Mlp::new(&device);
    let loaded = AdamConfig::new().init().load_record(optimizer.to_record());
    assert!(
        !loaded.to_record().is_empty(),
        "burn refused the foreign state"
    );
    let err = AdamConfig::new()
        .init()
        .try_load_record(optimizer.to_record(), &other)
        .err()
        .unwrap();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");

    let Ok(mut restored) = AdamConfig::new()
        .init()
        .try_load_record(optimizer.to_record(), &model)
    else {
        panic!("the model's own state was refused");
    };
    // Restored state steps as the original optimizer does.
    let grads = grads_of(&model, batch(&device, false));
    let a = optimizer.step(1e-2, model.clone(), grads);
    let grads = grads_of(&model, batch(&device, false));
    let b = restored.try_step(1e-2, model, grads).unwrap();
    assert_eq!(a.bits(), b.bits());
}

/// `Param::from_tensor` of a non-leaf (weight tying from a computed tensor) and `from_data` at
/// the wrong rank panic in burn; the twins return `Err`.
#[test]
fn param_constructors_are_checked() {
    use burn::module::Param;
    use burn_guard::optim::TryParam;
    let device = Device::flex().autodiff();
    let leaf = Param::<Tensor<2>>::from_data([[1.0, 2.0]], &device);
    let derived = leaf.val().mul_scalar(2.0);
    assert!(common::raw(|| Param::from_tensor(derived.clone())).is_none());
    let err = Param::try_from_tensor(derived).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NoGradient, "{err}");
    assert!(common::raw(|| Param::<Tensor<1>>::from_data([[1.0, 2.0]], &device)).is_none());
    assert!(Param::<Tensor<1>>::try_from_data([[1.0, 2.0]], &device).is_err());
    let param = Param::<Tensor<2>>::try_from_data([[1.0, 2.0]], &device).unwrap();
    assert_eq!(param.val().dims(), [1, 2]);
}

/// Accumulating another model's gradients: burn adds nothing for ids it does not walk, without a
/// word; the twin refuses them. A gradient registered at another shape panics in burn's add;
/// the twin refuses it.
#[test]
fn accumulated_gradients_must_be_the_models() {
    use burn::optim::GradientsAccumulator;
    use burn_guard::optim::TryGradientsAccumulator;
    let device = Device::flex().autodiff();
    let model = Mlp::new(&device);
    let mut accumulator = GradientsAccumulator::new();
    accumulator
        .try_accumulate(&model, grads_of(&model, batch(&device, false)))
        .unwrap();
    let other = Mlp::new(&device);
    let err = accumulator
        .try_accumulate(&model, grads_of(&other, batch(&device, false)))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");

    let mut wrong = GradientsParams::new();
    wrong.register(
        model.fc1.weight.id,
        Tensor::<2>::ones([2, 2], &Device::flex()),
    );
    let mut raw_accumulator = GradientsAccumulator::new();
    raw_accumulator.accumulate(&model, grads_of(&model, batch(&device, false)));
    assert!(
        common::raw(|| {
            raw_accumulator.accumulate(&model, {
                let mut g = GradientsParams::new();
                g.register(
                    model.fc1.weight.id,
                    Tensor::<2>::ones([2, 2], &Device::flex()),
                );
                g
            })
        })
        .is_none()
    );
    let err = accumulator.try_accumulate(&model, wrong).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ShapeMismatch, "{err}");
}

/// Adafactor's settings out of range panic in burn's `init`; the twin returns `Err`.
#[test]
fn adafactor_settings_are_checked() {
    use burn::optim::AdafactorConfig;
    use burn_guard::optim::TryAdafactorConfig;
    for config in [
        AdafactorConfig::new().with_decay_rate(0.8),
        AdafactorConfig::new().with_epsilon_1(0.0),
        AdafactorConfig::new().with_weight_decay(-1.0),
    ] {
        assert!(common::raw(|| config.init()).is_none(), "{config:?}");
        let err = config.try_init().err().unwrap();
        assert_eq!(err.kind(), ErrorKind::OutOfRange, "{err}");
    }
    assert!(AdafactorConfig::new().try_init().is_ok());
}

/// L-BFGS over a model with a frozen part panics in burn (the flattened parameters and
/// gradients differ in length); the twin refuses it. On a whole model its values are burn's.
#[test]
fn lbfgs_refuses_a_model_it_cannot_step_whole() {
    use burn::optim::LBFGSConfig;
    use burn_guard::optim::TryLbfgs;
    let device = Device::flex().autodiff();
    device.seed(8);
    let start = Mlp::new(&device);
    let _ = start.forward(batch(&device, false));
    let closure = |m: Mlp| {
        let loss = m.forward(batch(&device, false)).powi_scalar(2).mean();
        let value = loss.clone().into_scalar::<f64>();
        (value, GradientsParams::from_grads(loss.backward(), &m))
    };
    let (burn_model, _) = LBFGSConfig::new().init().step(0.1, start.clone(), closure);
    let (ours, _) = LBFGSConfig::new()
        .init()
        .try_step(0.1, start.clone(), closure)
        .unwrap();
    assert_eq!(ours.bits(), burn_model.bits());

    let mut partly_frozen = start.clone();
    partly_frozen.fc2 = partly_frozen.fc2.no_grad();
    let frozen = partly_frozen.clone();
    assert!(common::raw(|| LBFGSConfig::new().init().step(0.1, frozen, closure)).is_none());
    let err = LBFGSConfig::new()
        .init()
        .try_step(0.1, partly_frozen, closure)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NoGradient);
    assert!(err.to_string().contains("fc2.weight"), "{err}");
}

/// QLoRA with a scheme the model's weights cannot take: burn's `apply_qlora` panics (as
/// `quantize_weights` does); the twin refuses it naming the parameter.
#[test]
fn qlora_with_a_scheme_the_weights_cannot_take_is_refused() {
    use burn::module::{Lora, QLora, Quantizer};
    use burn::tensor::quantization::{
        Calibration, QuantScheme, QuantStore, QuantValue, ScaleDtype,
    };
    let device = Device::flex().autodiff();
    let model = Mlp::new(&device);
    let q4 = QuantScheme::default()
        .with_value(QuantValue::Q4S)
        .with_store(QuantStore::PackedU32(0))
        .per_block([32], ScaleDtype::F32);
    let quantizer = || Quantizer::new(Calibration::MinMax, q4);
    assert!(
        common::raw(|| model
            .clone()
            .apply_qlora(QLora::new(Lora::new(2, 4.0), quantizer())))
        .is_none()
    );
    let err = model
        .clone()
        .try_apply_qlora(Lora::new(2, 4.0), quantizer())
        .unwrap_err();
    assert!(err.path().is_some(), "{err}");
    let q8 = Quantizer::new(Calibration::MinMax, QuantScheme::default());
    let adapted = model.try_apply_qlora(Lora::new(2, 4.0), q8).unwrap();
    assert_eq!(adapted.forward(batch(&device, false)).dims(), [4, 2]);
}

/// Gradients that are zero everywhere: a step "succeeds" and trains nothing there. The fused
/// check finds them in the same device read as non-finite ones, by parameter path; the step
/// reports them (the default), refuses or skips.
#[test]
fn zero_gradients_are_named_and_reported_refused_or_skipped() {
    use burn::nn::Initializer;
    use burn_guard::optim::OnZeroGradient;
    let constant = |d_in, d_out, device: &Device| {
        LinearConfig::new(d_in, d_out)
            .with_initializer(Initializer::Constant { value: -1.0 })
            .init(device)
    };
    for device in autodiff_devices() {
        // A dead ReLU layer: every pre-activation of fc1 is -4, so fc1 and fc2's weight get
        // exactly zero gradients; fc2's bias alone learns.
        let dead = Mlp {
            fc1: constant(3, 4, &device),
            fc2: constant(4, 2, &device),
        };
        let ones = || Tensor::<2>::ones([4, 3], &device);
        let dead_zero = ["fc1.weight", "fc1.bias", "fc2.weight"].map(str::to_owned);

        let mut model = dead.clone();
        let mut optimizer = GuardedOptimizer::new(SgdConfig::new().init());
        let grads = grads_of(&model, ones());
        assert_eq!(
            optimizer.step(0.1, &mut model, grads).unwrap(),
            StepOutcome::Applied
        );
        let stats = optimizer.stats();
        assert_eq!(stats.zero_gradients, dead_zero, "{device:?}");
        assert_eq!(stats.zero_gradient_steps, 1);
        // One read for the device, and one per gradient whose sum is exactly 0 (confirming
        // that its values are 0, not values that cancel); a live step makes only the first.
        assert_eq!(stats.device_reads, 4, "{stats}");
        assert!(stats.to_string().contains("fc1.weight"), "{stats}");

        let mut model = dead.clone();
        let before = model.bits();
        let mut optimizer =
            GuardedOptimizer::new(SgdConfig::new().init()).on_zero_gradient(OnZeroGradient::Refuse);
        let err = optimizer
            .step(0.1, &mut model, grads_of(&dead, ones()))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NoGradient, "{err}");
        assert!(
            err.to_string().contains("fc1.weight, fc1.bias, fc2.weight"),
            "{err}"
        );
        assert_eq!(model.bits(), before);

        let mut optimizer =
            GuardedOptimizer::new(SgdConfig::new().init()).on_zero_gradient(OnZeroGradient::Skip);
        let outcome = optimizer
            .step(0.1, &mut model, grads_of(&dead, ones()))
            .unwrap();
        assert!(
            matches!(outcome, StepOutcome::Skipped { .. }),
            "{outcome:?}"
        );
        assert_eq!(optimizer.stats().skipped, 1);
        assert_eq!(model.bits(), before);

        // A branch cut from the loss by a factor of 0: every gradient is zero.
        let model = Mlp::new(&device);
        let loss = model.forward(batch(&device, false)).sum().mul_scalar(0.0);
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        let mut optimizer = GuardedOptimizer::new(SgdConfig::new().init());
        let mut stepped = model.clone();
        optimizer.step(0.1, &mut stepped, grads).unwrap();
        assert_eq!(
            optimizer.stats().zero_gradients.len(),
            4,
            "{}",
            optimizer.stats()
        );

        // A live model (this seed leaves no hidden unit dead on the batch): nothing reported.
        device.seed(21);
        let mut model = Mlp::new(&device);
        let grads = grads_of(&model, batch(&device, false));
        let mut optimizer = GuardedOptimizer::new(SgdConfig::new().init());
        optimizer.step(0.1, &mut model, grads).unwrap();
        let stats = optimizer.stats();
        assert!(stats.zero_gradients.is_empty(), "{stats}");
        assert_eq!(stats.zero_gradient_steps, 0);
        assert_eq!(stats.device_reads, 1, "{stats}");
    }

    // Half precision on Flex: a loss scaled down by 1e-8 gives gradients below F16's smallest
    // subnormal (6e-8), which underflow to exactly zero.
    let device = Device::flex().autodiff();
    let mut layer: Linear = LinearConfig::new(3, 2).init(&device);
    let half = Tensor::from_data(layer.weight.val().into_data(), (&device, DType::F16));
    layer.weight = burn::module::Param::from_tensor(half);
    layer.bias = None;
    let x = Tensor::<2>::ones([4, 3], &device).cast(DType::F16);
    let loss = layer.forward(x).sum().mul_scalar(1e-4).mul_scalar(1e-4);
    let grads = GradientsParams::from_grads(loss.backward(), &layer);
    let mut optimizer = GuardedOptimizer::new(SgdConfig::new().init());
    optimizer.step(0.1, &mut layer, grads).unwrap();
    assert_eq!(optimizer.stats().zero_gradients, ["weight".to_owned()]);
}
