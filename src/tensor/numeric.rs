//! Twins of burn-tensor `src/tensor/api/numeric.rs`: methods of numeric tensors (float, int).

use burn::tensor::Tensor;
use burn::tensor::kind::Numeric;

use super::sealed::Sealed;
use crate::check;
use crate::error::Result;
use crate::panic::catch;

/// Fallible twins of the `burn::Tensor` methods of numeric kinds (burn's `api/numeric.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryNumeric<const D: usize, K: Numeric>: Sealed + Sized {
    /// Fallible twin of [`Tensor::add`]: element-wise sum with broadcasting.
    ///
    /// Checks that both tensors are on the same device and that each dimension is equal or 1
    /// in one of them.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with both shapes.
    ///
    /// # Fallback
    ///
    /// Never.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryNumeric;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<2>::ones([2, 3], &device);
    /// assert_eq!(a.clone().try_add(Tensor::ones([1, 3], &device))?.dims(), [2, 3]);
    /// assert!(a.try_add(Tensor::ones([2, 2], &device)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "add")]
    fn try_add(self, other: Self) -> Result<Self>;

    /// Fallible twin of [`Tensor::sub`]; the same checks as [`TryNumeric::try_add`].
    ///
    /// # Errors
    ///
    /// As [`TryNumeric::try_add`].
    ///
    /// # Fallback
    ///
    /// Never.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryNumeric;
    ///
    /// let a = Tensor::<1>::ones([3], &Device::flex());
    /// assert_eq!(a.clone().try_sub(a)?.sum().into_scalar::<f32>(), 0.0);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "sub")]
    fn try_sub(self, other: Self) -> Result<Self>;

    /// Fallible twin of [`Tensor::mul`]; the same checks as [`TryNumeric::try_add`].
    ///
    /// # Errors
    ///
    /// As [`TryNumeric::try_add`].
    ///
    /// # Fallback
    ///
    /// Never.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryNumeric;
    ///
    /// let a = Tensor::<1>::from_floats([2.0, 3.0], &Device::flex());
    /// assert_eq!(a.clone().try_mul(a)?.sum().into_scalar::<f32>(), 13.0);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "mul")]
    fn try_mul(self, other: Self) -> Result<Self>;

    /// Fallible twin of [`Tensor::div`]; the same checks as [`TryNumeric::try_add`].
    ///
    /// # Errors
    ///
    /// As [`TryNumeric::try_add`].
    ///
    /// # Fallback
    ///
    /// Never.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryNumeric;
    ///
    /// let a = Tensor::<1>::from_floats([2.0, 3.0], &Device::flex());
    /// assert_eq!(a.clone().try_div(a)?.sum().into_scalar::<f32>(), 2.0);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "div")]
    fn try_div(self, other: Self) -> Result<Self>;

    /// Fallible twin of [`Tensor::matmul`].
    ///
    /// Checks the device, a rank of at least 2, the inner dimensions (`lhs[.., k]`,
    /// `rhs[.., k, _]`) and that batch dimensions are equal or 1.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for rank < 2.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with both shapes.
    ///
    /// # Fallback
    ///
    /// Never.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryNumeric;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<2>::ones([2, 3], &device);
    /// assert_eq!(a.clone().try_matmul(Tensor::ones([3, 4], &device))?.dims(), [2, 4]);
    /// let err = a.try_matmul(Tensor::ones([4, 5], &device)).unwrap_err();
    /// assert_eq!(err.to_string(), "matmul: lhs columns must equal rhs rows; got [2, 3] and [4, 5]");
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "matmul")]
    fn try_matmul(self, other: Self) -> Result<Self>;
}

/// One element-wise binary twin: device, broadcast, then burn's method.
macro_rules! binary_ew {
    ($twin:ident, $burn:ident) => {
        fn $twin(self, other: Self) -> Result<Self> {
            const OP: &str = stringify!($burn);
            check::same_device(OP, &self.device(), &other.device())?;
            check::shape::broadcastable(OP, &self.dims(), &other.dims())?;
            catch(OP, || Tensor::$burn(self, other))
        }
    };
}

impl<const D: usize, K: Numeric> TryNumeric<D, K> for Tensor<D, K> {
    binary_ew!(try_add, add);
    binary_ew!(try_sub, sub);
    binary_ew!(try_mul, mul);
    binary_ew!(try_div, div);

    fn try_matmul(self, other: Self) -> Result<Self> {
        const OP: &str = "matmul";
        check::same_device(OP, &self.device(), &other.device())?;
        check::matmul(OP, &self.dims(), &other.dims())?;
        catch(OP, || self.matmul(other))
    }
}
