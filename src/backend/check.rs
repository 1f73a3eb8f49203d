//! The shape rules of the backend-level linear layer.
//!
//! They are the rules of every linear in the crate, [`check::module::linear`](crate::check::module::linear) and
//! [`check::module::linear_backward`](crate::check::module::linear_backward), re-exported here for the backend layer: one rule, one
//! verdict, whichever layer runs the operation.

pub use crate::check::module::{LinearShapes, linear, linear_backward};
