//! What the layer twins cost on a whole forward: MLP, LSTM and transformer encoder (at a working
//! size and at a small size where the guard's fixed cost dominates), raw burn beside
//! `try_forward`, on Flex and on wgpu; and what a value read costs (an embedding's ids checked,
//! and vouched for).
//!
//! ```text
//! cargo bench --all-features --bench nn
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

#[path = "support/mlp.rs"]
mod mlp;
#[path = "support/paired.rs"]
mod paired;

use std::time::Duration;

use burn::nn::transformer::{
    TransformerEncoder, TransformerEncoderConfig, TransformerEncoderInput,
};
use burn::nn::{EmbeddingConfig, Lstm, LstmConfig};
use burn::tensor::{Device, Distribution, Int, Tensor};
use burn_guard::nn::transformer::TransformerEncoderInput as GuardedEncoderInput;
use burn_guard::prelude::*;
use burn_guard::value_reads;
use criterion::Criterion;
use mlp::Mlp;
use paired::{Paired, paired};

/// The shared MLP's forward through the layer twins.
trait TryMlp {
    fn try_forward(&self, x: Tensor<2>) -> burn_guard::Result<Tensor<2>>;
}

impl TryMlp for Mlp {
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
    paired::print(
        &results,
        "model / device: raw mean, variant mean, variant / raw (sums over the paired run), \
         added per forward, per-sample ratio quartiles",
    );
}
