//! Dtype capabilities, from burn's own `Backend::dtype_usage` — except for quantized dtypes,
//! where burn's answer cannot be trusted (upstream #5005: the router reports `Storage` for
//! schemes whose every op panics) and the declared quantization tables answer instead.

use burn::tensor::{DType, Device};
use burn_backend::{Backend, DTypeUsage};

use super::quant::quantize_support;
use super::stack::BackendStack;
use crate::error::Result;
use crate::gap::{Effect, Support};
use crate::panic::catch;

/// The device holds and computes with `dtype`: burn's `Device::supports_dtype`, asked under the
/// backstop (a panic is a no). The one home of the rule, for every path that puts values of a
/// dtype on a device: a checked load adopting a checkpoint's dtype (NdArray has no `F16`/`BF16`;
/// burn-store's apply panics there inside its abort guard and the process ends), a cast.
///
/// # Errors
///
/// [`GuardError::Unsupported`](crate::GuardError::Unsupported) naming `op`, the device's stack,
/// `dtype {dtype:?}`, effect [`Effect::Unimplemented`] ([`check::load::dtype_held`](crate::check::load::dtype_held)).
///
/// ```
/// # #![allow(deprecated)] // NdArray is deprecated upstream; still supported.
/// use burn::tensor::{DType, Device};
/// use burn_guard::capability::require_dtype;
/// assert!(require_dtype("load_file", &Device::flex(), DType::F16).is_ok());
/// assert!(require_dtype("load_file", &Device::ndarray(), DType::F16).is_err());
/// ```
pub fn require_dtype(op: &'static str, device: &Device, dtype: DType) -> Result<()> {
    let held = catch(op, || device.supports_dtype(dtype)).unwrap_or(false);
    crate::check::load::dtype_held(op, dtype, held, super::stack_of(device).label())
}

/// Whether backend `B` on `device` stores *and* computes with `dtype` (burn's
/// `DTypeUsage::general()`); quantized dtypes are answered by [`quantize_support`].
///
/// `dtype_usage` itself panics on CubeCL for some quantization schemes; it is asked under the
/// backstop, and a panic is an unsupported answer.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::capability::dtype_support;
///
/// let device = Default::default();
/// assert!(dtype_support::<burn_flex::Flex>(&device, DType::F32).is_native());
/// ```
pub fn dtype_support<B: Backend>(device: &B::Device, dtype: DType) -> Support {
    if let DType::QFloat(scheme) = dtype {
        return quantize_support(BackendStack::cached::<B>(device), &scheme, &[]);
    }
    match catch("dtype_usage", || B::dtype_usage(device, dtype)) {
        Ok(usage) if usage.is_superset(DTypeUsage::general()) => Support::Native,
        Ok(usage) => Support::gap_of(
            Effect::Unimplemented,
            format!(
                "{dtype:?} is only usable as {usage:?} on {}",
                BackendStack::of::<B>(device).label()
            ),
        ),
        Err(panic) => Support::gap_of(Effect::Panics, panic.to_string()),
    }
}
