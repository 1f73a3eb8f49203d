//! Twins of the element-wise ops of Float tensors only (burn's `api/float.rs`, `fmod.rs` and
//! `trunc.rs`): hypot, powf, fmod, closeness, cross, `grid_sample_2d`, rounding
//! (round/floor/trunc/ceil), fmod_scalar and is_finite. Their shared bodies and docs are in
//! `elementwise.rs`.

use burn::tensor::ops::GridSampleOptions;
use burn::tensor::{AsIndex, Bool, Tensor};

use super::elementwise::{binary_doc, empty_bool, empty_float, unless_empty};
use super::numeric::{Output, binary_ew};
use super::sealed::Sealed;
use super::twins;
use crate::check;
use crate::panic::catch;

/// Documents one float rounding twin (`round`, `ceil`, `floor`, `trunc`): no check, the empty
/// input answered without a kernel; a `twins!` row's doc template, which takes the row's
/// signature.
macro_rules! rounding_doc {
    ($alias:literal, $values:literal; $($sig:tt)*) => {
        #[doc = concat!("Fallible twin of [`Tensor::", $alias, "`].")]
        #[doc = ""]
        #[doc = "burn checks nothing here. Beyond burn, an input with no element (a dimension"]
        #[doc = "is 0) is answered without dispatching: an empty tensor of the same shape and"]
        #[doc = "dtype, burn's result on Flex and NdArray. wgpu's kernel panics on a `[0, n]`"]
        #[doc = "input, and a kernel panic poisons the wgpu device for the rest of the process."]
        #[doc = "See [`check::shape::no_elements`](crate::check::shape::no_elements)."]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = "[`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics on a"]
        #[doc = "non-empty input (none is known)."]
        #[doc = ""]
        #[doc = "```"]
        #[doc = "use burn::tensor::{Device, Tensor};"]
        #[doc = "use burn_guard::tensor::TryElementwiseFloat;"]
        #[doc = ""]
        #[doc = "let device = Device::flex();"]
        #[doc = "let t = Tensor::<1>::from_floats([1.4, -2.6], &device);"]
        #[doc = concat!("let y = t.try_", $alias, "()?;")]
        #[doc = concat!("assert_eq!(y.into_data().try_to_vec::<f32>()?, ", $values, ");")]
        #[doc = concat!("assert_eq!(Tensor::<2>::zeros([0, 3], &device).try_", $alias, "()?.dims(), [0, 3]);")]
        #[doc = "# Ok::<(), burn_guard::GuardError>(())"]
        #[doc = "```"]
        #[doc(alias = $alias)]
        $($sig)*
    };
}

twins! {
/// Fallible twins of the element-wise `burn::Tensor` methods of float tensors only.
///
/// Sealed: implemented for `burn::Tensor<D>` (float) only.
pub trait TryElementwiseFloat<const D: usize> for Tensor<D> {
    binary_doc!(in "TryElementwiseFloat"; "hypot", "", "", "ones")
    fn try_hypot(self, other: Self) -> Self
    => hypot(other) [binary_ew(&self, &other, Output::Operands)];

    binary_doc!(in "TryElementwiseFloat"; "powf", "", "", "ones")
    fn try_powf(self, other: Self) -> Self
    => powf(other) [binary_ew(&self, &other, Output::Operands)];

    binary_doc!(in "TryElementwiseFloat"; "fmod", "burn reaches them through `div`.", "", "ones")
    fn try_fmod(self, other: Self) -> Self
    => fmod(other) [binary_ew(&self, &other, Output::Operands)];

    /// Fallible twin of [`Tensor::is_close`]; the same checks as
    /// [`TryElementwiseFloat::try_hypot`] (burn reaches them through `sub`).
    ///
    /// # Errors
    ///
    /// As [`TryElementwiseFloat::try_hypot`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseFloat;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<1>::from_floats([1.0, 2.0], &device);
    /// let close = a.clone().try_is_close(a.clone(), None, None)?;
    /// assert_eq!(close.into_data().to_vec::<bool>().unwrap(), [true, true]);
    /// assert!(a.try_is_close(Tensor::zeros([3], &device), None, None).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "is_close")]
    fn try_is_close(
        self,
        other: Self,
        rtol: Option<f64>,
        atol: Option<f64>,
    ) -> Tensor<D, Bool> => is_close(other, rtol, atol) [binary_ew(&self, &other, Output::Bool)];

    /// Fallible twin of [`Tensor::all_close`]; the same checks as
    /// [`TryElementwiseFloat::try_is_close`].
    ///
    /// # Errors
    ///
    /// As [`TryElementwiseFloat::try_hypot`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseFloat;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<1>::from_floats([1.0, 2.0], &device);
    /// assert!(a.clone().try_all_close(a.clone(), None, None)?);
    /// assert!(a.try_all_close(Tensor::zeros([3], &device), None, None).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "all_close")]
    fn try_all_close(self, other: Self, rtol: Option<f64>, atol: Option<f64>) -> bool
    => all_close(other, rtol, atol) [binary_ew(&self, &other, Output::Bool)];

    /// Fallible twin of [`Tensor::cross`].
    ///
    /// Checks that `dim` is in `-D..D`, that both tensors have size 3 along `dim`, that the
    /// other dimensions broadcast and that both are on the same device
    /// (`TensorCheck::cross`).
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with both shapes.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseFloat;
    ///
    /// let device = Device::flex();
    /// let x = Tensor::<2>::from_floats([[1.0, 0.0, 0.0]], &device);
    /// let y = Tensor::<2>::from_floats([[0.0, 1.0, 0.0]], &device);
    /// let z = x.clone().try_cross(y, -1)?;
    /// assert_eq!(z.into_data().to_vec::<f32>().unwrap(), [0.0, 0.0, 1.0]);
    /// assert!(x.clone().try_cross(x, 0).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "cross")]
    fn try_cross<Dim: AsIndex>(self, other: Tensor<D>, dim: Dim) -> Tensor<D> => cross {
        let dim = check::dim(OP, dim.as_index(), D)?;
        check::elementwise::cross(OP, &self.dims(), &other.dims(), dim)?;
        crate::capability::same_device(OP, &self.device(), &other.device())?;
        catch(OP, || self.cross(other, dim))
    }

    /// Fallible twin of [`Tensor::grid_sample_2d`].
    ///
    /// burn checks nothing here; the backends assert. Checks that the input is
    /// `[N, C, H_in, W_in]` and the grid `[N, H_out, W_out, 2]` (see
    /// [`check::grid::grid_sample_2d`](crate::check::grid::grid_sample_2d)), the device,
    /// that both have the same dtype, and that the CPU backend implements the mode (Flex:
    /// bilinear and nearest; NdArray: bilinear; see
    /// [`check::grid::grid_sample_mode`](crate::check::grid::grid_sample_mode)).
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a rank other than 4.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for the grid's last
    ///   dimension or the batch sizes.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch),
    ///   [`GuardError::DTypeMismatch`](crate::GuardError::DTypeMismatch).
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a mode the CPU
    ///   backend does not implement.
    ///
    /// ```
    /// use burn::tensor::ops::InterpolateMode;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseFloat;
    ///
    /// let device = Device::flex();
    /// let x = Tensor::<4>::ones([1, 2, 3, 3], &device);
    /// let grid = Tensor::<4>::zeros([1, 4, 4, 2], &device);
    /// let y = x.clone().try_grid_sample_2d(grid, InterpolateMode::Bilinear)?;
    /// assert_eq!(y.dims(), [1, 2, 4, 4]);
    /// let bad = Tensor::<4>::zeros([1, 4, 4, 3], &device);
    /// assert!(x.try_grid_sample_2d(bad, InterpolateMode::Bilinear).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "grid_sample_2d")]
    fn try_grid_sample_2d(
        self,
        grid: Tensor<D>,
        options: impl Into<GridSampleOptions>,
    ) -> Tensor<D> => grid_sample_2d {
        let options = options.into();
        check::grid::grid_sample_2d(OP, &self.dims(), &grid.dims())?;
        crate::capability::same_device(OP, &self.device(), &grid.device())?;
        check::elementwise::same_dtype(OP, self.dtype(), grid.dtype())?;
        check::grid::grid_sample_mode(
            OP,
            &options.mode,
            &crate::capability::quirks_of(&self.device()),
        )?;
        catch(OP, || self.grid_sample_2d(grid, options))
    }

    rounding_doc!("round", "[1.0, -3.0]")
    fn try_round(self) -> Self => round { unless_empty!(empty_float, self.round()) }

    rounding_doc!("floor", "[1.0, -3.0]")
    fn try_floor(self) -> Self => floor { unless_empty!(empty_float, self.floor()) }

    rounding_doc!("trunc", "[1.0, -2.0]")
    fn try_trunc(self) -> Self => trunc { unless_empty!(empty_float, self.trunc()) }

    rounding_doc!("ceil", "[2.0, -2.0]")
    fn try_ceil(self) -> Self => ceil { unless_empty!(empty_float, self.ceil()) }

    /// Fallible twin of [`Tensor::fmod_scalar`].
    ///
    /// burn checks nothing here (any `f32` divisor is taken: a zero or NaN one gives NaN).
    /// Beyond burn, an input with no element is answered without dispatching: an empty tensor
    /// of the same shape and dtype, burn's result on Flex and NdArray. wgpu's `trunc` kernel,
    /// which burn runs here, panics on a `[0, n]` input, and a kernel panic poisons the wgpu
    /// device for the rest of the process. See
    /// [`check::shape::no_elements`](crate::check::shape::no_elements).
    ///
    /// # Errors
    ///
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics on a
    /// non-empty input (none is known).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseFloat;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::from_floats([5.0, -5.0], &device);
    /// assert_eq!(t.try_fmod_scalar(3.0)?.into_data().to_vec::<f32>().unwrap(), [2.0, -2.0]);
    /// assert_eq!(Tensor::<2>::zeros([0, 3], &device).try_fmod_scalar(3.0)?.dims(), [0, 3]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "fmod_scalar")]
    fn try_fmod_scalar(self, scalar: f32) -> Self
    => fmod_scalar { unless_empty!(empty_float, self.fmod_scalar(scalar)) }

    /// Fallible twin of [`Tensor::is_finite`].
    ///
    /// burn checks nothing here. Beyond burn, an input with no element is answered without
    /// dispatching: an empty bool tensor of the same shape, burn's result on Flex and NdArray.
    /// wgpu's `bool_not` kernel, which burn runs here, panics on a `[0, n]` input, and a
    /// kernel panic poisons the wgpu device for the rest of the process. See
    /// [`check::shape::no_elements`](crate::check::shape::no_elements).
    ///
    /// # Errors
    ///
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics on a
    /// non-empty input (none is known).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseFloat;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::from_floats([1.0, f32::INFINITY, f32::NAN], &device);
    /// assert_eq!(t.try_is_finite()?.into_data().to_vec::<bool>().unwrap(), [true, false, false]);
    /// assert_eq!(Tensor::<2>::zeros([0, 3], &device).try_is_finite()?.dims(), [0, 3]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "is_finite")]
    fn try_is_finite(self) -> Tensor<D, Bool>
    => is_finite { unless_empty!(empty_bool, self.is_finite()) }
}
}
