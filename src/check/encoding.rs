//! Rules of the encodings of `nn/layers/encoding.rs` that assert on their input: the
//! positional and rotary encodings. The numbers their configs assert on are config rules other
//! layers share, in [`layer`](super::layer).
//!
//! Pure functions over shapes and numbers; each names the burn assertion it mirrors.

use super::rule::Rule;
#[cfg(doc)]
use crate::error::GuardError;
use crate::error::Result;

/// `PositionalEncoding::forward`: the input is `[batch, seq, d_model]` with the encoding's
/// `d_model`, and `seq` at most its `max_sequence_size`.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] for another `d_model`; [`GuardError::OutOfRange`] for a
/// sequence longer than the table.
///
/// ```
/// use burn_guard::check::encoding;
/// assert!(encoding::positional("positional_encoding", &[2, 5, 6], 6, 8).is_ok());
/// assert!(encoding::positional("positional_encoding", &[2, 9, 6], 6, 8).is_err());
/// assert!(encoding::positional("positional_encoding", &[2, 5, 4], 6, 8).is_err());
/// ```
pub fn positional(
    op: &'static str,
    input: &[usize],
    d_model: usize,
    max_sequence_size: usize,
) -> Result<()> {
    encoding_width(op, input, d_model)?;
    let seq = input
        .len()
        .checked_sub(2)
        .and_then(|i| input.get(i))
        .copied()
        .unwrap_or(0);
    Rule(
        op,
        "the sequence must not be longer than the encoding's max_sequence_size",
    )
    .at_most("seq_length", seq, max_sequence_size)
}

/// The input's last dim is a positional encoding's `d_model`.
fn encoding_width(op: &'static str, input: &[usize], d_model: usize) -> Result<usize> {
    let rule = "the input's last dim must equal the encoding's d_model";
    super::norm::last_dim(op, rule, input, &[d_model])
}

/// `RotaryEncoding::apply(x, start)`: `x` is `[.., seq, d_model]` (rank ≥ 2) with the
/// encoding's `d_model`; `start + seq` at most the frequency table's length (burn slices the
/// table); and — burn divides the element count by `seq · d_model` — neither 0.
///
/// # Errors
///
/// [`GuardError::RankMismatch`] for a rank below 2; [`GuardError::ShapeMismatch`] for another
/// `d_model`; [`GuardError::OutOfRange`] for `start + seq` past the table;
/// [`GuardError::Empty`] for an empty sequence or feature dim.
///
/// ```
/// use burn_guard::check::encoding;
/// assert!(encoding::rotary("rotary_encoding", &[1, 4, 8], 8, 16, 0).is_ok());
/// assert!(encoding::rotary("rotary_encoding", &[1, 4, 8], 8, 16, 13).is_err());
/// assert!(encoding::rotary("rotary_encoding", &[1, 4, 6], 8, 16, 0).is_err());
/// ```
pub fn rotary(
    op: &'static str,
    input: &[usize],
    d_model: usize,
    max_sequence_length: usize,
    start: usize,
) -> Result<()> {
    Rule(
        op,
        "rotary encoding requires an input [.., seq, d_model] of rank 2 or more",
    )
    .rank_at_least(input, 2)?;
    encoding_width(op, input, d_model)?;
    let seq_dim = input.len() - 2;
    let seq = input.get(seq_dim).copied().unwrap_or(0);
    if seq == 0 || d_model == 0 {
        return Err(Rule(
            op,
            "rotary encoding needs a non-empty sequence and feature dim",
        )
        .empty(input, Some(if seq == 0 { seq_dim } else { seq_dim + 1 })));
    }
    let end = start.saturating_add(seq);
    Rule(
        op,
        "start + seq must not exceed the encoding's max_sequence_length",
    )
    .at_most("start + seq", end, max_sequence_length)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::{bound, refused};
    use crate::error::GuardError;

    #[test]
    fn encodings_refuse_with_typed_errors() -> std::result::Result<(), String> {
        let past = refused("positional seq", positional("t", &[1, 5, 2], 2, 4))?;
        assert_eq!(bound(&past).map(|(name, ..)| name), Some("seq_length"));
        let empty = refused("rotary empty seq", rotary("t", &[1, 0, 4], 4, 8, 0))?;
        assert!(
            matches!(empty, GuardError::Empty { dim: Some(1), .. }),
            "{empty:?}"
        );
        let past = refused("rotary past", rotary("t", &[1, 2, 4], 4, 8, 7))?;
        assert_eq!(bound(&past).map(|(name, ..)| name), Some("start + seq"));
        Ok(())
    }
}
