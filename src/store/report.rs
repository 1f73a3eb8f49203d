//! What a checked load did, parameter by parameter: printable as a table and serialisable with
//! serde for deployment logs, like [`WeightReport`](crate::module::WeightReport).

use std::fmt;

use serde::Serialize;

/// The format a checkpoint was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Format {
    /// A burn-core [`ModuleRecord`](burn::store::ModuleRecord) in memory.
    Record,
    /// A burnpack file (`.bpk`), burn's own format.
    Burnpack,
    /// A SafeTensors file.
    Safetensors,
    /// A PyTorch checkpoint (`.pt`, `.pth`).
    Pytorch,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Record => "record",
            Self::Burnpack => "burnpack",
            Self::Safetensors => "safetensors",
            Self::Pytorch => "pytorch",
        })
    }
}

/// Why a parameter kept the value it had before the load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
#[non_exhaustive]
pub enum KeptReason {
    /// The checkpoint has no tensor for it (accepted by `allow_partial`).
    Missing,
    /// The store's filter left it out.
    Filtered,
    /// The checkpoint's tensor does not fit it (accepted by `validate(false)`): the refusal it
    /// would have been, on one line.
    Mismatch {
        /// The refusal, on one line.
        refusal: String,
    },
}

/// What the load did to one parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum LoadOutcome {
    /// Loaded with the dtype the checkpoint holds it in.
    Loaded,
    /// Loaded and cast on the host from the checkpoint's dtype to the parameter's.
    Cast {
        /// The checkpoint's dtype (`F16`).
        from: String,
        /// The parameter's (`F32`).
        to: String,
    },
    /// Not loaded: the parameter keeps its value.
    Kept(KeptReason),
}

/// One parameter of a loaded model.
///
/// ```
/// use burn_guard::store::{LoadOutcome, ParamLoad};
///
/// let param = ParamLoad {
///     path: "fc.weight".into(),
///     source: Some("fc.weight".into()),
///     shape: vec![3, 4],
///     device: "dispatch<flex>".into(),
///     file_dtype: Some("F16".into()),
///     dtype: "F32".into(),
///     outcome: LoadOutcome::Cast { from: "F16".into(), to: "F32".into() },
///     bytes: 48,
/// };
/// assert!(param.is_loaded());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParamLoad {
    /// The parameter's module path (`encoder.layers.0.fc.weight`).
    pub path: String,
    /// The checkpoint's key it was read from, as the file names it (before key remapping);
    /// `None` when the checkpoint has none.
    pub source: Option<String>,
    /// The parameter's shape.
    pub shape: Vec<usize>,
    /// The device the parameter lives on, as errors name it.
    pub device: String,
    /// The checkpoint's dtype for it (after the store's adapter); `None` when there is none.
    pub file_dtype: Option<String>,
    /// The parameter's dtype after the load.
    pub dtype: String,
    /// Loaded, cast, or kept (and why).
    pub outcome: LoadOutcome,
    /// Bytes written into the parameter: elements × dtype size (0 when kept).
    pub bytes: u64,
}

impl ParamLoad {
    /// Whether a value from the checkpoint was written into the parameter.
    pub fn is_loaded(&self) -> bool {
        matches!(self.outcome, LoadOutcome::Loaded | LoadOutcome::Cast { .. })
    }
}

/// What a checked load read and did: one row per parameter in module order, then what the
/// checkpoint lacks, what it held that nothing took, and the keys remapping renamed.
///
/// `{report}` prints a table; `serde_json::to_string(&report)` a record for a log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadReport {
    /// The operation (`load_file`, `load_record`, `load_from`).
    pub op: &'static str,
    /// The format the checkpoint was read from.
    pub format: Format,
    /// The checkpoint: its path as opened, or `<record>` / `<bytes>`.
    pub file: String,
    /// The producer the checkpoint names in its metadata (`burn`), if it names one.
    pub producer: Option<String>,
    /// One row per parameter, in module order.
    pub params: Vec<ParamLoad>,
    /// Parameters the checkpoint has no tensor for (possible only with `allow_partial`).
    pub missing: Vec<String>,
    /// Checkpoint keys no parameter took and the load accepted (`allow_unused`).
    pub unused: Vec<String>,
    /// Checkpoint keys skipped by name: under `Layout::PyTorch`, PyTorch's bookkeeping
    /// buffers that no burn module has a place for (`num_batches_tracked`;
    /// [`check::load::PYTORCH_BOOKKEEPING`](crate::check::load::PYTORCH_BOOKKEEPING)).
    pub skipped: Vec<String>,
    /// `(file key, name)` for each key that key remapping renamed.
    pub remapped: Vec<(String, String)>,
    /// Values the opt-in non-finite scan read (`None` when the scan was off); a load that
    /// found any is refused, so a report has none.
    pub scanned_values: Option<u64>,
}

impl LoadReport {
    /// The parameters a value was written into.
    pub fn loaded(&self) -> impl Iterator<Item = &ParamLoad> {
        self.params.iter().filter(|p| p.is_loaded())
    }

    /// The parameters that were cast on the way in.
    pub fn cast(&self) -> impl Iterator<Item = &ParamLoad> {
        self.params
            .iter()
            .filter(|p| matches!(p.outcome, LoadOutcome::Cast { .. }))
    }

    /// The parameters that kept their value.
    pub fn kept(&self) -> impl Iterator<Item = &ParamLoad> {
        self.params
            .iter()
            .filter(|p| matches!(p.outcome, LoadOutcome::Kept(_)))
    }

    /// Bytes written into the model.
    pub fn bytes(&self) -> u64 {
        self.params.iter().map(|p| p.bytes).sum()
    }

    /// The row of the parameter at `path`.
    pub fn param(&self, path: &str) -> Option<&ParamLoad> {
        self.params.iter().find(|p| p.path == path)
    }
}

impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let loaded = self.loaded().count();
        writeln!(
            f,
            "{}: {} ({}{}): {loaded} of {} parameters loaded, {} bytes",
            self.op,
            self.file,
            self.format,
            self.producer
                .as_deref()
                .map(|p| format!(", producer {p}"))
                .unwrap_or_default(),
            self.params.len(),
            self.bytes()
        )?;
        let width = self.params.iter().map(|p| p.path.len()).max().unwrap_or(4);
        writeln!(
            f,
            "{:<width$}  {:<14}  {:<6}  {:<6}  outcome",
            "path", "shape", "file", "dtype"
        )?;
        for p in &self.params {
            let outcome = match &p.outcome {
                LoadOutcome::Loaded => "loaded".to_owned(),
                LoadOutcome::Cast { from, to } => format!("cast {from} -> {to}"),
                LoadOutcome::Kept(KeptReason::Missing) => "kept: missing".to_owned(),
                LoadOutcome::Kept(KeptReason::Filtered) => "kept: filtered".to_owned(),
                LoadOutcome::Kept(KeptReason::Mismatch { refusal }) => {
                    format!("kept: {refusal}")
                }
            };
            writeln!(
                f,
                "{:<width$}  {:<14}  {:<6}  {:<6}  {outcome}",
                p.path,
                format!("{:?}", p.shape),
                p.file_dtype.as_deref().unwrap_or("-"),
                p.dtype
            )?;
        }
        if !self.missing.is_empty() {
            writeln!(f, "missing: {}", self.missing.join(", "))?;
        }
        if !self.unused.is_empty() {
            writeln!(f, "unused: {}", self.unused.join(", "))?;
        }
        if !self.skipped.is_empty() {
            writeln!(
                f,
                "skipped (PyTorch bookkeeping): {}",
                self.skipped.join(", ")
            )?;
        }
        for (from, to) in &self.remapped {
            writeln!(f, "remapped: {from} -> {to}")?;
        }
        if let Some(values) = self.scanned_values {
            writeln!(f, "scanned: {values} values, all finite")?;
        }
        Ok(())
    }
}
