//! Per-operation statistics of a policy, and the once-per-(op, from, to) fallback warning.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use super::op::Op;

/// What happened to one operation under a policy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
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

impl OpStats {
    fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// The statistics of a policy: one lock per operation, taken only to record or read.
#[derive(Debug, Default)]
pub struct Stats {
    ops: [Mutex<OpStats>; Op::ALL.len()],
}

impl Stats {
    fn update(&self, op: Op, f: impl FnOnce(&mut OpStats)) {
        if let Some(slot) = self.ops.get(op as usize) {
            // A poisoned lock only means another thread panicked mid-update of plain
            // counters: the counters are still usable.
            f(&mut slot.lock().unwrap_or_else(PoisonError::into_inner));
        }
    }

    pub(super) fn native(&self, op: Op) {
        self.update(op, |s| s.native += 1);
    }

    pub(super) fn error(&self, op: Op) {
        self.update(op, |s| s.errors += 1);
    }

    /// Counts a fallback of `op` from `from` to `to` and warns once per (op, from, to).
    pub(super) fn fallback(&self, op: Op, from: &str, to: &str) {
        self.update(op, |s| s.fallbacks += 1);
        warn_once(op, from, to);
    }

    pub(super) fn moved(&self, op: Op, to_fallback: u64, from_fallback: u64, elapsed: Duration) {
        self.update(op, |s| {
            s.bytes_to_fallback = s.bytes_to_fallback.saturating_add(to_fallback);
            s.bytes_from_fallback = s.bytes_from_fallback.saturating_add(from_fallback);
            s.move_time = s.move_time.saturating_add(elapsed);
        });
    }

    /// One operation's statistics (zeros when it never ran).
    pub fn of(&self, op: Op) -> OpStats {
        self.ops
            .get(op as usize)
            .map(|slot| *slot.lock().unwrap_or_else(PoisonError::into_inner))
            .unwrap_or_default()
    }

    /// Every operation that ran, refused or failed at least once.
    pub fn snapshot(&self) -> BTreeMap<Op, OpStats> {
        Op::ALL
            .iter()
            .map(|&op| (op, self.of(op)))
            .filter(|(_, stats)| !stats.is_empty())
            .collect()
    }
}

/// The (op, from, to) triples already warned about.
type Warned = Mutex<HashSet<(Op, String, String)>>;

fn warn_once(op: Op, from: &str, to: &str) {
    static WARNED: OnceLock<Warned> = OnceLock::new();
    let warned = WARNED.get_or_init(|| Mutex::new(HashSet::new()));
    let first = warned
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert((op, from.to_owned(), to.to_owned()));
    // The one warning about a fallback: the crate's clippy.toml disallows `log::warn!`
    // everywhere else, so no other path can warn about, or for, a fallback.
    #[allow(clippy::disallowed_macros)]
    if first {
        log::warn!("burn-guard: {op} is not supported on {from}; falling back to {to}");
    }
}
