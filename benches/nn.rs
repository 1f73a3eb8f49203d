//! What the layer twins cost on a whole forward: MLP, LSTM and transformer encoder, raw burn
//! beside `try_forward` in one run, on Flex and on wgpu; and what a value read costs (an
//! embedding's ids checked, and vouched for).
//!
//! ```text
//! cargo bench --bench nn
//! ```
//! After criterion's own output, the bench prints one line per model and device with both
//! medians and the ratio (guarded / raw), read back from criterion's estimates. Each forward
//! ends in a read back of the output, so that wgpu's queued work is inside the measurement.
//! Without a wgpu adapter the wgpu rows are skipped and say so.

use std::path::PathBuf;
use std::time::Duration;

use burn::module::Module;
use burn::nn::transformer::{
    TransformerEncoder, TransformerEncoderConfig, TransformerEncoderInput,
};
use burn::nn::{EmbeddingConfig, Linear, LinearConfig, Lstm, LstmConfig, Relu};
use burn::tensor::{Device, Distribution, Int, Tensor};
use burn_guard::nn::transformer::TransformerEncoderInput as GuardedEncoderInput;
use burn_guard::prelude::*;
use burn_guard::value_reads;
use criterion::Criterion;

#[derive(Module, Debug)]
struct Mlp {
    hidden: Linear,
    activation: Relu,
    output: Linear,
}

impl Mlp {
    fn new(device: &Device) -> Self {
        Self {
            hidden: LinearConfig::new(64, 256).init(device),
            activation: Relu::new(),
            output: LinearConfig::new(256, 10).init(device),
        }
    }

    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.output
            .forward(self.activation.forward(self.hidden.forward(x)))
    }

    fn try_forward(&self, x: Tensor<2>) -> burn_guard::Result<Tensor<2>> {
        let x = self.hidden.try_forward(x).context("hidden")?;
        let x = self.activation.try_forward(x).context("activation")?;
        self.output.try_forward(x).context("output")
    }
}

fn read(t: Tensor<2>) -> usize {
    t.into_data().bytes().len()
}

fn read3(t: Tensor<3>) -> usize {
    t.into_data().bytes().len()
}

fn models(c: &mut Criterion, device: &Device, name: &str) {
    let x = Tensor::<2>::random([64, 64], Distribution::Default, device);
    let mlp = Mlp::new(device);
    // Compile every kernel both paths use before either is measured: on lavapipe a new
    // kernel takes seconds, far beyond criterion's warm-up.
    for _ in 0..5 {
        read(mlp.forward(x.clone()));
        read(mlp.try_forward(x.clone()).unwrap());
    }
    let mut group = c.benchmark_group(format!("mlp {name}"));
    group.bench_function("raw", |b| b.iter(|| read(mlp.forward(x.clone()))));
    group.bench_function("guarded", |b| {
        b.iter(|| read(mlp.try_forward(x.clone()).unwrap()))
    });
    group.finish();

    let seq = Tensor::<3>::random([8, 32, 16], Distribution::Default, device);
    let lstm: Lstm = LstmConfig::new(16, 64, true).init(device);
    for _ in 0..3 {
        read3(lstm.forward(seq.clone(), None).0);
        read3(lstm.try_forward(seq.clone(), None).unwrap().0);
    }
    let mut group = c.benchmark_group(format!("lstm {name}"));
    group.bench_function("raw", |b| {
        b.iter(|| read3(lstm.forward(seq.clone(), None).0))
    });
    group.bench_function("guarded", |b| {
        b.iter(|| read3(lstm.try_forward(seq.clone(), None).unwrap().0))
    });
    group.finish();

    let tokens = Tensor::<3>::random([8, 32, 64], Distribution::Default, device);
    let encoder: TransformerEncoder = TransformerEncoderConfig::new(64, 128, 4, 2).init(device);
    for _ in 0..3 {
        read3(encoder.forward(TransformerEncoderInput::new(tokens.clone())));
        read3(
            encoder
                .try_forward(GuardedEncoderInput::new(tokens.clone()))
                .unwrap(),
        );
    }
    let mut group = c.benchmark_group(format!("transformer encoder {name}"));
    group.bench_function("raw", |b| {
        b.iter(|| read3(encoder.forward(TransformerEncoderInput::new(tokens.clone()))))
    });
    group.bench_function("guarded", |b| {
        b.iter(|| {
            read3(
                encoder
                    .try_forward(GuardedEncoderInput::new(tokens.clone()))
                    .unwrap(),
            )
        })
    });
    group.finish();
}

/// The cost of a value read: an embedding's token ids read back and range-checked before the
/// lookup, beside raw burn and beside the same twin with the read vouched away.
fn embedding(c: &mut Criterion, device: &Device, name: &str) {
    let embedding = EmbeddingConfig::new(1000, 64).init(device);
    let ids = Tensor::<2, Int>::random([8, 32], Distribution::Uniform(0.0, 1000.0), device);
    for _ in 0..3 {
        read3(embedding.forward(ids.clone()));
        read3(embedding.try_forward(ids.clone()).unwrap());
    }
    let mut group = c.benchmark_group(format!("embedding {name}"));
    group.bench_function("raw", |b| b.iter(|| read3(embedding.forward(ids.clone()))));
    group.bench_function("guarded", |b| {
        b.iter(|| read3(embedding.try_forward(ids.clone()).unwrap()))
    });
    group.bench_function("vouched", |b| {
        b.iter(|| read3(value_reads::vouched(|| embedding.try_forward(ids.clone())).unwrap()))
    });
    group.finish();
}

/// The median criterion measured for `group/function`, in nanoseconds.
fn median_ns(group: &str, function: &str) -> Option<f64> {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    // Criterion's directory names replace characters a path cannot hold; spaces stay.
    let path = dir
        .join("criterion")
        .join(group)
        .join(function)
        .join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["median"]["point_estimate"].as_f64()
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6))
        .sample_size(50)
        .configure_from_args();
    let mut devices = vec![(Device::flex(), "flex".to_owned())];
    match burn_guard::devices::wgpu_adapter() {
        Ok(adapter) => devices.push((adapter.device, "wgpu".to_owned())),
        Err(err) => println!("no wgpu adapter ({err}); the wgpu rows are skipped"),
    }
    for (device, name) in &devices {
        models(&mut c, device, name);
        embedding(&mut c, device, name);
    }
    c.final_summary();
    println!("\nmodel / device: raw median, guarded median, guarded / raw");
    for (_, name) in &devices {
        for model in ["mlp", "lstm", "transformer encoder", "embedding"] {
            let group = format!("{model} {name}");
            match (median_ns(&group, "raw"), median_ns(&group, "guarded")) {
                (Some(raw), Some(guarded)) => println!(
                    "{group}: {:.1} µs, {:.1} µs, {:.3}×",
                    raw / 1e3,
                    guarded / 1e3,
                    guarded / raw
                ),
                _ => println!("{group}: no estimates (filtered out?)"),
            }
            if let (Some(raw), Some(vouched)) =
                (median_ns(&group, "raw"), median_ns(&group, "vouched"))
            {
                println!(
                    "{group}, vouched: {:.1} µs, {:.3}×",
                    vouched / 1e3,
                    vouched / raw
                );
            }
        }
    }
}
