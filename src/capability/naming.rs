//! Devices as errors name them: a remote device by its host, never burn's dump of its endpoint.

/// A device as errors name it: its `Debug` form, except a remote device (at the `burn::Tensor`
/// level or burn-remote's own), which is `remote <address>` rather than burn's dump of its
/// endpoint. Called on error paths only; it opens no device (the dispatch variant is matched,
/// not the backend asked).
pub(crate) fn brief<Dev: std::fmt::Debug + 'static>(device: &Dev) -> String {
    let any: &dyn std::any::Any = device;
    if let Some(device) = any.downcast_ref::<burn::tensor::Device>() {
        let dispatch = device.as_dispatch();
        if super::device::base_of(dispatch).1 == super::device::Base::Remote {
            return remote_name(super::remote::address_of(dispatch).as_deref());
        }
        return format!("{device:?}");
    }
    match crate::upstream::remote_device(device) {
        Some(address) => remote_name(address.as_deref()),
        None => format!("{device:?}"),
    }
}

fn remote_name(address: Option<&str>) -> String {
    address.map_or_else(
        || "remote".to_owned(),
        |address| format!("remote {address}"),
    )
}

/// [`check::same_device`](crate::check::same_device) with devices named as errors name them
/// ([`brief`]): what the layers above call.
pub(crate) fn same_device<Dev: PartialEq + std::fmt::Debug + 'static>(
    op: &'static str,
    lhs: &Dev,
    rhs: &Dev,
) -> crate::error::Result<()> {
    crate::check::same_device(op, lhs, rhs, brief)
}

/// [`same_device`] for each of `others` against `device`: every operand of an operation on
/// one device; the first on another is refused.
pub(crate) fn same_devices<Dev: PartialEq + std::fmt::Debug + 'static>(
    op: &'static str,
    device: &Dev,
    others: impl IntoIterator<Item = Dev>,
) -> crate::error::Result<()> {
    others
        .into_iter()
        .try_for_each(|other| same_device(op, device, &other))
}
