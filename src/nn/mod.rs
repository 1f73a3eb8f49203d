//! Twins of `burn::nn` modules, and quantized inference.
//!
//! # Layer twins
//!
//! Twins of `burn::nn` modules: `layer.try_forward(x)?` where burn has `layer.forward(x)`.
//!
//! One extension trait per burn module, named `Try` + the module's name ([`TryLinear`] for
//! [`burn::nn::Linear`], …), sealed, with the methods of burn's `forward*` family under their
//! names with `try_` in front: same arguments, a `Result` of the same output. The prelude
//! brings every one of them into scope anonymously (`use burn_guard::prelude::*;`), so that
//! their names do not crowd yours.
//!
//! Every twin checks what the layer needs from its input against the layer's own parameters
//! (feature counts from the weights, heads from the module, state batch sizes, mask shapes)
//! before anything is dispatched, then runs burn's own `forward`: when the twin returns `Ok`,
//! the values are burn's, bit for bit. On wgpu a kernel panic poisons the device for the whole
//! process, so the checks — not the backstop — are the defence; the backstop
//! ([`panic::catch`](crate::panic::catch)) only turns what no check predicted into
//! [`GuardError::BackendPanic`](crate::GuardError::BackendPanic).
//!
//! Containers (transformers, recurrent layers, attention) check every inner layer they will
//! run, and an error from an inner layer carries its path as
//! [context](crate::GuardError::Context), after the name of the layer you called
//! ([`GuardError::Layer`](crate::GuardError::Layer)):
//! `transformer_encoder: layers.2.mha.query: linear: …`, `lstm: input_gate.input_transform:
//! linear: …`. [`GuardError::kind`](crate::GuardError::kind) is the inner error's, and
//! [`GuardError::path`](crate::GuardError::path) the path inside the layer.
//!
//! Checks that need a value read (embedding token ids, loss targets) are counted and can be
//! skipped by a caller who vouches for the values: see [`value_reads`](crate::value_reads).
//!
//! Fallback: never. A layer twin refuses or runs where its parameters live.
//!
//! ## Your own modules
//!
//! A `#[derive(Module)]` struct gets its own `try_forward` by calling the twins of its fields
//! with `?`, each with its field name as context:
//!
//! ```
//! use burn::module::Module;
//! use burn::nn::{Linear, LinearConfig, Relu};
//! use burn::tensor::{Device, Tensor};
//! use burn_guard::prelude::*;
//!
//! #[derive(Module, Debug)]
//! struct Mlp {
//!     hidden: Linear,
//!     activation: Relu,
//!     output: Linear,
//! }
//!
//! impl Mlp {
//!     fn try_forward(&self, x: Tensor<2>) -> burn_guard::Result<Tensor<2>> {
//!         let x = self.hidden.try_forward(x).context("hidden")?;
//!         let x = self.activation.try_forward(x).context("activation")?;
//!         self.output.try_forward(x).context("output")
//!     }
//! }
//!
//! let device = Device::flex();
//! let mlp = Mlp {
//!     hidden: LinearConfig::new(4, 8).init(&device),
//!     activation: Relu::new(),
//!     output: LinearConfig::new(8, 2).init(&device),
//! };
//! assert_eq!(mlp.try_forward(Tensor::ones([3, 4], &device))?.dims(), [3, 2]);
//!
//! let err = mlp.try_forward(Tensor::ones([3, 5], &device)).unwrap_err();
//! assert_eq!(err.path().as_deref(), Some("hidden"));
//! println!("{err}"); // hidden: linear: ...
//! # Ok::<(), burn_guard::GuardError>(())
//! ```

//! Config `init`s that can panic have twins too: [`TryInit`], [`TryInitStateless`].
//!
//! # Quantized inference
//!
//! Quantize a model's linear layers under a [`Policy`](crate::policy::Policy)
//! and run them wherever each weight ended up.
//!
//! - [`ModuleQuantizer`] walks a burn `Module`, quantizes the weight of every
//!   `burn::nn::Linear` (on its device, or on a fallback device the policy names), and returns
//!   [`QuantizedLayers`] with a [`QuantReport`].
//! - [`QuantizedLinear`] keeps its packed weight on the device that quantized it; a forward on
//!   a fallback-held layer moves activations, never weights, and counts the bytes.
//! - [`PlacedLinear`] is the same layer at the backend level, generic over `B: Backend` with a
//!   concrete fallback backend `C`: the form that serves a remote device (burn-router), whose
//!   quantized ops are unimplemented upstream. [`QuantizedLinear`] is `PlacedLinear` on
//!   burn's `Dispatch` backend: one implementation of both.

pub(crate) mod anomaly;
mod init;
pub(crate) mod layers;

pub use init::{TryInit, TryInitStateless};
// The seal of the config twins, for the configs of other burn crates (burn-vision's blurs).
#[cfg(feature = "vision")]
pub(crate) use init::Sealed as InitSealed;

/// The input of [`TryMultiHeadAttention`]: burn's `MhaInput` keeps its tensors private, so
/// the twin takes this one, built the same way, which becomes burn's on the call.
pub mod attention {
    pub use super::layers::attention::MhaInput;
}

/// The inputs of [`TryTransformerEncoder`] and [`TryTransformerDecoder`]: burn's keep their
/// tensors private, so the twins take these, built the same way.
pub mod transformer {
    pub use super::layers::transformer::{TransformerDecoderInput, TransformerEncoderInput};
}
pub use layers::*;
// Quantized inference moved to the quantization wing; its old paths, kept for one release.
pub use crate::quant::{
    InvalidLayer, LayerReport, ModuleQuantizer, PlacedLinear, Placement, QuantReport,
    QuantizedLayers, QuantizedLinear,
};
