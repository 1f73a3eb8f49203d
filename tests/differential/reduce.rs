//! Differential tests of the reduce family: raw burn under `catch_unwind` vs our twin.
//!
//! Shapes are rank 3 with sizes 0..5 (a zero about one time in seven per dimension), dims are
//! drawn in `-5..5` (valid about half the time), `k` in `0..6`. Float and Int kinds, Flex and
//! NdArray. Values are compared bit for bit, `NaN` equal to `NaN`.

use crate::common;

use burn::tensor::kind::{Basic, Numeric, Ordered};
use burn::tensor::{Bool, Device, Int, Tensor};
use burn_guard::GuardError;
use burn_guard::tensor::{TryReduce, TryReduceFloat, TryReduceNumeric, TryReduceOrdered};
use proptest::prelude::*;

use crate::common::{assert_parity, raw};

/// A result's shape and values as `f64` bits (`NaN` canonical), comparable with `==`.
type Snap = (Vec<usize>, Vec<u64>);

fn snap<const D: usize, K: Basic>(t: Tensor<D, K>) -> Snap {
    let dims = t.dims().to_vec();
    let values = t
        .into_data()
        .convert::<f64>()
        .try_to_vec::<f64>()
        .unwrap()
        .into_iter()
        .map(|v| {
            if v.is_nan() {
                f64::NAN.to_bits()
            } else {
                v.to_bits()
            }
        })
        .collect();
    (dims, values)
}

/// A bool result as 0/1 through an Int cast: wgpu stores bools as `u32`, which
/// `TensorData::to_vec::<bool>` refuses.
fn snap_bool<const D: usize>(t: Tensor<D, Bool>) -> Snap {
    snap(t.int())
}

/// The snapshot value of a bool.
fn bit(b: bool) -> u64 {
    f64::from(u8::from(b)).to_bits()
}

/// A float tensor with small integer values; `zeros` when it has no elements (burn's
/// `reshape` reads a 0 in the target shape as "keep this dim", so an empty tensor cannot be
/// reshaped into shape).
fn float3(dims: [usize; 3], device: &Device) -> Tensor<3> {
    if dims.contains(&0) {
        Tensor::zeros(dims, device)
    } else {
        common::float_tensor(dims, device)
    }
}

fn int3(dims: [usize; 3], device: &Device) -> Tensor<3, Int> {
    if dims.contains(&0) {
        Tensor::zeros(dims, device)
    } else {
        common::float_tensor(dims, device).int()
    }
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![6 => 1usize..5, 1 => Just(0usize)]
}

fn shape3() -> impl Strategy<Value = [usize; 3]> {
    [size(), size(), size()]
}

/// A dim drawn to be valid about half the time for rank 3 (negatives included).
fn any_dim() -> impl Strategy<Value = isize> {
    prop_oneof![-3isize..3, -5isize..5]
}

fn dim_list() -> impl Strategy<Value = Vec<isize>> {
    proptest::collection::vec(prop_oneof![3 => -3isize..3, 1 => -5isize..5], 0..3)
}

fn devices() -> Vec<(&'static str, Device)> {
    common::cpu_devices()
}

/// One numeric dim reduction, raw and twin.
fn numeric_dim<K: Numeric>(
    make: &dyn Fn() -> Tensor<3, K>,
    op: usize,
    dim: isize,
) -> (Option<Snap>, Result<Snap, GuardError>) {
    let burn = raw(|| {
        snap(match op {
            0 => make().sum_dim(dim),
            1 => make().mean_dim(dim),
            2 => make().prod_dim(dim),
            3 => make().cumsum(dim),
            _ => make().cumprod(dim),
        })
    });
    let ours = match op {
        0 => make().try_sum_dim(dim),
        1 => make().try_mean_dim(dim),
        2 => make().try_prod_dim(dim),
        3 => make().try_cumsum(dim),
        _ => make().try_cumprod(dim),
    }
    .map(snap);
    (burn, ours)
}

/// One numeric reduction over a list of dims, raw and twin.
fn numeric_dims<K: Numeric>(
    make: &dyn Fn() -> Tensor<3, K>,
    op: usize,
    dims: &[isize],
) -> (Option<Snap>, Result<Snap, GuardError>) {
    let burn = raw(|| {
        snap(match op {
            0 => make().sum_dims(dims),
            1 => make().mean_dims(dims),
            _ => make().prod_dims(dims),
        })
    });
    let ours = match op {
        0 => make().try_sum_dims(dims),
        1 => make().try_mean_dims(dims),
        _ => make().try_prod_dims(dims),
    }
    .map(snap);
    (burn, ours)
}

/// One ordering reduction along a dim, raw and twin.
fn ordered_dim<K: Ordered>(
    make: &dyn Fn() -> Tensor<3, K>,
    op: usize,
    dim: isize,
) -> (Option<Vec<Snap>>, Result<Vec<Snap>, GuardError>) {
    let pair = |(a, b): (Tensor<3, K>, Tensor<3, Int>)| vec![snap(a), snap(b)];
    let one = |a: Tensor<3, K>| vec![snap(a)];
    let idx = |a: Tensor<3, Int>| vec![snap(a)];
    let burn = raw(|| match op {
        0 => one(make().sort(dim)),
        1 => one(make().sort_descending(dim)),
        2 => pair(make().sort_with_indices(dim)),
        3 => pair(make().sort_descending_with_indices(dim)),
        4 => idx(make().argsort(dim)),
        5 => idx(make().argsort_descending(dim)),
        6 => idx(make().argmax(dim)),
        7 => idx(make().argmin(dim)),
        8 => one(make().max_dim(dim)),
        9 => one(make().min_dim(dim)),
        10 => pair(make().max_dim_with_indices(dim)),
        11 => pair(make().min_dim_with_indices(dim)),
        12 => one(make().max_abs_dim(dim)),
        13 => one(make().cummin(dim)),
        _ => one(make().cummax(dim)),
    });
    let ours = match op {
        0 => make().try_sort(dim).map(one),
        1 => make().try_sort_descending(dim).map(one),
        2 => make().try_sort_with_indices(dim).map(pair),
        3 => make().try_sort_descending_with_indices(dim).map(pair),
        4 => make().try_argsort(dim).map(idx),
        5 => make().try_argsort_descending(dim).map(idx),
        6 => make().try_argmax(dim).map(idx),
        7 => make().try_argmin(dim).map(idx),
        8 => make().try_max_dim(dim).map(one),
        9 => make().try_min_dim(dim).map(one),
        10 => make().try_max_dim_with_indices(dim).map(pair),
        11 => make().try_min_dim_with_indices(dim).map(pair),
        12 => make().try_max_abs_dim(dim).map(one),
        13 => make().try_cummin(dim).map(one),
        _ => make().try_cummax(dim).map(one),
    };
    (burn, ours)
}

/// One ordering reduction over a list of dims, raw and twin.
fn ordered_dims<K: Ordered>(
    make: &dyn Fn() -> Tensor<3, K>,
    op: usize,
    dims: &[isize],
) -> (Option<Snap>, Result<Snap, GuardError>) {
    let burn = raw(|| {
        snap(match op {
            0 => make().max_dims(dims),
            1 => make().min_dims(dims),
            _ => make().max_abs_dims(dims),
        })
    });
    let ours = match op {
        0 => make().try_max_dims(dims),
        1 => make().try_min_dims(dims),
        _ => make().try_max_abs_dims(dims),
    }
    .map(snap);
    (burn, ours)
}

/// topk, topk_with_indices or argtopk, raw and twin.
fn top<K: Ordered>(
    make: &dyn Fn() -> Tensor<3, K>,
    op: usize,
    k: usize,
    dim: isize,
) -> (Option<Vec<Snap>>, Result<Vec<Snap>, GuardError>) {
    let burn = raw(|| match op {
        0 => vec![snap(make().topk(k, dim))],
        1 => {
            let (v, i) = make().topk_with_indices(k, dim);
            vec![snap(v), snap(i)]
        }
        _ => vec![snap(make().argtopk(k, dim))],
    });
    let ours = match op {
        0 => make().try_topk(k, dim).map(|v| vec![snap(v)]),
        1 => make()
            .try_topk_with_indices(k, dim)
            .map(|(v, i)| vec![snap(v), snap(i)]),
        _ => make().try_argtopk(k, dim).map(|i| vec![snap(i)]),
    };
    (burn, ours)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn numeric_dim_parity(dims in shape3(), dim in any_dim()) {
        numeric_dim_case(dims, dim);
    }

    #[test]
    fn numeric_dims_parity(dims in shape3(), list in dim_list()) {
        numeric_dims_case(dims, &list);
    }

    #[test]
    fn mean_parity(dims in shape3()) {
        mean_case(dims);
    }

    #[test]
    fn sum_dims_squeeze_parity(dims in shape3(), list in dim_list()) {
        sum_dims_squeeze_case(dims, &list);
    }

    #[test]
    fn ordered_dim_parity(dims in shape3(), dim in any_dim()) {
        ordered_dim_case(dims, dim);
    }

    #[test]
    fn ordered_dims_parity(dims in shape3(), list in dim_list()) {
        ordered_dims_case(dims, &list);
    }

    #[test]
    fn topk_parity(dims in shape3(), dim in any_dim(), k in 0usize..6) {
        topk_case(dims, dim, k);
    }

    #[test]
    fn float_stats_parity(dims in shape3(), dim in any_dim()) {
        float_stats_case(dims, dim);
    }

    #[test]
    fn cov_parity(dims in shape3(), dim in any_dim(), correction in 0usize..3) {
        cov_case(dims, dim, correction);
    }

    #[test]
    fn any_all_parity(dims in shape3(), dim in any_dim()) {
        any_all_case(dims, dim);
    }
}

/// sum_dim, mean_dim, prod_dim, cumsum, cumprod on Float and Int.
fn numeric_dim_case(dims: [usize; 3], dim: isize) {
    for (name, device) in devices() {
        for op in 0..5 {
            for int in [false, true] {
                let case = format!("{name} numeric op{op} int={int} {dims:?} dim={dim}");
                let (burn, ours) = if int {
                    numeric_dim(&|| int3(dims, &device), op, dim)
                } else {
                    numeric_dim(&|| float3(dims, &device), op, dim)
                };
                assert_parity(&case, burn, ours);
            }
        }
    }
}

/// sum_dims, mean_dims, prod_dims on Float and Int.
fn numeric_dims_case(dims: [usize; 3], list: &[isize]) {
    for (name, device) in devices() {
        for op in 0..3 {
            for int in [false, true] {
                let case = format!("{name} numeric dims op{op} int={int} {dims:?} {list:?}");
                let (burn, ours) = if int {
                    numeric_dims(&|| int3(dims, &device), op, list)
                } else {
                    numeric_dims(&|| float3(dims, &device), op, list)
                };
                assert_parity(&case, burn, ours);
            }
        }
    }
}

/// mean on Float (`NaN` when empty) and Int (burn asserts non-empty).
fn mean_case(dims: [usize; 3]) {
    for (name, device) in devices() {
        let case = format!("{name} mean {dims:?}");
        let burn = raw(|| snap(float3(dims, &device).mean()));
        assert_parity(&case, burn, float3(dims, &device).try_mean().map(snap));
        let case = format!("{name} int mean {dims:?}");
        let burn = raw(|| snap(int3(dims, &device).mean()));
        assert_parity(&case, burn, int3(dims, &device).try_mean().map(snap));
    }
}

/// sum_dims_squeeze to ranks 1 to 4 (only `3 - distinct dims` is right).
fn sum_dims_squeeze_case(dims: [usize; 3], list: &[isize]) {
    for (name, device) in devices() {
        let t = || float3(dims, &device);
        let case = |rank: usize| format!("{name} sum_dims_squeeze::<{rank}> {dims:?} {list:?}");
        assert_parity(
            &case(1),
            raw(|| snap(t().sum_dims_squeeze::<1, isize>(list))),
            t().try_sum_dims_squeeze::<1, isize>(list).map(snap),
        );
        assert_parity(
            &case(2),
            raw(|| snap(t().sum_dims_squeeze::<2, isize>(list))),
            t().try_sum_dims_squeeze::<2, isize>(list).map(snap),
        );
        assert_parity(
            &case(3),
            raw(|| snap(t().sum_dims_squeeze::<3, isize>(list))),
            t().try_sum_dims_squeeze::<3, isize>(list).map(snap),
        );
        assert_parity(
            &case(4),
            raw(|| snap(t().sum_dims_squeeze::<4, isize>(list))),
            t().try_sum_dims_squeeze::<4, isize>(list).map(snap),
        );
    }
}

/// Every ordering method along one dim, on Float and Int.
fn ordered_dim_case(dims: [usize; 3], dim: isize) {
    for (name, device) in devices() {
        for op in 0..15 {
            for int in [false, true] {
                let case = format!("{name} ordered op{op} int={int} {dims:?} dim={dim}");
                let (burn, ours) = if int {
                    ordered_dim(&|| int3(dims, &device), op, dim)
                } else {
                    ordered_dim(&|| float3(dims, &device), op, dim)
                };
                assert_parity(&case, burn, ours);
            }
        }
    }
}

/// max_dims, min_dims, max_abs_dims on Float and Int.
fn ordered_dims_case(dims: [usize; 3], list: &[isize]) {
    for (name, device) in devices() {
        for op in 0..3 {
            for int in [false, true] {
                let case = format!("{name} ordered dims op{op} int={int} {dims:?} {list:?}");
                let (burn, ours) = if int {
                    ordered_dims(&|| int3(dims, &device), op, list)
                } else {
                    ordered_dims(&|| float3(dims, &device), op, list)
                };
                assert_parity(&case, burn, ours);
            }
        }
    }
}

/// topk, topk_with_indices, argtopk on Float and Int.
fn topk_case(dims: [usize; 3], dim: isize, k: usize) {
    for (name, device) in devices() {
        for op in 0..3 {
            for int in [false, true] {
                let case = format!("{name} top op{op} int={int} {dims:?} k={k} dim={dim}");
                let (burn, ours) = if int {
                    top(&|| int3(dims, &device), op, k, dim)
                } else {
                    top(&|| float3(dims, &device), op, k, dim)
                };
                assert_parity(&case, burn, ours);
            }
        }
    }
}

/// var, var_bias, var_mean, var_mean_bias, median, median_with_indices.
fn float_stats_case(dims: [usize; 3], dim: isize) {
    for (name, device) in devices() {
        for op in 0..6 {
            let case = format!("{name} stats op{op} {dims:?} dim={dim}");
            let t = || float3(dims, &device);
            let burn = raw(|| match op {
                0 => vec![snap(t().var(dim))],
                1 => vec![snap(t().var_bias(dim))],
                2 => {
                    let (v, m) = t().var_mean(dim);
                    vec![snap(v), snap(m)]
                }
                3 => {
                    let (v, m) = t().var_mean_bias(dim);
                    vec![snap(v), snap(m)]
                }
                4 => vec![snap(t().median(dim))],
                _ => {
                    let (v, i) = t().median_with_indices(dim);
                    vec![snap(v), snap(i)]
                }
            });
            let ours = match op {
                0 => t().try_var(dim).map(|v| vec![snap(v)]),
                1 => t().try_var_bias(dim).map(|v| vec![snap(v)]),
                2 => t().try_var_mean(dim).map(|(v, m)| vec![snap(v), snap(m)]),
                3 => t()
                    .try_var_mean_bias(dim)
                    .map(|(v, m)| vec![snap(v), snap(m)]),
                4 => t().try_median(dim).map(|v| vec![snap(v)]),
                _ => t()
                    .try_median_with_indices(dim)
                    .map(|(v, i)| vec![snap(v), snap(i)]),
            };
            assert_parity(&case, burn, ours);
        }
    }
}

/// cov. NdArray's `matmul` panics on some zero-sized operands where Flex computes a result (a
/// backend difference outside `cov`'s own rules), so zero-sized shapes run on Flex only.
fn cov_case(dims: [usize; 3], dim: isize, correction: usize) {
    for (name, device) in devices() {
        if name == "ndarray" && dims.contains(&0) {
            continue;
        }
        let case = format!("{name} cov {dims:?} dim={dim} correction={correction}");
        let burn = raw(|| snap(float3(dims, &device).cov(dim, correction)));
        let ours = float3(dims, &device).try_cov(dim, correction).map(snap);
        assert_parity(&case, burn, ours);
    }
}

/// any_dim/all_dim on Float, Int and Bool. On a tensor with no elements the backends
/// disagree (Flex panics when a dimension other than `dim` is empty, NdArray does not):
/// there the twin computes the result itself, so we check it against the identity of the
/// reduction, and against burn wherever burn succeeds.
fn any_all_case(dims: [usize; 3], dim: isize) {
    for (name, device) in devices() {
        for all in [false, true] {
            for kind in 0..3 {
                let case = format!("{name} all={all} kind{kind} {dims:?} dim={dim}");
                let (burn, ours) = match kind {
                    0 => any_all(&|| float3(dims, &device), all, dim),
                    1 => any_all(&|| int3(dims, &device), all, dim),
                    _ => any_all(&|| float3(dims, &device).equal_elem(0.0), all, dim),
                };
                if !((-3..3).contains(&dim) && dims.contains(&0)) {
                    assert_parity(&case, burn, ours);
                    continue;
                }
                let resolved = (dim + 3) as usize % 3;
                let mut expected = dims.to_vec();
                expected[resolved] = 1;
                let count: usize = expected.iter().product();
                let expected = (expected, vec![bit(all); count]);
                let ours = ours.unwrap();
                assert_eq!(ours, expected, "{case}");
                match burn {
                    Some(burn) => assert_eq!(burn, ours, "{case}"),
                    None => assert!(
                        name == "flex" && dims[resolved] != 0,
                        "{case}: burn panicked"
                    ),
                }
            }
        }
    }
}

fn any_all<K: Basic>(
    make: &dyn Fn() -> Tensor<3, K>,
    all: bool,
    dim: isize,
) -> (Option<Snap>, Result<Snap, GuardError>) {
    if all {
        (
            raw(|| snap_bool(make().all_dim(dim))),
            make().try_all_dim(dim).map(snap_bool),
        )
    } else {
        (
            raw(|| snap_bool(make().any_dim(dim))),
            make().try_any_dim(dim).map(snap_bool),
        )
    }
}

/// Rank 1 has no transpose to multiply by: burn panics, we refuse with a rank error.
#[test]
fn cov_of_rank_one_is_refused() {
    for (name, device) in devices() {
        let t = || Tensor::<1>::from_floats([1.0, 2.0, 4.0], &device);
        assert!(raw(|| snap(t().cov(0, 1))).is_none(), "{name}");
        let err = t().try_cov(0, 1).unwrap_err();
        assert!(
            matches!(
                err,
                GuardError::RankMismatch {
                    op: "cov",
                    expected: 2,
                    got: 1,
                    ..
                }
            ),
            "{name}: {err}"
        );
    }
}

/// The refusals beyond burn, pinned: an empty dimension has no max, min, median or unbiased
/// variance; an empty int tensor has no mean.
#[test]
fn empty_dimension_refusals_name_the_rule() {
    let device = Device::flex();
    let t = || Tensor::<2>::zeros([3, 0], &device);
    let errors = [
        t().try_max_dim(1).unwrap_err(),
        t().try_argmin(-1).unwrap_err(),
        t().try_var(1).unwrap_err(),
        t().try_median(1).unwrap_err(),
        Tensor::<2, Int>::zeros([3, 0], &device)
            .try_mean_dim(1)
            .unwrap_err(),
    ];
    for err in errors {
        assert!(
            matches!(&err, GuardError::Empty { shape, dim: Some(1), .. } if shape == &[3, 0]),
            "{err}"
        );
    }
    let err = Tensor::<2, Int>::zeros([3, 0], &device)
        .try_mean()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "mean: the mean of an empty int tensor is undefined; got shape [3, 0]"
    );
    // Along a non-empty dim of the same tensor, burn computes an empty result; so do we.
    assert_eq!(t().try_max_dim(0).unwrap().dims(), [1, 0]);
}

/// A representative subset on wgpu: a dim reduction, a sort, a top-k and a refusal.
#[test]
fn wgpu_reduce_parity() {
    let Some(device) = common::wgpu_device() else {
        return;
    };
    let t = || common::float_tensor([2, 3], &device);
    assert_parity(
        "wgpu sum_dim",
        raw(|| snap(t().sum_dim(1))),
        t().try_sum_dim(1).map(snap),
    );
    assert_parity(
        "wgpu sort",
        raw(|| snap(t().sort(-1))),
        t().try_sort(-1).map(snap),
    );
    assert_parity(
        "wgpu argmax",
        raw(|| snap(t().argmax(0))),
        t().try_argmax(0).map(snap),
    );
    for k in [2, 4] {
        assert_parity(
            &format!("wgpu topk k={k}"),
            raw(|| snap(t().topk(k, 1))),
            t().try_topk(k, 1).map(snap),
        );
    }
    // wgpu panics on any/all of an empty tensor; the twin computes the identity.
    let empty = || Tensor::<2>::zeros([2, 0], &device);
    let all = empty().try_all_dim(1).map(snap_bool).unwrap();
    assert_eq!(all, (vec![2, 1], vec![bit(true); 2]));
    let any = empty().try_any_dim(0).map(snap_bool).unwrap();
    assert_eq!(any, (vec![1, 0], vec![]));
    assert!(empty().try_max_dim(1).is_err());
    assert_parity(
        "wgpu sum_dim bad dim",
        raw(|| snap(t().sum_dim(2))),
        t().try_sum_dim(2).map(snap),
    );
}

/// Full extremum reductions (`max`, `min`, `max_abs`): burn leaves an empty tensor to the
/// backends, which panic; the twins refuse it. `cov` of a tensor with a zero-sized dim: NdArray's
/// matmul divides by zero, the twin answers with Flex's values.
#[test]
fn extremum_and_cov_on_empty_tensors() {
    let flex = Device::flex();
    for (name, device) in common::cpu_devices() {
        for dims in [[2usize, 3], [2, 0], [0, 3], [1, 1]] {
            let t = || Tensor::<2>::ones(dims, &device).cumsum(1);
            let i = || Tensor::<2, Int>::ones(dims, &device).cumsum(0).neg();
            let case = format!("{name} {dims:?}");
            assert_parity(
                &format!("max {case}"),
                raw(|| snap(t().max())),
                t().try_max().map(snap),
            );
            assert_parity(
                &format!("min {case}"),
                raw(|| snap(i().min())),
                i().try_min().map(snap),
            );
            assert_parity(
                &format!("max_abs {case}"),
                raw(|| snap(i().max_abs())),
                i().try_max_abs().map(snap),
            );
            if dims.contains(&0) {
                assert!(
                    matches!(t().try_max(), Err(GuardError::Empty { .. })),
                    "{case}"
                );
            }
            for dim in [0usize, 1] {
                let expected = raw(|| snap(Tensor::<2>::ones(dims, &flex).cumsum(1).cov(dim, 1)));
                let burn = raw(|| snap(t().cov(dim, 1)));
                let ours = t().try_cov(dim, 1).map(snap);
                match (name, &burn) {
                    ("ndarray", None) => assert_eq!(ours.ok(), expected, "cov {case} dim {dim}"),
                    _ => assert_parity(&format!("cov {case} dim {dim}"), burn, ours),
                }
            }
        }
    }
}
