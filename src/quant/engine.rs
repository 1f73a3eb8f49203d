//! Dynamic quantization at the backend level, generic over `B: Backend`, with fallback to a
//! concrete backend `C` through [`TensorData`](burn_backend::TensorData) (what burn offers to move data between
//! backends). Works for `B = BackendRouter<R>` — every remote device — whose own quantized
//! ops are `unimplemented!()`.
//!
//! A quantized value is [`Placed`]: it says on which backend it lives. A quantized matmul on a
//! fallback-placed weight moves the activations there and the output back, never the weight.

use std::time::Instant;

use burn::tensor::FloatDType;
use burn::tensor::quantization::QuantScheme;
use burn_backend::ops::TransactionPrimitive;
use burn_backend::tensor::{FloatTensor, QuantizedTensor};
use burn_backend::{
    Backend, Shape, TensorMetadata, TensorPrimitive, get_or_init_device_settings, try_read_sync,
};

use crate::capability::{BackendStack, quant_capability, quantize_support, stack_of};
use crate::check;
use crate::error::{GuardError, NonFiniteSplit, Result};
use crate::panic::catch;
use crate::policy::{Moved, Op, Outcome, Place, Policy, Target};
use crate::quant::round_trip::{self, QuantizeOptions};
use crate::transfer::move_float;
use burn::backend::DispatchDevice;

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
/// - [`GuardError::Empty`] for a tensor with no elements, [`GuardError::NonFinite`] for NaN or
///   ±inf values (with their count), [`GuardError::OutOfRange`] for a magnitude whose scale its
///   dtype cannot hold.
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
    let device = tensor.device();
    let placed = quantize_routed::<B, B, _>(
        tensor,
        scheme,
        Policy::shared_strict(),
        BackendStack::cached::<B>(&device),
        &|| BackendStack::of::<B>(&device).label().to_owned(),
        std::iter::empty(),
    )?;
    // Strict: nothing falls back, and with `C = B` both placements hold the same type.
    match placed {
        Placed::Native(q) => Ok(q),
        Placed::Fallback(held) => Ok(held.tensor),
    }
}

/// A quantized tensor that a fallback made: the tensor, the device of `C` that holds it, and
/// that device's label (what reports and fallback records name).
pub(crate) struct Held<C: Backend> {
    pub(crate) tensor: QuantizedTensor<C>,
    pub(crate) device: C::Device,
    pub(crate) label: String,
}

impl<C: Backend> Clone for Held<C> {
    fn clone(&self) -> Self {
        Self {
            tensor: self.tensor.clone(),
            device: self.device.clone(),
            label: self.label.clone(),
        }
    }
}

/// A routed quantization's result: on the tensor's own backend, or held on a fallback one.
pub(crate) type Routed<B, C> = Placed<QuantizedTensor<B>, Held<C>>;

/// The one guarded quantization, for both layers: checks the scheme against the shape and the
/// shape for emptiness, asks the policy where to run (the home stack's answer and the targets',
/// `C` devices with their stacks, in order), checks the values' range where they live, then
/// quantizes at home or moves them to the chosen target and quantizes there. The
/// `burn::Tensor` twins call it with `B = C = Dispatch`.
pub(crate) fn quantize_routed<B: Backend, C: Backend, I>(
    tensor: FloatTensor<B>,
    scheme: &QuantScheme,
    policy: &Policy,
    home: &BackendStack,
    home_label: &dyn Fn() -> String,
    targets: I,
) -> Result<Routed<B, C>>
where
    I: IntoIterator<Item = (C::Device, &'static BackendStack)>,
{
    quantize_routed_measured::<B, C, I>(tensor, scheme, policy, home, home_label, targets, None)
        .map(|(placed, _)| placed)
}

/// As [`quantize_routed`]; with `measure`, the round trip is measured where the tensor was
/// quantized (one read, [`round_trip::measure_one`]) and held to its bound inside the policy's
/// run, so that a refusal counts as an error of the op. Returns the error with the tensor.
pub(crate) fn quantize_routed_measured<B: Backend, C: Backend, I>(
    tensor: FloatTensor<B>,
    scheme: &QuantScheme,
    policy: &Policy,
    home: &BackendStack,
    home_label: &dyn Fn() -> String,
    targets: I,
    measure: Option<&QuantizeOptions>,
) -> Result<(Routed<B, C>, Option<f64>)>
where
    I: IntoIterator<Item = (C::Device, &'static BackendStack)>,
{
    const OP: Op = Op::QuantizeDynamic;
    let shape = tensor.shape().to_vec();
    policy.checked(
        OP,
        check::quant_scheme(QUANTIZE, scheme, &shape)
            .and_then(|_| check::quant::quant_nonempty(QUANTIZE, &shape)),
    )?;
    let native = quantize_support(home, scheme, &shape);
    let targets = targets.into_iter().map(|(place, stack)| Target {
        support: quantize_support(stack, scheme, &shape),
        label: stack.label().to_owned(),
        place,
    });
    let capability = || quant_capability(scheme);
    // The values are checked where they live, once the route is known: a refused call pays
    // no read, and refused values never move.
    let route = policy.route(OP, home_label, &capability, native, targets);
    policy.run(OP, route, home_label, |place| {
        check_values::<B>(QUANTIZE, &tensor, scheme)?;
        match place {
            Place::Home => {
                let original = measure.map(|_| tensor.clone());
                let quantized = catch(QUANTIZE, || B::quantize_dynamic(tensor, scheme))?;
                let error = match (measure, original) {
                    (Some(options), Some(original)) => Some(round_trip::measure_one::<B>(
                        QUANTIZE,
                        original,
                        quantized.clone(),
                        options,
                    )?),
                    _ => None,
                };
                Ok(((Placed::Native(quantized), error), Moved::default()))
            }
            Place::Away(target) => {
                let (moved, quantized, took) = quantize_on::<B, C>(tensor, scheme, &target.place)?;
                // Measured where it lives, against the values it was quantized from there.
                let error = match measure {
                    Some(options) => Some(round_trip::measure_one::<C>(
                        QUANTIZE,
                        moved,
                        quantized.clone(),
                        options,
                    )?),
                    None => None,
                };
                let held = Held {
                    tensor: quantized,
                    device: target.place.clone(),
                    label: target.label.clone(),
                };
                Ok(((Placed::Fallback(held), error), took))
            }
        }
    })
}

/// Moves `tensor` to `C` at `device` and quantizes it there. Nothing comes back: the result
/// lives on `C`, beside the float values it was quantized from.
fn quantize_on<B: Backend, C: Backend>(
    tensor: FloatTensor<B>,
    scheme: &QuantScheme,
    device: &C::Device,
) -> Result<(FloatTensor<C>, QuantizedTensor<C>, Moved)> {
    let start = Instant::now();
    let (moved, bytes_out) = move_float::<B, C>(QUANTIZE, tensor, device)?;
    let elapsed = start.elapsed();
    let values = moved.clone();
    let quantized = catch(QUANTIZE, || C::quantize_dynamic(moved, scheme))?;
    Ok((
        values,
        quantized,
        Moved {
            bytes_out,
            bytes_back: 0,
            elapsed,
        },
    ))
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
/// - [`GuardError::Empty`], [`GuardError::NonFinite`] (with the count) or
///   [`GuardError::OutOfRange`] for values that cannot be quantized; such values never move.
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
/// assert_eq!(policy.stats_of(burn_guard::policy::Op::QuantizeDynamic).fallbacks, 1);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn quantize_dynamic_or_fallback<B: Backend, C: Backend>(
    tensor: FloatTensor<B>,
    scheme: &QuantScheme,
    policy: &Policy,
    fallback_device: &C::Device,
) -> Result<PlacedQuantized<B, C>> {
    let device = tensor.device();
    let placed = quantize_routed::<B, C, _>(
        tensor,
        scheme,
        policy,
        BackendStack::cached::<B>(&device),
        &|| BackendStack::of::<B>(&device).label().to_owned(),
        [(
            fallback_device.clone(),
            BackendStack::cached::<C>(fallback_device),
        )],
    )?;
    Ok(match placed {
        Placed::Native(q) => Placed::Native(q),
        Placed::Fallback(held) => Placed::Fallback(held.tensor),
    })
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
/// An operand with a zero-sized dimension gives its product (empty, or zeros for an empty
/// inner dimension) on `B` without a kernel or a move, counted as a native run.
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`] / [`GuardError::RankMismatch`] from
///   [`check::matmul`].
/// - [`GuardError::Execution`] / [`GuardError::Timeout`] when data cannot be read back.
/// - [`GuardError::BackendPanic`] if a backend panics anyway.
///
/// # Fallback
///
/// Not decided here: where the weight lives was decided when it was quantized. When `rhs`
/// lives on the fallback backend, `lhs` moves to `fallback_device` and the product comes
/// back — activations move, the weight never does — counted as a fallback of
/// [`Op::QMatmul`] in `policy.stats()` with the bytes each way.
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
    const OP: Op = Op::QMatmul;
    let rhs_shape = match rhs {
        Placed::Native(q) => q.shape(),
        Placed::Fallback(q) => q.shape(),
    };
    let out = policy.checked(
        OP,
        check::matmul(Q_MATMUL, lhs.shape().as_slice(), rhs_shape.as_slice()),
    )?;
    let device = lhs.device();
    let rhs = match rhs {
        Placed::Native(q) => Placed::Native(q.clone()),
        Placed::Fallback(q) => Placed::Fallback((q.clone(), fallback_device)),
    };
    // Where the weight lives was decided when it was quantized: nothing to route here.
    match q_product::<B, C>(Q_MATMUL, lhs, rhs, &out) {
        Ok((product, None)) => {
            policy.record(OP, Outcome::Native);
            Ok(product)
        }
        Ok((product, Some(moved))) => {
            let from = BackendStack::of::<B>(&device).label().to_owned();
            let to = BackendStack::cached::<C>(fallback_device).label();
            policy.record(OP, moved.fallback(&from, to));
            Ok(product)
        }
        Err(why) => {
            policy.record(OP, Outcome::Error);
            Err(why)
        }
    }
}

/// `lhs · rhs` (shapes checked, `out` the product's shape) where `rhs` lives, unrecorded: the
/// one product of [`q_matmul`] and the quantized layers.
///
/// - An operand with no elements: its product on `B`, built without a kernel.
/// - A weight on `B`: `B::q_matmul`.
/// - A weight held on `C` (at the device given with it): `lhs` moves there and the product
///   comes back to `lhs`'s device — activations move, the weight never does. Returns what
///   moved, for the caller's record.
pub(crate) fn q_product<B: Backend, C: Backend>(
    op: &'static str,
    lhs: FloatTensor<B>,
    rhs: Placed<QuantizedTensor<B>, (QuantizedTensor<C>, &C::Device)>,
    out: &[usize],
) -> Result<(FloatTensor<B>, Option<Moved>)> {
    let rhs_elements = match &rhs {
        Placed::Native(q) => q.shape().num_elements(),
        Placed::Fallback((q, _)) => q.shape().num_elements(),
    };
    if lhs.shape().num_elements() == 0 || rhs_elements == 0 {
        return no_kernel_product::<B>(op, &lhs, out).map(|product| (product, None));
    }
    match rhs {
        Placed::Native(q) => catch(op, || {
            into_float::<B>(B::q_matmul(
                TensorPrimitive::Float(lhs),
                TensorPrimitive::QFloat(q),
            ))
        })
        .map(|product| (product, None)),
        Placed::Fallback((q, held)) => {
            let home = lhs.device();
            let start = Instant::now();
            let (moved, bytes_out) = move_float::<B, C>(op, lhs, held)?;
            let out_time = start.elapsed();
            let product = catch(op, || {
                into_float::<C>(C::q_matmul(
                    TensorPrimitive::Float(moved),
                    TensorPrimitive::QFloat(q),
                ))
            })?;
            let back = Instant::now();
            let (product, bytes_back) = move_float::<C, B>(op, product, &home)?;
            let moved = Moved {
                bytes_out,
                bytes_back,
                elapsed: out_time + back.elapsed(),
            };
            Ok((product, Some(moved)))
        }
    }
}

/// The product of operands one of which has no elements, on `lhs`'s device and in its dtype,
/// without a kernel (as `try_matmul`; empty operands have panicked in burn's kernels): empty
/// when `out` has no elements, zeros (a sum over nothing) otherwise.
pub(crate) fn no_kernel_product<B: Backend>(
    op: &'static str,
    lhs: &FloatTensor<B>,
    out: &[usize],
) -> Result<FloatTensor<B>> {
    let (device, dtype) = (lhs.device(), lhs.dtype());
    catch(op, || {
        let dtype = FloatDType::from(dtype);
        let shape = Shape::from(out.to_vec());
        if out.contains(&0) {
            B::float_empty(shape, &device, dtype)
        } else {
            B::float_zeros(shape, &device, dtype)
        }
    })
}

/// Reads the range of `tensor`'s values on `B` — the count of NaN / ±inf values and the largest
/// finite magnitude, one reduction each, in one transaction (one synchronous read) — and checks
/// it with [`check::quant::quant_values`].
///
/// The read is the price of never returning a silently wrong quantization; non-finite values
/// are masked before the maximum, which NdArray would otherwise panic on.
pub(crate) fn check_values<B: Backend>(
    op: &'static str,
    tensor: &FloatTensor<B>,
    scheme: &QuantScheme,
) -> Result<()> {
    let values = tensor.clone();
    let device = crate::capability::naming::brief(&values.device());
    let dispatch = crate::value_reads::dispatch_device::<B>(&values.device());
    let len = u64::try_from(values.shape().num_elements()).unwrap_or(u64::MAX);
    let data = crate::value_reads::read_sync(op, dispatch.as_ref(), || {
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
    let unavailable = |reason: &str| GuardError::DeviceUnavailable {
        op,
        device: device.clone(),
        reason: reason.into(),
    };
    // The pure check holds the reads, not the device they came from: it is named here.
    let range = check::quant::ValueRange::from_reads(op, data, len).map_err(|err| match err {
        GuardError::DeviceUnavailable { reason, .. } => unavailable(&reason),
        other => other,
    })?;
    check::quant::quant_values(op, scheme, range).map_err(|err| {
        let split = || non_finite_split::<B>(op, tensor);
        err.of_tensor(split, tensor.dtype(), tensor.shape().as_slice())
    })
}

/// NaN, `+inf` and `-inf` among `tensor`'s values, counted apart on its device and read
/// together: for a refusal, which counted them as one, so that only a refused tensor pays this
/// read. `None` when the read fails (the refusal stands as counted).
fn non_finite_split<B: Backend>(
    op: &'static str,
    tensor: &FloatTensor<B>,
) -> Option<NonFiniteSplit> {
    let values = tensor.clone();
    let dispatch = crate::value_reads::dispatch_device::<B>(&values.device());
    let data = crate::value_reads::read_sync(op, dispatch.as_ref(), || {
        let settings = get_or_init_device_settings::<B>(&values.device());
        let count = |mask| B::int_sum(B::bool_into_int(mask, settings.int_dtype));
        let bool_dtype = settings.bool_dtype;
        let nan = count(B::float_is_nan(values.clone(), bool_dtype));
        let pos_inf = count(B::float_equal_elem(
            values.clone(),
            f64::INFINITY.into(),
            bool_dtype,
        ));
        let neg_inf = count(B::float_equal_elem(
            values,
            f64::NEG_INFINITY.into(),
            bool_dtype,
        ));
        let mut transaction = TransactionPrimitive::<B>::default();
        for count in [nan, pos_inf, neg_inf] {
            transaction.register_int(count);
        }
        try_read_sync(transaction.execute_async())
    })
    .ok()?;
    let counts: Vec<u64> = data
        .into_iter()
        .filter_map(|read| read.convert::<i64>().iter::<i64>().next())
        .map(|count| u64::try_from(count).unwrap_or(0))
        .collect();
    match counts.as_slice() {
        &[nan, pos_inf, neg_inf] => Some(NonFiniteSplit {
            nan,
            pos_inf,
            neg_inf,
        }),
        _ => None,
    }
}

/// A float primitive, dequantizing a quantized one.
fn into_float<B: Backend>(tensor: TensorPrimitive<B>) -> FloatTensor<B> {
    match tensor {
        TensorPrimitive::Float(tensor) => tensor,
        TensorPrimitive::QFloat(tensor) => B::dequantize(tensor, FloatDType::F32),
    }
}

/// The policy's fallback devices as `Dispatch` targets, each with its stack, in order.
pub(crate) fn dispatch_targets(
    policy: &Policy,
) -> impl Iterator<Item = (DispatchDevice, &'static BackendStack)> + '_ {
    policy
        .devices()
        .iter()
        .map(|device| (device.as_dispatch().clone(), stack_of(device)))
}
