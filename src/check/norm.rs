//! Rules of the normalizations: `burn::tensor::module`'s `layer_norm`, `batch_norm` and
//! `batch_norm_train` (twinned in `tensor/norm.rs`) and the `burn::nn` norm layers
//! (`nn/layers/norm.rs`: batch, layer, group, instance, rms and local response norms). The
//! numbers their configs assert on are config rules other layers share, in
//! [`layer`](super::layer).
//!
//! Pure functions over shapes; each names the burn assertion it mirrors.

use super::rule::Rule;
#[cfg(doc)]
use crate::error::GuardError;
use crate::error::{Limit, Result};

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

/// Parameters by name, each with its shape (`("gamma", [channels])`).
type NamedShapes = [(&'static str, Vec<usize>)];

/// `batch_norm` and `batch_norm_train`: input rank ≥ 2 and every parameter of shape
/// `[channels]` with `channels = input[1]` (the `assert!`s of `module::batch_norm`). `params`
/// names each parameter with its shape. Returns the channel count.
///
/// # Errors
///
/// [`GuardError::RankMismatch`] for a rank below 2; [`GuardError::ShapeMismatch`] naming the
/// first bad parameter's rule, with the input and parameter shapes.
///
/// ```
/// use burn_guard::check::norm;
/// let params = [("gamma", vec![3]), ("beta", vec![3])];
/// assert_eq!(norm::batch_norm("batch_norm", &[2, 3, 4], &params).unwrap(), 3);
/// let params = [("gamma", vec![3]), ("beta", vec![4])];
/// assert!(norm::batch_norm("batch_norm", &[2, 3, 4], &params).is_err());
/// ```
pub fn batch_norm(op: &'static str, input: &[usize], params: &NamedShapes) -> Result<usize> {
    let channels = Rule(op, "batch norm requires an input rank of at least 2").dim(input, 1)?;
    for (name, shape) in params {
        if shape.as_slice() != [channels] {
            let rule = match *name {
                "gamma" => "gamma must have shape [channels]",
                "beta" => "beta must have shape [channels]",
                "mean" => "mean must have shape [channels]",
                "variance" => "variance must have shape [channels]",
                _ => "parameters must have shape [channels]",
            };
            return Err(Rule(op, rule).shape_mismatch(&[input, shape]));
        }
    }
    Ok(channels)
}

/// `batch_norm_train`: the [`batch_norm`] rules, and — beyond burn — at least one channel and
/// one sample per channel: burn-backend's default `batch_norm_train` divides by the channel
/// count, and the batch statistics of an empty batch are undefined. Returns the channel count.
///
/// # Errors
///
/// As [`batch_norm`]; [`GuardError::Empty`] for an empty input.
///
/// ```
/// use burn_guard::check::norm;
/// let params = [("gamma", vec![3]), ("beta", vec![3])];
/// assert!(norm::batch_norm_train("batch_norm_train", &[2, 3, 4], &params).is_ok());
/// assert!(norm::batch_norm_train("batch_norm_train", &[0, 3, 4], &params).is_err());
/// ```
pub fn batch_norm_train(op: &'static str, input: &[usize], params: &NamedShapes) -> Result<usize> {
    let channels = batch_norm(op, input, params)?;
    Rule(op, "batch statistics need a non-empty input").nonempty(input)?;
    Ok(channels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::TestResult;
    use crate::check::test_support::{Case, each_refused, ranks, refused, rule_of};
    use crate::error::GuardError;

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
            ("lrn spatial", local_response_norm(op, &[1, 1, 2, 0]), |e| {
                matches!(e, GuardError::Empty { .. })
            }),
        ];
        each_refused(cases)
    }

    #[test]
    fn batch_norm_rules() -> TestResult {
        let err = refused("batch_norm", batch_norm("batch_norm", &[3], &[]))?;
        assert_eq!(ranks(&err), Some((2, 1)));
        let err = refused(
            "batch_norm",
            batch_norm(
                "batch_norm",
                &[2, 3],
                &[("gamma", vec![3]), ("variance", vec![2])],
            ),
        )?;
        assert!(matches!(&err, GuardError::ShapeMismatch { shapes, .. }
            if shapes == &[vec![2, 3], vec![2]]));
        assert_eq!(rule_of(&err), Some("variance must have shape [channels]"));
        Ok(())
    }

    #[test]
    fn batch_norm_train_rules() -> TestResult {
        let params = [("gamma", vec![0]), ("beta", vec![0])];
        let err = refused(
            "batch_norm_train",
            batch_norm_train("batch_norm_train", &[2, 0, 3], &params),
        )?;
        assert!(matches!(&err, GuardError::Empty { shape, dim: None, .. } if shape == &[2, 0, 3]));
        Ok(())
    }
}
