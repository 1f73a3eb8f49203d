//! A model of your own quantized in place (`examples/quantized_models.rs`'s transformer
//! classifier, random weights): what the guard costs on the quantization, and what the
//! quantized forward costs against the f32 one.
//!
//! ```text
//! cargo bench --all-features --bench quantized_models
//! ```
//!
//! - `quantize <device>`: burn's `Module::quantize_weights` beside burn-guard's
//!   `try_quantize_weights` (Q8 per tensor, every parameter quantizable), and `WeightQuantizer`
//!   with its report, without and with `max_relative_error` (the round-trip error measured
//!   and held: the gate's cost is the last two's ratio, printed last as `error gate /
//!   WeightQuantizer`), one paired
//!   criterion benchmark (`benches/support/paired.rs`): each iteration runs both, alternating
//!   which goes first, and times each on its own; each ends in a device sync, so that wgpu's
//!   queued quantization is inside the measurement. The guard's extra work is its checks: the
//!   walk that plans each parameter (path, shape, device), the capability and shape checks, and
//!   one read per device of burn's own range (which the quantization then reuses) to refuse
//!   NaN, ±inf and a scale that overflows.
//! - `forward <device>`: the model's own forward in f32 and on the weights quantized in place
//!   in Q8 per tensor, Q8 per block of 32 and Q4 per block of 32 (the head, which blocks of 32
//!   cannot divide, kept in float), one paired benchmark, each forward ending in a read of
//!   the logits.
//!
//! - `resnet18 <device>`: torchvision's ResNet-18 (`tests/data/models/`, PyTorch's weights)
//!   in f32 beside the same model quantized Q8 per tensor by `WeightQuantizer` (on wgpu its
//!   convolutions packed along the output channels, the head's bias `[10]` kept in float),
//!   each a forward of 16 fixed 32×32 images through the layer twins, ending in a read of the
//!   logits: what the quantized forward (its dequantizations) costs against the f32 one.
//!
//! After criterion's report the bench prints, per group, each variant's mean against the
//! first (raw burn, or f32) from the run's own sums, with the per-sample ratio's quartiles.
//! Without a wgpu adapter the wgpu rows are skipped and say so. Every kernel is run before
//! measuring (on lavapipe a new kernel compiles for seconds to minutes).

#[path = "../examples/support/digits.rs"]
mod digits;
#[path = "../examples/support/models.rs"]
mod models;
#[path = "support/paired.rs"]
mod paired;
#[path = "../tests/common/resnet.rs"]
mod resnet;

use std::time::Duration;

use burn::module::{Module, Quantizer};
use burn::tensor::quantization::Calibration;
use burn::tensor::{Device, Int, Tensor, TensorData};
use burn_guard::module::WeightQuantizer;
use burn_guard::prelude::*;
use criterion::Criterion;
use models::TokenClassifier;
use paired::{Paired, paired};

/// Ids `[64, SEQ]` on `device`, a fixed pattern over the vocabulary.
fn ids(device: &Device) -> Tensor<2, Int> {
    let batch = 64;
    let ids: Vec<i64> = (0..batch * models::SEQ)
        .map(|i| ((i * 7 + i / 5) % models::VOCAB) as i64)
        .collect();
    Tensor::from_data(TensorData::new(ids, [batch, models::SEQ]), device)
}

fn read(t: Tensor<2>) -> usize {
    t.into_data().bytes().len()
}

fn quantize(c: &mut Criterion, device: &Device, name: &str, results: &mut Vec<(String, Paired)>) {
    device.seed(models::SEED);
    let model = TokenClassifier::new(device);
    let scheme = digits::schemes()[0].1;
    let mut raw_quantizer = Quantizer::new(Calibration::MinMax, scheme);
    let mut guarded_quantizer = Quantizer::new(Calibration::MinMax, scheme);
    let sync = || device.sync().unwrap();
    let mut raw = || {
        let q = model.clone().quantize_weights(&mut raw_quantizer);
        sync();
        std::hint::black_box(q);
        1
    };
    let mut guarded = || {
        let q = model.try_quantize_weights(&mut guarded_quantizer).unwrap();
        sync();
        std::hint::black_box(q);
        1
    };
    let mut report_quantizer = Quantizer::new(Calibration::MinMax, scheme);
    let mut reported = || {
        let q = WeightQuantizer::new()
            .quantize(&model, &mut report_quantizer)
            .unwrap();
        sync();
        std::hint::black_box(q);
        1
    };
    let mut gate_quantizer = Quantizer::new(Calibration::MinMax, scheme);
    let mut gated = || {
        let q = WeightQuantizer::new()
            .max_relative_error(0.05)
            .quantize(&model, &mut gate_quantizer)
            .unwrap();
        sync();
        std::hint::black_box(q);
        1
    };
    for _ in 0..3 {
        raw();
        guarded();
        reported();
        gated();
    }
    let group = format!("quantize {name}");
    let record = paired(
        c,
        &group,
        &mut [
            ("burn quantize_weights", &mut raw),
            ("try_quantize_weights", &mut guarded),
            ("WeightQuantizer (report)", &mut reported),
            ("WeightQuantizer, error gate", &mut gated),
        ],
    );
    results.push((group, record));
}

fn forward(c: &mut Criterion, device: &Device, name: &str, results: &mut Vec<(String, Paired)>) {
    device.seed(models::SEED);
    let model = TokenClassifier::new(device);
    let x = ids(device);
    let quantized: Vec<(&'static str, TokenClassifier)> = digits::schemes()
        .into_iter()
        .map(|(scheme_name, scheme)| {
            let q = WeightQuantizer::new()
                .keep_unquantizable_in_float()
                .quantize(&model, &mut Quantizer::new(Calibration::MinMax, scheme))
                .unwrap();
            (scheme_name, q.into_model())
        })
        .collect();
    for _ in 0..3 {
        read(model.forward(x.clone()));
        for (_, q) in &quantized {
            read(q.forward(x.clone()));
        }
    }
    let mut f32_forward = || read(model.forward(x.clone()));
    let mut forwards: Vec<Box<dyn FnMut() -> usize + '_>> = quantized
        .iter()
        .map(|(_, q)| Box::new(|| read(q.forward(x.clone()))) as Box<dyn FnMut() -> usize + '_>)
        .collect();
    let mut variants: Vec<(&'static str, &mut dyn FnMut() -> usize)> =
        vec![("f32", &mut f32_forward)];
    for ((scheme_name, _), f) in quantized.iter().zip(forwards.iter_mut()) {
        variants.push((scheme_name, f.as_mut()));
    }
    let group = format!("forward {name}");
    let record = paired(c, &group, &mut variants);
    results.push((group, record));
}

fn resnet18(c: &mut Criterion, device: &Device, name: &str, results: &mut Vec<(String, Paired)>) {
    use burn::tensor::quantization::{QuantScheme, QuantValue};
    use burn_guard::store::{Layout, SafetensorsStore};

    let mut model = resnet::ResNet18::new(10, device);
    let path = std::path::Path::new(resnet::DIR).join("resnet18_f16.safetensors");
    let mut store = SafetensorsStore::from_file(path).layout(Layout::PyTorch);
    for (from, to) in resnet::KEY_REMAPS {
        store = store.try_with_key_remapping(from, to).unwrap();
    }
    model.load_from_checked(&store).unwrap();
    let scheme = QuantScheme::default().with_value(QuantValue::Q8S);
    let quantized = WeightQuantizer::new()
        .keep_unquantizable_in_float()
        .quantize(&model, &mut Quantizer::new(Calibration::MinMax, scheme))
        .unwrap()
        .into_model();
    let x = resnet::images(16, device);
    let run = |m: &resnet::ResNet18| read(m.try_forward(x.clone()).unwrap());
    for _ in 0..2 {
        run(&model);
        run(&quantized);
    }
    let mut f32_forward = || run(&model);
    let mut q8_forward = || run(&quantized);
    let group = format!("resnet18 {name}");
    let record = paired(
        c,
        &group,
        &mut [("f32", &mut f32_forward), ("q8-tensor", &mut q8_forward)],
    );
    results.push((group, record));
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(30)
        .configure_from_args();
    let mut devices = vec![(Device::flex(), "flex".to_owned())];
    match burn_guard::devices::wgpu_adapter() {
        Ok(adapter) => {
            // benches/gpu.sh reads this line to refuse a CPU driver's figures.
            println!("wgpu adapter: {}", adapter.name);
            devices.push((adapter.device, "wgpu".to_owned()));
        }
        Err(err) => println!("no wgpu adapter ({err}); the wgpu rows are skipped"),
    }
    let mut results = Vec::new();
    for (device, name) in &devices {
        quantize(&mut c, device, name, &mut results);
        forward(&mut c, device, name, &mut results);
        resnet18(&mut c, device, name, &mut results);
    }
    c.final_summary();
    paired::print(
        &results,
        "group: first variant's mean (raw burn / f32), variant mean, variant / first (sums over \
         the paired run), difference per call, per-sample ratio quartiles",
    );
    print_gate(&results);
}

/// The error gate against `WeightQuantizer` without it, from the same paired run: what the
/// gate costs (its mean, the ratio of the sums, the per-sample ratio's quartiles).
fn print_gate(results: &[(String, Paired)]) {
    for (group, record) in results {
        let at = |name: &str| record.names.iter().position(|n| *n == name);
        let (Some(base), Some(gate)) = (
            at("WeightQuantizer (report)"),
            at("WeightQuantizer, error gate"),
        ) else {
            continue;
        };
        if record.samples.is_empty() {
            continue;
        }
        let (iters, base_time) = record.total(base);
        let (_, gate_time) = record.total(gate);
        let mut ratios: Vec<f64> = record
            .samples
            .iter()
            .map(|(_, times)| times[gate].as_secs_f64() / times[base].as_secs_f64())
            .collect();
        ratios.sort_by(f64::total_cmp);
        let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
        let per = |t: Duration| t.as_secs_f64() * 1e6 / iters as f64;
        println!(
            "{group}, error gate / WeightQuantizer: {:.2} µs, {:.2} µs, {:.3}×, {:+.2} µs, \
             [{:.3}, {:.3}] ({iters} pairs)",
            per(base_time),
            per(gate_time),
            gate_time.as_secs_f64() / base_time.as_secs_f64(),
            per(gate_time) - per(base_time),
            at(0.25),
            at(0.75),
        );
    }
}
