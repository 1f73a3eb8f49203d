//! Pure shape checks for the backend-level linear layer: shapes in, `Result` out.
//!
//! They mirror the rules of burn's `linear` (burn-tensor `src/tensor/module.rs`, burn-backend
//! `ops/modules/linear.rs`): `x` is `[..., d_input]` of rank 1 or more, `weight` is
//! `[d_input, d_output]` (not transposed, unlike PyTorch), `bias` is `[d_output]`.

use crate::error::{GuardError, Result};

/// What [`linear`] proved about a linear layer's shapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinearShapes {
    /// The input's shape, `[..., d_input]`.
    pub x: Vec<usize>,
    /// The number of rows once every leading dimension of `x` is folded into one
    /// (1 for a rank-1 input).
    pub rows: usize,
    /// The input features, `weight`'s first dimension.
    pub d_input: usize,
    /// The output features, `weight`'s second dimension.
    pub d_output: usize,
    /// The output's shape, `[..., d_output]`.
    pub output: Vec<usize>,
}

/// Checks the shapes of `linear(x, weight, bias)` and returns the shapes it implies.
///
/// # Errors
///
/// - [`GuardError::RankMismatch`] when `x` has rank 0, `weight` is not rank 2 or `bias` is not
///   rank 1.
/// - [`GuardError::ShapeMismatch`] when `x`'s last dimension differs from `weight`'s first, or
///   `bias` differs from `weight`'s second dimension.
///
/// ```
/// use burn_guard::backend::check::linear;
///
/// let shapes = linear("linear", &[2, 5, 3], &[3, 4], Some(&[4]))?;
/// assert_eq!((shapes.rows, shapes.d_input, shapes.d_output), (10, 3, 4));
/// assert_eq!(shapes.output, vec![2, 5, 4]);
/// assert!(linear("linear", &[2, 5], &[3, 4], None).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn linear(
    op: &'static str,
    x: &[usize],
    weight: &[usize],
    bias: Option<&[usize]>,
) -> Result<LinearShapes> {
    let (d_input, d_output) = match weight {
        [d_input, d_output] => (*d_input, *d_output),
        _ => {
            return Err(GuardError::RankMismatch {
                op,
                rule: "weight must be [d_input, d_output]",
                expected: 2,
                got: weight.len(),
                shape: weight.to_vec(),
            });
        }
    };
    let Some((last, leading)) = x.split_last() else {
        return Err(GuardError::RankMismatch {
            op,
            rule: "input must have rank 1 or more",
            expected: 1,
            got: 0,
            shape: Vec::new(),
        });
    };
    if *last != d_input {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "input's last dimension must equal weight's first (weight is [d_input, d_output])",
            shapes: vec![x.to_vec(), weight.to_vec()],
        });
    }
    if let Some(bias) = bias {
        match bias {
            [d] if *d == d_output => {}
            [_] => {
                return Err(GuardError::ShapeMismatch {
                    op,
                    rule: "bias must be [d_output], weight's second dimension",
                    shapes: vec![weight.to_vec(), bias.to_vec()],
                });
            }
            _ => {
                return Err(GuardError::RankMismatch {
                    op,
                    rule: "bias must be [d_output]",
                    expected: 1,
                    got: bias.len(),
                    shape: bias.to_vec(),
                });
            }
        }
    }
    let rows = leading
        .iter()
        .try_fold(1usize, |acc, d| acc.checked_mul(*d))
        .ok_or_else(|| GuardError::InvalidArgument {
            op,
            rule: "the input's element count must fit in usize",
            got: format!("shape={x:?}"),
        })?;
    let mut output = leading.to_vec();
    output.push(d_output);
    Ok(LinearShapes {
        x: x.to_vec(),
        rows,
        d_input,
        d_output,
        output,
    })
}

/// Checks the shapes of `linear_backward(x, weight, bias_present, output_grad)`.
///
/// # Errors
///
/// What [`linear`] returns for `x` and `weight`, and [`GuardError::ShapeMismatch`] when
/// `output_grad` is not `[..., d_output]` with `x`'s leading dimensions.
///
/// ```
/// use burn_guard::backend::check::linear_backward;
///
/// let shapes = linear_backward("linear_backward", &[2, 3], &[3, 4], &[2, 4])?;
/// assert_eq!(shapes.output, vec![2, 4]);
/// assert!(linear_backward("linear_backward", &[2, 3], &[3, 4], &[2, 5]).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn linear_backward(
    op: &'static str,
    x: &[usize],
    weight: &[usize],
    output_grad: &[usize],
) -> Result<LinearShapes> {
    let shapes = linear(op, x, weight, None)?;
    if output_grad != shapes.output.as_slice() {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "output_grad must be [..., d_output] with the input's leading dimensions",
            shapes: vec![x.to_vec(), weight.to_vec(), output_grad.to_vec()],
        });
    }
    Ok(shapes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_one_to_four() -> Result<()> {
        for x in [vec![3], vec![2, 3], vec![4, 2, 3], vec![1, 4, 2, 3]] {
            let s = linear("linear", &x, &[3, 5], Some(&[5]))?;
            assert_eq!(s.output.last(), Some(&5));
            assert_eq!(s.output.len(), x.len());
            assert_eq!(s.rows, x.iter().product::<usize>() / 3);
        }
        Ok(())
    }

    #[test]
    fn refusals() {
        assert!(matches!(
            linear("linear", &[], &[3, 5], None),
            Err(GuardError::RankMismatch { .. })
        ));
        assert!(matches!(
            linear("linear", &[2, 3], &[3], None),
            Err(GuardError::RankMismatch { .. })
        ));
        assert!(matches!(
            linear("linear", &[2, 3], &[3, 5], Some(&[4])),
            Err(GuardError::ShapeMismatch { .. })
        ));
        assert!(matches!(
            linear("linear", &[2, 3], &[3, 5], Some(&[1, 5])),
            Err(GuardError::RankMismatch { .. })
        ));
        assert!(matches!(
            linear_backward("linear_backward", &[2, 3], &[3, 5], &[3, 5]),
            Err(GuardError::ShapeMismatch { .. })
        ));
    }
}
