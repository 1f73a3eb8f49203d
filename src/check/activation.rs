//! Rules of the activation functions (`burn::tensor::activation`, twinned in
//! `tensor/activation.rs`) and of the `burn::nn` activation layers (`nn/layers/activation.rs`):
//! the shapes of `glu` and `prelu`.
//!
//! Pure functions over shapes; each names the burn check it mirrors. The numbers the
//! activation configs assert on (HardTanh's and RReLU's bounds, CELU's alpha) are config rules
//! that other layers share, in [`layer`](super::layer).

use super::rule::Rule;
use crate::check::shape;
#[cfg(doc)]
use crate::error::GuardError;
use crate::error::Result;

/// `glu(tensor, dim)`: `dim` in `-D..D` (`unwrap_dim_index`) and an even size along it
/// (`assert!` in `activation::glu`). Returns the resolved dim and the output shape (the size
/// along `dim` halved).
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`] for a bad dim; [`GuardError::InvalidArgument`] for an odd
/// size.
///
/// ```
/// use burn_guard::check::activation;
/// assert_eq!(activation::glu("glu", &[2, 4], -1).unwrap(), (1, vec![2, 2]));
/// assert!(activation::glu("glu", &[2, 3], 1).is_err());
/// ```
pub fn glu(op: &'static str, shape: &[usize], dim: isize) -> Result<(usize, Vec<usize>)> {
    let dim = shape::dim(op, dim, shape.len())?;
    let size = shape.get(dim).copied().unwrap_or(0);
    if size % 2 != 0 {
        return Err(Rule(op, "the size along dim must be even")
            .invalid(format!("size={size} (dim {dim}, shape {shape:?})")));
    }
    let mut out = shape.to_vec();
    if let Some(slot) = out.get_mut(dim) {
        *slot = size / 2;
    }
    Ok((dim, out))
}

/// `prelu(tensor, alpha)`: `alpha` has 1 weight, or (rank ≥ 2) one weight per channel
/// (`TensorCheck::check_prelu_shape`). Beyond burn: zero channels with zero weights is refused,
/// because burn then reshapes the weights to a shape containing 0, which its reshape reads as
/// "keep the source dim" and panics on.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
///
/// ```
/// use burn_guard::check::activation;
/// assert!(activation::prelu("prelu", &[2, 3, 4], &[3]).is_ok());
/// assert!(activation::prelu("prelu", &[2, 3, 4], &[1]).is_ok());
/// assert!(activation::prelu("prelu", &[2, 3, 4], &[2]).is_err());
/// ```
pub fn prelu(op: &'static str, shape: &[usize], alpha: &[usize]) -> Result<()> {
    let weights = alpha.first().copied().unwrap_or(0);
    let mismatch = |rule| Rule(op, rule).shape_mismatch(&[shape, alpha]);
    if weights == 1 {
        return Ok(());
    }
    if shape.len() < 2 {
        return Err(mismatch("a rank-1 input takes exactly one weight"));
    }
    let channels = shape.get(1).copied().unwrap_or(0);
    if channels != weights {
        return Err(mismatch(
            "alpha must have one weight or one weight per channel",
        ));
    }
    if weights == 0 {
        return Err(mismatch("alpha must not be empty"));
    }
    Ok(())
}

/// The shape burn-tensor's `activation::prelu` reshapes `alpha` (of `weights` weights) to for
/// an input of rank `rank`: `[1; rank]` for one weight, `[1, weights, 1, ..]` otherwise. A
/// quantized `alpha` must keep whole blocks and words in it
/// ([`quantized_reshape`](super::quant::quantized_reshape)).
///
/// ```
/// use burn_guard::check::activation;
/// assert_eq!(activation::prelu_weights_shape(3, 1), vec![1, 1, 1]);
/// assert_eq!(activation::prelu_weights_shape(3, 64), vec![1, 64, 1]);
/// assert_eq!(activation::prelu_weights_shape(2, 64), vec![1, 64]);
/// ```
pub fn prelu_weights_shape(rank: usize, weights: usize) -> Vec<usize> {
    let mut shape = vec![1; rank];
    if weights != 1
        && let Some(slot) = shape.get_mut(1)
    {
        *slot = weights;
    }
    shape
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::TestResult;
    use crate::check::test_support::{refused, rule_of};
    use crate::error::GuardError;

    #[test]
    fn glu_rules() -> TestResult {
        assert!(matches!(
            glu("glu", &[2, 4], 2),
            Err(GuardError::DimOutOfRange { .. })
        ));
        let err = refused("glu", glu("glu", &[2, 3], -1))?;
        assert!(matches!(
            &err,
            GuardError::InvalidArgument { rule: "the size along dim must be even", got, .. }
                if got == "size=3 (dim 1, shape [2, 3])"
        ));
        assert_eq!(glu("glu", &[0, 2], 0)?, (0, vec![0, 2]));
        Ok(())
    }

    #[test]
    fn prelu_rules() -> TestResult {
        let cases: &[(&[usize], &[usize], Option<&str>)] = &[
            (&[4], &[1], None),
            (&[4], &[4], Some("a rank-1 input takes exactly one weight")),
            (&[2, 3], &[3], None),
            (
                &[2, 3],
                &[2],
                Some("alpha must have one weight or one weight per channel"),
            ),
            (&[2, 0], &[0], Some("alpha must not be empty")),
        ];
        for (shape, alpha, rule) in cases {
            match (prelu("prelu", shape, alpha), rule) {
                (Ok(()), None) => {}
                (Err(err), Some(rule)) => {
                    assert!(matches!(err, GuardError::ShapeMismatch { .. }));
                    assert_eq!(rule_of(&err), Some(*rule), "{err}");
                }
                (got, want) => {
                    return Err(format!("{shape:?} {alpha:?}: {got:?} vs {want:?}").into());
                }
            }
        }
        Ok(())
    }
}
