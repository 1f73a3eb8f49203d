//! Rules of comparing a device's outputs with a reference device's (twinned in `verify/`):
//! burn-guard's own, since burn has no cross-check. An element agrees when both are finite and
//! `|x − r| ≤ abs + rel × |r|` (NumPy's `allclose`), or when both are the same non-finite value;
//! a non-finite value where the reference is finite never agrees.

use serde::Serialize;

use crate::error::{GuardError, Result};

/// How far a device's output may be from the reference's: `|x − r| ≤ abs + rel × |r|`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Tolerance {
    /// The absolute part.
    pub abs: f64,
    /// The relative part, times the reference's magnitude.
    pub rel: f64,
}

impl Default for Tolerance {
    /// `abs 1e-4, rel 1e-3`: F32 kernels that reorder a reduction of a few thousand terms stay
    /// inside; a wrong kernel, a zero-filled buffer or a perturbed weight does not.
    fn default() -> Self {
        Self {
            abs: 1e-4,
            rel: 1e-3,
        }
    }
}

/// One output compared with the reference's.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Agreement {
    /// Elements compared.
    pub elements: u64,
    /// Elements that do not agree.
    pub mismatched: u64,
    /// NaN or ±inf in the device's output where the reference is finite.
    pub new_non_finite: u64,
    /// The largest absolute difference over the pairs both finite.
    pub max_abs: f64,
    /// The largest relative difference (`|x − r| / |r|`, over the pairs both finite and `r ≠ 0`).
    pub max_rel: f64,
}

impl Agreement {
    /// Whether every element agrees.
    pub fn agrees(&self) -> bool {
        self.mismatched == 0
    }
}

/// Compares `values` with `reference`, element by element.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] when the lengths differ (the shapes are the caller's to
/// compare first).
///
/// ```
/// use burn_guard::check::verify::{Tolerance, compare};
/// let same = compare("canary", &[1.0, 2.0], &[1.0, 2.0 + 1e-6], Tolerance::default()).unwrap();
/// assert!(same.agrees());
/// let off = compare("canary", &[1.0, f64::NAN], &[1.0, 2.0], Tolerance::default()).unwrap();
/// assert_eq!((off.mismatched, off.new_non_finite), (1, 1));
/// ```
pub fn compare(
    op: &'static str,
    values: &[f64],
    reference: &[f64],
    tolerance: Tolerance,
) -> Result<Agreement> {
    if values.len() != reference.len() {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "the output must have as many elements as the reference's",
            shapes: vec![vec![values.len()], vec![reference.len()]],
        });
    }
    let mut agreement = Agreement {
        elements: values.len() as u64,
        ..Agreement::default()
    };
    for (&x, &r) in values.iter().zip(reference) {
        if x.is_finite() && r.is_finite() {
            let diff = (x - r).abs();
            agreement.max_abs = agreement.max_abs.max(diff);
            if r != 0.0 {
                agreement.max_rel = agreement.max_rel.max(diff / r.abs());
            }
            if diff > tolerance.abs + tolerance.rel * r.abs() {
                agreement.mismatched += 1;
            }
        } else if x.to_bits() != r.to_bits() && !(x.is_nan() && r.is_nan()) {
            agreement.mismatched += 1;
            if r.is_finite() {
                agreement.new_non_finite += 1;
            }
        }
    }
    Ok(agreement)
}

/// Every element agrees.
///
/// # Errors
///
/// [`GuardError::Diverged`] naming both devices and the sizes of the difference.
///
/// ```
/// use burn_guard::check::verify::{Agreement, agree};
/// assert!(agree("canary", "wgpu", "flex", &Agreement::default()).is_ok());
/// let off = Agreement { elements: 4, mismatched: 1, ..Agreement::default() };
/// assert!(agree("canary", "wgpu", "flex", &off).is_err());
/// ```
pub fn agree(op: &'static str, device: &str, reference: &str, agreement: &Agreement) -> Result<()> {
    if agreement.agrees() {
        return Ok(());
    }
    Err(GuardError::Diverged {
        op,
        device: device.to_owned(),
        reference: reference.to_owned(),
        mismatched: agreement.mismatched,
        elements: agreement.elements,
        max_abs: agreement.max_abs,
        max_rel: agreement.max_rel,
    })
}

/// A sampling period for shadow checks: one request in `every`, so at least 1.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for 0.
///
/// ```
/// use burn_guard::check::verify::sampling;
/// assert!(sampling("shadow", 1000).is_ok());
/// assert!(sampling("shadow", 0).is_err());
/// ```
pub fn sampling(op: &'static str, every: u64) -> Result<()> {
    if every == 0 {
        return Err(GuardError::OutOfRange {
            op,
            rule: "a shadow check samples one request in every, at least 1",
            name: "every",
            value: every.into(),
            limit: crate::error::Limit::AtLeast(1u64.into()),
        });
    }
    Ok(())
}
