//! What a checked load costs against burn's own loader, for a model of about 50 MB (three
//! `Linear(2048, 2048)`, F32) on Flex.
//!
//! ```text
//! cargo bench --all-features --bench loading
//! ```
//!
//! One paired criterion benchmark per group (`benches/support/paired.rs`): each iteration runs
//! every variant, alternating which goes first, and times each on its own. Each variant ends
//! with the model ready to serve: every parameter read back once (a file-backed load may keep
//! its bytes lazy until then), the same work in every variant.
//!
//! - `file`: burn's `Module::try_load_file` beside `load_file_checked`, and beside it with the
//!   non-finite scan on (reported separately: it reads every value once more on the host).
//! - `record`: burn's `Module::try_load_record` beside `load_record_checked`, from a record in
//!   memory. The twin serialises the record once to read its index (a `ModuleRecord` shows
//!   nothing of its tensors otherwise): one copy of the model's bytes that burn's in-memory
//!   load on Flex does not make.

#[path = "support/paired.rs"]
mod paired;

use std::time::Duration;

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::store::ModuleRecord;
use burn::tensor::Device;
use burn_guard::prelude::*;
use burn_guard::store::LoadOptions;
use criterion::Criterion;
use paired::{Paired, paired};

#[derive(Module, Debug)]
struct Wide {
    l1: Linear,
    l2: Linear,
    l3: Linear,
}

impl Wide {
    fn new(device: &Device) -> Self {
        let layer = || LinearConfig::new(2048, 2048).init(device);
        Self {
            l1: layer(),
            l2: layer(),
            l3: layer(),
        }
    }

    /// Reads every parameter back: the model ready to serve. Returns the bytes read.
    fn touch(&self) -> usize {
        [&self.l1, &self.l2, &self.l3]
            .iter()
            .map(|l| {
                l.weight.val().into_data().bytes().len()
                    + l.bias
                        .as_ref()
                        .map_or(0, |b| b.val().into_data().bytes().len())
            })
            .sum()
    }
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8))
        .sample_size(10)
        .configure_from_args();
    let device = Device::flex();
    let trained = Wide::new(&device);
    let fresh = Wide::new(&device);
    let dir = std::env::temp_dir().join(format!("burn-guard-bench-loading-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("wide.bpk");
    trained.clone().save_file(&path).unwrap();
    let bytes = std::fs::metadata(&path).unwrap().len();
    println!("checkpoint: {} ({bytes} bytes)", path.display());

    let mut results: Vec<(String, Paired)> = Vec::new();

    let mut burn_file = || fresh.clone().try_load_file(&path).unwrap().touch();
    let mut checked_file = || {
        let mut model = fresh.clone();
        model.load_file_checked(&path).unwrap();
        model.touch()
    };
    let mut scanned_file = || {
        let mut model = fresh.clone();
        LoadOptions::new()
            .scan_non_finite(true)
            .load_file(&mut model, &path)
            .unwrap();
        model.touch()
    };
    for _ in 0..2 {
        burn_file();
        checked_file();
        scanned_file();
    }
    let group = "file flex".to_owned();
    let record = paired(
        &mut c,
        &group,
        &mut [
            ("burn try_load_file", &mut burn_file),
            ("load_file_checked", &mut checked_file),
            ("load_file_checked + scan", &mut scanned_file),
        ],
    );
    results.push((group, record));

    let serialised = trained.clone().into_record().into_bytes().unwrap();
    let record = || ModuleRecord::from_bytes(serialised.clone()).unwrap();
    let mut burn_record = || fresh.clone().try_load_record(record()).unwrap().touch();
    let mut checked_record = || {
        let mut model = fresh.clone();
        model.load_record_checked(record()).unwrap();
        model.touch()
    };
    for _ in 0..2 {
        burn_record();
        checked_record();
    }
    let group = "record flex".to_owned();
    let measured = paired(
        &mut c,
        &group,
        &mut [
            ("burn try_load_record", &mut burn_record),
            ("load_record_checked", &mut checked_record),
        ],
    );
    results.push((group, measured));

    // Saving: burn-store's atomic burnpack save beside the checked save, which hashes every
    // tensor's bytes into the file's fingerprint; then a checked load of the fingerprinted
    // file (every tensor's bytes hashed and compared) beside one of burn's file.
    let burn_saved = dir.join("burn.bpk");
    let checked_saved = dir.join("checked.bpk");
    let mut burn_save = || {
        let mut store = burn::store::BurnpackStore::from_file(&burn_saved).overwrite(true);
        burn::store::ModuleSnapshot::save_into(&trained, &mut store).unwrap();
        bytes as usize
    };
    let mut checked_save = || {
        let store = burn_guard::store::BurnpackStore::from_file(&checked_saved).overwrite(true);
        trained.save_into_checked(&store).unwrap().bytes as usize
    };
    for _ in 0..2 {
        burn_save();
        checked_save();
    }
    let group = "save flex".to_owned();
    let record = paired(
        &mut c,
        &group,
        &mut [
            ("burn save_into", &mut burn_save),
            ("save_into_checked", &mut checked_save),
        ],
    );
    results.push((group, record));

    let mut plain_load = || {
        let mut model = fresh.clone();
        let store = burn_guard::store::BurnpackStore::from_file(&burn_saved);
        model.load_from_checked(&store).unwrap();
        model.touch()
    };
    let mut fingerprinted_load = || {
        let mut model = fresh.clone();
        let store = burn_guard::store::BurnpackStore::from_file(&checked_saved);
        model.load_from_checked(&store).unwrap();
        model.touch()
    };
    for _ in 0..2 {
        plain_load();
        fingerprinted_load();
    }
    let group = "fingerprint flex".to_owned();
    let record = paired(
        &mut c,
        &group,
        &mut [
            ("load_from_checked, burn's file", &mut plain_load),
            ("load_from_checked, fingerprinted", &mut fingerprinted_load),
        ],
    );
    results.push((group, record));

    c.final_summary();
    paired::print(
        &results,
        "group: burn's mean, variant mean, variant / burn (sums over the paired run), difference \
         per call, per-sample ratio quartiles",
    );
    let _ = std::fs::remove_dir_all(&dir);
}
