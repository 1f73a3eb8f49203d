//! A capability answer: native, or a gap that says what would happen instead.
//!
//! Data only: the capability layer computes these answers
//! ([`capability`](crate::capability) re-exports the types under their public paths) and
//! [`GuardError::Unsupported`](crate::GuardError::Unsupported) carries them, so they live here,
//! below both (a leaf: it imports nothing from the crate), where reading them reaches no device.

use std::borrow::Cow;
use std::fmt;

/// What a backend stack does with an operation it cannot run correctly.
///
/// A guard that only caught panics would let [`Effect::WrongValues`] through; a table that only
/// listed what was measured would have nothing to say about a runtime nobody ran, which is
/// [`Effect::Unmeasured`]: refused under a strict policy, sent to a fallback under a lenient
/// one, exactly like a measured gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Effect {
    /// The operation panics (in burn's front end, in a kernel, or on a worker thread).
    Panics,
    /// The operation runs and returns wrong values without a word.
    WrongValues,
    /// The backend does not implement the operation (or the dtype) at all.
    Unimplemented,
    /// Nobody measured this backend or runtime: there is no table to trust.
    Unmeasured,
}

impl Effect {
    /// A short phrase: `panics`, `computes wrong values`, `is not implemented`, `is unmeasured`.
    pub const fn describe(self) -> &'static str {
        match self {
            Effect::Panics => "panics",
            Effect::WrongValues => "computes wrong values",
            Effect::Unimplemented => "is not implemented",
            Effect::Unmeasured => "is unmeasured",
        }
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// Why a backend stack cannot run an operation: what would happen, and the evidence.
///
/// ```
/// use burn_guard::capability::{Effect, Gap};
///
/// let gap = Gap::new(Effect::WrongValues, "saturates at ±127");
/// assert_eq!(gap.to_string(), "computes wrong values: saturates at ±127");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Gap {
    /// What the backend would do instead of the right answer.
    pub effect: Effect,
    /// Why, in words a reader can check against burn's sources or a measurement.
    pub reason: Cow<'static, str>,
}

impl Gap {
    /// A gap with `effect` for `reason`.
    pub fn new(effect: Effect, reason: impl Into<Cow<'static, str>>) -> Self {
        Self {
            effect,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Gap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.effect, self.reason)
    }
}

/// A capability answer.
///
/// ```
/// use burn_guard::capability::{Effect, Gap, Support};
///
/// assert!(Support::Native.is_native());
/// let gap = Support::Gap(Gap::new(Effect::Unmeasured, "no table for cuda"));
/// assert_eq!(gap.gap().map(|g| g.effect), Some(Effect::Unmeasured));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Support {
    /// The stack runs the operation itself, with right values.
    Native,
    /// The stack cannot; the gap says what would happen and why.
    Gap(Gap),
}

impl Support {
    /// Whether the answer is [`Support::Native`].
    pub fn is_native(&self) -> bool {
        matches!(self, Support::Native)
    }

    /// The gap, when there is one.
    pub fn gap(&self) -> Option<&Gap> {
        match self {
            Support::Native => None,
            Support::Gap(gap) => Some(gap),
        }
    }

    /// A gap answer: `effect` for `reason`.
    pub(crate) fn gap_of(effect: Effect, reason: impl Into<Cow<'static, str>>) -> Self {
        Support::Gap(Gap::new(effect, reason))
    }
}
