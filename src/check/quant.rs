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
//!
//! Two more checks concern the tensor rather than the scheme, and are refusals beyond burn's
//! asserts too, where burn panics in one backend and computes garbage in another:
//!
//! | rule | burn 0.22.1 |
//! |---|---|
//! | [`quant_nonempty`]: the tensor has at least one element | Flex / NdArray panic (`cannot reduce an empty tensor`, `at least one scale factor`), CubeCL would reach a reduce kernel over a zero-length axis |
//! | [`quant_values`]: every value finite; the scale `2·max\|x\| / (b − a)` finite and within its dtype | Flex dequantizes to ~1e-36 or clips, CubeCL to NaN, NdArray panics on NaN / inf and returns NaN for `f32::MAX` |
//!
//! [`quant_values`] needs the values' range, which the caller reads with one reduction; the
//! check itself stays pure.
//!
//! One check concerns a quantized tensor after quantization: [`quantized_reshape`], a reshape
//! must keep whole blocks (burn-flex `ops/qtensor.rs` `block_layout`, reached from `q_reshape`:
//! `tensor Shape { .. } is not a whole number of BlockSize(..) blocks`) and, in a packed store,
//! whole words (burn-cubecl `ops/base.rs` `q_reshape`: `Cannot reshape packed tensor`, on
//! wgpu's device thread). Layers reach it too: burn-nn's group and instance norms reshape gamma
//! and beta to `[1, channels, 1, ..]`, and burn-tensor's `prelu` its weights, so a quantized
//! parameter of 64 panics there in blocks of 32 (Flex) or packed four to a word (wgpu).

use burn::tensor::DType;
use burn::tensor::quantization::{Calibration, QuantScheme, QuantStore, ScaleDtype};

use super::rule::Rule;
pub use crate::error::SchemeName;
use crate::error::{GuardError, Limit, Result, ScalarValue};

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
/// assert!(matches!(
///     err,
///     burn_guard::GuardError::InvalidQuantScheme { ref shape, .. } if shape == &[4, 24]
/// ));
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

    let block = block_extents(scheme, shape).map_err(fail)?;

    let two_level = is_two_level(scheme);
    if let Some(global) = scheme.tensor_scale().filter(|_| two_level)
        && global != ScaleDtype::F32
    {
        return Err(fail(format!(
            "a two-level scheme stores its per-tensor scale as F32; per-tensor scale {global:?}"
        )));
    }
    two_level_block_scale(scheme).map_err(fail)?;

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

/// `compute_range` on a block scheme: the block rule of [`quant_scheme`] alone, every block
/// extent at least 1 and dividing the matching dimension (burn-backend `reduce_blocks`: "must
/// be evenly divisible by block size", or a division by zero for a zero extent). Per-tensor
/// schemes always pass.
///
/// # Errors
///
/// [`GuardError::InvalidQuantScheme`] naming the block.
///
/// ```
/// use burn::tensor::quantization::{QuantScheme, ScaleDtype};
/// use burn_guard::check::quant::quant_blocks;
///
/// let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
/// assert!(quant_blocks("compute_range", &scheme, &[4, 64]).is_ok());
/// assert!(quant_blocks("compute_range", &scheme, &[4, 24]).is_err());
/// ```
pub fn quant_blocks(op: &'static str, scheme: &QuantScheme, shape: &[usize]) -> Result<()> {
    block_extents(scheme, shape)
        .map(drop)
        .map_err(|reason| GuardError::InvalidQuantScheme {
            op,
            scheme: *scheme,
            shape: shape.to_vec(),
            reason,
        })
}

/// `compute_q_params` with a two-level scheme (a per-tensor scale over block scales): the
/// block-scale rule of [`quant_scheme`] alone, a block scale dtype within f16's range
/// (burn-backend `normalize_scales` asserts it).
///
/// # Errors
///
/// [`GuardError::InvalidQuantScheme`] naming the block scale dtype.
///
/// ```
/// use burn::tensor::quantization::{QuantScheme, ScaleDtype};
/// use burn_guard::check::quant::quant_two_level;
///
/// let f16 = QuantScheme::default().per_block([16], ScaleDtype::F16).per_tensor(ScaleDtype::F32);
/// assert!(quant_two_level("compute_q_params", &f16, &[32]).is_ok());
/// let f32 = QuantScheme::default().per_block([16], ScaleDtype::F32).per_tensor(ScaleDtype::F32);
/// assert!(quant_two_level("compute_q_params", &f32, &[32]).is_err());
/// ```
pub fn quant_two_level(op: &'static str, scheme: &QuantScheme, shape: &[usize]) -> Result<()> {
    two_level_block_scale(scheme).map_err(|reason| GuardError::InvalidQuantScheme {
        op,
        scheme: *scheme,
        shape: shape.to_vec(),
        reason,
    })
}

/// Whether a per-tensor scale rides on block scales (burn-std `global_scale_dtype` is `Some`).
fn is_two_level(scheme: &QuantScheme) -> bool {
    scheme.block_scale().is_some() && scheme.tensor_scale().is_some()
}

/// A two-level scheme's block scales no wider than f16, which the per-tensor scale can absorb;
/// otherwise the rule broken. Other schemes always pass.
fn two_level_block_scale(scheme: &QuantScheme) -> std::result::Result<(), String> {
    match scheme.block_scale() {
        Some(block_scale)
            if is_two_level(scheme)
                && block_scale.dtype.max_representable() > TWO_LEVEL_BLOCK_SCALE_MAX =>
        {
            Err(format!(
                "a two-level scheme needs block scales no wider than F16, which a per-tensor scale can absorb; block scale {:?}",
                block_scale.dtype
            ))
        }
        _ => Ok(()),
    }
}

/// The block extent per dimension of `shape` (`None` for a per-tensor scheme), when every
/// extent is at least 1 and divides its dimension; otherwise the rule broken.
fn block_extents(
    scheme: &QuantScheme,
    shape: &[usize],
) -> std::result::Result<Option<Vec<usize>>, String> {
    let Some(block) = scheme.block_size() else {
        return Ok(None);
    };
    let extents: Vec<usize> = block
        .to_dim_vec(shape.len())
        .into_iter()
        .map(usize::from)
        .collect();
    if extents.contains(&0) {
        return Err(format!(
            "block extents must be at least 1; block {extents:?}"
        ));
    }
    let divides = shape
        .iter()
        .zip(&extents)
        .all(|(&dim, &extent)| dim.is_multiple_of(extent));
    if !divides {
        return Err(format!(
            "block size must divide every dimension; block {extents:?}"
        ));
    }
    Ok(Some(extents))
}

/// Refuses a tensor with no elements for dynamic quantization: min-max calibration has no
/// range to compute a scale from. burn 0.22.1 panics there (Flex: `min: cannot reduce an empty
/// tensor`, `quantized tensor must have at least one scale factor`; NdArray: `Cannot compute min
/// of empty tensor`) or, on CubeCL, would reach a reduce kernel over a zero-length axis. Refusing
/// on every backend, before any value is read, keeps the answer the same everywhere.
///
/// # Errors
///
/// [`GuardError::Empty`] with `op` and the shape when a dimension is zero.
///
/// ```
/// use burn_guard::check;
///
/// assert!(check::quant::quant_nonempty("quantize_dynamic", &[4, 32]).is_ok());
/// let err = check::quant::quant_nonempty("quantize_dynamic", &[0, 32]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "quantize_dynamic: a tensor with no elements has no range to calibrate a scale from; got shape [0, 32]"
/// );
/// ```
pub fn quant_nonempty(op: &'static str, shape: &[usize]) -> Result<()> {
    Rule(
        op,
        "a tensor with no elements has no range to calibrate a scale from",
    )
    .nonempty(shape)
}

/// The magnitude burn derives a scale from, for a calibration range's extremes `min` and `max`
/// (burn's `compute_range`, a block scheme's folded to the smallest min and the largest max):
/// `|max|` when `|min| < |max|`, else `|min|`, as burn-backend `quantization/scheme.rs`
/// `compute_q_params` takes it with `mask_where`. A NaN `|min|` is kept where `f32::max` would
/// drop it. With `MinMax` this is the largest `|x|`; with `AbsMean`, the mean magnitude. It is
/// what [`quant_values`] checks as [`ValueRange::max_abs`] for a range burn computed.
///
/// ```
/// use burn_guard::check::quant::range_magnitude;
///
/// assert_eq!(range_magnitude(-3.0, 2.0), 3.0);
/// assert_eq!(range_magnitude(0.5, 2.0), 2.0);
/// assert!(range_magnitude(f32::NAN, 2.0).is_nan());
/// ```
pub fn range_magnitude(min: f32, max: f32) -> f32 {
    let (min, max) = (min.abs(), max.abs());
    if min < max { max } else { min }
}

/// The scale burn derives from a range's magnitude (see [`range_magnitude`]) for `scheme`'s
/// value range `[a, b]`: `magnitude · 2 / (b − a)`, in f32, the two scalar operations of
/// burn-backend `quantization/scheme.rs` `compute_q_params` in its order (a per-tensor scheme's
/// scale, or one block's before a two-level scheme normalises it). On a backend whose float
/// scalar ops are IEEE f32 operations
/// ([`Quirks::runs_on_host`](crate::check::quirks::Quirks::runs_on_host)) it is bit for bit the
/// scale burn computes there; [`quant_values`] checks it against its dtype.
///
/// ```
/// use burn::tensor::quantization::{QuantScheme, QuantValue};
/// use burn_guard::check::quant::quant_scale;
///
/// let q8 = QuantScheme::default().with_value(QuantValue::Q8S); // [-127, 127]
/// assert_eq!(quant_scale(&q8, 127.0), 1.0);
/// assert!(quant_scale(&q8, f32::MAX).is_infinite());
/// ```
pub fn quant_scale(scheme: &QuantScheme, magnitude: f32) -> f32 {
    let (a, b) = scheme.value.range();
    magnitude * 2.0 / (b - a)
}

/// What one reduction over a tensor's values tells the quantization checks: how many values
/// are NaN or ±inf, and the largest magnitude among the finite ones.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValueRange {
    /// Values that are NaN, `+inf` or `-inf`.
    pub non_finite: u64,
    /// All values, finite or not.
    pub len: u64,
    /// The largest `|x|` over the finite values (0 when there are none); for a range burn
    /// computed, the magnitude its scale comes from ([`range_magnitude`]).
    pub max_abs: f32,
}

impl ValueRange {
    /// Decodes the two scalars a range read returns — the non-finite count (any int dtype)
    /// and the largest finite magnitude (any float dtype) — for a tensor of `len` values.
    /// Shared by the tensor-level and backend-level reads, which differ only in how they
    /// reduce.
    ///
    /// # Errors
    ///
    /// [`GuardError::DeviceUnavailable`] when the read did not return both scalars, with the
    /// device `unnamed`: the caller that made the read names it.
    ///
    /// ```
    /// use burn_backend::TensorData;
    /// use burn_guard::check::quant::ValueRange;
    ///
    /// let reads = vec![TensorData::from([2i64]), TensorData::from([3.5f32])];
    /// let range = ValueRange::from_reads("quantize_dynamic", reads, 8)?;
    /// assert_eq!((range.non_finite, range.len, range.max_abs), (2, 8, 3.5));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn from_reads(
        op: &'static str,
        reads: impl IntoIterator<Item = burn_backend::TensorData>,
        len: u64,
    ) -> Result<Self> {
        // The reads are all this check holds: the caller that made them names their device.
        let unreadable = || GuardError::DeviceUnavailable {
            op,
            device: "unnamed".into(),
            reason: "the values' range could not be read back".into(),
        };
        let mut reads = reads.into_iter();
        let (Some(count), Some(max_abs)) = (reads.next(), reads.next()) else {
            return Err(unreadable());
        };
        let non_finite = count
            .convert::<i64>()
            .iter::<i64>()
            .next()
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(unreadable)?;
        let max_abs = max_abs
            .convert::<f32>()
            .iter::<f32>()
            .next()
            .ok_or_else(unreadable)?;
        Ok(Self {
            non_finite,
            len,
            max_abs,
        })
    }
}

/// Checks a tensor's values for min-max dynamic quantization under `scheme`: every value
/// finite, and the scale burn will compute (`2·max|x| / (b − a)`, in f32, for the value range
/// `[a, b]` of the scheme) finite and within its dtype.
///
/// Why: a scale computed from NaN or ±inf is meaningless, and burn 0.22.1 does not say so —
/// Flex silently replaces the scale with `f32::MIN_POSITIVE` and dequantizes every value to
/// about 1e-36, CubeCL dequantizes to NaN, NdArray panics. A scale that overflows f32 (`|x|`
/// above `f32::MAX / 2`) or its narrower dtype (F16: 65504, UE4M3: 448) saturates or turns to
/// infinity: the round trip comes back as NaN or clipped to a fraction of the input, silently.
/// A two-level scheme's per-tensor scale is f32 and absorbs its block scales' range, so only
/// the f32 limit applies there.
///
/// # Errors
///
/// [`GuardError::NonFinite`] with the count of non-finite values; [`GuardError::OutOfRange`]
/// with the scale the largest magnitude would need and its dtype's maximum.
///
/// ```
/// use burn::tensor::quantization::{QuantScheme, ScaleDtype};
/// use burn_guard::check::quant::{ValueRange, quant_values};
///
/// let scheme = QuantScheme::default();
/// let finite = ValueRange { non_finite: 0, len: 8, max_abs: 3.0 };
/// assert!(quant_values("quantize_dynamic", &scheme, finite).is_ok());
///
/// let nan = ValueRange { non_finite: 2, len: 8, max_abs: 3.0 };
/// let err = quant_values("quantize_dynamic", &scheme, nan).unwrap_err();
/// assert!(matches!(err, burn_guard::GuardError::NonFinite { count: 2, total: 8, .. }));
///
/// let huge = ValueRange { non_finite: 0, len: 8, max_abs: f32::MAX };
/// assert!(quant_values("quantize_dynamic", &scheme, huge).is_err());
/// let f16 = QuantScheme::default().per_block([8], ScaleDtype::F16);
/// let big = ValueRange { non_finite: 0, len: 8, max_abs: 1e7 };
/// assert!(quant_values("quantize_dynamic", &f16, big).is_err());
/// ```
pub fn quant_values(op: &'static str, scheme: &QuantScheme, values: ValueRange) -> Result<()> {
    Rule(
        op,
        "values must be finite; a scale computed from NaN or ±inf is meaningless",
    )
    .finite_count(values.non_finite, values.len)?;
    let scale = quant_scale(scheme, values.max_abs);
    let dtype = if is_two_level(scheme) {
        ScaleDtype::F32
    } else {
        scheme.scale_dtype()
    };
    let limit = dtype.max_representable();
    if !(scale.is_finite() && scale <= limit) {
        return Err(Rule(op, "the largest magnitude must give a scale (2·max|x| / quantized range) that its dtype can hold").out_of_range("scale", ScalarValue::Float(f64::from(scale)), Limit::AtMost(ScalarValue::Float(f64::from(limit)))));
    }
    Ok(())
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
    if matches!(calibration, Calibration::AbsMean) && is_two_level(scheme) {
        return Err(GuardError::InvalidQuantScheme {
            op,
            scheme: *scheme,
            shape: shape.to_vec(),
            reason: "AbsMean calibration has no two-level form".into(),
        });
    }
    Ok(())
}

/// The dimension of `shape` to pack a per-tensor `PackedU32(0)` scheme along when the last
/// one cannot be packed: the innermost dimension that holds a whole number of words. `None`
/// when the scheme is not a per-tensor `PackedU32(0)`, the last dimension packs already, or
/// no dimension does.
///
/// Such a tensor is stored with that dimension innermost and presented in its own layout:
/// burn-cubecl 0.22.1 reports it as `PackedU32(k)`, `k` counted from the end (`ops/qtensor.rs`
/// `outer_packed_axis`), and its conv, matmul, dequantization and reads are burn's own. So a
/// conv weight `[64, 3, 7, 7]` keeps burn's layout and forward; per tensor, every value
/// quantizes as in the last-dimension packing (one scale for the whole tensor). burn-guard's
/// own choice, made where a device refuses the last-dimension packing (CubeCL: a last
/// dimension that is not a multiple of the values per word).
///
/// ```
/// use burn::tensor::quantization::{QuantScheme, QuantValue};
/// use burn_guard::check::quant::outer_packing;
///
/// let q8 = QuantScheme::default().with_value(QuantValue::Q8S);
/// assert_eq!(outer_packing(&q8, &[64, 3, 7, 7]), Some(0)); // the 64 output channels
/// assert_eq!(outer_packing(&q8, &[128, 64, 1, 1]), Some(1)); // the 64 input channels
/// assert_eq!(outer_packing(&q8, &[512, 10]), Some(0)); // the 512 input features
/// assert_eq!(outer_packing(&q8, &[64, 64]), None); // packs as it is
/// assert_eq!(outer_packing(&q8, &[3, 7]), None); // no dimension packs
/// ```
pub fn outer_packing(scheme: &QuantScheme, shape: &[usize]) -> Option<usize> {
    if scheme.store != QuantStore::PackedU32(0) || scheme.block_size().is_some() {
        return None;
    }
    let per_word = scheme.num_quants();
    let (last, outer) = shape.split_last()?;
    if last.is_multiple_of(per_word) {
        return None;
    }
    outer
        .iter()
        .rposition(|dim| *dim > 0 && dim.is_multiple_of(per_word))
}

/// Checks a reshape to `shape` of a tensor of `dtype`, by the scheme the tensor is stored in:
///
/// - a block-quantized tensor's blocks must tile the new shape (the block divides every
///   dimension of it, the block rule of [`quant_scheme`]); mirrors burn-flex 0.22.1
///   `ops/qtensor.rs` (`q_reshape` → `block_safe_layout_op` → `block_layout`'s assert), and
///   burn-cubecl 0.22.1 `ops/base.rs` `q_reshape` (`Reshape would split a block across
///   multiple rows`);
/// - a packed store (`PackedU32(d)`, `PackedNative(d)`) needs the packed dimension (`d` from
///   the end) of the new shape to be a whole number of words: a multiple of the values per
///   word (4 for 8-bit values, 8 for 4-bit); burn-cubecl's `q_reshape`: `Cannot reshape packed
///   tensor: inner dimension .. is not aligned with packing factor ..`, on the device thread;
/// - a tensor packed along an outer dimension (`d > 0`, [`outer_packing`]) is not reshaped at
///   all: it is a swapped view of its storage, and burn-cubecl's `q_reshape` overflows on the
///   device thread for a lower rank (`ops/base.rs`, `rank - packed_dim - 1`) and was not
///   measured otherwise.
///
/// Float tensors, and per-tensor schemes on a native store, reshape freely. Only these rules:
/// the tensor is already quantized, and its dtype's scheme is the one the backend stored
/// (Flex reports `QuantStore::Native` for every scheme it quantized, 4-bit values included),
/// which the other rules of [`quant_scheme`] would refuse. A layer whose forward reshapes a
/// parameter (burn-nn's `group_norm`, burn-tensor's `activation::prelu`) checks the
/// parameter's dtype against the shape it is reshaped to.
///
/// # Errors
///
/// [`GuardError::InvalidQuantScheme`] naming `op`, the tensor's scheme, the new shape and the
/// rule broken.
///
/// ```
/// use burn::tensor::DType;
/// use burn::tensor::quantization::{QuantScheme, ScaleDtype};
/// use burn_guard::check::quant::quantized_reshape;
///
/// let blocks = DType::QFloat(QuantScheme::default().per_block([32], ScaleDtype::F32));
/// assert!(quantized_reshape("group_norm", blocks, &[1, 1, 64]).is_ok());
/// assert!(quantized_reshape("group_norm", blocks, &[1, 64, 1]).is_err());
/// // 8-bit values packed four to a u32 along the last dimension.
/// let packed = DType::QFloat(QuantScheme::default());
/// assert!(quantized_reshape("group_norm", packed, &[1, 1, 64]).is_ok());
/// assert!(quantized_reshape("group_norm", packed, &[1, 64, 1]).is_err());
/// assert!(quantized_reshape("group_norm", DType::F32, &[1, 64, 1]).is_ok());
/// ```
pub fn quantized_reshape(op: &'static str, dtype: DType, shape: &[usize]) -> Result<()> {
    let DType::QFloat(scheme) = dtype else {
        return Ok(());
    };
    let fail = |reason: String| GuardError::InvalidQuantScheme {
        op,
        scheme,
        shape: shape.to_vec(),
        reason,
    };
    block_extents(&scheme, shape).map_err(fail)?;
    let packed_dim = match scheme.store {
        QuantStore::Native => return Ok(()),
        QuantStore::PackedU32(dim) | QuantStore::PackedNative(dim) => dim,
    };
    if packed_dim > 0 {
        return Err(fail(
            "a tensor packed along an outer dimension is a swapped view of its storage; \
             burn-cubecl cannot reshape it (its q_reshape overflows on the device thread)"
                .to_owned(),
        ));
    }
    let per_word = scheme.num_quants();
    let packed = shape
        .len()
        .checked_sub(packed_dim.saturating_add(1))
        .and_then(|index| shape.get(index));
    match packed {
        Some(size) if size.is_multiple_of(per_word) => Ok(()),
        Some(size) => Err(fail(format!(
            "a packed store needs the packed dimension to be a whole number of words; \
             dimension {size} holds {per_word} values per word"
        ))),
        None => Err(fail(format!(
            "a packed store packs dimension {packed_dim} from the end, which this rank lacks"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::TestResult;
    use burn::tensor::quantization::QuantValue;

    /// A quantized tensor reshaped: whole blocks and whole words pass; a split block, a split
    /// word or a missing packed dimension is refused with the new shape; float tensors pass.
    #[test]
    fn quantized_reshape_keeps_whole_blocks_and_words() -> TestResult {
        const BLOCK: &str = "block size must divide every dimension";
        const WORDS: &str = "a packed store needs the packed dimension to be a whole number";
        const OUTER: &str = "a tensor packed along an outer dimension";
        let native = |value| q(value, QuantStore::Native);
        let b32 = |s: QuantScheme| DType::QFloat(s.per_block([32], ScaleDtype::F32));
        let q8_packed = q(QuantValue::Q8S, QuantStore::PackedU32(0));
        let q4_packed = q(QuantValue::Q4S, QuantStore::PackedU32(0));
        let rows: Vec<(DType, Vec<usize>, Option<&str>)> = vec![
            (b32(native(QuantValue::Q8S)), vec![64], None),
            (b32(native(QuantValue::Q8S)), vec![1, 64], None),
            (b32(native(QuantValue::Q8S)), vec![2, 32], None),
            (b32(native(QuantValue::Q8S)), vec![1, 64, 1], Some(BLOCK)),
            (b32(native(QuantValue::Q8S)), vec![4, 16], Some(BLOCK)),
            // What Flex stores for Q4 in blocks: a native store, which quantizing refuses.
            (b32(native(QuantValue::Q4S)), vec![1, 64], None),
            (b32(native(QuantValue::Q4S)), vec![1, 64, 1], Some(BLOCK)),
            (DType::QFloat(native(QuantValue::Q8S)), vec![1, 64, 1], None),
            // Packed along the last dimension: 4 values a word for Q8, 8 for Q4.
            (DType::QFloat(q8_packed), vec![1, 1, 64], None),
            (DType::QFloat(q8_packed), vec![16, 4], None),
            (DType::QFloat(q8_packed), vec![1, 64, 1], Some(WORDS)),
            (DType::QFloat(q4_packed), vec![16, 4], Some(WORDS)),
            (DType::QFloat(q4_packed), vec![8, 8], None),
            (b32(q4_packed), vec![2, 32], None),
            (b32(q4_packed), vec![1, 64, 1], Some(BLOCK)),
            // Packed along the second dimension from the end: a swapped view, never reshaped.
            (
                DType::QFloat(q(QuantValue::Q8S, QuantStore::PackedU32(1))),
                vec![4, 3],
                Some(OUTER),
            ),
            (
                DType::QFloat(q(QuantValue::Q8S, QuantStore::PackedU32(1))),
                vec![8],
                Some(OUTER),
            ),
            (DType::F32, vec![1, 64, 1], None),
        ];
        for (dtype, shape, expected) in rows {
            match (expected, quantized_reshape("reshape", dtype, &shape)) {
                (None, Ok(())) => {}
                (
                    Some(rule),
                    Err(GuardError::InvalidQuantScheme {
                        op: "reshape",
                        shape: got,
                        reason,
                        ..
                    }),
                ) => {
                    assert_eq!(got, shape);
                    assert!(reason.starts_with(rule), "{dtype:?} to {shape:?}: {reason}");
                }
                (ok, got) => {
                    return Err(
                        format!("{dtype:?} to {shape:?}: expected {ok:?}, got {got:?}").into(),
                    );
                }
            }
        }
        Ok(())
    }

    fn q(value: QuantValue, store: QuantStore) -> QuantScheme {
        QuantScheme::default().with_value(value).with_store(store)
    }

    /// One row per rule: (scheme, shape, the exact reason, or None for Ok).
    #[test]
    fn table_of_rules() -> TestResult {
        let b32 = |s: QuantScheme| s.per_block([32], ScaleDtype::F32);
        let two_level = |block, block_scale, tensor_scale| {
            QuantScheme::default()
                .per_block([block], block_scale)
                .per_tensor(tensor_scale)
        };
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
                Some("block extents must be at least 1; block [0]"),
            ),
            (
                q(QuantValue::Q4F, QuantStore::Native),
                vec![8],
                Some("4-bit values have no native storage type; use QuantStore::PackedU32"),
            ),
            (
                q(QuantValue::Q2S, QuantStore::Native),
                vec![8],
                Some("2-bit values have no native storage type; use QuantStore::PackedU32"),
            ),
            (
                q(QuantValue::E2M1, QuantStore::Native),
                vec![8],
                Some("4-bit values have no native storage type; use QuantStore::PackedU32"),
            ),
            (q(QuantValue::Q8S, QuantStore::Native), vec![8], None),
            (
                two_level(16, ScaleDtype::UE4M3, ScaleDtype::F32),
                vec![4, 32],
                None,
            ),
            (
                two_level(16, ScaleDtype::UE4M3, ScaleDtype::F16),
                vec![4, 32],
                Some("a two-level scheme stores its per-tensor scale as F32; per-tensor scale F16"),
            ),
            (
                two_level(32, ScaleDtype::UE8M0, ScaleDtype::F32),
                vec![4, 32],
                Some(
                    "a two-level scheme needs block scales no wider than F16, which a per-tensor scale can absorb; block scale UE8M0",
                ),
            ),
            (
                two_level(32, ScaleDtype::F32, ScaleDtype::F32),
                vec![4, 32],
                Some(
                    "a two-level scheme needs block scales no wider than F16, which a per-tensor scale can absorb; block scale F32",
                ),
            ),
        ];
        for (scheme, shape, expected) in rows {
            let got = quant_scheme("quantize_dynamic", &scheme, &shape);
            match (expected, got) {
                (None, Ok(_)) => {}
                (
                    Some(want),
                    Err(GuardError::InvalidQuantScheme {
                        op: "quantize_dynamic",
                        scheme: s,
                        shape: got_shape,
                        reason,
                    }),
                ) => {
                    assert_eq!(reason, want);
                    assert_eq!(s, scheme);
                    assert_eq!(got_shape, shape);
                }
                (expected, got) => {
                    return Err(format!(
                        "{scheme:?} on {shape:?}: expected {expected:?}, got {got:?}"
                    )
                    .into());
                }
            }
        }
        Ok(())
    }

    #[test]
    fn layout_counts_scales() -> TestResult {
        let scheme = QuantScheme::default().per_block([8, 8], ScaleDtype::F32);
        let layout = quant_scheme("q", &scheme, &[16, 32])?;
        assert_eq!(layout.block, Some(vec![8, 8]));
        assert_eq!(layout.num_scales, 8);
        assert!(!layout.two_level);
        let layout = quant_scheme("q", &QuantScheme::default(), &[16, 32])?;
        assert_eq!(layout.num_scales, 1);
        Ok(())
    }

    /// One row per value rule: (scheme, range, the expected refusal or None for Ok).
    #[test]
    fn value_rules() -> TestResult {
        /// What a refusal must be.
        #[derive(Debug)]
        enum Expect {
            /// `NonFinite` with this count of 64.
            NonFinite(u64),
            /// `OutOfRange` on the scale, with this dtype maximum.
            Scale(f32),
        }
        let range = |non_finite, max_abs| ValueRange {
            non_finite,
            len: 64,
            max_abs,
        };
        let f16 = QuantScheme::default().per_block([8], ScaleDtype::F16);
        let two_level = QuantScheme::default()
            .per_block([16], ScaleDtype::UE4M3)
            .per_tensor(ScaleDtype::F32);
        let rows: Vec<(QuantScheme, ValueRange, Option<Expect>)> = vec![
            (QuantScheme::default(), range(0, 0.0), None),
            (QuantScheme::default(), range(0, 1e38), None),
            (
                QuantScheme::default(),
                range(3, 1.0),
                Some(Expect::NonFinite(3)),
            ),
            (
                QuantScheme::default(),
                range(0, f32::MAX),
                Some(Expect::Scale(f32::MAX)),
            ),
            (f16, range(0, 8e6), None),
            (f16, range(0, 1e7), Some(Expect::Scale(65504.0))),
            // The per-tensor scale of a two-level scheme absorbs the block dtype's range.
            (two_level, range(0, 1e30), None),
            (two_level, range(0, f32::MAX), Some(Expect::Scale(f32::MAX))),
        ];
        for (scheme, values, expected) in rows {
            let got = quant_values("quantize_dynamic", &scheme, values);
            let ok = match (&expected, &got) {
                (None, Ok(())) => true,
                (
                    Some(Expect::NonFinite(n)),
                    Err(GuardError::NonFinite {
                        op: "quantize_dynamic",
                        count,
                        total: 64,
                        ..
                    }),
                ) => count == n,
                (
                    Some(Expect::Scale(max)),
                    Err(GuardError::OutOfRange {
                        op: "quantize_dynamic",
                        name: "scale",
                        value: ScalarValue::Float(scale),
                        limit: Limit::AtMost(ScalarValue::Float(limit)),
                        ..
                    }),
                ) => *limit == f64::from(*max) && (scale.is_nan() || *scale > *limit),
                _ => false,
            };
            assert!(
                ok,
                "{scheme:?} {values:?}: expected {expected:?}, got {got:?}"
            );
        }
        assert!(quant_nonempty("q", &[2, 3]).is_ok());
        assert!(matches!(
            quant_nonempty("q", &[2, 0, 3]),
            Err(GuardError::Empty { ref shape, dim: None, .. }) if shape == &[2, 0, 3]
        ));
        Ok(())
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
