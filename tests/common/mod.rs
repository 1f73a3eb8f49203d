//! Real parts for the integration tests: a wgpu device when an adapter exists, and a loopback
//! burn-remote server. No mocks of burn.
#![allow(dead_code)]

use burn::tensor::Device;

/// The wgpu device, or `None` (after printing `skipped: no wgpu adapter`) when this machine has
/// no adapter. With `BURN_GUARD_REQUIRE_WGPU=1` a missing adapter fails the test instead.
pub fn wgpu_device() -> Option<Device> {
    match burn_guard::devices::wgpu_adapter() {
        Ok(adapter) => Some(adapter.device),
        Err(err) => {
            if std::env::var("BURN_GUARD_REQUIRE_WGPU").as_deref() == Ok("1") {
                panic!("BURN_GUARD_REQUIRE_WGPU=1 but {err}");
            }
            println!("skipped: no wgpu adapter");
            None
        }
    }
}

/// A burn-remote server on 127.0.0.1 (Flex behind it) and a connected client device.
pub fn loopback_remote() -> burn_guard::devices::LoopbackRemote {
    burn_guard::devices::LoopbackRemote::start().unwrap()
}

/// Runs `f` under `catch_unwind` with the default hook silenced, returning the panic message.
pub fn panic_message<T>(f: impl FnOnce() -> T) -> Option<String> {
    match burn_guard::panic::catch("canary", f) {
        Ok(_) => None,
        Err(burn_guard::GuardError::BackendPanic { message, .. }) => Some(message),
        Err(other) => panic!("unexpected {other:?}"),
    }
}
