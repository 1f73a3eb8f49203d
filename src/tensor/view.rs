//! Twins of the reshape/view and split family: reshape, permute, movedim, flip, flatten,
//! squeeze*, unsqueeze*, expand, unfold, roll*, repeat*, pad, chunk, split*, iter_dim. Their
//! checks are in `check/view.rs` (the reshape/permute family) and `check/split.rs` (the split
//! family); meshgrid's twins are in `grid.rs`.
//!
//! burn takes some arguments through traits whose only method panics (`ReshapeArgs`,
//! `MovedimArgs`, `BroadcastArgs`, `IntoPadding`). The twins take them through the
//! extension traits [`ReshapeSpec`], [`MovedimSpec`], [`ExpandSpec`] and [`PaddingSpec`],
//! implemented for exactly the same argument types, which also let the checks read the
//! values first.

use burn::tensor::kind::{Basic, Numeric};
use burn::tensor::ops::PadMode;
use burn::tensor::{
    AsIndex, BroadcastArgs, DimIter, IntoPadding, MovedimArgs, ReshapeArgs, Shape, Tensor,
};

use super::sealed::Sealed;
use super::twins;
use crate::check;
use crate::check::split::PadArg;
use crate::check::view::ShapeArg;
use crate::error::{GuardError, Result};
use crate::panic::catch;

/// A `reshape` argument whose entries the checks can read: burn's [`ReshapeArgs`] types,
/// `[I; D2]` (with `I: AsIndex`) and [`Shape`].
pub trait ReshapeSpec<const D2: usize>: ReshapeArgs<D2> {
    /// The target shape as given.
    fn shape_arg(&self) -> ShapeArg;

    /// The entries of an array argument, on the stack (`None` for a `Shape`): the twin's
    /// path that allocates nothing.
    #[doc(hidden)]
    fn entries(&self) -> Option<[isize; D2]> {
        None
    }
}

impl<const D2: usize, I: AsIndex> ReshapeSpec<D2> for [I; D2] {
    fn shape_arg(&self) -> ShapeArg {
        ShapeArg::Entries(self.iter().map(|&i| i.as_index()).collect())
    }

    fn entries(&self) -> Option<[isize; D2]> {
        Some(self.map(AsIndex::as_index))
    }
}

impl<const D2: usize> ReshapeSpec<D2> for Shape {
    fn shape_arg(&self) -> ShapeArg {
        ShapeArg::Shape(self.to_vec())
    }
}

/// An `expand` argument whose entries the checks can read: burn's [`BroadcastArgs`] types,
/// `[E; D2]` (with `E: AsIndex`, `-1` keeps a dim) and [`Shape`].
pub trait ExpandSpec<const D1: usize, const D2: usize>: BroadcastArgs<D1, D2> {
    /// The target shape as given.
    fn shape_arg(&self) -> ShapeArg;
}

impl<const D1: usize, const D2: usize, E: AsIndex> ExpandSpec<D1, D2> for [E; D2] {
    fn shape_arg(&self) -> ShapeArg {
        ShapeArg::Entries(self.iter().map(|&e| e.as_index()).collect())
    }
}

impl<const D1: usize, const D2: usize> ExpandSpec<D1, D2> for Shape {
    fn shape_arg(&self) -> ShapeArg {
        ShapeArg::Shape(self.to_vec())
    }
}

/// A `movedim` argument whose dims the checks can read: burn's [`MovedimArgs`] types, a single
/// integer dim or a `Vec` of them.
pub trait MovedimSpec: MovedimArgs {
    /// The dims as given, and whether they came as a `Vec` (burn checks a `Vec` for
    /// duplicates).
    fn dims_arg(&self) -> (Vec<isize>, bool);
}

impl<I: AsIndex> MovedimSpec for Vec<I> {
    fn dims_arg(&self) -> (Vec<isize>, bool) {
        (self.iter().map(|&i| i.as_index()).collect(), true)
    }
}

macro_rules! movedim_spec {
    ($($ty:ty),*) => {$(
        impl MovedimSpec for $ty {
            fn dims_arg(&self) -> (Vec<isize>, bool) {
                (vec![self.as_index()], false)
            }
        }
    )*};
}

movedim_spec!(usize, isize, i64, u64, i32, u32, i16, u16, i8, u8);

/// A `pad` argument whose pairs the checks can read: burn's [`IntoPadding`] types,
/// `[(before, after); N]`, `&[(before, after)]`, `Vec<(before, after)>` and the
/// `(left, right, top, bottom)` tuple.
pub trait PaddingSpec<const D: usize>: IntoPadding<D> {
    /// The padding as given.
    fn pad_arg(&self) -> PadArg;
}

impl<const D: usize, const N: usize> PaddingSpec<D> for [(usize, usize); N] {
    fn pad_arg(&self) -> PadArg {
        PadArg::Pairs(self.to_vec())
    }
}

impl<const D: usize> PaddingSpec<D> for &[(usize, usize)] {
    fn pad_arg(&self) -> PadArg {
        PadArg::Pairs(self.to_vec())
    }
}

impl<const D: usize> PaddingSpec<D> for Vec<(usize, usize)> {
    fn pad_arg(&self) -> PadArg {
        PadArg::Pairs(self.clone())
    }
}

impl<const D: usize> PaddingSpec<D> for (usize, usize, usize, usize) {
    fn pad_arg(&self) -> PadArg {
        let &(left, right, top, bottom) = self;
        PadArg::Ltrb(left, right, top, bottom)
    }
}

twins! {
/// Fallible twins of the reshape/view and split family: reshape, permute, movedim, flip, flatten, squeeze*, unsqueeze*, expand, unfold, roll*, repeat*, pad, chunk, split*, iter_dim.
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryView<const D: usize, K: Basic> for Tensor<D, K> {
    /// Fallible twin of [`Tensor::reshape`].
    ///
    /// Checks, as burn does, that entries are positive, `0` (keep the dim at the same index,
    /// which must exist) or a single `-1` (inferred), and that the element count is kept. Beyond
    /// burn, it refuses a [`Shape`] argument whose rank is not `D2` (burn returns a tensor whose
    /// rank no longer matches its type) and a `-1` beside a kept 0-sized dim (burn divides by
    /// zero). See [`check::view::reshape`](crate::check::view::reshape). For a block-quantized
    /// tensor, it also checks that the new shape is a whole number of the scheme's blocks, as
    /// [`check::quant_scheme`](crate::check::quant_scheme) does at quantization (burn does not:
    /// Flex panics, and a backend that reshapes anyway returns a tensor whose blocks no longer
    /// line up with their scales).
    ///
    /// # Errors
    ///
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a bad entry.
    /// - [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme) when the new
    ///   shape splits a quantization block.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) when the element counts
    ///   differ.
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a `Shape` of the wrong
    ///   rank.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<3>::ones([2, 3, 4], &Device::flex());
    /// assert_eq!(t.clone().try_reshape([0, -1])?.dims(), [2, 12]);
    /// let err = t.try_reshape([5, -1]).unwrap_err();
    /// assert!(err.to_string().starts_with("reshape: cannot infer a -1 entry"));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "reshape")]
    fn try_reshape<const D2: usize, S: ReshapeSpec<D2>>(self, shape: S) -> Tensor<D2, K>
    => reshape {
        let source = self.dims();
        let mut array;
        let vec;
        let out: &[usize] = match shape.entries() {
            Some(entries) => {
                array = [0; D2];
                check::view::reshape_into(OP, &source, &entries, &mut array)?;
                &array
            }
            None => {
                vec = check::view::reshape(OP, &source, &shape.shape_arg(), D2)?;
                &vec
            }
        };
        // A quantized tensor keeps whole blocks and, packed, whole words (burn-flex and
        // burn-cubecl `q_reshape`; on wgpu a split word panics on the device thread).
        check::quant::quantized_reshape(OP, self.dtype(), out)?;
        catch(OP, || self.reshape(shape))
    }

    /// Fallible twin of [`Tensor::permute`].
    ///
    /// Checks that every axis is in `-D..D` and that no axis appears twice after wrapping.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad axis.
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a repeated one.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<3>::ones([2, 3, 4], &Device::flex());
    /// assert_eq!(t.clone().try_permute([2, 0, 1])?.dims(), [4, 2, 3]);
    /// assert!(t.try_permute([0, 1, -3]).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "permute")]
    fn try_permute<Dim: AsIndex>(self, axes: [Dim; D]) -> Self => permute {
        let axes = axes.map(AsIndex::as_index);
        check::view::permute(OP, &axes, D)?;
        catch(OP, || self.permute(axes))
    }

    /// Fallible twin of [`Tensor::movedim`].
    ///
    /// Checks that every dim is in `-D..D`, that neither side (when a `Vec`) repeats a dim, and
    /// that both sides have the same length.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for duplicates or
    ///   unequal lengths.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<3>::ones([2, 3, 4], &Device::flex());
    /// assert_eq!(t.clone().try_movedim(0, -1)?.dims(), [3, 4, 2]);
    /// assert!(t.try_movedim(vec![0, 1], vec![2]).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "movedim")]
    fn try_movedim<S1: MovedimSpec, S2: MovedimSpec>(self, src: S1, dst: S2) -> Self => movedim {
        let (src, src_is_vec) = src.dims_arg();
        let (dst, dst_is_vec) = dst.dims_arg();
        let (src, dst) = check::view::movedim(OP, &src, src_is_vec, &dst, dst_is_vec, D)?;
        catch(OP, || self.movedim(src, dst))
    }

    /// Fallible twin of [`Tensor::flip`].
    ///
    /// Checks that every axis is in `-D..D` and unique after wrapping.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad axis.
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a repeated one.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<1>::from_floats([1.0, 2.0], &Device::flex());
    /// assert_eq!(t.clone().try_flip([0])?.into_data().to_vec::<f32>().unwrap(), [2.0, 1.0]);
    /// assert!(t.try_flip([0, -1]).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "flip")]
    fn try_flip<const N: usize>(self, axes: [impl AsIndex; N]) -> Self => flip {
        let axes = axes.map(AsIndex::as_index);
        check::view::flip(OP, &axes, D)?;
        catch(OP, || self.flip(axes))
    }

    /// Fallible twin of [`Tensor::flatten`].
    ///
    /// Checks that both dims are in `-D..D`, `start_dim <= end_dim` and
    /// `D2 == D - (end_dim - start_dim)`. burn only bounds `D2` from below; beyond burn, a larger
    /// `D2` is refused too, since burn then returns a tensor whose rank does not match its type.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    /// - [`GuardError::OutOfOrder`](crate::GuardError::OutOfOrder) for `start_dim > end_dim`.
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a wrong `D2`.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<3>::ones([2, 3, 4], &Device::flex());
    /// assert_eq!(t.clone().try_flatten::<2>(1, 2)?.dims(), [2, 12]);
    /// assert!(t.try_flatten::<3>(0, 1).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "flatten")]
    fn try_flatten<const D2: usize>(
        self,
        start_dim: impl AsIndex,
        end_dim: impl AsIndex,
    ) -> Tensor<D2, K> => flatten {
        let (start, end) = (start_dim.as_index(), end_dim.as_index());
        check::view::flatten(OP, &self.dims(), start, end, D2)?;
        catch(OP, || self.flatten::<D2>(start, end))
    }

    /// Fallible twin of [`Tensor::squeeze`].
    ///
    /// Checks that removing every size-1 dim leaves exactly `D2 >= 1` dims.
    ///
    /// # Errors
    ///
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<3>::ones([1, 3, 1], &Device::flex());
    /// assert_eq!(t.clone().try_squeeze::<1>()?.dims(), [3]);
    /// assert!(t.try_squeeze::<2>().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "squeeze")]
    fn try_squeeze<const D2: usize>(self) -> Tensor<D2, K> => squeeze {
        check::view::squeeze(OP, &self.dims(), D2)?;
        catch(OP, || self.squeeze::<D2>())
    }

    /// Fallible twin of [`Tensor::squeeze_dim`].
    ///
    /// Checks that `dim` is in `-D..D`, that its size is 1 and that `D2 == D - 1 >= 1`.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a size other than 1.
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a wrong `D2`.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<3>::ones([3, 1, 2], &Device::flex());
    /// assert_eq!(t.clone().try_squeeze_dim::<2>(1)?.dims(), [3, 2]);
    /// let err = t.try_squeeze_dim::<2>(0).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "squeeze_dim: only a dimension of size 1 can be squeezed; got size=3, expected exactly 1"
    /// );
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "squeeze_dim")]
    fn try_squeeze_dim<const D2: usize>(self, dim: impl AsIndex) -> Tensor<D2, K> => squeeze_dim {
        let dim = dim.as_index();
        check::view::squeeze_dim(OP, &self.dims(), dim, D2)?;
        catch(OP, || self.squeeze_dim::<D2>(dim))
    }

    /// Fallible twin of [`Tensor::squeeze_dims`].
    ///
    /// Checks that every dim is in `-D..D` (an empty list means every size-1 dim), that at least
    /// one dim remains, that every listed dim has size 1 (burn panics on one that does not,
    /// although its doc says it is skipped) and that `D2` dims remain.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for too many dims; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a size
    ///   other than 1.
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a wrong `D2`.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<3>::ones([1, 3, 1], &Device::flex());
    /// assert_eq!(t.clone().try_squeeze_dims::<1>(&[0, -1])?.dims(), [3]);
    /// assert!(t.try_squeeze_dims::<2>(&[1]).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "squeeze_dims")]
    fn try_squeeze_dims<const D2: usize>(self, dims: &[impl AsIndex]) -> Tensor<D2, K>
    => squeeze_dims {
        let dims: Vec<isize> = dims.iter().map(|d| d.as_index()).collect();
        check::view::squeeze_dims(OP, &self.dims(), &dims, D2)?;
        catch(OP, || self.squeeze_dims::<D2>(&dims))
    }

    /// Fallible twin of [`Tensor::unsqueeze`].
    ///
    /// Checks that `D2 >= D`. burn fails on tensors with a 0-sized dim (its reshape reads the 0
    /// as "keep the source dim"); this twin computes those correctly instead.
    ///
    /// # Errors
    ///
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for `D2 < D`.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::ones([3, 4], &device);
    /// assert_eq!(t.clone().try_unsqueeze::<4>()?.dims(), [1, 1, 3, 4]);
    /// // burn panics here; the twin returns the right empty tensor.
    /// let empty = Tensor::<2>::zeros([3, 0], &device);
    /// assert_eq!(empty.try_unsqueeze::<3>()?.dims(), [1, 3, 0]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "unsqueeze")]
    fn try_unsqueeze<const D2: usize>(self) -> Tensor<D2, K> => unsqueeze {
        let out = check::view::unsqueeze(OP, &self.dims(), D2)?;
        if self.dims().contains(&0) {
            return insert_units(OP, self, &out);
        }
        catch(OP, || self.unsqueeze::<D2>())
    }

    /// Fallible twin of [`Tensor::unsqueeze_dim`].
    ///
    /// Checks that `dim` is in `-(D+1)..D+1` and `D2 > D` (with `D2 > D + 1`, burn appends
    /// trailing ones, and so does the twin). Tensors with a 0-sized dim, on which burn panics or
    /// returns a wrong shape, are computed correctly.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for `D2 <= D`.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<2>::ones([3, 4], &Device::flex());
    /// assert_eq!(t.clone().try_unsqueeze_dim::<3>(-1)?.dims(), [3, 4, 1]);
    /// assert!(t.try_unsqueeze_dim::<3>(3).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "unsqueeze_dim")]
    fn try_unsqueeze_dim<const D2: usize>(self, dim: impl AsIndex) -> Tensor<D2, K>
    => unsqueeze_dim {
        let dim = dim.as_index();
        let out = check::view::unsqueeze_dim(OP, &self.dims(), dim, D2)?;
        if self.dims().contains(&0) {
            return insert_units(OP, self, &out);
        }
        catch(OP, || self.unsqueeze_dim::<D2>(dim))
    }

    /// Fallible twin of [`Tensor::unsqueeze_dims`].
    ///
    /// Replays burn's index arithmetic (see
    /// [`check::view::unsqueeze_dims`](crate::check::view::unsqueeze_dims)): every axis in
    /// `-D2..D2`, duplicates bumped to the next slot and re-checked, the input dims copied
    /// around the new ones. Tensors with a 0-sized dim are computed correctly where burn's reshape
    /// fails, as long as the result is the input with unit dims inserted; otherwise refused.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for an axis outside
    ///   `-D2..D2`.
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) when the axes do not
    ///   fit the output rank.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) when burn's shape would
    ///   lose elements.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<3>::ones([3, 4, 5], &Device::flex());
    /// assert_eq!(t.clone().try_unsqueeze_dims::<6>(&[0, -1, -1])?.dims(), [1, 3, 4, 5, 1, 1]);
    /// assert!(t.try_unsqueeze_dims::<4>(&[4]).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "unsqueeze_dims")]
    fn try_unsqueeze_dims<const D2: usize>(self, axes: &[impl AsIndex]) -> Tensor<D2, K>
    => unsqueeze_dims {
        let axes: Vec<isize> = axes.iter().map(|a| a.as_index()).collect();
        let out = check::view::unsqueeze_dims(OP, &self.dims(), &axes, D2)?;
        if self.dims().contains(&0) {
            return insert_units(OP, self, &out);
        }
        catch(OP, || self.unsqueeze_dims::<D2>(&axes))
    }

    /// Fallible twin of [`Tensor::expand`].
    ///
    /// Checks burn's rules for the array form (at least `D` entries, each positive or a `-1` that
    /// stands for an existing non-empty dim) and that, right-aligned, each target dim equals the
    /// tensor's or the tensor's is 1. Beyond burn: a [`Shape`] argument must have rank `D2 >= D`,
    /// and a target 1 over a dim other than 1 is refused (burn's check lets it through and the
    /// backend panics). On NdArray, whose expand copies the broadcast, the byte rule too
    /// ([`capability::expand_allocates`](crate::capability::expand_allocates)); elsewhere expand is
    /// a view and allocates nothing.
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch).
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a bad entry.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) when the shapes cannot
    ///   broadcast.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) on NdArray, for an output over
    ///   the host's largest allocation.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<2>::ones([3, 1], &Device::flex());
    /// assert_eq!(t.clone().try_expand([2, -1, 4])?.dims(), [2, 3, 4]);
    /// let err = t.try_expand([2, 4]).unwrap_err();
    /// assert!(err.to_string().ends_with("got [3, 1] and [2, 4]"));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "expand")]
    fn try_expand<const D2: usize, S: ExpandSpec<D, D2>>(self, shape: S) -> Tensor<D2, K>
    => expand {
        let out = check::view::expand(OP, &self.dims(), &shape.shape_arg(), D2)?;
        let device = self.device();
        if crate::capability::expand_allocates(&device) {
            crate::capability::require_fits(OP, &out, self.dtype(), &device)?;
        }
        catch(OP, || self.expand::<D2, S>(shape))
    }

    /// Fallible twin of [`Tensor::unfold`].
    ///
    /// Checks that `dim` is in `-D..D` and `D2 == D + 1`, and — beyond burn, which leaves them to
    /// the backend — that `size > 0`, `step > 0` and `size` does not exceed the dim's size
    /// (burn's doc promises 0 windows there, but Flex and NdArray panic).
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch).
    /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for the window size or the step.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<2>::ones([2, 5], &Device::flex());
    /// assert_eq!(t.clone().try_unfold::<3, _>(1, 2, 2)?.dims(), [2, 2, 2]);
    /// assert!(t.try_unfold::<3, _>(1, 2, 0).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "unfold")]
    fn try_unfold<const D2: usize, I: AsIndex>(
        self,
        dim: I,
        size: usize,
        step: usize,
    ) -> Tensor<D2, K> => unfold {
        let dim = dim.as_index();
        check::view::unfold(OP, &self.dims(), dim, size, step, D2)?;
        catch(OP, || self.unfold::<D2, isize>(dim, size, step))
    }

    /// Fallible twin of [`Tensor::roll_dim`].
    ///
    /// Checks that `dim` is in `-D..D`; any shift wraps around.
    ///
    /// # Errors
    ///
    /// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<1>::from_floats([1.0, 2.0, 3.0], &Device::flex());
    /// assert_eq!(t.clone().try_roll_dim(1, 0)?.into_data().to_vec::<f32>().unwrap(), [3.0, 1.0, 2.0]);
    /// assert!(t.try_roll_dim(1, 1).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "roll_dim")]
    fn try_roll_dim<Shift: AsIndex, Dim: AsIndex>(self, shift: Shift, dim: Dim) -> Self
    => roll_dim {
        let dim = check::dim(OP, dim.as_index(), D)?;
        catch(OP, || self.roll_dim(shift, dim))
    }

    /// Fallible twin of [`Tensor::roll`].
    ///
    /// Checks that `shifts` and `dims` have the same length, that every dim is in `-D..D` and
    /// that the shifts of one dim add up without overflowing `isize`.
    ///
    /// # Errors
    ///
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for unequal lengths
    ///   or an overflowing sum.
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(t.clone().try_roll(&[1, -1], &[0, 1])?.dims(), [2, 3]);
    /// assert!(t.try_roll(&[1], &[0, 1]).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "roll")]
    fn try_roll<Shift: AsIndex, Dim: AsIndex>(self, shifts: &[Shift], dims: &[Dim])
    -> Self => roll {
        let shift_values: Vec<isize> = shifts.iter().map(|s| s.as_index()).collect();
        let dim_values: Vec<isize> = dims.iter().map(|d| d.as_index()).collect();
        check::split::roll(OP, &shift_values, &dim_values, D)?;
        catch(OP, || self.roll(shifts, dims))
    }

    /// Fallible twin of [`Tensor::repeat_dim`].
    ///
    /// Checks that `dim` is in `-D..D` and, beyond burn, that the output element count fits in
    /// `usize`.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for an overflowing
    ///   size.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(t.clone().try_repeat_dim(-1, 2)?.dims(), [2, 6]);
    /// assert!(t.try_repeat_dim(2, 2).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "repeat_dim")]
    fn try_repeat_dim(self, dim: impl AsIndex, times: usize) -> Self => repeat_dim {
        let dim = dim.as_index();
        let out = check::split::repeat_dim(OP, &self.dims(), dim, times)?;
        crate::capability::require_fits(OP, &out, self.dtype(), &self.device())?;
        catch(OP, || self.repeat_dim(dim, times))
    }

    /// Fallible twin of [`Tensor::repeat`].
    ///
    /// Checks burn's rule for sizes past the rank (they must be 1, and there must be none when a
    /// size is 0) and, beyond burn, that the output element count fits in `usize`.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument).
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(t.clone().try_repeat(&[2, 1, 1])?.dims(), [4, 3]);
    /// assert!(t.try_repeat(&[2, 1, 2]).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "repeat")]
    fn try_repeat(self, sizes: &[usize]) -> Self => repeat {
        let out = check::split::repeat(OP, &self.dims(), sizes)?;
        crate::capability::require_fits(OP, &out, self.dtype(), &self.device())?;
        catch(OP, || self.repeat(sizes))
    }

    /// Fallible twin of [`Tensor::pad`].
    ///
    /// Checks that there are no more pairs than dims (the `(left, right, top, bottom)` form
    /// needs rank 2 or more), burn-backend's `validate_padding` (Reflect: both pads smaller than
    /// the dim size, on every dim; Edge: no padding of an empty dim) and, for integer tensors, a
    /// `Constant` that the backend can convert (finite, within `i64`). Beyond burn, the constant
    /// must also fit the tensor's integer dtype (Flex wraps an `I32` silently) and each padded
    /// size must fit in `usize`.
    ///
    /// # Errors
    ///
    /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for too many pairs or a reflect padding as large as its
    ///   dim; [`GuardError::Empty`](crate::GuardError::Empty) for edge padding of an empty dim; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for an
    ///   overflowing size.
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for the tuple form on
    ///   rank < 2.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::ops::PadMode;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(t.clone().try_pad([(1, 1)], PadMode::Reflect)?.dims(), [2, 5]);
    /// assert!(t.try_pad([(0, 2), (0, 0)], PadMode::Reflect).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "pad")]
    fn try_pad(self, padding: impl PaddingSpec<D>, mode: impl Into<PadMode>) -> Self
    where K: Numeric => pad {
        let mode: PadMode = catch(OP, || mode.into())?;
        let dims = self.dims();
        let pairs = check::split::pad(OP, &dims, &padding.pad_arg(), &mode)?;
        let dtype = self.dtype();
        if let PadMode::Constant(value) = mode {
            check::split::pad_value(OP, value, dtype)?;
        }
        // `check::split::pad` proved every padded size fits in `usize`.
        let out: Vec<usize> = dims
            .iter()
            .zip(&pairs)
            .map(|(&size, &(before, after))| size.saturating_add(before).saturating_add(after))
            .collect();
        crate::capability::require_fits(OP, &out, dtype, &self.device())?;
        let mut full = [(0usize, 0usize); D];
        for (slot, pair) in full.iter_mut().zip(pairs) {
            *slot = pair;
        }
        catch(OP, || self.pad(full, mode))
    }

    /// Fallible twin of [`Tensor::chunk`].
    ///
    /// Checks that `dim` is in `-D..D` and `chunks > 0` (burn divides by zero). burn also panics
    /// for some sizes that do not divide evenly (e.g. 4 in 3 chunks: it forces exactly `chunks`
    /// pieces and the last is empty or overruns); this twin computes those correctly instead,
    /// with PyTorch's rule: pieces of `ceil(size / chunks)`, possibly fewer than `chunks`. Where
    /// burn succeeds, the pieces are the same.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for `chunks == 0`.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<1>::ones([4], &Device::flex());
    /// let pieces: Vec<_> = t.clone().try_chunk(3, 0)?.iter().map(|p| p.dims()[0]).collect();
    /// assert_eq!(pieces, [2, 2]); // burn panics
    /// assert!(t.try_chunk(0, 0).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "chunk")]
    fn try_chunk(self, chunks: usize, dim: impl AsIndex) -> Vec<Self> => chunk {
        let dim = dim.as_index();
        let pieces = check::split::chunk(OP, &self.dims(), chunks, dim)?;
        let dim = check::dim(OP, dim, D)?;
        narrow_pieces(OP, self, dim, &pieces)
    }

    /// Fallible twin of [`Tensor::split`].
    ///
    /// Checks that `dim` is in `-D..D` and `split_size > 0` unless the dim is empty.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a `split_size` of 0.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<1>::ones([5], &Device::flex());
    /// assert_eq!(t.clone().try_split(2, 0)?.len(), 3);
    /// assert!(t.try_split(0, 0).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "split")]
    fn try_split(self, split_size: usize, dim: impl AsIndex) -> Vec<Self> => split {
        let dim = dim.as_index();
        check::split::split(OP, &self.dims(), split_size, dim)?;
        catch(OP, || self.split(split_size, dim))
    }

    /// Fallible twin of [`Tensor::split_with_sizes`].
    ///
    /// Checks that `dim` is in `-D..D` and that the sizes sum to the dim's size.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<1>::ones([5], &Device::flex());
    /// assert_eq!(t.clone().try_split_with_sizes(vec![2, 3], 0)?.len(), 2);
    /// let err = t.try_split_with_sizes(vec![2, 2], 0).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "split_with_sizes: split sizes must sum to the dimension size; got split_sizes=[2, 2], size=5 (dim 0)"
    /// );
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "split_with_sizes")]
    fn try_split_with_sizes(self, split_sizes: Vec<usize>, dim: impl AsIndex) -> Vec<Self>
    => split_with_sizes {
        let dim = check::split::split_with_sizes(OP, &self.dims(), &split_sizes, dim.as_index())?;
        catch(OP, || self.split_with_sizes(split_sizes, dim))
    }

    /// Fallible twin of [`Tensor::iter_dim`].
    ///
    /// Checks that `dim` is in `-D..D`.
    ///
    /// # Errors
    ///
    /// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryView;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(t.clone().try_iter_dim(-1)?.count(), 3);
    /// assert!(t.try_iter_dim(2).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "iter_dim")]
    fn try_iter_dim(self, dim: impl AsIndex) -> DimIter<D, K> => iter_dim {
        let dim = check::dim(OP, dim.as_index(), D)?;
        catch(OP, || self.iter_dim(dim))
    }
}
}

/// `tensor.narrow(dim, start, length)` for each checked piece.
fn narrow_pieces<const D: usize, K: Basic>(
    op: &'static str,
    tensor: Tensor<D, K>,
    dim: usize,
    pieces: &[(usize, usize)],
) -> Result<Vec<Tensor<D, K>>> {
    pieces
        .iter()
        .map(|&(start, length)| catch(op, || tensor.clone().narrow(dim, start, length)))
        .collect()
}

/// Reshapes a tensor with a 0-sized dim to `out`, which must be its shape with unit dims
/// inserted. burn's `reshape` reads a 0 entry as "keep the source dim at this index", so it
/// cannot place a 0 anywhere but at its own index: append the unit dims (every dim keeps its
/// index), then permute them into place.
fn insert_units<const D: usize, const D2: usize, K: Basic>(
    op: &'static str,
    tensor: Tensor<D, K>,
    out: &[usize],
) -> Result<Tensor<D2, K>> {
    let source = tensor.dims();
    let Some(mask) = check::view::inserted_units(&source, out) else {
        return Err(GuardError::InvalidArgument {
            op,
            rule: "an empty tensor can only gain unit dims here",
            got: format!("shape={source:?}, target={out:?}"),
        });
    };
    let mut appended = [1usize; D2];
    for (slot, &d) in appended.iter_mut().zip(source.iter()) {
        *slot = d;
    }
    let mut axes = [0usize; D2];
    let (mut next_source, mut next_unit) = (0, D);
    for (slot, &unit) in axes.iter_mut().zip(&mask) {
        let counter = if unit {
            &mut next_unit
        } else {
            &mut next_source
        };
        *slot = *counter;
        *counter += 1;
    }
    catch(op, || tensor.reshape::<D2, _>(appended).permute(axes))
}
