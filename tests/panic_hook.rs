//! The backstop's hook is scoped: panics inside `catch` print nothing, panics outside it reach
//! the hook the user installed, unchanged. Its own test binary, because panic hooks are
//! process-global (and the backtrace setting, process-wide too, is checked in child processes).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn user_hook_sees_only_panics_outside_the_backstop() {
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    // The user's hook, installed before burn-guard's first use.
    std::panic::set_hook(Box::new(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    }));

    // Inside the backstop: caught, returned as an error, not shown to the user's hook.
    let caught = burn_guard::panic::catch("inside", || -> u8 { panic!("inside the backstop") });
    assert!(caught.is_err());
    assert_eq!(seen.load(Ordering::SeqCst), 0);

    // Outside: the user's hook runs as before.
    let outside = std::panic::catch_unwind(|| -> u8 { panic!("outside the backstop") });
    assert!(outside.is_err());
    assert_eq!(seen.load(Ordering::SeqCst), 1);

    // And again inside: still silent, the hook was not swapped per call.
    for _ in 0..100 {
        let _ = burn_guard::panic::catch("inside", || -> u8 { panic!("again") });
    }
    assert_eq!(seen.load(Ordering::SeqCst), 1);
}

/// The environment variable that turns backtraces on, read once per process: hence a child
/// process per setting.
#[cfg(feature = "flex")]
const BACKTRACE: &str = "BURN_GUARD_BACKTRACE";

/// With `BURN_GUARD_BACKTRACE=1`, a refusal from a twin carries a backtrace captured in the
/// caller's stack, shown by `{:?}` and nowhere else; with `0`, none. Each child then turns the
/// setting the other way with `set_capture_backtraces`.
#[cfg(feature = "flex")]
#[test]
fn a_refusal_carries_a_backtrace_only_when_asked() {
    for mode in ["1", "0"] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["backtrace_child", "--exact", "--ignored", "--nocapture"])
            .env(BACKTRACE, mode)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains(&format!("backtraces {mode}: checked")),
            "{stdout} {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Panics where a backend would: the frame a backtrace captured at the panic names.
#[cfg(feature = "flex")]
#[inline(never)]
fn panics_in_the_backend() -> u8 {
    panic!("a backend's assert")
}

/// The child of `a_refusal_carries_a_backtrace_only_when_asked`.
#[cfg(feature = "flex")]
#[test]
#[ignore = "run by a_refusal_carries_a_backtrace_only_when_asked in a child process"]
fn backtrace_child() {
    use burn::tensor::{Device, Tensor};
    use burn_guard::error::{capture_backtraces, set_capture_backtraces};
    use burn_guard::prelude::*;

    let Ok(mode) = std::env::var(BACKTRACE) else {
        return;
    };
    let device = Device::flex();
    let refusal = || {
        Tensor::<2>::ones([2, 3], &device)
            .try_matmul(Tensor::ones([4, 2], &device))
            .unwrap_err()
    };
    let from_env = refusal();
    set_capture_backtraces(mode != "1");
    let from_setter = refusal();
    let (traced, plain) = if mode == "1" {
        (from_env, from_setter)
    } else {
        (from_setter, from_env)
    };
    assert_eq!(capture_backtraces(), mode != "1");

    let frames = format!("{:?}", traced.backtrace().unwrap());
    assert!(frames.contains("backtrace_child"), "{frames}");
    assert!(format!("{traced:?}").contains("backtrace_child"));
    assert!(plain.backtrace().is_none(), "{plain:?}");
    assert!(
        !format!("{plain:?}").contains("backtrace_child"),
        "{plain:?}"
    );
    // The message and the kind are the refusal's own.
    assert_eq!(traced.to_string(), plain.to_string());
    assert!(!traced.to_string().contains('\n'));
    assert_eq!(traced.kind(), ErrorKind::ShapeMismatch);
    assert_eq!(traced.op(), "matmul");
    assert!(matches!(traced.root(), GuardError::ShapeMismatch { .. }));

    // A caught panic's backtrace is the panic's: it names the frame that panicked, gone by
    // the time the backstop returns.
    set_capture_backtraces(true);
    let err = burn_guard::panic::catch("backend", panics_in_the_backend).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BackendPanic);
    let frames = format!("{:?}", err.backtrace().unwrap());
    assert!(frames.contains("panics_in_the_backend"), "{frames}");
    println!("backtraces {mode}: checked");
}
