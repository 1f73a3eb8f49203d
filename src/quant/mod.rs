//! The quantization wing: every way burn-guard quantizes, on one plan.
//!
//! burn quantizes a tensor (`Tensor::quantize_dynamic`), a model in place
//! (`Module::quantize_weights`), and offers nothing for a layer whose device cannot quantize.
//! Each panics where a scheme cannot apply to a shape or a device cannot quantize it, and on
//! wgpu that panic can happen on the device thread, which poisons the device for the process.
//! Three pipelines share this wing's checks (`check::quant`), capability table
//! (`capability::quant`), routing (`policy`) and report ([`QuantReport`]):
//!
//! | pipeline | entry | what it quantizes | where it lives after |
//! |---|---|---|---|
//! | the routed engine (`engine.rs`) | `try_quantize_dynamic` (tensor twins), [`quantize_dynamic_or_fallback`] (backend level) | one tensor | its own device, or the policy's first capable device ([`Placed`]) |
//! | the model quantizer ([`WeightQuantizer`], [`TryQuantizeWeights`]) | `model.try_quantize_weights(&mut quantizer)` | every float parameter a burn `Quantizer` selects, in place | the model's device, or a fallback device for the whole model ([`QuantizedModel`]) |
//! | the layer quantizer ([`ModuleQuantizer`]) | `ModuleQuantizer::quantize(&model)` | every `Linear` weight, transposed so that blocks run along the input features | each layer's own device or a fallback, per layer ([`QuantizedLinear`], [`PlacedLinear`]) |
//!
//! **One round-trip error for every tensor** (`round_trip.rs`): the model quantizer's gate
//! ([`WeightQuantizer::measure_error`], [`WeightQuantizer::max_relative_error`]) and the tensor
//! twins' measured variants (`try_quantize_dynamic_measured`, with a [`QuantizeOptions`] bound)
//! compute `‖dequantize(q) − w‖ / ‖w‖` the same way, where the tensor was quantized: on Flex
//! from the stored values in place, on another host backend from the dequantized values read
//! back, on a device from two sums reduced there.
//!
//! **Why two "held elsewhere" types.** [`QuantizedModel`] holds a whole model of any type on
//! one fallback device and moves each forward's inputs there and outputs back; it is burn's
//! `Dispatch` backend only (a model is a `Module` on `burn::Tensor`). [`PlacedLinear`] holds
//! one layer's weight on a fallback backend `C` that may differ from the layer's backend `B`,
//! generic over both: the form a remote device (burn-router, whose quantized ops are
//! unimplemented upstream) needs at the backend level. [`QuantizedLinear`] is `PlacedLinear`
//! on `Dispatch`. A model cannot be generic over two backends, and a layer does not need a
//! whole model's move, so the two stay apart.
//!
//! **Why the layer quantizer stays a quantizer of its own.** Its per-layer placement (each
//! weight on whichever device could quantize it) and its transposed layout change how the
//! layer is called (`layers.forward("head", x)`, not the model's own forward); an option of
//! [`WeightQuantizer`] would return a model whose own forward no longer runs. Both report
//! through [`QuantReport`], one row per parameter, counted with one byte formula
//! ([`check::bytes::counted_bytes`](crate::check::bytes::counted_bytes)).

pub(crate) mod engine;
mod held;
mod layers;
mod linear;
mod model;
mod placed;
mod report;
pub(crate) mod round_trip;
pub(crate) mod values;

pub use engine::{
    Placed, PlacedQuantized, dequantize, q_matmul, quantize_dynamic, quantize_dynamic_or_fallback,
};
pub use held::{Movable, QuantizedModel};
pub use layers::{ModuleQuantizer, QuantizedLayers};
pub use linear::QuantizedLinear;
pub use model::{TryQuantizeWeights, WeightQuantizer};
pub use placed::{InvalidLayer, PlacedLinear};
pub use report::{LayerReport, ParamReport, Placement, QuantReport, WeightReport};
pub use round_trip::{MeasuredQuantization, QuantizeOptions};
