//! Rules of `burn::tensor::module::embedding` (twinned in `tensor/norm.rs`) and of the
//! `burn::nn::Embedding` layer (`nn/layers/embedding.rs`): the shapes, and the token ids read
//! back once.
//!
//! Pure functions over shapes and ids; each names the burn check it mirrors.

use super::rule::Rule;
use crate::error::{GuardError, Result};

/// `embedding(weights, indices)`: `weights` is `[n_embedding, d_model]` and `indices` is
/// `[batch, seq]` (both ranks fixed by the types). burn checks nothing: the backend's gather
/// panics on an id out of range (Flex, NdArray) or reads whatever is there (wgpu). Returns
/// `n_embedding`, the bound for [`embedding_ids`].
///
/// # Errors
///
/// [`GuardError::RankMismatch`] when `weights` is not rank 2 or `indices` not rank 2.
///
/// ```
/// use burn_guard::check::embedding;
/// assert_eq!(embedding::embedding("embedding", &[10, 4], &[2, 3]).unwrap(), 10);
/// assert!(embedding::embedding("embedding", &[10], &[2, 3]).is_err());
/// ```
pub fn embedding(op: &'static str, weights: &[usize], indices: &[usize]) -> Result<usize> {
    Rule(op, "embedding weights must be [n_embedding, d_model]").rank(weights, 2)?;
    Rule(op, "embedding indices must be [batch, seq]").rank(indices, 2)?;
    Ok(weights.first().copied().unwrap_or(0))
}

/// Every token id in `0..n_embedding`: the ids index the weight's rows.
///
/// # Errors
///
/// [`GuardError::IndexOutOfRange`] with the first bad id (`dim` 0: the weight's rows).
///
/// ```
/// use burn_guard::check::embedding;
/// assert!(embedding::embedding_ids("embedding", &[0, 9], 10).is_ok());
/// assert!(embedding::embedding_ids("embedding", &[10], 10).is_err());
/// assert!(embedding::embedding_ids("embedding", &[-1], 10).is_err());
/// ```
pub fn embedding_ids(op: &'static str, ids: &[i64], n_embedding: usize) -> Result<()> {
    let bound = i64::try_from(n_embedding).unwrap_or(i64::MAX);
    match ids.iter().find(|&&id| id < 0 || id >= bound) {
        Some(&index) => Err(GuardError::IndexOutOfRange {
            op,
            index,
            size: n_embedding,
            dim: 0,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::{ranks, refused};

    #[test]
    fn weights_and_ids_refuse_with_typed_errors() -> std::result::Result<(), String> {
        let rank = refused("embedding rank", embedding("t", &[3, 2], &[3]))?;
        assert_eq!(ranks(&rank), Some((2, 1)));
        let id = refused("embedding id", embedding_ids("t", &[0, 3, 5], 3))?;
        assert!(
            matches!(
                id,
                GuardError::IndexOutOfRange {
                    index: 3,
                    size: 3,
                    dim: 0,
                    ..
                }
            ),
            "{id:?}"
        );
        Ok(())
    }
}
