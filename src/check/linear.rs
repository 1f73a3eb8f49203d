//! The linear rule: the shapes of `burn::tensor::module::linear` (twinned in
//! `tensor/linear.rs`), one rule for every layer that runs a linear: the `burn::nn::Linear`
//! twin (`nn/layers/linear.rs`) and the layers built on it, the backend-level
//! [`backend::linear`](crate::backend::linear) and the quantized layers.
//!
//! Pure functions over shapes; each names the burn check it mirrors.

use super::rule::Rule;
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

/// `linear(input, weight, bias)`: `input` is `[..., d_input]` of rank 1 or more, `weight` is
/// `[d_input, d_output]` (not transposed, unlike PyTorch), `bias` is `[d_output]`. burn checks
/// none of this for a float weight (the backend panics); it checks the same through
/// `matmul`/`add` for a quantized weight. Returns the shapes it implies.
///
/// One rule for every layer that runs a linear: the tensor twin
/// ([`try_linear`](crate::tensor::module::try_linear)), the backend-level
/// [`backend::linear`](crate::backend::linear) and the quantized layers.
///
/// A rank-1 input with no element is refused: burn's `linear` runs a rank-1 input through
/// `unsqueeze`, whose shape computation panics on it (burn 0.22.1: `index out of bounds` in
/// cubecl-zspace's `Shape`, before any backend runs; measured on Flex). The backend-level
/// [`backend::linear`](crate::backend::linear) could compute that case, but one operation gets
/// one verdict: where burn's `linear` panics, every layer refuses.
///
/// # Errors
///
/// - [`GuardError::RankMismatch`] when `weight` is not rank 2, `input` has rank 0 or `bias` is
///   not rank 1.
/// - [`GuardError::ShapeMismatch`] when `input`'s last dimension differs from `weight`'s first,
///   or `bias` from `weight`'s second.
/// - [`GuardError::Empty`] for an empty rank-1 input.
/// - [`GuardError::InvalidArgument`] when the input's element count overflows `usize`.
///
/// ```
/// use burn_guard::check::linear;
///
/// let shapes = linear::linear("linear", &[2, 5, 3], &[3, 4], Some(&[4]))?;
/// assert_eq!((shapes.rows, shapes.d_input, shapes.d_output), (10, 3, 4));
/// assert_eq!(shapes.output, vec![2, 5, 4]);
/// assert!(linear::linear("linear", &[2, 3], &[4, 5], None).is_err());
/// assert!(linear::linear("linear", &[2, 3], &[3, 5], Some(&[4])).is_err());
/// assert!(linear::linear("linear", &[0], &[0, 5], None).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn linear(
    op: &'static str,
    input: &[usize],
    weight: &[usize],
    bias: Option<&[usize]>,
) -> Result<LinearShapes> {
    let features = linear_features(op, input, weight, bias)?;
    let leading = input.split_last().map_or(&[][..], |(_, leading)| leading);
    let mut output = leading.to_vec();
    output.push(features.d_output);
    Ok(LinearShapes {
        x: input.to_vec(),
        rows: features.rows,
        d_input: features.d_input,
        d_output: features.d_output,
        output,
    })
}

/// What [`linear_features`] proved: [`LinearShapes`] without the shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LinearFeatures {
    pub rows: usize,
    pub d_input: usize,
    pub d_output: usize,
}

/// The [`linear`] rule, without building the input's and output's shapes: what the layer
/// twins run on every forward, so it allocates nothing unless it refuses.
pub(crate) fn linear_features(
    op: &'static str,
    input: &[usize],
    weight: &[usize],
    bias: Option<&[usize]>,
) -> Result<LinearFeatures> {
    let [d_input, d_output] = Rule(op, "weight must be [d_input, d_output]").dims(weight)?;
    let Some((&last, leading)) = input.split_last() else {
        return Err(GuardError::RankMismatch {
            op,
            rule: "input must have rank 1 or more",
            expected: 1,
            got: 0,
            shape: Vec::new(),
        });
    };
    Rule(
        op,
        "input's last dimension must equal weight's first (weight is [d_input, d_output])",
    )
    .shapes_agree(last == d_input, &[input, weight])?;
    match bias {
        None => {}
        Some(&[d]) if d == d_output => {}
        Some(bias @ &[_]) => {
            return Err(
                Rule(op, "bias must be [d_output], weight's second dimension")
                    .shape_mismatch(&[weight, bias]),
            );
        }
        Some(bias) => {
            return Err(Rule(op, "bias must be [d_output]").rank_mismatch(1, bias.len(), bias));
        }
    }
    if leading.is_empty() && d_input == 0 {
        return Err(Rule(
            op,
            "a rank-1 input must not be empty (burn's unsqueeze panics on a zero-sized dim)",
        )
        .empty(input, Some(0)));
    }
    let rows = leading
        .iter()
        .try_fold(1usize, |acc, d| acc.checked_mul(*d))
        .ok_or_else(|| {
            Rule(op, "the input's element count must fit in usize")
                .invalid(format!("shape={input:?}"))
        })?;
    Ok(LinearFeatures {
        rows,
        d_input,
        d_output,
    })
}

/// `linear_backward(x, weight, output_grad)`: the [`linear`] rules for `x` and `weight`, and
/// `output_grad` of shape `[..., d_output]` with `x`'s leading dimensions.
///
/// # Errors
///
/// What [`linear`] returns for `x` and `weight`, and [`GuardError::ShapeMismatch`] for
/// `output_grad`.
///
/// ```
/// use burn_guard::check::linear::linear_backward;
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
    Rule(
        op,
        "output_grad must be [..., d_output] with the input's leading dimensions",
    )
    .shapes_agree(
        output_grad == shapes.output.as_slice(),
        &[x, weight, output_grad],
    )?;
    Ok(shapes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::TestResult;

    #[test]
    fn linear_rules() -> TestResult {
        for x in [vec![3], vec![2, 3], vec![4, 2, 3], vec![1, 4, 2, 3]] {
            let s = linear("linear", &x, &[3, 5], Some(&[5]))?;
            assert_eq!(s.output.last(), Some(&5));
            assert_eq!(s.output.len(), x.len());
            assert_eq!(s.rows, x.iter().product::<usize>() / 3);
        }
        assert_eq!(linear("linear", &[3], &[3, 2], None)?.output, vec![2]);
        assert_eq!(linear("linear", &[0, 3], &[3, 2], None)?.rows, 0);
        let rank = |err: GuardError| match err {
            GuardError::RankMismatch { expected, got, .. } => Some((expected, got)),
            _ => None,
        };
        let refused =
            |result: Result<LinearShapes>| result.err().ok_or("linear: expected an error");
        assert_eq!(
            rank(refused(linear("linear", &[], &[3, 5], None))?),
            Some((1, 0))
        );
        assert_eq!(
            rank(refused(linear("linear", &[2, 3], &[3], None))?),
            Some((2, 1))
        );
        assert_eq!(
            rank(refused(linear("linear", &[2, 3], &[3, 5], Some(&[1, 5])))?),
            Some((1, 2))
        );
        let err = refused(linear("linear", &[2, 3], &[4, 2], None))?;
        assert!(matches!(&err, GuardError::ShapeMismatch { shapes, .. }
            if shapes == &[vec![2, 3], vec![4, 2]]));
        let err = refused(linear("linear", &[2, 3], &[3, 2], Some(&[3])))?;
        assert!(matches!(&err, GuardError::ShapeMismatch { shapes, .. }
            if shapes == &[vec![3, 2], vec![3]]));
        let err = refused(linear("linear", &[0], &[0, 2], None))?;
        assert!(matches!(&err, GuardError::Empty { shape, dim: Some(0), .. } if shape == &[0]));
        let err = refused(linear_backward(
            "linear_backward",
            &[2, 3],
            &[3, 5],
            &[3, 5],
        ))?;
        assert!(matches!(&err, GuardError::ShapeMismatch { shapes, .. }
            if shapes == &[vec![2, 3], vec![3, 5], vec![3, 5]]));
        Ok(())
    }
}
