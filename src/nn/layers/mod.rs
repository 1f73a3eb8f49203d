//! The twin traits of `burn::nn` modules, one file per family; see [`crate::nn`].
//! Only traits are exported from here: the prelude takes this module whole.

pub(crate) mod support;

mod dropout;
mod linear;
mod rnn;

pub use dropout::TryDropout;
pub use linear::TryLinear;
pub use rnn::{TryBiGru, TryBiLstm, TryBiRnn, TryGru, TryLstm, TryRnn};
