//! Checked loading against burn's own loaders, on real backends and real files: burn-core's
//! records and burnpack files written by burn here, and (with the `store` feature) SafeTensors and
//! PyTorch files written by Python's reference implementations (`tests/data/loading/`, with the
//! script that wrote them).
//!
//! The rule: where burn panics, aborts, or loads something else without a word, the twin
//! returns `Err` and the model's forward gives the same bits as before; where burn loads, the
//! twin loads the same values.

// NdArray is deprecated upstream and still supported: it is where F16 panics.
#![allow(deprecated)]

mod common;
#[path = "common/example.rs"]
mod example;

use burn::module::{Module, Param};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig};
use burn::store::ModuleRecord;
use burn::tensor::{DType, Device, Tensor, TensorData};
use burn_guard::prelude::*;
use burn_guard::store::{DTypeChoice, KeptReason, LoadOptions, LoadOutcome};

use common::raw;

#[derive(Module, Debug)]
struct Net {
    fc: Linear,
}

impl Net {
    fn new(d_in: usize, d_out: usize, device: &Device) -> Self {
        Self {
            fc: LinearConfig::new(d_in, d_out).init(device),
        }
    }

    /// The forward's bits on a fixed input: what "the model is intact" compares.
    fn fingerprint(&self) -> Vec<u32> {
        let [d_in, _] = self.fc.weight.dims();
        let device = self.fc.weight.device();
        let x = Tensor::<2>::from_data(
            TensorData::new((0..2 * d_in).map(|i| i as f32 / 8.0).collect(), [2, d_in]),
            &device,
        );
        bits(self.fc.forward(x))
    }
}

#[derive(Module, Debug)]
struct Mlp {
    fc1: Linear,
    fc2: Linear,
}

impl Mlp {
    fn new(device: &Device) -> Self {
        Self {
            fc1: LinearConfig::new(3, 4).init(device),
            fc2: LinearConfig::new(4, 2).init(device),
        }
    }
}

#[derive(Module, Debug)]
struct BnNet {
    fc: Linear,
    bn: BatchNorm,
}

impl BnNet {
    fn new(device: &Device) -> Self {
        Self {
            fc: LinearConfig::new(3, 4).init(device),
            bn: BatchNormConfig::new(4).init(device),
        }
    }
}

fn bits<const D: usize>(t: Tensor<D>) -> Vec<u32> {
    t.into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .unwrap()
        .into_iter()
        .map(f32::to_bits)
        .collect()
}

fn values<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().convert::<f32>().try_to_vec::<f32>().unwrap()
}

fn cpu_devices() -> [Device; 2] {
    [Device::flex(), Device::ndarray()]
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("burn-guard-loading-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---------------------------------------------------------------- burn-core: records and .bpk

/// Where burn's `try_load_record` loads, the twin loads the same values; from a record in
/// memory and from a burnpack file burn wrote.
#[test]
fn a_record_and_a_file_load_the_values_burn_loads() {
    for device in cpu_devices() {
        let trained = Mlp::new(&device);
        let burn = Mlp::new(&device)
            .try_load_record(trained.clone().into_record())
            .unwrap();
        let mut ours = Mlp::new(&device);
        let report = ours
            .load_record_checked(trained.clone().into_record())
            .unwrap();
        assert_eq!(report.loaded().count(), 4);
        assert_eq!(report.cast().count(), 0);
        for (b, o) in [
            (burn.fc1.weight.val(), ours.fc1.weight.val()),
            (burn.fc2.weight.val(), ours.fc2.weight.val()),
        ] {
            assert_eq!(bits(b), bits(o));
        }
        // Ids come from the record, as burn's.
        assert_eq!(ours.fc1.weight.id, trained.fc1.weight.id);

        let path = temp_dir("bpk").join("mlp");
        trained.clone().save_file(&path).unwrap();
        let burn = Mlp::new(&device).try_load_file(&path).unwrap();
        let mut ours = Mlp::new(&device);
        let report = ours.load_file_checked(&path).unwrap();
        assert!(report.file.ends_with("mlp.bpk"), "{}", report.file);
        assert_eq!(
            bits(burn.fc2.bias.unwrap().val()),
            bits(ours.fc2.bias.unwrap().val())
        );
    }
}

/// Each mismatch burn's `load_record` panics on is an `Err` naming the parameter, and the model
/// computes the same bits afterwards; burn's `try_load_record` returns `Err` too, but has
/// consumed the model.
#[test]
fn a_mismatched_record_is_refused_and_the_model_is_untouched() {
    let device = Device::flex();
    let cases: Vec<(&str, ModuleRecord, ErrorKind, Option<&str>)> = vec![
        (
            "shape",
            Net::new(4, 4, &device).into_record(),
            ErrorKind::ShapeMismatch,
            Some("fc.weight"),
        ),
        (
            "missing and unused",
            Mlp::new(&device).into_record(),
            ErrorKind::LoadMismatch,
            None,
        ),
        (
            "unused",
            Mlp::new(&device).into_record().allow_partial(true),
            ErrorKind::Unused,
            None,
        ),
    ];
    for (case, record, kind, path) in cases {
        let burn = raw(|| Net::new(3, 4, &device).load_record(record.clone()));
        assert!(burn.is_none(), "{case}: burn loaded");
        let mut model = Net::new(3, 4, &device);
        let before = model.fingerprint();
        let err = model.load_record_checked(record).unwrap_err();
        assert_eq!(err.kind(), kind, "{case}: {err}");
        assert_eq!(err.path().as_deref(), path, "{case}: {err}");
        let text = err.to_string();
        assert!(text.starts_with("load_record: <record> on "), "{text}");
        assert!(!text.contains('\n'));
        assert_eq!(model.fingerprint(), before, "{case}");
    }
}

/// The record's own settings are honoured: `allow_partial(true)` loads what is there and the
/// report lists what is missing.
#[test]
fn a_partial_record_loads_what_it_has_when_allowed() {
    let device = Device::flex();
    let trained = Net::new(3, 4, &device);
    let mut model = Mlp::new(&device);
    let before = bits(model.fc2.weight.val());
    // `fc` matches nothing in `Mlp`: missing and unused both allowed, nothing loaded.
    let report = model
        .load_record_checked(trained.into_record().allow_partial(true).allow_unused(true))
        .unwrap();
    assert_eq!(report.loaded().count(), 0);
    assert_eq!(report.missing.len(), 4);
    assert_eq!(report.unused, ["fc.bias", "fc.weight"]);
    assert!(matches!(
        report.param("fc1.weight").unwrap().outcome,
        LoadOutcome::Kept(KeptReason::Missing)
    ));
    assert_eq!(bits(model.fc2.weight.val()), before);
}

/// A half-precision record: burn adopts the record's dtype by default (Flex: the model is now
/// F16 and an F32 input's forward panics) and panics inside `try_load_record` on NdArray, which
/// holds no F16. The twin keeps the model's F32, casting on the host, on both; adopting the file's
/// dtype is refused on NdArray as unsupported.
#[test]
fn a_half_precision_record_keeps_the_model_dtype() {
    let flex = Device::flex();
    let trained = Net::new(3, 4, &flex);
    let half = || {
        let mut half = trained.clone();
        half.fc.weight = Param::from_tensor(trained.fc.weight.val().cast(DType::F16));
        let bias = trained.fc.bias.as_ref().unwrap().val().cast(DType::F16);
        half.fc.bias = Some(Param::from_tensor(bias));
        half.into_record()
    };

    // burn on Flex: loads, and the model is F16.
    let adopted = Net::new(3, 4, &flex).try_load_record(half()).unwrap();
    assert_eq!(adopted.fc.weight.val().dtype(), DType::F16);

    for device in cpu_devices() {
        let burn = raw(|| Net::new(3, 4, &device).try_load_record(half()));
        if device == Device::ndarray() {
            assert!(burn.is_none(), "burn loaded F16 on NdArray");
        }
        let mut model = Net::new(3, 4, &device);
        let report = model.load_record_checked(half()).unwrap();
        assert_eq!(model.fc.weight.val().dtype(), DType::F32);
        assert_eq!(report.cast().count(), 2);
        let row = report.param("fc.weight").unwrap();
        assert_eq!(
            row.outcome,
            LoadOutcome::Cast {
                from: "F16".into(),
                to: "F32".into()
            }
        );
        // The values are the F16 rounding of the trained ones.
        let expected = values(trained.fc.weight.val().cast(DType::F16).cast(DType::F32));
        assert_eq!(values(model.fc.weight.val()), expected);
        model.fingerprint();
    }

    let mut model = Net::new(3, 4, &Device::ndarray());
    let before = model.fingerprint();
    let err = LoadOptions::new()
        .dtype(DTypeChoice::AdoptFile)
        .load_record(&mut model, half())
        .unwrap_err();
    // Both parameters refused at once, each for the dtype NdArray cannot hold.
    let GuardError::LoadMismatch { refused, .. } = err.root() else {
        panic!("{err}")
    };
    let refused: Vec<_> = refused.iter().map(|e| (e.path(), e.kind())).collect();
    let unsupported = |path: &str| (Some(path.to_owned()), ErrorKind::Unsupported);
    assert_eq!(
        refused,
        [unsupported("fc.weight"), unsupported("fc.bias")],
        "{err}"
    );
    assert_eq!(model.fingerprint(), before);

    let mut model = Net::new(3, 4, &flex);
    LoadOptions::new()
        .dtype(DTypeChoice::AdoptFile)
        .load_record(&mut model, half())
        .unwrap();
    assert_eq!(model.fc.weight.val().dtype(), DType::F16);
}

/// The opt-in scan refuses non-finite values before anything is written, with the count; burn
/// loads them.
#[test]
fn the_scan_refuses_non_finite_values() {
    let device = Device::flex();
    let mut poisoned = Net::new(3, 4, &device);
    let weight = Tensor::<2>::from_data(
        TensorData::new(
            vec![
                1.0,
                f32::NAN,
                2.0,
                3.0,
                f32::INFINITY,
                4.0,
                5.0,
                6.0,
                7.0,
                8.0,
                9.0,
                10.0,
            ],
            [3, 4],
        ),
        &device,
    );
    poisoned.fc.weight = Param::from_tensor(weight);
    assert!(raw(|| Net::new(3, 4, &device).load_record(poisoned.clone().into_record())).is_some());

    let mut model = Net::new(3, 4, &device);
    let before = model.fingerprint();
    let err = LoadOptions::new()
        .scan_non_finite(true)
        .load_record(&mut model, poisoned.clone().into_record())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NonFinite);
    assert_eq!(err.path().as_deref(), Some("fc.weight"));
    assert!(err.to_string().contains("2 non-finite of 12"), "{err}");
    assert_eq!(model.fingerprint(), before);

    let report = LoadOptions::new()
        .scan_non_finite(true)
        .load_record(&mut model, Net::new(3, 4, &device).into_record())
        .unwrap();
    assert_eq!(report.scanned_values, Some(16));
}

/// A file that is not there, or not a burnpack: `Store` inside `Checkpoint`, naming the path as
/// burn resolves it (`.bpk` appended).
#[test]
fn a_file_burn_cannot_read_is_a_store_error_naming_it() {
    let device = Device::flex();
    let mut model = Net::new(3, 4, &device);
    let missing = temp_dir("missing").join("nothing");
    let err = model.load_file_checked(&missing).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Store);
    let (file, on) = err.checkpoint().unwrap();
    assert!(file.ends_with("nothing.bpk"), "{file}");
    assert!(on.contains("flex"), "{on}");
    let garbage = temp_dir("garbage").join("model.bpk");
    std::fs::write(&garbage, b"not a burnpack").unwrap();
    assert!(raw(|| Net::new(3, 4, &device).load_file(&garbage)).is_none());
    let err = model.load_file_checked(&garbage).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Store, "{err}");
}

/// `validate(false)`: burn keeps a mismatched parameter's value without a word; the twin keeps
/// it too and says why in the report.
#[test]
fn without_validation_a_mismatch_is_kept_and_reported() {
    let device = Device::flex();
    let mut other = Net::new(4, 4, &device);
    other.fc.bias = None;
    let mut model = Net::new(3, 4, &device);
    let before = bits(model.fc.weight.val());
    let report = LoadOptions::new()
        .validate(false)
        .allow_partial(true)
        .load_record(&mut model, other.into_record())
        .unwrap();
    assert_eq!(bits(model.fc.weight.val()), before);
    match &report.param("fc.weight").unwrap().outcome {
        LoadOutcome::Kept(KeptReason::Mismatch { refusal }) => {
            assert!(
                refusal.contains("[3, 4]") && refusal.contains("[4, 4]"),
                "{refusal}"
            )
        }
        other => panic!("{other:?}"),
    }
    println!("{report}");
}

/// A model on wgpu loads the same values as on Flex, from the same burnpack file.
#[test]
fn a_burnpack_file_loads_on_wgpu() {
    let Some(wgpu) = common::wgpu_device() else {
        return;
    };
    let trained = Mlp::new(&Device::flex());
    let path = temp_dir("wgpu").join("mlp.bpk");
    trained.clone().save_file(&path).unwrap();
    let mut model = Mlp::new(&wgpu);
    model.load_file_checked(&path).unwrap();
    assert_eq!(bits(model.fc1.weight.val()), bits(trained.fc1.weight.val()));
}

/// The example: a service that serves its checkpoint, refuses another model's in one line and
/// keeps serving the same answers, and loads a half-precision export on Flex and NdArray.
#[test]
fn the_checkpoint_example_serves_refuses_and_keeps_serving() {
    let stdout = example::run_example("checkpoint", &[], "`cargo test --all-features`");
    let stdout = String::from_utf8(stdout).unwrap();
    assert!(stdout.contains("6 of 6 parameters loaded"), "{stdout}");
    assert!(stdout.contains("refused: load_file: "), "{stdout}");
    assert!(stdout.contains("(unchanged)"), "{stdout}");
    assert!(
        stdout.contains("ndarray: loaded the F16 export, 6 parameters cast to F32"),
        "{stdout}"
    );
}

// ---------------------------------------------------------------- burn-store: files from Python

#[cfg(feature = "store")]
mod stores {
    use burn::store::{ModuleSnapshot, PyTorchToBurnAdapter, SafetensorsStore as BurnSafetensors};
    use burn_guard::store::{Layout, PytorchStore, SafetensorsStore};

    use super::*;

    fn fixture(name: &str) -> String {
        format!("{}/tests/data/loading/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    /// `[out, in]` in the file: `w[o, i] = (o·3 + i + 1) / 4`; burn's `Linear` holds `[in, out]`.
    fn reference_weight() -> Vec<f32> {
        let mut w = vec![0.0; 12];
        for o in 0..4 {
            for i in 0..3 {
                w[i * 4 + o] = (o * 3 + i + 1) as f32 / 4.0;
            }
        }
        w
    }

    /// The reference Linear, in PyTorch's layout, with the layout stated: the values burn's own
    /// store loads with `PyTorchToBurnAdapter`, on Flex and NdArray, from every float dtype the
    /// fixtures hold (F16, BF16, F64 cast to the model's F32 on the host).
    #[test]
    fn python_files_load_the_values_burn_loads_with_the_adapter() {
        for device in cpu_devices() {
            let mut burn = Net::new(3, 4, &device);
            let result = burn
                .load_from(
                    &mut BurnSafetensors::from_file(fixture("linear_3x4_f32.safetensors"))
                        .with_from_adapter(PyTorchToBurnAdapter),
                )
                .unwrap();
            assert!(result.errors.is_empty());
            for file in [
                "linear_3x4_f32.safetensors",
                "linear_3x4_f16.safetensors",
                "linear_3x4_bf16.safetensors",
                "linear_3x4_f64.safetensors",
            ] {
                let mut model = Net::new(3, 4, &device);
                let store = SafetensorsStore::from_file(fixture(file)).layout(Layout::PyTorch);
                let report = model.load_from_checked(&store).unwrap();
                assert_eq!(report.loaded().count(), 2, "{file}");
                assert_eq!(model.fc.weight.val().dtype(), DType::F32);
                assert_eq!(values(model.fc.weight.val()), reference_weight(), "{file}");
                assert_eq!(
                    bits(model.fc.weight.val()),
                    bits(burn.fc.weight.val()),
                    "{file}"
                );
            }
        }
    }

    /// The square weight: burn's store loads it transposed without a word; the twin refuses it
    /// until the layout is stated, then loads what burn loads with the adapter.
    #[test]
    fn a_square_pytorch_weight_needs_its_layout_stated() {
        let device = Device::flex();
        let path = fixture("linear_4x4_square_f32.safetensors");
        let mut silent = Net::new(4, 4, &device);
        let result = silent
            .load_from(&mut BurnSafetensors::from_file(&path))
            .unwrap();
        assert!(result.errors.is_empty() && result.missing.is_empty());

        let mut model = Net::new(4, 4, &device);
        let before = model.fingerprint();
        let err = model
            .load_from_checked(&SafetensorsStore::from_file(&path))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LayoutUnstated, "{err}");
        assert_eq!(err.path().as_deref(), Some("fc.weight"));
        assert!(err.to_string().contains("PyTorchToBurnAdapter"), "{err}");
        assert_eq!(model.fingerprint(), before);

        let mut adapted = Net::new(4, 4, &device);
        adapted
            .load_from(
                &mut BurnSafetensors::from_file(&path).with_from_adapter(PyTorchToBurnAdapter),
            )
            .unwrap();
        model
            .load_from_checked(&SafetensorsStore::from_file(&path).layout(Layout::PyTorch))
            .unwrap();
        assert_eq!(bits(model.fc.weight.val()), bits(adapted.fc.weight.val()));
        assert_ne!(bits(model.fc.weight.val()), bits(silent.fc.weight.val()));
        // Stating burn's layout reads it as is: what burn's store loaded silently.
        model
            .load_from_checked(&SafetensorsStore::from_file(&path).layout(Layout::Burn))
            .unwrap();
        assert_eq!(bits(model.fc.weight.val()), bits(silent.fc.weight.val()));
    }

    /// burn's store writes what matches and then returns `Err` (a missing bias, an int weight,
    /// the unstated non-square layout): a half-loaded model. The twin refuses before writing.
    /// An unused key burn's store only lists; the twin refuses it unless allowed.
    #[test]
    fn burn_store_half_loads_where_the_twin_refuses_whole() {
        let device = Device::flex();
        let cases = [
            ("linear_3x4_missing_bias.safetensors", ErrorKind::Missing),
            (
                "linear_3x4_int_weight.safetensors",
                ErrorKind::DTypeMismatch,
            ),
            ("linear_3x4_f32.safetensors", ErrorKind::ShapeMismatch),
            ("linear_3x4_extra_key.safetensors", ErrorKind::Unused),
        ];
        for (file, kind) in cases {
            let store = || {
                let store = SafetensorsStore::from_file(fixture(file));
                if kind == ErrorKind::ShapeMismatch {
                    store
                } else {
                    store.layout(Layout::PyTorch)
                }
            };
            let mut model = Net::new(3, 4, &device);
            let before = model.fingerprint();
            let err = model.load_from_checked(&store()).unwrap_err();
            assert_eq!(err.kind(), kind, "{file}: {err}");
            assert_eq!(model.fingerprint(), before, "{file}");
            println!("{file}: {err}");
        }
        // The unused key, allowed: loads, and the report lists it.
        let mut model = Net::new(3, 4, &device);
        let store = SafetensorsStore::from_file(fixture("linear_3x4_extra_key.safetensors"))
            .layout(Layout::PyTorch)
            .allow_unused(true);
        let report = model.load_from_checked(&store).unwrap();
        assert_eq!(report.unused, ["head.weight"]);
        // burn's store on the missing bias: `Err`, with the weight already written.
        let mut half = Net::new(3, 4, &device);
        let before = bits(half.fc.weight.val());
        let result = half.load_from(
            &mut BurnSafetensors::from_file(fixture("linear_3x4_missing_bias.safetensors"))
                .with_from_adapter(PyTorchToBurnAdapter),
        );
        assert!(result.is_err());
        assert_ne!(
            bits(half.fc.weight.val()),
            before,
            "burn's store no longer half-loads"
        );
    }

    /// Two keys remapped to one name: burn keeps one; the twin names both. An invalid regex:
    /// burn's builder panics; the twin's is an `Err`.
    #[test]
    fn remapping_collisions_and_bad_patterns_are_refused() {
        let device = Device::flex();
        let store = SafetensorsStore::from_file(fixture("linear_3x4_alias_keys.safetensors"))
            .layout(Layout::PyTorch)
            .try_with_key_remapping(r"^layer\.", "fc.")
            .unwrap();
        let mut model = Net::new(3, 4, &device);
        let err = model.load_from_checked(&store).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::KeyCollision, "{err}");
        let text = err.to_string();
        assert!(
            text.contains("got fc.bias, layer.bias sent to fc.bias"),
            "{text}"
        );

        assert!(raw(|| BurnSafetensors::from_file("x").with_regex("(")).is_none());
        let err = SafetensorsStore::from_file("x")
            .try_with_regex("(")
            .err()
            .unwrap();
        assert_eq!(err.kind(), ErrorKind::InvalidArgument);
        assert!(raw(|| BurnSafetensors::from_file("x").with_key_remapping("(", "")).is_none());
        let err = SafetensorsStore::from_file("x")
            .try_with_key_remapping("(", "")
            .err()
            .unwrap();
        assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    }

    /// The non-finite scan on a file: `fc.weight` holds a NaN and an inf.
    #[test]
    fn the_scan_names_the_poisoned_parameter_of_a_file() {
        let mut model = Net::new(3, 4, &Device::flex());
        let store = SafetensorsStore::from_file(fixture("linear_3x4_nan.safetensors"))
            .layout(Layout::PyTorch)
            .scan_non_finite(true);
        let err = model.load_from_checked(&store).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NonFinite);
        assert_eq!(err.path().as_deref(), Some("fc.weight"));
        assert!(err.to_string().contains("2 non-finite of 12"), "{err}");
    }

    /// PyTorch `.pt` files: a state dict, a checkpoint dict under `model_state_dict`, and a
    /// BatchNorm whose `num_batches_tracked` has no burn counterpart (skipped by name under
    /// PyTorch's layout, which `PytorchStore` always states).
    #[test]
    fn pytorch_files_load_the_values_burn_loads() {
        use burn::store::PytorchStore as BurnPytorch;
        let device = Device::flex();
        let mut burn = Mlp::new(&device);
        burn.load_from(&mut BurnPytorch::from_file(fixture("mlp.pt")))
            .unwrap();
        for (file, key) in [
            ("mlp.pt", None),
            ("mlp_checkpoint.pt", Some("model_state_dict")),
        ] {
            let mut model = Mlp::new(&device);
            let mut store = PytorchStore::from_file(fixture(file));
            if let Some(key) = key {
                store = store.with_top_level_key(key);
            }
            model.load_from_checked(&store).unwrap();
            assert_eq!(
                bits(model.fc2.weight.val()),
                bits(burn.fc2.weight.val()),
                "{file}"
            );
        }

        let mut model = BnNet::new(&device);
        let report = model
            .load_from_checked(&PytorchStore::from_file(fixture("batch_norm.pt")))
            .unwrap();
        assert_eq!(report.skipped, ["bn.num_batches_tracked"]);
        assert!(report.unused.is_empty());
        assert_eq!(report.loaded().count(), 6);
        assert_eq!(values(model.bn.gamma.val()), [1.0, 0.5, 2.0, 1.5]);
        assert_eq!(values(model.bn.running_var.value()), [1.0, 2.0, 0.5, 4.0]);
    }

    /// PyTorch's `nn.Sequential` keys (`0.weight`, `2.weight`, ...) against a model's named
    /// layers: one refusal lists the missing parameters and the file's unused keys together,
    /// with the renaming that fits, on one short line; the renaming then loads it.
    #[test]
    fn a_sequential_file_into_named_layers_lists_both_sides_and_the_renaming() {
        let device = Device::flex();
        let mut model = Mlp::new(&device);
        let before = bits(model.fc2.weight.val());
        let err = model
            .load_from_checked(&PytorchStore::from_file(fixture("mlp_sequential.pt")))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LoadMismatch);
        let GuardError::LoadMismatch {
            missing,
            unused,
            refused,
            renamed,
            ..
        } = err.root()
        else {
            panic!("{err:?}")
        };
        assert_eq!(
            missing,
            &["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"]
        );
        assert_eq!(unused, &["0.bias", "0.weight", "2.bias", "2.weight"]);
        assert!(refused.is_empty());
        let pairs = [("0", "fc1"), ("2", "fc2")].map(|(a, b)| (a.to_owned(), b.to_owned()));
        assert_eq!(renamed, &pairs);
        let line = err.to_string();
        println!("{line}");
        // Short whatever the lists' lengths; the file's path, as opened, comes on top.
        let file = fixture("mlp_sequential.pt");
        assert!(line.len() - file.len() < 300, "{line}");
        for part in ["4 missing", "4 unused", "`0` -> `fc1`", "`2` -> `fc2`"] {
            assert!(line.contains(part), "{part}: {line}");
        }
        // The op is said once.
        assert_eq!(line.matches("load_from:").count(), 1, "{line}");
        assert_eq!(bits(model.fc2.weight.val()), before);

        let store = PytorchStore::from_file(fixture("mlp_sequential.pt"))
            .try_with_key_remapping(r"^0\.(.*)", "fc1.$1")
            .unwrap()
            .try_with_key_remapping(r"^2\.(.*)", "fc2.$1")
            .unwrap();
        let report = model.load_from_checked(&store).unwrap();
        assert_eq!(report.loaded().count(), 4);
    }

    /// A failure while writing (here an adapter whose transform panics on the last running
    /// statistic) after a `RunningState` was written: a `RunningState` shares its storage with
    /// the caller's model, so the twin puts its value back.
    #[test]
    fn a_failure_while_writing_restores_the_running_statistics() {
        use burn::store::{ModuleAdapter, ModuleContext, bridge};
        use burn_pack::Tensor as PackTensor;

        #[derive(Clone)]
        struct FailsOnRunningVar;
        impl ModuleAdapter for FailsOnRunningVar {
            fn adapt(&self, tensor: PackTensor, ctx: ModuleContext<'_>) -> PackTensor {
                let tensor = PyTorchToBurnAdapter.adapt(tensor, ctx);
                if tensor.name.ends_with("running_var") {
                    let (name, dtype, shape) =
                        (tensor.name.clone(), tensor.dtype, tensor.shape.clone());
                    bridge::map_data(tensor, name, dtype, shape, |_| panic!("disk read failed"))
                } else {
                    tensor
                }
            }
            fn get_alternative_param_name(&self, name: &str, module_type: &str) -> Option<String> {
                PyTorchToBurnAdapter.get_alternative_param_name(name, module_type)
            }
            fn clone_box(&self) -> Box<dyn ModuleAdapter> {
                Box::new(self.clone())
            }
        }

        let device = Device::flex();
        let mut model = BnNet::new(&device);
        let mean_before = bits(model.bn.running_mean.value());
        let var_before = bits(model.bn.running_var.value());
        let store = SafetensorsStore::from_file(fixture("batch_norm_f32.safetensors"))
            .with_from_adapter(FailsOnRunningVar)
            .allow_unused(true);
        let err = model.load_from_checked(&store).unwrap_err();
        assert_eq!(err.path().as_deref(), Some("bn.running_var"), "{err}");
        assert_eq!(bits(model.bn.running_mean.value()), mean_before);
        assert_eq!(bits(model.bn.running_var.value()), var_before);
    }

    const CHILD: &str = "BURN_GUARD_LOADING_CHILD";

    /// A BF16 SafeTensors file on NdArray: burn-store's `load_from` panics inside its abort
    /// guard and the process ends (SIGABRT); the twin casts to the model's F32, and the child
    /// exits 0. Each run is a child process of this test binary.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_bf16_file_on_ndarray_aborts_burn_and_loads_through_the_twin() {
        use std::os::unix::process::ExitStatusExt;

        let exe = std::env::current_exe().unwrap();
        let run = |mode: &str| {
            std::process::Command::new(&exe)
                .args(["stores::bf16_child", "--exact", "--ignored", "--nocapture"])
                .env(CHILD, mode)
                .output()
                .unwrap()
        };
        let burn = run("burn");
        assert_eq!(
            burn.status.signal(),
            Some(6),
            "burn: {}",
            String::from_utf8_lossy(&burn.stderr)
        );
        let twin = run("twin");
        let stdout = String::from_utf8_lossy(&twin.stdout);
        assert!(
            twin.status.success(),
            "twin: {stdout} {}",
            String::from_utf8_lossy(&twin.stderr)
        );
        assert!(stdout.contains("twin loaded: cast BF16 -> F32"), "{stdout}");
    }

    #[test]
    #[ignore = "run by a_bf16_file_on_ndarray_aborts_burn_and_loads_through_the_twin"]
    fn bf16_child() {
        let path = fixture("linear_3x4_bf16.safetensors");
        let mut model = Net::new(3, 4, &Device::ndarray());
        match std::env::var(CHILD).as_deref() {
            Ok("burn") => {
                let mut store =
                    BurnSafetensors::from_file(&path).with_from_adapter(PyTorchToBurnAdapter);
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    model.load_from(&mut store)
                }));
                println!("burn returned");
            }
            Ok("twin") => {
                let store = SafetensorsStore::from_file(&path).layout(Layout::PyTorch);
                let report = model.load_from_checked(&store).unwrap();
                let row = report.param("fc.weight").unwrap();
                assert_eq!(values(model.fc.weight.val()), reference_weight());
                if let LoadOutcome::Cast { from, to } = &row.outcome {
                    println!("twin loaded: cast {from} -> {to}");
                }
            }
            _ => {}
        }
    }
}
