//! Rules of burn-linalg 0.22.1: its `TensorCheck`s (`src/check.rs`), the `assert!`s of its
//! `functions/`, and the empty inputs its algorithms panic on (an `expand` of a zero batch, an
//! `eye(0)`), as pure functions of ranks, shapes and dtypes.

use burn::tensor::DType;

use super::rule::Rule;
use super::shape;
#[cfg(doc)]
use crate::error::GuardError;
use crate::error::{GuardError as Error, Result};

/// A real float matrix, or a batch of them: not quantized, rank ≥ 2 (burn-linalg's
/// `lu_input_tensor`, which `qr`, `svd` and `det` share).
///
/// # Errors
///
/// [`GuardError::InvalidDType`] for a quantized tensor; [`GuardError::RankMismatch`] below
/// rank 2.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::linalg;
/// assert!(linalg::matrix("qr", &[3, 3], DType::F32).is_ok());
/// assert!(linalg::matrix("qr", &[3], DType::F32).is_err());
/// ```
pub fn matrix(op: &'static str, dims: &[usize], dtype: DType) -> Result<()> {
    if matches!(dtype, DType::QFloat(_)) {
        return Err(Error::InvalidDType {
            op,
            rule: "the input must have a real float dtype, not a quantized one",
            dtype,
        });
    }
    Rule(
        op,
        "the input must have at least two dimensions (a matrix, or a batch of them)",
    )
    .rank_at_least(dims, 2)?;
    Ok(())
}

/// A generic rank parameter one below the input's (`D1 = D - 1`: `lu`, `svd`, `det`).
///
/// # Errors
///
/// [`GuardError::RankMismatch`] with the rank expected (`D - 1`) and the one given.
pub fn one_below(op: &'static str, dims: &[usize], given: usize) -> Result<()> {
    let rule = "the generic rank D1 must be the input's rank minus 1";
    ranks_below(op, rule, dims, 1, given)
}

/// A rank `given` for a generic parameter or an output that must be `shape`'s rank less
/// `below`, else [`GuardError::RankMismatch`] about `shape`.
fn ranks_below(
    op: &'static str,
    rule: &'static str,
    shape: &[usize],
    below: usize,
    given: usize,
) -> Result<()> {
    Rule(op, rule).expect_rank(shape.len().saturating_sub(below), given, shape)
}

/// The batch dimensions (all but the last two) hold no zero: burn-linalg's factorisations
/// `expand` a permutation or an identity over the batch, and burn's `expand` panics on a 0.
fn batch_nonempty(op: &'static str, dims: &[usize]) -> Result<()> {
    let batch = dims.len().saturating_sub(2);
    if let Some(dim) = dims.iter().take(batch).position(|&n| n == 0) {
        return Err(Rule(
            op,
            "the batch dimensions must not be empty (burn expands over them)",
        )
        .empty(dims, Some(dim)));
    }
    Ok(())
}

fn last_two(dims: &[usize]) -> (usize, usize) {
    let n = dims.len();
    let at = |i: usize| dims.get(i).copied().unwrap_or(0);
    (at(n.saturating_sub(2)), at(n.saturating_sub(1)))
}

/// `lu::<D, D1>`: a matrix input, `D1 = D - 1`, and neither the matrix nor the batch empty
/// (burn builds the permutation with `eye(min(rows, cols))` and `expand`s it over the batch).
///
/// # Errors
///
/// As [`matrix`] and [`one_below`]; [`GuardError::Empty`] for an empty matrix or batch.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::linalg;
/// assert!(linalg::lu("lu", &[3, 3], DType::F32, 1).is_ok());
/// assert!(linalg::lu("lu", &[3, 3], DType::F32, 2).is_err());
/// assert!(linalg::lu("lu", &[0, 3], DType::F32, 1).is_err());
/// ```
pub fn lu(op: &'static str, dims: &[usize], dtype: DType, d1: usize) -> Result<()> {
    one_below(op, dims, d1)?;
    matrix(op, dims, dtype)?;
    let (rows, cols) = last_two(dims);
    if rows.min(cols) == 0 {
        return Err(Rule(
            op,
            "the matrix must not be empty (burn builds its permutation with eye(min(rows, cols)))",
        )
        .empty(dims, Some(dims.len() - if rows == 0 { 2 } else { 1 })));
    }
    batch_nonempty(op, dims)
}

/// `qr`: a matrix input with rows (burn starts from `eye(rows)`) and a non-empty batch.
///
/// # Errors
///
/// As [`matrix`]; [`GuardError::Empty`] for no rows or an empty batch.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::linalg;
/// assert!(linalg::qr("qr", &[4, 3], DType::F32).is_ok());
/// assert!(linalg::qr("qr", &[0, 3], DType::F32).is_err());
/// ```
pub fn qr(op: &'static str, dims: &[usize], dtype: DType) -> Result<()> {
    matrix(op, dims, dtype)?;
    let (rows, _) = last_two(dims);
    if rows == 0 {
        return Err(
            Rule(op, "the matrix must have rows (burn starts from eye(rows))")
                .empty(dims, Some(dims.len() - 2)),
        );
    }
    batch_nonempty(op, dims)
}

/// `det::<D, D1, D2>`: burn-linalg's `TensorCheck::det`: a matrix input of rank ≥ 3 (burn
/// needs a batch dimension, a plain `[n, n]` is refused), `D1 = D - 1`, `D2 = D - 2`, square
/// last dims; and, beyond its check, what its LU path panics on: `n = 0`, or an empty batch
/// with `n ≥ 4` (below 4 burn uses closed forms, which take an empty batch).
///
/// # Errors
///
/// [`GuardError::RankMismatch`] (with the fix: `unsqueeze_dim(0)`), [`GuardError::ShapeMismatch`]
/// for non-square matrices, [`GuardError::InvalidDType`], [`GuardError::Empty`].
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::linalg;
/// assert!(linalg::det("det", &[1, 3, 3], DType::F32, 2, 1).is_ok());
/// assert!(linalg::det("det", &[3, 3], DType::F32, 1, 0).is_err());
/// assert!(linalg::det("det", &[1, 2, 3], DType::F32, 2, 1).is_err());
/// ```
pub fn det(op: &'static str, dims: &[usize], dtype: DType, d1: usize, d2: usize) -> Result<()> {
    matrix(op, dims, dtype)?;
    Rule(
        op,
        "the input must have at least 3 dimensions: burn's det needs a batch \
                   dimension (add one with unsqueeze_dim(0))",
    )
    .rank_at_least(dims, 3)?;
    one_below(op, dims, d1)?;
    ranks_below(
        op,
        "the output rank D2 must be the input's rank minus 2",
        dims,
        2,
        d2,
    )?;
    let (rows, cols) = last_two(dims);
    if rows != cols {
        return Err(Rule(
            op,
            "the last two dimensions must be equal (square matrices)",
        )
        .shape_mismatch(&[dims]));
    }
    if rows == 0 {
        return Err(Rule(
            op,
            "the matrices must not be empty (burn's LU path expands a 0)",
        )
        .empty(dims, Some(dims.len() - 1)));
    }
    if rows >= 4 {
        batch_nonempty(op, dims)?;
    }
    Ok(())
}

/// `svd::<D, D1>` before it runs: a matrix input, `D1 = D - 1`, at least one sweep, and an
/// input that does not require grad (burn-linalg's svd has no backward).
///
/// # Errors
///
/// As [`matrix`] and [`one_below`]; [`GuardError::OutOfRange`] for 0 sweeps;
/// [`GuardError::InvalidArgument`] for an input that requires grad.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::linalg;
/// assert!(linalg::svd("svd", &[3, 2], DType::F32, 1, 1, false).is_ok());
/// assert!(linalg::svd("svd", &[3, 2], DType::F32, 1, 0, false).is_err());
/// assert!(linalg::svd("svd", &[3, 2], DType::F32, 1, 1, true).is_err());
/// ```
pub fn svd(
    op: &'static str,
    dims: &[usize],
    dtype: DType,
    d1: usize,
    sweeps: usize,
    requires_grad: bool,
) -> Result<()> {
    matrix(op, dims, dtype)?;
    one_below(op, dims, d1)?;
    if sweeps == 0 {
        return Err(
            Rule(op, "svd needs at least one Jacobi sweep").out_of_range(
                "sweeps",
                0u64,
                crate::error::Limit::AtLeast(1u64.into()),
            ),
        );
    }
    if requires_grad {
        return Err(Error::InvalidArgument {
            op,
            rule: "svd has no backward: the input must not require grad (take `.detach()` of a \
                   tensor on a plain device; burn refuses any tensor of an autodiff device)",
            got: "requires_grad=true".to_owned(),
        });
    }
    Ok(())
}

/// `diag::<D, DO>` (and `trace`, which runs it): rank ≥ 2 and `DO = D - 1`; and, beyond
/// burn's check, not a matrix with rows but no columns: burn flattens the matrix with a
/// `reshape` to `[rows × cols, 1]`, and a 0 in a reshape target means "keep this dimension",
/// so `[3, 0]` becomes `[3, 1]` and the reshape panics (measured on Flex and NdArray).
///
/// # Errors
///
/// [`GuardError::RankMismatch`]; [`GuardError::Empty`] for rows without columns.
///
/// ```
/// use burn_guard::check::linalg;
/// assert!(linalg::diag("diag", &[3, 3], 1).is_ok());
/// assert!(linalg::diag("diag", &[3], 0).is_err());
/// assert!(linalg::diag("diag", &[3, 3], 2).is_err());
/// ```
pub fn diag(op: &'static str, dims: &[usize], out_rank: usize) -> Result<()> {
    Rule(op, "diagonal operations need at least two dimensions").rank_at_least(dims, 2)?;
    ranks_below(
        op,
        "the output rank must be the input's rank minus 1",
        dims,
        1,
        out_rank,
    )?;
    let (rows, cols) = last_two(dims);
    if cols == 0 && rows > 0 {
        return Err(Rule(
            op,
            "a matrix with rows must have columns (burn's flattening reshape reads a 0 \
                   as 'keep this dimension')",
        )
        .empty(dims, Some(dims.len() - 1)));
    }
    Ok(())
}

/// `matvec`: the matrix of rank ≥ 2, the vector one rank below it, the batch dimensions
/// broadcastable, and the matrix's columns equal to the vector's entries.
///
/// # Errors
///
/// [`GuardError::RankMismatch`], [`GuardError::ShapeMismatch`] with both shapes.
///
/// ```
/// use burn_guard::check::linalg;
/// assert!(linalg::matvec("matvec", &[2, 3], &[3]).is_ok());
/// assert!(linalg::matvec("matvec", &[2, 3], &[4]).is_err());
/// assert!(linalg::matvec("matvec", &[2, 3, 4], &[3, 4]).is_err());
/// ```
pub fn matvec(op: &'static str, matrix: &[usize], vector: &[usize]) -> Result<()> {
    Rule(op, "the matrix must have at least two dimensions").rank_at_least(matrix, 2)?;
    let rule = "the vector's rank must be the matrix's minus 1";
    Rule(op, rule).expect_rank(matrix.len() - 1, vector.len(), vector)?;
    let batch = matrix.len() - 2;
    let (matrix_batch, vector_batch) = (matrix.get(..batch), vector.get(..batch));
    if matrix_batch
        .zip(vector_batch)
        .is_none_or(|(m, v)| shape::broadcast_dims(m, v).is_none())
    {
        return Err(
            Rule(op, "the batch dimensions must broadcast").shape_mismatch(&[matrix, vector])
        );
    }
    if matrix.last() != vector.last() {
        return Err(
            Rule(op, "the matrix's columns must equal the vector's entries")
                .shape_mismatch(&[matrix, vector]),
        );
    }
    Ok(())
}

/// `outer_dim::<D, R>`: `R = D + 1`, `dim` in range, and the other dimensions broadcast (burn
/// multiplies `lhs` unsqueezed after `dim` by `rhs` unsqueezed at `dim`). Returns the resolved
/// dim.
///
/// # Errors
///
/// [`GuardError::RankMismatch`], [`GuardError::DimOutOfRange`], [`GuardError::ShapeMismatch`].
///
/// ```
/// use burn_guard::check::linalg;
/// assert_eq!(linalg::outer_dim("outer", &[2, 3], &[2, 4], -1, 3).unwrap(), 1);
/// assert!(linalg::outer_dim("outer", &[2, 3], &[3, 4], -1, 3).is_err());
/// ```
pub fn outer_dim(
    op: &'static str,
    lhs: &[usize],
    rhs: &[usize],
    dim: isize,
    out_rank: usize,
) -> Result<usize> {
    Rule(op, "the output rank R must be the inputs' rank plus 1").expect_rank(
        lhs.len() + 1,
        out_rank,
        lhs,
    )?;
    let dim = shape::dim(op, dim, lhs.len())?;
    let mut x = lhs.to_vec();
    x.insert(dim + 1, 1);
    let mut y = rhs.to_vec();
    y.insert(dim, 1);
    if shape::broadcast_dims(&x, &y).is_none() {
        return Err(
            Rule(op, "the dimensions other than `dim` must broadcast").shape_mismatch(&[lhs, rhs])
        );
    }
    Ok(dim)
}

/// The dims a norm reduces, resolved; with `extremum` (an infinite exponent: a max or min of
/// magnitudes), none of them empty (Flex and NdArray panic on an empty extremum).
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`], [`GuardError::Empty`].
///
/// ```
/// use burn_guard::check::linalg;
/// assert_eq!(linalg::norm_dims("vector_norm", &[2, 3], &[-1], false).unwrap(), vec![1]);
/// assert!(linalg::norm_dims("vector_norm", &[2, 3], &[5], false).is_err());
/// assert!(linalg::norm_dims("vector_norm", &[2, 0], &[1], true).is_err());
/// ```
pub fn norm_dims(
    op: &'static str,
    dims: &[usize],
    reduced: &[isize],
    extremum: bool,
) -> Result<Vec<usize>> {
    let reduced = super::reduce::dims(op, reduced, dims.len())?;
    if extremum {
        super::reduce::nonempty_dims(op, dims, &reduced)?;
    }
    Ok(reduced)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn det_refuses_what_burns_lu_path_expands() {
        assert!(det("det", &[0, 4, 4], DType::F32, 2, 1).is_err());
        assert!(det("det", &[0, 3, 3], DType::F32, 2, 1).is_ok());
        assert!(det("det", &[2, 0, 0], DType::F32, 2, 1).is_err());
    }
}
