//! `benches/quantized_models.rs`'s quantization at a fixed count, burn's `quantize_weights` or
//! the twin, for an instruction count that another job on the machine cannot move:
//!
//! ```text
//! cargo bench --profile dev --all-features --bench quantize_instructions --no-run
//! valgrind --tool=callgrind --toggle-collect='*quantize_instructions::run*' \
//!     target/debug/deps/quantize_instructions-<hash> guarded
//! ```
//! Callgrind's total divided by `CALLS` is the instructions per call; `callgrind_annotate
//! --inclusive=yes` shows where the guarded ones go. Without an argument both variants run
//! and their time per call is printed.

#[path = "../examples/support/digits.rs"]
mod digits;
#[path = "support/fixed_count.rs"]
mod fixed_count;
#[path = "../examples/support/models.rs"]
mod models;

use std::hint::black_box;

use burn::module::{Module, Quantizer};
use burn::tensor::Device;
use burn::tensor::quantization::Calibration;
use burn_guard::prelude::*;
use models::TokenClassifier;

/// Calls per variant.
const CALLS: u32 = 20;

/// The variants, by name: burn's `Module::quantize_weights` on a clone, or the twin.
const VARIANTS: [&str; 2] = ["raw", "guarded"];

#[inline(never)]
fn run(variant: &str, model: &TokenClassifier, quantizer: &mut Quantizer, device: &Device) {
    for _ in 0..CALLS {
        match variant {
            "raw" => drop(black_box(model.clone().quantize_weights(quantizer))),
            "guarded" => drop(black_box(model.try_quantize_weights(quantizer).unwrap())),
            other => panic!("unknown variant {other}; one of {VARIANTS:?}"),
        }
        device.sync().unwrap();
    }
}

fn main() {
    let device = Device::flex();
    device.seed(models::SEED);
    let model = TokenClassifier::new(&device);
    // Q8 per tensor, every parameter quantizable: the bench's `quantize` group.
    let mut quantizer = Quantizer::new(Calibration::MinMax, digits::schemes()[0].1);
    fixed_count::run_variants(&VARIANTS, CALLS, |variant| {
        run(variant, &model, &mut quantizer, &device)
    });
}
