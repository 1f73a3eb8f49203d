//! What the family modules share: the differential contract and the bad-input tally.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Mutex;

use burn_guard::GuardError;

pub use crate::common::{assert_parity, cpu_devices, float_tensor, raw, snapshot};

/// Refusals by kind, per backend, across the bad-input tables of every family; a
/// `BackendPanic` among them fails the table that produced it.
static TALLY: Mutex<BTreeMap<(&'static str, &'static str), usize>> = Mutex::new(BTreeMap::new());

/// One bad input: `ours` must refuse by a check (not the backstop). Returns the error.
///
/// # Panics
///
/// When `ours` is `Ok`, or an `Err` the backstop produced.
pub fn refused<T>(backend: &'static str, case: &str, ours: Result<T, GuardError>) -> GuardError {
    let err = match ours {
        Ok(_) => panic!("{backend}: {case}: expected a refusal, got Ok"),
        Err(err) => err,
    };
    let kind: &'static str = if matches!(err.root(), GuardError::BackendPanic { .. }) {
        "BackendPanic"
    } else {
        "check"
    };
    if let Ok(mut tally) = TALLY.lock() {
        *tally.entry((backend, kind)).or_default() += 1;
    }
    assert!(
        !matches!(err.root(), GuardError::BackendPanic { .. }),
        "{backend}: {case}: refused by the backstop, not a check: {err}"
    );
    // The one-line Display names the op and the cause.
    let line = err.to_string();
    assert!(!line.contains('\n'), "{case}: {line:?} is not one line");
    err
}

/// A bad-input table: each row `"case", Kind, "op" at "path" => call;` must be refused by a
/// check (see [`refused`]), with an error of that kind, from that op, at that layer path; the
/// kind, op (after a kind) and path are each optional. A failure names `backend` and the row.
macro_rules! refusals {
    ($backend:expr;
     $($case:literal $(, $kind:ident $(, $op:literal)?)? $(at $path:literal)? => $call:expr;)+) => {$({
        let _err = $crate::support::refused($backend, $case, $call);
        $(
            assert_eq!(_err.kind(), burn_guard::ErrorKind::$kind, "{}: {}: {_err}", $backend, $case);
            $(assert_eq!(_err.op(), $op, "{}: {}: {_err}", $backend, $case);)?
        )?
        $(assert_eq!(_err.path().as_deref(), Some($path), "{}: {}: {_err}", $backend, $case);)?
    })+};
}
pub(crate) use refusals;

/// A config's `init` against raw burn's (`burn`, run under `raw`): burn panics ⇔ the twin
/// refuses by a check; otherwise both build.
pub fn init_parity<M, N>(case: &str, burn: Option<M>, ours: Result<N, GuardError>) {
    match burn {
        None => {
            refused("none", case, ours);
        }
        Some(_) => {
            if let Err(err) = ours {
                panic!("{case}: burn builds, the twin refuses: {err}");
            }
        }
    }
}

/// The tally so far, printed by the tables (`cargo test -- --nocapture` shows it).
pub fn tally() -> BTreeMap<(&'static str, &'static str), usize> {
    TALLY.lock().map(|t| t.clone()).unwrap_or_default()
}

/// The differential contract on Flex and NdArray for one case.
///
/// `setup` builds the layer once per device (its random weights shared by both sides);
/// `burn` runs raw burn on it (the harness catches its panic), `ours` the twin; both
/// return a comparable snapshot. burn panics ⇔ `Err` (by a check); equal values when both
/// succeed. One allowance: where NdArray panics on an input Flex handles (an empty batch
/// through a matmul), the twin computes the result without dispatch and must equal Flex's.
pub fn parity_on_cpus<L, S: PartialEq + Clone + std::fmt::Debug>(
    case: &str,
    setup: impl Fn(&burn::tensor::Device) -> L,
    burn: impl Fn(&L, &burn::tensor::Device) -> S,
    ours: impl Fn(&L, &burn::tensor::Device) -> Result<S, GuardError>,
) {
    let mut flex: Option<S> = None;
    for (name, device) in cpu_devices() {
        let layer = setup(&device);
        let raw_result = raw(|| burn(&layer, &device));
        let ours_result = ours(&layer, &device);
        let case = format!("{name}: {case}");
        if name == "flex" {
            flex = raw_result.clone();
        }
        match (name, raw_result, ours_result) {
            ("ndarray", None, Ok(value)) if flex.is_some() => {
                assert_eq!(flex.as_ref(), Some(&value), "{case}: differs from flex")
            }
            (_, raw_result, ours_result) => assert_parity(&case, raw_result, ours_result),
        }
    }
}
