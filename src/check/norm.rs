//! Rules of the normalization, embedding and positional layers and of their configs:
//! `layer_norm`, `embedding`, group norm, rms norm, positional and rotary encodings, and the
//! numbers their `init`s assert on.
//!
//! Pure functions over shapes and numbers; each names the burn assertion it mirrors.

use super::rule::Rule;
use crate::error::{GuardError, Limit, Result};

/// `layer_norm(input, gamma, beta, epsilon)`: `input` has rank ≥ 1 and `gamma` (and `beta`,
/// when given) has shape `[d_model]`, `d_model` being the input's last dimension
/// (`assert_shape!(input, [.., d_model])` in `LayerNorm::forward`; the free function leaves it
/// to the backend). Returns `d_model`.
///
/// # Errors
///
/// [`GuardError::RankMismatch`] for a rank-0 input; [`GuardError::ShapeMismatch`] with the
/// input's and the parameter's shapes.
///
/// ```
/// use burn_guard::check::norm;
/// assert_eq!(norm::layer_norm("layer_norm", &[2, 4], &[4], Some(&[4])).unwrap(), 4);
/// assert!(norm::layer_norm("layer_norm", &[2, 4], &[3], None).is_err());
/// assert!(norm::layer_norm("layer_norm", &[2, 4], &[4], Some(&[3])).is_err());
/// ```
pub fn layer_norm(
    op: &'static str,
    input: &[usize],
    gamma: &[usize],
    beta: Option<&[usize]>,
) -> Result<usize> {
    let d_model = Rule(op, "layer norm requires an input rank of at least 1").last(input)?;
    last_dim(
        op,
        "gamma must have shape [d_model], the input's last dim",
        input,
        gamma,
    )?;
    if let Some(beta) = beta {
        last_dim(
            op,
            "beta must have shape [d_model], the input's last dim",
            input,
            beta,
        )?;
    }
    Ok(d_model)
}

/// `param` is `[input.last()]`: the rule of every layer that scales the last dimension
/// (layer norm, rms norm). Returns the last dimension.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with `rule` and both shapes; [`GuardError::RankMismatch`]
/// for a rank-0 input.
///
/// ```
/// use burn_guard::check::norm;
/// assert_eq!(norm::last_dim("rms_norm", "x", &[2, 3], &[3]).unwrap(), 3);
/// assert!(norm::last_dim("rms_norm", "x", &[2, 3], &[4]).is_err());
/// ```
pub fn last_dim(
    op: &'static str,
    rule: &'static str,
    input: &[usize],
    param: &[usize],
) -> Result<usize> {
    let last = Rule(op, "the input must have rank 1 or more").last(input)?;
    Rule(op, rule).shapes_agree(param == [last], &[input, param])?;
    Ok(last)
}

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
/// use burn_guard::check::norm;
/// assert_eq!(norm::embedding("embedding", &[10, 4], &[2, 3]).unwrap(), 10);
/// assert!(norm::embedding("embedding", &[10], &[2, 3]).is_err());
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
/// use burn_guard::check::norm;
/// assert!(norm::embedding_ids("embedding", &[0, 9], 10).is_ok());
/// assert!(norm::embedding_ids("embedding", &[10], 10).is_err());
/// assert!(norm::embedding_ids("embedding", &[-1], 10).is_err());
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

/// `[_, channels, ..]`: the input's dim 1 equals the layer's channel count
/// (`assert_shape!(input, [_, num_channels, ..])` in the batch, group and instance norms).
///
/// # Errors
///
/// [`GuardError::RankMismatch`] for a rank below 2; [`GuardError::ShapeMismatch`] for another
/// channel count.
///
/// ```
/// use burn_guard::check::norm;
/// assert!(norm::channels("group_norm", &[2, 4, 3], 4).is_ok());
/// assert!(norm::channels("group_norm", &[2, 3, 3], 4).is_err());
/// assert!(norm::channels("group_norm", &[4], 4).is_err());
/// ```
pub fn channels(op: &'static str, input: &[usize], channels: usize) -> Result<()> {
    let got = Rule(op, "the input must be [batch, channels, ..]").dim(input, 1)?;
    Rule(op, "the input's dim 1 must equal the layer's channel count")
        .shapes_agree(got == channels, &[input, &[channels]])
}

/// A group norm (`GroupNorm` and `InstanceNorm`, whose groups are its channels) on `input`:
/// the [`channels`] rule; groups that divide the channels (burn reshapes to
/// `[batch, groups, channels / groups · ..]`, dividing by the group count); gamma and beta
/// present when affine, each `[channels]`; and burn's own `num_elements() > 2` test (burn
/// 0.22.1 compares the input's **element count** with 2 where it means its rank, so an input
/// of two elements or fewer — an empty one included — panics).
///
/// # Errors
///
/// [`GuardError::RankMismatch`] / [`GuardError::ShapeMismatch`] as [`channels`];
/// [`GuardError::OutOfRange`] for a group count of 0; [`GuardError::ShapeMismatch`] for groups
/// that do not divide the channels or a parameter of the wrong shape;
/// [`GuardError::InvalidArgument`] for a missing affine parameter; [`GuardError::Empty`] for an
/// input of 2 elements or fewer.
///
/// ```
/// use burn_guard::check::norm;
/// let p = [4usize];
/// assert!(norm::group_norm("group_norm", &[2, 4, 3], 2, 4, Some((&p, &p))).is_ok());
/// assert!(norm::group_norm("group_norm", &[2, 4, 3], 3, 4, None).is_err());
/// assert!(norm::group_norm("group_norm", &[1, 2, 1], 2, 2, None).is_err());
/// ```
pub fn group_norm(
    op: &'static str,
    input: &[usize],
    num_groups: usize,
    num_channels: usize,
    affine: Option<(&[usize], &[usize])>,
) -> Result<()> {
    channels(op, input, num_channels)?;
    groups(op, num_channels, num_groups)?;
    if let Some((gamma, beta)) = affine {
        for (rule, param) in [
            ("gamma must have shape [channels]", gamma),
            ("beta must have shape [channels]", beta),
        ] {
            Rule(op, rule).shapes_agree(param == [num_channels], &[input, param])?;
        }
    }
    let elements = input.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    if elements.is_some_and(|n| n <= 2) {
        return Err(
            Rule(op, "burn's group norm needs more than 2 input elements").empty(input, None),
        );
    }
    Ok(())
}

/// The shape burn-nn's `group_norm` (group and instance norms) reshapes gamma and beta to
/// for an input of rank `rank`: `[1, channels, 1, ..]` (burn-nn `modules/norm/group.rs`,
/// `affine_shape`). A quantized parameter must keep whole blocks and words in it
/// ([`quantized_reshape`](super::quant::quantized_reshape)).
///
/// ```
/// use burn_guard::check::norm;
/// assert_eq!(norm::group_norm_affine_shape(3, 64), vec![1, 64, 1]);
/// assert_eq!(norm::group_norm_affine_shape(2, 64), vec![1, 64]);
/// ```
pub fn group_norm_affine_shape(rank: usize, channels: usize) -> Vec<usize> {
    let mut shape = vec![1; rank];
    if let Some(slot) = shape.get_mut(1) {
        *slot = channels;
    }
    shape
}

/// The groups divide the channels, and there is at least one group (`GroupNormConfig::init`
/// asserts `num_channels % num_groups == 0`, which panics on a division by zero for 0 groups).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for 0 groups, [`GuardError::ShapeMismatch`] when they do not
/// divide the channels.
///
/// ```
/// use burn_guard::check::norm;
/// assert!(norm::groups("group_norm", 6, 3).is_ok());
/// assert!(norm::groups("group_norm", 6, 4).is_err());
/// assert!(norm::groups("group_norm", 6, 0).is_err());
/// ```
pub fn groups(op: &'static str, num_channels: usize, num_groups: usize) -> Result<()> {
    if num_groups == 0 {
        return Err(Rule(op, "the group count must not be 0").out_of_range(
            "num_groups",
            num_groups,
            Limit::NonZero,
        ));
    }
    if !num_channels.is_multiple_of(num_groups) {
        return Err(Rule(
            op,
            "the number of channels must be divisible by the number of groups",
        )
        .shape_mismatch(&[&[num_channels], &[num_groups]]));
    }
    Ok(())
}

/// `PositionalEncoding::forward`: the input is `[batch, seq, d_model]` with the encoding's
/// `d_model`, and `seq` at most its `max_sequence_size`.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] for another `d_model`; [`GuardError::OutOfRange`] for a
/// sequence longer than the table.
///
/// ```
/// use burn_guard::check::norm;
/// assert!(norm::positional("positional_encoding", &[2, 5, 6], 6, 8).is_ok());
/// assert!(norm::positional("positional_encoding", &[2, 9, 6], 6, 8).is_err());
/// assert!(norm::positional("positional_encoding", &[2, 5, 4], 6, 8).is_err());
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
    last_dim(op, rule, input, &[d_model])
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
/// use burn_guard::check::norm;
/// assert!(norm::rotary("rotary_encoding", &[1, 4, 8], 8, 16, 0).is_ok());
/// assert!(norm::rotary("rotary_encoding", &[1, 4, 8], 8, 16, 13).is_err());
/// assert!(norm::rotary("rotary_encoding", &[1, 4, 6], 8, 16, 0).is_err());
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

/// A float that must be finite and greater than 0 (batch norm's epsilon, rms norm's epsilon —
/// burn's `RmsNormConfig::init` asserts only `> 0`, so an infinite epsilon passes: `finite`
/// says which).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming `name`.
///
/// ```
/// use burn_guard::check::norm;
/// assert!(norm::positive("batch_norm_init", "epsilon", 1e-5, true).is_ok());
/// assert!(norm::positive("batch_norm_init", "epsilon", 0.0, true).is_err());
/// assert!(norm::positive("rms_norm_init", "epsilon", f64::INFINITY, false).is_ok());
/// ```
pub fn positive(op: &'static str, name: &'static str, value: f64, finite: bool) -> Result<()> {
    let bad = value.is_nan() || value <= 0.0 || (finite && value.is_infinite());
    if !bad {
        return Ok(());
    }
    Err(GuardError::OutOfRange {
        op,
        rule: if finite {
            "the value must be finite and greater than 0"
        } else {
            "the value must be greater than 0"
        },
        name,
        value: value.into(),
        limit: Limit::Above(0.0.into()),
    })
}

/// A float that must be finite and in `[low, high]` (batch norm's momentum in `[0, 1]`) or,
/// with `high` infinite, at least `low` (a noise's standard deviation).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming `name`.
///
/// ```
/// use burn_guard::check::norm;
/// assert!(norm::finite_in("batch_norm_init", "momentum", 0.1, 0.0, 1.0).is_ok());
/// assert!(norm::finite_in("batch_norm_init", "momentum", 1.5, 0.0, 1.0).is_err());
/// assert!(norm::finite_in("gaussian_noise", "std", f64::NAN, 0.0, f64::INFINITY).is_err());
/// ```
pub fn finite_in(
    op: &'static str,
    name: &'static str,
    value: f64,
    low: f64,
    high: f64,
) -> Result<()> {
    if value.is_finite() && value >= low && value <= high {
        return Ok(());
    }
    let limit = if high.is_infinite() {
        Limit::AtLeast(low.into())
    } else {
        Limit::Between(low.into(), high.into())
    };
    Err(Rule(op, "the value must be finite and within its range").out_of_range(name, value, limit))
}

/// A size that must not be 0 (local response norm's window).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming `name`.
///
/// ```
/// use burn_guard::check::norm;
/// assert!(norm::nonzero("local_response_norm_init", "size", 3).is_ok());
/// assert!(norm::nonzero("local_response_norm_init", "size", 0).is_err());
/// ```
pub fn nonzero(op: &'static str, name: &'static str, value: usize) -> Result<()> {
    if value != 0 {
        return Ok(());
    }
    Err(Rule(op, "the size must not be 0").out_of_range(name, value, Limit::NonZero))
}

/// An even size (rotary and sinusoidal encodings pair the features).
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming `name`.
///
/// ```
/// use burn_guard::check::norm;
/// assert!(norm::even("rotary_encoding_init", "d_model", 8).is_ok());
/// assert!(norm::even("rotary_encoding_init", "d_model", 7).is_err());
/// ```
pub fn even(op: &'static str, name: &'static str, value: usize) -> Result<()> {
    if value.is_multiple_of(2) {
        return Ok(());
    }
    Err(Rule(op, "the size must be even").invalid(format!("{name}={value}")))
}

/// Two finite bounds with `lower <= upper` (hardtanh's `min_val`/`max_val`; rrelu's
/// `lower`/`upper`, for which burn asserts only the order: `finite` false).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for a non-finite bound when `finite`;
/// [`GuardError::OutOfOrder`] when `lower > upper` (or either is NaN).
///
/// ```
/// use burn_guard::check::norm;
/// assert!(norm::ordered("hardtanh_init", ("min_val", -1.0), ("max_val", 1.0), true).is_ok());
/// assert!(norm::ordered("hardtanh_init", ("min_val", 2.0), ("max_val", 1.0), true).is_err());
/// assert!(norm::ordered("hardtanh_init", ("min_val", f64::NEG_INFINITY), ("max_val", 1.0), true).is_err());
/// ```
pub fn ordered(
    op: &'static str,
    (lower_name, lower): (&'static str, f64),
    (upper_name, upper): (&'static str, f64),
    finite: bool,
) -> Result<()> {
    if finite {
        for (name, value) in [(lower_name, lower), (upper_name, upper)] {
            if !value.is_finite() {
                return Err(Rule(op, "the bound must be finite").out_of_range(
                    name,
                    value,
                    Limit::Between(f64::MIN.into(), f64::MAX.into()),
                ));
            }
        }
    }
    // `!(lower <= upper)`: burn's assert fails on NaN as well.
    if lower
        .partial_cmp(&upper)
        .is_none_or(|o| o == std::cmp::Ordering::Greater)
    {
        return Err(GuardError::OutOfOrder {
            op,
            rule: "the lower bound must not exceed the upper bound",
            lower_name,
            lower: lower.into(),
            upper_name,
            upper: upper.into(),
        });
    }
    Ok(())
}

/// A finite, non-zero float (celu's `alpha`, by which burn divides).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming `name`.
///
/// ```
/// use burn_guard::check::norm;
/// assert!(norm::finite_nonzero("celu_init", "alpha", 1.0).is_ok());
/// assert!(norm::finite_nonzero("celu_init", "alpha", 0.0).is_err());
/// ```
pub fn finite_nonzero(op: &'static str, name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value != 0.0 {
        return Ok(());
    }
    Err(Rule(op, "the value must be finite and not 0").out_of_range(name, value, Limit::NonZero))
}

/// A rank of at least `min` (`assert_shape!(input, [_, _, _, ..])` for `min` 3).
///
/// # Errors
///
/// [`GuardError::RankMismatch`] with `rule`.
///
/// ```
/// use burn_guard::check::norm;
/// assert!(norm::min_rank("local_response_norm", "x", &[1, 2, 3], 3).is_ok());
/// assert!(norm::min_rank("local_response_norm", "x", &[1, 2], 3).is_err());
/// ```
pub fn min_rank(op: &'static str, rule: &'static str, input: &[usize], min: usize) -> Result<()> {
    if input.len() >= min {
        return Ok(());
    }
    Err(Rule(op, rule).rank_mismatch(min, input.len(), input))
}

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
/// use burn_guard::check::norm;
/// assert_eq!(norm::pairwise_distance("pairwise_distance", &[2, 3], &[1, 3], 2.0).unwrap(), vec![2, 3]);
/// assert!(norm::pairwise_distance("pairwise_distance", &[2, 0], &[2, 0], 2.0).is_ok());
/// assert!(norm::pairwise_distance("pairwise_distance", &[2, 0], &[2, 0], f64::INFINITY).is_err());
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

/// `LocalResponseNorm::forward`: rank ≥ 3 (`assert_shape!(input, [_, _, _, ..])`), and not
/// an empty spatial extent under a non-empty batch and channel dim: burn reshapes the input
/// to `[batch · spatial, 1, channels]` for its average pool, which panics on Flex and NdArray
/// for it (measured on burn 0.22.1).
///
/// # Errors
///
/// [`GuardError::RankMismatch`] for a rank below 3; [`GuardError::Empty`] for the empty
/// spatial extent.
///
/// ```
/// use burn_guard::check::norm;
/// assert!(norm::local_response_norm("local_response_norm", &[1, 3, 4]).is_ok());
/// assert!(norm::local_response_norm("local_response_norm", &[0, 3, 0]).is_ok());
/// assert!(norm::local_response_norm("local_response_norm", &[1, 3, 0]).is_err());
/// assert!(norm::local_response_norm("local_response_norm", &[1, 3]).is_err());
/// ```
pub fn local_response_norm(op: &'static str, input: &[usize]) -> Result<()> {
    min_rank(
        op,
        "local response norm requires an input [batch, channels, d1, ..]",
        input,
        3,
    )?;
    let batch = input.first().copied().unwrap_or(0);
    let channels = input.get(1).copied().unwrap_or(0);
    let spatial_empty = input.iter().skip(2).any(|&d| d == 0);
    if batch > 0 && channels > 0 && spatial_empty {
        return Err(
            Rule(op, "local response norm needs a non-empty spatial extent").empty(input, None),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::refused;

    /// A case: what, the rule's result, the error it must be.
    type Case = (&'static str, Result<()>, fn(&GuardError) -> bool);

    #[test]
    fn each_rule_names_its_variant() -> std::result::Result<(), String> {
        let op = "t";
        let cases: Vec<Case> = vec![
            (
                "layer_norm rank 0",
                layer_norm(op, &[], &[1], None).map(drop),
                |e| {
                    matches!(
                        e,
                        GuardError::RankMismatch {
                            expected: 1,
                            got: 0,
                            ..
                        }
                    )
                },
            ),
            (
                "layer_norm gamma",
                layer_norm(op, &[2, 3], &[2], None).map(drop),
                |e| matches!(e, GuardError::ShapeMismatch { shapes, .. } if shapes == &[vec![2, 3], vec![2]]),
            ),
            (
                "embedding rank",
                embedding(op, &[3, 2], &[3]).map(drop),
                |e| {
                    matches!(
                        e,
                        GuardError::RankMismatch {
                            expected: 2,
                            got: 1,
                            ..
                        }
                    )
                },
            ),
            ("embedding id", embedding_ids(op, &[0, 3, 5], 3), |e| {
                matches!(
                    e,
                    GuardError::IndexOutOfRange {
                        index: 3,
                        size: 3,
                        dim: 0,
                        ..
                    }
                )
            }),
            (
                "channels",
                channels(op, &[1, 2], 3),
                |e| matches!(e, GuardError::ShapeMismatch { shapes, .. } if shapes == &[vec![1, 2], vec![3]]),
            ),
            ("groups 0", groups(op, 4, 0), |e| {
                matches!(
                    e,
                    GuardError::OutOfRange {
                        name: "num_groups",
                        ..
                    }
                )
            }),
            ("groups divide", groups(op, 4, 3), |e| {
                matches!(e, GuardError::ShapeMismatch { .. })
            }),
            (
                "group_norm tiny",
                group_norm(op, &[1, 2, 1], 1, 2, None),
                |e| matches!(e, GuardError::Empty { dim: None, .. }),
            ),
            (
                "group_norm beta",
                group_norm(op, &[1, 2, 2], 1, 2, Some((&[2], &[3]))),
                |e| matches!(e, GuardError::ShapeMismatch { rule, .. } if rule.starts_with("beta")),
            ),
            ("positional seq", positional(op, &[1, 5, 2], 2, 4), |e| {
                matches!(
                    e,
                    GuardError::OutOfRange {
                        name: "seq_length",
                        ..
                    }
                )
            }),
            ("rotary empty seq", rotary(op, &[1, 0, 4], 4, 8, 0), |e| {
                matches!(e, GuardError::Empty { dim: Some(1), .. })
            }),
            ("rotary past", rotary(op, &[1, 2, 4], 4, 8, 7), |e| {
                matches!(
                    e,
                    GuardError::OutOfRange {
                        name: "start + seq",
                        ..
                    }
                )
            }),
            (
                "positive nan",
                positive(op, "epsilon", f64::NAN, false),
                |e| {
                    matches!(
                        e,
                        GuardError::OutOfRange {
                            name: "epsilon",
                            ..
                        }
                    )
                },
            ),
            ("finite_in", finite_in(op, "momentum", 1.5, 0.0, 1.0), |e| {
                matches!(
                    e,
                    GuardError::OutOfRange {
                        limit: Limit::Between(..),
                        ..
                    }
                )
            }),
            ("even", even(op, "d_model", 3), |e| {
                matches!(e, GuardError::InvalidArgument { .. })
            }),
            (
                "ordered nan",
                ordered(op, ("lower", f64::NAN), ("upper", 1.0), false),
                |e| {
                    matches!(
                        e,
                        GuardError::OutOfOrder {
                            lower_name: "lower",
                            ..
                        }
                    )
                },
            ),
            (
                "ordered infinite",
                ordered(op, ("min_val", 0.0), ("max_val", f64::INFINITY), true),
                |e| {
                    matches!(
                        e,
                        GuardError::OutOfRange {
                            name: "max_val",
                            ..
                        }
                    )
                },
            ),
            ("finite_nonzero", finite_nonzero(op, "alpha", -0.0), |e| {
                matches!(
                    e,
                    GuardError::OutOfRange {
                        limit: Limit::NonZero,
                        ..
                    }
                )
            }),
            (
                "pairwise inf",
                pairwise_distance(op, &[2, 0], &[1, 0], f64::NEG_INFINITY).map(drop),
                |e| matches!(e, GuardError::Empty { dim: Some(1), .. }),
            ),
            ("lrn spatial", local_response_norm(op, &[1, 1, 2, 0]), |e| {
                matches!(e, GuardError::Empty { .. })
            }),
        ];
        for (what, result, expected) in cases {
            let err = refused(what, result)?;
            if !expected(&err) {
                return Err(format!("{what}: unexpected {err:?}"));
            }
            if err.to_string().contains('\n') {
                return Err(format!("{what}: not one line"));
            }
        }
        Ok(())
    }
}
