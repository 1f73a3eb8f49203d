//! burn-guard's own burnpack, SafeTensors and PyTorch stores: built as burn-store's are (the
//! same constructors and builder names, `try_` where burn's builder panics), loaded through the
//! one checked engine.
//!
//! burn-store's stores keep their filter, adapter and load settings in private fields, so no
//! function that takes one can know what its `apply_to` will do; and their `apply_to` writes
//! every matching tensor before it validates, and aborts the process on a panic inside
//! (`AbortOnUnwind`). These stores use burn's only to read a checkpoint's index, and never hand
//! a model to burn-store.

use std::any::TypeId;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::store::{
    BurnpackStore as BurnBurnpackStore, KeyRemapper, ModuleAdapter, ModuleContext, ModuleStore,
    PathFilter, PyTorchToBurnAdapter, PytorchStore as BurnPytorchStore,
    SafetensorsStore as BurnSafetensorsStore, map_indices_contiguous_except,
};
use burn::tensor::{Bytes, Tensor, kind::Basic};
use burn_pack::Tensor as PackTensor;

use super::engine::{self, Checkpoint, Matching, Staged, store_error};
use super::fingerprint::{self, Fingerprint};
use super::options::{AllowUnused, DTypeChoice, LoadOptions};
use super::probe::{self, Probe};
use super::save::{self, SAVE_OP, SaveReport};
use super::{Format, Layout, LoadReport};
use crate::error::{GuardError, Result};

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::SafetensorsStore {}
    impl Sealed for super::PytorchStore {}
    impl Sealed for super::BurnpackStore {}
    impl<M: burn::module::Module> Sealed for M {}
}

/// A store a checked load reads: [`SafetensorsStore`], [`PytorchStore`], [`BurnpackStore`].
/// Sealed.
pub trait CheckedStore: sealed::Sealed {
    /// Fallible twin of burn-store's `ModuleStore::apply_to`: reads the checkpoint into
    /// `model`, all or nothing, and reports what it did.
    ///
    /// # Errors
    ///
    /// [`GuardError::Checkpoint`] around the refusal; see [`CheckedLoad`](super::CheckedLoad)
    /// for the refusals, and [`GuardError::KeyCollision`] and [`GuardError::LayoutUnstated`].
    #[doc(alias = "apply_to")]
    fn apply_to_checked<M: Module>(&self, model: &mut M) -> Result<LoadReport>;

    /// [`apply_to_checked`](Self::apply_to_checked), then `probe` run on the loaded copy, with
    /// the input the file's probe holds, before it replaces `model`: an output that is not the
    /// one saved with the file, within the probe's tolerance, refuses the load and leaves
    /// `model` as it was.
    ///
    /// # Errors
    ///
    /// As [`apply_to_checked`](Self::apply_to_checked), and inside [`GuardError::Checkpoint`]:
    /// [`GuardError::Diverged`] (op `probe`: the elements apart, the largest absolute and
    /// relative differences) for an output that differs; [`GuardError::InvalidArgument`] for a
    /// file without a probe (a PyTorch file never has one) or with an input the forward does
    /// not take; [`GuardError::ShapeMismatch`] for an output of another shape; a panic in the
    /// forward, caught.
    fn apply_to_checked_with_probe<M: Module>(
        &self,
        model: &mut M,
        probe: &Probe<'_, M>,
    ) -> Result<LoadReport>;
}

/// Fallible twin of burn-store's `ModuleSnapshot::load_from`. Sealed: implemented for every
/// `M: Module`. In the prelude (with the `store` feature).
pub trait CheckedSnapshot: Module + sealed::Sealed {
    /// `store.apply_to_checked(self)`: reads the store's checkpoint into the model, all or
    /// nothing.
    ///
    /// # Errors
    ///
    /// As [`CheckedStore::apply_to_checked`].
    #[doc(alias = "load_from")]
    fn load_from_checked<S: CheckedStore>(&mut self, store: &S) -> Result<LoadReport> {
        store.apply_to_checked(self)
    }

    /// `store.apply_to_checked_with_probe(self, probe)`: reads the store's checkpoint into the
    /// model, all or nothing, and runs the file's probe on the loaded copy before it is swapped
    /// in.
    ///
    /// # Errors
    ///
    /// As [`CheckedStore::apply_to_checked_with_probe`].
    fn load_from_checked_with_probe<S: CheckedStore>(
        &mut self,
        store: &S,
        probe: &Probe<'_, Self>,
    ) -> Result<LoadReport> {
        store.apply_to_checked_with_probe(self, probe)
    }

    /// Fallible twin of burn-store's `ModuleSnapshot::save_into`:
    /// `store.collect_from_checked(self)` writes the model to the store's file with its
    /// fingerprint ([`CheckedSave`]).
    ///
    /// ```
    /// use burn::nn::{Linear, LinearConfig};
    /// use burn::tensor::Device;
    /// use burn_guard::prelude::*;
    /// use burn_guard::store::SafetensorsStore;
    ///
    /// let path = std::env::temp_dir().join(format!("burn-guard-save-into-{}.safetensors", std::process::id()));
    /// let model: Linear = LinearConfig::new(2, 2).init(&Device::flex());
    /// model.save_into_checked(&SafetensorsStore::from_file(&path).overwrite(true))?;
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`CheckedSave::collect_from_checked`].
    #[doc(alias = "save_into")]
    fn save_into_checked<S: CheckedSave>(&self, store: &S) -> Result<SaveReport> {
        store.collect_from_checked(self)
    }

    /// `store.collect_from_checked_with_probe(self, probe, input)`: writes the model with its
    /// fingerprint, and `input` with the model's output on it ([`Probe`]).
    ///
    /// # Errors
    ///
    /// As [`CheckedSave::collect_from_checked_with_probe`].
    fn save_into_checked_with_probe<S: CheckedSave, const D: usize, K: Basic>(
        &self,
        store: &S,
        probe: &Probe<'_, Self>,
        input: Tensor<D, K>,
    ) -> Result<SaveReport> {
        store.collect_from_checked_with_probe(self, probe, input)
    }
}

impl<M: Module> CheckedSnapshot for M {}

/// A store a checked save writes: [`SafetensorsStore`] and [`BurnpackStore`] built with
/// `from_file`. Sealed.
///
/// The save writes as burn-store's store does, burn's atomic write kept (a scratch file beside
/// the destination, synced, then renamed onto it: a save that fails or is killed leaves the old
/// file as it was), with one more metadata entry, `burn_guard.fingerprint`: a JSON object of
/// every tensor's key to the 64-bit content hash of its bytes (16 hex digits). Every checked
/// load of the file hashes each tensor's bytes as it reads them and refuses one that differs,
/// naming the parameter. A burnpack file is written by burn-pack's own writer into its own
/// scratch file, each tensor drawn once and hashed on a second thread while it is written (at
/// most two tensors drawn at once); a SafeTensors file goes through burn-store's
/// `SafetensorsStore`, which takes its metadata before it draws a tensor and publishes the file
/// itself, so its fingerprint costs one more read of every tensor before the save.
///
/// A [`Probe`] saved with the file
/// ([`collect_from_checked_with_probe`](Self::collect_from_checked_with_probe)) is re-run by a
/// load given the same probe, and catches what neither the shapes nor the fingerprint see: a
/// tensor whose values are in another order, written so or read so.
///
/// ```
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::Device;
/// use burn_guard::prelude::*;
/// use burn_guard::store::{BurnpackStore, CheckedSave};
///
/// let dir = std::env::temp_dir().join(format!("burn-guard-checked-save-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("fc.bpk");
/// let device = Device::flex();
/// let trained: Linear = LinearConfig::new(3, 4).init(&device);
/// let report = BurnpackStore::from_file(&path).overwrite(true).collect_from_checked(&trained)?;
/// assert_eq!(report.tensors, 2);
///
/// let mut served: Linear = LinearConfig::new(3, 4).init(&device);
/// served.load_from_checked(&BurnpackStore::from_file(&path))?;
/// assert_eq!(served.weight.val().into_data(), trained.weight.val().into_data());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub trait CheckedSave: sealed::Sealed {
    /// Fallible twin of burn-store's `ModuleStore::collect_from`: writes `model` to the
    /// store's file with its fingerprint.
    ///
    /// # Errors
    ///
    /// [`GuardError::Checkpoint`] (naming the file and the model's device) around:
    /// [`GuardError::InvalidArgument`] for a store built `from_bytes` or an existing file
    /// without [`overwrite(true)`](SafetensorsStore::overwrite);
    /// [`GuardError::DeviceUnavailable`] for a quarantined, tainted or poisoned device;
    /// [`GuardError::Store`] for burn's write error; a panic inside burn, caught.
    #[doc(alias = "collect_from")]
    #[doc(alias = "save_into")]
    fn collect_from_checked<M: Module>(&self, model: &M) -> Result<SaveReport>;

    /// [`collect_from_checked`](Self::collect_from_checked), with a probe in the file's
    /// metadata (`burn_guard.probe`): `input` and the output `probe` gives for it on `model`,
    /// run before anything is written. A checked load given the same probe
    /// ([`CheckedStore::apply_to_checked_with_probe`]) runs it on the loaded model and refuses
    /// another output.
    ///
    /// # Errors
    ///
    /// As [`collect_from_checked`](Self::collect_from_checked), and inside
    /// [`GuardError::Checkpoint`]: [`GuardError::InvalidArgument`] for an input of another rank
    /// or kind than the forward takes, an input or output over 1 MiB, or an output of bools;
    /// a panic in the forward, caught. Nothing is written then.
    fn collect_from_checked_with_probe<M: Module, const D: usize, K: Basic>(
        &self,
        model: &M,
        probe: &Probe<'_, M>,
        input: Tensor<D, K>,
    ) -> Result<SaveReport>;
}

/// The builder a store a checked save writes has beyond loading's.
macro_rules! save_builders {
    ($store:ident) => {
        impl $store {
            /// Whether a checked save may replace an existing file (burn's `overwrite`;
            /// `false` by default, as burn's).
            #[must_use]
            pub fn overwrite(mut self, overwrite: bool) -> Self {
                self.settings.overwrite = overwrite;
                self
            }

            /// The path a checked save writes, or its refusal for a store in memory.
            fn save_path(&self) -> Result<&Path> {
                match &self.source {
                    Source::File(path) => Ok(path),
                    Source::Memory(_) => Err(GuardError::Checkpoint {
                        op: SAVE_OP,
                        file: "<bytes>".to_owned(),
                        device: "no device".to_owned(),
                        inner: Box::new(GuardError::InvalidArgument {
                            op: SAVE_OP,
                            rule: "a checked save writes a file: build the store with `from_file`",
                            got: "a store built `from_bytes`".to_owned(),
                        }),
                    }),
                }
            }
        }
    };
}

/// A store's [`CheckedSave`]: a checked save of its file in its format.
macro_rules! save_impls {
    ($store:ident, $format:expr) => {
        impl CheckedSave for $store {
            fn collect_from_checked<M: Module>(&self, model: &M) -> Result<SaveReport> {
                let path = self.save_path()?;
                save::save(model, $format, path, self.settings.overwrite, || Ok(None))
            }

            fn collect_from_checked_with_probe<M: Module, const D: usize, K: Basic>(
                &self,
                model: &M,
                probe: &Probe<'_, M>,
                input: Tensor<D, K>,
            ) -> Result<SaveReport> {
                let path = self.save_path()?;
                save::save(model, $format, path, self.settings.overwrite, || {
                    probe::record(model, probe, input).map(Some)
                })
            }
        }
    };
}

/// The settings every store shares: how keys are renamed, which parameters load, how tensors
/// are adapted, and the checked load's choices.
struct Settings {
    filter: Option<PathFilter>,
    remapper: KeyRemapper,
    adapter: Option<Box<dyn ModuleAdapter>>,
    skip_enum_variants: bool,
    map_indices_contiguous: bool,
    keep_indices: PathFilter,
    layout: Option<Layout>,
    options: LoadOptions,
    /// Whether a checked save may replace an existing file.
    overwrite: bool,
}

impl Settings {
    fn new(skip_enum_variants: bool, map_indices_contiguous: bool) -> Self {
        Self {
            filter: None,
            remapper: KeyRemapper::new(),
            adapter: None,
            skip_enum_variants,
            map_indices_contiguous,
            keep_indices: PathFilter::new(),
            layout: None,
            options: LoadOptions::new(),
            overwrite: false,
        }
    }

    /// Renames the checkpoint's keys as burn's stores do (the remapper, then the contiguous
    /// index mapping), keeping `(file key, name)` for every key renamed and every name, so
    /// that two keys sent to one name are refused rather than collapsed.
    fn rename(&self, tensors: Vec<PackTensor>) -> (Vec<PackTensor>, Vec<(String, String)>) {
        let originals: Vec<String> = tensors.iter().map(|t| t.name.clone()).collect();
        let (mut tensors, _) = if self.remapper.is_empty() {
            (tensors, Vec::new())
        } else {
            self.remapper.remap(tensors)
        };
        if self.map_indices_contiguous {
            let keep = &self.keep_indices;
            tensors = map_indices_contiguous_except(tensors, |prefix| keep.matches(prefix)).0;
        }
        // Both renamings keep the order of the tensors, so the i-th name is the i-th key's.
        let remapped = originals
            .into_iter()
            .zip(&tensors)
            .filter(|(from, t)| *from != t.name)
            .map(|(from, t)| (from, t.name.clone()))
            .collect();
        (tensors, remapped)
    }

    /// `index`, read from `file` (in `format`), renamed by these settings and loaded into
    /// `model` through the engine; `probe`, when given, run on the loaded copy with the input
    /// the file's probe holds before the copy is swapped in.
    fn load<M: Module>(
        &self,
        model: &mut M,
        format: Format,
        file: String,
        index: Index,
        probe: Option<&Probe<'_, M>>,
    ) -> Result<LoadReport> {
        // The file's probe is read only when a probe is given: other loads ignore it.
        let saved = match probe {
            None => None,
            Some(probe) => probe::from_metadata(LOAD_OP, index.probe.as_deref())
                .and_then(|saved| saved.ok_or_else(|| probe::none_saved(LOAD_OP)))
                .map(|saved| (probe, saved))
                .map(Some)
                .map_err(|e| wrap(LOAD_OP, &file, model, e))?,
        };
        let verify = |loaded: &M| match &saved {
            Some((probe, saved)) => probe::verify(probe, saved, loaded),
            None => Ok(()),
        };
        let staged = saved.is_some().then_some(&verify as Staged<'_, M>);
        let Index {
            tensors,
            producer,
            fingerprint,
            ..
        } = index;
        let (tensors, remapped) = self.rename(tensors);
        let checkpoint = Checkpoint {
            op: LOAD_OP,
            format,
            file,
            producer,
            tensors,
            remapped,
            ids: true,
            fingerprint,
        };
        let adapter = self.adapter.as_deref();
        let alternative = |name: &str, module_type: &str| {
            adapter.and_then(|a| a.get_alternative_param_name(name, module_type))
        };
        let adapt = |tensor: PackTensor, containers: &[String]| match adapter {
            Some(a) => a.adapt(tensor, ModuleContext::new(containers)),
            None => tensor,
        };
        let filter = self.filter.as_ref();
        let keep = |path: &[String], containers: &[String]| {
            filter.is_none_or(|f| f.matches_with_container_path(path, containers))
        };
        let matching = Matching {
            alternative: Some(&alternative),
            adapt: Some(&adapt),
            keep: Some(&keep),
            skip_enum_variants: self.skip_enum_variants,
            layout: self.layout,
        };
        engine::load(model, checkpoint, &matching, &self.options, staged)
    }
}

/// The builder methods every store shares, with burn's names; `try_` where burn's panics.
macro_rules! shared_builders {
    ($store:ident) => {
        impl $store {
            /// Loads only the parameters `filter` matches (burn's `filter`); the others keep
            /// their values and the report says so.
            #[must_use]
            pub fn filter(mut self, filter: PathFilter) -> Self {
                self.settings.filter = Some(filter);
                self
            }

            /// Fallible twin of burn's `with_regex`: also loads the parameters whose path
            /// matches `pattern`.
            ///
            /// # Errors
            ///
            /// [`GuardError::InvalidArgument`] when `pattern` is not a valid regular
            /// expression (burn's panics).
            #[doc(alias = "with_regex")]
            pub fn try_with_regex(mut self, pattern: impl AsRef<str>) -> Result<Self> {
                crate::check::load::regex("with_regex", pattern.as_ref())?;
                let filter = self.settings.filter.take().unwrap_or_default();
                self.settings.filter = Some(filter.with_regex(pattern));
                Ok(self)
            }

            /// Also loads the parameter at `path` (burn's `with_full_path`).
            #[must_use]
            pub fn with_full_path(mut self, path: impl Into<String>) -> Self {
                let filter = self.settings.filter.take().unwrap_or_default();
                self.settings.filter = Some(filter.with_full_path(path.into()));
                self
            }

            /// Renames the checkpoint's keys with `remapper` before matching (burn's `remap`).
            #[must_use]
            pub fn remap(mut self, remapper: KeyRemapper) -> Self {
                self.settings.remapper = remapper;
                self
            }

            /// Fallible twin of burn's `with_key_remapping` (`with_remap_pattern` on a
            /// `BurnpackStore`): renames the keys matching `from` to `to` (`$1` for groups).
            ///
            /// # Errors
            ///
            /// [`GuardError::InvalidArgument`] when `from` is not a valid regular expression
            /// (burn's panics).
            #[doc(alias = "with_key_remapping")]
            #[doc(alias = "with_remap_pattern")]
            pub fn try_with_key_remapping(
                mut self,
                from: impl AsRef<str>,
                to: impl AsRef<str>,
            ) -> Result<Self> {
                let remapper = std::mem::take(&mut self.settings.remapper);
                match remapper.add_pattern(from.as_ref(), to.as_ref()) {
                    Ok(remapper) => {
                        self.settings.remapper = remapper;
                        Ok(self)
                    }
                    Err(err) => Err(GuardError::InvalidArgument {
                        op: "with_key_remapping",
                        rule: "the pattern must be a valid regular expression",
                        got: format!("pattern={:?} ({err})", from.as_ref()),
                    }),
                }
            }

            /// Accept checkpoint keys no parameter takes, all (`true`) or those matching
            /// patterns (`["aux_logits.*"]`, see [`AllowUnused`]); refused by default
            /// (burn-store never refuses them, burn-core does).
            #[must_use]
            pub fn allow_unused(mut self, allow: impl Into<AllowUnused>) -> Self {
                self.settings.options = self.settings.options.allow_unused(allow);
                self
            }

            setters! {
                /// Accept a checkpoint that lacks some parameters (burn's `allow_partial`).
                pub fn allow_partial(allow: bool) => via settings.options;

                /// `false`: a tensor of the wrong shape or kind leaves its parameter as it was, and
                /// the report says why (burn's `validate(false)`, which says nothing).
                pub fn validate(validate: bool) => via settings.options;

                /// Keep the model's dtypes (the default) or adopt the checkpoint's.
                pub fn dtype(choice: DTypeChoice) => via settings.options;

                /// Refuse a checkpoint holding NaN or ±inf, before anything is written.
                pub fn scan_non_finite(scan: bool) => via settings.options;
            }
        }
    };
}

/// The builders of the stores whose adapter and layout the caller chooses.
macro_rules! adapter_builders {
    ($store:ident) => {
        impl $store {
            /// Adapts each tensor on its way in (burn's `with_from_adapter`). A
            /// [`PyTorchToBurnAdapter`] states [`Layout::PyTorch`].
            #[must_use]
            pub fn with_from_adapter(mut self, adapter: impl ModuleAdapter + 'static) -> Self {
                if type_id_of(&adapter) == TypeId::of::<PyTorchToBurnAdapter>() {
                    self.settings.layout = Some(Layout::PyTorch);
                }
                self.settings.adapter = Some(Box::new(adapter));
                self
            }

            /// States the layout of the file's 2-D `Linear` weights. [`Layout::PyTorch`]
            /// reads them through [`PyTorchToBurnAdapter`] when no adapter was given.
            #[must_use]
            pub fn layout(mut self, layout: Layout) -> Self {
                if layout == Layout::PyTorch && self.settings.adapter.is_none() {
                    self.settings.adapter = Some(Box::new(PyTorchToBurnAdapter));
                }
                self.settings.layout = Some(layout);
                self
            }
        }
    };
}

fn type_id_of<T: 'static>(_: &T) -> TypeId {
    TypeId::of::<T>()
}

/// The builders of the stores that can renumber list indices.
macro_rules! index_builders {
    ($store:ident) => {
        impl $store {
            /// Renumber list indices contiguously (`fc.0`, `fc.2` → `fc.0`, `fc.1`) before
            /// matching (burn's `map_indices_contiguous`).
            #[must_use]
            pub fn map_indices_contiguous(mut self, map: bool) -> Self {
                self.settings.map_indices_contiguous = map;
                self
            }

            /// Fallible twin of burn's `map_indices_contiguous_except`: keeps the indices under
            /// the prefixes `pattern` matches.
            ///
            /// # Errors
            ///
            /// [`GuardError::InvalidArgument`] when `pattern` is not a valid regular expression
            /// (burn's panics).
            #[doc(alias = "map_indices_contiguous_except")]
            pub fn try_map_indices_contiguous_except(
                mut self,
                pattern: impl AsRef<str>,
            ) -> Result<Self> {
                crate::check::load::regex("map_indices_contiguous_except", pattern.as_ref())?;
                let keep = std::mem::take(&mut self.settings.keep_indices);
                self.settings.keep_indices = keep.with_regex(pattern);
                Ok(self)
            }

            /// Leave enum variant names out of the paths (burn's `skip_enum_variants`).
            #[must_use]
            pub fn skip_enum_variants(mut self, skip: bool) -> Self {
                self.settings.skip_enum_variants = skip;
                self
            }
        }
    };
}

enum Source {
    File(PathBuf),
    Memory(Vec<u8>),
}

impl Source {
    fn name(&self) -> String {
        match self {
            Self::File(path) => path.display().to_string(),
            Self::Memory(_) => "<bytes>".to_owned(),
        }
    }
}

// ---------------------------------------------------------------- SafeTensors

/// A SafeTensors checkpoint, loaded checked: the twin of burn-store's `SafetensorsStore` for
/// loading. A square `Linear` weight from a file burn did not write (its `__metadata__` names
/// no `producer: burn`) needs [`layout`](Self::layout).
///
/// ```
/// use burn::module::Module;
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::Device;
/// use burn_guard::prelude::*;
/// use burn_guard::store::{Layout, SafetensorsStore};
///
/// #[derive(Module, Debug)]
/// struct Net {
///     fc: Linear,
/// }
///
/// // What Python's `safetensors.numpy.save_file` writes for `fc` = `torch.nn.Linear(4, 4)`:
/// // `fc.weight` in PyTorch's [out, in] layout, no `__metadata__` naming burn.
/// let header = r#"{"fc.weight":{"dtype":"F32","shape":[4,4],"data_offsets":[0,64]},"fc.bias":{"dtype":"F32","shape":[4],"data_offsets":[64,80]}}"#;
/// let mut file = (header.len() as u64).to_le_bytes().to_vec();
/// file.extend(header.as_bytes());
/// file.extend((0..20).flat_map(|i| (i as f32 / 8.0).to_le_bytes()));
/// let device = Device::flex();
/// let mut model = Net { fc: LinearConfig::new(4, 4).init(&device) };
///
/// // Square: burn would load it transposed without a word. Refused until the layout is stated.
/// let err = model.load_from_checked(&SafetensorsStore::from_bytes(Some(file.clone()))).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::LayoutUnstated);
///
/// let store = SafetensorsStore::from_bytes(Some(file)).layout(Layout::PyTorch);
/// let report = model.load_from_checked(&store)?;
/// assert_eq!(report.loaded().count(), 2);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub struct SafetensorsStore {
    source: Source,
    settings: Settings,
}

impl SafetensorsStore {
    /// The SafeTensors file at `path`.
    pub fn from_file(path: impl Into<PathBuf>) -> Self {
        Self {
            source: Source::File(path.into()),
            settings: Settings::new(false, false),
        }
    }

    /// A SafeTensors file in memory (burn's `from_bytes`; `None` is an empty store, refused
    /// when loaded).
    pub fn from_bytes(bytes: Option<Vec<u8>>) -> Self {
        Self {
            source: Source::Memory(bytes.unwrap_or_default()),
            settings: Settings::new(false, false),
        }
    }

    /// The checkpoint's index, its producer, its fingerprint and its probe's record.
    fn read(&self) -> Result<Index> {
        let (mut burn, header) = match &self.source {
            Source::File(path) => (
                BurnSafetensorsStore::from_file(path),
                safetensors_header_of_file(path),
            ),
            Source::Memory(bytes) => (
                BurnSafetensorsStore::from_bytes(Some(bytes.clone())),
                Ok(safetensors_header(bytes)),
            ),
        };
        let tensors = all_tensors(&mut burn)?;
        let header = header?;
        let fingerprint =
            fingerprint::from_metadata(LOAD_OP, metadata_of(&header, fingerprint::KEY).as_deref())?;
        Ok(Index {
            tensors,
            producer: producer_of(&header),
            fingerprint,
            probe: metadata_of(&header, probe::KEY),
        })
    }
}

/// What a checked load reads of a SafeTensors or burnpack file before planning: its index (no
/// data yet) and its metadata.
struct Index {
    tensors: Vec<PackTensor>,
    producer: Option<String>,
    fingerprint: Option<Fingerprint>,
    /// The probe's record, read only by a load that verifies a probe.
    probe: Option<String>,
}

/// The JSON header of a SafeTensors buffer: 8 bytes of little-endian length, then the JSON
/// (`None` when it cannot be read; burn's reader then says why).
fn safetensors_header(bytes: &[u8]) -> Option<String> {
    let len = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
    let end = usize::try_from(len).ok()?.checked_add(8)?;
    String::from_utf8(bytes.get(8..end)?.to_vec()).ok()
}

/// The same, read from the file's first bytes only (the data stays on disk).
fn safetensors_header_of_file(path: &Path) -> Result<Option<String>> {
    // The format caps its header at 100 MB; burn's reader refuses a larger one.
    const MAX_HEADER: u64 = 100_000_000;
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok(None);
    };
    let mut len = [0u8; 8];
    if file.read_exact(&mut len).is_err() {
        return Ok(None);
    }
    let len = u64::from_le_bytes(len);
    if len > MAX_HEADER {
        return Ok(None);
    }
    let mut header = Vec::new();
    let read = file.take(len).read_to_end(&mut header);
    Ok(read.ok().and_then(|_| String::from_utf8(header).ok()))
}

/// `__metadata__.producer` of a SafeTensors header.
fn producer_of(header: &Option<String>) -> Option<String> {
    metadata_of(header, "producer")
}

/// `__metadata__.<key>` of a SafeTensors header.
fn metadata_of(header: &Option<String>, key: &str) -> Option<String> {
    let json: serde_json::Value = serde_json::from_str(header.as_deref()?).ok()?;
    json.get("__metadata__")?
        .get(key)?
        .as_str()
        .map(str::to_owned)
}

shared_builders!(SafetensorsStore);
adapter_builders!(SafetensorsStore);
index_builders!(SafetensorsStore);
save_builders!(SafetensorsStore);

save_impls!(SafetensorsStore, Format::Safetensors);

impl SafetensorsStore {
    fn apply<M: Module>(&self, model: &mut M, probe: Option<&Probe<'_, M>>) -> Result<LoadReport> {
        let file = self.source.name();
        let index = self.read().map_err(|e| wrap(LOAD_OP, &file, model, e))?;
        self.settings
            .load(model, Format::Safetensors, file, index, probe)
    }
}

impl CheckedStore for SafetensorsStore {
    fn apply_to_checked<M: Module>(&self, model: &mut M) -> Result<LoadReport> {
        self.apply(model, None)
    }

    fn apply_to_checked_with_probe<M: Module>(
        &self,
        model: &mut M,
        probe: &Probe<'_, M>,
    ) -> Result<LoadReport> {
        self.apply(model, Some(probe))
    }
}

/// The op a checked load's errors name (burn-store's `load_from`).
const LOAD_OP: &str = "load_from";

/// Every tensor burn-store's `store` reads from its checkpoint (its index: no data yet).
fn all_tensors<S>(store: &mut S) -> Result<Vec<PackTensor>>
where
    S: ModuleStore,
    S::Error: std::error::Error + Send + Sync + 'static,
{
    match store.get_all_tensors() {
        Ok(tensors) => Ok(tensors.values().cloned().collect()),
        Err(e) => Err(store_error(LOAD_OP, e)),
    }
}

fn wrap<M: Module>(op: &'static str, file: &str, model: &M, err: GuardError) -> GuardError {
    GuardError::Checkpoint {
        op,
        file: file.to_owned(),
        device: engine::model_device(model),
        inner: Box::new(err),
    }
}

// ---------------------------------------------------------------- PyTorch

/// A PyTorch checkpoint (`.pt`, `.pth`), loaded checked: the twin of burn-store's
/// `PytorchStore` for loading. As burn's, it always reads through [`PyTorchToBurnAdapter`]
/// (PyTorch's layout is stated by the format), leaves enum variants out of paths and renumbers
/// list indices contiguously.
pub struct PytorchStore {
    path: PathBuf,
    top_level_key: Option<String>,
    settings: Settings,
}

impl PytorchStore {
    /// The PyTorch checkpoint at `path`.
    pub fn from_file(path: impl Into<PathBuf>) -> Self {
        let mut settings = Settings::new(true, true);
        settings.adapter = Some(Box::new(PyTorchToBurnAdapter));
        settings.layout = Some(Layout::PyTorch);
        Self {
            path: path.into(),
            top_level_key: None,
            settings,
        }
    }

    /// Reads the state dict under `key` of a checkpoint dict (`model_state_dict`), as burn's
    /// `with_top_level_key`.
    #[must_use]
    pub fn with_top_level_key(mut self, key: impl Into<String>) -> Self {
        self.top_level_key = Some(key.into());
        self
    }
}

shared_builders!(PytorchStore);
index_builders!(PytorchStore);

impl CheckedStore for PytorchStore {
    fn apply_to_checked<M: Module>(&self, model: &mut M) -> Result<LoadReport> {
        let file = self.path.display().to_string();
        let mut burn = BurnPytorchStore::from_file(&self.path).map_indices_contiguous(false);
        if let Some(key) = &self.top_level_key {
            burn = burn.with_top_level_key(key.clone());
        }
        let tensors = all_tensors(&mut burn).map_err(|e| wrap(LOAD_OP, &file, model, e))?;
        let index = Index {
            tensors,
            producer: None,
            fingerprint: None,
            probe: None,
        };
        self.settings
            .load(model, Format::Pytorch, file, index, None)
    }

    fn apply_to_checked_with_probe<M: Module>(
        &self,
        model: &mut M,
        _probe: &Probe<'_, M>,
    ) -> Result<LoadReport> {
        let file = self.path.display().to_string();
        Err(wrap(LOAD_OP, &file, model, probe::none_saved(LOAD_OP)))
    }
}

// ---------------------------------------------------------------- burnpack

/// A burnpack checkpoint, loaded checked: the twin of burn-store's `BurnpackStore` for loading
/// (burnpack is burn's own format: no layout to state).
pub struct BurnpackStore {
    source: Source,
    settings: Settings,
}

impl BurnpackStore {
    /// The burnpack file at `path` (`.bpk` appended to a path without an extension, as burn's
    /// does).
    pub fn from_file(path: impl AsRef<Path>) -> Self {
        let path = path.as_ref();
        let path = if path.extension().is_none() {
            path.with_extension(burn_pack::EXTENSION)
        } else {
            path.to_path_buf()
        };
        let mut settings = Settings::new(false, false);
        settings.layout = Some(Layout::Burn);
        Self {
            source: Source::File(path),
            settings,
        }
    }

    /// A burnpack in memory.
    pub fn from_bytes(bytes: Option<Bytes>) -> Self {
        let mut settings = Settings::new(false, false);
        settings.layout = Some(Layout::Burn);
        let bytes = bytes.map(|b| b.to_vec()).unwrap_or_default();
        Self {
            source: Source::Memory(bytes),
            settings,
        }
    }

    /// Adapts each tensor on its way in (burn's `with_from_adapter`).
    #[must_use]
    pub fn with_from_adapter(mut self, adapter: impl ModuleAdapter + 'static) -> Self {
        self.settings.adapter = Some(Box::new(adapter));
        self
    }
}

shared_builders!(BurnpackStore);
save_builders!(BurnpackStore);

save_impls!(BurnpackStore, Format::Burnpack);

impl BurnpackStore {
    /// The fingerprint and the probe's record the burnpack's metadata holds (its header only
    /// is read).
    fn metadata(&self) -> Result<(Option<Fingerprint>, Option<String>)> {
        let reader = match &self.source {
            Source::File(path) => burn_pack::Reader::from_file_exact(path),
            Source::Memory(bytes) => {
                burn_pack::Reader::from_bytes(Bytes::from_bytes_vec(bytes.clone()))
            }
        }
        .map_err(|e| store_error(LOAD_OP, e))?;
        let value = reader.metadata().get(fingerprint::KEY);
        let fingerprint = fingerprint::from_metadata(LOAD_OP, value.map(String::as_str))?;
        Ok((fingerprint, reader.metadata().get(probe::KEY).cloned()))
    }

    fn apply<M: Module>(&self, model: &mut M, probe: Option<&Probe<'_, M>>) -> Result<LoadReport> {
        let file = self.source.name();
        let mut burn = match &self.source {
            Source::File(path) => BurnBurnpackStore::from_file(path).auto_extension(false),
            Source::Memory(bytes) => {
                BurnBurnpackStore::from_bytes(Some(Bytes::from_bytes_vec(bytes.clone())))
            }
        };
        let tensors = all_tensors(&mut burn).map_err(|e| wrap(LOAD_OP, &file, model, e))?;
        let (fingerprint, saved_probe) = self
            .metadata()
            .map_err(|e| wrap(LOAD_OP, &file, model, e))?;
        let index = Index {
            tensors,
            producer: Some("burn".to_owned()),
            fingerprint,
            probe: saved_probe,
        };
        self.settings
            .load(model, Format::Burnpack, file, index, probe)
    }
}

impl CheckedStore for BurnpackStore {
    fn apply_to_checked<M: Module>(&self, model: &mut M) -> Result<LoadReport> {
        self.apply(model, None)
    }

    fn apply_to_checked_with_probe<M: Module>(
        &self,
        model: &mut M,
        probe: &Probe<'_, M>,
    ) -> Result<LoadReport> {
        self.apply(model, Some(probe))
    }
}
