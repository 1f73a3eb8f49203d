//! An opt-in memory budget per device, as PyTorch's `set_per_process_memory_fraction` and ONNX
//! Runtime's `gpu_mem_limit` offer: an allocating twin whose tensor would take the device past
//! its budget is refused with [`GuardError::OutOfMemory`] before anything is dispatched.
//!
//! wgpu has no free-memory query, and a GPU's real out-of-memory surfaces late (a failed read,
//! a device-thread panic); a budget turns it into a refusal the caller sees. Host devices do
//! not need one: their allocations are held against the host's memory by default
//! ([`require_fits`](super::require_fits)).
//!
//! What counts as used is burn's own figure, [`Device::memory_pool_usage`] (live allocations
//! and reserved pages of the device's pools). Reading it makes burn finish the device's pending
//! work (it drains fusion), so it is not read per call: between two reads the twins add up
//! what they let through, and the figure is read again when that estimate would pass the
//! budget or [`SAMPLE_PERIOD`] has gone by. Tensors dropped since the last read are not
//! subtracted: the estimate errs towards reading again, never towards letting through.
//!
//! When the device holds more than the budget allows, burn's cached pages are freed once
//! ([`Device::memory_cleanup`]) and the figure read again; only the live allocations plus the
//! request over the budget are refused. A device that reports no usage (burn returns `None`)
//! cannot be held to a budget; [`set_memory_budget`] says so.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::{Duration, Instant};

use burn::tensor::Device;

use super::health::device_key;
use crate::error::{GuardError, Result};

/// How long a read of the device's usage is trusted (plus what the twins added since).
pub const SAMPLE_PERIOD: Duration = Duration::from_millis(50);

/// Set once any device has a budget: the fast path of [`require_budget`].
static ANY_BUDGET: AtomicBool = AtomicBool::new(false);

/// One device's budget and the last reading of its usage.
#[derive(Debug)]
struct Budget {
    limit: u64,
    sample: Mutex<Option<Sample>>,
}

#[derive(Debug, Clone, Copy)]
struct Sample {
    /// Live bytes at the last read.
    in_use: u64,
    /// Bytes the twins let through since.
    since: u64,
    at: Instant,
}

type Budgets = RwLock<HashMap<(u16, u16), Arc<Budget>>>;

fn budgets() -> &'static Budgets {
    static BUDGETS: OnceLock<Budgets> = OnceLock::new();
    BUDGETS.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Holds `device` to `budget` bytes (its live allocations plus each new one), or removes its
/// budget with `None`. Process-wide; an autodiff device and the device it wraps share one.
///
/// # Errors
///
/// [`GuardError::DeviceUnavailable`] when the device reports no memory usage: a budget that
/// could not be checked would read as a promise.
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::devices::{memory_budget, set_memory_budget};
///
/// let device = Device::flex();
/// match set_memory_budget(&device, Some(1 << 30)) {
///     Ok(()) => assert_eq!(memory_budget(&device), Some(1 << 30)),
///     // Flex keeps no pools to report: its allocations are held against the host instead.
///     Err(err) => assert_eq!(err.kind(), burn_guard::ErrorKind::DeviceUnavailable),
/// }
/// set_memory_budget(&device, None)?;
/// assert_eq!(memory_budget(&device), None);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn set_memory_budget(device: &Device, budget: Option<u64>) -> Result<()> {
    const OP: &str = "set_memory_budget";
    let key = device_key(device);
    let mut map = budgets().write().unwrap_or_else(PoisonError::into_inner);
    let Some(limit) = budget else {
        map.remove(&key);
        return Ok(());
    };
    if usage(device).is_none() {
        return Err(GuardError::DeviceUnavailable {
            op: OP,
            device: super::naming::brief(device),
            reason: "the device reports no memory usage \
                     (Device::memory_pool_usage is None), so a budget could not be held"
                .into(),
        });
    }
    map.insert(
        key,
        Arc::new(Budget {
            limit,
            sample: Mutex::new(None),
        }),
    );
    ANY_BUDGET.store(true, Ordering::Release);
    Ok(())
}

/// The budget [`set_memory_budget`] gave `device`, if any.
pub fn memory_budget(device: &Device) -> Option<u64> {
    if !ANY_BUDGET.load(Ordering::Acquire) {
        return None;
    }
    budget_of(device).map(|budget| budget.limit)
}

fn budget_of(device: &Device) -> Option<Arc<Budget>> {
    budgets()
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&device_key(device))
        .cloned()
}

/// burn's pool usage for `device`: (live bytes, reserved bytes), under the backstop.
fn usage(device: &Device) -> Option<(u64, u64)> {
    crate::panic::catch("memory_pool_usage", || device.memory_pool_usage())
        .ok()
        .flatten()
        .map(|usage| (usage.bytes_in_use, usage.bytes_reserved))
}

/// Whether any device has a budget (one atomic load).
#[inline]
pub(crate) fn any_budget() -> bool {
    ANY_BUDGET.load(Ordering::Acquire)
}

/// The budget rule for `bytes` more on `device`, named `name` in errors. One atomic load when
/// no device has a budget; a map lookup and a lock when this one has; a read of the device's
/// usage (which drains its pending work) only when the estimate would pass the budget or the
/// last read is older than [`SAMPLE_PERIOD`].
///
/// # Errors
///
/// [`GuardError::OutOfMemory`] when the device's live bytes plus `bytes` exceed its budget,
/// after burn's cached memory was freed once.
pub(crate) fn require_budget(
    op: &'static str,
    bytes: u64,
    device: &Device,
    name: &str,
) -> Result<()> {
    if !ANY_BUDGET.load(Ordering::Acquire) {
        return Ok(());
    }
    let Some(budget) = budget_of(device) else {
        return Ok(());
    };
    let mut sample = budget.sample.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(last) = sample.as_mut() {
        let estimate = last.in_use.saturating_add(last.since).saturating_add(bytes);
        if estimate <= budget.limit && last.at.elapsed() < SAMPLE_PERIOD {
            last.since = last.since.saturating_add(bytes);
            return Ok(());
        }
    }
    let Some((mut in_use, reserved)) = usage(device) else {
        return Ok(());
    };
    if reserved.saturating_add(bytes) > budget.limit {
        // Pages held for reuse count against the device; free them once and look again.
        let _ = crate::panic::catch("memory_cleanup", || device.memory_cleanup());
        if let Some((live, _)) = usage(device) {
            in_use = live;
        }
    }
    crate::check::bytes::device_budget(op, bytes, in_use, budget.limit, name)?;
    *sample = Some(Sample {
        in_use,
        since: bytes,
        at: Instant::now(),
    });
    Ok(())
}
