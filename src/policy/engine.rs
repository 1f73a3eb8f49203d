//! Decide, then act: [`Policy::route`] decides where an operation runs (capability,
//! per-operation rules, global switch, first capable target) and runs nothing;
//! [`Policy::run`] runs the caller's code for the route it got (at home, or on the target with
//! what it moved) and records it through [`Policy::record`], which counts what
//! happened (a fallback with its bytes and move time, warned about once per (op, from, to)).
//! Nothing outside the policy decides, counts or warns.

use std::time::Duration;

use super::{Op, Policy};
use crate::capability::{Gap, Support};
use crate::error::{GuardError, Result, Unsupported};

/// A place the operation could run instead: the device (or backend) to move to, its label
/// and its capability answer.
pub(crate) struct Target<T> {
    pub(crate) place: T,
    pub(crate) label: String,
    pub(crate) support: Support,
}

/// What the policy decided for one call of an operation: run it where its input lives, on a
/// fallback target, or not at all. Deciding runs nothing and records nothing; the caller runs
/// straight-line code for the route it got and records what happened ([`Policy::record`]).
pub(crate) enum Route<T> {
    /// The home backend can: run there.
    Home,
    /// The home backend cannot, the policy allows a fallback for this operation, and this
    /// target can.
    Fallback(Target<T>),
    /// The home backend cannot, and either the policy forbids a fallback or no target can:
    /// the refusal names the home backend, the capability and every target's gap.
    Refused(GuardError),
}

/// Where [`Policy::run`] runs a routed call: where its inputs live, or on a fallback target.
pub(crate) enum Place<'a, P> {
    /// Where its inputs live.
    Home,
    /// On this fallback target: inputs move there, results come back as the caller needs.
    Away(&'a Target<P>),
}

/// What a guarded call did, for [`Policy::record`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Outcome<'a> {
    /// It ran on its home backend.
    Native,
    /// It ran on a fallback target: from `from` to `to`, `bytes_out` moved there,
    /// `bytes_back` moved back, in `elapsed` spent moving.
    Fallback {
        from: &'a str,
        to: &'a str,
        bytes_out: u64,
        bytes_back: u64,
        elapsed: Duration,
    },
    /// It failed or was refused.
    Error,
}

/// What a fallback moved: the bytes each way (counted from the data's own dtype) and the time
/// spent moving them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Moved {
    pub(crate) bytes_out: u64,
    pub(crate) bytes_back: u64,
    pub(crate) elapsed: Duration,
}

impl Moved {
    /// The outcome of a call that ran on `to` instead of `from` and moved this.
    pub(crate) fn fallback<'a>(self, from: &'a str, to: &'a str) -> Outcome<'a> {
        Outcome::Fallback {
            from,
            to,
            bytes_out: self.bytes_out,
            bytes_back: self.bytes_back,
            elapsed: self.elapsed,
        }
    }
}

impl Policy {
    /// Decides where `op` runs: at home when `native` says the home backend can; otherwise,
    /// when the policy allows `op` to fall back, on the first target (in the policy's order)
    /// whose own answer is native; otherwise refused. Pure: runs, moves and records nothing.
    pub(crate) fn route<T>(
        &self,
        op: Op,
        home: &dyn Fn() -> String,
        capability: &dyn Fn() -> String,
        native: Support,
        targets: impl IntoIterator<Item = Target<T>>,
    ) -> Route<T> {
        let gap = match native {
            Support::Native => return Route::Home,
            Support::Gap(gap) => gap,
        };
        let refusal = |gap: Gap, fallbacks: Vec<(String, Gap)>| {
            Route::Refused(GuardError::Unsupported(
                Unsupported::new(op.name(), home(), capability(), gap).with_fallbacks(fallbacks),
            ))
        };
        if !self.may_fall_back(op) {
            return refusal(gap, Vec::new());
        }
        let mut cannot = Vec::new();
        for target in targets {
            match target.support {
                Support::Native => return Route::Fallback(target),
                Support::Gap(target_gap) => cannot.push((target.label, target_gap)),
            }
        }
        refusal(gap, cannot)
    }

    /// Records what a routed call did: a native run, a fallback (counted, its bytes and move
    /// time added, warned about once per (op, from, to)), or an error.
    pub(crate) fn record(&self, op: Op, outcome: Outcome<'_>) {
        match outcome {
            Outcome::Native => self.recorder().native(op),
            Outcome::Fallback {
                from,
                to,
                bytes_out,
                bytes_back,
                elapsed,
            } => {
                self.recorder().fallback(op, from, to);
                self.recorder().moved(op, bytes_out, bytes_back, elapsed);
            }
            Outcome::Error => self.recorder().error(op),
        }
    }

    /// Runs what [`route`](Self::route) decided and records it: the one way a routed path acts
    /// on a decision. `act` runs where the route says ([`Place::Home`], or [`Place::Away`] on
    /// the target) and returns its value with what it moved; a run at home counts as native, a
    /// run away as a fallback from `from()` to the target with its bytes and time; a refusal,
    /// and a run that fails, count as an error of `op`.
    ///
    /// # Errors
    ///
    /// The refusal the route carries, or the run's own error.
    pub(crate) fn run<P, T>(
        &self,
        op: Op,
        route: Route<P>,
        from: &dyn Fn() -> String,
        act: impl FnOnce(Place<'_, P>) -> Result<(T, Moved)>,
    ) -> Result<T> {
        match route {
            Route::Home => self
                .recorded(op, act(Place::Home), |_| Outcome::Native)
                .map(|(value, _)| value),
            Route::Fallback(target) => {
                let from = from();
                let ran = act(Place::Away(&target));
                self.recorded(op, ran, |(_, moved)| moved.fallback(&from, &target.label))
                    .map(|(value, _)| value)
            }
            Route::Refused(why) => {
                self.record(op, Outcome::Error);
                Err(why)
            }
        }
    }

    /// Records what a guarded call did — `outcome` of its value when it is `Ok`, an error
    /// otherwise — and hands the result back: the one way out of a call, so that no error of
    /// its steps goes uncounted.
    ///
    /// # Errors
    ///
    /// `result`'s own error.
    pub(crate) fn recorded<'a, Y>(
        &self,
        op: Op,
        result: Result<Y>,
        outcome: impl FnOnce(&Y) -> Outcome<'a>,
    ) -> Result<Y> {
        match &result {
            Ok(value) => self.record(op, outcome(value)),
            Err(_) => self.record(op, Outcome::Error),
        }
        result
    }

    /// Counts `checked` as an error of `op` when it is one: for the pure checks a guarded
    /// operation runs before it can ask the policy anything (shapes, schemes).
    ///
    /// # Errors
    ///
    /// `checked`'s own error.
    pub(crate) fn checked<T>(&self, op: Op, checked: Result<T>) -> Result<T> {
        if checked.is_err() {
            self.recorder().error(op);
        }
        checked
    }
}
