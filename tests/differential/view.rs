//! Differential tests of the view family: raw burn under `catch_unwind` vs our twin.
//!
//! Shapes use sizes 1..4 with a 0 now and then (the unsqueeze family's zero-size bugs are
//! tested apart, with fixed cases), dims are drawn about half the time out of range, negative
//! ones included. Flex and NdArray.

use crate::common;

use burn::tensor::grid::{GridIndexing, GridOptions, GridSparsity, IndexPos};
use burn::tensor::ops::PadMode;
use burn::tensor::{Device, Int, Shape, Tensor};
use burn_guard::GuardError;
use burn_guard::tensor::TryView;
use burn_guard::tensor::grid::{try_meshgrid, try_meshgrid_stack};
use proptest::prelude::*;

use crate::common::{
    assert_parity, float_tensor as tensor, raw, snapshot, snapshot_bool, snapshot_int,
};

type Snap = (Vec<usize>, Vec<f32>);

fn int_tensor<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D, Int> {
    tensor(dims, device).int()
}

fn snaps<const D: usize>(list: Vec<Tensor<D>>) -> Vec<Snap> {
    list.into_iter().map(snapshot).collect()
}

/// A dim drawn to be valid about half the time for rank `rank` (negatives included).
fn any_dim(rank: usize) -> impl Strategy<Value = isize> {
    let r = rank as isize;
    prop_oneof![-r..r, (-r - 2)..(r + 2)]
}

fn shape3() -> impl Strategy<Value = [usize; 3]> {
    let size = || prop_oneof![6 => 1usize..4, 1 => Just(0usize)];
    [size(), size(), size()]
}

/// Sizes 1..4 only, for the unsqueeze family, whose empty-tensor bugs are tested apart.
fn full_shape2() -> impl Strategy<Value = [usize; 2]> {
    [1usize..4, 1usize..4]
}

/// Sizes where 1 is common, for the squeeze family and expand.
fn unit_shape3() -> impl Strategy<Value = [usize; 3]> {
    let size = || prop_oneof![3 => Just(1usize), 3 => 2usize..4, 1 => Just(0usize)];
    [size(), size(), size()]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn reshape_parity(dims in shape3(), random in [-2isize..7, -2isize..7], pick in 0usize..6, as_shape in any::<bool>()) {
        // Half the targets are built from the shape, so that about half are valid.
        let [a, b, c] = dims.map(|d| d as isize);
        let target = match pick {
            0 => [a, -1],
            1 => [-1, c],
            2 => [0, -1],
            3 => [a * b, c],
            _ => random,
        };
        for (name, device) in common::cpu_devices() {
            let case = format!("{name} reshape {dims:?} -> {target:?}");
            let t = || tensor(dims, &device);
            let burn = raw(|| snapshot(t().reshape::<2, _>(target)));
            let ours = t().try_reshape::<2, _>(target).map(snapshot);
            assert_parity(&case, burn, ours);
            if as_shape && target.iter().all(|&d| d >= 0) {
                let shape = Shape::new(target.map(|d| d as usize));
                let burn = raw(|| snapshot(t().reshape::<2, _>(shape.clone())));
                let ours = t().try_reshape::<2, _>(shape.clone()).map(snapshot);
                assert_parity(&format!("{case} (Shape)"), burn, ours);
            }
        }
    }

    #[test]
    fn permute_and_flip_parity(
        dims in shape3(),
        random in [any_dim(3), any_dim(3), any_dim(3)],
        perm in Just(vec![0isize, 1, 2]).prop_shuffle(),
        negate in [any::<bool>(), any::<bool>(), any::<bool>()],
        valid in any::<bool>(),
        pick in 0usize..3,
    ) {
        // Half the axes are a permutation (some written negative), so that about half are valid.
        let axes = if valid {
            [0, 1, 2].map(|i| if negate[i] { perm[i] - 3 } else { perm[i] })
        } else {
            random
        };
        for (name, device) in common::cpu_devices() {
            let t = || tensor(dims, &device);
            let case = format!("{name} permute {dims:?} {axes:?}");
            let burn = raw(|| snapshot(t().permute(axes)));
            assert_parity(&case, burn, t().try_permute(axes).map(snapshot));
            let case = format!("{name} flip {dims:?} {axes:?} pick={pick}");
            let (burn, ours) = match pick {
                0 => (raw(|| snapshot(t().flip([axes[0]]))), t().try_flip([axes[0]]).map(snapshot)),
                1 => (
                    raw(|| snapshot(t().flip([axes[0], axes[1]]))),
                    t().try_flip([axes[0], axes[1]]).map(snapshot),
                ),
                _ => (raw(|| snapshot(t().flip(axes))), t().try_flip(axes).map(snapshot)),
            };
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn movedim_parity(
        dims in shape3(),
        random_src in proptest::collection::vec(any_dim(3), 0..4),
        random_dst in proptest::collection::vec(any_dim(3), 0..4),
        perm_src in Just(vec![0isize, -2, 2]).prop_shuffle(),
        perm_dst in Just(vec![-3isize, 1, -1]).prop_shuffle(),
        len in 0usize..4,
        valid in any::<bool>(),
        single in any::<bool>(),
    ) {
        // Half the cases move distinct dims to distinct places, so that about half are valid.
        let (src, dst) = if valid {
            (perm_src[..len].to_vec(), perm_dst[..len].to_vec())
        } else {
            (random_src, random_dst)
        };
        for (name, device) in common::cpu_devices() {
            let t = || tensor(dims, &device);
            let case = format!("{name} movedim {dims:?} {src:?} {dst:?} single={single}");
            let (burn, ours) = match (single, src.first(), dst.first()) {
                (true, Some(&s), Some(&d)) => (
                    raw(|| snapshot(t().movedim(s, d))),
                    t().try_movedim(s, d).map(snapshot),
                ),
                _ => (
                    raw(|| snapshot(t().movedim(src.clone(), dst.clone()))),
                    t().try_movedim(src.clone(), dst.clone()).map(snapshot),
                ),
            };
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn flatten_parity(dims in shape3(), start in any_dim(3), end in any_dim(3), out_rank in 1usize..5) {
        for (name, device) in common::cpu_devices() {
            let t = || tensor(dims, &device);
            let case = format!("{name} flatten::<{out_rank}> {dims:?} {start} {end}");
            // burn accepts a D2 larger than the result rank; the later `dims()` in the snapshot
            // panics, and we refuse up front.
            let (burn, ours) = match out_rank {
                1 => (raw(|| snapshot(t().flatten::<1>(start, end))), t().try_flatten::<1>(start, end).map(snapshot)),
                2 => (raw(|| snapshot(t().flatten::<2>(start, end))), t().try_flatten::<2>(start, end).map(snapshot)),
                3 => (raw(|| snapshot(t().flatten::<3>(start, end))), t().try_flatten::<3>(start, end).map(snapshot)),
                _ => (raw(|| snapshot(t().flatten::<4>(start, end))), t().try_flatten::<4>(start, end).map(snapshot)),
            };
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn squeeze_parity(dims in unit_shape3(), dim in any_dim(3), list in proptest::collection::vec(any_dim(3), 0..4), out_rank in 1usize..4) {
        for (name, device) in common::cpu_devices() {
            let t = || tensor(dims, &device);
            let case = format!("{name} squeeze* {dims:?} rank {out_rank} dim={dim} list={list:?}");
            let (burn, ours) = match out_rank {
                1 => (raw(|| snapshot(t().squeeze::<1>())), t().try_squeeze::<1>().map(snapshot)),
                2 => (raw(|| snapshot(t().squeeze::<2>())), t().try_squeeze::<2>().map(snapshot)),
                _ => (raw(|| snapshot(t().squeeze::<3>())), t().try_squeeze::<3>().map(snapshot)),
            };
            assert_parity(&format!("{case} squeeze"), burn, ours);
            let (burn, ours) = match out_rank {
                1 => (raw(|| snapshot(t().squeeze_dim::<1>(dim))), t().try_squeeze_dim::<1>(dim).map(snapshot)),
                2 => (raw(|| snapshot(t().squeeze_dim::<2>(dim))), t().try_squeeze_dim::<2>(dim).map(snapshot)),
                _ => (raw(|| snapshot(t().squeeze_dim::<3>(dim))), t().try_squeeze_dim::<3>(dim).map(snapshot)),
            };
            assert_parity(&format!("{case} squeeze_dim"), burn, ours);
            let (burn, ours) = match out_rank {
                1 => (raw(|| snapshot(t().squeeze_dims::<1>(&list))), t().try_squeeze_dims::<1>(&list).map(snapshot)),
                2 => (raw(|| snapshot(t().squeeze_dims::<2>(&list))), t().try_squeeze_dims::<2>(&list).map(snapshot)),
                _ => (raw(|| snapshot(t().squeeze_dims::<3>(&list))), t().try_squeeze_dims::<3>(&list).map(snapshot)),
            };
            assert_parity(&format!("{case} squeeze_dims"), burn, ours);
        }
    }

    #[test]
    fn unsqueeze_parity(dims in full_shape2(), dim in any_dim(3), axes in proptest::collection::vec(-5isize..5, 0..4), out_rank in 1usize..6) {
        for (name, device) in common::cpu_devices() {
            let t = || tensor(dims, &device);
            let case = format!("{name} unsqueeze* {dims:?} rank {out_rank} dim={dim} axes={axes:?}");
            macro_rules! all_three {
                ($r:literal) => {{
                    assert_parity(&format!("{case} unsqueeze"), raw(|| snapshot(t().unsqueeze::<$r>())), t().try_unsqueeze::<$r>().map(snapshot));
                    assert_parity(&format!("{case} unsqueeze_dim"), raw(|| snapshot(t().unsqueeze_dim::<$r>(dim))), t().try_unsqueeze_dim::<$r>(dim).map(snapshot));
                    assert_parity(&format!("{case} unsqueeze_dims"), raw(|| snapshot(t().unsqueeze_dims::<$r>(&axes))), t().try_unsqueeze_dims::<$r>(&axes).map(snapshot));
                }};
            }
            match out_rank {
                1 => all_three!(1),
                2 => all_three!(2),
                3 => all_three!(3),
                4 => all_three!(4),
                _ => all_three!(5),
            }
        }
    }

    #[test]
    fn expand_parity(dims in [prop_oneof![3 => Just(1usize), 3 => 2usize..4, 1 => Just(0usize)], prop_oneof![3 => Just(1usize), 3 => 2usize..4, 1 => Just(0usize)]], target in [-2isize..4, -2isize..4, -2isize..4], as_shape in any::<bool>()) {
        for (name, device) in common::cpu_devices() {
            let t = || tensor(dims, &device);
            let case = format!("{name} expand {dims:?} -> {target:?}");
            assert_parity(&case, raw(|| snapshot(t().expand(target))), t().try_expand(target).map(snapshot));
            let two = [target[1], target[2]];
            assert_parity(&format!("{case} (last two)"), raw(|| snapshot(t().expand(two))), t().try_expand(two).map(snapshot));
            if as_shape && target.iter().all(|&d| d >= 0) {
                let shape = Shape::new(target.map(|d| d as usize));
                assert_parity(
                    &format!("{case} (Shape)"),
                    raw(|| snapshot(t().expand::<3, _>(shape.clone()))),
                    t().try_expand::<3, _>(shape.clone()).map(snapshot),
                );
            }
        }
    }

    /// NdArray returns windows of size 0 for `size == 0` where Flex panics; we refuse it, so
    /// that case is compared on Flex only.
    #[test]
    fn unfold_parity(dims in [0usize..5, 0usize..5], dim in any_dim(2), size in 0usize..6, step in 0usize..3) {
        for (name, device) in common::cpu_devices() {
            if size == 0 && name == "ndarray" {
                continue;
            }
            let t = || tensor(dims, &device);
            let case = format!("{name} unfold {dims:?} dim={dim} size={size} step={step}");
            assert_parity(&case, raw(|| snapshot(t().unfold::<3, _>(dim, size, step))), t().try_unfold::<3, _>(dim, size, step).map(snapshot));
            assert_parity(&format!("{case} (D2=2)"), raw(|| snapshot(t().unfold::<2, _>(dim, size, step))), t().try_unfold::<2, _>(dim, size, step).map(snapshot));
        }
    }

    #[test]
    fn roll_parity(dims in shape3(), shifts in proptest::collection::vec(-7isize..7, 0..4), roll_dims in proptest::collection::vec(any_dim(3), 0..4), dim in any_dim(3)) {
        for (name, device) in common::cpu_devices() {
            let t = || tensor(dims, &device);
            let case = format!("{name} roll {dims:?} shifts={shifts:?} dims={roll_dims:?}");
            assert_parity(&case, raw(|| snapshot(t().roll(&shifts, &roll_dims))), t().try_roll(&shifts, &roll_dims).map(snapshot));
            let shift = shifts.first().copied().unwrap_or(5);
            let case = format!("{name} roll_dim {dims:?} shift={shift} dim={dim}");
            assert_parity(&case, raw(|| snapshot(t().roll_dim(shift, dim))), t().try_roll_dim(shift, dim).map(snapshot));
        }
    }

    #[test]
    fn repeat_parity(dims in [0usize..4, 1usize..4], dim in any_dim(2), times in 0usize..3, sizes in proptest::collection::vec(prop_oneof![Just(1usize), 0usize..3], 0..5)) {
        for (name, device) in common::cpu_devices() {
            let t = || tensor(dims, &device);
            let case = format!("{name} repeat_dim {dims:?} dim={dim} times={times}");
            assert_parity(&case, raw(|| snapshot(t().repeat_dim(dim, times))), t().try_repeat_dim(dim, times).map(snapshot));
            let case = format!("{name} repeat {dims:?} sizes={sizes:?}");
            assert_parity(&case, raw(|| snapshot(t().repeat(&sizes))), t().try_repeat(&sizes).map(snapshot));
        }
    }

    #[test]
    fn pad_parity(
        dims in [0usize..4, 0usize..4],
        pairs in proptest::collection::vec((0usize..4, 0usize..4), 0..4),
        ltrb in (0usize..3, 0usize..3, 0usize..3, 0usize..3),
        mode in 0usize..3,
        value in prop_oneof![Just(f32::NAN), Just(1e30f32), Just(-2.5f32), Just(7.0f32)],
    ) {
        let mode = match mode {
            0 => PadMode::Constant(value),
            1 => PadMode::Reflect,
            _ => PadMode::Edge,
        };
        for (name, device) in common::cpu_devices() {
            let t = || tensor(dims, &device);
            let case = format!("{name} pad {dims:?} pairs={pairs:?} mode={mode:?}");
            let eq_nan = |s: Snap| (s.0, s.1.into_iter().map(f32::to_bits).collect::<Vec<_>>());
            assert_parity(&case, raw(|| eq_nan(snapshot(t().pad(pairs.clone(), mode)))), t().try_pad(pairs.clone(), mode).map(snapshot).map(eq_nan));
            assert_parity(&format!("{case} (ltrb {ltrb:?})"), raw(|| eq_nan(snapshot(t().pad(ltrb, mode)))), t().try_pad(ltrb, mode).map(snapshot).map(eq_nan));
            let one = || tensor([dims[1]], &device);
            assert_parity(&format!("{case} (rank 1, ltrb {ltrb:?})"), raw(|| eq_nan(snapshot(one().pad(ltrb, mode)))), one().try_pad(ltrb, mode).map(snapshot).map(eq_nan));
            let i = || int_tensor(dims, &device);
            assert_parity(&format!("{case} (int)"), raw(|| snapshot_int(i().pad(pairs.as_slice(), mode))), i().try_pad(pairs.as_slice(), mode).map(snapshot_int));
        }
    }

    /// burn panics on some sizes that do not divide evenly; there we compute PyTorch's pieces
    /// and compare with them instead.
    #[test]
    fn chunk_parity(size in 0usize..10, other in 1usize..3, chunks in 0usize..7, dim in any_dim(2)) {
        for (name, device) in common::cpu_devices() {
            let t = || tensor([size, other], &device);
            let case = format!("{name} chunk [{size}, {other}] chunks={chunks} dim={dim}");
            let burn = raw(|| snaps(t().chunk(chunks, dim)));
            let ours = t().try_chunk(chunks, dim).map(snaps);
            let resolved = if dim < 0 { dim + 2 } else { dim };
            let burn_bug = burn.is_none() && chunks > 0 && (0..2).contains(&resolved);
            if burn_bug {
                let n = if resolved == 0 { size } else { other };
                let step = n.div_ceil(chunks);
                let ours = ours.unwrap_or_else(|e| panic!("{case}: {e}"));
                let expected: Vec<usize> = (0..n).step_by(step.max(1)).map(|s| step.min(n - s)).collect();
                let got: Vec<usize> = ours.iter().map(|s| s.0[resolved as usize]).collect();
                prop_assert_eq!(got, expected, "{}", case);
            } else {
                assert_parity(&case, burn, ours);
            }
        }
    }

    #[test]
    fn split_parity(size in 0usize..7, split_size in 0usize..4, dim in any_dim(2), sizes in proptest::collection::vec(0usize..4, 0..4)) {
        for (name, device) in common::cpu_devices() {
            let t = || tensor([size, 2], &device);
            let case = format!("{name} split [{size}, 2] split_size={split_size} dim={dim}");
            assert_parity(&case, raw(|| snaps(t().split(split_size, dim))), t().try_split(split_size, dim).map(snaps));
            let case = format!("{name} split_with_sizes [{size}, 2] sizes={sizes:?} dim={dim}");
            assert_parity(&case, raw(|| snaps(t().split_with_sizes(sizes.clone(), dim))), t().try_split_with_sizes(sizes.clone(), dim).map(snaps));
        }
    }

    #[test]
    fn iter_dim_parity(dims in [0usize..3, 1usize..3], dim in any_dim(2)) {
        for (name, device) in common::cpu_devices() {
            let t = || tensor(dims, &device);
            let case = format!("{name} iter_dim {dims:?} dim={dim}");
            assert_parity(&case, raw(|| snaps(t().iter_dim(dim).collect())), t().try_iter_dim(dim).map(|it| snaps(it.collect())));
        }
    }

    #[test]
    fn meshgrid_parity(a in 0usize..3, b in 0usize..3, sparse in any::<bool>(), cartesian in any::<bool>(), first in any::<bool>()) {
        let options = GridOptions::new(
            if cartesian { GridIndexing::Cartesian } else { GridIndexing::Matrix },
            if sparse { GridSparsity::Sparse } else { GridSparsity::Dense },
        );
        for (name, device) in common::cpu_devices() {
            let inputs = || [tensor([a], &device), tensor([b], &device)];
            let case = format!("{name} meshgrid [{a}] [{b}] {options:?}");
            let burn = raw(|| burn::tensor::grid::meshgrid(&inputs(), options).map(snapshot));
            let ours = try_meshgrid(&inputs(), options).map(|grid| grid.map(snapshot));
            assert_parity(&case, burn, ours);
            let pos = if first { IndexPos::First } else { IndexPos::Last };
            let case = format!("{name} meshgrid_stack [{a}] [{b}] {pos:?}");
            let burn = raw(|| snapshot(burn::tensor::grid::meshgrid_stack::<2, 3, _>(&inputs(), pos)));
            let ours = try_meshgrid_stack::<2, 3, _>(&inputs(), pos).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// The twins are generic over the kind: a few of them on Int and Bool tensors.
    #[test]
    fn int_and_bool_kinds_parity(
        dims in [1usize..4, 1usize..4],
        target in [-2isize..5, -2isize..5],
        axis in any_dim(2),
        shift in -3isize..4,
        times in 0usize..3,
    ) {
        for (name, device) in common::cpu_devices() {
            let i = || int_tensor(dims, &device);
            let b = || int_tensor(dims, &device).greater_elem(0);
            let case = format!("{name} {dims:?} target={target:?} axis={axis} shift={shift} times={times}");
            assert_parity(&format!("{case} int reshape"), raw(|| snapshot_int(i().reshape::<2, _>(target))), i().try_reshape::<2, _>(target).map(snapshot_int));
            assert_parity(&format!("{case} bool reshape"), raw(|| snapshot_bool(b().reshape::<2, _>(target))), b().try_reshape::<2, _>(target).map(snapshot_bool));
            assert_parity(&format!("{case} int flip"), raw(|| snapshot_int(i().flip([axis]))), i().try_flip([axis]).map(snapshot_int));
            assert_parity(&format!("{case} bool permute"), raw(|| snapshot_bool(b().permute([axis, 0]))), b().try_permute([axis, 0]).map(snapshot_bool));
            assert_parity(&format!("{case} bool expand"), raw(|| snapshot_bool(b().expand([2, target[0], target[1]]))), b().try_expand([2, target[0], target[1]]).map(snapshot_bool));
            assert_parity(&format!("{case} int roll_dim"), raw(|| snapshot_int(i().roll_dim(shift, axis))), i().try_roll_dim(shift, axis).map(snapshot_int));
            assert_parity(&format!("{case} bool repeat_dim"), raw(|| snapshot_bool(b().repeat_dim(axis, times))), b().try_repeat_dim(axis, times).map(snapshot_bool));
            assert_parity(&format!("{case} bool unsqueeze_dim"), raw(|| snapshot_bool(b().unsqueeze_dim::<3>(axis))), b().try_unsqueeze_dim::<3>(axis).map(snapshot_bool));
            let chunks = times + shift.unsigned_abs();
            assert_parity(
                &format!("{case} int chunk {chunks}"),
                raw(|| i().chunk(chunks, axis).into_iter().map(snapshot_int).collect::<Vec<_>>()),
                i().try_chunk(chunks, axis).map(|v| v.into_iter().map(snapshot_int).collect()),
            );
        }
    }
}

/// burn's reshape reads a 0 in the shape it builds as "keep the source dim": unsqueezing an
/// empty tensor panics (or returns a wrong shape). The twins compute these correctly.
#[test]
fn unsqueeze_of_empty_tensors_is_computed() {
    for (name, device) in common::cpu_devices() {
        let t = tensor([3, 0], &device);
        assert!(
            raw(|| t.clone().unsqueeze::<3>().dims()).is_none(),
            "{name}"
        );
        assert_eq!(t.clone().try_unsqueeze::<4>().unwrap().dims(), [1, 1, 3, 0]);
        assert_eq!(
            t.clone().try_unsqueeze_dim::<3>(0).unwrap().dims(),
            [1, 3, 0]
        );
        assert_eq!(
            t.clone().try_unsqueeze_dim::<3>(1).unwrap().dims(),
            [3, 1, 0]
        );
        assert_eq!(
            t.clone().try_unsqueeze_dim::<3>(-1).unwrap().dims(),
            [3, 0, 1]
        );
        assert_eq!(
            t.clone()
                .try_unsqueeze_dims::<5>(&[0, -1, 2])
                .unwrap()
                .dims(),
            [1, 3, 1, 0, 1]
        );
        let t = tensor([0, 0, 3], &device);
        // burn copies the wrong source dim and returns a wrong shape.
        assert_eq!(
            raw(|| t.clone().unsqueeze_dim::<4>(1).dims()),
            Some([0, 1, 3, 3]),
            "{name}"
        );
        assert_eq!(
            t.clone().try_unsqueeze_dim::<4>(1).unwrap().dims(),
            [0, 1, 0, 3]
        );
        assert_eq!(t.try_unsqueeze::<3>().unwrap().dims(), [0, 0, 3]);
    }
}

/// burn's `chunk(0, _)` divides by zero; the twin refuses it.
#[test]
fn chunk_zero_is_refused() {
    let t = tensor([4], &Device::flex());
    assert!(raw(|| t.clone().chunk(0, 0)).is_none());
    let err = t.try_chunk(0, 0).unwrap_err();
    assert!(
        matches!(
            err,
            GuardError::OutOfRange {
                op: "chunk",
                name: "chunks",
                ..
            }
        ),
        "{err}"
    );
}

/// A `Shape` argument of the wrong rank: burn returns a tensor whose rank is not `D2`.
#[test]
fn shape_arguments_of_the_wrong_rank_are_refused() {
    let device = Device::flex();
    let t = tensor([2, 3], &device);
    let err = t.clone().try_reshape::<2, _>(Shape::new([6])).unwrap_err();
    assert!(
        matches!(err, GuardError::RankMismatch { op: "reshape", .. }),
        "{err}"
    );
    let err = t
        .clone()
        .try_expand::<2, _>(Shape::new([4, 2, 3]))
        .unwrap_err();
    assert!(
        matches!(err, GuardError::RankMismatch { op: "expand", .. }),
        "{err}"
    );
    let err = t.try_expand::<1, _>(Shape::new([3])).unwrap_err();
    assert!(
        matches!(err, GuardError::RankMismatch { op: "expand", .. }),
        "{err}"
    );
}

/// `meshgrid_stack` needs `D2 == D + 1` and inputs on one device (burn's stack does not check).
#[test]
fn meshgrid_stack_rank_and_devices() {
    let flex = Device::flex();
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let ndarray = Device::ndarray();
    let same = [tensor([2], &flex), tensor([3], &flex)];
    assert!(
        raw(|| burn::tensor::grid::meshgrid_stack::<2, 2, _>(&same, IndexPos::First)).is_none()
    );
    let err = try_meshgrid_stack::<2, 2, _>(&same, IndexPos::First).unwrap_err();
    assert!(matches!(err, GuardError::RankMismatch { .. }), "{err}");
    let mixed = [tensor([2], &flex), tensor([3], &ndarray)];
    let err = try_meshgrid_stack::<2, 3, _>(&mixed, IndexPos::First).unwrap_err();
    assert!(matches!(err, GuardError::DeviceMismatch { .. }), "{err}");
}

/// A representative subset on wgpu: kernels compile slowly on lavapipe, so a fixed handful.
#[test]
fn wgpu_reshape_permute_unsqueeze_parity() {
    let Some(device) = common::wgpu_device() else {
        return;
    };
    let t = || common::float_tensor([2, 3], &device);
    for target in [[3, -1], [4, -1]] {
        assert_parity(
            &format!("wgpu reshape {target:?}"),
            raw(|| snapshot(t().reshape::<2, _>(target))),
            t().try_reshape::<2, _>(target).map(snapshot),
        );
    }
    for axes in [[1, 0], [0, -2]] {
        assert_parity(
            &format!("wgpu permute {axes:?}"),
            raw(|| snapshot(t().permute(axes))),
            t().try_permute(axes).map(snapshot),
        );
    }
    assert_eq!(
        Tensor::<2>::zeros([3, 0], &device)
            .try_unsqueeze_dim::<3>(1)
            .unwrap()
            .dims(),
        [3, 1, 0]
    );
}

/// `reshape` of a block-quantized tensor into a shape that splits a block: Flex panics; the
/// twin refuses by the scheme's block layout. Shapes that keep whole blocks pass, with
/// burn's values.
#[test]
fn reshape_keeps_quantization_blocks_whole() {
    use burn::tensor::quantization::{QuantScheme, ScaleDtype};
    let device = Device::flex();
    let scheme = QuantScheme::default().per_block([4], ScaleDtype::F32);
    let q = || tensor([2, 8], &device).quantize_dynamic(&scheme);
    macro_rules! case {
        ($shape:expr) => {{
            let burn = raw(|| snapshot(q().reshape($shape).dequantize()));
            let ours = q().try_reshape($shape).map(|t| snapshot(t.dequantize()));
            assert_parity(&format!("reshape {:?}", $shape), burn, ours);
        }};
    }
    case!([4, 4]);
    case!([16]);
    case!([2, 2, 4]);
    case!([8, 2]);
    case!([2, 4, 2]);
    assert!(matches!(
        q().try_reshape([8, 2]),
        Err(GuardError::InvalidQuantScheme { .. })
    ));

    // 4-bit values in blocks of 32: burn-flex stores them one per byte and reports a native
    // store, which a reshape keeps; whole blocks pass with burn's values.
    use burn::tensor::quantization::{QuantStore, QuantValue};
    let q4 = QuantScheme::default()
        .with_value(QuantValue::Q4S)
        .with_store(QuantStore::PackedU32(0))
        .per_block([32], ScaleDtype::F32);
    let q = || tensor([64], &device).quantize_dynamic(&q4);
    for shape in [[2, 32], [1, 64], [4, 16]] {
        let burn = raw(|| snapshot(q().reshape(shape).dequantize()));
        let ours = q().try_reshape(shape).map(|t| snapshot(t.dequantize()));
        assert_parity(&format!("q4 reshape {shape:?}"), burn, ours);
    }
}
