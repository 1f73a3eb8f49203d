//! Every extension trait and free twin: `use burn_guard::prelude::*;`.

pub use crate::error::{GuardError, Result};
pub use crate::tensor::*;
