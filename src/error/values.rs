//! The typed numbers an error reports: a scalar widened without loss, and what a rule allows.

use std::fmt;

/// A scalar, widened without loss to the widest type of its family: the value of a scalar
/// argument, or a number an error reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScalarValue {
    /// A floating-point value (`f16`, `bf16`, `f32`, `f64`).
    Float(f64),
    /// A signed integer (and any integer of fewer than 64 bits).
    Int(i64),
    /// A 64-bit unsigned integer (and `usize`).
    UInt(u64),
    /// A boolean.
    Bool(bool),
}

impl fmt::Display for ScalarValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Float(x) => write!(f, "{x:?}"),
            Self::Int(x) => write!(f, "{x}"),
            Self::UInt(x) => write!(f, "{x}"),
            Self::Bool(x) => write!(f, "{x}"),
        }
    }
}

macro_rules! scalar_from {
    ($($ty:ty => $variant:ident as $wide:ty),* $(,)?) => {$(
        impl From<$ty> for ScalarValue {
            fn from(value: $ty) -> Self {
                Self::$variant(<$wide>::from(value))
            }
        }
    )*};
}

scalar_from! {
    f64 => Float as f64,
    f32 => Float as f64,
    i64 => Int as i64,
    i32 => Int as i64,
    i16 => Int as i64,
    i8 => Int as i64,
    u64 => UInt as u64,
    u32 => UInt as u64,
    u16 => UInt as u64,
    u8 => UInt as u64,
    bool => Bool as bool,
}

impl From<usize> for ScalarValue {
    fn from(value: usize) -> Self {
        // `usize` is at most 64 bits on every target burn supports.
        Self::UInt(value as u64)
    }
}

impl From<isize> for ScalarValue {
    fn from(value: isize) -> Self {
        Self::Int(value as i64)
    }
}

/// What an [`GuardError::OutOfRange`](super::GuardError::OutOfRange) rule allows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Limit {
    /// `value >= limit`.
    AtLeast(ScalarValue),
    /// `value <= limit`.
    AtMost(ScalarValue),
    /// `value > limit`.
    Above(ScalarValue),
    /// `value < limit`.
    Below(ScalarValue),
    /// `value == limit`.
    Exactly(ScalarValue),
    /// `low <= value <= high`.
    Between(ScalarValue, ScalarValue),
    /// `value != 0`.
    NonZero,
    /// A power of two; `below` and `above` are the nearest to the value (`below` is 0 when
    /// the value is below 1).
    PowerOfTwo {
        /// The largest power of two below the value.
        below: u64,
        /// The smallest power of two above the value.
        above: u64,
    },
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AtLeast(x) => write!(f, "at least {x}"),
            Self::AtMost(x) => write!(f, "at most {x}"),
            Self::Above(x) => write!(f, "greater than {x}"),
            Self::Below(x) => write!(f, "less than {x}"),
            Self::Exactly(x) => write!(f, "exactly {x}"),
            Self::Between(low, high) => write!(f, "in [{low}, {high}]"),
            Self::NonZero => write!(f, "non-zero"),
            Self::PowerOfTwo { below: 0, above } => write!(f, "a power of two, such as {above}"),
            Self::PowerOfTwo { below, above } => {
                write!(f, "a power of two, such as {below} or {above}")
            }
        }
    }
}
