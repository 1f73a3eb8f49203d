//! Differential tests: the same input to raw burn (under `catch_unwind`) and to our `try_`
//! twin. burn panics ⇔ we return `Err`; when both succeed, the values are equal.

use crate::common;

use burn::tensor::{Device, Int, Tensor};
use burn_guard::GuardError;
use burn_guard::tensor::{TryCreate, TryNumeric, TryTensor};
use proptest::prelude::*;

use crate::common::{assert_parity, raw, snapshot};

/// Deterministic values with no zeros, so `div` never computes 0/0 (NaN ≠ NaN would read as a
/// difference).
fn tensor<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D> {
    let n: usize = dims.iter().product();
    let values: Vec<f32> = (0..n).map(|i| ((i * 7 % 13) as f32) - 6.5).collect();
    Tensor::<1>::from_floats(values.as_slice(), device).reshape(dims)
}

fn devices() -> Vec<(&'static str, Device)> {
    common::cpu_devices()
}

/// A dim drawn to be valid about half the time for rank `rank` (negatives included).
fn any_dim(rank: usize) -> impl Strategy<Value = isize> {
    let r = rank as isize;
    prop_oneof![-r..r, (-r - 2)..(r + 2)]
}

fn shape2() -> impl Strategy<Value = [usize; 2]> {
    [1usize..5, 1usize..5]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn narrow_parity(dims in shape2(), dim in any_dim(2), start in 0usize..6, length in 0usize..6) {
        for (name, device) in devices() {
            let case = format!("{name} narrow {dims:?} dim={dim} start={start} length={length}");
            let burn = raw(|| snapshot(tensor(dims, &device).narrow(dim, start, length)));
            let ours = tensor(dims, &device).try_narrow(dim, start, length).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn swap_dims_parity(dims in shape2(), a in any_dim(2), b in any_dim(2)) {
        for (name, device) in devices() {
            let case = format!("{name} swap_dims {dims:?} {a} {b}");
            let burn = raw(|| snapshot(tensor(dims, &device).swap_dims(a, b)));
            let ours = tensor(dims, &device).try_swap_dims(a, b).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn broadcast_arithmetic_parity(
        lhs in shape2(),
        rhs0 in 1usize..5,
        rhs1 in 1usize..5,
        pick in 0usize..3,
        op in 0usize..4,
    ) {
        // About half of the right-hand shapes are made compatible on purpose.
        let rhs = match pick {
            0 => lhs,
            1 => [1, lhs[1]],
            _ => [rhs0, rhs1],
        };
        for (name, device) in devices() {
            let case = format!("{name} op{op} {lhs:?} {rhs:?}");
            let (a, b) = (tensor(lhs, &device), tensor(rhs, &device));
            let burn = raw(|| snapshot(match op {
                0 => a.clone().add(b.clone()),
                1 => a.clone().sub(b.clone()),
                2 => a.clone().mul(b.clone()),
                _ => a.clone().div(b.clone()),
            }));
            let ours = match op {
                0 => a.try_add(b),
                1 => a.try_sub(b),
                2 => a.try_mul(b),
                _ => a.try_div(b),
            }
            .map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn matmul_parity(m in 1usize..5, k in 1usize..5, k2 in 1usize..5, n in 1usize..5, batch in 1usize..3, batch2 in 1usize..4, same in any::<bool>()) {
        let k2 = if same { k } else { k2 };
        for (name, device) in devices() {
            let lhs = [batch, m, k];
            let rhs = [batch2, k2, n];
            let case = format!("{name} matmul {lhs:?} {rhs:?}");
            let (a, b) = (tensor(lhs, &device), tensor(rhs, &device));
            let burn = raw(|| snapshot(a.clone().matmul(b.clone())));
            let ours = a.try_matmul(b).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn cat_parity(a in shape2(), b0 in 1usize..5, b1 in 1usize..5, match_other in any::<bool>(), dim in any_dim(2), count in 0usize..3) {
        for (name, device) in devices() {
            let b = if match_other { [b0, a[1]] } else { [b0, b1] };
            let make = || {
                let mut list = vec![tensor(a, &device), tensor(b, &device)];
                list.truncate(count);
                list
            };
            let case = format!("{name} cat {a:?} {b:?} dim={dim} count={count}");
            let burn = raw(|| snapshot(Tensor::cat(make(), dim)));
            let ours = Tensor::try_cat(make(), dim).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn stack_parity(a in shape2(), b in shape2(), same in any::<bool>(), dim in any_dim(3), count in 0usize..3) {
        for (name, device) in devices() {
            let b = if same { a } else { b };
            let make = || {
                let mut list = vec![tensor(a, &device), tensor(b, &device)];
                list.truncate(count);
                list
            };
            let case = format!("{name} stack {a:?} {b:?} dim={dim} count={count}");
            let burn = raw(|| snapshot(Tensor::stack::<3>(make(), dim)));
            let ours = Tensor::<2>::try_stack::<3>(make(), dim).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// `select` leaves index ranges to the backend (class B): Flex and NdArray panic on an
    /// out-of-range index, and we refuse it before dispatch.
    #[test]
    fn select_parity(dims in shape2(), dim in any_dim(2), indices in proptest::collection::vec(0i64..6, 0..4)) {
        for (name, device) in devices() {
            let case = format!("{name} select {dims:?} dim={dim} indices={indices:?}");
            let index = || Tensor::<1, Int>::from_ints(indices.as_slice(), &device);
            let burn = raw(|| snapshot(tensor(dims, &device).select(dim, index())));
            let ours = tensor(dims, &device).try_select(dim, index()).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }
}

/// burn checks devices in binary ops; so do we, before dispatch.
#[test]
fn device_mismatch_is_refused() {
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let other = Device::ndarray();
    let a = tensor([2, 2], &Device::flex());
    let b = tensor([2, 2], &other);
    let burn = raw(|| snapshot(a.clone().add(b.clone())));
    assert!(burn.is_none());
    let err = a.try_add(b).unwrap_err();
    assert!(
        matches!(err, GuardError::DeviceMismatch { op: "add", .. }),
        "{err}"
    );
}

/// A representative subset on wgpu: kernels compile slowly on lavapipe, so a fixed handful.
#[test]
fn wgpu_matmul_and_broadcast_parity() {
    let Some(device) = common::wgpu_device() else {
        return;
    };
    for (lhs, rhs) in [([2, 3], [3, 4]), ([2, 3], [4, 5])] {
        let (a, b) = (tensor(lhs, &device), tensor(rhs, &device));
        let burn = raw(|| snapshot(a.clone().matmul(b.clone())));
        assert_parity(
            &format!("wgpu matmul {lhs:?} {rhs:?}"),
            burn,
            a.try_matmul(b).map(snapshot),
        );
    }
    for (lhs, rhs) in [([2, 3], [1, 3]), ([2, 3], [2, 2])] {
        let (a, b) = (tensor(lhs, &device), tensor(rhs, &device));
        let burn = raw(|| snapshot(a.clone().add(b.clone())));
        assert_parity(
            &format!("wgpu add {lhs:?} {rhs:?}"),
            burn,
            a.try_add(b).map(snapshot),
        );
    }
}

// ---------------------------------------------------------------- einsum

/// Equations over one to three operands: matrix products, transposes, diagonals (repeated
/// labels), broadcasting, ellipses, scalars and implicit outputs.
const EQUATIONS: &[&str] = &[
    "ij,jk->ik",
    "ij,kj->ik",
    "bij,bjk->bik",
    "ij->ji",
    "ii->i",
    "ii",
    "ij,j->i",
    "i,i->",
    "ij,ij->ij",
    "...ij,...jk->...ik",
    "i,j->ij",
    "ij,jk,kl->il",
    "ij,jk",
    "ab,,bc->ac",
    "ij->k",
    "i..j->i",
];

/// The operand ranks an equation's subscripts name, an ellipsis drawn as `extra` more dims.
fn operand_ranks(equation: &str, extra: usize) -> Vec<usize> {
    let inputs = equation.split("->").next().unwrap_or("");
    inputs
        .split(',')
        .map(|s| {
            let named = s.chars().filter(|c| c.is_ascii_alphabetic()).count();
            let rank = named + if s.contains("...") { extra } else { 0 };
            // An empty subscript is a scalar operand, `[1]`.
            rank.max(1)
        })
        .collect()
}

/// A tensor of `dims` (rank 1 to 4) as burn's operand and as ours.
fn einsum_operands(
    dims: &[usize],
    device: &Device,
) -> (
    burn::tensor::EinsumOperand,
    burn_guard::tensor::EinsumOperand,
) {
    macro_rules! both {
        ($d:literal) => {{
            let t = tensor::<$d>(dims.try_into().unwrap(), device);
            ((&t).into(), t.into())
        }};
    }
    match dims.len() {
        1 => both!(1),
        2 => both!(2),
        3 => both!(3),
        _ => both!(4),
    }
}

fn einsum_case<const D: usize>(equation: &str, shapes: &[Vec<usize>], device: &Device) -> String {
    let (burn_ops, our_ops): (Vec<_>, Vec<_>) =
        shapes.iter().map(|d| einsum_operands(d, device)).unzip();
    let case = format!("einsum {equation:?} {shapes:?} -> rank {D}");
    let burn = raw(|| snapshot(Tensor::<D>::einsum(equation, burn_ops)));
    let ours = Tensor::<D>::try_einsum(equation, our_ops).map(snapshot);
    assert_parity(&case, burn, ours);
    case
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Sizes drawn per dimension from 1..4, so that labels agree, broadcast from 1, or clash;
    /// the output rank drawn 1 or 2, so that it matches the equation or not.
    #[test]
    fn einsum_parity(
        equation in proptest::sample::select(EQUATIONS),
        extra in 0usize..2,
        sizes in proptest::collection::vec(1usize..4, 12),
        rank_two in any::<bool>(),
    ) {
        let mut sizes = sizes.into_iter().cycle();
        let shapes: Vec<Vec<usize>> = operand_ranks(equation, extra)
            .into_iter()
            .map(|rank| (0..rank).map(|_| sizes.next().unwrap()).collect())
            .collect();
        for (name, device) in devices() {
            let case = if rank_two {
                einsum_case::<2>(equation, &shapes, &device)
            } else {
                einsum_case::<1>(equation, &shapes, &device)
            };
            let _ = (name, case);
        }
    }
}

/// Named cases, each refused by a check where burn panics, with the rule in the message.
#[test]
fn einsum_refusals_name_the_rule() {
    let device = Device::flex();
    let t = |dims: &[usize]| einsum_operands(dims, &device).1;
    let err = |result: burn_guard::Result<Tensor<2>>| result.unwrap_err().to_string();
    assert_eq!(
        err(Tensor::try_einsum("ij,jk->ik", [t(&[2, 3]), t(&[4, 5])])),
        "einsum: every label's sizes must agree across operands, or be 1; got label 'j': operand 0 has size 3, operand 1 has size 4"
    );
    assert!(
        err(Tensor::try_einsum("ij,jk->i$", [t(&[2, 3]), t(&[3, 5])]))
            .contains("invalid character")
    );
    assert!(
        err(Tensor::try_einsum("ij,jk->ik", [t(&[2, 3])])).contains("1 operands for 2 subscripts")
    );
    assert!(err(Tensor::try_einsum("ii->ii", [t(&[2, 3])])).contains("output subscript"));
    assert!(
        err(Tensor::try_einsum("ij->i", [t(&[2, 3])]))
            .contains("rank 2 for an equation whose output has rank 1")
    );
    let diagonal: burn_guard::Result<Tensor<1>> = Tensor::try_einsum("ii->i", [t(&[2, 3])]);
    assert!(
        diagonal
            .unwrap_err()
            .to_string()
            .contains("label 'i' has sizes 2 and 3")
    );
    let none: burn_guard::Result<Tensor<1>> = Tensor::try_einsum("", Vec::new());
    assert!(none.is_err());
}
