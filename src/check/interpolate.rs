//! Rules of `burn::tensor::module::interpolate` (twinned in `tensor/interpolate.rs`), shared by
//! the `burn::nn` interpolate layers (`nn/layers/pool.rs`) and the backend-level wrapper.
//!
//! Pure functions over shapes and options; each names the burn check it mirrors.

use burn::tensor::ops::{InterpolateMode, InterpolateOptions};

use super::rule::Rule;
use crate::check::quirks::Quirks;
#[cfg(doc)]
use crate::error::GuardError;
use crate::error::Result;

/// `interpolate(x, options)`: exactly one of `output_size` and `scale_factor` set, and a scaled
/// size that fits in `usize` (`panic!`/`assert!` in `module::interpolate_output_size`). Beyond
/// burn: non-zero input spatial sizes (Flex asserts on an empty input, NdArray returns
/// whatever it has) and a finite, positive scale factor (a negative factor would silently
/// give size 0; a NaN one panics in burn). An output size of 0 is allowed: every backend
/// returns an empty tensor. Returns the output spatial size.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the options or sizes; [`GuardError::Empty`] for an
/// input with an empty spatial dimension.
///
/// ```
/// use burn::tensor::ops::{InterpolateMode, InterpolateOptions};
/// use burn_guard::check::interpolate;
/// let options = InterpolateOptions::new(InterpolateMode::Nearest).with_scale_factor([2.0, 2.0]);
/// assert_eq!(interpolate::interpolate("interpolate", &[1, 1, 3, 4], &options).unwrap(), [6, 8]);
/// let neither = InterpolateOptions::new(InterpolateMode::Nearest);
/// assert!(interpolate::interpolate("interpolate", &[1, 1, 3, 4], &neither).is_err());
/// ```
pub fn interpolate(
    op: &'static str,
    x: &[usize],
    options: &InterpolateOptions,
) -> Result<[usize; 2]> {
    let (Some(&h), Some(&w)) = (x.get(2), x.get(3)) else {
        return Err(Rule(op, "interpolate needs a rank-4 input").rank_mismatch(4, x.len(), x));
    };
    let size = match (options.output_size, options.scale_factor) {
        (Some(size), None) => size,
        (None, Some(scale)) => {
            let mut size = [0usize; 2];
            for ((slot, input), factor) in size.iter_mut().zip([h, w]).zip(scale) {
                let scaled = input as f64 * f64::from(factor);
                if scaled > usize::MAX as f64 {
                    return Err(Rule(op, "the scaled size must fit in usize")
                        .invalid(format!("scale_factor={scale:?}, input={x:?}")));
                }
                if !factor.is_finite() || factor <= 0.0 {
                    return Err(Rule(op, "scale factors must be finite and positive")
                        .invalid(format!("scale_factor={scale:?}")));
                }
                // The saturating float-to-int cast burn uses.
                *slot = scaled as usize;
            }
            size
        }
        (Some(size), Some(scale)) => {
            return Err(Rule(
                op,
                "options must set only one of output_size or scale_factor",
            )
            .invalid(format!("output_size={size:?}, scale_factor={scale:?}")));
        }
        (None, None) => {
            return Err(Rule(op, "options must set output_size or scale_factor")
                .invalid("output_size=None, scale_factor=None".into()));
        }
    };
    if h == 0 || w == 0 {
        return Err(Rule(op, "input spatial sizes must be non-zero")
            .empty(x, Some(if h == 0 { 2 } else { 3 })));
    }
    Ok(size)
}

/// `interpolate` on the CPU backends: Flex and NdArray implement every mode but
/// `NearestExact`, for which both panic ("unsupported mode" / "not supported for ndarray
/// backend"). `quirks` are the input's backend's (`interpolate_modes`).
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the mode and backend.
///
/// ```
/// use burn::tensor::ops::InterpolateMode;
/// use burn_guard::capability::{FLEX_QUIRKS, Quirks};
/// use burn_guard::check::interpolate;
/// assert!(interpolate::interpolate_mode("interpolate", &InterpolateMode::NearestExact, &Quirks::NONE).is_ok());
/// assert!(interpolate::interpolate_mode("interpolate", &InterpolateMode::NearestExact, &FLEX_QUIRKS).is_err());
/// ```
pub fn interpolate_mode(op: &'static str, mode: &InterpolateMode, quirks: &Quirks) -> Result<()> {
    Rule(op, "the backend does not implement this interpolation mode").mode_implemented(
        quirks.interpolate_modes,
        mode,
        quirks,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::TestResult;
    use crate::check::test_support::{refused, rule_of};
    use crate::error::GuardError;

    #[test]
    fn interpolate_rules() -> TestResult {
        use burn::tensor::ops::InterpolateMode;
        let base = InterpolateOptions::new(InterpolateMode::Nearest);
        let mut both = base.clone().with_output_size([2, 2]);
        both.scale_factor = Some([1.0, 1.0]);
        let empty = base.clone().with_output_size([0, 2]);
        assert_eq!(interpolate("interpolate", &[1, 1, 2, 2], &empty)?, [0, 2]);
        let refusals = [
            (
                both,
                "options must set only one of output_size or scale_factor",
            ),
            (base.clone(), "options must set output_size or scale_factor"),
            (
                base.clone().with_scale_factor([f32::MAX, 1.0]),
                "the scaled size must fit in usize",
            ),
            (
                base.with_scale_factor([-1.0, 1.0]),
                "scale factors must be finite and positive",
            ),
        ];
        for (options, rule) in refusals {
            let err = refused(rule, interpolate("interpolate", &[1, 1, 2, 2], &options))?;
            assert_eq!(rule_of(&err), Some(rule));
        }
        let err = refused("empty", interpolate("interpolate", &[1, 1, 0, 2], &empty))?;
        assert!(matches!(&err, GuardError::Empty { shape, dim: Some(2), .. }
            if shape == &[1, 1, 0, 2]));
        Ok(())
    }
}
