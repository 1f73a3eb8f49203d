//! Devices as errors name them: a remote device by its host, never burn's dump of its endpoint.

/// A device as errors name it: its `Debug` form, except a remote device (at the `burn::Tensor`
/// level or burn-remote's own), which is `remote <address>` rather than burn's dump of its
/// endpoint.
pub(crate) fn brief<Dev: std::fmt::Debug + 'static>(device: &Dev) -> String {
    let any: &dyn std::any::Any = device;
    if let Some(device) = any.downcast_ref::<burn::tensor::Device>() {
        let stack = super::device::stack_of(device);
        if stack.base() == Some(&super::stack::Layer::Remote) {
            return remote_name(stack.remote_address());
        }
    }
    let text = format!("{device:?}");
    if text.starts_with("RemoteDevice") {
        let stack = super::stack::BackendStack::parse(&format!("router<remote-{text}>"));
        return remote_name(stack.remote_address());
    }
    text
}

fn remote_name(address: Option<&str>) -> String {
    address.map_or_else(
        || "remote".to_owned(),
        |address| format!("remote {address}"),
    )
}
