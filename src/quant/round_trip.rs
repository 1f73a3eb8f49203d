//! A quantization's round-trip error, `‖dequantize(q) − w‖ / ‖w‖`, measured where the tensor
//! was quantized: the one computation behind the model quantizer's error gate
//! ([`WeightQuantizer::max_relative_error`](super::WeightQuantizer::max_relative_error)) and the
//! tensor twins' ([`TryQuantize::try_quantize_dynamic_measured`]).
//!
//! Why measure at all: a quantization can go far off without a word (burn has quantized a
//! non-contiguous tensor on wgpu with about 500× the error of its contiguous copy). The figure
//! is measured from what the backend actually stored, not from a model of what it should have
//! stored.
//!
//! Three ways to the same figure (within a few f32 ulps: `tests/quantize_weights.rs`,
//! `the_measured_error_is_the_dequantized_values_error`), cheapest first:
//!
//! - **On Flex, in place** ([`flex_sums`]): Flex holds a quantized tensor as one `i8` per value
//!   with its scales beside it, and dequantizes as `scale · q`; both sums are taken from that
//!   storage and the float values' own, with no op, no copy and no read. An op costs its
//!   dispatch on the host, a copy an allocation, and a model's parameters are small: this is
//!   what brings the error gate's cost near the work of one pass over the values.
//! - **On another host backend** (NdArray; Flex for a non-contiguous tensor or a two-level
//!   scheme: [`Quirks::runs_on_host`]): the backend dequantizes, and the dequantized values and
//!   the float ones are read at once and summed on the host, one tensor at a time (holding a
//!   model's values for one read would hold the model twice over).
//! - **On a device** (wgpu, every other backend): the backend dequantizes and reduces both sums
//!   in f32; a transaction reads two numbers per tensor, one read for every tensor of a device.
//!
//! [`TryQuantize::try_quantize_dynamic_measured`]: crate::tensor::TryQuantize::try_quantize_dynamic_measured
//! [`Quirks::runs_on_host`]: crate::check::quirks::Quirks::runs_on_host

use std::any::Any;

use burn::tensor::{DType, FloatDType, Tensor};
use burn_backend::ops::TransactionPrimitive;
use burn_backend::tensor::{FloatTensor, QuantizedTensor};
use burn_backend::{Backend, TensorData, TensorMetadata, TensorPrimitive, try_read_sync};

use crate::capability::{BackendStack, quirks_of_stack};
use crate::error::{GuardError, Limit, Result, ScalarValue};
use crate::panic::catch;

/// How far a tensor twin's quantization may be off, beyond its scheme: the options of the
/// measured twins ([`TryQuantize::try_quantize_dynamic_measured`],
/// [`TryQuantize::quantize_dynamic_measured_with`], [`TryQuantize::try_quantize_measured`]).
///
/// By default the round trip is measured and returned, and nothing is refused for it;
/// [`max_relative_error`](Self::max_relative_error) refuses a quantization off by more.
///
/// [`TryQuantize::try_quantize_dynamic_measured`]: crate::tensor::TryQuantize::try_quantize_dynamic_measured
/// [`TryQuantize::quantize_dynamic_measured_with`]: crate::tensor::TryQuantize::quantize_dynamic_measured_with
/// [`TryQuantize::try_quantize_measured`]: crate::tensor::TryQuantize::try_quantize_measured
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct QuantizeOptions {
    max_relative_error: Option<f64>,
}

impl QuantizeOptions {
    /// Measure, refuse nothing for the error.
    pub fn new() -> Self {
        Self::default()
    }

    /// Refuse a quantization whose round trip, `‖dequantize(q) − w‖ / ‖w‖`, is over `bound`
    /// or not finite ([`GuardError::OutOfRange`], naming the op and the error). Q8 per tensor
    /// is typically off by under 1e-2; Q4 by under 1e-1.
    #[must_use]
    pub fn max_relative_error(mut self, bound: f64) -> Self {
        self.max_relative_error = Some(bound);
        self
    }

    /// The bound, when one was set.
    pub fn bound(&self) -> Option<f64> {
        self.max_relative_error
    }

    /// `Ok` when `error` is within the bound (or there is none).
    pub(crate) fn check(&self, op: &'static str, error: f64) -> Result<()> {
        match self.max_relative_error {
            Some(bound) if over(error, bound) => Err(over_bound(
                op,
                "a quantization's round-trip error must not exceed the bound",
                error,
                bound,
            )),
            _ => Ok(()),
        }
    }
}

/// A tensor quantized by a measured twin, with its round trip's relative error
/// `‖dequantize(q) − w‖ / ‖w‖` (0 for zeros quantized exactly, infinite for zeros that were
/// not).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct MeasuredQuantization<const D: usize> {
    /// The quantized tensor, where the twin placed it.
    pub tensor: Tensor<D>,
    /// Its round trip's relative error, measured on its device.
    pub relative_error: f64,
}

impl<const D: usize> MeasuredQuantization<D> {
    pub(crate) fn new(tensor: Tensor<D>, relative_error: f64) -> Self {
        Self {
            tensor,
            relative_error,
        }
    }
}

/// Whether `error` is over `bound`: a figure that is not finite always is.
pub(crate) fn over(error: f64, bound: f64) -> bool {
    !error.is_finite() || error > bound
}

/// The refusal of a round trip over `bound`.
pub(crate) fn over_bound(
    op: &'static str,
    rule: &'static str,
    error: f64,
    bound: f64,
) -> GuardError {
    GuardError::OutOfRange {
        op,
        rule,
        name: "relative_error",
        value: ScalarValue::Float(error),
        limit: Limit::AtMost(ScalarValue::Float(bound)),
    }
}

/// `√(diff / norm)`: 0 for zeros quantized exactly, infinite for zeros that were not (or sums
/// that are not numbers).
pub(crate) fn relative_error(diff: f64, norm: f64) -> f64 {
    if norm > 0.0 {
        (diff / norm).sqrt()
    } else if diff == 0.0 {
        0.0
    } else {
        f64::INFINITY
    }
}

/// A round trip dispatched and not read yet.
pub(crate) enum RoundTrip<B: Backend> {
    /// On the host: the float values and the dequantized ones, both F32, read as they are.
    Values {
        original: FloatTensor<B>,
        back: FloatTensor<B>,
    },
    /// On a device: `‖dequantize(q) − w‖²` and `‖w‖²`, reduced there in F32.
    Sums {
        diff: FloatTensor<B>,
        norm: FloatTensor<B>,
    },
}

impl<B: Backend> RoundTrip<B> {
    /// Dispatches the round trip of `original` quantized as `quantized` (the same shape, in
    /// the same layout): the dequantization, and on a device the two reductions. Panics as
    /// burn's ops do: the caller runs it under the backstop.
    pub(crate) fn start(
        original: FloatTensor<B>,
        quantized: QuantizedTensor<B>,
        on_host: bool,
    ) -> Self {
        let original = match original.dtype() {
            DType::F32 => original,
            _ => B::float_cast(original, FloatDType::F32),
        };
        let back = B::dequantize(quantized, FloatDType::F32);
        if on_host {
            return Self::Values { original, back };
        }
        let diff = B::float_sub(back, original.clone());
        Self::Sums {
            diff: B::float_sum(B::float_mul(diff.clone(), diff)),
            norm: B::float_sum(B::float_mul(original.clone(), original)),
        }
    }

    fn register(self, transaction: &mut TransactionPrimitive<B>) {
        let (first, second) = match self {
            Self::Values { original, back } => (original, back),
            Self::Sums { diff, norm } => (diff, norm),
        };
        transaction.register_float(TensorPrimitive::Float(first));
        transaction.register_float(TensorPrimitive::Float(second));
    }
}

/// Whether round trips on `device` (of backend `B`) are read as values and summed on the host.
pub(crate) fn on_host<B: Backend>(device: &B::Device) -> bool {
    quirks_of_stack(BackendStack::cached::<B>(device)).runs_on_host
}

/// Reads every round trip of one device in one transaction; their relative errors, in order.
/// `device` is the `burn::Tensor`-level device when there is one, whose health the read
/// records ([`read_sync`](crate::value_reads::read_sync)).
///
/// # Errors
///
/// As [`read_sync`](crate::value_reads::read_sync); [`GuardError::DeviceUnavailable`] when the
/// read returned fewer values than it was asked for.
pub(crate) fn read_round_trips<B: Backend>(
    op: &'static str,
    device: Option<&burn::tensor::Device>,
    trips: Vec<RoundTrip<B>>,
) -> Result<Vec<f64>> {
    let host: Vec<bool> = trips
        .iter()
        .map(|trip| matches!(trip, RoundTrip::Values { .. }))
        .collect();
    let reads = crate::value_reads::read_sync(op, device, || {
        let mut transaction = TransactionPrimitive::<B>::default();
        for trip in trips {
            trip.register(&mut transaction);
        }
        try_read_sync(transaction.execute_async())
    })?;
    let unreadable = || GuardError::DeviceUnavailable {
        op,
        device: device.map_or_else(|| "unnamed".to_owned(), crate::capability::naming::brief),
        reason: "the quantization's round trip could not be read back".into(),
    };
    let mut reads = reads.into_iter();
    let mut errors = Vec::with_capacity(host.len());
    for on_host in host {
        let (Some(first), Some(second)) = (reads.next(), reads.next()) else {
            return Err(unreadable());
        };
        let (diff, norm) = if on_host {
            catch(op, || host_sums(&first, &second))?
        } else {
            (first_f64(&first), first_f64(&second))
        };
        errors.push(relative_error(diff, norm));
    }
    Ok(errors)
}

/// `(‖back − original‖², ‖original‖²)` over two reads of one shape, in f64; NaN for reads
/// whose lengths differ (a round trip that did not keep the shape is not within any bound).
fn host_sums(original: &TensorData, back: &TensorData) -> (f64, f64) {
    if original.num_elements() != back.num_elements() {
        return (f64::NAN, f64::NAN);
    }
    match (original.as_slice::<f32>(), back.as_slice::<f32>()) {
        (Ok(original), Ok(back)) => f32_sums(original, back),
        _ => original
            .iter::<f64>()
            .zip(back.iter::<f64>())
            .fold((0.0, 0.0), |(diff, norm), (w, d)| {
                (diff + (d - w) * (d - w), norm + w * w)
            }),
    }
}

/// [`host_sums`] over f32 values: each sum in sixteen f32 lanes, over blocks of [`BLOCK`]
/// values whose partial sums join f64 totals (within a few ulps of the f64 sum, as the device's
/// f32 reduction is). The two sums are two passes: fused, the compiler packs a difference and a
/// value into one vector instead of sixteen lanes of each, and the loop runs four times slower.
fn f32_sums(original: &[f32], back: &[f32]) -> (f64, f64) {
    let (mut diff, mut norm) = (0.0, 0.0);
    for (original, back) in original.chunks(BLOCK).zip(back.chunks(BLOCK)) {
        diff += lane_sum(original, back, |w, d| (d - w) * (d - w));
        norm += lane_sum(original, original, |w, _| w * w);
    }
    (diff, norm)
}

/// The values summed in f32 lanes before their sum joins the f64 total: 256 a lane.
const BLOCK: usize = 4096;

/// `Σ term(a, b)` over a block, in sixteen f32 lanes, the tail in f64.
#[inline(always)]
fn lane_sum<T: Copy>(a: &[f32], b: &[T], term: impl Fn(f32, T) -> f32) -> f64 {
    const LANES: usize = 16;
    let (a_chunks, a_rest) = a.as_chunks::<LANES>();
    let (b_chunks, b_rest) = b.as_chunks::<LANES>();
    let mut lanes = [0.0f32; LANES];
    for (a, b) in a_chunks.iter().zip(b_chunks) {
        for (lane, (&a, &b)) in lanes.iter_mut().zip(a.iter().zip(b)) {
            *lane += term(a, b);
        }
    }
    let rest: f64 = a_rest
        .iter()
        .zip(b_rest)
        .map(|(&a, &b)| f64::from(term(a, b)))
        .sum();
    lanes.iter().copied().map(f64::from).sum::<f64>() + rest
}

/// The two sums of a tensor Flex quantized, from the float values and the stored values where
/// Flex holds them: no op, no copy, no read. Flex stores every scheme as one `i8` per value with
/// its scales beside them, and dequantizes value by value as `scale · q` (per block, the block's
/// scale): that product, in f32, is what is compared. `None` where this does not apply (another
/// backend, a non-contiguous tensor, an autodiff one, a dtype other than F32, a two-level
/// scheme, whose per-tensor scale Flex keeps to itself): the round trip then runs its ops.
#[cfg(feature = "flex")]
pub(crate) fn flex_sums(
    original: &burn::tensor::DispatchTensor,
    quantized: &burn::tensor::DispatchTensor,
) -> Option<(f64, f64)> {
    use burn::tensor::quantization::global_scale_dtype;
    use burn_backend::quantization::BlockLayout;
    use burn_dispatch::{BackendTensor, DispatchTensorKind};

    let (
        DispatchTensorKind::Flex(BackendTensor::Float(original)),
        DispatchTensorKind::Flex(BackendTensor::Quantized(quantized)),
    ) = (&original.kind, &quantized.kind)
    else {
        return None;
    };
    let DType::QFloat(scheme) = quantized.dtype() else {
        return None;
    };
    if global_scale_dtype(&scheme).is_some() {
        return None;
    }
    let original = original.as_slice::<f32>()?;
    let values = quantized.tensor().as_slice::<i8>()?;
    let scales = quantized.scales();
    if original.len() != values.len() {
        return None;
    }
    let shape = quantized.tensor().shape();
    match scheme.block_size() {
        None => {
            let scale = *scales.first()?;
            Some(scaled_sums(original, values, scale))
        }
        Some(block) => {
            let extents = block.to_dim_vec(shape.num_dims());
            let (last, outer) = extents.split_last()?;
            let run = usize::from(*last);
            if run > 0 && outer.iter().all(|&extent| extent == 1) {
                // Blocks along the last dimension only: runs of `run` values, one scale each,
                // in order.
                let runs = original.chunks(run).zip(values.chunks(run));
                if scales.len() != original.len().div_ceil(run) {
                    return None;
                }
                Some(
                    runs.zip(scales)
                        .map(|((original, values), &scale)| scaled_sums(original, values, scale))
                        .fold((0.0, 0.0), |(d, n), (bd, bn)| (d + bd, n + bn)),
                )
            } else {
                let blocks = BlockLayout::new(&shape, &block);
                let (mut diff, mut norm) = (0.0f64, 0.0f64);
                for (index, (&w, &q)) in original.iter().zip(values).enumerate() {
                    let scale = *scales.get(blocks.block_of(index))?;
                    let e = f64::from(scale * f32::from(q) - w);
                    diff += e * e;
                    norm += f64::from(w) * f64::from(w);
                }
                Some((diff, norm))
            }
        }
    }
}

/// Without Flex in the build, nothing is quantized on it.
#[cfg(not(feature = "flex"))]
pub(crate) fn flex_sums(
    _original: &burn::tensor::DispatchTensor,
    _quantized: &burn::tensor::DispatchTensor,
) -> Option<(f64, f64)> {
    None
}

/// `(Σ (scale · q − w)², Σ w²)`, with Flex's dequantization's own product: both sums per block
/// of [`BLOCK`] values, the second while the block is still in the cache. Two lane sums, not
/// one loop with both: with a pair of sums per lane the compiler does not vectorize the loop
/// (measured: 3.3× the instructions of the two).
///
/// On x86-64 with AVX2 and FMA (found at run time) the loops are compiled for them through
/// pulp's dispatch, which is safe code: Rust's baseline target is SSE2, whose conversion of
/// `i8` to `f32` takes several instructions a value.
#[cfg(feature = "flex")]
fn scaled_sums(original: &[f32], values: &[i8], scale: f32) -> (f64, f64) {
    #[cfg(target_arch = "x86_64")]
    if let Some(simd) = pulp::x86::V3::try_new() {
        return simd.vectorize(
            #[inline(always)]
            || scaled_sums_portable(original, values, scale),
        );
    }
    scaled_sums_portable(original, values, scale)
}

/// [`scaled_sums`] for whatever the compiler targets; inlined into the dispatched copy.
#[cfg(feature = "flex")]
#[inline(always)]
fn scaled_sums_portable(original: &[f32], values: &[i8], scale: f32) -> (f64, f64) {
    let (mut diff, mut norm) = (0.0, 0.0);
    for (original, values) in original.chunks(BLOCK).zip(values.chunks(BLOCK)) {
        diff += lane_sum(original, values, |w, q| {
            let e = scale * f32::from(q) - w;
            e * e
        });
        norm += lane_sum(original, original, |w, _| w * w);
    }
    (diff, norm)
}

/// The first value of a read as `f64`: NaN when there is none.
fn first_f64(data: &TensorData) -> f64 {
    data.iter::<f64>().next().unwrap_or(f64::NAN)
}

/// Measures one tensor's round trip on its device (one read) and holds it to `options`' bound:
/// what the tensor twins and the backend-level routed quantization run after quantizing.
///
/// # Errors
///
/// As [`read_round_trips`]; [`GuardError::OutOfRange`] over the bound; the backstop's error if
/// the dequantization or a reduction panics.
pub(crate) fn measure_one<B: Backend>(
    op: &'static str,
    original: FloatTensor<B>,
    quantized: QuantizedTensor<B>,
    options: &QuantizeOptions,
) -> Result<f64> {
    let device = original.device();
    let dispatch = crate::value_reads::dispatch_device::<B>(&device);
    let in_place = {
        let (original, quantized): (&dyn Any, &dyn Any) = (&original, &quantized);
        match (original.downcast_ref(), quantized.downcast_ref()) {
            (Some(original), Some(quantized)) => catch(op, || flex_sums(original, quantized))?,
            _ => None,
        }
    };
    let error = match (in_place, dispatch.as_ref()) {
        (Some((diff, norm)), Some(device)) => {
            crate::capability::require_healthy(op, device)?;
            relative_error(diff, norm)
        }
        _ => {
            let host = on_host::<B>(&device);
            let trip = catch(op, || RoundTrip::<B>::start(original, quantized, host))?;
            read_round_trips::<B>(op, dispatch.as_ref(), vec![trip])?
                .first()
                .copied()
                .unwrap_or(f64::NAN)
        }
    };
    options.check(op, error)?;
    Ok(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    /// The host's sums are the dequantized computation's: f32 values, summed in f64.
    #[test]
    fn host_sums_are_the_round_trips_sums() -> TestResult {
        let original = TensorData::new(vec![1.0f32, -2.0, 0.5], [3]);
        let back = TensorData::new(vec![1.0f32, -1.5, 0.25], [3]);
        let (diff, norm) = host_sums(&original, &back);
        assert_eq!((diff, norm), (0.25 + 0.0625, 1.0 + 4.0 + 0.25));
        // Another float dtype is converted, not refused.
        let half = TensorData::new(vec![1.0f64, -2.0, 0.5], [3]);
        assert_eq!(host_sums(&half, &back), (diff, norm));
        assert!(
            host_sums(&original, &TensorData::new(vec![1.0f32], [1]))
                .0
                .is_nan()
        );
        Ok(())
    }

    /// The f32 lanes stay within a few ulps of the f64 sums, over blocks and a tail.
    #[test]
    fn f32_lanes_are_the_f64_sums() -> TestResult {
        let len = 3 * BLOCK + 37;
        let original: Vec<f32> = (0..len)
            .map(|i| ((i * 7919 % 1000) as f32 - 500.0) / 97.0)
            .collect();
        let back: Vec<f32> = original
            .iter()
            .enumerate()
            .map(|(i, w)| w + ((i * 31 % 17) as f32 - 8.0) * 1e-3)
            .collect();
        let (diff, norm) = f32_sums(&original, &back);
        let (exact_diff, exact_norm) =
            original
                .iter()
                .zip(&back)
                .fold((0.0f64, 0.0f64), |(diff, norm), (&w, &d)| {
                    let (w, d) = (f64::from(w), f64::from(d));
                    (diff + (d - w) * (d - w), norm + w * w)
                });
        assert!(
            (diff - exact_diff).abs() <= 1e-5 * exact_diff,
            "{diff} {exact_diff}"
        );
        assert!(
            (norm - exact_norm).abs() <= 1e-6 * exact_norm,
            "{norm} {exact_norm}"
        );
        Ok(())
    }

    #[test]
    fn the_bound_refuses_what_is_over_it_or_not_finite() -> TestResult {
        assert_eq!(relative_error(0.0, 0.0), 0.0);
        assert_eq!(relative_error(1.0, 0.0), f64::INFINITY);
        assert_eq!(relative_error(1.0, 4.0), 0.5);
        let options = QuantizeOptions::new().max_relative_error(0.1);
        assert!(options.check("quantize_dynamic", 0.05).is_ok());
        assert!(options.check("quantize_dynamic", f64::NAN).is_err());
        let err = options
            .check("quantize_dynamic", 0.5)
            .err()
            .ok_or("accepted an error over the bound")?;
        assert!(err.to_string().contains("quantize_dynamic"), "{err}");
        assert!(
            QuantizeOptions::new()
                .check("quantize_dynamic", 9.0)
                .is_ok()
        );
        Ok(())
    }
}
