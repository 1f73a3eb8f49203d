//! Quantization-scheme checks: what burn-backend's `quantization` module and burn-std's
//! `QuantizedBytes` assert, as pure functions over a scheme and a shape.
//!
//! | rule | burn's panic (0.22.1) |
//! |---|---|
//! | every block extent is at least 1 | division by zero in `reduce_blocks` (burn-backend `quantization/scheme.rs`) |
//! | the block divides every dimension | `Tensor [..] must be evenly divisible by block size [..]` (same file); Flex: `is not a whole number of BlockSize(..) blocks` |
//! | a two-level scheme's block scale dtype stays within f16's range | `block scales in .. reach f32's range, which a per-tensor scale cannot absorb` (`normalize_scales`) |
//! | a two-level scheme's per-tensor scale is F32 | `a two-level scheme stores its per-tensor scale as f32` (burn-std `QuantizedBytes::new`) |
//! | `AbsMean` calibration has no two-level form | `AbsMean calibration has no two-level form` (`compute_range`) |
//! | sub-byte values are not stored `Native` | CubeCL: `Can't store native sub-byte values`; NdArray: `Quantization not supported`; Flex ignores the store and keeps i8, so the storage asked for is silently not the storage given |
//!
//! The last rule is a deliberate refusal beyond burn's own asserts: there is no native storage
//! type for a 4- or 2-bit value, so no backend can honour the request as written.

use std::fmt;

use burn::tensor::quantization::{
    Calibration, QuantMode, QuantScheme, QuantStore, QuantValue, ScaleDtype,
};

use crate::error::{GuardError, Result};

/// The largest block scale dtype maximum a two-level scheme accepts: f16's maximum.
const TWO_LEVEL_BLOCK_SCALE_MAX: f32 = 65504.0;

/// What a valid scheme resolves to for a given shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantLayout {
    /// The block extent per tensor dimension (all ones but the blocked dims), or `None` for a
    /// per-tensor scheme.
    pub block: Option<Vec<usize>>,
    /// How many scales the values need (1 for per-tensor).
    pub num_scales: usize,
    /// Whether a per-tensor scale rides on top of block scales.
    pub two_level: bool,
}

/// Checks `scheme` against a tensor of `shape` for `quantize_dynamic` (min-max calibration).
///
/// Returns the resolved block layout. The rules, in order: sub-byte values are not stored
/// `Native`; every block extent is at least 1; the block divides every dimension; a two-level
/// scheme has an F32 per-tensor scale and a block scale dtype no wider than f16.
///
/// # Errors
///
/// [`GuardError::InvalidQuantScheme`] naming `op`, the scheme, the shape and the rule broken.
///
/// ```
/// use burn::tensor::quantization::{QuantScheme, ScaleDtype};
/// use burn_guard::check;
///
/// let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
/// assert!(check::quant_scheme("quantize_dynamic", &scheme, &[4, 64]).is_ok());
/// let err = check::quant_scheme("quantize_dynamic", &scheme, &[4, 24]).unwrap_err();
/// assert!(err.to_string().contains("block size must divide every dimension"));
/// ```
pub fn quant_scheme(
    op: &'static str,
    scheme: &QuantScheme,
    shape: &[usize],
) -> Result<QuantLayout> {
    let fail = |reason: String| GuardError::InvalidQuantScheme {
        op,
        scheme: *scheme,
        shape: shape.to_vec(),
        reason,
    };

    if scheme.value.size_bits() < 8 && scheme.store == QuantStore::Native {
        return Err(fail(format!(
            "{}-bit values have no native storage type; use QuantStore::PackedU32",
            scheme.value.size_bits()
        )));
    }

    let block = match scheme.block_size() {
        None => None,
        Some(block) => {
            let extents: Vec<usize> = block
                .to_dim_vec(shape.len())
                .into_iter()
                .map(usize::from)
                .collect();
            if extents.contains(&0) {
                return Err(fail(format!(
                    "block extents must be at least 1; block {extents:?}"
                )));
            }
            let divides = shape
                .iter()
                .zip(&extents)
                .all(|(&dim, &extent)| dim.is_multiple_of(extent));
            if !divides {
                return Err(fail(format!(
                    "block size must divide every dimension; block {extents:?}"
                )));
            }
            Some(extents)
        }
    };

    let two_level = scheme.block_scale().is_some() && scheme.tensor_scale().is_some();
    if let (Some(block_scale), Some(global)) = (scheme.block_scale(), scheme.tensor_scale()) {
        if global != ScaleDtype::F32 {
            return Err(fail(format!(
                "a two-level scheme stores its per-tensor scale as F32; per-tensor scale {global:?}"
            )));
        }
        if block_scale.dtype.max_representable() > TWO_LEVEL_BLOCK_SCALE_MAX {
            return Err(fail(format!(
                "a two-level scheme needs block scales no wider than F16, which a per-tensor scale can absorb; block scale {:?}",
                block_scale.dtype
            )));
        }
    }

    let num_scales = match &block {
        None => 1,
        Some(extents) => shape
            .iter()
            .zip(extents)
            .map(|(&dim, &extent)| dim / extent.max(1))
            .product(),
    };
    Ok(QuantLayout {
        block,
        num_scales,
        two_level,
    })
}

/// Checks that `calibration` can produce the scales `scheme` needs.
///
/// `AbsMean` (BitNet's gamma) is a mean over the whole tensor or block; a two-level scheme
/// cannot decompose it, and burn asserts so in `compute_range`.
///
/// # Errors
///
/// [`GuardError::InvalidQuantScheme`] for `AbsMean` with a two-level scheme.
///
/// ```
/// use burn::tensor::quantization::{Calibration, QuantScheme, ScaleDtype};
/// use burn_guard::check;
///
/// let two_level = QuantScheme::default()
///     .per_block([16], ScaleDtype::UE4M3)
///     .per_tensor(ScaleDtype::F32);
/// assert!(check::quant_calibration("quantize", &two_level, &Calibration::MinMax, &[16]).is_ok());
/// assert!(check::quant_calibration("quantize", &two_level, &Calibration::AbsMean, &[16]).is_err());
/// ```
pub fn quant_calibration(
    op: &'static str,
    scheme: &QuantScheme,
    calibration: &Calibration,
    shape: &[usize],
) -> Result<()> {
    let two_level = scheme.block_scale().is_some() && scheme.tensor_scale().is_some();
    if matches!(calibration, Calibration::AbsMean) && two_level {
        return Err(GuardError::InvalidQuantScheme {
            op,
            scheme: *scheme,
            shape: shape.to_vec(),
            reason: "AbsMean calibration has no two-level form".into(),
        });
    }
    Ok(())
}

/// A short, stable name for a scheme: `value-store-level`, e.g. `q8f-packedu32-tensor`,
/// `q4f-packedu32-block32`, `e2m1-packednative-block16:ue4m3+tensor`.
///
/// Non-F32 scale dtypes are appended after a colon; a packing dimension other than 0 after the
/// store (`packedu32@1`); lookup mode as a `-lookup` suffix.
///
/// ```
/// use burn::tensor::quantization::{QuantScheme, ScaleDtype};
/// use burn_guard::check::SchemeName;
///
/// assert_eq!(SchemeName(&QuantScheme::default()).to_string(), "q8f-packedu32-tensor");
/// let q4 = QuantScheme::default()
///     .with_value(burn::tensor::quantization::QuantValue::Q4F)
///     .per_block([32], ScaleDtype::F32);
/// assert_eq!(SchemeName(&q4).to_string(), "q4f-packedu32-block32");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SchemeName<'a>(pub &'a QuantScheme);

impl fmt::Display for SchemeName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = self.0;
        let value = match scheme.value {
            QuantValue::Q8F => "q8f",
            QuantValue::Q8S => "q8s",
            QuantValue::Q4F => "q4f",
            QuantValue::Q4S => "q4s",
            QuantValue::Q2F => "q2f",
            QuantValue::Q2S => "q2s",
            QuantValue::E4M3 => "e4m3",
            QuantValue::E5M2 => "e5m2",
            QuantValue::E2M1 => "e2m1",
        };
        write!(f, "{value}-")?;
        match scheme.store {
            QuantStore::Native => write!(f, "native")?,
            QuantStore::PackedU32(0) => write!(f, "packedu32")?,
            QuantStore::PackedU32(dim) => write!(f, "packedu32@{dim}")?,
            QuantStore::PackedNative(0) => write!(f, "packednative")?,
            QuantStore::PackedNative(dim) => write!(f, "packednative@{dim}")?,
        }
        write!(f, "-")?;
        if let Some(block) = scheme.block_scale() {
            let dims: Vec<String> = block.size.iter().map(u8::to_string).collect();
            write!(f, "block{}", dims.join("x"))?;
            write_scale_dtype(f, block.dtype)?;
            if let Some(global) = scheme.tensor_scale() {
                write!(f, "+tensor")?;
                write_scale_dtype(f, global)?;
            }
        } else {
            write!(f, "tensor")?;
            write_scale_dtype(f, scheme.scale_dtype())?;
        }
        if scheme.mode == QuantMode::Lookup {
            write!(f, "-lookup")?;
        }
        Ok(())
    }
}

fn write_scale_dtype(f: &mut fmt::Formatter<'_>, dtype: ScaleDtype) -> fmt::Result {
    match dtype {
        ScaleDtype::F32 => Ok(()),
        ScaleDtype::F16 => write!(f, ":f16"),
        ScaleDtype::BF16 => write!(f, ":bf16"),
        ScaleDtype::UE8M0 => write!(f, ":ue8m0"),
        ScaleDtype::UE4M3 => write!(f, ":ue4m3"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::quantization::QuantValue;

    fn q(value: QuantValue, store: QuantStore) -> QuantScheme {
        QuantScheme::default().with_value(value).with_store(store)
    }

    /// One row per rule: (scheme, shape, expected Display substring or None for Ok).
    #[test]
    fn table_of_rules() {
        let b32 = |s: QuantScheme| s.per_block([32], ScaleDtype::F32);
        let rows: Vec<(QuantScheme, Vec<usize>, Option<&str>)> = vec![
            (QuantScheme::default(), vec![3, 5], None),
            (b32(QuantScheme::default()), vec![2, 64], None),
            (
                b32(QuantScheme::default()),
                vec![2, 24],
                Some("block size must divide every dimension; block [1, 32]"),
            ),
            (
                QuantScheme::default().per_block([8, 8], ScaleDtype::F32),
                vec![12, 8],
                Some("block size must divide every dimension; block [8, 8]"),
            ),
            (
                QuantScheme::default().per_block([0], ScaleDtype::F32),
                vec![4],
                Some("block extents must be at least 1"),
            ),
            (
                q(QuantValue::Q4F, QuantStore::Native),
                vec![8],
                Some("4-bit values have no native storage type"),
            ),
            (
                q(QuantValue::Q2S, QuantStore::Native),
                vec![8],
                Some("2-bit values have no native storage type"),
            ),
            (
                q(QuantValue::E2M1, QuantStore::Native),
                vec![8],
                Some("4-bit values have no native storage type"),
            ),
            (q(QuantValue::Q8S, QuantStore::Native), vec![8], None),
            (
                QuantScheme::default()
                    .per_block([16], ScaleDtype::UE4M3)
                    .per_tensor(ScaleDtype::F32),
                vec![4, 32],
                None,
            ),
            (
                QuantScheme::default()
                    .per_block([16], ScaleDtype::UE4M3)
                    .per_tensor(ScaleDtype::F16),
                vec![4, 32],
                Some("per-tensor scale as F32; per-tensor scale F16"),
            ),
            (
                QuantScheme::default()
                    .per_block([32], ScaleDtype::UE8M0)
                    .per_tensor(ScaleDtype::F32),
                vec![4, 32],
                Some("block scales no wider than F16"),
            ),
            (
                QuantScheme::default()
                    .per_block([32], ScaleDtype::F32)
                    .per_tensor(ScaleDtype::F32),
                vec![4, 32],
                Some("block scale F32"),
            ),
        ];
        for (scheme, shape, expected) in rows {
            let got = quant_scheme("quantize_dynamic", &scheme, &shape);
            match (expected, got) {
                (None, Ok(_)) => {}
                (Some(text), Err(err @ GuardError::InvalidQuantScheme { .. })) => {
                    let shown = err.to_string();
                    assert!(shown.starts_with("quantize_dynamic: "), "{shown}");
                    assert!(shown.contains(text), "{shown} lacks {text}");
                }
                (expected, got) => {
                    panic!("{scheme:?} on {shape:?}: expected {expected:?}, got {got:?}")
                }
            }
        }
    }

    #[test]
    fn layout_counts_scales() {
        let scheme = QuantScheme::default().per_block([8, 8], ScaleDtype::F32);
        let layout = quant_scheme("q", &scheme, &[16, 32]).unwrap();
        assert_eq!(layout.block, Some(vec![8, 8]));
        assert_eq!(layout.num_scales, 8);
        assert!(!layout.two_level);
        let layout = quant_scheme("q", &QuantScheme::default(), &[16, 32]).unwrap();
        assert_eq!(layout.num_scales, 1);
    }

    #[test]
    fn names_are_short_and_stable() {
        let cases = [
            (QuantScheme::default(), "q8f-packedu32-tensor"),
            (
                q(QuantValue::Q8S, QuantStore::Native).per_block([32], ScaleDtype::F16),
                "q8s-native-block32:f16",
            ),
            (
                q(QuantValue::E2M1, QuantStore::PackedNative(0))
                    .per_block([16], ScaleDtype::UE4M3)
                    .per_tensor(ScaleDtype::F32),
                "e2m1-packednative-block16:ue4m3+tensor",
            ),
            (
                QuantScheme::default().with_store(QuantStore::PackedU32(1)),
                "q8f-packedu32@1-tensor",
            ),
        ];
        for (scheme, name) in cases {
            assert_eq!(SchemeName(&scheme).to_string(), name);
        }
    }
}
