//! [`burn::nn::Dropout`] and its config.

use burn::nn::{Dropout, DropoutConfig};
use burn::tensor::Tensor;

use super::support::Sealed;
use crate::check::layer::probability;
use crate::nn::init::TryInitStateless;
use crate::panic::catch;

config_twins! {
impl TryInitStateless for DropoutConfig = Dropout("dropout_init"), |config| [
    probability("prob", config.prob),
];
}

twins! {
/// Twin of [`Dropout::forward`].
pub trait TryDropout for Dropout = "dropout" {
    /// Fallible twin of [`Dropout::forward`]: any shape, same shape out.
    ///
    /// burn's forward asserts nothing; a module loaded from a record with a probability
    /// outside `[0, 1)` is refused here (burn would scale by `1 / (1 - prob)`).
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for the module's probability.
    ///
    /// ```
    /// use burn::nn::DropoutConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let dropout = DropoutConfig::new(0.5).try_init()?;
    /// let x = Tensor::<2>::ones([2, 3], &Device::flex());
    /// // Not an autodiff device: dropout is the identity, as in burn.
    /// assert_eq!(dropout.try_forward(x)?.dims(), [2, 3]);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        probability(OP, "prob", self.prob)?;
        catch(OP, || self.forward(input))
    }
}
}
