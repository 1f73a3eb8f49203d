//! Checks for the creation, conversion, autodiff and misc family: empty/zeros/ones/full (+ _like), from_data/floats/ints/bool, random, arange, eye, cartesian_grid, cast, scalar/data reads, autodiff switches, quantize.
//!
//! Pure functions over shapes, dims, dtypes and scalars; each names the burn check it mirrors.
//! The one exception is [`data_fits`], which reads host data (a [`TensorData`] the caller
//! passed in, or the data a read already brought back): burn converts those values element by
//! element and panics on the first that does not fit the target type.

use burn::tensor::kind::Kind;
use burn::tensor::{BoolStore, DType, Distribution, TensorData};

use super::rule::Rule;
use crate::check::quirks::Quirks;
use crate::error::{GuardError, Limit, NonFiniteSplit, Result, ScalarValue};

/// `2^63` as `f64`: the first float that no `i64` holds.
const I64_END: f64 = 9_223_372_036_854_775_808.0;
/// `2^64` as `f64`: the first float that no `u64` holds.
const U64_END: f64 = 18_446_744_073_709_551_616.0;

/// Creating a tensor of rank `rank` from `dims`: `rank != 0` and `dims.len() == rank`
/// (`TensorCheck::creation_ops`).
///
/// # Errors
///
/// [`GuardError::RankMismatch`] when the shape's rank is not `rank` (or `rank` is 0).
///
/// ```
/// use burn_guard::check::creation;
/// assert!(creation::creation_rank("zeros", &[2, 3], 2).is_ok());
/// assert!(creation::creation_rank("zeros", &[2, 3], 3).is_err());
/// ```
pub fn creation_rank(op: &'static str, dims: &[usize], rank: usize) -> Result<()> {
    if rank == 0 {
        return Err(Rule(op, "a tensor needs rank 1 or more").rank_mismatch(1, 0, dims));
    }
    Rule(op, "the shape's rank must equal the tensor's rank D").rank(dims, rank)
}

/// Whether `dtype` belongs to `kind`: float dtypes for Float, signed or unsigned integers for
/// Int, bool stores for Bool.
fn dtype_of_kind(kind: Kind, dtype: DType) -> bool {
    match kind {
        Kind::Float => dtype.is_float(),
        Kind::Int => dtype.is_int() || dtype.is_uint(),
        Kind::Bool => dtype.is_bool(),
    }
}

/// The creation dtype must belong to the tensor kind: burn converts it with
/// `From<DType> for FloatDType/IntDType` (burn-std `dtype.rs`), which panics on another family.
/// Bool ignores an explicit dtype (burn always uses the device's bool store), so only pass a
/// resolved dtype for Bool.
///
/// # Errors
///
/// [`GuardError::InvalidDType`] with the dtype.
///
/// ```
/// use burn::tensor::DType;
/// use burn::tensor::kind::Kind;
/// use burn_guard::check::creation;
/// assert!(creation::creation_dtype("zeros", Kind::Float, DType::F64).is_ok());
/// assert!(creation::creation_dtype("zeros", Kind::Float, DType::I32).is_err());
/// ```
pub fn creation_dtype(op: &'static str, kind: Kind, dtype: DType) -> Result<DType> {
    if dtype_of_kind(kind, dtype) {
        return Ok(dtype);
    }
    let rule = match kind {
        Kind::Float => "a float tensor needs a float dtype",
        Kind::Int => "an int tensor needs an integer dtype",
        Kind::Bool => "a bool tensor needs a bool dtype",
    };
    Err(GuardError::InvalidDType { op, rule, dtype })
}

/// `Tensor::int` (float to int) on NdArray: it converts each value with a checked cast to its
/// `I64` ints and panics ("Float cannot be represented in the target signed int type") on NaN,
/// ±inf and values outside `i64`. Flex saturates and answers. `quirks` are the tensor's
/// backend's (`float_to_int_unrepresentable_panics`); `values` are the tensor's values read as
/// `f64`.
///
/// # Errors
///
/// - [`GuardError::NonFinite`] with the count of NaN and ±inf on NdArray.
/// - [`GuardError::NotRepresentable`] for the first value outside `i64` on NdArray.
///
/// ```
/// use burn_guard::capability::{FLEX_QUIRKS, NDARRAY_QUIRKS};
/// use burn_guard::check::creation::float_to_int;
///
/// assert!(float_to_int("int", &[1.5, -2.0], &NDARRAY_QUIRKS).is_ok());
/// assert!(float_to_int("int", &[f64::NAN], &NDARRAY_QUIRKS).is_err());
/// assert!(float_to_int("int", &[1e30], &NDARRAY_QUIRKS).is_err());
/// assert!(float_to_int("int", &[f64::NAN], &FLEX_QUIRKS).is_ok());
/// ```
pub fn float_to_int(op: &'static str, values: &[f64], quirks: &Quirks) -> Result<()> {
    if !quirks.float_to_int_unrepresentable_panics {
        return Ok(());
    }
    Rule(op, "values must be finite to become integers").finite(values)?;
    // `i64::MIN` is -2^63 exactly; `i64::MAX as f64` rounds up to 2^63, itself out of range.
    let limit = 9_223_372_036_854_775_808.0_f64;
    match values
        .iter()
        .find(|v| v.trunc() < -limit || v.trunc() >= limit)
    {
        Some(&value) => Err(
            Rule(op, "the value is outside the range of the integer dtype")
                .not_representable(ScalarValue::Float(value), DType::I64),
        ),
        None => Ok(()),
    }
}

/// `from_bridge`: the bridge tensor's variant (`variant`, with `qfloat` for its quantized
/// float variant) must be the kind `K`, and its dtype must belong to it, as burn's
/// `from_bridge` matches them (it panics "Expected kind …" otherwise: a Float tensor's bridge
/// read back as Int, say).
///
/// # Errors
///
/// [`GuardError::InvalidDType`] with the dtype.
///
/// ```
/// use burn::tensor::DType;
/// use burn::tensor::kind::Kind;
/// use burn_guard::check::creation::bridge_kind;
///
/// assert!(bridge_kind("from_bridge", Kind::Float, Kind::Float, false, DType::F32).is_ok());
/// assert!(bridge_kind("from_bridge", Kind::Int, Kind::Float, false, DType::F32).is_err());
/// ```
pub fn bridge_kind(
    op: &'static str,
    kind: Kind,
    variant: Kind,
    qfloat: bool,
    dtype: DType,
) -> Result<()> {
    let matches = match (variant, kind) {
        (Kind::Bool, Kind::Bool) => dtype.is_bool(),
        (Kind::Int, Kind::Int) => dtype.is_int() || dtype.is_uint(),
        (Kind::Float, Kind::Float) if qfloat => matches!(dtype, DType::QFloat(_)),
        (Kind::Float, Kind::Float) => dtype.is_float(),
        _ => false,
    };
    Rule(
        op,
        "the bridge tensor's variant and dtype must be of the tensor's kind",
    )
    .dtype_allowed(matches, dtype)
}

/// The `_like` constructors, `random_like`, `cast`, `Transaction::register` and the
/// distributed/autodiff switches refuse quantized tensors (`TensorCheck::quantized_unsupported`
/// and burn's `panic!`/`unimplemented!` arms for `QFloat`).
///
/// # Errors
///
/// [`GuardError::InvalidDType`] with the dtype.
pub fn not_quantized(op: &'static str, dtype: DType) -> Result<()> {
    let quantized = matches!(dtype, DType::QFloat(_));
    Rule(op, "quantized tensors are not supported").dtype_allowed(!quantized, dtype)
}

/// A scalar (already widened to `f64`, which is exact for every float and for integers below
/// `2^53`) must be representable in `dtype`: any value for float dtypes and bool stores kept as
/// `bool`; `(-1, 2^64)` for bool stores kept as `u8`/`u32` (burn-std's `Scalar::new`); for an
/// integer dtype, a finite value whose integer part lies in the dtype's range. NaN and
/// infinities fit float dtypes only.
///
/// burn-std's `Scalar::new` itself only refuses values outside `i64`/`u64`; a value that fits
/// `i64` but not a narrower dtype is left to the backend, where NdArray panics and Flex wraps
/// around silently (`3e9` in an `I32` tensor reads back as `-1294967296`). We refuse it.
///
/// # Errors
///
/// [`GuardError::NotRepresentable`] with the value and the dtype.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::creation;
/// assert!(creation::scalar_fits("full", f64::NAN, DType::F32).is_ok());
/// assert!(creation::scalar_fits("full", f64::NAN, DType::I64).is_err());
/// assert!(creation::scalar_fits("full", -1.0, DType::U8).is_err());
/// ```
pub fn scalar_fits(op: &'static str, value: f64, dtype: DType) -> Result<()> {
    let fits = match dtype {
        DType::Bool(BoolStore::Native) => true,
        DType::Bool(_) => value > -1.0 && value < U64_END,
        _ if dtype.is_float() || matches!(dtype, DType::QFloat(_)) => true,
        _ => int_range(dtype).is_some_and(|(low, high)| {
            let whole = value.trunc();
            value.is_finite() && whole >= low && whole < high
        }),
    };
    Rule(op, "the scalar is not representable in the tensor's dtype").representable(
        fits,
        ScalarValue::Float(value),
        dtype,
    )
}

/// Host data converted to `target` (by `from_data`, `from_ints`, a read `as` another dtype):
/// the conversion must exist (quantized data converts to nothing but itself, and nothing
/// converts to a quantized dtype), and every value must fit an integer target, as burn-std's
/// element conversion panics on the first that does not (NaN, infinities, out-of-range
/// integers).
///
/// # Errors
///
/// [`GuardError::DTypeMismatch`] for a conversion that does not exist;
/// [`GuardError::NotRepresentable`] with the first value that does not fit.
///
/// ```
/// use burn::tensor::{DType, TensorData};
/// use burn_guard::check::creation;
/// let data = TensorData::from([1.0f32, f32::NAN]);
/// assert!(creation::data_fits("from_data", &data, DType::F64).is_ok());
/// assert!(creation::data_fits("from_data", &data, DType::I32).is_err());
/// ```
pub fn data_fits(op: &'static str, data: &TensorData, target: DType) -> Result<()> {
    let from = data.dtype();
    conversion(op, from, target)?;
    if from == target {
        return Ok(());
    }
    if int_range(target).is_none() {
        // Float and bool targets take every value.
        return Ok(());
    }
    let bad: Option<ScalarValue> = match from {
        DType::I64 | DType::I32 | DType::I16 | DType::I8 => data
            .iter::<i64>()
            .map(ScalarValue::Int)
            .find(|&v| !fits(v, target)),
        DType::U64 | DType::U32 | DType::U16 | DType::U8 => data
            .iter::<u64>()
            .map(ScalarValue::UInt)
            .find(|&v| !fits(v, target)),
        DType::Bool(_) => None,
        _ => data
            .iter::<f64>()
            .map(ScalarValue::Float)
            .find(|&v| !fits(v, target)),
    };
    bad.map_or(Ok(()), |value| Err(not_representable(op, value, target)))
}

/// One value converted to `target` as burn-std's element conversion does (`TensorData`'s
/// `convert_dtype`, a fill value): it must fit an integer target (finite, and its integer part
/// in range); float and bool targets take every value.
///
/// # Errors
///
/// [`GuardError::NotRepresentable`] with the value and the target dtype.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::creation;
/// use burn_guard::check::elementwise::ScalarValue;
/// assert!(creation::value_fits("slice_fill", ScalarValue::Float(-1.5), DType::I8).is_ok());
/// assert!(creation::value_fits("slice_fill", ScalarValue::Int(300), DType::U8).is_err());
/// ```
pub fn value_fits(op: &'static str, value: ScalarValue, target: DType) -> Result<()> {
    if fits(value, target) {
        Ok(())
    } else {
        Err(not_representable(op, value, target))
    }
}

fn not_representable(op: &'static str, value: ScalarValue, target: DType) -> GuardError {
    Rule(op, "a value is not representable in the target dtype").not_representable(value, target)
}

/// Whether burn-std's element conversion of `value` to `target` succeeds.
fn fits(value: ScalarValue, target: DType) -> bool {
    let Some((low, high)) = int_range(target) else {
        return true;
    };
    match value {
        ScalarValue::Int(v) => int_fits(i128::from(v), target),
        ScalarValue::UInt(v) => int_fits(i128::from(v), target),
        ScalarValue::Bool(_) => true,
        ScalarValue::Float(v) => v.is_finite() && v.trunc() >= low && v.trunc() < high,
    }
}

/// The `[low, high)` range of an integer dtype, as floats (`None` for other dtypes).
fn int_range(dtype: DType) -> Option<(f64, f64)> {
    let range = match dtype {
        DType::I64 => (-I64_END, I64_END),
        DType::I32 => (f64::from(i32::MIN), f64::from(i32::MAX) + 1.0),
        DType::I16 => (f64::from(i16::MIN), f64::from(i16::MAX) + 1.0),
        DType::I8 => (f64::from(i8::MIN), f64::from(i8::MAX) + 1.0),
        DType::U64 => (0.0, U64_END),
        DType::U32 => (0.0, f64::from(u32::MAX) + 1.0),
        DType::U16 => (0.0, f64::from(u16::MAX) + 1.0),
        DType::U8 => (0.0, f64::from(u8::MAX) + 1.0),
        _ => return None,
    };
    Some(range)
}

/// Whether an integer fits an integer dtype exactly.
fn int_fits(value: i128, dtype: DType) -> bool {
    let (low, high): (i128, i128) = match dtype {
        DType::I64 => (i64::MIN.into(), i64::MAX.into()),
        DType::I32 => (i32::MIN.into(), i32::MAX.into()),
        DType::I16 => (i16::MIN.into(), i16::MAX.into()),
        DType::I8 => (i8::MIN.into(), i8::MAX.into()),
        DType::U64 => (0, u64::MAX.into()),
        DType::U32 => (0, u32::MAX.into()),
        DType::U16 => (0, u16::MAX.into()),
        DType::U8 => (0, u8::MAX.into()),
        _ => return true,
    };
    (low..=high).contains(&value)
}

/// A data conversion `from -> to` exists (burn-std `TensorData::try_cast`): the same dtype, or
/// neither side quantized.
///
/// # Errors
///
/// [`GuardError::DTypeMismatch`] with both dtypes (`lhs` the source, `rhs` the target).
pub fn conversion(op: &'static str, from: DType, to: DType) -> Result<()> {
    let quantized = |d: DType| matches!(d, DType::QFloat(_));
    if from == to || !(quantized(from) || quantized(to)) {
        Ok(())
    } else {
        Err(GuardError::DTypeMismatch {
            op,
            rule: "quantized data converts to no other dtype",
            lhs: from,
            rhs: to,
        })
    }
}

/// A random distribution's parameters, as the host samplers build them (burn-std
/// `Distribution::sampler`, which `unwrap`s rand's constructors): `Uniform(low, high)` needs
/// finite bounds with `low < high` once converted to the element type (truncated for integer
/// dtypes, rounded to `f32` below `F64`) and a finite `high - low`; `Bernoulli(p)` needs
/// `0 <= p <= 1`; `Normal(mean, std)` needs a finite `std`.
///
/// burn does not check this: backends that sample on the host (Flex, NdArray) panic, others
/// may return garbage.
///
/// # Errors
///
/// - [`GuardError::OutOfRange`] for a Bernoulli probability outside `[0, 1]`, or a uniform
///   span `high - low` that overflows the element type.
/// - [`GuardError::NonFinite`] for a non-finite Normal standard deviation or uniform bound.
/// - [`GuardError::NotRepresentable`] for a uniform bound outside an integer dtype.
/// - [`GuardError::OutOfOrder`] for uniform bounds with `low >= high` in the element type.
///
/// ```
/// use burn::tensor::{DType, Distribution};
/// use burn_guard::check::creation;
/// assert!(creation::distribution("random", Distribution::Uniform(0.0, 1.0), DType::F32).is_ok());
/// assert!(creation::distribution("random", Distribution::Uniform(1.0, 1.0), DType::F32).is_err());
/// assert!(creation::distribution("random", Distribution::Bernoulli(1.5), DType::F32).is_err());
/// ```
pub fn distribution(op: &'static str, distribution: Distribution, dtype: DType) -> Result<()> {
    match distribution {
        Distribution::Default => Ok(()),
        Distribution::Bernoulli(p) if !(0.0..=1.0).contains(&p) => {
            Err(
                Rule(op, "a Bernoulli probability must be in [0, 1]").out_of_range(
                    "p",
                    ScalarValue::Float(p),
                    Limit::Between(ScalarValue::Float(0.0), ScalarValue::Float(1.0)),
                ),
            )
        }
        Distribution::Bernoulli(_) => Ok(()),
        Distribution::Normal(_, std) if !std.is_finite() => {
            Rule(op, "a Normal standard deviation must be finite").finite(&[std])
        }
        Distribution::Normal(..) => Ok(()),
        Distribution::Uniform(low, high) => uniform(op, low, high, dtype),
    }
}

/// The rules of `Uniform(low, high)` for `dtype`.
fn uniform(op: &'static str, low: f64, high: f64, dtype: DType) -> Result<()> {
    // `dtype` names the element type the bounds were converted to, when they were.
    let non_finite = |lo: f64, hi: f64, dtype: Option<DType>| {
        Rule(op, "uniform bounds must be finite")
            .finite_split(NonFiniteSplit::of([lo, hi]), 2, dtype, None)
            .err()
    };
    let unordered = |lo: f64, hi: f64| {
        (lo >= hi).then_some(GuardError::OutOfOrder {
            op,
            rule: "uniform bounds must satisfy low < high in the tensor's dtype",
            lower_name: "low",
            lower: ScalarValue::Float(lo),
            upper_name: "high",
            upper: ScalarValue::Float(hi),
        })
    };
    if let Some(err) = non_finite(low, high, None) {
        return Err(err);
    }
    if let Some((min, max)) = int_range(dtype) {
        let (lo, hi) = (low.trunc(), high.trunc());
        let outside = |v: f64| !(v >= min && v < max);
        if let Some(&value) = [lo, hi].iter().find(|&&v| outside(v)) {
            return Err(Rule(
                op,
                "uniform bounds must be representable in the tensor's dtype",
            )
            .not_representable(ScalarValue::Float(value), dtype));
        }
        return unordered(lo, hi).map_or(Ok(()), Err);
    }
    let (lo, hi) = if dtype == DType::F64 {
        (low, high)
    } else {
        #[allow(clippy::cast_possible_truncation)] // The element type is f32 (or narrower).
        (f64::from(low as f32), f64::from(high as f32))
    };
    if let Some(err) = non_finite(lo, hi, Some(dtype)).or_else(|| unordered(lo, hi)) {
        return Err(err);
    }
    let (span, limit) = if dtype == DType::F64 {
        (hi - lo, f64::MAX)
    } else {
        #[allow(clippy::cast_possible_truncation)]
        (f64::from((hi - lo) as f32), f64::from(f32::MAX))
    };
    Rule(op, "the uniform range high - low must be finite").within(
        span.is_finite(),
        "high - low",
        ScalarValue::Float(span),
        Limit::AtMost(ScalarValue::Float(limit)),
    )
}

/// `arange_step`: `step > 0`. burn does not check it; the backend's `step_by(0)` asserts.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for `step == 0`.
pub fn arange_step(op: &'static str, step: usize) -> Result<()> {
    if step == 0 {
        Err(Rule(op, "step must be greater than 0").out_of_range(
            "step",
            step,
            Limit::AtLeast(1usize.into()),
        ))
    } else {
        Ok(())
    }
}

/// The length of `arange_step(range, step)`: what `range.step_by(step)` yields (burn-backend's
/// default `int_arange_step`, burn-flex's), counted in 128 bits so that `i64::MIN..i64::MAX` does
/// not overflow as `end - start` would; 0 for an empty range or a zero step (refused by
/// [`arange_step`]). A length past `usize` (32-bit targets) is `usize::MAX`, which the byte
/// rule then refuses.
///
/// ```
/// use burn_guard::check::creation::arange_length;
/// assert_eq!(arange_length(&(0..5), 2), 3);
/// assert_eq!(arange_length(&(5..0), 1), 0);
/// assert_eq!(arange_length(&(i64::MIN..i64::MAX), 1), usize::MAX);
/// ```
pub fn arange_length(range: &std::ops::Range<i64>, step: usize) -> usize {
    let span = i128::from(range.end) - i128::from(range.start);
    if span <= 0 || step == 0 {
        return 0;
    }
    let Ok(step) = i128::try_from(step) else {
        return 1;
    };
    let length = (span + step - 1) / step;
    usize::try_from(length).unwrap_or(usize::MAX)
}

/// `cartesian_grid::<S, D, D2>`: `D2 == D + 1` (burn's `panic!`) and a shape of rank `D`
/// (burn indexes the shape for `0..D` and repeats along every dim it holds). Returns the output
/// shape `[dims.., D]` and whether it is empty (a zero-sized dim, where burn's reshape reads the
/// `0` as "keep this dim" and panics; the answer is simply an empty tensor).
///
/// # Errors
///
/// [`GuardError::RankMismatch`] for either rank.
pub fn cartesian_grid(
    op: &'static str,
    dims: &[usize],
    rank_in: usize,
    rank_out: usize,
) -> Result<(Vec<usize>, bool)> {
    Rule(op, "the output rank D2 must be D + 1").expect_rank(rank_in + 1, rank_out, dims)?;
    Rule(op, "the shape's rank must equal D").rank(dims, rank_in)?;
    let mut out = dims.to_vec();
    out.push(rank_in);
    Ok((out, dims.contains(&0)))
}

/// `eye(size)`: always valid; returns whether the answer is the empty `[0, 0]` tensor, which
/// burn fails to build (its `unsqueeze` reshapes `[0]` to `[1, 0]` and reshape reads the `0`
/// as "keep this dim").
pub fn eye_is_empty(size: usize) -> bool {
    size == 0
}

/// Which dtype checks `from_data` applies: a Float tensor keeps quantized data as it is
/// (whatever dtype was asked for), so only non-quantized data, or other kinds, are checked
/// against the creation dtype. Returns whether the data must be checked.
pub fn from_data_converts(kind: Kind, data_dtype: DType) -> bool {
    !(kind == Kind::Float && matches!(data_dtype, DType::QFloat(_)))
}

/// Reading a tensor as one scalar: exactly one element (`TensorCheck::into_scalar`).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] with the element count (saturated at `u64::MAX`).
pub fn scalar_read(op: &'static str, dims: &[usize]) -> Result<()> {
    let count = dims
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))
        .unwrap_or(u64::MAX);
    Rule(op, "the tensor must hold exactly one element").within(
        count == 1,
        "elements",
        ScalarValue::UInt(count),
        Limit::Exactly(ScalarValue::UInt(1)),
    )
}

/// `cast`: a quantized input has no cast to a float dtype (burn: "Should be Float primitive
/// kind"; a cast to an integer dtype dequantizes first and works), and a plain `DType` argument
/// (as opposed to `FloatDType`/`IntDType`) must belong to the input's kind, since burn converts
/// it with `From<DType> for FloatDType/IntDType`.
///
/// # Errors
///
/// [`GuardError::InvalidDType`] with the target dtype, or the quantized source dtype.
///
/// ```
/// use burn::tensor::DType;
/// use burn::tensor::kind::Kind;
/// use burn_guard::check::creation;
/// assert!(creation::cast("cast", Kind::Float, DType::F32, DType::I32, false, Kind::Int).is_ok());
/// assert!(creation::cast("cast", Kind::Float, DType::F32, DType::I32, true, Kind::Float).is_err());
/// ```
pub fn cast(
    op: &'static str,
    kind: Kind,
    source: DType,
    target: DType,
    target_is_plain_dtype: bool,
    output_kind: Kind,
) -> Result<()> {
    if target_is_plain_dtype && !dtype_of_kind(kind, target) {
        let rule = match kind {
            Kind::Float => {
                "a plain DType cast of a float tensor needs a float dtype; use IntDType to change kind"
            }
            Kind::Int => {
                "a plain DType cast of an int tensor needs an integer dtype; use FloatDType to change kind"
            }
            Kind::Bool => "a plain DType cast of a bool tensor needs a bool dtype",
        };
        return Err(GuardError::InvalidDType {
            op,
            rule,
            dtype: target,
        });
    }
    if output_kind == Kind::Float {
        not_quantized(op, source)?;
    }
    Ok(())
}

/// `categorical(num_samples)`: `num_samples > 0` (burn's `assert!`) and a non-empty last
/// dimension (burn divides by it). Returns `true` when the tensor has no element (a zero-sized
/// leading dim), where burn panics in a reshape but the answer is simply empty.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for `num_samples == 0`; [`GuardError::Empty`] for no categories.
pub fn categorical(op: &'static str, dims: &[usize], num_samples: usize) -> Result<bool> {
    Rule(op, "num_samples must be at least 1").at_least("num_samples", num_samples, 1)?;
    match dims.last() {
        Some(&0) | None => Err(
            Rule(op, "the last dimension (the categories) must not be empty")
                .empty(dims, dims.len().checked_sub(1)),
        ),
        Some(_) => Ok(dims.contains(&0)),
    }
}

/// `set_require_grad(true)` / `require_grad`: on a non-quantized tensor, autodiff must be on
/// (burn's `assert!`) and the tensor must be a leaf (burn-autodiff: "Can't convert a non leaf
/// tensor into a tracked tensor"). `false` and quantized tensors are always accepted.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] for either rule.
pub fn require_grad(
    op: &'static str,
    require_grad: bool,
    quantized: bool,
    autodiff: bool,
    non_leaf: bool,
) -> Result<()> {
    if !require_grad || quantized {
        return Ok(());
    }
    let rule = if !autodiff {
        "requiring gradients needs an autodiff tensor; call Tensor::autodiff first"
    } else if non_leaf {
        "only a leaf tensor can require gradients; call Tensor::detach first"
    } else {
        return Ok(());
    };
    Err(GuardError::InvalidArgument {
        op,
        rule,
        got: format!(
            "require_grad={require_grad}, autodiff={autodiff}, leaf={}",
            !non_leaf
        ),
    })
}

/// A condition on the tensor's autodiff state (`backward` needs a tracked tensor,
/// `with_gradient_checkpointing_strategy` an autodiff one): burn `assert!`s it.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] with `rule`.
pub fn autodiff_state(op: &'static str, holds: bool, rule: &'static str, got: &str) -> Result<()> {
    if holds {
        Ok(())
    } else {
        Err(Rule(op, rule).invalid(got.to_owned()))
    }
}

/// `is_distributed` / `set_distributed`: the tensor is not quantized (burn:
/// `unimplemented!()`), is an autodiff tensor (burn-dispatch: "Requires autodiff tensor."),
/// and — for `set_distributed` — runs on a backend with distributed support (CubeCL or remote;
/// burn-dispatch panics "Distributed operations are not supported" for the others). Pass
/// `backend_supported = true` for `is_distributed`, which answers `false` on those backends.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the rule.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::creation;
/// assert!(creation::distributed("is_distributed", DType::F32, true, true).is_ok());
/// assert!(creation::distributed("is_distributed", DType::F32, false, true).is_err());
/// assert!(creation::distributed("set_distributed", DType::F32, true, false).is_err());
/// ```
pub fn distributed(
    op: &'static str,
    dtype: DType,
    autodiff: bool,
    backend_supported: bool,
) -> Result<()> {
    not_quantized(op, dtype)?;
    let rule = if !autodiff {
        "distributed parameters need an autodiff tensor; call Tensor::autodiff first"
    } else if !backend_supported {
        "this backend has no distributed support (CubeCL and remote backends have)"
    } else {
        return Ok(());
    };
    Err(Rule(op, rule).invalid(format!(
        "autodiff={autodiff}, distributed backend={backend_supported}"
    )))
}

/// `quantize(scheme, qparams)`: whether the scheme has a per-tensor scale must match whether
/// `qparams.global` is given; a given global scale has one element and dtype `F32`
/// (burn's `assert_eq!`s in `Tensor::quantize`).
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the rule; [`GuardError::InvalidDType`] for a
/// per-tensor scale that is not `F32`.
pub fn quantize_params(
    op: &'static str,
    scheme_has_global: bool,
    global: Option<(&[usize], DType)>,
) -> Result<()> {
    let fail = |rule: &'static str, got: String| GuardError::InvalidArgument { op, rule, got };
    match (scheme_has_global, global) {
        (true, None) => Err(fail(
            "the scheme has a per-tensor scale, so qparams.global must be given",
            "global=None".into(),
        )),
        (false, Some((dims, _))) => Err(fail(
            "the scheme has no per-tensor scale, so qparams.global must be None",
            format!("global shape={dims:?}"),
        )),
        (true, Some((dims, dtype))) => {
            if dims.first() != Some(&1) {
                Err(fail(
                    "the per-tensor scale must have exactly one element",
                    format!("global shape={dims:?}"),
                ))
            } else if dtype != DType::F32 {
                Err(GuardError::InvalidDType {
                    op,
                    rule: "the per-tensor scale must be an f32 tensor",
                    dtype,
                })
            } else {
                Ok(())
            }
        }
        (false, None) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::TestResult;
    use crate::error::ErrorKind;
    use burn::tensor::FloatDType;

    use super::super::test_support::{bound, ranks, refused};
    use crate::error::Limit::{AtLeast, Exactly};
    use crate::error::ScalarValue::UInt;

    #[test]
    fn creation_rank_table() -> TestResult {
        assert!(creation_rank("zeros", &[2, 3], 2).is_ok());
        let rows: [(&[usize], usize, usize, usize); 3] =
            [(&[2], 2, 2, 1), (&[2, 3, 4], 2, 2, 3), (&[], 0, 1, 0)];
        for (dims, rank, expected, got) in rows {
            let err = refused("creation_rank", creation_rank("zeros", dims, rank))?;
            assert!(
                matches!(
                    &err,
                    GuardError::RankMismatch { op: "zeros", expected: e, got: g, shape, .. }
                        if *e == expected && *g == got && shape == dims
                ),
                "{err:?}"
            );
        }
        Ok(())
    }

    #[test]
    fn creation_dtype_table() -> TestResult {
        let rows = [
            (Kind::Float, DType::F32, true),
            (Kind::Float, DType::BF16, true),
            (Kind::Float, DType::I32, false),
            (Kind::Int, DType::U8, true),
            (Kind::Int, DType::F32, false),
            (Kind::Bool, DType::Bool(BoolStore::Native), true),
            (Kind::Bool, DType::F32, false),
        ];
        for (kind, dtype, ok) in rows {
            match (creation_dtype("ones", kind, dtype), ok) {
                (Ok(d), true) => assert_eq!(d, dtype),
                (
                    Err(GuardError::InvalidDType {
                        op: "ones",
                        dtype: d,
                        ..
                    }),
                    false,
                ) => {
                    assert_eq!(d, dtype);
                }
                (got, ok) => {
                    return Err(format!("{kind:?} {dtype:?}: {got:?}, expected ok={ok}").into());
                }
            }
        }
        Ok(())
    }

    #[test]
    fn scalar_fits_table() {
        let rows = [
            (f64::NAN, DType::F32, true),
            (f64::INFINITY, DType::F16, true),
            (f64::NAN, DType::I32, false),
            (f64::INFINITY, DType::I64, false),
            (-1.0, DType::U32, false),
            (-0.5, DType::U32, true),
            (1e19, DType::I64, false),
            (1e19, DType::U64, true),
            (3e9, DType::I32, false),
            (3e9, DType::U32, true),
            (2.5, DType::I8, true),
            (300.0, DType::U8, false),
            (3.0, DType::Bool(BoolStore::Native), true),
            (-3.0, DType::Bool(BoolStore::U8), false),
        ];
        for (value, dtype, ok) in rows {
            let got = scalar_fits("full", value, dtype);
            assert_eq!(got.is_ok(), ok, "{value} {dtype:?}: {got:?}");
            if let Err(err) = got {
                // NaN != NaN: compare the bits.
                assert!(
                    matches!(
                        err,
                        GuardError::NotRepresentable { value: ScalarValue::Float(v), dtype: d, .. }
                            if v.to_bits() == value.to_bits() && d == dtype
                    ),
                    "{err:?}"
                );
            }
        }
    }

    #[test]
    fn data_fits_table() -> TestResult {
        let floats = TensorData::from([1.5f32, -2.0]);
        assert!(data_fits("d", &floats, DType::I32).is_ok());
        let err = refused("data_fits", data_fits("d", &floats, DType::U8))?;
        assert!(matches!(
            err,
            GuardError::NotRepresentable { value: ScalarValue::Float(v), dtype: DType::U8, .. }
                if v == -2.0
        ));
        let big = TensorData::from([5_000_000_000i64]);
        let err = refused("data_fits", data_fits("from_ints", &big, DType::I32))?;
        assert!(matches!(
            err,
            GuardError::NotRepresentable {
                op: "from_ints",
                value: ScalarValue::Int(5_000_000_000),
                dtype: DType::I32,
                ..
            }
        ));
        assert!(data_fits("d", &big, DType::F32).is_ok());
        let nan = TensorData::from([f64::NAN]);
        let err = refused("data_fits", data_fits("d", &nan, DType::I64))?;
        assert_eq!(err.kind(), ErrorKind::NotRepresentable);
        let bools = TensorData::from([true, false]);
        assert!(data_fits("d", &bools, DType::U8).is_ok());
        assert!(conversion("d", DType::F32, DType::I8).is_ok());
        let q = DType::QFloat(Default::default());
        let err = refused("conversion", conversion("d", q, DType::F32))?;
        assert!(matches!(
            err,
            GuardError::DTypeMismatch {
                lhs: DType::QFloat(_),
                rhs: DType::F32,
                ..
            }
        ));
        Ok(())
    }

    #[test]
    fn distribution_table() -> TestResult {
        let f = ScalarValue::Float;
        let rows: Vec<(Distribution, DType, Option<GuardError>)> = vec![
            (Distribution::Default, DType::F32, None),
            (Distribution::Uniform(0.0, 1.0), DType::F32, None),
            (
                Distribution::Uniform(1.0, 0.0),
                DType::F32,
                Some(GuardError::OutOfOrder {
                    op: "random",
                    rule: "uniform bounds must satisfy low < high in the tensor's dtype",
                    lower_name: "low",
                    lower: f(1.0),
                    upper_name: "high",
                    upper: f(0.0),
                }),
            ),
            (
                Distribution::Uniform(0.2, 0.7),
                DType::I64,
                Some(GuardError::OutOfOrder {
                    op: "random",
                    rule: "uniform bounds must satisfy low < high in the tensor's dtype",
                    lower_name: "low",
                    lower: f(0.0),
                    upper_name: "high",
                    upper: f(0.0),
                }),
            ),
            (
                Distribution::Uniform(0.0, 300.0),
                DType::I8,
                Some(GuardError::NotRepresentable {
                    op: "random",
                    rule: "uniform bounds must be representable in the tensor's dtype",
                    value: f(300.0),
                    dtype: DType::I8,
                }),
            ),
            (
                Distribution::Uniform(0.0, f64::INFINITY),
                DType::F64,
                Some(GuardError::NonFinite {
                    op: "random",
                    rule: "uniform bounds must be finite",
                    count: 1,
                    total: 2,
                    split: Some(NonFiniteSplit {
                        nan: 0,
                        pos_inf: 1,
                        neg_inf: 0,
                    }),
                    dtype: None,
                    shape: None,
                }),
            ),
            (
                Distribution::Uniform(-1e300, 1e300),
                DType::F32,
                Some(GuardError::NonFinite {
                    op: "random",
                    rule: "uniform bounds must be finite",
                    count: 2,
                    total: 2,
                    // The bounds as F32 values: each overflowed to an infinity of its sign.
                    split: Some(NonFiniteSplit {
                        nan: 0,
                        pos_inf: 1,
                        neg_inf: 1,
                    }),
                    dtype: Some(FloatDType::F32),
                    shape: None,
                }),
            ),
            (
                Distribution::Uniform(-1.7e308, 1.7e308),
                DType::F64,
                Some(GuardError::OutOfRange {
                    op: "random",
                    rule: "the uniform range high - low must be finite",
                    name: "high - low",
                    value: f(f64::INFINITY),
                    limit: Limit::AtMost(f(f64::MAX)),
                }),
            ),
            (Distribution::Bernoulli(1.0), DType::F32, None),
            (
                Distribution::Bernoulli(-0.1),
                DType::F32,
                Some(GuardError::OutOfRange {
                    op: "random",
                    rule: "a Bernoulli probability must be in [0, 1]",
                    name: "p",
                    value: f(-0.1),
                    limit: Limit::Between(f(0.0), f(1.0)),
                }),
            ),
            (Distribution::Normal(0.0, -1.0), DType::F32, None),
            (
                Distribution::Normal(0.0, f64::NAN),
                DType::F32,
                Some(GuardError::NonFinite {
                    op: "random",
                    rule: "a Normal standard deviation must be finite",
                    count: 1,
                    total: 1,
                    split: Some(NonFiniteSplit {
                        nan: 1,
                        pos_inf: 0,
                        neg_inf: 0,
                    }),
                    dtype: None,
                    shape: None,
                }),
            ),
        ];
        for (dist, dtype, expected) in rows {
            // The variants hold no NaN here, so their Debug forms compare field by field.
            let got = distribution("random", dist, dtype).err();
            assert_eq!(
                format!("{got:?}"),
                format!("{expected:?}"),
                "{dist:?} {dtype:?}"
            );
        }
        Ok(())
    }

    #[test]
    fn small_rules() -> TestResult {
        let err = refused("arange_step", arange_step("arange_step", 0))?;
        assert_eq!(bound(&err), Some(("step", UInt(0), AtLeast(UInt(1)))));
        assert!(arange_step("arange_step", 2).is_ok());

        assert_eq!(cartesian_grid("g", &[2, 3], 2, 3)?, (vec![2, 3, 2], false));
        assert_eq!(cartesian_grid("g", &[2, 0], 2, 3)?, (vec![2, 0, 2], true));
        assert!(eye_is_empty(0) && !eye_is_empty(1));
        let q = DType::QFloat(Default::default());
        assert!(!from_data_converts(Kind::Float, q));
        assert!(from_data_converts(Kind::Int, q));
        assert!(from_data_converts(Kind::Float, DType::F32));
        let err = refused("cartesian_grid", cartesian_grid("g", &[2, 3], 2, 4))?;
        assert_eq!(ranks(&err), Some((3, 4)));
        let err = refused("cartesian_grid", cartesian_grid("g", &[2], 2, 3))?;
        assert_eq!(ranks(&err), Some((2, 1)));

        assert!(scalar_read("into_scalar", &[1, 1]).is_ok());
        let err = refused("scalar_read", scalar_read("into_scalar", &[2]))?;
        assert_eq!(bound(&err), Some(("elements", UInt(2), Exactly(UInt(1)))));

        assert!(
            cast(
                "cast",
                Kind::Float,
                DType::F32,
                DType::I32,
                false,
                Kind::Int
            )
            .is_ok()
        );
        let err = cast(
            "cast",
            Kind::Float,
            DType::F32,
            DType::I32,
            true,
            Kind::Float,
        );
        let err = refused("cast", err)?;
        assert!(matches!(
            err,
            GuardError::InvalidDType {
                dtype: DType::I32,
                ..
            }
        ));
        assert!(cast("cast", Kind::Float, q, DType::I32, false, Kind::Int).is_ok());
        let err = refused(
            "cast",
            cast("cast", Kind::Float, q, DType::F16, false, Kind::Float),
        )?;
        assert!(matches!(
            err,
            GuardError::InvalidDType {
                dtype: DType::QFloat(_),
                ..
            }
        ));

        assert!(categorical("c", &[0, 3], 2)?);
        assert!(!categorical("c", &[2, 3], 2)?);
        let err = refused("categorical", categorical("c", &[2, 0], 2))?;
        assert!(matches!(&err, GuardError::Empty { shape, .. } if shape == &[2, 0]));
        let err = refused("categorical", categorical("c", &[2, 3], 0))?;
        assert!(matches!(
            err,
            GuardError::OutOfRange {
                name: "num_samples",
                value: ScalarValue::UInt(0),
                ..
            }
        ));

        // The autodiff rules stay one-off `InvalidArgument`s: the rule tells them apart.
        let rule_of = |err: GuardError| match err {
            GuardError::InvalidArgument { rule, .. } => Some(rule),
            _ => None,
        };
        assert!(require_grad("r", false, false, false, false).is_ok());
        assert!(require_grad("r", true, true, false, false).is_ok());
        assert!(quantize_params("q", false, None).is_ok());
        assert!(quantize_params("q", true, Some((&[1], DType::F32))).is_ok());
        let refusals = [
            (
                require_grad("r", true, false, false, false),
                "requiring gradients needs an autodiff tensor; call Tensor::autodiff first",
            ),
            (
                require_grad("r", true, false, true, true),
                "only a leaf tensor can require gradients; call Tensor::detach first",
            ),
            (
                quantize_params("q", true, None),
                "the scheme has a per-tensor scale, so qparams.global must be given",
            ),
            (
                quantize_params("q", true, Some((&[2], DType::F32))),
                "the per-tensor scale must have exactly one element",
            ),
            (
                quantize_params("q", false, Some((&[1], DType::F32))),
                "the scheme has no per-tensor scale, so qparams.global must be None",
            ),
            (
                distributed("set_distributed", DType::F32, false, false),
                "distributed parameters need an autodiff tensor; call Tensor::autodiff first",
            ),
            (
                distributed("set_distributed", DType::F32, true, false),
                "this backend has no distributed support (CubeCL and remote backends have)",
            ),
        ];
        for (result, rule) in refusals {
            assert_eq!(rule_of(refused(rule, result)?), Some(rule));
        }
        let err = refused(
            "quantize_params",
            quantize_params("q", true, Some((&[1], DType::F16))),
        )?;
        assert!(matches!(
            err,
            GuardError::InvalidDType {
                dtype: DType::F16,
                ..
            }
        ));
        assert!(distributed("is_distributed", DType::F32, true, true).is_ok());

        let err = refused(
            "not_quantized",
            not_quantized("zeros_like", DType::QFloat(Default::default())),
        )?;
        assert!(matches!(
            err,
            GuardError::InvalidDType {
                op: "zeros_like",
                dtype: DType::QFloat(_),
                ..
            }
        ));
        Ok(())
    }
}
