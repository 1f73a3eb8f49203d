//! Twins of `burn::module::Module`'s panicking methods: quantizing a model's weights in place.
//!
//! burn's [`Module::quantize_weights`](burn::module::Module::quantize_weights) quantizes
//! every float parameter its [`Quantizer`](burn::module::Quantizer) selects, and the model's
//! own `forward` then runs on the packed weights. It panics on the first parameter a scheme
//! cannot apply to (a block that does not divide a conv weight), on a device that cannot
//! quantize the scheme (NdArray's packed stores, every remote device), and on wgpu it can
//! panic on the device thread, which poisons the device for the process (a conv weight whose
//! last dimension is not a multiple of 4 under `PackedU32`).
//!
//! - [`TryQuantizeWeights`] (in the prelude): `model.try_quantize_weights(&mut quantizer)?`,
//!   the same module type back, every parameter checked before any is quantized; the first
//!   refusal names the parameter's path.
//! - [`WeightQuantizer`]: the same with choices, keep in float what the scheme cannot apply
//!   to, and a [`Policy`](crate::policy::Policy) for a device that cannot quantize at all;
//!   returns a [`QuantizedModel`] with a per-parameter [`WeightReport`].
//!
//! What this adds over [`nn::ModuleQuantizer`](crate::nn::ModuleQuantizer): any module, in
//! place, through its own forward. What `ModuleQuantizer` adds: per-layer placement of
//! `Linear` weights across devices.

pub(crate) mod detach;
mod placed;
pub(crate) mod plan;
mod quantize;
mod report;
mod values;

pub use placed::{Movable, QuantizedModel};
pub use quantize::{TryQuantizeWeights, WeightQuantizer};
pub use report::{ParamOutcome, ParamReport, WeightReport};
