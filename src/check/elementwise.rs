//! Checks for the element-wise family: comparisons, pairwise max/min, closeness, powers, fmod/remainder, atan2/hypot, cross, dot, and every scalar op (class S).
//!
//! Pure functions over shapes, dims and scalars; each names the burn check it mirrors.
//!
//! | check | mirrors |
//! |---|---|
//! | [`scalar`] | burn-std `Scalar::new` (element/scalar.rs) and the `ToElement` conversions it calls (element/cast.rs), then the backends' conversion to the tensor's own dtype |
//! | [`scalar_family`] | burn-std `Scalar::new` alone |
//! | [`nonzero_divisor`] | nothing in burn: Int `div_scalar(0)` / `remainder_scalar(0)` panic in the backend |
//! | [`powi_exponent`] | nothing in burn: the backends' `powi_scalar` convert the exponent with `unwrap` |
//! | [`shift_amount`] | nothing in burn: NdArray panics on a negative or too large shift, Flex wraps |
//! | [`same_dtype`] | nothing in burn-tensor: the backends panic on operands of different dtypes |
//! | [`clamp_bounds`] | nothing in burn: Flex's `clamp` panics on `min > max`, NdArray and CubeCL return a value |
//! | [`cross`] | `TensorCheck::cross` (check.rs:547) |
//!
//! Element-wise binary operations reuse [`broadcast`](super::broadcast) and
//! [`same_device`](super::same_device) (`TensorCheck::binary_ops_ew`).

use burn::tensor::{BoolStore, DType};

use super::rule::Rule;
use super::shape::broadcast_dims;
use crate::check::quirks::Quirks;
pub use crate::error::ScalarValue;
use crate::error::{GuardError, Limit, Result};

/// 2^63, the first `f64` above `i64::MAX`.
const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
/// 2^64, the first `f64` above `u64::MAX`.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

impl ScalarValue {
    /// burn-std `ToElement::to_f64`: never fails.
    fn to_f64(self) -> f64 {
        match self {
            Self::Float(x) => x,
            Self::Int(x) => x as f64,
            Self::UInt(x) => x as f64,
            Self::Bool(x) => f64::from(u8::from(x)),
        }
    }

    /// burn-std `ToElement::to_i64`: `None` where it panics (NaN, ±inf, out of range).
    fn to_i64(self) -> Option<i64> {
        match self {
            // Truncation toward zero, as `to_int_unchecked` after burn's range test.
            Self::Float(x) => (-TWO_POW_63..TWO_POW_63).contains(&x).then_some(x as i64),
            Self::Int(x) => Some(x),
            Self::UInt(x) => i64::try_from(x).ok(),
            Self::Bool(x) => Some(i64::from(x)),
        }
    }

    /// burn-std `ToElement::to_u64`: `None` where it panics (NaN, ±inf, negative, too large).
    fn to_u64(self) -> Option<u64> {
        match self {
            Self::Float(x) => (x > -1.0 && x < TWO_POW_64).then_some(x as u64),
            Self::Int(x) => u64::try_from(x).ok(),
            Self::UInt(x) => Some(x),
            Self::Bool(x) => Some(u64::from(x)),
        }
    }

    /// burn-std `ToElement::to_bool`: anything but zero is `true`.
    fn to_bool(self) -> bool {
        match self {
            Self::Float(x) => x != 0.0,
            Self::Int(x) => x != 0,
            Self::UInt(x) => x != 0,
            Self::Bool(x) => x,
        }
    }

    /// Whether the value is zero (of any family).
    fn is_zero(self) -> bool {
        !self.to_bool()
    }
}

/// The rule of a [`GuardError::NotRepresentable`] from [`scalar`] or [`scalar_family`] where
/// burn itself panics (`Scalar::new`).
pub const SCALAR_FAMILY: &str = "scalar is not representable in the tensor's dtype family";
/// The rule of a [`GuardError::NotRepresentable`] from [`scalar`] beyond burn: the value fits
/// the dtype's family but not the tensor's own dtype.
pub const SCALAR_RANGE: &str = "scalar is out of range for the tensor's dtype";

/// Range of a signed integer dtype, as `i64`.
fn signed_range(dtype: &DType) -> (i64, i64) {
    match dtype {
        DType::I32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
        DType::I16 => (i64::from(i16::MIN), i64::from(i16::MAX)),
        DType::I8 => (i64::from(i8::MIN), i64::from(i8::MAX)),
        _ => (i64::MIN, i64::MAX),
    }
}

/// Largest value of an unsigned integer dtype (or bool store), as `u64`.
fn unsigned_max(dtype: &DType) -> u64 {
    match dtype {
        DType::U32 | DType::Bool(BoolStore::U32) => u64::from(u32::MAX),
        DType::U16 => u64::from(u16::MAX),
        DType::U8 | DType::Bool(BoolStore::U8) => u64::from(u8::MAX),
        _ => u64::MAX,
    }
}

/// A scalar argument must be representable in the tensor's dtype. Returns the value as the
/// tensor will see it (burn's `Scalar` for that dtype): a float for float and quantized
/// tensors, a truncated `i64` for signed integer tensors, a `u64` for unsigned ones, a bool
/// for native bool tensors.
///
/// Two rules, checked in this order:
///
/// 1. burn-std `Scalar::new` converts the value to the widest type of the dtype's family
///    (`f64`, `i64`, `u64`, `bool`) and panics when it cannot: NaN, ±inf or a value outside
///    `i64` on a signed integer tensor; NaN, ±inf, a value ≤ -1 or ≥ 2^64 on an unsigned one
///    (and on a bool tensor stored as `u8`/`u32`).
/// 2. Beyond burn: the value must also fit the tensor's own dtype (`i32` for an `I32`
///    tensor, ...). NdArray and CubeCL (wgpu) panic when they narrow it; Flex silently wraps.
///
/// # Errors
///
/// [`GuardError::NotRepresentable`] with the scalar and the dtype;
/// [`GuardError::InvalidDType`] for a dtype that takes no scalar.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::elementwise::{ScalarValue, scalar};
///
/// assert_eq!(
///     scalar("add_scalar", ScalarValue::Float(2.7), &DType::I64).unwrap(),
///     ScalarValue::Int(2)
/// );
/// let err = scalar("add_scalar", ScalarValue::Float(f64::NAN), &DType::I64).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "add_scalar: scalar is not representable in the tensor's dtype family; got value=NaN, dtype=I64"
/// );
/// ```
pub fn scalar(op: &'static str, value: ScalarValue, dtype: &DType) -> Result<ScalarValue> {
    let wide = scalar_family(op, value, dtype)?;
    let fits = match wide {
        ScalarValue::Int(x) => {
            let (min, max) = signed_range(dtype);
            (min..=max).contains(&x)
        }
        ScalarValue::UInt(x) => x <= unsigned_max(dtype),
        ScalarValue::Float(_) | ScalarValue::Bool(_) => true,
    };
    if fits {
        Ok(wide)
    } else {
        Err(GuardError::NotRepresentable {
            op,
            rule: SCALAR_RANGE,
            value,
            dtype: *dtype,
        })
    }
}

/// The first rule of [`scalar`] alone: burn-std's `Scalar::new`, which converts the value to
/// the widest type of the dtype's family and panics when it cannot. Returns the scalar burn
/// builds. A value that fits that type but not the tensor's own dtype passes, as in burn
/// (`mask_fill` and `one_hot_fill` take it so).
///
/// # Errors
///
/// [`GuardError::NotRepresentable`] with the scalar and the dtype;
/// [`GuardError::InvalidDType`] for a dtype that takes no scalar.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::elementwise::{ScalarValue, scalar_family};
///
/// assert_eq!(
///     scalar_family("mask_fill", ScalarValue::Float(3e9), &DType::I32).unwrap(),
///     ScalarValue::Int(3_000_000_000)
/// );
/// assert!(scalar_family("mask_fill", ScalarValue::Float(f64::NAN), &DType::I32).is_err());
/// ```
pub fn scalar_family(op: &'static str, value: ScalarValue, dtype: &DType) -> Result<ScalarValue> {
    let err = || GuardError::NotRepresentable {
        op,
        rule: SCALAR_FAMILY,
        value,
        dtype: *dtype,
    };
    if dtype.is_float() || matches!(dtype, DType::QFloat(_)) {
        return Ok(ScalarValue::Float(value.to_f64()));
    }
    match dtype {
        DType::I64 | DType::I32 | DType::I16 | DType::I8 => {
            value.to_i64().map(ScalarValue::Int).ok_or_else(err)
        }
        DType::U64
        | DType::U32
        | DType::U16
        | DType::U8
        | DType::Bool(BoolStore::U8)
        | DType::Bool(BoolStore::U32) => value.to_u64().map(ScalarValue::UInt).ok_or_else(err),
        DType::Bool(BoolStore::Native) => Ok(ScalarValue::Bool(value.to_bool())),
        // burn: `unimplemented!("Scalar not supported for {dtype:?}")`.
        _ => Err(GuardError::InvalidDType {
            op,
            rule: "scalars are not supported for this dtype",
            dtype: *dtype,
        }),
    }
}

/// Beyond burn: an integer tensor must not be divided by a scalar 0 (`div_scalar`,
/// `remainder_scalar`). burn does not check it; Flex and NdArray panic in the backend
/// (`attempt to divide by zero`). `value` is the scalar as returned by [`scalar`].
///
/// # Errors
///
/// [`GuardError::OutOfRange`] (`divisor`, [`Limit::NonZero`]) for a zero divisor on an integer
/// tensor.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::elementwise::{ScalarValue, nonzero_divisor};
///
/// assert!(nonzero_divisor("div_scalar", ScalarValue::Float(0.0), &DType::F32).is_ok());
/// assert!(nonzero_divisor("div_scalar", ScalarValue::Int(0), &DType::I64).is_err());
/// ```
pub fn nonzero_divisor(op: &'static str, value: ScalarValue, dtype: &DType) -> Result<()> {
    if (dtype.is_int() || dtype.is_uint()) && value.is_zero() {
        Err(
            Rule(op, "an integer tensor cannot be divided by zero").out_of_range(
                "divisor",
                value,
                Limit::NonZero,
            ),
        )
    } else {
        Ok(())
    }
}

/// Beyond burn: the exponent of `powi_scalar` must be an integer the backends can take.
/// `value` is the scalar as returned by [`scalar`].
///
/// - On a float tensor the backends convert it to `i64` with `unwrap` (Flex
///   `float_powi_scalar`, burn-backend's default): NaN, ±inf and values outside `i64` panic.
/// - On an integer tensor burn-backend's default `int_powi_scalar` (NdArray, CubeCL) converts
///   it to `i32` and panics outside that range.
///
/// # Errors
///
/// [`GuardError::NotRepresentable`] with the exponent and the tensor's dtype.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::elementwise::{ScalarValue, powi_exponent};
///
/// assert!(powi_exponent("powi_scalar", ScalarValue::Float(3.0), &DType::F32).is_ok());
/// assert!(powi_exponent("powi_scalar", ScalarValue::Float(f64::INFINITY), &DType::F32).is_err());
/// ```
pub fn powi_exponent(op: &'static str, value: ScalarValue, dtype: &DType) -> Result<()> {
    let ok = if dtype.is_int() || dtype.is_uint() {
        value.to_i64().is_some_and(|x| i32::try_from(x).is_ok())
    } else {
        value.to_i64().is_some()
    };
    Rule(op, "exponent must be an integer the backend can represent")
        .representable(ok, value, *dtype)
}

/// Beyond burn: the amount of `bitwise_left_shift_scalar` / `bitwise_right_shift_scalar`
/// must be in `0..bits` of the tensor's integer dtype. burn does not check it; NdArray panics
/// (a negative amount fails its conversion to `u32`, an amount of `bits` or more overflows
/// the shift) while Flex wraps the amount modulo `bits`. `value` is the scalar as returned by
/// [`scalar`].
///
/// # Errors
///
/// [`GuardError::OutOfRange`] with the amount and `[0, bits - 1]`.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::elementwise::{ScalarValue, shift_amount};
///
/// assert!(shift_amount("bitwise_left_shift_scalar", ScalarValue::Int(3), &DType::I64).is_ok());
/// assert!(shift_amount("bitwise_left_shift_scalar", ScalarValue::Int(64), &DType::I64).is_err());
/// assert!(shift_amount("bitwise_left_shift_scalar", ScalarValue::Int(-1), &DType::I32).is_err());
/// ```
pub fn shift_amount(op: &'static str, value: ScalarValue, dtype: &DType) -> Result<u32> {
    let bits: i64 = match dtype {
        DType::I8 | DType::U8 => 8,
        DType::I16 | DType::U16 => 16,
        DType::I32 | DType::U32 => 32,
        _ => 64,
    };
    let err = || {
        Rule(op, "shift amount must be in 0..bits of the tensor's dtype").out_of_range(
            "amount",
            value,
            Limit::Between(ScalarValue::Int(0), ScalarValue::Int(bits - 1)),
        )
    };
    match value.to_i64() {
        Some(n) if (0..bits).contains(&n) => u32::try_from(n).map_err(|_| err()),
        _ => Err(err()),
    }
}

/// Beyond burn: `clamp(min, max)` needs `min <= max`. burn does not check it; Flex panics
/// (its native `clamp` asserts `min <= max`, for floats and ints) while NdArray and CubeCL
/// return a value. NaN bounds are left to the backends (Flex gives NaN). `min` and `max` are
/// the scalars as returned by [`scalar`] for the same dtype.
///
/// # Errors
///
/// [`GuardError::OutOfOrder`] with both bounds.
///
/// ```
/// use burn_guard::check::elementwise::{ScalarValue, clamp_bounds};
///
/// assert!(clamp_bounds("clamp", ScalarValue::Float(-1.0), ScalarValue::Float(1.0)).is_ok());
/// assert!(clamp_bounds("clamp", ScalarValue::Float(2.0), ScalarValue::Float(1.0)).is_err());
/// assert!(clamp_bounds("clamp", ScalarValue::Int(3), ScalarValue::Int(-3)).is_err());
/// ```
pub fn clamp_bounds(op: &'static str, min: ScalarValue, max: ScalarValue) -> Result<()> {
    let inverted = match (min, max) {
        (ScalarValue::Float(a), ScalarValue::Float(b)) => a > b,
        (ScalarValue::Int(a), ScalarValue::Int(b)) => a > b,
        (ScalarValue::UInt(a), ScalarValue::UInt(b)) => a > b,
        (ScalarValue::Bool(a), ScalarValue::Bool(b)) => a & !b,
        _ => false,
    };
    if inverted {
        Err(GuardError::OutOfOrder {
            op,
            rule: "min must not exceed max",
            lower_name: "min",
            lower: min,
            upper_name: "max",
            upper: max,
        })
    } else {
        Ok(())
    }
}

/// Both operands of an element-wise binary operation have the same dtype. burn-tensor does
/// not check it; every backend does, by panicking: Flex (`binary_op: dtype mismatch`),
/// NdArray (`Data type mismatch`), and burn-ir's operation builder under Fusion (Wgpu) and the
/// router (remote). A quantized operand is left to burn, which dequantizes it.
///
/// # Errors
///
/// [`GuardError::DTypeMismatch`] with both dtypes.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::elementwise::same_dtype;
///
/// assert!(same_dtype("add", DType::F32, DType::F32).is_ok());
/// assert!(same_dtype("add", DType::F64, DType::F32).is_err());
/// ```
#[inline]
pub fn same_dtype(op: &'static str, lhs: DType, rhs: DType) -> Result<()> {
    let quantized = matches!(lhs, DType::QFloat(_)) || matches!(rhs, DType::QFloat(_));
    if quantized || lhs == rhs {
        Ok(())
    } else {
        Err(GuardError::DTypeMismatch {
            op,
            rule: "both operands must have the same dtype",
            lhs,
            rhs,
        })
    }
}

/// `cross(other, dim)`: size 3 along `dim` on both sides, every other dim equal or 1
/// (`TensorCheck::cross`). `dim` must already be resolved with [`dim`](super::dim). Returns
/// the output shape.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
///
/// ```
/// use burn_guard::check::elementwise::cross;
/// assert_eq!(cross("cross", &[2, 3], &[1, 3], 1).unwrap(), vec![2, 3]);
/// let err = cross("cross", &[2, 4], &[2, 4], 1).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "cross: cross product needs size 3 along dim on both sides; got [2, 4] and [2, 4]"
/// );
/// ```
pub fn cross(op: &'static str, lhs: &[usize], rhs: &[usize], dim: usize) -> Result<Vec<usize>> {
    let shapes: [&[usize]; 2] = [lhs, rhs];
    Rule(op, "lhs and rhs must have the same rank")
        .shapes_agree(lhs.len() == rhs.len(), &shapes)?;
    let size_3 = lhs.get(dim) == Some(&3) && rhs.get(dim) == Some(&3);
    Rule(op, "cross product needs size 3 along dim on both sides").shapes_agree(size_3, &shapes)?;
    broadcast_dims(lhs, rhs).ok_or_else(|| {
        Rule(
            op,
            "shapes must be equal or 1 in every dimension other than dim to broadcast",
        )
        .shape_mismatch(&shapes)
    })
}

/// Beyond burn's checks (the backends panic): no element of an integer divisor tensor
/// (`div`, `remainder`) is zero, as [`nonzero_divisor`] for a scalar. Flex and NdArray both
/// panic (`attempt to divide by zero`). `divisors` are the values read from the tensor (empty
/// when reads are vouched); a float dtype passes.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for the first zero.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::elementwise::nonzero_divisors;
///
/// assert!(nonzero_divisors("div", &[1, -2], &DType::I32).is_ok());
/// assert!(nonzero_divisors("div", &[1, 0], &DType::I32).is_err());
/// ```
pub fn nonzero_divisors(op: &'static str, divisors: &[i64], dtype: &DType) -> Result<()> {
    divisors
        .iter()
        .try_for_each(|&d| nonzero_divisor(op, ScalarValue::Int(d), dtype))
}

/// `powi` of integer tensors on NdArray: it converts each exponent to `u32` and panics on a
/// negative one (`Element cannot be represented`); Flex takes it. `quirks` are the tensor's
/// backend's (`int_powi_negative_exponent_panics`); `exponents` are the values read from the
/// tensor.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for the first negative exponent on NdArray.
///
/// ```
/// use burn_guard::capability::{FLEX_QUIRKS, NDARRAY_QUIRKS};
/// use burn_guard::check::elementwise::int_powi_exponents;
///
/// assert!(int_powi_exponents("powi", &[2, -1], &FLEX_QUIRKS).is_ok());
/// assert!(int_powi_exponents("powi", &[2, -1], &NDARRAY_QUIRKS).is_err());
/// ```
pub fn int_powi_exponents(op: &'static str, exponents: &[i64], quirks: &Quirks) -> Result<()> {
    let negative = exponents.iter().find(|&&e| e < 0);
    match negative {
        Some(&negative) if quirks.int_powi_negative_exponent_panics => {
            Err(
                Rule(op, "the backend takes integer exponents of 0 or more").out_of_range(
                    "exponent",
                    ScalarValue::Int(negative),
                    Limit::AtLeast(ScalarValue::Int(0)),
                ),
            )
        }
        _ => Ok(()),
    }
}

/// Beyond burn: every element of a shift-amount tensor (`bitwise_left_shift`,
/// `bitwise_right_shift`) is in `0..bits` of the tensor's dtype, as [`shift_amount`] for a
/// scalar. burn does not check it; NdArray panics (`attempt to shift left with overflow`, or a
/// failed conversion of a negative amount) while Flex wraps the amount and answers
/// differently. `amounts` are the values read from the tensor (empty when reads are vouched).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] with the first amount outside the range.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::elementwise::shift_amounts;
///
/// assert!(shift_amounts("bitwise_left_shift", &[0, 3, 31], &DType::I32).is_ok());
/// assert!(shift_amounts("bitwise_left_shift", &[1, 32], &DType::I32).is_err());
/// assert!(shift_amounts("bitwise_right_shift", &[-1], &DType::I64).is_err());
/// ```
pub fn shift_amounts(op: &'static str, amounts: &[i64], dtype: &DType) -> Result<()> {
    amounts
        .iter()
        .try_for_each(|&n| shift_amount(op, ScalarValue::Int(n), dtype).map(|_| ()))
}

/// `mask_where(tensor, mask, value)`: burn checks nothing; the backends broadcast. The three
/// shapes must broadcast together (Flex panics in `broadcast_shape`, NdArray in its
/// `broadcast(..).unwrap()`). Returns the output shape, the broadcast of all three.
///
/// NdArray broadcasts `tensor` and `value` to the mask's shape only, so it also panics on a
/// mask smaller than the output (`[1, 3]` against a `[2, 3]` tensor); the twin expands the
/// mask to the output shape first, so that both backends answer as Flex does.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with the three shapes.
///
/// ```
/// use burn_guard::check::elementwise::mask_where;
///
/// assert_eq!(mask_where("mask_where", &[2, 3], &[1, 3], &[2, 1]).unwrap(), vec![2, 3]);
/// assert!(mask_where("mask_where", &[2, 3], &[2, 2], &[2, 3]).is_err());
/// assert!(mask_where("mask_where", &[2, 3], &[2, 3], &[2, 2]).is_err());
/// ```
pub fn mask_where(
    op: &'static str,
    tensor: &[usize],
    mask: &[usize],
    value: &[usize],
) -> Result<Vec<usize>> {
    let mismatch = || {
        Rule(
            op,
            "the tensor, the mask and the value must broadcast together",
        )
        .shape_mismatch(&[tensor, mask, value])
    };
    let out = super::broadcast(op, tensor, mask).map_err(|_| mismatch())?;
    super::broadcast(op, &out, value).map_err(|_| mismatch())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::TestResult;
    use crate::check::test_support::{row, scalar_rows, shape_rule};

    /// The failure of a table row whose outcome is not the one it expects.
    fn unexpected(
        case: String,
        want: impl std::fmt::Debug,
        have: impl std::fmt::Debug,
    ) -> TestResult {
        Err(format!("{case}: expected {want:?}, got {have:?}").into())
    }

    const NAN: f64 = f64::NAN;

    #[test]
    fn scalar_table() -> TestResult {
        use ScalarValue::*;
        // (value, dtype, expected Ok value or Err display substring)
        let cases: Vec<(ScalarValue, DType, std::result::Result<ScalarValue, &str>)> = vec![
            (Float(2.5), DType::F32, Ok(Float(2.5))),
            (Int(3), DType::F32, Ok(Float(3.0))),
            (UInt(u64::MAX), DType::F64, Ok(Float(u64::MAX as f64))),
            (Float(NAN), DType::F16, Ok(Float(NAN))),
            (Bool(true), DType::F32, Ok(Float(1.0))),
            (Float(-2.7), DType::I64, Ok(Int(-2))),
            (Float(NAN), DType::I64, Err(SCALAR_FAMILY)),
            (Float(f64::INFINITY), DType::I64, Err(SCALAR_FAMILY)),
            (Float(f64::NEG_INFINITY), DType::I32, Err(SCALAR_FAMILY)),
            (Float(TWO_POW_63), DType::I64, Err(SCALAR_FAMILY)),
            (Float(-TWO_POW_63), DType::I64, Ok(Int(i64::MIN))),
            (Int(i64::MAX), DType::I64, Ok(Int(i64::MAX))),
            (UInt(u64::MAX), DType::I64, Err(SCALAR_FAMILY)),
            (UInt(i64::MAX as u64), DType::I64, Ok(Int(i64::MAX))),
            (Int(1 << 40), DType::I32, Err(SCALAR_RANGE)),
            (Int(-129), DType::I8, Err(SCALAR_RANGE)),
            (Int(-128), DType::I8, Ok(Int(-128))),
            (Int(-1), DType::U32, Err(SCALAR_FAMILY)),
            (Float(-0.5), DType::U32, Ok(UInt(0))),
            (Float(-1.0), DType::U64, Err(SCALAR_FAMILY)),
            (Float(TWO_POW_64), DType::U64, Err(SCALAR_FAMILY)),
            (UInt(u64::MAX), DType::U64, Ok(UInt(u64::MAX))),
            (Int(256), DType::U8, Err(SCALAR_RANGE)),
            (Float(0.5), DType::Bool(BoolStore::Native), Ok(Bool(true))),
            (Int(0), DType::Bool(BoolStore::Native), Ok(Bool(false))),
            (Float(NAN), DType::Bool(BoolStore::Native), Ok(Bool(true))),
            (Int(-1), DType::Bool(BoolStore::U8), Err(SCALAR_FAMILY)),
            (Int(300), DType::Bool(BoolStore::U8), Err(SCALAR_RANGE)),
            (Int(300), DType::Bool(BoolStore::U32), Ok(UInt(300))),
        ];
        for (value, dtype, expected) in cases {
            let got = scalar("add_scalar", value, &dtype);
            match (expected, got) {
                (Ok(want), Ok(have)) => {
                    // NaN != NaN: compare the formatting instead.
                    assert_eq!(
                        format!("{want:?}"),
                        format!("{have:?}"),
                        "{value} {dtype:?}"
                    );
                }
                (Err(want), Err(err)) => {
                    // NaN != NaN: compare the value's formatting.
                    assert!(
                        matches!(
                            err,
                            GuardError::NotRepresentable { op: "add_scalar", rule, value: v, dtype: d }
                                if rule == want && format!("{v:?}") == format!("{value:?}") && d == dtype
                        ),
                        "{value} {dtype:?}: {err:?}"
                    );
                }
                (want, have) => return unexpected(format!("{value} {dtype:?}"), want, have),
            }
        }
        Ok(())
    }

    #[test]
    fn nonzero_divisor_table() -> TestResult {
        use ScalarValue::*;
        let cases = [
            (Int(0), DType::I64, false),
            (UInt(0), DType::U8, false),
            (Int(2), DType::I32, true),
            (Float(0.0), DType::F32, true),
            (Bool(false), DType::Bool(BoolStore::Native), true),
        ];
        scalar_rows(
            &cases,
            |value, dtype| nonzero_divisor("div_scalar", value, dtype),
            |err, value, _| matches!(err, GuardError::OutOfRange { name: "divisor", value: v, limit: Limit::NonZero, .. } if *v == value),
        )
    }

    #[test]
    fn powi_exponent_table() -> TestResult {
        use ScalarValue::*;
        let cases = [
            (Float(3.0), DType::F32, true),
            (Float(2.5), DType::F32, true),
            (Float(NAN), DType::F32, false),
            (Float(1e30), DType::F64, false),
            (Int(i64::MAX), DType::F32, true),
            (Int(5), DType::I64, true),
            (Int(1 << 40), DType::I64, false),
            (Int(-3), DType::I64, true),
        ];
        scalar_rows(
            &cases,
            |value, dtype| powi_exponent("powi_scalar", value, dtype),
            |err, value, dtype| matches!(err, GuardError::NotRepresentable { value: v, dtype: d, .. } if format!("{v:?}") == format!("{value:?}") && *d == dtype),
        )
    }

    #[test]
    fn shift_amount_table() -> TestResult {
        use ScalarValue::*;
        let cases = [
            (Int(0), DType::I64, Some(0)),
            (Int(63), DType::I64, Some(63)),
            (Int(64), DType::I64, None),
            (Int(31), DType::I32, Some(31)),
            (Int(32), DType::I32, None),
            (Int(-1), DType::I64, None),
            (UInt(5), DType::U8, Some(5)),
            (UInt(8), DType::U8, None),
        ];
        for (value, dtype, expected) in cases {
            let got = shift_amount("bitwise_left_shift_scalar", value, &dtype);
            match (expected, got) {
                (Some(want), Ok(have)) => assert_eq!(want, have),
                (None, Err(err)) => {
                    let bits = match dtype {
                        DType::I32 => 32,
                        DType::U8 => 8,
                        _ => 64,
                    };
                    assert!(
                        matches!(
                            err,
                            GuardError::OutOfRange {
                                name: "amount",
                                value: v,
                                limit: Limit::Between(Int(0), Int(high)),
                                ..
                            } if v == value && high == bits - 1
                        ),
                        "{err:?}"
                    );
                }
                (want, have) => return unexpected(format!("{value} {dtype:?}"), want, have),
            }
        }
        Ok(())
    }

    #[test]
    fn cross_table() -> TestResult {
        type Case<'a> = (
            &'a [usize],
            &'a [usize],
            usize,
            std::result::Result<Vec<usize>, &'a str>,
        );
        let cases: [Case; 6] = [
            (&[2, 3], &[2, 3], 1, Ok(vec![2, 3])),
            (&[1, 3], &[4, 3], 1, Ok(vec![4, 3])),
            (&[3, 5], &[3, 1], 0, Ok(vec![3, 5])),
            (
                &[2, 4],
                &[2, 3],
                1,
                Err("cross product needs size 3 along dim on both sides"),
            ),
            (
                &[2, 3],
                &[4, 3],
                1,
                Err("shapes must be equal or 1 in every dimension other than dim to broadcast"),
            ),
            (
                &[2, 3],
                &[2, 3, 1],
                1,
                Err("lhs and rhs must have the same rank"),
            ),
        ];
        for (lhs, rhs, dim, expected) in cases {
            let got = cross("cross", lhs, rhs, dim);
            let case = format!("{lhs:?} {rhs:?} {dim}");
            row(&case, expected, got, |err| shape_rule(err, &[lhs, rhs]))?;
        }
        Ok(())
    }
}
