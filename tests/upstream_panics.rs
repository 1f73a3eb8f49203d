//! Canaries: each measured failure of raw burn 0.22.1 still reproduces.
//!
//! Every test runs raw burn under `catch_unwind` and asserts the panic message. When burn fixes
//! one of these upstream, its test fails and tells us which guard to revisit.

mod common;

use burn::tensor::quantization::{QuantScheme, ScaleDtype};
use burn::tensor::{Device, Tensor};
use common::panic_message;

fn grid(device: &Device, rows: usize, cols: usize) -> Tensor<2> {
    let values: Vec<f32> = (0..rows * cols).map(|i| (i as f32 * 0.37).sin()).collect();
    Tensor::<1>::from_floats(values.as_slice(), device).reshape([rows, cols])
}

/// A block of 32 does not divide a trailing dimension of 24.
fn non_dividing_block() -> QuantScheme {
    QuantScheme::default().per_block([32], ScaleDtype::F32)
}

fn assert_contains(message: Option<String>, expected: &str) {
    let message = message.expect("burn no longer panics here: revisit the guard");
    assert!(
        message.contains(expected),
        "panic message changed: {message:?} lacks {expected:?}"
    );
}

#[test]
fn router_quantize_dynamic_is_not_implemented() {
    use burn_backend::TensorData;
    use burn_backend::ops::{FloatTensorOps, QTensorOps};
    use burn_remote::RemoteBackend;

    let remote = common::loopback_remote();
    let tensor = RemoteBackend::float_from_data(
        TensorData::new(vec![0.5f32, -1.0, 2.0, 0.25], [2, 2]),
        remote.device(),
    );
    let message =
        panic_message(|| RemoteBackend::quantize_dynamic(tensor, &QuantScheme::default()));
    assert_contains(message, "not implemented");
}

#[test]
fn ndarray_rejects_the_default_scheme() {
    #[allow(deprecated)] // NdArray is deprecated upstream; we support it while burn ships it.
    let device = Device::ndarray();
    let message = panic_message(|| {
        grid(&device, 4, 8)
            .quantize_dynamic(&QuantScheme::default())
            .into_data()
    });
    assert_contains(message, "Quantization not supported for scheme");
}

#[test]
fn non_dividing_block_panics_on_flex() {
    let device = Device::flex();
    let message = panic_message(|| {
        grid(&device, 4, 24)
            .quantize_dynamic(&non_dividing_block())
            .into_data()
    });
    // At the `Tensor` level Flex goes through burn-backend's generic `compute_range` first.
    assert_contains(message, "must be evenly divisible by block size");
}

#[test]
fn non_dividing_block_panics_on_ndarray() {
    #[allow(deprecated)] // NdArray is deprecated upstream; we support it while burn ships it.
    let device = Device::ndarray();
    let scheme = non_dividing_block().with_store(burn::tensor::quantization::QuantStore::Native);
    let message = panic_message(|| grid(&device, 4, 24).quantize_dynamic(&scheme).into_data());
    assert_contains(message, "must be evenly divisible by block size");
}

#[test]
fn non_dividing_block_panics_on_wgpu() {
    let Some(device) = common::wgpu_device() else {
        return;
    };
    let message = panic_message(|| {
        grid(&device, 4, 24)
            .quantize_dynamic(&non_dividing_block())
            .into_data()
    });
    assert_contains(message, "must be evenly divisible by block size");

    // The contrast, and proof that the adapter really runs kernels: a dividing block quantizes
    // and dequantizes within one Q8 step.
    let input = grid(&device, 4, 64);
    let expected: Vec<f32> = input.clone().into_data().try_to_vec().unwrap();
    let roundtrip: Vec<f32> = input
        .quantize_dynamic(&non_dividing_block())
        .dequantize()
        .into_data()
        .try_to_vec()
        .unwrap();
    let max_error = expected
        .iter()
        .zip(&roundtrip)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(max_error <= 1.0 / 127.0, "max error {max_error}");
}

#[test]
fn matmul_shape_mismatch_panics() {
    let device = Device::flex();
    let message = panic_message(|| grid(&device, 2, 3).matmul(grid(&device, 4, 5)));
    assert_contains(message, "matmul");
}

/// burn's autodiff computes linear's gradients with `linear_*_backward` on the inner backend;
/// when that inner backend is itself autodiff, they panic on the first backward.
#[test]
fn nested_autodiff_cannot_differentiate_linear() {
    use burn_autodiff::Autodiff;
    use burn_backend::ops::{FloatTensorOps, ModuleOps};
    use burn_backend::{AutodiffBackend, TensorData};
    use burn_flex::Flex;

    type Outer = Autodiff<Autodiff<Flex>>;
    let device = Default::default();
    let x = Outer::float_set_require_grad(
        Outer::float_from_data(
            TensorData::new(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3]),
            &device,
        ),
        true,
    );
    let weight = Outer::float_set_require_grad(
        Outer::float_from_data(
            TensorData::new(vec![0.1f32, 0.2, 0.3, 0.4, 0.5, 0.6], [3, 2]),
            &device,
        ),
        true,
    );
    let message = panic_message(|| {
        let y = Outer::linear(x, weight, None);
        Outer::backward(Outer::float_sum(y))
    });
    let message = message.expect("burn no longer panics here: revisit the guard");
    assert!(
        message.contains("Can't differentiate linear_x_backward.")
            || message.contains("Can't differentiate linear_weight_backward."),
        "panic message changed: {message:?}"
    );
}
