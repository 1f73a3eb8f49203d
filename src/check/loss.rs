//! Rules of burn's losses: `burn::tensor::module::ctc_loss` (twinned in `tensor/ctc.rs`),
//! `burn::tensor::loss::cross_entropy_with_logits` (`tensor/loss.rs`) and the modules of
//! `burn::nn::loss` (`nn/layers/loss.rs`: their `forward*` asserts, the shapes their bodies
//! need, and their configs' `init` asserts). Class ids and lengths are values: the twins read them (see
//! [`value_reads`](crate::value_reads)) and hand them to [`class_ids`] and [`ctc_lengths`].

use super::rule::Rule;
use crate::check::shape;
use crate::error::{GuardError, Limit, Result};

/// A rank-`expected` tensor's dims, or its shape against the one it must have.
fn exact(op: &'static str, rule: &'static str, got: &[usize], expected: &[usize]) -> Result<()> {
    if got == expected {
        Ok(())
    } else {
        Err(Rule(op, rule).shape_mismatch(&[got, expected]))
    }
}

fn out_of_range(
    op: &'static str,
    rule: &'static str,
    name: &'static str,
    value: f64,
    limit: Limit,
) -> GuardError {
    Rule(op, rule).out_of_range(name, value, limit)
}

/// Every length in `low..=high`, else [`GuardError::OutOfRange`] on `name` naming the first
/// outside.
fn lengths_within(
    op: &'static str,
    rule: &'static str,
    name: &'static str,
    lengths: &[i64],
    (low, high): (i64, usize),
) -> Result<()> {
    let high_i = i64::try_from(high).unwrap_or(i64::MAX);
    match lengths.iter().find(|&&l| l < low || l > high_i) {
        Some(&length) => Err(out_of_range(
            op,
            rule,
            name,
            length as f64,
            Limit::Between((low as f64).into(), (high as f64).into()),
        )),
        None => Ok(()),
    }
}

/// `ctc_loss(log_probs [T, N, C], targets [N, S], input_lengths [N], target_lengths [N],
/// blank)`, shapes: burn's `CTCLoss::forward` asserts the batch sizes and `blank < C`; the
/// backend's alpha recursion also needs a first time step (`T >= 1`: it slices `0..1`).
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] for a batch size that differs, [`GuardError::Empty`] for
/// `T = 0`, [`GuardError::OutOfRange`] for the blank index.
///
/// ```
/// use burn_guard::check::loss::ctc;
/// assert!(ctc("ctc_loss", &[5, 2, 4], &[2, 3], &[2], &[2], 0).is_ok());
/// assert!(ctc("ctc_loss", &[5, 2, 4], &[3, 3], &[2], &[2], 0).is_err());
/// assert!(ctc("ctc_loss", &[5, 2, 4], &[2, 3], &[2], &[2], 4).is_err());
/// ```
pub fn ctc(
    op: &'static str,
    log_probs: &[usize],
    targets: &[usize],
    input_lengths: &[usize],
    target_lengths: &[usize],
    blank: usize,
) -> Result<()> {
    let [_time, batch, classes] = Rule(op, "log_probs must be [T, N, C]").dims(log_probs)?;
    const BATCH: &str =
        "targets [N, S], input_lengths [N] and target_lengths [N] must share log_probs' batch N";
    if targets.first() != Some(&batch) {
        return Err(Rule(op, BATCH).shape_mismatch(&[log_probs, targets]));
    }
    exact(op, BATCH, input_lengths, &[batch])?;
    exact(op, BATCH, target_lengths, &[batch])?;
    Rule(op, "the blank index must be below the class count C").below(
        "blank",
        blank as f64,
        classes as f64,
    )?;
    Rule(op, "log_probs needs at least one time step").nonempty_dim(log_probs, 0)
}

/// CTC lengths, values: each `target_lengths[i]` in `0..=S` (the width of `targets`), each
/// `input_lengths[i]` in `target_lengths[i]..=T`. burn's `CTCLoss::forward` asserts these in
/// debug builds; the backend gathers at `2 * target_lengths[i]` (out of range above `S`).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming the first bad length.
///
/// ```
/// use burn_guard::check::loss::ctc_lengths;
/// assert!(ctc_lengths("ctc_loss", &[4, 3], &[2, 3], 5, 3).is_ok());
/// assert!(ctc_lengths("ctc_loss", &[6, 3], &[2, 3], 5, 3).is_err());
/// assert!(ctc_lengths("ctc_loss", &[4, 2], &[2, 3], 5, 3).is_err());
/// ```
pub fn ctc_lengths(
    op: &'static str,
    input_lengths: &[i64],
    target_lengths: &[i64],
    time: usize,
    target_width: usize,
) -> Result<()> {
    ctc_target_lengths(op, target_lengths, target_width)?;
    let rule = "each input length must be in target_length..=T (no CTC alignment otherwise)";
    for (&input, &target) in input_lengths.iter().zip(target_lengths) {
        lengths_within(op, rule, "input_lengths", &[input], (target, time))?;
    }
    Ok(())
}

/// CTC target lengths, values: each in `0..=S`, the width of `targets` (the backend gathers
/// its alpha at `2 * target_lengths[i]`). The part of [`ctc_lengths`] that
/// `ctc_loss` itself needs.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming the first bad length.
///
/// ```
/// use burn_guard::check::loss::ctc_target_lengths;
/// assert!(ctc_target_lengths("ctc_loss", &[0, 3], 3).is_ok());
/// assert!(ctc_target_lengths("ctc_loss", &[4], 3).is_err());
/// ```
pub fn ctc_target_lengths(
    op: &'static str,
    target_lengths: &[i64],
    target_width: usize,
) -> Result<()> {
    let rule = "each target length must be in 0..=S, the width of targets";
    lengths_within(
        op,
        rule,
        "target_lengths",
        target_lengths,
        (0, target_width),
    )
}

/// `RNNTLoss::forward(logits [B, T, U+1, V], targets [B, U], logit_lengths [B],
/// target_lengths [B])`, shapes: burn asserts the three shapes and `blank < V`; its lattice
/// needs `U >= 1` (it computes `U` as `(U + 1) - 1`, and Flex's gather over an empty label
/// slice panics) and a first time step (`T >= 1`).
/// `blank` is `None` where the module does not expose it.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`], [`GuardError::Empty`], or [`GuardError::OutOfRange`] for
/// the blank index.
///
/// ```
/// use burn_guard::check::loss::rnnt;
/// assert!(rnnt("rnnt_loss", &[2, 4, 3, 5], &[2, 2], &[2], &[2], Some(0)).is_ok());
/// assert!(rnnt("rnnt_loss", &[2, 4, 3, 5], &[2, 3], &[2], &[2], Some(0)).is_err());
/// ```
pub fn rnnt(
    op: &'static str,
    logits: &[usize],
    targets: &[usize],
    logit_lengths: &[usize],
    target_lengths: &[usize],
    blank: Option<usize>,
) -> Result<()> {
    let [batch, _time, labels_plus_one, vocab] =
        Rule(op, "logits must be [B, T, U + 1, V]").dims(logits)?;
    if let Some(blank) = blank {
        let rule = Rule(op, "the blank index must be below the vocabulary size V");
        rule.below("blank", blank as f64, vocab as f64)?;
    }
    let labels = labels_plus_one.saturating_sub(1);
    if labels == 0 {
        // Flex's gather over the empty label slice panics; burn's own `U = (U + 1) - 1`
        // underflows at U + 1 = 0.
        return Err(Rule(
            op,
            "logits' label axis (U + 1) needs at least two positions (U >= 1)",
        )
        .empty(logits, Some(2)));
    }
    exact(
        op,
        "targets must be [B, U] for logits [B, T, U + 1, V]",
        targets,
        &[batch, labels],
    )?;
    const LENGTHS: &str = "logit_lengths and target_lengths must be [B]";
    exact(op, LENGTHS, logit_lengths, &[batch])?;
    exact(op, LENGTHS, target_lengths, &[batch])?;
    Rule(op, "logits need at least one time step").nonempty_dim(logits, 1)
}

/// RNN-T lengths, values: each `logit_lengths[i]` in `1..=T` and each `target_lengths[i]` in
/// `0..=U` (burn gathers the lattice at `(logit_length - 1, target_length)`).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming the first bad length.
///
/// ```
/// use burn_guard::check::loss::rnnt_lengths;
/// assert!(rnnt_lengths("rnnt_loss", &[4, 1], &[2, 0], 4, 2).is_ok());
/// assert!(rnnt_lengths("rnnt_loss", &[0, 1], &[2, 0], 4, 2).is_err());
/// assert!(rnnt_lengths("rnnt_loss", &[4, 1], &[3, 0], 4, 2).is_err());
/// ```
pub fn rnnt_lengths(
    op: &'static str,
    logit_lengths: &[i64],
    target_lengths: &[i64],
    time: usize,
    labels: usize,
) -> Result<()> {
    let logit_rule = "each logit length must be in 1..=T";
    lengths_within(op, logit_rule, "logit_lengths", logit_lengths, (1, time))?;
    let target_rule = "each target length must be in 0..=U";
    lengths_within(
        op,
        target_rule,
        "target_lengths",
        target_lengths,
        (0, labels),
    )
}

/// Values that must be at least 0 (`PoissonNllLoss`'s targets, and its predictions when they
/// are not log-rates): burn asserts `greater_equal_scalar(0).all()`, which NaN fails.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming the first bad value.
///
/// ```
/// use burn_guard::check::loss::non_negative_values;
/// assert!(non_negative_values("poisson_nll_loss", "targets", &[0.0, 2.0]).is_ok());
/// assert!(non_negative_values("poisson_nll_loss", "targets", &[0.0, -2.0]).is_err());
/// ```
pub fn non_negative_values(op: &'static str, name: &'static str, values: &[f32]) -> Result<()> {
    match values.iter().find(|&&v| v.is_nan() || v < 0.0) {
        Some(&v) => Err(out_of_range(
            op,
            "values must be at least 0",
            name,
            f64::from(v),
            Limit::AtLeast(0.0.into()),
        )),
        None => Ok(()),
    }
}

/// CTC input lengths, values: each in `0..=T`. burn's CPU recursion only compares them with
/// time steps and computes a number for any length; the GPU kernel reads `log_probs` at every
/// `t < input_length`, out of bounds above `T` (a negative length is a huge one once cast).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming the first bad length.
///
/// ```
/// use burn_guard::check::loss::ctc_input_lengths;
/// assert!(ctc_input_lengths("ctc_loss", &[0, 5], 5).is_ok());
/// assert!(ctc_input_lengths("ctc_loss", &[6], 5).is_err());
/// ```
pub fn ctc_input_lengths(op: &'static str, input_lengths: &[i64], time: usize) -> Result<()> {
    let rule = "each input length must be in 0..=T, the time steps of log_probs";
    lengths_within(op, rule, "input_lengths", input_lengths, (0, time))
}

/// Class ids, values: each in `0..classes` (burn gathers with them). The shared
/// [`indices`](crate::check::indices) rule on dim `dim` of the tensor they index.
///
/// # Errors
///
/// [`GuardError::IndexOutOfRange`] naming the first bad id.
///
/// ```
/// use burn_guard::check::loss::class_ids;
/// assert!(class_ids("cross_entropy_loss", &[0, 2], 3, 1).is_ok());
/// assert!(class_ids("cross_entropy_loss", &[0, 3], 3, 1).is_err());
/// ```
pub fn class_ids(op: &'static str, ids: &[i64], classes: usize, dim: usize) -> Result<()> {
    shape::indices(op, ids, classes, dim)
}

/// `[batch, classes]` scores against `[batch]` targets (`CrossEntropyLoss`,
/// `MultiMarginLoss`): burn asserts the targets' shape (or reshapes them to `[batch, 1]`).
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
///
/// ```
/// use burn_guard::check::loss::class_targets;
/// assert!(class_targets("cross_entropy_loss", &[4, 3], &[4]).is_ok());
/// assert!(class_targets("cross_entropy_loss", &[4, 3], &[3]).is_err());
/// ```
pub fn class_targets(op: &'static str, scores: &[usize], targets: &[usize]) -> Result<()> {
    let batch = scores.first().copied().unwrap_or(0);
    Rule(
        op,
        "targets must be [batch], the batch of the [batch, classes] scores",
    )
    .shapes_agree(targets == [batch], &[scores, targets])
}

/// `CrossEntropyLoss` on logits: burn's `log_softmax` over the class axis reduces it (a max
/// first), which the backends refuse when it is empty.
///
/// # Errors
///
/// [`GuardError::Empty`] for `[batch, 0]` logits.
///
/// ```
/// use burn_guard::check::loss::class_axis;
/// assert!(class_axis("cross_entropy_loss", &[0, 3]).is_ok());
/// assert!(class_axis("cross_entropy_loss", &[0, 0]).is_err());
/// ```
pub fn class_axis(op: &'static str, logits: &[usize]) -> Result<()> {
    if logits.get(1) == Some(&0) {
        Err(Rule(op, "log_softmax needs a non-empty class axis").empty(logits, Some(1)))
    } else {
        Ok(())
    }
}

/// Per-class weights: one per class (`CrossEntropyLoss` reshapes them to `[1, classes]` when
/// smoothing and gathers them by class id; `BinaryCrossEntropyLoss` asserts it for rank > 1).
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with the weights' shape and `[classes]`.
///
/// ```
/// use burn_guard::check::loss::class_weights;
/// assert!(class_weights("cross_entropy_loss", &[3], 3).is_ok());
/// assert!(class_weights("cross_entropy_loss", &[4], 3).is_err());
/// ```
pub fn class_weights(op: &'static str, weights: &[usize], classes: usize) -> Result<()> {
    exact(
        op,
        "weights must hold one value per class",
        weights,
        &[classes],
    )
}

/// Two tensors that burn asserts have equal shapes (`BinaryCrossEntropyLoss`,
/// `PoissonNllLoss`).
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
///
/// ```
/// use burn_guard::check::loss::same_shape;
/// assert!(same_shape("poisson_nll_loss", &[2, 3], &[2, 3]).is_ok());
/// assert!(same_shape("poisson_nll_loss", &[2, 3], &[2, 1]).is_err());
/// ```
pub fn same_shape(op: &'static str, predictions: &[usize], targets: &[usize]) -> Result<()> {
    exact(
        op,
        "targets must have the shape of the predictions",
        targets,
        predictions,
    )
}

/// Operands that burn combines element-wise (a loss's `predictions - targets`, `target *
/// (first - second)`): every pair broadcasts, and the whole set does. Returns the broadcast
/// shape.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with the shapes that do not broadcast.
///
/// ```
/// use burn_guard::check::loss::elementwise;
/// assert_eq!(elementwise("mse_loss", &[&[2, 3], &[1, 3]]).unwrap(), vec![2, 3]);
/// assert!(elementwise("mse_loss", &[&[2, 3], &[2, 2]]).is_err());
/// ```
pub fn elementwise(op: &'static str, operands: &[&[usize]]) -> Result<Vec<usize>> {
    let Some((first, rest)) = operands.split_first() else {
        return Ok(Vec::new());
    };
    let mut out = first.to_vec();
    for operand in rest {
        out = shape::broadcast(op, &out, operand)?;
    }
    Ok(out)
}

/// `HingeEmbeddingLoss`: burn selects with `mask_where(target == 1)`, whose output takes the
/// mask's (the target's) shape; NdArray broadcasts the input to it and panics where it
/// cannot. Refused on every backend (Flex broadcasts both ways): the input must equal the
/// target's shape or be 1 in each dim where it differs.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
///
/// ```
/// use burn_guard::check::loss::broadcasts_to;
/// assert!(broadcasts_to("hinge_embedding_loss", &[1, 3], &[2, 3]).is_ok());
/// assert!(broadcasts_to("hinge_embedding_loss", &[2, 3], &[1, 3]).is_err());
/// ```
pub fn broadcasts_to(op: &'static str, input: &[usize], target: &[usize]) -> Result<()> {
    let fits =
        input.len() == target.len() && input.iter().zip(target).all(|(&i, &t)| i == t || i == 1);
    Rule(
        op,
        "the input must broadcast to the target's shape (the selection mask's shape)",
    )
    .shapes_agree(fits, &[input, target])
}

/// A tensor that burn `expand`s a parameter to (`BinaryCrossEntropyLoss`'s weights):
/// `expand` refuses a zero size.
///
/// # Errors
///
/// [`GuardError::Empty`] naming the first empty dim.
///
/// ```
/// use burn_guard::check::loss::expand_target;
/// assert!(expand_target("binary_cross_entropy_loss", &[2, 3]).is_ok());
/// assert!(expand_target("binary_cross_entropy_loss", &[0, 3]).is_err());
/// ```
pub fn expand_target(op: &'static str, shape: &[usize]) -> Result<()> {
    match shape.iter().position(|&size| size == 0) {
        Some(dim) => Err(
            Rule(op, "weights cannot be expanded to a shape with a zero size")
                .empty(shape, Some(dim)),
        ),
        None => Ok(()),
    }
}

/// The `Reduction` a loss's `forward` accepts: `Mean`, `Sum` or `Auto`; every loss but
/// `KLDivLoss` panics on `BatchMean` (`"BatchMean reduction is not supported"`).
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] for `BatchMean`.
///
/// ```
/// use burn::nn::loss::Reduction;
/// use burn_guard::check::loss::reduction;
/// assert!(reduction("mse_loss", &Reduction::Sum).is_ok());
/// assert!(reduction("mse_loss", &Reduction::BatchMean).is_err());
/// ```
pub fn reduction(op: &'static str, reduction: &burn::nn::loss::Reduction) -> Result<()> {
    if matches!(reduction, burn::nn::loss::Reduction::BatchMean) {
        Err(Rule(op, "this loss reduces with Mean, Sum or Auto only")
            .invalid("reduction=BatchMean".to_owned()))
    } else {
        Ok(())
    }
}

/// A config number that must be at least 0 (burn's `value >= 0.0` assert; NaN fails it).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming `name`.
///
/// ```
/// use burn_guard::check::loss::non_negative;
/// assert!(non_negative("huber_loss_init", "delta", 0.0).is_ok());
/// assert!(non_negative("huber_loss_init", "delta", f64::NAN).is_err());
/// ```
pub fn non_negative(op: &'static str, name: &'static str, value: f64) -> Result<()> {
    Rule(op, "must be at least 0").within(value >= 0.0, name, value, Limit::AtLeast(0.0.into()))
}

/// A config number that must be above 0 (burn's `value > 0.0` assert; NaN fails it).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming `name`.
///
/// ```
/// use burn_guard::check::loss::positive;
/// assert!(positive("lp_loss_init", "p", 1.0).is_ok());
/// assert!(positive("lp_loss_init", "p", 0.0).is_err());
/// ```
pub fn positive(op: &'static str, name: &'static str, value: f64) -> Result<()> {
    Rule(op, "must be above 0").within(value > 0.0, name, value, Limit::Above(0.0.into()))
}

/// A label smoothing factor in `[0, 1]` (the cross-entropy configs' assert; NaN fails it).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for `smoothing`.
///
/// ```
/// use burn_guard::check::loss::smoothing;
/// assert!(smoothing("cross_entropy_loss_init", 1.0).is_ok());
/// assert!(smoothing("cross_entropy_loss_init", 1.5).is_err());
/// ```
pub fn smoothing(op: &'static str, value: f32) -> Result<()> {
    Rule(op, "label smoothing must be in [0, 1]").within(
        (0.0..=1.0).contains(&value),
        "smoothing",
        f64::from(value),
        Limit::Between(0.0.into(), 1.0.into()),
    )
}

/// Class weights all above 0 (the cross-entropy configs' assert; NaN fails it).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for the first weight that is not.
///
/// ```
/// use burn_guard::check::loss::positive_weights;
/// assert!(positive_weights("cross_entropy_loss_init", &[1.0, 2.0]).is_ok());
/// assert!(positive_weights("cross_entropy_loss_init", &[1.0, 0.0]).is_err());
/// ```
pub fn positive_weights(op: &'static str, weights: &[f32]) -> Result<()> {
    match weights.iter().find(|&&w| w.is_nan() || w <= 0.0) {
        Some(&w) => Err(out_of_range(
            op,
            "class weights must be above 0",
            "weights",
            f64::from(w),
            Limit::Above(0.0.into()),
        )),
        None => Ok(()),
    }
}

/// `MultiMarginLossConfig::p`: 1 or 2.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for any other `p`.
///
/// ```
/// use burn_guard::check::loss::multi_margin_p;
/// assert!(multi_margin_p("multi_margin_loss_init", 2).is_ok());
/// assert!(multi_margin_p("multi_margin_loss_init", 3).is_err());
/// ```
pub fn multi_margin_p(op: &'static str, p: i32) -> Result<()> {
    Rule(op, "multi margin loss supports p = 1 or p = 2").within(
        p == 1 || p == 2,
        "p",
        f64::from(p),
        Limit::Between(1.0.into(), 2.0.into()),
    )
}

/// `cross_entropy_with_logits(logits, target_probs)`: the shapes broadcast
/// (`TensorCheck::binary_ops_ew` through `mul`). Returns the broadcast shape.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
pub fn cross_entropy_with_logits(
    op: &'static str,
    logits: &[usize],
    target: &[usize],
) -> Result<Vec<usize>> {
    shape::broadcast(op, logits, target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctc_shapes() {
        assert!(ctc("ctc_loss", &[0, 2, 4], &[2, 3], &[2], &[2], 0).is_err());
        assert!(ctc("ctc_loss", &[3, 2, 4], &[2, 3], &[1], &[2], 0).is_err());
        assert!(ctc("ctc_loss", &[3, 2, 4], &[2, 3], &[2], &[3], 0).is_err());
        assert!(ctc("ctc_loss", &[3, 2, 4], &[2, 0], &[2], &[2], 3).is_ok());
    }

    #[test]
    fn ctc_length_values() {
        assert!(ctc_lengths("ctc_loss", &[3], &[-1], 3, 2).is_err());
        assert!(ctc_lengths("ctc_loss", &[3], &[3], 3, 2).is_err());
        assert!(ctc_lengths("ctc_loss", &[0], &[0], 3, 2).is_ok());
        assert!(ctc_lengths("ctc_loss", &[4], &[0], 3, 2).is_err());
    }

    #[test]
    fn cross_entropy_rules() -> std::result::Result<(), String> {
        let err = crate::check::test_support::refused(
            "cross_entropy_with_logits",
            cross_entropy_with_logits("c", &[2, 3], &[2, 4]),
        )?;
        assert!(matches!(&err, GuardError::ShapeMismatch { shapes, .. }
            if shapes == &[vec![2, 3], vec![2, 4]]));
        Ok(())
    }
}
