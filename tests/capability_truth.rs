//! The truth test: for every compiled backend and a grid of schemes × shapes, the declared
//! capability table equals what actually happens when the backend runs the operation under
//! the backstop — where "supported" means it runs *and* dequantizes to within the scheme's
//! step (Flex's E4M3/E5M2 run and saturate: not supported).

mod common;

use burn::tensor::quantization::{QuantScheme, ScaleDtype};
use burn_backend::Backend;
use burn_guard::capability::{
    BackendStack, Effect, Support, cached_probe, probe_quantize, quantize_support,
};
use burn_guard::check::{self, SchemeName};

const SHAPES: [[usize; 2]; 2] = [[4, 64], [8, 32]];

/// Values × stores × levels that pass the scheme checks (refused schemes never reach a
/// backend, so they have no capability to compare).
fn grid() -> Vec<QuantScheme> {
    let mut schemes = Vec::new();
    for base in common::quant_bases() {
        for scheme in [
            base,
            base.per_block([32], ScaleDtype::F32),
            base.per_block([16], ScaleDtype::UE4M3)
                .per_tensor(ScaleDtype::F32),
        ] {
            if SHAPES
                .iter()
                .all(|shape| check::quant_scheme("grid", &scheme, shape).is_ok())
            {
                schemes.push(scheme);
            }
        }
    }
    schemes
}

/// What a probe can tell apart: native, a panic (burn's `unimplemented!()` panics too), or
/// values that come back wrong. An `Unmeasured` declaration matches nothing a probe says.
fn category(answer: &Support) -> &'static str {
    match answer.gap().map(|gap| gap.effect) {
        None => "native",
        Some(Effect::Panics | Effect::Unimplemented) => "panics",
        Some(Effect::WrongValues) => "wrong values",
        Some(_) => "unmeasured",
    }
}

/// Compares declared and probed answers for backend `B` (native, panics, or wrong values);
/// returns the disagreements.
///
/// With `only_native`, schemes declared unsupported are not run: on wgpu a kernel panic
/// happens on the fusion worker thread and leaves the device's stream unusable for the rest
/// of the process (measured), so the unsupported half of the table is kept by code reading and
/// by the canary tests instead.
fn disagreements<B: Backend>(device: &B::Device, only_native: bool) -> Vec<String> {
    let stack = BackendStack::of::<B>(device);
    let mut wrong = Vec::new();
    let mut native = 0;
    let schemes = grid();
    assert!(
        schemes.len() >= 40,
        "grid has only {} schemes",
        schemes.len()
    );
    for scheme in &schemes {
        for shape in SHAPES {
            let declared = quantize_support(&stack, scheme, &shape);
            if only_native && !declared.is_native() {
                continue;
            }
            let probed = probe_quantize::<B>(device, scheme, &shape);
            native += usize::from(probed.is_native());
            if category(&declared) != category(&probed) {
                wrong.push(format!(
                    "{} {} {shape:?}: declared {declared:?}, measured {probed:?}",
                    stack.name(),
                    SchemeName(scheme)
                ));
            }
        }
    }
    println!(
        "{}: {} schemes x {} shapes, {native} native",
        stack.name(),
        schemes.len(),
        SHAPES.len()
    );
    wrong
}

#[test]
fn flex_table_is_true() {
    let wrong = disagreements::<burn_flex::Flex>(&Default::default(), false);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn ndarray_table_is_true() {
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let wrong = disagreements::<burn_ndarray::NdArray>(&Default::default(), false);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn remote_table_is_true() {
    let remote = common::loopback_remote();
    let wrong = disagreements::<burn_remote::RemoteBackend>(remote.device(), false);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn wgpu_table_is_true() {
    if common::wgpu_device().is_none() {
        return;
    }
    let wrong = disagreements::<burn_wgpu::Wgpu>(&Default::default(), true);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A probe runs once per (backend, scheme, probe shape): before it, nothing is cached; after
/// it, the cache holds its answer, and asking again returns that answer.
#[test]
fn probes_are_cached() {
    let device = Default::default();
    let scheme = QuantScheme::default();
    // A shape no other test probes.
    let shape = [5, 40];
    assert_eq!(
        cached_probe::<burn_flex::Flex>(&device, &scheme, &shape),
        None
    );
    let first = probe_quantize::<burn_flex::Flex>(&device, &scheme, &shape);
    assert_eq!(first, Support::Native);
    assert_eq!(
        cached_probe::<burn_flex::Flex>(&device, &scheme, &shape),
        Some(first.clone())
    );
    assert_eq!(
        probe_quantize::<burn_flex::Flex>(&device, &scheme, &shape),
        first
    );
}

/// A probe never allocates the caller's tensor: a huge shape is probed on a small one of the
/// same rank and residues, and one whose small form is still too large is answered
/// `Unmeasured` without running anything.
#[test]
fn probes_are_bounded() {
    use burn_guard::capability::{PROBE_MAX_ELEMENTS, probe_shape};
    let scheme = QuantScheme::default();
    let huge = [1 << 20, 1 << 20];
    let small = probe_shape(&scheme, &huge).unwrap();
    assert!(small.iter().product::<usize>() <= PROBE_MAX_ELEMENTS);
    let answer = probe_quantize::<burn_flex::Flex>(&Default::default(), &scheme, &huge);
    assert_eq!(answer, Support::Native);
    let overflowing = [usize::MAX, usize::MAX, usize::MAX, usize::MAX];
    let answer = probe_quantize::<burn_flex::Flex>(&Default::default(), &scheme, &overflowing);
    assert_eq!(answer.gap().map(|g| g.effect), Some(Effect::Unmeasured));
}

/// Dtype answers: burn's `dtype_usage` for plain dtypes; the declared tables for quantized
/// ones, where burn's answer is wrong both ways (the router claims storage it cannot use;
/// Flex reports only `Storage` for schemes it fully supports).
#[test]
fn dtype_answers_do_not_trust_burn_for_quantized_dtypes() {
    use burn::tensor::DType;
    use burn_guard::capability::dtype_support;

    let flex = Default::default();
    assert!(dtype_support::<burn_flex::Flex>(&flex, DType::F32).is_native());
    let scheme = QuantScheme::default();
    assert!(!burn_flex::Flex::supports_dtype(
        &flex,
        DType::QFloat(scheme)
    ));
    assert!(dtype_support::<burn_flex::Flex>(&flex, DType::QFloat(scheme)).is_native());

    let remote = common::loopback_remote();
    let answer =
        dtype_support::<burn_remote::RemoteBackend>(remote.device(), DType::QFloat(scheme));
    assert!(!answer.is_native(), "{answer:?}");
}

/// Whether burn's own range (`compute_range`, the call the weight quantizer reads) comes back
/// non-finite for every tensor holding one NaN, +inf or -inf: per tensor and per block, with
/// `MinMax` and `AbsMean`, in each of `dtypes` the backend can hold, the bad value first, inside
/// a SIMD body, last in a row with a tail, in one- and two-dimensional blocks, and through a
/// transposed view; a block range folded to one min and one max as `src/module/values.rs`
/// folds it. `Err` names the first case whose range stayed finite or whose reduction panicked.
fn ranges_see_every_bad_value(
    device: &burn::tensor::Device,
    dtypes: &[burn::tensor::FloatDType],
) -> Result<(), String> {
    use burn::tensor::quantization::{Calibration, compute_range};
    use burn::tensor::{Tensor, TensorData};

    let per_tensor = QuantScheme::default();
    let cases: Vec<(QuantScheme, [usize; 2], Vec<usize>, bool)> = vec![
        (per_tensor, [3, 1030], vec![0, 1500, 3089], false),
        (per_tensor, [1030, 3], vec![0, 1500, 3089], true),
        (
            per_tensor.per_block([32], ScaleDtype::F32),
            [4, 64],
            vec![0, 100, 255],
            false,
        ),
        (
            per_tensor.per_block([128], ScaleDtype::F32),
            [2, 1024],
            vec![0, 700, 2047],
            false,
        ),
        // A two-dimensional block folds a leading axis too (Flex's generic dim reduction).
        (
            per_tensor.per_block([4, 32], ScaleDtype::F32),
            [8, 64],
            vec![0, 130, 511],
            false,
        ),
    ];
    for (scheme, shape, places, transposed) in cases {
        // `Calibration` is neither `Clone` nor `Debug`: each case makes its own, by name.
        for name in ["min_max", "abs_mean"] {
            let calibration = if name == "abs_mean" {
                Calibration::AbsMean
            } else {
                Calibration::MinMax
            };
            for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                for &place in &places {
                    for &dtype in dtypes {
                        let mut values: Vec<f32> = (0..shape[0] * shape[1])
                            .map(|i| ((i * 7 % 13) as f32) - 6.0)
                            .collect();
                        values[place] = bad;
                        let tensor = Tensor::<2>::from_data(TensorData::new(values, shape), device);
                        // A [1030, 3] tensor read as its [3, 1030] transpose: a strided view.
                        let tensor = if transposed {
                            tensor.transpose()
                        } else {
                            tensor
                        };
                        // A dtype the backend cannot hold holds no parameter there.
                        let Some(tensor) = common::raw(|| tensor.cast(dtype)) else {
                            continue;
                        };
                        let case =
                            format!("{name} {scheme:?} {shape:?} {dtype:?}, {bad} at {place}");
                        let range = common::raw(|| {
                            let range = compute_range(&scheme, &tensor, &calibration);
                            let (min, max) = if scheme.block_size().is_some() {
                                (range.min.min(), range.max.max())
                            } else {
                                (range.min, range.max)
                            };
                            let read = |t: Tensor<1>| {
                                t.into_data().convert::<f32>().try_to_vec::<f32>().unwrap()
                            };
                            (read(min), read(max))
                        })
                        .ok_or_else(|| format!("{case}: a reduction panicked"))?;
                        if range.0.iter().chain(&range.1).all(|v| v.is_finite()) {
                            return Err(format!("{case}: the range stayed finite: {range:?}"));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// `Quirks::extrema_propagate_nan` is true where claimed: the weight quantizer then skips its
/// own sum of the values and judges NaN and ±inf from burn's range alone. On the CPU backends,
/// both measured here, a backend that does propagate and does not claim it is reported too
/// (a claim left out costs only the sum). CubeCL on wgpu claims nothing (its min and max run
/// on whatever driver is there); it is measured here only once it claims, in f32 alone (an f16
/// cast panics on a WGSL device thread and poisons the device).
#[test]
fn extrema_nan_claims_are_true() {
    use burn::tensor::FloatDType;
    use burn_guard::capability::quirks_of;

    let cpu = [FloatDType::F32, FloatDType::F16, FloatDType::BF16];
    for (name, device) in common::cpu_devices() {
        let claimed = quirks_of(&device).extrema_propagate_nan;
        let observed = ranges_see_every_bad_value(&device, &cpu);
        println!("{name}: claimed {claimed}, observed {observed:?}");
        assert_eq!(claimed, observed.is_ok(), "{name}: {observed:?}");
    }
    if let Some(device) = common::wgpu_device()
        && quirks_of(&device).extrema_propagate_nan
    {
        let observed = ranges_see_every_bad_value(&device, &[FloatDType::F32]);
        assert_eq!(observed, Ok(()), "wgpu claims NaN-propagating extrema");
    }
}

/// `Quirks::runs_on_host` is true where claimed: the weight quantizer then computes a
/// per-tensor scale on the host (`check::quant::quant_scale` of the range's magnitude) instead
/// of burn's `compute_q_params`, so the two must agree bit for bit on every F32 range, for
/// every quantized value type: random extremes over f32's whole exponent range (subnormals,
/// zeros, magnitudes whose scale overflows), with either sign the larger. Each range is two
/// one-element tensors, as `compute_range` returns for a per-tensor scheme.
#[test]
fn host_scale_claims_are_true() {
    use burn::tensor::quantization::{CalibrationRange, compute_q_params};
    use burn::tensor::{Tensor, TensorData};
    use burn_guard::capability::quirks_of;
    use burn_guard::check::quant::{quant_scale, range_magnitude};
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng};

    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    // Any finite f32 bit pattern, then the edges by name.
    let finite = proptest::num::f32::NORMAL
        | proptest::num::f32::SUBNORMAL
        | proptest::num::f32::ZERO
        | proptest::num::f32::POSITIVE
        | proptest::num::f32::NEGATIVE;
    let mut pairs: Vec<(f32, f32)> = (0..400)
        .map(|_| {
            let a = finite.new_tree(&mut runner).unwrap().current();
            let b = finite.new_tree(&mut runner).unwrap().current();
            (a.min(b), a.max(b))
        })
        .collect();
    pairs.extend([
        (0.0, 0.0),
        (-0.0, 0.0),
        (-3.0, 3.0),
        (-f32::MAX, 1.0),
        (-1.0, f32::MAX),
        (f32::MIN_POSITIVE, 1.0),
        (-1e-45, 1e-45),
    ]);
    let mut claimed = 0;
    for (name, device) in common::cpu_devices() {
        if !quirks_of(&device).runs_on_host {
            continue;
        }
        claimed += 1;
        for value in common::QUANT_VALUES {
            let scheme = QuantScheme::default().with_value(value);
            for &(min, max) in &pairs {
                let one = |v: f32| Tensor::<1>::from_data(TensorData::new(vec![v], [1]), &device);
                let range = CalibrationRange {
                    min: one(min),
                    max: one(max),
                };
                let burns = compute_q_params(&scheme, range).scales.into_data();
                let burns = burns.as_slice::<f32>().unwrap()[0];
                let ours = quant_scale(&scheme, range_magnitude(min, max));
                assert_eq!(
                    burns.to_bits(),
                    ours.to_bits(),
                    "{name} {value:?}: range [{min:e}, {max:e}]: burn's scale {burns:e}, ours {ours:e}"
                );
            }
        }
    }
    assert_eq!(claimed, 2, "Flex and NdArray both run on the host");
}

/// Packing along an outer dimension (`PackedU32(k)`, `k > 0`) on wgpu: burn's quantize with
/// such a scheme gives wrong values (declared [`Effect::WrongValues`]), while a tensor
/// quantized with that dimension swapped innermost and swapped back — what the weight
/// quantizer makes — dequantizes, convolves and multiplies to exactly Flex's values
/// (`outer_packing_support`: native on wgpu); Flex cannot read such data (declared `Panics`).
#[test]
fn outer_packing_claims_are_true() {
    use burn::tensor::quantization::{QuantStore, QuantValue};
    use burn::tensor::{Distribution, Tensor, TensorData};
    use burn_guard::capability::outer_packing_support;

    let flex = burn::tensor::Device::flex();
    let Some(wgpu) = common::wgpu_device() else {
        return;
    };
    let max_diff = |a: TensorData, b: &TensorData| {
        let a = a.convert::<f32>().try_to_vec::<f32>().unwrap();
        let b = b.clone().convert::<f32>().try_to_vec::<f32>().unwrap();
        a.iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max)
    };
    let (flex_stack, wgpu_stack) = (
        burn_guard::capability::stack_of(&flex),
        burn_guard::capability::stack_of(&wgpu),
    );
    assert!(outer_packing_support(wgpu_stack).is_native());
    assert_eq!(
        outer_packing_support(flex_stack).gap().map(|g| g.effect),
        Some(Effect::Panics)
    );
    flex.seed(3);
    let weight = Tensor::<4>::random([64, 3, 7, 7], Distribution::Normal(0.0, 0.1), &flex);
    let data = weight.into_data();
    for value in [QuantValue::Q8S, QuantValue::Q4S] {
        let scheme = QuantScheme::default().with_value(value);
        let outer = scheme.with_store(QuantStore::PackedU32(3));
        let expected = Tensor::<4>::from_data(data.clone(), &flex)
            .quantize_dynamic(&scheme.with_store(QuantStore::Native))
            .dequantize()
            .into_data();

        // burn's own quantize with the outer scheme: wrong, as declared.
        let declared = quantize_support(wgpu_stack, &outer, &[64, 3, 7, 7]);
        assert_eq!(declared.gap().map(|g| g.effect), Some(Effect::WrongValues));
        let direct = Tensor::<4>::from_data(data.clone(), &wgpu).quantize_dynamic(&outer);
        let off = max_diff(direct.dequantize().into_data(), &expected);
        assert!(
            off > 0.1,
            "{value:?}: burn's outer packing is {off} off: no longer wrong?"
        );

        // Swapped innermost, quantized, swapped back: burn's outer-packed tensor, exact.
        let swapped = Tensor::<4>::from_data(data.clone(), &wgpu)
            .swap_dims(0, 3)
            .quantize_dynamic(&scheme)
            .swap_dims(0, 3);
        assert_eq!(swapped.dtype(), burn::tensor::DType::QFloat(outer));
        assert_eq!(
            max_diff(swapped.clone().dequantize().into_data(), &expected),
            0.0
        );
        let x = Tensor::<4>::random([2, 3, 16, 16], Distribution::Normal(0.0, 1.0), &wgpu);
        let options = burn::tensor::ops::ConvOptions::new([2, 2], [3, 3], [1, 1], 1);
        let float = Tensor::<4>::from_data(expected.clone(), &wgpu);
        let conv = |w| burn::tensor::module::conv2d(x.clone(), w, None, options.clone());
        let want = conv(float).into_data();
        assert_eq!(max_diff(conv(swapped.clone()).into_data(), &want), 0.0);
        // Read back: the same bits through the device's own reader; Flex cannot take them.
        let read = swapped.into_data();
        let again = Tensor::<4>::from_data(read.clone(), &wgpu)
            .dequantize()
            .into_data();
        assert_eq!(max_diff(again, &expected), 0.0);
        assert!(
            common::raw(|| Tensor::<4>::from_data(read, &flex).dequantize().into_data()).is_none()
        );
    }
}
