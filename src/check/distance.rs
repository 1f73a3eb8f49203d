//! Rules of the distance layers of `nn/layers/distance.rs` that assert on their input: the
//! pairwise distance (cosine similarity's rules are the shared dim and broadcast checks).
//!
//! Pure functions over shapes and numbers; each names the burn assertion it mirrors.

use crate::error::{GuardError, Result};

/// `PairwiseDistance::forward(x1, x2)`: the shapes broadcast (burn's `sub` check), and — for
/// `p = ±∞`, whose norm is a max/min over the features — the broadcast feature dim is not
/// empty (Flex and NdArray panic reducing an empty dim with max/min). Returns the broadcast
/// shape.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] for shapes that do not broadcast; [`GuardError::Empty`] for
/// no features with an infinite `p`.
///
/// ```
/// use burn_guard::check::distance;
/// assert_eq!(distance::pairwise_distance("pairwise_distance", &[2, 3], &[1, 3], 2.0).unwrap(), vec![2, 3]);
/// assert!(distance::pairwise_distance("pairwise_distance", &[2, 0], &[2, 0], 2.0).is_ok());
/// assert!(distance::pairwise_distance("pairwise_distance", &[2, 0], &[2, 0], f64::INFINITY).is_err());
/// ```
pub fn pairwise_distance(
    op: &'static str,
    x1: &[usize],
    x2: &[usize],
    p: f64,
) -> Result<Vec<usize>> {
    let shape = crate::check::broadcast(op, x1, x2)?;
    if p.is_infinite() && shape.get(1) == Some(&0) {
        return Err(GuardError::Empty {
            op,
            rule: "an infinite-order norm needs at least one feature",
            shape,
            dim: Some(1),
        });
    }
    Ok(shape)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::refused;

    #[test]
    fn distances_refuse_with_typed_errors() -> std::result::Result<(), String> {
        let infinite = pairwise_distance("t", &[2, 0], &[1, 0], f64::NEG_INFINITY);
        let empty = refused("pairwise inf", infinite)?;
        assert!(
            matches!(empty, GuardError::Empty { dim: Some(1), .. }),
            "{empty:?}"
        );
        Ok(())
    }
}
