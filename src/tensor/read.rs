//! Twins of the reads and conversions: the checked reads of a tensor's values
//! ([`CheckedRead`]: into_scalar, to/into_data_as, to/into_data_dtype), the casts
//! ([`TryConvert`]: cast; [`TryConvertFloat`]: int) and a transaction's `register`.
//!
//! Reads whose `try_` name burn already uses for an inherent method (`try_into_scalar`,
//! `try_to_data_as`, …) are the `_checked` methods of [`CheckedRead`], so that method-call
//! syntax never silently picks burn's version.

use std::any::TypeId;

use burn::tensor::kind::{Basic, TensorKind, Transaction as TransactionKind};
use burn::tensor::{Cast, DType, Element, Tensor, TensorData, Transaction};

use super::sealed::Sealed;
use super::twins;
use crate::check::creation;
use crate::error::{GuardError, Limit, Result, Unsupported};
use crate::panic::catch;
use crate::value_reads::{read_data, read_data_into, read_failed, read_values};

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

twins! {
/// Checked reads: twins of `into_scalar`, `to_data_as`, `into_data_as`, `to_data_dtype` and
/// `into_data_dtype` that refuse a value the requested type cannot hold.
///
/// Named `<burn's name>_checked`, not `try_<name>`: burn 0.22 has inherent `Tensor::try_into_scalar`,
/// `try_to_data_as`, … that still panic on such a value, and an inherent method wins over a
/// trait method, so a `try_` twin would be silently bypassed. No burn method is named `*_checked`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait CheckedRead<const D: usize, K: Basic> for Tensor<D, K> {
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
    fn into_scalar_checked<E: Element>(self) -> E => into_scalar {
        creation::scalar_read(OP, &self.dims())?;
        let data = read_data_into(OP, self)?;
        unpack_scalar(OP, data)
    }

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
    fn into_scalar_async_checked<E: Element>(self) -> impl Future<Output = E> + Send {
        into_scalar_async::<D, K, E>(self)
    }

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
    fn to_data_as_checked<E: Element>(&self) -> TensorData => to_data_as {
        let data = read_data(OP, self)?;
        convert_read(OP, data, E::dtype())
    }

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
    fn into_data_as_checked<E: Element>(self) -> TensorData => into_data_as {
        let data = read_data_into(OP, self)?;
        convert_read(OP, data, E::dtype())
    }

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
    fn to_data_dtype_checked(&self, dtype: DType) -> TensorData => to_data_dtype {
        let data = read_data(OP, self)?;
        convert_read(OP, data, dtype)
    }

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
    fn into_data_dtype_checked(self, dtype: DType) -> TensorData => into_data_dtype {
        let data = read_data_into(OP, self)?;
        convert_read(OP, data, dtype)
    }
}
}

twins! {
/// Fallible twin of `cast`, which converts a tensor to another dtype (Float, Int and Bool
/// tensors; burn's `api/float.rs`, `api/int.rs` and `api/bool.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryConvert<const D: usize, K: Basic> for Tensor<D, K> {
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
    fn try_cast<T>(self, dtype: T) -> Tensor<D, T::OutputKind>
    where
        T: Cast<D, K> + Into<DType> + Copy + 'static => cast {
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
}
}

twins! {
/// Fallible twin of `int`, which converts a Float tensor to an Int one (burn's `api/float.rs`).
///
/// Sealed: implemented for `burn::Tensor<D>` only.
pub trait TryConvertFloat<const D: usize> for Tensor<D> {
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
    fn try_int(self) -> Tensor<D, burn::tensor::Int> => int {
        let quirks = crate::capability::quirks_of(&self.device());
        if quirks.float_to_int_unrepresentable_panics {
            let values: Vec<f64> = read_values(OP, &self)?;
            creation::float_to_int(OP, &values, &quirks)
                .map_err(|err| err.of_tensor(|| None, self.dtype(), &self.dims()))?;
        }
        catch(OP, || self.int())
    }
}
}
