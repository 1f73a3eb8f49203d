//! Checked saves: burn-store's own atomic write with a fingerprint of every tensor's bytes in
//! the file's metadata, verified by every checked load of the file.
//!
//! The rule: a file a checked save wrote loads the same values; a byte changed in its data
//! afterwards is refused naming the parameter, the model untouched; a save killed mid-write
//! leaves the old file; a file burn wrote (no fingerprint) loads as before.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::store::{
    BurnpackStore as BurnBurnpackStore, ModuleSnapshot, SafetensorsStore as BurnSafetensorsStore,
};
use burn::tensor::{Device, TensorData};
use burn_guard::prelude::*;
use burn_guard::store::{BurnpackStore, CheckedSave, Format, SafetensorsStore};

#[derive(Module, Debug)]
struct Net {
    fc: Linear,
    out: Linear,
}

impl Net {
    fn new(width: usize, device: &Device) -> Self {
        Self {
            fc: LinearConfig::new(width, width).init(device),
            out: LinearConfig::new(width, 2).init(device),
        }
    }

    fn values(&self) -> Vec<TensorData> {
        vec![
            self.fc.weight.val().into_data(),
            self.fc.bias.as_ref().unwrap().val().into_data(),
            self.out.weight.val().into_data(),
            self.out.bias.as_ref().unwrap().val().into_data(),
        ]
    }
}

/// A fresh directory of this test's own.
fn scratch_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("burn-guard-saving-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Flips one bit of the byte at `offset` of the file at `path`.
fn flip_byte(path: &Path, offset: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[offset] ^= 0x01;
    std::fs::write(path, bytes).unwrap();
}

/// The offset of `fc.weight`'s second byte in a SafeTensors file, from its header: 8 bytes of
/// little-endian length, the JSON header, then the data, where `data_offsets` count from.
fn safetensors_weight_offset(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let len = usize::try_from(u64::from_le_bytes(bytes[..8].try_into().unwrap())).unwrap();
    let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + len]).unwrap();
    let start = header["fc.weight"]["data_offsets"][0].as_u64().unwrap();
    8 + len + usize::try_from(start).unwrap() + 1
}

/// The offset of `fc.weight`'s second byte in a burnpack file: where its bytes (random
/// floats, found once) lie.
fn burnpack_weight_offset(path: &Path, model: &Net) -> usize {
    let file = std::fs::read(path).unwrap();
    let weight = model.fc.weight.val().into_data();
    let needle = weight.as_bytes();
    let mut found = file
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle);
    let (offset, _) = found.next().expect("the weight's bytes are in the file");
    assert!(found.next().is_none());
    offset + 1
}

#[test]
fn a_checked_save_round_trips_through_a_checked_load() {
    let dir = scratch_dir("round-trip");
    let device = Device::flex();
    let trained = Net::new(8, &device);

    let path = dir.join("net.safetensors");
    let report = trained
        .save_into_checked(&SafetensorsStore::from_file(&path))
        .unwrap();
    assert_eq!(report.format, Format::Safetensors);
    assert_eq!(report.tensors, 4);
    assert_eq!(report.bytes, ((8 * 8 + 8) + (8 * 2 + 2)) * 4);
    assert_eq!(report.file, path.display().to_string());
    let header = std::fs::read(&path).unwrap();
    assert!(String::from_utf8_lossy(&header).contains("burn_guard.fingerprint"));
    let mut served = Net::new(8, &device);
    served
        .load_from_checked(&SafetensorsStore::from_file(&path))
        .unwrap();
    assert_eq!(served.values(), trained.values());

    let path = dir.join("net.bpk");
    let report = BurnpackStore::from_file(&path)
        .collect_from_checked(&trained)
        .unwrap();
    assert_eq!(report.format, Format::Burnpack);
    assert_eq!(report.tensors, 4);
    let mut served = Net::new(8, &device);
    served
        .load_from_checked(&BurnpackStore::from_file(&path))
        .unwrap();
    assert_eq!(served.values(), trained.values());
    // burn-core's loader path reads the same fingerprint.
    let mut served = Net::new(8, &device);
    served.load_file_checked(&path).unwrap();
    assert_eq!(served.values(), trained.values());

    // An existing file is replaced only when asked, as burn's stores do.
    let err = trained
        .save_into_checked(&BurnpackStore::from_file(&path))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("overwrite"), "{err}");
    trained
        .save_into_checked(&BurnpackStore::from_file(&path).overwrite(true))
        .unwrap();
    // A store in memory has no file to write.
    let err = trained
        .save_into_checked(&SafetensorsStore::from_bytes(None))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_flipped_byte_in_a_tensor_is_refused_naming_the_parameter() {
    let dir = scratch_dir("flipped");
    let device = Device::flex();
    let trained = Net::new(8, &device);

    let path = dir.join("net.safetensors");
    trained
        .save_into_checked(&SafetensorsStore::from_file(&path))
        .unwrap();
    flip_byte(&path, safetensors_weight_offset(&path));
    let mut served = Net::new(8, &device);
    let before = served.values();
    let err = served
        .load_from_checked(&SafetensorsStore::from_file(&path))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert_eq!(err.path().as_deref(), Some("fc.weight"), "{err}");
    let text = err.to_string();
    assert!(text.contains("fingerprint"), "{text}");
    assert!(text.contains("net.safetensors"), "{text}");
    assert_eq!(served.values(), before, "the model is untouched");
    // burn itself loads the changed bytes without a word.
    let mut raw = Net::new(8, &device);
    raw.load_from(&mut BurnSafetensorsStore::from_file(&path))
        .unwrap();
    assert_ne!(
        raw.fc.weight.val().into_data(),
        trained.fc.weight.val().into_data()
    );

    let path = dir.join("net.bpk");
    trained
        .save_into_checked(&BurnpackStore::from_file(&path))
        .unwrap();
    flip_byte(&path, burnpack_weight_offset(&path, &trained));
    let mut served = Net::new(8, &device);
    let before = served.values();
    let err = served
        .load_from_checked(&BurnpackStore::from_file(&path))
        .unwrap_err();
    assert_eq!(err.path().as_deref(), Some("fc.weight"), "{err}");
    assert!(err.to_string().contains("fingerprint"), "{err}");
    let err = served.load_file_checked(&path).unwrap_err();
    assert_eq!(err.path().as_deref(), Some("fc.weight"), "{err}");
    assert_eq!(served.values(), before, "the model is untouched");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_raw_burn_saved_loads_without_a_fingerprint() {
    let dir = scratch_dir("raw");
    let device = Device::flex();
    let trained = Net::new(8, &device);

    let path = dir.join("net.safetensors");
    trained
        .save_into(&mut BurnSafetensorsStore::from_file(&path))
        .unwrap();
    assert!(!String::from_utf8_lossy(&std::fs::read(&path).unwrap()).contains("burn_guard"));
    let mut served = Net::new(8, &device);
    served
        .load_from_checked(&SafetensorsStore::from_file(&path))
        .unwrap();
    assert_eq!(served.values(), trained.values());

    let path = dir.join("net.bpk");
    trained
        .save_into(&mut BurnBurnpackStore::from_file(&path))
        .unwrap();
    let mut served = Net::new(8, &device);
    served
        .load_from_checked(&BurnpackStore::from_file(&path))
        .unwrap();
    assert_eq!(served.values(), trained.values());
    let mut served = Net::new(8, &device);
    served.load_file_checked(&path).unwrap();
    assert_eq!(served.values(), trained.values());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The environment variable that makes `killed_save_child` save to the path it holds.
const CHILD: &str = "BURN_GUARD_SAVING_CHILD";
/// Wide enough that writing the file takes a moment (16 Mi floats, 64 MiB).
const BIG: usize = 4096;

/// burn-pack's scratch file for a save to `name` by process `pid`: `<name>.<pid>-<n>.tmp`.
fn scratch_of(dir: &Path, name: &str, pid: u32) -> Option<String> {
    let prefix = format!("{name}.{pid}-");
    listing(dir)
        .into_iter()
        .find(|n| n.starts_with(&prefix) && n.ends_with(".tmp"))
}

/// A checked save killed (SIGKILL) mid-write: the destination keeps the old checkpoint, which
/// still loads. Nothing cleans up after SIGKILL, so burn-pack's scratch file stays; the next
/// checked save to the same file removes it (its process is gone) and says so.
#[test]
fn a_save_killed_mid_write_leaves_the_old_file() {
    let dir = scratch_dir("killed");
    let device = Device::flex();
    let path = dir.join("big.bpk");
    let old = Net::new(BIG, &device);
    old.save_into_checked(&BurnpackStore::from_file(&path))
        .unwrap();
    let old_bytes = std::fs::read(&path).unwrap();

    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["killed_save_child", "--exact", "--nocapture"])
        .env(CHILD, &path)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut seen = None;
    while seen.is_none() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the save finished before it was killed"
        );
        assert!(Instant::now() < deadline, "the child never began to write");
        seen = scratch_of(&dir, "big.bpk", pid);
        std::thread::sleep(Duration::from_micros(200));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "{status:?}");
    // Depending on the moment of the kill the scratch file holds part of the new save.

    assert_eq!(
        std::fs::read(&path).unwrap(),
        old_bytes,
        "the destination is the old file"
    );
    let mut served = Net::new(BIG, &device);
    served
        .load_from_checked(&BurnpackStore::from_file(&path))
        .unwrap();
    assert_eq!(served.values(), old.values());

    // What SIGKILL left: burn-pack's scratch file, and nothing else.
    let scratch = seen.unwrap();
    assert_eq!(listing(&dir), ["big.bpk".to_owned(), scratch.clone()]);
    let small = Net::new(4, &device);
    let report = small
        .save_into_checked(&BurnpackStore::from_file(&path).overwrite(true))
        .unwrap();
    assert_eq!(
        report.removed_scratch,
        [dir.join(&scratch).display().to_string()]
    );
    assert_eq!(listing(&dir), ["big.bpk"], "no scratch file remains");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The child of `a_save_killed_mid_write_leaves_the_old_file`: a checked save of a large
/// model over the file, killed by the parent mid-write. Does nothing unless [`CHILD`] is set.
#[test]
fn killed_save_child() {
    let Some(path) = std::env::var_os(CHILD) else {
        return;
    };
    let model = Net::new(BIG, &Device::flex());
    model
        .save_into_checked(&BurnpackStore::from_file(PathBuf::from(path)).overwrite(true))
        .unwrap();
}
