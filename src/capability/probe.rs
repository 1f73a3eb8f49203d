//! Probing a backend by running an operation on a tiny tensor under the panic backstop, for
//! backends without a declared table. Answers are cached for the life of the process.

use std::collections::HashMap;
use std::sync::{OnceLock, PoisonError, RwLock};

use burn::tensor::FloatDType;
use burn::tensor::quantization::{QuantScheme, QuantValue};
use burn_backend::{Backend, TensorData, try_read_sync};

use crate::gap::{Effect, Support};
use crate::panic::catch;

/// The most elements a probe allocates: a probe asks a question, it does not run the workload.
pub const PROBE_MAX_ELEMENTS: usize = 1 << 16;

/// Deterministic probe values, `2·sin(0.37 i)`: both signs, no zeros, max |x| near 2.
pub(crate) fn probe_values(len: usize) -> Vec<f32> {
    (0..len)
        .map(|i| 2.0 * (0.37 * i as f32).sin() + 0.001)
        .collect()
}

/// The largest dequantization error a correct scheme allows on values of magnitude `max_abs`:
/// a little over two steps of the value grid, and a little over one step of a minifloat's
/// relative grid (as the capability-gap measurements use).
pub(crate) fn tolerance(scheme: &QuantScheme, max_abs: f32) -> f32 {
    let step = match scheme.value {
        QuantValue::E4M3 => 1.0 / 16.0,
        QuantValue::E5M2 => 1.0 / 8.0,
        QuantValue::E2M1 => 1.0 / 6.0,
        value => {
            let (a, b) = value.range();
            2.0 / (b - a)
        }
    };
    2.1 * max_abs * step
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// A shape of the caller's rank that keeps what a kernel's verdict can depend on — each
/// dimension's residue modulo its block extent and modulo 32 (the widest u32 packing) — with
/// each dimension at most twice that period, so a probe never allocates the caller's tensor.
/// `None` when even that shape exceeds [`PROBE_MAX_ELEMENTS`] (or overflows).
///
/// ```
/// use burn::tensor::quantization::{QuantScheme, ScaleDtype};
/// use burn_guard::capability::probe_shape;
///
/// let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
/// assert_eq!(probe_shape(&scheme, &[4096, 4096]), Some(vec![32, 32]));
/// assert_eq!(probe_shape(&scheme, &[3, 40]), Some(vec![3, 40]));
/// assert_eq!(probe_shape(&scheme, &[usize::MAX, 2]), Some(vec![63, 2]));
/// ```
pub fn probe_shape(scheme: &QuantScheme, shape: &[usize]) -> Option<Vec<usize>> {
    let rank = shape.len();
    let blocks: Vec<usize> = scheme
        .block_size()
        .map(|block| block.as_slice().iter().map(|&b| usize::from(b)).collect())
        .unwrap_or_default();
    let mut out = Vec::with_capacity(rank);
    let mut elements: usize = 1;
    for (i, &dim) in shape.iter().enumerate() {
        // Block extents apply to the trailing dimensions.
        let block = (i + blocks.len())
            .checked_sub(rank)
            .and_then(|j| blocks.get(j))
            .copied()
            .unwrap_or(1)
            .max(1);
        let period = (block / gcd(block, 32)).checked_mul(32)?;
        let probe = if dim <= period {
            dim
        } else {
            period.checked_add(dim % period)?
        };
        elements = elements.checked_mul(probe)?;
        out.push(probe);
    }
    (elements <= PROBE_MAX_ELEMENTS).then_some(out)
}

type ProbeKey = (String, QuantScheme, Vec<usize>);

fn probe_cache() -> &'static RwLock<HashMap<ProbeKey, Support>> {
    static CACHE: OnceLock<RwLock<HashMap<ProbeKey, Support>>> = OnceLock::new();
    CACHE.get_or_init(|| RwLock::new(HashMap::new()))
}

/// The cached answer of [`probe_quantize`] for these arguments, without running a probe:
/// `None` until a probe for them has run.
///
/// ```
/// use burn::tensor::quantization::QuantScheme;
/// use burn_guard::capability::{cached_probe, probe_quantize};
///
/// type B = burn_flex::Flex;
/// let (device, scheme) = (Default::default(), QuantScheme::default());
/// assert_eq!(cached_probe::<B>(&device, &scheme, &[3, 40]), None);
/// let answer = probe_quantize::<B>(&device, &scheme, &[3, 40]);
/// assert_eq!(cached_probe::<B>(&device, &scheme, &[3, 40]), Some(answer));
/// ```
pub fn cached_probe<B: Backend>(
    device: &B::Device,
    scheme: &QuantScheme,
    shape: &[usize],
) -> Option<Support> {
    let key = (B::name(device), *scheme, probe_shape(scheme, shape)?);
    probe_cache()
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
        .cloned()
}

/// Asks backend `B` itself, once per (backend, scheme, probe shape), by quantizing and
/// dequantizing a small tensor under the panic backstop and checking the values within the
/// scheme's step. The tensor has the shape [`probe_shape`] derives from `shape`, never the
/// caller's own; cached for the life of the process.
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
pub fn probe_quantize<B: Backend>(
    device: &B::Device,
    scheme: &QuantScheme,
    shape: &[usize],
) -> Support {
    let Some(small) = probe_shape(scheme, shape) else {
        return Support::gap_of(
            Effect::Unmeasured,
            format!(
                "a probe of this shape's rank and blocks would exceed {PROBE_MAX_ELEMENTS} elements"
            ),
        );
    };
    let key = (B::name(device), *scheme, small);
    if let Some(answer) = probe_cache()
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
    {
        return answer.clone();
    }
    let answer = quantize_roundtrip::<B>(device, scheme, &key.2);
    probe_cache()
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(key, answer.clone());
    answer
}

/// Quantizes and dequantizes `probe_values` of `shape` on `B`; native when it runs and every
/// value comes back within [`tolerance`].
fn quantize_roundtrip<B: Backend>(
    device: &B::Device,
    scheme: &QuantScheme,
    shape: &[usize],
) -> Support {
    let outcome = catch("probe quantize_dynamic", || {
        let len = shape.iter().product::<usize>();
        let values = probe_values(len);
        let input = TensorData::new(values.clone(), shape.to_vec());
        let tensor = B::float_from_data(input, device);
        let quantized = B::quantize_dynamic(tensor, scheme);
        let restored = B::dequantize(quantized, FloatDType::F32);
        (values, try_read_sync(B::float_into_data(restored)))
    });
    let (values, data) = match outcome {
        Ok((values, Some(Ok(data)))) => (values, data),
        Ok((_, Some(Err(err)))) => {
            return Support::gap_of(Effect::Panics, format!("execution error: {err}"));
        }
        Ok((_, None)) => {
            return Support::gap_of(Effect::Unmeasured, "cannot read back synchronously");
        }
        Err(panic) => return Support::gap_of(Effect::Panics, panic.to_string()),
    };
    let restored = match data.convert::<f32>().try_to_vec::<f32>() {
        Ok(values) => values,
        Err(err) => {
            return Support::gap_of(Effect::WrongValues, format!("unreadable result: {err:?}"));
        }
    };
    let max_abs = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let limit = tolerance(scheme, max_abs);
    let worst = values
        .iter()
        .zip(&restored)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    if restored.len() != values.len() || worst.is_nan() || worst > limit {
        Support::gap_of(
            Effect::WrongValues,
            format!("max dequantization error {worst} > {limit}"),
        )
    } else {
        Support::Native
    }
}
