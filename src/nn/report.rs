//! What quantizing a model did, layer by layer: printable as a table and serialisable with
//! serde (JSON, TOML, …) for dashboards and deployment logs.

use std::fmt;

use serde::Serialize;

/// Where a layer's weight ended up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Placement {
    /// Quantized on the layer's own device.
    Native,
    /// Quantized on a fallback device the policy chose; activations move there per call.
    Fallback {
        /// The backend stack the layer serves, e.g. `dispatch<ndarray>`.
        from: String,
        /// The backend stack that holds the packed weight, e.g. `dispatch<flex>`.
        to: String,
    },
    /// Kept in float: the scheme cannot apply to this weight's shape and the quantizer was
    /// told to keep such layers rather than refuse them.
    KeptFloat {
        /// Why the scheme does not apply (the refusal's one-line message).
        reason: String,
    },
}

/// One linear layer of a quantized model.
///
/// ```
/// use burn_guard::nn::{LayerReport, Placement};
///
/// let layer = LayerReport {
///     path: "l1".into(),
///     d_input: 64,
///     d_output: 256,
///     scheme: "q8s-packedu32-block32".into(),
///     device: "dispatch<flex>".into(),
///     placement: Placement::Native,
///     bytes_before: 65_536,
///     bytes_after: 18_432,
/// };
/// assert!((layer.ratio() - 0.28125).abs() < 1e-9);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerReport {
    /// The layer's module path (`l1`, `encoder.layers.0.fc`).
    pub path: String,
    /// Input features.
    pub d_input: usize,
    /// Output features.
    pub d_output: usize,
    /// The scheme's short name ([`SchemeName`](crate::check::SchemeName)), or `f32` when
    /// the layer was kept in float.
    pub scheme: String,
    /// The backend stack that holds the weight.
    pub device: String,
    /// Native, fallback, or kept in float.
    pub placement: Placement,
    /// Bytes of the float weight, read from the tensor.
    pub bytes_before: u64,
    /// Bytes of the stored weight, read from the packed tensor: values and scales.
    pub bytes_after: u64,
}

impl LayerReport {
    /// `bytes_after / bytes_before` (1 for an empty weight).
    pub fn ratio(&self) -> f64 {
        ratio(self.bytes_after, self.bytes_before)
    }
}

/// Every linear layer of a quantized model, in module order.
///
/// ```
/// use burn_guard::nn::{LayerReport, Placement, QuantReport};
///
/// let report = QuantReport {
///     layers: vec![LayerReport {
///         path: "fc".into(),
///         d_input: 32,
///         d_output: 8,
///         scheme: "f32".into(),
///         device: "dispatch<flex>".into(),
///         placement: Placement::KeptFloat { reason: "block does not divide".into() },
///         bytes_before: 1024,
///         bytes_after: 1024,
///     }],
/// };
/// assert_eq!(report.kept_float(), 1);
/// println!("{report}");
/// let json = serde_json::to_string(&report).unwrap();
/// assert!(json.contains(r#""kind":"kept_float""#));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct QuantReport {
    /// One entry per linear layer.
    pub layers: Vec<LayerReport>,
}

impl QuantReport {
    /// Float bytes of every layer's weight.
    pub fn bytes_before(&self) -> u64 {
        self.layers.iter().map(|l| l.bytes_before).sum()
    }

    /// Stored bytes of every layer's weight, scales included.
    pub fn bytes_after(&self) -> u64 {
        self.layers.iter().map(|l| l.bytes_after).sum()
    }

    /// `bytes_after / bytes_before` over the whole model.
    pub fn ratio(&self) -> f64 {
        ratio(self.bytes_after(), self.bytes_before())
    }

    /// Layers whose weight lives on a fallback device.
    pub fn fallbacks(&self) -> usize {
        self.count(|p| matches!(p, Placement::Fallback { .. }))
    }

    /// Layers kept in float.
    pub fn kept_float(&self) -> usize {
        self.count(|p| matches!(p, Placement::KeptFloat { .. }))
    }

    fn count(&self, f: impl Fn(&Placement) -> bool) -> usize {
        self.layers.iter().filter(|l| f(&l.placement)).count()
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Native => f.write_str("native"),
            Self::Fallback { from, to } => write!(f, "fallback {from} -> {to}"),
            Self::KeptFloat { reason } => write!(f, "kept f32 ({reason})"),
        }
    }
}

impl fmt::Display for QuantReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<12} {:>11} {:<24} {:<28} {:>10} {:>10} {:>6}  placement",
            "layer", "shape", "scheme", "device", "f32 bytes", "bytes", "ratio"
        )?;
        for layer in &self.layers {
            writeln!(
                f,
                "{:<12} {:>11} {:<24} {:<28} {:>10} {:>10} {:>6.3}  {}",
                layer.path,
                format!("{}x{}", layer.d_input, layer.d_output),
                layer.scheme,
                layer.device,
                layer.bytes_before,
                layer.bytes_after,
                layer.ratio(),
                layer.placement
            )?;
        }
        write!(
            f,
            "{:<12} {:>11} {:<24} {:<28} {:>10} {:>10} {:>6.3}",
            "total",
            "",
            "",
            "",
            self.bytes_before(),
            self.bytes_after(),
            self.ratio()
        )
    }
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
