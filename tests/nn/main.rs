//! The `burn::nn` twins against raw burn: one module per layer family.
//!
//! Each family has differential tests (proptest, raw burn under `catch_unwind` vs
//! `try_forward`: burn panics ⇔ `Err`, equal values when both succeed) on Flex and NdArray,
//! and a bad-input table whose refusals must come from checks, never from the backstop.

#[path = "../common/mod.rs"]
mod common;
mod support;
mod wgpu;

mod activation;
mod attention;
mod conv;
mod init;
mod layer_names;
mod linear;
mod loss;
mod norm;
mod quantized;
mod rnn;
