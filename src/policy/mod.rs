//! What to do when a capability is missing: refuse (the default), or fall back to the first
//! capable device of an ordered list. Every decision is counted, every fallback logged once.
//!
//! Fallback is decided and counted here and nowhere else: a guarded operation hands [`Policy`]
//! its capability answer and its targets and gets a decision back (`Policy::route`: home, a
//! fallback target, or refused); it runs the straight-line code for that decision and tells
//! the policy what happened (`Policy::record`), which counts it and warns once per fallback
//! path. Operations are a typed set ([`Op`]).
//!
//! - [`Policy::strict`]: nothing falls back; a missing capability is
//!   [`GuardError::Unsupported`](crate::GuardError::Unsupported) and nothing runs.
//! - [`Policy::fallback_to`]: an ordered list of devices (`burn::Tensor` level); backend-level
//!   operations take their concrete fallback backend as a type parameter instead.
//! - [`Policy::deny_op`] / [`Policy::allow_only`]: per-operation control, by [`Op`].
//! - [`Policy::place`] ([`Op::Oversize`]): a tensor too large for its device goes to the first
//!   fallback device where it fits, and stays there.
//! - [`Policy::in_cells`] (Unix): burn-vision's `unsafe` CPU operations run in a pool of
//!   [isolation cells](crate::cell), so that a fault there costs a call, not the process.
//! - [`set_fallback_disabled`]: a process-wide switch that turns every fallback off, like ONNX
//!   Runtime's `session.disable_cpu_ep_fallback`.
//! - [`Policy::stats`]: per operation, native runs, fallbacks, errors, bytes moved each way
//!   (counted from each tensor's dtype) and time spent moving.

mod engine;
mod isolate;
mod op;
mod oversize;
mod stats;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use burn::tensor::Device;

pub(crate) use engine::{Moved, Outcome, Place, Route, Target};
pub use isolate::Isolation;
pub(crate) use isolate::sealed as isolate_sealed;
pub use op::Op;
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
/// use burn_guard::policy::{Op, Policy};
///
/// let strict = Policy::strict();
/// assert!(!strict.may_fall_back(Op::QuantizeDynamic));
/// let lenient = Policy::fallback_to([Device::flex()]).deny_op(Op::QMatmul);
/// assert!(lenient.may_fall_back(Op::QuantizeDynamic));
/// assert!(!lenient.may_fall_back(Op::QMatmul));
/// ```
#[derive(Debug, Clone)]
pub struct Policy {
    devices: Vec<Device>,
    /// One bit per [`Op`] that may fall back: the decision is a load and a mask.
    allowed: u32,
    stats: Arc<Stats>,
    /// Where the operations that can run out of this process go instead.
    isolation: Option<Arc<dyn Isolation>>,
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
            allowed: 0,
            stats: Arc::new(Stats::default()),
            isolation: None,
        }
    }

    /// Fall back to the first capable device of `devices`, in order. At the backend level the
    /// fallback backend is a type parameter of the operation and `devices` may be empty.
    pub fn fallback_to(devices: impl IntoIterator<Item = Device>) -> Self {
        Self {
            devices: devices.into_iter().collect(),
            allowed: Op::ALL.iter().fold(0, |bits, op| bits | op.bit()),
            ..Self::strict()
        }
    }

    /// Never fall back for `op`.
    ///
    /// Operations are typed: a misspelt one does not compile.
    ///
    /// ```compile_fail
    /// use burn_guard::policy::Policy;
    /// let policy = Policy::strict().deny_op("quantise_dynamic");
    /// ```
    #[must_use]
    pub fn deny_op(mut self, op: Op) -> Self {
        self.allowed &= !op.bit();
        self
    }

    /// Fall back only for the operations listed (and only if the policy falls back at all).
    #[must_use]
    pub fn allow_only(mut self, ops: impl IntoIterator<Item = Op>) -> Self {
        let listed = ops.into_iter().fold(0, |bits, op| bits | op.bit());
        self.allowed &= listed;
        self
    }

    /// Runs the operations a cell can run in `pool`'s children instead of this process,
    /// whatever their device can: burn-vision's `connected_components` and `nms`
    /// ([`TryConnectedComponents::try_connected_components_with`],
    /// [`TryNms::try_nms_with`]), whose CPU code is `unsafe`. The inputs are read, sent to the
    /// next free cell, run there through the same guarded twin on Flex, and the answer is
    /// built on the inputs' device; an abort, a segfault or a hang in burn-vision's code is
    /// that call's [`GuardError::Cell`](crate::GuardError::Cell), the cell restarts, and this
    /// process goes on. Counted under [`Op::Vision`] as a fallback from the inputs' backend to
    /// `cell pool {name}`, with the bytes each way and the round trip's time. The pool's
    /// children call [`serve_if_cell`](crate::cell::serve_if_cell) (with
    /// [`ops_only`](crate::cell::ops_only) when they serve no model). Cells are Unix only.
    ///
    /// Every other routing rule stays as it was; the process-wide
    /// [`set_fallback_disabled`] does not turn this off, since running in a cell is not a
    /// fallback for a missing capability but where the caller chose to run.
    ///
    /// [`TryConnectedComponents::try_connected_components_with`]: crate::vision::TryConnectedComponents::try_connected_components_with
    /// [`TryNms::try_nms_with`]: crate::vision::TryNms::try_nms_with
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use burn_guard::cell::{CellOptions, CellPool, ops_only, serve_if_cell};
    /// use burn_guard::policy::Policy;
    ///
    /// fn main() -> burn_guard::Result<()> {
    ///     serve_if_cell(ops_only);
    ///     let pool = Arc::new(CellPool::start(CellOptions::new("vision"), 2)?);
    ///     let policy = Policy::strict().in_cells(pool);
    ///     assert_eq!(policy.cells().as_deref(), Some("cell pool vision"));
    ///     Ok(())
    /// }
    /// ```
    #[must_use]
    pub fn in_cells<P: Isolation + 'static>(mut self, pool: Arc<P>) -> Self {
        self.isolation = Some(pool);
        self
    }

    /// The label of the place [`Policy::in_cells`] named, if any.
    pub fn cells(&self) -> Option<String> {
        self.isolation.as_ref().map(|place| place.label())
    }

    /// The place [`Policy::in_cells`] named, for the operations that can run there.
    pub(crate) fn isolation(&self) -> Option<&dyn Isolation> {
        self.isolation.as_deref()
    }

    /// Whether `op` may fall back under this policy and the process-wide switch.
    #[inline]
    pub fn may_fall_back(&self, op: Op) -> bool {
        self.allowed & op.bit() != 0 && !fallback_disabled()
    }

    /// The fallback devices, in order of preference.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// What ran under this policy (and its clones) so far: every operation that ran, refused
    /// or failed at least once.
    pub fn stats(&self) -> BTreeMap<Op, OpStats> {
        self.stats.snapshot()
    }

    /// What ran under this policy (and its clones) for `op` (zeros when nothing did).
    ///
    /// ```
    /// use burn_guard::policy::{Op, Policy};
    /// assert_eq!(Policy::strict().stats_of(Op::QMatmul).native, 0);
    /// ```
    pub fn stats_of(&self, op: Op) -> OpStats {
        self.stats.of(op)
    }

    /// The strict policy that the fallback-less entry points run under, shared: building one
    /// per call would allocate its statistics.
    pub(crate) fn shared_strict() -> &'static Policy {
        static STRICT: std::sync::OnceLock<Policy> = std::sync::OnceLock::new();
        STRICT.get_or_init(Policy::strict)
    }

    /// The shared statistics, for recording: only the engine (`Policy::record`) records, so
    /// only the policy's modules can reach it.
    fn recorder(&self) -> &Stats {
        &self.stats
    }
}
