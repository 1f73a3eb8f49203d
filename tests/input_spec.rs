//! Service input checks on real backends: the non-finite count, and its split into NaN, +inf
//! and -inf, is exact on Flex, NdArray and wgpu; shape, bounds and dtype refusals come before
//! any device work, in a fixed order.

mod common;

use burn::tensor::{DType, Device, FloatDType, Tensor, TensorData};
use burn_guard::error::NonFiniteSplit;
use burn_guard::input::InputSpec;
use burn_guard::{ErrorKind, GuardError, Limit, ScalarValue};

fn spec() -> InputSpec {
    InputSpec::new("features")
        .rank(2)
        .dim(0, 1..=16)
        .dim(1, 4..=4)
        .dtype(DType::F32)
        .finite()
}

fn devices() -> Vec<(&'static str, Device)> {
    let mut devices = common::cpu_devices();
    devices.extend(common::wgpu_device().map(|device| ("wgpu", device)));
    devices
}

#[test]
fn non_finite_values_are_counted_exactly() {
    for (name, device) in devices() {
        let values = [
            1.0,
            f32::NAN,
            2.0,
            f32::INFINITY,
            -0.0,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::NEG_INFINITY,
        ];
        let x = Tensor::<2>::from_data(TensorData::new(values.to_vec(), [2, 4]), &device);
        let err = spec().check(&x).unwrap_err();
        // Split into NaN, +inf and -inf by the refusal's own read, with the tensor's dtype
        // and shape.
        let split = NonFiniteSplit {
            nan: 2,
            pos_inf: 1,
            neg_inf: 2,
        };
        assert!(
            matches!(
                &err,
                GuardError::NonFinite {
                    count: 5,
                    total: 8,
                    split: Some(s),
                    dtype: Some(FloatDType::F32),
                    shape: Some(shape),
                    ..
                } if *s == split && shape == &[2, 4]
            ),
            "{name}: {err}"
        );
        assert!(
            err.to_string()
                .ends_with("got 5 non-finite of 8 values (2 NaN, 1 +inf, 2 -inf) in F32 [2, 4]"),
            "{name}: {err}"
        );
        let clean = Tensor::<2>::ones([2, 4], &device);
        spec().check(&clean).unwrap();
    }
}

#[test]
fn shape_and_dtype_refusals_name_the_rule_broken_first() {
    let device = Device::flex();
    let rank = spec().check(
        &Tensor::<2>::ones([2, 4], &device)
            .reshape([8])
            .reshape([1, 8]),
    );
    assert!(
        matches!(
            &rank,
            Err(GuardError::OutOfRange {
                name: "dim 1",
                value: ScalarValue::UInt(8),
                limit: Limit::Between(..),
                ..
            })
        ),
        "{rank:?}"
    );
    let err = spec().check_meta(&[2, 4, 1], DType::F32).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::RankMismatch);
    let err = spec().check_meta(&[0, 4], DType::F32).unwrap_err();
    assert_eq!(
        err.kind(),
        ErrorKind::OutOfRange,
        "an empty batch is below the bounds"
    );
    let err = spec().check_meta(&[2, 4], DType::F16).unwrap_err();
    assert!(
        matches!(
            err,
            GuardError::DTypeMismatch {
                lhs: DType::F16,
                rhs: DType::F32,
                ..
            }
        ),
        "{err}"
    );
    // The first broken rule wins: rank before bounds before dtype.
    let err = spec().check_meta(&[99], DType::F16).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::RankMismatch);
}
