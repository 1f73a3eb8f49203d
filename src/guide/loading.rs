//! Guide: loading a checkpoint — burn's own files, SafeTensors and PyTorch's — all or nothing,
//! with a report of what was loaded, cast, kept and skipped.
//!
//! # What it is for
//!
//! burn's `Module::load_record` and `load_file` panic on a checkpoint that does not fit; their
//! `try_` forms return `Err` but consume the model, so a service that met a wrong file has no
//! model left to serve; they panic on a half-precision file for NdArray, and give the model the
//! file's dtype without a word (its next forward then refuses). burn-store's `load_from`
//! writes every matching tensor before it validates (an `Err` leaves a half-loaded model),
//! never refuses keys that go nowhere, loads a square PyTorch `Linear` weight transposed, and
//! aborts the process on a BF16 SafeTensors file for NdArray. The twins borrow the model and
//! load all or nothing:
//!
//! | burn's call | checked twin |
//! |---|---|
//! | `model.load_file("model.bpk")`, `try_load_file` | [`model.load_file_checked(path)`](crate::store::CheckedLoad::load_file_checked) |
//! | `model.load_record(record)`, `try_load_record` | [`model.load_record_checked(record)`](crate::store::CheckedLoad::load_record_checked) |
//! | burn-store's `model.load_from(&mut store)` | [`model.load_from_checked(&store)`](crate::store::CheckedSnapshot::load_from_checked) with burn-guard's [`SafetensorsStore`](crate::store::SafetensorsStore), [`PytorchStore`](crate::store::PytorchStore) or [`BurnpackStore`](crate::store::BurnpackStore), built with burn-store's builder names (`try_` where burn's builder panics) |
//!
//! [`LoadOptions`](crate::store::LoadOptions) (and the same setters on each store) choose
//! what strict loading leaves out: a partial checkpoint, unused keys, the dtype, a scan for NaN
//! and ±inf.
//!
//! # What every checked load does
//!
//! 1. Reads the checkpoint's index (names, dtypes, shapes), not its data.
//! 2. Checks every parameter before writing any: the tensor's kind and shape, that its values
//!    cast to the parameter's dtype, that the device holds the dtype and the bytes, the
//!    parameters the file lacks and the keys nothing takes (both refused by default, as
//!    burn-core refuses them), two keys remapped to one name, the layout of a square `Linear`
//!    weight from a file burn did not write, and, opt-in, that every value is finite.
//! 3. Writes them all into a copy of the model and swaps it in. On `Err` the model computes
//!    exactly what it computed before. The copy shares no storage with the model: burn's
//!    `RunningState` (batch norm's running statistics) shares its storage between clones, so
//!    a raw load into `model.clone()` rewrites the original's statistics; a checked load into a
//!    clone leaves the original bit for bit as it was.
//!
//! **Layout.** [`Layout::PyTorch`](crate::store::Layout::PyTorch) (stated on a SafeTensors
//! store, implied by [`PytorchStore`](crate::store::PytorchStore)) reads through burn-store's
//! `PyTorchToBurnAdapter`: a `Linear` weight `[out, in]` is transposed to burn's `[in, out]`,
//! and a normalization layer's `weight` and `bias` (`BatchNorm`, `LayerNorm`, `GroupNorm`,
//! `RmsNorm`) land in burn's `gamma` and `beta`. PyTorch's bookkeeping buffers that no burn
//! module has (`num_batches_tracked`, `position_ids`, `token_type_ids`, `masked_bias`:
//! [`PYTORCH_BOOKKEEPING`](crate::check::load::PYTORCH_BOOKKEEPING)) are skipped by name and
//! listed in [`LoadReport::skipped`](crate::store::LoadReport::skipped), so strict loading
//! fits PyTorch's files. A square `Linear` weight from a file that does not state its layout is
//! refused: the two layouts cannot be told apart by shape.
//!
//! **Unused keys.** [`allow_unused`](crate::store::LoadOptions::allow_unused) takes `true` or
//! patterns (`"aux_logits.*"`, `["a.*", "b.*"]`; `*` matches any run of characters): the
//! matching keys are accepted and listed, everything else still refused, so a file of another
//! model is still refused.
//!
//! **Dtype.** By default each parameter keeps its dtype
//! ([`DTypeChoice::KeepModel`](crate::store::DTypeChoice::KeepModel)): an F16 or BF16 file is
//! cast on the host and the report lists each cast.
//! [`DTypeChoice::AdoptFile`](crate::store::DTypeChoice::AdoptFile) takes the file's dtype,
//! checked against the device.
//!
//! # The report
//!
//! A [`LoadReport`](crate::store::LoadReport) has one [`ParamLoad`](crate::store::ParamLoad)
//! per parameter in module order (its path, the file's key, shape, device, the file's dtype and
//! the parameter's, and a [`LoadOutcome`](crate::store::LoadOutcome): loaded, cast, or kept and
//! why), then what the file lacks (`missing`), what it held that nothing took (`unused`), what
//! was skipped by name (`skipped`) and what key remapping renamed (`remapped`). `{report}`
//! prints a table; it serialises with serde.
//!
//! # Example
//!
//! The fixtures are files PyTorch and Python's `safetensors` wrote (`tests/data/loading/`, with
//! the script that wrote them).
//!
//! ```
//! use burn::module::Module;
//! use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig};
//! use burn::tensor::{DType, Device, Tensor};
//! use burn_guard::prelude::*;
//! use burn_guard::store::{Layout, PytorchStore, SafetensorsStore};
//!
//! #[derive(Module, Debug)]
//! struct BnNet {
//!     fc: Linear,
//!     bn: BatchNorm,
//! }
//!
//! #[derive(Module, Debug)]
//! struct Mlp {
//!     fc1: Linear,
//!     fc2: Linear,
//! }
//!
//! #[derive(Module, Debug)]
//! struct Net {
//!     fc: Linear,
//! }
//!
//! fn values(t: Tensor<1>) -> Vec<f32> {
//!     t.into_data().try_to_vec::<f32>().unwrap()
//! }
//!
//! let device = Device::flex();
//!
//! // 1. A PyTorch state dict with a BatchNorm, tried on a clone of the serving model: PyTorch's
//! //    layout, `weight`/`bias` into `gamma`/`beta`, `num_batches_tracked` skipped and listed.
//! let model = BnNet {
//!     fc: LinearConfig::new(3, 4).init(&device),
//!     bn: BatchNormConfig::new(4).init(&device),
//! };
//! let mut trial = model.clone();
//! let store = PytorchStore::from_file("tests/data/loading/batch_norm.pt");
//! let report = trial.load_from_checked(&store)?;
//! println!("{report}");
//! assert_eq!(report.loaded().count(), 6);
//! assert_eq!(report.skipped, ["bn.num_batches_tracked"]);
//! assert_eq!(values(trial.bn.gamma.val()), [1.0, 0.5, 2.0, 1.5]);
//! assert_eq!(values(trial.bn.running_var.value()), [1.0, 2.0, 0.5, 4.0]);
//! // The clone's running statistics are its own: the serving model still has its initial ones.
//! assert_eq!(values(model.bn.running_var.value()), [1.0; 4]);
//!
//! // 2. PyTorch's `nn.Sequential` keys against named layers: one refusal lists both sides and
//! //    the renaming that fits; nothing is written.
//! let mut mlp = Mlp {
//!     fc1: LinearConfig::new(3, 4).init(&device),
//!     fc2: LinearConfig::new(4, 2).init(&device),
//! };
//! let weight = mlp.fc1.weight.val().into_data();
//! let file = "tests/data/loading/mlp_sequential.pt";
//! let err = mlp.load_from_checked(&PytorchStore::from_file(file)).unwrap_err();
//! // load_from: tests/data/loading/mlp_sequential.pt on dispatch<flex>: the checkpoint must fit
//! // the model; got 4 missing (fc1.bias, fc1.weight, fc2.bias, fc2.weight), 4 unused (0.bias,
//! // 0.weight, 2.bias, 2.weight); remap the file's keys `0` -> `fc1`, `2` -> `fc2`
//! println!("{err}");
//! let GuardError::LoadMismatch { missing, unused, .. } = err.root() else {
//!     unreachable!()
//! };
//! assert_eq!(missing, &["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"]);
//! assert_eq!(unused, &["0.bias", "0.weight", "2.bias", "2.weight"]);
//! assert_eq!(mlp.fc1.weight.val().into_data(), weight);
//! let store = PytorchStore::from_file(file)
//!     .try_with_key_remapping(r"^0\.(.*)", "fc1.$1")?
//!     .try_with_key_remapping(r"^2\.(.*)", "fc2.$1")?;
//! assert_eq!(mlp.load_from_checked(&store)?.loaded().count(), 4);
//!
//! // 3. SafeTensors: a key nothing takes is refused, unless a pattern accepts it.
//! let mut net = Net { fc: LinearConfig::new(3, 4).init(&device) };
//! let file = "tests/data/loading/linear_3x4_extra_key.safetensors";
//! let err = net
//!     .load_from_checked(&SafetensorsStore::from_file(file).layout(Layout::PyTorch))
//!     .unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Unused);
//! let store = SafetensorsStore::from_file(file).layout(Layout::PyTorch).allow_unused("head.*");
//! assert_eq!(net.load_from_checked(&store)?.unused, ["head.weight"]);
//!
//! // 4. A half-precision file: cast to the model's F32 on the host, each cast reported.
//! let store = SafetensorsStore::from_file("tests/data/loading/linear_3x4_f16.safetensors")
//!     .layout(Layout::PyTorch);
//! assert_eq!(net.load_from_checked(&store)?.cast().count(), 2);
//! assert_eq!(net.fc.weight.val().dtype(), DType::F32);
//!
//! // 5. A square Linear weight from a file that does not say whose layout it follows: refused
//! //    until it is stated (burn-store would load it transposed without a word).
//! let mut square = Net { fc: LinearConfig::new(4, 4).init(&device) };
//! let file = "tests/data/loading/linear_4x4_square_f32.safetensors";
//! let err = square.load_from_checked(&SafetensorsStore::from_file(file)).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::LayoutUnstated);
//! square.load_from_checked(&SafetensorsStore::from_file(file).layout(Layout::PyTorch))?;
//!
//! // 6. burn's own burnpack file: a model of other sizes is refused, naming every parameter
//! //    that does not fit.
//! let path = std::env::temp_dir().join(format!("guide-loading-{}.bpk", std::process::id()));
//! mlp.clone().save_file(&path).expect("writes the checkpoint");
//! let mut served = Mlp {
//!     fc1: LinearConfig::new(3, 4).init(&device),
//!     fc2: LinearConfig::new(4, 2).init(&device),
//! };
//! assert_eq!(served.load_file_checked(&path)?.loaded().count(), 4);
//! let mut wider = Mlp {
//!     fc1: LinearConfig::new(3, 8).init(&device),
//!     fc2: LinearConfig::new(8, 2).init(&device),
//! };
//! let err = wider.load_file_checked(&path).unwrap_err();
//! // load_file: /tmp/guide-loading-….bpk on dispatch<flex>: the checkpoint must fit the model;
//! // got 3 refused (fc1.weight: ShapeMismatch, fc1.bias: ShapeMismatch, fc2.weight: ShapeMismatch)
//! assert_eq!(err.kind(), ErrorKind::LoadMismatch);
//! std::fs::remove_file(&path).ok();
//! # Ok::<(), burn_guard::GuardError>(())
//! ```
//!
//! # Saving with a fingerprint
//!
//! burn-store's saves are already atomic (a scratch file beside the destination, synced, then
//! renamed onto it), but nothing tells a file changed since. A checked save,
//! [`model.save_into_checked(&store)`](crate::store::CheckedSnapshot::save_into_checked) or
//! [`store.collect_from_checked(&model)`](crate::store::CheckedSave::collect_from_checked)
//! with a [`SafetensorsStore`](crate::store::SafetensorsStore) or
//! [`BurnpackStore`](crate::store::BurnpackStore) built `from_file`, writes as burn-store's
//! own store does (the same writer, its atomic write kept) with one more metadata entry,
//! `burn_guard.fingerprint`: every tensor's key → a 64-bit hash of its bytes. Every checked
//! load of a file that carries one hashes each tensor's bytes as it reads them and refuses a
//! tensor that differs, naming the parameter (`InvalidArgument`, "a tensor's bytes must match
//! the checkpoint's fingerprint"), the model untouched; a file without one loads as before. A
//! save killed mid-write leaves burn-pack's scratch file beside the old checkpoint (nothing
//! runs after `SIGKILL`); the next checked save to that file removes it once its process is
//! gone (on Linux) and lists it in [`SaveReport::removed_scratch`](crate::store::SaveReport).
//!
//! ```
//! use burn::module::Module;
//! use burn::nn::{Linear, LinearConfig};
//! use burn::tensor::Device;
//! use burn_guard::prelude::*;
//! use burn_guard::store::SafetensorsStore;
//!
//! #[derive(Module, Debug)]
//! struct Net {
//!     fc: Linear,
//! }
//!
//! let device = Device::flex();
//! let trained = Net { fc: LinearConfig::new(3, 4).init(&device) };
//! let path = std::env::temp_dir().join(format!("guide-saving-{}.safetensors", std::process::id()));
//! let report = trained.save_into_checked(&SafetensorsStore::from_file(&path).overwrite(true))?;
//! assert_eq!(report.tensors, 2);
//!
//! let mut served = Net { fc: LinearConfig::new(3, 4).init(&device) };
//! served.load_from_checked(&SafetensorsStore::from_file(&path))?;
//!
//! // One byte of the last tensor's data changed on disk: refused, naming its parameter.
//! let mut bytes = std::fs::read(&path).expect("reads the file");
//! let last = bytes.len() - 1;
//! bytes[last] ^= 1;
//! std::fs::write(&path, bytes).expect("writes the file");
//! let err = served.load_from_checked(&SafetensorsStore::from_file(&path)).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::InvalidArgument);
//! assert!(err.path().is_some_and(|p| p.starts_with("fc.")));
//! std::fs::remove_file(&path).ok();
//! # Ok::<(), burn_guard::GuardError>(())
//! ```
//!
//! A burnpack file is written in one pass: burn-pack's writer draws each tensor once and a
//! second thread hashes it while it is written. A SafeTensors file's fingerprint costs one more
//! read of every tensor, before burn-store's store writes it.
//!
//! **A probe** (optional) catches what neither the shapes nor the fingerprint see: a tensor
//! whose values keep their shape but not their order (a square weight read transposed, rows
//! permuted), and bytes already scrambled on their way to disk, which the fingerprint hashes
//! as they were written. [`Probe::new(|model: &Net, x: Tensor<2>| model.forward(x))`](crate::store::Probe)
//! is the forward;
//! [`save_into_checked_with_probe(&store, &probe, input)`](crate::store::CheckedSnapshot::save_into_checked_with_probe)
//! stores `input` and the model's output on it in the file's metadata (`burn_guard.probe`);
//! [`load_from_checked_with_probe(&store, &probe)`](crate::store::CheckedSnapshot::load_from_checked_with_probe)
//! runs the forward on the loaded copy before it is swapped in, and refuses an output that is
//! not the saved one within the probe's tolerance (by default `abs 1e-4, rel 1e-3`, for F32;
//! half precision or TF32 matmuls need more) as [`Diverged`](crate::GuardError::Diverged) (op
//! `probe`, the elements apart, the largest absolute and relative difference), the model
//! untouched. A load given a probe refuses a file without one; a load without one ignores it.
//!
//! ```
//! use burn::module::Module;
//! use burn::nn::{Linear, LinearConfig};
//! use burn::tensor::{Device, Tensor};
//! use burn_guard::prelude::*;
//! use burn_guard::store::{Layout, Probe, SafetensorsStore};
//!
//! #[derive(Module, Debug)]
//! struct Net {
//!     fc: Linear,
//! }
//!
//! let device = Device::flex();
//! let trained = Net { fc: LinearConfig::new(4, 4).init(&device) };
//! let probe = Probe::new(|model: &Net, x: Tensor<2>| model.fc.forward(x));
//! let input = Tensor::<2>::from_data([[1.0, -2.0, 0.5, 3.0], [0.25, 4.0, -1.0, 2.0]], &device);
//! let path = std::env::temp_dir().join(format!("guide-probe-{}.safetensors", std::process::id()));
//! let store = SafetensorsStore::from_file(&path).overwrite(true);
//! trained.save_into_checked_with_probe(&store, &probe, input)?;
//!
//! let mut served = Net { fc: LinearConfig::new(4, 4).init(&device) };
//! served.load_from_checked_with_probe(&SafetensorsStore::from_file(&path), &probe)?;
//!
//! // PyTorch's layout stated for a file burn wrote: the square weight is read transposed, its
//! // shape fits and its bytes are the ones hashed. The probe refuses it; `served` is untouched.
//! let wrong = SafetensorsStore::from_file(&path).layout(Layout::PyTorch);
//! let err = served.load_from_checked_with_probe(&wrong, &probe).unwrap_err();
//! // load_from: /tmp/guide-probe-….safetensors on dispatch<flex>: probe: outputs must agree
//! // with the reference device within the tolerance; got 8 of 8 elements apart on
//! // dispatch<flex> against the probe's output saved in the checkpoint (max abs …, max rel …)
//! assert_eq!(err.kind(), ErrorKind::Diverged);
//! assert_eq!(served.fc.weight.val().into_data(), trained.fc.weight.val().into_data());
//! std::fs::remove_file(&path).ok();
//! # Ok::<(), burn_guard::GuardError>(())
//! ```
//!
//! # Errors
//!
//! Every refusal comes inside [`GuardError::Checkpoint`](crate::GuardError::Checkpoint), which
//! names the operation (`load_file`, `load_record`, `load_from`), the file and the device;
//! `err.kind()` and `err.root()` look through it, `err.path()` gives the parameter. Inside:
//!
//! - one problem refuses as itself: [`ShapeMismatch`](crate::GuardError::ShapeMismatch),
//!   [`DTypeMismatch`](crate::GuardError::DTypeMismatch) (a tensor of the wrong kind, a cast
//!   the values do not survive), [`Missing`](crate::GuardError::Missing),
//!   [`Unused`](crate::GuardError::Unused),
//!   [`Unsupported`](crate::GuardError::Unsupported) (a dtype the device cannot hold),
//!   [`TooLarge`](crate::GuardError::TooLarge) / [`OutOfMemory`](crate::GuardError::OutOfMemory),
//!   [`NonFinite`](crate::GuardError::NonFinite) (the opt-in scan: the parameter and the count),
//!   [`KeyCollision`](crate::GuardError::KeyCollision) (two keys remapped to one name, both
//!   named), [`LayoutUnstated`](crate::GuardError::LayoutUnstated) (a square `Linear` weight);
//! - more than one refuses as [`LoadMismatch`](crate::GuardError::LoadMismatch): the missing
//!   parameters, the unused keys, each refused parameter's own error, and the renamings under
//!   which the unused keys would be the missing ones. `Display` shows the counts and the first
//!   names (about 80 characters of names); the fields hold every one;
//! - [`Store`](crate::GuardError::Store): the file cannot be opened or is not of its format.
//!
//! # What it costs
//!
//! | what | figure | measured by |
//! |---|---|---|
//! | `load_file_checked` beside burn's `try_load_file`, a 50 MB burnpack file on Flex | 0.996× | `benches/loading.rs` |
//! | the same with [`scan_non_finite(true)`](crate::store::LoadOptions::scan_non_finite) | 1.882× (every value read once more on the host) | `benches/loading.rs` |
//! | `load_record_checked` beside burn's in-memory `try_load_record` | 2.299× (the record is serialised once to be read: missed its target) | `benches/loading.rs` |
//! | `save_into_checked` beside burn-store's `save_into`, a 50 MB burnpack file | 1.048× (the fingerprint hashed on a second thread as the file is written; 1.244× with a pass of its own before) | `benches/loading.rs` |
//!
//! torchvision's ResNet-18 (an F16 SafeTensors file) loads into a burn ResNet-18 with the
//! strict defaults under `Layout::PyTorch` and gives PyTorch's logits; a ResNet-34 file is
//! refused under the same settings, in one line (`tests/real_models.rs`).
//!
//! From a record in memory the copy is the price: a `ModuleRecord` shows nothing of its
//! tensors but through its serialised form. A service loading from disk meets the file row.
//!
//! # What it does not catch
//!
//! - **Values that are wrong but finite.** A checkpoint of the right shapes from another
//!   training run, or a layout stated wrongly for a non-square weight whose shape happens to
//!   fit, loads: check the model's outputs on known inputs (the sentinel guide's canary). A
//!   probe saved with the file checks its own: it catches a file that does not compute what
//!   the model that wrote it computed, not a file of the wrong model.
//! - **NaN and ±inf, unless asked**: the scan is opt-in, as it reads every value.
//! - **burn's own loaders.** A raw `load_record`, `load_file` or burn-store `load_from`
//!   elsewhere in your code is not guarded: `lint/clippy.toml` lists them.
//! - **Ids**: a parameter takes the id the checkpoint stores for it, as in burn; an optimizer
//!   state saved against other ids is checked by `optim::TryOptimizerRecord` (feature
//!   `optim`), not here.
