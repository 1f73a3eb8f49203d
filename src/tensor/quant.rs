//! Guarded dynamic quantization of `burn::Tensor`, with the policy deciding where it runs.
//!
//! The twin is the backend-level guarded quantization run on burn's own `Dispatch` backend (a
//! `burn::Tensor` is a `Dispatch` primitive inside): one implementation of the checks, the
//! value read and the fallback for both layers.

use burn::backend::Dispatch;
use burn::tensor::Tensor;
use burn::tensor::quantization::{
    Calibration, CalibrationRange, QuantScheme, QuantizationParameters, global_scale_dtype,
};

use super::sealed::Sealed;
use super::twins;
use crate::capability::stack_of;
use crate::check::{creation, quant};
use crate::error::Result;
use crate::panic::catch;
use crate::policy::Policy;
use crate::quant::engine::{Placed, dispatch_targets, quantize_routed_measured};
use crate::quant::round_trip;
use crate::quant::{MeasuredQuantization, QuantizeOptions};

const OP: &str = "quantize_dynamic";

/// Fallible twin of [`compute_range`](burn::tensor::quantization::compute_range).
///
/// Checks that the tensor is not quantized (burn: `unreachable!()`), that a block scheme's
/// block extents are at least 1 and divide every dimension, and that `AbsMean` calibration is
/// not asked of a two-level scheme (burn-backend's asserts).
///
/// # Errors
///
/// - [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor.
/// - [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme) for the scheme.
///
/// ```
/// use burn::tensor::quantization::{Calibration, QuantScheme};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::quantization::try_compute_range;
///
/// let t = Tensor::<1>::from_floats([-1.0, 2.0], &Device::flex());
/// let range = try_compute_range(&QuantScheme::default(), &t, &Calibration::MinMax)?;
/// assert_eq!(range.max.into_scalar::<f32>(), 2.0);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "compute_range")]
pub fn try_compute_range<const D: usize>(
    scheme: &QuantScheme,
    tensor: &Tensor<D>,
    calibration: &Calibration,
) -> Result<CalibrationRange> {
    const OP: &str = "compute_range";
    creation::not_quantized(OP, tensor.dtype())?;
    quant::quant_blocks(OP, scheme, &tensor.dims())?;
    crate::check::quant_calibration(OP, scheme, calibration, &tensor.dims())?;
    catch(OP, || {
        burn::tensor::quantization::compute_range(scheme, tensor, calibration)
    })
}

/// Fallible twin of [`compute_q_params`](burn::tensor::quantization::compute_q_params).
///
/// Checks that `range.min` and `range.max` are not quantized (burn: `unreachable!()`), and
/// that a two-level scheme's block scale dtype is no wider than f16 (burn-backend's assert in
/// `normalize_scales`).
///
/// # Errors
///
/// - [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized bound.
/// - [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme) for the scheme.
///
/// ```
/// use burn::tensor::quantization::{Calibration, QuantScheme};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::quantization::{try_compute_q_params, try_compute_range};
///
/// let t = Tensor::<1>::from_floats([-1.0, 2.0], &Device::flex());
/// let scheme = QuantScheme::default();
/// let range = try_compute_range(&scheme, &t, &Calibration::MinMax)?;
/// let qparams = try_compute_q_params(&scheme, range)?;
/// assert!(qparams.global.is_none());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "compute_q_params")]
pub fn try_compute_q_params(
    scheme: &QuantScheme,
    range: CalibrationRange,
) -> Result<QuantizationParameters> {
    const OP: &str = "compute_q_params";
    creation::not_quantized(OP, range.min.dtype())?;
    creation::not_quantized(OP, range.max.dtype())?;
    quant::quant_two_level(OP, scheme, &range.min.dims())?;
    catch(OP, || {
        burn::tensor::quantization::compute_q_params(scheme, range)
    })
}

twins! {
/// Guarded quantization of float tensors.
///
/// Sealed: implemented for `burn::Tensor<D>` only.
pub trait TryQuantize<const D: usize> for Tensor<D> {
    /// Fallible twin of [`Tensor::quantize`].
    ///
    /// Checks burn's asserts — the scheme has a per-tensor scale iff `qparams.global` is given,
    /// and a given global scale has one element and dtype `F32` — and the scheme against the
    /// tensor's shape with [`check::quant_scheme`](crate::check::quant_scheme) (block sizes
    /// that divide the shape, two-level scale dtypes, and — beyond burn — no native storage for
    /// sub-byte values).
    ///
    /// # Errors
    ///
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for `qparams`; [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a per-tensor scale that
    ///   is not `F32`.
    /// - [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme) for the
    ///   scheme.
    ///
    /// ```
    /// use burn::tensor::quantization::{Calibration, QuantScheme, QuantizationParameters};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryQuantize;
    /// use burn_guard::tensor::quantization::{try_compute_q_params, try_compute_range};
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::from_floats([-1.0, 2.0], &device);
    /// let scheme = QuantScheme::default();
    /// let qparams = try_compute_q_params(&scheme, try_compute_range(&scheme, &t, &Calibration::MinMax)?)?;
    /// let q = t.clone().try_quantize(&scheme, qparams)?;
    /// assert!(matches!(q.dtype(), burn::tensor::DType::QFloat(_)));
    /// let bad = QuantizationParameters { scales: Tensor::ones([1], &device), global: Some(Tensor::ones([1], &device)) };
    /// assert!(t.try_quantize(&scheme, bad).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "quantize")]
    fn try_quantize(self, scheme: &QuantScheme, qparams: QuantizationParameters) -> Self
    => quantize {
        let global = qparams.global.as_ref().map(|g| (g.dims(), g.dtype()));
        creation::quantize_params(
            OP,
            global_scale_dtype(scheme).is_some(),
            global
                .as_ref()
                .map(|(dims, dtype)| (dims.as_slice(), *dtype)),
        )?;
        crate::check::quant_scheme(OP, scheme, &self.dims())?;
        catch(OP, || self.quantize(scheme, qparams))
    }

    /// Guarded [`Tensor::quantize_dynamic`] under the strict policy: checks the scheme against
    /// the shape, the shape for emptiness, the device's capability, then the values' range,
    /// then quantizes. Nothing is quantized on refusal.
    ///
    /// Costs one reduction and one synchronous read of two numbers (the count of non-finite
    /// values and the largest magnitude) before quantizing: burn computes its scale from the
    /// values and, for NaN, ±inf or a magnitude whose scale overflows, returns NaN or garbage
    /// on some backends without a word (see [`check::quant::quant_values`](crate::check::quant::quant_values)).
    ///
    /// # Errors
    ///
    /// - [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme) when no backend can apply the scheme to this shape.
    /// - [`GuardError::Empty`](crate::GuardError::Empty) for a tensor with no elements (no
    ///   range to calibrate from), [`GuardError::NonFinite`](crate::GuardError::NonFinite)
    ///   for NaN or ±inf values (with their count), [`GuardError::OutOfRange`](crate::GuardError::OutOfRange)
    ///   when the largest magnitude needs a scale its dtype cannot hold (`f32::MAX`; 1e7 with
    ///   F16 scales).
    /// - [`GuardError::Unsupported`](crate::GuardError::Unsupported) when the device's backend cannot (NdArray with a packed
    ///   store, E4M3 on Flex, …).
    /// - [`GuardError::Execution`](crate::GuardError::Execution) when the values' range cannot be read back.
    /// - [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics anyway.
    ///
    /// # Fallback
    ///
    /// Never; see [`TryQuantize::quantize_dynamic_with`].
    ///
    /// ```
    /// use burn::tensor::quantization::QuantScheme;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryQuantize;
    ///
    /// let t = Tensor::<2>::ones([4, 8], &Device::flex());
    /// assert!(t.clone().try_quantize_dynamic(&QuantScheme::default()).is_ok());
    /// #[allow(deprecated)]
    /// let on_ndarray = t.to_device(&Device::ndarray());
    /// let err = on_ndarray.try_quantize_dynamic(&QuantScheme::default()).unwrap_err();
    /// assert!(err.to_string().contains("not supported"));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "quantize_dynamic")]
    fn try_quantize_dynamic(self, scheme: &QuantScheme) -> Self {
        self.quantize_dynamic_with(scheme, Policy::shared_strict())
    }

    /// Guarded [`Tensor::quantize_dynamic`] under `policy`: on the tensor's device when it
    /// can; otherwise, when the policy allows, on the first capable device of
    /// [`Policy::devices`]. The result's [`device`](Tensor::device) says where it lives.
    ///
    /// # Errors
    ///
    /// As [`TryQuantize::try_quantize_dynamic`]; [`GuardError::Unsupported`](crate::GuardError::Unsupported) also when no
    /// fallback device can. The values are checked on the tensor's own device before they
    /// move, so refused values never reach a fallback device.
    ///
    /// # Fallback
    ///
    /// To the first capable device of the policy, through `Tensor::to_device`; counted in
    /// [`Policy::stats`] and logged once per (op, from, to) at `warn`.
    ///
    /// ```
    /// use burn::tensor::quantization::QuantScheme;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::policy::{Op, Policy};
    /// use burn_guard::tensor::TryQuantize;
    ///
    /// #[allow(deprecated)]
    /// let t = Tensor::<2>::ones([4, 8], &Device::ndarray());
    /// let policy = Policy::fallback_to([Device::flex()]);
    /// let q = t.quantize_dynamic_with(&QuantScheme::default(), &policy)?;
    /// assert_eq!(q.device(), Device::flex());
    /// assert_eq!(policy.stats_of(Op::QuantizeDynamic).fallbacks, 1);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    fn quantize_dynamic_with(self, scheme: &QuantScheme, policy: &Policy) -> Self {
        quantize_dispatch(self, scheme, policy, None).map(|(quantized, _)| quantized)
    }

    /// [`TryQuantize::try_quantize_dynamic`] with its round trip measured: the quantized
    /// tensor is dequantized on its device and compared with the values it came from,
    /// `‖dequantize(q) − x‖ / ‖x‖`, in one read
    /// ([`MeasuredQuantization::relative_error`]), and held to `options`' bound
    /// ([`QuantizeOptions::max_relative_error`]). A quantization that went far off without a
    /// word (burn has quantized a non-contiguous tensor on wgpu with about 500× the error of its
    /// contiguous copy) is refused instead of returned.
    ///
    /// Costs, beyond the twin's own range read: one dequantization and one read (on Flex and
    /// NdArray of the values, summed on the host; elsewhere of two sums reduced on the device).
    ///
    /// # Errors
    ///
    /// As [`TryQuantize::try_quantize_dynamic`]; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange)
    /// when the round trip is over the bound or not finite, naming `quantize_dynamic` and the
    /// error.
    ///
    /// # Fallback
    ///
    /// Never; see [`TryQuantize::quantize_dynamic_measured_with`].
    ///
    /// ```
    /// use burn::tensor::quantization::{QuantScheme, QuantValue};
    /// use burn::tensor::{Device, Distribution, Tensor};
    /// use burn_guard::quant::QuantizeOptions;
    /// use burn_guard::tensor::TryQuantize;
    ///
    /// let device = Device::flex();
    /// // Held transposed: a non-contiguous tensor.
    /// let x = Tensor::<2>::random([64, 32], Distribution::Default, &device).transpose();
    /// let q8 = QuantScheme::default().with_value(QuantValue::Q8S);
    /// let options = QuantizeOptions::new().max_relative_error(0.05);
    /// let measured = x.clone().try_quantize_dynamic_measured(&q8, &options)?;
    /// assert!(measured.relative_error < 0.05);
    /// let contiguous = Tensor::<2>::from_data(x.to_data(), &device);
    /// let copy = contiguous.try_quantize_dynamic_measured(&q8, &options)?;
    /// assert!((measured.relative_error - copy.relative_error).abs() < 1e-6);
    ///
    /// // Q4 cannot hold it within 1e-3: refused, naming the op and the error.
    /// let q4 = QuantScheme::default().with_value(QuantValue::Q4S);
    /// let tight = QuantizeOptions::new().max_relative_error(1e-3);
    /// let err = x.try_quantize_dynamic_measured(&q4, &tight).unwrap_err();
    /// assert!(err.to_string().contains("quantize_dynamic"), "{err}");
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    fn try_quantize_dynamic_measured(
        self,
        scheme: &QuantScheme,
        options: &QuantizeOptions,
    ) -> MeasuredQuantization<D> {
        self.quantize_dynamic_measured_with(scheme, Policy::shared_strict(), options)
    }

    /// [`TryQuantize::quantize_dynamic_with`] with its round trip measured and held to
    /// `options`' bound, as [`TryQuantize::try_quantize_dynamic_measured`]: where the tensor
    /// was quantized (a fallback device included), against the values it was quantized from
    /// there. A refusal for the error counts as an error of
    /// [`Op::QuantizeDynamic`](crate::policy::Op::QuantizeDynamic) in [`Policy::stats`].
    ///
    /// # Errors
    ///
    /// As [`TryQuantize::quantize_dynamic_with`] and
    /// [`TryQuantize::try_quantize_dynamic_measured`].
    ///
    /// # Fallback
    ///
    /// As [`TryQuantize::quantize_dynamic_with`].
    fn quantize_dynamic_measured_with(
        self,
        scheme: &QuantScheme,
        policy: &Policy,
        options: &QuantizeOptions,
    ) -> MeasuredQuantization<D> {
        let (tensor, error) = quantize_dispatch(self, scheme, policy, Some(options))?;
        Ok(MeasuredQuantization::new(tensor, error.unwrap_or(f64::NAN)))
    }

    /// [`TryQuantize::try_quantize`] with its round trip measured and held to `options`'
    /// bound, as [`TryQuantize::try_quantize_dynamic_measured`] (the error names `quantize`).
    ///
    /// # Errors
    ///
    /// As [`TryQuantize::try_quantize`]; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange)
    /// when the round trip is over the bound or not finite; [`GuardError::Execution`](crate::GuardError::Execution)
    /// when it cannot be read back.
    fn try_quantize_measured(
        self,
        scheme: &QuantScheme,
        qparams: QuantizationParameters,
        options: &QuantizeOptions,
    ) -> MeasuredQuantization<D> {
        const OP: &str = "quantize";
        let original = self.clone().into_dispatch();
        let tensor = self.try_quantize(scheme, qparams)?;
        let quantized = tensor.clone().into_dispatch();
        let error = round_trip::measure_one::<Dispatch>(OP, original, quantized, options)?;
        Ok(MeasuredQuantization::new(tensor, error))
    }
}
}

/// The twins' routed quantization on burn's `Dispatch` backend, measured when asked: the
/// quantized tensor, where the policy placed it, with its round trip's error.
fn quantize_dispatch<const D: usize>(
    tensor: Tensor<D>,
    scheme: &QuantScheme,
    policy: &Policy,
    measure: Option<&QuantizeOptions>,
) -> Result<(Tensor<D>, Option<f64>)> {
    let home = stack_of(&tensor.device());
    let (placed, error) = quantize_routed_measured::<Dispatch, Dispatch, _>(
        tensor.into_dispatch(),
        scheme,
        policy,
        home,
        &|| home.label().to_owned(),
        dispatch_targets(policy),
        measure,
    )?;
    let quantized = match placed {
        Placed::Native(quantized) => quantized,
        Placed::Fallback(held) => held.tensor,
    };
    catch(OP, || Tensor::from_dispatch(quantized)).map(|tensor| (tensor, error))
}
