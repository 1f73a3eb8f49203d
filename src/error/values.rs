//! The typed numbers an error reports: a scalar widened without loss, what a rule allows, and
//! how non-finite values split.

use std::fmt;

use burn::tensor::{DType, FloatDType};

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

/// How non-finite values split, as TensorFlow's `check_numerics` splits them: NaN usually
/// comes from `0 / 0`, `inf - inf` or a NaN input, an infinity from an overflow or a division
/// by zero, and its sign says which way it overflowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct NonFiniteSplit {
    /// Values that are NaN.
    pub nan: u64,
    /// Values that are `+inf`.
    pub pos_inf: u64,
    /// Values that are `-inf`.
    pub neg_inf: u64,
}

impl NonFiniteSplit {
    /// The split of `values` (finite values count nowhere).
    ///
    /// ```
    /// use burn_guard::error::NonFiniteSplit;
    /// let split = NonFiniteSplit::of([1.0, f64::NAN, f64::INFINITY, f64::NAN]);
    /// assert_eq!(split, NonFiniteSplit { nan: 2, pos_inf: 1, neg_inf: 0 });
    /// assert_eq!(split.count(), 3);
    /// assert_eq!(split.to_string(), "2 NaN, 1 +inf, 0 -inf");
    /// ```
    pub fn of(values: impl IntoIterator<Item = f64>) -> Self {
        let mut split = Self::default();
        for value in values {
            split.add(value);
        }
        split
    }

    /// Counts `value` where it belongs.
    pub(crate) fn add(&mut self, value: f64) {
        if value.is_nan() {
            self.nan += 1;
        } else if value == f64::INFINITY {
            self.pos_inf += 1;
        } else if value == f64::NEG_INFINITY {
            self.neg_inf += 1;
        }
    }

    /// How many values are NaN, `+inf` or `-inf`.
    pub fn count(self) -> u64 {
        self.nan
            .saturating_add(self.pos_inf)
            .saturating_add(self.neg_inf)
    }
}

impl fmt::Display for NonFiniteSplit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self {
            nan,
            pos_inf,
            neg_inf,
        } = self;
        write!(f, "{nan} NaN, {pos_inf} +inf, {neg_inf} -inf")
    }
}

/// One parameter whose gradient holds NaN or ±inf, as
/// [`GuardError::NonFiniteGradients`](super::GuardError::NonFiniteGradients) names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NonFiniteParam {
    /// The parameter's module path.
    pub path: String,
    /// How many values of its gradient are NaN, `+inf` or `-inf`.
    pub count: u64,
    /// How many values its gradient has.
    pub total: u64,
    /// How `count` splits, where the values were read to tell.
    pub split: Option<NonFiniteSplit>,
    /// The gradient's dtype, where known.
    pub dtype: Option<FloatDType>,
    /// The gradient's shape, where known.
    pub shape: Option<Vec<usize>>,
}

impl NonFiniteParam {
    /// `count` of `total` values of the gradient of `path` are not finite; nothing else known.
    pub fn new(path: impl Into<String>, count: u64, total: u64) -> Self {
        Self {
            path: path.into(),
            count,
            total,
            split: None,
            dtype: None,
            shape: None,
        }
    }
}

/// `dtype` as a float dtype, `None` for any other (only a float dtype holds NaN or ±inf; burn's
/// own conversion panics on the others).
pub(crate) fn float_dtype(dtype: DType) -> Option<FloatDType> {
    match dtype {
        DType::F64 => Some(FloatDType::F64),
        DType::F32 => Some(FloatDType::F32),
        DType::Flex32 => Some(FloatDType::Flex32),
        DType::F16 => Some(FloatDType::F16),
        DType::BF16 => Some(FloatDType::BF16),
        _ => None,
    }
}
