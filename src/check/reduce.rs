//! Checks for the reduction and ordering family: sum/mean/prod/max/min/max_abs over dims, argmax/argmin, sort/argsort, topk, cumulative ops, median, var/cov, any_dim/all_dim.
//!
//! Pure functions over shapes, dims and scalars; each names the burn check it mirrors.
//! Dims are resolved first with [`dim`](crate::check::dim) (or [`dims`] for a list); the
//! functions here take resolved dims.

use super::rule::Rule;
use super::view::{unit_dims, without_dims};
use crate::check::shape;
#[cfg(doc)]
use crate::error::GuardError;
use crate::error::Result;

/// Resolves every dim of a list against `rank`, in order, as burn's `*_dims` methods do
/// (`unwrap_dim_index` on each element).
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`] for the first bad dim.
///
/// ```
/// use burn_guard::check::reduce;
/// assert_eq!(reduce::dims("sum_dims", &[0, -1], 3).unwrap(), vec![0, 2]);
/// assert!(reduce::dims("sum_dims", &[0, 3], 3).is_err());
/// ```
pub fn dims(op: &'static str, dims: &[isize], rank: usize) -> Result<Vec<usize>> {
    dims.iter().map(|&d| shape::dim(op, d, rank)).collect()
}

/// The size of `dim` in `shape` (0 when `dim` is out of range, which a resolved dim never is).
fn size_of(shape: &[usize], dim: usize) -> usize {
    shape.get(dim).copied().unwrap_or(0)
}

/// The dimension reduced by an extremum (max, min, argmax, argmin, max_abs), a median, a
/// variance or an int mean must not be empty. Returns its size.
///
/// Mirrors: for int `mean_dim`, burn's own `assert!` (bridge `ops/int.rs`); for `var` and
/// `var_mean`, the `shape[dim] - 1` underflow of burn's `stats::var_with_mean` (a panic in
/// debug builds, a meaningless 0 in release); for `median`, the same underflow in
/// `stats::median`; for max/min/arg*/max_abs, a panic of the backend (Flex and NdArray both
/// panic: an empty set has no extremum), which burn does not check.
///
/// # Errors
///
/// [`GuardError::Empty`] with the shape and the dim.
///
/// ```
/// use burn_guard::check::reduce;
/// assert_eq!(reduce::nonempty_dim("max_dim", &[2, 3], 1).unwrap(), 3);
/// let err = reduce::nonempty_dim("max_dim", &[2, 0], 1).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "max_dim: the reduced dimension must not be empty; got shape [2, 0] (dim 1)"
/// );
/// ```
pub fn nonempty_dim(op: &'static str, shape: &[usize], dim: usize) -> Result<usize> {
    let size = size_of(shape, dim);
    if size == 0 {
        Err(Rule(op, "the reduced dimension must not be empty").empty(shape, Some(dim)))
    } else {
        Ok(size)
    }
}

/// [`nonempty_dim`] for each dim of a list (already resolved), as burn's `max_dims`,
/// `min_dims`, `max_abs_dims` and int `mean_dims` fold over the list: a dim is reduced to
/// size 1 after its first occurrence, so only the original sizes matter.
///
/// # Errors
///
/// [`GuardError::Empty`] for the first empty dim.
pub fn nonempty_dims(op: &'static str, shape: &[usize], dims: &[usize]) -> Result<()> {
    dims.iter()
        .try_for_each(|&dim| nonempty_dim(op, shape, dim).map(|_| ()))
}

/// A full reduction to an extremum (`max`, `min`, `max_abs`) needs at least one element:
/// burn does not check it, Flex panics (`cannot reduce an empty tensor`) and NdArray too
/// (`Cannot compute max of empty tensor`). An empty set has no extremum.
///
/// # Errors
///
/// [`GuardError::Empty`] with the shape.
///
/// ```
/// use burn_guard::check::reduce;
/// assert!(reduce::nonempty("max", &[2, 3]).is_ok());
/// assert!(reduce::nonempty("max", &[2, 0]).is_err());
/// ```
pub fn nonempty(op: &'static str, shape: &[usize]) -> Result<()> {
    if shape.contains(&0) {
        Err(Rule(op, "an empty tensor has no extremum").empty(shape, None))
    } else {
        Ok(())
    }
}

/// The mean of an int tensor needs at least one element (burn's `assert!` in the bridge's
/// int `mean`: an integer has no `NaN`).
///
/// # Errors
///
/// [`GuardError::Empty`] with the shape.
///
/// ```
/// use burn_guard::check::reduce;
/// assert!(reduce::int_mean("mean", &[2, 3]).is_ok());
/// assert!(reduce::int_mean("mean", &[2, 0]).is_err());
/// ```
pub fn int_mean(op: &'static str, shape: &[usize]) -> Result<()> {
    if shape.contains(&0) {
        Err(Rule(op, "the mean of an empty int tensor is undefined").empty(shape, None))
    } else {
        Ok(())
    }
}

/// `topk(k, dim)`: `k <= shape[dim]` (`TensorCheck::topk`). Returns the output shape.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] with `k` and the dimension size.
///
/// ```
/// use burn_guard::check::reduce;
/// assert_eq!(reduce::topk("topk", 3, &[2, 3], 1).unwrap(), vec![2, 3]);
/// let err = reduce::topk("topk", 4, &[2, 3], 1).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "topk: k must not exceed the dimension size; got k=4, expected at most 3"
/// );
/// ```
pub fn topk(op: &'static str, k: usize, shape: &[usize], dim: usize) -> Result<Vec<usize>> {
    let size = size_of(shape, dim);
    Rule(op, "k must not exceed the dimension size").at_most("k", k, size)?;
    Ok(with_size(shape, dim, k))
}

/// `argtopk(k, dim)`: `k < shape[dim]`, burn's `assert!(self.shape()[dim] > k)` — stricter
/// than [`topk`], which accepts `k == shape[dim]`. Returns the output shape.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] with `k` and the dimension size.
///
/// ```
/// use burn_guard::check::reduce;
/// assert!(reduce::argtopk("argtopk", 2, &[2, 3], 1).is_ok());
/// assert!(reduce::argtopk("argtopk", 3, &[2, 3], 1).is_err());
/// ```
pub fn argtopk(op: &'static str, k: usize, shape: &[usize], dim: usize) -> Result<Vec<usize>> {
    let size = size_of(shape, dim);
    Rule(op, "k must be less than the dimension size").below("k", k, size)?;
    Ok(with_size(shape, dim, k))
}

/// `shape` with `dim` set to `size`.
fn with_size(shape: &[usize], dim: usize, size: usize) -> Vec<usize> {
    let mut out = shape.to_vec();
    if let Some(slot) = out.get_mut(dim) {
        *slot = size;
    }
    out
}

/// The shape a reduction along `dim` keeps: `shape` with `dim` set to 1.
///
/// ```
/// use burn_guard::check::reduce;
/// assert_eq!(reduce::reduced_shape(&[2, 3], 1), vec![2, 1]);
/// ```
pub fn reduced_shape(shape: &[usize], dim: usize) -> Vec<usize> {
    with_size(shape, dim, 1)
}

/// `sum_dims_squeeze::<D2>(dims)`: the conditions of `squeeze_dims::<D2>` applied to the
/// summed shape (`TensorCheck::squeeze_dims_input` and `TensorCheck::squeeze_dims_len`).
/// `dims` are the resolved dims; with an empty list burn squeezes every dimension of size 1
/// instead. Returns the output shape.
///
/// # Errors
///
/// - [`GuardError::InvalidArgument`] when every dimension would be squeezed.
/// - [`GuardError::RankMismatch`] when `rank_out` is not the rank left after squeezing.
///
/// ```
/// use burn_guard::check::reduce;
/// assert_eq!(reduce::sum_dims_squeeze("sum_dims_squeeze", &[2, 3, 4], &[1], 2).unwrap(), vec![2, 4]);
/// assert!(reduce::sum_dims_squeeze("sum_dims_squeeze", &[2, 3, 4], &[1], 3).is_err());
/// assert!(reduce::sum_dims_squeeze("sum_dims_squeeze", &[2, 3], &[0, 1], 1).is_err());
/// ```
pub fn sum_dims_squeeze(
    op: &'static str,
    shape: &[usize],
    dims: &[usize],
    rank_out: usize,
) -> Result<Vec<usize>> {
    let mut squeezed = if dims.is_empty() {
        unit_dims(shape)
    } else {
        dims.to_vec()
    };
    squeezed.sort_unstable();
    squeezed.dedup();
    if squeezed.len() >= shape.len() {
        return Err(Rule(op, "cannot squeeze every dimension")
            .invalid(format!("dims={squeezed:?} (shape {shape:?})")));
    }
    let out = without_dims(shape, &squeezed);
    if out.len() != rank_out {
        return Err(Rule(
            op,
            "the output rank must be the input rank minus the squeezed dimensions",
        )
        .rank_mismatch(out.len(), rank_out, shape));
    }
    Ok(out)
}

/// `cov` multiplies the centred tensor by its transpose, so it needs rank ≥ 2
/// (`TensorCheck::matmul`, reached through `cov`).
///
/// # Errors
///
/// [`GuardError::RankMismatch`] for rank < 2.
///
/// ```
/// use burn_guard::check::reduce;
/// assert!(reduce::cov("cov", &[3, 2]).is_ok());
/// assert!(reduce::cov("cov", &[3]).is_err());
/// ```
pub fn cov(op: &'static str, shape: &[usize]) -> Result<()> {
    Rule(op, "cov needs a tensor of rank 2 or more").rank_at_least(shape, 2)
}

/// `any_dim`/`all_dim` of a tensor with no elements: the result is known without reading
/// anything — the reduced shape, filled with the identity of the reduction (`false` for
/// `any`, `true` for `all`; no element at all when another dimension is empty). Returns the
/// reduced shape in that case, `None` when the tensor has elements.
///
/// Not a refusal: backends disagree on such input. Flex panics when another dimension is
/// empty, wgpu panics on every empty input, NdArray computes the identity. The twin builds the
/// result itself instead of dispatching.
///
/// ```
/// use burn_guard::check::reduce;
/// assert_eq!(reduce::empty_any_all(&[2, 0, 3], 0), Some(vec![1, 0, 3]));
/// assert_eq!(reduce::empty_any_all(&[2, 0, 3], 1), Some(vec![2, 1, 3]));
/// assert_eq!(reduce::empty_any_all(&[2, 3], 0), None);
/// ```
pub fn empty_any_all(shape: &[usize], dim: usize) -> Option<Vec<usize>> {
    if shape.contains(&0) {
        Some(reduced_shape(shape, dim))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::{bound, ranks, refused, row};
    use crate::error::{GuardError, Limit};

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    /// (dims, rank, resolved dims or `None` for an error)
    type DimsRow = (&'static [isize], usize, Option<Vec<usize>>);
    /// (shape, dims, rank_out, output shape or the error text)
    type SqueezeRow = (
        &'static [usize],
        &'static [usize],
        usize,
        Result<Vec<usize>, &'static str>,
    );

    #[test]
    fn dims_table() -> TestResult {
        let rows: [DimsRow; 5] = [
            (&[], 2, Some(vec![])),
            (&[0, -1], 2, Some(vec![0, 1])),
            (&[1, 1], 2, Some(vec![1, 1])),
            (&[0, 2], 2, None),
            (&[-3], 2, None),
        ];
        for (list, rank, expected) in rows {
            let got = dims("sum_dims", list, rank);
            match expected {
                Some(expected) => assert_eq!(got?, expected),
                None => {
                    let err = got.err().ok_or("dims: expected an error")?;
                    assert!(
                        matches!(err, GuardError::DimOutOfRange { rank: 2, dim, .. } if list.contains(&dim)),
                        "{err}"
                    );
                }
            }
        }
        Ok(())
    }

    #[test]
    fn nonempty_table() {
        let rows: [(&[usize], usize, bool); 5] = [
            (&[2, 3], 0, true),
            (&[2, 0], 0, true),
            (&[2, 0], 1, false),
            (&[0], 0, false),
            (&[1], 0, true),
        ];
        for (shape, dim, ok) in rows {
            match nonempty_dim("argmax", shape, dim) {
                Ok(size) => {
                    assert!(ok, "{shape:?} {dim}");
                    assert_eq!(size, shape[dim]);
                }
                Err(err) => {
                    assert!(!ok, "{shape:?} {dim}");
                    assert!(matches!(
                        &err,
                        GuardError::Empty { shape: s, dim: Some(d), .. } if s == shape && *d == dim
                    ));
                }
            }
        }
        assert!(nonempty_dims("max_dims", &[2, 0, 3], &[0, 2]).is_ok());
        assert!(nonempty_dims("max_dims", &[2, 0, 3], &[0, 1]).is_err());
        assert!(nonempty_dims("max_dims", &[2, 0, 3], &[]).is_ok());
    }

    #[test]
    fn int_mean_table() -> TestResult {
        assert!(int_mean("mean", &[1]).is_ok());
        for shape in [&[0][..], &[3, 0], &[0, 0, 1]] {
            let err = refused("int_mean", int_mean("mean", shape))?;
            assert!(matches!(
                &err,
                GuardError::Empty { op: "mean", shape: s, dim: None, .. } if s == shape
            ));
        }
        Ok(())
    }

    #[test]
    fn topk_and_argtopk_table() {
        // (k, size, topk ok, argtopk ok)
        let rows = [
            (0, 0, true, false),
            (0, 3, true, true),
            (2, 3, true, true),
            (3, 3, true, false),
            (4, 3, false, false),
        ];
        for (k, size, topk_ok, argtopk_ok) in rows {
            let shape = [2, size];
            let checks = [
                (
                    "topk",
                    topk("topk", k, &shape, 1),
                    topk_ok,
                    Limit::AtMost(size.into()),
                ),
                (
                    "argtopk",
                    argtopk("argtopk", k, &shape, 1),
                    argtopk_ok,
                    Limit::Below(size.into()),
                ),
            ];
            for (name, result, ok, limit) in checks {
                match result {
                    Ok(out) => {
                        assert!(ok, "{name} k={k} size={size}");
                        assert_eq!(out, vec![2, k]);
                    }
                    Err(err) => {
                        assert!(!ok, "{name} k={k} size={size}");
                        assert_eq!(bound(&err), Some(("k", k.into(), limit)));
                    }
                }
            }
        }
    }

    #[test]
    fn sum_dims_squeeze_table() -> TestResult {
        // (shape, dims, rank_out, expected output shape or error text)
        let rows: [SqueezeRow; 8] = [
            (&[2, 3, 4], &[1], 2, Ok(vec![2, 4])),
            (&[2, 3, 4], &[1, 1], 2, Ok(vec![2, 4])),
            (&[2, 3, 4], &[0, 2], 1, Ok(vec![3])),
            (&[2, 1, 4], &[], 2, Ok(vec![2, 4])),
            (&[2, 3, 4], &[], 3, Ok(vec![2, 3, 4])),
            (&[2, 3], &[0, 1], 0, Err("cannot squeeze every dimension")),
            (&[1, 1], &[], 0, Err("cannot squeeze every dimension")),
            (
                &[2, 3, 4],
                &[1],
                3,
                Err("the output rank must be the input rank minus the squeezed dimensions"),
            ),
        ];
        for (shape, list, rank_out, expected) in rows {
            let got = sum_dims_squeeze("sum_dims_squeeze", shape, list, rank_out);
            row(
                &format!("{shape:?} {list:?}"),
                expected,
                got,
                |err| match err {
                    GuardError::InvalidArgument { rule, .. } if rule.starts_with("cannot") => {
                        Some(rule)
                    }
                    GuardError::RankMismatch {
                        rule,
                        expected: 2,
                        got: 3,
                        ..
                    } => Some(rule),
                    _ => None,
                },
            )?;
        }
        Ok(())
    }

    #[test]
    fn cov_and_any_all() -> TestResult {
        assert!(cov("cov", &[2, 2]).is_ok());
        let err = cov("cov", &[4]).err().ok_or("cov: expected an error")?;
        assert_eq!(ranks(&err), Some((2, 1)));
        assert_eq!(empty_any_all(&[0, 2], 1), Some(vec![0, 1]));
        assert_eq!(empty_any_all(&[0, 2], 0), Some(vec![1, 2]));
        assert_eq!(empty_any_all(&[0, 0], 0), Some(vec![1, 0]));
        assert_eq!(empty_any_all(&[1, 2], 0), None);
        assert_eq!(reduced_shape(&[4, 5, 6], 2), vec![4, 5, 1]);
        Ok(())
    }
}
