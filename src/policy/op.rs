//! The operations a policy can send to a fallback backend: a closed, typed set, so a misspelt
//! operation does not compile.

use std::fmt;

/// An operation that can run on a fallback backend.
///
/// ```
/// use burn_guard::policy::Op;
/// assert_eq!(Op::QuantizeDynamic.name(), "quantize_dynamic");
/// assert_eq!(Op::ALL.len(), 9);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[non_exhaustive]
pub enum Op {
    /// Dynamic quantization (`quantize_dynamic`).
    QuantizeDynamic,
    /// A matmul with a quantized right-hand side (`q_matmul`), at the backend level.
    QMatmul,
    /// A quantized linear layer's forward ([`QuantizedLinear`](crate::nn::QuantizedLinear)).
    QuantizedLinear,
    /// Quantizing a model's weights in place
    /// ([`WeightQuantizer`](crate::module::WeightQuantizer)): a fallback moves the model.
    QuantizeWeights,
    /// A forward of a model quantized on a fallback device
    /// ([`QuantizedModel`](crate::module::QuantizedModel)): inputs move there, outputs back.
    QuantizedModel,
    /// A tensor too large for its device (over its largest buffer, the host's memory or the
    /// device's budget) created or computed on a fallback device instead
    /// ([`Policy::place`](crate::policy::Policy::place),
    /// [`TryOversize`](crate::tensor::TryOversize)); the result stays there.
    Oversize,
    /// A singular value decomposition ([`try_svd_with`](crate::linalg::try_svd_with)) on a
    /// device whose backend has no svd: the input moves to the fallback, the factors back.
    Svd,
    /// burn-signal's FFT and the functions built on it (`rfft`, `irfft`, `cfft`, `stft`,
    /// `istft`: [`try_rfft_with`](crate::signal::try_rfft_with), ...) on a device whose
    /// backend has no FFT in this build: the inputs move to the fallback, the results back.
    Fft,
    /// burn-vision's extension ops (erosion, dilation, NMS, connected components:
    /// [`TryMorphology`](crate::vision::TryMorphology), ...) on a device whose backend has none
    /// in this build: the inputs move to the fallback, the output back.
    Vision,
}

impl Op {
    /// Every operation, in declaration order.
    pub const ALL: [Op; 9] = [
        Op::QuantizeDynamic,
        Op::QMatmul,
        Op::QuantizedLinear,
        Op::QuantizeWeights,
        Op::QuantizedModel,
        Op::Oversize,
        Op::Svd,
        Op::Fft,
        Op::Vision,
    ];

    /// burn's name for the operation (ours for the layer forward).
    pub const fn name(self) -> &'static str {
        match self {
            Op::QuantizeDynamic => "quantize_dynamic",
            Op::QMatmul => "q_matmul",
            Op::QuantizedLinear => "quantized_linear",
            Op::QuantizeWeights => "quantize_weights",
            Op::QuantizedModel => "quantized_model",
            Op::Oversize => "oversize",
            Op::Svd => "svd",
            Op::Fft => "fft",
            Op::Vision => "vision",
        }
    }

    /// A bit per operation, for the policy's per-operation rules.
    pub(crate) const fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
