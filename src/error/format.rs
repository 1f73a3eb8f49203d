//! What the messages of [`GuardError`](super::GuardError) are written with: one-line folding,
//! short lists, optional values in words, and the short name of a quantization scheme. Nothing
//! here knows the error type: the pieces that walk an error (the context path, a load's
//! refusals, a message without its op) sit in `mod.rs` beside it.

use std::fmt;

use burn::tensor::FloatDType;
use burn::tensor::quantization::{QuantMode, QuantScheme, QuantStore, QuantValue, ScaleDtype};

use super::values::{NonFiniteParam, NonFiniteSplit};

use crate::gap::Gap;

// ---------------------------------------------------------------- pieces of `#[error]` messages

/// Shapes in argument order, joined by ` and `: `[2, 3] and [4, 5]`.
pub(super) fn shape_list(shapes: &[Vec<usize>]) -> impl fmt::Display + '_ {
    fmt::from_fn(move |f| {
        for (i, shape) in shapes.iter().enumerate() {
            let sep = if i == 0 { "" } else { " and " };
            write!(f, "{sep}{shape:?}")?;
        }
        Ok(())
    })
}

/// Devices in argument order, each on one line, joined by ` and `.
pub(super) fn device_list(devices: &[String]) -> impl fmt::Display + '_ {
    fmt::from_fn(move |f| {
        for (i, device) in devices.iter().enumerate() {
            let sep = if i == 0 { "" } else { " and " };
            write!(f, "{sep}{}", OneLine(device))?;
        }
        Ok(())
    })
}

/// ` (dim 1)` for the dimension a rule is about, nothing for a rule about the whole tensor.
pub(super) fn dim_note(dim: &Option<usize>) -> impl fmt::Display + '_ {
    fmt::from_fn(move |f| match dim {
        Some(dim) => write!(f, " (dim {dim})"),
        None => Ok(()),
    })
}

/// `134221824 bytes`, or `a size that overflows` when the count did not fit.
pub(super) fn bytes_or_overflow(bytes: &Option<u64>) -> impl fmt::Display + '_ {
    fmt::from_fn(move |f| match bytes {
        Some(bytes) => write!(f, "{bytes} bytes"),
        None => f.write_str("a size that overflows"),
    })
}

/// `limit 134217728 bytes`, or `no stated limit` for a device that states none.
pub(super) fn limit_or_none(limit: &Option<u64>) -> impl fmt::Display + '_ {
    fmt::from_fn(move |f| match limit {
        Some(limit) => write!(f, "limit {limit} bytes"),
        None => f.write_str("no stated limit"),
    })
}

/// burn's own error, its message folded onto one line (burn's messages span several, with a
/// `Caused by:` block).
pub(super) fn folded<E: fmt::Display + ?Sized>(cause: &E) -> impl fmt::Display + '_ {
    fmt::from_fn(move |f| write!(f, "{}", OneLine(&cause.to_string())))
}

/// The `s` of `parameters` when there are not exactly one.
pub(super) fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// `path count of total` per parameter whose gradient is not finite, each with what else is
/// known about it ([`non_finite_detail`]), joined by `, `.
pub(super) fn non_finite_counts(params: &[NonFiniteParam]) -> impl fmt::Display + '_ {
    fmt::from_fn(move |f| {
        for (i, param) in params.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(
                f,
                "{sep}{} {} of {}{}",
                OneLine(&param.path),
                param.count,
                param.total,
                non_finite_detail(&param.split, &param.dtype, &param.shape)
            )?;
        }
        Ok(())
    })
}

/// What a non-finite count knows beyond itself: ` (2 NaN, 1 +inf, 0 -inf)` when it was split,
/// then ` in F32 [2, 4]` with the dtype and shape of the tensor counted, each where known.
pub(super) fn non_finite_detail<'a>(
    split: &'a Option<NonFiniteSplit>,
    dtype: &'a Option<FloatDType>,
    shape: &'a Option<Vec<usize>>,
) -> impl fmt::Display + 'a {
    fmt::from_fn(move |f| {
        if let Some(split) = split {
            write!(f, " ({split})")?;
        }
        match (dtype, shape) {
            (Some(dtype), Some(shape)) => write!(f, " in {dtype:?} {shape:?}"),
            (Some(dtype), None) => write!(f, " in {dtype:?}"),
            (None, Some(shape)) => write!(f, " in {shape:?}"),
            (None, None) => Ok(()),
        }
    })
}

/// The fallback backends the policy offered that cannot either: `; no fallback can: flex
/// panics (…), ndarray …`, nothing when there were none.
pub(super) fn fallback_list(fallbacks: &[(String, Gap)]) -> impl fmt::Display + '_ {
    fmt::from_fn(move |f| {
        for (i, (backend, gap)) in fallbacks.iter().enumerate() {
            let lead = if i == 0 { "; no fallback can: " } else { ", " };
            write!(
                f,
                "{lead}{} {} ({})",
                OneLine(backend),
                gap.effect,
                OneLine(&gap.reason)
            )?;
        }
        Ok(())
    })
}

// ---------------------------------------------------------------- helpers the messages share

/// The first names of a list, as many as fit in about 80 characters (at least one), then how
/// many more: `a, b, c, … (113 more)`. The typed error holds the whole list.
pub(super) struct FirstFew<'a>(pub(super) &'a [String]);

impl fmt::Display for FirstFew<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const BUDGET: usize = 80;
        let mut used = 0usize;
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 && used.saturating_add(name.len()) > BUDGET {
                return write!(f, ", … ({} more)", self.0.len().saturating_sub(i));
            }
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{}", OneLine(name))?;
            used = used.saturating_add(name.len()).saturating_add(2);
        }
        Ok(())
    }
}

/// Writes a possibly multi-line text on one line: lines trimmed, empty ones dropped, the rest
/// joined by ` | `.
pub(super) struct OneLine<'a>(pub(super) &'a str);

impl fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for line in self
            .0
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
        {
            if !first {
                f.write_str(" | ")?;
            }
            f.write_str(line)?;
            first = false;
        }
        Ok(())
    }
}

/// Folds a possibly multi-line message onto one line, so a log line stays a line.
#[cfg_attr(not(feature = "wgpu"), allow(dead_code))] // Its one caller is the wgpu probe.
pub(crate) fn one_line(message: &str) -> String {
    OneLine(message).to_string()
}

// ---------------------------------------------------------------- names used in messages

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
