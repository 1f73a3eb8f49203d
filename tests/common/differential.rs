//! burn's function against its twin on the same inputs, for the tests of a burn crate's twins.
//! Included with `#[path]`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use burn_guard::GuardError;

/// burn's function under `catch_unwind`, the twin with the backstop off: both refuse or both
/// answer the same values. Returns whether burn answered.
///
/// # Panics
///
/// When one refuses and the other answers, or the values differ.
pub fn differential<T, U: PartialEq + std::fmt::Debug>(
    case: &str,
    raw: impl FnOnce() -> T,
    twin: impl FnOnce() -> Result<T, GuardError>,
    values: impl Fn(T) -> U,
) -> bool {
    if std::env::var_os("BURN_GUARD_TRACE_CASES").is_some() {
        eprintln!("CASE {case}");
    }
    let raw = catch_unwind(AssertUnwindSafe(raw));
    let ours = twin();
    match (raw, ours) {
        (Err(_), Err(_)) => false,
        (Ok(r), Ok(o)) => {
            assert_eq!(values(r), values(o), "{case}: values differ");
            true
        }
        (Err(_), Ok(_)) => panic!("{case}: burn panicked, the twin answered"),
        (Ok(_), Err(err)) => panic!("{case}: burn answered, the twin refused: {err}"),
    }
}
