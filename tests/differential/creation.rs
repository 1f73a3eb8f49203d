//! Differential tests of the creation family: raw burn under `catch_unwind` vs our twin.
//!
//! Where burn has a bug that we compute around (`eye(0)`, zero-sized `cartesian_grid`,
//! `categorical` with a zero-sized leading dim), [`fixed`] asserts that we succeed whatever
//! burn does.

use crate::common;

use burn::tensor::quantization::{
    Calibration, CalibrationRange, QuantScheme, QuantValue, ScaleDtype,
};
use burn::tensor::{
    Bool, DType, Device, Distribution, Float, FloatDType, Int, IntDType, Shape, Tensor,
    TensorCreationOptions, TensorData, Transaction,
};
use burn_guard::tensor::quantization::{try_compute_q_params, try_compute_range};
use burn_guard::tensor::{
    CheckedRead, TryAutodiff, TryAutodiffFloat, TryConvert, TryConvertFloat, TryCreate,
    TryCreateBool, TryCreateFloat, TryCreateInt, TryCreateLike, TryCreateMatrix, TryCreateNumeric,
    TryCreateRange, TryQuantize, TrySample, try_transaction_register,
};
use burn_guard::{GuardError, ScalarValue};
use proptest::prelude::*;

use crate::common::{
    assert_parity, cpu_devices as devices, raw, snapshot, snapshot_bool, snapshot_int,
};

/// Where burn panics on a legitimate input that we compute correctly: we must succeed, and
/// agree with burn whenever burn succeeds too.
fn fixed<T: PartialEq + std::fmt::Debug>(
    case: &str,
    burn: Option<T>,
    ours: Result<T, GuardError>,
) -> T {
    let ours = ours.unwrap_or_else(|err| panic!("{case}: we refuse a case we fix: {err}"));
    if let Some(b) = burn {
        assert_eq!(b, ours, "{case}: values differ");
    }
    ours
}

/// A shape of 1 to 3 dims (rank 2 is the valid one for `Tensor<2>` below).
fn any_shape() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(1usize..4, 1..4)
}

/// An explicit dtype, or none: right and wrong families for both kinds.
fn any_dtype() -> impl Strategy<Value = Option<DType>> {
    prop_oneof![
        Just(None),
        Just(Some(DType::F32)),
        Just(Some(DType::F64)),
        Just(Some(DType::I64)),
        Just(Some(DType::I32)),
        Just(Some(DType::Bool(burn::tensor::BoolStore::Native))),
    ]
}

fn options(device: &Device, dtype: Option<DType>) -> TensorCreationOptions {
    let options = TensorCreationOptions::new(device.clone());
    match dtype {
        Some(dtype) => options.with_dtype(dtype),
        None => options,
    }
}

/// A fill value drawn to be representable in every dtype about half the time.
fn any_fill() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-5i32..5).prop_map(f64::from),
        Just(2.5),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(1e30),
        Just(3e9),
        Just(-1.0),
    ]
}

/// A float snapshot with values as bit patterns, so that NaN compares equal to NaN.
fn snapshot_bits<const D: usize>(t: Tensor<D>) -> (Vec<usize>, Vec<u32>) {
    let (dims, values) = snapshot(t);
    (dims, values.into_iter().map(f32::to_bits).collect())
}

/// A refusal beyond burn (burn does not panic, but returns a broken tensor or leaves the
/// input to the backend): we must refuse with a check, never a caught panic.
fn beyond<T>(case: &str, ours: Result<T, GuardError>) {
    match ours {
        Ok(_) => panic!("{case}: we should refuse"),
        Err(err @ GuardError::BackendPanic { .. }) => panic!("{case}: only caught: {err}"),
        Err(_) => {}
    }
}

/// A fill value that fits `i64` but not `i32`, for an `I32` tensor: burn leaves it to the
/// backend (Flex wraps around, NdArray panics); we refuse it.
fn wraps(fill: f64, dtype: DType) -> bool {
    dtype == DType::I32 && fill.is_finite() && fill.abs() >= 2_147_483_648.0 && fill.abs() < 9e18
}

/// The dtype an Int tensor is created with: the explicit one, else the device default.
fn int_dtype(device: &Device, dtype: Option<DType>) -> DType {
    dtype.unwrap_or_else(|| device.settings().int_dtype.into())
}

fn quantized(device: &Device) -> Tensor<1> {
    Tensor::<1>::from_floats([1.0, -2.0, 3.0, 4.0], device)
        .quantize_dynamic(&QuantScheme::default())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn zeros_ones_full_empty_float(shape in any_shape(), dtype in any_dtype(), fill in any_fill(), op in 0usize..4) {
        for (name, device) in devices() {
            let case = format!("{name} op{op} float {shape:?} {dtype:?} fill={fill}");
            let s = || Shape::from(shape.clone());
            let o = || options(&device, dtype);
            let burn = raw(|| {
                let t: Tensor<2> = match op {
                    0 => Tensor::zeros(s(), o()),
                    1 => Tensor::ones(s(), o()),
                    2 => Tensor::full(s(), fill, o()),
                    _ => Tensor::empty(s(), o()),
                };
                if op == 3 { (t.dims().to_vec(), vec![]) } else { snapshot_bits(t) }
            });
            let ours = match op {
                0 => Tensor::<2, Float>::try_zeros(s(), o()),
                1 => Tensor::<2, Float>::try_ones(s(), o()),
                2 => Tensor::<2, Float>::try_full(s(), fill, o()),
                _ => Tensor::<2, Float>::try_empty(s(), o()),
            }
            .map(|t| if op == 3 { (t.dims().to_vec(), vec![]) } else { snapshot_bits(t) });
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn zeros_ones_full_int(shape in any_shape(), dtype in any_dtype(), fill in any_fill(), op in 0usize..3) {
        for (name, device) in devices() {
            let case = format!("{name} op{op} int {shape:?} {dtype:?} fill={fill}");
            let s = || Shape::from(shape.clone());
            let o = || options(&device, dtype);
            if op == 2 && shape.len() == 2 && wraps(fill, int_dtype(&device, dtype)) {
                beyond(&case, Tensor::<2, Int>::try_full(s(), fill, o()));
                continue;
            }
            let burn = raw(|| {
                let t: Tensor<2, Int> = match op {
                    0 => Tensor::zeros(s(), o()),
                    1 => Tensor::ones(s(), o()),
                    _ => Tensor::full(s(), fill, o()),
                };
                snapshot_int(t)
            });
            let ours = match op {
                0 => Tensor::<2, Int>::try_zeros(s(), o()),
                1 => Tensor::<2, Int>::try_ones(s(), o()),
                _ => Tensor::<2, Int>::try_full(s(), fill, o()),
            }
            .map(snapshot_int);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn full_bool(shape in any_shape(), dtype in any_dtype(), fill in any::<bool>()) {
        for (name, device) in devices() {
            let case = format!("{name} full bool {shape:?} {dtype:?} fill={fill}");
            let s = || Shape::from(shape.clone());
            let burn = raw(|| snapshot_bool(Tensor::<2, Bool>::full(s(), fill, options(&device, dtype))));
            let ours = Tensor::<2, Bool>::try_full(s(), fill, options(&device, dtype)).map(snapshot_bool);
            assert_parity(&case, burn, ours);
        }
    }

    /// The `_like` constructors refuse quantized tensors (Flex only: NdArray cannot quantize
    /// with the default scheme).
    #[test]
    fn like_constructors(q in any::<bool>(), fill in any_fill(), op in 0usize..4, int in any::<bool>()) {
        let device = Device::flex();
        let case = format!("flex like op{op} quantized={q} int={int} fill={fill}");
        if int {
            let t = Tensor::<1, Int>::from_ints([1, 2, 3], &device);
            if op >= 2 && wraps(fill, t.dtype()) {
                beyond(&case, t.try_full_like(fill));
                return Ok(());
            }
            let burn = raw(|| snapshot_int(match op {
                0 => t.zeros_like(),
                1 => t.ones_like(),
                _ => t.full_like(fill),
            }));
            let ours = match op {
                0 => t.try_zeros_like(),
                1 => t.try_ones_like(),
                _ => t.try_full_like(fill),
            }
            .map(snapshot_int);
            assert_parity(&case, burn, ours);
        } else {
            let t = if q { quantized(&device) } else { Tensor::<1>::ones([4], &device) };
            let burn = raw(|| match op {
                0 => snapshot_bits(t.zeros_like()),
                1 => snapshot_bits(t.ones_like()),
                2 => snapshot_bits(t.full_like(fill)),
                _ => (t.empty_like().dims().to_vec(), vec![]),
            });
            let ours = match op {
                0 => t.try_zeros_like().map(snapshot_bits),
                1 => t.try_ones_like().map(snapshot_bits),
                2 => t.try_full_like(fill).map(snapshot_bits),
                _ => t.try_empty_like().map(|t| (t.dims().to_vec(), vec![])),
            };
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn from_data_float(shape in any_shape(), dtype in any_dtype(), seed in 0i64..100) {
        for (name, device) in devices() {
            let n: usize = shape.iter().product();
            let values: Vec<f64> = (0..n as i64).map(|i| ((i * 7 + seed) % 11) as f64 - 5.0).collect();
            let data = || TensorData::new(values.clone(), shape.clone());
            let case = format!("{name} from_data float {shape:?} {dtype:?}");
            let burn = raw(|| snapshot(Tensor::<2>::from_data(data(), options(&device, dtype))));
            let ours = Tensor::<2, Float>::try_from_data(data(), options(&device, dtype)).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn from_data_int(shape in any_shape(), dtype in any_dtype(), big in any::<bool>()) {
        for (name, device) in devices() {
            let n: usize = shape.iter().product();
            let scale = if big { 3_000_000_000i64 } else { 1 };
            let values: Vec<i64> = (0..n as i64).map(|i| (i - 2) * scale).collect();
            let data = || TensorData::new(values.clone(), shape.clone());
            let case = format!("{name} from_data int {shape:?} {dtype:?} big={big}");
            let ours = Tensor::<2, Int>::try_from_data(data(), options(&device, dtype)).map(snapshot_int);
            if dtype.is_some_and(|d| !(d.is_int() || d.is_uint())) && shape.len() == 2 {
                // burn stores the data in the given dtype: an Int tensor holding floats or bools.
                beyond(&case, ours);
                continue;
            }
            let burn = raw(|| snapshot_int(Tensor::<2, Int>::from_data(data(), options(&device, dtype))));
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn from_floats_ints_bool(shape in any_shape(), big in any::<bool>(), nan in any::<bool>()) {
        for (name, device) in devices() {
            let n: usize = shape.iter().product();
            let ints: Vec<i64> = (0..n as i64).map(|i| if big && i == 0 { 1i64 << 40 } else { i }).collect();
            let floats: Vec<f32> = (0..n).map(|i| if nan && i == 0 { f32::NAN } else { i as f32 * 0.5 }).collect();
            let bools: Vec<bool> = (0..n).map(|i| i % 2 == 0).collect();
            let ints_data = || TensorData::new(ints.clone(), shape.clone());
            let floats_data = || TensorData::new(floats.clone(), shape.clone());
            let bools_data = || TensorData::new(bools.clone(), shape.clone());

            let case = format!("{name} from_ints {shape:?} big={big}");
            let burn = raw(|| snapshot_int(Tensor::<2, Int>::from_ints(ints_data(), &device)));
            assert_parity(&case, burn, Tensor::<2, Int>::try_from_ints(ints_data(), &device).map(snapshot_int));

            // NaN cannot be compared with `==`; compare the shape and the bit patterns.
            let bits = |(dims, v): (Vec<usize>, Vec<f32>)| (dims, v.into_iter().map(f32::to_bits).collect::<Vec<_>>());
            let case = format!("{name} from_floats {shape:?} nan={nan}");
            let burn = raw(|| bits(snapshot(Tensor::<2>::from_floats(floats_data(), &device))));
            assert_parity(&case, burn, Tensor::<2>::try_from_floats(floats_data(), &device).map(snapshot).map(bits));

            let case = format!("{name} from_ints(floats) {shape:?} nan={nan}");
            let burn = raw(|| snapshot_int(Tensor::<2, Int>::from_ints(floats_data(), &device)));
            assert_parity(&case, burn, Tensor::<2, Int>::try_from_ints(floats_data(), &device).map(snapshot_int));

            let case = format!("{name} from_bool {shape:?}");
            let burn = raw(|| snapshot_bool(Tensor::<2, Bool>::from_bool(bools_data(), &device)));
            assert_parity(&case, burn, Tensor::<2, Bool>::try_from_bool(bools_data(), &device).map(snapshot_bool));
        }
    }

    /// Random values cannot be compared; the outcome and the shape can. Burn does not check
    /// the rank (`dims()` then panics) nor the distribution (the host samplers panic).
    #[test]
    fn random_parity(shape in any_shape(), dtype in any_dtype(), pick in 0usize..7, int in any::<bool>()) {
        let distribution = match pick {
            0 => Distribution::Default,
            1 => Distribution::Uniform(-1.0, 2.0),
            2 => Distribution::Uniform(2.0, -1.0),
            3 => Distribution::Bernoulli(0.3),
            4 => Distribution::Bernoulli(1.5),
            5 => Distribution::Normal(0.0, 1.0),
            _ => Distribution::Uniform(0.2, 0.7),
        };
        for (name, device) in devices() {
            let case = format!("{name} random int={int} {shape:?} {dtype:?} {distribution:?}");
            let s = || Shape::from(shape.clone());
            if shape.len() != 2 {
                // burn does not check the rank: it returns a tensor whose rank is not D.
                beyond(&case, Tensor::<2, Float>::try_random(s(), distribution, options(&device, dtype)));
                continue;
            }
            if int {
                let burn = raw(|| Tensor::<2, Int>::random(s(), distribution, options(&device, dtype)).dims());
                let ours = Tensor::<2, Int>::try_random(s(), distribution, options(&device, dtype)).map(|t| t.dims());
                assert_parity(&case, burn, ours);
            } else {
                let burn = raw(|| Tensor::<2>::random(s(), distribution, options(&device, dtype)).dims());
                let ours = Tensor::<2, Float>::try_random(s(), distribution, options(&device, dtype)).map(|t| t.dims());
                assert_parity(&case, burn, ours);
            }
        }
    }

    #[test]
    fn arange_parity(start in -4i64..4, end in -4i64..6, step in 0usize..3, dtype in any_dtype()) {
        for (name, device) in devices() {
            let case = format!("{name} arange {start}..{end} step={step} {dtype:?}");
            let burn = raw(|| snapshot_int(Tensor::<1, Int>::arange(start..end, options(&device, dtype))));
            assert_parity(&case, burn, Tensor::try_arange(start..end, options(&device, dtype)).map(snapshot_int));
            let case = format!("{case} (arange_step)");
            let burn = raw(|| snapshot_int(Tensor::<1, Int>::arange_step(start..end, step, options(&device, dtype))));
            assert_parity(&case, burn, Tensor::try_arange_step(start..end, step, options(&device, dtype)).map(snapshot_int));
        }
    }

    #[test]
    fn eye_parity(size in 0usize..4) {
        for (name, device) in devices() {
            let case = format!("{name} eye {size}");
            let burn = raw(|| snapshot(Tensor::<2>::eye(size, &device)));
            let ours = Tensor::<2, Float>::try_eye(size, &device).map(snapshot);
            let burn_int = raw(|| snapshot_int(Tensor::<2, Int>::eye(size, &device)));
            let ours_int = Tensor::<2, Int>::try_eye(size, &device).map(snapshot_int);
            if size == 0 {
                assert_eq!(fixed(&case, burn, ours).0, vec![0, 0]);
                assert_eq!(fixed(&case, burn_int, ours_int).0, vec![0, 0]);
            } else {
                assert_parity(&case, burn, ours);
                assert_parity(&case, burn_int, ours_int);
            }
        }
    }

    #[test]
    fn cartesian_grid_parity(shape in proptest::collection::vec(0usize..3, 1..4)) {
        for (name, device) in devices() {
            let case = format!("{name} cartesian_grid {shape:?}");
            let s = || Shape::from(shape.clone());
            let burn = raw(|| snapshot_int(burn::tensor::cartesian_grid::<_, 2, 3>(s(), &device)));
            let ours = Tensor::<2, Int>::try_cartesian_grid::<_, 3>(s(), &device).map(snapshot_int);
            if shape.len() == 2 && shape.contains(&0) {
                let (dims, values) = fixed(&case, burn, ours);
                assert_eq!(dims, vec![shape[0], shape[1], 2]);
                assert!(values.is_empty());
            } else {
                assert_parity(&case, burn, ours);
            }
            let case = format!("{case} D2=4");
            let burn = raw(|| snapshot_int(burn::tensor::cartesian_grid::<_, 2, 4>(s(), &device)));
            assert_parity(&case, burn, Tensor::<2, Int>::try_cartesian_grid::<_, 4>(s(), &device).map(snapshot_int));
        }
    }

    #[test]
    fn into_scalar_parity(n in 0usize..3, value in any_fill()) {
        for (name, device) in devices() {
            let case = format!("{name} into_scalar n={n} value={value}");
            let t = || Tensor::<1>::from_data(TensorData::new(vec![value; n], [n]), &device);
            let burn = raw(|| t().into_scalar::<i32>());
            assert_parity(&format!("{case} as i32"), burn, t().into_scalar_checked::<i32>());
            let burn = raw(|| t().into_scalar::<f64>().to_bits());
            assert_parity(&format!("{case} as f64"), burn, t().into_scalar_checked::<f64>().map(f64::to_bits));
        }
    }

    #[test]
    fn into_scalar_async_parity(n in 0usize..3, value in any_fill()) {
        for (name, device) in devices() {
            let case = format!("{name} into_scalar_async n={n} value={value}");
            let t = || Tensor::<1>::from_data(TensorData::new(vec![value; n], [n]), &device);
            let burn = raw(|| burn::tensor::read_sync(t().into_scalar_async::<i32>()).ok());
            let ours = burn::tensor::read_sync(t().into_scalar_async_checked::<i32>()).map(Some);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn data_as_parity(value in any_fill(), target in 0usize..4, op in 0usize..4) {
        for (name, device) in devices() {
            let t = Tensor::<1>::from_data(TensorData::new(vec![value, 1.0], [2]), &device);
            let dtype = [DType::U8, DType::I32, DType::F64, DType::I64][target];
            let case = format!("{name} data op{op} value={value} -> {dtype:?}");
            let read = |d: TensorData| format!("{:?}", d.iter::<f64>().map(f64::to_bits).collect::<Vec<_>>());
            let burn = raw(|| read(match (op, target) {
                (0, 0) => t.to_data_as::<u8>(),
                (0, 1) => t.to_data_as::<i32>(),
                (0, 2) => t.to_data_as::<f64>(),
                (0, _) => t.to_data_as::<i64>(),
                (1, 0) => t.clone().into_data_as::<u8>(),
                (1, 1) => t.clone().into_data_as::<i32>(),
                (1, 2) => t.clone().into_data_as::<f64>(),
                (1, _) => t.clone().into_data_as::<i64>(),
                (2, _) => t.to_data_dtype(dtype),
                _ => t.clone().into_data_dtype(dtype),
            }));
            let ours = match (op, target) {
                (0, 0) => t.to_data_as_checked::<u8>(),
                (0, 1) => t.to_data_as_checked::<i32>(),
                (0, 2) => t.to_data_as_checked::<f64>(),
                (0, _) => t.to_data_as_checked::<i64>(),
                (1, 0) => t.clone().into_data_as_checked::<u8>(),
                (1, 1) => t.clone().into_data_as_checked::<i32>(),
                (1, 2) => t.clone().into_data_as_checked::<f64>(),
                (1, _) => t.clone().into_data_as_checked::<i64>(),
                (2, _) => t.to_data_dtype_checked(dtype),
                _ => t.clone().into_data_dtype_checked(dtype),
            }
            .map(read);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    /// Finite values only: a float -> int cast of NaN, ±inf or an out-of-range value panics in
    /// NdArray's element conversion (Flex saturates); that needs a device read to predict and
    /// is left to the backstop.
    fn cast_parity(target in 0usize..6, value in -1e6f64..1e6) {
        for (name, device) in devices() {
            let t = || Tensor::<1>::from_data(TensorData::new(vec![value, 2.0], [2]), &device);
            let case = format!("{name} cast value={value} target{target}");
            let dims = |t: Tensor<1>| t.dims().to_vec();
            let dims_int = |t: Tensor<1, Int>| t.dims().to_vec();
            let (burn, ours) = match target {
                0 => (raw(|| dims(t().cast(FloatDType::F64))), t().try_cast(FloatDType::F64).map(dims)),
                1 => (raw(|| dims_int(t().cast(IntDType::I64))), t().try_cast(IntDType::I64).map(dims_int)),
                2 => (raw(|| dims(t().cast(DType::F64))), t().try_cast(DType::F64).map(dims)),
                3 => (raw(|| dims(t().cast(DType::I32))), t().try_cast(DType::I32).map(dims)),
                4 => {
                    let i = || Tensor::<1, Int>::from_ints([1, 2], &device);
                    (raw(|| i().cast(DType::F32).dims().to_vec()), i().try_cast(DType::F32).map(|t| t.dims().to_vec()))
                }
                _ => {
                    let i = || Tensor::<1, Int>::from_ints([1, 2], &device);
                    (raw(|| i().cast(FloatDType::F32).dims().to_vec()), i().try_cast(FloatDType::F32).map(|t| t.dims().to_vec()))
                }
            };
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn categorical_parity(lead in 0usize..3, cats in 0usize..3, num_samples in 0usize..3) {
        for (name, device) in devices() {
            let case = format!("{name} categorical [{lead}, {cats}] n={num_samples}");
            let t = || Tensor::<2>::ones([lead, cats], &device);
            let burn = raw(|| t().categorical(num_samples).dims());
            let ours = t().try_categorical(num_samples).map(|t| t.dims());
            if lead == 0 && cats > 0 && num_samples > 0 {
                assert_eq!(fixed(&case, burn, ours), [0, num_samples]);
            } else {
                assert_parity(&case, burn, ours);
            }
        }
    }

    #[test]
    fn require_grad_parity(autodiff in any::<bool>(), leaf in any::<bool>(), flag in any::<bool>(), short in any::<bool>()) {
        for (name, device) in devices() {
            let device = if autodiff { device.autodiff() } else { device };
            let case = format!("{name} require_grad autodiff={autodiff} leaf={leaf} flag={flag} short={short}");
            let t = || {
                let t = Tensor::<1>::ones([2], &device);
                if autodiff && !leaf { t.require_grad() * 2.0 } else { t }
            };
            let burn = raw(|| if short { t().require_grad().is_require_grad() } else { t().set_require_grad(flag).is_require_grad() });
            let ours = if short { t().try_require_grad() } else { t().try_set_require_grad(flag) }.map(|t| t.is_require_grad());
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn backward_and_checkpointing(autodiff in any::<bool>(), tracked in any::<bool>()) {
        for (name, device) in devices() {
            let device = if autodiff { device.autodiff() } else { device };
            let case = format!("{name} backward autodiff={autodiff} tracked={tracked}");
            let t = || {
                let t = Tensor::<1>::ones([2], &device);
                let t = if autodiff && tracked { t.require_grad() } else { t };
                (t * 3.0).sum()
            };
            assert_parity(&case, raw(|| { t().backward(); }), t().try_backward().map(|_| ()));
            let strategy = burn::tensor::GradientCheckpointingStrategy::Disabled;
            let case = format!("{name} checkpointing autodiff={autodiff}");
            let burn = raw(|| t().with_gradient_checkpointing_strategy(strategy).dims());
            let ours = t().try_with_gradient_checkpointing_strategy(strategy).map(|t| t.dims());
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn grad_replace_parity(self_ad in any::<bool>(), grad_ad in any::<bool>(), other_backend in any::<bool>()) {
        #[allow(deprecated)]
        let pairs = [(Device::flex(), Device::ndarray()), (Device::ndarray(), Device::flex())];
        for (base, other) in pairs {
            let case = format!("grad_replace {base:?} self_ad={self_ad} grad_ad={grad_ad} other_backend={other_backend}");
            let ad = base.clone().autodiff();
            let x = Tensor::<1>::ones([2], &ad).require_grad();
            let mut grads = (x.clone() * 2.0).sum().backward();
            let target = if self_ad { x.clone() } else { Tensor::<1>::ones([2], &base) };
            let grad_device = if other_backend { other.clone() } else { base.clone() };
            let grad_device = if grad_ad { grad_device.autodiff() } else { grad_device };
            let grad = || Tensor::<1>::zeros([2], &grad_device);
            let burn = raw(|| target.grad_replace(&mut grads, grad()));
            let ours = target.try_grad_replace(&mut grads, grad());
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn distributed_parity(autodiff in any::<bool>()) {
        for (name, device) in devices() {
            let device = if autodiff { device.autodiff() } else { device };
            let t = Tensor::<1>::ones([2], &device);
            let case = format!("{name} is_distributed autodiff={autodiff}");
            assert_parity(&case, raw(|| t.is_distributed()), t.try_is_distributed());
            let id = burn_backend::distributed::DistributedParamId::new();
            let case = format!("{name} set_distributed autodiff={autodiff}");
            assert_parity(&case, raw(|| t.clone().set_distributed(id).dims()), t.clone().try_set_distributed(id).map(|t| t.dims()));
        }
    }

    #[test]
    fn from_dispatch_parity(source in 0usize..3, target in 0usize..3, rank in 1usize..3) {
        for (name, device) in devices() {
            let dispatch = || match source {
                0 => Tensor::<1>::ones([2], &device).into_dispatch(),
                1 => Tensor::<1, Int>::ones([2], &device).into_dispatch(),
                _ => Tensor::<1, Bool>::empty([2], &device).into_dispatch(),
            };
            let case = format!("{name} from_dispatch source{source} -> target{target} rank {rank}");
            let dims = |d: &[usize]| d.to_vec();
            if rank == 2 {
                // burn does not check the rank: it returns a tensor whose rank is not D.
                match target {
                    0 => beyond(&case, Tensor::<2, Float>::try_from_dispatch(dispatch())),
                    1 => beyond(&case, Tensor::<2, Int>::try_from_dispatch(dispatch())),
                    _ => beyond(&case, Tensor::<2, Bool>::try_from_dispatch(dispatch())),
                }
                continue;
            }
            let (burn, ours) = match target {
                0 => (raw(|| dims(&Tensor::<1>::from_dispatch(dispatch()).dims())), Tensor::<1, Float>::try_from_dispatch(dispatch()).map(|t| dims(&t.dims()))),
                1 => (raw(|| dims(&Tensor::<1, Int>::from_dispatch(dispatch()).dims())), Tensor::<1, Int>::try_from_dispatch(dispatch()).map(|t| dims(&t.dims()))),
                _ => (raw(|| dims(&Tensor::<1, Bool>::from_dispatch(dispatch()).dims())), Tensor::<1, Bool>::try_from_dispatch(dispatch()).map(|t| dims(&t.dims()))),
            };
            assert_parity(&case, burn, ours);
        }
    }

    /// Quantization runs on Flex only (NdArray does not support the default scheme).
    #[test]
    fn quantization_parity(len in prop_oneof![Just(4usize), Just(6), Just(8)], block in prop_oneof![Just(0u8), Just(2), Just(4)], abs_mean in any::<bool>(), two_level in any::<bool>(), wrong_global in 0usize..3) {
        let device = Device::flex();
        let mut scheme = QuantScheme::default().with_value(QuantValue::Q8S);
        if block > 0 {
            scheme = scheme.per_block([block], if two_level { ScaleDtype::F16 } else { ScaleDtype::F32 });
            if two_level {
                scheme = scheme.per_tensor(ScaleDtype::F32);
            }
        }
        let calibration = if abs_mean { Calibration::AbsMean } else { Calibration::MinMax };
        let t = || Tensor::<1>::from_data(TensorData::new((0..len).map(|i| i as f32 - 2.5).collect::<Vec<_>>(), [len]), &device);
        let case = format!("flex compute_range len={len} block={block} two_level={two_level} abs_mean={abs_mean}");
        let burn = raw(|| { let r = burn::tensor::quantization::compute_range(&scheme, &t(), &calibration); snapshot(r.max) });
        let ours = try_compute_range(&scheme, &t(), &calibration).map(|r| snapshot(r.max));
        assert_parity(&case, burn, ours);

        if let Ok(range) = try_compute_range(&scheme, &t(), &Calibration::MinMax) {
            let case = format!("flex compute_q_params len={len} block={block} two_level={two_level}");
            let burn = raw(|| snapshot(burn::tensor::quantization::compute_q_params(&scheme, range.clone()).scales));
            let ours = try_compute_q_params(&scheme, range.clone()).map(|q| snapshot(q.scales));
            assert_parity(&case, burn, ours);

            let qparams = || {
                let mut q = burn::tensor::quantization::compute_q_params(&scheme, range.clone());
                match wrong_global {
                    0 => {}
                    1 => q.global = if q.global.is_some() { None } else { Some(Tensor::ones([1], &device)) },
                    _ => q.global = q.global.map(|_| Tensor::ones([2], &device)),
                }
                q
            };
            let case = format!("flex quantize len={len} block={block} two_level={two_level} wrong_global={wrong_global}");
            let burn = raw(|| snapshot(t().quantize(&scheme, qparams()).dequantize()));
            let ours = t().try_quantize(&scheme, qparams()).map(|q| snapshot(q.dequantize()));
            assert_parity(&case, burn, ours);
        }
    }
}

/// Quantized inputs: every twin that burn panics on refuses them; the ones burn handles
/// (dequantizing) still work. Flex only (NdArray cannot quantize the default scheme).
#[test]
fn quantized_inputs() {
    let device = Device::flex();
    let q = quantized(&device);

    let case = "cast quantized to f64";
    assert_parity(
        case,
        raw(|| q.clone().cast(FloatDType::F64).dims()),
        q.clone().try_cast(FloatDType::F64).map(|t| t.dims()),
    );
    let case = "cast quantized to i64";
    assert_parity(
        case,
        raw(|| q.clone().cast(IntDType::I64).dims()),
        q.clone().try_cast(IntDType::I64).map(|t| t.dims()),
    );
    let case = "random_like quantized";
    assert_parity(
        case,
        raw(|| q.random_like(Distribution::Default).dims()),
        q.try_random_like(Distribution::Default).map(|t| t.dims()),
    );
    let case = "is_distributed quantized";
    assert_parity(case, raw(|| q.is_distributed()), q.try_is_distributed());
    let id = burn_backend::distributed::DistributedParamId::new();
    let case = "set_distributed quantized";
    assert_parity(
        case,
        raw(|| q.clone().set_distributed(id).dims()),
        q.clone().try_set_distributed(id).map(|t| t.dims()),
    );
    let case = "register quantized";
    assert_parity(
        case,
        raw(|| Transaction::default().register(q.clone()).execute().len()),
        try_transaction_register(Transaction::default(), q.clone()).map(|t| t.execute().len()),
    );
    let case = "register plain";
    let plain = Tensor::<1>::ones([2], &device);
    assert_parity(
        case,
        raw(|| {
            Transaction::default()
                .register(plain.clone())
                .execute()
                .len()
        }),
        try_transaction_register(Transaction::default(), plain).map(|t| t.execute().len()),
    );
    let case = "compute_range quantized";
    assert_parity(
        case,
        raw(|| {
            snapshot(
                burn::tensor::quantization::compute_range(
                    &QuantScheme::default(),
                    &q,
                    &Calibration::MinMax,
                )
                .max,
            )
        }),
        try_compute_range(&QuantScheme::default(), &q, &Calibration::MinMax)
            .map(|r| snapshot(r.max)),
    );
    let range = || CalibrationRange {
        min: q.clone(),
        max: q.clone(),
    };
    let case = "compute_q_params quantized";
    assert_parity(
        case,
        raw(|| {
            snapshot(
                burn::tensor::quantization::compute_q_params(&QuantScheme::default(), range())
                    .scales,
            )
        }),
        try_compute_q_params(&QuantScheme::default(), range()).map(|p| snapshot(p.scales)),
    );
    let case = "from_dispatch quantized as Float";
    assert_parity(
        case,
        raw(|| Tensor::<1>::from_dispatch(q.clone().into_dispatch()).dims()),
        Tensor::<1, Float>::try_from_dispatch(q.clone().into_dispatch()).map(|t| t.dims()),
    );
    let case = "from_dispatch quantized as Int";
    assert_parity(
        case,
        raw(|| Tensor::<1, Int>::from_dispatch(q.clone().into_dispatch()).dims()),
        Tensor::<1, Int>::try_from_dispatch(q.clone().into_dispatch()).map(|t| t.dims()),
    );
    let case = "to_data_as quantized";
    assert_parity(
        case,
        raw(|| q.to_data_as::<f32>().num_elements()),
        q.to_data_as_checked::<f32>().map(|d| d.num_elements()),
    );
    let case = "set_require_grad quantized";
    assert_parity(
        case,
        raw(|| q.clone().set_require_grad(true).dims()),
        q.clone().try_set_require_grad(true).map(|t| t.dims()),
    );

    // A quantized tensor in autodiff cannot have its gradient replaced.
    let ad = Device::flex().autodiff();
    let x = Tensor::<1>::from_floats([1.0, 2.0, 3.0, 4.0], &ad).require_grad();
    let mut grads = (x.clone() * 2.0).sum().backward();
    let qx = x.clone().quantize_dynamic(&QuantScheme::default());
    let err = qx
        .try_grad_replace(&mut grads, Tensor::zeros([4], &device))
        .unwrap_err();
    assert!(
        matches!(
            err,
            GuardError::InvalidDType {
                op: "grad_replace",
                dtype: DType::QFloat(_),
                ..
            }
        ),
        "{err}"
    );
    assert!(raw(|| qx.grad_replace(&mut grads, Tensor::zeros([4], &device))).is_none());
    x.try_grad_replace(&mut grads, Tensor::ones([4], &device))
        .unwrap();
    assert_eq!(x.grad(&grads).unwrap().sum().into_scalar::<f32>(), 4.0);
}

/// Fixed edge cases of `full` on Int tensors: values past the dtype's range, within `i64` (a
/// refusal beyond burn) or not.
#[test]
fn full_int_edges() {
    for (name, device) in devices() {
        for (fill, dtype) in [
            (3e9, DType::I32),
            (-3e9, DType::I32),
            (1e19, DType::I64),
            (9e18, DType::I64),
        ] {
            let case = format!("{name} full int {fill} {dtype:?}");
            let o = || options(&device, Some(dtype));
            let ours = Tensor::<1, Int>::try_full([2], fill, o()).map(snapshot_int);
            if wraps(fill, dtype) {
                beyond(&case, ours);
                continue;
            }
            let burn = raw(|| snapshot_int(Tensor::<1, Int>::full([2], fill, o())));
            assert_parity(&case, burn, ours);
        }
    }
}

#[test]
fn error_messages_name_the_rule() {
    let device = Device::flex();
    let err = Tensor::<2, Float>::try_zeros([2, 3, 4], &device).unwrap_err();
    assert!(
        matches!(
            err,
            GuardError::RankMismatch {
                expected: 2,
                got: 3,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("zeros: the shape's rank must equal the tensor's rank D; got"),
        "{err}"
    );
    let err = Tensor::try_arange_step(0..4, 0, &device).unwrap_err();
    assert_eq!(
        err.to_string(),
        "arange_step: step must be greater than 0; got step=0, expected at least 1"
    );
    let err = Tensor::<1, Int>::try_full([2], f64::NAN, &device).unwrap_err();
    assert_eq!(
        err.to_string(),
        "full: the scalar is not representable in the tensor's dtype; got value=NaN, dtype=I32"
    );
    assert!(matches!(
        err,
        GuardError::NotRepresentable {
            op: "full",
            value: ScalarValue::Float(v),
            dtype: DType::I32,
            ..
        } if v.is_nan()
    ));
}

/// A fixed case on wgpu: creation, dtype refusal, `eye(0)` and a scalar read.
#[test]
fn wgpu_creation() {
    let Some(device) = common::wgpu_device() else {
        return;
    };
    let t = Tensor::<2, Float>::try_zeros([2, 3], &device).unwrap();
    assert_eq!(t.dims(), [2, 3]);
    assert!(Tensor::<2, Float>::try_ones([2, 3], (&device, DType::I32)).is_err());
    assert!(raw(|| Tensor::<2>::ones([2, 3], (&device, DType::I32))).is_none());
    assert_eq!(
        Tensor::<2, Float>::try_eye(0, &device).unwrap().dims(),
        [0, 0]
    );
    let eye = Tensor::<2, Float>::try_eye(3, &device).unwrap();
    assert_eq!(eye.sum().into_scalar_checked::<f32>().unwrap(), 3.0);
    let grid = Tensor::<2, Int>::try_cartesian_grid::<_, 3>([2, 0], &device).unwrap();
    assert_eq!(grid.dims(), [2, 0, 2]);
    assert!(Tensor::try_arange_step(0..4, 0, &device).is_err());
    let r =
        Tensor::<2, Float>::try_random([2, 2], Distribution::Uniform(0.0, 1.0), &device).unwrap();
    assert_eq!(r.dims(), [2, 2]);
    // CubeCL supports distributed parameters; the twin must not refuse there.
    let t = Tensor::<1>::ones([2], &device.autodiff());
    let id = burn_backend::distributed::DistributedParamId::new();
    assert_parity(
        "wgpu set_distributed",
        raw(|| t.clone().set_distributed(id).is_distributed()),
        t.clone()
            .try_set_distributed(id)
            .map(|t| t.is_distributed()),
    );
}

/// `from_bridge` and `from_primitive` with a mismatched kind or rank: Flex and NdArray use one
/// primitive type for Float and Int, so the Rust type does not stop a Float primitive from
/// being read back as Int (burn panics "Expected kind Int, got dtype F32"); burn never checks
/// the rank.
#[test]
#[allow(deprecated)] // NdArray is deprecated upstream; still supported.
fn bridge_and_primitive_kind_and_rank() {
    for (name, device) in devices() {
        let f = || Tensor::<2>::ones([2, 3], &device);
        let case = |what: &str| format!("{name} {what}");
        assert_parity(
            &case("from_bridge float"),
            raw(|| snapshot(Tensor::<2>::from_bridge(f().into_bridge()))),
            Tensor::<2>::try_from_bridge(f().into_bridge()).map(snapshot),
        );
        assert_parity(
            &case("from_bridge as int"),
            raw(|| snapshot_int(Tensor::<2, Int>::from_bridge(f().into_bridge()))),
            Tensor::<2, Int>::try_from_bridge(f().into_bridge()).map(snapshot_int),
        );
        assert_parity(
            &case("from_bridge as bool"),
            raw(|| snapshot_bool(Tensor::<2, Bool>::from_bridge(f().into_bridge()))),
            Tensor::<2, Bool>::try_from_bridge(f().into_bridge()).map(snapshot_bool),
        );
        assert!(matches!(
            Tensor::<3>::try_from_bridge(f().into_bridge()),
            Err(GuardError::RankMismatch { .. })
        ));
    }
    let f = Tensor::<2>::ones([2, 3], &Device::flex());
    let p = || f.clone().try_into_primitive::<burn_flex::Flex>().unwrap();
    assert_parity(
        "from_primitive flex float",
        raw(|| snapshot(Tensor::<2>::from_primitive::<burn_flex::Flex>(p()))),
        Tensor::<2>::try_from_primitive::<burn_flex::Flex>(p()).map(snapshot),
    );
    assert_parity(
        "from_primitive flex as int",
        raw(|| snapshot_int(Tensor::<2, Int>::from_primitive::<burn_flex::Flex>(p()))),
        Tensor::<2, Int>::try_from_primitive::<burn_flex::Flex>(p()).map(snapshot_int),
    );
    assert!(matches!(
        Tensor::<3>::try_from_primitive::<burn_flex::Flex>(p()),
        Err(GuardError::RankMismatch { .. })
    ));
    #[allow(deprecated)]
    let nd = Tensor::<2>::ones([2, 3], &Device::ndarray());
    let p = || {
        nd.clone()
            .try_into_primitive::<burn_ndarray::NdArray>()
            .unwrap()
    };
    assert_parity(
        "from_primitive ndarray as int",
        raw(|| {
            snapshot_int(Tensor::<2, Int>::from_primitive::<burn_ndarray::NdArray>(
                p(),
            ))
        }),
        Tensor::<2, Int>::try_from_primitive::<burn_ndarray::NdArray>(p()).map(snapshot_int),
    );
}

/// `Tensor::int` of values an integer cannot hold: NdArray panics, Flex saturates. The twin
/// reads the values on NdArray only and refuses them there.
#[test]
fn float_to_int_values() {
    for value in [f32::NAN, f32::INFINITY, -1e30, 1e30, 1.5, -3e9, 9.2e18] {
        for (name, device) in devices() {
            let t = || Tensor::<1>::from_floats([value, 2.0], &device);
            assert_parity(
                &format!("{name} int({value})"),
                raw(|| snapshot_int(t().int())),
                t().try_int().map(snapshot_int),
            );
        }
    }
}
