//! Twins of five methods of every tensor kind, all from burn-tensor's `src/tensor/api/base.rs`:
//! `narrow`, `swap_dims`, `select`, `cat` and `stack`. The other methods of that file have
//! their twins by family, in `view.rs`, `indexing.rs`, `reduce.rs`, `elementwise.rs` and
//! `creation.rs`.

use burn::tensor::kind::Basic;
use burn::tensor::{AsIndex, Int, Tensor};

use super::sealed::Sealed;
use super::twins;
use super::view::TryView;
use crate::check;
use crate::error::Result;
use crate::panic::catch;

twins! {
/// Fallible twins of `narrow`, `swap_dims` and `select`, which every kind has (burn's
/// `api/base.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryTensor<const D: usize, K: Basic> for Tensor<D, K> {
    /// Fallible twin of [`Tensor::narrow`].
    ///
    /// Checks that `dim` is in `-D..D`, `length > 0`, `start < size` and
    /// `start + length <= size`.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a bad range.
    /// - [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics anyway.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryTensor;
    ///
    /// let t = Tensor::<2>::ones([4, 4], &Device::flex());
    /// assert_eq!(t.clone().try_narrow(0, 1, 3)?.dims(), [3, 4]);
    /// let err = t.try_narrow(0, 3, 2).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "narrow: start + length must not exceed the dimension size; got start + length=5, expected at most 4"
    /// );
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "narrow")]
    fn try_narrow(self, dim: impl AsIndex, start: usize, length: usize) -> Self => narrow {
        let dim = check::dim(OP, dim.as_index(), D)?;
        check::narrow(OP, &self.dims(), dim, start, length)?;
        catch(OP, || self.narrow(dim, start, length))
    }

    /// Fallible twin of [`Tensor::swap_dims`].
    ///
    /// Checks that both dims are in `-D..D`.
    ///
    /// # Errors
    ///
    /// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) naming the bad dim.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryTensor;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(t.clone().try_swap_dims(0, -1)?.dims(), [3, 2]);
    /// assert!(t.try_swap_dims(0, 2).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "swap_dims")]
    fn try_swap_dims(self, dim1: impl AsIndex, dim2: impl AsIndex) -> Self => swap_dims {
        let dim1 = check::dim(OP, dim1.as_index(), D)?;
        let dim2 = check::dim(OP, dim2.as_index(), D)?;
        catch(OP, || self.swap_dims(dim1, dim2))
    }

    /// Fallible twin of [`Tensor::select`].
    ///
    /// Checks that `dim` is in `-D..D`, that `indices` is on the tensor's device and — beyond
    /// burn, which leaves it to the backend — that every index is in `0..size` along `dim`.
    /// Reading the indices costs one synchronous read of the index tensor.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    /// - [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange) naming the first
    ///   bad index (Flex panics; other backends may read out of bounds).
    /// - [`GuardError::Execution`](crate::GuardError::Execution) if the indices cannot be read.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryTensor;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::ones([4, 2], &device);
    /// let rows = Tensor::<1, Int>::from_ints([0, 3], &device);
    /// assert_eq!(t.clone().try_select(0, rows)?.dims(), [2, 2]);
    /// let err = t.try_select(0, Tensor::from_ints([5], &device)).unwrap_err();
    /// assert_eq!(err.to_string(), "select: index out of range; got index 5 for size 4 (dim 0)");
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "select")]
    fn try_select(self, dim: impl AsIndex, indices: Tensor<1, Int>) -> Self => select {
        let dim = check::dim(OP, dim.as_index(), D)?;
        crate::capability::same_device(OP, &self.device(), &indices.device())?;
        let mut out = self.dims();
        let size = out.get(dim).copied().unwrap_or(0);
        let [count] = indices.dims();
        if let Some(selected) = out.get_mut(dim) {
            *selected = count;
        }
        crate::capability::require_fits(OP, &out, self.dtype(), &self.device())?;
        check::indices(OP, &read_indices(OP, &indices)?, size, dim)?;
        catch(OP, || self.select(dim, indices))
    }
}
}

/// The values of an index tensor, as `i64`, for range checks
/// ([`value_reads::read_values`](crate::value_reads::read_values): one synchronous read,
/// counted; empty inside [`value_reads::vouched`](crate::value_reads::vouched)).
pub(crate) fn read_indices<const D: usize, K: Basic>(
    op: &'static str,
    indices: &Tensor<D, K>,
) -> Result<Vec<i64>> {
    crate::value_reads::read_values(op, indices)
}

/// Body of the twin of `cat`.
pub(super) fn cat<const D: usize, K: Basic>(
    tensors: Vec<Tensor<D, K>>,
    dim: impl AsIndex,
) -> Result<Tensor<D, K>> {
    const OP: &str = "cat";
    let dim = check::dim(OP, dim.as_index(), D)?;
    with_dims(&tensors, |shapes| {
        let out = check::cat(OP, shapes, dim)?;
        // burn leaves out the tensors with nothing along `dim` before it dispatches.
        let along = |index: usize| shapes.get(index).and_then(|shape| shape.get(dim)).copied();
        placed(
            OP,
            &tensors,
            |index| along(index).is_some_and(|size| size > 0),
            &out,
        )
    })?;
    catch(OP, || Tensor::cat(tensors, dim))
}

/// Runs `f` on the dims of every tensor, gathered on the stack for a short list (the common
/// `cat` of a few tensors allocates nothing before burn's call).
fn with_dims<const D: usize, K: Basic, R>(
    tensors: &[Tensor<D, K>],
    f: impl FnOnce(&[[usize; D]]) -> R,
) -> R {
    const INLINE: usize = 8;
    if tensors.len() > INLINE {
        return f(&tensors.iter().map(Tensor::dims).collect::<Vec<_>>());
    }
    let mut dims = [[0usize; D]; INLINE];
    for (slot, tensor) in dims.iter_mut().zip(tensors) {
        *slot = tensor.dims();
    }
    f(dims.get(..tensors.len()).unwrap_or_default())
}

/// Body of the twin of `stack`.
pub(super) fn stack<const D: usize, const D2: usize, K: Basic>(
    tensors: Vec<Tensor<D, K>>,
    dim: impl AsIndex,
) -> Result<Tensor<D2, K>> {
    const OP: &str = "stack";
    let dim = check::dim(OP, dim.as_index(), D + 1)?;
    let shapes: Vec<[usize; D]> = tensors.iter().map(Tensor::dims).collect();
    check::stack(OP, &shapes, D, D2)?;
    if let Some(shape) = shapes.first() {
        let mut out = shape.to_vec();
        out.insert(dim.min(out.len()), tensors.len());
        placed(OP, &tensors, |_| true, &out)?;
    }
    if shapes.first().is_some_and(|shape| shape.contains(&0)) {
        // burn's stack unsqueezes through `reshape`, which reads a 0 as "keep the source dim"
        // (a panic or a wrong shape): unsqueeze with the twin, which handles empty tensors.
        let tensors = tensors
            .into_iter()
            .map(|tensor| tensor.try_unsqueeze_dim::<D2>(dim))
            .collect::<Result<Vec<_>>>()?;
        return catch(OP, || Tensor::cat(tensors, dim));
    }
    catch(OP, || Tensor::stack::<D2>(tensors, dim))
}

/// One pass, one read of each operand's device and dtype: every operand on the first one's
/// device, and every operand that `counts` of the first such one's dtype (Flex and NdArray
/// panic on a mismatch); then the byte rule for the output `out`. With no operand that counts
/// there is no dtype to check and nothing to allocate.
fn placed<const D: usize, K: Basic>(
    op: &'static str,
    tensors: &[Tensor<D, K>],
    counts: impl Fn(usize) -> bool,
    out: &[usize],
) -> Result<()> {
    let Some(first) = tensors.first() else {
        return Ok(());
    };
    let device = first.device();
    let mut dtype = None;
    for (index, tensor) in tensors.iter().enumerate() {
        if index > 0 {
            crate::capability::same_device(op, &device, &tensor.device())?;
        }
        if counts(index) {
            let this = tensor.dtype();
            match dtype {
                Some(first) => check::elementwise::same_dtype(op, first, this)?,
                None => dtype = Some(this),
            }
        }
    }
    match dtype {
        Some(dtype) => crate::capability::require_fits(op, out, dtype, &device).map(drop),
        None => Ok(()),
    }
}
