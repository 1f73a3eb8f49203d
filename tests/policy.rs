//! The fallback policy against real backends: a burn-remote server on 127.0.0.1 (whose router
//! client cannot quantize at all) and NdArray (which cannot quantize packed schemes).

mod common;

use burn::tensor::quantization::{QuantScheme, QuantStore, ScaleDtype};
use burn::tensor::{Device, Tensor};
use burn_backend::ops::{FloatTensorOps, QTensorOps};
use burn_backend::{Backend, TensorData, TensorMetadata, try_read_sync};
use burn_flex::Flex;
use burn_guard::GuardError;
use burn_guard::backend::quant::{Placed, dequantize, q_matmul, quantize_dynamic_or_fallback};
use burn_guard::capability::Effect;
use burn_guard::policy::{Op, Policy};
use burn_guard::tensor::TryQuantize;
use burn_remote::RemoteBackend;

fn values(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i as f32 * 0.37).sin() * 2.0).collect()
}

fn read<B: Backend>(tensor: burn_backend::tensor::FloatTensor<B>) -> Vec<f32> {
    try_read_sync(B::float_into_data(tensor))
        .unwrap()
        .unwrap()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .unwrap()
}

#[test]
fn remote_quantization_is_refused_strictly_and_falls_back_to_flex() {
    let remote = common::loopback_remote();
    let data = TensorData::new(values(4 * 64), [4, 64]);
    let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
    let flex = Default::default();

    // Strict: refused before anything runs, naming the router.
    let strict = Policy::strict();
    let x = RemoteBackend::float_from_data(data.clone(), remote.device());
    let err = quantize_dynamic_or_fallback::<RemoteBackend, Flex>(x, &scheme, &strict, &flex)
        .unwrap_err();
    assert!(
        matches!(&err, GuardError::Unsupported(gap) if gap.backend.contains("router")),
        "{err}"
    );
    assert_eq!(strict.stats_of(Op::QuantizeDynamic).errors, 1);

    // Fallback: quantized on Flex, with the same values as quantizing the data on Flex.
    let policy = Policy::fallback_to([]);
    let x = RemoteBackend::float_from_data(data.clone(), remote.device());
    let placed =
        quantize_dynamic_or_fallback::<RemoteBackend, Flex>(x, &scheme, &policy, &flex).unwrap();
    assert!(placed.is_fallback());
    let stats = policy.stats_of(Op::QuantizeDynamic);
    assert_eq!(stats.fallbacks, 1);
    assert_eq!(stats.bytes_to_fallback, 4 * 64 * 4);

    let reference = Flex::quantize_dynamic(Flex::float_from_data(data, &flex), &scheme);
    let expected = read::<Flex>(Flex::dequantize(reference, burn::tensor::FloatDType::F32));
    let got = match dequantize::<RemoteBackend, Flex>(placed.clone()).unwrap() {
        Placed::Fallback(t) => read::<Flex>(t),
        Placed::Native(_) => unreachable!(),
    };
    assert_eq!(got, expected);

    // Quantized matmul end to end: activations go to Flex and come back to the remote device.
    let activations =
        RemoteBackend::float_from_data(TensorData::new(values(3 * 4), [3, 4]), remote.device());
    let out = q_matmul::<RemoteBackend, Flex>(activations, &placed, &policy, &flex).unwrap();
    assert_eq!(out.shape().to_vec(), vec![3, 64]);
    let matmul = policy.stats_of(Op::QMatmul);
    assert_eq!(matmul.fallbacks, 1);
    assert_eq!(matmul.bytes_to_fallback, 3 * 4 * 4);
    assert_eq!(matmul.bytes_from_fallback, 3 * 64 * 4);
}

#[test]
fn ndarray_default_scheme_strict_and_fallback() {
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let ndarray = Device::ndarray();
    let t = Tensor::<1>::from_floats(values(64).as_slice(), &ndarray).reshape([2, 32]);

    let err = t
        .clone()
        .try_quantize_dynamic(&QuantScheme::default())
        .unwrap_err();
    assert!(
        matches!(&err, GuardError::Unsupported(gap) if gap.backend.contains("ndarray")),
        "{err}"
    );

    let policy = Policy::fallback_to([Device::flex()]);
    let q = t
        .clone()
        .quantize_dynamic_with(&QuantScheme::default(), &policy)
        .unwrap();
    assert_eq!(q.device(), Device::flex());
    assert_eq!(policy.stats_of(Op::QuantizeDynamic).fallbacks, 1);

    // Native where NdArray can: Q8 stored natively.
    let native = QuantScheme::default().with_store(QuantStore::Native);
    let q = t.quantize_dynamic_with(&native, &policy).unwrap();
    assert_eq!(q.device(), ndarray);
    assert_eq!(policy.stats_of(Op::QuantizeDynamic).native, 1);
}

/// Per-operation rules refuse exactly the operation they name, before anything moves, and
/// count the refusal; the operation still runs natively where it can.
#[test]
fn per_op_rules_refuse_before_anything_moves() {
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let t = Tensor::<2>::ones([2, 32], &Device::ndarray());
    let denied = Policy::fallback_to([Device::flex()]).deny_op(Op::QuantizeDynamic);
    let others_only = Policy::fallback_to([Device::flex()]).allow_only([Op::QMatmul]);
    for policy in [&denied, &others_only] {
        let err = t
            .clone()
            .quantize_dynamic_with(&QuantScheme::default(), policy)
            .unwrap_err();
        let GuardError::Unsupported(gap) = &err else {
            panic!("expected Unsupported, got {err}");
        };
        assert_eq!(gap.op, "quantize_dynamic");
        assert_eq!(gap.gap.effect, Effect::Panics, "{err}");
        assert!(gap.fallbacks.is_empty(), "no target is asked: {err}");
        let stats = policy.stats_of(Op::QuantizeDynamic);
        assert_eq!(
            (stats.errors, stats.fallbacks, stats.bytes_to_fallback),
            (1, 0, 0)
        );
    }
    // Allowed for q_matmul only: quantize_dynamic still runs natively where NdArray can.
    let native = QuantScheme::default().with_store(QuantStore::Native);
    let q = t.quantize_dynamic_with(&native, &others_only).unwrap();
    assert_eq!(q.device(), t_device());
    assert_eq!(others_only.stats_of(Op::QuantizeDynamic).native, 1);
}

#[allow(deprecated)] // NdArray is deprecated upstream; still supported.
fn t_device() -> Device {
    Device::ndarray()
}

/// A fallback policy whose devices cannot either names each of them in the refusal.
#[test]
fn refusal_names_every_fallback_that_cannot() {
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let ndarray = Device::ndarray();
    let t = Tensor::<2>::ones([2, 32], &ndarray);
    // E4M3 runs on no CPU backend correctly: NdArray panics, Flex saturates.
    let scheme = QuantScheme::default()
        .with_value(burn::tensor::quantization::QuantValue::E4M3)
        .with_store(QuantStore::Native);
    let policy = Policy::fallback_to([ndarray.clone(), Device::flex()]);
    let err = t.quantize_dynamic_with(&scheme, &policy).unwrap_err();
    let GuardError::Unsupported(gap) = &err else {
        panic!("expected Unsupported, got {err}");
    };
    let effects: Vec<_> = gap.fallbacks.iter().map(|(_, g)| g.effect).collect();
    assert_eq!(effects, [Effect::Panics, Effect::WrongValues], "{err}");
    assert_eq!(gap.fallbacks[1].0, "dispatch<flex>");
}

/// Every scheme rule refuses before dispatch: the errors are `InvalidQuantScheme`, never a
/// caught backend panic, on every backend.
#[test]
fn invalid_schemes_never_reach_a_backend() {
    let invalid = [
        QuantScheme::default().per_block([32], ScaleDtype::F32),
        QuantScheme::default().per_block([0], ScaleDtype::F32),
        QuantScheme::default()
            .with_value(burn::tensor::quantization::QuantValue::Q4F)
            .with_store(QuantStore::Native),
        QuantScheme::default()
            .per_block([8], ScaleDtype::UE8M0)
            .per_tensor(ScaleDtype::F32),
        QuantScheme::default()
            .per_block([8], ScaleDtype::UE4M3)
            .per_tensor(ScaleDtype::F16),
    ];
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let mut devices = vec![Device::flex(), Device::ndarray()];
    devices.extend(common::wgpu_device());
    for device in devices {
        for scheme in &invalid {
            let t = Tensor::<2>::ones([4, 24], &device);
            let err = t.try_quantize_dynamic(scheme).unwrap_err();
            assert!(
                matches!(err, GuardError::InvalidQuantScheme { .. }),
                "{device:?} {scheme:?}: {err}"
            );
        }
    }
    let remote = common::loopback_remote();
    for scheme in &invalid {
        let x = RemoteBackend::float_from_data(
            TensorData::new(vec![0.5f32; 4 * 24], [4, 24]),
            remote.device(),
        );
        let err = quantize_dynamic_or_fallback::<RemoteBackend, Flex>(
            x,
            scheme,
            &Policy::fallback_to([]),
            &Default::default(),
        )
        .unwrap_err();
        assert!(
            matches!(err, GuardError::InvalidQuantScheme { .. }),
            "{err}"
        );
    }
}

/// Bytes moved are counted from each tensor's dtype: 2, 2, 4 and 8 bytes per element for
/// bf16, f16, f32 and f64. At the `burn::Tensor` level from NdArray (which holds no half
/// precision), at the backend level from a remote device (whose server holds all four).
#[test]
fn bytes_moved_follow_the_dtype() {
    use burn::tensor::{DType, TensorCreationOptions};
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let ndarray = Device::ndarray();
    let elements = 4 * 32;
    for (dtype, size) in [(DType::F32, 4), (DType::F64, 8)] {
        let options = TensorCreationOptions::new(ndarray.clone()).with_dtype(dtype);
        let t = Tensor::<2>::ones([4, 32], options);
        assert_eq!(t.dtype(), dtype);
        let policy = Policy::fallback_to([Device::flex()]);
        let q = t
            .quantize_dynamic_with(&QuantScheme::default(), &policy)
            .unwrap();
        assert_eq!(q.device(), Device::flex());
        let stats = policy.stats_of(Op::QuantizeDynamic);
        assert_eq!(stats.bytes_to_fallback, elements * size, "{dtype:?}");
        assert_eq!(stats.bytes_from_fallback, 0, "{dtype:?}");
    }

    let remote = common::loopback_remote();
    let values = values(4 * 32);
    let data = [
        (TensorData::new(values.clone(), [4, 32]), 4),
        (
            TensorData::new(
                values
                    .iter()
                    .map(|&v| burn::tensor::f16::from_f32(v))
                    .collect(),
                [4, 32],
            ),
            2,
        ),
        (
            TensorData::new(
                values
                    .iter()
                    .map(|&v| burn::tensor::bf16::from_f32(v))
                    .collect(),
                [4, 32],
            ),
            2,
        ),
    ];
    for (data, size) in data {
        let dtype = data.dtype();
        let x = RemoteBackend::float_from_data(data, remote.device());
        assert_eq!(x.dtype(), dtype);
        let policy = Policy::fallback_to([]);
        let q = quantize_dynamic_or_fallback::<RemoteBackend, Flex>(
            x,
            &QuantScheme::default(),
            &policy,
            &Default::default(),
        )
        .unwrap();
        assert!(q.is_fallback());
        let stats = policy.stats_of(Op::QuantizeDynamic);
        assert_eq!(stats.bytes_to_fallback, elements * size, "{dtype:?}");
    }
}
