//! Whether a device still computes: a device that burn reported poisoned (its worker lost the
//! device, or a kernel faulted in a way the driver makes permanent) is recorded here, and from
//! then on burn-guard refuses work for it at once with
//! [`GuardError::DeviceUnavailable`] instead of dispatching into a cascade of failures.
//!
//! What marks a device poisoned is burn's own word, never a guess from a message: an
//! [`ExecutionError`] for which `is_device_poisoned()` holds, as a guarded read or
//! [`probe_health`] receives it (burn-fusion and cubecl report `DevicePoisoned` from then on,
//! on every read and sync of that device). A panic the backstop catches on a device is not, by
//! itself, poisoning: measured on wgpu (lavapipe), most leave the device computing; see
//! `RELIABILITY.md` for which do not.
//!
//! The record is process-wide and keyed by the device's id (an autodiff device and the device
//! it wraps share it). Checking costs one atomic load while no device is poisoned.

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
}

/// Set once any device is recorded poisoned: the fast path of [`require_healthy`].
static ANY_POISONED: AtomicBool = AtomicBool::new(false);

type Records = RwLock<HashMap<(u16, u16), DeviceHealth>>;

fn records() -> &'static Records {
    static RECORDS: OnceLock<Records> = OnceLock::new();
    RECORDS.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Whether any device was recorded poisoned (one atomic load): while none was,
/// [`require_healthy`] passes everything.
#[inline]
pub(crate) fn any_poisoned() -> bool {
    ANY_POISONED.load(Ordering::Acquire)
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
    if !ANY_POISONED.load(Ordering::Acquire) {
        return DeviceHealth::Healthy;
    }
    recorded(device_key(device))
}

fn recorded(key: (u16, u16)) -> DeviceHealth {
    records()
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
        .cloned()
        .unwrap_or(DeviceHealth::Healthy)
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
    let reason = reason.split_whitespace().collect::<Vec<_>>().join(" ");
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
    ANY_POISONED.store(true, Ordering::Release);
}

/// `Ok` unless `device` is recorded poisoned; then [`GuardError::DeviceUnavailable`] naming
/// the device, the operation that found it poisoned and burn's reason. One atomic load while
/// no device is poisoned.
///
/// # Errors
///
/// [`GuardError::DeviceUnavailable`] for a poisoned device.
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
    if !ANY_POISONED.load(Ordering::Acquire) {
        return Ok(());
    }
    refusal(op, device_key(device), &|| super::naming::brief(device))
}

fn refusal(op: &'static str, key: (u16, u16), name: &dyn Fn() -> String) -> Result<()> {
    match recorded(key) {
        DeviceHealth::Healthy => Ok(()),
        DeviceHealth::Poisoned {
            op: found_by,
            reason,
        } => Err(GuardError::DeviceUnavailable {
            device: name(),
            reason: format!(
                "{op}: the device is poisoned (reported during {found_by}: {reason}); \
                 nothing more runs on it in this process"
            ),
        }),
    }
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
        assert!(text.contains("add: the device is poisoned"), "{text}");
        assert!(text.contains("read: lost the device"), "{text}");
        assert!(text.contains("fake"), "{text}");
        assert!(refusal("add", OTHER, &name).is_ok());
        // The first record wins.
        mark(FAKE, &name, "later", "another reason");
        assert!(matches!(recorded(FAKE), DeviceHealth::Poisoned { op, .. } if op == "read"));
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
