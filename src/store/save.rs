//! A checked save: burn-store's own atomic write, with a fingerprint of every tensor's bytes in
//! the file's metadata, verified by every checked load of the file.

use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::store::ModuleSnapshot;
use serde::Serialize;

use super::Format;
use super::engine::{self, store_error};
use super::fingerprint::Fingerprint;
use crate::error::{GuardError, Result};
use crate::panic::catch;

/// The op a checked save's errors name (burn-store's `save_into`).
pub(crate) const SAVE_OP: &str = "save_into";

/// What a checked save wrote.
///
/// ```
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::Device;
/// use burn_guard::prelude::*;
/// use burn_guard::store::{Format, SafetensorsStore};
///
/// let dir = std::env::temp_dir().join(format!("burn-guard-save-report-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("fc.safetensors");
/// let model: Linear = LinearConfig::new(3, 4).init(&Device::flex());
/// let report = model.save_into_checked(&SafetensorsStore::from_file(&path).overwrite(true))?;
/// assert_eq!(report.format, Format::Safetensors);
/// assert_eq!(report.tensors, 2);
/// assert_eq!(report.bytes, (3 * 4 + 4) * 4);
/// assert!(report.removed_scratch.is_empty());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SaveReport {
    /// The file written, as given.
    pub file: String,
    /// Its format.
    pub format: Format,
    /// The tensors written, each with its hash in the fingerprint.
    pub tensors: usize,
    /// Their bytes (the file's data, without its header).
    pub bytes: u64,
    /// Scratch files of earlier saves to this file whose process is gone (a save killed
    /// mid-write), removed before writing. Recognised on Linux only.
    pub removed_scratch: Vec<String>,
}

/// Saves `model` to `path` through `write` (burn-store's own store, given the fingerprint's
/// metadata value), after every check.
pub(crate) fn save<M: Module>(
    model: &M,
    format: Format,
    path: &Path,
    overwrite: bool,
    write: impl FnOnce(String) -> Result<()>,
) -> Result<SaveReport> {
    let file = path.display().to_string();
    let refuse = |inner: GuardError| GuardError::Checkpoint {
        op: SAVE_OP,
        file: file.clone(),
        device: engine::model_device(model),
        inner: Box::new(inner),
    };
    // A device that may not be used: its values may be wrong, and a save would keep them.
    for device in model.devices() {
        crate::capability::require_healthy(SAVE_OP, &device).map_err(refuse)?;
    }
    // burn refuses it too, but only after the fingerprint would have read every tensor.
    if !overwrite && std::fs::symlink_metadata(path).is_ok() {
        return Err(refuse(GuardError::InvalidArgument {
            op: SAVE_OP,
            rule: "an existing file is replaced only with `overwrite(true)` (burn's default \
                   refuses it too)",
            got: format!("path={file}"),
        }));
    }
    let removed_scratch = remove_stale_scratch(path);
    let (fingerprint, tensors, bytes) = fingerprint_of(model).map_err(refuse)?;
    write(fingerprint.to_json()).map_err(refuse)?;
    Ok(SaveReport {
        file: file.clone(),
        format,
        tensors,
        bytes,
        removed_scratch,
    })
}

/// The fingerprint of every tensor burn-store writes for `model` (its paths, no adapter, enum
/// variants kept: burn's defaults for both formats), with their count and bytes.
fn fingerprint_of<M: Module>(model: &M) -> Result<(Fingerprint, usize, u64)> {
    let tensors = catch(SAVE_OP, || model.collect(None, None, false))?;
    let mut fingerprint = Fingerprint::default();
    let (mut count, mut total) = (0usize, 0u64);
    for tensor in tensors {
        let name = tensor.name.clone();
        let bytes = catch(SAVE_OP, move || tensor.into_bytes())?
            .map_err(|e| store_error(SAVE_OP, e).context(name.clone()))?;
        fingerprint.insert(name, &bytes);
        count += 1;
        total = total.saturating_add(u64::try_from(bytes.len()).unwrap_or(u64::MAX));
    }
    Ok((fingerprint, count, total))
}

/// Removes the scratch files burn-pack's `AtomicFile` left beside `path` (`<name>.<pid>-<n>.tmp`)
/// for a process that no longer runs: a save killed mid-write (nothing can clean up after
/// `SIGKILL`). A scratch file of a live process, of this one, or where it cannot be told
/// (outside Linux) is left alone. Returns the paths removed.
fn remove_stale_scratch(path: &Path) -> Vec<String> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Vec::new();
    };
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let prefix = format!("{name}.");
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let entry_name = entry.file_name();
        let Some(pid) = entry_name.to_str().and_then(|n| scratch_pid(n, &prefix)) else {
            continue;
        };
        if pid == std::process::id() || process_runs(pid) != Some(false) {
            continue;
        }
        let scratch = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_file()) && std::fs::remove_file(&scratch).is_ok() {
            removed.push(scratch.display().to_string());
        }
    }
    removed.sort();
    removed
}

/// The process id in a scratch name `<prefix><pid>-<counter>.tmp`.
fn scratch_pid(name: &str, prefix: &str) -> Option<u32> {
    let rest = name.strip_prefix(prefix)?.strip_suffix(".tmp")?;
    let (pid, counter) = rest.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(counter) {
        return None;
    }
    pid.parse().ok()
}

/// Whether process `pid` runs (a zombie counts as running); `None` where it cannot be told.
fn process_runs(pid: u32) -> Option<bool> {
    let proc = Path::new("/proc");
    if cfg!(target_os = "linux") && proc.join("self").exists() {
        return Some(proc.join(pid.to_string()).exists());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_names_are_recognised_by_their_pattern_only() {
        let prefix = "model.bpk.";
        assert_eq!(scratch_pid("model.bpk.1234-0.tmp", prefix), Some(1234));
        assert_eq!(scratch_pid("model.bpk.1234-17.tmp", prefix), Some(1234));
        assert_eq!(scratch_pid("model.bpk", prefix), None);
        assert_eq!(scratch_pid("model.bpk.+12-0.tmp", prefix), None);
        assert_eq!(scratch_pid("model.bpk.12-.tmp", prefix), None);
        assert_eq!(scratch_pid("other.bpk.12-0.tmp", prefix), None);
        assert_eq!(scratch_pid(".tmpAbC123", prefix), None);
    }
}
