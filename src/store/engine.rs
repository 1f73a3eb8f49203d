//! The one loading engine behind every checked load: plan against the model without writing
//! anything, check every parameter, then write them all into a clone and swap it in.
//!
//! burn's loaders write as they go and validate afterwards (burn-core's
//! `ModuleRecord::apply`, burn-store's `Applier` inside `ModuleSnapshot::apply`, which aborts the
//! process on a panic). This engine walks the model twice instead:
//!
//! 1. [`Planner`], a `ModuleVisitor` over `&model`, resolves each parameter's tensor the way
//!    burn-store's `Applier::apply_tensor` does (the path, then the adapter's alternative name;
//!    the adapter; the filter), and decides: load (with the dtype it ends in), kept, missing, or
//!    refused. It reads no tensor data unless the non-finite scan is on.
//! 2. Everything is checked: collisions, kinds, shapes, layout, dtypes, bytes, missing, unused.
//! 3. [`Writer`], a `ModuleMapper` over a copy that shares no `RunningState` with the model
//!    ([`detached`]), writes the planned tensors; a check of the loaded copy (a probe's
//!    forward) runs on it. Only then is the copy swapped in: on `Err` the caller's model, and
//!    every clone of it, is as it was.

use std::collections::{BTreeMap, HashMap};

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param, ParamId, Parameter};
use burn::tensor::{Bool, DType, Device, Int, Tensor, TensorData, kind::Basic};
use burn_pack::Tensor as PackTensor;

use super::Layout;
use super::fingerprint::{self, Fingerprint};
use super::options::{DTypeChoice, LoadOptions};
use super::report::{Format, KeptReason, LoadOutcome, LoadReport, ParamLoad};
use crate::check::load::{self as rules, ParamKind as Kind};
use crate::error::{GuardError, Result};
use crate::panic::catch;
use crate::params::detach::detached;
use crate::params::walk::bytes_of;

/// A checkpoint read as far as its index: every tensor's name (after key remapping), dtype and
/// shape, with its data still in the file or buffer.
pub(crate) struct Checkpoint {
    pub(crate) op: &'static str,
    pub(crate) format: Format,
    /// The path as opened, or `<record>` / `<bytes>`.
    pub(crate) file: String,
    pub(crate) producer: Option<String>,
    pub(crate) tensors: Vec<PackTensor>,
    /// `(file key, name)` for each key remapping renamed.
    pub(crate) remapped: Vec<(String, String)>,
    /// Whether a persisted parameter id in the checkpoint replaces the model's (burn keeps the
    /// model's when the checkpoint has none).
    pub(crate) ids: bool,
    /// The fingerprint a checked save stored in the file: every tensor read is verified
    /// against it.
    pub(crate) fingerprint: Option<Fingerprint>,
}

impl Checkpoint {
    /// The error for `inner` in this checkpoint, on the model's device.
    pub(crate) fn refusal(&self, device: &str, inner: GuardError) -> GuardError {
        GuardError::Checkpoint {
            op: self.op,
            file: self.file.clone(),
            device: device.to_owned(),
            inner: Box::new(inner),
        }
    }

    /// The key the file itself gives `name` (before key remapping).
    fn file_key(&self, name: &str) -> String {
        self.remapped
            .iter()
            .find(|(_, to)| to == name)
            .map_or_else(|| name.to_owned(), |(from, _)| from.clone())
    }
}

/// An adapter's alternative name for a parameter (`gamma` → `weight` in a norm layer).
pub(crate) type AlternativeName<'a> = &'a dyn Fn(&str, &str) -> Option<String>;
/// An adapter: the tensor renamed to the parameter's path, and the container stack.
pub(crate) type Adapt<'a> = &'a dyn Fn(PackTensor, &[String]) -> PackTensor;
/// A filter: the parameter's path segments and the container stack.
pub(crate) type Keep<'a> = &'a dyn Fn(&[String], &[String]) -> bool;

/// How tensors find their parameters: burn-store's adapter, filter and enum skipping. The
/// burn-core paths use none of them.
#[derive(Default)]
pub(crate) struct Matching<'a> {
    pub(crate) alternative: Option<AlternativeName<'a>>,
    pub(crate) adapt: Option<Adapt<'a>>,
    pub(crate) keep: Option<Keep<'a>>,
    pub(crate) skip_enum_variants: bool,
    /// The layout of the file's `Linear` weights, stated by the caller or implied by the
    /// store (`None`: unstated).
    pub(crate) layout: Option<Layout>,
}

/// What the load will do to one parameter.
enum Decision {
    Load {
        source: String,
        tensor: Option<PackTensor>,
        /// The data, when the scan already read it.
        data: Option<Box<TensorData>>,
        file_dtype: DType,
        target: DType,
        id: Option<u64>,
        /// What the fingerprint holds for the tensor, when the file carries one.
        expected: Option<Box<Expected>>,
    },
    Filtered {
        source: String,
        file_dtype: Option<DType>,
    },
    Missing,
    /// The checkpoint's tensor was refused (the load itself is refused).
    Refused,
    Mismatch {
        source: String,
        file_dtype: DType,
        refusal: String,
    },
}

/// A tensor's hash in the checkpoint's fingerprint, checked when its bytes are read.
struct Expected {
    /// The key the file gives the tensor.
    key: String,
    hash: u64,
    /// The tensor as the file holds it, when an adapter may change the bytes on their way
    /// in: those are read and hashed on their own.
    raw: Option<PackTensor>,
}

struct Entry {
    path: String,
    shape: Vec<usize>,
    device: Device,
    /// The dtype the parameter has now (the device's default for its kind when lazy).
    dtype: DType,
    kind: Kind,
    decision: Decision,
}

/// A check of the loaded copy before it is swapped in (a probe's forward).
pub(crate) type Staged<'a, M> = &'a dyn Fn(&M) -> Result<()>;

/// Loads `checkpoint` into `model`, all or nothing; `staged`, when given, checks the loaded
/// copy before it replaces `model`.
pub(crate) fn load<M: Module>(
    model: &mut M,
    checkpoint: Checkpoint,
    matching: &Matching<'_>,
    options: &LoadOptions,
    staged: Option<Staged<'_, M>>,
) -> Result<LoadReport> {
    let device = model_device(model);
    let refuse = |checkpoint: &Checkpoint, err: GuardError| checkpoint.refusal(&device, err);

    // Two keys sent to one name: burn's stores keep one, by the order of a hash map.
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for tensor in &checkpoint.tensors {
        *names.entry(tensor.name.as_str()).or_default() += 1;
    }
    if let Some((name, count)) = names.iter().find(|(_, count)| **count > 1) {
        // The keys renamed to `name`, and `name` itself when a key already had it.
        let mut sources: Vec<String> = checkpoint
            .remapped
            .iter()
            .filter(|(_, to)| to == name)
            .map(|(from, _)| from.clone())
            .collect();
        if sources.len() < *count {
            sources.push((*name).to_owned());
        }
        sources.sort();
        let err = GuardError::KeyCollision {
            op: checkpoint.op,
            name: (*name).to_owned(),
            sources,
        };
        return Err(refuse(&checkpoint, err));
    }
    drop(names);

    // A device that may not be used refuses the load as the device's fault, before any
    // parameter is planned (the planner's checks would otherwise name a parameter).
    for d in model.devices() {
        crate::capability::require_healthy(checkpoint.op, &d)
            .map_err(|e| refuse(&checkpoint, e))?;
    }

    // A fingerprint naming a tensor the file does not hold: the file lost a tensor.
    if let Some(fingerprint) = &checkpoint.fingerprint {
        let keys: Vec<String> = checkpoint
            .tensors
            .iter()
            .map(|t| checkpoint.file_key(&t.name))
            .collect();
        if let Some(lost) = fingerprint
            .keys()
            .find(|k| !keys.iter().any(|key| key == k))
        {
            let err = GuardError::InvalidArgument {
                op: checkpoint.op,
                rule: fingerprint::RULE,
                got: format!("key={lost}: the fingerprint names it, the file does not hold it"),
            };
            return Err(refuse(&checkpoint, err));
        }
    }

    let mut planner = Planner::new(&checkpoint, matching, options);
    model.visit(&mut planner);
    let Planner {
        entries,
        consumed,
        filtered,
        errors,
        ..
    } = planner;

    // Every problem of the load, gathered before any is reported (PyTorch's strict
    // `load_state_dict` lists missing and unexpected keys together).
    let missing: Vec<String> = sorted(
        entries
            .iter()
            .filter(|e| matches!(e.decision, Decision::Missing))
            .map(|e| e.path.clone())
            .collect(),
    );
    let (mut skipped, mut unused) = (Vec::new(), Vec::new());
    for (tensor, consumed) in checkpoint.tensors.iter().zip(&consumed) {
        if *consumed || filtered.contains(&tensor.name) {
            continue;
        }
        let key = checkpoint.file_key(&tensor.name);
        if matching.layout == Some(Layout::PyTorch) && rules::pytorch_bookkeeping(&key) {
            skipped.push(key);
        } else {
            unused.push(key);
        }
    }
    let (skipped, unused) = (sorted(skipped), sorted(unused));
    let refused_missing = if options.allow_partial {
        &[][..]
    } else {
        &missing[..]
    };
    let refused_unused: Vec<String> = unused
        .iter()
        .filter(|key| !options.allow_unused.accepts(key))
        .cloned()
        .collect();
    if let Some(err) = rules::refusal(checkpoint.op, refused_missing, &refused_unused, errors) {
        return Err(refuse(&checkpoint, err));
    }
    if options.dtype == DTypeChoice::AdoptFile
        && let Err(err) = rules::one_float_dtype(checkpoint.op, &float_dtypes(&entries))
    {
        return Err(refuse(&checkpoint, err));
    }
    let mut devices: Vec<&Device> = Vec::new();
    for entry in &entries {
        if !devices.contains(&&entry.device) {
            devices.push(&entry.device);
        }
    }
    for d in devices {
        crate::capability::require_healthy(checkpoint.op, d).map_err(|e| refuse(&checkpoint, e))?;
    }

    let mut report = LoadReport {
        op: checkpoint.op,
        format: checkpoint.format,
        file: checkpoint.file.clone(),
        producer: checkpoint.producer.clone(),
        params: entries.iter().map(|e| row(e, &checkpoint)).collect(),
        missing,
        unused,
        skipped,
        remapped: checkpoint.remapped.clone(),
        scanned_values: options.scan_non_finite.then(|| {
            entries
                .iter()
                .filter(|e| matches!(e.decision, Decision::Load { data: Some(_), .. }))
                .map(|e| e.shape.iter().product::<usize>() as u64)
                .sum()
        }),
    };
    report.params.shrink_to_fit();

    let mut writer = Writer {
        op: checkpoint.op,
        path: Vec::new(),
        skip_enum_variants: matching.skip_enum_variants,
        entries: entries.into_iter(),
        ids: checkpoint.ids,
        error: None,
    };
    // Written into a copy that shares no `RunningState` with the caller's model (or with its
    // other clones: loading into `model.clone()` leaves `model` as it was), then swapped in.
    let copy = detached(checkpoint.op, model).map_err(|e| refuse(&checkpoint, e))?;
    let loaded = copy.map(&mut writer);
    if let Some(err) = writer.error {
        return Err(refuse(&checkpoint, err));
    }
    if let Some(check) = staged {
        check(&loaded).map_err(|e| refuse(&checkpoint, e))?;
    }
    *model = loaded;
    Ok(report)
}

/// The device as the crate's reports name it (`dispatch<flex>`).
fn device_name(device: &Device) -> String {
    crate::capability::stack_of(device).label().to_owned()
}

fn sorted(mut list: Vec<String>) -> Vec<String> {
    list.sort();
    list
}

/// The device errors name for the model: its first parameter's, or `no parameters`.
pub(crate) fn model_device<M: Module>(model: &M) -> String {
    model
        .devices()
        .first()
        .map_or_else(|| "no parameters".to_owned(), device_name)
}

/// `(path, dtype)` of every float parameter as the load leaves it.
fn float_dtypes(entries: &[Entry]) -> Vec<(&str, DType)> {
    entries
        .iter()
        .filter(|e| e.kind == Kind::Float)
        .map(|e| match &e.decision {
            Decision::Load { target, .. } => (e.path.as_str(), *target),
            _ => (e.path.as_str(), e.dtype),
        })
        .collect()
}

fn row(entry: &Entry, checkpoint: &Checkpoint) -> ParamLoad {
    let (source, file_dtype, dtype, outcome, bytes) = match &entry.decision {
        Decision::Load {
            source,
            file_dtype,
            target,
            ..
        } => (
            Some(checkpoint.file_key(source)),
            Some(*file_dtype),
            *target,
            if file_dtype == target || entry.kind == Kind::Bool {
                LoadOutcome::Loaded
            } else {
                LoadOutcome::Cast {
                    from: format!("{file_dtype:?}"),
                    to: format!("{target:?}"),
                }
            },
            bytes_of(&entry.shape, *target),
        ),
        Decision::Filtered { source, file_dtype } => (
            Some(checkpoint.file_key(source)),
            *file_dtype,
            entry.dtype,
            LoadOutcome::Kept(KeptReason::Filtered),
            0,
        ),
        Decision::Missing | Decision::Refused => (
            None,
            None,
            entry.dtype,
            LoadOutcome::Kept(KeptReason::Missing),
            0,
        ),
        Decision::Mismatch {
            source,
            file_dtype,
            refusal,
        } => (
            Some(checkpoint.file_key(source)),
            Some(*file_dtype),
            entry.dtype,
            LoadOutcome::Kept(KeptReason::Mismatch {
                refusal: refusal.clone(),
            }),
            0,
        ),
    };
    ParamLoad {
        path: entry.path.clone(),
        source,
        shape: entry.shape.clone(),
        device: device_name(&entry.device),
        file_dtype: file_dtype.map(|d| format!("{d:?}")),
        dtype: format!("{dtype:?}"),
        outcome,
        bytes,
    }
}

// ---------------------------------------------------------------- planning

/// Walks `&model` as burn-store's `Applier` maps it and decides each parameter's fate.
struct Planner<'a> {
    checkpoint: &'a Checkpoint,
    matching: &'a Matching<'a>,
    options: &'a LoadOptions,
    /// Name → index into the checkpoint's tensors.
    index: HashMap<&'a str, usize>,
    path: Vec<String>,
    containers: Vec<String>,
    entries: Vec<Entry>,
    consumed: Vec<bool>,
    /// Paths of parameters the filter left out (their keys are not unused, as in burn).
    filtered: Vec<String>,
    /// Refusals, in module order.
    errors: Vec<GuardError>,
}

impl<'a> Planner<'a> {
    fn new(
        checkpoint: &'a Checkpoint,
        matching: &'a Matching<'a>,
        options: &'a LoadOptions,
    ) -> Self {
        Self {
            checkpoint,
            matching,
            options,
            index: checkpoint
                .tensors
                .iter()
                .enumerate()
                .map(|(i, t)| (t.name.as_str(), i))
                .collect(),
            path: Vec::new(),
            containers: Vec::new(),
            entries: Vec::new(),
            consumed: vec![false; checkpoint.tensors.len()],
            filtered: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// The innermost user-defined module (`Struct:Linear`), as burn-store's `ModuleContext`.
    fn module_type(&self) -> Option<&str> {
        self.containers
            .iter()
            .rev()
            .find(|c| c.starts_with("Struct:") || c.starts_with("Enum:"))
            .map(String::as_str)
    }

    /// The checkpoint's tensor for the current path: the path itself, then the adapter's
    /// alternative name (`Applier::apply_tensor`).
    fn lookup(&self, path: &str) -> Option<usize> {
        if let Some(&i) = self.index.get(path) {
            return Some(i);
        }
        let alternative = self.matching.alternative?;
        let module_type = self.module_type()?;
        let last = self.path.last()?;
        let alt = alternative(last, module_type)?;
        let mut segments = self.path.clone();
        *segments.last_mut()? = alt;
        self.index.get(segments.join(".").as_str()).copied()
    }

    fn plan(&mut self, kind: Kind, shape: Vec<usize>, device: Device, dtype: DType) {
        let path = self.path.join(".");
        let decision = match self.decide(&path, kind, &shape, &device, dtype) {
            Ok(decision) => decision,
            Err(err) => {
                self.errors.push(err.context(path.clone()));
                Decision::Refused
            }
        };
        self.entries.push(Entry {
            path,
            shape,
            device,
            dtype,
            kind,
            decision,
        });
    }

    fn decide(
        &mut self,
        path: &str,
        kind: Kind,
        shape: &[usize],
        device: &Device,
        dtype: DType,
    ) -> Result<Decision> {
        let op = self.checkpoint.op;
        let Some(i) = self.lookup(path) else {
            return Ok(Decision::Missing);
        };
        if let Some(consumed) = self.consumed.get_mut(i) {
            *consumed = true;
        }
        let Some(found) = self.checkpoint.tensors.get(i) else {
            return Ok(Decision::Missing);
        };
        let source = found.name.clone();
        let expected = match &self.checkpoint.fingerprint {
            None => None,
            Some(fingerprint) => {
                let key = self.checkpoint.file_key(&source);
                let Some(hash) = fingerprint.get(&key) else {
                    return Err(GuardError::InvalidArgument {
                        op,
                        rule: fingerprint::RULE,
                        got: format!("key={key}: the file holds it, the fingerprint does not"),
                    });
                };
                let raw = self.matching.adapt.map(|_| found.clone());
                Some(Box::new(Expected { key, hash, raw }))
            }
        };
        let mut tensor = found.clone();
        if let Some(adapt) = self.matching.adapt {
            tensor.name = path.to_owned();
            let containers = self.containers.clone();
            tensor = catch(op, move || adapt(tensor, &containers))?;
        }
        if let Some(keep) = self.matching.keep
            && !keep(&self.path, &self.containers)
        {
            self.filtered.push(path.to_owned());
            return Ok(Decision::Filtered {
                source,
                file_dtype: Some(tensor.dtype),
            });
        }
        let file_dtype = tensor.dtype;
        let file_shape = tensor.shape.to_vec();
        let fits = rules::kind(op, kind, file_dtype, dtype)
            .and_then(|()| {
                let linear_weight = self.path.last().is_some_and(|p| p == "weight")
                    && self
                        .module_type()
                        .is_some_and(crate::upstream::is_linear_container);
                rules::layout(
                    op,
                    linear_weight,
                    &file_shape,
                    self.checkpoint.producer.as_deref(),
                    self.matching.layout,
                )
            })
            .and_then(|()| rules::shape(op, shape, &file_shape));
        if let Err(err) = fits {
            if self.options.validate || err.kind() == crate::ErrorKind::LayoutUnstated {
                return Err(err);
            }
            return Ok(Decision::Mismatch {
                source,
                file_dtype,
                refusal: err.to_string(),
            });
        }
        let target = match (kind, self.options.dtype) {
            // burn re-stores a bool in the device's own bool dtype, whatever the file holds.
            (Kind::Bool, _) => dtype,
            (_, DTypeChoice::KeepModel) => dtype,
            (_, DTypeChoice::AdoptFile) => file_dtype,
        };
        rules::cast(op, file_dtype, target)?;
        if self.options.dtype == DTypeChoice::AdoptFile && kind != Kind::Bool {
            crate::capability::require_dtype(op, device, target)?;
        }
        crate::capability::require_fits(op, shape, target, device)?;
        let data = if self.options.scan_non_finite && kind == Kind::Float {
            let data = read(op, tensor.clone(), expected.as_deref())?;
            let data = data
                .try_cast(target)
                .map_err(|e| GuardError::from_data(op, e))?;
            rules::finite(op, &data)?;
            Some(Box::new(data))
        } else {
            None
        };
        Ok(Decision::Load {
            source,
            id: tensor.param_id,
            tensor: Some(tensor),
            data,
            file_dtype,
            target,
            expected,
        })
    }
}

impl Planner<'_> {
    /// Plans one parameter of any kind: its stored shape, device and dtype, read without
    /// drawing it.
    fn visit_param<const D: usize, K: Basic>(&mut self, param: &Param<Tensor<D, K>>, kind: Kind)
    where
        Tensor<D, K>: Parameter,
    {
        let dtype = current_dtype(param, kind);
        self.plan(
            kind,
            param.lazy_shape().to_vec(),
            param.lazy_device(),
            dtype,
        );
    }
}

/// The dtype a parameter has now, or the device's default for its kind when it is lazy.
fn current_dtype<const D: usize, K: Basic>(param: &Param<Tensor<D, K>>, kind: Kind) -> DType
where
    Tensor<D, K>: Parameter,
{
    if param.is_initialized() {
        return param.base().dtype();
    }
    let settings = param.lazy_device().settings();
    match kind {
        Kind::Float => settings.float_dtype.into(),
        Kind::Int => settings.int_dtype.into(),
        Kind::Bool => settings.bool_dtype.into(),
    }
}

impl ModuleVisitor for Planner<'_> {
    fn enter_module(&mut self, name: &str, container_type: &str) {
        self.containers.push(container_type.to_owned());
        if !skipped(self.matching.skip_enum_variants, container_type) {
            self.path.push(name.to_owned());
        }
    }

    fn exit_module(&mut self, _name: &str, container_type: &str) {
        self.containers.pop();
        if !skipped(self.matching.skip_enum_variants, container_type) {
            self.path.pop();
        }
    }

    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        self.visit_param(param, Kind::Float);
    }

    fn visit_int<const D: usize>(&mut self, param: &Param<Tensor<D, Int>>) {
        self.visit_param(param, Kind::Int);
    }

    fn visit_bool<const D: usize>(&mut self, param: &Param<Tensor<D, Bool>>) {
        self.visit_param(param, Kind::Bool);
    }
}

/// Whether an `enter_module` leaves the path alone (burn-store's enum-variant skipping).
fn skipped(skip_enum_variants: bool, container_type: &str) -> bool {
    skip_enum_variants && container_type.starts_with("Enum:")
}

/// A checkpoint tensor's data, read (a file read, an adapter's transform) under the backstop,
/// its bytes as the file holds them verified against the fingerprint when there is one.
fn read(op: &'static str, tensor: PackTensor, expected: Option<&Expected>) -> Result<TensorData> {
    if let Some(Expected {
        key,
        hash,
        raw: Some(raw),
    }) = expected
    {
        let raw = raw.clone();
        let bytes = catch(op, move || raw.into_bytes())?.map_err(|e| store_error(op, e))?;
        Fingerprint::verify(op, key, *hash, &bytes)?;
    }
    let parts = catch(op, move || tensor.into_parts())?;
    let (_, dtype, shape, _, bytes) = parts.map_err(|e| store_error(op, e))?;
    if let Some(Expected {
        key,
        hash,
        raw: None,
    }) = expected
    {
        Fingerprint::verify(op, key, *hash, &bytes)?;
    }
    TensorData::try_from_bytes(bytes, shape, dtype).map_err(|e| GuardError::from_data(op, e))
}

/// burn's own read error.
pub(crate) fn store_error(
    op: &'static str,
    err: impl std::error::Error + Send + Sync + 'static,
) -> GuardError {
    GuardError::Store {
        op,
        cause: std::sync::Arc::new(err),
    }
}

// ---------------------------------------------------------------- writing

/// Writes the planned tensors into a clone of the model, in the planner's order.
struct Writer {
    op: &'static str,
    path: Vec<String>,
    skip_enum_variants: bool,
    entries: std::vec::IntoIter<Entry>,
    ids: bool,
    error: Option<GuardError>,
}

impl Writer {
    fn write<const D: usize, K: Basic + 'static>(
        &mut self,
        param: Param<Tensor<D, K>>,
    ) -> Param<Tensor<D, K>>
    where
        Tensor<D, K>: Parameter,
    {
        let path = self.path.join(".");
        let Some(entry) = self.entries.next() else {
            self.error.get_or_insert(drift(self.op, &path));
            return param;
        };
        if self.error.is_some() {
            return param;
        }
        if entry.path != path {
            self.error = Some(drift(self.op, &path));
            return param;
        }
        let Decision::Load {
            tensor,
            data,
            target,
            id,
            expected,
            ..
        } = entry.decision
        else {
            return param;
        };
        let loaded = match (data, tensor) {
            (Some(data), _) => Ok(*data),
            (None, Some(tensor)) => read(self.op, tensor, expected.as_deref()),
            (None, None) => Err(drift(self.op, &path)),
        }
        .and_then(|data| {
            let dtype = if entry.kind == Kind::Bool {
                data.dtype()
            } else {
                target
            };
            let data = data
                .try_cast(dtype)
                .map_err(|e| GuardError::from_data(self.op, e))?;
            let device = entry.device;
            catch(self.op, move || {
                Tensor::<D, K>::from_data(data, (&device, dtype))
            })
        });
        let tensor = match loaded {
            Ok(tensor) => tensor,
            Err(err) => {
                self.error = Some(err.context(path));
                return param;
            }
        };
        let id = match id {
            Some(id) if self.ids => ParamId::from(id),
            _ => param.id,
        };
        let backup = param.clone();
        match catch(self.op, move || param.transform_for_load(tensor, id)) {
            Ok(loaded) => loaded,
            Err(err) => {
                self.error = Some(err.context(path));
                backup
            }
        }
    }
}

/// The error for a model whose second walk differs from its first (a `Module` impl whose
/// `visit` and `map` disagree): nothing is kept.
fn drift(op: &'static str, path: &str) -> GuardError {
    GuardError::InvalidArgument {
        op,
        rule: "the module's map must walk its parameters as its visit does",
        got: format!("path={path}"),
    }
}

/// A `ModuleMapper` that tracks the module path as burn-store's `Applier` does (enum variants
/// left out when skipped) and sends every parameter, of any kind, to one generic method.
macro_rules! path_mapper {
    ($mapper:ident, $method:ident) => {
        impl ModuleMapper for $mapper {
            fn enter_module(&mut self, name: &str, container_type: &str) {
                if !skipped(self.skip_enum_variants, container_type) {
                    self.path.push(name.to_owned());
                }
            }

            fn exit_module(&mut self, _name: &str, container_type: &str) {
                if !skipped(self.skip_enum_variants, container_type) {
                    self.path.pop();
                }
            }

            fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
                self.$method(param)
            }

            fn map_int<const D: usize>(
                &mut self,
                param: Param<Tensor<D, Int>>,
            ) -> Param<Tensor<D, Int>> {
                self.$method(param)
            }

            fn map_bool<const D: usize>(
                &mut self,
                param: Param<Tensor<D, Bool>>,
            ) -> Param<Tensor<D, Bool>> {
                self.$method(param)
            }
        }
    };
}

path_mapper!(Writer, write);
