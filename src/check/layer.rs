//! Rules of `burn::nn` layers and their configs that no tensor operation shares (a dropout
//! probability, a head count dividing the model width). Rules a layer shares with a tensor
//! operation live with that operation ([`module`](super::module), …).

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
    Err(GuardError::OutOfRange {
        op,
        rule: "a probability must be finite and in [0, 1)",
        name,
        value: value.into(),
        limit,
    })
}
