//! Twins of the creation, conversion, autodiff and misc family: empty/zeros/ones/full (+ _like), from_data/floats/ints/bool, random, arange, eye, cartesian_grid, cast, scalar/data reads, autodiff switches, quantize.
//!
//! Most of burn's creation functions are associated functions (`Tensor::zeros(shape, &device)`),
//! so their twins are associated functions of the `TryCreate*` traits, grouped by the kind bound
//! burn puts on them (`Tensor::<2>::try_zeros(shape, &device)`); `cat` and `stack` (burn's
//! `api/base.rs`) and the Bool masks are among them. Reads whose `try_` name burn already uses
//! for an inherent method (`try_into_scalar`, `try_to_data_as`, …) are the `_checked` methods of
//! [`CheckedRead`], so that method-call syntax never silently picks burn's version.

use std::any::TypeId;
use std::ops::Range;

use burn::tensor::kind::{Basic, Kind, Numeric, TensorKind, Transaction as TransactionKind};
use burn::tensor::quantization::{
    Calibration, CalibrationRange, QuantScheme, QuantizationParameters, global_scale_dtype,
};
use burn::tensor::{
    AsIndex, Bool, Cast, DType, Device, Distribution, Element, ElementConversion, Float, Int,
    Shape, Tensor, TensorCreationOptions, TensorData, Transaction,
};

use super::sealed::Sealed;
use crate::capability::require_fits;
use crate::check::{creation, quant};
use crate::error::{GuardError, Limit, Result, Unsupported};
use crate::panic::catch;
use crate::value_reads::{read_data, read_data_into, read_failed, read_values};

/// The dtype burn will create a `K` tensor with (burn's `TensorCreationOptions::resolve_dtype`):
/// the explicit dtype for Float and Int, else the device default; Bool always uses the device
/// default. Reads the settings without locking them.
fn resolve_dtype<K: Basic>(options: &TensorCreationOptions) -> DType {
    let settings = options.device.settings();
    match <K as TensorKind>::KIND {
        Kind::Float => options.dtype.unwrap_or_else(|| settings.float_dtype.into()),
        Kind::Int => options.dtype.unwrap_or_else(|| settings.int_dtype.into()),
        Kind::Bool => settings.bool_dtype.into(),
    }
}

/// The shape's dims, as a vector.
fn dims_of(shape: &Shape) -> Vec<usize> {
    shape.iter().copied().collect()
}

/// Shape and dtype checks shared by `empty`, `zeros`, `ones`, `full` and `random`.
fn creation_checks<const D: usize, K: Basic>(
    op: &'static str,
    shape: &Shape,
    options: &TensorCreationOptions,
) -> Result<DType> {
    creation::creation_rank(op, &dims_of(shape), D)?;
    creation::creation_dtype(op, <K as TensorKind>::KIND, resolve_dtype::<K>(options))
}

/// The byte rule for a new tensor of `shape` and `dtype` on the options' device, after the
/// other checks.
fn creation_fits(
    op: &'static str,
    shape: &Shape,
    dtype: DType,
    options: &TensorCreationOptions,
) -> Result<()> {
    require_fits(op, shape.as_slice(), dtype, &options.device).map(|_| ())
}

/// The checks of `from_data`, shared with `from_floats`, `from_ints` and `from_bool`.
fn from_data_checks<const D: usize, K: Basic>(
    op: &'static str,
    data: &TensorData,
    options: &TensorCreationOptions,
) -> Result<()> {
    creation::creation_rank(op, &dims_of(data.shape()), D)?;
    let kind = <K as TensorKind>::KIND;
    if !creation::from_data_converts(kind, data.dtype()) {
        // The host holds the data already; the device allocates it again (on wgpu, one buffer).
        require_fits(op, &dims_of(data.shape()), data.dtype(), &options.device)?;
        return Ok(());
    }
    let dtype = creation::creation_dtype(op, kind, resolve_dtype::<K>(options))?;
    creation::data_fits(op, data, dtype)?;
    require_fits(op, &dims_of(data.shape()), dtype, &options.device)?;
    Ok(())
}

/// The checks of `from_dispatch`, for `op` (also `from_primitive`, which ends in it).
fn checked_from_dispatch<const D: usize, K: Basic>(
    op: &'static str,
    tensor: burn::tensor::DispatchTensor,
) -> Result<Tensor<D, K>> {
    use burn_backend::TensorMetadata;

    creation::creation_rank(op, &dims_of(&tensor.shape()), D)?;
    let kind = <K as TensorKind>::KIND;
    let dtype = tensor.dtype();
    if creation::from_data_converts(kind, dtype) {
        creation::creation_dtype(op, kind, dtype)?;
    }
    catch(op, || Tensor::<D, K>::from_dispatch(tensor))
}

/// Fallible twin of [`Transaction::register`]: checks that the tensor is not quantized (burn
/// panics in its float bridge).
///
/// # Errors
///
/// [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor; the transaction is dropped.
///
/// ```
/// use burn::tensor::{Device, Tensor, Transaction};
/// use burn_guard::tensor::try_transaction_register;
///
/// let t = Tensor::<1>::ones([2], &Device::flex());
/// let data = try_transaction_register(Transaction::default(), t)?.execute();
/// assert_eq!(data.len(), 1);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "register")]
pub fn try_transaction_register<const D: usize, K: TransactionKind>(
    transaction: Transaction,
    tensor: Tensor<D, K>,
) -> Result<Transaction> {
    const OP: &str = "register";
    creation::not_quantized(OP, tensor.dtype())?;
    catch(OP, || transaction.register(tensor))
}

/// Checks the read value against `E`, then converts it as burn does.
fn unpack_scalar<E: Element>(op: &'static str, data: TensorData) -> Result<E> {
    creation::data_fits(op, &data, E::dtype())?;
    let values = catch(op, || data.try_into_vec_as::<E>())?
        .map_err(|e| GuardError::from_read(op, e.into()))?;
    let count = values.len();
    values
        .into_iter()
        .next()
        .filter(|_| count == 1)
        .ok_or_else(|| GuardError::OutOfRange {
            op,
            rule: "the tensor must hold exactly one element",
            name: "elements",
            value: count.into(),
            limit: Limit::Exactly(1usize.into()),
        })
}

/// Body of the twin of `into_scalar_async`.
pub(super) async fn into_scalar_async<const D: usize, K: Basic, E: Element>(
    tensor: Tensor<D, K>,
) -> Result<E> {
    const OP: &str = "into_scalar_async";
    creation::scalar_read(OP, &tensor.dims())?;
    let device = tensor.device();
    let data = tensor
        .into_data_async()
        .await
        .map_err(|source| read_failed(OP, &device, source))?;
    unpack_scalar(OP, data)
}

/// Reads `data` as `target`: the conversion must exist and every value must fit.
fn convert_read(op: &'static str, data: TensorData, target: DType) -> Result<TensorData> {
    creation::data_fits(op, &data, target)?;
    catch(op, || data.try_cast(target))?.map_err(|e| GuardError::from_read(op, e.into()))
}

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

/// Fallible twins of the creation, conversion, autodiff and misc family: empty/zeros/ones/full (+ _like), from_data/floats/ints/bool, random, arange, eye, cartesian_grid, cast, scalar/data reads, autodiff switches, quantize.
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryConvert<const D: usize, K: Basic>: Sealed + Sized {
    /// Fallible twin of [`Tensor::empty_like`]: checks that the tensor is not quantized.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor.
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryConvert;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(t.try_empty_like()?.dims(), [2, 3]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "empty_like")]
    fn try_empty_like(&self) -> Result<Self>;

    /// Fallible twin of [`Tensor::zeros_like`]; the check of [`TryConvert::try_empty_like`].
    ///
    /// # Errors
    ///
    /// As [`TryConvert::try_empty_like`].
    ///
    /// ```
    /// use burn::tensor::quantization::QuantScheme;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryConvert;
    ///
    /// let t = Tensor::<1>::ones([4], &Device::flex());
    /// assert_eq!(t.try_zeros_like()?.sum().into_scalar::<f32>(), 0.0);
    /// let q = t.quantize_dynamic(&QuantScheme::default());
    /// assert!(q.try_zeros_like().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "zeros_like")]
    fn try_zeros_like(&self) -> Result<Self>;

    /// Fallible twin of [`Tensor::ones_like`]; the check of [`TryConvert::try_empty_like`].
    ///
    /// # Errors
    ///
    /// As [`TryConvert::try_empty_like`].
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryConvert;
    ///
    /// let t = Tensor::<1, Int>::zeros([3], &Device::flex());
    /// assert_eq!(t.try_ones_like()?.sum().into_scalar::<i64>(), 3);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "ones_like")]
    fn try_ones_like(&self) -> Result<Self>;

    /// Fallible twin of [`Tensor::full_like`]: the check of [`TryConvert::try_empty_like`], and
    /// that `fill_value` is representable in the tensor's dtype (as [`TryCreate::try_full`]; `E: Copy` is
    /// added to burn's bounds).
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor; [`GuardError::NotRepresentable`](crate::GuardError::NotRepresentable) for an
    /// unrepresentable value.
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryConvert;
    ///
    /// let t = Tensor::<1, Int>::zeros([2], &Device::flex());
    /// assert_eq!(t.try_full_like(5)?.sum().into_scalar::<i64>(), 10);
    /// assert!(t.try_full_like(f64::INFINITY).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "full_like")]
    fn try_full_like<E: ElementConversion + Copy>(&self, fill_value: E) -> Result<Self>;

    /// Fallible twin of [`Tensor::cast`] (Float, Int and Bool tensors).
    ///
    /// Checks that a plain [`DType`] argument belongs to the tensor's kind (burn converts it
    /// with `From<DType> for FloatDType/IntDType`, which panics; use `FloatDType`/`IntDType` to
    /// change kind), and that a quantized tensor is not cast to a float dtype (burn: "Should be
    /// Float primitive kind"). `T: Into<DType> + 'static` is added to burn's bounds so the
    /// target can be inspected; `FloatDType`, `IntDType` and `DType` all satisfy it.
    ///
    /// Also checks that the device supports a target dtype other than the tensor's own
    /// (burn's `Device::supports_dtype`): NdArray has no `F16`/`BF16` and panics.
    ///
    /// # Errors
    ///
    /// - [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a target dtype outside the tensor's kind, or a quantized
    ///   tensor.
    /// - [`GuardError::Unsupported`](crate::GuardError::Unsupported) for a target dtype the
    ///   device does not support.
    ///
    /// ```
    /// use burn::tensor::{DType, Device, FloatDType, IntDType, Tensor};
    /// use burn_guard::tensor::TryConvert;
    ///
    /// #[allow(deprecated)]
    /// let on_ndarray = Tensor::<1>::from_floats([1.5], &Device::ndarray());
    /// assert!(on_ndarray.try_cast(FloatDType::F16).is_err());
    /// let t = Tensor::<1>::from_floats([1.5], &Device::flex());
    /// assert_eq!(t.clone().try_cast(IntDType::I64)?.dtype(), DType::I64);
    /// assert_eq!(t.clone().try_cast(FloatDType::F64)?.dtype(), DType::F64);
    /// assert!(t.try_cast(DType::I32).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "cast")]
    fn try_cast<T>(self, dtype: T) -> Result<Tensor<D, T::OutputKind>>
    where
        T: Cast<D, K> + Into<DType> + Copy + 'static;

    /// Fallible twin of [`Tensor::with_gradient_checkpointing_strategy`]: checks that the
    /// tensor has autodiff enabled (burn `assert!`s it).
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) without autodiff.
    ///
    /// ```
    /// use burn::tensor::{Device, GradientCheckpointingStrategy, Tensor};
    /// use burn_guard::tensor::TryConvert;
    ///
    /// let t = Tensor::<1>::ones([2], &Device::flex());
    /// let strategy = GradientCheckpointingStrategy::Disabled;
    /// assert!(t.clone().try_with_gradient_checkpointing_strategy(strategy).is_err());
    /// assert!(t.autodiff().try_with_gradient_checkpointing_strategy(strategy).is_ok());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[cfg(feature = "autodiff")]
    #[doc(alias = "with_gradient_checkpointing_strategy")]
    fn try_with_gradient_checkpointing_strategy(
        self,
        strategy: burn::tensor::GradientCheckpointingStrategy,
    ) -> Result<Self>
    where
        K: burn::tensor::kind::Autodiff;
}

impl<const D: usize, K: Basic> TryConvert<D, K> for Tensor<D, K> {
    fn try_empty_like(&self) -> Result<Self> {
        const OP: &str = "empty_like";
        let dtype = self.like_checks(OP)?;
        self.like_fits(OP, dtype)?;
        catch(OP, || self.empty_like())
    }

    fn try_zeros_like(&self) -> Result<Self> {
        const OP: &str = "zeros_like";
        let dtype = self.like_checks(OP)?;
        self.like_fits(OP, dtype)?;
        catch(OP, || self.zeros_like())
    }

    fn try_ones_like(&self) -> Result<Self> {
        const OP: &str = "ones_like";
        let dtype = self.like_checks(OP)?;
        self.like_fits(OP, dtype)?;
        catch(OP, || self.ones_like())
    }

    fn try_full_like<E: ElementConversion + Copy>(&self, fill_value: E) -> Result<Self> {
        const OP: &str = "full_like";
        let dtype = self.like_checks(OP)?;
        creation::scalar_fits(OP, fill_value.elem::<f64>(), dtype)?;
        self.like_fits(OP, dtype)?;
        catch(OP, || self.full_like(fill_value))
    }

    fn try_cast<T>(self, dtype: T) -> Result<Tensor<D, T::OutputKind>>
    where
        T: Cast<D, K> + Into<DType> + Copy + 'static,
    {
        const OP: &str = "cast";
        let plain = TypeId::of::<T>() == TypeId::of::<DType>();
        creation::cast(
            OP,
            <K as TensorKind>::KIND,
            self.dtype(),
            dtype.into(),
            plain,
            <T::OutputKind as TensorKind>::KIND,
        )?;
        let target: DType = dtype.into();
        if target != self.dtype() {
            let device = self.device();
            let supported = catch(OP, || device.supports_dtype(target)).unwrap_or(false);
            if !supported {
                return Err(GuardError::Unsupported(Unsupported::new(
                    OP,
                    crate::capability::stack_of(&device).label(),
                    format!("dtype {target:?}"),
                    crate::capability::Gap::new(
                        crate::capability::Effect::Unimplemented,
                        "the device does not support this dtype (burn's supports_dtype)",
                    ),
                )));
            }
        }
        catch(OP, || T::cast(self, dtype))
    }

    #[cfg(feature = "autodiff")]
    fn try_with_gradient_checkpointing_strategy(
        self,
        strategy: burn::tensor::GradientCheckpointingStrategy,
    ) -> Result<Self>
    where
        K: burn::tensor::kind::Autodiff,
    {
        const OP: &str = "with_gradient_checkpointing_strategy";
        creation::autodiff_state(
            OP,
            self.is_autodiff(),
            "a gradient checkpointing strategy needs an autodiff tensor; call Tensor::autodiff first",
            "autodiff=false",
        )?;
        catch(OP, || self.with_gradient_checkpointing_strategy(strategy))
    }
}

/// Fallible twins of the creation-family methods burn defines on Float tensors only.
///
/// Sealed: implemented for `burn::Tensor<D>` only.
pub trait TryConvertFloat<const D: usize>: Sealed + Sized {
    /// Fallible twin of [`Tensor::random_like`]: checks that the tensor is not quantized and —
    /// beyond burn — the distribution's parameters, as [`TryCreateNumeric::try_random`] does.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor; for the distribution, what
    /// [`check::creation::distribution`](crate::check::creation::distribution) returns.
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Distribution, Tensor};
    /// use burn_guard::tensor::TryConvertFloat;
    ///
    /// let t = Tensor::<1>::zeros([3], &Device::flex());
    /// assert_eq!(t.try_random_like(Distribution::Default)?.dims(), [3]);
    /// assert!(t.try_random_like(Distribution::Bernoulli(2.0)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "random_like")]
    fn try_random_like(&self, distribution: Distribution) -> Result<Self>;

    /// Fallible twin of [`Tensor::require_grad`]; the checks of
    /// [`TryConvertFloat::try_set_require_grad`] with `true`.
    ///
    /// # Errors
    ///
    /// As [`TryConvertFloat::try_set_require_grad`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryConvertFloat;
    ///
    /// let t = Tensor::<1>::ones([2], &Device::flex());
    /// assert!(t.clone().try_require_grad().is_err());
    /// assert!(t.autodiff().try_require_grad()?.is_require_grad());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "require_grad")]
    fn try_require_grad(self) -> Result<Self>;

    /// Fallible twin of [`Tensor::set_require_grad`].
    ///
    /// With `true` on a non-quantized tensor, checks that autodiff is enabled (burn
    /// `assert!`s it) and that the tensor is a leaf (burn-autodiff panics "Can't convert a non
    /// leaf tensor into a tracked tensor"). `false`, and quantized tensors, are always accepted.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) naming the rule.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryConvertFloat;
    ///
    /// let leaf = Tensor::<1>::ones([2], &Device::flex().autodiff()).require_grad();
    /// let derived = leaf * 2.0;
    /// assert!(derived.clone().try_set_require_grad(true).is_err());
    /// assert!(derived.try_set_require_grad(false).is_ok());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "set_require_grad")]
    fn try_set_require_grad(self, require_grad: bool) -> Result<Self>;

    /// Fallible twin of [`Tensor::categorical`].
    ///
    /// Checks `num_samples > 0` (burn `assert!`s it) and a non-empty last dimension (burn
    /// divides by it). A zero-sized leading dimension makes burn panic in a reshape; we compute
    /// it correctly instead: an empty Int tensor of shape `[leading.., num_samples]`.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for `num_samples == 0`; [`GuardError::Empty`](crate::GuardError::Empty) for no category.
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryConvertFloat;
    ///
    /// let probs = Tensor::<2>::from_floats([[0.0, 1.0], [1.0, 0.0]], &Device::flex());
    /// let samples = probs.clone().try_categorical(3)?;
    /// assert_eq!(samples.dims(), [2, 3]);
    /// assert!(probs.try_categorical(0).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "categorical")]
    fn try_categorical(self, num_samples: usize) -> Result<Tensor<D, Int>>;

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
    /// use burn_guard::tensor::TryConvertFloat;
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
    fn try_quantize(self, scheme: &QuantScheme, qparams: QuantizationParameters) -> Result<Self>;

    /// Fallible twin of [`Tensor::is_distributed`]: checks that the tensor is not quantized
    /// (burn: `unimplemented!()`) and is an autodiff tensor (burn-dispatch: "Requires autodiff
    /// tensor.").
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) naming the rule.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryConvertFloat;
    ///
    /// assert!(!Tensor::<1>::ones([2], &Device::flex().autodiff()).try_is_distributed()?);
    /// assert!(Tensor::<1>::ones([2], &Device::flex()).try_is_distributed().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "is_distributed")]
    fn try_is_distributed(&self) -> Result<bool>;

    /// Fallible twin of [`Tensor::set_distributed`]: checks that the tensor is not quantized
    /// (burn: `unimplemented!()`), is an autodiff tensor (burn-dispatch: "Requires autodiff
    /// tensor.", although burn's doc says the call does nothing without autodiff), and runs on a
    /// backend with distributed support: CubeCL (wgpu, CUDA, …) or remote (burn-dispatch panics
    /// for Flex and NdArray). The backend is read from the device's `Debug` name.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) naming the rule.
    ///
    /// ```
    /// use burn_backend::distributed::DistributedParamId;
    /// use burn::tensor::quantization::QuantScheme;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryConvertFloat;
    ///
    /// let q = Tensor::<1>::ones([4], &Device::flex()).quantize_dynamic(&QuantScheme::default());
    /// assert!(q.try_set_distributed(DistributedParamId::new()).is_err());
    /// let flex = Tensor::<1>::ones([4], &Device::flex().autodiff());
    /// assert!(flex.try_set_distributed(DistributedParamId::new()).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "set_distributed")]
    fn try_set_distributed(
        self,
        param_id: burn_backend::distributed::DistributedParamId,
    ) -> Result<Self>;

    /// Fallible twin of [`Tensor::backward`]: checks that the tensor is tracked by autodiff
    /// (burn `assert!`s it; a tensor is tracked when it requires gradients or derives from one
    /// that does).
    ///
    /// A second `backward` over a graph whose tape an earlier `backward` consumed panics in
    /// burn-autodiff ("graph tape has already been consumed"). burn exposes no way to see that
    /// before the call, so no check refuses it: the backstop catches it. The panic comes from
    /// burn-autodiff's tape bookkeeping (measured on Flex), not from a backend kernel.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for an untracked
    /// tensor; [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) for a consumed
    /// graph.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryConvertFloat;
    ///
    /// let device = Device::flex().autodiff();
    /// let x = Tensor::<1>::ones([2], &device).require_grad();
    /// let grads = (x.clone() * 3.0).sum().try_backward()?;
    /// assert_eq!(x.grad(&grads).unwrap().sum().into_scalar::<f32>(), 6.0);
    /// assert!(Tensor::<1>::ones([2], &device).try_backward().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[cfg(feature = "autodiff")]
    #[doc(alias = "backward")]
    fn try_backward(&self) -> Result<burn::tensor::Gradients>;

    /// Fallible twin of [`Tensor::grad_replace`].
    ///
    /// Checks that the tensor is not quantized (burn: "Should be Float primitive kind") and is
    /// an autodiff tensor ("Requires autodiff tensor."), that `grad` is not an autodiff tensor
    /// ("replacement gradients must use the inner backend") and that `grad` is on the tensor's
    /// device without autodiff (burn panics when the backends differ; a different device of the
    /// same backend is refused too, beyond burn). A quantized `grad` is dequantized by burn.
    ///
    /// # Errors
    ///
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for the tensor's
    ///   or the gradient's state.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryConvertFloat;
    ///
    /// let device = Device::flex().autodiff();
    /// let x = Tensor::<1>::ones([2], &device).require_grad();
    /// let mut grads = (x.clone() * 3.0).sum().backward();
    /// assert!(x.try_grad_replace(&mut grads, Tensor::zeros([2], &device)).is_err());
    /// x.try_grad_replace(&mut grads, Tensor::zeros([2], &Device::flex()))?;
    /// assert_eq!(x.grad(&grads).unwrap().sum().into_scalar::<f32>(), 0.0);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[cfg(feature = "autodiff")]
    #[doc(alias = "grad_replace")]
    fn try_grad_replace(&self, grads: &mut burn::tensor::Gradients, grad: Tensor<D>) -> Result<()>;

    /// Fallible twin of [`Tensor::int`].
    ///
    /// burn checks nothing; NdArray panics on NaN, ±inf and values outside `i64` (Flex
    /// saturates). On NdArray the twin reads the values (one synchronous read; skipped inside
    /// [`value_reads::vouched`](crate::value_reads::vouched)) and refuses those, see
    /// [`check::creation::float_to_int`](crate::check::creation::float_to_int). Other backends
    /// are not read.
    ///
    /// # Errors
    ///
    /// [`GuardError::NonFinite`](crate::GuardError::NonFinite) or
    /// [`GuardError::NotRepresentable`](crate::GuardError::NotRepresentable) on NdArray.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryConvertFloat;
    ///
    /// let t = Tensor::<1>::from_floats([1.5, -2.5], &Device::flex());
    /// assert_eq!(t.try_int()?.into_data().to_vec::<i32>().unwrap(), vec![1, -2]);
    /// #[allow(deprecated)]
    /// let on_ndarray = Tensor::<1>::from_floats([f32::NAN], &Device::ndarray());
    /// assert!(on_ndarray.try_int().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "int")]
    fn try_int(self) -> Result<Tensor<D, burn::tensor::Int>>;
}

impl<const D: usize> TryConvertFloat<D> for Tensor<D> {
    fn try_int(self) -> Result<Tensor<D, burn::tensor::Int>> {
        const OP: &str = "int";
        let quirks = crate::capability::quirks_of(&self.device());
        if quirks.float_to_int_unrepresentable_panics {
            let values: Vec<f64> = read_values(OP, &self)?;
            creation::float_to_int(OP, &values, &quirks)?;
        }
        catch(OP, || self.int())
    }

    fn try_random_like(&self, distribution: Distribution) -> Result<Self> {
        const OP: &str = "random_like";
        let dtype = self.like_checks(OP)?;
        creation::distribution(OP, distribution, dtype)?;
        self.like_fits(OP, dtype)?;
        catch(OP, || self.random_like(distribution))
    }

    fn try_require_grad(self) -> Result<Self> {
        const OP: &str = "require_grad";
        require_grad_checks(OP, &self, true)?;
        catch(OP, || self.require_grad())
    }

    fn try_set_require_grad(self, require_grad: bool) -> Result<Self> {
        const OP: &str = "set_require_grad";
        require_grad_checks(OP, &self, require_grad)?;
        catch(OP, || self.set_require_grad(require_grad))
    }

    fn try_categorical(self, num_samples: usize) -> Result<Tensor<D, Int>> {
        const OP: &str = "categorical";
        let dims = self.dims();
        let empty = creation::categorical(OP, &dims, num_samples)?;
        let mut out = dims.to_vec();
        if let Some(last) = out.last_mut() {
            *last = num_samples;
        }
        let device = self.device();
        require_fits(OP, &out, resolve_dtype::<Int>(&(&device).into()), &device)?;
        if empty {
            return catch(OP, || Tensor::<D, Int>::zeros(out, &device));
        }
        catch(OP, || self.categorical(num_samples))
    }

    fn try_quantize(self, scheme: &QuantScheme, qparams: QuantizationParameters) -> Result<Self> {
        const OP: &str = "quantize";
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

    fn try_is_distributed(&self) -> Result<bool> {
        const OP: &str = "is_distributed";
        creation::distributed(OP, self.dtype(), self.is_autodiff(), true)?;
        catch(OP, || self.is_distributed())
    }

    fn try_set_distributed(
        self,
        param_id: burn_backend::distributed::DistributedParamId,
    ) -> Result<Self> {
        const OP: &str = "set_distributed";
        let supported = distributed_backend(&self.device());
        creation::distributed(OP, self.dtype(), self.is_autodiff(), supported)?;
        catch(OP, || self.set_distributed(param_id))
    }

    #[cfg(feature = "autodiff")]
    fn try_backward(&self) -> Result<burn::tensor::Gradients> {
        const OP: &str = "backward";
        creation::autodiff_state(
            OP,
            self.is_tracked(),
            "backward needs a tracked autodiff tensor; call Tensor::autodiff().require_grad() on the source leaf",
            "tracked=false",
        )?;
        catch(OP, || self.backward())
    }

    #[cfg(feature = "autodiff")]
    fn try_grad_replace(&self, grads: &mut burn::tensor::Gradients, grad: Tensor<D>) -> Result<()> {
        const OP: &str = "grad_replace";
        creation::not_quantized(OP, self.dtype())?;
        creation::autodiff_state(
            OP,
            self.is_autodiff(),
            "replacing a gradient needs an autodiff tensor",
            "autodiff=false",
        )?;
        creation::autodiff_state(
            OP,
            !grad.is_autodiff(),
            "the replacement gradient must be on the inner backend; call Tensor::inner first",
            "grad autodiff=true",
        )?;
        crate::capability::same_device(OP, &self.device().without_autodiff(), &grad.device())?;
        catch(OP, || self.grad_replace(grads, grad))
    }
}

/// The checks every `*_like` twin shares: the tensor is not quantized (`like_checks`, which
/// returns the dtype), and, after the twin's own checks, a tensor of its shape and dtype fits on
/// its device (`like_fits`; it does, unless the tensor itself was never allocated: a lazy tensor
/// over the device's largest buffer).
trait LikeChecks {
    fn like_checks(&self, op: &'static str) -> Result<DType>;
    fn like_fits(&self, op: &'static str, dtype: DType) -> Result<()>;
}

impl<const D: usize, K: Basic> LikeChecks for Tensor<D, K> {
    fn like_checks(&self, op: &'static str) -> Result<DType> {
        let dtype = self.dtype();
        creation::not_quantized(op, dtype)?;
        Ok(dtype)
    }

    fn like_fits(&self, op: &'static str, dtype: DType) -> Result<()> {
        require_fits(op, &self.dims(), dtype, &self.device()).map(|_| ())
    }
}

/// Whether the device's backend supports distributed parameters (burn-dispatch implements
/// them for CubeCL and remote tensors only), read from the device's dispatch variant.
fn distributed_backend(device: &Device) -> bool {
    matches!(
        crate::capability::stack_of(device).base(),
        Some(crate::capability::Layer::Cubecl(_) | crate::capability::Layer::Remote)
    )
}

/// The facts `set_require_grad` depends on: quantized, autodiff, leaf.
fn require_grad_checks<const D: usize>(
    op: &'static str,
    tensor: &Tensor<D>,
    require_grad: bool,
) -> Result<()> {
    let quantized = matches!(tensor.dtype(), DType::QFloat(_));
    #[cfg(feature = "autodiff")]
    let non_leaf = tensor.is_tracked() && !tensor.is_require_grad();
    #[cfg(not(feature = "autodiff"))]
    let non_leaf = false;
    creation::require_grad(op, require_grad, quantized, tensor.is_autodiff(), non_leaf)
}

/// Twins of burn's associated functions of `Tensor<D, K>` for any kind `K` (burn's `api/base.rs` and
/// `api/extension.rs`): `Tensor::<2>::try_zeros([2, 3], &device)?`, `Tensor::try_cat(vec![a, b], 0)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreate<const D: usize, K: Basic>: Sealed + Sized {
    /// Fallible twin of [`Tensor::empty`].
    ///
    /// Checks that `D > 0`, that the shape has rank `D`, and that an explicit dtype in `options`
    /// belongs to the kind (a float dtype for Float, an integer dtype for Int; Bool ignores it, as
    /// burn does).
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a shape of another rank.
    /// - [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a dtype of another kind.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{DType, Device, Float, Tensor};
    /// use burn_guard::tensor::TryCreate;
    ///
    /// let device = Device::flex();
    /// let t: Tensor<2> = Tensor::<2, Float>::try_empty([2, 3], &device)?;
    /// assert_eq!(t.dims(), [2, 3]);
    /// assert!(Tensor::<2, Float>::try_empty([2, 3, 4], &device).is_err());
    /// assert!(Tensor::<2, Float>::try_empty([2, 3], (&device, DType::I32)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "empty")]
    fn try_empty<S: Into<Shape>>(
        shape: S,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self>;

    /// Fallible twin of [`Tensor::zeros`]; the same checks as [`TryCreate::try_empty`].
    ///
    /// # Errors
    ///
    /// As [`TryCreate::try_empty`].
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryCreate;
    ///
    /// let t: Tensor<1, Int> = Tensor::<1, Int>::try_zeros([3], &Device::flex())?;
    /// assert_eq!(t.sum().into_scalar::<i64>(), 0);
    /// let err = Tensor::<1, Int>::try_zeros([3, 1], &Device::flex()).unwrap_err();
    /// assert!(err.to_string().starts_with("zeros: the shape's rank must equal the tensor's rank D"));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "zeros")]
    fn try_zeros<S: Into<Shape>>(
        shape: S,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self>;

    /// Fallible twin of [`Tensor::ones`]; the same checks as [`TryCreate::try_empty`].
    ///
    /// # Errors
    ///
    /// As [`TryCreate::try_empty`].
    ///
    /// ```
    /// use burn::tensor::{Device, Float, Tensor};
    /// use burn_guard::tensor::TryCreate;
    ///
    /// let t: Tensor<2> = Tensor::<2, Float>::try_ones([2, 2], &Device::flex())?;
    /// assert_eq!(t.sum().into_scalar::<f32>(), 4.0);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "ones")]
    fn try_ones<S: Into<Shape>>(
        shape: S,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self>;

    /// Fallible twin of [`Tensor::full`].
    ///
    /// The checks of [`TryCreate::try_empty`], and that `fill_value` is representable in the tensor's dtype
    /// (burn-std's `Scalar::new` panics on NaN, ±inf or a value outside `i64` for an integer dtype;
    /// beyond burn, a value outside a narrower integer dtype is refused too: NdArray panics on it
    /// and Flex silently wraps it around).
    /// `E: Copy` is added to burn's bounds so the value can be checked before it is handed over;
    /// every burn element type is `Copy`. Integer values are compared through `f64`, so a value
    /// within `2^10` of `i64::MAX` is refused although burn would accept it.
    ///
    /// # Errors
    ///
    /// As [`TryCreate::try_empty`], and [`GuardError::NotRepresentable`](crate::GuardError::NotRepresentable) for an unrepresentable value.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryCreate;
    ///
    /// let device = Device::flex();
    /// let t: Tensor<1, Int> = Tensor::<1, Int>::try_full([2], 7, &device)?;
    /// assert_eq!(t.sum().into_scalar::<i64>(), 14);
    /// assert!(Tensor::<1, Int>::try_full([2], f32::NAN, &device).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "full")]
    fn try_full<S: Into<Shape>, E: ElementConversion + Copy>(
        shape: S,
        fill_value: E,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self>;

    /// Fallible twin of [`Tensor::from_data`].
    ///
    /// Checks that `D > 0` and the data has rank `D`; that the dtype the tensor is created with
    /// belongs to the kind (burn panics for a Float tensor; for an Int tensor given a float dtype
    /// burn stores floats in an Int tensor, which we refuse too); that the data converts to it
    /// (quantized data only into a Float tensor); and that every value fits an integer dtype
    /// (burn-std's conversion panics on the first that does not).
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for data of another rank.
    /// - [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for the dtype; [`GuardError::NotRepresentable`](crate::GuardError::NotRepresentable) for a value that
    ///   does not fit.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Float, Tensor, TensorData};
    /// use burn_guard::tensor::TryCreate;
    ///
    /// let device = Device::flex();
    /// let t: Tensor<2> = Tensor::<2, Float>::try_from_data([[1.0, 2.0]], &device)?;
    /// assert_eq!(t.dims(), [1, 2]);
    /// assert!(Tensor::<1, Float>::try_from_data([[1.0, 2.0]], &device).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "from_data")]
    fn try_from_data<T: Into<TensorData>>(
        data: T,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self>;

    /// Fallible twin of [`Tensor::from_dispatch`] (burn's `extension` API).
    ///
    /// Checks that the dispatch tensor's dtype belongs to the kind `K` (burn panics "Expected kind
    /// …"; a quantized tensor is a Float tensor) and — beyond burn, which does not check it and
    /// returns a tensor whose rank is not `D` — that its rank is `D`.
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for another rank.
    /// - [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for the dtype.
    ///
    /// ```
    /// use burn::tensor::{Device, Float, Int, Tensor};
    /// use burn_guard::tensor::TryCreate;
    ///
    /// let t = Tensor::<1>::ones([2], &Device::flex());
    /// let back: Tensor<1> = Tensor::<1, Float>::try_from_dispatch(t.clone().into_dispatch())?;
    /// assert_eq!(back.dims(), [2]);
    /// assert!(Tensor::<1, Int>::try_from_dispatch(t.clone().into_dispatch()).is_err());
    /// assert!(Tensor::<2, Float>::try_from_dispatch(t.into_dispatch()).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "from_dispatch")]
    fn try_from_dispatch(tensor: burn::tensor::DispatchTensor) -> Result<Self>;

    /// Fallible twin of [`Tensor::from_bridge`] (burn's `extension` API).
    ///
    /// Checks, as burn does, that the bridge tensor's variant and dtype are of the kind `K`
    /// (burn panics "Expected kind …": a Float tensor's bridge read back as Int, say) and —
    /// beyond burn, which does not check it and returns a tensor whose rank is not `D` — that
    /// its rank is `D`. See [`check::creation::bridge_kind`](crate::check::creation::bridge_kind).
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for another rank.
    /// - [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for the kind.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryCreate;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(Tensor::<2>::try_from_bridge(t.clone().into_bridge())?.dims(), [2, 3]);
    /// assert!(Tensor::<2, Int>::try_from_bridge(t.clone().into_bridge()).is_err());
    /// assert!(Tensor::<3>::try_from_bridge(t.into_bridge()).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "from_bridge")]
    fn try_from_bridge(tensor: burn::tensor::kind::BridgeTensor) -> Result<Self>;

    /// Fallible twin of [`Tensor::from_primitive`] (burn's `extension` API).
    ///
    /// Wraps the primitive as burn does, then applies the checks of
    /// [`TryCreate::try_from_dispatch`]: the primitive's dtype belongs to the kind `K` and its
    /// rank is `D`. The primitive's Rust type does not fix its kind: Flex and NdArray use one
    /// type for Float and Int tensors, so a Float primitive read back as Int makes burn panic
    /// ("Expected kind Int, got dtype F32"), and burn never checks the rank.
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for another rank.
    /// - [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for the dtype.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_flex::Flex;
    /// use burn_guard::tensor::TryCreate;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// let primitive = t.try_into_primitive::<Flex>().unwrap();
    /// let back = Tensor::<2>::try_from_primitive::<Flex>(primitive.clone())?;
    /// assert_eq!(back.dims(), [2, 3]);
    /// assert!(Tensor::<2, Int>::try_from_primitive::<Flex>(primitive.clone()).is_err());
    /// assert!(Tensor::<3>::try_from_primitive::<Flex>(primitive).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "from_primitive")]
    fn try_from_primitive<B: burn_backend::Backend>(
        primitive: <K as burn::tensor::BackendPrimitive<B>>::Primitive,
    ) -> Result<Self>
    where
        K: burn::tensor::BackendPrimitive<B>,
        burn::tensor::DispatchTensor: burn_dispatch::DispatchKindConversion<B>;

    /// Fallible twin of [`Tensor::cat`].
    ///
    /// Checks that the list is non-empty, `dim` is in `-D..D`, the shapes agree except along
    /// `dim`, and every tensor is on the first one's device.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for an empty list.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) listing every shape.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch): burn does not check
    ///   this; the backend would panic or mix devices.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryCreate;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<2>::ones([2, 3], &device);
    /// let b = Tensor::<2>::zeros([1, 3], &device);
    /// assert_eq!(Tensor::try_cat(vec![a.clone(), b], 0)?.dims(), [3, 3]);
    /// assert!(Tensor::try_cat(vec![a, Tensor::<2>::zeros([1, 4], &device)], 0).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "cat")]
    fn try_cat(tensors: Vec<Self>, dim: impl AsIndex) -> Result<Self>;

    /// Fallible twin of [`Tensor::stack`].
    ///
    /// Checks that `D2 == D + 1`, the list is non-empty, `dim` is in `-D2..D2`, every shape is
    /// equal and every tensor is on the first one's device.
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) when `D2 != D + 1`.
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for an empty list.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) listing every shape.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch) (not checked by burn).
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryCreate;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<1>::ones([3], &device);
    /// let stacked: Tensor<2> = Tensor::try_stack(vec![a.clone(), a], 0)?;
    /// assert_eq!(stacked.dims(), [2, 3]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "stack")]
    fn try_stack<const D2: usize>(tensors: Vec<Self>, dim: impl AsIndex) -> Result<Tensor<D2, K>>;
}

impl<const D: usize, K: Basic> TryCreate<D, K> for Tensor<D, K> {
    fn try_empty<S: Into<Shape>>(
        shape: S,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self> {
        const OP: &str = "empty";
        let (shape, options) = (shape.into(), options.into());
        let dtype = creation_checks::<D, K>(OP, &shape, &options)?;
        creation_fits(OP, &shape, dtype, &options)?;
        catch(OP, || Tensor::<D, K>::empty(shape, options))
    }
    fn try_zeros<S: Into<Shape>>(
        shape: S,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self> {
        const OP: &str = "zeros";
        let (shape, options) = (shape.into(), options.into());
        let dtype = creation_checks::<D, K>(OP, &shape, &options)?;
        creation_fits(OP, &shape, dtype, &options)?;
        catch(OP, || Tensor::<D, K>::zeros(shape, options))
    }
    fn try_ones<S: Into<Shape>>(
        shape: S,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self> {
        const OP: &str = "ones";
        let (shape, options) = (shape.into(), options.into());
        let dtype = creation_checks::<D, K>(OP, &shape, &options)?;
        creation_fits(OP, &shape, dtype, &options)?;
        catch(OP, || Tensor::<D, K>::ones(shape, options))
    }
    fn try_full<S: Into<Shape>, E: ElementConversion + Copy>(
        shape: S,
        fill_value: E,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self> {
        const OP: &str = "full";
        let (shape, options) = (shape.into(), options.into());
        let dtype = creation_checks::<D, K>(OP, &shape, &options)?;
        creation::scalar_fits(OP, fill_value.elem::<f64>(), dtype)?;
        creation_fits(OP, &shape, dtype, &options)?;
        catch(OP, || Tensor::<D, K>::full(shape, fill_value, options))
    }
    fn try_from_data<T: Into<TensorData>>(
        data: T,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self> {
        const OP: &str = "from_data";
        let (data, options) = (data.into(), options.into());
        from_data_checks::<D, K>(OP, &data, &options)?;
        catch(OP, || Tensor::<D, K>::from_data(data, options))
    }
    fn try_from_dispatch(tensor: burn::tensor::DispatchTensor) -> Result<Self> {
        checked_from_dispatch("from_dispatch", tensor)
    }
    fn try_from_bridge(tensor: burn::tensor::kind::BridgeTensor) -> Result<Self> {
        const OP: &str = "from_bridge";
        creation::creation_rank(OP, &dims_of(&tensor.shape()), D)?;
        let variant = if tensor.is_bool() {
            Kind::Bool
        } else if tensor.is_int() {
            Kind::Int
        } else {
            Kind::Float
        };
        creation::bridge_kind(
            OP,
            <K as TensorKind>::KIND,
            variant,
            tensor.is_qfloat(),
            tensor.dtype(),
        )?;
        catch(OP, || Tensor::<D, K>::from_bridge(tensor))
    }
    fn try_from_primitive<B: burn_backend::Backend>(
        primitive: <K as burn::tensor::BackendPrimitive<B>>::Primitive,
    ) -> Result<Self>
    where
        K: burn::tensor::BackendPrimitive<B>,
        burn::tensor::DispatchTensor: burn_dispatch::DispatchKindConversion<B>,
    {
        const OP: &str = "from_primitive";
        // burn's own two steps, which cannot panic; the checks then see the dtype and rank.
        let tensor = <K as burn::tensor::BackendPrimitive<B>>::from_primitive(primitive);
        let dispatch = <burn::tensor::DispatchTensor as burn_dispatch::DispatchKindConversion<B>>::from_backend(tensor);
        checked_from_dispatch::<D, K>(OP, dispatch)
    }
    fn try_cat(tensors: Vec<Self>, dim: impl AsIndex) -> Result<Self> {
        super::base::cat::<D, K>(tensors, dim)
    }
    fn try_stack<const D2: usize>(tensors: Vec<Self>, dim: impl AsIndex) -> Result<Tensor<D2, K>> {
        super::base::stack::<D, D2, K>(tensors, dim)
    }
}

/// Twins of burn's associated functions of `Tensor<D, K>` for a numeric kind (burn's `api/numeric.rs`):
/// `Tensor::<2>::try_random(shape, distribution, &device)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreateNumeric<const D: usize, K: Numeric>: Sealed + Sized {
    /// Fallible twin of [`Tensor::random`].
    ///
    /// Checks an explicit dtype's kind, and — beyond burn, which checks neither — that the shape
    /// has rank `D` (burn returns a tensor whose rank is not `D`, and a later `dims()` panics) and
    /// that the distribution's parameters are valid (Flex and NdArray sample on the host and panic
    /// on `Uniform(lo >= hi)`, `Bernoulli(p ∉ [0, 1])` or a non-finite `Normal` deviation).
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a shape of another rank.
    /// - [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for the dtype; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange),
    ///   [`GuardError::NonFinite`](crate::GuardError::NonFinite), [`GuardError::NotRepresentable`](crate::GuardError::NotRepresentable) or [`GuardError::OutOfOrder`](crate::GuardError::OutOfOrder) for the
    ///   distribution's parameters (see [`check::creation::distribution`](crate::check::creation::distribution)).
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Distribution, Float, Tensor};
    /// use burn_guard::tensor::TryCreateNumeric;
    ///
    /// let device = Device::flex();
    /// let t: Tensor<2> = Tensor::<2, Float>::try_random([2, 3], Distribution::Default, &device)?;
    /// assert_eq!(t.dims(), [2, 3]);
    /// assert!(Tensor::<2, Float>::try_random([2, 3], Distribution::Uniform(1.0, 0.0), &device).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "random")]
    fn try_random<S: Into<Shape>>(
        shape: S,
        distribution: Distribution,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self>;
}

impl<const D: usize, K: Numeric> TryCreateNumeric<D, K> for Tensor<D, K> {
    fn try_random<S: Into<Shape>>(
        shape: S,
        distribution: Distribution,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self> {
        const OP: &str = "random";
        let (shape, options) = (shape.into(), options.into());
        let dtype = creation_checks::<D, K>(OP, &shape, &options)?;
        creation::distribution(OP, distribution, dtype)?;
        creation_fits(OP, &shape, dtype, &options)?;
        catch(OP, || Tensor::<D, K>::random(shape, distribution, options))
    }
}

/// Twins of burn's associated functions of `Tensor<2, K>` for a numeric kind (burn's `api/numeric.rs`):
/// `Tensor::<2>::try_eye(3, &device)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreateMatrix<K: Numeric>: Sealed + Sized {
    /// Fallible twin of [`Tensor::eye`].
    ///
    /// burn panics on `eye(0)` (its `unsqueeze` reshapes `[0]` to `[1, 0]`, and reshape reads the
    /// `0` as "keep this dim"); we compute it correctly instead: an empty `[0, 0]` tensor.
    ///
    /// # Errors
    ///
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows; a backend panic is returned as
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic).
    ///
    /// ```
    /// use burn::tensor::{Device, Float, Tensor};
    /// use burn_guard::tensor::TryCreateMatrix;
    ///
    /// let device = Device::flex();
    /// let eye: Tensor<2> = Tensor::<2, Float>::try_eye(3, &device)?;
    /// assert_eq!(eye.sum().into_scalar::<f32>(), 3.0);
    /// assert_eq!(Tensor::<2, Float>::try_eye(0, &device)?.dims(), [0, 0]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "eye")]
    fn try_eye(size: usize, device: &Device) -> Result<Self>;
}

impl<K: Numeric> TryCreateMatrix<K> for Tensor<2, K> {
    fn try_eye(size: usize, device: &Device) -> Result<Self> {
        const OP: &str = "eye";
        let dtype = resolve_dtype::<K>(&device.into());
        require_fits(OP, &[size, size], dtype, device)?;
        if creation::eye_is_empty(size) {
            return catch(OP, || Tensor::<2, K>::zeros([0, 0], device));
        }
        catch(OP, || Tensor::<2, K>::eye(size, device))
    }
}

/// Twins of burn's associated functions of `Tensor<D, Float>` (burn's `api/float.rs`):
/// `Tensor::<1>::try_from_floats([1.0, 2.0], &device)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreateFloat<const D: usize>: Sealed + Sized {
    /// Fallible twin of [`Tensor::from_floats`]: the data is converted to `f32` first, then
    /// created as [`TryCreate::try_from_data`] does.
    ///
    /// # Errors
    ///
    /// As [`TryCreate::try_from_data`]; quantized data cannot be converted to `f32`.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryCreateFloat;
    ///
    /// let t: Tensor<1> = Tensor::try_from_floats([1.0, 2.0], &Device::flex())?;
    /// assert_eq!(t.dims(), [2]);
    /// assert!(Tensor::<2>::try_from_floats([1.0, 2.0], &Device::flex()).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "from_floats")]
    fn try_from_floats<A: Into<TensorData>>(floats: A, device: &Device) -> Result<Self>;
}

impl<const D: usize> TryCreateFloat<D> for Tensor<D> {
    fn try_from_floats<A: Into<TensorData>>(floats: A, device: &Device) -> Result<Self> {
        const OP: &str = "from_floats";
        let data = floats.into();
        creation::data_fits(OP, &data, DType::F32)?;
        let data = catch(OP, || data.convert::<f32>())?;
        from_data_checks::<D, Float>(OP, &data, &device.into())?;
        catch(OP, || Tensor::<D>::from_data(data, device))
    }
}

/// Twins of burn's associated functions of `Tensor<D, Int>` (burn's `api/int.rs`):
/// `Tensor::<1, Int>::try_from_ints([1, 2], &device)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreateInt<const D: usize>: Sealed + Sized {
    /// Fallible twin of [`Tensor::from_ints`]: the data is converted to `i32` first (every value
    /// must fit), then created as [`TryCreate::try_from_data`] does.
    ///
    /// # Errors
    ///
    /// As [`TryCreate::try_from_data`]; a value outside `i32` is refused.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryCreateInt;
    ///
    /// let t: Tensor<1, Int> = Tensor::try_from_ints([1, 2], &Device::flex())?;
    /// assert_eq!(t.dims(), [2]);
    /// assert!(Tensor::<1, Int>::try_from_ints([5_000_000_000i64], &Device::flex()).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "from_ints")]
    fn try_from_ints<A: Into<TensorData>>(ints: A, device: &Device) -> Result<Self>;

    /// Fallible twin of [`cartesian_grid`](burn::tensor::cartesian_grid) and
    /// [`Tensor::cartesian_grid`]: `Tensor::<D, Int>::try_cartesian_grid::<S, D2>(shape, device)`.
    ///
    /// Checks `D2 == D + 1` and that the shape has rank `D` (burn indexes it out of bounds when it
    /// is shorter, and repeats along dims that do not exist when it is longer). burn panics on any
    /// zero-sized dim (its reshape reads `0` as "keep this dim"); we compute it correctly instead:
    /// an empty Int tensor of shape `[shape.., D]`.
    ///
    /// # Errors
    ///
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for either rank.
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryCreateInt;
    ///
    /// let device = Device::flex();
    /// let grid: Tensor<3, Int> = Tensor::<2, Int>::try_cartesian_grid::<_, 3>([2, 3], &device)?;
    /// assert_eq!(grid.dims(), [2, 3, 2]);
    /// assert!(Tensor::<2, Int>::try_cartesian_grid::<_, 4>([2, 3], &device).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "cartesian_grid")]
    fn try_cartesian_grid<S: Into<Shape>, const D2: usize>(
        shape: S,
        device: &Device,
    ) -> Result<Tensor<D2, Int>>;
}

impl<const D: usize> TryCreateInt<D> for Tensor<D, Int> {
    fn try_from_ints<A: Into<TensorData>>(ints: A, device: &Device) -> Result<Self> {
        const OP: &str = "from_ints";
        let data = ints.into();
        creation::data_fits(OP, &data, DType::I32)?;
        let data = catch(OP, || data.convert::<i32>())?;
        from_data_checks::<D, Int>(OP, &data, &device.into())?;
        catch(OP, || Tensor::<D, Int>::from_data(data, device))
    }
    fn try_cartesian_grid<S: Into<Shape>, const D2: usize>(
        shape: S,
        device: &Device,
    ) -> Result<Tensor<D2, Int>> {
        const OP: &str = "cartesian_grid";
        let shape = shape.into();
        let (out, empty) = creation::cartesian_grid(OP, &dims_of(&shape), D, D2)?;
        require_fits(OP, &out, resolve_dtype::<Int>(&device.into()), device)?;
        if empty {
            return catch(OP, || Tensor::<D2, Int>::zeros(out, device));
        }
        catch(OP, || {
            burn::tensor::cartesian_grid::<Shape, D, D2>(shape, device)
        })
    }
}

/// Twins of burn's associated functions of `Tensor<1, Int>` (burn's `api/int.rs`):
/// `Tensor::<1, Int>::try_arange(0..4, &device)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreateRange: Sealed + Sized {
    /// Fallible twin of [`Tensor::arange`]: checks that an explicit dtype is an integer dtype.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for the dtype.
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{DType, Device, Tensor};
    /// use burn_guard::tensor::TryCreateRange;
    ///
    /// let device = Device::flex();
    /// assert_eq!(Tensor::try_arange(0..4, &device)?.dims(), [4]);
    /// assert!(Tensor::try_arange(0..4, (&device, DType::F32)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "arange")]
    fn try_arange(range: Range<i64>, options: impl Into<TensorCreationOptions>) -> Result<Self>;

    /// Fallible twin of [`Tensor::arange_step`]: checks the dtype as [`TryCreateRange::try_arange`] does, and —
    /// beyond burn, which leaves it to the backend's `step_by(0)` assert — that `step > 0`.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for the dtype; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero step.
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryCreateRange;
    ///
    /// let device = Device::flex();
    /// assert_eq!(Tensor::try_arange_step(0..5, 2, &device)?.dims(), [3]);
    /// assert!(Tensor::try_arange_step(0..5, 0, &device).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "arange_step")]
    fn try_arange_step(
        range: Range<i64>,
        step: usize,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self>;
}

impl TryCreateRange for Tensor<1, Int> {
    fn try_arange(range: Range<i64>, options: impl Into<TensorCreationOptions>) -> Result<Self> {
        const OP: &str = "arange";
        let options = options.into();
        let dtype = creation::creation_dtype(OP, Kind::Int, resolve_dtype::<Int>(&options))?;
        let length = creation::arange_length(&range, 1);
        require_fits(OP, &[length], dtype, &options.device)?;
        catch(OP, || Tensor::<1, Int>::arange(range, options))
    }
    fn try_arange_step(
        range: Range<i64>,
        step: usize,
        options: impl Into<TensorCreationOptions>,
    ) -> Result<Self> {
        const OP: &str = "arange_step";
        let options = options.into();
        let dtype = creation::creation_dtype(OP, Kind::Int, resolve_dtype::<Int>(&options))?;
        creation::arange_step(OP, step)?;
        let length = creation::arange_length(&range, step);
        require_fits(OP, &[length], dtype, &options.device)?;
        catch(OP, || Tensor::<1, Int>::arange_step(range, step, options))
    }
}

/// Twins of burn's associated functions of `Tensor<D, Bool>` (burn's `api/bool.rs`):
/// `Tensor::<2, Bool>::try_triu_mask([3, 3], 0, &device)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreateBool<const D: usize>: Sealed + Sized {
    /// Fallible twin of [`Tensor::from_bool`]; the checks of [`TryCreate::try_from_data`].
    ///
    /// # Errors
    ///
    /// As [`TryCreate::try_from_data`].
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Tensor};
    /// use burn_guard::tensor::TryCreateBool;
    ///
    /// let t: Tensor<1, Bool> = Tensor::try_from_bool([true, false], &Device::flex())?;
    /// assert_eq!(t.dims(), [2]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "from_bool")]
    fn try_from_bool<A: Into<TensorData>>(data: A, device: &Device) -> Result<Self>;

    /// Fallible twin of [`Tensor::triu_mask`] (an associated function of `Tensor<D, Bool>`).
    ///
    /// Checks that `D >= 2` and that `shape` has at least `D` dims (burn reads `shape[D-2]` and
    /// `shape[D-1]` and ignores any further dims). burn fails when either of those is 0 (its
    /// `reshape` reads `0` as "keep this dim"); we compute it: an empty mask of shape
    /// `[1, …, 1, shape[D-2], shape[D-1]]`.
    ///
    /// # Errors
    ///
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch).
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Tensor};
    /// use burn_guard::tensor::TryCreateBool;
    ///
    /// let device = Device::flex();
    /// let mask: Tensor<2, Bool> = Tensor::try_triu_mask([3, 3], 0, &device)?;
    /// assert_eq!(mask.dims(), [3, 3]);
    /// assert!(Tensor::<3, Bool>::try_triu_mask([3, 3], 0, &device).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "triu_mask")]
    fn try_triu_mask<S: Into<Shape>>(shape: S, offset: i64, device: &Device) -> Result<Self>;

    /// Fallible twin of [`Tensor::tril_mask`]; the checks of [`TryCreateBool::try_triu_mask`].
    ///
    /// # Errors
    ///
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch).
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Tensor};
    /// use burn_guard::tensor::TryCreateBool;
    ///
    /// let mask: Tensor<2, Bool> = Tensor::try_tril_mask([2, 4], 1, &Device::flex())?;
    /// assert_eq!(mask.dims(), [2, 4]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "tril_mask")]
    fn try_tril_mask<S: Into<Shape>>(shape: S, offset: i64, device: &Device) -> Result<Self>;

    /// Fallible twin of [`Tensor::diag_mask`]; the checks of [`TryCreateBool::try_triu_mask`].
    ///
    /// # Errors
    ///
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch).
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Tensor};
    /// use burn_guard::tensor::TryCreateBool;
    ///
    /// let mask: Tensor<2, Bool> = Tensor::try_diag_mask([3, 3], 0, &Device::flex())?;
    /// assert_eq!(mask.dims(), [3, 3]);
    /// assert!(Tensor::<1, Bool>::try_diag_mask([3], 0, &Device::flex()).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "diag_mask")]
    fn try_diag_mask<S: Into<Shape>>(shape: S, offset: i64, device: &Device) -> Result<Self>;
}

impl<const D: usize> TryCreateBool<D> for Tensor<D, Bool> {
    fn try_from_bool<A: Into<TensorData>>(data: A, device: &Device) -> Result<Self> {
        const OP: &str = "from_bool";
        let data = data.into();
        from_data_checks::<D, Bool>(OP, &data, &device.into())?;
        catch(OP, || Tensor::<D, Bool>::from_bool(data, device))
    }
    fn try_triu_mask<S: Into<Shape>>(shape: S, offset: i64, device: &Device) -> Result<Self> {
        super::indexing::tri_mask("triu_mask", shape.into(), device, |shape| {
            Tensor::<D, Bool>::triu_mask(shape, offset, device)
        })
    }
    fn try_tril_mask<S: Into<Shape>>(shape: S, offset: i64, device: &Device) -> Result<Self> {
        super::indexing::tri_mask("tril_mask", shape.into(), device, |shape| {
            Tensor::<D, Bool>::tril_mask(shape, offset, device)
        })
    }
    fn try_diag_mask<S: Into<Shape>>(shape: S, offset: i64, device: &Device) -> Result<Self> {
        super::indexing::tri_mask("diag_mask", shape.into(), device, |shape| {
            Tensor::<D, Bool>::diag_mask(shape, offset, device)
        })
    }
}

/// Checked reads: twins of `into_scalar`, `to_data_as`, `into_data_as`, `to_data_dtype` and
/// `into_data_dtype` that refuse a value the requested type cannot hold.
///
/// Named `<burn's name>_checked`, not `try_<name>`: burn 0.22 has inherent `Tensor::try_into_scalar`,
/// `try_to_data_as`, … that still panic on such a value, and an inherent method wins over a
/// trait method, so a `try_` twin would be silently bypassed. No burn method is named `*_checked`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait CheckedRead<const D: usize, K: Basic>: Sealed + Sized {
    /// Fallible twin of [`Tensor::into_scalar`] (burn's inherent [`Tensor::try_into_scalar`]
    /// still panics on an unrepresentable value; hence the `_checked` name, see [`CheckedRead`]).
    ///
    /// Checks that the tensor holds exactly one element, then reads it and checks that the value
    /// is representable in `E` (burn-std's conversion panics on NaN or an out-of-range value for an
    /// integer `E`).
    ///
    /// # Errors
    ///
    /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for another element count; [`GuardError::NotRepresentable`](crate::GuardError::NotRepresentable) for an
    ///   unrepresentable value.
    /// - [`GuardError::Execution`](crate::GuardError::Execution) when the read fails.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::CheckedRead;
    ///
    /// let device = Device::flex();
    /// assert_eq!(Tensor::<1>::from_floats([2.5], &device).into_scalar_checked::<f32>()?, 2.5);
    /// assert!(Tensor::<1>::ones([2], &device).into_scalar_checked::<f32>().is_err());
    /// let nan = Tensor::<1>::from_floats([f32::NAN], &device);
    /// assert!(nan.into_scalar_checked::<i32>().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "into_scalar")]
    fn into_scalar_checked<E: Element>(self) -> Result<E>;

    /// Fallible twin of [`Tensor::into_scalar_async`]: the checks of [`CheckedRead::into_scalar_checked`], without
    /// blocking.
    ///
    /// # Errors
    ///
    /// As [`CheckedRead::into_scalar_checked`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::CheckedRead;
    ///
    /// let t = Tensor::<1>::from_floats([4.0], &Device::flex());
    /// let value: f32 = burn::tensor::read_sync(t.into_scalar_async_checked())?;
    /// assert_eq!(value, 4.0);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "into_scalar_async")]
    fn into_scalar_async_checked<E: Element>(self) -> impl Future<Output = Result<E>> + Send;

    /// Fallible twin of [`Tensor::to_data_as`] (burn's inherent [`Tensor::try_to_data_as`]
    /// still panics on a value `E` cannot hold).
    ///
    /// Reads the data, then checks that the conversion exists (quantized data converts to nothing
    /// else) and that every value fits an integer `E`, before converting.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DTypeMismatch`](crate::GuardError::DTypeMismatch) for a conversion that does not exist;
    ///   [`GuardError::NotRepresentable`](crate::GuardError::NotRepresentable) for the first value that does not fit.
    /// - [`GuardError::Execution`](crate::GuardError::Execution) when the read fails.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::CheckedRead;
    ///
    /// let t = Tensor::<1>::from_floats([1.0, 2.0], &Device::flex());
    /// assert_eq!(t.to_data_as_checked::<i64>()?.to_vec::<i64>().unwrap(), vec![1, 2]);
    /// let bad = Tensor::<1>::from_floats([f32::INFINITY], &Device::flex());
    /// assert!(bad.to_data_as_checked::<i64>().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "to_data_as")]
    fn to_data_as_checked<E: Element>(&self) -> Result<TensorData>;

    /// Fallible twin of [`Tensor::into_data_as`]; the checks of [`CheckedRead::to_data_as_checked`].
    ///
    /// # Errors
    ///
    /// As [`CheckedRead::to_data_as_checked`].
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::CheckedRead;
    ///
    /// let t = Tensor::<1, Int>::from_ints([-1, 2], &Device::flex());
    /// assert!(t.into_data_as_checked::<u8>().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "into_data_as")]
    fn into_data_as_checked<E: Element>(self) -> Result<TensorData>;

    /// Fallible twin of [`Tensor::to_data_dtype`]; the checks of [`CheckedRead::to_data_as_checked`] for `dtype`
    /// (also refused: a quantized target dtype).
    ///
    /// # Errors
    ///
    /// As [`CheckedRead::to_data_as_checked`].
    ///
    /// ```
    /// use burn::tensor::{DType, Device, Tensor};
    /// use burn_guard::tensor::CheckedRead;
    ///
    /// let t = Tensor::<1>::from_floats([1.5], &Device::flex());
    /// assert_eq!(t.to_data_dtype_checked(DType::F64)?.dtype(), DType::F64);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "to_data_dtype")]
    fn to_data_dtype_checked(&self, dtype: DType) -> Result<TensorData>;

    /// Fallible twin of [`Tensor::into_data_dtype`]; the checks of [`CheckedRead::to_data_dtype_checked`].
    ///
    /// # Errors
    ///
    /// As [`CheckedRead::to_data_as_checked`].
    ///
    /// ```
    /// use burn::tensor::{DType, Device, Tensor};
    /// use burn_guard::tensor::CheckedRead;
    ///
    /// let t = Tensor::<1>::from_floats([300.0], &Device::flex());
    /// assert!(t.into_data_dtype_checked(DType::U8).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "into_data_dtype")]
    fn into_data_dtype_checked(self, dtype: DType) -> Result<TensorData>;
}

impl<const D: usize, K: Basic> CheckedRead<D, K> for Tensor<D, K> {
    fn into_scalar_checked<E: Element>(self) -> Result<E> {
        const OP: &str = "into_scalar";
        creation::scalar_read(OP, &self.dims())?;
        let data = read_data_into(OP, self)?;
        unpack_scalar(OP, data)
    }
    fn into_scalar_async_checked<E: Element>(self) -> impl Future<Output = Result<E>> + Send {
        into_scalar_async::<D, K, E>(self)
    }
    fn to_data_as_checked<E: Element>(&self) -> Result<TensorData> {
        const OP: &str = "to_data_as";
        let data = read_data(OP, self)?;
        convert_read(OP, data, E::dtype())
    }
    fn into_data_as_checked<E: Element>(self) -> Result<TensorData> {
        const OP: &str = "into_data_as";
        let data = read_data_into(OP, self)?;
        convert_read(OP, data, E::dtype())
    }
    fn to_data_dtype_checked(&self, dtype: DType) -> Result<TensorData> {
        const OP: &str = "to_data_dtype";
        let data = read_data(OP, self)?;
        convert_read(OP, data, dtype)
    }
    fn into_data_dtype_checked(self, dtype: DType) -> Result<TensorData> {
        const OP: &str = "into_data_dtype";
        let data = read_data_into(OP, self)?;
        convert_read(OP, data, dtype)
    }
}
