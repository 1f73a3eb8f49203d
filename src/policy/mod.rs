//! What to do when a capability is missing: refuse (the default), or fall back to the first
//! capable device of an ordered list. Every decision is counted, every fallback logged once.
//!
//! Fallback lives here and nowhere else: guarded operations hand the policy their capability
//! answer and closures, and the policy decides, moves, runs and records.
//!
//! - [`Policy::strict`]: nothing falls back; a missing capability is
//!   [`GuardError::Unsupported`](crate::GuardError::Unsupported) and nothing runs.
//! - [`Policy::fallback_to`]: an ordered list of devices (`burn::Tensor` level); backend-level
//!   operations take their concrete fallback backend as a type parameter instead.
//! - [`Policy::deny_op`] / [`Policy::allow_only`]: per-operation control.
//! - [`set_fallback_disabled`]: a process-wide switch that turns every fallback off, like ONNX
//!   Runtime's `session.disable_cpu_ep_fallback`.
//! - [`Policy::stats`]: per operation, native runs, fallbacks, errors, bytes moved each way and
//!   time spent moving.

mod stats;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use burn::tensor::Device;

pub use stats::{OpStats, Stats};

static FALLBACK_DISABLED: AtomicBool = AtomicBool::new(false);

/// Turns every fallback off (or back on), for every policy in the process.
///
/// ```
/// burn_guard::policy::set_fallback_disabled(true);
/// assert!(burn_guard::policy::fallback_disabled());
/// burn_guard::policy::set_fallback_disabled(false);
/// ```
pub fn set_fallback_disabled(disabled: bool) {
    FALLBACK_DISABLED.store(disabled, Ordering::SeqCst);
}

/// Whether [`set_fallback_disabled`] turned fallback off.
pub fn fallback_disabled() -> bool {
    FALLBACK_DISABLED.load(Ordering::SeqCst)
}

/// A fallback policy and the statistics of what ran under it. Cheap to clone: clones share
/// their statistics.
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::policy::Policy;
///
/// let strict = Policy::strict();
/// assert!(!strict.may_fall_back("quantize_dynamic"));
/// let lenient = Policy::fallback_to([Device::flex()]).deny_op("q_matmul");
/// assert!(lenient.may_fall_back("quantize_dynamic"));
/// assert!(!lenient.may_fall_back("q_matmul"));
/// ```
#[derive(Debug, Clone)]
pub struct Policy {
    devices: Vec<Device>,
    fallback: bool,
    allow_only: Option<BTreeSet<&'static str>>,
    deny: BTreeSet<&'static str>,
    stats: Arc<Stats>,
}

impl Default for Policy {
    fn default() -> Self {
        Self::strict()
    }
}

impl Policy {
    /// Refuse whatever the backend cannot do: [`GuardError::Unsupported`](crate::GuardError::Unsupported), nothing runs.
    pub fn strict() -> Self {
        Self {
            devices: Vec::new(),
            fallback: false,
            allow_only: None,
            deny: BTreeSet::new(),
            stats: Arc::new(Stats::default()),
        }
    }

    /// Fall back to the first capable device of `devices`, in order. At the backend level the
    /// fallback backend is a type parameter of the operation and `devices` may be empty.
    pub fn fallback_to(devices: impl IntoIterator<Item = Device>) -> Self {
        Self {
            devices: devices.into_iter().collect(),
            fallback: true,
            ..Self::strict()
        }
    }

    /// Never fall back for `op` (burn's name for it, e.g. `"quantize_dynamic"`).
    #[must_use]
    pub fn deny_op(mut self, op: &'static str) -> Self {
        self.deny.insert(op);
        self
    }

    /// Fall back only for the operations listed.
    #[must_use]
    pub fn allow_only(mut self, ops: impl IntoIterator<Item = &'static str>) -> Self {
        self.allow_only = Some(ops.into_iter().collect());
        self
    }

    /// Whether `op` may fall back under this policy and the process-wide switch.
    pub fn may_fall_back(&self, op: &str) -> bool {
        self.fallback
            && !fallback_disabled()
            && !self.deny.contains(op)
            && self
                .allow_only
                .as_ref()
                .is_none_or(|allowed| allowed.contains(op))
    }

    /// The fallback devices, in order of preference.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// What ran under this policy (and its clones) so far.
    pub fn stats(&self) -> std::collections::BTreeMap<&'static str, OpStats> {
        self.stats.snapshot()
    }

    /// The shared statistics, for recording.
    pub(crate) fn recorder(&self) -> &Stats {
        &self.stats
    }
}
