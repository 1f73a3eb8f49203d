//! A physics-informed network on burn-guard's higher-order path.
//!
//! Learns u on [0, 1] with u'' = -π² sin(πx), u(0) = u(1) = 0 (solution: sin(πx)), with a
//! perceptron of 2 hidden layers of 32 and tanh. The loss needs u'' and then its gradient
//! w.r.t. the weights: three differentiations, so the network runs on
//! `Autodiff<Autodiff<Autodiff<Flex>>>`, where burn's own `linear` panics on the first backward
//! and burn-guard's [`linear`](burn_guard::backend::linear) routes through matmul.
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-release cargo run --release --all-features --example pinn [steps]
//! ```
//!
//! Prints the loss every 250 steps and, last, `max_abs_error <value>` against sin(πx) on 101
//! points.

use std::f64::consts::PI;
use std::time::Instant;

use burn_autodiff::Autodiff;
use burn_backend::ops::FloatTensorOps;
use burn_backend::tensor::FloatTensor;
use burn_backend::{AutodiffBackend, Backend, TensorData};
use burn_flex::Flex;
use burn_guard::backend::{Activation, Dense, Mlp, grad, grads_or_zeros, lift, track};

type L1 = Autodiff<Flex>;
type L2 = Autodiff<L1>;
type L3 = Autodiff<L2>;

const WIDTH: usize = 32;
const POINTS: usize = 64;

fn flex(values: &[f32], shape: &[usize]) -> FloatTensor<Flex> {
    Flex::float_from_data(
        TensorData::new(values.to_vec(), shape.to_vec()),
        &Default::default(),
    )
}

fn read(t: FloatTensor<Flex>) -> Vec<f32> {
    burn_backend::read_sync(Flex::float_into_data(t))
        .unwrap()
        .try_to_vec::<f32>()
        .unwrap()
}

/// Parameters as plain vectors: (values, shape) per tensor, weight then bias per layer.
struct Params {
    tensors: Vec<(Vec<f32>, Vec<usize>)>,
}

impl Params {
    fn init() -> Self {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut uniform = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let dims = [1, WIDTH, WIDTH, 1];
        let mut tensors = Vec::new();
        for io in dims.windows(2) {
            let (i, o) = (io[0], io[1]);
            let limit = (6.0 / (i + o) as f64).sqrt();
            let w = (0..i * o).map(|_| (uniform() * limit) as f32).collect();
            tensors.push((w, vec![i, o]));
            tensors.push((vec![0.0; o], vec![o]));
        }
        Self { tensors }
    }

    fn mlp<B: Backend>(&self, mut lift: impl FnMut(FloatTensor<Flex>) -> FloatTensor<B>) -> Mlp<B> {
        let layers = self
            .tensors
            .chunks(2)
            .map(|pair| Dense {
                weight: lift(flex(&pair[0].0, &pair[0].1)),
                bias: Some(lift(flex(&pair[1].0, &pair[1].1))),
            })
            .collect();
        Mlp::new(layers, Activation::Tanh).unwrap()
    }
}

/// Adam on the flat parameter vectors.
struct Adam {
    m: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
    t: i32,
}

impl Adam {
    fn new(params: &Params) -> Self {
        let zeros: Vec<Vec<f32>> = params
            .tensors
            .iter()
            .map(|(v, _)| vec![0.0; v.len()])
            .collect();
        Self {
            m: zeros.clone(),
            v: zeros,
            t: 0,
        }
    }

    fn step(&mut self, params: &mut Params, grads: &[Vec<f32>], lr: f32) {
        let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
        self.t += 1;
        let c1 = 1.0 - b1.powi(self.t);
        let c2 = 1.0 - b2.powi(self.t);
        for (((p, _), g), (m, v)) in params
            .tensors
            .iter_mut()
            .zip(grads)
            .zip(self.m.iter_mut().zip(self.v.iter_mut()))
        {
            for (((p, g), m), v) in p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
                *m = b1 * *m + (1.0 - b1) * g;
                *v = b2 * *v + (1.0 - b2) * g * g;
                *p -= lr * (*m / c1) / ((*v / c2).sqrt() + eps);
            }
        }
    }
}

/// One training step: the loss and its gradient w.r.t. every parameter.
fn loss_and_grads(params: &Params, x: &[f32], forcing: &[f32]) -> (f32, Vec<Vec<f32>>) {
    // Parameters tracked at the innermost autodiff layer, lifted (untracked) above it.
    let p1: Vec<FloatTensor<L1>> = params
        .tensors
        .iter()
        .map(|(v, s)| track::<L1>(flex(v, s)))
        .collect();
    let mut p1_iter = p1.iter().cloned();
    let mlp3 = params.mlp::<L3>(|_| {
        let t = p1_iter.next().unwrap();
        lift::<L3>(lift::<L2>(t))
    });
    let mut p1_iter = p1.iter().cloned();
    let mlp1 = params.mlp::<L1>(|_| p1_iter.next().unwrap());

    // u'' at the collocation points: x tracked at the two outer layers.
    let x2 = track::<L2>(lift::<L1>(flex(x, &[x.len(), 1])));
    let x3 = track::<L3>(x2.clone());
    let u = mlp3.forward(x3.clone()).unwrap();
    let du = grad::<L3>(u, &x3).unwrap(); // L2, differentiable w.r.t. x2
    let d2u = grad::<L2>(du, &x2).unwrap(); // L1, differentiable w.r.t. the parameters

    // Residual scaled by 1/π²: u''/π² + sin(πx).
    let f = lift::<L1>(flex(forcing, &[x.len(), 1]));
    let r = L1::float_add(L1::float_div_scalar(d2u, ((PI * PI) as f32).into()), f);
    let pde = L1::float_mean(L1::float_mul(r.clone(), r));

    let ub = mlp1
        .forward(lift::<L1>(flex(&[0.0, 1.0], &[2, 1])))
        .unwrap();
    let bc = L1::float_mean(L1::float_mul(ub.clone(), ub));
    let loss = L1::float_add(pde, bc);
    let value = read(L1::inner(loss.clone()))[0];
    let grads = grads_or_zeros::<L1>(loss, &p1)
        .unwrap()
        .into_iter()
        .map(read)
        .collect();
    (value, grads)
}

fn max_abs_error(params: &Params) -> f64 {
    let mlp = params.mlp::<Flex>(|t| t);
    let xs: Vec<f32> = (0..101).map(|i| i as f32 / 100.0).collect();
    let u = read(mlp.forward(flex(&xs, &[101, 1])).unwrap());
    xs.iter()
        .zip(&u)
        .map(|(x, u)| (f64::from(*u) - (PI * f64::from(*x)).sin()).abs())
        .fold(0.0, f64::max)
}

fn main() {
    let steps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3000);
    let x: Vec<f32> = (0..POINTS)
        .map(|i| (i as f32 + 0.5) / POINTS as f32)
        .collect();
    let forcing: Vec<f32> = x
        .iter()
        .map(|x| (PI * f64::from(*x)).sin() as f32)
        .collect();

    let mut params = Params::init();
    let mut adam = Adam::new(&params);
    let start = Instant::now();
    println!(
        "pinn: u'' = -pi^2 sin(pi x) on [0,1], u(0)=u(1)=0; mlp [1, 32, 32, 1] tanh, {POINTS} collocation points, {steps} Adam steps"
    );
    println!("backend: {}", <L3 as Backend>::name(&Default::default()));
    for step in 0..steps {
        // Cosine decay from 5e-3 to 5e-5.
        let progress = step as f64 / steps as f64;
        let lr = (5e-5 + 0.5 * (5e-3 - 5e-5) * (1.0 + (PI * progress).cos())) as f32;
        let (loss, grads) = loss_and_grads(&params, &x, &forcing);
        adam.step(&mut params, &grads, lr);
        if step % 250 == 0 || step + 1 == steps {
            println!(
                "step {step:>5}  loss {loss:.3e}  lr {lr:.1e}  max_abs_error {:.3e}  elapsed {:.1}s",
                max_abs_error(&params),
                start.elapsed().as_secs_f64()
            );
        }
    }
    println!("wall time {:.1}s", start.elapsed().as_secs_f64());
    println!("max_abs_error {:.3e}", max_abs_error(&params));
}
