//! A place out of this process where a policy runs an operation
//! ([`Policy::in_cells`](super::Policy::in_cells)): what may crash runs there, and a crash
//! costs the call, not the caller's process. The policy knows the place only by this trait,
//! which the [cell pool](crate::cell::CellPool) implements, so that routing does not depend on
//! how the place is supervised.

use std::time::Instant;

use burn::tensor::TensorData;

use super::{Moved, Op, Policy};
use crate::error::Result;

/// A place out of this process that runs an operation named with its settings: a pool of
/// isolation cells ([`CellPool`](crate::cell::CellPool), the one implementation; sealed).
///
/// ```no_run
/// use std::sync::Arc;
/// use burn_guard::cell::{CellOptions, CellPool};
/// use burn_guard::policy::{Isolation, Policy};
///
/// # fn main() -> burn_guard::Result<()> {
/// let pool = Arc::new(CellPool::start(CellOptions::new("vision"), 2)?);
/// assert_eq!(pool.label(), "cell pool vision");
/// let policy = Policy::strict().in_cells(pool);
/// # Ok(())
/// # }
/// ```
pub trait Isolation: std::fmt::Debug + Send + Sync + sealed::Sealed {
    /// The place as the policy's statistics and a fallback's log name it.
    fn label(&self) -> String;

    /// Runs the operation `op`, with its settings `params`, on `inputs` out of this process.
    ///
    /// # Errors
    ///
    /// The operation's own refusal there, or what ended the place's process
    /// ([`GuardError::Cell`](crate::GuardError::Cell)).
    fn run(&self, op: &str, params: &[f64], inputs: Vec<TensorData>) -> Result<Vec<TensorData>>;
}

pub(crate) mod sealed {
    /// Only this crate's places are places.
    pub trait Sealed {}
}

impl Policy {
    /// Runs `op` (its name and settings) on `inputs` at `place`, counted as a run of `routed`
    /// away from `home` (a fallback to the place, with the bytes each way and the whole round
    /// trip's time), or as an error.
    pub(crate) fn run_isolated(
        &self,
        routed: Op,
        place: &dyn Isolation,
        op: &str,
        params: &[f64],
        inputs: Vec<TensorData>,
        home: &str,
    ) -> Result<Vec<TensorData>> {
        let started = Instant::now();
        let bytes = |data: &[TensorData]| {
            data.iter()
                .map(|d| u64::try_from(d.as_bytes().len()).unwrap_or(u64::MAX))
                .sum::<u64>()
        };
        let bytes_out = bytes(&inputs);
        let to = place.label();
        let answer = place.run(op, params, inputs);
        self.recorded(routed, answer, |outputs| {
            Moved {
                bytes_out,
                bytes_back: bytes(outputs),
                elapsed: started.elapsed(),
            }
            .fallback(home, &to)
        })
    }
}
