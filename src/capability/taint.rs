//! Taint from the failures burn only logs.
//!
//! cubecl-common 0.11.3 runs a device's work on runner threads (`DSU-…` for burn-fusion's
//! stream, `DSD-…` for the runtime's server). A fire-and-forget task that panics there (a
//! kernel launch wgpu rejects, an allocation) is caught and reported with `log::warn!` of its
//! `CallError`, and nothing else: the caller's next call succeeds, and the buffers the task
//! was to write read back as whatever they held. Measured on lavapipe (`tests/verify.rs`): a
//! parameter drawn in burn's persistent pool over the binding limit, then the sum of its first
//! eight elements, reads back `0.0`, with one warning.
//!
//! cubecl offers no hook for these failures; the log record is the only trace, so the hook is
//! a logger: [`TaintLogger`] wraps the application's own, forwards every record to it
//! unchanged, and marks the device whose runner logged a `CallError` tainted
//! ([`DeviceHealth::Tainted`](super::DeviceHealth::Tainted)). The runner is named by its
//! thread (cubecl names it after the device's id), so the taint lands on that device alone.
//! Opt-in, because a process has one logger and it is the application's to choose.

use log::{LevelFilter, Log, Metadata, Record};

use super::health::{runner_of_thread, taint_runner};

/// The module cubecl-common logs swallowed task failures from
/// (`cubecl_common::device::handle::channel` and its `task` submodule).
const RUNNER_TARGET: &str = "cubecl_common::device::handle";

/// The text of cubecl-common's `CallError` as `Debug` prints it.
const CALL_ERROR: &str = "CallError(";

/// A [`log::Log`] that taints a device when its runner logs a swallowed task failure, and
/// forwards every record to the logger it wraps (or to none).
///
/// Install it with [`install_taint_logger`], or hand it to whatever sets the process's
/// logger. It asks for cubecl's warnings whatever the wrapped logger's level: the wrapped
/// logger still sees only what its own `enabled` accepts.
///
/// ```
/// use burn_guard::devices::TaintLogger;
/// use log::Log;
///
/// let logger = TaintLogger::new(None);
/// // A record from cubecl's runner is wanted, whatever the inner logger says.
/// let metadata = log::Metadata::builder()
///     .level(log::Level::Warn)
///     .target("cubecl_common::device::handle::channel::task")
///     .build();
/// assert!(logger.enabled(&metadata));
/// ```
pub struct TaintLogger {
    inner: Option<Box<dyn Log>>,
}

impl TaintLogger {
    /// Wraps `inner`, the application's logger (`None` to log nothing, only taint).
    pub fn new(inner: Option<Box<dyn Log>>) -> Self {
        Self { inner }
    }

    fn is_runner_failure(metadata: &Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn && metadata.target().starts_with(RUNNER_TARGET)
    }
}

impl Log for TaintLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        Self::is_runner_failure(metadata)
            || self
                .inner
                .as_ref()
                .is_some_and(|inner| inner.enabled(metadata))
    }

    fn log(&self, record: &Record<'_>) {
        if Self::is_runner_failure(record.metadata()) {
            observe(record);
        }
        if let Some(inner) = &self.inner
            && inner.enabled(record.metadata())
        {
            inner.log(record);
        }
    }

    fn flush(&self) {
        if let Some(inner) = &self.inner {
            inner.flush();
        }
    }
}

/// Taints the runner a `CallError` record came from. The record is logged on the runner's own
/// thread (the task ran there), whose name carries the device's id.
fn observe(record: &Record<'_>) {
    let message = record.args().to_string();
    if !message.contains(CALL_ERROR) {
        return;
    }
    let thread = std::thread::current();
    let Some(name) = thread.name() else {
        return;
    };
    if let Some(runner) = runner_of_thread(name) {
        taint_runner(runner, name, &message);
    }
}

/// Sets a [`TaintLogger`] wrapping `inner` as the process's logger, with `level` as the
/// maximum level (raised to `Warn` if lower, so that cubecl's warnings reach it).
///
/// # Errors
///
/// [`log::SetLoggerError`] when the process already has a logger (then wrap that one with
/// [`TaintLogger::new`] where it is set).
pub fn install_taint_logger(
    inner: Option<Box<dyn Log>>,
    level: LevelFilter,
) -> std::result::Result<(), log::SetLoggerError> {
    log::set_boxed_logger(Box::new(TaintLogger::new(inner)))?;
    log::set_max_level(level.max(LevelFilter::Warn));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cubecls_runner_warnings_are_asked_for_without_an_inner_logger() {
        let logger = TaintLogger::new(None);
        let of = |level, target| {
            logger.enabled(&Metadata::builder().level(level).target(target).build())
        };
        assert!(of(
            log::Level::Warn,
            "cubecl_common::device::handle::channel"
        ));
        assert!(of(
            log::Level::Error,
            "cubecl_common::device::handle::channel::task"
        ));
        assert!(!of(
            log::Level::Info,
            "cubecl_common::device::handle::channel"
        ));
        assert!(!of(log::Level::Warn, "burn_fusion::stream"));
    }
}
