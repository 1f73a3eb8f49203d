//! Our linear vs burn's in first order, and a second-order step vs a first-order step for the
//! same perceptron, side by side in one run; the ratios are printed at the end.
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-release cargo bench --all-features --bench linear
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use burn_autodiff::Autodiff;
use burn_backend::ops::{FloatTensorOps, ModuleOps};
use burn_backend::tensor::FloatTensor;
use burn_backend::{AutodiffBackend, TensorData};
use burn_flex::Flex;
use burn_guard::backend::{self, Activation, Dense, Mlp, grad, grads_or_zeros, lift, track};
use criterion::Criterion;

type Ad = Autodiff<Flex>;
type Nested = Autodiff<Ad>;

type Param = (FloatTensor<Flex>, FloatTensor<Flex>);

const BATCH: usize = 128;
const DIMS: [usize; 4] = [4, 64, 64, 1];

fn flex(shape: &[usize], seed: usize) -> FloatTensor<Flex> {
    let n: usize = shape.iter().product();
    let values: Vec<f32> = (0..n)
        .map(|i| (((i + 1) * (seed + 7)) as f32 * 0.618).sin() * 0.3)
        .collect();
    Flex::float_from_data(TensorData::new(values, shape.to_vec()), &Default::default())
}

fn params() -> Vec<Param> {
    DIMS.windows(2)
        .enumerate()
        .map(|(l, io)| (flex(&[io[0], io[1]], 2 * l), flex(&[io[1]], 2 * l + 1)))
        .collect()
}

/// Burn's linear, forward and backward on `Autodiff<Flex>`.
fn burn_linear_step(x: &FloatTensor<Flex>, w: &FloatTensor<Flex>, b: &FloatTensor<Flex>) {
    let (x, w, b) = (
        track::<Ad>(x.clone()),
        track::<Ad>(w.clone()),
        track::<Ad>(b.clone()),
    );
    let y = Ad::linear(x.clone(), w.clone(), Some(b.clone()));
    let g = Ad::backward(Ad::float_sum(y));
    black_box((Ad::grad(&x, &g), Ad::grad(&w, &g), Ad::grad(&b, &g)));
}

/// One of our linears, forward and backward on `Autodiff<Flex>`.
fn our_linear_step(
    x: &FloatTensor<Flex>,
    w: &FloatTensor<Flex>,
    b: &FloatTensor<Flex>,
    decomposed: bool,
) {
    let (x, w, b) = (
        track::<Ad>(x.clone()),
        track::<Ad>(w.clone()),
        track::<Ad>(b.clone()),
    );
    let y = if decomposed {
        backend::linear_decomposed::<Ad>(x.clone(), w.clone(), Some(b.clone()))
    } else {
        backend::linear::<Ad>(x.clone(), w.clone(), Some(b.clone()))
    }
    .unwrap();
    let g = Ad::backward(Ad::float_sum(y));
    black_box((Ad::grad(&x, &g), Ad::grad(&w, &g), Ad::grad(&b, &g)));
}

/// First-order training step: gradient of Σ mlp(x) w.r.t. every parameter.
fn first_order_step(params: &[Param], x: &FloatTensor<Flex>) {
    let leaves: Vec<FloatTensor<Ad>> = params
        .iter()
        .flat_map(|(w, b)| [track::<Ad>(w.clone()), track::<Ad>(b.clone())])
        .collect();
    let layers = leaves
        .chunks(2)
        .map(|p| Dense {
            weight: p[0].clone(),
            bias: Some(p[1].clone()),
        })
        .collect();
    let mlp = Mlp::<Ad>::new(layers, Activation::Tanh).unwrap();
    let y = mlp.forward(lift::<Ad>(x.clone())).unwrap();
    black_box(grads_or_zeros::<Ad>(y, &leaves).unwrap());
}

/// Second-order step: gradient of Σ ∂(Σ mlp(x))/∂x w.r.t. every parameter.
fn second_order_step(params: &[Param], x: &FloatTensor<Flex>) {
    let leaves: Vec<FloatTensor<Ad>> = params
        .iter()
        .flat_map(|(w, b)| [track::<Ad>(w.clone()), track::<Ad>(b.clone())])
        .collect();
    let layers = leaves
        .chunks(2)
        .map(|p| Dense {
            weight: lift::<Nested>(p[0].clone()),
            bias: Some(lift::<Nested>(p[1].clone())),
        })
        .collect();
    let mlp = Mlp::<Nested>::new(layers, Activation::Tanh).unwrap();
    let x = track::<Nested>(lift::<Ad>(x.clone()));
    let y = mlp.forward(x.clone()).unwrap();
    let dx = grad::<Nested>(y, &x).unwrap();
    black_box(grads_or_zeros::<Ad>(dx, &leaves).unwrap());
}

/// Median wall time of `f` over `runs` runs, after a warm-up.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    for _ in 0..runs / 10 + 1 {
        f();
    }
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn main() {
    let mut c = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30);

    let (x, w, b) = (flex(&[BATCH, 64], 1), flex(&[64, 64], 2), flex(&[64], 3));
    let mut group = c.benchmark_group("linear first order [128,64]x[64,64] autodiff<flex>");
    group.bench_function("burn linear", |bench| {
        bench.iter(|| burn_linear_step(&x, &w, &b))
    });
    group.bench_function("burn-guard linear", |bench| {
        bench.iter(|| our_linear_step(&x, &w, &b, false))
    });
    group.bench_function("burn-guard linear_decomposed", |bench| {
        bench.iter(|| our_linear_step(&x, &w, &b, true))
    });
    group.finish();

    let params = params();
    let xs = flex(&[BATCH, DIMS[0]], 9);
    let mut group = c.benchmark_group("mlp [4,64,64,1] tanh batch 128 step");
    group.bench_function("first order (autodiff<flex>)", |bench| {
        bench.iter(|| first_order_step(&params, &xs))
    });
    group.bench_function("second order (autodiff<autodiff<flex>>)", |bench| {
        bench.iter(|| second_order_step(&params, &xs))
    });
    group.finish();
    c.final_summary();

    // The ratios, measured again side by side (median of many runs).
    let runs = 200;
    let burn = median(runs, || burn_linear_step(&x, &w, &b));
    let ours = median(runs, || our_linear_step(&x, &w, &b, false));
    let decomposed = median(runs, || our_linear_step(&x, &w, &b, true));
    let first = median(runs, || first_order_step(&params, &xs));
    let second = median(runs, || second_order_step(&params, &xs));
    println!(
        "ratio burn-guard linear / burn linear = {:.3} ({ours:?} / {burn:?})",
        ours.as_secs_f64() / burn.as_secs_f64()
    );
    println!(
        "ratio linear_decomposed / burn linear = {:.3} ({decomposed:?} / {burn:?})",
        decomposed.as_secs_f64() / burn.as_secs_f64()
    );
    println!(
        "ratio second-order step / first-order step = {:.3} ({second:?} / {first:?})",
        second.as_secs_f64() / first.as_secs_f64()
    );
}
