//! Twins of `Param`'s constructors a training loop uses: `from_tensor` (weight tying) and
//! `from_data`.

use burn::module::Param;
use burn::tensor::{Device, Tensor, TensorData};

use crate::check::optim as rules;
use crate::error::Result;
use crate::panic::catch;
use crate::tensor::TryCreate;

mod sealed {
    pub trait Sealed {}
    impl<const D: usize> Sealed for burn::module::Param<burn::tensor::Tensor<D>> {}
}

/// Fallible twins of `Param::from_tensor` and `Param::from_data`. Sealed.
///
/// ```
/// use burn::module::Param;
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::optim::TryParam;
///
/// let device = Device::flex().autodiff();
/// let param = Param::<Tensor<2>>::try_from_data([[1.0, 2.0]], &device)?;
/// assert!(Param::<Tensor<1>>::try_from_data([[1.0, 2.0]], &device).is_err());
/// // A non-leaf (the output of an op on a tracked tensor) cannot be a parameter.
/// let derived = param.val().mul_scalar(2.0);
/// assert!(Param::try_from_tensor(derived).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub trait TryParam<const D: usize>: Sized + sealed::Sealed {
    /// Fallible twin of `Param::from_tensor`: `value` must not be a non-leaf (burn panics:
    /// `Can't convert a non leaf tensor into a tracked tensor`). To tie a weight, share the
    /// parameter itself rather than a tensor computed from it.
    ///
    /// # Errors
    ///
    /// [`GuardError::NoGradient`](crate::GuardError::NoGradient).
    #[doc(alias = "from_tensor")]
    fn try_from_tensor(value: Tensor<D>) -> Result<Self>;

    /// Fallible twin of `Param::from_data`: the data's rank must be `D`, and it must fit the
    /// device (the checks of [`TryCreate::try_from_data`]).
    ///
    /// # Errors
    ///
    /// As [`TryCreate::try_from_data`].
    #[doc(alias = "from_data")]
    fn try_from_data<T: Into<TensorData>>(data: T, device: &Device) -> Result<Self>;
}

impl<const D: usize> TryParam<D> for Param<Tensor<D>> {
    fn try_from_tensor(value: Tensor<D>) -> Result<Self> {
        const OP: &str = "Param::from_tensor";
        if value.is_tracked() && !value.is_require_grad() {
            rules::leaves_for_training(OP, vec!["value".to_owned()])?;
        }
        catch(OP, || Param::from_tensor(value))
    }

    fn try_from_data<T: Into<TensorData>>(data: T, device: &Device) -> Result<Self> {
        let tensor = Tensor::<D>::try_from_data(data, device)?;
        Self::try_from_tensor(tensor)
    }
}
