//! Checks for the split family: chunk, split, split_with_sizes (the pieces burn narrows), and
//! the ops burn builds from slices of the input: roll*, repeat*, pad.
//!
//! Pure functions over shapes, dims and scalars; each names the burn check it mirrors. Each
//! returns what it proved (canonical dims, the output shape) so the twin never recomputes it.
//!
//! Dims arrive as `isize`, as burn's `AsIndex::as_index` gives them, and are resolved with
//! [`check::dim`](crate::check::dim) (burn's negative-dim wrapping).

use burn::tensor::DType;
use burn::tensor::ops::PadMode;

use super::rule::Rule;
use super::shape::{count_overflows, dim, element_count};
use crate::error::{GuardError, Limit, Result};

/// A padding specification as the caller gave it (burn's `IntoPadding` forms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PadArg {
    /// `(before, after)` pairs for the last `len` dimensions (array, slice or `Vec` form).
    Pairs(Vec<(usize, usize)>),
    /// The `(left, right, top, bottom)` tuple form: pads the last two dimensions.
    Ltrb(usize, usize, usize, usize),
}

/// `roll(shifts, dims)`: equal lengths (`assert_eq!` in burn), each dim in `-D..D`, and the
/// shifts accumulated per dim without overflowing `isize` (burn adds them with `+=`).
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] for unequal lengths or an overflowing sum;
/// [`GuardError::DimOutOfRange`].
///
/// ```
/// use burn_guard::check::split::roll;
/// assert!(roll("roll", &[1, -2], &[0, -1], 2).is_ok());
/// assert!(roll("roll", &[1], &[0, 1], 2).is_err());
/// ```
pub fn roll(op: &'static str, shifts: &[isize], dims: &[isize], rank: usize) -> Result<()> {
    if dims.len() != shifts.len() {
        return Err(Rule(op, "dims and shifts must have the same length")
            .invalid(format!("shifts={shifts:?}, dims={dims:?}")));
    }
    let mut accumulated = vec![0isize; rank];
    for (&d, &shift) in dims.iter().zip(shifts) {
        let index = dim(op, d, rank)?;
        if let Some(slot) = accumulated.get_mut(index) {
            *slot = slot.checked_add(shift).ok_or_else(|| {
                Rule(op, "the shifts of one dim overflow isize when added")
                    .invalid(format!("shifts={shifts:?}, dims={dims:?}"))
            })?;
        }
    }
    Ok(())
}

/// `repeat_dim(dim, times)`: `dim` in `-D..D`; beyond burn, the output element count must fit in
/// `usize` (burn multiplies without checking). Returns the output shape.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`]; [`GuardError::InvalidArgument`] for an overflowing size.
///
/// ```
/// use burn_guard::check::split::repeat_dim;
/// assert_eq!(repeat_dim("repeat_dim", &[2, 3], -1, 2).unwrap(), vec![2, 6]);
/// assert!(repeat_dim("repeat_dim", &[2, 3], 2, 2).is_err());
/// ```
pub fn repeat_dim(
    op: &'static str,
    shape: &[usize],
    dim_arg: isize,
    times: usize,
) -> Result<Vec<usize>> {
    let index = dim(op, dim_arg, shape.len())?;
    let mut out = shape.to_vec();
    if let Some(slot) = out.get_mut(index) {
        *slot = slot
            .checked_mul(times)
            .ok_or_else(|| count_overflows(op, shape))?;
    }
    element_count(&out).ok_or_else(|| count_overflows(op, &out))?;
    Ok(out)
}

/// `repeat(sizes)`: burn ignores entries past the rank when they are 1 and panics on any other
/// (`unwrap_dim_index` through `repeat_dim`), or on any entry at all past the rank when some size
/// is 0 (`Shape::repeat(..).unwrap()`). Beyond burn, the output element count must fit in
/// `usize`. Returns the output shape.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`].
///
/// ```
/// use burn_guard::check::split::repeat;
/// assert_eq!(repeat("repeat", &[2, 3], &[2, 1, 1]).unwrap(), vec![4, 3]);
/// assert!(repeat("repeat", &[2, 3], &[2, 1, 3]).is_err());
/// ```
pub fn repeat(op: &'static str, shape: &[usize], sizes: &[usize]) -> Result<Vec<usize>> {
    let extra = sizes.get(shape.len()..).unwrap_or(&[]);
    let has_zero = sizes.contains(&0);
    if (has_zero && !extra.is_empty()) || extra.iter().any(|&t| t > 1) {
        return Err(GuardError::InvalidArgument {
            op,
            rule: if has_zero {
                "with a 0 size, there must be no more sizes than dimensions"
            } else {
                "sizes past the tensor's rank must be 1"
            },
            got: format!("sizes={sizes:?}, shape={shape:?}"),
        });
    }
    let mut out = shape.to_vec();
    for (slot, &times) in out.iter_mut().zip(sizes) {
        *slot = slot
            .checked_mul(times)
            .ok_or_else(|| count_overflows(op, shape))?;
    }
    element_count(&out).ok_or_else(|| count_overflows(op, &out))?;
    Ok(out)
}

/// `pad(padding, mode)`: mirrors burn's `IntoPadding` (no more pairs than dims; the
/// `(left, right, top, bottom)` form needs rank 2 or more — burn underflows `D - 2`) and
/// burn-backend's `validate_padding` (Reflect: both pads smaller than the dim size, on every
/// dim, padded or not; Edge: no padding on an empty dim). Beyond burn, each padded size must fit
/// in `usize`. Returns one `(before, after)` pair per dim.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for too many pairs or a reflect padding as large as its dim;
/// [`GuardError::Empty`] for edge padding of an empty dim; [`GuardError::InvalidArgument`] for an
/// overflowing size; [`GuardError::RankMismatch`] for the tuple form on rank < 2.
///
/// ```
/// use burn::tensor::ops::PadMode;
/// use burn_guard::check::split::{PadArg, pad};
/// let pairs = pad("pad", &[2, 3], &PadArg::Pairs(vec![(1, 2)]), &PadMode::Reflect).unwrap();
/// assert_eq!(pairs, vec![(0, 0), (1, 2)]);
/// assert!(pad("pad", &[2, 3], &PadArg::Pairs(vec![(3, 0)]), &PadMode::Reflect).is_err());
/// ```
pub fn pad(
    op: &'static str,
    shape: &[usize],
    padding: &PadArg,
    mode: &PadMode,
) -> Result<Vec<(usize, usize)>> {
    let rank = shape.len();
    let pairs: Vec<(usize, usize)> = match padding {
        PadArg::Pairs(given) => {
            let Some(lead) = rank.checked_sub(given.len()) else {
                return Err(
                    Rule(op, "there must be no more padding pairs than dimensions").out_of_range(
                        "pairs",
                        given.len(),
                        Limit::AtMost(rank.into()),
                    ),
                );
            };
            let mut pairs = vec![(0, 0); lead];
            pairs.extend_from_slice(given);
            pairs
        }
        &PadArg::Ltrb(left, right, top, bottom) => {
            let Some(lead) = rank.checked_sub(2) else {
                return Err(Rule(op, "the (left, right, top, bottom) form pads the last two dims: it needs rank 2 or more").rank_mismatch(2, rank, shape));
            };
            let mut pairs = vec![(0, 0); lead];
            pairs.push((top, bottom));
            pairs.push((left, right));
            pairs
        }
    };
    for (index, (&(before, after), &size)) in pairs.iter().zip(shape).enumerate() {
        match mode {
            PadMode::Reflect if before >= size || after >= size => {
                return Err(Rule(
                    op,
                    "reflect padding must be smaller than the dimension size, on every dimension",
                )
                .out_of_range(
                    "padding",
                    before.max(after),
                    Limit::Below(size.into()),
                ));
            }
            PadMode::Edge if (before != 0 || after != 0) && size == 0 => {
                return Err(Rule(op, "edge padding cannot extend an empty dimension")
                    .empty(shape, Some(index)));
            }
            _ => {}
        }
        if size
            .checked_add(before)
            .and_then(|s| s.checked_add(after))
            .is_none()
        {
            return Err(count_overflows(op, shape));
        }
    }
    Ok(pairs)
}

/// The constant of a `PadMode::Constant` for a tensor of `dtype`: burn passes it to the
/// backend's `full` as a float, which panics for an integer tensor when it is not finite or
/// outside `i64`. Beyond burn, it must also fit the integer dtype after truncation toward zero
/// (Flex wraps an `I32` value silently). Float tensors accept any value.
///
/// # Errors
///
/// [`GuardError::NotRepresentable`] with the value and the dtype.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::split::pad_value;
/// assert!(pad_value("pad", -1.5, DType::I32).is_ok());
/// assert!(pad_value("pad", f32::NAN, DType::I64).is_err());
/// assert!(pad_value("pad", f32::NAN, DType::F32).is_ok());
/// ```
pub fn pad_value(op: &'static str, value: f32, dtype: DType) -> Result<()> {
    // [low, high) after truncation toward zero; 64-bit types go through i64 in the backend.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    let (low, high): (f64, f64) = match dtype {
        DType::I64 => (-TWO_63, TWO_63),
        DType::U64 => (0.0, TWO_63),
        DType::I32 => (f64::from(i32::MIN), f64::from(i32::MAX) + 1.0),
        DType::I16 => (f64::from(i16::MIN), f64::from(i16::MAX) + 1.0),
        DType::I8 => (f64::from(i8::MIN), f64::from(i8::MAX) + 1.0),
        DType::U32 => (0.0, f64::from(u32::MAX) + 1.0),
        DType::U16 => (0.0, f64::from(u16::MAX) + 1.0),
        DType::U8 => (0.0, f64::from(u8::MAX) + 1.0),
        _ => return Ok(()),
    };
    let truncated = f64::from(value).trunc();
    if truncated.is_finite() && truncated >= low && truncated < high {
        Ok(())
    } else {
        Err(Rule(
            op,
            "the pad constant must be finite and fit the integer dtype",
        )
        .not_representable(value.into(), dtype))
    }
}

/// `chunk(chunks, dim)`: `dim` in `-D..D` and `chunks > 0` (burn divides by zero). Returns the
/// `(start, length)` of each chunk with PyTorch's rule: chunks of `ceil(size / chunks)` until the
/// dimension is used up, so there may be fewer than `chunks` (burn panics in those cases, e.g.
/// size 4 in 3 chunks, because it forces exactly `chunks` pieces).
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`]; [`GuardError::OutOfRange`] for `chunks == 0`.
///
/// ```
/// use burn_guard::check::split::chunk;
/// assert_eq!(chunk("chunk", &[5], 3, 0).unwrap(), vec![(0, 2), (2, 2), (4, 1)]);
/// assert_eq!(chunk("chunk", &[4], 3, 0).unwrap(), vec![(0, 2), (2, 2)]);
/// assert!(chunk("chunk", &[4], 0, 0).is_err());
/// ```
pub fn chunk(
    op: &'static str,
    shape: &[usize],
    chunks: usize,
    dim_arg: isize,
) -> Result<Vec<(usize, usize)>> {
    let index = dim(op, dim_arg, shape.len())?;
    Rule(op, "chunks must be greater than 0").at_least("chunks", chunks, 1)?;
    let size = shape.get(index).copied().unwrap_or(0);
    Ok(pieces(size, size.div_ceil(chunks)))
}

/// Consecutive `(start, length)` pieces of `step` (the last one shorter) covering `0..size`.
fn pieces(size: usize, step: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < size && step > 0 {
        let length = step.min(size - start);
        out.push((start, length));
        start += length;
    }
    out
}

/// `split(split_size, dim)`: `dim` in `-D..D` and `split_size > 0` unless the dim is empty
/// (`TensorCheck::split`). Returns the `(start, length)` pieces.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`]; [`GuardError::OutOfRange`] for a `split_size` of 0.
///
/// ```
/// use burn_guard::check::split::split;
/// assert_eq!(split("split", &[5], 2, 0).unwrap(), vec![(0, 2), (2, 2), (4, 1)]);
/// assert!(split("split", &[5], 0, 0).is_err());
/// ```
pub fn split(
    op: &'static str,
    shape: &[usize],
    split_size: usize,
    dim_arg: isize,
) -> Result<Vec<(usize, usize)>> {
    let index = dim(op, dim_arg, shape.len())?;
    let size = shape.get(index).copied().unwrap_or(0);
    if split_size == 0 && size != 0 {
        return Err(Rule(
            op,
            "split_size must be greater than 0 unless the dimension is empty",
        )
        .out_of_range("split_size", split_size, Limit::AtLeast(1usize.into())));
    }
    Ok(pieces(size, split_size))
}

/// `split_with_sizes(split_sizes, dim)`: `dim` in `-D..D` and the sizes summing to the dim size
/// (`TensorCheck::split_with_sizes`; a sum that overflows is refused too, burn's `sum` panics).
/// Returns the resolved dim.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`]; [`GuardError::InvalidArgument`].
///
/// ```
/// use burn_guard::check::split::split_with_sizes;
/// assert_eq!(split_with_sizes("split_with_sizes", &[5, 2], &[2, 0, 3], 0).unwrap(), 0);
/// assert!(split_with_sizes("split_with_sizes", &[5, 2], &[2, 2], 0).is_err());
/// ```
pub fn split_with_sizes(
    op: &'static str,
    shape: &[usize],
    split_sizes: &[usize],
    dim_arg: isize,
) -> Result<usize> {
    let index = dim(op, dim_arg, shape.len())?;
    let size = shape.get(index).copied().unwrap_or(0);
    let sum = split_sizes
        .iter()
        .try_fold(0usize, |acc, &s| acc.checked_add(s));
    if sum != Some(size) {
        return Err(
            Rule(op, "split sizes must sum to the dimension size").invalid(format!(
                "split_sizes={split_sizes:?}, size={size} (dim {index})"
            )),
        );
    }
    Ok(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::{
        TestResult, assert_refused as refused, at_least, kind_rule as rule, out_of_range,
    };
    use crate::error::{ErrorKind, ScalarValue};

    #[test]
    fn roll_repeat_table() -> TestResult {
        assert!(roll("roll", &[], &[], 2).is_ok());
        refused(
            roll("roll", &[1], &[], 2),
            rule(
                ErrorKind::InvalidArgument,
                "dims and shifts must have the same length",
            ),
        );
        refused(
            roll("roll", &[isize::MAX, 1], &[0, -2], 2),
            rule(
                ErrorKind::InvalidArgument,
                "the shifts of one dim overflow isize when added",
            ),
        );
        refused(roll("roll", &[1], &[2], 2), |e| {
            matches!(e, GuardError::DimOutOfRange { dim: 2, .. })
        });
        assert_eq!(repeat_dim("repeat_dim", &[2, 3], 0, 0)?, vec![0, 3]);
        refused(
            repeat_dim("repeat_dim", &[2, 3], 0, usize::MAX),
            rule(
                ErrorKind::InvalidArgument,
                "the output element count overflows usize",
            ),
        );
        refused(repeat_dim("repeat_dim", &[2, 3], -3, 1), |e| {
            matches!(e, GuardError::DimOutOfRange { dim: -3, .. })
        });
        assert_eq!(repeat("repeat", &[2, 3], &[0])?, vec![0, 3]);
        refused(
            repeat("repeat", &[2, 3], &[0, 1, 1]),
            rule(
                ErrorKind::InvalidArgument,
                "with a 0 size, there must be no more sizes than dimensions",
            ),
        );
        refused(
            repeat("repeat", &[2, 3], &[1, 1, 2]),
            rule(
                ErrorKind::InvalidArgument,
                "sizes past the tensor's rank must be 1",
            ),
        );
        refused(
            repeat("repeat", &[2, 3], &[usize::MAX, 2]),
            rule(
                ErrorKind::InvalidArgument,
                "the output element count overflows usize",
            ),
        );
        Ok(())
    }

    #[test]
    fn pad_table() -> TestResult {
        let pairs = |v: &[(usize, usize)]| PadArg::Pairs(v.to_vec());
        assert_eq!(
            pad(
                "pad",
                &[2, 3],
                &PadArg::Ltrb(1, 2, 3, 4),
                &PadMode::Constant(0.0)
            )?,
            vec![(3, 4), (1, 2)]
        );
        assert!(pad("pad", &[0, 3], &pairs(&[(0, 0), (1, 1)]), &PadMode::Edge).is_ok());
        refused(
            pad("pad", &[2], &pairs(&[(1, 1), (1, 1)]), &PadMode::Edge),
            out_of_range("pairs", 2, Limit::AtMost(1usize.into())),
        );
        refused(
            pad("pad", &[2], &PadArg::Ltrb(1, 1, 0, 0), &PadMode::Edge),
            rule(
                ErrorKind::RankMismatch,
                "the (left, right, top, bottom) form pads the last two dims: it needs rank 2 or more",
            ),
        );
        refused(
            pad("pad", &[0, 3], &pairs(&[(1, 1)]), &PadMode::Reflect),
            out_of_range("padding", 0, Limit::Below(0usize.into())),
        );
        refused(
            pad("pad", &[0, 3], &pairs(&[(1, 0), (1, 1)]), &PadMode::Edge),
            |e| matches!(e, GuardError::Empty { shape, dim: Some(0), .. } if shape == &[0, 3]),
        );
        refused(
            pad(
                "pad",
                &[2, 3],
                &pairs(&[(usize::MAX, 0)]),
                &PadMode::Constant(0.0),
            ),
            rule(
                ErrorKind::InvalidArgument,
                "the output element count overflows usize",
            ),
        );
        assert!(pad_value("pad", 2_147_483_647.0, DType::I64).is_ok());
        assert!(pad_value("pad", -2_147_483_648.0, DType::I32).is_ok());
        refused(
            pad_value("pad", 3e9, DType::I32),
            |e| matches!(e, GuardError::NotRepresentable { value: ScalarValue::Float(v), dtype: DType::I32, .. } if *v == f64::from(3e9f32)),
        );
        refused(
            pad_value("pad", -1.0, DType::U8),
            |e| matches!(e, GuardError::NotRepresentable { value: ScalarValue::Float(v), dtype: DType::U8, .. } if *v == f64::from(-1.0f32)),
        );
        refused(
            pad_value("pad", 9.3e18, DType::I64),
            |e| matches!(e, GuardError::NotRepresentable { value: ScalarValue::Float(v), dtype: DType::I64, .. } if *v == f64::from(9.3e18f32)),
        );
        refused(
            pad_value("pad", f32::INFINITY, DType::I64),
            |e| matches!(e, GuardError::NotRepresentable { value: ScalarValue::Float(v), dtype: DType::I64, .. } if *v == f64::INFINITY),
        );
        Ok(())
    }

    #[test]
    fn chunk_split_table() -> TestResult {
        // Where burn works, the pieces match burn's; (4, 3) is burn's bug.
        assert_eq!(chunk("chunk", &[6], 3, 0)?, vec![(0, 2), (2, 2), (4, 2)]);
        assert_eq!(chunk("chunk", &[2], 3, 0)?, vec![(0, 1), (1, 1)]);
        assert_eq!(chunk("chunk", &[0], 3, 0)?, vec![]);
        assert_eq!(chunk("chunk", &[9], 4, 0)?, vec![(0, 3), (3, 3), (6, 3)]);
        refused(
            chunk("chunk", &[4], 0, 0),
            out_of_range("chunks", 0, at_least(1)),
        );
        refused(chunk("chunk", &[4], 1, 1), |e| {
            matches!(e, GuardError::DimOutOfRange { dim: 1, .. })
        });
        assert_eq!(split("split", &[0], 0, 0)?, vec![]);
        refused(
            split("split", &[3], 0, 0),
            out_of_range("split_size", 0, at_least(1)),
        );
        refused(
            split_with_sizes("split_with_sizes", &[3], &[usize::MAX, 4], 0),
            rule(
                ErrorKind::InvalidArgument,
                "split sizes must sum to the dimension size",
            ),
        );
        Ok(())
    }
}
