//! Per-operation statistics of a policy, and the once-per-(op, from, to) fallback warning.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// What happened to one operation under a policy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpStats {
    /// Runs on the tensor's own backend.
    pub native: u64,
    /// Runs on a fallback backend.
    pub fallbacks: u64,
    /// Calls refused or failed.
    pub errors: u64,
    /// Bytes moved to fallback backends.
    pub bytes_to_fallback: u64,
    /// Bytes moved back from fallback backends.
    pub bytes_from_fallback: u64,
    /// Time spent moving data, both ways.
    pub move_time: Duration,
}

/// The statistics of a policy: per operation, behind one lock taken only to record or read.
#[derive(Debug, Default)]
pub struct Stats {
    ops: Mutex<BTreeMap<&'static str, OpStats>>,
}

impl Stats {
    fn update(&self, op: &'static str, f: impl FnOnce(&mut OpStats)) {
        // A poisoned lock only means another thread panicked mid-update of plain counters:
        // the counters are still usable.
        let mut ops = self
            .ops
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(ops.entry(op).or_default());
    }

    /// Counts a native run of `op`.
    pub fn native(&self, op: &'static str) {
        self.update(op, |s| s.native += 1);
    }

    /// Counts a refusal or failure of `op`.
    pub fn error(&self, op: &'static str) {
        self.update(op, |s| s.errors += 1);
    }

    /// Counts a fallback of `op` from `from` to `to` and warns once per (op, from, to).
    pub fn fallback(&self, op: &'static str, from: &str, to: &str) {
        self.update(op, |s| s.fallbacks += 1);
        warn_once(op, from, to);
    }

    /// Records data moved for `op`: `to_fallback` bytes out, `from_fallback` bytes back, in
    /// `elapsed`.
    pub fn moved(&self, op: &'static str, to_fallback: u64, from_fallback: u64, elapsed: Duration) {
        self.update(op, |s| {
            s.bytes_to_fallback = s.bytes_to_fallback.saturating_add(to_fallback);
            s.bytes_from_fallback = s.bytes_from_fallback.saturating_add(from_fallback);
            s.move_time = s.move_time.saturating_add(elapsed);
        });
    }

    /// A copy of every operation's statistics.
    pub fn snapshot(&self) -> BTreeMap<&'static str, OpStats> {
        self.ops
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// The (op, from, to) triples already warned about.
type Warned = Mutex<HashSet<(&'static str, String, String)>>;

fn warn_once(op: &'static str, from: &str, to: &str) {
    static WARNED: OnceLock<Warned> = OnceLock::new();
    let warned = WARNED.get_or_init(|| Mutex::new(HashSet::new()));
    let first = warned
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert((op, from.to_owned(), to.to_owned()));
    if first {
        log::warn!("burn-guard: {op} is not supported on {from}; falling back to {to}");
    }
}
