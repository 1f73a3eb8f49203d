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

use crate::common::{assert_parity, both, cpu_devices as devices, raw};

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

fn float3(dims: [usize; 3], device: &Device) -> Tensor<3> {
    common::float_tensor(dims, device)
}

fn int3(dims: [usize; 3], device: &Device) -> Tensor<3, Int> {
    common::float_tensor(dims, device).int()
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

/// Raw burn's and the twin's outcome on the same input.
type Outcome<T> = (Option<T>, Result<T, GuardError>);

/// One numeric dim reduction, raw and twin.
fn numeric_dim<K: Numeric>(
    make: &dyn Fn() -> Tensor<3, K>,
    op: usize,
    dim: isize,
) -> Outcome<Snap> {
    both!(make, op;
        0 => sum_dim / try_sum_dim (dim) snap;
        1 => mean_dim / try_mean_dim (dim) snap;
        2 => prod_dim / try_prod_dim (dim) snap;
        3 => cumsum / try_cumsum (dim) snap;
        _ => cumprod / try_cumprod (dim) snap;
    )
}

/// One numeric reduction over a list of dims, raw and twin.
fn numeric_dims<K: Numeric>(
    make: &dyn Fn() -> Tensor<3, K>,
    op: usize,
    dims: &[isize],
) -> Outcome<Snap> {
    both!(make, op;
        0 => sum_dims / try_sum_dims (dims) snap;
        1 => mean_dims / try_mean_dims (dims) snap;
        _ => prod_dims / try_prod_dims (dims) snap;
    )
}

/// One ordering reduction along a dim, raw and twin.
fn ordered_dim<K: Ordered>(
    make: &dyn Fn() -> Tensor<3, K>,
    op: usize,
    dim: isize,
) -> Outcome<Vec<Snap>> {
    let pair = |(a, b): (Tensor<3, K>, Tensor<3, Int>)| vec![snap(a), snap(b)];
    let one = |a: Tensor<3, K>| vec![snap(a)];
    let idx = |a: Tensor<3, Int>| vec![snap(a)];
    both!(make, op;
        0 => sort / try_sort (dim) one;
        1 => sort_descending / try_sort_descending (dim) one;
        2 => sort_with_indices / try_sort_with_indices (dim) pair;
        3 => sort_descending_with_indices / try_sort_descending_with_indices (dim) pair;
        4 => argsort / try_argsort (dim) idx;
        5 => argsort_descending / try_argsort_descending (dim) idx;
        6 => argmax / try_argmax (dim) idx;
        7 => argmin / try_argmin (dim) idx;
        8 => max_dim / try_max_dim (dim) one;
        9 => min_dim / try_min_dim (dim) one;
        10 => max_dim_with_indices / try_max_dim_with_indices (dim) pair;
        11 => min_dim_with_indices / try_min_dim_with_indices (dim) pair;
        12 => max_abs_dim / try_max_abs_dim (dim) one;
        13 => cummin / try_cummin (dim) one;
        _ => cummax / try_cummax (dim) one;
    )
}

/// One ordering reduction over a list of dims, raw and twin.
fn ordered_dims<K: Ordered>(
    make: &dyn Fn() -> Tensor<3, K>,
    op: usize,
    dims: &[isize],
) -> Outcome<Snap> {
    both!(make, op;
        0 => max_dims / try_max_dims (dims) snap;
        1 => min_dims / try_min_dims (dims) snap;
        _ => max_abs_dims / try_max_abs_dims (dims) snap;
    )
}

/// topk, topk_with_indices or argtopk, raw and twin.
fn top<K: Ordered>(
    make: &dyn Fn() -> Tensor<3, K>,
    op: usize,
    k: usize,
    dim: isize,
) -> Outcome<Vec<Snap>> {
    let pair = |(a, b): (Tensor<3, K>, Tensor<3, Int>)| vec![snap(a), snap(b)];
    let one = |a: Tensor<3, K>| vec![snap(a)];
    let idx = |a: Tensor<3, Int>| vec![snap(a)];
    both!(make, op;
        0 => topk / try_topk (k, dim) one;
        1 => topk_with_indices / try_topk_with_indices (k, dim) pair;
        _ => argtopk / try_argtopk (k, dim) idx;
    )
}

/// Every op `0..ops` of a family on Float and on Int, per CPU device; `float` and `int` run the
/// same family, one closure per kind.
fn float_and_int<T: PartialEq + std::fmt::Debug>(
    what: &str,
    dims: [usize; 3],
    ops: usize,
    float: impl Fn(&dyn Fn() -> Tensor<3>, usize) -> Outcome<T>,
    int: impl Fn(&dyn Fn() -> Tensor<3, Int>, usize) -> Outcome<T>,
) {
    for (name, device) in devices() {
        for op in 0..ops {
            for int_kind in [false, true] {
                let case = format!("{name} {what} op{op} int={int_kind} {dims:?}");
                let (burn, ours) = if int_kind {
                    int(&|| int3(dims, &device), op)
                } else {
                    float(&|| float3(dims, &device), op)
                };
                assert_parity(&case, burn, ours);
            }
        }
    }
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
    let what = format!("numeric dim={dim}");
    float_and_int(
        &what,
        dims,
        5,
        |m, op| numeric_dim(m, op, dim),
        |m, op| numeric_dim(m, op, dim),
    );
}

/// sum_dims, mean_dims, prod_dims on Float and Int.
fn numeric_dims_case(dims: [usize; 3], list: &[isize]) {
    let what = format!("numeric dims {list:?}");
    float_and_int(
        &what,
        dims,
        3,
        |m, op| numeric_dims(m, op, list),
        |m, op| numeric_dims(m, op, list),
    );
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
    macro_rules! to_ranks {
        ($t:expr, $name:expr; $($rank:literal)+) => {$(
            assert_parity(
                &format!("{} sum_dims_squeeze::<{}> {dims:?} {list:?}", $name, $rank),
                raw(|| snap($t().sum_dims_squeeze::<$rank, isize>(list))),
                $t().try_sum_dims_squeeze::<$rank, isize>(list).map(snap),
            );
        )+};
    }
    for (name, device) in devices() {
        let t = || float3(dims, &device);
        to_ranks!(t, name; 1 2 3 4);
    }
}

/// Every ordering method along one dim, on Float and Int.
fn ordered_dim_case(dims: [usize; 3], dim: isize) {
    let what = format!("ordered dim={dim}");
    float_and_int(
        &what,
        dims,
        15,
        |m, op| ordered_dim(m, op, dim),
        |m, op| ordered_dim(m, op, dim),
    );
}

/// max_dims, min_dims, max_abs_dims on Float and Int.
fn ordered_dims_case(dims: [usize; 3], list: &[isize]) {
    let what = format!("ordered dims {list:?}");
    float_and_int(
        &what,
        dims,
        3,
        |m, op| ordered_dims(m, op, list),
        |m, op| ordered_dims(m, op, list),
    );
}

/// topk, topk_with_indices, argtopk on Float and Int.
fn topk_case(dims: [usize; 3], dim: isize, k: usize) {
    let what = format!("top k={k} dim={dim}");
    float_and_int(
        &what,
        dims,
        3,
        |m, op| top(m, op, k, dim),
        |m, op| top(m, op, k, dim),
    );
}

/// var, var_bias, var_mean, var_mean_bias, median, median_with_indices.
fn float_stats_case(dims: [usize; 3], dim: isize) {
    let one = |v| vec![snap(v)];
    let pair = |(v, m)| vec![snap(v), snap(m)];
    let with_indices = |(v, i)| vec![snap(v), snap::<3, Int>(i)];
    for (name, device) in devices() {
        for op in 0..6 {
            let case = format!("{name} stats op{op} {dims:?} dim={dim}");
            let t = || float3(dims, &device);
            let (burn, ours) = both!(t, op;
                0 => var / try_var (dim) one;
                1 => var_bias / try_var_bias (dim) one;
                2 => var_mean / try_var_mean (dim) pair;
                3 => var_mean_bias / try_var_mean_bias (dim) pair;
                4 => median / try_median (dim) one;
                _ => median_with_indices / try_median_with_indices (dim) with_indices;
            );
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
