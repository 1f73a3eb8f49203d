//! Differential tests of the elementwise family: raw burn under `catch_unwind` vs our twin.
//!
//! Values are compared through their `Debug` text so that NaN equals NaN.

use crate::common;

use burn::tensor::{Bool, DType, Device, Int, Tensor};
use burn_guard::check::elementwise::{SCALAR_FAMILY, SCALAR_RANGE};
use burn_guard::tensor::{
    TryElementwise, TryElementwiseBool, TryElementwiseFloat, TryElementwiseInt,
    TryElementwiseVector, TryNumeric,
};
use burn_guard::{GuardError, ScalarValue};
use proptest::prelude::*;

use crate::common::{assert_parity, both, raw};

type Snap = (Vec<usize>, Vec<String>);

fn fsnap<const D: usize>(t: Tensor<D>) -> Snap {
    let (dims, values) = common::snapshot(t);
    (dims, values.iter().map(|v| format!("{v:?}")).collect())
}

fn isnap<const D: usize>(t: Tensor<D, Int>) -> Snap {
    let (dims, values) = common::snapshot_int(t);
    (dims, values.iter().map(|v| format!("{v:?}")).collect())
}

fn bsnap<const D: usize>(t: Tensor<D, Bool>) -> Snap {
    let (dims, values) = common::snapshot_bool(t);
    (dims, values.iter().map(|v| format!("{v:?}")).collect())
}

fn ftensor<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D> {
    common::float_tensor(dims, device)
}

/// An int tensor with entries in 1..=5 (no zero divisors, no overflow with small scalars).
fn itensor<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D, Int> {
    let n: usize = dims.iter().product();
    let values: Vec<i64> = (0..n).map(|i| (i * 3 % 5) as i64 + 1).collect();
    Tensor::<1, Int>::from_ints(values.as_slice(), device).reshape(dims)
}

fn shape2() -> impl Strategy<Value = [usize; 2]> {
    [1usize..4, 1usize..4]
}

/// A right-hand shape that broadcasts against `lhs` about half the time.
fn rhs_shape(lhs: [usize; 2], pick: usize, other: [usize; 2]) -> [usize; 2] {
    match pick {
        0 => lhs,
        1 => [1, lhs[1]],
        2 => [lhs[0], 1],
        _ => other,
    }
}

/// A dim drawn to be valid about half the time for rank `rank` (negatives included).
fn any_dim(rank: usize) -> impl Strategy<Value = isize> {
    let r = rank as isize;
    prop_oneof![-r..r, (-r - 2)..(r + 2)]
}

/// A scalar argument of one of several element types.
#[derive(Debug, Clone, Copy)]
enum Arg {
    F32(f32),
    F64(f64),
    I32(i32),
    I64(i64),
    U64(u64),
    U8(u8),
}

macro_rules! with_arg {
    ($arg:expr, $x:ident => $body:expr) => {
        match $arg {
            Arg::F32($x) => $body,
            Arg::F64($x) => $body,
            Arg::I32($x) => $body,
            Arg::I64($x) => $body,
            Arg::U64($x) => $body,
            Arg::U8($x) => $body,
        }
    };
}

/// Scalars that cannot overflow arithmetic on small int tensors, plus every value that
/// `Scalar::new` refuses on an int tensor.
fn arith_arg() -> impl Strategy<Value = Arg> {
    prop_oneof![
        (-4i32..5).prop_map(Arg::I32),
        (-4i64..5).prop_map(Arg::I64),
        (0u64..5).prop_map(Arg::U64),
        (0u8..5).prop_map(Arg::U8),
        (-4.0f32..4.0).prop_map(Arg::F32),
        (-4.0f64..4.0).prop_map(Arg::F64),
        prop::sample::select(vec![
            Arg::F32(f32::NAN),
            Arg::F32(f32::INFINITY),
            Arg::F64(f64::NEG_INFINITY),
            Arg::F64(1e19),
            Arg::F64(-1e19),
            Arg::F64(9_223_372_036_854_775_808.0),
            Arg::F32(-0.5),
            Arg::U64(u64::MAX),
            Arg::U64(1 << 63),
        ]),
    ]
}

/// Every scalar, including the boundaries of i64 (for comparisons and clamps).
fn any_arg() -> impl Strategy<Value = Arg> {
    prop_oneof![
        3 => arith_arg(),
        1 => prop::sample::select(vec![
            Arg::I64(i64::MAX),
            Arg::I64(i64::MIN),
            Arg::U64(i64::MAX as u64),
            Arg::F64(-9_223_372_036_854_775_808.0),
            Arg::F64(5e18),
        ]),
    ]
}

/// Runs scalar op number `op` on raw burn and on our twin; `$snap` snapshots `Self` outputs.
macro_rules! scalar_case {
    ($case:expr, $name:expr, $narrow:expr, $op:expr, $make:expr, $x:expr, $snap:ident) => {{
        let make = $make;
        let x = $x;
        let (burn, ours): (Option<Snap>, Result<Snap, GuardError>) = both!(make, $op;
            0 => add_scalar / try_add_scalar (x) $snap;
            1 => sub_scalar / try_sub_scalar (x) $snap;
            2 => mul_scalar / try_mul_scalar (x) $snap;
            3 => div_scalar / try_div_scalar (x) $snap;
            4 => remainder_scalar / try_remainder_scalar (x) $snap;
            5 => clamp_min / try_clamp_min (x) $snap;
            6 => clamp_max / try_clamp_max (x) $snap;
            7 => clamp / try_clamp (x, x) $snap;
            8 => greater_scalar / try_greater_scalar (x) bsnap;
            9 => greater_equal_scalar / try_greater_equal_scalar (x) bsnap;
            10 => lower_scalar / try_lower_scalar (x) bsnap;
            11 => lower_equal_scalar / try_lower_equal_scalar (x) bsnap;
            12 => greater_elem / try_greater_elem (x) bsnap;
            13 => greater_equal_elem / try_greater_equal_elem (x) bsnap;
            14 => lower_elem / try_lower_elem (x) bsnap;
            15 => lower_equal_elem / try_lower_equal_elem (x) bsnap;
            16 => equal_scalar / try_equal_scalar (x) bsnap;
            17 => not_equal_scalar / try_not_equal_scalar (x) bsnap;
            18 => equal_elem / try_equal_elem (x) bsnap;
            19 => not_equal_elem / try_not_equal_elem (x) bsnap;
            _ => powi_scalar / try_powi_scalar (x) $snap;
        );
        assert_parity_or_wrap(&$case, $name, $narrow, burn, ours);
    }};
}

/// The parity rule, with one deliberate divergence: Flex's integer tensors are `I32`, and
/// Flex narrows a scalar that fits `i64` but not `i32` by wrapping it (`i64::MAX` becomes
/// `-1`), where NdArray and CubeCL panic. We refuse such a scalar before dispatch.
fn assert_parity_or_wrap(
    case: &str,
    name: &str,
    narrow: bool,
    burn: Option<Snap>,
    ours: Result<Snap, GuardError>,
) {
    if let (true, Some(_), Err(err)) = (name == "flex" && narrow, &burn, &ours) {
        assert!(
            matches!(err, GuardError::NotRepresentable { rule, .. } if *rule == SCALAR_RANGE)
                || matches!(err, GuardError::OutOfRange { name: "amount", .. }),
            "{case}: {err:?}"
        );
        return;
    }
    assert_parity(case, burn, ours);
}

/// Whether the int tensors of this device are narrower than 64 bits.
fn narrow_int(device: &Device) -> bool {
    itensor([1], device).dtype() != burn::tensor::DType::I64
}

/// Ops 0..=4 and 20 are arithmetic; the rest compare or clamp.
const ARITH_OPS: [usize; 6] = [0, 1, 2, 3, 4, 20];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Every scalar twin on float tensors (`Scalar::new` never fails there; `powi_scalar`
    /// refuses exponents the backends cannot convert).
    #[test]
    fn float_scalar_parity(dims in shape2(), op in 0usize..21, arg in any_arg()) {
        for (name, device) in common::cpu_devices() {
            let case = format!("{name} float op{op} {dims:?} {arg:?}");
            with_arg!(arg, x => scalar_case!(case, name, false, op, || ftensor(dims, &device), x, fsnap));
        }
    }

    /// Comparisons and clamps on int tensors, with i64-boundary scalars.
    #[test]
    fn int_compare_scalar_parity(dims in shape2(), op in 5usize..20, arg in any_arg()) {
        for (name, device) in common::cpu_devices() {
            let case = format!("{name} int op{op} {dims:?} {arg:?}");
            let narrow = narrow_int(&device);
            with_arg!(arg, x => scalar_case!(case, name, narrow, op, || itensor(dims, &device), x, isnap));
        }
    }

    /// Arithmetic on int tensors: NaN, ±inf and out-of-range scalars are refused (burn
    /// panics in `Scalar::new`), and so is a zero divisor (the backend panics).
    #[test]
    fn int_arith_scalar_parity(dims in shape2(), pick in 0usize..6, arg in arith_arg()) {
        let op = ARITH_OPS[pick];
        for (name, device) in common::cpu_devices() {
            let case = format!("{name} int op{op} {dims:?} {arg:?}");
            let narrow = narrow_int(&device);
            with_arg!(arg, x => scalar_case!(case, name, narrow, op, || itensor(dims, &device), x, isnap));
        }
    }

    /// Bitwise scalar ops on int tensors. The shifts refuse amounts outside `0..bits`
    /// beyond burn: NdArray panics there, Flex wraps (see `assert_parity_or_wrap`).
    #[test]
    fn int_bitwise_scalar_parity(dims in shape2(), op in 0usize..5, arg in arith_arg(), shift in -3i64..70) {
        for (name, device) in common::cpu_devices() {
            let make = || itensor(dims, &device);
            let case = format!("{name} bitwise op{op} {dims:?} {arg:?} shift={shift}");
            let (burn, ours) = match op {
                0 => with_arg!(arg, x => (raw(|| isnap(make().bitwise_and_scalar(x))), make().try_bitwise_and_scalar(x).map(isnap))),
                1 => with_arg!(arg, x => (raw(|| isnap(make().bitwise_or_scalar(x))), make().try_bitwise_or_scalar(x).map(isnap))),
                2 => with_arg!(arg, x => (raw(|| isnap(make().bitwise_xor_scalar(x))), make().try_bitwise_xor_scalar(x).map(isnap))),
                3 => (raw(|| isnap(make().bitwise_left_shift_scalar(shift))), make().try_bitwise_left_shift_scalar(shift).map(isnap)),
                _ => (raw(|| isnap(make().bitwise_right_shift_scalar(shift))), make().try_bitwise_right_shift_scalar(shift).map(isnap)),
            };
            assert_parity_or_wrap(&case, name, narrow_int(&device) || op >= 3, burn, ours);
        }
    }

    /// Tensor–tensor ops on float tensors (`binary_ops_ew`, direct or through
    /// `lower`/`sub`/`div`).
    #[test]
    fn float_binary_parity(lhs in shape2(), pick in 0usize..4, other in shape2(), op in 0usize..16) {
        let rhs = rhs_shape(lhs, pick, other);
        for (name, device) in common::cpu_devices() {
            let case = format!("{name} float binary op{op} {lhs:?} {rhs:?}");
            let a = || ftensor(lhs, &device);
            let b = || ftensor(rhs, &device).add_scalar(0.5);
            let (burn, ours): (Option<Snap>, Result<Snap, GuardError>) = match op {
                0 => (raw(|| bsnap(a().equal(b()))), a().try_equal(b()).map(bsnap)),
                1 => (raw(|| bsnap(a().not_equal(b()))), a().try_not_equal(b()).map(bsnap)),
                2 => (raw(|| bsnap(a().greater(b()))), a().try_greater(b()).map(bsnap)),
                3 => (raw(|| bsnap(a().greater_equal(b()))), a().try_greater_equal(b()).map(bsnap)),
                4 => (raw(|| bsnap(a().lower(b()))), a().try_lower(b()).map(bsnap)),
                5 => (raw(|| bsnap(a().lower_equal(b()))), a().try_lower_equal(b()).map(bsnap)),
                6 => (raw(|| fsnap(a().max_pair(b()))), a().try_max_pair(b()).map(fsnap)),
                7 => (raw(|| fsnap(a().min_pair(b()))), a().try_min_pair(b()).map(fsnap)),
                8 => (raw(|| fsnap(a().remainder(b()))), a().try_remainder(b()).map(fsnap)),
                9 => (raw(|| fsnap(a().powi(b()))), a().try_powi(b()).map(fsnap)),
                10 => (raw(|| fsnap(a().atan2(b()))), a().try_atan2(b()).map(fsnap)),
                11 => (raw(|| fsnap(a().hypot(b()))), a().try_hypot(b()).map(fsnap)),
                12 => (raw(|| fsnap(a().powf(b()))), a().try_powf(b()).map(fsnap)),
                13 => (raw(|| fsnap(a().fmod(b()))), a().try_fmod(b()).map(fsnap)),
                14 => (raw(|| bsnap(a().is_close(b(), None, Some(0.6)))), a().try_is_close(b(), None, Some(0.6)).map(bsnap)),
                _ => (
                    raw(|| (vec![], vec![format!("{}", a().all_close(b(), Some(0.1), None))])),
                    a().try_all_close(b(), Some(0.1), None).map(|v| (vec![], vec![format!("{v}")])),
                ),
            };
            assert_parity(&case, burn, ours);
        }
    }

    /// Tensor–tensor ops on int tensors.
    #[test]
    fn int_binary_parity(lhs in shape2(), pick in 0usize..4, other in shape2(), op in 0usize..10) {
        let rhs = rhs_shape(lhs, pick, other);
        for (name, device) in common::cpu_devices() {
            let case = format!("{name} int binary op{op} {lhs:?} {rhs:?}");
            let a = || itensor(lhs, &device);
            let b = || itensor(rhs, &device);
            let (burn, ours): (Option<Snap>, Result<Snap, GuardError>) = match op {
                0 => (raw(|| bsnap(a().equal(b()))), a().try_equal(b()).map(bsnap)),
                1 => (raw(|| bsnap(a().not_equal(b()))), a().try_not_equal(b()).map(bsnap)),
                2 => (raw(|| bsnap(a().greater(b()))), a().try_greater(b()).map(bsnap)),
                3 => (raw(|| bsnap(a().greater_equal(b()))), a().try_greater_equal(b()).map(bsnap)),
                4 => (raw(|| bsnap(a().lower(b()))), a().try_lower(b()).map(bsnap)),
                5 => (raw(|| bsnap(a().lower_equal(b()))), a().try_lower_equal(b()).map(bsnap)),
                6 => (raw(|| isnap(a().max_pair(b()))), a().try_max_pair(b()).map(isnap)),
                7 => (raw(|| isnap(a().min_pair(b()))), a().try_min_pair(b()).map(isnap)),
                8 => (raw(|| isnap(a().remainder(b()))), a().try_remainder(b()).map(isnap)),
                _ => (raw(|| isnap(a().powi(b()))), a().try_powi(b()).map(isnap)),
            };
            assert_parity(&case, burn, ours);
        }
    }

    /// `dot` of two vectors (checked through `mul`).
    #[test]
    fn dot_parity(n in 1usize..5, m in 1usize..5, same in any::<bool>()) {
        let m = if same { n } else { m };
        for (name, device) in common::cpu_devices() {
            let case = format!("{name} dot {n} {m}");
            let burn = raw(|| fsnap(ftensor([n], &device).dot(ftensor([m], &device))));
            let ours = ftensor([n], &device).try_dot(ftensor([m], &device)).map(fsnap);
            assert_parity(&case, burn, ours);
        }
    }

    /// `cross`: dim in range, size 3 along it, other dims broadcastable.
    #[test]
    fn cross_parity(a in [1usize..5, 1usize..5], b in [1usize..5, 1usize..5], three in any::<bool>(), dim in any_dim(2)) {
        let (a, b) = if three { ([a[0], 3], [b[0], 3]) } else { (a, b) };
        for (name, device) in common::cpu_devices() {
            let case = format!("{name} cross {a:?} {b:?} dim={dim}");
            let burn = raw(|| fsnap(ftensor(a, &device).cross(ftensor(b, &device), dim)));
            let ours = ftensor(a, &device).try_cross(ftensor(b, &device), dim).map(fsnap);
            assert_parity(&case, burn, ours);
        }
    }

    /// Scalar comparisons on bool tensors (native bool store: every scalar converts).
    #[test]
    fn bool_scalar_parity(dims in shape2(), op in 0usize..4, arg in any_arg()) {
        for (name, device) in common::cpu_devices() {
            let case = format!("{name} bool op{op} {dims:?} {arg:?}");
            let make = || ftensor(dims, &device).greater_elem(0.0);
            let (burn, ours) = with_arg!(arg, x => match op {
                0 => (raw(|| bsnap(make().equal_scalar(x))), make().try_equal_scalar(x).map(bsnap)),
                1 => (raw(|| bsnap(make().not_equal_scalar(x))), make().try_not_equal_scalar(x).map(bsnap)),
                2 => (raw(|| bsnap(make().equal_elem(x))), make().try_equal_elem(x).map(bsnap)),
                _ => (raw(|| bsnap(make().not_equal_elem(x))), make().try_not_equal_elem(x).map(bsnap)),
            });
            assert_parity(&case, burn, ours);
        }
    }
}

/// Operands on two devices (Flex and NdArray): burn's `binary_ops_ew` and `cross` refuse.
#[test]
fn device_mismatch_is_refused() {
    #[allow(deprecated)]
    let (flex, nd) = (Device::flex(), Device::ndarray());
    let a = || ftensor([2, 3], &flex);
    let b = || ftensor([2, 3], &nd);
    assert!(raw(|| a().equal(b())).is_none());
    assert!(matches!(
        a().try_equal(b()),
        Err(GuardError::DeviceMismatch { .. })
    ));
    assert!(raw(|| a().cross(b(), 1)).is_none());
    assert!(matches!(
        a().try_cross(b(), 1),
        Err(GuardError::DeviceMismatch { .. })
    ));
    assert!(raw(|| a().max_pair(b())).is_none());
    assert!(matches!(
        a().try_max_pair(b()),
        Err(GuardError::DeviceMismatch { .. })
    ));
}

/// The scalar's own type is probed without burn's panicking conversions: boundary values of
/// every element type keep their exact value.
#[test]
fn scalar_types_keep_their_value() {
    #[allow(deprecated)] // NdArray's int tensors are I64.
    let device = Device::ndarray();
    let t = || itensor([3], &device);
    assert_eq!(t().dtype(), burn::tensor::DType::I64);
    // i64::MAX and u64 values just below 2^63 are exact in i64 (f64 would round them to 2^63).
    assert!(t().try_clamp_max(i64::MAX).is_ok());
    assert!(t().try_clamp_max((1u64 << 63) - 1).is_ok());
    assert!(raw(|| t().clamp_max(1u64 << 63)).is_none());
    assert!(matches!(
        t().try_clamp_max(1u64 << 63),
        Err(GuardError::NotRepresentable {
            rule: SCALAR_FAMILY,
            value: ScalarValue::UInt(0x8000_0000_0000_0000),
            dtype: DType::I64,
            ..
        })
    ));
    assert!(t().try_clamp_min(i64::MIN).is_ok());
    assert!(
        t().try_greater_elem(burn::tensor::f16::from_f32(2.5))
            .is_ok()
    );
    assert!(t().try_greater_elem(true).is_ok());
    let err = t().try_add_scalar(f32::NAN).unwrap_err();
    assert_eq!(
        err.to_string(),
        "add_scalar: scalar is not representable in the tensor's dtype family; got value=NaN, dtype=I64"
    );
}

/// On wgpu, integer tensors are `I32`: an `i64` scalar outside `i32` panics in CubeCL's
/// scalar conversion, and we refuse it before dispatch.
#[test]
fn wgpu_scalar_ops() {
    let Some(device) = common::wgpu_device() else {
        return;
    };
    let t = || Tensor::<1, Int>::from_ints([1, 2, 3], &device);
    assert!(matches!(
        t().try_add_scalar(f32::NAN),
        Err(GuardError::NotRepresentable {
            rule: SCALAR_FAMILY,
            ..
        })
    ));
    // wgpu stores bools as u32: compare through an int tensor.
    let ours = t().try_greater_elem(1).map(|b| isnap(b.int())).unwrap();
    assert_eq!(ours.1, ["0", "1", "1"]);
    let big = 1i64 << 40;
    if t().dtype() == burn::tensor::DType::I32 {
        assert!(matches!(
            t().try_add_scalar(big),
            Err(GuardError::NotRepresentable {
                rule: SCALAR_RANGE,
                value: ScalarValue::Int(0x100_0000_0000),
                dtype: DType::I32,
                ..
            })
        ));
        // Last: the raw panic happens on a fusion worker thread.
        assert!(raw(|| isnap(t().add_scalar(big))).is_none());
    }
}

/// Beyond burn: a scalar that fits `i64` (so `Scalar::new` accepts it) but not the tensor's
/// own `I32` dtype. NdArray panics when it narrows the scalar; Flex wraps it silently and
/// answers wrongly (`greater_elem(2^32)` is all `true`, `add_scalar(2^32)` adds 0). We refuse
/// it on both.
#[test]
fn scalar_out_of_the_tensor_dtype_is_refused() {
    use burn::tensor::IntDType;
    let big = 1i64 << 32;
    for (name, device) in common::cpu_devices() {
        let t = || itensor([3], &device).cast(IntDType::I32);
        assert_eq!(t().dtype(), burn::tensor::DType::I32, "{name}");
        let add = raw(|| isnap(t().add_scalar(big)));
        let greater = raw(|| bsnap(t().greater_elem(big)));
        match name {
            "ndarray" => assert!(add.is_none() && greater.is_none(), "ndarray panics"),
            _ => {
                assert_eq!(add.unwrap().1, ["1", "4", "2"], "flex wraps 2^32 to 0");
                assert_eq!(greater.unwrap().1, ["true", "true", "true"], "flex wraps");
            }
        }
        for err in [
            t().try_add_scalar(big).unwrap_err(),
            t().try_greater_elem(big).unwrap_err(),
            t().try_clamp_max(i64::MAX).unwrap_err(),
        ] {
            assert!(
                matches!(
                    err,
                    GuardError::NotRepresentable {
                        rule: SCALAR_RANGE,
                        dtype: DType::I32,
                        ..
                    }
                ),
                "{name}: {err:?}"
            );
        }
        // In range of i32: accepted and computed.
        assert_eq!(
            t().try_clamp_max(2i64).map(isnap).unwrap().1,
            ["1", "2", "2"]
        );
    }
}

/// An int tensor of shift amounts, some outside `0..bits` when `wide`.
fn shifts<const D: usize>(dims: [usize; D], wide: bool, device: &Device) -> Tensor<D, Int> {
    let n: usize = dims.iter().product();
    let values: Vec<i64> = (0..n)
        .map(|i| {
            if wide && i == 0 {
                70 - 80 * (n as i64 % 2)
            } else {
                (i % 5) as i64
            }
        })
        .collect();
    Tensor::<1, Int>::from_ints(values.as_slice(), device).reshape(dims)
}

fn bool_tensor<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D, Bool> {
    itensor(dims, device).greater_elem(2)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Int tensor–tensor bitwise ops: burn checks nothing, the backends panic on shapes that do
    /// not broadcast. Shift amounts outside `0..bits` are refused beyond burn (NdArray panics,
    /// Flex wraps; see `assert_parity_or_wrap`).
    #[test]
    fn int_bitwise_tensor_parity(
        lhs in shape2(), pick in 0usize..4, other in shape2(), op in 0usize..5, wide: bool,
    ) {
        let rhs = rhs_shape(lhs, pick, other);
        for (name, device) in common::cpu_devices() {
            let a = || itensor(lhs, &device);
            let b = || if op >= 3 { shifts(rhs, wide, &device) } else { itensor(rhs, &device) };
            let case = format!("{name} bitwise tensor op{op} {lhs:?} {rhs:?} wide={wide}");
            let (burn, ours) = match op {
                0 => (raw(|| isnap(a().bitwise_and(b()))), a().try_bitwise_and(b()).map(isnap)),
                1 => (raw(|| isnap(a().bitwise_or(b()))), a().try_bitwise_or(b()).map(isnap)),
                2 => (raw(|| isnap(a().bitwise_xor(b()))), a().try_bitwise_xor(b()).map(isnap)),
                3 => (raw(|| isnap(a().bitwise_left_shift(b()))), a().try_bitwise_left_shift(b()).map(isnap)),
                _ => (raw(|| isnap(a().bitwise_right_shift(b()))), a().try_bitwise_right_shift(b()).map(isnap)),
            };
            assert_parity_or_wrap(&case, name, op >= 3, burn, ours);
        }
    }

    /// Bool logical ops: the same missing broadcast check as the bitwise ops.
    #[test]
    fn bool_logic_parity(lhs in shape2(), pick in 0usize..4, other in shape2(), op in 0usize..3) {
        let rhs = rhs_shape(lhs, pick, other);
        for (name, device) in common::cpu_devices() {
            let a = || bool_tensor(lhs, &device);
            let b = || bool_tensor(rhs, &device);
            let case = format!("{name} bool op{op} {lhs:?} {rhs:?}");
            let (burn, ours) = match op {
                0 => (raw(|| bsnap(a().bool_and(b()))), a().try_bool_and(b()).map(bsnap)),
                1 => (raw(|| bsnap(a().bool_or(b()))), a().try_bool_or(b()).map(bsnap)),
                _ => (raw(|| bsnap(a().bool_xor(b()))), a().try_bool_xor(b()).map(bsnap)),
            };
            assert_parity(&case, burn, ours);
        }
    }

    /// `grid_sample_2d`: ranks, the grid's last dim, batch sizes and modes, against the
    /// backends' own asserts.
    #[test]
    fn grid_sample_parity(
        batch in 1usize..3, grid_batch in 1usize..3, last in 1usize..4, mode in 0usize..3,
    ) {
        use burn::tensor::ops::InterpolateMode;
        let mode = [InterpolateMode::Bilinear, InterpolateMode::Nearest, InterpolateMode::Bicubic][mode].clone();
        for (name, device) in common::cpu_devices() {
            let x = || ftensor([batch, 2, 3, 3], &device);
            let grid = || ftensor([grid_batch, 2, 2, last], &device).div_scalar(6.0);
            let case = format!("{name} grid_sample {batch} {grid_batch} {last} {mode:?}");
            let burn = raw(|| fsnap(x().grid_sample_2d(grid(), mode.clone())));
            let ours = x().try_grid_sample_2d(grid(), mode.clone()).map(fsnap);
            assert_parity(&case, burn, ours);
        }
    }
}

#[test]
fn grid_sample_rank_and_dtype_are_refused() {
    use burn::tensor::ops::InterpolateMode::Bilinear;
    for (name, device) in common::cpu_devices() {
        let x3 = || ftensor([2, 3, 3], &device);
        assert!(
            raw(|| fsnap(x3().grid_sample_2d(ftensor([2, 2, 2], &device), Bilinear))).is_none()
        );
        assert!(
            matches!(
                x3().try_grid_sample_2d(ftensor([2, 2, 2], &device), Bilinear),
                Err(GuardError::RankMismatch { .. })
            ),
            "{name}"
        );
    }
    // NdArray cannot hold F16 at all; Flex panics on the mixed dtypes.
    let device = Device::flex();
    let x = || ftensor([1, 2, 3, 3], &device);
    let g16 = || ftensor([1, 2, 2, 2], &device).cast(DType::F16);
    assert!(raw(|| fsnap(x().grid_sample_2d(g16(), Bilinear))).is_none());
    assert!(matches!(
        x().try_grid_sample_2d(g16(), Bilinear),
        Err(GuardError::DTypeMismatch { .. })
    ));
}

#[test]
fn bitwise_dtype_and_device_mismatch_are_refused() {
    #[allow(deprecated)]
    let (flex, nd) = (Device::flex(), Device::ndarray());
    let a = || itensor([2, 3], &nd);
    assert!(raw(|| isnap(a().bitwise_and(a().cast(DType::I32)))).is_none());
    assert!(matches!(
        a().try_bitwise_and(a().cast(DType::I32)),
        Err(GuardError::DTypeMismatch { .. })
    ));
    assert!(matches!(
        itensor([2, 3], &flex).try_bitwise_xor(a()),
        Err(GuardError::DeviceMismatch { .. })
    ));
    assert!(matches!(
        bool_tensor([2, 3], &flex).try_bool_or(bool_tensor([2, 3], &nd)),
        Err(GuardError::DeviceMismatch { .. })
    ));
}

/// Inside `value_reads::vouched` the shift amounts are not read: the twin dispatches.
#[test]
fn vouched_shift_amounts_are_not_read() {
    let device = Device::flex();
    let a = itensor([2, 3], &device);
    let b = shifts([2, 3], true, &device);
    assert!(a.clone().try_bitwise_left_shift(b.clone()).is_err());
    let ours = burn_guard::value_reads::vouched(|| a.try_bitwise_left_shift(b));
    assert!(ours.is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Int tensor–tensor `div`, `remainder` and `powi` with zeros and negatives in the right
    /// operand: a zero divisor panics on Flex and NdArray, a negative exponent on NdArray. The
    /// twins read the right operand and refuse those by a check.
    #[test]
    fn int_divisor_and_exponent_values(values in prop::collection::vec(-2i64..3, 6), op in 0usize..3) {
        for (name, device) in common::cpu_devices() {
            let a = || itensor([2, 3], &device);
            let b = || Tensor::<1, Int>::from_ints(values.as_slice(), &device).reshape([2, 3]);
            let case = format!("{name} int op{op} {values:?}");
            let (burn, ours) = match op {
                0 => (raw(|| isnap(a().div(b()))), a().try_div(b()).map(isnap)),
                1 => (raw(|| isnap(a().remainder(b()))), a().try_remainder(b()).map(isnap)),
                _ => (raw(|| isnap(a().powi(b()))), a().try_powi(b()).map(isnap)),
            };
            assert_parity(&case, burn, ours);
        }
    }
}

/// Shape, dtype and values (as `Debug` text, so NaN equals NaN) of an outcome.
type Full = (Vec<usize>, String, Vec<String>);

fn ffull<const D: usize>(t: Tensor<D>) -> Full {
    let dtype = format!("{:?}", t.dtype());
    let (dims, values) = fsnap(t);
    (dims, dtype, values)
}

fn ifull<const D: usize>(t: Tensor<D, Int>) -> Full {
    let dtype = format!("{:?}", t.dtype());
    let (dims, values) = isnap(t);
    (dims, dtype, values)
}

fn bfull<const D: usize>(t: Tensor<D, Bool>) -> Full {
    let dtype = format!("{:?}", t.dtype());
    let (dims, values) = bsnap(t);
    (dims, dtype, values)
}

/// A float tensor of `dims` in `dtype` with halves, negatives, zeros, NaN and infinities.
fn valued(dims: [usize; 2], dtype: DType, device: &Device) -> Tensor<2> {
    let n: usize = dims.iter().product();
    if n == 0 {
        return Tensor::<2>::zeros(dims, (device, dtype));
    }
    let pool = [
        1.5,
        -2.5,
        0.5,
        f32::NAN,
        f32::INFINITY,
        -0.7,
        2.0,
        0.0,
        -3.2,
        f32::NEG_INFINITY,
    ];
    let values: Vec<f32> = (0..n).map(|i| pool[i % pool.len()]).collect();
    Tensor::<2>::from_data(burn::tensor::TensorData::new(values, dims), (device, dtype))
}

/// An int tensor of `dims` with zeros among its entries.
fn int_with_zeros(dims: [usize; 2], device: &Device) -> Tensor<2, Int> {
    let n: usize = dims.iter().product();
    let values: Vec<i64> = (0..n).map(|i| (i % 3) as i64).collect();
    Tensor::<2, Int>::from_data(burn::tensor::TensorData::new(values, dims), device)
}

/// A bool tensor of `dims` with both values.
fn bools(dims: [usize; 2], device: &Device) -> Tensor<2, Bool> {
    let n: usize = dims.iter().product();
    let values: Vec<bool> = (0..n).map(|i| i % 3 == 1).collect();
    Tensor::<2, Bool>::from_data(burn::tensor::TensorData::new(values, dims), device)
}

/// The twins that answer an empty input without a kernel (`check::shape::no_elements`), against
/// raw burn on Flex and NdArray: same outcome, shape, dtype and values, empty or not.
#[test]
fn empty_input_twins_match_burn() {
    use burn_guard::tensor::TryReduce;
    let shapes = [[0usize, 3], [2, 0], [0, 0], [2, 3], [1, 4], [3, 1]];
    for (backend, device) in common::cpu_devices() {
        // NdArray has no F16 kernels (burn panics there on any input, empty or not).
        let dtypes: &[DType] = if backend == "flex" {
            &[DType::F32, DType::F16]
        } else {
            &[DType::F32]
        };
        for dims in shapes {
            for &dtype in dtypes {
                let t = || valued(dims, dtype, &device);
                let case = |op: &str| format!("{op} on {backend} {dims:?} {dtype:?}");
                assert_parity(
                    &case("round"),
                    raw(|| ffull(t().round())),
                    t().try_round().map(ffull),
                );
                assert_parity(
                    &case("floor"),
                    raw(|| ffull(t().floor())),
                    t().try_floor().map(ffull),
                );
                assert_parity(
                    &case("trunc"),
                    raw(|| ffull(t().trunc())),
                    t().try_trunc().map(ffull),
                );
                for divisor in [2.0f32, -1.5, 0.0] {
                    assert_parity(
                        &case(&format!("fmod_scalar({divisor})")),
                        raw(|| ffull(t().fmod_scalar(divisor))),
                        t().try_fmod_scalar(divisor).map(ffull),
                    );
                }
                assert_parity(
                    &case("is_finite"),
                    raw(|| bfull(t().is_finite())),
                    t().try_is_finite().map(bfull),
                );
                assert_parity(
                    &case("bool"),
                    raw(|| bfull(t().bool())),
                    t().try_bool().map(bfull),
                );
                assert_parity(
                    &case("any"),
                    raw(|| bfull(t().any())),
                    t().try_any().map(bfull),
                );
                assert_parity(
                    &case("all"),
                    raw(|| bfull(t().all())),
                    t().try_all().map(bfull),
                );
            }
            let i = || int_with_zeros(dims, &device);
            let b = || bools(dims, &device);
            let case = |op: &str| format!("{op} on {backend} {dims:?}");
            assert_parity(
                &case("int bool"),
                raw(|| bfull(i().bool())),
                i().try_bool().map(bfull),
            );
            assert_parity(
                &case("int any"),
                raw(|| bfull(i().any())),
                i().try_any().map(bfull),
            );
            assert_parity(
                &case("int all"),
                raw(|| bfull(i().all())),
                i().try_all().map(bfull),
            );
            assert_parity(
                &case("bool_not"),
                raw(|| bfull(b().bool_not())),
                b().try_bool_not().map(bfull),
            );
            assert_parity(
                &case("bool any"),
                raw(|| bfull(b().any())),
                b().try_any().map(bfull),
            );
            assert_parity(
                &case("bool all"),
                raw(|| bfull(b().all())),
                b().try_all().map(bfull),
            );
            assert_parity(
                &case("argwhere"),
                raw(|| ifull(b().argwhere())),
                b().try_argwhere().map(ifull),
            );
            assert_parity(
                &case("nonzero"),
                raw(|| b().nonzero().into_iter().map(ifull).collect::<Vec<_>>()),
                b().try_nonzero()
                    .map(|v| v.into_iter().map(ifull).collect()),
            );
            // All false: burn's `nonzero` gives no tensor at all, empty input or not.
            let none =
                || bools(dims, &device).bool_and(Tensor::<2, Bool>::full(dims, false, &device));
            assert_parity(
                &case("nonzero of all false"),
                raw(|| none().nonzero().len()),
                none().try_nonzero().map(|v| v.len()),
            );
        }
    }
}
