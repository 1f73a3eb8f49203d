//! First order: our linear's gradients equal burn's own `linear` gradients on
//! `Autodiff<Flex>`, `Autodiff<NdArray>` and `Autodiff<Wgpu>`, for inputs of rank 1 to 4, with
//! and without bias, and every combination of tracked inputs. Both our autodiff path
//! (`linear_decomposed`, what nested autodiff runs) and the explicit `linear_backward` are
//! checked against burn.

use burn_autodiff::Autodiff;
use burn_backend::ops::FloatTensorOps;
use burn_backend::tensor::FloatTensor;
use burn_backend::{AutodiffBackend, Backend, Shape, TensorData, TensorMetadata};
use burn_guard::backend;

// Only the wgpu gate of `common`: the rest needs the `remote` feature, which this test does not.
#[allow(dead_code)]
#[path = "common/wgpu.rs"]
mod wgpu_gate;

const TOLERANCE: f32 = 1e-5;

fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| (((i + 1) * (seed + 3)) as f32 * 0.618_034).sin() * 0.9)
        .collect()
}

fn read<B: Backend>(t: FloatTensor<B>) -> Vec<f32> {
    burn_backend::read_sync(B::float_into_data(t))
        .unwrap()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .unwrap()
}

fn tensor<B: Backend>(shape: &[usize], seed: usize, device: &B::Device) -> FloatTensor<B> {
    let n = shape.iter().product();
    B::float_from_data(TensorData::new(values(n, seed), shape.to_vec()), device)
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

type Grads = [Option<Vec<f32>>; 3];

#[allow(clippy::type_complexity)]
/// The gradients of `sum(linear(x, w, b) * r)` w.r.t. the tracked leaves, with `forward`.
fn gradients<I: Backend>(
    device: &I::Device,
    x_shape: &[usize],
    d_out: usize,
    bias: bool,
    tracked: [bool; 3],
    forward: impl Fn(
        FloatTensor<Autodiff<I>>,
        FloatTensor<Autodiff<I>>,
        Option<FloatTensor<Autodiff<I>>>,
    ) -> FloatTensor<Autodiff<I>>,
) -> (Vec<f32>, Grads) {
    type A<I> = Autodiff<I>;
    let d_in = *x_shape.last().unwrap();
    let leaf = |t: FloatTensor<I>, track: bool| {
        let t = A::<I>::from_inner(t);
        if track {
            A::<I>::float_set_require_grad(t, true)
        } else {
            t
        }
    };
    let x = leaf(tensor::<I>(x_shape, 1, device), tracked[0]);
    let w = leaf(tensor::<I>(&[d_in, d_out], 2, device), tracked[1]);
    let b = bias.then(|| leaf(tensor::<I>(&[d_out], 3, device), tracked[2]));
    let y = forward(x.clone(), w.clone(), b.clone());
    let out_shape = y.shape().to_vec();
    let r = A::<I>::from_inner(tensor::<I>(&out_shape, 4, device));
    let y_values = read::<I>(A::<I>::inner(y.clone()));
    let loss = A::<I>::float_sum(A::<I>::float_mul(y, r));
    let grads = A::<I>::backward(loss);
    let get = |t: &FloatTensor<A<I>>, track: bool| {
        track.then(|| read::<I>(A::<I>::grad(t, &grads).expect("tracked leaf has a gradient")))
    };
    let gb = b.as_ref().and_then(|b| get(b, tracked[2]));
    (y_values, [get(&x, tracked[0]), get(&w, tracked[1]), gb])
}

/// burn's own linear, with burn's tensor-API convention for a rank-1 input.
fn burn_linear<B: Backend>(
    x: FloatTensor<B>,
    w: FloatTensor<B>,
    b: Option<FloatTensor<B>>,
) -> FloatTensor<B> {
    let shape = x.shape();
    if shape.num_dims() == 1 {
        let d_out = w.shape()[1];
        let x = B::float_reshape(x, Shape::new([1, shape[0]]));
        B::float_reshape(B::linear(x, w, b), Shape::new([d_out]))
    } else {
        B::linear(x, w, b)
    }
}

/// Runs every case on `I`, returning the worst difference per rank.
fn check_backend<I: Backend>(device: &I::Device, label: &str) -> [f32; 4] {
    let shapes: [&[usize]; 4] = [&[3], &[4, 3], &[2, 3, 3], &[2, 1, 2, 3]];
    let d_out = 5;
    let mut worst = [0.0f32; 4];
    for (rank, x_shape) in shapes.iter().enumerate() {
        for bias in [false, true] {
            for mask in 1u8..8 {
                let tracked = [mask & 1 != 0, mask & 2 != 0, mask & 4 != 0];
                if !bias && tracked == [false, false, true] {
                    continue;
                }
                let case = format!("{label} x{x_shape:?} bias={bias} tracked={tracked:?}");
                let (y_burn, g_burn) = gradients::<I>(
                    device,
                    x_shape,
                    d_out,
                    bias,
                    tracked,
                    burn_linear::<Autodiff<I>>,
                );
                let (y_ours, g_ours) =
                    gradients::<I>(device, x_shape, d_out, bias, tracked, |x, w, b| {
                        backend::linear_decomposed::<Autodiff<I>>(x, w, b).unwrap()
                    });
                let (y_guard, _) = gradients::<I>(
                    device,
                    x_shape,
                    d_out,
                    bias,
                    [false, true, false],
                    |x, w, b| backend::linear::<Autodiff<I>>(x, w, b).unwrap(),
                );
                let mut diff = max_abs_diff(&y_burn, &y_ours).max(max_abs_diff(&y_burn, &y_guard));
                for (b, o) in g_burn.iter().zip(&g_ours) {
                    match (b, o) {
                        (Some(b), Some(o)) => diff = diff.max(max_abs_diff(b, o)),
                        (None, None) => {}
                        _ => panic!("{case}: gradient presence differs"),
                    }
                }

                // The explicit backward on the inner backend, against burn's gradients.
                let d_in = *x_shape.last().unwrap();
                let out_shape: Vec<usize> = x_shape[..x_shape.len() - 1]
                    .iter()
                    .copied()
                    .chain([d_out])
                    .collect();
                let explicit = backend::linear_backward::<I>(
                    tensor::<I>(x_shape, 1, device),
                    tensor::<I>(&[d_in, d_out], 2, device),
                    bias,
                    tensor::<I>(&out_shape, 4, device),
                )
                .unwrap();
                assert_eq!(explicit.bias.is_some(), bias, "{case}");
                let explicit = [
                    Some(read::<I>(explicit.x)),
                    Some(read::<I>(explicit.weight)),
                    explicit.bias.map(read::<I>),
                ];
                for (b, e) in g_burn.iter().zip(&explicit) {
                    if let (Some(b), Some(e)) = (b, e) {
                        diff = diff.max(max_abs_diff(b, e));
                    }
                }
                assert!(diff <= TOLERANCE, "{case}: max abs diff {diff}");
                worst[rank] = worst[rank].max(diff);
            }
        }
    }
    println!("{label}: max abs diff per rank 1..4 = {worst:?}");
    worst
}

#[test]
fn autodiff_flex_matches_burn_linear() {
    check_backend::<burn_flex::Flex>(&Default::default(), "autodiff<flex>");
}

#[test]
#[allow(deprecated)]
fn autodiff_ndarray_matches_burn_linear() {
    check_backend::<burn_ndarray::NdArray>(&Default::default(), "autodiff<ndarray>");
}

#[test]
fn autodiff_wgpu_matches_burn_linear() {
    if wgpu_gate::wgpu_device().is_none() {
        return;
    }
    check_backend::<burn_wgpu::Wgpu>(&Default::default(), "autodiff<wgpu>");
}

#[test]
fn shape_errors_are_refused_before_dispatch() {
    type B = Autodiff<burn_flex::Flex>;
    let device = Default::default();
    let x = tensor::<B>(&[2, 3], 1, &device);
    let w = tensor::<B>(&[4, 5], 2, &device);
    assert!(matches!(
        backend::linear::<B>(x.clone(), w.clone(), None),
        Err(burn_guard::GuardError::ShapeMismatch { .. })
    ));
    let w = tensor::<B>(&[3, 5], 2, &device);
    let b = tensor::<B>(&[4], 3, &device);
    assert!(matches!(
        backend::linear::<B>(x.clone(), w.clone(), Some(b)),
        Err(burn_guard::GuardError::ShapeMismatch { .. })
    ));
    let g = tensor::<B>(&[2, 4], 4, &device);
    assert!(matches!(
        backend::linear_backward::<B>(x, w, false, g),
        Err(burn_guard::GuardError::ShapeMismatch { .. })
    ));
}
