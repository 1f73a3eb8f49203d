//! What the sampled shadow checks cost while serving: the transformer encoder of
//! `benches/nn.rs` on Flex, its raw forward beside `Shadowed::forward` sampling 1 request in
//! 1 000 against a copy on Flex (the default reference; a serving GPU's shadow costs its
//! reference forward the same way, amortised over 1 000 requests); and the canary's time for
//! one input.
//!
//! ```text
//! cargo bench --all-features --bench verify
//! ```
//!
//! One paired criterion benchmark (`benches/support/paired.rs`): each iteration runs both
//! forwards, alternating which goes first, each ending in a read of its output. A sampled
//! request runs the reference forward and reads both outputs inline, so the mean carries one
//! such request per 1 000.

#[path = "support/paired.rs"]
mod paired;

use std::time::{Duration, Instant};

use burn::nn::transformer::{
    TransformerEncoder, TransformerEncoderConfig, TransformerEncoderInput,
};
use burn::tensor::{Device, Distribution, Tensor};
use burn_guard::verify::{Shadowed, Tolerance, canary};
use criterion::Criterion;

fn read(t: Tensor<3>) -> usize {
    t.into_data().bytes().len()
}

fn reference() -> Device {
    Device::flex()
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8))
        .sample_size(30)
        .configure_from_args();
    let device = Device::flex();
    device.seed(9);
    let encoder: TransformerEncoder = TransformerEncoderConfig::new(64, 128, 4, 2).init(&device);
    let tokens = Tensor::<3>::random([8, 32, 64], Distribution::Default, &device);
    let forward = |m: &TransformerEncoder, x: Tensor<3>| m.forward(TransformerEncoderInput::new(x));

    let start = Instant::now();
    let report = canary(
        &encoder,
        &reference(),
        vec![tokens.clone()],
        Tolerance::default(),
        forward,
    )
    .unwrap();
    println!(
        "canary, one input: {:?} ({})",
        start.elapsed(),
        if report.passed() { "passed" } else { "FAILED" }
    );

    let served = Shadowed::new(encoder.clone(), &reference(), 1000, Tolerance::default()).unwrap();
    let mut raw = || read(encoder.forward(TransformerEncoderInput::new(tokens.clone())));
    let mut shadowed = || read(served.forward(tokens.clone(), forward).unwrap());
    for _ in 0..3 {
        raw();
        shadowed();
    }
    let group = "forward encoder flex".to_owned();
    let record = paired::paired(
        &mut c,
        &group,
        &mut [
            ("burn forward", &mut raw),
            ("Shadowed 1 in 1000", &mut shadowed),
        ],
    );
    c.final_summary();
    paired::print(
        &[(group, record)],
        "group: burn's mean, shadowed mean, shadowed / burn (sums over the paired run), \
         difference per call, per-sample ratio quartiles",
    );
    let stats = served.stats();
    println!(
        "shadowed: {} requests, {} compared, {} diverged",
        stats.requests, stats.shadowed, stats.diverged
    );
}
