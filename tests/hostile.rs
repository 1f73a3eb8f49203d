//! Hostile values: quantizing all-zero, constant, NaN/inf-containing, empty and
//! huge-magnitude tensors, and matmul on zero-sized shapes, on Flex, NdArray, wgpu and a
//! loopback remote. Each returns a correct value or a clear `Err` — never a panic, never a
//! silent NaN where the input had none.
//!
//! What burn 0.22.1 does without the guard (measured here, raw `quantize_dynamic` then
//! `dequantize`):
//!
//! - NaN / ±inf: Flex dequantizes every value to ~1.5e-36 (it replaces the non-finite scale
//!   by `f32::MIN_POSITIVE`), wgpu to NaN, NdArray panics (`Option::unwrap()` on `None`).
//! - `f32::MAX`: the scale `2·max|x| / 255` overflows f32: Flex ~1e-36 everywhere, NdArray and
//!   wgpu NaN. With F16 block scales, anything above ~8.4e6 saturates the scale: 1e7 comes
//!   back as 8.3e6 on Flex and NdArray, silently.
//! - empty: Flex panics (`min: cannot reduce an empty tensor`), NdArray panics per tensor.
//! - matmul on zero-sized operands: NdArray panics on every shape; CubeCL's matmul returns its
//!   uninitialised output for `[m, 0] · [0, n]` (burn-cubecl `matmul_autotune` short-circuits
//!   zero-sized inputs to `init_matmul_output`, an `empty` buffer).
//!
//! The guard refuses non-finite values, scale overflow and empty tensors (`NonFinite`,
//! `OutOfRange` on the scale, `Empty`) before anything is quantized, and builds zero-sized
//! products (`try_matmul`, `q_matmul`) without a kernel. Tiny values under F16 scales flush toward zero (the scale dtype's
//! smallest value), an error bounded by max|x|, never NaN: accepted, not refused.
//!
//! On wgpu only the schemes declared native there run (Q8 `PackedU32`, F32 scales, last dim a
//! multiple of 4), and nothing that could panic inside a kernel is sent: a kernel panic happens
//! on the fusion worker thread and poisons the device for the whole process.

mod common;

use burn::tensor::quantization::{QuantScheme, QuantStore, QuantValue, ScaleDtype};
use burn::tensor::{Device, Tensor, TensorData};
use burn_backend::ops::{FloatTensorOps, QTensorOps};
use burn_backend::read_sync;
use burn_flex::Flex;
use burn_guard::backend::quant::{Placed, dequantize, quantize_dynamic_or_fallback};
use burn_guard::policy::Policy;
use burn_guard::tensor::{TryNumeric, TryQuantize};
use burn_guard::{GuardError, Limit, ScalarValue};
use burn_remote::RemoteBackend;

const N: usize = 4 * 32;

/// One hostile input: a name, its values and shape.
struct Input {
    name: &'static str,
    values: Vec<f32>,
    shape: [usize; 2],
}

fn with(index: usize, value: f32, fill: f32) -> Vec<f32> {
    let mut values = vec![fill; N];
    values[index] = value;
    values
}

fn ramp(scale: f32) -> Vec<f32> {
    (0..N).map(|i| ((i % 17) as f32 - 8.0) * scale).collect()
}

fn inputs() -> Vec<Input> {
    let input = |name, values| Input {
        name,
        values,
        shape: [4, 32],
    };
    let alternating =
        |m: f32| -> Vec<f32> { (0..N).map(|i| if i % 2 == 0 { m } else { -m }).collect() };
    let mut fmax = ramp(1.0);
    fmax[9] = f32::MAX;
    let mut nans = ramp(0.25);
    nans[3] = f32::NAN;
    nans[70] = f32::NAN;
    nans[101] = f32::NAN;
    let mut big = ramp(1.0);
    big[0] = 1e7;
    vec![
        input("all-zero", vec![0.0; N]),
        input("constant", vec![3.5; N]),
        input("negative constant", vec![-0.125; N]),
        input("ramp", ramp(0.25)),
        input("tiny", ramp(1e-30)),
        input("one NaN", with(3, f32::NAN, 0.5)),
        input("three NaN", nans),
        input("+inf", with(5, f32::INFINITY, 0.5)),
        input("-inf", with(7, f32::NEG_INFINITY, 0.5)),
        input("±1e30", alternating(1e30)),
        input("±1e38", alternating(1e38)),
        input("f32::MAX", fmax),
        input("-f32::MAX", alternating(-f32::MAX)),
        input("1e7", big),
        Input {
            name: "empty [0, 32]",
            values: vec![],
            shape: [0, 32],
        },
        Input {
            name: "empty [4, 0]",
            values: vec![],
            shape: [4, 0],
        },
    ]
}

/// What a hostile input must give under a scheme.
#[derive(Debug)]
enum Expect {
    /// A round trip within one quantization step of the input, every value finite.
    Close,
    /// `Empty`: no value to calibrate a scale from.
    Empty,
    /// `NonFinite` with this many of the 128 values.
    NonFinite(u64),
    /// `OutOfRange` on the scale, above this dtype maximum.
    Scale(f32),
}

fn expect(input: &Input, scheme: &QuantScheme) -> Expect {
    if input.values.is_empty() {
        return Expect::Empty;
    }
    let non_finite = input.values.iter().filter(|v| !v.is_finite()).count();
    if non_finite > 0 {
        return Expect::NonFinite(non_finite as u64);
    }
    let max_abs = input.values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let (a, b) = scheme.value.range();
    let scale = 2.0 * max_abs / (b - a);
    let two_level = scheme.tensor_scale().is_some() && scheme.block_scale().is_some();
    let limit = if two_level {
        f32::MAX
    } else {
        scheme.scale_dtype().max_representable()
    };
    if !scale.is_finite() || scale > limit {
        return Expect::Scale(limit);
    }
    Expect::Close
}

/// Checks one outcome against what is expected; returns a one-line description.
fn judge(
    backend: &str,
    scheme_name: &str,
    input: &Input,
    scheme: &QuantScheme,
    got: Result<Vec<f32>, GuardError>,
) -> String {
    let case = format!("{backend} {scheme_name} {}", input.name);
    match (expect(input, scheme), got) {
        (Expect::Close, Ok(values)) => {
            assert_eq!(values.len(), input.values.len(), "{case}");
            assert!(
                values.iter().all(|v| v.is_finite()),
                "{case}: non-finite output {values:?}"
            );
            let max_abs = input.values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let (a, b) = scheme.value.range();
            // One quantization step, plus the scale dtype's rounding up (F16: 2^-10). A scale
            // below its dtype's smallest positive value is stored as that value (burn's
            // `validated_scale`): the values flush toward zero, an error bounded by max|x|
            // (tiny values with F16 scales), never NaN.
            let scale = 2.0 * max_abs / (b - a);
            let two_level = scheme.tensor_scale().is_some() && scheme.block_scale().is_some();
            let floor = match scheme.scale_dtype() {
                ScaleDtype::F16 if !two_level => 2f32.powi(-24),
                _ => 0.0,
            };
            let step = if scale < floor { max_abs } else { scale * 1.01 };
            let worst = values
                .iter()
                .zip(&input.values)
                .map(|(got, want)| (got - want).abs())
                .fold(0.0f32, f32::max);
            assert!(
                worst <= step,
                "{case}: error {worst:e} above one step {step:e}"
            );
            if max_abs == 0.0 {
                assert!(values.iter().all(|v| *v == 0.0), "{case}: {values:?}");
            }
            format!("{case}: Ok, max error {worst:e} (step {step:e})")
        }
        (want @ (Expect::Empty | Expect::NonFinite(_) | Expect::Scale(_)), Err(err)) => {
            let refused_as_expected = match (&want, &err) {
                (Expect::Empty, GuardError::Empty { op, shape, .. }) => {
                    *op == "quantize_dynamic" && shape.contains(&0)
                }
                (
                    Expect::NonFinite(n),
                    GuardError::NonFinite {
                        op, count, total, ..
                    },
                ) => *op == "quantize_dynamic" && count == n && *total == 128,
                (
                    Expect::Scale(max),
                    GuardError::OutOfRange {
                        op,
                        name: "scale",
                        limit: Limit::AtMost(ScalarValue::Float(limit)),
                        ..
                    },
                ) => *op == "quantize_dynamic" && *limit == f64::from(*max),
                _ => false,
            };
            assert!(
                refused_as_expected,
                "{case}: expected {want:?}, got {err:?}"
            );
            format!("{case}: Err {err}")
        }
        (want, got) => panic!("{case}: expected {want:?}, got {got:?}"),
    }
}

fn floats(data: TensorData) -> Vec<f32> {
    data.convert::<f32>().try_to_vec::<f32>().unwrap()
}

/// Quantizes on `device` (strict, or under `policy`), dequantizes, reads back.
fn round_trip(
    device: &Device,
    input: &Input,
    scheme: &QuantScheme,
    policy: Option<&Policy>,
) -> Result<Vec<f32>, GuardError> {
    let t = Tensor::<2>::from_data(TensorData::new(input.values.clone(), input.shape), device);
    let q = match policy {
        None => t.try_quantize_dynamic(scheme)?,
        Some(policy) => t.quantize_dynamic_with(scheme, policy)?,
    };
    Ok(floats(q.dequantize().into_data()))
}

fn native(value: QuantValue) -> QuantScheme {
    QuantScheme::default()
        .with_value(value)
        .with_store(QuantStore::Native)
}

/// Runs every input under every scheme on a device; returns how many cases ran.
fn run_grid(
    backend: &str,
    device: &Device,
    schemes: &[(&str, QuantScheme)],
    policy: Option<&Policy>,
) -> usize {
    let mut cases = 0;
    for (scheme_name, scheme) in schemes {
        for input in inputs() {
            let got = round_trip(device, &input, scheme, policy);
            println!("{}", judge(backend, scheme_name, &input, scheme, got));
            cases += 1;
        }
    }
    cases
}

#[test]
fn flex_quantization_of_hostile_values() {
    let schemes = [
        ("q8f-packedu32-tensor", QuantScheme::default()),
        ("q8s-native-tensor", native(QuantValue::Q8S)),
        (
            "q8f-native-block32",
            native(QuantValue::Q8F).per_block([32], ScaleDtype::F32),
        ),
        (
            "q8f-native-block32:f16",
            native(QuantValue::Q8F).per_block([32], ScaleDtype::F16),
        ),
        (
            "q4f-packedu32-block32",
            QuantScheme::default()
                .with_value(QuantValue::Q4F)
                .per_block([32], ScaleDtype::F32),
        ),
        (
            "q8f-packedu32-block16:ue4m3+tensor",
            QuantScheme::default()
                .per_block([16], ScaleDtype::UE4M3)
                .per_tensor(ScaleDtype::F32),
        ),
    ];
    let cases = run_grid("flex", &Device::flex(), &schemes, None);
    assert_eq!(cases, schemes.len() * inputs().len());
}

#[test]
fn ndarray_quantization_of_hostile_values() {
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let ndarray = Device::ndarray();
    // NdArray's own Q8 schemes, strictly.
    let schemes = [
        ("q8f-native-tensor", native(QuantValue::Q8F)),
        ("q8s-native-tensor", native(QuantValue::Q8S)),
        (
            "q8s-native-block32",
            native(QuantValue::Q8S).per_block([32], ScaleDtype::F32),
        ),
        (
            "q8f-native-block32:f16",
            native(QuantValue::Q8F).per_block([32], ScaleDtype::F16),
        ),
    ];
    run_grid("ndarray", &ndarray, &schemes, None);

    // A packed scheme falls back to Flex; hostile values are refused before they move.
    let policy = Policy::fallback_to([Device::flex()]);
    let packed = [("q8f-packedu32-tensor", QuantScheme::default())];
    let cases = run_grid("ndarray->flex", &ndarray, &packed, Some(&policy));
    let stats = policy.stats_of(burn_guard::policy::Op::QuantizeDynamic);
    let refused = inputs()
        .iter()
        .filter(|input| {
            matches!(
                expect(input, &packed[0].1),
                Expect::Empty | Expect::NonFinite(_) | Expect::Scale(_)
            )
        })
        .count() as u64;
    assert_eq!(stats.errors, refused);
    assert_eq!(stats.fallbacks, cases as u64 - refused);
    assert_eq!(
        stats.bytes_to_fallback,
        (cases as u64 - refused) * N as u64 * 4
    );
}

#[test]
fn remote_quantization_of_hostile_values_falls_back_to_flex() {
    let remote = common::loopback_remote();
    let flex = Default::default();
    let schemes = [
        ("q8f-packedu32-tensor", QuantScheme::default()),
        (
            "q8f-packedu32-block32",
            QuantScheme::default().per_block([32], ScaleDtype::F32),
        ),
        (
            "q8f-native-block32:f16",
            native(QuantValue::Q8F).per_block([32], ScaleDtype::F16),
        ),
    ];
    let policy = Policy::fallback_to([]);
    let mut refused = 0;
    for (scheme_name, scheme) in &schemes {
        for input in inputs() {
            let x = RemoteBackend::float_from_data(
                TensorData::new(input.values.clone(), input.shape),
                remote.device(),
            );
            let got =
                quantize_dynamic_or_fallback::<RemoteBackend, Flex>(x, scheme, &policy, &flex)
                    .and_then(dequantize::<RemoteBackend, Flex>)
                    .map(|placed| match placed {
                        Placed::Fallback(t) => floats(read_sync(Flex::float_into_data(t)).unwrap()),
                        Placed::Native(_) => panic!("the router cannot quantize natively"),
                    });
            refused += u64::from(got.is_err());
            println!("{}", judge("remote", scheme_name, &input, scheme, got));
        }
    }
    let stats = policy.stats_of(burn_guard::policy::Op::QuantizeDynamic);
    assert_eq!(stats.errors, refused);
    assert_eq!(
        stats.fallbacks,
        (schemes.len() * inputs().len()) as u64 - refused
    );
}

/// A matmul on zero-sized operands gives the right shape and values: empty, or zeros for an
/// empty inner dimension.
fn zero_sized_matmuls(backend: &str, device: &Device) {
    let t3 = |dims: [usize; 3]| {
        Tensor::<3>::from_data(
            TensorData::new(vec![1.5f32; dims.iter().product()], dims),
            device,
        )
    };
    let cases: [([usize; 3], [usize; 3], [usize; 3]); 7] = [
        ([1, 0, 3], [1, 3, 2], [1, 0, 2]),
        ([1, 2, 0], [1, 0, 4], [1, 2, 4]),
        ([1, 2, 3], [1, 3, 0], [1, 2, 0]),
        ([3, 2, 0], [1, 0, 4], [3, 2, 4]),
        ([0, 2, 3], [1, 3, 4], [0, 2, 4]),
        ([1, 2, 3], [0, 3, 4], [0, 2, 4]),
        ([0, 0, 0], [0, 0, 0], [0, 0, 0]),
    ];
    for (lhs, rhs, out) in cases {
        let case = format!("{backend} matmul {lhs:?}·{rhs:?}");
        let product = t3(lhs).try_matmul(t3(rhs)).unwrap();
        assert_eq!(product.dims(), out, "{case}");
        let values = floats(product.into_data());
        assert_eq!(values, vec![0.0; out.iter().product()], "{case}");
        println!("{case}: Ok {out:?}, {} zeros", values.len());
    }
    // Rank 2, and a mismatch next to a zero still refused.
    let t2 = |dims: [usize; 2]| {
        Tensor::<2>::from_data(
            TensorData::new(vec![2.0f32; dims.iter().product()], dims),
            device,
        )
    };
    let zeros = t2([5, 0]).try_matmul(t2([0, 6])).unwrap();
    assert_eq!(floats(zeros.into_data()), vec![0.0; 30]);
    let err = t2([2, 0]).try_matmul(t2([3, 4])).unwrap_err();
    assert!(
        matches!(err, GuardError::ShapeMismatch { .. }),
        "{backend}: {err}"
    );
}

#[test]
fn zero_sized_matmul_on_cpu_backends() {
    for (backend, device) in common::cpu_devices() {
        zero_sized_matmuls(backend, &device);
    }
    // Flex computes these itself: the guard agrees with it.
    let flex = Device::flex();
    for (lhs, rhs) in [
        ([0usize, 3usize], [3usize, 2usize]),
        ([2, 0], [0, 4]),
        ([2, 3], [3, 0]),
    ] {
        let make = |dims: [usize; 2]| {
            Tensor::<2>::from_data(
                TensorData::new(vec![1.0f32; dims.iter().product()], dims),
                &flex,
            )
        };
        let burn = common::raw(|| common::snapshot(make(lhs).matmul(make(rhs))));
        let ours = make(lhs).try_matmul(make(rhs)).map(common::snapshot);
        common::assert_parity(&format!("flex {lhs:?}·{rhs:?}"), burn, ours);
    }
}

/// wgpu: only the schemes declared native there, and only inputs the guard refuses before a
/// kernel or that quantize with ordinary kernels; the zero-sized matmuls run no matmul kernel.
#[test]
fn wgpu_hostile_values() {
    let Some(wgpu) = common::wgpu_device() else {
        return;
    };
    let schemes = [
        ("q8f-packedu32-tensor", QuantScheme::default()),
        (
            "q8f-packedu32-block32",
            QuantScheme::default().per_block([32], ScaleDtype::F32),
        ),
        (
            "q8s-packedu32-tensor",
            QuantScheme::default().with_value(QuantValue::Q8S),
        ),
    ];
    let stack = burn_guard::capability::stack_of(&wgpu);
    for (_, scheme) in &schemes {
        assert!(
            burn_guard::capability::quantize_support(stack, scheme, &[4, 32]).is_native(),
            "{scheme:?} is not declared native on wgpu"
        );
    }
    run_grid("wgpu", &wgpu, &schemes, None);
    zero_sized_matmuls("wgpu", &wgpu);
    // The device still computes afterwards.
    let a = Tensor::<2>::from_data(TensorData::new(vec![1.0f32, 2.0, 3.0, 4.0], [2, 2]), &wgpu);
    let b = Tensor::<2>::from_data(TensorData::new(vec![1.0f32, 0.0, 0.0, 1.0], [2, 2]), &wgpu);
    assert_eq!(
        floats(a.try_matmul(b).unwrap().into_data()),
        vec![1.0, 2.0, 3.0, 4.0]
    );
}

/// The backend-level path refuses the same inputs on a concrete backend, strictly.
#[test]
fn backend_level_strict_quantize_refuses_hostile_values() {
    let device = Default::default();
    for input in inputs() {
        let x = Flex::float_from_data(TensorData::new(input.values.clone(), input.shape), &device);
        let scheme = QuantScheme::default();
        let got = burn_guard::backend::quant::quantize_dynamic::<Flex>(x, &scheme).map(|q| {
            floats(
                read_sync(Flex::float_into_data(Flex::dequantize(
                    q,
                    burn::tensor::FloatDType::F32,
                )))
                .unwrap(),
            )
        });
        println!(
            "{}",
            judge(
                "flex (backend)",
                "q8f-packedu32-tensor",
                &input,
                &scheme,
                got
            )
        );
    }
}

/// A quantized matmul whose activations have no rows: an empty product, without a kernel, on
/// Flex natively and on the remote device (whose weight lives on the Flex fallback).
#[test]
fn q_matmul_with_empty_activations() {
    use burn_backend::TensorMetadata;
    use burn_guard::backend::quant::{q_matmul, quantize_dynamic};

    let flex = Default::default();
    let weight_values = || TensorData::new(ramp(0.25)[..32].to_vec(), [4, 8]);
    let weight = Flex::float_from_data(weight_values(), &flex);
    let weight = Placed::Native(quantize_dynamic::<Flex>(weight, &QuantScheme::default()).unwrap());
    let x = Flex::float_from_data(TensorData::new(Vec::<f32>::new(), [0, 4]), &flex);
    let out = q_matmul::<Flex, Flex>(x, &weight, &Policy::strict(), &flex).unwrap();
    assert_eq!(out.shape().to_vec(), vec![0, 8]);

    let remote = common::loopback_remote();
    let policy = Policy::fallback_to([]);
    let w = RemoteBackend::float_from_data(weight_values(), remote.device());
    let w = quantize_dynamic_or_fallback::<RemoteBackend, Flex>(
        w,
        &QuantScheme::default(),
        &policy,
        &flex,
    )
    .unwrap();
    let x =
        RemoteBackend::float_from_data(TensorData::new(Vec::<f32>::new(), [0, 4]), remote.device());
    let out = q_matmul::<RemoteBackend, Flex>(x, &w, &policy, &flex).unwrap();
    assert_eq!(out.shape().to_vec(), vec![0, 8]);
    assert!(floats(read_sync(RemoteBackend::float_into_data(out)).unwrap()).is_empty());
    assert_eq!(policy.stats_of(burn_guard::policy::Op::QMatmul).native, 1);
    assert_eq!(
        policy.stats_of(burn_guard::policy::Op::QMatmul).fallbacks,
        0
    );
}
