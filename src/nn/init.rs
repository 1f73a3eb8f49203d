//! Twins of `burn::nn` config `init`s that can panic: `config.try_init(&device)?`.
//!
//! burn's configs assert on their own fields when they build a module (a dropout probability
//! outside `[0, 1)`, a head count that does not divide the model width, channels that the
//! groups do not divide). The twins check the same fields first and return the module, or the
//! error naming the field. Configs whose `init` cannot panic have no twin: call `init`.

use burn::tensor::{DType, Device};

use crate::error::{Result, ResultExt};

/// Implemented for the burn modules and configs that have a twin trait, and nothing else.
pub trait Sealed {}

/// Twin of `init(&self, device)` on a `burn::nn` config whose `init` can panic.
///
/// ```
/// use burn::nn::RmsNormConfig;
/// use burn::tensor::Device;
/// use burn_guard::prelude::*;
///
/// let device = Device::flex();
/// let norm = RmsNormConfig::new(8).try_init(&device)?;
/// let err = RmsNormConfig::new(8).with_epsilon(0.0).try_init(&device).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::OutOfRange);
/// # let _ = norm;
/// # Ok::<(), GuardError>(())
/// ```
pub trait TryInit: Sealed {
    /// The module `init` builds.
    type Module;

    /// Fallible twin of the config's `init(&self, device)`.
    ///
    /// # Errors
    ///
    /// The config's field that `init` would assert on, typed
    /// ([`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a number outside its
    /// range, [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for sizes that
    /// must divide each other, …).
    fn try_init(&self, device: &Device) -> Result<Self::Module>;
}

/// Twin of `init(&self)` on a `burn::nn` config that builds a module without parameters and
/// whose `init` can panic.
///
/// ```
/// use burn::nn::DropoutConfig;
/// use burn_guard::prelude::*;
///
/// let dropout = DropoutConfig::new(0.1).try_init()?;
/// let err = DropoutConfig::new(1.5).try_init().unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::OutOfRange);
/// # let _ = dropout;
/// # Ok::<(), GuardError>(())
/// ```
pub trait TryInitStateless: Sealed {
    /// The module `init` builds.
    type Module;

    /// Fallible twin of the config's `init(&self)`.
    ///
    /// # Errors
    ///
    /// The config's field that `init` would assert on.
    fn try_init(&self) -> Result<Self::Module>;
}

/// The byte rule for the parameters `op` would create on `device`, in the device's default
/// float dtype, each refusal wrapped in the parameter's name as context (`weight: linear_init:
/// …`). burn-nn's initializers draw parameters into burn's persistent memory pool, where wgpu
/// panics on the device thread for a buffer over its limit, and a draw past the host's memory
/// aborts the process: the config is refused before `init`.
///
/// # Errors
///
/// [`GuardError::TooLarge`](crate::GuardError::TooLarge) in a context naming the parameter.
pub(crate) fn require_params_fit(
    op: &'static str,
    device: &Device,
    params: &[(&str, &[usize])],
) -> Result<()> {
    let dtype: DType = device.settings().float_dtype.into();
    for &(name, shape) in params {
        crate::capability::require_fits(op, shape, dtype, device).context(name)?;
    }
    Ok(())
}

/// The byte rule for every float parameter of a freshly built `module`, read without drawing
/// it: burn-nn's `init` creates parameters lazily (`Param::uninitialized`), so their shapes
/// are known (`lazy_shape`) before anything is allocated. A refusal names the parameter's path
/// (`linear_inner.weight: position_wise_feed_forward_init: …`); the module, never drawn, is
/// dropped with nothing allocated.
///
/// # Errors
///
/// [`GuardError::TooLarge`](crate::GuardError::TooLarge) (or `OutOfMemory` against the host or
/// a budget) in a context naming the parameter.
pub(crate) fn require_module_fits<M: burn::module::Module>(
    op: &'static str,
    module: &M,
) -> Result<()> {
    let all = burn::module::ParamGroup::all();
    for param in crate::params::walk::float_params(op, module, &all)? {
        crate::capability::require_fits(op, &param.shape, param.dtype, &param.device)
            .with_context(|| param.path.clone())?;
    }
    Ok(())
}

/// burn's `init` under the backstop, then the byte rule for every parameter it created
/// ([`require_module_fits`]): the one way the config twins build a module with parameters.
///
/// # Errors
///
/// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) when `init` panics; the byte
/// rule's refusal naming the parameter.
pub(crate) fn init_fitting<M: burn::module::Module>(
    op: &'static str,
    init: impl FnOnce() -> M,
) -> Result<M> {
    let module = crate::panic::catch(op, init)?;
    require_module_fits(op, &module)?;
    Ok(module)
}
