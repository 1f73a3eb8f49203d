//! What quantizing did, parameter by parameter — one report for every quantizer of the wing
//! (the model quantizer's parameters, the layer quantizer's `Linear` weights): printable as a
//! table and serialisable with serde for dashboards and deployment logs.

use std::fmt;

use serde::Serialize;

/// Where a parameter ended up, and in what form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Placement {
    /// Quantized on its own device.
    Native,
    /// Quantized on a fallback device the policy chose (its own could not quantize the
    /// scheme); inputs move there per call.
    Fallback {
        /// The backend stack the parameter came from, e.g. `dispatch<ndarray>`.
        from: String,
        /// The backend stack that holds it quantized, e.g. `dispatch<flex>`.
        to: String,
    },
    /// Kept in float, and why: the scheme cannot apply to its shape or its device (the
    /// quantizer was told to keep such parameters rather than refuse), or it is a running
    /// statistic, which stays in float unless asked.
    KeptFloat {
        /// The reason, on one line.
        reason: String,
    },
    /// Not selected by the quantizer's [`ParamGroup`](burn::module::ParamGroup): left as it
    /// was, as burn leaves it.
    NotInGroup,
}

impl Placement {
    /// Whether the parameter was quantized (here or on a fallback device).
    pub fn is_quantized(&self) -> bool {
        matches!(self, Self::Native | Self::Fallback { .. })
    }
}

/// One parameter of a quantized model.
///
/// ```
/// use burn_guard::quant::{ParamReport, Placement};
///
/// let param = ParamReport {
///     path: "head.weight".into(),
///     shape: vec![64, 10],
///     scheme: "q8s-packedu32@1-tensor".into(),
///     device: "dispatch<fusion<cubecl<wgpu<wgsl>>>>".into(),
///     placement: Placement::Native,
///     bytes_before: 2560,
///     bytes_after: 644,
///     relative_error: None,
/// };
/// assert!(param.is_quantized());
/// assert!((param.ratio() - 644.0 / 2560.0).abs() < 1e-9);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamReport {
    /// The parameter's module path, as burn's quantizer and `ParamGroup` name it
    /// (`encoder.layers.0.mha.query.weight`).
    pub path: String,
    /// Its shape, in the model's layout.
    pub shape: Vec<usize>,
    /// What it is stored as: the scheme's short name
    /// ([`SchemeName`](crate::check::SchemeName)) read from the quantized tensor (with where it
    /// is packed: `packedu32@3` for the fourth dimension from the end), or the float dtype
    /// (`f32`) of a parameter left in float.
    pub scheme: String,
    /// The backend stack that holds it after quantization.
    pub device: String,
    /// Quantized where, kept in float (and why), or not selected.
    pub placement: Placement,
    /// Its bytes before: elements × its float dtype's size.
    pub bytes_before: u64,
    /// Its bytes stored after, from the stored dtype and shape: packed values, block scales
    /// and any per-tensor scale (burn's `quantized_data_len`,
    /// [`check::bytes::tensor_bytes`](crate::check::bytes::tensor_bytes)); `bytes_before` for a
    /// parameter left in float.
    pub bytes_after: u64,
    /// The quantization's round-trip error, `‖dequantize(q) − w‖ / ‖w‖`, when measured
    /// ([`WeightQuantizer::measure_error`](crate::quant::WeightQuantizer::measure_error));
    /// `None` otherwise and for a parameter left in float.
    pub relative_error: Option<f64>,
}

impl ParamReport {
    /// `bytes_after / bytes_before` (1 for an empty parameter).
    pub fn ratio(&self) -> f64 {
        ratio(self.bytes_after, self.bytes_before)
    }

    /// Whether the parameter was quantized (here or on a fallback device).
    pub fn is_quantized(&self) -> bool {
        self.placement.is_quantized()
    }
}

/// Every parameter a quantizer met, in module order: the one report of the quantization wing.
///
/// ```
/// use burn_guard::quant::{ParamReport, Placement, QuantReport};
///
/// let param = |path: &str, placement, bytes_after| ParamReport {
///     path: path.into(),
///     shape: vec![32, 3],
///     scheme: "f32".into(),
///     device: "dispatch<flex>".into(),
///     placement,
///     bytes_before: 384,
///     bytes_after,
///     relative_error: None,
/// };
/// let report = QuantReport {
///     params: vec![
///         param("conv.weight", Placement::KeptFloat { reason: "block does not divide".into() }, 384),
///         param("head.weight", Placement::Native, 100),
///     ],
/// };
/// assert_eq!(report.kept_in_float().count(), 1);
/// assert_eq!(report.quantized_bytes(), (384, 100));
/// assert_eq!(report.placement(), &Placement::Native);
/// println!("{report}");
/// let json = serde_json::to_string(&report).unwrap();
/// assert!(json.contains(r#""kind":"kept_float""#));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QuantReport {
    /// One entry per parameter, in module order.
    pub params: Vec<ParamReport>,
}

/// The report's former names: the model quantizer's report and the layer quantizer's row.
pub type WeightReport = QuantReport;
/// The layer quantizer's row, now a [`ParamReport`] for the layer's weight.
pub type LayerReport = ParamReport;

impl QuantReport {
    /// The parameters that were quantized.
    pub fn quantized(&self) -> impl Iterator<Item = &ParamReport> {
        self.params.iter().filter(|p| p.is_quantized())
    }

    /// The parameters kept in float, with their reasons.
    pub fn kept_in_float(&self) -> impl Iterator<Item = &ParamReport> {
        self.placed(|placement| matches!(placement, Placement::KeptFloat { .. }))
    }

    /// The parameters held on a fallback device.
    pub fn fallbacks(&self) -> impl Iterator<Item = &ParamReport> {
        self.placed(|placement| matches!(placement, Placement::Fallback { .. }))
    }

    /// The parameters whose placement is `which`.
    fn placed(&self, which: fn(&Placement) -> bool) -> impl Iterator<Item = &ParamReport> {
        self.params.iter().filter(move |p| which(&p.placement))
    }

    /// Where the quantized parameters live: the first fallback's placement when any is held
    /// on a fallback device, [`Placement::Native`] otherwise. The model quantizer moves a
    /// whole model, so every quantized parameter shares it; the layer quantizer places each
    /// layer on its own (read [`fallbacks`](Self::fallbacks)).
    pub fn placement(&self) -> &Placement {
        const NATIVE: &Placement = &Placement::Native;
        self.fallbacks().next().map_or(NATIVE, |p| &p.placement)
    }

    /// The quantized parameters that fit in one buffer of `max_buffer_bytes` only because they
    /// were quantized: their float bytes exceed it, their stored bytes do not. Pass the
    /// largest buffer of the device that will hold the model
    /// ([`limits_of`](crate::capability::limits_of)`(&device).max_buffer_bytes`: 134 217 728 B on
    /// lavapipe, WebGPU's default) to learn which weights could live there only quantized.
    ///
    /// ```
    /// use burn_guard::quant::{ParamReport, Placement, QuantReport};
    ///
    /// let embedding = ParamReport {
    ///     path: "embedding.weight".into(),
    ///     shape: vec![65_536, 1_024],
    ///     scheme: "q8s-packedu32-tensor".into(),
    ///     device: "dispatch<flex>".into(),
    ///     placement: Placement::Native,
    ///     bytes_before: 268_435_456,
    ///     bytes_after: 67_108_868,
    ///     relative_error: None,
    /// };
    /// let report = QuantReport { params: vec![embedding] };
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

    /// Float bytes and stored bytes of every parameter (kept and unselected included).
    pub fn total_bytes(&self) -> (u64, u64) {
        sum_bytes(self.params.iter())
    }

    /// `after / before` over every parameter.
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

/// `after / before`, 1 for nothing before: the one ratio every quantization report prints.
#[allow(clippy::cast_precision_loss)] // Byte counts far below 2^52.
pub(crate) fn ratio(after: u64, before: u64) -> f64 {
    if before == 0 {
        1.0
    } else {
        after as f64 / before as f64
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Native => f.write_str("quantized"),
            Self::Fallback { from, to } => write!(f, "quantized on fallback {from} -> {to}"),
            Self::KeptFloat { reason } => write!(f, "kept in float: {reason}"),
            Self::NotInGroup => f.write_str("not in the quantizer's group"),
        }
    }
}

impl fmt::Display for QuantReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .params
            .iter()
            .map(|p| p.path.len())
            .max()
            .unwrap_or(0)
            .max("parameter".len());
        writeln!(
            f,
            "{:<width$} {:>14} {:<22} {:<24} {:>10} {:>10} {:>6}  placement",
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
                match p.relative_error {
                    Some(error) => format!("{} (round trip off by {error:.2e})", p.placement),
                    None => p.placement.to_string(),
                }
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
            "all",
            "",
            "",
            "",
            before,
            after,
            self.total_ratio()
        )
    }
}
