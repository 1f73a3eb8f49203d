//! Rules of burn's recurrent layers (`Rnn`, `Gru`, `Lstm` and their `Bi` forms): the input against the
//! gates' linear weights, the optional state against the batch and the hidden size, and the
//! sizes burn's recurrent step cannot run with.
//!
//! Every gate runs two linears per step (`input_transform` on the step's input,
//! `hidden_transform` on the hidden state): each is checked by the one [`linear`] rule, its
//! error carrying the gate's field path (`input_gate.input_transform: linear: …`).

use super::rule::Rule;
#[cfg(doc)]
use crate::error::GuardError;
use crate::error::{Result, ResultExt};

use super::linear::linear;

/// The parameter shapes of one `GateController`, as a recurrent layer holds it.
#[derive(Debug, Clone, Copy)]
pub struct Gate<'a> {
    /// The layer's field holding the gate (`input_gate`, `update_gate`, `gate`, …).
    pub name: &'static str,
    /// `input_transform.weight`: `[d_input, d_hidden]`.
    pub input_weight: &'a [usize],
    /// `input_transform.bias`: `[d_hidden]`.
    pub input_bias: Option<&'a [usize]>,
    /// `hidden_transform.weight`: `[d_hidden, d_hidden]`.
    pub hidden_weight: &'a [usize],
    /// `hidden_transform.bias`: `[d_hidden]`.
    pub hidden_bias: Option<&'a [usize]>,
}

/// What a checked recurrent call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// Run burn's forward.
    Dispatch,
    /// The batch is empty and the sequence is not: every output is empty, known without
    /// dispatch (NdArray's matmul divides by zero on an empty batch; Flex returns the empties).
    EmptyBatch,
}

/// The input of a recurrent layer, `[batch, seq, features]` in burn's batch-first order
/// (a layer with `batch_first = false` passes its input's dims 1, 0, 2), against its gates,
/// its hidden size and its optional state.
///
/// `state` is the hidden state's shape, `cell` the LSTM cell state's (`None` for `Rnn`/`Gru`).
///
/// Rules, in burn's order of evaluation:
/// - an LSTM state's cell and hidden have the same shape (`LstmState::new` asserts it);
/// - a sequence of length 0 runs no step: burn returns an empty output and the state as it
///   was given, so nothing else is checked ([`Plan::Dispatch`]);
/// - otherwise `d_hidden` is at least 1 (burn's step panics on a hidden size of 0, on Flex and
///   NdArray);
/// - the state's batch is the input's, or 1 (burn broadcasts it over the batch);
/// - every gate's `input_transform` accepts `[batch, features]` and its `hidden_transform`
///   accepts the state (the [`linear`] rule), and both give `d_hidden` outputs;
/// - beyond burn: an input with no features and a non-empty batch is refused (NdArray's
///   matmul divides by zero on it; Flex computes it);
/// - an empty batch gives [`Plan::EmptyBatch`].
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] for the state or a gate, wrapped in the gate's path for a
/// linear rule; [`GuardError::OutOfRange`] for `d_hidden = 0`; [`GuardError::Empty`] for an
/// input with no features.
///
/// ```
/// use burn_guard::check::rnn::{Gate, Plan, recurrent};
///
/// let (w_in, w_h, b) = ([4, 5], [5, 5], [5]);
/// let gate = Gate {
///     name: "gate",
///     input_weight: &w_in,
///     input_bias: Some(&b),
///     hidden_weight: &w_h,
///     hidden_bias: Some(&b),
/// };
/// assert_eq!(recurrent("rnn", [2, 3, 4], 5, &[gate], None, None)?, Plan::Dispatch);
/// assert_eq!(recurrent("rnn", [0, 3, 4], 5, &[gate], None, None)?, Plan::EmptyBatch);
/// let err = recurrent("rnn", [2, 3, 6], 5, &[gate], None, None).unwrap_err();
/// assert_eq!(err.path().as_deref(), Some("gate.input_transform"));
/// assert!(recurrent("rnn", [2, 3, 4], 5, &[gate], Some(&[3, 5]), None).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn recurrent(
    op: &'static str,
    input: [usize; 3],
    d_hidden: usize,
    gates: &[Gate<'_>],
    state: Option<&[usize]>,
    cell: Option<&[usize]>,
) -> Result<Plan> {
    let [batch, seq, features] = input;
    cell_like_hidden(op, state, cell)?;
    if seq == 0 {
        return Ok(Plan::Dispatch);
    }
    Rule(op, "burn's recurrent step panics on a hidden size of 0")
        .at_least("d_hidden", d_hidden, 1)?;
    let hidden = match state {
        Some(shape) => {
            if let [state_batch, _] = shape
                && *state_batch != batch
                && *state_batch != 1
            {
                return Err(Rule(
                    op,
                    "the state's batch must be the input's, or 1 (broadcast over the batch)",
                )
                .shape_mismatch(&[&input, shape]));
            }
            shape.to_vec()
        }
        None => vec![batch, d_hidden],
    };
    for gate in gates {
        gate_rules(op, gate, &[batch, features], &hidden, d_hidden)?;
    }
    if features == 0 && batch > 0 {
        return Err(Rule(
            op,
            "the input must have features (NdArray's matmul divides by zero on none)",
        )
        .empty(&input, Some(2)));
    }
    Ok(if batch == 0 {
        Plan::EmptyBatch
    } else {
        Plan::Dispatch
    })
}

/// An LSTM state's cell and hidden have the same shape (`LstmState::new` asserts it).
fn cell_like_hidden(
    op: &'static str,
    state: Option<&[usize]>,
    cell: Option<&[usize]>,
) -> Result<()> {
    match (state, cell) {
        (Some(hidden), Some(cell)) => {
            Rule(op, "the state's cell and hidden must have the same shape")
                .same_shape(cell, hidden)
        }
        _ => Ok(()),
    }
}

/// One gate's two linears on one step, and its outputs against `d_hidden`.
fn gate_rules(
    op: &'static str,
    gate: &Gate<'_>,
    step: &[usize],
    hidden: &[usize],
    d_hidden: usize,
) -> Result<()> {
    let name = gate.name;
    linear("linear", step, gate.input_weight, gate.input_bias)
        .with_context(|| format!("{name}.input_transform"))?;
    linear("linear", hidden, gate.hidden_weight, gate.hidden_bias)
        .with_context(|| format!("{name}.hidden_transform"))?;
    let outputs = [gate.input_weight.get(1), gate.hidden_weight.get(1)];
    if outputs.iter().any(|d| *d != Some(&d_hidden)) {
        let shapes: [&[usize]; 3] = [gate.input_weight, gate.hidden_weight, &[d_hidden]];
        return Err(
            Rule(op, "a gate's transforms must both give d_hidden outputs").shape_mismatch(&shapes),
        )
        .with_context(|| name.to_string());
    }
    Ok(())
}

/// How a bidirectional layer takes each direction's state from the stacked one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectionSlice {
    /// `BiLstm`: `state.slice(s![d])`, the whole `[batch, d_hidden]` of direction `d`.
    Whole,
    /// `BiRnn`/`BiGru`: `state.slice([d..d + 1, 0..batch, 0..d_hidden])`, which burn clamps
    /// to the state's sizes: a larger state is cut, a smaller one kept.
    Clamped {
        /// The layer's `d_hidden`, the end of the last range.
        d_hidden: usize,
    },
}

/// A bidirectional layer's input `[batch, seq, features]` (batch first) and its optional
/// stacked state `[directions, batch, d_hidden]` (`cell` for an LSTM): burn takes directions
/// 0 and 1 from it (a third is ignored; with one, the second slice is empty and burn panics)
/// and panics, on Flex and NdArray, when a direction's slice has an empty dimension (burn's
/// squeeze of it) or when the final states it stacks have an empty batch (an empty input
/// batch). Each
/// direction's state then goes through [`recurrent`] with the direction's gates.
///
/// Returns each direction's state shape, if a state was given.
///
/// # Errors
///
/// [`GuardError::Empty`] for an empty batch; [`GuardError::RankMismatch`]/
/// [`GuardError::ShapeMismatch`] for a state with fewer than two directions or a cell unlike
/// its hidden.
///
/// ```
/// use burn_guard::check::rnn::{DirectionSlice, bidirectional};
///
/// let whole = DirectionSlice::Whole;
/// let state = Some(&[2, 2, 5][..]);
/// assert_eq!(bidirectional("bilstm", [2, 3, 4], state, state, whole)?, Some(vec![2, 5]));
/// let one = Some(&[1, 2, 5][..]);
/// assert!(bidirectional("bilstm", [2, 3, 4], one, one, whole).is_err());
/// assert!(bidirectional("bilstm", [0, 3, 4], None, None, whole).is_err());
/// // BiRnn cuts a larger state to the batch and d_hidden.
/// let clamped = DirectionSlice::Clamped { d_hidden: 5 };
/// let big = Some(&[3, 4, 7][..]);
/// assert_eq!(bidirectional("birnn", [2, 3, 4], big, None, clamped)?, Some(vec![2, 5]));
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn bidirectional(
    op: &'static str,
    input: [usize; 3],
    state: Option<&[usize]>,
    cell: Option<&[usize]>,
    slice: DirectionSlice,
) -> Result<Option<Vec<usize>>> {
    let [batch, seq, _] = input;
    cell_like_hidden(op, state, cell)?;
    let direction = match state {
        None => None,
        Some([directions, state_batch, state_hidden]) => {
            if *directions < 2 {
                return Err(Rule(
                    op,
                    "the state must stack both directions: [2, batch, d_hidden]",
                )
                .shape_mismatch(&[&input, state.unwrap_or_default()]));
            }
            Some(match slice {
                DirectionSlice::Whole => vec![*state_batch, *state_hidden],
                DirectionSlice::Clamped { d_hidden } => {
                    vec![(*state_batch).min(batch), (*state_hidden).min(d_hidden)]
                }
            })
        }
        Some(other) => {
            return Err(
                Rule(op, "the state must be [2, batch, d_hidden]").rank_mismatch(
                    3,
                    other.len(),
                    other,
                ),
            );
        }
    };
    // burn squeezes each direction's slice `[1, batch, d_hidden]` to `[batch, d_hidden]`; on a
    // zero-sized dimension the shape computation panics (cubecl-zspace, burn 0.22.1).
    if let (Some(dims), Some(stacked)) = (&direction, state)
        && let Some(empty) = dims.iter().position(|d| *d == 0)
    {
        return Err(Rule(
            op,
            "a direction's state must not be empty (burn's squeeze panics on it)",
        )
        .empty(stacked, Some(empty + 1)));
    }
    // burn stacks the two directions' final states, and its stack panics on an empty batch
    // (the unsqueeze it runs miscomputes a zero-sized shape): the final states have the
    // input's batch once a step runs, the given state's when none does.
    let final_batch = match &direction {
        Some(dims) if seq == 0 => dims.first().copied().unwrap_or(0),
        _ => batch,
    };
    if final_batch == 0 {
        return Err(Rule(
            op,
            "burn's bidirectional layers panic on an empty batch (stacking the final states)",
        )
        .empty(&input, Some(0)));
    }
    Ok(direction)
}

/// One step `(t, input_t)` of `Lstm::forward_iter(steps, state, batch_size, seq_length, ..)`:
/// `input_t` is `[batch, 1, features]` (burn squeezes dim 1), and its batch broadcast with
/// the hidden state's (`hidden_batch`: the given state's on the first step, the previous
/// step's after) must exist (burn adds them) and, when the step is written, be `batch_size`
/// (burn assigns the rows `[.., t, ..]`). burn writes nothing for a step whose slot is empty
/// (`t` past `seq_length`, an empty output): that step is computed and dropped, as in burn.
/// Returns the step's batch, the next step's `hidden_batch`.
///
/// # Errors
///
/// What [`super::view::squeeze_dim`] returns for dim 1; [`GuardError::ShapeMismatch`] for
/// the batch.
///
/// ```
/// use burn_guard::check::rnn::step;
///
/// assert_eq!(step("lstm", (0, &[2, 1, 4]), 2, 2, 3, 5)?, 2);
/// assert_eq!(step("lstm", (0, &[1, 1, 4]), 2, 2, 3, 5)?, 2); // broadcast over the state
/// assert_eq!(step("lstm", (3, &[2, 1, 4]), 2, 2, 3, 5)?, 2); // past seq_length: dropped
/// assert!(step("lstm", (0, &[2, 2, 4]), 2, 2, 3, 5).is_err()); // not one step
/// assert!(step("lstm", (0, &[3, 1, 4]), 2, 2, 3, 5).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn step(
    op: &'static str,
    (t, input): (usize, &[usize]),
    hidden_batch: usize,
    batch_size: usize,
    seq_length: usize,
    d_hidden: usize,
) -> Result<usize> {
    super::view::squeeze_dim(op, input, 1, 2)?;
    let batch = input.first().copied().unwrap_or(0);
    let rows = match (batch, hidden_batch) {
        (b, h) if b == h => Some(b),
        (1, h) => Some(h),
        (b, 1) => Some(b),
        _ => None,
    };
    let written = t < seq_length && batch_size > 0 && d_hidden > 0;
    match rows {
        Some(rows) if rows == batch_size || !written => Ok(rows),
        _ => Err(Rule(
            op,
            "a step's batch, broadcast with the hidden state's, must be batch_size",
        )
        .shape_mismatch(&[input, &[hidden_batch], &[batch_size]])),
    }
}

/// The parameter shapes of a recurrent layer's activation, where it has any.
#[derive(Debug, Clone, Copy)]
pub enum ActivationShapes<'a> {
    /// Element-wise, no parameter that meets the step's shape.
    Elementwise,
    /// `PRelu`: its `alpha`.
    PRelu {
        /// `alpha`: `[1]` or `[d_hidden]`.
        alpha: &'a [usize],
    },
    /// `SwiGlu`: its two linears, `[d_hidden, d_output]` each, with their biases.
    SwiGlu {
        /// `linear_inner.weight`.
        inner_weight: &'a [usize],
        /// `linear_inner.bias`.
        inner_bias: Option<&'a [usize]>,
        /// `linear_outer.weight`.
        outer_weight: &'a [usize],
        /// `linear_outer.bias`.
        outer_bias: Option<&'a [usize]>,
    },
}

/// A recurrent layer's activation on one step's `[batch, d_hidden]`: a `PRelu`'s `alpha` by
/// the [`prelu`](super::activation::prelu) rule, a `SwiGlu`'s linears by the [`linear`] rule and
/// its output width equal to `d_hidden` (burn writes the result into `[batch, seq,
/// d_hidden]` and feeds it to the next step: another width panics there).
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`].
///
/// ```
/// use burn_guard::check::rnn::{ActivationShapes, activation};
///
/// assert!(activation("lstm", &[2, 5], ActivationShapes::PRelu { alpha: &[5] }).is_ok());
/// assert!(activation("lstm", &[2, 5], ActivationShapes::PRelu { alpha: &[3] }).is_err());
/// ```
pub fn activation(op: &'static str, step: &[usize], shapes: ActivationShapes<'_>) -> Result<()> {
    match shapes {
        ActivationShapes::Elementwise => Ok(()),
        ActivationShapes::PRelu { alpha } => super::activation::prelu("prelu", step, alpha),
        ActivationShapes::SwiGlu {
            inner_weight,
            inner_bias,
            outer_weight,
            outer_bias,
        } => {
            let inner = linear("linear", step, inner_weight, inner_bias).context("linear_inner")?;
            let outer = linear("linear", step, outer_weight, outer_bias).context("linear_outer")?;
            if inner.output != step || outer.output != step {
                return Err(Rule(
                    op,
                    "a recurrent layer's SwiGlu must keep the width d_hidden",
                )
                .shape_mismatch(&[step, inner_weight, outer_weight]));
            }
            Ok(())
        }
    }
}
