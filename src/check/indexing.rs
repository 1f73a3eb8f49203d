//! Checks for the indexing family: slice*, select_dim, select_assign, gather*, scatter*, mask_select*, mask_fill, take, one_hot*, tril/triu and their masks.
//!
//! Pure functions over shapes, dims and scalars; each names the burn check it mirrors.
//! Index *values* are range-checked here too (burn leaves them to the backend): the twins read
//! the index tensor once and pass the values in.

use burn::tensor::{DType, IndexingUpdateOp, Slice};

use super::rule::Rule;
use super::shape::agree_except;
use crate::error::{GuardError, Limit, Result, ScalarValue};

/// The size of `shape` along `dim`, 0 when `dim` is past the end.
fn size_at(shape: &[usize], dim: usize) -> usize {
    shape.get(dim).copied().unwrap_or(0)
}

/// A resolved slice's step is not 0 (burn's `Slice::new` asserts it; a `Slice` built field by
/// field skips that assert, and burn's later arithmetic divides by the step).
///
/// The conversion of a slice argument is burn's and cannot be checked ahead, so it lives in
/// the tensor layer; this rule runs on its result.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] (`step`, [`Limit::NonZero`]).
///
/// ```
/// use burn::tensor::Slice;
/// use burn_guard::check::indexing;
/// assert!(indexing::slice_step("slice_dim", &Slice::new(0, Some(2), -1)).is_ok());
/// assert!(indexing::slice_step("slice_dim", &Slice { start: 0, end: None, step: 0 }).is_err());
/// ```
pub fn slice_step(op: &'static str, slice: &Slice) -> Result<()> {
    if slice.step == 0 {
        return Err(Rule(op, "slice step must not be zero").out_of_range(
            "step",
            slice.step,
            Limit::NonZero,
        ));
    }
    Ok(())
}

/// The shape selected by resolved `slices` (burn's `Slice::output_size` per dimension).
pub fn sliced_shape(shape: &[usize], slices: &[Slice]) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .map(|(i, &size)| slices.get(i).map_or(size, |s| s.output_size(size)))
        .collect()
}

/// What `slice_assign` will do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SliceAssign {
    /// The selection is empty: burn returns the tensor unchanged without looking at `values`.
    Empty,
    /// The selection has this shape, which `values` matches.
    Selected(Vec<usize>),
}

/// `slice_assign`: an empty selection is a no-op; otherwise `values` must have the selected
/// shape (`TensorCheck::slice_assign`; its rank and range-end branches cannot fire after
/// `into_slices`).
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with the selected shape and the values' shape.
///
/// ```
/// use burn::tensor::Slice;
/// use burn_guard::check::indexing::{self, SliceAssign};
/// // `1..3` resolved against `[4, 2]`.
/// let s = [Slice::new(1, Some(3), 1), Slice::new(0, Some(2), 1)];
/// assert_eq!(
///     indexing::slice_assign("slice_assign", &[4, 2], &s, &[2, 2]).unwrap(),
///     SliceAssign::Selected(vec![2, 2])
/// );
/// assert!(indexing::slice_assign("slice_assign", &[4, 2], &s, &[3, 2]).is_err());
/// ```
pub fn slice_assign(
    op: &'static str,
    shape: &[usize],
    slices: &[Slice],
    values_shape: &[usize],
) -> Result<SliceAssign> {
    let selected = sliced_shape(shape, slices);
    if selected.contains(&0) {
        return Ok(SliceAssign::Empty);
    }
    Rule(op, "values must have the shape of the selected slice")
        .shapes_agree(selected == values_shape, &[&selected, values_shape])?;
    Ok(SliceAssign::Selected(selected))
}

/// `select_dim::<D2>(dim, index)`: `D2 == D - 1` and `D2 >= 1` (burn's `squeeze_dim` copies
/// dims into a `[usize; D2]` and refuses rank 0), and `index ∈ [-size, size)` (burn clamps an
/// out-of-range index to an empty slice, then fails to squeeze it). `dim` must already be
/// resolved.
///
/// # Errors
///
/// [`GuardError::RankMismatch`] for `D2`; [`GuardError::IndexOutOfRange`] for `index`.
///
/// ```
/// use burn_guard::check::indexing;
/// assert!(indexing::select_dim("select_dim", &[2, 3], 1, -3, 1).is_ok());
/// assert!(indexing::select_dim("select_dim", &[2, 3], 1, 3, 1).is_err());
/// assert!(indexing::select_dim("select_dim", &[2, 3], 1, 0, 2).is_err());
/// ```
pub fn select_dim(
    op: &'static str,
    shape: &[usize],
    dim: usize,
    index: isize,
    rank_out: usize,
) -> Result<()> {
    let rank = shape.len();
    if rank_out == 0 || rank_out.checked_add(1) != Some(rank) {
        return Err(Rule(op, "select_dim removes one dimension: the output rank must be the input rank - 1 and at least 1").rank_mismatch(rank.saturating_sub(1), rank_out, shape));
    }
    let size = size_at(shape, dim);
    let signed = isize::try_from(size).unwrap_or(isize::MAX);
    if index >= signed || index < -signed {
        return Err(GuardError::IndexOutOfRange {
            op,
            index: i64::try_from(index).unwrap_or(i64::MAX),
            size,
            dim,
        });
    }
    Ok(())
}

/// `gather(dim, indices)`: the indices' shape equals the tensor's on every dim but `dim`
/// (`TensorCheck::gather`). `dim` must already be resolved.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
///
/// ```
/// use burn_guard::check::indexing;
/// assert!(indexing::gather("gather", 1, &[2, 3], &[2, 5]).is_ok());
/// assert!(indexing::gather("gather", 1, &[2, 3], &[3, 3]).is_err());
/// ```
pub fn gather(op: &'static str, dim: usize, shape: &[usize], indices: &[usize]) -> Result<()> {
    let agrees = agree_except(shape, indices, dim);
    Rule(
        op,
        "indices must have the tensor's shape except along the indexed dimension",
    )
    .shapes_agree(agrees, &[shape, indices])
}

/// `scatter(dim, indices, values)`: as [`gather`], and the values' shape equals the indices'
/// (`TensorCheck::scatter`).
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`].
pub fn scatter(
    op: &'static str,
    dim: usize,
    shape: &[usize],
    indices: &[usize],
    values: &[usize],
) -> Result<()> {
    gather(op, dim, shape, indices)?;
    Rule(op, "values must have the shape of the indices").same_shape(indices, values)
}

/// Bool tensors support only [`IndexingUpdateOp::Add`] (logical or) in `select_assign` and
/// `scatter`: burn's bool bridge hits `unimplemented!()` for any other update.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the update.
pub fn bool_update(op: &'static str, dtype: &DType, update: &IndexingUpdateOp) -> Result<()> {
    if matches!(dtype, DType::Bool(_)) && !matches!(update, IndexingUpdateOp::Add) {
        return Err(
            Rule(op, "bool tensors only support the add (logical or) update")
                .invalid(format!("update={update:?}")),
        );
    }
    Ok(())
}

/// `select_assign(dim, indices, values)`: `values.shape[dim] == indices.len()`
/// (`TensorCheck::select_assign`) and — beyond burn, which leaves it to the backend — every
/// other dim of `values` equal to the tensor's. `dim` must already be resolved.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with the tensor's shape and the values' shape.
///
/// ```
/// use burn_guard::check::indexing;
/// assert!(indexing::select_assign("select_assign", 0, &[4, 2], 3, &[3, 2]).is_ok());
/// assert!(indexing::select_assign("select_assign", 0, &[4, 2], 2, &[3, 2]).is_err());
/// assert!(indexing::select_assign("select_assign", 0, &[4, 2], 3, &[3, 5]).is_err());
/// ```
pub fn select_assign(
    op: &'static str,
    dim: usize,
    shape: &[usize],
    indices_len: usize,
    values: &[usize],
) -> Result<()> {
    if size_at(values, dim) != indices_len {
        return Err(Rule(
            op,
            "values must have as many entries along the dimension as there are indices",
        )
        .shape_mismatch(&[&[indices_len], values]));
    }
    gather(op, dim, shape, values).map_err(|_| {
        Rule(
            op,
            "values must have the tensor's shape except along the indexed dimension",
        )
        .shape_mismatch(&[shape, values])
    })
}

/// `mask_select(mask)`: the mask has exactly the tensor's shape, no broadcasting
/// (`TensorCheck::mask_select`).
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
pub fn mask_select(op: &'static str, shape: &[usize], mask: &[usize]) -> Result<()> {
    Rule(op, "the mask must have the tensor's shape").shapes_agree(shape == mask, &[shape, mask])
}

/// `mask_fill(mask, value)`: burn does not check the mask; the backends broadcast the tensor
/// and the mask against each other, so we require the two shapes to broadcast (each dim equal
/// or 1 on one side). Returns the result's shape.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
///
/// ```
/// use burn_guard::check::indexing;
/// assert_eq!(indexing::mask_fill("mask_fill", &[2, 3], &[1, 3]).unwrap(), vec![2, 3]);
/// assert!(indexing::mask_fill("mask_fill", &[2, 3], &[2, 2]).is_err());
/// ```
pub fn mask_fill(op: &'static str, shape: &[usize], mask: &[usize]) -> Result<Vec<usize>> {
    crate::check::broadcast(op, shape, mask).map_err(|_| {
        Rule(op, "the mask and the tensor must broadcast").shape_mismatch(&[shape, mask])
    })
}

/// A fill value (`mask_fill`, `one_hot_fill`) as burn's `Scalar::new` converts it to the
/// tensor's dtype: NaN, ±inf or a value beyond `i64`/`u64` make it panic for an integer dtype.
/// Values that fit the scalar but not a narrower dtype (`3e9` for `I32`) pass, as in burn.
/// `value` is the caller's value widened by its family; returns the scalar burn will use.
///
/// # Errors
///
/// [`GuardError::NotRepresentable`] with the value and the dtype.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::elementwise::ScalarValue;
/// use burn_guard::check::indexing;
/// assert_eq!(
///     indexing::fill_value("mask_fill", ScalarValue::Float(2.0), &DType::I64).unwrap(),
///     ScalarValue::Int(2)
/// );
/// assert!(indexing::fill_value("mask_fill", ScalarValue::Float(f64::NAN), &DType::I64).is_err());
/// ```
pub fn fill_value(op: &'static str, value: ScalarValue, dtype: &DType) -> Result<ScalarValue> {
    crate::check::elementwise::scalar_family(op, value, dtype)
}

/// A fill value (`slice_fill`) as burn converts it into the tensor's dtype (through
/// `TensorData::convert_dtype`): NaN, ±inf, or a value out of range for an integer dtype
/// (`3e9` for `I32`) make it panic. `value` is the caller's value widened by its family.
///
/// # Errors
///
/// [`GuardError::NotRepresentable`] with the value and the dtype.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::elementwise::ScalarValue;
/// use burn_guard::check::indexing;
/// assert!(indexing::fill_element("slice_fill", ScalarValue::Float(2.0), &DType::I32).is_ok());
/// assert!(indexing::fill_element("slice_fill", ScalarValue::Float(3e9), &DType::I32).is_err());
/// ```
pub fn fill_element(op: &'static str, value: ScalarValue, dtype: &DType) -> Result<()> {
    crate::check::creation::value_fits(op, value, *dtype)
}

/// Refuses a quantized tensor (`TensorCheck::quantized_unsupported`, and the paths that panic
/// with "Expected float dtype" on one).
///
/// # Errors
///
/// [`GuardError::InvalidDType`] with the dtype.
pub fn not_quantized(op: &'static str, dtype: &DType) -> Result<()> {
    super::creation::not_quantized(op, *dtype)
}

/// `triu`/`tril`: rank at least 2 (`TensorCheck::tri`).
///
/// # Errors
///
/// [`GuardError::RankMismatch`].
pub fn tri(op: &'static str, shape: &[usize]) -> Result<()> {
    Rule(op, "needs a tensor of rank 2 or more").rank_at_least(shape, 2)
}

/// `triu_mask`/`tril_mask`/`diag_mask::<D>(shape, ..)`: `D >= 2` and `shape` has at least `D`
/// dims (burn reads `shape[D-2]` and `shape[D-1]`; further dims are ignored). Returns the mask's
/// shape, `[1, …, 1, shape[D-2], shape[D-1]]` of rank `D`.
///
/// # Errors
///
/// [`GuardError::RankMismatch`].
///
/// ```
/// use burn_guard::check::indexing;
/// assert_eq!(indexing::tri_mask("triu_mask", &[2, 3, 4], 3).unwrap(), vec![1, 3, 4]);
/// assert!(indexing::tri_mask("triu_mask", &[3], 2).is_err());
/// ```
pub fn tri_mask(op: &'static str, shape: &[usize], rank: usize) -> Result<Vec<usize>> {
    if rank < 2 {
        return Err(Rule(op, "the mask's rank must be 2 or more").rank_mismatch(2, rank, shape));
    }
    Rule(
        op,
        "the shape must have at least as many dimensions as the mask",
    )
    .rank_at_least(shape, rank)?;
    let mut out = vec![1; rank - 2];
    out.push(size_at(shape, rank - 2));
    out.push(size_at(shape, rank - 1));
    Ok(out)
}

/// Shared head of `gather_nd`/`scatter_nd` (`TensorCheck::gather_nd`): `M >= 1`, non-empty
/// indices, `K = indices[M-1] <= D`, `DV == M - 1 + D - K`. Returns `K`.
fn nd_head(op: &'static str, rank: usize, indices: &[usize], rank_values: usize) -> Result<usize> {
    let Some(&k) = indices.last() else {
        return Err(Rule(op, "the indices must have rank 1 or more").rank_mismatch(1, 0, indices));
    };
    Rule(op, "the indices must not be empty").nonempty(indices)?;
    Rule(
        op,
        "the last dimension of the indices (k) must not exceed the data rank",
    )
    .at_most("k", k, rank)?;
    let expected = indices.len() - 1 + (rank - k);
    Rule(
        op,
        "the output/values rank must be indices rank - 1 + data rank - k",
    )
    .expect_rank(expected, rank_values, indices)?;
    Ok(k)
}

/// `gather_nd::<M, DV>(indices)` (`TensorCheck::gather_nd`). Returns `K`, the length of each
/// index tuple.
///
/// # Errors
///
/// [`GuardError::RankMismatch`], [`GuardError::Empty`] for empty indices,
/// [`GuardError::OutOfRange`] for `K` above the data rank.
///
/// ```
/// use burn_guard::check::indexing;
/// assert_eq!(indexing::gather_nd("gather_nd", &[3, 4], &[5, 2], 1).unwrap(), 2);
/// assert!(indexing::gather_nd("gather_nd", &[3, 4], &[5, 3], 1).is_err());
/// ```
pub fn gather_nd(
    op: &'static str,
    shape: &[usize],
    indices: &[usize],
    rank_out: usize,
) -> Result<usize> {
    nd_head(op, shape.len(), indices, rank_out)
}

/// `scatter_nd::<M, DV>(indices, values)` (`TensorCheck::scatter_nd`): as [`gather_nd`], and
/// `values.shape == indices.shape[..M-1] ++ data.shape[K..]`. Returns `K`.
///
/// # Errors
///
/// As [`gather_nd`], and [`GuardError::ShapeMismatch`] for the values.
pub fn scatter_nd(
    op: &'static str,
    shape: &[usize],
    indices: &[usize],
    values: &[usize],
) -> Result<usize> {
    let k = nd_head(op, shape.len(), indices, values.len())?;
    let batch = indices.split_last().map_or(&[][..], |(_, batch)| batch);
    let expected: Vec<usize> = batch.iter().chain(shape.iter().skip(k)).copied().collect();
    Rule(
        op,
        "values must have shape indices[..m-1] followed by data[k..]",
    )
    .shapes_agree(expected == values, &[&expected, values])?;
    Ok(k)
}

/// Every `k`-tuple of `indices` (flattened, row-major) addresses `shape[..k]`: each entry in
/// `0..shape[j]` (burn leaves this to the backend).
///
/// # Errors
///
/// [`GuardError::IndexOutOfRange`] naming the first bad entry.
pub fn nd_indices(op: &'static str, indices: &[i64], k: usize, shape: &[usize]) -> Result<()> {
    if k == 0 {
        return Ok(());
    }
    for tuple in indices.chunks(k) {
        for (dim, (&index, &size)) in tuple.iter().zip(shape).enumerate() {
            crate::check::indices(op, &[index], size, dim)?;
        }
    }
    Ok(())
}

/// `take::<DI, DO>(dim, indices)`: `DO == D + DI - 1` (`TensorCheck::take`). `dim` must
/// already be resolved. Returns the output shape, `shape[..dim] ++ indices ++ shape[dim+1..]`.
///
/// # Errors
///
/// [`GuardError::RankMismatch`].
///
/// ```
/// use burn_guard::check::indexing;
/// assert_eq!(indexing::take("take", &[3, 4], 1, &[2, 5], 3).unwrap(), vec![3, 2, 5]);
/// assert!(indexing::take("take", &[3, 4], 1, &[2, 5], 2).is_err());
/// ```
pub fn take(
    op: &'static str,
    shape: &[usize],
    dim: usize,
    indices: &[usize],
    rank_out: usize,
) -> Result<Vec<usize>> {
    let expected = (shape.len() + indices.len()).saturating_sub(1);
    Rule(
        op,
        "the output rank must be the tensor rank + the indices rank - 1",
    )
    .expect_rank(expected, rank_out, shape)?;
    Ok(shape
        .iter()
        .take(dim)
        .chain(indices)
        .chain(shape.iter().skip(dim + 1))
        .copied()
        .collect())
}

/// `gather_nd`/`scatter_nd` on bool tensors: burn's bool bridge panics ("not supported for
/// bool tensors").
///
/// # Errors
///
/// [`GuardError::InvalidDType`] with the dtype.
pub fn not_bool(op: &'static str, dtype: &DType) -> Result<()> {
    let bool_dtype = matches!(dtype, DType::Bool(_));
    Rule(op, "bool tensors are not supported").dtype_allowed(!bool_dtype, *dtype)
}

/// `one_hot_fill::<D2>`: `D2 == D + 1` (`TensorCheck::one_hot_tensor_rank`).
///
/// # Errors
///
/// [`GuardError::RankMismatch`].
pub fn one_hot_rank(op: &'static str, shape: &[usize], rank_out: usize) -> Result<()> {
    Rule(op, "the one-hot rank must be the tensor rank + 1").expect_rank(
        shape.len() + 1,
        rank_out,
        shape,
    )
}

/// `one_hot(num_classes)`: `num_classes >= 2` (`TensorCheck::one_hot_tensor`), and — since
/// burn compares the values with `num_classes as i32`, which wraps — `num_classes <= i32::MAX`.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] with `num_classes` and the bound it broke.
pub fn one_hot_classes(op: &'static str, num_classes: usize) -> Result<()> {
    let (rule, limit) = if num_classes <= 1 {
        ("needs at least 2 classes", Limit::AtLeast(2usize.into()))
    } else if i32::try_from(num_classes).is_err() {
        // burn compares the values with `num_classes as i32`, which wraps.
        (
            "num_classes must fit in an i32",
            Limit::AtMost(i32::MAX.into()),
        )
    } else {
        return Ok(());
    };
    Err(Rule(op, rule).out_of_range("num_classes", num_classes, limit))
}

/// The class values of a one-hot input: `values` as burn compares them (`f64`) and `truncated`
/// as it converts them (`i64`). Every value finite (burn's conversion to `i64` panics on a
/// non-finite one); burn refuses `value >= num_classes` (for `one_hot` only); a negative value
/// `v` addresses class `num_classes + trunc(v)`; every resulting class must be in
/// `0..num_classes` (burn leaves that to the backend).
///
/// # Errors
///
/// [`GuardError::NonFinite`] with the count of NaN and ±inf; [`GuardError::IndexOutOfRange`]
/// naming the first bad value (truncated).
pub fn one_hot_values(
    op: &'static str,
    values: &[f64],
    truncated: &[i64],
    num_classes: usize,
    axis: usize,
) -> Result<()> {
    Rule(op, "class values must be finite numbers").finite(values)?;
    let classes = i64::try_from(num_classes).unwrap_or(i64::MAX);
    for (&value, &index) in values.iter().zip(truncated) {
        let class = if value < 0.0 {
            index.checked_add(classes)
        } else {
            Some(index)
        };
        if value.is_nan() || class.is_none_or(|c| c < 0 || c >= classes) {
            return Err(GuardError::IndexOutOfRange {
                op,
                index,
                size: num_classes,
                dim: axis,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::TestResult;
    use crate::error::ErrorKind;

    use super::super::test_support::{bound, ranks, refused, shape_rule};
    use crate::error::Limit::{AtLeast, AtMost};
    use crate::error::ScalarValue::{Int, UInt};

    #[test]
    fn slice_step_table() -> TestResult {
        assert!(slice_step("slice_dim", &Slice::new(3, None, -2)).is_ok());
        let err = refused(
            "slice_step",
            slice_step(
                "slice_dim",
                &Slice {
                    start: 0,
                    end: None,
                    step: 0,
                },
            ),
        )?;
        assert!(matches!(
            err,
            GuardError::OutOfRange {
                op: "slice_dim",
                name: "step",
                value: ScalarValue::Int(0),
                limit: Limit::NonZero,
                ..
            }
        ));
        Ok(())
    }

    #[test]
    fn slice_assign_table() -> TestResult {
        let s = [Slice::new(1, Some(3), 1), Slice::new(0, Some(2), 1)];
        assert_eq!(
            slice_assign("slice_assign", &[4, 2], &s, &[2, 2])?,
            SliceAssign::Selected(vec![2, 2])
        );
        let empty = [Slice::new(2, Some(2), 1), Slice::new(0, Some(2), 1)];
        assert_eq!(
            slice_assign("slice_assign", &[4, 2], &empty, &[9, 9])?,
            SliceAssign::Empty
        );
        let err = refused(
            "slice_assign",
            slice_assign("slice_assign", &[4, 2], &s, &[3, 2]),
        )?;
        assert_eq!(
            shape_rule(&err, &[&[2, 2], &[3, 2]]),
            Some("values must have the shape of the selected slice")
        );
        Ok(())
    }

    #[test]
    fn select_dim_table() -> TestResult {
        assert!(select_dim("select_dim", &[2, 3], 1, 2, 1).is_ok());
        assert!(select_dim("select_dim", &[2, 3], 1, -3, 1).is_ok());
        let err = refused("select_dim", select_dim("select_dim", &[2, 3], 1, -4, 1))?;
        assert!(matches!(
            err,
            GuardError::IndexOutOfRange {
                index: -4,
                size: 3,
                dim: 1,
                ..
            }
        ));
        let err = refused("select_dim", select_dim("select_dim", &[3], 0, 0, 0))?;
        assert_eq!(ranks(&err), Some((0, 0)));
        Ok(())
    }

    #[test]
    fn gather_scatter_table() -> TestResult {
        assert!(gather("gather", 0, &[2, 3], &[7, 3]).is_ok());
        let err = refused("gather", gather("gather", 0, &[2, 3], &[2, 2]))?;
        assert_eq!(
            shape_rule(&err, &[&[2, 3], &[2, 2]]),
            Some("indices must have the tensor's shape except along the indexed dimension")
        );
        let err = refused("scatter", scatter("scatter", 0, &[2, 3], &[1, 3], &[2, 3]))?;
        assert_eq!(
            shape_rule(&err, &[&[1, 3], &[2, 3]]),
            Some("values must have the shape of the indices")
        );
        let err = refused(
            "bool_update",
            bool_update(
                "scatter",
                &DType::Bool(burn::tensor::BoolStore::Native),
                &IndexingUpdateOp::Assign,
            ),
        )?;
        assert!(matches!(
            &err,
            GuardError::InvalidArgument { op: "scatter", got, .. } if got == "update=Assign"
        ));
        assert!(bool_update("scatter", &DType::F32, &IndexingUpdateOp::Assign).is_ok());
        Ok(())
    }

    #[test]
    fn select_assign_and_masks() -> TestResult {
        let err = refused(
            "select_assign",
            select_assign("select_assign", 0, &[4, 2], 2, &[3, 2]),
        )?;
        assert_eq!(
            shape_rule(&err, &[&[2], &[3, 2]]),
            Some("values must have as many entries along the dimension as there are indices")
        );
        let err = refused(
            "select_assign",
            select_assign("select_assign", 0, &[4, 2], 3, &[3, 5]),
        )?;
        assert_eq!(
            shape_rule(&err, &[&[4, 2], &[3, 5]]),
            Some("values must have the tensor's shape except along the indexed dimension")
        );
        let err = refused("mask_select", mask_select("mask_select", &[2, 3], &[1, 3]))?;
        assert_eq!(
            shape_rule(&err, &[&[2, 3], &[1, 3]]),
            Some("the mask must have the tensor's shape")
        );
        let err = refused("mask_fill", mask_fill("mask_fill", &[2, 3], &[2, 2]))?;
        assert_eq!(
            shape_rule(&err, &[&[2, 3], &[2, 2]]),
            Some("the mask and the tensor must broadcast")
        );
        let inf = ScalarValue::Float(f64::INFINITY);
        let err = refused("fill_value", fill_value("mask_fill", inf, &DType::I32))?;
        assert!(matches!(
            err,
            GuardError::NotRepresentable { value, dtype: DType::I32, .. } if value == inf
        ));
        let nan = ScalarValue::Float(f64::NAN);
        assert!(fill_value("mask_fill", nan, &DType::F32).is_ok());
        // burn's `Scalar::new` keeps 3e9 for an I32 tensor; `convert_dtype` does not.
        let big = ScalarValue::Float(3e9);
        assert_eq!(
            fill_value("mask_fill", big, &DType::I32)?,
            ScalarValue::Int(3_000_000_000)
        );
        let err = refused("fill_element", fill_element("slice_fill", big, &DType::I32))?;
        assert!(matches!(
            err,
            GuardError::NotRepresentable { value, dtype: DType::I32, .. } if value == big
        ));
        assert!(fill_element("slice_fill", ScalarValue::Float(-2.5), &DType::I8).is_ok());
        assert!(fill_element("slice_fill", ScalarValue::Int(-1), &DType::U8).is_err());
        assert!(fill_element("slice_fill", nan, &DType::F16).is_ok());
        Ok(())
    }

    #[test]
    fn tri_table() -> TestResult {
        let err = refused("tri", tri("triu", &[3]))?;
        assert_eq!(ranks(&err), Some((2, 1)));
        assert_eq!(tri_mask("tril_mask", &[3, 4], 2)?, vec![3, 4]);
        let err = refused("tri_mask", tri_mask("tril_mask", &[3, 4], 3))?;
        assert_eq!(ranks(&err), Some((3, 2)));
        let err = refused("tri_mask", tri_mask("tril_mask", &[3], 1))?;
        assert_eq!(ranks(&err), Some((2, 1)));
        Ok(())
    }

    #[test]
    fn nd_table() -> TestResult {
        assert_eq!(gather_nd("gather_nd", &[3, 4], &[5, 1], 2)?, 1);
        let err = refused("gather_nd", gather_nd("gather_nd", &[3, 4], &[], 2))?;
        assert_eq!(ranks(&err), Some((1, 0)));
        let err = refused("gather_nd", gather_nd("gather_nd", &[3, 4], &[0, 2], 1))?;
        assert!(matches!(&err, GuardError::Empty { shape, .. } if shape == &[0, 2]));
        let err = refused("gather_nd", gather_nd("gather_nd", &[3, 4], &[5, 3], 1))?;
        assert_eq!(bound(&err), Some(("k", UInt(3), AtMost(UInt(2)))));
        let err = refused("gather_nd", gather_nd("gather_nd", &[3, 4], &[5, 2], 2))?;
        assert_eq!(ranks(&err), Some((1, 2)));
        assert_eq!(scatter_nd("scatter_nd", &[3, 4], &[5, 1], &[5, 4])?, 1);
        let err = refused(
            "scatter_nd",
            scatter_nd("scatter_nd", &[3, 4], &[5, 1], &[5, 3]),
        )?;
        assert_eq!(
            shape_rule(&err, &[&[5, 4], &[5, 3]]),
            Some("values must have shape indices[..m-1] followed by data[k..]")
        );
        assert!(nd_indices("gather_nd", &[0, 3, 2, 1], 2, &[3, 4]).is_ok());
        let err = refused("nd_indices", nd_indices("gather_nd", &[0, 4], 2, &[3, 4]))?;
        assert!(matches!(
            err,
            GuardError::IndexOutOfRange {
                index: 4,
                dim: 1,
                ..
            }
        ));
        let err = refused(
            "not_bool",
            not_bool("gather_nd", &DType::Bool(burn::tensor::BoolStore::Native)),
        )?;
        assert_eq!(err.kind(), ErrorKind::InvalidDType);
        Ok(())
    }

    #[test]
    fn take_and_one_hot() -> TestResult {
        assert_eq!(take("take", &[3, 4], 0, &[2, 2], 3)?, vec![2, 2, 4]);
        let err = refused("take", take("take", &[3, 4], 0, &[2, 2], 2))?;
        assert_eq!(ranks(&err), Some((3, 2)));
        let err = refused("one_hot_rank", one_hot_rank("one_hot", &[3], 3))?;
        assert_eq!(ranks(&err), Some((2, 3)));
        let err = refused("one_hot_classes", one_hot_classes("one_hot", 1))?;
        assert_eq!(
            bound(&err),
            Some(("num_classes", UInt(1), AtLeast(UInt(2))))
        );
        let err = refused("one_hot_classes", one_hot_classes("one_hot", 1 << 40))?;
        assert_eq!(
            bound(&err),
            Some((
                "num_classes",
                UInt(1_099_511_627_776),
                AtMost(Int(2_147_483_647))
            ))
        );
        assert!(one_hot_values("one_hot", &[-3.0, 2.0], &[-3, 2], 3, 1).is_ok());
        let err = refused(
            "one_hot_values",
            one_hot_values("one_hot", &[-4.0], &[-4], 3, 1),
        )?;
        assert!(matches!(err, GuardError::IndexOutOfRange { index: -4, .. }));
        assert!(one_hot_values("one_hot", &[3.0], &[3], 3, 1).is_err());
        assert!(one_hot_values("one_hot", &[-0.5], &[0], 3, 1).is_err());
        assert!(not_quantized("one_hot", &DType::F32).is_ok());
        let err = refused(
            "not_quantized",
            not_quantized("one_hot", &DType::QFloat(Default::default())),
        )?;
        assert_eq!(err.kind(), ErrorKind::InvalidDType);
        Ok(())
    }
}
