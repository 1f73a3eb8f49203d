//! The burn-linalg twins, with the backstop off (a rule that let a bad input through would
//! panic through these tests instead of coming back as `BackendPanic`): burn's own
//! `#[should_panic]` cases refused by checks, and each twin against burn's function on the same
//! inputs (burn panics ⇔ the twin refuses; equal values otherwise), on Flex, NdArray and wgpu.
//! Its own test binary, because the switch is process-wide.

#![allow(deprecated)] // NdArray is deprecated upstream; still supported.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};

use burn::tensor::{Device, Distribution, Tensor, TensorData};
use burn_guard::linalg::*;
use burn_guard::prelude::*;

fn no_backstop() {
    burn_guard::panic::set_backstop_disabled(true);
}

fn devices() -> Vec<Device> {
    let mut devices = vec![Device::flex(), Device::ndarray()];
    devices.extend(common::wgpu_device());
    devices
}

/// burn-linalg 0.22.1's and burn-signal's `#[should_panic]` tests for linalg (`tests/backend/
/// {det,diag,lu,matvec,outer,qr,svd,trace,vector_norm}.rs`), each refused by a check with the
/// kind the design names.
#[test]
fn burns_should_panic_cases_are_refused_by_checks() {
    no_backstop();
    for device in devices() {
        let d = &device;
        let m2 = || Tensor::<2>::from_floats([[1.0, 2.0], [3.0, 4.0]], d);
        let v3 = || Tensor::<1>::from_floats([1.0, 2.0, 3.0], d);
        let kind = |r: Result<(), GuardError>| r.unwrap_err().kind();
        let cases: Vec<(&str, ErrorKind, ErrorKind)> = vec![
            (
                "det rank 2",
                kind(try_det::<2, 1, 0>(m2()).map(drop)),
                ErrorKind::RankMismatch,
            ),
            (
                "det [1,2,3]",
                kind(try_det::<3, 2, 1>(Tensor::<3>::ones([1, 2, 3], d)).map(drop)),
                ErrorKind::ShapeMismatch,
            ),
            (
                "det D1",
                kind(try_det::<3, 3, 1>(Tensor::<3>::ones([1, 2, 2], d)).map(drop)),
                ErrorKind::RankMismatch,
            ),
            (
                "det D2",
                kind(try_det::<3, 2, 2>(Tensor::<3>::ones([1, 2, 2], d)).map(drop)),
                ErrorKind::RankMismatch,
            ),
            (
                "diag rank 1",
                kind(try_diag::<1, 0, _>(v3()).map(drop)),
                ErrorKind::RankMismatch,
            ),
            (
                "diag DO",
                kind(try_diag::<2, 2, _>(m2()).map(drop)),
                ErrorKind::RankMismatch,
            ),
            (
                "lu rank 1",
                kind(try_lu::<1, 0>(v3()).map(drop)),
                ErrorKind::RankMismatch,
            ),
            (
                "lu D1",
                kind(try_lu::<2, 2>(m2()).map(drop)),
                ErrorKind::RankMismatch,
            ),
            (
                "matvec inner",
                kind(try_matvec(Tensor::<2>::ones([2, 3], d), Tensor::<1>::ones([4], d)).map(drop)),
                ErrorKind::ShapeMismatch,
            ),
            (
                "matvec batch",
                kind(
                    try_matvec(
                        Tensor::<3>::ones([2, 3, 4], d),
                        Tensor::<2>::ones([3, 4], d),
                    )
                    .map(drop),
                ),
                ErrorKind::ShapeMismatch,
            ),
            (
                "outer [2,3]x[3,4]",
                kind(
                    try_outer::<2, 3, _>(
                        Tensor::<2>::ones([2, 3], d),
                        Tensor::<2>::ones([3, 4], d),
                    )
                    .map(drop),
                ),
                ErrorKind::ShapeMismatch,
            ),
            (
                "qr rank 1",
                kind(try_qr(v3(), false).map(drop)),
                ErrorKind::RankMismatch,
            ),
            (
                "svd D1",
                kind(try_svd::<2, 2>(m2(), 8).map(drop)),
                ErrorKind::RankMismatch,
            ),
            (
                "svd rank 1",
                kind(try_svd::<1, 0>(v3(), 8).map(drop)),
                ErrorKind::RankMismatch,
            ),
            (
                "svd sweeps 0",
                kind(try_svd::<2, 1>(m2(), 0).map(drop)),
                ErrorKind::OutOfRange,
            ),
            (
                "trace rank 1",
                kind(try_trace::<1, 0>(v3()).map(drop)),
                ErrorKind::RankMismatch,
            ),
            (
                "trace DO",
                kind(try_trace::<2, 2>(m2()).map(drop)),
                ErrorKind::RankMismatch,
            ),
            (
                "vector_normalize dim 5",
                kind(try_vector_normalize(m2(), 1.0, 5, 1e-5).map(drop)),
                ErrorKind::DimOutOfRange,
            ),
            (
                "vector_norm dim 5",
                kind(try_vector_norm(m2(), Norm::L2, 5).map(drop)),
                ErrorKind::DimOutOfRange,
            ),
        ];
        for (case, got, expected) in cases {
            assert_eq!(got, expected, "{case} on {device:?}");
        }
    }
}

#[path = "common/differential.rs"]
mod differential;
use differential::differential;

fn data<const D: usize>(t: Tensor<D>) -> TensorData {
    t.into_data()
}

fn data3<const D: usize>((a, b, c): (Tensor<D>, Tensor<D>, Tensor<D>)) -> Vec<TensorData> {
    vec![a.into_data(), b.into_data(), c.into_data()]
}

fn data2<const D: usize>((a, b): (Tensor<D>, Tensor<D>)) -> Vec<TensorData> {
    vec![a.into_data(), b.into_data()]
}

/// Square, rectangular, batched and empty matrices through det, lu, qr, diag and trace; every
/// norm over each dim of a tensor with an empty dimension (the extremum norms panic there);
/// matvec, outer and cosine similarity over matching and mismatched shapes. Flex and NdArray
/// run every case; wgpu the ones burn answers (a kernel fed an empty batch is not a
/// front-end panic there).
#[test]
fn linalg_twins_equal_burn_or_refuse_where_it_panics() {
    no_backstop();
    for device in devices() {
        let d = &device;
        let cpu = device == Device::flex() || device == Device::ndarray();
        let random3 = |dims: [usize; 3]| Tensor::<3>::random(dims, Distribution::Default, d);
        let mut answered = 0;
        let mut refused = 0;
        let mut count = |ok: bool| if ok { answered += 1 } else { refused += 1 };
        let matrices: &[[usize; 3]] = if cpu {
            &[
                [1, 3, 3],
                [2, 4, 4],
                [1, 5, 5],
                [1, 3, 2],
                [1, 2, 3],
                [0, 2, 2],
                [0, 4, 4],
                [1, 0, 0],
                [1, 0, 3],
                [1, 3, 0],
            ]
        } else {
            &[[1, 3, 3], [2, 4, 4], [1, 5, 5], [1, 3, 2], [1, 2, 3]]
        };
        for &dims in matrices {
            let x = random3(dims);
            let case = format!("{dims:?} on {device:?}");
            count(differential(
                &format!("det {case}"),
                || burn_linalg::det::<3, 2, 1>(x.clone()),
                || try_det::<3, 2, 1>(x.clone()),
                |t| t.into_data(),
            ));
            count(differential(
                &format!("lu {case}"),
                || burn_linalg::lu::<3, 2>(x.clone()),
                || try_lu::<3, 2>(x.clone()),
                data3,
            ));
            count(differential(
                &format!("qr {case}"),
                || burn_linalg::qr(x.clone(), true),
                || try_qr(x.clone(), true),
                data2,
            ));
            count(differential(
                &format!("diag {case}"),
                || burn_linalg::diag::<3, 2, _>(x.clone()),
                || try_diag::<3, 2, _>(x.clone()),
                data,
            ));
            count(differential(
                &format!("trace {case}"),
                || burn_linalg::trace::<3, 2>(x.clone()),
                || try_trace::<3, 2>(x.clone()),
                data,
            ));
        }

        let with_empty =
            Tensor::<2>::random([3, if cpu { 0 } else { 2 }], Distribution::Default, d);
        let full = Tensor::<2>::random([3, 4], Distribution::Default, d);
        for x in [with_empty, full] {
            for dim in [0isize, 1, -1, 2] {
                let case = format!("{:?} dim {dim} on {device:?}", x.dims());
                for norm in [
                    Norm::L0,
                    Norm::L1,
                    Norm::L2,
                    Norm::LInf,
                    Norm::LNegInf,
                    Norm::Lp(3.0),
                ] {
                    count(differential(
                        &format!("vector_norm {norm:?} {case}"),
                        || burn_linalg::vector_norm(x.clone(), norm, dim),
                        || try_vector_norm(x.clone(), norm, dim),
                        data,
                    ));
                }
                count(differential(
                    &format!("max_abs_norm {case}"),
                    || burn_linalg::max_abs_norm(x.clone(), dim),
                    || try_max_abs_norm(x.clone(), dim),
                    data,
                ));
                count(differential(
                    &format!("min_abs_norm_dims {case}"),
                    || burn_linalg::min_abs_norm_dims(x.clone(), &[dim]),
                    || try_min_abs_norm_dims(x.clone(), &[dim]),
                    data,
                ));
                count(differential(
                    &format!("l2_norm {case}"),
                    || burn_linalg::l2_norm(x.clone(), dim),
                    || try_l2_norm(x.clone(), dim),
                    data,
                ));
                count(differential(
                    &format!("lp_norm inf {case}"),
                    || burn_linalg::lp_norm(x.clone(), f64::INFINITY, dim),
                    || try_lp_norm(x.clone(), f64::INFINITY, dim),
                    data,
                ));
            }
        }

        let m = Tensor::<3>::random([2, 3, 4], Distribution::Default, d);
        for vector in [[2usize, 4], [1, 4], [2, 3], [3, 4]] {
            let v = Tensor::<2>::random(vector, Distribution::Default, d);
            count(differential(
                &format!("matvec {vector:?} on {device:?}"),
                || burn_linalg::matvec::<3, 2, _>(m.clone(), v.clone()),
                || try_matvec::<3, 2, _>(m.clone(), v.clone()),
                data,
            ));
        }
        let a = Tensor::<2>::random([4, 2], Distribution::Default, d);
        for (rhs, dim) in [
            ([4usize, 3], 1isize),
            ([1, 3], 1),
            ([3, 3], 1),
            ([4, 3], -1),
            ([2, 2], 0),
        ] {
            let b = Tensor::<2>::random(rhs, Distribution::Default, d);
            count(differential(
                &format!("outer_dim {rhs:?} dim {dim} on {device:?}"),
                || burn_linalg::outer_dim::<2, 3, _, _>(a.clone(), b.clone(), dim),
                || try_outer_dim::<2, 3, _, _>(a.clone(), b.clone(), dim),
                data,
            ));
            count(differential(
                &format!("cosine_similarity {rhs:?} dim {dim} on {device:?}"),
                || burn_linalg::cosine_similarity(a.clone(), b.clone(), dim, None),
                || try_cosine_similarity(a.clone(), b.clone(), dim, None),
                data,
            ));
        }
        assert!(
            answered > 50 && refused > 10,
            "{answered} answered, {refused} refused on {device:?}"
        );
    }
}

/// svd: equal to burn's on Flex and NdArray; on wgpu, where burn's panics ("Backend not
/// supported"), refused under the strict policy and computed on Flex under a fallback policy,
/// the factors moved back and counted; a tensor that requires grad refused with the fix.
#[test]
fn svd_runs_where_burn_has_it_and_falls_back_where_it_panics() {
    use burn_guard::policy::{Op, Policy};

    no_backstop();
    let values = [[3.0, 1.0], [1.0, 3.0], [0.0, 2.0]];
    for device in devices() {
        let m = Tensor::<2>::from_floats(values, &device);
        let raw = catch_unwind(AssertUnwindSafe(|| burn_linalg::svd::<2, 1>(m.clone(), 16)));
        let native = svd_support(&device) == burn_guard::capability::Support::Native;
        assert_eq!(raw.is_ok(), native, "svd_support is stale on {device:?}");
        let ours = try_svd::<2, 1>(m.clone(), 16);
        match raw {
            Ok((u, s, vt)) => {
                let (ou, os, ovt) = ours.unwrap();
                assert_eq!(u.into_data(), ou.into_data());
                assert_eq!(s.into_data(), os.into_data());
                assert_eq!(vt.into_data(), ovt.into_data());
            }
            Err(_) => {
                assert_eq!(ours.unwrap_err().kind(), ErrorKind::Unsupported);
                let policy = Policy::fallback_to([Device::flex()]);
                let (u, s, vt) = try_svd_with::<2, 1>(m, 16, &policy).unwrap();
                assert_eq!(u.device(), device);
                let flex = Tensor::<2>::from_floats(values, &Device::flex());
                let (_, expected, _) = burn_linalg::svd::<2, 1>(flex, 16);
                assert_eq!(s.into_data(), expected.into_data());
                assert_eq!(vt.dims(), [2, 2]);
                let stats = policy.stats_of(Op::Svd);
                assert_eq!(
                    (stats.fallbacks, stats.bytes_to_fallback),
                    (1, 24),
                    "{stats:?}"
                );
            }
        }
    }
    let tracked = Tensor::<2>::from_floats(values, &Device::flex().autodiff()).require_grad();
    let err = try_svd::<2, 1>(tracked, 16).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains(".detach()"), "{err}");
}

#[path = "common/example.rs"]
mod example;

/// The example: det of a plain matrix refused with the fix and computed once batched, qr
/// reconstructs its input, svd refused with the fix for a tracked weight, then as a gap.
#[test]
fn the_linalg_example_refuses_with_the_fix_and_computes() {
    let stdout = example::run_example("linalg", &[], "`cargo test --all-features`");
    let stdout = String::from_utf8(stdout).unwrap();
    for line in [
        "det of a plain matrix refused: det: the input must have at least 3 dimensions",
        "(add one with unsqueeze_dim(0))",
        "det of the batched matrix: [10.0]",
        "svd of a tracked weight refused: svd: svd has no backward",
        "svd of the detached weight: singular values [",
        "inf-norm over an empty dim refused",
    ] {
        assert!(stdout.contains(line), "{line}: {stdout}");
    }
    let apart = example::number_after(&stdout, "max |Q R - A| = ");
    assert!(apart < 1e-5, "{stdout}");
}

/// `capabilities --json` lists svd per backend: native on Flex and NdArray, a fallback on
/// wgpu (when there is an adapter), as `svd_support` answers.
#[test]
fn the_capability_report_lists_svd_per_backend() {
    let svd = example::report_support("svd");
    assert_eq!(svd("flex").as_deref(), Some("native"));
    assert_eq!(svd("ndarray").as_deref(), Some("native"));
    if common::wgpu_device().is_some() {
        assert_eq!(svd("wgpu").as_deref(), Some("fallback"));
    }
}
