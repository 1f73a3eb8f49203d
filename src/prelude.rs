//! Every extension trait and free twin: `use burn_guard::prelude::*;`.

pub use crate::error::{ErrorKind, GuardError, Result, ResultExt};
pub use crate::tensor::*;
