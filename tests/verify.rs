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
}
