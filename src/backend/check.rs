//! The shape rules of the backend-level linear layer.
//!
//! They are the rules of every linear in the crate, [`check::linear::linear`](crate::check::linear::linear) and
//! [`check::linear::linear_backward`](crate::check::linear::linear_backward), re-exported here for the backend layer: one rule, one
//! verdict, whichever layer runs the operation.

pub use crate::check::linear::{LinearShapes, linear, linear_backward};
