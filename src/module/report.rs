//! What quantizing a model's weights did, parameter by parameter: printable as a table and
//! serialisable with serde for dashboards and deployment logs.

use std::fmt;

use serde::Serialize;

use crate::nn::Placement;
use crate::nn::report::ratio;

/// What happened to one float parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ParamOutcome {
    /// Quantized with the quantizer's scheme.
    Quantized,
    /// Selected by the quantizer's group, but the scheme cannot apply to this parameter (its
    /// shape, or the device's capability for it), and the quantizer was told to keep such
    /// parameters in float rather than refuse the model.
    KeptFloat {
        /// The refusal it would have been, on one line.
        reason: String,
    },
    /// Not selected by the quantizer's [`ParamGroup`](burn::module::ParamGroup): left as it
    /// was, as burn leaves it.
    NotInGroup,
}

/// One float parameter of a quantized model.
///
/// ```
/// use burn_guard::module::{ParamOutcome, ParamReport};
///
/// let param = ParamReport {
///     path: "head.weight".into(),
///     shape: vec![64, 10],
///     scheme: "q8s-packedu32".into(),
///     outcome: ParamOutcome::Quantized,
///     device: "dispatch<flex>".into(),
///     bytes_before: 2560,
///     bytes_after: 644,
/// };
/// assert!((param.ratio() - 644.0 / 2560.0).abs() < 1e-9);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParamReport {
    /// The parameter's module path, as burn's quantizer and `ParamGroup` name it
    /// (`encoder.layers.0.mha.query.weight`).
    pub path: String,
    /// The parameter's shape.
    pub shape: Vec<usize>,
    /// The stored dtype after quantization: the scheme's short name
    /// ([`SchemeName`](crate::check::SchemeName)) read from the quantized tensor, or the
    /// float dtype (`f32`) of a parameter left in float.
    pub scheme: String,
    /// Quantized, kept in float (with the reason), or not selected.
    pub outcome: ParamOutcome,
    /// The backend stack that holds the parameter after quantization.
    pub device: String,
    /// Bytes of the parameter before: elements × its float dtype's size.
    pub bytes_before: u64,
    /// Bytes stored after, from the quantized tensor's dtype and shape: packed values, block
    /// scales and any per-tensor scale (burn's `quantized_data_len`); `bytes_before` for a
    /// parameter left in float.
    pub bytes_after: u64,
}

impl ParamReport {
    /// `bytes_after / bytes_before` (1 for an empty parameter).
    pub fn ratio(&self) -> f64 {
        ratio(self.bytes_after, self.bytes_before)
    }

    /// Whether the parameter was quantized.
    pub fn is_quantized(&self) -> bool {
        self.outcome == ParamOutcome::Quantized
    }
}

/// Every float parameter of a model quantized in place, in module order, and where the model
/// lives.
///
/// ```
/// use burn_guard::module::{ParamOutcome, ParamReport, WeightReport};
/// use burn_guard::nn::Placement;
///
/// let param = |path: &str, outcome, bytes_after| ParamReport {
///     path: path.into(),
///     shape: vec![32, 3],
///     scheme: "f32".into(),
///     outcome,
///     device: "dispatch<flex>".into(),
///     bytes_before: 384,
///     bytes_after,
/// };
/// let report = WeightReport {
///     placement: Placement::Native,
///     params: vec![
///         param("conv.weight", ParamOutcome::KeptFloat { reason: "block does not divide".into() }, 384),
///         param("head.weight", ParamOutcome::Quantized, 100),
///     ],
/// };
/// assert_eq!(report.kept_in_float().count(), 1);
/// assert_eq!(report.quantized_bytes(), (384, 100));
/// println!("{report}");
/// let json = serde_json::to_string(&report).unwrap();
/// assert!(json.contains(r#""kind":"kept_float""#));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WeightReport {
    /// Where the model was quantized and lives: on its own device, or moved to a fallback
    /// device the policy chose (inputs then move there per call, see
    /// [`QuantizedModel`](super::QuantizedModel)).
    pub placement: Placement,
    /// One entry per float parameter, in module order.
    pub params: Vec<ParamReport>,
}

impl WeightReport {
    /// The parameters that were quantized.
    pub fn quantized(&self) -> impl Iterator<Item = &ParamReport> {
        self.params.iter().filter(|p| p.is_quantized())
    }

    /// The parameters the quantizer selected but kept in float, with their reasons.
    pub fn kept_in_float(&self) -> impl Iterator<Item = &ParamReport> {
        self.params
            .iter()
            .filter(|p| matches!(p.outcome, ParamOutcome::KeptFloat { .. }))
    }

    /// The quantized parameters that fit in one buffer of `max_buffer_bytes` only because they
    /// were quantized: their float bytes exceed it, their stored bytes do not. Pass the
    /// largest buffer of the device that will hold the model
    /// ([`limits_of`](crate::capability::limits_of)`(&device).max_buffer_bytes`: 134 217 728 B on
    /// lavapipe, WebGPU's default) to learn which weights could live there only quantized.
    ///
    /// ```
    /// use burn_guard::module::{ParamOutcome, ParamReport, WeightReport};
    /// use burn_guard::nn::Placement;
    ///
    /// let embedding = ParamReport {
    ///     path: "embedding.weight".into(),
    ///     shape: vec![65_536, 1_024],
    ///     scheme: "q8s-packedu32".into(),
    ///     outcome: ParamOutcome::Quantized,
    ///     device: "dispatch<flex>".into(),
    ///     bytes_before: 268_435_456,
    ///     bytes_after: 67_108_868,
    /// };
    /// let report = WeightReport { placement: Placement::Native, params: vec![embedding] };
    /// let lavapipe = 134_217_728;
    /// assert_eq!(report.fit_only_quantized(lavapipe).count(), 1);
    /// assert_eq!(report.fit_only_quantized(1 << 30).count(), 0);
    /// ```
    pub fn fit_only_quantized(&self, max_buffer_bytes: u64) -> impl Iterator<Item = &ParamReport> {
        self.quantized()
            .filter(move |p| p.bytes_before > max_buffer_bytes && p.bytes_after <= max_buffer_bytes)
    }

    /// Float bytes and stored bytes of the quantized parameters alone.
    pub fn quantized_bytes(&self) -> (u64, u64) {
        sum_bytes(self.quantized())
    }

    /// `after / before` over the quantized parameters alone.
    pub fn quantized_ratio(&self) -> f64 {
        let (before, after) = self.quantized_bytes();
        ratio(after, before)
    }

    /// Float bytes and stored bytes of every float parameter (kept and unselected included).
    pub fn total_bytes(&self) -> (u64, u64) {
        sum_bytes(self.params.iter())
    }

    /// `after / before` over every float parameter.
    pub fn total_ratio(&self) -> f64 {
        let (before, after) = self.total_bytes();
        ratio(after, before)
    }

    /// The entry of the parameter at `path`.
    pub fn param(&self, path: &str) -> Option<&ParamReport> {
        self.params.iter().find(|p| p.path == path)
    }
}

fn sum_bytes<'a>(params: impl Iterator<Item = &'a ParamReport>) -> (u64, u64) {
    params.fold((0, 0), |(before, after), p| {
        (
            before.saturating_add(p.bytes_before),
            after.saturating_add(p.bytes_after),
        )
    })
}

impl fmt::Display for ParamOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Quantized => f.write_str("quantized"),
            Self::KeptFloat { reason } => write!(f, "kept in float: {reason}"),
            Self::NotInGroup => f.write_str("not in the quantizer's group"),
        }
    }
}

impl fmt::Display for WeightReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .params
            .iter()
            .map(|p| p.path.len())
            .max()
            .unwrap_or(0)
            .max("parameter".len());
        writeln!(f, "placement: {}", self.placement)?;
        writeln!(
            f,
            "{:<width$} {:>14} {:<22} {:<24} {:>10} {:>10} {:>6}  outcome",
            "parameter", "shape", "stored as", "device", "bytes", "after", "ratio"
        )?;
        for p in &self.params {
            writeln!(
                f,
                "{:<width$} {:>14} {:<22} {:<24} {:>10} {:>10} {:>6.3}  {}",
                p.path,
                format!("{:?}", p.shape),
                p.scheme,
                p.device,
                p.bytes_before,
                p.bytes_after,
                p.ratio(),
                p.outcome
            )?;
        }
        let (before, after) = self.quantized_bytes();
        writeln!(
            f,
            "{:<width$} {:>14} {:<22} {:<24} {:>10} {:>10} {:>6.3}",
            "quantized",
            "",
            "",
            "",
            before,
            after,
            self.quantized_ratio()
        )?;
        let (before, after) = self.total_bytes();
        write!(
            f,
            "{:<width$} {:>14} {:<22} {:<24} {:>10} {:>10} {:>6.3}",
            "all float",
            "",
            "",
            "",
            before,
            after,
            self.total_ratio()
        )
    }
}
