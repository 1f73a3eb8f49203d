//! Twins of `GradientsParams`'s reads, which unwrap a downcast to the rank asked for.

use burn::module::ParamId;
use burn::optim::GradientsParams;
use burn::tensor::Tensor;

use crate::error::{GuardError, Result};
use crate::panic::catch;

mod sealed {
    pub trait Sealed {}
    impl Sealed for burn::optim::GradientsParams {}
}

/// Fallible twins of `GradientsParams::get` and `remove`: asked at a rank other than the one
/// the gradient was registered with, burn's container unwraps a failed downcast (and `remove`
/// has already taken the entry out). Sealed.
///
/// ```
/// use burn::module::ParamId;
/// use burn::optim::GradientsParams;
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::optim::TryGradientsParams;
///
/// let mut grads = GradientsParams::new();
/// let id = ParamId::new();
/// grads.register(id, Tensor::<2>::ones([2, 3], &Device::flex()));
/// assert!(grads.try_get::<1>(id).is_err());
/// assert!(grads.try_remove::<2>(id)?.is_some());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub trait TryGradientsParams: sealed::Sealed {
    /// Fallible twin of `GradientsParams::get`.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`] when the gradient is not of rank `D`.
    #[doc(alias = "get")]
    fn try_get<const D: usize>(&self, id: ParamId) -> Result<Option<Tensor<D>>>;

    /// Fallible twin of `GradientsParams::remove`: the gradient stays registered on `Err`.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`] when the gradient is not of rank `D`.
    #[doc(alias = "remove")]
    fn try_remove<const D: usize>(&mut self, id: ParamId) -> Result<Option<Tensor<D>>>;
}

impl TryGradientsParams for GradientsParams {
    fn try_get<const D: usize>(&self, id: ParamId) -> Result<Option<Tensor<D>>> {
        // The container is private: the downcast is the only way to ask the rank, and it
        // unwraps. On the host, before anything is removed.
        catch("GradientsParams::get", || self.get::<D>(id)).map_err(|_| wrong_rank(D))
    }

    fn try_remove<const D: usize>(&mut self, id: ParamId) -> Result<Option<Tensor<D>>> {
        self.try_get::<D>(id)?;
        Ok(self.remove::<D>(id))
    }
}

fn wrong_rank(rank: usize) -> GuardError {
    GuardError::InvalidArgument {
        op: "GradientsParams::get",
        rule: "a gradient must be read at the rank it was registered with",
        got: format!("rank={rank}"),
    }
}
