//! The wgpu device for the wgpu tests, or a failure that says why there is none.
//!
//! A machine without a wgpu adapter fails every wgpu test, naming wgpu's reason, unless
//! `BURN_GUARD_SKIP_WGPU=1` is set. With it the tests skip, and each says so on stderr,
//! written to the process's stderr directly: the test harness captures only what the print
//! macros write, so the line shows even under `cargo test`'s output capture.
//!
//! Kept apart from `common/mod.rs` so that tests without the `remote` feature can include it.

use std::io::Write;

/// The variable that turns a missing adapter from a failure into a skip.
pub const SKIP_WGPU: &str = "BURN_GUARD_SKIP_WGPU";

/// The wgpu device, or `None` when there is no adapter and `BURN_GUARD_SKIP_WGPU=1`.
///
/// # Panics
///
/// When there is no adapter and the skip is not asked for.
pub fn wgpu_device() -> Option<burn::tensor::Device> {
    match burn_guard::devices::wgpu_adapter() {
        Ok(adapter) => Some(adapter.device),
        Err(err) if std::env::var(SKIP_WGPU).as_deref() == Ok("1") => {
            let test = std::thread::current()
                .name()
                .unwrap_or("a wgpu test")
                .to_owned();
            // Straight to the file descriptor, past the harness's capture of `eprintln!`.
            let _ = writeln!(
                std::io::stderr(),
                "skipped: {test}: no wgpu adapter ({SKIP_WGPU}=1): {err}"
            );
            None
        }
        Err(err) => panic!(
            "no wgpu adapter: {err}. The wgpu tests need one (on a machine without a GPU, \
             Mesa's lavapipe: apt-get install mesa-vulkan-drivers); set {SKIP_WGPU}=1 to skip them"
        ),
    }
}
