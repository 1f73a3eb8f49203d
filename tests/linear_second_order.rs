//! Second order on `Autodiff<Autodiff<Flex>>`: the gradient w.r.t. the weights of
//! `F(W) = Σ ∂(Σ mlp(x))/∂x` equals central finite differences of an independent f64
//! reference; burn's own `linear` still panics there (the canary) and ours does not; the other
//! non-differentiable module ops are refused.

use burn_autodiff::Autodiff;
use burn_backend::ops::{FloatTensorOps, IntTensorOps, ModuleOps};
use burn_backend::tensor::FloatTensor;
use burn_backend::{AutodiffBackend, Backend, TensorData};
use burn_flex::Flex;
use burn_guard::GuardError;
use burn_guard::backend::{self, Activation, Dense, Mlp, grad, grads_or_zeros, lift, track};
use proptest::prelude::*;

type Inner = Autodiff<Flex>;
type Outer = Autodiff<Inner>;

fn read<B: Backend>(t: FloatTensor<B>) -> Vec<f32> {
    burn_backend::read_sync(B::float_into_data(t))
        .unwrap()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .unwrap()
}

fn flex(values: &[f64], shape: &[usize]) -> FloatTensor<Flex> {
    let values: Vec<f32> = values.iter().map(|v| *v as f32).collect();
    Flex::float_from_data(TensorData::new(values, shape.to_vec()), &Default::default())
}

/// A tanh perceptron in plain f64: layers of (weight [in, out] row-major, bias [out]).
#[derive(Clone, Debug)]
struct Reference {
    layers: Vec<(Vec<f64>, Vec<f64>, usize, usize)>,
}

impl Reference {
    /// F(W) = Σ_batch Σ_i ∂(Σ_j y_j)/∂x_i.
    fn f(&self, x: &[f64], batch: usize) -> f64 {
        let d_in = self.layers[0].2;
        let mut total = 0.0;
        for row in x.chunks(d_in).take(batch) {
            // Forward, keeping the activations.
            let mut activations = vec![row.to_vec()];
            let last = self.layers.len() - 1;
            for (l, (w, b, i, o)) in self.layers.iter().enumerate() {
                let h = activations.last().unwrap();
                let mut z: Vec<f64> = b.clone();
                for (k, zk) in z.iter_mut().enumerate() {
                    for (j, hj) in h.iter().enumerate().take(*i) {
                        *zk += hj * w[j * o + k];
                    }
                }
                if l < last {
                    z.iter_mut().for_each(|v| *v = v.tanh());
                }
                activations.push(z);
            }
            // Backward of Σ y w.r.t. the input.
            let mut g = vec![1.0; self.layers[last].3];
            for (l, (w, _, i, o)) in self.layers.iter().enumerate().rev() {
                if l < last {
                    for (gk, hk) in g.iter_mut().zip(&activations[l + 1]) {
                        *gk *= 1.0 - hk * hk;
                    }
                }
                g = (0..*i)
                    .map(|j| (0..*o).map(|k| w[j * o + k] * g[k]).sum())
                    .collect();
            }
            total += g.iter().sum::<f64>();
        }
        total
    }

    /// Central finite differences of F w.r.t. every weight, then every bias, layer by layer.
    fn finite_differences(&self, x: &[f64], batch: usize) -> Vec<Vec<f64>> {
        let eps = 1e-5;
        let mut out = Vec::new();
        for l in 0..self.layers.len() {
            for part in 0..2 {
                let n = if part == 0 {
                    self.layers[l].0.len()
                } else {
                    self.layers[l].1.len()
                };
                let mut d = Vec::with_capacity(n);
                for p in 0..n {
                    let mut plus = self.clone();
                    let mut minus = self.clone();
                    let (pp, mm) = if part == 0 {
                        (&mut plus.layers[l].0[p], &mut minus.layers[l].0[p])
                    } else {
                        (&mut plus.layers[l].1[p], &mut minus.layers[l].1[p])
                    };
                    *pp += eps;
                    *mm -= eps;
                    d.push((plus.f(x, batch) - minus.f(x, batch)) / (2.0 * eps));
                }
                out.push(d);
            }
        }
        out
    }
}

/// The same gradient with burn-guard on nested autodiff: one second-order pass.
fn second_order(reference: &Reference, x: &[f64], batch: usize) -> Vec<Vec<f32>> {
    let mut leaves = Vec::new();
    let mut layers = Vec::new();
    for (w, b, i, o) in &reference.layers {
        let w = track::<Inner>(flex(w, &[*i, *o]));
        let b = track::<Inner>(flex(b, &[*o]));
        layers.push(Dense::<Outer> {
            weight: lift::<Outer>(w.clone()),
            bias: Some(lift::<Outer>(b.clone())),
        });
        leaves.push(w);
        leaves.push(b);
    }
    let mlp = Mlp::new(layers, Activation::Tanh).unwrap();
    let d_in = reference.layers[0].2;
    let x = track::<Outer>(lift::<Inner>(flex(x, &[batch, d_in])));
    let y = mlp.forward(x.clone()).unwrap();
    let dx = grad::<Outer>(y, &x).unwrap();
    grads_or_zeros::<Inner>(dx, &leaves)
        .unwrap()
        .into_iter()
        .map(read::<Flex>)
        .collect()
}

fn relative_error(ours: &[Vec<f32>], fd: &[Vec<f64>]) -> f64 {
    let scale = fd
        .iter()
        .flatten()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(1e-3);
    let diff = ours
        .iter()
        .flatten()
        .zip(fd.iter().flatten())
        .fold(0.0f64, |m, (a, b)| m.max((f64::from(*a) - b).abs()));
    diff / scale
}

fn pseudo(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

fn reference(dims: &[usize], seed: u64) -> Reference {
    let layers = dims
        .windows(2)
        .enumerate()
        .map(|(l, io)| {
            let (i, o) = (io[0], io[1]);
            let scale = 1.0 / (i as f64).sqrt();
            let w: Vec<f64> = pseudo(i * o, seed + l as u64 * 2)
                .into_iter()
                .map(|v| v * scale * 1.5)
                .collect();
            let b = pseudo(o, seed + l as u64 * 2 + 1)
                .into_iter()
                .map(|v| v * 0.5)
                .collect();
            (w, b, i, o)
        })
        .collect();
    Reference { layers }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn second_order_matches_finite_differences(
        batch in 1usize..4,
        d_in in 1usize..4,
        hidden in proptest::collection::vec(1usize..6, 1..3),
        d_out in 1usize..3,
        seed in 0u64..1000,
    ) {
        let mut dims = vec![d_in];
        dims.extend(&hidden);
        dims.push(d_out);
        let reference = reference(&dims, seed);
        let x = pseudo(batch * d_in, seed + 99);
        let fd = reference.finite_differences(&x, batch);
        let ours = second_order(&reference, &x, batch);
        let error = relative_error(&ours, &fd);
        println!("dims {dims:?} batch {batch}: relative error {error:.2e}");
        prop_assert!(error <= 1e-3, "dims {:?} batch {}: relative error {}", dims, batch, error);
    }
}

#[test]
fn second_order_fixed_case_reports_error() {
    let reference = reference(&[2, 8, 8, 1], 7);
    let x = pseudo(4 * 2, 3);
    let fd = reference.finite_differences(&x, 4);
    let ours = second_order(&reference, &x, 4);
    let error = relative_error(&ours, &fd);
    println!("mlp [2, 8, 8, 1], batch 4: second-order relative error vs central FD = {error:.3e}");
    assert!(error <= 1e-3);
}

/// The canary's inputs (tests/upstream_panics.rs): burn's linear panics, ours differentiates
/// twice.
#[test]
fn canary_burn_panics_ours_does_not() {
    let x_values = vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0];
    let w_values = vec![0.1f64, 0.2, 0.3, 0.4, 0.5, 0.6];
    let leaf = |v: &[f64], s: &[usize]| track::<Outer>(track::<Inner>(flex(v, s)));

    let raw = burn_guard::panic::catch("canary", || {
        let y = Outer::linear(leaf(&x_values, &[2, 3]), leaf(&w_values, &[3, 2]), None);
        Outer::backward(Outer::float_sum(y))
    });
    match raw {
        Err(GuardError::BackendPanic { message, .. }) => assert!(
            message.contains("Can't differentiate linear_x_backward.")
                || message.contains("Can't differentiate linear_weight_backward."),
            "{message}"
        ),
        _ => panic!("burn's linear no longer panics under nested autodiff: revisit"),
    }

    let w_inner = track::<Inner>(flex(&w_values, &[3, 2]));
    let x = leaf(&x_values, &[2, 3]);
    let w = track::<Outer>(w_inner.clone());
    let y = backend::linear::<Outer>(x.clone(), w, None).unwrap();
    let y = Outer::float_mul(y.clone(), y); // Σ y²: ∂/∂x = 2 y wᵀ, depends on w twice.
    let dx = grad::<Outer>(y, &x).unwrap();
    let dw = grad::<Inner>(dx, &w_inner).unwrap();
    assert_eq!(read::<Flex>(dw).len(), 6);
}

fn assert_refused(result: burn_guard::Result<FloatTensor<Outer>>, op: &str) {
    match result {
        Err(GuardError::NotDifferentiable {
            op: got,
            backend,
            order,
        }) => {
            assert_eq!(got, op);
            assert_eq!(backend, "autodiff<autodiff<flex>>");
            assert_eq!(order, 2);
        }
        Err(other) => panic!("{op}: unexpected {other}"),
        Ok(_) => panic!("{op}: not refused"),
    }
}

#[test]
fn other_module_ops_are_refused_under_nested_autodiff() {
    use burn_backend::ops::{InterpolateMode, InterpolateOptions};
    let device = Default::default();
    let t = |s: &[usize]| {
        let n = s.iter().product();
        track::<Outer>(track::<Inner>(flex(&pseudo(n, 1), s)))
    };
    let indices = Outer::int_from_data(TensorData::new(vec![0i64, 1], [1, 2]), &device);
    assert_refused(
        backend::embedding::<Outer>(t(&[2, 3]), indices),
        "embedding",
    );
    assert_refused(
        backend::avg_pool1d::<Outer>(t(&[1, 1, 4]), 2, 2, 0, true, false),
        "avg_pool1d",
    );
    assert_refused(
        backend::avg_pool2d::<Outer>(t(&[1, 1, 2, 2]), [2, 2], [1, 1], [0, 0], true, false),
        "avg_pool2d",
    );
    assert_refused(
        backend::max_pool1d::<Outer>(t(&[1, 1, 4]), 2, 2, 0, 1, false),
        "max_pool1d",
    );
    assert_refused(
        backend::max_pool2d::<Outer>(t(&[1, 1, 2, 2]), [2, 2], [1, 1], [0, 0], [1, 1], false),
        "max_pool2d",
    );
    assert_refused(
        backend::adaptive_avg_pool2d::<Outer>(t(&[1, 1, 2, 2]), [1, 1]),
        "adaptive_avg_pool2d",
    );
    assert_refused(
        backend::interpolate::<Outer>(
            t(&[1, 1, 2, 2]),
            [4, 4],
            InterpolateOptions::new(InterpolateMode::Nearest),
        ),
        "interpolate",
    );
    assert_refused(
        backend::adaptive_avg_pool1d::<Outer>(t(&[1, 1, 4]), 1),
        "adaptive_avg_pool1d",
    );
    assert_refused(
        backend::adaptive_avg_pool3d::<Outer>(t(&[1, 1, 2, 2, 2]), [1, 1, 1]),
        "adaptive_avg_pool3d",
    );
    assert_refused(
        backend::deform_conv2d::<Outer>(
            t(&[1, 1, 3, 3]),
            t(&[1, 2, 3, 3]),
            t(&[1, 1, 1, 1]),
            None,
            None,
            burn_backend::ops::DeformConvOptions::new([1, 1], [0, 0], [1, 1], 1, 1),
        ),
        "deform_conv2d",
    );
    match backend::batch_norm_train::<Outer>(t(&[2, 1]), t(&[1]), t(&[1]), 1e-5) {
        Err(GuardError::NotDifferentiable { op, order: 2, .. }) => {
            assert_eq!(op, backend::NonDifferentiableOp::BatchNormTrain.name())
        }
        Err(other) => panic!("batch_norm_train: unexpected {other}"),
        Ok(_) => panic!("batch_norm_train: not refused"),
    }

    // One autodiff layer differentiates them: the same calls run.
    type Single = Autodiff<Flex>;
    let x =
        Single::float_set_require_grad(Single::from_inner(flex(&pseudo(4, 2), &[1, 1, 4])), true);
    let y = backend::max_pool1d::<Single>(x.clone(), 2, 2, 0, 1, false).unwrap();
    let g = grad::<Single>(y, &x).unwrap();
    assert_eq!(read::<Flex>(g).iter().filter(|v| **v == 1.0).count(), 2);
}

/// Why max_pool1d is refused: raw burn silently drops its second-order gradient (measured),
/// which `grads` reports as an error instead of `None`.
#[test]
fn raw_max_pool1d_drops_the_second_order_gradient() {
    let w_inner = track::<Inner>(flex(&[1.0, 1.0, 1.0], &[1, 1, 3]));
    let x = track::<Outer>(track::<Inner>(flex(
        &[0.5, 2.0, 1.0, 3.0, -1.0, 4.0],
        &[1, 1, 6],
    )));
    let pooled = Outer::max_pool1d(x.clone(), 2, 2, 0, 1, false);
    let loss = Outer::float_mul(pooled, lift::<Outer>(w_inner.clone()));
    let dx = grad::<Outer>(loss, &x).unwrap();
    assert!(matches!(
        grad::<Inner>(dx, &w_inner),
        Err(GuardError::InvalidArgument { op: "grad", .. })
    ));
}
