//! Whether a device still computes, and whether what it computed can be trusted.
//!
//! Three things mark a device, and from then on burn-guard refuses work for it at once with
//! [`GuardError::DeviceUnavailable`] (so [`Policy::place`](crate::policy::Policy::place)
//! routes it to a fallback) instead of dispatching into a cascade of failures or wrong
//! numbers:
//!
//! - **Poisoned**: burn's own word, never a guess from a message: an [`ExecutionError`] for
//!   which `is_device_poisoned()` holds, as a guarded read or [`probe_health`] receives it
//!   (burn-fusion and cubecl report `DevicePoisoned` from then on, on every read and sync of
//!   that device). Permanent for the process. A panic the backstop catches on a device is not,
//!   by itself, poisoning: measured on wgpu (lavapipe), most leave the device computing; see
//!   `RELIABILITY.md` for which do not.
//! - **Tainted**: a task on the device's runner thread failed and burn only logged it (the
//!   [`TaintLogger`](crate::devices::TaintLogger) sees cubecl's `log::warn!` of the
//!   `CallError`). The buffers that task was to write hold whatever was there: measured on
//!   lavapipe, the sum of eight ones reads back `0`. Guarded reads on the device return the
//!   error instead of those values, until [`reinstate`] after the caller re-checked it.
//! - **Quarantined**: a shadow check ([`Shadowed`](crate::verify::Shadowed) built with
//!   [`quarantine_device`](crate::verify::Shadowed::quarantine_device)) saw it disagree with
//!   its reference device. That is the only thing that quarantines a device: a
//!   [`canary`](crate::verify::canary) returns its error and marks nothing, and a `Shadowed`
//!   without `quarantine_device` quarantines the device for its own model only. Lifted by
//!   [`reinstate`].
//!
//! The record is process-wide and keyed by the device's id (an autodiff device and the device
//! it wraps share it). Checking costs one atomic load while no device is marked.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{OnceLock, PoisonError, RwLock};

use burn::tensor::Device;
use burn_backend::{Device as _, ExecutionError};
use serde::Serialize;

use crate::error::{GuardError, Result};

/// What burn-guard knows of a device's health.
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::devices::{DeviceHealth, health};
///
/// assert_eq!(health(&Device::flex()), DeviceHealth::Healthy);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
#[non_exhaustive]
pub enum DeviceHealth {
    /// Nothing has reported the device lost.
    Healthy,
    /// burn reported the device poisoned; every later operation on it would fail.
    Poisoned {
        /// The operation during which it was reported.
        op: String,
        /// burn's reason, on one line.
        reason: String,
    },
    /// A task on the device's runner failed and burn only logged it: values computed since
    /// may be wrong (zeros where the task was to write).
    Tainted {
        /// The runner thread the task failed on, as cubecl names it (`DSD-4-0`).
        runner: String,
        /// The failure as cubecl logged it, on one line.
        reason: String,
    },
    /// A shadow check built with
    /// [`quarantine_device`](crate::verify::Shadowed::quarantine_device) saw the device
    /// disagree with its reference device (a canary marks nothing).
    Quarantined {
        /// The check that saw it (`shadow`).
        op: String,
        /// The divergence, on one line.
        reason: String,
    },
}

/// Set once any device or runner is marked: the fast path of [`require_healthy`]. Stays set
/// after a [`reinstate`] (the slow path then finds nothing).
static ANY_MARKED: AtomicBool = AtomicBool::new(false);

type Records = RwLock<HashMap<(u16, u16), DeviceHealth>>;

/// Device records (poisoned, quarantined), by device key.
fn records() -> &'static Records {
    static RECORDS: OnceLock<Records> = OnceLock::new();
    RECORDS.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Taints, by the id of the runner thread the task failed on (cubecl's device id, which the
/// thread's name carries), not by device key: see [`runner_ids`].
fn runner_taints() -> &'static Records {
    static TAINTS: OnceLock<Records> = OnceLock::new();
    TAINTS.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Whether any device was ever marked (one atomic load): while none was,
/// [`require_healthy`] passes everything.
#[inline]
pub(crate) fn any_poisoned() -> bool {
    ANY_MARKED.load(Ordering::Acquire)
}

/// The key of a device's record: its dispatch id, the autodiff layer looked through.
pub(crate) fn device_key(device: &Device) -> (u16, u16) {
    let id = device.clone().inner().as_dispatch().to_id();
    (id.type_id, id.index_id)
}

/// What burn-guard has recorded of `device`'s health: [`DeviceHealth::Healthy`] until burn
/// reported it poisoned through a guarded call or [`probe_health`]. Reads a record, runs
/// nothing on the device.
pub fn health(device: &Device) -> DeviceHealth {
    if !ANY_MARKED.load(Ordering::Acquire) {
        return DeviceHealth::Healthy;
    }
    recorded(device_key(device))
}

/// burn-dispatch's backend ids in the high byte of a device key (`DispatchDeviceId`): the
/// backends whose work runs on cubecl-common's device runners.
const DISPATCH_CUBE: u16 = 0;
const DISPATCH_REMOTE: u16 = 10;

/// The ids of the runner threads that run `key`'s work, as their names carry them
/// (`DS{U,D}-{type}-{index}`). A cubecl device has two: the upstream runner (burn-fusion's,
/// named by the runtime-stamped id, which is the key's low byte) and the downstream one (the
/// runtime's server, named by the runtime's own id: the stamp's low five bits, cubecl's
/// `RuntimeId::strip`). A remote device's client runs under the key's low byte. Ids of two
/// runtimes' servers can coincide (CUDA's and wgpu's own ids both start at 0): a failure on
/// one then taints both, erring towards refusing.
fn runner_ids((type_id, index): (u16, u16)) -> Vec<(u16, u16)> {
    match type_id >> 8 {
        DISPATCH_CUBE => vec![(type_id & 0xFF, index), (type_id & 0x1F, index)],
        DISPATCH_REMOTE => vec![(type_id & 0xFF, index)],
        _ => Vec::new(),
    }
}

fn recorded(key: (u16, u16)) -> DeviceHealth {
    if let Some(found) = records()
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
    {
        return found.clone();
    }
    let taints = runner_taints()
        .read()
        .unwrap_or_else(PoisonError::into_inner);
    runner_ids(key)
        .iter()
        .find_map(|runner| taints.get(runner).cloned())
        .unwrap_or(DeviceHealth::Healthy)
}

/// Every record of a device marked unusable (poisoned, tainted, quarantined), on one line
/// each: what a cell's child reports before it exits for a fresh one.
#[cfg(unix)]
pub(crate) fn marked_devices() -> Vec<String> {
    if !ANY_MARKED.load(Ordering::Acquire) {
        return Vec::new();
    }
    let line = |health: &DeviceHealth| match health {
        DeviceHealth::Healthy => None,
        DeviceHealth::Poisoned { op, reason } => Some(format!("poisoned during {op}: {reason}")),
        DeviceHealth::Tainted { runner, reason } => {
            Some(format!("tainted on runner {runner}: {reason}"))
        }
        DeviceHealth::Quarantined { op, reason } => Some(format!("quarantined by {op}: {reason}")),
    };
    let mut lines: Vec<String> = records()
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .values()
        .filter_map(line)
        .collect();
    lines.extend(
        runner_taints()
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .filter_map(line),
    );
    lines
}

/// The runner id a cubecl-common runner thread's name carries (`DSD-4-0` → `(4, 0)`).
pub(crate) fn runner_of_thread(name: &str) -> Option<(u16, u16)> {
    let rest = name
        .strip_prefix("DSU-")
        .or_else(|| name.strip_prefix("DSD-"))?;
    let (type_id, index) = rest.split_once('-')?;
    Some((type_id.parse().ok()?, index.parse().ok()?))
}

/// Records the runner `runner` (named `name`) tainted by a task failure burn only logged; the
/// first record wins.
pub(crate) fn taint_runner(runner: (u16, u16), name: &str, reason: &str) {
    let reason = one_line(reason);
    runner_taints()
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(runner)
        .or_insert_with(|| DeviceHealth::Tainted {
            runner: name.to_owned(),
            reason,
        });
    ANY_MARKED.store(true, Ordering::Release);
}

/// Records `device` quarantined by the check `op` (today only a shadow check); the first
/// record wins, and a poisoned device stays poisoned.
pub(crate) fn quarantine(op: &str, device: &Device, reason: &str) {
    let reason = one_line(reason);
    records()
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(device_key(device))
        .or_insert_with(|| {
            log::error!(
                "burn-guard: device {} is quarantined ({op}: {reason}); refusing further work on it",
                super::naming::brief(device)
            );
            DeviceHealth::Quarantined {
                op: op.to_owned(),
                reason,
            }
        });
    ANY_MARKED.store(true, Ordering::Release);
}

/// Lifts a taint or a quarantine of `device` (after the caller re-checked it, with
/// [`canary`](crate::verify::canary) say) and returns what is recorded afterwards: a poisoned
/// device stays [`DeviceHealth::Poisoned`], since burn will not compute on it again.
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::devices::{DeviceHealth, reinstate};
///
/// assert_eq!(reinstate(&Device::flex()), DeviceHealth::Healthy);
/// ```
pub fn reinstate(device: &Device) -> DeviceHealth {
    let key = device_key(device);
    {
        let mut records = records().write().unwrap_or_else(PoisonError::into_inner);
        if matches!(records.get(&key), Some(DeviceHealth::Quarantined { .. })) {
            records.remove(&key);
        }
    }
    {
        let mut taints = runner_taints()
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        for runner in runner_ids(key) {
            taints.remove(&runner);
        }
    }
    health(device)
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Asks `device` itself: waits for its queued work (`Device::sync`) and records it poisoned
/// when burn says so. Costs a sync: call it after a failure, not per operation. A sync error
/// that is not poisoning (a failed kernel whose device still runs) leaves the device healthy.
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::devices::{DeviceHealth, probe_health};
///
/// assert_eq!(probe_health(&Device::flex()), DeviceHealth::Healthy);
/// ```
pub fn probe_health(device: &Device) -> DeviceHealth {
    let synced = crate::panic::catch("sync", || device.sync());
    if let Ok(Err(error)) = synced {
        note_execution_error("sync", device, &error);
    }
    health(device)
}

/// Records `device` poisoned when `error` is burn's poisoning error; anything else is left
/// alone.
pub(crate) fn note_execution_error(op: &str, device: &Device, error: &ExecutionError) {
    if error.is_device_poisoned() {
        mark(
            device_key(device),
            &|| super::naming::brief(device),
            op,
            &error.to_string(),
        );
    }
}

/// Records the device of `key` poisoned during `op`; the first record wins.
fn mark(key: (u16, u16), name: &dyn Fn() -> String, op: &str, reason: &str) {
    let reason = one_line(reason);
    records()
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(key)
        .or_insert_with(|| {
            log::error!(
                "burn-guard: device {} is poisoned ({op}: {reason}); refusing further work on it",
                name()
            );
            DeviceHealth::Poisoned {
                op: op.to_owned(),
                reason,
            }
        });
    ANY_MARKED.store(true, Ordering::Release);
}

/// `Ok` unless `device` is recorded poisoned, tainted or quarantined; then
/// [`GuardError::DeviceUnavailable`] naming the device, what marked it and why. One atomic
/// load while no device is marked. Guarded reads call it after the read too: a task that
/// failed before the read finished taints the values it returned.
///
/// # Errors
///
/// [`GuardError::DeviceUnavailable`] for a poisoned, tainted or quarantined device.
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::devices::require_healthy;
///
/// require_healthy("zeros", &Device::flex())?;
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[inline]
pub fn require_healthy(op: &'static str, device: &Device) -> Result<()> {
    if !ANY_MARKED.load(Ordering::Acquire) {
        return Ok(());
    }
    refusal(op, device_key(device), &|| super::naming::brief(device))
}

fn refusal(op: &'static str, key: (u16, u16), name: &dyn Fn() -> String) -> Result<()> {
    let reason = match recorded(key) {
        DeviceHealth::Healthy => return Ok(()),
        DeviceHealth::Poisoned {
            op: found_by,
            reason,
        } => format!(
            "the device is poisoned (reported during {found_by}: {reason}); nothing more runs \
             on it in this process"
        ),
        DeviceHealth::Tainted { runner, reason } => format!(
            "the device is tainted: a task on its runner {runner} failed and burn only logged \
             it ({reason}); values computed since may be wrong (re-check the device, then \
             `devices::reinstate`)"
        ),
        DeviceHealth::Quarantined {
            op: found_by,
            reason,
        } => format!(
            "the device is quarantined ({found_by}: {reason}); lift it with \
             `devices::reinstate` once it agrees again"
        ),
    };
    Err(GuardError::DeviceUnavailable {
        op,
        device: name(),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    /// Keys no real device has (burn's dispatch variants are a handful): the unit tests run
    /// beside others on the real devices, which must stay healthy.
    const FAKE: (u16, u16) = (u16::MAX, 7);
    const OTHER: (u16, u16) = (u16::MAX, 8);

    #[test]
    fn a_poisoned_device_is_refused_and_others_are_not() {
        let name = || "fake".to_owned();
        assert!(refusal("add", FAKE, &name).is_ok());
        mark(FAKE, &name, "read", "lost\nthe device");
        let err = refusal("add", FAKE, &name).err();
        assert_eq!(
            err.as_ref().map(GuardError::kind),
            Some(ErrorKind::DeviceUnavailable)
        );
        let text = err.map(|err| err.to_string()).unwrap_or_default();
        assert!(
            text.starts_with("add: device unavailable; got fake: the device is poisoned"),
            "{text}"
        );
        assert!(text.contains("read: lost the device"), "{text}");
        assert!(refusal("add", OTHER, &name).is_ok());
        // The first record wins.
        mark(FAKE, &name, "later", "another reason");
        assert!(matches!(recorded(FAKE), DeviceHealth::Poisoned { op, .. } if op == "read"));
    }

    #[test]
    fn a_runner_thread_name_gives_its_id() {
        assert_eq!(runner_of_thread("DSD-4-0"), Some((4, 0)));
        assert_eq!(runner_of_thread("DSU-100-2"), Some((100, 2)));
        assert_eq!(runner_of_thread("main"), None);
        assert_eq!(runner_of_thread("DSD-x-0"), None);
    }

    #[test]
    fn a_cubecl_device_is_run_by_its_stamped_and_its_own_runner() {
        // wgpu's first adapter as lavapipe shows it: key (100, 0), runners DSU-100-0 and
        // DSD-4-0 (measured by the taint test in `tests/verify.rs`).
        assert_eq!(runner_ids((100, 0)), vec![(100, 0), (4, 0)]);
        assert_eq!(runner_ids((10 << 8 | 3, 1)), vec![(3, 1)]);
        assert!(runner_ids((4 << 8, 0)).is_empty());
    }

    #[test]
    fn only_burns_poisoning_error_marks_a_device() {
        assert!(!ExecutionError::with_context("a failed kernel").is_device_poisoned());
        assert!(ExecutionError::device_poisoned("lost").is_device_poisoned());
    }

    #[cfg(all(feature = "flex", feature = "autodiff"))]
    #[test]
    fn an_autodiff_device_shares_the_record_of_its_device() {
        let flex = Device::flex();
        assert_eq!(device_key(&flex), device_key(&flex.clone().autodiff()));
        assert_ne!(device_key(&flex), FAKE);
    }
}
