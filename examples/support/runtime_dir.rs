//! A private runtime directory for an example's own process, when the environment has none.
//!
//! On a machine without a GPU, wgpu opens Mesa's Vulkan driver (lavapipe), and Mesa's window
//! system code asks libwayland for a display once per adapter it opens. With
//! `XDG_RUNTIME_DIR` unset (a fresh container, a CI runner, `ssh` without a login session)
//! libwayland prints `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` on
//! stderr each time, though the run is healthy: nothing needs a display here. Pointing the
//! variable at an empty directory of our own, for this process only, lets that lookup find no
//! display, quietly.

/// Sets `XDG_RUNTIME_DIR` for this process to a private directory (this user's, mode 0700,
/// under the temp dir) when it is unset or not an absolute path; a value the caller set is
/// kept. Returns the directory it set, if any.
///
/// # Safety
///
/// Writes the process environment: call it first thing in `main`, before any thread starts
/// (wgpu's and burn's included), so that nothing reads the environment at the same time.
pub unsafe fn ensure_runtime_dir() -> Option<std::path::PathBuf> {
    let set = std::env::var_os("XDG_RUNTIME_DIR")
        .is_some_and(|dir| std::path::Path::new(&dir).is_absolute());
    if set {
        return None;
    }
    let dir = private_dir()?;
    // SAFETY: the caller guarantees that no other thread runs yet.
    unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    Some(dir)
}

/// `burn-guard-runtime-<uid>` under the temp dir: created 0700, or reused when it is already
/// this user's directory with mode 0700 (never one another user made).
#[cfg(unix)]
fn private_dir() -> Option<std::path::PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};

    // The owner of `/proc/self` is this process's user (Linux; elsewhere no directory is set).
    let uid = std::fs::metadata("/proc/self").ok()?.uid();
    let dir = std::env::temp_dir().join(format!("burn-guard-runtime-{uid}"));
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(_) => return None,
    }
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    let private = meta.is_dir() && meta.uid() == uid && meta.mode() & 0o777 == 0o700;
    private.then_some(dir)
}

#[cfg(not(unix))]
fn private_dir() -> Option<std::path::PathBuf> {
    None
}
