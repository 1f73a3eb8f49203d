//! What the guard costs: each guarded call beside the raw burn call, in one run.
//!
//! ```text
//! cargo bench --all-features --bench overhead
//! ```
//! Criterion prints both medians; the ratio (ours / raw) and the nanoseconds added per call are
//! computed from them in BENCHMARKS.md. For the tiny ops a second group runs raw and guarded
//! calls interleaved (`tiny [4] flex, interleaved …`) and prints the nanoseconds added per call
//! from its own sums (lines starting `tiny [4] flex <op>: raw …`): on a machine whose speed
//! drifts between the two medians, that figure is the steadier one. A control pair, raw burn
//! on both sides, shows the method's own bias in the same run.

use std::cell::RefCell;
use std::hint::black_box;
use std::time::{Duration, Instant};

use burn::tensor::quantization::QuantScheme;
use burn::tensor::{Device, Tensor};
use burn_guard::capability::{BackendStack, quantize_support, stack_of};
use burn_guard::policy::{Op, Policy};
use burn_guard::prelude::*;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, criterion_group, criterion_main};

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
    // change) moves both sides alike. Criterion's "time" here is one raw plus one guarded call;
    // the added nanoseconds are printed after each pair from the run's own sums (see `report`).
    let mut paired = c.benchmark_group("tiny [4] flex, interleaved (raw + guarded)");
    // Criterion sizes a sample by the time it is told; the real time is about ten times that.
    // Flat sampling gives every sample the same, large number of calls (a short sample is
    // all noise).
    paired
        .sampling_mode(SamplingMode::Flat)
        .sample_size(30)
        .warm_up_time(Duration::from_millis(50))
        .measurement_time(Duration::from_millis(300));
    // The method's own bias: raw burn on both sides must read about 0 ns added.
    pair(
        &mut paired,
        "add, raw on both sides (control)",
        || black_box(a.clone().add(b.clone())),
        || black_box(a.clone().add(b.clone())),
    );
    pair(
        &mut paired,
        "add",
        || black_box(a.clone().add(b.clone())),
        || black_box(a.clone().try_add(b.clone()).unwrap()),
    );
    pair(
        &mut paired,
        "reshape",
        || black_box(a.clone().reshape([2, 2])),
        || black_box(a.clone().try_reshape([2, 2]).unwrap()),
    );
    pair(
        &mut paired,
        "slice",
        || black_box(a.clone().slice([1..3])),
        || black_box(a.clone().try_slice([1..3]).unwrap()),
    );
    pair(
        &mut paired,
        "cat",
        || black_box(Tensor::cat(vec![a.clone(), b.clone()], 0)),
        || black_box(Tensor::try_cat(vec![a.clone(), b.clone()], 0).unwrap()),
    );
    paired.finish();
}

/// Benchmarks one interleaved pair in `group` and prints what the guard adds (see `report`).
fn pair<R, G>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    mut raw: impl FnMut() -> R,
    mut guarded: impl FnMut() -> G,
) {
    let samples = RefCell::new(Vec::new());
    group.bench_function(name, |bench| {
        bench.iter_custom(|iters| interleaved(iters, &samples, &mut raw, &mut guarded))
    });
    report(name, &samples.into_inner());
}

/// One sample of an interleaved pair: raw time, guarded time, calls of each.
type Sample = (Duration, Duration, u64);

/// Runs `iters` raw and `iters` guarded calls in alternating blocks of `BLOCK`, records both
/// times in `samples` and returns their sum, the time of `iters` pairs. Criterion gets the sum
/// because a difference can be negative in a noisy sample, and a duration cannot: clamping it
/// at zero would bias the figure upwards.
fn interleaved<R, G>(
    iters: u64,
    samples: &RefCell<Vec<Sample>>,
    mut raw: impl FnMut() -> R,
    mut guarded: impl FnMut() -> G,
) -> Duration {
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
    samples.borrow_mut().push((raw_time, guarded_time, iters));
    raw_time + guarded_time
}

/// Prints what the guard adds per call over every sample of one pair, criterion's warm-up
/// included: the run's mean (sum of guarded − sum of raw, over the calls), and the first
/// quartile, median and third quartile of the per-sample figure, which show the spread.
fn report(name: &str, samples: &[Sample]) {
    let calls: u64 = samples.iter().map(|&(_, _, n)| n).sum();
    if calls == 0 {
        return;
    }
    let per_call = |time: Duration| time.as_secs_f64() * 1e9 / calls as f64;
    let raw = per_call(samples.iter().map(|&(r, _, _)| r).sum());
    let guarded = per_call(samples.iter().map(|&(_, g, _)| g).sum());
    let mut added: Vec<f64> = samples
        .iter()
        .map(|&(r, g, n)| (g.as_secs_f64() - r.as_secs_f64()) * 1e9 / n as f64)
        .collect();
    added.sort_by(f64::total_cmp);
    let quantile = |q: f64| added[((added.len() - 1) as f64 * q).round() as usize];
    println!(
        "tiny [4] flex {name}: raw {raw:.1} ns, guarded {guarded:.1} ns, added {:+.1} ns \
         [q1 {:+.1}, median {:+.1}, q3 {:+.1}] over {} samples, {calls} calls",
        guarded - raw,
        quantile(0.25),
        quantile(0.5),
        quantile(0.75),
        samples.len(),
    );
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
