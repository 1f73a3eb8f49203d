//! Twins of the creation family: burn's associated constructors (empty/zeros/ones/full,
//! from_data/floats/ints/bool, from_dispatch/bridge/primitive, random, arange, eye,
//! cartesian_grid, the Bool masks, and `cat`/`stack`), and the methods that create a tensor
//! like another (empty/zeros/ones/full/random_like, categorical).
//!
//! Most of burn's creation functions are associated functions (`Tensor::zeros(shape, &device)`),
//! so their twins are associated functions of the `TryCreate*` traits, grouped by the kind bound
//! burn puts on them (`Tensor::<2>::try_zeros(shape, &device)`); `cat` and `stack` (burn's
//! `api/base.rs`) and the Bool masks are among them. The methods are [`TryCreateLike`]'s (every
//! kind) and [`TrySample`]'s (Float).

use std::ops::Range;

use burn::tensor::kind::{Basic, Kind, Numeric, TensorKind};
use burn::tensor::{
    AsIndex, Bool, DType, Device, Distribution, ElementConversion, Float, Int, Shape, Tensor,
    TensorCreationOptions, TensorData,
};

use super::sealed::Sealed;
use super::twins;
use crate::capability::require_fits;
use crate::check::creation;
use crate::error::Result;
use crate::panic::catch;

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

twins! {
/// Twins of burn's associated functions of `Tensor<D, K>` for any kind `K` (burn's `api/base.rs` and
/// `api/extension.rs`): `Tensor::<2>::try_zeros([2, 3], &device)?`, `Tensor::try_cat(vec![a, b], 0)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreate<const D: usize, K: Basic> for Tensor<D, K> {
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
    ) -> Self => empty {
        let (shape, options) = (shape.into(), options.into());
        let dtype = creation_checks::<D, K>(OP, &shape, &options)?;
        creation_fits(OP, &shape, dtype, &options)?;
        catch(OP, || Tensor::<D, K>::empty(shape, options))
    }

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
    ) -> Self => zeros {
        let (shape, options) = (shape.into(), options.into());
        let dtype = creation_checks::<D, K>(OP, &shape, &options)?;
        creation_fits(OP, &shape, dtype, &options)?;
        catch(OP, || Tensor::<D, K>::zeros(shape, options))
    }

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
    ) -> Self => ones {
        let (shape, options) = (shape.into(), options.into());
        let dtype = creation_checks::<D, K>(OP, &shape, &options)?;
        creation_fits(OP, &shape, dtype, &options)?;
        catch(OP, || Tensor::<D, K>::ones(shape, options))
    }

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
    ) -> Self => full {
        let (shape, options) = (shape.into(), options.into());
        let dtype = creation_checks::<D, K>(OP, &shape, &options)?;
        creation::scalar_fits(OP, fill_value.elem::<f64>(), dtype)?;
        creation_fits(OP, &shape, dtype, &options)?;
        catch(OP, || Tensor::<D, K>::full(shape, fill_value, options))
    }

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
    ) -> Self => from_data {
        let (data, options) = (data.into(), options.into());
        from_data_checks::<D, K>(OP, &data, &options)?;
        catch(OP, || Tensor::<D, K>::from_data(data, options))
    }

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
    fn try_from_dispatch(tensor: burn::tensor::DispatchTensor) -> Self {
        checked_from_dispatch("from_dispatch", tensor)
    }

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
    fn try_from_bridge(tensor: burn::tensor::kind::BridgeTensor) -> Self => from_bridge {
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
    ) -> Self
    where
        K: burn::tensor::BackendPrimitive<B>,
        burn::tensor::DispatchTensor: burn_dispatch::DispatchKindConversion<B> => from_primitive {
        // burn's own two steps, which cannot panic; the checks then see the dtype and rank.
        let tensor = <K as burn::tensor::BackendPrimitive<B>>::from_primitive(primitive);
        let dispatch = <burn::tensor::DispatchTensor as burn_dispatch::DispatchKindConversion<B>>::from_backend(tensor);
        checked_from_dispatch::<D, K>(OP, dispatch)
    }

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
    fn try_cat(tensors: Vec<Self>, dim: impl AsIndex) -> Self {
        super::base::cat::<D, K>(tensors, dim)
    }

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
    fn try_stack<const D2: usize>(tensors: Vec<Self>, dim: impl AsIndex) -> Tensor<D2, K> {
        super::base::stack::<D, D2, K>(tensors, dim)
    }
}
}

twins! {
/// Twins of burn's associated functions of `Tensor<D, K>` for a numeric kind (burn's `api/numeric.rs`):
/// `Tensor::<2>::try_random(shape, distribution, &device)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreateNumeric<const D: usize, K: Numeric> for Tensor<D, K> {
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
    ) -> Self => random {
        let (shape, options) = (shape.into(), options.into());
        let dtype = creation_checks::<D, K>(OP, &shape, &options)?;
        creation::distribution(OP, distribution, dtype)?;
        creation_fits(OP, &shape, dtype, &options)?;
        catch(OP, || Tensor::<D, K>::random(shape, distribution, options))
    }
}
}

twins! {
/// Twins of burn's associated functions of `Tensor<2, K>` for a numeric kind (burn's `api/numeric.rs`):
/// `Tensor::<2>::try_eye(3, &device)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreateMatrix<K: Numeric> for Tensor<2, K> {
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
    fn try_eye(size: usize, device: &Device) -> Self => eye {
        let dtype = resolve_dtype::<K>(&device.into());
        require_fits(OP, &[size, size], dtype, device)?;
        if creation::eye_is_empty(size) {
            return catch(OP, || Tensor::<2, K>::zeros([0, 0], device));
        }
        catch(OP, || Tensor::<2, K>::eye(size, device))
    }
}
}

twins! {
/// Twins of burn's associated functions of `Tensor<D, Float>` (burn's `api/float.rs`):
/// `Tensor::<1>::try_from_floats([1.0, 2.0], &device)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreateFloat<const D: usize> for Tensor<D> {
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
    fn try_from_floats<A: Into<TensorData>>(floats: A, device: &Device) -> Self => from_floats {
        let data = floats.into();
        creation::data_fits(OP, &data, DType::F32)?;
        let data = catch(OP, || data.convert::<f32>())?;
        from_data_checks::<D, Float>(OP, &data, &device.into())?;
        catch(OP, || Tensor::<D>::from_data(data, device))
    }
}
}

twins! {
/// Twins of burn's associated functions of `Tensor<D, Int>` (burn's `api/int.rs`):
/// `Tensor::<1, Int>::try_from_ints([1, 2], &device)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreateInt<const D: usize> for Tensor<D, Int> {
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
    fn try_from_ints<A: Into<TensorData>>(ints: A, device: &Device) -> Self => from_ints {
        let data = ints.into();
        creation::data_fits(OP, &data, DType::I32)?;
        let data = catch(OP, || data.convert::<i32>())?;
        from_data_checks::<D, Int>(OP, &data, &device.into())?;
        catch(OP, || Tensor::<D, Int>::from_data(data, device))
    }

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
    ) -> Tensor<D2, Int> => cartesian_grid {
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
}

twins! {
/// Twins of burn's associated functions of `Tensor<1, Int>` (burn's `api/int.rs`):
/// `Tensor::<1, Int>::try_arange(0..4, &device)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreateRange for Tensor<1, Int> {
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
    fn try_arange(range: Range<i64>, options: impl Into<TensorCreationOptions>) -> Self => arange {
        let options = options.into();
        let dtype = creation::creation_dtype(OP, Kind::Int, resolve_dtype::<Int>(&options))?;
        let length = creation::arange_length(&range, 1);
        require_fits(OP, &[length], dtype, &options.device)?;
        catch(OP, || Tensor::<1, Int>::arange(range, options))
    }

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
    ) -> Self => arange_step {
        let options = options.into();
        let dtype = creation::creation_dtype(OP, Kind::Int, resolve_dtype::<Int>(&options))?;
        creation::arange_step(OP, step)?;
        let length = creation::arange_length(&range, step);
        require_fits(OP, &[length], dtype, &options.device)?;
        catch(OP, || Tensor::<1, Int>::arange_step(range, step, options))
    }
}
}

twins! {
/// Twins of burn's associated functions of `Tensor<D, Bool>` (burn's `api/bool.rs`):
/// `Tensor::<2, Bool>::try_triu_mask([3, 3], 0, &device)?`.
///
/// Sealed: implemented for `burn::Tensor` only.
pub trait TryCreateBool<const D: usize> for Tensor<D, Bool> {
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
    fn try_from_bool<A: Into<TensorData>>(data: A, device: &Device) -> Self => from_bool {
        let data = data.into();
        from_data_checks::<D, Bool>(OP, &data, &device.into())?;
        catch(OP, || Tensor::<D, Bool>::from_bool(data, device))
    }

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
    fn try_triu_mask<S: Into<Shape>>(shape: S, offset: i64, device: &Device) -> Self {
        super::indexing::tri_mask("triu_mask", shape.into(), device, |shape| {
            Tensor::<D, Bool>::triu_mask(shape, offset, device)
        })
    }

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
    fn try_tril_mask<S: Into<Shape>>(shape: S, offset: i64, device: &Device) -> Self {
        super::indexing::tri_mask("tril_mask", shape.into(), device, |shape| {
            Tensor::<D, Bool>::tril_mask(shape, offset, device)
        })
    }

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
    fn try_diag_mask<S: Into<Shape>>(shape: S, offset: i64, device: &Device) -> Self {
        super::indexing::tri_mask("diag_mask", shape.into(), device, |shape| {
            Tensor::<D, Bool>::diag_mask(shape, offset, device)
        })
    }
}
}

twins! {
/// Fallible twins of the methods that create a tensor of another's shape, kind and dtype, on
/// its device: `empty_like`, `zeros_like`, `ones_like` and `full_like` (burn's `api/base.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryCreateLike<const D: usize, K: Basic> for Tensor<D, K> {
    /// Fallible twin of [`Tensor::empty_like`]: checks that the tensor is not quantized.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor.
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryCreateLike;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(t.try_empty_like()?.dims(), [2, 3]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "empty_like")]
    fn try_empty_like(&self) -> Self => empty_like {
        let dtype = self.like_checks(OP)?;
        self.like_fits(OP, dtype)?;
        catch(OP, || self.empty_like())
    }

    /// Fallible twin of [`Tensor::zeros_like`]; the check of [`TryCreateLike::try_empty_like`].
    ///
    /// # Errors
    ///
    /// As [`TryCreateLike::try_empty_like`].
    ///
    /// ```
    /// use burn::tensor::quantization::QuantScheme;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryCreateLike;
    ///
    /// let t = Tensor::<1>::ones([4], &Device::flex());
    /// assert_eq!(t.try_zeros_like()?.sum().into_scalar::<f32>(), 0.0);
    /// let q = t.quantize_dynamic(&QuantScheme::default());
    /// assert!(q.try_zeros_like().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "zeros_like")]
    fn try_zeros_like(&self) -> Self => zeros_like {
        let dtype = self.like_checks(OP)?;
        self.like_fits(OP, dtype)?;
        catch(OP, || self.zeros_like())
    }

    /// Fallible twin of [`Tensor::ones_like`]; the check of [`TryCreateLike::try_empty_like`].
    ///
    /// # Errors
    ///
    /// As [`TryCreateLike::try_empty_like`].
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryCreateLike;
    ///
    /// let t = Tensor::<1, Int>::zeros([3], &Device::flex());
    /// assert_eq!(t.try_ones_like()?.sum().into_scalar::<i64>(), 3);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "ones_like")]
    fn try_ones_like(&self) -> Self => ones_like {
        let dtype = self.like_checks(OP)?;
        self.like_fits(OP, dtype)?;
        catch(OP, || self.ones_like())
    }

    /// Fallible twin of [`Tensor::full_like`]: the check of [`TryCreateLike::try_empty_like`], and
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
    /// use burn_guard::tensor::TryCreateLike;
    ///
    /// let t = Tensor::<1, Int>::zeros([2], &Device::flex());
    /// assert_eq!(t.try_full_like(5)?.sum().into_scalar::<i64>(), 10);
    /// assert!(t.try_full_like(f64::INFINITY).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "full_like")]
    fn try_full_like<E: ElementConversion + Copy>(&self, fill_value: E) -> Self => full_like {
        let dtype = self.like_checks(OP)?;
        creation::scalar_fits(OP, fill_value.elem::<f64>(), dtype)?;
        self.like_fits(OP, dtype)?;
        catch(OP, || self.full_like(fill_value))
    }
}
}

twins! {
/// Fallible twins of the Float methods that draw random values shaped by the tensor:
/// `random_like` and `categorical` (burn's `api/float.rs`).
///
/// Sealed: implemented for `burn::Tensor<D>` only.
pub trait TrySample<const D: usize> for Tensor<D> {
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
    /// use burn_guard::tensor::TrySample;
    ///
    /// let t = Tensor::<1>::zeros([3], &Device::flex());
    /// assert_eq!(t.try_random_like(Distribution::Default)?.dims(), [3]);
    /// assert!(t.try_random_like(Distribution::Bernoulli(2.0)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "random_like")]
    fn try_random_like(&self, distribution: Distribution) -> Self => random_like {
        let dtype = self.like_checks(OP)?;
        creation::distribution(OP, distribution, dtype)?;
        self.like_fits(OP, dtype)?;
        catch(OP, || self.random_like(distribution))
    }

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
    /// use burn_guard::tensor::TrySample;
    ///
    /// let probs = Tensor::<2>::from_floats([[0.0, 1.0], [1.0, 0.0]], &Device::flex());
    /// let samples = probs.clone().try_categorical(3)?;
    /// assert_eq!(samples.dims(), [2, 3]);
    /// assert!(probs.try_categorical(0).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "categorical")]
    fn try_categorical(self, num_samples: usize) -> Tensor<D, Int> => categorical {
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
