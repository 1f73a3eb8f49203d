//! Naming a `burn::Tensor`-level remote device by its server: `remote ws://127.0.0.1:4000`.
//!
//! burn 0.22.1's `RemoteDevice` keeps its endpoint private and offers no accessor for it: the
//! one place its address appears is the device's `Debug` text (which burn's backend name for
//! it embeds). So burn-guard names a remote device in two ways, in this order:
//!
//! 1. The address it was connected with, kept by device id when burn-guard connected it
//!    ([`connect_remote_device`](crate::devices::connect_remote_device),
//!    [`LoopbackRemoteDevice`](crate::devices::LoopbackRemoteDevice)). A remote device's id is
//!    its slot in burn-remote's process-wide registry, one per (server, device index), kept for
//!    the life of the process, so an id never names two servers.
//! 2. For a device connected by other means (`Device::remote_options(..).init()` directly),
//!    the address fields of burn's backend name for it
//!    ([`upstream::remote_address_in`](crate::upstream::remote_address_in)). A device whose name gives
//!    no address is named `remote`.

use std::collections::HashMap;
use std::sync::{OnceLock, PoisonError, RwLock};

use burn::backend::DispatchDevice;

fn hosts() -> &'static RwLock<HashMap<u16, String>> {
    static HOSTS: OnceLock<RwLock<HashMap<u16, String>>> = OnceLock::new();
    HOSTS.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Records the address a remote device was connected with, by the device's registry id.
#[cfg(feature = "remote-device")]
pub(crate) fn remember(device: &DispatchDevice, address: &str) {
    hosts()
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(crate::upstream::dispatch_index(device), address.to_owned());
}

/// The address of the server behind a remote dispatch device (autodiff-wrapped or not): the
/// one it was connected with through burn-guard, else the one burn's backend name for it gives.
pub(crate) fn address_of(device: &DispatchDevice) -> Option<String> {
    let id = crate::upstream::dispatch_index(device);
    if let Some(address) = hosts()
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&id)
    {
        return Some(address.clone());
    }
    use burn_backend::Backend;
    let name = crate::panic::catch("backend name", || {
        <burn::backend::Dispatch as Backend>::name(device)
    })
    .ok()?;
    super::stack::BackendStack::parse(&name)
        .remote_address()
        .map(str::to_owned)
}
