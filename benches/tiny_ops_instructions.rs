//! The tiny ops of `benches/overhead.rs` at a fixed count, raw or guarded, for an instruction
//! count that another job on the machine cannot move:
//!
//! ```text
//! cargo bench --all-features --bench tiny_ops_instructions --no-run
//! valgrind --tool=callgrind --toggle-collect='*tiny_ops_instructions::run*' \
//!     target/release/deps/tiny_ops_instructions-<hash> guarded_add
//! ```
//! Callgrind's total divided by `CALLS` is the instructions per call; `callgrind_annotate
//! --tree=calling --inclusive=yes` shows where the guarded ones go. Without an argument every
//! variant runs once and its time per call is printed.

#[path = "support/fixed_count.rs"]
mod fixed_count;

use std::hint::black_box;

use burn::tensor::{Device, Tensor};
use burn_guard::prelude::*;

/// Calls per variant.
const CALLS: u32 = 20_000;

/// The variants, by name: raw burn or the twin, for add, reshape, slice and cat on `[4]` Flex.
const VARIANTS: [&str; 8] = [
    "raw_add",
    "guarded_add",
    "raw_reshape",
    "guarded_reshape",
    "raw_slice",
    "guarded_slice",
    "raw_cat",
    "guarded_cat",
];

// burn's `slice` takes one range per dimension: `[1..3]` is that array.
#[allow(clippy::single_range_in_vec_init)]
#[inline(never)]
fn run(variant: &str, a: &Tensor<1>, b: &Tensor<1>) {
    for _ in 0..CALLS {
        match variant {
            "raw_add" => drop(black_box(a.clone().add(b.clone()))),
            "guarded_add" => drop(black_box(a.clone().try_add(b.clone()).unwrap())),
            "raw_reshape" => drop(black_box(a.clone().reshape([2, 2]))),
            "guarded_reshape" => drop(black_box(a.clone().try_reshape([2, 2]).unwrap())),
            "raw_slice" => drop(black_box(a.clone().slice([1..3]))),
            "guarded_slice" => drop(black_box(a.clone().try_slice([1..3]).unwrap())),
            "raw_cat" => drop(black_box(Tensor::cat(vec![a.clone(), b.clone()], 0))),
            "guarded_cat" => drop(black_box(
                Tensor::try_cat(vec![a.clone(), b.clone()], 0).unwrap(),
            )),
            other => panic!("unknown variant {other}; one of {VARIANTS:?}"),
        }
    }
}

fn main() {
    let device = Device::flex();
    let a = Tensor::<1>::from_floats([1.0, 2.0, 3.0, 4.0], &device);
    let b = Tensor::<1>::from_floats([4.0, 3.0, 2.0, 1.0], &device);
    fixed_count::run_variants(&VARIANTS, CALLS, |variant| run(variant, &a, &b));
}
