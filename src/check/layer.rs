//! Rules of `burn::nn` layers and their configs that no tensor operation shares (a dropout
//! probability, the fans an initializer needs). Rules a layer shares with a tensor
//! operation live with that operation ([`module`](super::module), …).

use burn::nn::Initializer;

use super::rule::Rule;
#[cfg(doc)]
use crate::error::GuardError;
use crate::error::{Limit, Result};

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
