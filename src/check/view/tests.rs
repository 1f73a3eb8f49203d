//! The view rules' refusals, pinned.
use super::*;
use crate::check::test_support::{
    TestResult, assert_refused as refused, at_least, kind_rule as rule, out_of_range,
};
use crate::error::{ErrorKind, ScalarValue};

#[test]
fn reshape_table() -> TestResult {
    let e = |v: &[isize]| ShapeArg::Entries(v.to_vec());
    assert_eq!(
        reshape("reshape", &[2, 3, 4], &e(&[0, -1]), 2)?,
        vec![2, 12]
    );
    assert_eq!(
        reshape("reshape", &[0, 3], &e(&[3, 0]), 2)
            .err()
            .ok_or("reshape: expected an error")?
            .op(),
        "reshape"
    );
    assert_eq!(
        reshape("reshape", &[0, 3], &e(&[0, 3, 1]), 3)?,
        vec![0, 3, 1]
    );
    assert_eq!(
        reshape("reshape", &[6], &ShapeArg::Shape(vec![2, 3]), 2)?,
        vec![2, 3]
    );
    let invalid = |text| rule(ErrorKind::InvalidArgument, text);
    type Check = Box<dyn Fn(&GuardError) -> bool>;
    let rows: Vec<(&[usize], ShapeArg, usize, Check)> = vec![
        (
            &[2, 3],
            e(&[-1, -1]),
            2,
            Box::new(invalid("at most one entry may be -1")),
        ),
        (
            &[2, 3],
            e(&[-2, 3]),
            2,
            Box::new(invalid("entries must be positive, 0 (keep) or -1 (infer)")),
        ),
        (
            &[2, 3],
            e(&[4, 2]),
            2,
            Box::new(|err: &GuardError| {
                matches!(err, GuardError::ShapeMismatch { shapes, .. }
                    if shapes == &[vec![2, 3], vec![4, 2]])
            }),
        ),
        (
            &[6],
            e(&[1, 0]),
            2,
            Box::new(invalid(
                "a 0 entry keeps the source dimension at the same index, which must exist",
            )),
        ),
        (
            &[0, 3],
            e(&[0, -1]),
            2,
            Box::new(invalid(
                "cannot infer a -1 entry when the other entries multiply to 0",
            )),
        ),
        (
            &[2, 3],
            e(&[4, -1]),
            2,
            Box::new(invalid(
                "cannot infer a -1 entry: the element count is not a multiple of the other entries",
            )),
        ),
        (
            &[2, 3],
            e(&[isize::MAX, 4]),
            2,
            Box::new(invalid("the target element count overflows usize")),
        ),
        (
            &[2, 3],
            ShapeArg::Shape(vec![6]),
            2,
            Box::new(|err: &GuardError| {
                matches!(
                    err,
                    GuardError::RankMismatch {
                        expected: 2,
                        got: 1,
                        ..
                    }
                )
            }),
        ),
    ];
    for (source, arg, out, check) in rows {
        refused(reshape("reshape", source, &arg, out), check);
    }
    Ok(())
}

#[test]
fn permute_flip_movedim_table() -> TestResult {
    assert_eq!(permute("permute", &[2, -3, 1], 3)?, vec![2, 0, 1]);
    refused(permute("permute", &[0, 3, 1], 3), |e| {
        matches!(
            e,
            GuardError::DimOutOfRange {
                dim: 3,
                rank: 3,
                ..
            }
        )
    });
    refused(
        permute("permute", &[0, -3, 1], 3),
        rule(ErrorKind::InvalidArgument, "axes must be unique"),
    );
    assert_eq!(flip("flip", &[], 2)?, Vec::<usize>::new());
    refused(
        flip("flip", &[1, -1], 2),
        rule(ErrorKind::InvalidArgument, "axes must be unique"),
    );
    refused(flip("flip", &[-3], 2), |e| {
        matches!(
            e,
            GuardError::DimOutOfRange {
                dim: -3,
                rank: 2,
                ..
            }
        )
    });
    assert_eq!(
        movedim("movedim", &[0, 1], true, &[-1, 0], true, 3)?,
        (vec![0, 1], vec![2, 0])
    );
    refused(
        movedim("movedim", &[0, -3], true, &[1, 2], true, 3),
        rule(
            ErrorKind::InvalidArgument,
            "source and destination dims must be unique",
        ),
    );
    refused(
        movedim("movedim", &[0], true, &[1, -2], true, 3),
        rule(
            ErrorKind::InvalidArgument,
            "source and destination dims must be unique",
        ),
    );
    refused(
        movedim("movedim", &[0], true, &[1, 2], true, 3),
        rule(
            ErrorKind::InvalidArgument,
            "source and destination must have the same number of dims",
        ),
    );
    refused(movedim("movedim", &[3], false, &[1], false, 3), |e| {
        matches!(e, GuardError::DimOutOfRange { dim: 3, .. })
    });
    Ok(())
}

#[test]
fn flatten_and_squeeze_table() -> TestResult {
    assert_eq!(flatten("flatten", &[2, 3, 4], 0, -1, 1)?, vec![24]);
    assert_eq!(flatten("flatten", &[2, 3, 4], 1, 1, 3)?, vec![2, 3, 4]);
    refused(flatten("flatten", &[2, 3, 4], 2, 1, 2), |e| {
        matches!(
            e,
            GuardError::OutOfOrder {
                lower: ScalarValue::UInt(2),
                upper: ScalarValue::UInt(1),
                ..
            }
        )
    });
    refused(
        flatten("flatten", &[2, 3, 4], 0, 1, 1),
        rule(
            ErrorKind::RankMismatch,
            "the output rank must be the input rank minus the flattened dims plus one",
        ),
    );
    refused(
        flatten("flatten", &[2, 3, 4], 0, 1, 3),
        rule(
            ErrorKind::RankMismatch,
            "the output rank must be the input rank minus the flattened dims plus one",
        ),
    );
    refused(flatten("flatten", &[2, 3, 4], 0, 3, 1), |e| {
        matches!(e, GuardError::DimOutOfRange { dim: 3, .. })
    });

    assert_eq!(squeeze("squeeze", &[1, 2, 1], 1)?, vec![2]);
    refused(
        squeeze("squeeze", &[1, 1], 1),
        rule(
            ErrorKind::RankMismatch,
            "squeezing would leave a rank-0 tensor, which burn does not support",
        ),
    );
    refused(
        squeeze("squeeze", &[1, 2, 3], 1),
        rule(
            ErrorKind::RankMismatch,
            "the output rank must be the number of dimensions left after squeezing",
        ),
    );

    assert_eq!(squeeze_dim("squeeze_dim", &[2, 1], -1, 1)?, vec![2]);
    refused(
        squeeze_dim("squeeze_dim", &[2, 1], 0, 1),
        out_of_range("size", 2, Limit::Exactly(1usize.into())),
    );
    refused(
        squeeze_dim("squeeze_dim", &[2, 1], 1, 2),
        rule(
            ErrorKind::RankMismatch,
            "the output rank must be the number of dimensions left after squeezing",
        ),
    );
    refused(
        squeeze_dim("squeeze_dim", &[1], 0, 0),
        rule(
            ErrorKind::RankMismatch,
            "squeezing would leave a rank-0 tensor, which burn does not support",
        ),
    );
    refused(squeeze_dim("squeeze_dim", &[2, 1], 2, 1), |e| {
        matches!(e, GuardError::DimOutOfRange { dim: 2, .. })
    });

    assert_eq!(
        squeeze_dims("squeeze_dims", &[1, 2, 1], &[0, 0], 2)?,
        vec![2, 1]
    );
    refused(
        squeeze_dims("squeeze_dims", &[1, 1], &[], 1),
        rule(
            ErrorKind::InvalidArgument,
            "at least one dimension must remain after squeezing",
        ),
    );
    refused(
        squeeze_dims("squeeze_dims", &[1, 2, 1], &[1], 2),
        out_of_range("size", 2, Limit::Exactly(1usize.into())),
    );
    refused(
        squeeze_dims("squeeze_dims", &[1, 2, 1], &[0], 1),
        rule(
            ErrorKind::RankMismatch,
            "the output rank must be the number of dimensions left after squeezing",
        ),
    );
    refused(squeeze_dims("squeeze_dims", &[1, 2, 1], &[-4], 1), |e| {
        matches!(e, GuardError::DimOutOfRange { dim: -4, .. })
    });
    Ok(())
}

#[test]
fn unsqueeze_table() -> TestResult {
    refused(
        unsqueeze("unsqueeze", &[2, 3], 1),
        rule(ErrorKind::RankMismatch, "unsqueeze cannot lower the rank"),
    );
    assert_eq!(unsqueeze("unsqueeze", &[2, 3], 2)?, vec![2, 3]);
    assert_eq!(
        unsqueeze_dim("unsqueeze_dim", &[2, 3], 1, 4)?,
        vec![2, 1, 3, 1]
    );
    refused(
        unsqueeze_dim("unsqueeze_dim", &[2, 3], 0, 2),
        rule(
            ErrorKind::RankMismatch,
            "unsqueeze_dim adds a dimension: the output rank must exceed the input rank",
        ),
    );
    refused(unsqueeze_dim("unsqueeze_dim", &[2, 3], -4, 3), |e| {
        matches!(e, GuardError::DimOutOfRange { rank: 3, .. })
    });
    // burn's replay: duplicates bump forward; negatives count from the end.
    assert_eq!(
        unsqueeze_dims("unsqueeze_dims", &[3], &[0, 0], 3)?,
        vec![1, 1, 3]
    );
    assert_eq!(
        unsqueeze_dims("unsqueeze_dims", &[3], &[-1, -1], 3)?,
        vec![3, 1, 1]
    );
    // burn accepts a rank that drops a unit dim and inserts one.
    assert_eq!(
        unsqueeze_dims("unsqueeze_dims", &[3, 1], &[1], 2)?,
        vec![3, 1]
    );
    refused(unsqueeze_dims("unsqueeze_dims", &[3], &[3], 3), |e| {
        matches!(
            e,
            GuardError::DimOutOfRange {
                dim: 3,
                rank: 3,
                ..
            }
        )
    });
    refused(unsqueeze_dims("unsqueeze_dims", &[3], &[2, 2], 3), |e| {
        matches!(e, GuardError::DimOutOfRange { rank: 3, .. })
    });
    refused(
        unsqueeze_dims("unsqueeze_dims", &[3], &[-1, -1, -1], 2),
        rule(
            ErrorKind::InvalidArgument,
            "the unsqueeze axes do not fit the output rank",
        ),
    );
    // burn turns -3 - 1 + 1 + 1 into a huge index with `as usize`, then reads out of bounds.
    refused(
        unsqueeze_dims("unsqueeze_dims", &[5], &[-3, -3], 3),
        rule(
            ErrorKind::InvalidArgument,
            "the unsqueeze axes do not fit the output rank",
        ),
    );
    refused(
        unsqueeze_dims("unsqueeze_dims", &[3, 4], &[0], 2),
        rule(
            ErrorKind::InvalidArgument,
            "the unsqueeze axes do not fit the output rank",
        ),
    );
    refused(
        unsqueeze_dims("unsqueeze_dims", &[3, 4], &[1], 2),
        rule(
            ErrorKind::ShapeMismatch,
            "the unsqueezed shape must keep every input element",
        ),
    );
    assert_eq!(
        inserted_units(&[1, 5], &[1, 1, 5]),
        Some(vec![false, true, false])
    );
    assert_eq!(inserted_units(&[2, 3], &[2, 3]), Some(vec![false, false]));
    assert_eq!(inserted_units(&[2, 3], &[3, 2]), None);
    Ok(())
}

#[test]
fn expand_unfold_table() -> TestResult {
    let e = |v: &[isize]| ShapeArg::Entries(v.to_vec());
    assert_eq!(expand("expand", &[1, 3], &e(&[2, -1]), 2)?, vec![2, 3]);
    assert_eq!(
        expand("expand", &[1, 3], &ShapeArg::Shape(vec![0, 3]), 2)?,
        vec![0, 3]
    );
    refused(
        expand("expand", &[1, 3], &e(&[3]), 1),
        rule(
            ErrorKind::RankMismatch,
            "expand cannot lower the rank: the target needs at least as many dims as the tensor",
        ),
    );
    refused(
        expand("expand", &[1, 3], &e(&[0, 3]), 2),
        rule(
            ErrorKind::InvalidArgument,
            "expand entries must be positive or -1",
        ),
    );
    refused(
        expand("expand", &[1, 3], &e(&[-1, 1, 3]), 3),
        rule(
            ErrorKind::InvalidArgument,
            "-1 must stand for an existing, non-empty dimension",
        ),
    );
    refused(
        expand("expand", &[0, 3], &e(&[-1, 3]), 2),
        rule(
            ErrorKind::InvalidArgument,
            "-1 must stand for an existing, non-empty dimension",
        ),
    );
    refused(
        expand("expand", &[2, 3], &e(&[2, 1]), 2),
        rule(
            ErrorKind::ShapeMismatch,
            "each target dim must equal the tensor's, or the tensor's must be 1",
        ),
    );
    refused(
        expand("expand", &[2, 3], &ShapeArg::Shape(vec![2, 3]), 3),
        rule(
            ErrorKind::RankMismatch,
            "a shape argument must have the output rank",
        ),
    );

    assert_eq!(unfold("unfold", &[2, 5], -1, 5, 3, 3)?, vec![2, 1, 5]);
    refused(
        unfold("unfold", &[2, 5], 1, 0, 1, 3),
        out_of_range("size", 0, at_least(1)),
    );
    refused(
        unfold("unfold", &[2, 5], 1, 2, 0, 3),
        out_of_range("step", 0, at_least(1)),
    );
    refused(
        unfold("unfold", &[2, 5], 1, 6, 1, 3),
        out_of_range("size", 6, Limit::AtMost(5usize.into())),
    );
    refused(
        unfold("unfold", &[2, 5], 1, 2, 1, 2),
        rule(
            ErrorKind::RankMismatch,
            "unfold adds one dimension: the output rank must be the input rank + 1",
        ),
    );
    refused(unfold("unfold", &[2, 5], 2, 2, 1, 3), |e| {
        matches!(e, GuardError::DimOutOfRange { dim: 2, .. })
    });
    Ok(())
}
