//! The twin of `GradientClippingConfig::init`, whose threshold burn takes as is.

use burn::optim::grad_clipping::{GradientClipping, GradientClippingConfig};

use crate::check::optim::clipping_threshold;
use crate::error::Result;

mod sealed {
    pub trait Sealed {}
    impl Sealed for burn::optim::grad_clipping::GradientClippingConfig {}
}

/// Fallible twin of `GradientClippingConfig::init`. Sealed.
///
/// ```
/// use burn::optim::grad_clipping::GradientClippingConfig;
/// use burn_guard::optim::TryGradientClippingConfig;
///
/// assert!(GradientClippingConfig::Norm(1.0).try_init().is_ok());
/// // burn's: every update zeroed (Norm(0)), or turned into gradient ascent (Norm(-1)).
/// assert!(GradientClippingConfig::Norm(0.0).try_init().is_err());
/// assert!(GradientClippingConfig::Value(-1.0).try_init().is_err());
/// ```
pub trait TryGradientClippingConfig: sealed::Sealed {
    /// The clipping, with its threshold checked finite and positive.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) with the threshold.
    #[doc(alias = "init")]
    fn try_init(&self) -> Result<GradientClipping>;
}

impl TryGradientClippingConfig for GradientClippingConfig {
    fn try_init(&self) -> Result<GradientClipping> {
        let (GradientClippingConfig::Value(threshold) | GradientClippingConfig::Norm(threshold)) =
            self;
        clipping_threshold("GradientClippingConfig::init", *threshold)?;
        Ok(self.init())
    }
}
