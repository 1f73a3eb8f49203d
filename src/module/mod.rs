//! The model quantizer's old home, kept for one release: everything here moved to
//! [`quant`](crate::quant), the quantization wing, where it is re-exported from.

pub use crate::quant::{
    Movable, ParamReport, QuantizedModel, TryQuantizeWeights, WeightQuantizer, WeightReport,
};
