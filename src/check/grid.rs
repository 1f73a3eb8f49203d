//! Rules of the grid functions: `burn::tensor::grid::affine_grid_2d`, `meshgrid` and
//! `meshgrid_stack` (twinned in `tensor/grid.rs`) and `Tensor::grid_sample_2d` (twinned with the element-wise float ops,
//! `tensor/elementwise.rs`).
//!
//! Pure functions over shapes and modes; each names the burn check it mirrors.

use burn::tensor::ops::InterpolateMode;

use super::rule::Rule;
use crate::check::quirks::Quirks;
use crate::check::shape;
use crate::error::{GuardError, Result};

/// `affine_grid_2d(transform, dims)`: simulates burn's construction. `batch`, `height` and
/// `width` must be non-zero (burn's `reshape`/`expand` panic on a 0), the slices
/// `transform[.., i, j]` must broadcast against `[batch, height, width]`
/// (`TensorCheck::binary_ops_ew`), and the two grids must have equal shapes
/// (`TensorCheck::stack`; stacking on the last dim never moves a zero-sized dim, so burn's
/// reshape bug does not fire). Returns the output shape.
///
/// # Errors
///
/// [`GuardError::Empty`] for a zero size; [`GuardError::ShapeMismatch`] for a
/// transform that does not broadcast or gives unequal grids.
///
/// ```
/// use burn_guard::check::grid;
/// assert_eq!(grid::affine_grid_2d("affine_grid_2d", &[2, 2, 3], [2, 1, 4, 5]).unwrap(), vec![2, 4, 5, 2]);
/// assert!(grid::affine_grid_2d("affine_grid_2d", &[3, 2, 3], [2, 1, 4, 5]).is_err());
/// ```
pub fn affine_grid_2d(
    op: &'static str,
    transform: &[usize],
    dims: [usize; 4],
) -> Result<Vec<usize>> {
    let [batch, _, height, width] = dims;
    if batch == 0 || height == 0 || width == 0 {
        return Err(Rule(op, "batch, height and width must be non-zero").empty(
            &dims,
            [0, 2, 3].into_iter().find(|&d| dims.get(d) == Some(&0)),
        ));
    }
    let (Some(&b), Some(&rows), Some(&cols)) =
        (transform.first(), transform.get(1), transform.get(2))
    else {
        return Err(Rule(op, "transform must have rank 3").shape_mismatch(&[transform]));
    };
    // `transform.slice(s![.., i, j])` clamps an index past the end to an empty range.
    let entry = |i: usize, j: usize| vec![b, usize::from(i < rows), usize::from(j < cols)];
    let grid = [batch, height, width];
    let row = |i: usize| -> Result<Vec<usize>> {
        let a = shape::broadcast(op, &entry(i, 0), &grid)?;
        let c = shape::broadcast(op, &entry(i, 1), &grid)?;
        let sum = shape::broadcast(op, &a, &c)?;
        shape::broadcast(op, &sum, &entry(i, 2))
    };
    let grid_x = row(0)?;
    let grid_y = row(1)?;
    Rule(op, "transform must have shape [batch, 2, 3]")
        .shapes_agree(grid_x == grid_y, &[transform])?;
    let mut out = grid_x;
    out.push(2);
    Ok(out)
}

/// `grid_sample_2d(input, grid)`: burn checks nothing; the backends assert (Flex: `input must
/// be 4D`, `grid last dim must be 2`, `batch size mismatch`; NdArray the same through its own
/// asserts or a shape error). The input is `[N, C, H_in, W_in]` and the grid
/// `[N, H_out, W_out, 2]`. Both must be rank 4, the grid's last dimension 2 and the batch
/// sizes equal.
///
/// # Errors
///
/// - [`GuardError::RankMismatch`] for a tensor of another rank.
/// - [`GuardError::ShapeMismatch`] for the grid's last dimension or the batch sizes.
///
/// ```
/// use burn_guard::check::grid;
/// assert!(grid::grid_sample_2d("grid_sample_2d", &[1, 2, 3, 3], &[1, 4, 4, 2]).is_ok());
/// assert!(grid::grid_sample_2d("grid_sample_2d", &[1, 2, 3, 3], &[1, 4, 4, 3]).is_err());
/// assert!(grid::grid_sample_2d("grid_sample_2d", &[2, 2, 3, 3], &[1, 4, 4, 2]).is_err());
/// assert!(grid::grid_sample_2d("grid_sample_2d", &[2, 3, 3], &[2, 4, 2]).is_err());
/// ```
pub fn grid_sample_2d(op: &'static str, input: &[usize], grid: &[usize]) -> Result<()> {
    for (shape, rule) in [
        (input, "the input must be [batch, channels, height, width]"),
        (grid, "the grid must be [batch, height_out, width_out, 2]"),
    ] {
        Rule(op, rule).rank(shape, 4)?;
    }
    let mismatch = |rule| Rule(op, rule).shape_mismatch(&[input, grid]);
    if grid.get(3) != Some(&2) {
        return Err(mismatch("the grid's last dimension must be 2 (x, y)"));
    }
    if input.first() != grid.first() {
        return Err(mismatch(
            "the input and the grid must have the same batch size",
        ));
    }
    Ok(())
}

/// `grid_sample_2d` on the CPU backends: Flex implements `Bilinear` and `Nearest` and panics on
/// `Bicubic` ("Bicubic mode is not supported"); NdArray implements `Bilinear` only and panics
/// (`not yet implemented`) on the others. `quirks` are the input's backend's
/// (`grid_sample_modes`); a backend without a row is left to answer.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the mode and backend.
///
/// ```
/// use burn::tensor::ops::InterpolateMode;
/// use burn_guard::capability::{FLEX_QUIRKS, NDARRAY_QUIRKS};
/// use burn_guard::check::grid;
/// assert!(grid::grid_sample_mode("grid_sample_2d", &InterpolateMode::Nearest, &FLEX_QUIRKS).is_ok());
/// assert!(grid::grid_sample_mode("grid_sample_2d", &InterpolateMode::Nearest, &NDARRAY_QUIRKS).is_err());
/// assert!(grid::grid_sample_mode("grid_sample_2d", &InterpolateMode::Bicubic, &FLEX_QUIRKS).is_err());
/// ```
pub fn grid_sample_mode(op: &'static str, mode: &InterpolateMode, quirks: &Quirks) -> Result<()> {
    Rule(op, "the backend does not implement this grid sampling mode").mode_implemented(
        quirks.grid_sample_modes,
        mode,
        quirks,
    )
}

/// `meshgrid(tensors, options)`: burn reshapes input `i` to a shape whose only non-1 entry is
/// its length (a length of 0 reads as "keep the source dim", which only exists for `i == 0`) and,
/// when dense, expands it to the grid (which refuses a 0). So an empty input panics when the grid
/// is dense, or when it is not the first input. Returns the grid shape.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the empty input.
///
/// ```
/// use burn_guard::check::grid::meshgrid;
/// assert_eq!(meshgrid("meshgrid", &[2, 3], true).unwrap(), vec![2, 3]);
/// assert!(meshgrid("meshgrid", &[2, 0], true).is_err());
/// assert!(meshgrid("meshgrid", &[0, 2], false).is_ok());
/// ```
pub fn meshgrid(op: &'static str, lengths: &[usize], dense: bool) -> Result<Vec<usize>> {
    if let Some(index) = lengths
        .iter()
        .enumerate()
        .position(|(i, &len)| len == 0 && (dense || i > 0))
    {
        return Err(GuardError::InvalidArgument {
            op,
            rule: if dense {
                "a dense grid cannot have an empty input"
            } else {
                "a sparse grid can have an empty input only in first position"
            },
            got: format!("input={index}, lengths={lengths:?}"),
        });
    }
    Ok(lengths.to_vec())
}

/// `meshgrid_stack::<D, D2>(tensors, index_pos)`: `D2 == D + 1` (`assert_eq!`), at least one input
/// (burn stacks an empty list), then the dense [`meshgrid`] rule. Returns the grid shape.
///
/// # Errors
///
/// [`GuardError::RankMismatch`]; [`GuardError::OutOfRange`] for no input;
/// [`GuardError::InvalidArgument`] for an empty input.
///
/// ```
/// use burn_guard::check::grid::meshgrid_stack;
/// assert_eq!(meshgrid_stack("meshgrid_stack", &[2, 3], 3).unwrap(), vec![2, 3]);
/// assert!(meshgrid_stack("meshgrid_stack", &[2, 3], 2).is_err());
/// ```
pub fn meshgrid_stack(op: &'static str, lengths: &[usize], rank_out: usize) -> Result<Vec<usize>> {
    let rank = lengths.len();
    Rule(
        op,
        "meshgrid_stack adds one dimension: the output rank must be the number of inputs + 1",
    )
    .expect_rank(rank + 1, rank_out, lengths)?;
    super::shape::nonempty_list(op, lengths.len())?;
    meshgrid(op, lengths, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::TestResult;
    use crate::check::test_support::{assert_refused, at_least, kind_rule, out_of_range, refused};
    use crate::error::ErrorKind;

    #[test]
    fn affine_grid_rules() -> TestResult {
        assert_eq!(
            affine_grid_2d("a", &[1, 2, 3], [3, 1, 2, 2])?,
            vec![3, 2, 2, 2]
        );
        let err = refused(
            "affine_grid_2d",
            affine_grid_2d("a", &[1, 2, 3], [3, 1, 0, 2]),
        )?;
        assert!(matches!(&err, GuardError::Empty { shape, dim: Some(2), .. }
            if shape == &[3, 1, 0, 2]));
        let err = refused(
            "affine_grid_2d",
            affine_grid_2d("a", &[1, 1, 3], [1, 1, 2, 2]),
        )?;
        assert!(matches!(err, GuardError::ShapeMismatch { .. }));
        Ok(())
    }

    #[test]
    fn meshgrid_table() -> TestResult {
        assert_refused(
            meshgrid("meshgrid", &[0, 2], true),
            kind_rule(
                ErrorKind::InvalidArgument,
                "a dense grid cannot have an empty input",
            ),
        );
        assert_refused(
            meshgrid("meshgrid", &[2, 0], false),
            kind_rule(
                ErrorKind::InvalidArgument,
                "a sparse grid can have an empty input only in first position",
            ),
        );
        assert_refused(
            meshgrid_stack("meshgrid_stack", &[], 1),
            out_of_range("tensors", 0, at_least(1)),
        );
        assert_refused(
            meshgrid_stack("meshgrid_stack", &[0, 2], 3),
            kind_rule(
                ErrorKind::InvalidArgument,
                "a dense grid cannot have an empty input",
            ),
        );
        assert_refused(
            meshgrid_stack("meshgrid_stack", &[2, 2], 4),
            kind_rule(
                ErrorKind::RankMismatch,
                "meshgrid_stack adds one dimension: the output rank must be the number of inputs + 1",
            ),
        );
        Ok(())
    }
}
