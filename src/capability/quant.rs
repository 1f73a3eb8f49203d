//! Quantization capabilities: which schemes a backend stack quantizes (and dequantizes, and
//! multiplies) with the right values, declared per layer from burn 0.22.1's sources and kept
//! honest by `tests/capability_truth.rs`.
//!
//! "Supported" means the operation runs *and* gives right values: Flex's E4M3/E5M2 quantization
//! runs without a panic but saturates, so it is a gap ([`Effect::WrongValues`]). Tables exist
//! only for what was measured: CubeCL on wgpu through WGSL, Flex, NdArray, the router.

use burn::tensor::quantization::{QuantMode, QuantScheme, QuantStore, QuantValue, ScaleDtype};

use super::stack::{BackendStack, CubeRuntime, Layer};
use crate::check::SchemeName;
use crate::error::{GuardError, Result, Unsupported};
use crate::gap::{Effect, Gap, Support};

/// Whether `stack` quantizes (dynamically), dequantizes and multiplies with `scheme` on a
/// tensor of `shape` (an empty `shape` asks about the scheme alone). The scheme itself must
/// already pass [`check::quant_scheme`](crate::check::quant_scheme).
///
/// Decorators (`autodiff`, `fusion`, `dispatch`) forward to the layer below; `router` (every
/// remote device) supports nothing, since burn-router's quantized ops are `unimplemented!()`.
/// CubeCL answers from a table only on the runtime that was measured (wgpu through WGSL);
/// any other runtime, and an unknown backend, is [`Effect::Unmeasured`] (an unknown backend
/// can be asked with [`probe_quantize`](super::probe_quantize)).
///
/// ```
/// use burn::tensor::quantization::{QuantScheme, QuantStore};
/// use burn_guard::capability::{BackendStack, Effect, Support, quantize_support};
///
/// let scheme = QuantScheme::default();
/// let flex = BackendStack::parse("flex");
/// assert_eq!(quantize_support(&flex, &scheme, &[4, 8]), Support::Native);
/// let ndarray = BackendStack::parse("ndarray");
/// assert_eq!(quantize_support(&ndarray, &scheme, &[4, 8]).gap().map(|g| g.effect), Some(Effect::Panics));
/// let native = scheme.with_store(QuantStore::Native);
/// assert!(quantize_support(&ndarray, &native, &[4, 8]).is_native());
/// let cuda = BackendStack::parse("fusion<cubecl<cuda>>");
/// assert_eq!(quantize_support(&cuda, &scheme, &[4, 8]).gap().map(|g| g.effect), Some(Effect::Unmeasured));
/// ```
pub fn quantize_support(stack: &BackendStack, scheme: &QuantScheme, shape: &[usize]) -> Support {
    for layer in stack.layers() {
        match layer {
            Layer::Autodiff | Layer::Fusion | Layer::Dispatch => continue,
            Layer::Router | Layer::Remote => {
                return gap(
                    Effect::Unimplemented,
                    "burn-router's quantized ops are not implemented (every remote device)",
                );
            }
            Layer::Flex => return flex(scheme),
            Layer::NdArray => return ndarray(scheme, shape),
            Layer::Cubecl(CubeRuntime::WgpuWgsl) => return wgsl(scheme, shape),
            Layer::Cubecl(runtime) => {
                return Support::gap_of(
                    Effect::Unmeasured,
                    format!(
                        "no measured table for CubeCL on {}; only wgpu<wgsl> was measured",
                        runtime.name()
                    ),
                );
            }
            Layer::Unknown(name) => {
                return Support::gap_of(
                    Effect::Unmeasured,
                    format!(
                        "no declared table for backend {name}; probe it with capability::probe_quantize"
                    ),
                );
            }
        }
    }
    gap(Effect::Unmeasured, "empty backend stack")
}

/// [`quantize_support`] as a requirement: `Ok` when native.
///
/// # Errors
///
/// [`GuardError::Unsupported`] naming `op`, the stack, the scheme and the gap.
///
/// ```
/// use burn::tensor::quantization::QuantScheme;
/// use burn_guard::capability::{BackendStack, Effect, require_quantize};
/// use burn_guard::GuardError;
///
/// let remote = BackendStack::parse("router<remote-RemoteDevice>");
/// let err = require_quantize("quantize_dynamic", &remote, &QuantScheme::default(), &[2, 4]).unwrap_err();
/// assert!(matches!(err, GuardError::Unsupported(ref u) if u.gap.effect == Effect::Unimplemented));
/// ```
pub fn require_quantize(
    op: &'static str,
    stack: &BackendStack,
    scheme: &QuantScheme,
    shape: &[usize],
) -> Result<()> {
    match quantize_support(stack, scheme, shape) {
        Support::Native => Ok(()),
        Support::Gap(gap) => Err(GuardError::Unsupported(Unsupported::new(
            op,
            stack.label(),
            quant_capability(scheme),
            gap,
        ))),
    }
}

/// Whether `stack` holds and reads a quantized tensor packed along an outer dimension
/// (`PackedU32(k)`, `k > 0`: values packed along dimension `rank − 1 − k`, stored with that
/// dimension innermost and presented in the tensor's own layout): dequantizes it, runs it
/// through conv and matmul, and reads it back. How such a tensor is made is another matter:
/// quantized with the packed dimension swapped innermost (`PackedU32(0)`) and swapped back,
/// not by burn's quantize with `PackedU32(k)` (see [`quantize_support`]).
///
/// Measured on CubeCL through WGSL (burn-cubecl 0.22.1 `ops/qtensor.rs` `outer_packed_axis`):
/// exact against Flex's values, pinned by `tests/capability_truth.rs`. Flex and NdArray
/// cannot take such data (`Packing must be on innermost dimension for splitting off values`,
/// burn-std `quantization.rs`); every other stack was not measured.
///
/// ```
/// use burn_guard::capability::{BackendStack, outer_packing_support};
///
/// assert!(outer_packing_support(&BackendStack::parse("dispatch<fusion<cubecl<wgpu<wgsl>>>>")).is_native());
/// assert!(!outer_packing_support(&BackendStack::parse("dispatch<flex>")).is_native());
/// ```
pub fn outer_packing_support(stack: &BackendStack) -> Support {
    for layer in stack.layers() {
        match layer {
            Layer::Autodiff | Layer::Fusion | Layer::Dispatch => continue,
            Layer::Cubecl(CubeRuntime::WgpuWgsl) => return Support::Native,
            Layer::Flex | Layer::NdArray => {
                return gap(
                    Effect::Panics,
                    "only innermost packing can be read (Packing must be on innermost \
                     dimension for splitting off values)",
                );
            }
            _ => break,
        }
    }
    gap(
        Effect::Unmeasured,
        "holding a tensor packed along an outer dimension was measured on wgpu only",
    )
}

/// The capability a quantization refusal names: `quantization <scheme>`.
pub(crate) fn quant_capability(scheme: &QuantScheme) -> String {
    format!("quantization {}", SchemeName(scheme))
}

fn gap(effect: Effect, reason: &'static str) -> Support {
    Support::Gap(Gap::new(effect, reason))
}

/// burn-flex 0.22.1 quantizes natively in f32 → i8 whatever the requested store.
fn flex(scheme: &QuantScheme) -> Support {
    if scheme.mode == QuantMode::Lookup {
        return gap(
            Effect::WrongValues,
            "Flex ignores lookup mode and quantizes symmetrically",
        );
    }
    match scheme.value {
        QuantValue::E4M3 | QuantValue::E5M2 => gap(
            Effect::WrongValues,
            "Flex casts minifloat codes to i8, saturating at ±127",
        ),
        _ => Support::Native,
    }
}

/// burn-ndarray 0.22.1 accepts only symmetric `Native` Q8F/Q8S (and Q2S per tensor), and
/// per block only up to rank 3 (its block reshape doubles the rank; arrays stop at 6 dims).
fn ndarray(scheme: &QuantScheme, shape: &[usize]) -> Support {
    if scheme.mode == QuantMode::Lookup {
        return gap(
            Effect::Unimplemented,
            "NdArray has no lookup-mode quantization",
        );
    }
    if scheme.store != QuantStore::Native {
        return gap(
            Effect::Panics,
            "NdArray quantizes only QuantStore::Native (Quantization not supported for scheme)",
        );
    }
    if scheme.block_size().is_some() && shape.len() > 3 {
        return gap(
            Effect::Panics,
            "NdArray quantizes per block only up to rank 3 (NdArray supports arrays up to 6 dimensions)",
        );
    }
    match (scheme.value, scheme.block_size().is_some()) {
        (QuantValue::Q8F | QuantValue::Q8S, _) | (QuantValue::Q2S, false) => Support::Native,
        _ => gap(
            Effect::Panics,
            "NdArray quantizes only Q8F/Q8S (and Q2S per tensor) (Quantization not supported for scheme)",
        ),
    }
}

/// CubeCL on wgpu through WGSL (the runtime measured) quantizes `PackedU32(0)` with F32 scales.
fn wgsl(scheme: &QuantScheme, shape: &[usize]) -> Support {
    if scheme.mode == QuantMode::Lookup {
        return gap(Effect::Panics, "CubeCL kernels reject lookup-mode schemes");
    }
    match scheme.store {
        QuantStore::Native => {
            return gap(
                Effect::Panics,
                "CubeCL's WGSL compiler has no i8 storage for native quantization",
            );
        }
        QuantStore::PackedNative(_) => {
            return gap(Effect::Panics, "CubeCL cannot pack these values natively");
        }
        QuantStore::PackedU32(0) => {}
        QuantStore::PackedU32(_) => {
            return gap(
                Effect::WrongValues,
                "CubeCL's quantize kernel packs along an outer dimension wrongly (measured: \
                 0.55 off on a [64, 3, 7, 7] weight of σ 0.1); quantize with that dimension \
                 swapped innermost and swap back, as WeightQuantizer does",
            );
        }
    }
    let scale_dtypes_f32 = scheme.scale_dtype() == ScaleDtype::F32
        && scheme
            .block_scale()
            .is_none_or(|block| block.dtype == ScaleDtype::F32);
    if !scale_dtypes_f32 {
        return gap(
            Effect::Unmeasured,
            "only F32 scales were measured for CubeCL through WGSL",
        );
    }
    let num_quants = scheme.num_quants();
    // An empty shape means "any shape": the dtype question, asked without a tensor.
    if shape
        .last()
        .is_some_and(|last| !last.is_multiple_of(num_quants))
    {
        return Support::gap_of(
            Effect::Panics,
            format!(
                "the last dimension must be a multiple of {num_quants} to pack into u32 (Can't store in u32)"
            ),
        );
    }
    if let Some(block) = scheme.block_size() {
        let last = block.as_slice().last().copied().map_or(1, usize::from);
        if !last.is_multiple_of(num_quants) {
            return Support::gap_of(
                Effect::Panics,
                format!(
                    "the block's last extent must be a multiple of {num_quants} (Block size must be divisible by {num_quants})"
                ),
            );
        }
    }
    Support::Native
}
