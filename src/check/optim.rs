//! Rules of an optimizer step (twinned in `optim/`): what every parameter must be for burn-optim's
//! `ModuleOptimizer::step` to update it, and what its gradient must be. burn checks none of it:
//! `GradientsParams::from_grads` skips a parameter that is not a tracked leaf or has no gradient,
//! `step` returns it unchanged, and no optimizer looks at a gradient's values.
//!
//! Pure functions over what a walk of the model found; each names the burn code it mirrors or
//! says it is burn-guard's own.

use super::rule::Rule;
use crate::error::{GuardError, Limit, NonFiniteParam, Result};

/// What a float parameter is to burn's optimizer, read without touching its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamState {
    /// A leaf on an autodiff device that requires a gradient: the optimizer updates it when it
    /// has one.
    Trainable,
    /// Tracked but not a leaf (`Module::to_device` of a tracked model records a move): burn's
    /// converter skips it (`is_require_grad` is false), so it is never updated.
    NotLeaf,
    /// On a device without autodiff (a model built on a plain device, a `valid()` copy).
    Plain,
    /// On an autodiff device, not tracked: frozen (`freeze`, `no_grad`), or a running statistic.
    Frozen,
    /// Never drawn: the forward that produced the loss did not use it.
    Unused,
}

/// One float parameter as the step's walk found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamCensus {
    /// The module path.
    pub path: String,
    /// What it is to the optimizer.
    pub state: ParamState,
    /// Whether the gradients hold one for its id.
    pub has_gradient: bool,
}

/// Every parameter the step should update will be updated: burn-optim's
/// `GradientsParamsConverter::visit_float` (which skips non-leaves, untracked and plain
/// parameters, and those without a gradient) and `ModuleOptimizerMapper::map_float` (which
/// returns a parameter without a gradient unchanged), made loud.
///
/// In this order: a non-leaf is refused (burn can never update it); a model with no trainable
/// parameter is refused, naming why; a trainable (or never drawn) parameter without a gradient
/// is refused unless `allow_missing` (a deliberate partial step).
///
/// # Errors
///
/// [`GuardError::NoGradient`] naming the parameters and the likely cause.
///
/// ```
/// use burn_guard::check::optim::{ParamCensus, ParamState, trainable};
///
/// let param = |path: &str, state, has_gradient| ParamCensus { path: path.into(), state, has_gradient };
/// assert!(trainable("step", &[param("fc.weight", ParamState::Trainable, true)], false).is_ok());
/// let err = trainable("step", &[param("fc.weight", ParamState::Plain, false)], false).unwrap_err();
/// assert!(err.to_string().contains("no trainable parameter"));
/// ```
pub fn trainable(op: &'static str, params: &[ParamCensus], allow_missing: bool) -> Result<()> {
    let paths = |state: ParamState| -> Vec<String> {
        params
            .iter()
            .filter(|p| p.state == state)
            .map(|p| p.path.clone())
            .collect()
    };
    let not_leaf = paths(ParamState::NotLeaf);
    if !not_leaf.is_empty() {
        return Err(GuardError::NoGradient {
            op,
            rule: "every parameter must be a leaf for the optimizer to update it (Module::to_device \
                   of a tracked model records a move, whose output burn never updates: move it \
                   with Module::fork)",
            params: not_leaf,
        });
    }
    let trainable = params
        .iter()
        .filter(|p| matches!(p.state, ParamState::Trainable | ParamState::Unused))
        .count();
    if trainable == 0 && !params.is_empty() {
        let all_plain = params.iter().all(|p| p.state == ParamState::Plain);
        return Err(GuardError::NoGradient {
            op,
            rule: if all_plain {
                "the model has no trainable parameter: it is on a device without autodiff (built \
                 on a plain device, moved from one, or a valid() copy): build it on \
                 device.autodiff() or call train()"
            } else {
                "the model has no trainable parameter: every parameter is frozen or on a plain \
                 device"
            },
            params: params.iter().map(|p| p.path.clone()).collect(),
        });
    }
    if allow_missing {
        return Ok(());
    }
    let unused: Vec<String> = params
        .iter()
        .filter(|p| p.state == ParamState::Unused && !p.has_gradient)
        .map(|p| p.path.clone())
        .collect();
    let missing: Vec<String> = params
        .iter()
        .filter(|p| p.state == ParamState::Trainable && !p.has_gradient)
        .map(|p| p.path.clone())
        .collect();
    if !missing.is_empty() {
        let none = params.iter().all(|p| !p.has_gradient);
        return Err(GuardError::NoGradient {
            op,
            rule: if none {
                "every trainable parameter must have a gradient, and none has: the loss came from \
                 another copy of the model (a fork, the model before the last step), or these \
                 gradients were already taken"
            } else {
                "every trainable parameter must have a gradient (the loss came from another copy \
                 of these parameters, or their gradients were already taken; allow a partial \
                 step to update only the others)"
            },
            params: missing,
        });
    }
    if !unused.is_empty() {
        return Err(GuardError::NoGradient {
            op,
            rule: "every trainable parameter must have a gradient: these were never drawn, so the \
                   forward that produced the loss did not use them (allow a partial step to \
                   update only the others)",
            params: unused,
        });
    }
    Ok(())
}

/// A parameter's rank is one burn's optimizers step: `dispatch_rank!` in burn-optim's
/// `DynOptimizer::step_dyn` covers ranks 1 to 8 and panics past them.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] with the rank.
///
/// ```
/// use burn_guard::check::optim::rank;
/// assert!(rank("step", 4).is_ok());
/// assert!(rank("step", 9).is_err());
/// ```
pub fn rank(op: &'static str, rank: usize) -> Result<()> {
    Rule(op, "an optimizer steps parameters of rank 1 to 8").within(
        (1..=MAX_RANK).contains(&rank),
        "rank",
        rank,
        Limit::Between(1usize.into(), MAX_RANK.into()),
    )
}

/// The largest rank burn-optim's optimizers step.
pub const MAX_RANK: usize = 8;

/// A gradient's shape is its parameter's: `ModuleOptimizerMapper::map_float` hands both to the
/// optimizer, whose element-wise update broadcasts or panics on a mismatch.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`], the parameter's shape first.
///
/// ```
/// use burn_guard::check::optim::gradient_shape;
/// assert!(gradient_shape("step", &[3, 4], &[3, 4]).is_ok());
/// assert!(gradient_shape("step", &[3, 4], &[1, 4]).is_err());
/// ```
pub fn gradient_shape(op: &'static str, param: &[usize], gradient: &[usize]) -> Result<()> {
    if param == gradient {
        Ok(())
    } else {
        Err(Rule(
            op,
            "a gradient must have its parameter's shape (parameter's, then gradient's)",
        )
        .shape_mismatch(&[param, gradient]))
    }
}

/// Every gradient is finite: burn-guard's own rule (no burn optimizer looks at values; one NaN
/// batch writes NaN into every parameter and moment it reaches). `counts` is the count of
/// non-finite values per parameter with a gradient (its split, dtype and shape where known).
///
/// # Errors
///
/// [`GuardError::NonFiniteGradients`] naming each parameter with a count above zero.
///
/// ```
/// use burn_guard::check::optim::finite_gradients;
/// use burn_guard::error::NonFiniteParam;
/// assert!(finite_gradients("step", vec![NonFiniteParam::new("fc.weight", 0, 12)]).is_ok());
/// assert!(finite_gradients("step", vec![NonFiniteParam::new("fc.weight", 3, 12)]).is_err());
/// ```
pub fn finite_gradients(op: &'static str, counts: Vec<NonFiniteParam>) -> Result<()> {
    let bad: Vec<NonFiniteParam> = counts.into_iter().filter(|c| c.count > 0).collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(GuardError::NonFiniteGradients { op, params: bad })
    }
}

/// The refusal of a step whose gradients are zero everywhere for the parameters at `paths`:
/// the step would train nothing there.
///
/// ```
/// use burn_guard::ErrorKind;
/// use burn_guard::check::optim::nonzero_gradients;
/// let err = nonzero_gradients("step", vec!["fc2.weight".into()]);
/// assert_eq!(err.kind(), ErrorKind::NoGradient);
/// assert!(err.to_string().contains("fc2.weight"));
/// ```
pub fn nonzero_gradients(op: &'static str, paths: Vec<String>) -> GuardError {
    GuardError::NoGradient {
        op,
        rule: "a trainable parameter's gradient must not be zero everywhere: the step would \
               train nothing there (a ReLU layer whose inputs are all negative, a branch cut \
               from the loss, a half-precision gradient that underflowed: scale the loss)",
        params: paths,
    }
}

/// No drawn, tracked parameter is moved with `Module::to_device`: burn-core's `Param::to_device`
/// moves the tensor without a detach, and a tracked move's output is a non-leaf
/// (burn-autodiff's `to_device`), which `GradientsParams::from_grads` then skips every step.
/// `tracked` is the paths of the drawn, tracked parameters.
///
/// # Errors
///
/// [`GuardError::NoGradient`] naming them, with the remedy.
///
/// ```
/// use burn_guard::check::optim::moved_leaves;
/// assert!(moved_leaves("to_device", vec![]).is_ok());
/// assert!(moved_leaves("to_device", vec!["fc.weight".into()]).is_err());
/// ```
pub fn moved_leaves(op: &'static str, tracked: Vec<String>) -> Result<()> {
    if tracked.is_empty() {
        return Ok(());
    }
    Err(GuardError::NoGradient {
        op,
        rule: "moving drawn, tracked parameters with Module::to_device makes non-leaves the \
               optimizer never updates: move a model you train with Module::fork",
        params: tracked,
    })
}

/// No non-leaf parameter is made trainable: burn-tensor's `set_require_grad(true)` asserts a
/// leaf (`Can't convert a non leaf tensor into a tracked tensor`). `not_leaves` is the paths of
/// the non-leaf parameters.
///
/// # Errors
///
/// [`GuardError::NoGradient`] naming them, with the remedy.
///
/// ```
/// use burn_guard::check::optim::leaves_for_training;
/// assert!(leaves_for_training("unfreeze", vec![]).is_ok());
/// assert!(leaves_for_training("unfreeze", vec!["fc.weight".into()]).is_err());
/// ```
pub fn leaves_for_training(op: &'static str, not_leaves: Vec<String>) -> Result<()> {
    if not_leaves.is_empty() {
        return Ok(());
    }
    Err(GuardError::NoGradient {
        op,
        rule: "a non-leaf parameter cannot be made trainable (burn panics): fork the model \
               (Module::fork) to make its parameters new leaves",
        params: not_leaves,
    })
}

/// A clipping threshold is finite and positive: burn-optim's `GradientClipping` uses it as is,
/// so `Norm(0)` zeroes every update, `Norm(-1)` turns descent into ascent, and `Value(-1)`
/// flips signs.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] with the threshold.
///
/// ```
/// use burn_guard::check::optim::clipping_threshold;
/// assert!(clipping_threshold("grad_clipping", 1.0).is_ok());
/// assert!(clipping_threshold("grad_clipping", 0.0).is_err());
/// assert!(clipping_threshold("grad_clipping", f32::NAN).is_err());
/// ```
pub fn clipping_threshold(op: &'static str, threshold: f32) -> Result<()> {
    if threshold.is_finite() && threshold > 0.0 {
        return Ok(());
    }
    Err(Rule(
        op,
        "a gradient clipping threshold must be finite and positive",
    )
    .out_of_range("threshold", f64::from(threshold), Limit::Above(0.0.into())))
}

/// A learning rate is finite and not negative: burn-optim takes it as is, so a negative one
/// turns descent into ascent and NaN writes NaN into every parameter: burn-guard's own rule.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] with the learning rate.
///
/// ```
/// use burn_guard::check::optim::learning_rate;
/// assert!(learning_rate("step", 1e-3).is_ok());
/// assert!(learning_rate("step", -1e-3).is_err());
/// assert!(learning_rate("step", f64::NAN).is_err());
/// ```
pub fn learning_rate(op: &'static str, lr: f64) -> Result<()> {
    if lr.is_finite() && lr >= 0.0 {
        return Ok(());
    }
    Err(
        Rule(op, "a learning rate must be finite and not negative").out_of_range(
            "lr",
            lr,
            Limit::AtLeast(0.0.into()),
        ),
    )
}

/// Adafactor's settings are in range: burn-optim's `AdafactorConfig::build` asserts both
/// epsilons and the clipping threshold positive and finite, the decay rate negative and finite,
/// and the weight decay non-negative and finite.
///
/// `settings` is `[epsilon_1, epsilon_2, clip_threshold, decay_rate, weight_decay]`.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming the first setting out of range.
///
/// ```
/// use burn_guard::check::optim::adafactor;
/// assert!(adafactor("AdafactorConfig::init", [1e-30, 1e-3, 1.0, -0.8, 0.0]).is_ok());
/// assert!(adafactor("AdafactorConfig::init", [1e-30, 1e-3, 1.0, 0.8, 0.0]).is_err());
/// ```
pub fn adafactor(op: &'static str, settings: [f64; 5]) -> Result<()> {
    let [
        epsilon_1,
        epsilon_2,
        clip_threshold,
        decay_rate,
        weight_decay,
    ] = settings;
    let positive = |name: &'static str, value: f64| -> Result<()> {
        if value.is_finite() && value > 0.0 {
            return Ok(());
        }
        Err(Rule(
            op,
            "Adafactor's epsilons and clipping threshold must be finite and positive",
        )
        .out_of_range(name, value, Limit::Above(0.0.into())))
    };
    positive("epsilon_1", epsilon_1)?;
    positive("epsilon_2", epsilon_2)?;
    positive("clip_threshold", clip_threshold)?;
    if !(decay_rate.is_finite() && decay_rate < 0.0) {
        return Err(
            Rule(op, "Adafactor's decay rate must be finite and negative").out_of_range(
                "decay_rate",
                decay_rate,
                Limit::Below(0.0.into()),
            ),
        );
    }
    if !(weight_decay.is_finite() && weight_decay >= 0.0) {
        return Err(Rule(
            op,
            "Adafactor's weight decay must be finite and not negative",
        )
        .out_of_range("weight_decay", weight_decay, Limit::AtLeast(0.0.into())));
    }
    Ok(())
}

/// Every float parameter is trainable for L-BFGS: burn-optim's `LBFGS::step` flattens every
/// parameter (`flatten_params_inner`) but only the gradients that exist
/// (`flatten_grads_inner`), so a frozen, plain or non-leaf one makes the two vectors differ in
/// length and the step panics. `untrainable` is their paths.
///
/// # Errors
///
/// [`GuardError::NoGradient`] naming them.
///
/// ```
/// use burn_guard::check::optim::lbfgs_parameters;
/// assert!(lbfgs_parameters("LBFGS::step", vec![]).is_ok());
/// assert!(lbfgs_parameters("LBFGS::step", vec!["head.weight".into()]).is_err());
/// ```
pub fn lbfgs_parameters(op: &'static str, untrainable: Vec<String>) -> Result<()> {
    if untrainable.is_empty() {
        return Ok(());
    }
    Err(GuardError::NoGradient {
        op,
        rule: "L-BFGS steps every parameter as one vector: each must be trainable (unfreeze \
               them, or train a frozen model with another optimizer)",
        params: untrainable,
    })
}
