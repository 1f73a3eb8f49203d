//! The cost of falling back: a remote device's quantized matmul runs on Flex (activations move
//! to Flex and the product back) vs the same quantized matmul native on Flex. Reports the ratio
//! and the time per MiB moved.
//!
//! ```text
//! cargo bench --all-features --bench fallback
//! ```

use std::time::Duration;

use burn::tensor::quantization::{QuantScheme, ScaleDtype};
use burn_backend::TensorData;
use burn_backend::ops::FloatTensorOps;
use burn_flex::Flex;
use burn_guard::backend::quant::{
    Placed, q_matmul, quantize_dynamic, quantize_dynamic_or_fallback,
};
use burn_guard::devices::LoopbackRemote;
use burn_guard::policy::Policy;
use burn_remote::RemoteBackend;
use criterion::{Criterion, criterion_group, criterion_main};

const BATCH: usize = 256;
const IN: usize = 256;
const OUT: usize = 256;

fn values(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i as f32 * 0.37).sin()).collect()
}

fn bench(c: &mut Criterion) {
    let remote = LoopbackRemote::start().unwrap();
    let flex = Default::default();
    let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
    let weights = TensorData::new(values(IN * OUT), [IN, OUT]);
    let activations = TensorData::new(values(BATCH * IN), [BATCH, IN]);

    let native_w = Placed::Native(
        quantize_dynamic::<Flex>(Flex::float_from_data(weights.clone(), &flex), &scheme).unwrap(),
    );
    let policy = Policy::fallback_to([]);
    let fallback_w = quantize_dynamic_or_fallback::<RemoteBackend, Flex>(
        RemoteBackend::float_from_data(weights, remote.device()),
        &scheme,
        &policy,
        &flex,
    )
    .unwrap();
    assert!(fallback_w.is_fallback());

    let mut group = c.benchmark_group("q_matmul 256x256x256 q8 block32");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("native on flex", |b| {
        b.iter(|| {
            let x = Flex::float_from_data(activations.clone(), &flex);
            let y = q_matmul::<Flex, Flex>(x, &native_w, &Policy::strict(), &flex).unwrap();
            burn_backend::read_sync(Flex::float_into_data(y)).unwrap()
        })
    });
    group.bench_function("remote falling back to flex", |b| {
        b.iter(|| {
            let x = RemoteBackend::float_from_data(activations.clone(), remote.device());
            let y = q_matmul::<RemoteBackend, Flex>(x, &fallback_w, &policy, &flex).unwrap();
            burn_backend::read_sync(RemoteBackend::float_into_data(y)).unwrap()
        })
    });
    group.finish();

    let stats = policy.stats_of(burn_guard::policy::Op::QMatmul);
    let mib = (stats.bytes_to_fallback + stats.bytes_from_fallback) as f64 / (1024.0 * 1024.0);
    if mib > 0.0 {
        println!(
            "fallback moves: {:.1} MiB over {} calls in {:?}: {:.2} ms per MiB",
            mib,
            stats.fallbacks,
            stats.move_time,
            stats.move_time.as_secs_f64() * 1000.0 / mib
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
