//! Dynamic quantization at the backend level, generic over `B: Backend`, with fallback to a
//! concrete backend `C` through [`TensorData`] (what burn offers to move data between
//! backends). Works for `B = BackendRouter<R>` — every remote device — whose own quantized
//! ops are `unimplemented!()`.
//!
//! A quantized value is [`Placed`]: it says on which backend it lives. A quantized matmul on a
//! fallback-placed weight moves the activations there and the output back, never the weight.

use std::time::Instant;

use burn::tensor::quantization::QuantScheme;
use burn_backend::ops::TransactionPrimitive;
use burn_backend::tensor::{FloatTensor, QuantizedTensor};
use burn_backend::{
    Backend, TensorData, TensorMetadata, TensorPrimitive, get_or_init_device_settings,
    try_read_sync,
};

use crate::capability::{BackendStack, Support, quantize_support};
use crate::check;
use crate::error::{GuardError, Result, Unsupported};
use crate::panic::catch;
use crate::policy::Policy;
use burn::tensor::FloatDType;

/// A value that lives on the tensor's own backend `B`, or on the fallback backend `C`.
#[derive(Debug, Clone)]
pub enum Placed<N, F> {
    /// On the tensor's own backend.
    Native(N),
    /// On the fallback backend the policy chose.
    Fallback(F),
}

impl<N, F> Placed<N, F> {
    /// Whether the value lives on the fallback backend.
    pub fn is_fallback(&self) -> bool {
        matches!(self, Placed::Fallback(_))
    }
}

/// A quantized tensor of backend `B` or of the fallback backend `C`.
pub type PlacedQuantized<B, C> = Placed<QuantizedTensor<B>, QuantizedTensor<C>>;

const QUANTIZE: &str = "quantize_dynamic";
const DEQUANTIZE: &str = "dequantize";
const Q_MATMUL: &str = "q_matmul";

/// Guarded `B::quantize_dynamic`: checks the scheme against the shape, the shape for
/// emptiness, the stack's capability, then the values' range, and quantizes on `B`. Strict:
/// never falls back.
///
/// The range check costs one reduction and one synchronous read of two numbers on `B` (see
/// [`check::quant::quant_values`] for the silent NaN and garbage it prevents).
///
/// # Errors
///
/// - [`GuardError::InvalidQuantScheme`] when no backend can apply the scheme to this shape.
/// - [`GuardError::InvalidArgument`] for a tensor with no elements, NaN or ±inf values (with
///   their count), or a magnitude whose scale its dtype cannot hold.
/// - [`GuardError::Unsupported`] when `B` cannot (e.g. any `BackendRouter`, NdArray with a
///   packed store).
/// - [`GuardError::Execution`] when the values' range cannot be read back.
/// - [`GuardError::BackendPanic`] if `B` panics anyway.
///
/// ```
/// use burn::tensor::quantization::QuantScheme;
/// use burn_backend::TensorData;
/// use burn_backend::ops::FloatTensorOps;
/// use burn_flex::Flex;
///
/// let device = Default::default();
/// let x = Flex::float_from_data(TensorData::new(vec![0.5f32, -1.0, 2.0, 0.25], [2, 2]), &device);
/// let q = burn_guard::backend::quant::quantize_dynamic::<Flex>(x, &QuantScheme::default())?;
/// # let _ = q;
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn quantize_dynamic<B: Backend>(
    tensor: FloatTensor<B>,
    scheme: &QuantScheme,
) -> Result<QuantizedTensor<B>> {
    let shape = tensor.shape().to_vec();
    check::quant_scheme(QUANTIZE, scheme, &shape)?;
    check::quant::quant_nonempty(QUANTIZE, &shape)?;
    let device = tensor.device();
    // The cached stack decides; the exact one (naming this device) only builds the refusal.
    if !quantize_support(BackendStack::cached::<B>(&device), scheme, &shape).is_native() {
        let stack = BackendStack::of::<B>(&device);
        crate::capability::require_quantize(QUANTIZE, &stack, scheme, &shape)?;
    }
    check_values::<B>(QUANTIZE, &tensor, scheme)?;
    catch(QUANTIZE, || B::quantize_dynamic(tensor, scheme))
}

/// Guarded `quantize_dynamic` with fallback: quantizes on `B` when it can; otherwise, when
/// `policy` allows, moves the data to `C` on `fallback_device` and quantizes there.
///
/// The values' range is checked on `B` before anything moves, with one reduction and one
/// synchronous read of two numbers (see [`check::quant::quant_values`]).
///
/// # Errors
///
/// - [`GuardError::InvalidQuantScheme`] when no backend can apply the scheme to this shape.
/// - [`GuardError::InvalidArgument`] for a tensor with no elements, NaN or ±inf values (with
///   their count), or a magnitude whose scale its dtype cannot hold; such values never move.
/// - [`GuardError::Unsupported`] when `B` cannot and the policy forbids fallback, or `C`
///   cannot either.
/// - [`GuardError::Execution`] when the data cannot be read back from `B`.
/// - [`GuardError::BackendPanic`] if a backend panics anyway.
///
/// # Fallback
///
/// To `C` through `TensorData`, counted in `policy.stats()` with the bytes moved and logged
/// once per (op, from, to) at `warn`.
///
/// ```
/// # #![allow(deprecated)] // NdArray is deprecated upstream; still supported.
/// use burn::tensor::quantization::{QuantScheme, QuantStore};
/// use burn_backend::TensorData;
/// use burn_backend::ops::FloatTensorOps;
/// use burn_flex::Flex;
/// use burn_guard::backend::quant::quantize_dynamic_or_fallback;
/// use burn_guard::policy::Policy;
/// use burn_ndarray::NdArray;
///
/// // NdArray cannot quantize the default (packed) scheme; Flex can.
/// let x = NdArray::float_from_data(TensorData::new(vec![0.5f32, -1.0, 2.0, 0.25], [1, 4]), &Default::default());
/// let policy = Policy::fallback_to([]);
/// let q = quantize_dynamic_or_fallback::<NdArray, Flex>(x, &QuantScheme::default(), &policy, &Default::default())?;
/// assert!(q.is_fallback());
/// assert_eq!(policy.stats()["quantize_dynamic"].fallbacks, 1);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn quantize_dynamic_or_fallback<B: Backend, C: Backend>(
    tensor: FloatTensor<B>,
    scheme: &QuantScheme,
    policy: &Policy,
    fallback_device: &C::Device,
) -> Result<PlacedQuantized<B, C>> {
    let stats = policy.recorder();
    let shape = tensor.shape().to_vec();
    if let Err(err) = check::quant_scheme(QUANTIZE, scheme, &shape)
        .and_then(|_| check::quant::quant_nonempty(QUANTIZE, &shape))
    {
        stats.error(QUANTIZE);
        return Err(err);
    }
    let device = tensor.device();
    let stack = BackendStack::cached::<B>(&device);
    let reason = match quantize_support(stack, scheme, &shape) {
        Support::Native => {
            if let Err(err) = check_values::<B>(QUANTIZE, &tensor, scheme) {
                stats.error(QUANTIZE);
                return Err(err);
            }
            let quantized = catch(QUANTIZE, || B::quantize_dynamic(tensor, scheme));
            return record(stats, QUANTIZE, quantized.map(Placed::Native), false);
        }
        Support::Unsupported(reason) => reason,
    };
    let target = BackendStack::cached::<C>(fallback_device);
    let refusal = |reason: String| {
        GuardError::Unsupported(Unsupported {
            op: QUANTIZE,
            backend: B::name(&device),
            capability: format!("quantization {}", check::SchemeName(scheme)),
            reason,
        })
    };
    if !policy.may_fall_back(QUANTIZE) {
        stats.error(QUANTIZE);
        return Err(refusal(reason));
    }
    if let Support::Unsupported(target_reason) = quantize_support(target, scheme, &shape) {
        stats.error(QUANTIZE);
        return Err(refusal(format!(
            "{reason}; fallback {} cannot either: {target_reason}",
            target.name()
        )));
    }
    if let Err(err) = check_values::<B>(QUANTIZE, &tensor, scheme) {
        stats.error(QUANTIZE);
        return Err(err);
    }
    let start = Instant::now();
    let moved = move_float::<B, C>(QUANTIZE, tensor, fallback_device);
    let moved = match moved {
        Ok((moved, bytes)) => {
            stats.moved(QUANTIZE, bytes, 0, start.elapsed());
            moved
        }
        Err(err) => {
            stats.error(QUANTIZE);
            return Err(err);
        }
    };
    stats.fallback(QUANTIZE, stack.name(), target.name());
    let quantized = catch(QUANTIZE, || C::quantize_dynamic(moved, scheme));
    record(stats, QUANTIZE, quantized.map(Placed::Fallback), true)
}

/// Dequantizes a [`PlacedQuantized`] where it lives.
///
/// # Errors
///
/// [`GuardError::BackendPanic`] if the backend panics.
///
/// ```
/// use burn::tensor::quantization::QuantScheme;
/// use burn_backend::TensorData;
/// use burn_backend::ops::FloatTensorOps;
/// use burn_flex::Flex;
/// use burn_guard::backend::quant::{Placed, dequantize};
///
/// let x = Flex::float_from_data(TensorData::new(vec![1.0f32, -1.0, 0.5, 0.0], [1, 4]), &Default::default());
/// let q = burn_guard::backend::quant::quantize_dynamic::<Flex>(x, &QuantScheme::default())?;
/// let restored = dequantize::<Flex, Flex>(Placed::Native(q))?;
/// # let _ = restored;
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn dequantize<B: Backend, C: Backend>(
    tensor: PlacedQuantized<B, C>,
) -> Result<Placed<FloatTensor<B>, FloatTensor<C>>> {
    match tensor {
        Placed::Native(q) => {
            catch(DEQUANTIZE, || B::dequantize(q, FloatDType::F32)).map(Placed::Native)
        }
        Placed::Fallback(q) => {
            catch(DEQUANTIZE, || C::dequantize(q, FloatDType::F32)).map(Placed::Fallback)
        }
    }
}

/// `lhs · rhs` with a quantized right-hand side, returning a float tensor on `B`.
///
/// When `rhs` lives on the fallback backend, `lhs` moves there and the product comes back:
/// activations move, the weight never does. Both moves are counted in `policy.stats()`.
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`] / [`GuardError::RankMismatch`] from
///   [`check::matmul`].
/// - [`GuardError::Execution`] when data cannot be read back.
///
/// An operand with a zero-sized dimension gives its product (empty, or zeros for an empty
/// inner dimension) on `B` without a kernel or a move, counted as a native run.
/// - [`GuardError::BackendPanic`] if a backend panics anyway.
///
/// ```
/// use burn::tensor::quantization::QuantScheme;
/// use burn_backend::TensorData;
/// use burn_backend::ops::FloatTensorOps;
/// use burn_flex::Flex;
/// use burn_guard::backend::quant::{Placed, q_matmul, quantize_dynamic};
/// use burn_guard::policy::Policy;
///
/// let device = Default::default();
/// let w = Flex::float_from_data(TensorData::new(vec![1.0f32; 8], [2, 4]), &device);
/// let x = Flex::float_from_data(TensorData::new(vec![0.5f32; 6], [3, 2]), &device);
/// let w = Placed::Native(quantize_dynamic::<Flex>(w, &QuantScheme::default())?);
/// let y = q_matmul::<Flex, Flex>(x, &w, &Policy::strict(), &device)?;
/// # let _ = y;
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn q_matmul<B: Backend, C: Backend>(
    lhs: FloatTensor<B>,
    rhs: &PlacedQuantized<B, C>,
    policy: &Policy,
    fallback_device: &C::Device,
) -> Result<FloatTensor<B>> {
    let stats = policy.recorder();
    let rhs_shape = match rhs {
        Placed::Native(q) => q.shape().to_vec(),
        Placed::Fallback(q) => q.shape().to_vec(),
    };
    let lhs_shape = lhs.shape().to_vec();
    if let Err(err) = check::matmul(Q_MATMUL, &lhs_shape, &rhs_shape) {
        stats.error(Q_MATMUL);
        return Err(err);
    }
    if lhs_shape.contains(&0) || rhs_shape.contains(&0) {
        // No elements on one side: built without a kernel, where it is (as `try_matmul`).
        let device = lhs.device();
        let dtype: FloatDType = lhs.dtype().into();
        let out = zero_sized_output(&lhs_shape, &rhs_shape);
        let product = catch(Q_MATMUL, || {
            if out.contains(&0) {
                B::float_empty(out.into(), &device, dtype)
            } else {
                B::float_zeros(out.into(), &device, dtype)
            }
        });
        return record(stats, Q_MATMUL, product, false);
    }
    match rhs {
        Placed::Native(q) => {
            let product = catch(Q_MATMUL, || {
                B::q_matmul(
                    TensorPrimitive::Float(lhs),
                    TensorPrimitive::QFloat(q.clone()),
                )
            });
            record(stats, Q_MATMUL, product.map(into_float::<B>), false)
        }
        Placed::Fallback(q) => {
            let device = lhs.device();
            let from = BackendStack::cached::<B>(&device);
            let to = BackendStack::cached::<C>(fallback_device);
            let start = Instant::now();
            let (moved, bytes_out) = match move_float::<B, C>(Q_MATMUL, lhs, fallback_device) {
                Ok(moved) => moved,
                Err(err) => {
                    stats.error(Q_MATMUL);
                    return Err(err);
                }
            };
            let out_time = start.elapsed();
            stats.fallback(Q_MATMUL, from.name(), to.name());
            let product = match catch(Q_MATMUL, || {
                C::q_matmul(
                    TensorPrimitive::Float(moved),
                    TensorPrimitive::QFloat(q.clone()),
                )
            }) {
                Ok(product) => into_float::<C>(product),
                Err(err) => {
                    stats.error(Q_MATMUL);
                    return Err(err);
                }
            };
            let back = Instant::now();
            let result = move_float::<C, B>(Q_MATMUL, product, &device);
            match result {
                Ok((product, bytes_back)) => {
                    stats.moved(Q_MATMUL, bytes_out, bytes_back, out_time + back.elapsed());
                    Ok(product)
                }
                Err(err) => {
                    stats.error(Q_MATMUL);
                    Err(err)
                }
            }
        }
    }
}

/// Reads the range of `tensor`'s values on `B` — the count of NaN / ±inf values and the largest
/// finite magnitude, one reduction each, in one transaction (one synchronous read) — and checks
/// it with [`check::quant::quant_values`].
///
/// The read is the price of never returning a silently wrong quantization; non-finite values
/// are masked before the maximum, which NdArray would otherwise panic on.
fn check_values<B: Backend>(
    op: &'static str,
    tensor: &FloatTensor<B>,
    scheme: &QuantScheme,
) -> Result<()> {
    let values = tensor.clone();
    let len = u64::try_from(values.shape().num_elements()).unwrap_or(u64::MAX);
    let read = catch(op, || {
        let settings = get_or_init_device_settings::<B>(&values.device());
        let bad = B::bool_or(
            B::float_is_nan(values.clone(), settings.bool_dtype),
            B::float_is_inf(values.clone(), settings.bool_dtype),
        );
        let count = B::int_sum(B::bool_into_int(bad.clone(), settings.int_dtype));
        let max_abs = B::float_max(B::float_mask_fill(B::float_abs(values), bad, 0f32.into()));
        let mut transaction = TransactionPrimitive::<B>::default();
        transaction.register_int(count);
        transaction.register_float(TensorPrimitive::Float(max_abs));
        try_read_sync(transaction.execute_async())
    })?;
    let unreadable = || GuardError::DeviceUnavailable {
        device: op.to_owned(),
        reason: "cannot read tensor data synchronously on this platform".into(),
    };
    let data = read
        .ok_or_else(unreadable)?
        .map_err(|source| GuardError::Execution { op, source })?;
    let range = check::quant::ValueRange::from_reads(op, data, len)?;
    check::quant::quant_values(op, scheme, range)
}

/// The output shape of a matmul with a zero-sized operand (shapes that passed
/// [`check::matmul`]): batch dims broadcast with 1 stretching to the other side, 0 included.
fn zero_sized_output(lhs: &[usize], rhs: &[usize]) -> Vec<usize> {
    let rank = lhs.len();
    let mut out: Vec<usize> = lhs
        .iter()
        .zip(rhs)
        .take(rank.saturating_sub(2))
        .map(|(&l, &r)| if l == 1 { r } else { l })
        .collect();
    out.extend(lhs.get(rank.saturating_sub(2)));
    out.extend(rhs.last());
    out
}

/// A float primitive, dequantizing a quantized one.
fn into_float<B: Backend>(tensor: TensorPrimitive<B>) -> FloatTensor<B> {
    match tensor {
        TensorPrimitive::Float(tensor) => tensor,
        TensorPrimitive::QFloat(tensor) => B::dequantize(tensor, FloatDType::F32),
    }
}

/// Moves a float tensor from `B` to `C` through `TensorData`; returns it and the bytes moved.
fn move_float<B: Backend, C: Backend>(
    op: &'static str,
    tensor: FloatTensor<B>,
    device: &C::Device,
) -> Result<(FloatTensor<C>, u64)> {
    // A remote read blocks forever on a frozen server: bound it (devices::default_timeout).
    let data: TensorData = crate::devices::read_with_deadline(
        op,
        crate::devices::default_timeout(),
        B::float_into_data(tensor),
    )?;
    let bytes = u64::try_from(data.bytes().len()).unwrap_or(u64::MAX);
    let moved = catch(op, || C::float_from_data(data, device))?;
    Ok((moved, bytes))
}

/// Counts the outcome of a guarded run.
fn record<T>(
    stats: &crate::policy::Stats,
    op: &'static str,
    outcome: Result<T>,
    fallback: bool,
) -> Result<T> {
    match (&outcome, fallback) {
        (Ok(_), false) => stats.native(op),
        (Ok(_), true) => {}
        (Err(_), _) => stats.error(op),
    }
    outcome
}
