//! Serving a model on a device you don't fully trust: a canary before traffic and sampled
//! shadow checks while serving, both against Flex, and a device that computes wrong numbers
//! caught and routed to Flex.
//!
//! ```text
//! cargo run --release --all-features --example sentinel           # serves on wgpu (Flex without an adapter)
//! cargo run --release --all-features --example sentinel -- --flex # serves on Flex
//! ```
//!
//! The wrong device is simulated: a serving copy of the model with one bias off by 0.5 (what a
//! wrong fused kernel or a zero-filled buffer looks like from outside: numbers, no error).

#[path = "support/runtime_dir.rs"]
mod runtime_dir;

use burn::module::{Module, Param};
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData};
use burn_guard::devices::wgpu_adapter;
use burn_guard::prelude::*;
use burn_guard::verify::{Shadowed, Tolerance, canary, canary_against};

#[derive(Module, Debug)]
struct Mlp {
    fc1: Linear,
    fc2: Linear,
}

impl Mlp {
    /// Through the layer twins, so that a divergence can be traced to its first layer.
    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let h = self.fc1.try_forward(x).expect("fc1 refused the request");
        self.fc2
            .try_forward(relu(h))
            .expect("fc2 refused the request")
    }
}

fn request(device: &Device, k: usize) -> Tensor<2> {
    let values: Vec<f32> = (0..64)
        .map(|i| ((i * 5 + k * 3) % 13) as f32 / 6.0 - 1.0)
        .collect();
    Tensor::from_data(TensorData::new(values, [4, 16]), device)
}

fn main() -> burn_guard::Result<()> {
    // SAFETY: first thing in `main`, before any thread starts.
    unsafe { runtime_dir::ensure_runtime_dir() };
    let flex_only = std::env::args().any(|a| a == "--flex");
    let (device, name) = match wgpu_adapter() {
        Ok(adapter) if !flex_only => (adapter.device, format!("wgpu ({})", adapter.name)),
        _ => (Device::flex(), "flex".to_owned()),
    };
    let flex = Device::flex();
    flex.seed(3);
    let reference = Mlp {
        fc1: LinearConfig::new(16, 32).init(&flex),
        fc2: LinearConfig::new(32, 8).init(&flex),
    };
    let model = reference.clone().to_device(&device);
    println!("serving on {name}, reference Flex");

    // 1. Before traffic: the canary on three requests.
    let inputs = (0..3).map(|k| request(&device, k)).collect();
    let report = canary(&model, &flex, inputs, Tolerance::default(), |m, x| {
        m.forward(x)
    })?;
    print!("{report}");

    // 2. A device that computes wrong numbers: the canary refuses it...
    let mut wrong = model.clone();
    let bias = model
        .fc2
        .bias
        .as_ref()
        .map(|b| b.val())
        .expect("fc2 has a bias");
    let mut values = bias
        .into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .expect("f32 values");
    values[1] += 0.5;
    wrong.fc2.bias = Some(Param::from_tensor(Tensor::from_data(
        TensorData::new(values, [8]),
        &device,
    )));
    let inputs = (0..3).map(|k| request(&device, k)).collect();
    let report = canary_against(&wrong, &reference, inputs, Tolerance::default(), |m, x| {
        m.forward(x)
    })?;
    print!("{report}");

    // 3. ...and had it started serving, the shadow checks (1 request in 100) catch it and
    //    route every later request to Flex.
    let served = Shadowed::with_reference(wrong, reference, 100, Tolerance::default())?;
    for k in 0..1000 {
        served.forward(request(&device, k), |m, x| m.forward(x))?;
    }
    if let Some(divergence) = served.quarantined() {
        println!("quarantined: {divergence}");
    }
    if let Some(layer) = served.first_diverging_layer() {
        println!(
            "first diverging layer twin: #{} {} ({} of {} values apart, max abs {:e})",
            layer.index,
            layer.layer,
            layer.agreement.mismatched,
            layer.agreement.elements,
            layer.agreement.max_abs
        );
    }
    let stats = served.stats();
    println!(
        "shadow: {} requests, {} compared, {} diverged, {} answered from Flex",
        stats.requests, stats.shadowed, stats.diverged, stats.routed
    );
    Ok(())
}
