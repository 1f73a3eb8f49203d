//! Checks for the reshape/permute family: reshape, permute, movedim, flip, flatten, squeeze*,
//! unsqueeze*, expand, unfold: one tensor's elements seen in another layout. The split family
//! (chunk, split*, roll*, repeat*, pad) is checked in [`split`](super::split), the grid
//! functions (meshgrid*) in [`grid`](super::grid); their checks keep their paths here too.
//!
//! Pure functions over shapes, dims and scalars; each names the burn check it mirrors. Each
//! returns what it proved (canonical dims, the output shape) so the twin never recomputes it.
//!
//! Dims arrive as `isize`, as burn's `AsIndex::as_index` gives them, and are resolved with
//! [`check::dim`](crate::check::dim) (burn's negative-dim wrapping).

use super::rule::Rule;
use super::shape::{count_overflows, dim, element_count};
use crate::error::{GuardError, Limit, Result};

// The split family's and the grid functions' checks, at the paths they had here.
pub use super::grid::{meshgrid, meshgrid_stack};
pub use super::split::{
    PadArg, chunk, pad, pad_value, repeat, repeat_dim, roll, split, split_with_sizes,
};

/// A target shape as the caller gave it: burn's `[I; D2]` array form (entries may be `-1` or
/// `0`) or a `Shape`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShapeArg {
    /// An array of entries, read with `AsIndex::as_index`.
    Entries(Vec<isize>),
    /// A `burn::tensor::Shape`, whose rank is not tied to the output rank by the type system.
    Shape(Vec<usize>),
}

/// Resolves every dim of `dims` against `rank`, in order (burn unwraps them one by one).
fn resolve_all(op: &'static str, dims: &[isize], rank: usize) -> Result<Vec<usize>> {
    dims.iter().map(|&d| dim(op, d, rank)).collect()
}

/// The indices of `shape`'s dims of size 1: what a squeeze with no dims removes.
pub(crate) fn unit_dims(shape: &[usize]) -> Vec<usize> {
    let units = shape.iter().enumerate().filter(|&(_, &d)| d == 1);
    units.map(|(i, _)| i).collect()
}

/// `shape` without the dims at `indices`.
pub(crate) fn without_dims(shape: &[usize], indices: &[usize]) -> Vec<usize> {
    let kept = shape
        .iter()
        .enumerate()
        .filter(|(i, _)| !indices.contains(i));
    kept.map(|(_, &d)| d).collect()
}

/// The first value that appears twice in `dims`, if any.
fn first_duplicate(dims: &[usize]) -> Option<usize> {
    dims.iter()
        .enumerate()
        .find(|&(i, d)| dims.iter().skip(i + 1).any(|e| e == d))
        .map(|(_, &d)| d)
}

/// `reshape(shape)`: mirrors cubecl-zspace `Shape::reshape` (through burn's
/// `unwrap_shape_reshape`). Entries are positive, `0` (keep the source dimension at the same
/// index) or a single `-1` (inferred); the element count must be preserved. Returns the output
/// shape.
///
/// Beyond burn, it refuses a `Shape` argument whose rank is not `rank_out` (burn accepts it and
/// returns a tensor whose rank no longer matches its type, so that a later `dims()` panics), and a
/// `-1` next to entries that multiply to 0 (burn divides by zero).
///
/// # Errors
///
/// - [`GuardError::RankMismatch`] for a `Shape` of the wrong rank.
/// - [`GuardError::InvalidArgument`] for a bad entry, a second `-1`, a `0` entry past the source
///   rank, an uninferable `-1` or an element count that overflows.
/// - [`GuardError::ShapeMismatch`] when the element counts differ.
///
/// ```
/// use burn_guard::check::view::{ShapeArg, reshape};
/// assert_eq!(reshape("reshape", &[2, 3, 4], &ShapeArg::Entries(vec![2, -1]), 2).unwrap(), vec![2, 12]);
/// assert!(reshape("reshape", &[2, 3], &ShapeArg::Entries(vec![4, 2]), 2).is_err());
/// ```
pub fn reshape(
    op: &'static str,
    source: &[usize],
    shape: &ShapeArg,
    rank_out: usize,
) -> Result<Vec<usize>> {
    let converted: Vec<isize>;
    let entries: &[isize] =
        match shape {
            ShapeArg::Entries(entries) => entries,
            ShapeArg::Shape(dims) => {
                if dims.len() != rank_out {
                    return Err(Rule(op, "a shape argument must have the output rank")
                        .rank_mismatch(rank_out, dims.len(), dims));
                }
                // `AsIndex for usize` is `as isize`: huge sizes turn negative.
                converted = dims
                    .iter()
                    .map(|&d| isize::try_from(d).unwrap_or(-2))
                    .collect();
                &converted
            }
        };
    let mut dims = vec![0; entries.len()];
    reshape_into(op, source, entries, &mut dims)?;
    Ok(dims)
}

/// [`reshape`] for an array argument, into `out` (one slot per entry; a shorter `out` leaves
/// the extra entries unchecked): the twin's path, which allocates nothing.
///
/// # Errors
///
/// As [`reshape`], but for the `Shape`'s rank.
///
/// ```
/// use burn_guard::check::view::reshape_into;
/// let mut out = [0; 2];
/// reshape_into("reshape", &[2, 3, 4], &[2, -1], &mut out).unwrap();
/// assert_eq!(out, [2, 12]);
/// ```
pub fn reshape_into(
    op: &'static str,
    source: &[usize],
    entries: &[isize],
    out: &mut [usize],
) -> Result<()> {
    let invalid = |rule| Rule(op, rule).invalid(format!("shape={entries:?}, source={source:?}"));
    let mut infer = None;
    let mut new_size = 1usize;
    for (idx, (&entry, slot)) in entries.iter().zip(out.iter_mut()).enumerate() {
        *slot = match entry {
            s if s > 0 => s.unsigned_abs(),
            0 => *source.get(idx).ok_or_else(|| {
                invalid("a 0 entry keeps the source dimension at the same index, which must exist")
            })?,
            -1 if infer.is_some() => return Err(invalid("at most one entry may be -1")),
            -1 => {
                infer = Some(idx);
                1
            }
            _ => return Err(invalid("entries must be positive, 0 (keep) or -1 (infer)")),
        };
        new_size = new_size
            .checked_mul(*slot)
            .ok_or_else(|| invalid("the target element count overflows usize"))?;
    }
    let source_size = element_count(source).ok_or_else(|| count_overflows(op, source))?;
    match infer {
        None if source_size != new_size => Err(Rule(
            op,
            "the target shape must have as many elements as the tensor",
        )
        .shape_mismatch(&[source, out])),
        None => Ok(()),
        Some(_) if new_size == 0 => Err(invalid(
            "cannot infer a -1 entry when the other entries multiply to 0",
        )),
        Some(_) if source_size % new_size != 0 => Err(invalid(
            "cannot infer a -1 entry: the element count is not a multiple of the other entries",
        )),
        Some(idx) => {
            if let Some(slot) = out.get_mut(idx) {
                *slot = source_size / new_size;
            }
            Ok(())
        }
    }
}

/// `permute(axes)`: every axis in `-D..D` (`unwrap_dim_index`) and, after wrapping, no axis twice
/// (`TensorCheck::permute`). Returns the resolved axes.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`] for a bad axis; [`GuardError::InvalidArgument`] for a repeated
/// one.
///
/// ```
/// use burn_guard::check::view::permute;
/// assert_eq!(permute("permute", &[-1, 0], 2).unwrap(), vec![1, 0]);
/// assert!(permute("permute", &[1, -1], 2).is_err());
/// ```
pub fn permute(op: &'static str, axes: &[isize], rank: usize) -> Result<Vec<usize>> {
    let resolved = resolve_all(op, axes, rank)?;
    if let Some(axis) = first_duplicate(&resolved) {
        return Err(
            Rule(op, "axes must be unique").invalid(format!("axes={axes:?} (axis {axis} twice)"))
        );
    }
    Ok(resolved)
}

/// `flip(axes)`: every axis in `-D..D` and unique after wrapping (`TensorCheck::flip`). Returns
/// the resolved axes.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`] for a bad axis; [`GuardError::InvalidArgument`] for a repeated
/// one (`1` and `1 - D` are the same axis).
///
/// ```
/// use burn_guard::check::view::flip;
/// assert_eq!(flip("flip", &[0, -1], 3).unwrap(), vec![0, 2]);
/// assert!(flip("flip", &[2, -1], 3).is_err());
/// ```
pub fn flip(op: &'static str, axes: &[isize], rank: usize) -> Result<Vec<usize>> {
    permute(op, axes, rank)
}

/// One side of `movedim`: each dim in `-D..D`, and for a `Vec` argument no dim twice
/// (`MovedimArgs::into_dim_vec`, `TensorCheck::movedim_args_vec`).
fn movedim_side(op: &'static str, dims: &[isize], is_vec: bool, rank: usize) -> Result<Vec<usize>> {
    let resolved = resolve_all(op, dims, rank)?;
    if is_vec && let Some(d) = first_duplicate(&resolved) {
        return Err(Rule(op, "source and destination dims must be unique")
            .invalid(format!("dims={dims:?} (dim {d} twice)")));
    }
    Ok(resolved)
}

/// `movedim(src, dst)`: both sides resolved and free of duplicates, then of equal length
/// (`TensorCheck::movedim_args_vec`, `movedim_args_length`). `*_is_vec` says whether the side
/// was a `Vec` (a single dim cannot repeat). Returns the resolved `(src, dst)`.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`]; [`GuardError::InvalidArgument`] for duplicates or unequal
/// lengths.
///
/// ```
/// use burn_guard::check::view::movedim;
/// assert_eq!(movedim("movedim", &[0], false, &[-1], false, 3).unwrap(), (vec![0], vec![2]));
/// assert!(movedim("movedim", &[0, 1], true, &[2], true, 3).is_err());
/// ```
pub fn movedim(
    op: &'static str,
    src: &[isize],
    src_is_vec: bool,
    dst: &[isize],
    dst_is_vec: bool,
    rank: usize,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let source = movedim_side(op, src, src_is_vec, rank)?;
    let destination = movedim_side(op, dst, dst_is_vec, rank)?;
    if source.len() != destination.len() {
        return Err(Rule(
            op,
            "source and destination must have the same number of dims",
        )
        .invalid(format!("src={src:?}, dst={dst:?}")));
    }
    Ok((source, destination))
}

/// `flatten::<D2>(start_dim, end_dim)`: both dims in `-D..D`, `start <= end`, and `D2` equal to
/// `D - (end - start)` (`TensorCheck::flatten` bounds `D2` from below and by `D`; beyond burn, a
/// larger `D2` is refused too, since burn returns a tensor whose rank no longer matches its
/// type). Returns the output shape.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`]; [`GuardError::OutOfOrder`] for `start > end`;
/// [`GuardError::RankMismatch`] for a wrong `D2`.
///
/// ```
/// use burn_guard::check::view::flatten;
/// assert_eq!(flatten("flatten", &[2, 3, 4], 1, -1, 2).unwrap(), vec![2, 12]);
/// assert!(flatten("flatten", &[2, 3, 4], 1, 2, 3).is_err());
/// ```
pub fn flatten(
    op: &'static str,
    shape: &[usize],
    start_dim: isize,
    end_dim: isize,
    rank_out: usize,
) -> Result<Vec<usize>> {
    let rank = shape.len();
    let start = dim(op, start_dim, rank)?;
    let end = dim(op, end_dim, rank)?;
    if start > end {
        return Err(GuardError::OutOfOrder {
            op,
            rule: "start_dim must not come after end_dim (after resolving negative dims)",
            lower_name: "start_dim",
            lower: start.into(),
            upper_name: "end_dim",
            upper: end.into(),
        });
    }
    let expected = rank - (end - start);
    Rule(
        op,
        "the output rank must be the input rank minus the flattened dims plus one",
    )
    .expect_rank(expected, rank_out, shape)?;
    let merged = shape
        .get(start..=end)
        .map(element_count)
        .unwrap_or(Some(1))
        .ok_or_else(|| count_overflows(op, shape))?;
    let mut out: Vec<usize> = shape.iter().take(start).copied().collect();
    out.push(merged);
    out.extend(shape.iter().skip(end + 1));
    Ok(out)
}

/// A rank-mismatch error for the squeeze family.
fn squeeze_rank(op: &'static str, shape: &[usize], expected: usize, got: usize) -> GuardError {
    if expected == 0 {
        Rule(
            op,
            "squeezing would leave a rank-0 tensor, which burn does not support",
        )
        .rank_mismatch(1, 0, shape)
    } else {
        Rule(
            op,
            "the output rank must be the number of dimensions left after squeezing",
        )
        .rank_mismatch(expected, got, shape)
    }
}

/// `squeeze::<D2>()`: removes every size-1 dimension; at least one must remain and their number
/// must be `D2` (`TensorCheck::squeeze_dims_len`). Returns the output shape.
///
/// # Errors
///
/// [`GuardError::RankMismatch`].
///
/// ```
/// use burn_guard::check::view::squeeze;
/// assert_eq!(squeeze("squeeze", &[1, 3, 1, 2], 2).unwrap(), vec![3, 2]);
/// assert!(squeeze("squeeze", &[1, 1], 1).is_err());
/// ```
pub fn squeeze(op: &'static str, shape: &[usize], rank_out: usize) -> Result<Vec<usize>> {
    let out: Vec<usize> = shape.iter().copied().filter(|&d| d != 1).collect();
    if out.is_empty() || out.len() != rank_out {
        return Err(squeeze_rank(op, shape, out.len(), rank_out));
    }
    Ok(out)
}

/// A dimension to squeeze whose size is not 1 (`TensorCheck::squeeze`).
fn not_unit(op: &'static str, shape: &[usize], index: usize) -> GuardError {
    Rule(op, "only a dimension of size 1 can be squeezed").out_of_range(
        "size",
        shape.get(index).copied().unwrap_or(0),
        Limit::Exactly(1usize.into()),
    )
}

/// `squeeze_dim::<D2>(dim)`: `dim` in `-D..D`, its size 1 (`TensorCheck::squeeze`), and
/// `D2 == D - 1 >= 1` (burn's slice copy panics otherwise; `squeeze_dims_len`). Returns the
/// output shape.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`]; [`GuardError::OutOfRange`] for a size other than 1;
/// [`GuardError::RankMismatch`] for a wrong `D2`.
///
/// ```
/// use burn_guard::check::view::squeeze_dim;
/// assert_eq!(squeeze_dim("squeeze_dim", &[3, 1, 2], -2, 2).unwrap(), vec![3, 2]);
/// assert!(squeeze_dim("squeeze_dim", &[3, 1, 2], 0, 2).is_err());
/// ```
pub fn squeeze_dim(
    op: &'static str,
    shape: &[usize],
    dim_arg: isize,
    rank_out: usize,
) -> Result<Vec<usize>> {
    let expected = shape.len().saturating_sub(1);
    if rank_out != expected || expected == 0 {
        return Err(squeeze_rank(op, shape, expected, rank_out));
    }
    let index = dim(op, dim_arg, shape.len())?;
    if shape.get(index) != Some(&1) {
        return Err(not_unit(op, shape, index));
    }
    Ok(shape
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != index)
        .map(|(_, &d)| d)
        .collect())
}

/// `squeeze_dims::<D2>(dims)`: each dim in `-D..D` (an empty list means every size-1 dim);
/// after removing duplicates fewer than `D` dims (`TensorCheck::squeeze_dims_input`); each of
/// size 1 (`TensorCheck::squeeze` — burn panics, although its doc says such dims are skipped);
/// `D2` the number left (`squeeze_dims_len`). Returns the output shape.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`]; [`GuardError::InvalidArgument`] for too many dims, [`GuardError::OutOfRange`] for a size
/// other than 1; [`GuardError::RankMismatch`] for a wrong `D2`.
///
/// ```
/// use burn_guard::check::view::squeeze_dims;
/// assert_eq!(squeeze_dims("squeeze_dims", &[1, 3, 1], &[0, -1], 1).unwrap(), vec![3]);
/// assert_eq!(squeeze_dims("squeeze_dims", &[1, 3, 1], &[], 1).unwrap(), vec![3]);
/// assert!(squeeze_dims("squeeze_dims", &[1, 3, 1], &[1], 2).is_err());
/// ```
pub fn squeeze_dims(
    op: &'static str,
    shape: &[usize],
    dims: &[isize],
    rank_out: usize,
) -> Result<Vec<usize>> {
    let rank = shape.len();
    let mut indices = if dims.is_empty() {
        unit_dims(shape)
    } else {
        resolve_all(op, dims, rank)?
    };
    indices.sort_unstable();
    indices.dedup();
    if indices.len() >= rank {
        return Err(
            Rule(op, "at least one dimension must remain after squeezing")
                .invalid(format!("dims={indices:?} (shape {shape:?})")),
        );
    }
    if let Some(&index) = indices.iter().find(|&&i| shape.get(i) != Some(&1)) {
        return Err(not_unit(op, shape, index));
    }
    let out = without_dims(shape, &indices);
    if out.len() != rank_out {
        return Err(squeeze_rank(op, shape, out.len(), rank_out));
    }
    Ok(out)
}

/// `unsqueeze::<D2>()`: `D2 >= D` (`TensorCheck::unsqueeze`). Returns the output shape,
/// `D2 - D` leading ones then the input shape.
///
/// # Errors
///
/// [`GuardError::RankMismatch`].
///
/// ```
/// use burn_guard::check::view::unsqueeze;
/// assert_eq!(unsqueeze("unsqueeze", &[3, 4], 4).unwrap(), vec![1, 1, 3, 4]);
/// assert!(unsqueeze("unsqueeze", &[3, 4], 1).is_err());
/// ```
pub fn unsqueeze(op: &'static str, shape: &[usize], rank_out: usize) -> Result<Vec<usize>> {
    let Some(ones) = rank_out.checked_sub(shape.len()) else {
        return Err(Rule(op, "unsqueeze cannot lower the rank").rank_mismatch(
            shape.len(),
            rank_out,
            shape,
        ));
    };
    let mut out = vec![1; ones];
    out.extend_from_slice(shape);
    Ok(out)
}

/// `unsqueeze_dim::<D2>(dim)`: `dim` in `-(D+1)..D+1`, `D2 > D` and `dim < D2`
/// (`TensorCheck::unsqueeze_dim`). Returns the output shape: a 1 inserted at `dim`, and burn's
/// trailing ones when `D2 > D + 1`.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`]; [`GuardError::RankMismatch`] for `D2 <= D`.
///
/// ```
/// use burn_guard::check::view::unsqueeze_dim;
/// assert_eq!(unsqueeze_dim("unsqueeze_dim", &[3, 4], -1, 3).unwrap(), vec![3, 4, 1]);
/// assert!(unsqueeze_dim("unsqueeze_dim", &[3, 4], 0, 2).is_err());
/// ```
pub fn unsqueeze_dim(
    op: &'static str,
    shape: &[usize],
    dim_arg: isize,
    rank_out: usize,
) -> Result<Vec<usize>> {
    let rank = shape.len();
    if rank_out <= rank {
        return Err(Rule(
            op,
            "unsqueeze_dim adds a dimension: the output rank must exceed the input rank",
        )
        .rank_mismatch(rank + 1, rank_out, shape));
    }
    let index = dim(op, dim_arg, rank + 1)?;
    // `index <= rank < rank_out`: the `dim < D2` branch of the check cannot fire here.
    let mut out: Vec<usize> = shape.iter().take(index).copied().collect();
    out.push(1);
    out.extend(shape.iter().skip(index));
    out.resize(rank_out, 1);
    Ok(out)
}

/// `unsqueeze_dims::<D2>(axes)`: a step-by-step replay of burn's algorithm (base.rs:1000): each
/// axis in `-D2..D2` (`TensorCheck::unsqueeze_dims`), negative axes offset from the end, sorted,
/// duplicates bumped to the next slot and re-checked, then the input dims copied around the new
/// ones; every place where burn's index arithmetic or slice copies would panic is an error.
/// Returns the output shape; its element count equals the input's.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`] for an axis outside `-D2..D2`;
/// [`GuardError::InvalidArgument`] when the axes do not fit the output rank;
/// [`GuardError::ShapeMismatch`] when the shape burn builds loses elements.
///
/// ```
/// use burn_guard::check::view::unsqueeze_dims;
/// assert_eq!(unsqueeze_dims("unsqueeze_dims", &[3, 4, 5], &[0, -1, -1], 6).unwrap(), vec![1, 3, 4, 5, 1, 1]);
/// assert!(unsqueeze_dims("unsqueeze_dims", &[3], &[2, 2], 3).is_err());
/// ```
pub fn unsqueeze_dims(
    op: &'static str,
    shape: &[usize],
    axes: &[isize],
    rank_out: usize,
) -> Result<Vec<usize>> {
    let bad_axes = || {
        Rule(op, "the unsqueeze axes do not fit the output rank")
            .invalid(format!("axes={axes:?}, rank={rank_out} (shape {shape:?})"))
    };
    let signed_out = isize::try_from(rank_out).map_err(|_| bad_axes())?;
    let in_range = |d: isize| (-signed_out..signed_out).contains(&d);
    let mut neg_offset = rank_out;
    let mut indices = Vec::with_capacity(axes.len());
    for &axis in axes {
        if !in_range(axis) {
            return Err(GuardError::DimOutOfRange {
                op,
                dim: axis,
                rank: rank_out,
            });
        }
        let index = if axis < 0 {
            neg_offset = neg_offset.checked_sub(1).ok_or_else(bad_axes)?;
            let offset = isize::try_from(neg_offset).map_err(|_| bad_axes())?;
            let sum = axis
                .checked_add(offset)
                .and_then(|v| v.checked_add(1))
                .ok_or_else(bad_axes)?;
            // burn casts with `as usize`: a negative sum becomes a huge index.
            sum as usize
        } else {
            usize::try_from(axis).map_err(|_| bad_axes())?
        };
        indices.push(index);
    }
    indices.sort_unstable();
    for i in 1..indices.len() {
        if let (Some(&prev), Some(&cur)) = (indices.get(i - 1), indices.get(i))
            && cur <= prev
        {
            let bumped = prev.checked_add(1).ok_or_else(bad_axes)?;
            if let Some(slot) = indices.get_mut(i) {
                *slot = bumped;
            }
        }
    }
    // burn re-checks with `as isize`, so a huge index reads as a small negative one.
    let as_signed = |i: usize| i as isize;
    if let Some(&index) = indices.iter().find(|&&i| !in_range(as_signed(i))) {
        return Err(GuardError::DimOutOfRange {
            op,
            dim: as_signed(index),
            rank: rank_out,
        });
    }
    let mut out = vec![1usize; rank_out];
    let mut next_index = 0;
    let mut next_old = 0;
    for position in 0..rank_out {
        let Some(&wanted) = indices.get(next_index) else {
            // burn copies the rest of the input: the lengths must agree.
            let rest = shape.get(next_old..).unwrap_or(&[]);
            if rest.len() != rank_out - position {
                return Err(bad_axes());
            }
            for (slot, &d) in out.iter_mut().skip(position).zip(rest) {
                *slot = d;
            }
            break;
        };
        if position == wanted {
            next_index += 1;
        } else {
            let d = *shape.get(next_old).ok_or_else(bad_axes)?;
            if let Some(slot) = out.get_mut(position) {
                *slot = d;
            }
            next_old += 1;
        }
    }
    let before = element_count(shape).ok_or_else(|| count_overflows(op, shape))?;
    Rule(op, "the unsqueezed shape must keep every input element")
        .shapes_agree(element_count(&out) == Some(before), &[shape, &out])?;
    Ok(out)
}

/// `expand::<D2>(shape)`: mirrors burn's `BroadcastArgs::into_shape` and
/// `TensorCheck::expand`. For the array form: at least `D` entries, each positive or `-1`, a
/// `-1` only where it copies an existing non-empty dim. Then, right-aligned, each target dim
/// must equal the input's or the input's must be 1.
///
/// Beyond burn: a `Shape` argument must have rank `D2` and `D2 >= D` (burn indexes out of
/// bounds, desynchronises the rank, or leaves the backend to panic), and a target dim of 1 over
/// an input dim other than 1 is refused (`TensorCheck::expand` lets it through and every CPU
/// backend panics). Returns the output shape.
///
/// # Errors
///
/// [`GuardError::RankMismatch`]; [`GuardError::InvalidArgument`] for a bad entry;
/// [`GuardError::ShapeMismatch`] when the shapes cannot broadcast.
///
/// ```
/// use burn_guard::check::view::{ShapeArg, expand};
/// assert_eq!(expand("expand", &[3, 1], &ShapeArg::Entries(vec![2, -1, 4]), 3).unwrap(), vec![2, 3, 4]);
/// assert!(expand("expand", &[3, 2], &ShapeArg::Entries(vec![3, 4]), 2).is_err());
/// ```
pub fn expand(
    op: &'static str,
    shape: &[usize],
    target: &ShapeArg,
    rank_out: usize,
) -> Result<Vec<usize>> {
    let rank = shape.len();
    let rank_error =
        |expected: usize, got: usize, rule| Rule(op, rule).rank_mismatch(expected, got, shape);
    let to: Vec<usize> = match target {
        ShapeArg::Entries(entries) => {
            if entries.len() < rank {
                return Err(rank_error(
                    rank,
                    entries.len(),
                    "expand cannot lower the rank: the target needs at least as many dims as the tensor",
                ));
            }
            let got = || format!("shape={entries:?}, tensor={shape:?}");
            if entries.iter().any(|&e| e == 0 || e < -1) {
                return Err(Rule(op, "expand entries must be positive or -1").invalid(got()));
            }
            let lead = entries.len() - rank;
            let mut to = Vec::with_capacity(entries.len());
            for (i, &e) in entries.iter().enumerate() {
                let size = if e == -1 {
                    i.checked_sub(lead)
                        .and_then(|j| shape.get(j))
                        .copied()
                        .unwrap_or(0)
                } else {
                    usize::try_from(e).unwrap_or(0)
                };
                if size == 0 {
                    return Err(
                        Rule(op, "-1 must stand for an existing, non-empty dimension")
                            .invalid(got()),
                    );
                }
                to.push(size);
            }
            to
        }
        ShapeArg::Shape(dims) => {
            if dims.len() != rank_out {
                return Err(rank_error(
                    rank_out,
                    dims.len(),
                    "a shape argument must have the output rank",
                ));
            }
            if dims.len() < rank {
                return Err(rank_error(
                    rank,
                    dims.len(),
                    "expand cannot lower the rank: the target needs at least as many dims as the tensor",
                ));
            }
            dims.clone()
        }
    };
    let lead = to.len() - rank;
    let compatible = to
        .iter()
        .skip(lead)
        .zip(shape)
        .all(|(&t, &s)| t == s || s == 1);
    if !compatible {
        return Err(Rule(
            op,
            "each target dim must equal the tensor's, or the tensor's must be 1",
        )
        .shape_mismatch(&[shape, &to]));
    }
    Ok(to)
}

/// `unfold::<D2>(dim, size, step)`: `dim` in `-D..D` and `D2 == D + 1` (`TensorCheck::unfold`).
/// Beyond burn, which leaves them to the backend (Flex and NdArray panic, or NdArray returns
/// windows of size 0): `size > 0`, `step > 0` and `size` at most the dim size. Returns the output
/// shape `[pre.., windows, post.., size]`.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`]; [`GuardError::RankMismatch`];
/// [`GuardError::OutOfRange`] for the window size or the step.
///
/// ```
/// use burn_guard::check::view::unfold;
/// assert_eq!(unfold("unfold", &[2, 5], 1, 2, 2, 3).unwrap(), vec![2, 2, 2]);
/// assert!(unfold("unfold", &[2, 5], 1, 6, 1, 3).is_err());
/// ```
pub fn unfold(
    op: &'static str,
    shape: &[usize],
    dim_arg: isize,
    size: usize,
    step: usize,
    rank_out: usize,
) -> Result<Vec<usize>> {
    let rank = shape.len();
    Rule(
        op,
        "unfold adds one dimension: the output rank must be the input rank + 1",
    )
    .expect_rank(rank + 1, rank_out, shape)?;
    let index = dim(op, dim_arg, rank)?;
    let length = shape.get(index).copied().unwrap_or(0);
    let broken = if size == 0 {
        Some((
            "the window size must be greater than 0",
            "size",
            size,
            Limit::AtLeast(1usize.into()),
        ))
    } else if step == 0 {
        Some((
            "the step must be greater than 0",
            "step",
            step,
            Limit::AtLeast(1usize.into()),
        ))
    } else if size > length {
        Some((
            "the window size must not exceed the dimension size",
            "size",
            size,
            Limit::AtMost(length.into()),
        ))
    } else {
        None
    };
    if let Some((rule, name, value, limit)) = broken {
        return Err(Rule(op, rule).out_of_range(name, value, limit));
    }
    let windows = (length - size) / step + 1;
    let mut out = shape.to_vec();
    if let Some(slot) = out.get_mut(index) {
        *slot = windows;
    }
    out.push(size);
    Ok(out)
}

/// The positions of a `target` shape that are unit dims inserted into `source` (the other
/// positions take `source`'s dims in order), or `None` when `target` is not `source` with unit
/// dims inserted. Which 1s count as inserted does not matter for the data.
///
/// ```
/// use burn_guard::check::view::inserted_units;
/// assert_eq!(inserted_units(&[0, 3], &[1, 0, 3, 1]), Some(vec![true, false, false, true]));
/// assert_eq!(inserted_units(&[0, 3], &[3, 0]), None);
/// ```
pub fn inserted_units(source: &[usize], target: &[usize]) -> Option<Vec<bool>> {
    let mut mask = Vec::with_capacity(target.len());
    let mut next = 0;
    for &t in target {
        if source.get(next) == Some(&t) {
            // Greedy earliest matching finds an embedding whenever one exists.
            mask.push(false);
            next += 1;
        } else if t == 1 {
            mask.push(true);
        } else {
            return None;
        }
    }
    (next == source.len()).then_some(mask)
}

#[cfg(test)]
mod tests;
