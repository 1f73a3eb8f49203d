//! Quantized inference of the digits MLP (64→256→128→10, random weights): f32 (raw burn's
//! `Linear`) vs Q8 per tensor vs Q8 per block 32 vs Q4 per block 32 (burn-guard's quantized
//! layers) on wgpu at batch 1 and 256; then the fallback path (NdArray serving, weights
//! quantized on Flex) vs the native path (Flex). Prints each variant's ratio to its baseline
//! and the weight bytes.
//!
//! ```text
//! cargo bench --all-features --bench quantized
//! BURN_GUARD_BENCH_HIDDEN=4096 BURN_GUARD_BENCH_BATCHES=1,1024 cargo bench --all-features --bench quantized
//! ```
//!
//! Without a wgpu adapter the scheme group runs on Flex.

#[path = "../examples/support/digits.rs"]
mod digits;

use std::time::{Duration, Instant};

use burn::module::Module;
use burn::tensor::{Device, Distribution, Tensor};
use burn_guard::nn::{ModuleQuantizer, QuantizedLayers};
use burn_guard::policy::Policy;
use criterion::{Criterion, criterion_group, criterion_main};
use digits::DigitsMlp;

fn env_list(name: &str, default: &[usize]) -> Vec<usize> {
    std::env::var(name)
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .filter(|v: &Vec<usize>| !v.is_empty())
        .unwrap_or_else(|| default.to_vec())
}

/// Mean wall time of `f` (which must wait for the device) over `iters` runs after one warm-up.
fn mean(iters: u32, mut f: impl FnMut()) -> Duration {
    f();
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    start.elapsed() / iters
}

fn bench(c: &mut Criterion) {
    let hidden = env_list("BURN_GUARD_BENCH_HIDDEN", &[256, 128]);
    let hidden = [hidden[0], *hidden.get(1).unwrap_or(&hidden[0])];
    let batches = env_list("BURN_GUARD_BENCH_BATCHES", &[1, 256]);
    let (device, name) = match burn_guard::devices::wgpu_adapter() {
        Ok(adapter) => (adapter.device, format!("wgpu {}", adapter.name)),
        Err(err) => {
            println!("no wgpu adapter ({err}); the scheme group runs on Flex");
            (Device::flex(), "flex".into())
        }
    };
    let model = DigitsMlp::new(hidden, &Device::flex()).to_device(&device);
    let quantized: Vec<(&str, QuantizedLayers)> = digits::schemes()
        .into_iter()
        .map(|(n, s)| {
            (
                n,
                ModuleQuantizer::new(s, Policy::strict())
                    .quantize(&model)
                    .unwrap(),
            )
        })
        .collect();
    let f32_bytes = digits::float_weight_bytes(&model);
    println!(
        "{name}: MLP 64-{}-{}-10; f32 weights {f32_bytes} bytes",
        hidden[0], hidden[1]
    );
    for (n, layers) in &quantized {
        let report = layers.report();
        println!(
            "  {n}: {} bytes ({:.3}x)",
            report.total_bytes().1,
            report.total_ratio()
        );
    }

    for &batch in &batches {
        let x = Tensor::<2>::random([batch, digits::FEATURES], Distribution::Default, &device);
        let mut group = c.benchmark_group(format!("mlp batch {batch} on {name}"));
        group
            .measurement_time(Duration::from_secs(3))
            .sample_size(20);
        group.bench_function("f32 (burn Linear)", |b| {
            b.iter(|| model.forward(x.clone()).into_data())
        });
        for (n, layers) in &quantized {
            group.bench_function(*n, |b| {
                b.iter(|| {
                    digits::quantized_forward(layers, x.clone())
                        .unwrap()
                        .into_data()
                })
            });
        }
        group.finish();
        let iters = 50;
        let base = mean(iters, || {
            model.forward(x.clone()).into_data();
        });
        for (n, layers) in &quantized {
            let t = mean(iters, || {
                digits::quantized_forward(layers, x.clone())
                    .unwrap()
                    .into_data();
            });
            println!(
                "ratio batch {batch} {n} / f32: {:.2} ({:.3?} vs {:.3?})",
                t.as_secs_f64() / base.as_secs_f64(),
                t,
                base
            );
        }
    }

    // Fallback vs native: the same Q8 block-32 layers served from NdArray (weights on Flex,
    // activations moved per call) vs native on Flex.
    let scheme = digits::schemes().swap_remove(1).1;
    let flex = Device::flex();
    #[allow(deprecated)]
    let ndarray = Device::ndarray();
    let cpu_model = DigitsMlp::new(hidden, &flex);
    let native = ModuleQuantizer::new(scheme, Policy::strict())
        .quantize(&cpu_model)
        .unwrap();
    let policy = Policy::fallback_to([flex.clone()]);
    let fallback = ModuleQuantizer::new(scheme, policy.clone())
        .quantize(&cpu_model.clone().to_device(&ndarray))
        .unwrap();
    let batch = 256;
    let x_flex = Tensor::<2>::random([batch, digits::FEATURES], Distribution::Default, &flex);
    let x_nd = x_flex.clone().to_device(&ndarray);
    let mut group = c.benchmark_group(format!("q8-block32 mlp batch {batch}: fallback vs native"));
    group
        .measurement_time(Duration::from_secs(3))
        .sample_size(20);
    group.bench_function("native on flex", |b| {
        b.iter(|| {
            digits::quantized_forward(&native, x_flex.clone())
                .unwrap()
                .into_data()
        })
    });
    group.bench_function("ndarray falling back to flex", |b| {
        b.iter(|| {
            digits::quantized_forward(&fallback, x_nd.clone())
                .unwrap()
                .into_data()
        })
    });
    group.finish();
    let iters = 50;
    let t_native = mean(iters, || {
        digits::quantized_forward(&native, x_flex.clone())
            .unwrap()
            .into_data();
    });
    let before = policy.stats_of(burn_guard::policy::Op::QuantizedLinear);
    let t_fallback = mean(iters, || {
        digits::quantized_forward(&fallback, x_nd.clone())
            .unwrap()
            .into_data();
    });
    let after = policy.stats_of(burn_guard::policy::Op::QuantizedLinear);
    let calls = after.fallbacks - before.fallbacks;
    println!(
        "ratio fallback / native: {:.2} ({t_fallback:.3?} vs {t_native:.3?}); per forward {} bytes out, {} bytes back",
        t_fallback.as_secs_f64() / t_native.as_secs_f64(),
        (after.bytes_to_fallback - before.bytes_to_fallback) * 3 / calls,
        (after.bytes_from_fallback - before.bytes_from_fallback) * 3 / calls,
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
