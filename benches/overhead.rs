//! What the guard costs: each guarded call beside the raw burn call, in one run.
//!
//! ```text
//! cargo bench --bench overhead
//! ```
//! Criterion prints both medians; the ratio (ours / raw) and the nanoseconds added per call are
//! computed from them in BENCHMARKS.md. For the tiny ops a second group measures the added
//! nanoseconds directly, raw and guarded calls interleaved (`tiny [4] flex, added …`): on a
//! machine whose speed drifts between the two medians, that figure is the steadier one.

use std::hint::black_box;
use std::time::{Duration, Instant};

use burn::tensor::quantization::QuantScheme;
use burn::tensor::{Device, Tensor};
use burn_guard::capability::{BackendStack, quantize_support, stack_of};
use burn_guard::policy::{Op, Policy};
use burn_guard::prelude::*;
use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};

fn matmul(c: &mut Criterion) {
    let device = Device::flex();
    for n in [256usize, 1024] {
        let a = Tensor::<2>::random([n, n], burn::tensor::Distribution::Default, &device);
        let b = Tensor::<2>::random([n, n], burn::tensor::Distribution::Default, &device);
        let mut group = c.benchmark_group(format!("matmul {n}x{n} flex"));
        if n == 1024 {
            group.sample_size(10);
        }
        group.bench_function("raw", |bench| {
            bench.iter(|| a.clone().matmul(b.clone()).into_data().bytes().len())
        });
        group.bench_function("guarded", |bench| {
            bench.iter(|| {
                a.clone()
                    .try_matmul(b.clone())
                    .unwrap()
                    .into_data()
                    .bytes()
                    .len()
            })
        });
        group.finish();
    }
}

// burn's `slice` takes one range per dimension: `[1..3]` is that array, not a mistaken `vec![a..b]`.
#[allow(clippy::single_range_in_vec_init)]
fn tiny_ops(c: &mut Criterion) {
    let device = Device::flex();
    let a = Tensor::<1>::from_floats([1.0, 2.0, 3.0, 4.0], &device);
    let b = Tensor::<1>::from_floats([4.0, 3.0, 2.0, 1.0], &device);
    let mut group = c.benchmark_group("tiny [4] flex");
    group.bench_function("add raw", |bench| {
        bench.iter(|| black_box(a.clone().add(b.clone())))
    });
    group.bench_function("add guarded", |bench| {
        bench.iter(|| black_box(a.clone().try_add(b.clone()).unwrap()))
    });
    group.bench_function("reshape raw", |bench| {
        bench.iter(|| black_box(a.clone().reshape([2, 2])))
    });
    group.bench_function("reshape guarded", |bench| {
        bench.iter(|| black_box(a.clone().try_reshape([2, 2]).unwrap()))
    });
    group.bench_function("slice raw", |bench| {
        bench.iter(|| black_box(a.clone().slice([1..3])))
    });
    group.bench_function("slice guarded", |bench| {
        bench.iter(|| black_box(a.clone().try_slice([1..3]).unwrap()))
    });
    group.bench_function("cat raw", |bench| {
        bench.iter(|| black_box(Tensor::cat(vec![a.clone(), b.clone()], 0)))
    });
    group.bench_function("cat guarded", |bench| {
        bench.iter(|| black_box(Tensor::try_cat(vec![a.clone(), b.clone()], 0).unwrap()))
    });
    group.finish();

    // The same pairs, interleaved: blocks of raw and guarded calls alternate within each
    // sample, so a machine that slows down or speeds up over seconds (another tenant, a clock
    // change) moves both sides alike. Each sample's figure is guarded minus raw, per call:
    // criterion's "time" here is the nanoseconds the guard adds.
    let mut paired = c.benchmark_group("tiny [4] flex, added (guarded − raw, interleaved)");
    // Criterion sizes a sample by the time it is told; the real time is about ten times that.
    // Flat sampling gives every sample the same, large number of calls (a short sample is
    // all noise, and criterion refuses a sample of zero).
    paired
        .sampling_mode(SamplingMode::Flat)
        .sample_size(30)
        .warm_up_time(Duration::from_millis(50))
        .measurement_time(Duration::from_millis(300));
    paired.bench_function("add", |bench| {
        bench.iter_custom(|iters| {
            added(
                iters,
                || black_box(a.clone().add(b.clone())),
                || black_box(a.clone().try_add(b.clone()).unwrap()),
            )
        })
    });
    paired.bench_function("reshape", |bench| {
        bench.iter_custom(|iters| {
            added(
                iters,
                || black_box(a.clone().reshape([2, 2])),
                || black_box(a.clone().try_reshape([2, 2]).unwrap()),
            )
        })
    });
    paired.bench_function("slice", |bench| {
        bench.iter_custom(|iters| {
            added(
                iters,
                || black_box(a.clone().slice([1..3])),
                || black_box(a.clone().try_slice([1..3]).unwrap()),
            )
        })
    });
    paired.bench_function("cat", |bench| {
        bench.iter_custom(|iters| {
            added(
                iters,
                || black_box(Tensor::cat(vec![a.clone(), b.clone()], 0)),
                || black_box(Tensor::try_cat(vec![a.clone(), b.clone()], 0).unwrap()),
            )
        })
    });
    paired.finish();
}

/// Runs `iters` raw and `iters` guarded calls in alternating blocks of [`BLOCK`] and returns
/// the guarded time minus the raw time (zero if the guarded calls were faster).
fn added<R, G>(iters: u64, mut raw: impl FnMut() -> R, mut guarded: impl FnMut() -> G) -> Duration {
    const BLOCK: u64 = 100;
    let (mut raw_time, mut guarded_time) = (Duration::ZERO, Duration::ZERO);
    let mut left = iters;
    while left > 0 {
        let block = left.min(BLOCK);
        let start = Instant::now();
        for _ in 0..block {
            drop(raw());
        }
        raw_time += start.elapsed();
        let start = Instant::now();
        for _ in 0..block {
            drop(guarded());
        }
        guarded_time += start.elapsed();
        left -= block;
    }
    guarded_time.saturating_sub(raw_time)
}

fn decisions(c: &mut Criterion) {
    let device = Device::flex();
    let stack = BackendStack::parse("dispatch<flex>");
    let scheme = QuantScheme::default();
    let policy = Policy::fallback_to([Device::flex()]);
    let mut group = c.benchmark_group("decisions");
    group.bench_function("capability lookup (parsed stack)", |bench| {
        bench.iter(|| black_box(quantize_support(black_box(&stack), &scheme, &[64, 64])))
    });
    group.bench_function("stack of a device (cached)", |bench| {
        bench.iter(|| black_box(stack_of(black_box(&device))))
    });
    group.bench_function("cached capability lookup (device to answer)", |bench| {
        bench.iter(|| {
            black_box(quantize_support(
                stack_of(black_box(&device)),
                &scheme,
                &[64, 64],
            ))
        })
    });
    group.bench_function("policy decision", |bench| {
        bench.iter(|| black_box(policy.may_fall_back(black_box(Op::QuantizeDynamic))))
    });
    group.finish();
}

fn mlp(c: &mut Criterion) {
    let mut devices = vec![("flex", Device::flex())];
    if let Ok(adapter) = burn_guard::devices::wgpu_adapter() {
        devices.push(("wgpu", adapter.device));
    }
    for (name, device) in devices {
        let dist = burn::tensor::Distribution::Default;
        let x = Tensor::<2>::random([64, 64], dist, &device);
        let w = [
            Tensor::<2>::random([64, 256], dist, &device),
            Tensor::<2>::random([256, 128], dist, &device),
            Tensor::<2>::random([128, 10], dist, &device),
        ];
        let bias = [
            Tensor::<2>::random([1, 256], dist, &device),
            Tensor::<2>::random([1, 128], dist, &device),
            Tensor::<2>::random([1, 10], dist, &device),
        ];
        let mut group = c.benchmark_group(format!("mlp 64-256-128-10 batch 64 {name}"));
        group.bench_function("raw", |bench| {
            bench.iter(|| {
                let mut h = x.clone();
                for (w, b) in w.iter().zip(&bias) {
                    h = burn::tensor::activation::relu(h.matmul(w.clone()).add(b.clone()));
                }
                h.into_data().bytes().len()
            })
        });
        group.bench_function("guarded", |bench| {
            bench.iter(|| {
                let mut h = x.clone();
                for (w, b) in w.iter().zip(&bias) {
                    h = burn::tensor::activation::relu(
                        h.try_matmul(w.clone()).unwrap().try_add(b.clone()).unwrap(),
                    );
                }
                h.into_data().bytes().len()
            })
        });
        group.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = tiny_ops, decisions, matmul, mlp
}
criterion_main!(benches);
