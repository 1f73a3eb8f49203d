//! The backend stack behind a `burn::Tensor`'s [`Device`], from its dispatch variant.

use burn::backend::DispatchDevice;
use burn::tensor::Device;

use super::stack::BackendStack;

/// The backend stack a `burn::Tensor` on `device` runs on, read from the device's dispatch
/// variant (`Flex`, `NdArray`, `Cube`, `Remote`, `Autodiff(..)`).
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::capability::{Layer, stack_of};
///
/// assert_eq!(stack_of(&Device::flex()).layers(), &[Layer::Dispatch, Layer::Flex]);
/// ```
pub fn stack_of(device: &Device) -> BackendStack {
    BackendStack::parse(&format!("dispatch<{}>", name_of(device.as_dispatch())))
}

fn name_of(device: &DispatchDevice) -> String {
    match device {
        #[cfg(feature = "flex")]
        DispatchDevice::Flex(_) => "flex".into(),
        #[cfg(feature = "ndarray")]
        DispatchDevice::NdArray(_) => "ndarray".into(),
        #[cfg(feature = "wgpu")]
        DispatchDevice::Cube(_) => "fusion<cubecl<wgpu>>".into(),
        #[cfg(feature = "autodiff")]
        DispatchDevice::Autodiff(_) => format!("autodiff<{}>", name_of(&device.clone().inner())),
        #[allow(unreachable_patterns)]
        other => format!("{other:?}"),
    }
}
