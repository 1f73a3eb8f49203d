//! What a backend stack can do, before anything is dispatched to it.
//!
//! A stack is read from [`Backend::name`](burn_backend::Backend::name) layer by layer
//! ([`BackendStack`]), or from a `burn::Tensor`'s device ([`stack_of`]). Known layers have
//! declared tables ([`quantize_support`]); an unknown backend is probed once on a tiny tensor
//! under the panic backstop and the answer cached ([`probe_quantize`]). `tests/capability_truth.rs`
//! keeps the declared tables equal to what the backends actually do.

mod device;
mod dtype;
mod probe;
mod quant;
mod stack;

pub use device::stack_of;
pub use dtype::dtype_support;
pub use quant::{Support, probe_quantize, quantize_support, require_quantize};
pub use stack::{BackendStack, Layer};
