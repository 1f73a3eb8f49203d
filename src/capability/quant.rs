//! Quantization capabilities: which schemes a backend stack quantizes (and dequantizes, and
//! multiplies) with the right values, declared per layer from burn 0.22.1's sources and kept
//! honest by `tests/capability_truth.rs`.
//!
//! "Supported" means the operation runs *and* gives right values: Flex's E4M3/E5M2 quantization
//! runs without a panic but saturates, so it is declared unsupported.

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use burn::tensor::quantization::{QuantMode, QuantScheme, QuantStore, QuantValue, ScaleDtype};

use super::stack::{BackendStack, Layer};
use crate::check::SchemeName;
use crate::error::{GuardError, Result, Unsupported};

/// A capability answer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Support {
    /// The stack runs the operation itself, with right values.
    Native,
    /// The stack cannot: it would panic or compute wrong values. The reason says which.
    Unsupported(String),
}

impl Support {
    /// Whether the answer is [`Support::Native`].
    pub fn is_native(&self) -> bool {
        matches!(self, Support::Native)
    }
}

/// Whether `stack` quantizes (dynamically), dequantizes and multiplies with `scheme` on a
/// tensor of `shape` (an empty `shape` asks about the scheme alone). The scheme itself must
/// already pass
/// [`check::quant_scheme`](crate::check::quant_scheme).
///
/// Decorators (`autodiff`, `fusion`, `dispatch`) forward to the layer below; `router` (every
/// remote device) supports nothing, since burn-router's quantized ops are `unimplemented!()`.
/// An unknown backend is answered by [`probe_quantize`] instead.
///
/// ```
/// use burn::tensor::quantization::{QuantScheme, QuantStore};
/// use burn_guard::capability::{BackendStack, Support, quantize_support};
///
/// let scheme = QuantScheme::default();
/// let flex = BackendStack::parse("flex");
/// assert_eq!(quantize_support(&flex, &scheme, &[4, 8]), Support::Native);
/// let ndarray = BackendStack::parse("ndarray");
/// assert!(!quantize_support(&ndarray, &scheme, &[4, 8]).is_native());
/// let native = scheme.with_store(QuantStore::Native);
/// assert!(quantize_support(&ndarray, &native, &[4, 8]).is_native());
/// ```
pub fn quantize_support(stack: &BackendStack, scheme: &QuantScheme, shape: &[usize]) -> Support {
    for layer in stack.layers() {
        match layer {
            Layer::Autodiff | Layer::Fusion | Layer::Dispatch => continue,
            Layer::Router | Layer::Remote => {
                return unsupported(
                    "burn-router's quantized ops are unimplemented (every remote device)",
                );
            }
            Layer::Flex => return flex(scheme),
            Layer::NdArray => return ndarray(scheme, shape),
            Layer::Cubecl(runtime) => return cubecl(runtime, scheme, shape),
            Layer::Unknown(name) => {
                return unsupported(&format!(
                    "no declared table for backend {name}; probe it with capability::probe_quantize"
                ));
            }
        }
    }
    unsupported("empty backend stack")
}

/// [`quantize_support`] as a requirement: `Ok` when native.
///
/// # Errors
///
/// [`GuardError::Unsupported`] naming `op`, the stack, the scheme and the reason.
///
/// ```
/// use burn::tensor::quantization::QuantScheme;
/// use burn_guard::capability::{BackendStack, require_quantize};
///
/// let remote = BackendStack::parse("router<remote-RemoteDevice>");
/// let err = require_quantize("quantize_dynamic", &remote, &QuantScheme::default(), &[2, 4]).unwrap_err();
/// assert!(err.to_string().starts_with("quantize_dynamic: quantization q8f-packedu32-tensor is not supported"));
/// ```
pub fn require_quantize(
    op: &'static str,
    stack: &BackendStack,
    scheme: &QuantScheme,
    shape: &[usize],
) -> Result<()> {
    match quantize_support(stack, scheme, shape) {
        Support::Native => Ok(()),
        Support::Unsupported(reason) => Err(GuardError::Unsupported(Unsupported {
            op,
            backend: stack.name().to_owned(),
            capability: format!("quantization {}", SchemeName(scheme)),
            reason,
        })),
    }
}

fn unsupported(reason: &str) -> Support {
    Support::Unsupported(reason.to_owned())
}

/// burn-flex 0.22.1 quantizes natively in f32 → i8 whatever the requested store.
fn flex(scheme: &QuantScheme) -> Support {
    if scheme.mode == QuantMode::Lookup {
        return unsupported("Flex ignores lookup mode and quantizes symmetrically (wrong values)");
    }
    match scheme.value {
        QuantValue::E4M3 | QuantValue::E5M2 => unsupported(
            "Flex casts minifloat codes to i8, saturating at ±127 (silently wrong values)",
        ),
        _ => Support::Native,
    }
}

/// burn-ndarray 0.22.1 accepts only symmetric `Native` Q8F/Q8S (and Q2S per tensor), and
/// per block only up to rank 3 (its block reshape doubles the rank; arrays stop at 6 dims).
fn ndarray(scheme: &QuantScheme, shape: &[usize]) -> Support {
    if scheme.mode == QuantMode::Lookup {
        return unsupported("NdArray has no lookup-mode quantization (unimplemented)");
    }
    if scheme.store != QuantStore::Native {
        return unsupported(
            "NdArray quantizes only QuantStore::Native (panics: Quantization not supported for scheme)",
        );
    }
    if scheme.block_size().is_some() && shape.len() > 3 {
        return unsupported(
            "NdArray quantizes per block only up to rank 3 (panics: NdArray supports arrays up to 6 dimensions)",
        );
    }
    match (scheme.value, scheme.block_size().is_some()) {
        (QuantValue::Q8F | QuantValue::Q8S, _) | (QuantValue::Q2S, false) => Support::Native,
        _ => unsupported(
            "NdArray quantizes only Q8F/Q8S (and Q2S per tensor) (panics: Quantization not supported for scheme)",
        ),
    }
}

/// CubeCL (wgpu through WGSL in this build) quantizes `PackedU32(0)` with F32 scales.
fn cubecl(runtime: &str, scheme: &QuantScheme, shape: &[usize]) -> Support {
    if scheme.mode == QuantMode::Lookup {
        return unsupported("CubeCL kernels reject lookup-mode schemes (panics)");
    }
    match scheme.store {
        QuantStore::Native => {
            return unsupported(
                "CubeCL's WGSL compiler has no i8 storage for native quantization (panics)",
            );
        }
        QuantStore::PackedNative(_) => {
            return unsupported("CubeCL cannot pack these values natively (panics)");
        }
        QuantStore::PackedU32(0) => {}
        QuantStore::PackedU32(_) => {
            return unsupported("packing on an outer dimension is not declared for CubeCL");
        }
    }
    let scale_dtypes_f32 = scheme.scale_dtype() == ScaleDtype::F32
        && scheme
            .block_scale()
            .is_none_or(|block| block.dtype == ScaleDtype::F32);
    if !scale_dtypes_f32 {
        return unsupported("only F32 scales are declared for CubeCL through WGSL");
    }
    let num_quants = scheme.num_quants();
    // An empty shape means "any shape": the dtype question, asked without a tensor.
    if shape
        .last()
        .is_some_and(|last| !last.is_multiple_of(num_quants))
    {
        return Support::Unsupported(format!(
            "the last dimension must be a multiple of {num_quants} to pack into u32 (panics: Can't store in u32)"
        ));
    }
    if let Some(block) = scheme.block_size() {
        let last = block.as_slice().last().copied().map_or(1, usize::from);
        if !last.is_multiple_of(num_quants) {
            return Support::Unsupported(format!(
                "the block's last extent must be a multiple of {num_quants} (panics: Block size must be divisible by {num_quants})"
            ));
        }
    }
    let _ = runtime;
    Support::Native
}

type ProbeKey = (String, QuantScheme, Vec<usize>);

fn probe_cache() -> &'static RwLock<HashMap<ProbeKey, Support>> {
    static CACHE: OnceLock<RwLock<HashMap<ProbeKey, Support>>> = OnceLock::new();
    CACHE.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Asks backend `B` itself, once per (stack, scheme, shape), by quantizing and dequantizing a
/// tiny tensor of `shape` under the panic backstop and checking the values within the
/// scheme's step. Cached for the life of the process.
///
/// For backends without a declared table; the declared tables answer without running
/// anything. A probe really runs the operation: on a backend that executes on worker threads
/// (burn's Fusion, so Wgpu) a panic there is not contained by the backstop and leaves the
/// device's stream unusable for the rest of the process (measured on burn 0.22.1). That is why
/// the known backends are answered from tables and never probed.
///
/// ```
/// use burn::tensor::quantization::QuantScheme;
/// use burn_guard::capability::{Support, probe_quantize};
///
/// type B = burn_flex::Flex;
/// let answer = probe_quantize::<B>(&Default::default(), &QuantScheme::default(), &[2, 8]);
/// assert_eq!(answer, Support::Native);
/// ```
pub fn probe_quantize<B: burn_backend::Backend>(
    device: &B::Device,
    scheme: &QuantScheme,
    shape: &[usize],
) -> Support {
    let key = (B::name(device), *scheme, shape.to_vec());
    if let Ok(cache) = probe_cache().read()
        && let Some(answer) = cache.get(&key)
    {
        return answer.clone();
    }
    let answer = super::probe::quantize_roundtrip::<B>(device, scheme, shape);
    if let Ok(mut cache) = probe_cache().write() {
        cache.insert(key, answer.clone());
    }
    answer
}
