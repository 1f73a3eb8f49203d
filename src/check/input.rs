//! Rules for a service's inputs: what a caller promises about a user-supplied tensor before a
//! model sees it (rank, per-dimension bounds, dtype, finite values). Pure: the count of
//! non-finite values is read elsewhere ([`InputSpec`](crate::input::InputSpec)) and judged here.

use std::ops::RangeInclusive;

use burn::tensor::DType;

use super::rule::Rule;
use crate::error::{GuardError, Limit, Result, ScalarValue};

/// Refuses values of which `count` of `total` are NaN or ±inf.
///
/// # Errors
///
/// [`GuardError::NonFinite`] with the count, when `count > 0`.
///
/// ```
/// use burn_guard::{ErrorKind, check};
/// assert!(check::finite("features", 0, 64).is_ok());
/// let err = check::finite("features", 3, 64).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::NonFinite);
/// assert_eq!(err.to_string(), "features: values must be finite; got 3 non-finite of 64 values");
/// ```
pub fn finite(op: &'static str, count: u64, total: u64) -> Result<()> {
    Rule(op, "values must be finite").finite_count(count, total)
}

/// Refuses a rank other than `expected`.
///
/// # Errors
///
/// [`GuardError::RankMismatch`].
pub fn rank(op: &'static str, shape: &[usize], expected: usize) -> Result<()> {
    if shape.len() == expected {
        return Ok(());
    }
    Err(
        Rule(op, "the input must have the rank the spec declares").rank_mismatch(
            expected,
            shape.len(),
            shape,
        ),
    )
}

/// Refuses a dimension `dim` of `shape` whose size is outside `bounds` (a missing dimension
/// is left to [`rank`]).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming the dimension (`dim 1`) with the bounds as its limit.
///
/// ```
/// use burn_guard::{ErrorKind, check};
/// assert!(check::input::dim_size("features", &[8, 64], 1, &(64..=64)).is_ok());
/// let err = check::input::dim_size("features", &[8, 63], 1, &(64..=64)).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::OutOfRange);
/// ```
pub fn dim_size(
    op: &'static str,
    shape: &[usize],
    dim: usize,
    bounds: &RangeInclusive<usize>,
) -> Result<()> {
    let Some(&size) = shape.get(dim) else {
        return Ok(());
    };
    if bounds.contains(&size) {
        return Ok(());
    }
    Err(GuardError::OutOfRange {
        op,
        rule: "a dimension's size must be within the spec's bounds",
        name: DIM_NAMES.get(dim).copied().unwrap_or("dim ≥ 8"),
        value: ScalarValue::UInt(u64::try_from(size).unwrap_or(u64::MAX)),
        limit: Limit::Between(
            ScalarValue::UInt(u64::try_from(*bounds.start()).unwrap_or(u64::MAX)),
            ScalarValue::UInt(u64::try_from(*bounds.end()).unwrap_or(u64::MAX)),
        ),
    })
}

/// The names errors give dimensions (an error's `name` is `&'static str`).
const DIM_NAMES: [&str; 8] = [
    "dim 0", "dim 1", "dim 2", "dim 3", "dim 4", "dim 5", "dim 6", "dim 7",
];

/// Refuses a dtype other than `expected`.
///
/// # Errors
///
/// [`GuardError::DTypeMismatch`]: the input's dtype, then the spec's.
pub fn dtype(op: &'static str, got: DType, expected: DType) -> Result<()> {
    if got == expected {
        return Ok(());
    }
    Err(GuardError::DTypeMismatch {
        op,
        rule: "the input must have the dtype the spec declares",
        lhs: got,
        rhs: expected,
    })
}
