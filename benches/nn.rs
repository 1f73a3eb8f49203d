//! What the layer twins cost on a whole forward: MLP, LSTM and transformer encoder (at a working
//! size and at a small size where the guard's fixed cost dominates), raw burn beside
//! `try_forward`, on Flex and on wgpu; and what a value read costs (an embedding's ids checked,
//! and vouched for).
//!
//! ```text
//! cargo bench --bench nn
//! ```
//! Raw and guarded are measured in one criterion benchmark per model (`<model> <device>/paired`):
//! every iteration runs one forward of each, alternating which goes first, and times each on its
//! own. A machine that speeds up or slows down during the run slows both sides alike, so the
//! ratio is not skewed by drift between two benchmarks run one after the other. criterion's own
//! report is the time of one raw and one guarded forward together. After it, the bench prints
//! one line per model and device, computed from the run's own sums over every timed iteration
//! (criterion's warm-up included): raw and guarded mean per forward, their ratio (sum guarded /
//! sum raw), the guard's cost per forward (guarded − raw), and the quartiles of the per-sample
//! ratio (one sample per call criterion made to the routine, warm-up calls included). Each
//! forward ends in a read back of the output, so that wgpu's queued work is inside the
//! measurement. Without a wgpu adapter the wgpu rows are skipped and say so.

use std::hint::black_box;
use std::time::{Duration, Instant};

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

/// What one paired benchmark measured: per criterion sample, the iterations and each variant's
/// summed time.
#[derive(Default)]
struct Paired {
    names: Vec<&'static str>,
    samples: Vec<(u64, Vec<Duration>)>,
}

impl Paired {
    fn total(&self, variant: usize) -> (u64, Duration) {
        self.samples
            .iter()
            .fold((0, Duration::ZERO), |(n, t), (iters, times)| {
                (
                    n + iters,
                    t + times.get(variant).copied().unwrap_or_default(),
                )
            })
    }

    /// Quartiles of the per-sample ratio `variant / variant 0`.
    fn ratio_quartiles(&self, variant: usize) -> (f64, f64) {
        let mut ratios: Vec<f64> = self
            .samples
            .iter()
            .map(|(_, times)| times[variant].as_secs_f64() / times[0].as_secs_f64())
            .collect();
        ratios.sort_by(f64::total_cmp);
        let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
        (at(0.25), at(0.75))
    }
}

/// One criterion benchmark `group/paired` that runs every variant once per iteration, rotating
/// which goes first, and times each forward on its own. criterion sees the sum of all variants;
/// the per-variant sums are returned for the ratio.
fn paired(
    c: &mut Criterion,
    group: &str,
    variants: &mut [(&'static str, &mut dyn FnMut() -> usize)],
) -> Paired {
    let mut record = Paired {
        names: variants.iter().map(|(name, _)| *name).collect(),
        samples: Vec::new(),
    };
    let n = variants.len();
    let mut group = c.benchmark_group(group);
    group.bench_function("paired", |b| {
        b.iter_custom(|iters| {
            let mut times = vec![Duration::ZERO; n];
            for i in 0..iters {
                for k in 0..n {
                    let v = (i as usize + k) % n;
                    let start = Instant::now();
                    black_box((variants[v].1)());
                    times[v] += start.elapsed();
                }
            }
            let total = times.iter().sum();
            record.samples.push((iters, times));
            total
        })
    });
    group.finish();
    record
}

fn models(c: &mut Criterion, device: &Device, name: &str, results: &mut Vec<(String, Paired)>) {
    let x = Tensor::<2>::random([64, 64], Distribution::Default, device);
    let mlp = Mlp::new(device);
    // Compile every kernel both paths use before either is measured: on lavapipe a new
    // kernel takes seconds, far beyond criterion's warm-up.
    for _ in 0..5 {
        read(mlp.forward(x.clone()));
        read(mlp.try_forward(x.clone()).unwrap());
    }
    let group = format!("mlp {name}");
    let record = paired(
        c,
        &group,
        &mut [
            ("raw", &mut || read(mlp.forward(x.clone()))),
            ("guarded", &mut || read(mlp.try_forward(x.clone()).unwrap())),
            // Raw burn again, as a third variant: what the method reports for two identical
            // calls (its own bias, e.g. an order effect) is read beside the guard's figure.
            ("raw again (control)", &mut || read(mlp.forward(x.clone()))),
        ],
    );
    results.push((group, record));

    let seq = Tensor::<3>::random([8, 32, 16], Distribution::Default, device);
    let lstm: Lstm = LstmConfig::new(16, 64, true).init(device);
    for _ in 0..3 {
        read3(lstm.forward(seq.clone(), None).0);
        read3(lstm.try_forward(seq.clone(), None).unwrap().0);
    }
    let group = format!("lstm {name}");
    let record = paired(
        c,
        &group,
        &mut [
            ("raw", &mut || read3(lstm.forward(seq.clone(), None).0)),
            ("guarded", &mut || {
                read3(lstm.try_forward(seq.clone(), None).unwrap().0)
            }),
        ],
    );
    results.push((group, record));

    let encoder: TransformerEncoder = TransformerEncoderConfig::new(64, 128, 4, 2).init(device);
    // The working size, and a small one where the guard's fixed cost (its checks, which do
    // not depend on the input's size) is most of what it adds.
    for (label, shape) in [("", [8, 32, 64]), (" small", [1, 4, 64])] {
        let tokens = Tensor::<3>::random(shape, Distribution::Default, device);
        for _ in 0..3 {
            read3(encoder.forward(TransformerEncoderInput::new(tokens.clone())));
            read3(
                encoder
                    .try_forward(GuardedEncoderInput::new(tokens.clone()))
                    .unwrap(),
            );
        }
        let group = format!("transformer encoder{label} {name}");
        let record = paired(
            c,
            &group,
            &mut [
                ("raw", &mut || {
                    read3(encoder.forward(TransformerEncoderInput::new(tokens.clone())))
                }),
                ("guarded", &mut || {
                    read3(
                        encoder
                            .try_forward(GuardedEncoderInput::new(tokens.clone()))
                            .unwrap(),
                    )
                }),
            ],
        );
        results.push((group, record));
    }
}

/// The cost of a value read: an embedding's token ids read back and range-checked before the
/// lookup, beside raw burn and beside the same twin with the read vouched away.
fn embedding(c: &mut Criterion, device: &Device, name: &str, results: &mut Vec<(String, Paired)>) {
    let embedding = EmbeddingConfig::new(1000, 64).init(device);
    let ids = Tensor::<2, Int>::random([8, 32], Distribution::Uniform(0.0, 1000.0), device);
    for _ in 0..3 {
        read3(embedding.forward(ids.clone()));
        read3(embedding.try_forward(ids.clone()).unwrap());
    }
    let group = format!("embedding {name}");
    let record = paired(
        c,
        &group,
        &mut [
            ("raw", &mut || read3(embedding.forward(ids.clone()))),
            ("guarded", &mut || {
                read3(embedding.try_forward(ids.clone()).unwrap())
            }),
            ("vouched", &mut || {
                read3(value_reads::vouched(|| embedding.try_forward(ids.clone())).unwrap())
            }),
        ],
    );
    results.push((group, record));
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
    let mut results = Vec::new();
    for (device, name) in &devices {
        models(&mut c, device, name, &mut results);
        embedding(&mut c, device, name, &mut results);
    }
    c.final_summary();
    println!(
        "\nmodel / device: raw mean, variant mean, variant / raw (sums over the paired run), \
         added per forward, per-sample ratio quartiles"
    );
    for (group, record) in &results {
        // A group filtered out on the command line never ran its routine.
        if record.samples.is_empty() {
            continue;
        }
        let (iters, raw) = record.total(0);
        let per = |t: Duration| t.as_secs_f64() * 1e6 / iters as f64;
        for (variant, name) in record.names.iter().enumerate().skip(1) {
            let (_, time) = record.total(variant);
            let (q1, q3) = record.ratio_quartiles(variant);
            println!(
                "{group}, {name}: {:.2} µs, {:.2} µs, {:.3}×, {:+.2} µs, [{q1:.3}, {q3:.3}] \
                 ({iters} pairs)",
                per(raw),
                per(time),
                time.as_secs_f64() / raw.as_secs_f64(),
                per(time) - per(raw),
            );
        }
    }
}
