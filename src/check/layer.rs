//! Rules of `burn::nn` layer configs that no tensor operation shares: the numbers the config
//! twins (`TryInit`, `nn/init.rs`) of several layer families assert on — a dropout
//! probability, a positive epsilon, ordered bounds (HardTanh, RReLU, a positional encoding's
//! sizes), a non-zero or even size — and the fans an initializer needs. A rule of one family's
//! input lives with that family ([`norm`](super::norm), [`activation`](super::activation), …),
//! and a rule a layer shares with a tensor operation with that operation.

use burn::nn::Initializer;

use super::rule::Rule;
use crate::error::{GuardError, Limit, Result};

/// A probability in `[0, 1)`, finite: burn's `DropoutConfig::init` panics otherwise.
///
/// ```
/// use burn_guard::{ErrorKind, check::layer::probability};
///
/// assert!(probability("dropout", "prob", 0.1).is_ok());
/// assert_eq!(probability("dropout", "prob", 1.0).unwrap_err().kind(), ErrorKind::OutOfRange);
/// assert_eq!(probability("dropout", "prob", f64::NAN).unwrap_err().kind(), ErrorKind::OutOfRange);
/// ```
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming `name`.
pub fn probability(op: &'static str, name: &'static str, value: f64) -> Result<()> {
    let limit = if value.is_nan() || value < 0.0 {
        Limit::AtLeast(0.0.into())
    } else if value >= 1.0 {
        Limit::Below(1.0.into())
    } else {
        return Ok(());
    };
    Err(Rule(op, "a probability must be finite and in [0, 1)").out_of_range(name, value, limit))
}

/// One parameter a config's `init` draws with `initializer`, given the fans burn-nn passes
/// for it (`Initializer::init_with`). The draw runs lazily, at the parameter's first use:
/// Kaiming and Xavier `expect` the fans they need (burn-nn passes no `fan_out` for biases and
/// transposed-convolution weights), and a fan of 0 makes their bound infinite — NdArray's
/// random draw then panics on Flex and NdArray (`NonFinite` bounds).
/// `name` is the parameter (`weight`, `bias`), `len` its element count: an empty parameter
/// draws nothing, and only a missing fan panics then.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the parameter, the initializer and the fans.
///
/// ```
/// use burn::nn::Initializer;
/// use burn_guard::check::layer::initializer_fans;
/// let kaiming = Initializer::KaimingUniform { gain: 1.0, fan_out_only: false };
/// assert!(initializer_fans("conv2d_init", "weight", &kaiming, 18, Some(9), Some(9)).is_ok());
/// assert!(initializer_fans("conv2d_init", "bias", &kaiming, 4, Some(0), None).is_err());
/// assert!(initializer_fans("conv2d_init", "bias", &kaiming, 0, Some(0), None).is_ok());
/// let xavier = Initializer::XavierUniform { gain: 1.0 };
/// assert!(initializer_fans("conv1d_init", "bias", &xavier, 0, Some(3), None).is_err());
/// ```
pub fn initializer_fans(
    op: &'static str,
    name: &'static str,
    initializer: &Initializer,
    len: usize,
    fan_in: Option<usize>,
    fan_out: Option<usize>,
) -> Result<()> {
    let usable = match initializer {
        Initializer::KaimingUniform { fan_out_only, .. }
        | Initializer::KaimingNormal { fan_out_only, .. } => {
            let fan = if *fan_out_only { fan_out } else { fan_in };
            fan.is_some_and(|fan| fan > 0 || len == 0)
        }
        Initializer::XavierUniform { .. } | Initializer::XavierNormal { .. } => {
            matches!((fan_in, fan_out), (Some(i), Some(o)) if i.saturating_add(o) > 0 || len == 0)
        }
        _ => true,
    };
    if usable {
        return Ok(());
    }
    Err(Rule(
        op,
        "the initializer needs a non-zero fan that burn-nn passes for this parameter",
    )
    .invalid(format!(
        "{name}: initializer={initializer:?}, fan_in={fan_in:?}, fan_out={fan_out:?}"
    )))
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
/// use burn_guard::check::layer;
/// assert!(layer::positive("batch_norm_init", "epsilon", 1e-5, true).is_ok());
/// assert!(layer::positive("batch_norm_init", "epsilon", 0.0, true).is_err());
/// assert!(layer::positive("rms_norm_init", "epsilon", f64::INFINITY, false).is_ok());
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
/// use burn_guard::check::layer;
/// assert!(layer::finite_in("batch_norm_init", "momentum", 0.1, 0.0, 1.0).is_ok());
/// assert!(layer::finite_in("batch_norm_init", "momentum", 1.5, 0.0, 1.0).is_err());
/// assert!(layer::finite_in("gaussian_noise", "std", f64::NAN, 0.0, f64::INFINITY).is_err());
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
/// use burn_guard::check::layer;
/// assert!(layer::nonzero("local_response_norm_init", "size", 3).is_ok());
/// assert!(layer::nonzero("local_response_norm_init", "size", 0).is_err());
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
/// use burn_guard::check::layer;
/// assert!(layer::even("rotary_encoding_init", "d_model", 8).is_ok());
/// assert!(layer::even("rotary_encoding_init", "d_model", 7).is_err());
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
/// use burn_guard::check::layer;
/// assert!(layer::ordered("hardtanh_init", ("min_val", -1.0), ("max_val", 1.0), true).is_ok());
/// assert!(layer::ordered("hardtanh_init", ("min_val", 2.0), ("max_val", 1.0), true).is_err());
/// assert!(layer::ordered("hardtanh_init", ("min_val", f64::NEG_INFINITY), ("max_val", 1.0), true).is_err());
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
/// use burn_guard::check::layer;
/// assert!(layer::finite_nonzero("celu_init", "alpha", 1.0).is_ok());
/// assert!(layer::finite_nonzero("celu_init", "alpha", 0.0).is_err());
/// ```
pub fn finite_nonzero(op: &'static str, name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value != 0.0 {
        return Ok(());
    }
    Err(Rule(op, "the value must be finite and not 0").out_of_range(name, value, Limit::NonZero))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::each_refused;
    use crate::error::GuardError;

    /// Each config rule refuses with its variant.
    #[test]
    fn config_rules_name_their_variant() -> std::result::Result<(), String> {
        let op = "config_init";
        each_refused(vec![
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
        ])
    }
}
