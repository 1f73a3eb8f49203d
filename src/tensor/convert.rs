//! Conversions of user arguments that only burn can do: a slice argument resolved against a
//! shape, a generic scalar widened to a [`ScalarValue`], a checked [`ScalarValue`] handed back
//! to burn as its [`Scalar`].
//!
//! The rules live in [`check`](crate::check) as pure functions over the converted values. A
//! conversion whose failure can be predicted is checked before it runs; the one that cannot
//! (burn's `SliceArg::into_slices`, a trait with no fallible method and no way to inspect the
//! argument first) runs under the backstop, and a panic there becomes one typed refusal —
//! the panic's text is never read.

use burn::tensor::{ElementConversion, Scalar, Shape, Slice, SliceArg};

use crate::check::indexing;
use crate::error::{GuardError, Result, ScalarValue};
use crate::panic::catch;

/// Resolves a slice argument against `shape`, as burn's `SliceArg::into_slices` does (clamping
/// every range to the dimension size). Returns one clamped [`Slice`] per dimension.
///
/// burn asserts inside the conversion — more slices than dimensions, a step of 0, an index
/// whose conversion overflows — and the argument can neither be inspected nor converted twice,
/// so the conversion runs under the backstop.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] with the shape when burn's conversion panics.
pub(crate) fn slices<S: SliceArg>(
    op: &'static str,
    slices: S,
    shape: &Shape,
) -> Result<Vec<Slice>> {
    catch(op, || slices.into_slices(shape)).map_err(|_| GuardError::InvalidArgument {
        op,
        rule: "the slice argument cannot be resolved against the shape: more slices than dimensions, a step of 0, or an index that overflows",
        got: format!("shape={:?}", shape.as_slice()),
    })
}

/// Converts a single-dimension slice argument (`slice_dim`), then checks its step
/// ([`check::indexing::slice_step`](crate::check::indexing::slice_step)).
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] when burn's conversion panics (an index that overflows);
/// [`GuardError::OutOfRange`] for a step of 0.
pub(crate) fn slice<S: Into<Slice>>(op: &'static str, slice: S) -> Result<Slice> {
    let slice = catch(op, || slice.into()).map_err(|_| GuardError::InvalidArgument {
        op,
        rule: "the slice argument cannot be converted: an index overflows",
        got: format!("type={}", core::any::type_name::<S>()),
    })?;
    indexing::slice_step(op, &slice)?;
    Ok(slice)
}

/// Widens the caller's scalar to [`ScalarValue`] without loss and without burn's panicking
/// conversions: the type is probed by converting a known value into it (`0.5` survives only
/// in a float type, becomes `true` in `bool`, `0` in an integer type); a 64-bit integer type's
/// sign by its name, or for an unknown one by whether `-1` converts into it.
fn widen<E: ElementConversion>(value: E) -> ScalarValue {
    let half: f64 = E::from_elem(0.5f64).elem();
    if half == 0.5 {
        ScalarValue::Float(value.elem())
    } else if half != 0.0 {
        ScalarValue::Bool(value.elem())
    } else if core::mem::size_of::<E>() < 8 {
        // Every integer narrower than 64 bits fits `i64`.
        ScalarValue::Int(value.elem())
    } else {
        // The standard 64-bit integers by name (a constant comparison); any other 64-bit
        // integer element by whether `-1` converts into it, which panics for unsigned types.
        match core::any::type_name::<E>() {
            "i64" | "isize" => ScalarValue::Int(value.elem()),
            "u64" | "usize" => ScalarValue::UInt(value.elem()),
            _ if catch("scalar probe", || E::from_elem(-1i64)).is_ok() => {
                ScalarValue::Int(value.elem())
            }
            _ => ScalarValue::UInt(value.elem()),
        }
    }
}

/// The caller's scalar as a [`ScalarValue`], for the pure scalar rules.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the type when an element type of burn's converts in
/// none of the ways [`widen`] probes (its conversions panic).
pub(crate) fn scalar<E: ElementConversion>(op: &'static str, value: E) -> Result<ScalarValue> {
    catch(op, || widen(value)).map_err(|_| GuardError::InvalidArgument {
        op,
        rule: "scalar type cannot be converted to a tensor element",
        got: format!("type={}", core::any::type_name::<E>()),
    })
}

/// burn's [`Scalar`] for a value the checks already converted (a [`ScalarValue`] returned by
/// [`check::elementwise::scalar`](crate::check::elementwise::scalar) or
/// [`check::indexing::fill_value`](crate::check::indexing::fill_value)): the same value burn's
/// `Scalar::new` would build, without its panics.
pub(crate) fn to_burn(value: ScalarValue) -> Scalar {
    match value {
        ScalarValue::Float(x) => Scalar::Float(x),
        ScalarValue::Int(x) => Scalar::Int(x),
        ScalarValue::UInt(x) => Scalar::UInt(x),
        ScalarValue::Bool(x) => Scalar::Bool(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    #[test]
    fn slice_arguments() -> TestResult {
        assert_eq!(slices("slice", 0..2, &Shape::new([4, 3]))?.len(), 2);
        let step_zero = Slice {
            start: 0,
            end: None,
            step: 0,
        };
        // Each of burn's asserts inside `into_slices` is refused with the shape.
        for outcome in [
            slices("slice", [0..1, 0..1, 0..1], &Shape::new([4, 3])),
            slices("slice", [step_zero], &Shape::new([4])),
            slices("slice", [isize::MAX], &Shape::new([4])),
        ] {
            let err = outcome.err().ok_or("expected an error")?;
            assert!(
                matches!(&err, GuardError::InvalidArgument { op: "slice", got, .. }
                    if got.starts_with("shape=[")),
                "{err:?}"
            );
        }
        let err = slice("slice_dim", step_zero)
            .err()
            .ok_or("slice: expected an error")?;
        assert_eq!(err.kind(), ErrorKind::OutOfRange);
        assert_eq!(slice("slice_dim", 1..3)?, Slice::new(1, Some(3), 1));
        Ok(())
    }

    #[test]
    fn scalars_widen_by_family() -> TestResult {
        assert_eq!(scalar("op", 2.5f32)?, ScalarValue::Float(2.5));
        assert_eq!(scalar("op", -3i32)?, ScalarValue::Int(-3));
        assert_eq!(scalar("op", u64::MAX)?, ScalarValue::UInt(u64::MAX));
        assert_eq!(scalar("op", true)?, ScalarValue::Bool(true));
        assert!(matches!(to_burn(ScalarValue::Int(-3)), Scalar::Int(-3)));
        Ok(())
    }
}
