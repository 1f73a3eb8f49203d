//! A checked save: burn's own atomic write, with a fingerprint of every tensor's bytes in the
//! file's metadata, verified by every checked load of the file, and optionally a probe (an
//! input and the model's output on it) that a checked load re-runs.
//!
//! A burnpack file is written in one pass over the model: burn-pack's writer draws each
//! tensor's bytes once, and a second thread hashes them while they are written. The
//! fingerprint is in the header, written before any tensor, so the header first holds a
//! placeholder of the same length (every hash is 16 hex digits), overwritten in burn-pack's
//! scratch file before it is published. A SafeTensors file goes through burn-store's store, which takes its metadata
//! before it draws any tensor and publishes the file itself: the fingerprint is computed in a
//! pass of its own before it.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{SendError, SyncSender};
use std::sync::{Arc, Mutex};

use burn::module::Module;
use burn::store::{
    BurnpackStore as BurnBurnpackStore, ModuleSnapshot, ModuleStore,
    SafetensorsStore as BurnSafetensorsStore,
};
use burn::tensor::Bytes;
use burn_pack::{AtomicFile, HEADER_SIZE, Header, Tensor as PackTensor};
use serde::Serialize;

use super::Format;
use super::engine::{self, store_error};
use super::fingerprint::{self, Fingerprint, content_hash};
use super::probe;
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

/// Saves `model` to `path` in `format` after every check, with the metadata value `probe`
/// returns (run after the checks, before anything is written) when it returns one.
pub(crate) fn save<M: Module>(
    model: &M,
    format: Format,
    path: &Path,
    overwrite: bool,
    probe: impl FnOnce() -> Result<Option<String>>,
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
    // burn refuses it too, but only after the probe would have run.
    if !overwrite && std::fs::symlink_metadata(path).is_ok() {
        return Err(refuse(GuardError::InvalidArgument {
            op: SAVE_OP,
            rule: "an existing file is replaced only with `overwrite(true)` (burn's default \
                   refuses it too)",
            got: format!("path={file}"),
        }));
    }
    let probe = probe().map_err(refuse)?;
    let removed_scratch = remove_stale_scratch(path);
    let metadata = Metadata {
        probe: probe.as_deref(),
    };
    let (tensors, bytes) = match format {
        Format::Burnpack => write_burnpack(model, path, overwrite, &metadata),
        Format::Safetensors => write_safetensors(model, path, overwrite, &metadata),
        Format::Record | Format::Pytorch => Err(GuardError::InvalidArgument {
            op: SAVE_OP,
            rule: "a checked save writes a burnpack or a SafeTensors file",
            got: format!("format {format}"),
        }),
    }
    .map_err(refuse)?;
    Ok(SaveReport {
        file: file.clone(),
        format,
        tensors,
        bytes,
        removed_scratch,
    })
}

/// The metadata a checked save adds beside the fingerprint.
struct Metadata<'a> {
    /// The probe's record, when the save was given a probe.
    probe: Option<&'a str>,
}

/// Writes `model` as burn-store's `BurnpackStore` does (its paths, no adapter, enum variants
/// kept, burn's metadata, burn-pack's writer and atomic scratch file), hashing every tensor's
/// bytes as the writer draws them, and returns the tensors written and their bytes.
fn write_burnpack<M: Module>(
    model: &M,
    path: &Path,
    overwrite: bool,
    metadata: &Metadata<'_>,
) -> Result<(usize, u64)> {
    let collected = catch(SAVE_OP, || model.collect(None, None, false))?;
    write_burnpack_tensors(collected, path, overwrite, metadata)
}

/// Writes `collected` (burn-store's tensors of a model, each drawn when the writer reaches it)
/// as a burnpack with burn's metadata and the fingerprint of the bytes drawn.
fn write_burnpack_tensors(
    collected: Vec<PackTensor>,
    path: &Path,
    overwrite: bool,
    metadata: &Metadata<'_>,
) -> Result<(usize, u64)> {
    let store = |e: burn_pack::Error| store_error(SAVE_OP, e);
    let count = collected.len();
    let mut placeholder = Fingerprint::default();
    let mut total = 0u64;
    for tensor in &collected {
        placeholder.insert_hash(tensor.name.clone(), 0);
        total = total.saturating_add(u64::try_from(tensor.byte_len()).unwrap_or(u64::MAX));
    }
    let placeholder = placeholder.to_json();

    // The scratch file is removed when `scratch` drops, on every early return below.
    let (scratch, mut handle) = AtomicFile::create(path).map_err(store)?;
    let slots = std::thread::scope(|scope| {
        write_hashing(scope, collected, metadata, &placeholder, scratch.path())
    })?;
    let mut fingerprint = Fingerprint::default();
    for (name, slot) in slots {
        let Some(hash) = slot.get() else {
            return Err(GuardError::InvalidArgument {
                op: SAVE_OP,
                rule: "burn-pack's writer must draw every tensor it writes",
                got: format!("key={name}: never drawn"),
            });
        };
        fingerprint.insert_hash(name, hash);
    }
    let io = |e: std::io::Error| {
        store_error(
            SAVE_OP,
            burn_pack::Error::IoError(format!("{}: {e}", scratch.path().display())),
        )
    };
    // Without tensors the placeholder (`{}`) is the fingerprint.
    if count > 0 {
        let at = placeholder_offset(scratch.path(), placeholder.as_bytes())?;
        handle.seek(SeekFrom::Start(at)).map_err(io)?;
        handle
            .write_all(fingerprint.to_json().as_bytes())
            .map_err(io)?;
    }
    // The handle that wrote last reports a deferred write error (a full disk, NFS over quota)
    // here, before the file is published.
    handle.sync_all().map_err(io)?;
    drop(handle);
    if overwrite {
        scratch.commit().map_err(store)?;
    } else {
        scratch.commit_new().map_err(store)?;
    }
    Ok((count, total))
}

/// One tensor's hash, recorded when its bytes are hashed.
#[derive(Clone, Default)]
struct Slot(Arc<Mutex<Option<u64>>>);

impl Slot {
    fn set(&self, hash: u64) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(hash);
        }
    }

    fn get(&self) -> Option<u64> {
        self.0.lock().ok().and_then(|slot| *slot)
    }
}

/// What a drawn tensor sends to be hashed: its slot and its bytes, shared with the writer.
type ToHash = (Slot, Bytes);

/// Writes `collected` into the scratch file at `scratch` with burn-pack's writer, `placeholder`
/// as the fingerprint, every tensor's bytes hashed as they are drawn; returns each tensor's name
/// and slot.
///
/// The hash reads every byte once more, at memory speed: in the writer's thread it adds about
/// a tenth to the save of a model on the host. A thread of `scope` hashes a tensor while the
/// writer writes it, the bytes shared between them, so the save takes a second core rather
/// than that time. The writer
/// draws the next tensor only once the thread has taken the last one (a channel of no
/// capacity): at most two tensors are drawn at once. Where the thread cannot start, or
/// has stopped, the draw hashes its bytes itself.
fn write_hashing<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    collected: Vec<PackTensor>,
    metadata: &Metadata<'_>,
    placeholder: &str,
    scratch: &Path,
) -> Result<Vec<(String, Slot)>> {
    let (sender, receiver) = std::sync::mpsc::sync_channel::<ToHash>(0);
    let hasher = std::thread::Builder::new()
        .name("burn-guard-save-hash".to_owned())
        .spawn_scoped(scope, move || {
            for (slot, bytes) in receiver {
                slot.set(content_hash(&bytes));
            }
        })
        .ok();
    let sender = hasher.as_ref().map(|_| sender);
    let mut slots = Vec::with_capacity(collected.len());
    let mut tensors = Vec::with_capacity(collected.len());
    for tensor in collected {
        let slot = Slot::default();
        slots.push((tensor.name.clone(), slot.clone()));
        tensors.push(hashed_as_drawn(tensor, slot, sender.clone()));
    }
    // The thread stops once every sender is gone: the tensors' go with the writer.
    drop(sender);
    let mut writer = burn_pack::Writer::new(tensors);
    for (key, value) in BurnBurnpackStore::default_metadata() {
        writer = writer.with_metadata(&key, &value);
    }
    writer = writer.with_metadata(fingerprint::KEY, placeholder);
    if let Some(probe) = metadata.probe {
        writer = writer.with_metadata(probe::KEY, probe);
    }
    let written = catch(SAVE_OP, || {
        writer
            .auto_extension(false)
            .overwrite(true)
            .write_to_file_in_place(scratch)
    });
    // Joined before the hashes are read; a thread that panicked leaves its slots empty, and
    // the save is refused for them.
    if let Some(hasher) = hasher {
        let _ = hasher.join();
    }
    written?.map_err(|e| store_error(SAVE_OP, e))?;
    Ok(slots)
}

/// `tensor`, drawn as it was, its bytes hashed into `slot` each time they are drawn: by the
/// thread at the end of `hasher`, or here when there is none.
fn hashed_as_drawn(
    tensor: PackTensor,
    slot: Slot,
    hasher: Option<SyncSender<ToHash>>,
) -> PackTensor {
    let (name, dtype, shape, id, len) = (
        tensor.name.clone(),
        tensor.dtype,
        tensor.shape.clone(),
        tensor.param_id,
        tensor.byte_len(),
    );
    PackTensor::deferred(name, dtype, shape, id, len, move || {
        let bytes = tensor.to_bytes()?;
        let Some(hasher) = &hasher else {
            slot.set(content_hash(&bytes));
            return Ok(bytes);
        };
        // Shared, the bytes go to the thread and to the writer without a copy.
        let bytes = bytes.shared();
        if let Err(SendError((slot, bytes))) = hasher.send((slot.clone(), bytes.clone())) {
            slot.set(content_hash(&bytes));
        }
        Ok(bytes)
    })
}

/// Where `placeholder` lies in the burnpack at `path`: once, in its metadata (CBOR keeps a
/// string's bytes as they are).
fn placeholder_offset(path: &Path, placeholder: &[u8]) -> Result<u64> {
    let refuse = |got: String| GuardError::InvalidArgument {
        op: SAVE_OP,
        rule: "the fingerprint's placeholder must lie once in the burnpack's metadata",
        got,
    };
    let io = |e: std::io::Error| refuse(format!("{}: {e}", path.display()));
    let mut file = File::open(path).map_err(io)?;
    let mut header = [0u8; HEADER_SIZE];
    file.read_exact(&mut header).map_err(io)?;
    let size = Header::from_bytes(&header)
        .map_err(|e| store_error(SAVE_OP, e))?
        .metadata_size;
    let mut metadata = Vec::new();
    file.take(u64::from(size))
        .read_to_end(&mut metadata)
        .map_err(io)?;
    let mut found = metadata
        .windows(placeholder.len().max(1))
        .enumerate()
        .filter(|(_, window)| *window == placeholder)
        .map(|(at, _)| at);
    match (found.next(), found.next()) {
        (Some(at), None) => Ok((HEADER_SIZE + at) as u64),
        (None, _) => Err(refuse("not found".to_owned())),
        (Some(_), Some(_)) => Err(refuse("found twice".to_owned())),
    }
}

/// Writes `model` through burn-store's own `SafetensorsStore` (its atomic write kept), with the
/// fingerprint computed beforehand in a pass of its own, and returns the tensors written and
/// their bytes.
fn write_safetensors<M: Module>(
    model: &M,
    path: &Path,
    overwrite: bool,
    metadata: &Metadata<'_>,
) -> Result<(usize, u64)> {
    let (fingerprint, count, total) = fingerprint_of(model)?;
    let mut store = BurnSafetensorsStore::from_file(path)
        .overwrite(overwrite)
        .metadata(fingerprint::KEY, fingerprint.to_json());
    if let Some(probe) = metadata.probe {
        store = store.metadata(probe::KEY, probe);
    }
    catch(SAVE_OP, || store.collect_from(model))?.map_err(|e| store_error(SAVE_OP, e))?;
    Ok((count, total))
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
    use std::sync::atomic::{AtomicUsize, Ordering};

    use burn::tensor::DType;

    use super::*;

    /// The single pass: burn-pack's writer draws each tensor once, and the fingerprint in the
    /// file is the hash of the bytes it wrote.
    #[test]
    fn every_tensor_is_drawn_once_and_hashed_as_written() -> Result<()> {
        let dir = std::env::temp_dir().join(format!("burn-guard-save-once-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&e))?;
        let path = dir.join("counted.bpk");
        let draws: Vec<Arc<AtomicUsize>> = (0..3).map(|_| Arc::new(AtomicUsize::new(0))).collect();
        let tensors = draws
            .iter()
            .enumerate()
            .map(|(i, count)| {
                let count = Arc::clone(count);
                let values: Vec<u8> = (0..64u8)
                    .map(|b| b.wrapping_mul(7).wrapping_add(i as u8))
                    .collect();
                PackTensor::deferred(
                    format!("t{i}"),
                    DType::F32,
                    vec![4, 4],
                    None,
                    64,
                    move || {
                        count.fetch_add(1, Ordering::SeqCst);
                        Ok(Bytes::from_bytes_vec(values.clone()))
                    },
                )
            })
            .collect();
        let (count, bytes) =
            write_burnpack_tensors(tensors, &path, true, &Metadata { probe: None })?;
        assert_eq!((count, bytes), (3, 3 * 64));
        for (i, draws) in draws.iter().enumerate() {
            assert_eq!(draws.load(Ordering::SeqCst), 1, "tensor t{i} drawn once");
        }

        let reader =
            burn_pack::Reader::from_file_exact(&path).map_err(|e| store_error("test", e))?;
        let fingerprint = fingerprint::from_metadata(
            "test",
            reader.metadata().get(fingerprint::KEY).map(String::as_str),
        )?;
        let Some(fingerprint) = fingerprint else {
            return Err(io_error(&std::io::Error::other("no fingerprint")));
        };
        let tensors = reader.into_tensors().map_err(|e| store_error("test", e))?;
        assert_eq!(tensors.len(), 3);
        for tensor in tensors {
            let name = tensor.name.clone();
            let expected = fingerprint.get(&name);
            let bytes = tensor.into_bytes().map_err(|e| store_error("test", e))?;
            assert_eq!(expected, Some(content_hash(&bytes)), "{name}");
        }

        // A model without tensors: its fingerprint is the empty placeholder itself.
        let empty = dir.join("empty.bpk");
        let written = write_burnpack_tensors(Vec::new(), &empty, true, &Metadata { probe: None })?;
        assert_eq!(written, (0, 0));
        let reader =
            burn_pack::Reader::from_file_exact(&empty).map_err(|e| store_error("test", e))?;
        assert_eq!(
            reader.metadata().get(fingerprint::KEY).map(String::as_str),
            Some("{}")
        );
        std::fs::remove_dir_all(&dir).map_err(|e| io_error(&e))?;
        Ok(())
    }

    fn io_error(e: &std::io::Error) -> GuardError {
        GuardError::InvalidArgument {
            op: "test",
            rule: "the scratch directory must be usable",
            got: e.to_string(),
        }
    }

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
