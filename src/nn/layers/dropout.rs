//! [`burn::nn::Dropout`] and the layers that pass their input through, perturbed or not:
//! [`GaussianNoise`], [`Identity`]; and their configs.

use burn::nn::{Dropout, DropoutConfig, GaussianNoise, GaussianNoiseConfig, Identity};
use burn::tensor::Tensor;

use super::support::Sealed;
use crate::check::layer::{self, probability};
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

config_twins! {
/// Checks that `std` is finite and at least 0.
impl TryInitStateless for GaussianNoiseConfig = GaussianNoise("gaussian_noise_init"), |config| [
    layer::finite_in("std", config.std, 0.0, f64::INFINITY),
];
}

twins! {
/// Twin of [`GaussianNoise::forward`].
pub trait TryGaussianNoise for GaussianNoise = "gaussian_noise" {
    /// Fallible twin of [`GaussianNoise::forward`]: any shape, same shape out.
    ///
    /// burn's forward asserts nothing; a module whose `std` is not finite or is negative (set
    /// through its public field or a record) is refused here, by its config's rule — beyond
    /// burn, whose forward on an autodiff device samples with that `std` without a panic.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for the module's `std`.
    ///
    /// ```
    /// use burn::nn::GaussianNoiseConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let noise = GaussianNoiseConfig::new(0.1).try_init()?;
    /// let x = Tensor::<2>::ones([2, 3], &Device::flex());
    /// // Not an autodiff device: the noise is off, as in burn.
    /// assert_eq!(noise.try_forward(x)?.dims(), [2, 3]);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        layer::finite_in(OP, "std", self.std, 0.0, f64::INFINITY)?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`Identity::forward`].
pub trait TryIdentity for Identity = "identity" {
    /// Fallible twin of [`Identity::forward`]: returns the input. Nothing to check; here so
    /// that code written against the twins needs no exception.
    ///
    /// # Errors
    ///
    /// None in practice; [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) by
    /// contract.
    ///
    /// ```
    /// use burn::nn::Identity;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let x = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(Identity::new().try_forward(x)?.dims(), [2, 3]);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        catch(OP, || self.forward(input))
    }
}
}
