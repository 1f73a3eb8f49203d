//! Paired measurement, shared by the benches that set a twin beside burn (`nn`,
//! `quantized_models`, `linalg`, `signal`, `vision`, ...): one criterion benchmark
//! `group/paired` runs every variant once per iteration, rotating which goes first, and times
//! each on its own, so that a machine that drifts during the run moves every variant alike.
//! criterion sees the sum of all variants; the per-variant sums come back for the ratios, which
//! [`print`] writes from the run's own sums.
#![allow(dead_code)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;

/// What one paired benchmark measured: per criterion sample, the iterations and each variant's
/// summed time.
#[derive(Default)]
pub struct Paired {
    pub names: Vec<&'static str>,
    pub samples: Vec<(u64, Vec<Duration>)>,
}

impl Paired {
    /// Iterations and summed time of `variant` over every sample.
    pub fn total(&self, variant: usize) -> (u64, Duration) {
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
    pub fn ratio_quartiles(&self, variant: usize) -> (f64, f64) {
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

/// Runs `variants` as one criterion benchmark `group/paired` (see the module doc).
pub fn paired(
    c: &mut Criterion,
    group: &str,
    variants: &mut [(&'static str, &mut dyn FnMut() -> usize)],
) -> Paired {
    paired_settled(c, group, Duration::ZERO, variants)
}

/// As [`paired`], with the machine left idle for `settle` before each timed call (not timed):
/// for variants that run in different processes, so that one process's worker threads,
/// still spinning after its call, do not take the cores from the next call's process.
pub fn paired_settled(
    c: &mut Criterion,
    group: &str,
    settle: Duration,
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
                    if !settle.is_zero() {
                        std::thread::sleep(settle);
                    }
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

/// One line per group and variant after criterion's report: the first variant's mean, the
/// variant's mean, their ratio (sum variant / sum first), the difference per call and the
/// per-sample ratio's quartiles. A group filtered out on the command line is skipped.
pub fn print(results: &[(String, Paired)], header: &str) {
    println!("\n{header}");
    for (group, record) in results {
        if record.samples.is_empty() {
            continue;
        }
        let (iters, first) = record.total(0);
        let per = |t: Duration| t.as_secs_f64() * 1e6 / iters as f64;
        for (variant, name) in record.names.iter().enumerate().skip(1) {
            let (_, time) = record.total(variant);
            let (q1, q3) = record.ratio_quartiles(variant);
            println!(
                "{group}, {name}: {:.2} µs, {:.2} µs, {:.3}×, {:+.2} µs, [{q1:.3}, {q3:.3}] \
                 ({iters} pairs)",
                per(first),
                per(time),
                time.as_secs_f64() / first.as_secs_f64(),
                per(time) - per(first),
            );
        }
    }
}

/// The criterion settings of the twin benches (`linalg`, `signal`, `vision`): 1 s of warm-up,
/// 5 s of measurement, 20 samples, then the command line's options.
pub fn twin_criterion() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(20)
        .configure_from_args()
}

/// The closing summary of a twin bench: criterion's, then each group's ratio line.
pub fn finish_twins(c: &mut Criterion, results: &[(String, Paired)]) {
    c.final_summary();
    print(
        results,
        "group: burn's mean, twin's mean, twin / burn (sums over the paired run), difference per \
         call, per-sample ratio quartiles",
    );
}
