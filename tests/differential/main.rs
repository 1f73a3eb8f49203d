//! Differential tests, one module per family of twins: raw burn under `catch_unwind` against
//! the `try_` twin on the same input. Burn panics ⇔ the twin returns `Err` (never a mere caught
//! panic); when both succeed, equal values. Proptest draws the inputs on Flex and NdArray; each
//! family has a fixed wgpu subset. One binary: one link step.

#[path = "../common/mod.rs"]
mod common;

mod creation;
mod elementwise;
mod indexing;
mod module;
mod numeric;
mod reduce;
mod view;
