//! `benches/training.rs`'s MLP training step at a fixed count, burn's `ModuleOptimizer::step`
//! or `GuardedOptimizer::step` (forward, backward, `from_grads` and Adam's step in both), for an
//! instruction count that another job on the machine cannot move:
//!
//! ```text
//! cargo bench --profile dev --all-features --bench training_instructions --no-run
//! valgrind --tool=callgrind --toggle-collect='*training_instructions::run*' \
//!     target/debug/deps/training_instructions-<hash> guarded
//! ```
//! Callgrind's total divided by `CALLS` is the instructions per step. Without an argument both
//! variants run and their time per step is printed.

#[path = "support/fixed_count.rs"]
mod fixed_count;
#[path = "support/mlp.rs"]
mod mlp;

use std::hint::black_box;

use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::{Device, Distribution, Tensor};
use burn_guard::optim::GuardedOptimizer;
use mlp::Mlp;

/// Steps per variant.
const CALLS: u32 = 50;

/// The variants, by name.
const VARIANTS: [&str; 2] = ["raw", "guarded"];

#[inline(never)]
fn run(variant: &str, model: Mlp, x: &Tensor<2>) {
    match variant {
        "raw" => {
            let mut optimizer = AdamConfig::new().init();
            let mut model = model;
            for _ in 0..CALLS {
                let grads = GradientsParams::from_grads(model.loss(x.clone()).backward(), &model);
                model = optimizer.step(1e-4, model, grads);
            }
            black_box(model);
        }
        "guarded" => {
            let mut optimizer = GuardedOptimizer::new(AdamConfig::new().init());
            let mut model = model;
            for _ in 0..CALLS {
                let grads = GradientsParams::from_grads(model.loss(x.clone()).backward(), &model);
                optimizer.step(1e-4, &mut model, grads).unwrap();
            }
            black_box(model);
        }
        other => panic!("unknown variant {other}; one of {VARIANTS:?}"),
    }
}

fn main() {
    let device = Device::flex().autodiff();
    device.seed(5);
    let x = Tensor::<2>::random([64, 64], Distribution::Default, &device);
    let model = Mlp::new(&device);
    fixed_count::run_variants(&VARIANTS, CALLS, |variant| run(variant, model.clone(), &x));
}
