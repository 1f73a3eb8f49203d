//! Twins of burn-store's builders that panic outside the stores: `PathFilter`'s regex filters
//! and the two adapters' constructors.

use burn::store::{FloatCastAdapter, HalfPrecisionAdapter, PathFilter};
use burn::tensor::DType;

use crate::check::load as rules;
use crate::error::{GuardError, Result};

mod sealed {
    pub trait Sealed {}
    impl Sealed for burn::store::PathFilter {}
    impl Sealed for burn::store::FloatCastAdapter {}
    impl Sealed for burn::store::HalfPrecisionAdapter {}
}

/// Fallible twins of `PathFilter`'s regex builders, which panic on an invalid pattern. Sealed.
/// In the prelude (with the `store` feature).
///
/// ```
/// use burn::store::PathFilter;
/// use burn_guard::prelude::*;
///
/// let filter = PathFilter::new().try_with_regex(r"^encoder\.")?;
/// assert!(filter.matches("encoder.fc.weight"));
/// assert_eq!(PathFilter::new().try_with_regex("(").unwrap_err().kind(), ErrorKind::InvalidArgument);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub trait TryPathFilter: Sized + sealed::Sealed {
    /// Fallible twin of `PathFilter::with_regex`.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`] when `pattern` is not a valid regular expression.
    #[doc(alias = "with_regex")]
    fn try_with_regex(self, pattern: impl AsRef<str>) -> Result<Self>;

    /// Fallible twin of `PathFilter::with_regexes`: every pattern is checked before any is
    /// added.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`] naming the first invalid pattern.
    #[doc(alias = "with_regexes")]
    fn try_with_regexes<I, S>(self, patterns: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>;
}

impl TryPathFilter for PathFilter {
    fn try_with_regex(self, pattern: impl AsRef<str>) -> Result<Self> {
        rules::regex("with_regex", pattern.as_ref())?;
        Ok(self.with_regex(pattern))
    }

    fn try_with_regexes<I, S>(self, patterns: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let patterns: Vec<S> = patterns.into_iter().collect();
        for pattern in &patterns {
            rules::regex("with_regexes", pattern.as_ref())?;
        }
        Ok(self.with_regexes(patterns))
    }
}

/// Fallible twin of `FloatCastAdapter::to`, which asserts a float target. Sealed.
///
/// ```
/// use burn::store::FloatCastAdapter;
/// use burn::tensor::DType;
/// use burn_guard::store::TryFloatCastAdapter;
///
/// assert!(FloatCastAdapter::try_to(DType::F16).is_ok());
/// assert!(FloatCastAdapter::try_to(DType::I32).is_err());
/// ```
pub trait TryFloatCastAdapter: Sized + sealed::Sealed {
    /// An adapter that casts every float tensor to `target`.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidDType`] when `target` is not a float dtype.
    #[doc(alias = "to")]
    fn try_to(target: DType) -> Result<Self>;
}

impl TryFloatCastAdapter for FloatCastAdapter {
    fn try_to(target: DType) -> Result<Self> {
        rules::float_target("FloatCastAdapter::to", target)?;
        Ok(Self::to(target))
    }
}

/// Fallible twin of `HalfPrecisionAdapter::without_module`, which asserts that the module type
/// is in the adapter's set. Sealed.
///
/// ```
/// use burn::store::HalfPrecisionAdapter;
/// use burn_guard::store::TryHalfPrecisionAdapter;
///
/// assert!(HalfPrecisionAdapter::new().try_without_module("Linear").is_ok());
/// assert!(HalfPrecisionAdapter::new().try_without_module("NoSuchLayer").is_err());
/// ```
pub trait TryHalfPrecisionAdapter: Sized + sealed::Sealed {
    /// Removes `module_type` (`"Linear"` or `"Struct:Linear"`) from the set of modules
    /// converted.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`] when the module type is not in the set;
    /// [`GuardError::Unreadable`] when this version of burn hides the set from its `Debug`.
    #[doc(alias = "without_module")]
    fn try_without_module(self, module_type: impl Into<String>) -> Result<Self>;
}

impl TryHalfPrecisionAdapter for HalfPrecisionAdapter {
    fn try_without_module(self, module_type: impl Into<String>) -> Result<Self> {
        const OP: &str = "HalfPrecisionAdapter::without_module";
        let name = module_type.into();
        // burn's own qualification of a short name.
        let key = if name.contains(':') {
            name
        } else {
            format!("Struct:{name}")
        };
        let modules =
            crate::upstream::half_precision_modules(&self).ok_or(GuardError::Unreadable {
                op: OP,
                what: "`HalfPrecisionAdapter`'s private module set",
            })?;
        if !modules.contains(&key) {
            return Err(GuardError::InvalidArgument {
                op: OP,
                rule: "the module type must be in the adapter's set",
                got: format!("module_type={key}, set={}", modules.join(", ")),
            });
        }
        Ok(self.without_module(key))
    }
}
