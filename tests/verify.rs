//! The canary and the sampled shadow checks on real backends: a model that agrees with its
//! reference passes (Flex against NdArray, wgpu against Flex), one whose device computes wrong
//! numbers (here a serving copy with one perturbed weight: what a wrong kernel or a
//! zero-filled buffer looks like from outside) is caught, named, and routed to the reference.

#![allow(deprecated)] // NdArray is deprecated upstream; still supported.

mod common;

use burn::module::{Module, Param};
use burn::nn::{Linear, LinearConfig};
use burn::tensor::{Device, Tensor, TensorData};
use burn_guard::prelude::*;
use burn_guard::verify::{Shadowed, Tolerance, canary, canary_against, canary_report};

#[derive(Module, Debug)]
struct Mlp {
    fc1: Linear,
    fc2: Linear,
}

impl Mlp {
    fn new(device: &Device) -> Self {
        Self {
            fc1: LinearConfig::new(8, 16).init(device),
            fc2: LinearConfig::new(16, 4).init(device),
        }
    }

    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.fc2
            .forward(burn::tensor::activation::relu(self.fc1.forward(x)))
    }

    /// The same model with one bias of `fc2` off by `delta`: every output row differs.
    fn perturbed(&self, delta: f32) -> Self {
        let mut copy = self.clone();
        let bias = self.fc2.bias.as_ref().unwrap().val();
        let mut values = bias
            .into_data()
            .convert::<f32>()
            .try_to_vec::<f32>()
            .unwrap();
        values[1] += delta;
        let device = self.fc2.weight.device();
        copy.fc2.bias = Some(Param::from_tensor(Tensor::from_data(
            TensorData::new(values, [4]),
            &device,
        )));
        copy
    }
}

fn inputs(device: &Device, n: usize) -> Vec<Tensor<2>> {
    (0..n)
        .map(|k| {
            let values: Vec<f32> = (0..24)
                .map(|i| ((i * 7 + k * 3) % 11) as f32 / 5.0 - 1.0)
                .collect();
            Tensor::from_data(TensorData::new(values, [3, 8]), device)
        })
        .collect()
}

/// Flex against NdArray agree; a serving copy with one weight off by 0.5 is caught, with the
/// sizes of the difference; a NaN where the reference is finite always is.
#[test]
fn the_canary_passes_agreeing_devices_and_catches_a_wrong_one() {
    let flex = Device::flex();
    let model = Mlp::new(&flex);
    let report = canary(
        &model,
        &Device::ndarray(),
        inputs(&flex, 3),
        Tolerance::default(),
        |m, x| m.forward(x),
    )
    .unwrap();
    assert!(report.passed(), "{report}");

    let wrong = model.perturbed(0.5);
    let report = canary_against(
        &wrong,
        &model,
        inputs(&flex, 3),
        Tolerance::default(),
        |m, x| m.forward(x),
    )
    .unwrap();
    assert!(!report.passed(), "{report}");
    assert!(
        report
            .outputs
            .iter()
            .all(|o| o.mismatched > 0 && o.max_abs > 0.01),
        "{report}"
    );

    let poisoned = model.perturbed(f32::NAN);
    let report = canary_against(
        &poisoned,
        &model,
        inputs(&flex, 1),
        Tolerance::default(),
        |m, x| m.forward(x),
    )
    .unwrap();
    assert!(report.outputs[0].new_non_finite > 0, "{report}");

    // `canary` itself is an Err naming both devices.
    let err = canary(
        &model,
        &Device::ndarray(),
        inputs(&flex, 1),
        Tolerance { abs: 0.0, rel: 0.0 },
        |m, x| m.forward(x).add_scalar(0.0),
    );
    if let Err(err) = err {
        assert_eq!(err.kind(), ErrorKind::Diverged);
    }
    let _ = canary_report(
        &model,
        &Device::ndarray(),
        inputs(&flex, 1),
        Tolerance::default(),
        |m, x| m.forward(x),
    )
    .unwrap();
}

/// Sampled 1 in 4: the first sampled request of a wrong serving device diverges, is answered
/// from the reference, and every later request is routed there and counted; a device that
/// agrees is never quarantined.
#[test]
fn shadow_checks_quarantine_a_wrong_device_and_route_to_the_reference() {
    let flex = Device::flex();
    let model = Mlp::new(&flex);
    let served = Shadowed::new(model.clone(), &Device::ndarray(), 4, Tolerance::default()).unwrap();
    for x in inputs(&flex, 12) {
        served.forward(x, |m, x| m.forward(x)).unwrap();
    }
    let stats = served.stats();
    assert_eq!(
        (stats.requests, stats.shadowed, stats.diverged, stats.routed),
        (12, 3, 0, 0)
    );
    assert!(served.quarantined().is_none());

    let wrong =
        Shadowed::with_reference(model.perturbed(0.5), model.clone(), 4, Tolerance::default())
            .unwrap();
    let xs = inputs(&flex, 12);
    for (i, x) in xs.iter().enumerate() {
        let y = wrong.forward(x.clone(), |m, x| m.forward(x)).unwrap();
        if i == 0 {
            // The sampled request diverged: answered from the reference.
            let expected = model.forward(x.clone());
            assert_eq!(y.into_data(), expected.into_data());
        }
    }
    let err = wrong
        .quarantined()
        .expect("the perturbed device was not caught");
    assert_eq!(err.kind(), ErrorKind::Diverged);
    let stats = wrong.stats();
    assert_eq!(
        (stats.requests, stats.shadowed, stats.diverged, stats.routed),
        (12, 1, 1, 12)
    );
}

/// wgpu (lavapipe in CI) against Flex: the canary passes.
#[test]
fn the_canary_passes_wgpu_against_flex() {
    let Some(wgpu) = common::wgpu_device() else {
        return;
    };
    let model = Mlp::new(&wgpu);
    let report = canary(
        &model,
        &Device::flex(),
        inputs(&wgpu, 2),
        Tolerance::default(),
        |m, x| m.forward(x),
    )
    .unwrap();
    assert!(report.passed(), "{report}");
}

#[path = "common/example.rs"]
mod example;

/// The example, on Flex: the canary passes the right model, refuses the wrong one, and the
/// shadow checks route every request of the wrong one to the reference.
#[test]
fn the_sentinel_example_catches_and_routes_the_wrong_device() {
    let stdout = example::run_example("sentinel", &["--flex"], "`cargo test --all-features`");
    let stdout = String::from_utf8(stdout).unwrap();
    assert!(stdout.contains("): passed"), "{stdout}");
    assert!(stdout.contains("): FAILED"), "{stdout}");
    assert!(
        stdout.contains("quarantined: shadow: outputs must agree"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1000 requests, 1 compared, 1 diverged, 1000 answered from Flex"),
        "{stdout}"
    );
    assert!(
        stdout.contains("first diverging layer twin: #1 linear"),
        "{stdout}"
    );
}

const CHILD: &str = "BURN_GUARD_VERIFY_CHILD";

/// A real failure burn only logs, on lavapipe: a parameter drawn in burn's persistent pool
/// (as burn-nn's initializers draw them) over the binding limit, then the sum of its first
/// eight ones. Raw burn reads back `0.0` with a warning; with the taint logger the guarded
/// read refuses it, the device is refused and routed around until reinstated.
#[test]
fn a_task_failure_burn_only_logs_taints_the_device() {
    if common::wgpu_device().is_none() {
        return;
    }
    let stdout = common::child_succeeds(CHILD, "taint_child", "taint");
    assert!(stdout.contains("raw: [0.0]"), "{stdout}");
    assert!(stdout.contains("guarded: refused"), "{stdout}");
}

/// The child of `a_task_failure_burn_only_logs_taints_the_device`.
#[test]
#[ignore = "run by a_task_failure_burn_only_logs_taints_the_device in a child process"]
fn taint_child() {
    use burn::tensor::DType;
    use burn_guard::devices::{DeviceHealth, health, install_taint_logger, reinstate};
    use burn_guard::policy::Policy;

    if std::env::var(CHILD).as_deref() != Ok("taint") {
        return;
    }
    install_taint_logger(None, log::LevelFilter::Warn).unwrap();
    let device = common::wgpu_device().unwrap();
    let limit = burn_guard::capability::limits_of(&device)
        .max_buffer_bytes
        .unwrap();
    let over = usize::try_from(limit / 4).unwrap() + 1024;
    let parameter =
        device.memory_persistent_allocations((), |_| Tensor::<1>::ones([over], &device));
    let sum = parameter.narrow(0, 0, 8).sum();

    let guarded = sum.clone().into_data_as_checked::<f32>();
    let raw = sum.into_data().to_vec::<f32>().unwrap();
    println!("raw: {raw:?}");
    assert_eq!(raw, [0.0], "raw burn reads the unwritten buffer");
    let err = guarded.expect_err("the guarded read returned the unwritten buffer");
    assert_eq!(err.kind(), ErrorKind::DeviceUnavailable);
    let text = err.to_string();
    assert!(text.contains("tainted"), "{text}");
    assert!(text.contains("DSD-"), "{text}");
    assert!(text.contains("max_*_buffer_binding_size"), "{text}");
    println!("guarded: refused: {text}");
    assert!(matches!(health(&device), DeviceHealth::Tainted { .. }));
    assert!(health(&Device::flex()) == DeviceHealth::Healthy);

    // Allocating twins refuse it; a fallback policy places the allocation on Flex.
    let policy = Policy::fallback_to([Device::flex()]);
    assert_eq!(
        policy.place("zeros", &[4], DType::F32, &device).unwrap(),
        Device::flex()
    );
    assert!(
        Policy::strict()
            .place("zeros", &[4], DType::F32, &device)
            .is_err()
    );

    assert_eq!(reinstate(&device), DeviceHealth::Healthy);
    let twice = (Tensor::<1>::ones([4], &device) * 2.0)
        .into_data_as_checked::<f32>()
        .unwrap();
    assert_eq!(twice.to_vec::<f32>().unwrap(), [2.0; 4]);
}

/// With `quarantine_device`, a divergence marks the serving device for the whole process:
/// twins refuse it, the policy routes around it, until `reinstate`.
#[test]
fn a_divergence_can_quarantine_the_device_for_the_process() {
    let stdout = common::child_succeeds(CHILD, "quarantine_child", "quarantine");
    assert!(stdout.contains("quarantined: refused"), "{stdout}");
    assert!(stdout.contains("quarantined by steps: refused"), "{stdout}");
}

/// The child of `a_divergence_can_quarantine_the_device_for_the_process`.
#[test]
#[ignore = "run by a_divergence_can_quarantine_the_device_for_the_process in a child process"]
fn quarantine_child() {
    use burn::tensor::DType;
    use burn_guard::devices::{DeviceHealth, health, reinstate};
    use burn_guard::policy::Policy;

    if std::env::var(CHILD).as_deref() != Ok("quarantine") {
        return;
    }
    let ndarray = Device::ndarray();
    let flex = Device::flex();
    let model = Mlp::new(&ndarray);
    let reference = model.clone().to_device(&flex);
    let served = Shadowed::with_reference(model.perturbed(0.5), reference, 2, Tolerance::default())
        .unwrap()
        .quarantine_device();
    for x in inputs(&ndarray, 4) {
        served.forward(x, |m, x| m.forward(x)).unwrap();
    }
    assert!(matches!(health(&ndarray), DeviceHealth::Quarantined { .. }));
    let err = Tensor::<2>::ones([2, 2], &ndarray)
        .into_data_as_checked::<f32>()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DeviceUnavailable);
    assert!(err.to_string().contains("quarantined (shadow:"), "{err}");
    println!("quarantined: refused: {err}");
    assert_eq!(
        Policy::fallback_to([flex.clone()])
            .place("zeros", &[4], DType::F32, &ndarray)
            .unwrap(),
        flex
    );
    assert_eq!(health(&flex), DeviceHealth::Healthy);
    assert_eq!(reinstate(&ndarray), DeviceHealth::Healthy);
    assert!(
        Tensor::<2>::ones([2, 2], &ndarray)
            .into_data_as_checked::<f32>()
            .is_ok()
    );

    // The shadow check over steps quarantines the device for the process the same way.
    let served = Shadowed::with_reference(
        model.perturbed(0.5),
        model.clone().to_device(&flex),
        1,
        Tolerance::default(),
    )
    .unwrap()
    .quarantine_device();
    let steps = served.forward_steps(decode_with_late_cache).unwrap();
    assert_eq!(steps.len(), 5);
    assert!(matches!(health(&ndarray), DeviceHealth::Quarantined { .. }));
    let err = Tensor::<2>::ones([2, 2], &ndarray)
        .into_data_as_checked::<f32>()
        .unwrap_err();
    assert!(
        err.to_string().contains("quarantined (shadow_steps:"),
        "{err}"
    );
    println!("quarantined by steps: refused: {err}");
    assert_eq!(reinstate(&ndarray), DeviceHealth::Healthy);
}

/// Anomaly mode names the first layer twin whose output is not finite: `fc1` gives finite
/// values, `fc2` overflows them to ±inf. Outside the mode the same forward returns the
/// infinities, as burn's does; inside it the `Err` comes from `fc2`, with the count.
#[test]
fn anomaly_mode_names_the_first_layer_that_produced_non_finite_values() {
    use burn_guard::verify::{anomaly_mode, detect_anomaly};

    let device = Device::flex();
    let mut model = Mlp::new(&device);
    let huge = Tensor::<2>::full([16, 4], 1.0e38, &device);
    model.fc2.weight = Param::from_tensor(huge);
    let forward = |x: Tensor<2>| -> Result<Tensor<2>, GuardError> {
        let h = model.fc1.try_forward(x).with_context(|| "fc1")?;
        let h = burn::tensor::activation::relu(h).abs() + 1.0;
        model.fc2.try_forward(h).with_context(|| "fc2")
    };
    let x = Tensor::<2>::ones([3, 8], &device);

    let raw = forward(x.clone())
        .unwrap()
        .into_data()
        .to_vec::<f32>()
        .unwrap();
    assert!(raw.iter().all(|v| v.is_infinite()), "{raw:?}");
    assert!(!anomaly_mode());

    let err = detect_anomaly(|| forward(x.clone())).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NonFinite);
    assert_eq!(err.path().as_deref(), Some("fc2"));
    let text = err.to_string();
    assert!(text.contains("linear"), "{text}");
    assert!(text.contains("12 non-finite of 12"), "{text}");
    // Split by class in the read that counts them, with the output's dtype and shape.
    assert!(
        text.ends_with("(0 NaN, 12 +inf, 0 -inf) in F32 [3, 4]"),
        "{text}"
    );
    assert!(!anomaly_mode(), "the mode ends with its scope");

    // A finite forward passes in the mode and equals the one outside it.
    let model = Mlp::new(&device);
    let plain = model.fc1.try_forward(x.clone()).unwrap();
    let checked = detect_anomaly(|| model.fc1.try_forward(x)).unwrap();
    assert_eq!(plain.into_data(), checked.into_data());
}

/// A forward written with the layer twins: the divergence names its first diverging layer
/// twin (`fc2`, the second, when `fc2`'s bias is off; `fc1`, the first, when its weight is).
#[test]
fn a_divergence_names_the_first_diverging_layer_twin() {
    let flex = Device::flex();
    let model = Mlp::new(&flex);
    let twins = |m: &Mlp, x: Tensor<2>| {
        let h = m.fc1.try_forward(x).unwrap();
        m.fc2
            .try_forward(burn::tensor::activation::relu(h))
            .unwrap()
    };
    let wrong =
        Shadowed::with_reference(model.perturbed(0.5), model.clone(), 1, Tolerance::default())
            .unwrap();
    wrong.forward(inputs(&flex, 1)[0].clone(), twins).unwrap();
    let layer = wrong.first_diverging_layer().expect("no layer named");
    assert_eq!((layer.index, layer.layer), (1, "linear"));
    assert!(layer.agreement.mismatched > 0);

    let mut first_off = model.clone();
    first_off.fc1.weight = Param::from_tensor(first_off.fc1.weight.val() + 0.25);
    let wrong =
        Shadowed::with_reference(first_off, model.clone(), 1, Tolerance::default()).unwrap();
    wrong.forward(inputs(&flex, 1)[0].clone(), twins).unwrap();
    assert_eq!(wrong.first_diverging_layer().map(|l| l.index), Some(0));

    // burn's own forward calls no twin: the divergence is caught, no layer is named.
    let wrong =
        Shadowed::with_reference(model.perturbed(0.5), model.clone(), 1, Tolerance::default())
            .unwrap();
    wrong
        .forward(inputs(&flex, 1)[0].clone(), |m, x| m.forward(x))
        .unwrap();
    assert!(wrong.quarantined().is_some());
    assert!(wrong.first_diverging_layer().is_none());
}

/// Every read a check makes goes through the one reader, which refuses a device marked by the
/// time the read returned: the four that read on their own before — a quantization's range at
/// the backend level (`try_quantize_dynamic`), a whole model's ranges (`try_quantize_weights`),
/// the layer quantizer's (`ModuleQuantizer`, through the backend engine), and an optimizer step's
/// gradient check — refuse a quarantined device, naming it.
#[test]
fn every_check_read_refuses_a_marked_device() {
    let stdout = common::child_succeeds(CHILD, "marked_reads_child", "marked-reads");
    assert!(stdout.contains("all four refused"), "{stdout}");
}

/// The child of `every_check_read_refuses_a_marked_device`.
#[test]
#[ignore = "run by every_check_read_refuses_a_marked_device in a child process"]
fn marked_reads_child() {
    use burn::module::Quantizer;
    use burn::optim::{AdamConfig, GradientsParams};
    use burn::tensor::quantization::{Calibration, QuantScheme, QuantStore, QuantValue};
    use burn_guard::devices::{DeviceHealth, health};
    use burn_guard::nn::ModuleQuantizer;
    use burn_guard::policy::Policy;

    if std::env::var(CHILD).as_deref() != Ok("marked-reads") {
        return;
    }
    let flex = Device::flex();
    let ndarray = Device::ndarray();
    // The gradients are taken before the device is marked: the step's own read is what refuses.
    let trained = Mlp::new(&flex.clone().autodiff());
    let x = Tensor::<2>::ones([3, 8], &flex.clone().autodiff());
    let grads = trained.forward(x).sum().backward();
    let grads = GradientsParams::from_grads(grads, &trained);

    let served = Shadowed::with_reference(
        Mlp::new(&flex).perturbed(0.5),
        Mlp::new(&ndarray),
        1,
        Tolerance::default(),
    )
    .unwrap()
    .quarantine_device();
    served
        .forward(Tensor::<2>::ones([2, 8], &flex), |m, x| m.forward(x))
        .unwrap();
    assert!(matches!(health(&flex), DeviceHealth::Quarantined { .. }));

    let scheme = QuantScheme::default()
        .with_value(QuantValue::Q8S)
        .with_store(QuantStore::Native);
    // Each case on its own: a reader that lets the marked device through shows which path.
    let mut let_through = Vec::new();
    let mut refused = |what: &'static str, result: burn_guard::Result<()>| match result {
        Err(err) if err.kind() == ErrorKind::DeviceUnavailable => {
            assert!(err.to_string().contains("quarantined"), "{what}: {err}");
            println!("{what}: refused: {err}");
        }
        other => let_through.push(format!("{what}: {other:?}")),
    };
    refused(
        "try_quantize_dynamic",
        Tensor::<2>::ones([4, 8], &flex)
            .try_quantize_dynamic(&scheme)
            .map(drop),
    );
    let model = Mlp::new(&flex);
    refused(
        "try_quantize_weights",
        model
            .try_quantize_weights(&mut Quantizer::new(Calibration::MinMax, scheme))
            .map(drop),
    );
    refused(
        "ModuleQuantizer",
        ModuleQuantizer::new(scheme, Policy::strict())
            .quantize(&model)
            .map(drop),
    );
    let mut optimizer = AdamConfig::new().init();
    refused(
        "try_step",
        optimizer.try_step(1e-3, trained, grads).map(drop),
    );
    assert!(let_through.is_empty(), "{let_through:#?}");
    println!("all four refused");
}

/// A decoder whose cached path (used from the second step on) goes through `fc2`: a serving
/// copy wrong only there passes a one-shot canary and is caught by the canary over steps,
/// which names the first step that disagrees. burn's own report: wrong logits only after a
/// few decoding steps with fusion and autotune on Vulkan, with the cache.
#[test]
fn the_canary_over_steps_names_the_first_decoding_step_that_drifts() {
    use burn_guard::verify::{canary_steps, canary_steps_against};
    let device = Device::flex();
    device.seed(5);
    let model = Mlp::new(&device);
    // Step 0 is `fc1` alone; each later step adds the cache through `fc2`.
    let decode = |m: &Mlp, device: &Device| -> Vec<Tensor<2>> {
        let mut cache: Option<Tensor<2>> = None;
        let mut x = inputs(device, 1).remove(0);
        let mut outputs = Vec::new();
        for _ in 0..4 {
            let h = m.fc1.forward(x.clone());
            let h = match cache.take() {
                Some(c) => {
                    let rows = Tensor::<2>::zeros([3, 12], device);
                    h + Tensor::cat(vec![m.fc2.forward(c), rows], 1)
                }
                None => h,
            };
            cache = Some(h.clone());
            x = h.tanh().narrow(1, 0, 8);
            outputs.push(x.clone());
        }
        outputs
    };
    let report = canary_steps(&model, &Device::ndarray(), Tolerance::default(), decode).unwrap();
    assert_eq!(report.outputs.len(), 4);
    assert!(report.passed(), "{report}");

    let wrong = model.perturbed(0.5);
    let one_shot = canary_against(
        &wrong,
        &model,
        inputs(&device, 1),
        Tolerance::default(),
        |m: &Mlp, x| m.fc1.forward(x),
    );
    assert!(one_shot.unwrap().passed(), "the first step alone agrees");
    let err = canary_steps_against(&wrong, &model, Tolerance::default(), decode).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Diverged, "{err}");
    assert_eq!(err.path().as_deref(), Some("step 1"), "{err}");
}

/// Five decoding steps through the layer twins: steps 0 to 2 are `fc1` alone; from step 3 on,
/// the previous step's hidden state comes back as a cache through `fc2`. A serving copy whose
/// `fc2` is off agrees for three steps and drifts from step 3 on.
fn decode_with_late_cache(m: &Mlp, device: &Device) -> Vec<Tensor<2>> {
    let mut cache: Option<Tensor<2>> = None;
    let mut x = inputs(device, 1).remove(0);
    let mut outputs = Vec::new();
    for step in 0..5 {
        let mut h = m.fc1.try_forward(x.clone()).unwrap();
        if step >= 3
            && let Some(c) = cache.take()
        {
            let rows = Tensor::<2>::zeros([3, 12], device);
            h = h + Tensor::cat(vec![m.fc2.try_forward(c).unwrap(), rows], 1);
        }
        cache = Some(h.clone());
        x = h.tanh().narrow(1, 0, 8);
        outputs.push(x.clone());
    }
    outputs
}

/// The sampled shadow check over a stateful run: an honest serving device passes every
/// sampled run; one whose `fc2` is off, which a one-shot shadow of the first step passes, is
/// caught at step 3, the first step its cache reaches `fc2`, answered from the reference and
/// routed there from then on; the diverging layer twin is named across the run's calls.
#[test]
fn shadow_checks_over_steps_name_the_first_decoding_step_that_drifts() {
    let flex = Device::flex();
    let ndarray = Device::ndarray();
    flex.seed(7);
    let model = Mlp::new(&flex);

    let honest = Shadowed::new(model.clone(), &ndarray, 2, Tolerance::default()).unwrap();
    for _ in 0..4 {
        assert_eq!(
            honest.forward_steps(decode_with_late_cache).unwrap().len(),
            5
        );
    }
    let stats = honest.stats();
    assert_eq!(
        (stats.requests, stats.shadowed, stats.diverged, stats.routed),
        (4, 2, 0, 0)
    );
    assert!(honest.quarantined().is_none());

    let reference = model.clone().to_device(&ndarray);
    let one_shot = Shadowed::with_reference(
        model.perturbed(0.5),
        reference.clone(),
        1,
        Tolerance::default(),
    )
    .unwrap();
    one_shot
        .forward(inputs(&flex, 1).remove(0), |m: &Mlp, x| m.fc1.forward(x))
        .unwrap();
    assert!(
        one_shot.quarantined().is_none(),
        "the first step alone agrees"
    );

    let wrong = Shadowed::with_reference(
        model.perturbed(0.5),
        reference.clone(),
        1,
        Tolerance::default(),
    )
    .unwrap();
    let served = wrong.forward_steps(decode_with_late_cache).unwrap();
    let expected = decode_with_late_cache(&reference, &ndarray);
    for (step, (served, expected)) in served.into_iter().zip(expected).enumerate() {
        assert_eq!(
            served.device(),
            ndarray,
            "step {step} answered from the reference"
        );
        assert_eq!(served.into_data(), expected.into_data(), "step {step}");
    }
    let err = wrong.quarantined().expect("the drift was not caught");
    assert_eq!(err.kind(), ErrorKind::Diverged, "{err}");
    assert_eq!(err.path().as_deref(), Some("step 3"), "{err}");
    // Steps 0 to 2 call `fc1` (calls 0 to 2); step 3 calls `fc1` (3), then `fc2` (4).
    let layer = wrong.first_diverging_layer().expect("no layer named");
    assert_eq!(
        (layer.index, layer.layer, layer.path.as_deref()),
        (4, "linear", Some("fc2"))
    );
    wrong.forward_steps(decode_with_late_cache).unwrap();
    let stats = wrong.stats();
    assert_eq!(
        (stats.requests, stats.shadowed, stats.diverged, stats.routed),
        (2, 1, 1, 2)
    );
}

/// A block of two layer norms, as a transformer block holds them.
#[derive(Module, Debug)]
struct NormBlock {
    norm1: burn::nn::LayerNorm,
    norm2: burn::nn::LayerNorm,
}

/// Two blocks: four layer twins of one type, told apart only by their module paths.
#[derive(Module, Debug)]
struct Blocks {
    blocks: Vec<NormBlock>,
}

impl Blocks {
    fn new(device: &Device) -> Self {
        let norm = || burn::nn::LayerNormConfig::new(8).init(device);
        Self {
            blocks: (0..2)
                .map(|_| NormBlock {
                    norm1: norm(),
                    norm2: norm(),
                })
                .collect(),
        }
    }

    /// Each block's norms in turn, through the twins.
    fn try_forward(&self, x: Tensor<2>) -> Result<Tensor<2>, GuardError> {
        self.blocks.iter().try_fold(x, |x, block| {
            let h = block.norm1.try_forward(x)?;
            block.norm2.try_forward(h * 2.0 + 1.0)
        })
    }

    /// The same model with `blocks.1.norm2`'s first scale set to `value` (its parameter id
    /// kept, as a copy on another device keeps it).
    fn with_second_norm2_scale(&self, value: f32) -> Self {
        let mut copy = self.clone();
        let norm = &mut copy.blocks[1].norm2;
        let mut values = norm.gamma.val().into_data().to_vec::<f32>().unwrap();
        values[0] = value;
        let device = norm.gamma.device();
        let id = norm.gamma.id;
        norm.gamma =
            Param::initialized(id, Tensor::from_data(TensorData::new(values, [8]), &device));
        copy
    }
}

/// A divergence in the second of two blocks' second layer norm is named by its module path,
/// beside its call index and op: `#3 layer_norm blocks.1.norm2`.
#[test]
fn a_divergence_names_the_diverging_layer_by_its_module_path() {
    let flex = Device::flex();
    let model = Blocks::new(&flex);
    let twins = |m: &Blocks, x: Tensor<2>| m.try_forward(x).unwrap();
    let wrong = Shadowed::with_reference(
        model.with_second_norm2_scale(3.0),
        model.clone(),
        1,
        Tolerance::default(),
    )
    .unwrap();
    wrong.forward(inputs(&flex, 1)[0].clone(), twins).unwrap();
    let layer = wrong.first_diverging_layer().expect("no layer named");
    assert_eq!((layer.index, layer.layer), (3, "layer_norm"));
    assert_eq!(layer.path.as_deref(), Some("blocks.1.norm2"));
    let text = layer.to_string();
    assert!(text.starts_with("#3 layer_norm blocks.1.norm2 ("), "{text}");
}

/// In anomaly mode with the model given, the NaN born in the second of two blocks' second
/// layer norm is named by its module path; without the model, by its op alone.
#[test]
fn anomaly_mode_names_the_refusing_layer_by_its_module_path() {
    use burn_guard::verify::{detect_anomaly, detect_anomaly_in};

    let device = Device::flex();
    let model = Blocks::new(&device).with_second_norm2_scale(f32::NAN);
    let x = inputs(&device, 1)[0].clone();

    let err = detect_anomaly_in(&model, || model.try_forward(x.clone())).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NonFinite);
    assert_eq!(err.path().as_deref(), Some("blocks.1.norm2"));
    let text = err.to_string();
    assert!(text.starts_with("blocks.1.norm2: layer_norm: "), "{text}");
    assert!(text.contains("3 non-finite of 24"), "{text}");

    let err = detect_anomaly(|| model.try_forward(x.clone())).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NonFinite);
    assert_eq!(err.path(), None);
    assert!(err.to_string().starts_with("layer_norm: "), "{err}");

    // The first block's layers, called alone, are named too; a model without the layer names
    // none.
    let nan = Tensor::<2>::full([3, 8], f32::NAN, &device);
    let err =
        detect_anomaly_in(&model, || model.blocks[0].norm2.try_forward(nan.clone())).unwrap_err();
    assert_eq!(err.path().as_deref(), Some("blocks.0.norm2"));
    let other = Blocks::new(&device);
    let err = detect_anomaly_in(&other, || model.blocks[0].norm2.try_forward(nan)).unwrap_err();
    assert_eq!(err.path(), None);
}

/// A gradient that a finite forward turns NaN or ±inf in the backward: inside
/// `detect_anomaly_in`, the guarded `try_backward` names the layer twin nearest to where it was
/// born, by its module path and op. Three births: `sqrt` at 0 between `fc1` and `fc2` (its
/// derivative is inf there: `fc1`'s output gets it from what consumed it); the same after
/// `fc2` (both layers' gradients are NaN: the later one, `fc2`, is named); `fc2`'s own weight
/// gradient overflowing while its output's gradient is finite. Outside the mode the same
/// backward returns the NaN as burn does; an honest backward passes with the same gradients.
#[test]
fn anomaly_mode_names_the_layer_whose_backward_gave_non_finite_gradients() {
    use burn::tensor::Gradients;
    use burn_guard::verify::detect_anomaly_in;

    let device = Device::flex().autodiff();
    device.seed(11);
    let x = || inputs(&device, 1).remove(0);
    // The error of a backward in anomaly mode (`Gradients` has no `Debug` for `unwrap_err`).
    let backward = |model: &Mlp, loss: &dyn Fn(&Mlp) -> Result<Tensor<1>, GuardError>| {
        detect_anomaly_in(model, || loss(model)?.try_backward()).err()
    };

    // sqrt(0) between the layers: the forward is finite, d sqrt / dx is inf at 0.
    let model = Mlp::new(&device);
    let between = |m: &Mlp| -> Result<Tensor<1>, GuardError> {
        let h = m.fc1.try_forward(x())?;
        Ok(m.fc2.try_forward((h * 0.0).sqrt())?.sum())
    };
    let loss = between(&model).unwrap();
    assert!(loss.clone().into_scalar::<f32>().is_finite());
    let grads = loss.try_backward().unwrap();
    let raw = model.fc1.weight.val().grad(&grads).unwrap();
    assert!(
        raw.into_data()
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .all(|v| v.is_nan()),
        "outside the mode burn's NaN passes"
    );
    let err = backward(&model, &between).expect("fc1 not named");
    assert_eq!(err.kind(), ErrorKind::NonFinite, "{err}");
    assert_eq!(err.path().as_deref(), Some("fc1"), "{err}");
    assert_eq!(err.layer(), Some("linear"), "{err}");
    let text = err.to_string();
    assert!(text.starts_with("fc1: linear: backward: "), "{text}");
    assert!(text.contains("what consumed that output"), "{text}");
    assert!(text.contains("48 non-finite of 48"), "{text}");

    // sqrt(0) after `fc2`: `fc1`'s gradients are NaN too, but `fc2` is nearer the birth.
    let after = |m: &Mlp| -> Result<Tensor<1>, GuardError> {
        let h = m.fc1.try_forward(x())?;
        let y = m.fc2.try_forward(burn::tensor::activation::relu(h))?;
        Ok((y * 0.0).sqrt().sum())
    };
    let err = backward(&model, &after).expect("fc2 not named");
    assert_eq!(err.path().as_deref(), Some("fc2"), "{err}");
    assert!(err.to_string().contains("12 non-finite of 12"), "{err}");

    // `fc2`'s own backward: its weight's gradient, h × 1e10 with h = 8e30, overflows; its
    // output's gradient (1e10) and everything before it stay finite.
    let mut model = Mlp::new(&device);
    model.fc1.weight = Param::from_tensor(Tensor::full([8, 16], 1.0e30, &device));
    model.fc1.bias = Some(Param::from_tensor(Tensor::zeros([16], &device)));
    model.fc2.weight = Param::from_tensor(Tensor::full([16, 4], 1.0e-31, &device));
    let scaled = |m: &Mlp| -> Result<Tensor<1>, GuardError> {
        let ones = Tensor::<2>::ones([3, 8], &device);
        let h = m.fc1.try_forward(ones)?;
        let y = m.fc2.try_forward(burn::tensor::activation::relu(h))?;
        Ok(y.sum() * 1.0e10)
    };
    let err = backward(&model, &scaled).expect("fc2's own backward not named");
    assert_eq!(err.kind(), ErrorKind::NonFinite, "{err}");
    assert_eq!(err.path().as_deref(), Some("fc2"), "{err}");
    let text = err.to_string();
    assert!(text.contains("own backward"), "{text}");
    // The 64 weight gradients; the 4 bias gradients (3e10) are finite.
    assert!(text.contains("64 non-finite of 68"), "{text}");

    // An honest backward passes in the mode, with the gradients it has outside it.
    let model = Mlp::new(&device);
    let honest = |m: &Mlp| -> Result<Tensor<1>, GuardError> {
        let h = m.fc1.try_forward(x())?;
        Ok(m.fc2.try_forward(burn::tensor::activation::relu(h))?.sum())
    };
    let weight_grad = |grads: &Gradients| {
        let grad = model.fc1.weight.val().grad(grads).unwrap();
        grad.into_data().to_vec::<f32>().unwrap()
    };
    assert!(backward(&model, &honest).is_none());
    let checked = detect_anomaly_in(&model, || honest(&model)?.try_backward()).unwrap();
    let plain = honest(&model).unwrap().try_backward().unwrap();
    assert_eq!(weight_grad(&checked), weight_grad(&plain));
}
