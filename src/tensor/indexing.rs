//! Twins of the indexing family: slice*, select_dim, select_assign, gather*, scatter*, mask_select*, mask_fill, take, one_hot*, tril/triu and their masks.
//!
//! Index tensors are read once (a synchronous device read) to range-check their values before
//! dispatch: burn leaves index ranges to the backend, which panics or reads out of bounds.

use std::future::Future;

use burn::tensor::kind::{Basic, Numeric, Ordered};
use burn::tensor::{
    AsIndex, Bool, Device, Element, ElementConversion, IndexingUpdateOp, Int, Scalar, Shape, Slice,
    SliceArg, Tensor,
};

use super::base::read_indices;
use super::convert;
use super::sealed::Sealed;
use super::twins;
use crate::check;
use crate::check::indexing;
use crate::error::{Result, ScalarValue};
use crate::panic::catch;
use crate::value_reads::read_values;

twins! {
/// Fallible twins of the indexing family: slice*, select_dim, select_assign, gather*, scatter*, mask_select*, mask_fill, take, one_hot*, tril/triu and their masks.
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryIndexing<const D: usize, K: Basic> for Tensor<D, K> {
    /// Fallible twin of [`Tensor::slice`].
    ///
    /// Checks that there are no more slices than dimensions, that no step is 0 and that every
    /// index converts without overflow. Out-of-range bounds are clamped, as burn does.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) with the shape when
    /// burn's conversion of the argument fails (the argument cannot be inspected before it is
    /// converted, so the rule it broke is not named).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let t = Tensor::<2>::ones([4, 3], &Device::flex());
    /// assert_eq!(t.clone().try_slice([1..3, 0..2])?.dims(), [2, 2]);
    /// let err = t.try_slice([0..1, 0..1, 0..1]).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "slice: the slice argument cannot be resolved against the shape: more slices than dimensions, a step of 0, or an index that overflows; got shape=[4, 3]"
    /// );
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "slice")]
    fn try_slice<S: SliceArg>(self, slices: S) -> Self => slice {
        let slices = convert::slices(OP, slices, &self.shape())?;
        catch(OP, || self.slice(&slices))
    }

    /// Fallible twin of [`Tensor::slice_assign`].
    ///
    /// Checks the slices as [`TryIndexing::try_slice`] does, then — unless the selection is
    /// empty, which burn treats as a no-op — that `values` has the selected shape and is on the
    /// tensor's device (burn does not check the device).
    ///
    /// # Errors
    ///
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for the slices.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for `values`.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::zeros([4, 3], &device);
    /// let out = t.clone().try_slice_assign(1..3, Tensor::ones([2, 3], &device))?;
    /// assert_eq!(out.sum().into_scalar::<f32>(), 6.0);
    /// assert!(t.try_slice_assign(1..3, Tensor::ones([3, 3], &device)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "slice_assign")]
    fn try_slice_assign<S: SliceArg>(self, slices: S, values: Self) -> Self => slice_assign {
        let shape = self.shape();
        let slices = convert::slices(OP, slices, &shape)?;
        match indexing::slice_assign(OP, &shape, &slices, &values.dims())? {
            indexing::SliceAssign::Empty => Ok(self),
            indexing::SliceAssign::Selected(_) => {
                crate::capability::same_device(OP, &self.device(), &values.device())?;
                catch(OP, || self.slice_assign(&slices, values))
            }
        }
    }

    /// Fallible twin of [`Tensor::slice_fill`].
    ///
    /// Checks the slices as [`TryIndexing::try_slice`] does, refuses quantized tensors (burn
    /// panics with "Expected float dtype") and values the tensor's dtype cannot represent
    /// (NaN, ±inf or out-of-range values on an integer tensor; burn panics converting them).
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for the slices;
    /// [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor;
    /// [`GuardError::NotRepresentable`](crate::GuardError::NotRepresentable) for the value.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let t = Tensor::<1>::zeros([5], &Device::flex());
    /// let out = t.clone().try_slice_fill(1..3, 2.0f32)?;
    /// assert_eq!(out.sum().into_scalar::<f32>(), 4.0);
    /// assert!(t.try_slice_fill([0..1, 0..1], 2.0f32).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "slice_fill")]
    fn try_slice_fill<S: SliceArg, E: Element>(self, slices: S, value: E) -> Self => slice_fill {
        let slices = convert::slices(OP, slices, &self.shape())?;
        let dtype = self.dtype();
        indexing::not_quantized(OP, &dtype)?;
        indexing::fill_element(OP, convert::scalar(OP, value)?, &dtype)?;
        catch(OP, || self.slice_fill(&slices, value))
    }

    /// Fallible twin of [`Tensor::slice_dim`].
    ///
    /// Checks that `dim` is in `-D..D`, that the slice's step is not 0 and that it converts
    /// without overflow.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) when the slice
    ///   does not convert; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a step
    ///   of 0.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let t = Tensor::<2>::ones([4, 3], &Device::flex());
    /// assert_eq!(t.clone().try_slice_dim(-1, 1..3)?.dims(), [4, 2]);
    /// assert!(t.try_slice_dim(2, 0..1).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "slice_dim")]
    fn try_slice_dim<S: Into<Slice>>(self, dim: impl AsIndex, slice: S) -> Self => slice_dim {
        let dim = check::dim(OP, dim.as_index(), D)?;
        let slice = convert::slice(OP, slice)?;
        catch(OP, || self.slice_dim(dim, slice))
    }

    /// Fallible twin of [`Tensor::select_dim`].
    ///
    /// Checks that `dim` is in `-D..D`, that `D2 == D - 1 >= 1`, and that `index` is in
    /// `-size..size` along `dim` (burn reports an out-of-range index as a failed squeeze).
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for `D2`.
    /// - [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange) for `index`.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let t = Tensor::<2>::ones([4, 3], &Device::flex());
    /// let row: Tensor<1> = t.clone().try_select_dim(0, -1)?;
    /// assert_eq!(row.dims(), [3]);
    /// let err = t.try_select_dim::<1>(0, 4).unwrap_err();
    /// assert_eq!(err.to_string(), "select_dim: index out of range; got index 4 for size 4 (dim 0)");
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "select_dim")]
    fn try_select_dim<const D2: usize>(
        self,
        dim: impl AsIndex,
        index: impl AsIndex,
    ) -> Tensor<D2, K> => select_dim {
        let dim = check::dim(OP, dim.as_index(), D)?;
        let index = index.as_index();
        indexing::select_dim(OP, &self.dims(), dim, index, D2)?;
        catch(OP, || self.select_dim::<D2>(dim, index))
    }

    /// Fallible twin of [`Tensor::select_assign`].
    ///
    /// Checks that `dim` is in `-D..D` and that `values.dims()[dim]` equals the number of
    /// indices, as burn does; beyond burn (which leaves them to the backend), that the other
    /// dims of `values` equal the tensor's, that `indices` and `values` are on the tensor's
    /// device and that every index is in `0..size` along `dim` (one synchronous read of the
    /// indices). The backends disagree on mismatched other dims (Flex panics, NdArray
    /// broadcasts a 1), so we refuse them everywhere. Bool tensors only support
    /// [`IndexingUpdateOp::Add`] (burn hits `unimplemented!()` otherwise).
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for `values`.
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a bool update.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    /// - [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange) naming the first
    ///   bad index.
    /// - [`GuardError::Execution`](crate::GuardError::Execution) if the indices cannot be read.
    ///
    /// ```
    /// use burn::tensor::{Device, IndexingUpdateOp, Int, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::zeros([4, 2], &device);
    /// let idx = Tensor::<1, Int>::from_ints([0, 3], &device);
    /// let out = t.clone().try_select_assign(0, idx, Tensor::ones([2, 2], &device), IndexingUpdateOp::Add)?;
    /// assert_eq!(out.sum().into_scalar::<f32>(), 4.0);
    /// let bad = Tensor::<1, Int>::from_ints([4], &device);
    /// assert!(t.try_select_assign(0, bad, Tensor::ones([1, 2], &device), IndexingUpdateOp::Add).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "select_assign")]
    fn try_select_assign(
        self,
        dim: impl AsIndex,
        indices: Tensor<1, Int>,
        values: Tensor<D, K>,
        update: IndexingUpdateOp,
    ) -> Self => select_assign {
        let dim = check::dim(OP, dim.as_index(), D)?;
        let [count] = indices.dims();
        indexing::select_assign(OP, dim, &self.dims(), count, &values.dims())?;
        indexing::bool_update(OP, &self.dtype(), &update)?;
        let device = self.device();
        crate::capability::same_devices(OP, &device, [indices.device(), values.device()])?;
        let size = self.dims().get(dim).copied().unwrap_or(0);
        check::indices(OP, &read_indices(OP, &indices)?, size, dim)?;
        catch(OP, || self.select_assign(dim, indices, values, update))
    }

    /// Fallible twin of [`Tensor::mask_fill`].
    ///
    /// burn checks nothing here. We check that the mask and the tensor broadcast against each
    /// other (each dim equal or 1 on one side; the backends then broadcast both, so the result
    /// may be larger than the tensor), that the mask is on the tensor's device, and that
    /// `value` converts to burn's scalar for the tensor's dtype (NaN, ±inf, or beyond `i64` on
    /// an integer tensor make burn panic). A value that fits `i64` but not a narrower integer
    /// dtype is passed on, as burn does: Flex then wraps it silently (`3e9` on `I32` gives
    /// `-1294967296`).
    ///
    /// # Errors
    ///
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for the mask.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    /// - [`GuardError::NotRepresentable`](crate::GuardError::NotRepresentable) for `value`.
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Int, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2, Int>::zeros([2, 2], &device);
    /// let mask = Tensor::<2, Bool>::from_bool([[true, false]], &device);
    /// let out = t.clone().try_mask_fill(mask.clone(), 5)?;
    /// assert_eq!(out.sum().into_scalar::<i64>(), 10);
    /// assert!(t.try_mask_fill(mask, f32::NAN).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "mask_fill")]
    fn try_mask_fill<E: ElementConversion>(self, mask: Tensor<D, Bool>, value: E) -> Self
    => mask_fill {
        indexing::mask_fill(OP, &self.dims(), &mask.dims())?;
        crate::capability::same_device(OP, &self.device(), &mask.device())?;
        let value = indexing::fill_value(OP, convert::scalar(OP, value)?, &self.dtype())?;
        let value = convert::to_burn(value);
        catch(OP, || mask_fill_scalar(self, mask, value))
    }

    /// Fallible twin of [`Tensor::mask_where`].
    ///
    /// burn checks nothing here; the backends broadcast. We check that the tensor, the mask
    /// and `value` broadcast together (see
    /// [`check::elementwise::mask_where`](crate::check::elementwise::mask_where)), that all
    /// three are on one device, and that `value` has the tensor's dtype (Flex and NdArray
    /// panic on another). NdArray broadcasts the tensor and `value` to the mask's shape only
    /// and panics on a smaller mask that Flex accepts; the twin expands such a mask to the
    /// output shape first, so both backends give Flex's answer.
    ///
    /// # Errors
    ///
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with the three shapes.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    /// - [`GuardError::DTypeMismatch`](crate::GuardError::DTypeMismatch) for `value`.
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::zeros([2, 3], &device);
    /// let mask = Tensor::<2, Bool>::from_data([[true, false, true]], &device);
    /// let value = Tensor::<2>::ones([2, 1], &device);
    /// let out = t.clone().try_mask_where(mask.clone(), value)?;
    /// assert_eq!(out.sum().into_scalar::<f32>(), 4.0);
    /// assert!(t.try_mask_where(mask, Tensor::ones([2, 2], &device)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "mask_where")]
    fn try_mask_where(self, mask: Tensor<D, Bool>, value: Self) -> Self => mask_where {
        let mask_dims = mask.dims();
        let out = check::elementwise::mask_where(OP, &self.dims(), &mask_dims, &value.dims())?;
        crate::capability::same_device(OP, &self.device(), &mask.device())?;
        crate::capability::same_device(OP, &self.device(), &value.device())?;
        check::elementwise::same_dtype(OP, self.dtype(), value.dtype())?;
        catch(OP, || {
            // NdArray broadcasts to the mask's shape only: give it the output shape.
            let mask = match <[usize; D]>::try_from(out.as_slice()) {
                Ok(out) if out != mask_dims => mask.expand(out),
                _ => mask,
            };
            self.mask_where(mask, value)
        })
    }

    /// Fallible twin of [`Tensor::mask_select`].
    ///
    /// Checks that the mask has exactly the tensor's shape and — beyond burn — is on the
    /// tensor's device.
    ///
    /// # Errors
    ///
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch).
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    /// - [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if a synchronous read is
    ///   not available on this platform (burn's `expect`).
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::ones([1, 2], &device);
    /// let mask = Tensor::<2, Bool>::from_bool([[true, false]], &device);
    /// assert_eq!(t.clone().try_mask_select(mask)?.dims(), [1]);
    /// assert!(t.try_mask_select(Tensor::<2, Bool>::from_bool([[true], [false]], &device)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "mask_select")]
    fn try_mask_select(self, mask: Tensor<D, Bool>) -> Tensor<1, K>
    => mask_select(mask) [
        indexing::mask_select(&self.dims(), &mask.dims()),
        crate::capability::same_device(&self.device(), &mask.device())
    ];

    /// Fallible twin of [`Tensor::mask_select_async`]; the checks of
    /// [`TryIndexing::try_mask_select`], made before the future is first polled to completion.
    ///
    /// # Errors
    ///
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch).
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::ones([1, 2], &device);
    /// let mask = Tensor::<2, Bool>::from_bool([[true, true]], &device);
    /// let out = burn::tensor::try_read_sync(t.try_mask_select_async(mask)).unwrap()?;
    /// assert_eq!(out.dims(), [2]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "mask_select_async")]
    fn try_mask_select_async(
        self,
        mask: Tensor<D, Bool>,
    ) -> impl Future<Output = Tensor<1, K>> => mask_select_async {
        let checked = indexing::mask_select(OP, &self.dims(), &mask.dims())
            .and_then(|()| crate::capability::same_device(OP, &self.device(), &mask.device()));
        async move {
            checked?;
            Ok(self.mask_select_async(mask).await)
        }
    }

    /// Fallible twin of [`Tensor::gather`].
    ///
    /// Checks that `dim` is in `-D..D` and that `indices` has the tensor's shape on every other
    /// dim, as burn does; beyond burn, that `indices` is on the tensor's device and that every
    /// index is in `0..size` along `dim` (one synchronous read of the indices).
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch).
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    /// - [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange).
    /// - [`GuardError::Execution`](crate::GuardError::Execution) if the indices cannot be read.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::from_floats([[1.0, 2.0], [3.0, 4.0]], &device);
    /// let idx = Tensor::<2, Int>::from_ints([[1, 0], [0, 0]], &device);
    /// assert_eq!(t.clone().try_gather(1, idx)?.sum().into_scalar::<f32>(), 9.0);
    /// let bad = Tensor::<2, Int>::from_ints([[2], [0]], &device);
    /// assert!(t.try_gather(1, bad).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "gather")]
    fn try_gather(self, dim: impl AsIndex, indices: Tensor<D, Int>) -> Self => gather {
        let dim = check::dim(OP, dim.as_index(), D)?;
        let out = indices.dims();
        indexing::gather(OP, dim, &self.dims(), &out)?;
        let device = self.device();
        crate::capability::same_device(OP, &device, &indices.device())?;
        crate::capability::require_fits(OP, &out, self.dtype(), &device)?;
        let size = self.dims().get(dim).copied().unwrap_or(0);
        check::indices(OP, &read_indices(OP, &indices)?, size, dim)?;
        catch(OP, || self.gather(dim, indices))
    }

    /// Fallible twin of [`Tensor::scatter`].
    ///
    /// The checks of [`TryIndexing::try_gather`], plus `values` having the indices' shape (as
    /// burn) and the tensor's device (beyond burn). Bool tensors only support
    /// [`IndexingUpdateOp::Add`] (burn hits `unimplemented!()` otherwise).
    ///
    /// # Errors
    ///
    /// As [`TryIndexing::try_gather`], plus
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a bool update.
    ///
    /// ```
    /// use burn::tensor::{Device, IndexingUpdateOp, Int, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::zeros([3], &device);
    /// let idx = Tensor::<1, Int>::from_ints([2], &device);
    /// let out = t.clone().try_scatter(0, idx, Tensor::ones([1], &device), IndexingUpdateOp::Add)?;
    /// assert_eq!(out.sum().into_scalar::<f32>(), 1.0);
    /// let bad = Tensor::<1, Int>::from_ints([3], &device);
    /// assert!(t.try_scatter(0, bad, Tensor::ones([1], &device), IndexingUpdateOp::Add).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "scatter")]
    fn try_scatter(
        self,
        dim: impl AsIndex,
        indices: Tensor<D, Int>,
        values: Self,
        update: IndexingUpdateOp,
    ) -> Self => scatter {
        let dim = check::dim(OP, dim.as_index(), D)?;
        indexing::scatter(OP, dim, &self.dims(), &indices.dims(), &values.dims())?;
        indexing::bool_update(OP, &self.dtype(), &update)?;
        let device = self.device();
        crate::capability::same_devices(OP, &device, [indices.device(), values.device()])?;
        check::elementwise::same_dtype(OP, self.dtype(), values.dtype())?;
        let size = self.dims().get(dim).copied().unwrap_or(0);
        check::indices(OP, &read_indices(OP, &indices)?, size, dim)?;
        catch(OP, || self.scatter(dim, indices, values, update))
    }

    /// Fallible twin of [`Tensor::scatter_nd`].
    ///
    /// Checks, as burn does, `M >= 1`, non-empty indices, `K = indices.dims()[M-1] <= D`,
    /// `DV == M - 1 + D - K` and `values.dims() == indices.dims()[..M-1] ++ self.dims()[K..]`;
    /// refuses bool tensors (burn panics); beyond burn, checks devices and that every index
    /// tuple addresses the tensor (one synchronous read of the indices).
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch),
    ///   [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) or
    ///   [`GuardError::Empty`](crate::GuardError::Empty) or
    ///   [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for the shapes;
    ///   [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for the bool kind.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    /// - [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange).
    /// - [`GuardError::Execution`](crate::GuardError::Execution) if the indices cannot be read.
    ///
    /// ```
    /// use burn::tensor::{Device, IndexingUpdateOp, Int, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::zeros([3, 2], &device);
    /// let idx = Tensor::<2, Int>::from_ints([[0], [2]], &device);
    /// let out = t.clone().try_scatter_nd(idx, Tensor::<2>::ones([2, 2], &device), IndexingUpdateOp::Assign)?;
    /// assert_eq!(out.sum().into_scalar::<f32>(), 4.0);
    /// let bad = Tensor::<2, Int>::from_ints([[3]], &device);
    /// assert!(t.try_scatter_nd(bad, Tensor::<2>::ones([1, 2], &device), IndexingUpdateOp::Assign).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "scatter_nd")]
    fn try_scatter_nd<const M: usize, const DV: usize>(
        self,
        indices: Tensor<M, Int>,
        values: Tensor<DV, K>,
        update: IndexingUpdateOp,
    ) -> Self => scatter_nd {
        let shape = self.dims();
        let k = indexing::scatter_nd(OP, &shape, &indices.dims(), &values.dims())?;
        indexing::not_bool(OP, &self.dtype())?;
        let device = self.device();
        crate::capability::same_devices(OP, &device, [indices.device(), values.device()])?;
        indexing::nd_indices(OP, &read_indices(OP, &indices)?, k, &shape)?;
        catch(OP, || self.scatter_nd(indices, values, update))
    }

    /// Fallible twin of [`Tensor::gather_nd`].
    ///
    /// Checks, as burn does, `M >= 1`, non-empty indices, `K <= D` and `DV == M - 1 + D - K`;
    /// refuses bool tensors (burn panics); beyond burn, checks the device and that every index
    /// tuple addresses the tensor (one synchronous read of the indices).
    ///
    /// # Errors
    ///
    /// As [`TryIndexing::try_scatter_nd`];
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's
    /// largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::from_floats([[1.0, 2.0], [3.0, 4.0]], &device);
    /// let idx = Tensor::<2, Int>::from_ints([[1, 0]], &device);
    /// let out: Tensor<1> = t.clone().try_gather_nd(idx)?;
    /// assert_eq!(out.into_scalar::<f32>(), 3.0);
    /// assert!(t.try_gather_nd::<2, 1>(Tensor::<2, Int>::from_ints([[2, 0]], &device)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "gather_nd")]
    fn try_gather_nd<const M: usize, const DV: usize>(
        self,
        indices: Tensor<M, Int>,
    ) -> Tensor<DV, K> => gather_nd {
        let shape = self.dims();
        let index_dims = indices.dims();
        let k = indexing::gather_nd(OP, &shape, &index_dims, DV)?;
        let dtype = self.dtype();
        indexing::not_bool(OP, &dtype)?;
        let device = self.device();
        crate::capability::same_device(OP, &device, &indices.device())?;
        // One slice `shape[k..]` per index tuple: the tuples are every dim of `indices` but the last.
        let out: Vec<usize> = index_dims
            .iter()
            .take(M.saturating_sub(1))
            .chain(shape.iter().skip(k))
            .copied()
            .collect();
        crate::capability::require_fits(OP, &out, dtype, &device)?;
        indexing::nd_indices(OP, &read_indices(OP, &indices)?, k, &shape)?;
        catch(OP, || self.gather_nd::<M, DV>(indices))
    }

    /// Fallible twin of [`Tensor::take`].
    ///
    /// Checks that `dim` is in `-D..D` and `DO == D + DI - 1`, as burn does; beyond burn, the
    /// device and that every index is in `0..size` along `dim` (one synchronous read). burn
    /// fails on results with a zero-sized dimension (its final `reshape` reads `0` as "keep
    /// this dim"); we compute them correctly, returning an empty tensor of the right shape.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for `DO`.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    /// - [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange).
    /// - [`GuardError::Execution`](crate::GuardError::Execution) if the indices cannot be read.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryIndexing;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::ones([3, 4], &device);
    /// let idx = Tensor::<2, Int>::from_ints([[0, 1], [2, 2]], &device);
    /// let out: Tensor<3> = t.clone().try_take(1, idx)?;
    /// assert_eq!(out.dims(), [3, 2, 2]);
    /// assert!(t.try_take::<1, 2>(1, Tensor::<1, Int>::from_ints([4], &device)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "take")]
    fn try_take<const DI: usize, const DO: usize>(
        self,
        dim: impl AsIndex,
        indices: Tensor<DI, Int>,
    ) -> Tensor<DO, K> => take {
        let dim = check::dim(OP, dim.as_index(), D)?;
        let shape = self.dims();
        let out = indexing::take(OP, &shape, dim, &indices.dims(), DO)?;
        let device = self.device();
        crate::capability::same_device(OP, &device, &indices.device())?;
        let dtype = self.dtype();
        crate::capability::require_fits(OP, &out, dtype, &device)?;
        let size = shape.get(dim).copied().unwrap_or(0);
        check::indices(OP, &read_indices(OP, &indices)?, size, dim)?;
        if out.contains(&0) {
            return catch(OP, || Tensor::<DO, K>::empty(out, (&device, dtype)));
        }
        catch(OP, || self.take::<DI, DO>(dim, indices))
    }
}
}

/// Runs `mask_fill` with a value already validated as a [`Scalar`] of the tensor's dtype:
/// passing the matching primitive makes burn's `Scalar::new` rebuild the same scalar.
fn mask_fill_scalar<const D: usize, K: Basic>(
    tensor: Tensor<D, K>,
    mask: Tensor<D, Bool>,
    value: Scalar,
) -> Tensor<D, K> {
    match value {
        Scalar::Float(x) => tensor.mask_fill(mask, x),
        Scalar::Int(x) => tensor.mask_fill(mask, x),
        Scalar::UInt(x) => tensor.mask_fill(mask, x),
        Scalar::Bool(x) => tensor.mask_fill(mask, x),
    }
}

twins! {
/// Fallible twins of the indexing methods of numeric tensors (`triu`, `tril`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` with `K: Numeric` only.
pub trait TryIndexingNumeric<const D: usize, K: Numeric> for Tensor<D, K> {
    /// Fallible twin of [`Tensor::triu`].
    ///
    /// Checks that the rank is at least 2. burn fails on tensors whose last two dims include a
    /// 0 (its mask is built through a `reshape` that reads `0` as "keep this dim"); we compute
    /// those correctly: a tensor without elements is returned unchanged.
    ///
    /// # Errors
    ///
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryIndexingNumeric;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::ones([3, 3], &device);
    /// assert_eq!(t.try_triu(0)?.sum().into_scalar::<f32>(), 6.0);
    /// assert!(Tensor::<1>::ones([3], &device).try_triu(0).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "triu")]
    fn try_triu(self, diagonal: i64) -> Self => triu {
        triangle(OP, self, |t| t.triu(diagonal))
    }

    /// Fallible twin of [`Tensor::tril`]; the checks of [`TryIndexingNumeric::try_triu`].
    ///
    /// # Errors
    ///
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryIndexingNumeric;
    ///
    /// let t = Tensor::<2>::ones([3, 3], &Device::flex());
    /// assert_eq!(t.try_tril(-1)?.sum().into_scalar::<f32>(), 3.0);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "tril")]
    fn try_tril(self, diagonal: i64) -> Self => tril {
        triangle(OP, self, |t| t.tril(diagonal))
    }
}
}

twins! {
/// Fallible twins of the indexing methods of ordered tensors (`one_hot`, `one_hot_fill`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` with `K: Ordered` only.
pub trait TryIndexingOrdered<const D: usize, K: Ordered> for Tensor<D, K> {
    /// Fallible twin of [`Tensor::one_hot`].
    ///
    /// Checks, as burn does, that the tensor is not quantized, that no value is
    /// `>= num_classes`, that `num_classes >= 2` and that `D2 == D + 1`; beyond burn, that no
    /// value is below `-num_classes` once truncated (burn leaves those to the backend; this
    /// includes NaN and values in `(-1, 0)`, which burn shifts to class `num_classes`) and that
    /// `num_classes` fits in an `i32` (burn compares with `num_classes as i32`, which wraps). Reading the values
    /// costs one synchronous read, as in burn. An input without elements gives an empty
    /// result (burn's `unsqueeze_dim` fails on zero-sized dims that change position, e.g. a
    /// `[3, 0]` input with the class axis at 0).
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for `D2`.
    /// - [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor.
    /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for `num_classes`.
    /// - [`GuardError::NonFinite`](crate::GuardError::NonFinite) for NaN or ±inf values.
    /// - [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange) for a value.
    /// - [`GuardError::Execution`](crate::GuardError::Execution) if the values cannot be read.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryIndexingOrdered;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1, Int>::from_ints([0, 2], &device);
    /// let hot: Tensor<2, Int> = t.clone().try_one_hot(3)?;
    /// assert_eq!(hot.dims(), [2, 3]);
    /// assert!(t.try_one_hot::<2>(2).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "one_hot")]
    fn try_one_hot<const D2: usize>(self, num_classes: usize) -> Tensor<D2, K> => one_hot {
        let shape = self.dims();
        indexing::one_hot_rank(OP, &shape, D2)?;
        let dtype = self.dtype();
        indexing::not_quantized(OP, &dtype)?;
        indexing::one_hot_classes(OP, num_classes)?;
        let (values, truncated) = read_classes(OP, &self)?;
        indexing::one_hot_values(OP, &values, &truncated, num_classes, D)
            .map_err(|err| err.of_tensor(|| None, dtype, &shape))?;
        let out = one_hot_shape(&shape, num_classes, D);
        let device = self.device();
        crate::capability::require_fits(OP, &out, dtype, &device)?;
        if shape.contains(&0) {
            return catch(OP, || Tensor::<D2, K>::empty(out, (&device, dtype)));
        }
        catch(OP, || self.one_hot::<D2>(num_classes))
    }

    /// Fallible twin of [`Tensor::one_hot_fill`].
    ///
    /// Checks, as burn does, `D2 == D + 1`, a non-quantized tensor and `axis` in
    /// `-(D+1)..D+1`; beyond burn, that every value addresses a class (`-num_classes..num_classes`;
    /// one synchronous read) and that `on_value`/`off_value` are representable in the tensor's
    /// dtype. An input without elements gives an empty result (burn's `unsqueeze_dim` can fail
    /// on it, depending on `axis`).
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for `D2`.
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for `axis`.
    /// - [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) for a quantized tensor.
    /// - [`GuardError::NotRepresentable`](crate::GuardError::NotRepresentable) for a fill value.
    /// - [`GuardError::NonFinite`](crate::GuardError::NonFinite) for NaN or ±inf values.
    /// - [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange) for a value.
    /// - [`GuardError::Execution`](crate::GuardError::Execution) if the values cannot be read.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryIndexingOrdered;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::from_floats([1.0, -1.0], &device);
    /// let hot: Tensor<2> = t.clone().try_one_hot_fill(3, 5.0, 0.0, 0)?;
    /// assert_eq!(hot.dims(), [3, 2]);
    /// assert!(t.try_one_hot_fill::<2>(3, 5.0, 0.0, 2).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "one_hot_fill")]
    fn try_one_hot_fill<const D2: usize>(
        self,
        num_classes: usize,
        on_value: f32,
        off_value: f32,
        axis: impl AsIndex,
    ) -> Tensor<D2, K> => one_hot_fill {
        let shape = self.dims();
        indexing::one_hot_rank(OP, &shape, D2)?;
        let dtype = self.dtype();
        indexing::not_quantized(OP, &dtype)?;
        let axis = check::dim(OP, axis.as_index(), D + 1)?;
        indexing::fill_value(OP, ScalarValue::Float(f64::from(on_value)), &dtype)?;
        indexing::fill_value(OP, ScalarValue::Float(f64::from(off_value)), &dtype)?;
        let (values, truncated) = read_classes(OP, &self)?;
        indexing::one_hot_values(OP, &values, &truncated, num_classes, axis)
            .map_err(|err| err.of_tensor(|| None, dtype, &shape))?;
        let out = one_hot_shape(&shape, num_classes, axis);
        let device = self.device();
        crate::capability::require_fits(OP, &out, dtype, &device)?;
        if shape.contains(&0) {
            return catch(OP, || Tensor::<D2, K>::empty(out, (&device, dtype)));
        }
        catch(OP, || {
            self.one_hot_fill::<D2>(num_classes, on_value, off_value, axis)
        })
    }
}
}

/// The values of a one-hot input as burn sees them: compared as floats, converted to `i64`
/// (truncated, saturating: a value beyond `i64` is out of every class range, and refused as
/// such; a non-finite one is refused first, by [`indexing::one_hot_values`]).
fn read_classes<const D: usize, K: Ordered>(
    op: &'static str,
    tensor: &Tensor<D, K>,
) -> Result<(Vec<f64>, Vec<i64>)> {
    let values: Vec<f64> = read_values(op, tensor)?;
    let truncated = values.iter().map(|v| v.trunc() as i64).collect();
    Ok((values, truncated))
}

/// The one-hot output shape: `shape` with `num_classes` inserted at `axis`.
fn one_hot_shape(shape: &[usize], num_classes: usize, axis: usize) -> Vec<usize> {
    let mut out = shape.to_vec();
    out.insert(axis.min(out.len()), num_classes);
    out
}

/// One mask constructor: checks, then burn, or an empty mask where burn's `reshape` would fail.
pub(super) fn tri_mask<const D: usize>(
    op: &'static str,
    shape: Shape,
    device: &Device,
    build: impl FnOnce(Shape) -> Tensor<D, Bool>,
) -> Result<Tensor<D, Bool>> {
    let dims: Vec<usize> = shape.iter().copied().collect();
    let out = indexing::tri_mask(op, &dims, D)?;
    let bool_dtype = device.settings().bool_dtype.into();
    crate::capability::require_fits(op, &out, bool_dtype, device)?;
    if out.contains(&0) {
        return catch(op, || Tensor::<D, Bool>::empty(out, device));
    }
    catch(op, || build(shape))
}

/// The triangle twins' one body: a matrix or a batch of them, returned as is when empty (no
/// triangle to keep), else `keep` under the backstop.
fn triangle<const D: usize, K: Numeric>(
    op: &'static str,
    tensor: Tensor<D, K>,
    keep: impl FnOnce(Tensor<D, K>) -> Tensor<D, K>,
) -> Result<Tensor<D, K>> {
    let shape = tensor.dims();
    indexing::tri(op, &shape)?;
    if shape.contains(&0) {
        return Ok(tensor);
    }
    catch(op, || keep(tensor))
}
