//! What a backend stack can do, before anything is dispatched to it.
//!
//! A stack is read from [`Backend::name`](burn_backend::Backend::name) layer by layer
//! ([`BackendStack`]); capability answers are computed from declared tables per layer.

mod stack;

pub use stack::{BackendStack, Layer};
