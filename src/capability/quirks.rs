//! The quirks table: what each measured backend panics on although burn checks nothing.
//!
//! One [`Quirks`] value per backend, read from a device's dispatch variant (a match: no name
//! is formatted, no device opened) and handed to the checks that refuse those inputs. A backend
//! without a row gets [`Quirks::NONE`]: nothing is refused in advance, the backend answers under
//! the panic backstop. `examples/capabilities.rs` prints the rows ([`quirk_gaps`]).

use burn::tensor::Device;

use super::device::{Base, base_of};
use super::stack::{BackendStack, Layer};
use crate::check::quirks::{Modes, Quirks};
use crate::gap::{Effect, Gap};

/// burn-flex: saturating float to int casts, every interpolation mode but `NearestExact`
/// ("unsupported mode"), grid sampling in `Bilinear` and `Nearest` ("Bicubic mode is not
/// supported"). Its float min and max return NaN when they meet one (burn-flex `ops/reduce.rs`:
/// `select_float_extremum` keeps a NaN, the dim reductions prefer it, and the SIMD
/// `macerator_max`/`macerator_min` keep a NaN mask), pinned by `tests/capability_truth.rs`. It
/// runs on the host ([`Quirks::runs_on_host`]: its scalar ops are plain f32 closures,
/// `ops/binary.rs` `scalar_op`).
pub const FLEX_QUIRKS: Quirks = Quirks::new(
    "flex",
    false,
    false,
    Modes::ALL.without(Modes::NEAREST_EXACT),
    Modes::BILINEAR.with(Modes::NEAREST),
)
.with_extrema_propagating_nan()
.on_host();

/// burn-ndarray: an integer `powi` with a negative exponent panics, and so does a float to int
/// cast of NaN, ±inf or a value outside `i64`; no `NearestExact` interpolation ("not supported
/// for ndarray backend"); grid sampling in `Bilinear` only (`not yet implemented`). Its float
/// min and max return NaN when they meet one (burn-ndarray `ops/base.rs`: `max_float_view` and
/// `min_float_view` keep a NaN accumulator, and the dim reductions gather the index `arg_view`
/// picks, the first NaN), pinned by `tests/capability_truth.rs`. It runs on the host
/// ([`Quirks::runs_on_host`]).
pub const NDARRAY_QUIRKS: Quirks = Quirks::new(
    "ndarray",
    true,
    true,
    Modes::ALL.without(Modes::NEAREST_EXACT),
    Modes::BILINEAR,
)
.with_extrema_propagating_nan()
.on_host();

/// The quirks of the backend behind `device` (autodiff or not): [`FLEX_QUIRKS`], [`NDARRAY_QUIRKS`], or
/// [`Quirks::NONE`] for every backend without a row.
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::capability::quirks_of;
///
/// assert_eq!(quirks_of(&Device::flex()).backend, "flex");
/// ```
pub fn quirks_of(device: &Device) -> Quirks {
    match base_of(device.as_dispatch()).1 {
        Base::Flex => FLEX_QUIRKS,
        Base::NdArray => NDARRAY_QUIRKS,
        _ => Quirks::NONE,
    }
}

/// The quirks of a stack's executing backend, as [`quirks_of`] answers for its device.
///
/// ```
/// use burn_guard::capability::{BackendStack, quirks_of_stack};
///
/// assert!(quirks_of_stack(&BackendStack::parse("autodiff<ndarray>")).int_powi_negative_exponent_panics);
/// ```
pub fn quirks_of_stack(stack: &BackendStack) -> Quirks {
    match stack.base() {
        Some(Layer::Flex) => FLEX_QUIRKS,
        Some(Layer::NdArray) => NDARRAY_QUIRKS,
        _ => Quirks::NONE,
    }
}

/// One quirk as a report row: the operation, the inputs, and what the backend does with them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quirk {
    /// burn's operation (`powi`, `interpolate`, …).
    pub op: &'static str,
    /// The inputs the backend cannot take.
    pub case: String,
    /// What it does with them.
    pub gap: Gap,
}

/// Every quirk of `quirks` as a row, in a fixed order; none for [`Quirks::NONE`].
///
/// ```
/// use burn_guard::capability::{Effect, NDARRAY_QUIRKS, quirk_gaps};
///
/// let rows = quirk_gaps(&NDARRAY_QUIRKS);
/// assert!(rows.iter().any(|q| q.op == "powi" && q.gap.effect == Effect::Panics));
/// ```
pub fn quirk_gaps(quirks: &Quirks) -> Vec<Quirk> {
    let name = quirks.backend;
    let mut rows = Vec::new();
    if quirks.int_powi_negative_exponent_panics {
        rows.push(Quirk {
            op: "powi",
            case: "an integer tensor with a negative exponent".into(),
            gap: Gap::new(
                Effect::Panics,
                format!("{name} takes integer exponents of 0 or more"),
            ),
        });
    }
    if quirks.float_to_int_unrepresentable_panics {
        rows.push(Quirk {
            op: "int",
            case: "NaN, ±inf or a value outside i64".into(),
            gap: Gap::new(Effect::Panics, format!("{name} casts without saturating")),
        });
    }
    for (op, modes) in [
        ("interpolate", quirks.interpolate_modes),
        ("grid_sample_2d", quirks.grid_sample_modes),
    ] {
        let missing = Modes::ALL.without(modes);
        if !missing.is_empty() {
            rows.push(Quirk {
                op,
                case: format!("mode {}", missing.names().join(", ")),
                gap: Gap::new(
                    Effect::Panics,
                    format!(
                        "{name} runs only {} (it panics on the others)",
                        modes.names().join(", ")
                    ),
                ),
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table answers for a device as for its stack, autodiff or not.
    #[test]
    fn a_device_and_its_stack_have_the_same_quirks() {
        let flex = Device::flex();
        assert_eq!(quirks_of(&flex), FLEX_QUIRKS);
        assert_eq!(quirks_of_stack(super::super::stack_of(&flex)), FLEX_QUIRKS);
        #[cfg(feature = "ndarray")]
        {
            #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
            let ndarray = Device::ndarray();
            assert_eq!(quirks_of(&ndarray), NDARRAY_QUIRKS);
            assert_eq!(
                quirks_of_stack(super::super::stack_of(&ndarray)),
                NDARRAY_QUIRKS
            );
        }
        #[cfg(feature = "autodiff")]
        assert_eq!(quirks_of(&flex.autodiff()), FLEX_QUIRKS);
        assert!(quirk_gaps(&Quirks::NONE).is_empty());
    }
}
