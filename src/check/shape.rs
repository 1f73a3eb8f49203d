//! Shape, rank, dim and device checks of burn-tensor's `TensorCheck` (`src/tensor/api/check.rs`)
//! and its dim unwrapping (`unwrap_dim_index`), as pure functions over shapes.
//!
//! Each function names the `TensorCheck` it mirrors. They return what they proved — a
//! canonical dim, a result shape — so the twin never recomputes it.

use super::rule::Rule;
use crate::error::{GuardError, Limit, Result, ScalarValue};

/// Resolves a possibly negative `dim` against `rank`, as burn's `AsIndex::try_dim_index` does.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`] when `dim ∉ [-rank, rank)`.
///
/// ```
/// use burn_guard::check;
/// assert_eq!(check::dim("narrow", -1, 3).unwrap(), 2);
/// assert!(check::dim("narrow", 3, 3).is_err());
/// ```
#[inline]
pub fn dim(op: &'static str, dim: isize, rank: usize) -> Result<usize> {
    let out_of_range = || GuardError::DimOutOfRange { op, dim, rank };
    let signed_rank = isize::try_from(rank).map_err(|_| out_of_range())?;
    let resolved = if dim < 0 {
        dim.checked_add(signed_rank).ok_or_else(out_of_range)?
    } else {
        dim
    };
    if (0..signed_rank).contains(&resolved) {
        usize::try_from(resolved).map_err(|_| out_of_range())
    } else {
        Err(out_of_range())
    }
}

/// Every index in `0..size` (burn leaves this to the backend, which panics or reads out of
/// bounds). Negative indices are refused too: burn's `select` does not wrap them.
///
/// # Errors
///
/// [`GuardError::IndexOutOfRange`] naming the first bad index.
///
/// ```
/// use burn_guard::check;
/// assert!(check::indices("select", &[0, 3], 4, 0).is_ok());
/// assert!(check::indices("select", &[0, 4], 4, 0).is_err());
/// ```
pub fn indices(op: &'static str, indices: &[i64], size: usize, dim: usize) -> Result<()> {
    let limit = i64::try_from(size).unwrap_or(i64::MAX);
    match indices.iter().find(|&&index| index < 0 || index >= limit) {
        Some(&index) => Err(GuardError::IndexOutOfRange {
            op,
            index,
            size,
            dim,
        }),
        None => Ok(()),
    }
}

/// Devices of the operands must be equal (`TensorCheck::binary_ops_device`).
///
/// `name` names a device for the error: the caller's, called only when the devices differ, so
/// that equal devices cost a comparison and no check reaches a device to name it.
///
/// # Errors
///
/// [`GuardError::DeviceMismatch`] naming both devices.
///
/// ```
/// use burn_guard::check;
/// let name = |device: &u8| format!("device {device}");
/// assert!(check::same_device("add", &0, &0, name).is_ok());
/// assert!(check::same_device("add", &0, &1, name).is_err());
/// ```
#[inline]
pub fn same_device<Dev: PartialEq>(
    op: &'static str,
    lhs: &Dev,
    rhs: &Dev,
    name: impl Fn(&Dev) -> String,
) -> Result<()> {
    if lhs == rhs {
        Ok(())
    } else {
        Err(device_mismatch(op, lhs, rhs, name))
    }
}

/// [`same_device`]'s error, out of line: the check itself is one comparison.
#[cold]
#[inline(never)]
fn device_mismatch<Dev>(
    op: &'static str,
    lhs: &Dev,
    rhs: &Dev,
    name: impl Fn(&Dev) -> String,
) -> GuardError {
    GuardError::DeviceMismatch {
        op,
        devices: vec![name(lhs), name(rhs)],
    }
}

/// Two shapes that must be one: `got` (an operand, a gradient, indices) and the `expected`
/// shape the rule gives it.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both, in argument order.
///
/// ```
/// use burn_guard::check::shape::same_shape;
/// let rule = "the gradient must have the shape of the output";
/// assert!(same_shape("conv2d_weight_backward", rule, &[1, 3, 2, 2], &[1, 3, 2, 2]).is_ok());
/// assert!(same_shape("conv2d_weight_backward", rule, &[1, 3, 3, 3], &[1, 3, 2, 2]).is_err());
/// ```
pub fn same_shape(
    op: &'static str,
    rule: &'static str,
    got: &[usize],
    expected: &[usize],
) -> Result<()> {
    Rule(op, rule).same_shape(got, expected)
}

/// Element-wise binary operations: same rank, each dim equal or one of them 1
/// (`TensorCheck::binary_ops_ew_shape`). Returns the broadcast shape.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
///
/// ```
/// use burn_guard::check;
/// assert_eq!(check::broadcast("add", &[2, 1], &[2, 3]).unwrap(), vec![2, 3]);
/// assert!(check::broadcast("add", &[2, 2], &[2, 3]).is_err());
/// ```
pub fn broadcast(op: &'static str, lhs: &[usize], rhs: &[usize]) -> Result<Vec<usize>> {
    let same_rank = lhs.len() == rhs.len();
    let dims = same_rank.then(|| broadcast_dims(lhs, rhs)).flatten();
    dims.ok_or_else(|| {
        Rule(
            op,
            "shapes must be equal or 1 in every dimension to broadcast",
        )
        .shape_mismatch(&[lhs, rhs])
    })
}

/// The broadcast of two shapes of one rank, dim by dim: equal, or 1 on one side (which takes
/// the other's size); `None` where neither holds.
pub(crate) fn broadcast_dims(lhs: &[usize], rhs: &[usize]) -> Option<Vec<usize>> {
    let pairs = lhs.iter().zip(rhs);
    pairs
        .map(|(&l, &r)| match (l, r) {
            _ if l == r => Some(l),
            (1, r) => Some(r),
            (l, 1) => Some(l),
            _ => None,
        })
        .collect()
}

/// [`broadcast`] without building the output shape: the hot-path form for twins that do not
/// need it (element-wise arithmetic). Allocates nothing on success.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
///
/// ```
/// use burn_guard::check::shape::broadcastable;
/// assert!(broadcastable("add", &[2, 1], &[2, 3]).is_ok());
/// assert!(broadcastable("add", &[2, 2], &[2, 3]).is_err());
/// ```
pub fn broadcastable(op: &'static str, lhs: &[usize], rhs: &[usize]) -> Result<()> {
    let compatible = lhs.len() == rhs.len()
        && lhs
            .iter()
            .zip(rhs)
            .all(|(&l, &r)| l == r || l == 1 || r == 1);
    Rule(
        op,
        "shapes must be equal or 1 in every dimension to broadcast",
    )
    .shapes_agree(compatible, &[lhs, rhs])
}

/// Matrix product of rank ≥ 2 tensors: `lhs[.., k]` against `rhs[.., k, _]`, batch dims
/// broadcastable (`TensorCheck::matmul`). Returns the output shape.
///
/// # Errors
///
/// [`GuardError::RankMismatch`] for rank < 2; [`GuardError::ShapeMismatch`] for the inner
/// dimensions or the batch dimensions.
///
/// ```
/// use burn_guard::check;
/// assert_eq!(check::matmul("matmul", &[2, 3], &[3, 5]).unwrap(), vec![2, 5]);
/// // A batch of 0 against a batch of 1 broadcasts to 0, as in burn.
/// assert_eq!(check::matmul("matmul", &[0, 2, 3], &[1, 3, 4]).unwrap(), vec![0, 2, 4]);
/// let err = check::matmul("matmul", &[2, 3], &[4, 5]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "matmul: lhs columns must equal rhs rows; got [2, 3] and [4, 5]"
/// );
/// ```
pub fn matmul(op: &'static str, lhs: &[usize], rhs: &[usize]) -> Result<Vec<usize>> {
    let rank = lhs.len();
    if rank < 2 {
        return Err(Rule(op, "matmul needs tensors of rank 2 or more").rank_mismatch(2, rank, lhs));
    }
    let shapes = || vec![lhs.to_vec(), rhs.to_vec()];
    let (Some(&k_lhs), Some(&k_rhs), Some(&m), Some(&n)) = (
        lhs.get(rank - 1),
        rhs.get(rank.wrapping_sub(2)),
        lhs.get(rank - 2),
        rhs.get(rank.wrapping_sub(1)),
    ) else {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "lhs and rhs must have the same rank",
            shapes: shapes(),
        });
    };
    if k_lhs != k_rhs {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "lhs columns must equal rhs rows",
            shapes: shapes(),
        });
    }
    let mut out = Vec::with_capacity(rank);
    for (&l, &r) in lhs.iter().zip(rhs).take(rank - 2) {
        if l != r && l != 1 && r != 1 {
            return Err(GuardError::ShapeMismatch {
                op,
                rule: "batch dimensions must be equal or 1",
                shapes: shapes(),
            });
        }
        // 1 stretches to the other side, 0 included (burn broadcasts a batch of 0 against 1
        // to 0).
        out.push(if l == 1 { r } else { l });
    }
    out.push(m);
    out.push(n);
    Ok(out)
}

/// `narrow(dim, start, length)`: `length > 0`, `start < size`, `start + length <= size`
/// (`TensorCheck::narrow`). `dim` must already be resolved with [`dim`].
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming `length`, `start` or `start + length` (saturated at
/// `u64::MAX`) and the bound it broke.
///
/// ```
/// use burn_guard::check;
/// let err = check::narrow("narrow", &[4, 4], 0, 3, 2).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "narrow: start + length must not exceed the dimension size; got start + length=5, expected at most 4"
/// );
/// ```
pub fn narrow(
    op: &'static str,
    shape: &[usize],
    dim: usize,
    start: usize,
    length: usize,
) -> Result<()> {
    let size = shape.get(dim).copied().unwrap_or(0);
    let end = (start as u64).saturating_add(length as u64);
    let broken = if length == 0 {
        Some((
            "length must be greater than 0",
            "length",
            length.into(),
            Limit::AtLeast(1usize.into()),
        ))
    } else if start >= size {
        Some((
            "start must be less than the dimension size",
            "start",
            start.into(),
            Limit::Below(size.into()),
        ))
    } else if end > size as u64 {
        Some((
            "start + length must not exceed the dimension size",
            "start + length",
            ScalarValue::UInt(end),
            Limit::AtMost(size.into()),
        ))
    } else {
        None
    };
    match broken {
        Some((rule, name, value, limit)) => Err(Rule(op, rule).out_of_range(name, value, limit)),
        None => Ok(()),
    }
}

/// No tensor list may be empty (`TensorCheck::cat`, `TensorCheck::stack`, burn's `meshgrid`).
pub(crate) fn nonempty_list(op: &'static str, len: usize) -> Result<()> {
    if len == 0 {
        return Err(empty_list(op));
    }
    Ok(())
}

/// The refusal of an empty tensor list.
fn empty_list(op: &'static str) -> GuardError {
    Rule(op, "needs at least one tensor").out_of_range(
        "tensors",
        0usize,
        Limit::AtLeast(1usize.into()),
    )
}

/// Concatenation along `dim`: a non-empty list whose shapes agree except along `dim`
/// (`TensorCheck::cat`). Returns the output shape, of the inputs' type: a tensor's
/// `[usize; D]` in, an array out, nothing allocated.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for an empty list; [`GuardError::ShapeMismatch`] with every
/// shape otherwise.
///
/// ```
/// use burn_guard::check;
/// assert_eq!(check::cat("cat", &[[2, 3], [4, 3]], 0).unwrap(), [6, 3]);
/// assert!(check::cat("cat", &[[2, 3], [4, 2]], 0).is_err());
/// ```
#[inline]
pub fn cat<S>(op: &'static str, shapes: &[S], dim: usize) -> Result<S>
where
    S: AsRef<[usize]> + AsMut<[usize]> + Clone,
{
    let Some(first) = shapes.first() else {
        return Err(empty_list(op));
    };
    let first_dims = first.as_ref();
    let mut total = 0usize;
    for shape in shapes.iter().map(AsRef::as_ref) {
        if !agree_except(shape, first_dims, dim) {
            return Err(cat_mismatch(op, shapes));
        }
        total = total.saturating_add(shape.get(dim).copied().unwrap_or(0));
    }
    let mut out = first.clone();
    if let Some(slot) = out.as_mut().get_mut(dim) {
        *slot = total;
    }
    Ok(out)
}

/// [`cat`]'s error, out of line.
#[cold]
#[inline(never)]
fn cat_mismatch<S: AsRef<[usize]>>(op: &'static str, shapes: &[S]) -> GuardError {
    GuardError::ShapeMismatch {
        op,
        rule: "shapes must agree except along the concatenation dimension",
        shapes: shapes.iter().map(|s| s.as_ref().to_vec()).collect(),
    }
}

/// Whether two shapes have the same rank and the same size in every dim but `dim`.
#[inline]
pub(crate) fn agree_except(lhs: &[usize], rhs: &[usize], dim: usize) -> bool {
    let mut pairs = lhs.iter().zip(rhs).enumerate();
    lhs.len() == rhs.len() && pairs.all(|(i, (a, b))| i == dim || a == b)
}

/// Stacking along a new `dim`: output rank is input rank + 1, a non-empty list of equal shapes
/// (`TensorCheck::stack`). `dim` must already be resolved against the output rank.
///
/// # Errors
///
/// [`GuardError::RankMismatch`] when the output rank is not input rank + 1;
/// [`GuardError::OutOfRange`] for an empty list; [`GuardError::ShapeMismatch`] otherwise.
pub fn stack<S: AsRef<[usize]>>(
    op: &'static str,
    shapes: &[S],
    rank_in: usize,
    rank_out: usize,
) -> Result<()> {
    if rank_out != rank_in + 1 {
        return Err(GuardError::RankMismatch {
            op,
            rule: "stack adds one dimension: the output rank must be the input rank + 1",
            expected: rank_in + 1,
            got: rank_out,
            shape: shapes
                .first()
                .map(|s| s.as_ref().to_vec())
                .unwrap_or_default(),
        });
    }
    nonempty_list(op, shapes.len())?;
    let Some(first) = shapes.first().map(AsRef::as_ref) else {
        return Ok(());
    };
    if shapes.iter().any(|shape| shape.as_ref() != first) {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "every tensor must have the same shape",
            shapes: shapes.iter().map(|s| s.as_ref().to_vec()).collect(),
        });
    }
    Ok(())
}

/// Whether a tensor of `shape` has no element (a dimension is 0); such an input is answered
/// without dispatching a kernel by the twins of the element-wise ops, bool ops and whole-tensor
/// reductions that wgpu's kernels panic on for it.
///
/// Not a refusal: burn's result for an empty input is known from the shape alone (an empty
/// tensor of the output's shape, no index for `nonzero` and `argwhere`, `[false]` for `any`,
/// `[true]` for `all`), and Flex and NdArray compute it. wgpu's kernels for `round`, `floor`,
/// `trunc`, `not_equal_scalar` (and so `bool`, `fmod_scalar`) and `bool_not` (and so
/// `is_finite`) panic on a `[0, n]` tensor, and on wgpu a kernel panic poisons the device for
/// the rest of the process. `any`, `all`, `nonzero` and `argwhere` fall in the same rule: the
/// sweep met them panicking on the output of such a kernel, and their empty answer needs none.
/// One rule for every backend: the twin builds the result itself.
///
/// ```
/// use burn_guard::check::shape::no_elements;
/// assert!(no_elements(&[0, 3]));
/// assert!(no_elements(&[2, 0]));
/// assert!(!no_elements(&[2, 3]));
/// ```
pub fn no_elements(shape: &[usize]) -> bool {
    shape.contains(&0)
}

/// The product of `dims` taken in order, or `None` when it overflows `usize` (what the view
/// and split checks count an output in).
pub(crate) fn element_count(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// An output shape whose element count does not fit in `usize`.
pub(crate) fn count_overflows(op: &'static str, shape: &[usize]) -> GuardError {
    Rule(op, "the output element count overflows usize").invalid(format!("shape={shape:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::{ranks, refused, shape_rule};

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    #[test]
    fn dims_resolve_like_burn() {
        let cases: [(isize, usize, Option<usize>); 7] = [
            (0, 1, Some(0)),
            (-1, 1, Some(0)),
            (1, 1, None),
            (-2, 1, None),
            (-3, 3, Some(0)),
            (2, 3, Some(2)),
            (isize::MIN, 3, None),
        ];
        for (d, rank, expected) in cases {
            assert_eq!(dim("op", d, rank).ok(), expected, "dim {d} rank {rank}");
        }
    }

    #[test]
    fn matmul_table() -> TestResult {
        assert_eq!(matmul("matmul", &[4, 2, 3], &[1, 3, 5])?, vec![4, 2, 5]);
        let err = refused("matmul", matmul("matmul", &[3], &[3]))?;
        assert_eq!(ranks(&err), Some((2, 1)));
        let rows: [(&[usize], &[usize], &str); 2] = [
            (&[2, 3], &[4, 5], "lhs columns must equal rhs rows"),
            (
                &[2, 2, 3],
                &[3, 3, 5],
                "batch dimensions must be equal or 1",
            ),
        ];
        for (lhs, rhs, want) in rows {
            let err = refused("matmul", matmul("matmul", lhs, rhs))?;
            assert_eq!(shape_rule(&err, &[lhs, rhs]), Some(want), "{err:?}");
        }
        Ok(())
    }

    #[test]
    fn narrow_table() -> TestResult {
        assert!(narrow("narrow", &[4, 4], 0, 1, 3).is_ok());
        let rows = [
            (0, 0, "length", 0u64, Limit::AtLeast(ScalarValue::UInt(1))),
            (4, 1, "start", 4, Limit::Below(ScalarValue::UInt(4))),
            (
                3,
                2,
                "start + length",
                5,
                Limit::AtMost(ScalarValue::UInt(4)),
            ),
        ];
        for (start, length, want_name, want_value, want_limit) in rows {
            let err = refused("narrow", narrow("narrow", &[4, 4], 0, start, length))?;
            assert!(
                matches!(
                    err,
                    GuardError::OutOfRange { op: "narrow", name, value: ScalarValue::UInt(value), limit, .. }
                        if name == want_name && value == want_value && limit == want_limit
                ),
                "{err:?}"
            );
        }
        Ok(())
    }

    #[test]
    fn cat_and_stack() -> TestResult {
        assert_eq!(cat("cat", &[vec![2, 3], vec![4, 3]], 0)?, vec![6, 3]);
        assert!(matches!(
            cat("cat", &[vec![2, 3], vec![4, 2]], 0),
            Err(GuardError::ShapeMismatch { .. })
        ));
        assert!(matches!(
            cat::<Vec<usize>>("cat", &[], 0),
            Err(GuardError::OutOfRange {
                name: "tensors",
                value: ScalarValue::UInt(0),
                ..
            })
        ));
        assert!(stack("stack", &[vec![2, 3], vec![2, 3]], 2, 3).is_ok());
        assert!(matches!(
            stack("stack", &[vec![2, 3], vec![2, 3]], 2, 2),
            Err(GuardError::RankMismatch { .. })
        ));
        Ok(())
    }
}
