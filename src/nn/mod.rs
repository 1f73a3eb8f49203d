//! Quantized inference: quantize a model's linear layers under a [`Policy`](crate::policy::Policy)
//! and run them wherever each weight ended up.
//!
//! - [`ModuleQuantizer`] walks a burn `Module`, quantizes the weight of every
//!   `burn::nn::Linear` (on its device, or on a fallback device the policy names), and returns
//!   [`QuantizedLayers`] with a [`QuantReport`].
//! - [`QuantizedLinear`] keeps its packed weight on the device that quantized it; a forward on
//!   a fallback-held layer moves activations, never weights, and counts the bytes.
//! - [`PlacedLinear`] is the same layer at the backend level, generic over `B: Backend` with a
//!   concrete fallback backend `C`: the form that serves a remote device (burn-router), whose
//!   quantized ops are unimplemented upstream.

mod linear;
mod placed;
mod quantizer;
mod report;

pub use linear::{InvalidLayer, QuantizedLinear};
pub use placed::PlacedLinear;
pub use quantizer::{ModuleQuantizer, QuantizedLayers};
pub use report::{LayerReport, Placement, QuantReport};
