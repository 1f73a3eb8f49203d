//! The panic backstop: run a closure, turn an unwinding panic into
//! [`GuardError::BackendPanic`], and print nothing while doing so.
//!
//! It is the net under the checks, not the mechanism: known failures are refused by
//! [`check`](crate::check) before anything is dispatched. The backstop is for what no check
//! predicted.
//!
//! # How the silence works
//!
//! The first call installs one process-wide panic hook that chains to the hook that was there
//! before. While a thread is inside [`catch`], a panic on that thread is recorded (message and
//! location) instead of printed; every other panic reaches the previous hook unchanged. The hook
//! is installed once, never swapped per call. With backtraces asked for
//! ([`set_capture_backtraces`](crate::error::set_capture_backtraces)) it captures the panic's
//! too, where the panic was raised, and the error carries it.
//!
//! # Limits
//!
//! - With `panic = "abort"` in the profile, a panic ends the process before anything can catch
//!   it: the backstop cannot work, and the checks are the only defence.
//! - A panic on another thread (a backend's worker pool) is reported by that thread's hook as
//!   usual; the backstop catches it only if the backend propagates it to the calling thread.
//! - If code later replaces the process hook with [`std::panic::set_hook`], caught panics are
//!   still returned as errors but may be printed by the new hook.
//! - Whatever the closure had mutated when it panicked may be left half-done; burn's tensors are
//!   values, so the inputs moved into the closure are simply dropped.

use std::backtrace::Backtrace;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{GuardError, Result, capture_backtraces};

thread_local! {
    /// How many [`catch`] scopes this thread is inside.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// The location of the last panic caught on this thread, recorded by the hook.
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The backtrace of the last panic caught on this thread, captured by the hook where the
    /// panic was raised, when backtraces are asked for
    /// ([`set_capture_backtraces`](crate::error::set_capture_backtraces)).
    static BACKTRACE: RefCell<Option<Backtrace>> = const { RefCell::new(None) };
}

static INSTALL: Once = Once::new();

static DISABLED: AtomicBool = AtomicBool::new(false);

/// Turns the backstop off (or back on) for the whole process: with it off, a panic inside
/// [`catch`] is printed by the process's hook and unwinds to the caller as if burn-guard were
/// not there.
///
/// For debugging and for tests that prove a check refuses *before* dispatch: with the
/// backstop off, an input that reached a panicking backend would fail loudly instead of
/// coming back as [`GuardError::BackendPanic`].
///
/// ```
/// burn_guard::panic::set_backstop_disabled(true);
/// assert!(burn_guard::panic::backstop_disabled());
/// burn_guard::panic::set_backstop_disabled(false);
/// ```
pub fn set_backstop_disabled(disabled: bool) {
    DISABLED.store(disabled, Ordering::SeqCst);
}

/// Whether [`set_backstop_disabled`] turned the backstop off.
#[inline]
pub fn backstop_disabled() -> bool {
    DISABLED.load(Ordering::Relaxed)
}

/// Installs the chained, scoped hook (once per process).
#[inline]
fn install_hook() {
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
            if DEPTH.with(Cell::get) > 0 && !backstop_disabled() {
                let location = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
                LOCATION.with(|slot| *slot.borrow_mut() = location);
                // Here the stack still holds the frames that panicked; `caught` has lost them.
                let backtrace = capture_backtraces().then(Backtrace::force_capture);
                BACKTRACE.with(|slot| *slot.borrow_mut() = backtrace);
            } else {
                previous(info);
            }
        }));
    });
}

/// Leaves the scope even if the closure unwinds.
struct ScopeGuard;

impl ScopeGuard {
    #[inline]
    fn enter() -> Self {
        DEPTH.with(|depth| depth.set(depth.get().saturating_add(1)));
        ScopeGuard
    }
}

impl Drop for ScopeGuard {
    #[inline]
    fn drop(&mut self) {
        DEPTH.with(|depth| depth.set(depth.get().saturating_sub(1)));
    }
}

/// Runs `f`; a panic inside it becomes [`GuardError::BackendPanic`] for `op`, silently.
///
/// `f` is treated as unwind-safe: burn tensors are values, and the closure's captures are
/// dropped on a panic.
///
/// # Errors
///
/// [`GuardError::BackendPanic`] with the panic message and `file:line:column` when `f` panics.
///
/// ```
/// use burn_guard::{GuardError, panic};
///
/// let ok = panic::catch("add", || 1 + 1);
/// assert_eq!(ok.unwrap(), 2);
///
/// let err = panic::catch("divide", || -> i32 { panic!("division by zero") }).unwrap_err();
/// assert!(matches!(err, GuardError::BackendPanic { op: "divide", .. }));
/// assert!(err.to_string().contains("division by zero"));
/// ```
#[inline]
pub fn catch<T>(op: &'static str, f: impl FnOnce() -> T) -> Result<T> {
    install_hook();
    let outcome = {
        let _scope = ScopeGuard::enter();
        panic::catch_unwind(AssertUnwindSafe(f))
    };
    // The error path is out of line: what every call inlines is the scope and the unwind
    // landing pad, not the payload's downcasts.
    outcome.map_err(|payload| caught(op, payload))
}

/// The error for a panic `catch` caught: its message and the location the hook recorded.
///
/// With the backstop off the panic goes on unwinding from here, as if it had never been
/// caught (the hook printed it as usual). Deciding this here rather than before the call keeps
/// one copy of the closure's call in every twin: a second, unguarded copy cost the hot path
/// its moves twice over.
#[cold]
#[inline(never)]
fn caught(op: &'static str, payload: Box<dyn std::any::Any + Send>) -> GuardError {
    if backstop_disabled() {
        panic::resume_unwind(payload);
    }
    let message = payload
        .downcast_ref::<&'static str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".to_owned());
    let location = LOCATION.with(|slot| slot.borrow_mut().take());
    let backtrace = BACKTRACE.with(|slot| slot.borrow_mut().take());
    GuardError::BackendPanic {
        op,
        message,
        location,
    }
    .with_captured_backtrace(backtrace)
}

/// Like [`catch`], for a closure that already returns a guarded [`Result`].
///
/// # Errors
///
/// What `f` returns, or [`GuardError::BackendPanic`] when it panics.
///
/// ```
/// use burn_guard::{GuardError, panic};
///
/// let err = panic::catch_result("op", || -> burn_guard::Result<()> {
///     Err(GuardError::InvalidArgument { op: "op", rule: "step must be positive", got: "step=0".into() })
/// });
/// assert!(matches!(err, Err(GuardError::InvalidArgument { .. })));
/// ```
pub fn catch_result<T>(op: &'static str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch(op, f).and_then(|inner| inner)
}

#[cfg(test)]
// These tests exercise the backstop itself: they must panic inside `catch`, and unwrapping its
// result is the plainest way to state what it returns.
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn nested_scopes_unwind_cleanly() {
        let outer = catch("outer", || {
            let inner = catch("inner", || -> () { panic!("inner boom") });
            assert!(matches!(
                inner,
                Err(GuardError::BackendPanic { op: "inner", .. })
            ));
            DEPTH.with(Cell::get)
        });
        assert_eq!(outer.unwrap(), 1);
        assert_eq!(DEPTH.with(Cell::get), 0);
    }

    #[test]
    fn location_is_recorded() {
        let err = catch("op", || -> () { panic!("boom {}", 42) }).unwrap_err();
        match err {
            GuardError::BackendPanic {
                message, location, ..
            } => {
                assert_eq!(message, "boom 42");
                assert!(location.unwrap().contains("panic.rs"));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
