//! The backend stack behind a `burn::Tensor`'s [`Device`], from its dispatch variant.

use std::sync::OnceLock;

use burn::backend::DispatchDevice;
use burn::tensor::Device;

use super::stack::BackendStack;

/// The backend stack a `burn::Tensor` on `device` runs on, read from the device's dispatch
/// variant (`Flex`, `NdArray`, `Cube`, `Remote`, `Autodiff(..)`).
///
/// The stack depends only on the variant, so each is parsed once per process and shared:
/// asking costs a match, not a parse.
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::capability::{Layer, stack_of};
///
/// assert_eq!(stack_of(&Device::flex()).layers(), &[Layer::Dispatch, Layer::Flex]);
/// ```
pub fn stack_of(device: &Device) -> &'static BackendStack {
    match kind_of(device.as_dispatch()) {
        (autodiff, Kind::Known(base)) => cached(autodiff, base),
        (autodiff, Kind::Other(name)) => leak_other(autodiff, &name),
    }
}

/// The executing backend behind a dispatch device, as `Backend::name` spells it.
enum Kind {
    Known(&'static str),
    Other(String),
}

/// (whether autodiff wraps it, the executing backend).
fn kind_of(device: &DispatchDevice) -> (bool, Kind) {
    match device {
        #[cfg(feature = "flex")]
        DispatchDevice::Flex(_) => (false, Kind::Known("flex")),
        #[cfg(feature = "ndarray")]
        DispatchDevice::NdArray(_) => (false, Kind::Known("ndarray")),
        #[cfg(feature = "wgpu")]
        DispatchDevice::Cube(_) => (false, Kind::Known("fusion<cubecl<wgpu>>")),
        #[cfg(feature = "autodiff")]
        DispatchDevice::Autodiff(_) => (true, kind_of(&device.clone().inner()).1),
        #[allow(unreachable_patterns)]
        other => (false, Kind::Other(format!("{other:?}"))),
    }
}

fn parse(autodiff: bool, base: &str) -> BackendStack {
    if autodiff {
        BackendStack::parse(&format!("dispatch<autodiff<{base}>>"))
    } else {
        BackendStack::parse(&format!("dispatch<{base}>"))
    }
}

/// One parsed stack per known (autodiff, backend) pair.
fn cached(autodiff: bool, base: &'static str) -> &'static BackendStack {
    static STACKS: [OnceLock<BackendStack>; 6] = [const { OnceLock::new() }; 6];
    let index = match base {
        "flex" => 0,
        "ndarray" => 1,
        _ => 2,
    } + if autodiff { 3 } else { 0 };
    match STACKS.get(index) {
        Some(slot) => slot.get_or_init(|| parse(autodiff, base)),
        None => leak_other(autodiff, base),
    }
}

/// A backend burn-guard has no variant for: parsed once per name and kept.
fn leak_other(autodiff: bool, name: &str) -> &'static BackendStack {
    use std::collections::HashMap;
    use std::sync::Mutex;

    static OTHERS: OnceLock<Mutex<HashMap<(bool, String), &'static BackendStack>>> =
        OnceLock::new();
    let others = OTHERS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut others = others
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    others
        .entry((autodiff, name.to_owned()))
        .or_insert_with(|| Box::leak(Box::new(parse(autodiff, name))))
}
