//! The backstop's hook is scoped: panics inside `catch` print nothing, panics outside it reach
//! the hook the user installed, unchanged. Its own test binary, because panic hooks are
//! process-global.

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
