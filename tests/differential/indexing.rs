//! Differential tests of the indexing family: raw burn under `catch_unwind` vs our twin.
//!
//! Where burn leaves a condition to the backend (index values out of range, mask shapes), we
//! refuse it beyond burn: those cases assert our refusal instead of parity.

use crate::common;

use burn::tensor::{Bool, Device, IndexingUpdateOp, Int, Slice, Tensor, TensorData};
use burn_guard::GuardError;
use burn_guard::tensor::{TryCreateBool, TryIndexing, TryIndexingNumeric, TryIndexingOrdered};
use proptest::prelude::*;

use crate::common::{
    assert_parity, cpu_devices as devices, float_tensor as tensor, raw, snapshot, snapshot_bool,
    snapshot_int,
};

fn int_tensor<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D, Int> {
    let n: usize = dims.iter().product();
    let values: Vec<i64> = (0..n as i64).map(|i| i * 3 % 7 - 2).collect();
    Tensor::from_data(TensorData::new(values, dims), device)
}

/// A dim drawn to be valid about half the time for rank `rank` (negatives included).
fn any_dim(rank: usize) -> impl Strategy<Value = isize> {
    let r = rank as isize;
    prop_oneof![-r..r, (-r - 2)..(r + 2)]
}

fn shape2() -> impl Strategy<Value = [usize; 2]> {
    [1usize..5, 1usize..5]
}

/// A slice with possibly negative or out-of-range bounds, an optional end, and a step that is
/// 0 now and then.
fn any_slice() -> impl Strategy<Value = Slice> {
    (
        -6isize..6,
        proptest::option::of(-6isize..7),
        prop_oneof![4 => Just(1isize), 1 => Just(2), 1 => Just(-1), 1 => Just(-2), 1 => Just(0)],
    )
        .prop_map(|(start, end, step)| Slice { start, end, step })
}

fn any_update() -> impl Strategy<Value = IndexingUpdateOp> {
    prop_oneof![
        Just(IndexingUpdateOp::Add),
        Just(IndexingUpdateOp::Assign),
        Just(IndexingUpdateOp::Mul),
        Just(IndexingUpdateOp::Max),
    ]
}

/// An int tensor built from data (not `reshape`, which reads a 0 as "keep this dim").
fn int2(v: &[i64], dims: [usize; 2], device: &Device) -> Tensor<2, Int> {
    Tensor::from_data(TensorData::new(v.to_vec(), dims), device)
}

fn bool2(v: &[bool], dims: [usize; 2], device: &Device) -> Tensor<2, Bool> {
    Tensor::from_data(TensorData::new(v.to_vec(), dims), device)
}

/// The shape of `gather`/`scatter` indices (or `select_assign` values) along `d`: `dims` with
/// `n` at `d` when `matching`, else `other`.
fn shape_along(
    matching: bool,
    d: isize,
    dims: [usize; 2],
    n: usize,
    other: [usize; 2],
) -> [usize; 2] {
    match (matching, d) {
        (true, 0) => [n, dims[1]],
        (true, 1) => [dims[0], n],
        _ => other,
    }
}

/// Our refusal of an out-of-range index (beyond burn: the backend panics or reads garbage).
fn assert_index_refused<T: std::fmt::Debug>(case: &str, ours: Result<T, GuardError>) {
    match ours {
        Err(GuardError::IndexOutOfRange { .. }) => {}
        other => panic!("{case}: expected IndexOutOfRange, got {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn slice_parity(dims in shape2(), slices in proptest::collection::vec(any_slice(), 0..4)) {
        for (name, device) in devices() {
            let case = format!("{name} slice {dims:?} {slices:?}");
            let burn = raw(|| snapshot(tensor(dims, &device).slice(slices.as_slice())));
            let ours = tensor(dims, &device).try_slice(slices.as_slice()).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn slice_dim_parity(dims in shape2(), dim in any_dim(2), slice in any_slice()) {
        for (name, device) in devices() {
            let case = format!("{name} slice_dim {dims:?} dim={dim} {slice:?}");
            let burn = raw(|| snapshot(tensor(dims, &device).slice_dim(dim, slice)));
            let ours = tensor(dims, &device).try_slice_dim(dim, slice).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn slice_assign_parity(
        dims in shape2(),
        slices in proptest::collection::vec(any_slice(), 0..4),
        other in shape2(),
        matching in any::<bool>(),
    ) {
        for (name, device) in devices() {
            // About half the values take the selected shape, as burn computes it.
            let selected = raw(|| tensor(dims, &device).slice(slices.as_slice()).dims());
            let vdims = match selected {
                Some(s) if matching && !s.contains(&0) => s,
                _ => other,
            };
            let case = format!("{name} slice_assign {dims:?} {slices:?} values={vdims:?}");
            let burn = raw(|| snapshot(tensor(dims, &device).slice_assign(slices.as_slice(), tensor(vdims, &device))));
            let ours = tensor(dims, &device)
                .try_slice_assign(slices.as_slice(), tensor(vdims, &device))
                .map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn slice_fill_parity(
        dims in shape2(),
        slices in proptest::collection::vec(any_slice(), 0..4),
        value in prop_oneof![Just(f32::NAN), Just(f32::INFINITY), Just(1e20f32), -3.0f32..3.0],
    ) {
        for (name, device) in devices() {
            let case = format!("{name} slice_fill {dims:?} {slices:?} value={value}");
            let burn = raw(|| snapshot(tensor(dims, &device).slice_fill(slices.as_slice(), value)));
            let ours = tensor(dims, &device).try_slice_fill(slices.as_slice(), value).map(snapshot);
            // NaN != NaN: compare through the bit pattern-free Debug of the outcome kind.
            match (burn, ours) {
                (Some(b), Ok(o)) => prop_assert_eq!(format!("{b:?}"), format!("{o:?}"), "{}", case),
                (b, o) => assert_parity(&case, b, o),
            }
            let case = format!("{name} int slice_fill {dims:?} {slices:?} value={value}");
            let burn = raw(|| snapshot_int(int_tensor(dims, &device).slice_fill(slices.as_slice(), value)));
            let ours = int_tensor(dims, &device).try_slice_fill(slices.as_slice(), value).map(snapshot_int);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn select_dim_parity(dims in shape2(), dim in any_dim(2), index in -6isize..6) {
        for (name, device) in devices() {
            let case = format!("{name} select_dim {dims:?} dim={dim} index={index}");
            let burn = raw(|| snapshot(tensor(dims, &device).select_dim::<1>(dim, index)));
            let ours = tensor(dims, &device).try_select_dim::<1>(dim, index).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn gather_parity(
        dims in shape2(),
        dim in any_dim(2),
        along in 1usize..4,
        other in shape2(),
        matching in any::<bool>(),
        raw_values in proptest::collection::vec(-1i64..5, 16),
    ) {
        for (name, device) in devices() {
            let d = if dim < 0 { dim + 2 } else { dim };
            let idims = shape_along(matching, d, dims, along, other);
            let n = idims[0] * idims[1];
            let values = &raw_values[..n];
            let case = format!("{name} gather {dims:?} dim={dim} indices {idims:?} {values:?}");
            let burn = raw(|| snapshot(tensor(dims, &device).gather(dim, int2(values, idims, &device))));
            let ours = tensor(dims, &device).try_gather(dim, int2(values, idims, &device)).map(snapshot);
            let shapes_ok = (0..2).contains(&d) && (0..2).all(|i| i == d as usize || dims[i] == idims[i]);
            if shapes_ok && values.iter().any(|&v| v < 0 || v >= dims[d as usize] as i64) {
                assert_index_refused(&case, ours);
            } else {
                assert_parity(&case, burn, ours);
            }
        }
    }

    #[test]
    fn scatter_parity(
        dims in shape2(),
        dim in any_dim(2),
        along in 1usize..4,
        other in shape2(),
        matching in any::<bool>(),
        values_match in prop_oneof![3 => Just(true), 1 => Just(false)],
        update in any_update(),
        raw_values in proptest::collection::vec(-1i64..5, 16),
    ) {
        for (name, device) in devices() {
            let d = if dim < 0 { dim + 2 } else { dim };
            let idims = shape_along(matching, d, dims, along, other);
            let vdims = if values_match { idims } else { other };
            let values = &raw_values[..idims[0] * idims[1]];
            let case = format!("{name} scatter {dims:?} dim={dim} indices {idims:?} {values:?} values {vdims:?} {update:?}");
            let burn = raw(|| snapshot(tensor(dims, &device).scatter(dim, int2(values, idims, &device), tensor(vdims, &device), update)));
            let ours = tensor(dims, &device)
                .try_scatter(dim, int2(values, idims, &device), tensor(vdims, &device), update)
                .map(snapshot);
            let shapes_ok = (0..2).contains(&d)
                && (0..2).all(|i| i == d as usize || dims[i] == idims[i])
                && idims == vdims;
            if shapes_ok && values.iter().any(|&v| v < 0 || v >= dims[d as usize] as i64) {
                assert_index_refused(&case, ours);
            } else {
                assert_parity(&case, burn, ours);
            }
        }
    }

    #[test]
    fn select_assign_parity(
        dims in shape2(),
        dim in any_dim(2),
        indices in proptest::collection::vec(-1i64..5, 0..4),
        other in shape2(),
        matching in any::<bool>(),
        update in any_update(),
    ) {
        for (name, device) in devices() {
            let d = if dim < 0 { dim + 2 } else { dim };
            let vdims = shape_along(matching, d, dims, indices.len(), other);
            let index = || Tensor::<1, Int>::from_ints(indices.as_slice(), &device);
            let case = format!("{name} select_assign {dims:?} dim={dim} {indices:?} values {vdims:?} {update:?}");
            let burn = raw(|| snapshot(tensor(dims, &device).select_assign(dim, index(), tensor(vdims, &device), update)));
            let ours = tensor(dims, &device)
                .try_select_assign(dim, index(), tensor(vdims, &device), update)
                .map(snapshot);
            let count_ok = (0..2).contains(&d) && vdims[d as usize] == indices.len();
            let others_ok = (0..2).all(|i| i == d as usize || dims[i] == vdims[i]);
            if count_ok && !others_ok {
                // Beyond burn: Flex panics, NdArray broadcasts a 1; we refuse on every backend.
                prop_assert!(matches!(ours, Err(GuardError::ShapeMismatch { .. })), "{}: {:?}", case, ours);
            } else if count_ok && indices.iter().any(|&v| v < 0 || v >= dims[d as usize] as i64) {
                assert_index_refused(&case, ours);
            } else {
                assert_parity(&case, burn, ours);
            }
        }
    }

    #[test]
    fn mask_fill_parity(
        dims in shape2(),
        mdims in [1usize..4, 1usize..4],
        fit in any::<bool>(),
        bits in proptest::collection::vec(any::<bool>(), 16),
        value in prop_oneof![Just(f32::NAN), Just(f32::NEG_INFINITY), Just(3e9f32), -3.0f32..3.0],
    ) {
        for (name, device) in devices() {
            let mdims = if fit { [if mdims[0] == 1 { 1 } else { dims[0] }, dims[1]] } else { mdims };
            let n = mdims[0] * mdims[1];
            let mask = || bool2(&bits[..n], mdims, &device);
            let case = format!("{name} int mask_fill {dims:?} mask {mdims:?} value={value}");
            let burn = raw(|| snapshot_int(int_tensor(dims, &device).mask_fill(mask(), value)));
            let ours = int_tensor(dims, &device).try_mask_fill(mask(), value).map(snapshot_int);
            assert_parity(&case, burn, ours);
            if value.is_finite() {
                let case = format!("{name} mask_fill {dims:?} mask {mdims:?} value={value}");
                let burn = raw(|| snapshot(tensor(dims, &device).mask_fill(mask(), value)));
                let ours = tensor(dims, &device).try_mask_fill(mask(), value).map(snapshot);
                assert_parity(&case, burn, ours);
            }
        }
    }

    #[test]
    fn mask_select_parity(dims in shape2(), mdims in shape2(), fit in any::<bool>(), bits in proptest::collection::vec(any::<bool>(), 16)) {
        for (name, device) in devices() {
            let mdims = if fit { dims } else { mdims };
            let n = mdims[0] * mdims[1];
            let mask = || bool2(&bits[..n], mdims, &device);
            let case = format!("{name} mask_select {dims:?} mask {mdims:?}");
            let burn = raw(|| snapshot(tensor(dims, &device).mask_select(mask())));
            let ours = tensor(dims, &device).try_mask_select(mask()).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn tri_parity(dims in [1usize..4, 1usize..4, 1usize..4], diagonal in -3i64..3, upper in any::<bool>()) {
        for (name, device) in devices() {
            let case = format!("{name} tri upper={upper} {dims:?} diagonal={diagonal}");
            let burn = raw(|| snapshot(if upper { tensor(dims, &device).triu(diagonal) } else { tensor(dims, &device).tril(diagonal) }));
            let ours = if upper { tensor(dims, &device).try_triu(diagonal) } else { tensor(dims, &device).try_tril(diagonal) }.map(snapshot);
            assert_parity(&case, burn, ours);
            let case = format!("{name} tri rank 1 {dims:?}");
            let one = [dims[0]];
            let burn = raw(|| snapshot(tensor(one, &device).triu(diagonal)));
            let ours = tensor(one, &device).try_triu(diagonal).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn tri_mask_parity(shape in proptest::collection::vec(1usize..4, 1..4), offset in -2i64..2, which in 0usize..3) {
        for (name, device) in devices() {
            let case = format!("{name} mask{which} <2> {shape:?} offset={offset}");
            let burn = raw(|| snapshot_bool(match which {
                0 => Tensor::<2, Bool>::triu_mask(shape.clone(), offset, &device),
                1 => Tensor::<2, Bool>::tril_mask(shape.clone(), offset, &device),
                _ => Tensor::<2, Bool>::diag_mask(shape.clone(), offset, &device),
            }));
            let ours = match which {
                0 => Tensor::<2, Bool>::try_triu_mask(shape.clone(), offset, &device),
                1 => Tensor::<2, Bool>::try_tril_mask(shape.clone(), offset, &device),
                _ => Tensor::<2, Bool>::try_diag_mask(shape.clone(), offset, &device),
            }
            .map(snapshot_bool);
            assert_parity(&case, burn, ours);
            let case = format!("{name} mask{which} <3> {shape:?} offset={offset}");
            let burn = raw(|| snapshot_bool(Tensor::<3, Bool>::triu_mask(shape.clone(), offset, &device)));
            let ours = Tensor::<3, Bool>::try_triu_mask(shape.clone(), offset, &device).map(snapshot_bool);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn gather_nd_parity(dims in shape2(), n in 0usize..3, k in 0usize..4, raw_values in proptest::collection::vec(-1i64..5, 12)) {
        for (name, device) in devices() {
            let values = &raw_values[..n * k];
            let idx = || int2(values, [n, k], &device);
            let case = format!("{name} gather_nd {dims:?} indices [{n}, {k}] {values:?}");
            // DV = M - 1 + D - K: 1 + 2 - k; draw DV = 2 (valid for k = 1) and DV = 1 (k = 2).
            let burn = raw(|| snapshot(tensor(dims, &device).gather_nd::<2, 2>(idx())));
            let ours = tensor(dims, &device).try_gather_nd::<2, 2>(idx()).map(snapshot);
            let in_range = values.chunks(k.max(1)).all(|t| t.iter().zip(dims).all(|(&v, s)| v >= 0 && v < s as i64));
            if k == 1 && n > 0 && !in_range {
                assert_index_refused(&case, ours);
            } else {
                assert_parity(&case, burn, ours);
            }
            let burn = raw(|| snapshot(tensor(dims, &device).gather_nd::<2, 1>(idx())));
            let ours = tensor(dims, &device).try_gather_nd::<2, 1>(idx()).map(snapshot);
            if k == 2 && n > 0 && !in_range {
                assert_index_refused(&case, ours);
            } else {
                assert_parity(&case, burn, ours);
            }
        }
    }

    #[test]
    fn scatter_nd_parity(
        dims in shape2(),
        n in 0usize..3,
        k in 0usize..4,
        vdims in shape2(),
        matching in any::<bool>(),
        update in any_update(),
        raw_values in proptest::collection::vec(-1i64..5, 12),
    ) {
        for (name, device) in devices() {
            let values = &raw_values[..n * k];
            let idx = || int2(values, [n, k], &device);
            // With k = 1 the values are [n, dims[1]].
            let vdims = if matching { [n.max(1), dims[1]] } else { vdims };
            let case = format!("{name} scatter_nd {dims:?} indices [{n}, {k}] {values:?} values {vdims:?} {update:?}");
            let burn = raw(|| snapshot(tensor(dims, &device).scatter_nd(idx(), tensor(vdims, &device), update)));
            let ours = tensor(dims, &device).try_scatter_nd(idx(), tensor(vdims, &device), update).map(snapshot);
            let in_range = values.iter().all(|&v| v >= 0 && v < dims[0] as i64);
            if k == 1 && n > 0 && vdims == [n, dims[1]] && !in_range {
                assert_index_refused(&case, ours);
            } else {
                assert_parity(&case, burn, ours);
            }
        }
    }

    #[test]
    fn take_parity(dims in shape2(), dim in any_dim(2), indices in proptest::collection::vec(-1i64..5, 1..5)) {
        for (name, device) in devices() {
            let idx = || Tensor::<1, Int>::from_ints(indices.as_slice(), &device);
            let case = format!("{name} take {dims:?} dim={dim} {indices:?}");
            let burn = raw(|| snapshot(tensor(dims, &device).take::<1, 2>(dim, idx())));
            let ours = tensor(dims, &device).try_take::<1, 2>(dim, idx()).map(snapshot);
            let d = if dim < 0 { dim + 2 } else { dim };
            if (0..2).contains(&d) && indices.iter().any(|&v| v < 0 || v >= dims[d as usize] as i64) {
                assert_index_refused(&case, ours);
            } else {
                assert_parity(&case, burn, ours);
            }
            let case = format!("{name} take DO=3 {dims:?} dim={dim}");
            let burn = raw(|| snapshot(tensor(dims, &device).take::<1, 3>(dim, idx())));
            let ours = tensor(dims, &device).try_take::<1, 3>(dim, idx()).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn one_hot_parity(values in proptest::collection::vec(-4i64..5, 1..5), num_classes in 0usize..5) {
        for (name, device) in devices() {
            let t = || Tensor::<1, Int>::from_ints(values.as_slice(), &device);
            let case = format!("{name} one_hot {values:?} classes={num_classes}");
            let burn = raw(|| snapshot_int(t().one_hot::<2>(num_classes)));
            let ours = t().try_one_hot::<2>(num_classes).map(snapshot_int);
            let classes = num_classes as i64;
            if num_classes >= 2 && values.iter().all(|&v| v < classes) && values.iter().any(|&v| v < -classes) {
                assert_index_refused(&case, ours);
            } else {
                assert_parity(&case, burn, ours);
            }
        }
    }

    #[test]
    fn one_hot_fill_parity(values in proptest::collection::vec(-4i64..5, 1..5), num_classes in 1usize..5, axis in any_dim(2)) {
        for (name, device) in devices() {
            let floats: Vec<f32> = values.iter().map(|&v| v as f32).collect();
            let t = || Tensor::<1>::from_floats(floats.as_slice(), &device);
            let case = format!("{name} one_hot_fill {values:?} classes={num_classes} axis={axis}");
            let burn = raw(|| snapshot(t().one_hot_fill::<2>(num_classes, 2.0, -1.0, axis)));
            let ours = t().try_one_hot_fill::<2>(num_classes, 2.0, -1.0, axis).map(snapshot);
            let classes = num_classes as i64;
            let axis_ok = (-2..2).contains(&axis);
            if axis_ok && values.iter().any(|&v| v < -classes || v >= classes) {
                assert_index_refused(&case, ours);
            } else {
                assert_parity(&case, burn, ours);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Float class values: burn compares them as floats and truncates them to integers.
    #[test]
    fn one_hot_float_parity(
        values in proptest::collection::vec(
            prop_oneof![Just(f32::NAN), Just(-0.5f32), Just(0.5), Just(2.5), Just(-2.5), (-4i32..5).prop_map(|v| v as f32)],
            1..4,
        ),
        num_classes in 2usize..5,
    ) {
        for (name, device) in devices() {
            let t = || Tensor::<1>::from_floats(values.as_slice(), &device);
            let case = format!("{name} one_hot float {values:?} classes={num_classes}");
            let burn = raw(|| snapshot(t().one_hot::<2>(num_classes)));
            let ours = t().try_one_hot::<2>(num_classes).map(snapshot);
            // On the CPU backends NaN, -0.5 (class n after burn's shift) and values below -n
            // panic in the backend: our refusals coincide.
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn take_2d_parity(dims in shape2(), dim in any_dim(2), idims in [1usize..3, 1usize..3], raw_values in proptest::collection::vec(-1i64..5, 9)) {
        for (name, device) in devices() {
            let values = &raw_values[..idims[0] * idims[1]];
            let idx = || int2(values, idims, &device);
            let case = format!("{name} take 2d {dims:?} dim={dim} {idims:?} {values:?}");
            let burn = raw(|| snapshot(tensor(dims, &device).take::<2, 3>(dim, idx())));
            let ours = tensor(dims, &device).try_take::<2, 3>(dim, idx()).map(snapshot);
            let d = if dim < 0 { dim + 2 } else { dim };
            if (0..2).contains(&d) && values.iter().any(|&v| v < 0 || v >= dims[d as usize] as i64) {
                assert_index_refused(&case, ours);
            } else {
                assert_parity(&case, burn, ours);
            }
        }
    }

    #[test]
    fn int_and_bool_kinds_parity(dims in shape2(), dim in any_dim(2), bits in proptest::collection::vec(any::<bool>(), 16), index in -5isize..5) {
        for (name, device) in devices() {
            let n = dims[0] * dims[1];
            let b = || bool2(&bits[..n], dims, &device);
            let case = format!("{name} bool mask_fill {dims:?}");
            let burn = raw(|| snapshot_bool(b().mask_fill(b(), true)));
            let ours = b().try_mask_fill(b(), true).map(snapshot_bool);
            assert_parity(&case, burn, ours);
            let case = format!("{name} int select_dim {dims:?} dim={dim} index={index}");
            let burn = raw(|| snapshot_int(int_tensor(dims, &device).select_dim::<1>(dim, index)));
            let ours = int_tensor(dims, &device).try_select_dim::<1>(dim, index).map(snapshot_int);
            assert_parity(&case, burn, ours);
            let case = format!("{name} bool slice_dim {dims:?} dim={dim} index={index}");
            let burn = raw(|| snapshot_bool(b().slice_dim(dim, index..)));
            let ours = b().try_slice_dim(dim, index..).map(snapshot_bool);
            assert_parity(&case, burn, ours);
            let case = format!("{name} bool slice_fill {dims:?} index={index}");
            let burn = raw(|| snapshot_bool(b().slice_fill(index.., true)));
            let ours = b().try_slice_fill(index.., true).map(snapshot_bool);
            assert_parity(&case, burn, ours);
            let burn = raw(|| snapshot_bool(b().slice_fill(index.., 2.0f32)));
            let ours = b().try_slice_fill(index.., 2.0f32).map(snapshot_bool);
            assert_parity(&format!("{case} 2.0f32"), burn, ours);
            let case = format!("{name} int tril {dims:?} index={index}");
            let burn = raw(|| snapshot_int(int_tensor(dims, &device).tril(index as i64)));
            let ours = int_tensor(dims, &device).try_tril(index as i64).map(snapshot_int);
            assert_parity(&case, burn, ours);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn rank3_int_parity(
        dims in [1usize..4, 1usize..4, 1usize..4],
        slices in proptest::collection::vec(any_slice(), 0..5),
        dim in any_dim(3),
        along in 1usize..3,
        raw_values in proptest::collection::vec(0i64..4, 27),
    ) {
        for (name, device) in devices() {
            let case = format!("{name} int slice {dims:?} {slices:?}");
            let burn = raw(|| snapshot_int(int_tensor(dims, &device).slice(slices.as_slice())));
            let ours = int_tensor(dims, &device).try_slice(slices.as_slice()).map(snapshot_int);
            assert_parity(&case, burn, ours);
            let d = if dim < 0 { dim + 3 } else { dim };
            let mut idims = dims;
            if (0..3).contains(&d) {
                idims[d as usize] = along;
            }
            let n = idims.iter().product::<usize>();
            let idx = || Tensor::<3, Int>::from_data(TensorData::new(raw_values[..n].to_vec(), idims), &device);
            let case = format!("{name} int gather {dims:?} dim={dim} {idims:?}");
            let burn = raw(|| snapshot_int(int_tensor(dims, &device).gather(dim, idx())));
            let ours = int_tensor(dims, &device).try_gather(dim, idx()).map(snapshot_int);
            if (0..3).contains(&d) && raw_values[..n].iter().any(|&v| v >= dims[d as usize] as i64) {
                assert_index_refused(&case, ours);
            } else {
                assert_parity(&case, burn, ours);
            }
        }
    }
}

/// burn's bool bridge has no scatter/select_assign other than `Add`, and no `*_nd`.
#[test]
fn bool_kind_gaps_are_refused() {
    let device = Device::flex();
    let t =
        || Tensor::<1, Bool>::from_data(TensorData::new(vec![false, false, true], [3]), &device);
    let idx = || Tensor::<1, Int>::from_ints([0], &device);
    let v = || Tensor::<1, Bool>::from_data(TensorData::new(vec![true], [1]), &device);
    assert!(raw(|| t().scatter(0, idx(), v(), IndexingUpdateOp::Assign)).is_none());
    let err = t()
        .try_scatter(0, idx(), v(), IndexingUpdateOp::Assign)
        .unwrap_err();
    assert!(
        matches!(err, GuardError::InvalidArgument { op: "scatter", .. }),
        "{err}"
    );
    assert!(raw(|| t().select_assign(0, idx(), v(), IndexingUpdateOp::Mul)).is_none());
    assert!(
        t().try_select_assign(0, idx(), v(), IndexingUpdateOp::Mul)
            .is_err()
    );
    let ok = t()
        .try_scatter(0, idx(), v(), IndexingUpdateOp::Add)
        .map(snapshot_bool)
        .unwrap();
    assert_eq!(ok.1, vec![true, false, true]);
    let nd = || Tensor::<2, Int>::from_ints([[1]], &device);
    assert!(raw(|| t().gather_nd::<2, 1>(nd())).is_none());
    assert!(matches!(
        t().try_gather_nd::<2, 1>(nd()),
        Err(GuardError::InvalidDType {
            op: "gather_nd",
            dtype: burn::tensor::DType::Bool(_),
            ..
        })
    ));
}

/// burn bugs with zero-sized dims (its `reshape` reads 0 as "keep this dim"): we compute.
#[test]
fn zero_sized_dims_are_computed() {
    for (name, device) in devices() {
        // The bug itself, on both CPU backends.
        assert!(raw(|| tensor([2, 0], &device).triu(0)).is_none(), "{name}");
        assert!(raw(|| Tensor::<3, Bool>::triu_mask([5, 0, 3], 0, &device)).is_none());
        assert!(raw(|| Tensor::<2, Bool>::diag_mask([3, 0], 0, &device)).is_none());
        let t = tensor([2, 0], &device);
        let out = t.try_triu(0).map(snapshot).unwrap();
        assert_eq!(out, (vec![2, 0], vec![]), "{name}");
        let out = tensor([0, 3, 3], &device)
            .try_tril(1)
            .map(snapshot)
            .unwrap();
        assert_eq!(out.0, vec![0, 3, 3], "{name}");
        let mask = Tensor::<3, Bool>::try_triu_mask([5, 0, 3], 0, &device)
            .map(snapshot_bool)
            .unwrap();
        assert_eq!(mask, (vec![1, 0, 3], vec![]), "{name}");
        let mask = Tensor::<2, Bool>::try_diag_mask([3, 0], 0, &device)
            .map(snapshot_bool)
            .unwrap();
        assert_eq!(mask.0, vec![3, 0], "{name}");
        let empty = Tensor::<2, Int>::from_ints([[0i64; 0]; 2], &device);
        let raw_empty = empty.clone();
        assert!(raw(|| tensor([3, 4], &device).take::<2, 3>(1, raw_empty)).is_none());
        let out: Tensor<3> = tensor([3, 4], &device).try_take(1, empty).unwrap();
        assert_eq!(out.dims(), [3, 2, 0], "{name}");
        let out: Tensor<2, Int> = Tensor::<1, Int>::from_ints([0i64; 0], &device)
            .try_one_hot(3)
            .unwrap();
        assert_eq!(out.dims(), [0, 3], "{name}");
    }
}

/// Rank arguments burn gets wrong or refuses: select_dim to rank 0, slice counts.
#[test]
fn rank_refusals() {
    let device = Device::flex();
    let burn = raw(|| snapshot(tensor([3], &device).select_dim::<1>(0, 1)));
    assert!(burn.is_none());
    let err = tensor([3], &device).try_select_dim::<1>(0, 1).unwrap_err();
    assert!(matches!(err, GuardError::RankMismatch { .. }), "{err}");
    let err = tensor([3, 2], &device)
        .try_slice([0..1, 0..1, 0..1])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "slice: the slice argument cannot be resolved against the shape: more slices than dimensions, a step of 0, or an index that overflows; got shape=[3, 2]"
    );
}

/// Device mismatches burn does not check: refused before dispatch.
#[test]
fn device_mismatch_is_refused() {
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let other = Device::ndarray();
    let device = Device::flex();
    let idx = Tensor::<2, Int>::from_ints([[0, 1]], &other);
    let err = tensor([1, 2], &device).try_gather(1, idx).unwrap_err();
    assert!(
        matches!(err, GuardError::DeviceMismatch { op: "gather", .. }),
        "{err}"
    );
    let mask = Tensor::<2, Bool>::from_bool([[true, false]], &other);
    let err = tensor([1, 2], &device)
        .try_mask_fill(mask, 1.0)
        .unwrap_err();
    assert!(matches!(err, GuardError::DeviceMismatch { .. }), "{err}");
}

#[test]
fn mask_select_async_checks_first() {
    let device = Device::flex();
    let mask = Tensor::<2, Bool>::from_bool([[true], [false]], &device);
    let out = burn::tensor::try_read_sync(tensor([1, 2], &device).try_mask_select_async(mask));
    assert!(matches!(out, Some(Err(GuardError::ShapeMismatch { .. }))));
}

/// A representative subset on wgpu: kernels compile slowly on lavapipe, so a fixed handful.
#[test]
fn wgpu_slice_and_gather_parity() {
    let Some(device) = common::wgpu_device() else {
        return;
    };
    for slices in [
        vec![Slice::new(1, Some(3), 1)],
        vec![Slice::new(0, None, -1), Slice::new(0, Some(1), 1)],
    ] {
        let burn = raw(|| snapshot(tensor([4, 3], &device).slice(slices.as_slice())));
        let ours = tensor([4, 3], &device)
            .try_slice(slices.as_slice())
            .map(snapshot);
        assert_parity(&format!("wgpu slice {slices:?}"), burn, ours);
    }
    let idx = || int2(&[1, 0, 2, 2], [2, 2], &device);
    let burn = raw(|| snapshot(tensor([2, 3], &device).gather(1, idx())));
    let ours = tensor([2, 3], &device).try_gather(1, idx()).map(snapshot);
    assert_parity("wgpu gather", burn, ours);
    let bad = int2(&[3, 0], [2, 1], &device);
    assert_index_refused(
        "wgpu gather oob",
        tensor([2, 3], &device).try_gather(1, bad),
    );
}

fn mask_of<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D, Bool> {
    int_tensor(dims, device).greater_elem(0)
}

/// A shape that broadcasts against `[2, 3]` or not.
fn broadcast_shape() -> impl Strategy<Value = [usize; 2]> {
    prop::sample::select(vec![[2, 3], [1, 3], [2, 1], [1, 1], [2, 2], [3, 3]])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// `mask_where`: burn checks nothing. The three shapes must broadcast together. NdArray
    /// broadcasts the tensor and the value to the mask's shape only, so it panics on a mask
    /// smaller than the output that Flex accepts; there the twin answers with Flex's values.
    #[test]
    fn mask_where_parity(t in broadcast_shape(), m in broadcast_shape(), v in broadcast_shape()) {
        let flex = Device::flex();
        let flex_values = raw(|| snapshot(tensor(t, &flex).mask_where(mask_of(m, &flex), tensor(v, &flex).neg())));
        for (name, device) in devices() {
            let case = format!("{name} mask_where {t:?} {m:?} {v:?}");
            let burn = raw(|| snapshot(tensor(t, &device).mask_where(mask_of(m, &device), tensor(v, &device).neg())));
            let ours = tensor(t, &device).try_mask_where(mask_of(m, &device), tensor(v, &device).neg()).map(snapshot);
            match (name, &burn, &flex_values) {
                ("ndarray", None, Some(expected)) => {
                    assert_eq!(ours.as_ref().ok(), Some(expected), "{case}: the twin answers as Flex");
                }
                _ => assert_parity(&case, burn, ours),
            }
        }
    }
}

#[test]
fn mask_where_dtype_and_device_are_refused() {
    #[allow(deprecated)]
    let (flex, nd) = (Device::flex(), Device::ndarray());
    let t = || tensor([2, 3], &flex);
    let half = || tensor([2, 3], &flex).cast(burn::tensor::DType::F16);
    assert!(raw(|| snapshot(t().mask_where(mask_of([2, 3], &flex), half()))).is_none());
    assert!(matches!(
        t().try_mask_where(mask_of([2, 3], &flex), half()),
        Err(GuardError::DTypeMismatch { .. })
    ));
    assert!(matches!(
        t().try_mask_where(mask_of([2, 3], &nd), t()),
        Err(GuardError::DeviceMismatch { .. })
    ));
}
