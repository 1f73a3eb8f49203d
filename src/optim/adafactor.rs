//! The twin of `AdafactorConfig::init`, which asserts its settings.

use burn::optim::{AdafactorConfig, ModuleOptimizer};

use crate::check::optim::adafactor;
use crate::error::{GuardError, Result};
use crate::panic::catch;

mod sealed {
    pub trait Sealed {}
    impl Sealed for burn::optim::AdafactorConfig {}
}

/// Fallible twin of `AdafactorConfig::init`. Sealed.
///
/// ```
/// use burn::optim::AdafactorConfig;
/// use burn_guard::optim::TryAdafactorConfig;
///
/// assert!(AdafactorConfig::new().try_init().is_ok());
/// // burn's: "Adafactor decay_rate must be negative and finite".
/// assert!(AdafactorConfig::new().with_decay_rate(0.8).try_init().is_err());
/// ```
pub trait TryAdafactorConfig: sealed::Sealed {
    /// The optimizer, with the settings checked first.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`] naming the setting; [`GuardError::Unreadable`] when this
    /// version of burn hides the settings from the config's `Debug`.
    #[doc(alias = "init")]
    fn try_init(&self) -> Result<ModuleOptimizer>;
}

impl TryAdafactorConfig for AdafactorConfig {
    fn try_init(&self) -> Result<ModuleOptimizer> {
        const OP: &str = "AdafactorConfig::init";
        let settings = crate::upstream::adafactor_settings(self).ok_or(GuardError::Unreadable {
            op: OP,
            what: "`AdafactorConfig`'s private settings",
        })?;
        adafactor(OP, settings)?;
        catch(OP, || self.init())
    }
}
