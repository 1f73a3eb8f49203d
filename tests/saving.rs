//! Checked saves: burn's own atomic write with a fingerprint of every tensor's bytes in the
//! file's metadata, verified by every checked load of the file, and optionally a probe (an
//! input and the model's output on it) that a checked load given the probe re-runs.
//!
//! The rule: a file a checked save wrote loads the same values; a byte changed in its data
//! afterwards is refused naming the parameter, the model untouched; a save killed mid-write
//! leaves the old file; a file burn wrote (no fingerprint) loads as before; a tensor whose bytes
//! keep their shape but not their order (written so, or read so) is refused by the probe.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use burn::module::{Module, Param};
use burn::nn::{Linear, LinearConfig};
use burn::store::{
    BurnpackStore as BurnBurnpackStore, ModuleSnapshot, SafetensorsStore as BurnSafetensorsStore,
};
use burn::tensor::{Device, Int, Tensor, TensorData};
use burn_guard::prelude::*;
use burn_guard::store::{BurnpackStore, CheckedSave, Format, Layout, Probe, SafetensorsStore};

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

    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.out.forward(self.fc.forward(x))
    }

    /// The model with the first two rows of `fc`'s weight swapped: every shape kept.
    fn with_rows_swapped(&self) -> Self {
        let weight = self.fc.weight.val();
        let width = weight.dims()[0] as i64;
        let order: Vec<i64> = [1, 0].into_iter().chain(2..width).collect();
        let order =
            Tensor::<1, Int>::from_data(TensorData::new(order, [width as usize]), &weight.device());
        let mut swapped = self.clone();
        swapped.fc.weight = Param::initialized(self.fc.weight.id, weight.select(0, order));
        swapped
    }
}

/// A model of one square layer: a weight read transposed keeps its shape.
#[derive(Module, Debug)]
struct Square {
    fc: Linear,
}

/// The probe the tests save and load with: `Net`'s forward on a batch of two.
fn net_probe() -> Probe<'static, Net> {
    Probe::new(|model: &Net, x: Tensor<2>| model.forward(x))
}

/// A fixed input of two rows of `width`.
fn probe_input(width: usize, device: &Device) -> Tensor<2> {
    let values: Vec<f32> = (0..2 * width).map(|i| i as f32 / 4.0 - 1.5).collect();
    Tensor::from_data(TensorData::new(values, [2, width]), device)
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

/// A probe round trip: the file holds the input and the output, the load that is given the
/// probe runs it on the loaded copy and passes; a load without the probe ignores it; a load
/// with the probe of a file without one is refused, as is a probe of another rank.
#[test]
fn an_honest_round_trip_passes_its_probe() {
    let dir = scratch_dir("probe-honest");
    let device = Device::flex();
    let trained = Net::new(8, &device);
    let probe = net_probe();

    for path in [dir.join("net.safetensors"), dir.join("net.bpk")] {
        let report = if path.extension().is_some_and(|e| e == "bpk") {
            trained.save_into_checked_with_probe(
                &BurnpackStore::from_file(&path),
                &probe,
                probe_input(8, &device),
            )
        } else {
            SafetensorsStore::from_file(&path).collect_from_checked_with_probe(
                &trained,
                &probe,
                probe_input(8, &device),
            )
        }
        .unwrap();
        assert_eq!(report.tensors, 4);
        assert!(
            String::from_utf8_lossy(&std::fs::read(&path).unwrap()).contains("burn_guard.probe")
        );

        let mut served = Net::new(8, &device);
        if report.format == Format::Burnpack {
            served
                .load_from_checked_with_probe(&BurnpackStore::from_file(&path), &probe)
                .unwrap();
        } else {
            served
                .load_from_checked_with_probe(&SafetensorsStore::from_file(&path), &probe)
                .unwrap();
        }
        assert_eq!(served.values(), trained.values());
    }

    // The probe is read only by a load given one: a plain checked load is as before.
    let path = dir.join("net.safetensors");
    let mut served = Net::new(8, &device);
    served
        .load_from_checked(&SafetensorsStore::from_file(&path))
        .unwrap();
    assert_eq!(served.values(), trained.values());

    // A probe of another rank than the saved input is refused, the model untouched.
    let mut served = Net::new(8, &device);
    let before = served.values();
    let rank3 = Probe::new(|model: &Net, x: Tensor<3>| model.forward(x.squeeze_dim(0)));
    let err = served
        .load_from_checked_with_probe(&SafetensorsStore::from_file(&path), &rank3)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
    assert!(err.to_string().contains("probe"), "{err}");
    assert_eq!(served.values(), before);

    // A file without a probe: loads as before, and a load asked to verify one is refused.
    let plain = dir.join("plain.safetensors");
    trained
        .save_into_checked(&SafetensorsStore::from_file(&plain))
        .unwrap();
    assert!(!String::from_utf8_lossy(&std::fs::read(&plain).unwrap()).contains("burn_guard.probe"));
    served
        .load_from_checked(&SafetensorsStore::from_file(&plain))
        .unwrap();
    assert_eq!(served.values(), trained.values());
    let mut other = Net::new(8, &device);
    let before = other.values();
    let err = other
        .load_from_checked_with_probe(&SafetensorsStore::from_file(&plain), &probe)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
    assert!(err.to_string().contains("burn_guard.probe"), "{err}");
    assert_eq!(other.values(), before);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The file a save writes when a tensor's bytes were scrambled on their way to disk (rows
/// permuted, every shape kept): the probe's output is the trusted model's, the data and its
/// fingerprint are the scrambled bytes'. Built here from two checked saves: the trusted
/// model's (with its probe) and the scrambled model's (its data and fingerprint).
#[test]
fn a_probe_refuses_rows_permuted_before_the_save() {
    let dir = scratch_dir("probe-permuted");
    let device = Device::flex();
    let trusted = Net::new(8, &device);
    let probe = net_probe();
    let path = dir.join("net.safetensors");
    trusted
        .save_into_checked_with_probe(
            &SafetensorsStore::from_file(&path),
            &probe,
            probe_input(8, &device),
        )
        .unwrap();
    let scrambled = trusted.with_rows_swapped();
    let scrambled_path = dir.join("scrambled.safetensors");
    scrambled
        .save_into_checked(&SafetensorsStore::from_file(&scrambled_path))
        .unwrap();
    splice_safetensors(&path, &scrambled_path);

    // The fingerprint matches the bytes: a plain checked load takes the permuted weight.
    let mut served = Net::new(8, &device);
    served
        .load_from_checked(&SafetensorsStore::from_file(&path))
        .unwrap();
    assert_eq!(served.values(), scrambled.values());
    assert_ne!(served.values(), trusted.values());

    // The probe sees it: refused, naming the probe and the largest difference.
    let mut served = Net::new(8, &device);
    let before = served.values();
    let err = served
        .load_from_checked_with_probe(&SafetensorsStore::from_file(&path), &probe)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Diverged, "{err}");
    let GuardError::Diverged { op, max_abs, .. } = err.root() else {
        panic!("{err}")
    };
    assert_eq!(*op, "probe");
    assert!(*max_abs > 1e-3, "{err}");
    let text = err.to_string();
    assert!(text.contains("probe") && text.contains("max abs"), "{text}");
    assert!(text.contains("net.safetensors"), "{text}");
    assert_eq!(served.values(), before, "the model is untouched");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A burn file of a square layer, loaded with PyTorch's layout stated: the adapter transposes
/// the weight, its shape fits and its bytes are the ones hashed; only the output differs.
#[test]
fn a_probe_refuses_a_square_weight_read_transposed() {
    let dir = scratch_dir("probe-transposed");
    let device = Device::flex();
    let trained = Square {
        fc: LinearConfig::new(8, 8).init(&device),
    };
    let probe = Probe::new(|model: &Square, x: Tensor<2>| model.fc.forward(x));
    let path = dir.join("square.safetensors");
    trained
        .save_into_checked_with_probe(
            &SafetensorsStore::from_file(&path),
            &probe,
            probe_input(8, &device),
        )
        .unwrap();
    let transposed = || SafetensorsStore::from_file(&path).layout(Layout::PyTorch);

    // Without the probe the load takes the weight transposed, without a word.
    let mut served = Square {
        fc: LinearConfig::new(8, 8).init(&device),
    };
    served.load_from_checked(&transposed()).unwrap();
    assert_eq!(
        served.fc.weight.val().into_data(),
        trained.fc.weight.val().transpose().into_data()
    );

    let mut served = Square {
        fc: LinearConfig::new(8, 8).init(&device),
    };
    let before = served.fc.weight.val().into_data();
    let err = served
        .load_from_checked_with_probe(&transposed(), &probe)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Diverged, "{err}");
    assert!(err.to_string().contains("probe"), "{err}");
    assert_eq!(
        served.fc.weight.val().into_data(),
        before,
        "the model is untouched"
    );
    // Stated rightly, the same file passes its probe.
    served
        .load_from_checked_with_probe(&SafetensorsStore::from_file(&path), &probe)
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Files a checked save wrote before the save hashed in its write pass
/// (`tests/data/saving/`, `Linear(3, 4)` with `w[i, o] = (4i + o + 1) / 4`,
/// `b[o] = -(o + 1) / 8`): they verify, and a changed byte in them is refused.
#[test]
fn files_fingerprinted_by_the_earlier_save_still_verify() {
    let dir = scratch_dir("fixtures");
    let device = Device::flex();
    #[derive(Module, Debug)]
    struct Fixture {
        fc: Linear,
    }
    let expected: Vec<f32> = (0..12).map(|k| (k + 1) as f32 / 4.0).collect();
    for name in [
        "linear_3x4_fingerprinted.safetensors",
        "linear_3x4_fingerprinted.bpk",
    ] {
        let fixture = Path::new("tests/data/saving").join(name);
        let mut served = Fixture {
            fc: LinearConfig::new(3, 4).init(&device),
        };
        if name.ends_with(".bpk") {
            served
                .load_from_checked(&BurnpackStore::from_file(&fixture))
                .unwrap();
        } else {
            served
                .load_from_checked(&SafetensorsStore::from_file(&fixture))
                .unwrap();
        }
        assert_eq!(
            served
                .fc
                .weight
                .val()
                .into_data()
                .try_to_vec::<f32>()
                .unwrap(),
            expected
        );

        // The last data byte belongs to a tensor in both formats.
        let changed = dir.join(name);
        std::fs::copy(&fixture, &changed).unwrap();
        let len = std::fs::metadata(&changed).unwrap().len() as usize;
        flip_byte(&changed, len - 1);
        let err = if name.ends_with(".bpk") {
            served.load_from_checked(&BurnpackStore::from_file(&changed))
        } else {
            served.load_from_checked(&SafetensorsStore::from_file(&changed))
        }
        .unwrap_err();
        assert!(err.to_string().contains("fingerprint"), "{err}");
        assert!(err.path().is_some_and(|p| p.starts_with("fc.")), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Rewrites the SafeTensors file at `path` with the data and the fingerprint of the one at
/// `donor` (the same tensors, so the same header but for the fingerprint's hashes, which keep
/// their length).
fn splice_safetensors(path: &Path, donor: &Path) {
    let split = |bytes: &[u8]| {
        let len = usize::try_from(u64::from_le_bytes(bytes[..8].try_into().unwrap())).unwrap();
        let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + len]).unwrap();
        let fingerprint = header["__metadata__"]["burn_guard.fingerprint"]
            .as_str()
            .unwrap()
            .to_owned();
        (len, serde_json::to_string(&fingerprint).unwrap())
    };
    let (file, other) = (std::fs::read(path).unwrap(), std::fs::read(donor).unwrap());
    let ((len, ours), (donor_len, theirs)) = (split(&file), split(&other));
    assert_eq!(ours.len(), theirs.len());
    let header = String::from_utf8(file[8..8 + len].to_vec()).unwrap();
    assert_eq!(header.matches(&ours).count(), 1);
    let mut spliced = file[..8].to_vec();
    spliced.extend(header.replace(&ours, &theirs).as_bytes());
    spliced.extend(&other[8 + donor_len..]);
    assert_eq!(spliced.len(), file.len());
    std::fs::write(path, spliced).unwrap();
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
