//! The refusals every check family builds: one rule of one operation, and the comparisons the
//! checks repeat (a rank, a size against its bound, two shapes that must agree).
//!
//! A check reads as its list of rules, `Rule(op, "k must not exceed the dimension size")
//! .at_most("k", k, size)?`, and each refusal keeps the variant and the fields it carries:
//! the `shape` of a [`GuardError::RankMismatch`] is the offending tensor's, the `shapes` of a
//! [`GuardError::ShapeMismatch`] are the ones the rule compares, in argument order.

use burn::tensor::DType;
use burn::tensor::ops::InterpolateMode;

use super::quirks::{Modes, Quirks};
use crate::error::{GuardError, Limit, NonFiniteSplit, Result, ScalarValue, float_dtype};

/// One rule of one operation: the operation as burn names it (`.0`) and the rule's text (`.1`),
/// the two fields every refusal of a check carries.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rule(pub(crate) &'static str, pub(crate) &'static str);

/// A number a rule bounds: ordered, and shown in a refusal as a [`ScalarValue`].
pub(crate) trait Bounded: PartialOrd + Into<ScalarValue> {}

impl<T: PartialOrd + Into<ScalarValue>> Bounded for T {}

/// `Ok` when the rule `holds`, else the refusal `refuse` builds (only then).
fn unless(holds: bool, refuse: impl FnOnce() -> GuardError) -> Result<()> {
    if holds { Ok(()) } else { Err(refuse()) }
}

impl Rule {
    // ------------------------------------------------------------------ numbers
    /// [`GuardError::OutOfRange`]: `name` had `value`, and the rule allows `limit`.
    pub(crate) fn out_of_range(
        self,
        name: &'static str,
        value: impl Into<ScalarValue>,
        limit: Limit,
    ) -> GuardError {
        let (op, rule, value) = (self.0, self.1, value.into());
        GuardError::OutOfRange {
            op,
            rule,
            name,
            value,
            limit,
        }
    }

    /// `Ok` when `holds` (the rule's own test of `value`), else [`GuardError::OutOfRange`]
    /// with `value` and the `limit` it breaks.
    pub(crate) fn within(
        self,
        holds: bool,
        name: &'static str,
        value: impl Into<ScalarValue>,
        limit: Limit,
    ) -> Result<()> {
        unless(holds, || self.out_of_range(name, value, limit))
    }

    /// `value >= min`, else [`GuardError::OutOfRange`] with [`Limit::AtLeast`].
    pub(crate) fn at_least<T: Bounded>(self, name: &'static str, value: T, min: T) -> Result<()> {
        let holds = value >= min;
        unless(holds, || {
            self.out_of_range(name, value, Limit::AtLeast(min.into()))
        })
    }

    /// `value <= max`, else [`GuardError::OutOfRange`] with [`Limit::AtMost`].
    pub(crate) fn at_most<T: Bounded>(self, name: &'static str, value: T, max: T) -> Result<()> {
        let holds = value <= max;
        unless(holds, || {
            self.out_of_range(name, value, Limit::AtMost(max.into()))
        })
    }

    /// `value < bound`, else [`GuardError::OutOfRange`] with [`Limit::Below`].
    pub(crate) fn below<T: Bounded>(self, name: &'static str, value: T, bound: T) -> Result<()> {
        let holds = value < bound;
        unless(holds, || {
            self.out_of_range(name, value, Limit::Below(bound.into()))
        })
    }

    /// No 0 among `values` (sizes, strides, dilations), else [`GuardError::OutOfRange`]
    /// naming `name`, with the value 0 and [`Limit::AtLeast`] 1.
    pub(crate) fn nonzero_sizes(self, name: &'static str, values: &[usize]) -> Result<()> {
        let smallest = values.iter().min().copied().unwrap_or(1);
        self.at_least(name, smallest, 1)
    }

    // ------------------------------------------------------------------ ranks
    /// [`GuardError::RankMismatch`]: the operation needs rank `expected` and got `got`; `shape`
    /// is the offending tensor's.
    pub(crate) fn rank_mismatch(self, expected: usize, got: usize, shape: &[usize]) -> GuardError {
        let (op, rule, shape) = (self.0, self.1, shape.to_vec());
        GuardError::RankMismatch {
            op,
            rule,
            expected,
            got,
            shape,
        }
    }

    /// `got == expected` (an output rank the call's types fix against the one the rule
    /// implies), else [`GuardError::RankMismatch`] about `shape`.
    pub(crate) fn expect_rank(self, expected: usize, got: usize, shape: &[usize]) -> Result<()> {
        unless(got == expected, || self.rank_mismatch(expected, got, shape))
    }

    /// `shape` has rank `expected`, else [`GuardError::RankMismatch`].
    pub(crate) fn rank(self, shape: &[usize], expected: usize) -> Result<()> {
        self.expect_rank(expected, shape.len(), shape)
    }

    /// `shape` has rank `min` or more, else [`GuardError::RankMismatch`] expecting `min`.
    pub(crate) fn rank_at_least(self, shape: &[usize], min: usize) -> Result<()> {
        unless(shape.len() >= min, || {
            self.rank_mismatch(min, shape.len(), shape)
        })
    }

    /// The dims of `shape` as an array when its rank is `N` (a destructuring a check names),
    /// else [`GuardError::RankMismatch`] expecting `N`.
    pub(crate) fn dims<const N: usize>(self, shape: &[usize]) -> Result<[usize; N]> {
        <[usize; N]>::try_from(shape).map_err(|_| self.rank_mismatch(N, shape.len(), shape))
    }

    /// `shape[index]` when the rank is above `index`, else [`GuardError::RankMismatch`]
    /// expecting `index + 1`.
    pub(crate) fn dim(self, shape: &[usize], index: usize) -> Result<usize> {
        let refuse = || self.rank_mismatch(index + 1, shape.len(), shape);
        shape.get(index).copied().ok_or_else(refuse)
    }

    /// The last dim of `shape` when its rank is 1 or more, else [`GuardError::RankMismatch`]
    /// expecting 1.
    pub(crate) fn last(self, shape: &[usize]) -> Result<usize> {
        let refuse = || self.rank_mismatch(1, shape.len(), shape);
        shape.last().copied().ok_or_else(refuse)
    }

    // ------------------------------------------------------------------ shapes
    /// [`GuardError::ShapeMismatch`] with `shapes`, in argument order.
    pub(crate) fn shape_mismatch(self, shapes: &[&[usize]]) -> GuardError {
        let shapes = shapes.iter().map(|shape| shape.to_vec()).collect();
        let (op, rule) = (self.0, self.1);
        GuardError::ShapeMismatch { op, rule, shapes }
    }

    /// `Ok` when the shapes `agree` by the rule, else [`GuardError::ShapeMismatch`] with
    /// `shapes`.
    pub(crate) fn shapes_agree(self, agree: bool, shapes: &[&[usize]]) -> Result<()> {
        unless(agree, || self.shape_mismatch(shapes))
    }

    /// `lhs == rhs`, else [`GuardError::ShapeMismatch`] with both.
    pub(crate) fn same_shape(self, lhs: &[usize], rhs: &[usize]) -> Result<()> {
        self.shapes_agree(lhs == rhs, &[lhs, rhs])
    }

    /// `shape[dim]` exists and is not 0, else [`GuardError::Empty`] in `dim`.
    pub(crate) fn nonempty_dim(self, shape: &[usize], dim: usize) -> Result<()> {
        let size = shape.get(dim).copied().unwrap_or(0);
        unless(size > 0, || self.empty(shape, Some(dim)))
    }

    /// [`GuardError::Empty`]: `shape` has no element where the rule needs one, in `dim` when the
    /// rule is about one dimension.
    pub(crate) fn empty(self, shape: &[usize], dim: Option<usize>) -> GuardError {
        let (op, rule, shape) = (self.0, self.1, shape.to_vec());
        GuardError::Empty {
            op,
            rule,
            shape,
            dim,
        }
    }

    /// `shape` has at least one element, else [`GuardError::Empty`] about no one dimension.
    pub(crate) fn nonempty(self, shape: &[usize]) -> Result<()> {
        unless(!shape.contains(&0), || self.empty(shape, None))
    }

    // ------------------------------------------------------------------ dtypes and values
    /// [`GuardError::NotRepresentable`]: `dtype` cannot hold `value`.
    pub(crate) fn not_representable(self, value: ScalarValue, dtype: DType) -> GuardError {
        let (op, rule) = (self.0, self.1);
        GuardError::NotRepresentable {
            op,
            rule,
            value,
            dtype,
        }
    }

    /// [`GuardError::NonFinite`] when `count` of `total` values are NaN or ±inf (`count > 0`),
    /// counted together (the split unknown).
    pub(crate) fn finite_count(self, count: u64, total: u64) -> Result<()> {
        let (op, rule) = (self.0, self.1);
        unless(count == 0, || GuardError::NonFinite {
            op,
            rule,
            count,
            total,
            split: None,
            dtype: None,
            shape: None,
        })
    }

    /// Every value finite, else [`GuardError::NonFinite`] with how many are not, split into
    /// NaN, `+inf` and `-inf`.
    pub(crate) fn finite(self, values: &[f64]) -> Result<()> {
        let split = NonFiniteSplit::of(values.iter().copied());
        self.finite_split(split, values.len() as u64, None, None)
    }

    /// [`GuardError::NonFinite`] when `split` counts any of `total` values, with the dtype and
    /// the shape of the tensor they are, where known.
    pub(crate) fn finite_split(
        self,
        split: NonFiniteSplit,
        total: u64,
        dtype: Option<DType>,
        shape: Option<&[usize]>,
    ) -> Result<()> {
        let (op, rule) = (self.0, self.1);
        unless(split.count() == 0, || GuardError::NonFinite {
            op,
            rule,
            count: split.count(),
            total,
            split: Some(split),
            dtype: dtype.and_then(float_dtype),
            shape: shape.map(<[usize]>::to_vec),
        })
    }

    /// `Ok` when `value` `fits` in `dtype`, else [`GuardError::NotRepresentable`].
    pub(crate) fn representable(self, fits: bool, value: ScalarValue, dtype: DType) -> Result<()> {
        unless(fits, || self.not_representable(value, dtype))
    }

    /// `Ok` when the rule `allows` `dtype`, else [`GuardError::InvalidDType`].
    pub(crate) fn dtype_allowed(self, allows: bool, dtype: DType) -> Result<()> {
        let (op, rule) = (self.0, self.1);
        unless(allows, || GuardError::InvalidDType { op, rule, dtype })
    }

    /// `mode` among the `modes` the backend of `quirks` runs, else
    /// [`GuardError::InvalidArgument`] naming the mode and the backend.
    pub(crate) fn mode_implemented(
        self,
        modes: Modes,
        mode: &InterpolateMode,
        quirks: &Quirks,
    ) -> Result<()> {
        unless(modes.contains(mode), || {
            self.invalid(format!("mode={mode:?}, backend={}", quirks.backend))
        })
    }

    /// [`GuardError::InvalidArgument`] with the offending values, formatted as `name=value`.
    pub(crate) fn invalid(self, got: String) -> GuardError {
        let (op, rule) = (self.0, self.1);
        GuardError::InvalidArgument { op, rule, got }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_refuse_with_the_fields_the_checks_carried() {
        let rule = Rule("topk", "k must not exceed the dimension size");
        assert!(rule.at_most("k", 3usize, 3).is_ok());
        assert!(matches!(
            rule.at_most("k", 4usize, 3),
            Err(GuardError::OutOfRange {
                op: "topk",
                rule: "k must not exceed the dimension size",
                name: "k",
                value: ScalarValue::UInt(4),
                limit: Limit::AtMost(ScalarValue::UInt(3)),
            })
        ));
        assert!(matches!(
            rule.below("k", 3usize, 3),
            Err(GuardError::OutOfRange {
                limit: Limit::Below(ScalarValue::UInt(3)),
                ..
            })
        ));
        assert!(matches!(
            rule.at_least("k", 0usize, 1),
            Err(GuardError::OutOfRange {
                limit: Limit::AtLeast(ScalarValue::UInt(1)),
                ..
            })
        ));
        assert!(matches!(
            rule.dims::<3>(&[2, 3]),
            Err(GuardError::RankMismatch { expected: 3, got: 2, ref shape, .. }) if shape == &[2, 3]
        ));
        assert!(matches!(rule.dims::<2>(&[2, 3]), Ok([2, 3])));
        assert!(matches!(
            rule.rank_at_least(&[2], 2),
            Err(GuardError::RankMismatch {
                expected: 2,
                got: 1,
                ..
            })
        ));
        assert!(matches!(
            rule.same_shape(&[2], &[3]),
            Err(GuardError::ShapeMismatch { ref shapes, .. }) if shapes == &[vec![2], vec![3]]
        ));
        assert!(matches!(
            rule.nonempty(&[2, 0]),
            Err(GuardError::Empty { dim: None, ref shape, .. }) if shape == &[2, 0]
        ));
    }
}
