//! The rules of burn-tensor's `Tensor::einsum` (`src/tensor/api/einsum/`): the equation as
//! burn-einsum parses and plans it, against the operands' ranks, dtypes and sizes. burn checks
//! these in `execution.rs` (`prepare`, `check_output_rank`, `Value::diagonal`,
//! `validate_broadcast`) while it runs the contraction; here they are checked before any of it.

use burn::tensor::DType;
use burn_einsum::ELLIPSIS;

use super::rule::Rule;
use crate::error::{GuardError, Result};

/// One operand of an einsum, as the rules read it.
#[derive(Debug, Clone, Copy)]
pub struct EinsumOperand<'a> {
    /// The operand's shape.
    pub shape: &'a [usize],
    /// The operand's dtype.
    pub dtype: DType,
}

/// A label's character, as burn-einsum numbers labels: `A`–`Z` are 0–25, `a`–`z` 26–51.
fn label_char(label: u8) -> char {
    match label {
        0..=25 => char::from(b'A' + label),
        _ => char::from(b'a' + label.saturating_sub(26)),
    }
}

/// The checks of burn's `Tensor::einsum` for `equation` over `operands`, producing a tensor of
/// rank `rank`, in burn's order: the equation parses (burn-einsum's `parse`); there is at
/// least one operand and one per input subscript; the first operand is not quantized and
/// every operand has its dtype (`prepare`); each operand has the rank its subscript names
/// (at least the named labels beside an ellipsis; `[1]` for an empty subscript); `rank` is the
/// equation's output rank, 1 for a scalar (`check_output_rank`); a label repeated in one
/// subscript has equal sizes (`Value::diagonal`); and every label's sizes agree across
/// operands, or are 1, as do the dimensions an ellipsis covers, aligned from the right
/// (`validate_broadcast`). Returns the output shape.
///
/// # Errors
///
/// - [`GuardError::InvalidArgument`] for an equation that does not parse, an operand count
///   the equation does not take, an output rank it does not produce, or label sizes that
///   disagree (the message names the label and the operands, as burn's does).
/// - [`GuardError::InvalidDType`] for a quantized operand; [`GuardError::DTypeMismatch`] for
///   operands of different dtypes.
/// - [`GuardError::RankMismatch`] for an operand whose rank its subscript does not take.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::numeric::{EinsumOperand, einsum};
///
/// let a = EinsumOperand { shape: &[2, 3], dtype: DType::F32 };
/// let b = EinsumOperand { shape: &[3, 5], dtype: DType::F32 };
/// assert_eq!(einsum("einsum", "ij,jk->ik", &[a, b], 2)?, [2, 5]);
/// let c = EinsumOperand { shape: &[4, 5], dtype: DType::F32 };
/// let err = einsum("einsum", "ij,jk->ik", &[a, c], 2).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "einsum: every label's sizes must agree across operands, or be 1; got label 'j': operand 0 has size 3, operand 1 has size 4"
/// );
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn einsum(
    op: &'static str,
    equation: &str,
    operands: &[EinsumOperand<'_>],
    rank: usize,
) -> Result<Vec<usize>> {
    let parsed = burn_einsum::parse(equation)
        .map_err(|err| Rule(op, "the equation must parse").invalid(err.to_string()))?;
    let subscripts = parsed.inputs();
    let Some(first) = operands.first() else {
        return Err(Rule(op, "at least one operand is required").invalid("0 operands".into()));
    };
    if operands.len() != subscripts.len() {
        return Err(
            Rule(op, "the operand count must match the equation").invalid(format!(
                "{} operands for {} subscripts",
                operands.len(),
                subscripts.len()
            )),
        );
    }
    Rule(op, "quantized operands are not supported")
        .dtype_allowed(!matches!(first.dtype, DType::QFloat(_)), first.dtype)?;
    let mut width = 0;
    for (operand, subscript) in operands.iter().zip(subscripts) {
        if operand.dtype != first.dtype {
            return Err(GuardError::DTypeMismatch {
                op,
                rule: "operands must have the same dtype",
                lhs: first.dtype,
                rhs: operand.dtype,
            });
        }
        let named = named_rank(subscript);
        let shape = operand.shape;
        if subscript.contains(&ELLIPSIS) {
            Rule(
                op,
                "an operand has at least the rank of its named subscripts",
            )
            .rank_at_least(shape, named)?;
            width = width.max(shape.len().saturating_sub(named));
        } else if named == 0 {
            Rule(op, "an operand with an empty subscript must have shape [1]")
                .shapes_agree(shape == [1], &[shape])?;
        } else {
            Rule(op, "an operand has the rank of its subscript").expect_rank(
                named,
                shape.len(),
                shape,
            )?;
        }
    }
    let output = parsed.output();
    let output_rank = named_rank(output) + if output.contains(&ELLIPSIS) { width } else { 0 };
    if rank != output_rank.max(1) {
        return Err(Rule(
            op,
            "the output rank must match the equation (a scalar result has rank 1)",
        )
        .invalid(format!(
            "rank {rank} for an equation whose output has rank {output_rank}"
        )));
    }

    // Each operand's size per label (a repeated label's sizes must agree: `Value::diagonal`)
    // and the dims its ellipsis covers, aligned to `width` from the right (`alignment_shape`).
    let mut aligned: Vec<Aligned> = Vec::with_capacity(operands.len());
    for (index, (operand, subscript)) in operands.iter().zip(subscripts).enumerate() {
        let local = match subscript.contains(&ELLIPSIS) {
            true => operand.shape.len().saturating_sub(named_rank(subscript)),
            false => 0,
        };
        let mut dims = operand.shape.iter().copied();
        let (mut sizes, mut ellipsis) = (Vec::<(char, usize)>::new(), vec![1; width]);
        for &code in subscript {
            if code == ELLIPSIS {
                let covered: Vec<usize> = dims.by_ref().take(local).collect();
                let start = width.saturating_sub(covered.len());
                for (slot, size) in ellipsis.iter_mut().skip(start).zip(covered) {
                    *slot = size;
                }
                continue;
            }
            // An empty subscript's operand is `[1]`, and names no dimension.
            let (label, size) = (label_char(code), dims.next().unwrap_or(1));
            match sizes.iter().find(|(l, _)| *l == label) {
                Some(&(_, first)) if first != size => {
                    return Err(Rule(op, "a repeated subscript must have equal dimensions")
                        .invalid(format!(
                            "operand {index}: label '{label}' has sizes {first} and {size}"
                        )));
                }
                Some(_) => {
                    size.checked_mul(size).ok_or_else(|| {
                        Rule(op, "a diagonal's size squared must fit in usize")
                            .invalid(format!("label '{label}' of size {size}"))
                    })?;
                }
                None => sizes.push((label, size)),
            }
        }
        aligned.push(Aligned { sizes, ellipsis });
    }

    // `validate_broadcast`: the operands in order, each over the equation's axes in the plan's
    // order (the ellipsis expanded to `width` axes); an axis keeps the last size other than 1
    // and the operand that set it, and a size other than 1 that disagrees is refused naming
    // both operands, as burn does.
    let slots = parsed.plan().labels;
    let mut axes: Vec<(usize, usize)> = Vec::new();
    for (index, Aligned { sizes, ellipsis }) in aligned.iter().enumerate() {
        let mut axis = 0;
        for slot in &slots {
            let dims: Vec<(usize, String)> = match slot {
                Some(label) => {
                    let size = sizes
                        .iter()
                        .find(|(l, _)| l == label)
                        .map_or(1, |(_, s)| *s);
                    vec![(size, format!("label '{label}'"))]
                }
                None => ellipsis
                    .iter()
                    .enumerate()
                    .map(|(j, size)| (*size, format!("ellipsis axis {} from the right", width - j)))
                    .collect(),
            };
            for (got, what) in dims {
                if axes.len() <= axis {
                    axes.push((1, 0));
                }
                if let Some(entry) = axes.get_mut(axis)
                    && got != 1
                {
                    let (size, previous) = *entry;
                    if size != 1 && size != got {
                        return Err(Rule(
                            op,
                            "every label's sizes must agree across operands, or be 1",
                        )
                        .invalid(format!(
                            "{what}: operand {previous} has size {size}, operand {index} has size {got}"
                        )));
                    }
                    *entry = (got, index);
                }
                axis += 1;
            }
        }
    }

    // The output: each output label's size, the ellipsis's dims where the output has it.
    let mut shape = Vec::with_capacity(output_rank);
    let mut axis = 0;
    let mut by_slot: Vec<(Option<char>, Vec<usize>)> = Vec::with_capacity(slots.len());
    for slot in &slots {
        let n = if slot.is_some() { 1 } else { width };
        let sizes = axes
            .iter()
            .skip(axis)
            .take(n)
            .map(|(size, _)| *size)
            .collect();
        by_slot.push((*slot, sizes));
        axis += n;
    }
    for &code in output {
        let slot = (code != ELLIPSIS).then(|| label_char(code));
        if let Some((_, sizes)) = by_slot.iter().find(|(s, _)| *s == slot) {
            shape.extend(sizes);
        }
    }
    if shape.is_empty() {
        shape.push(1);
    }
    Ok(shape)
}

/// One operand as the broadcast rule reads it: its size per label, and the dims under the
/// ellipsis aligned to the equation's width from the right.
struct Aligned {
    sizes: Vec<(char, usize)>,
    ellipsis: Vec<usize>,
}

/// The labels a subscript names, its ellipsis aside.
fn named_rank(subscript: &[u8]) -> usize {
    subscript.iter().filter(|l| **l != ELLIPSIS).count()
}
