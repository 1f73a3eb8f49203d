//! Training the digits MLP with burn-optim's Adam, raw and on the guarded step, through the two
//! failures that make no noise:
//!
//! 1. **A NaN batch mid-run** (one image's pixels NaN at step 100): raw burn's step writes NaN
//!    into the weights and Adam's moments, and the model ends at chance. The guarded optimizer
//!    skips that step, says so in one line, and ends where a clean run ends.
//! 2. **`to_device` after the weights were drawn** (a model loaded, then moved): every
//!    parameter becomes a non-leaf. Raw burn's first step updates nothing without a word, and
//!    its second backward panics (the recorded move's tape was consumed by the first). The
//!    guarded step refuses at step 1, naming the parameters and the remedy.
//!
//! ```text
//! cargo run --release --all-features --example training
//! ```

#[path = "support/digits.rs"]
mod digits;

use burn::module::Module;
use burn::nn::loss::CrossEntropyLossConfig;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::{Device, Tensor};
use burn_guard::optim::{GuardedOptimizer, OnNonFinite, StepOutcome};
use burn_guard::prelude::*;
use digits::{DigitsMlp, Split};

const EPOCHS: usize = 4;
const BATCH: usize = 32;
const POISONED_STEP: usize = 100;

/// How a run steps.
#[derive(Clone, Copy, PartialEq)]
enum Stepper {
    Raw,
    Guarded,
}

/// One training run; `poison` injects the NaN batch, `moved` makes the `to_device` mistake.
/// Returns the test accuracy, or the guarded step's refusal.
fn run(
    train: &Split,
    test: &Split,
    stepper: Stepper,
    poison: bool,
    moved: bool,
) -> Result<f64, String> {
    let device = Device::flex().autodiff();
    device.seed(digits::SEED);
    let mut model = DigitsMlp::new([64, 32], &device);
    if moved {
        // Draw the weights (as loading a checkpoint does), then move the model.
        let _ = model.forward(Tensor::zeros([1, digits::FEATURES], &device));
        model = model.to_device(&device);
    }
    let loss_fn = CrossEntropyLossConfig::new().init(&device);
    let mut raw = AdamConfig::new().init();
    let mut guarded =
        GuardedOptimizer::new(AdamConfig::new().init()).on_non_finite(OnNonFinite::Skip {
            max_consecutive: Some(3),
        });
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut step = 0;
    for epoch in 0..EPOCHS {
        digits::shuffle(&mut order, digits::SEED + epoch as u64 + 1);
        for chunk in order.chunks(BATCH) {
            step += 1;
            let (mut x, y) = train.batch(chunk, &device);
            if poison && step == POISONED_STEP {
                x = x.clone().div(x.zeros_like()).mul_scalar(0.0); // 0/0 and x/0 × 0: NaN
            }
            let loss = loss_fn.forward(model.forward(x), y);
            // The crate's backward twin: raw burn's second backward through a moved model panics.
            let grads = loss
                .try_backward()
                .map_err(|err| format!("step {step}: {err}"))?;
            let grads = GradientsParams::from_grads(grads, &model);
            match stepper {
                Stepper::Raw => {
                    let before = model.l1.weight.val().into_data();
                    model = raw.step(1e-3, model, grads);
                    if step == 1 && model.l1.weight.val().into_data() == before {
                        println!("    step 1: raw burn's step changed no weight, and said nothing");
                    }
                }
                Stepper::Guarded => match guarded.step(1e-3, &mut model, grads) {
                    Ok(StepOutcome::Applied) => {}
                    Ok(StepOutcome::Skipped { reason }) => {
                        println!("    step {step}: skipped: {reason}")
                    }
                    Err(err) => return Err(format!("step {step}: {err}")),
                },
            }
        }
    }
    if stepper == Stepper::Guarded {
        println!("    {}", guarded.stats());
    }
    let model = model.valid();
    Ok(digits::accuracy(
        model.forward(test.images(&Device::flex())),
        test,
    ))
}

fn show(name: &str, result: Result<f64, String>) {
    match result {
        Ok(accuracy) => println!("  {name}: test accuracy {:.1}%", accuracy * 100.0),
        Err(stop) => println!("  {name}: stopped at {stop}"),
    }
}

fn main() {
    let (train, test) = digits::load();
    println!(
        "64-64-32-10 on {} digits, Adam 1e-3, {EPOCHS} epochs of batches of {BATCH}",
        train.len()
    );
    println!("clean:");
    show("raw", run(&train, &test, Stepper::Raw, false, false));
    show(
        "guarded",
        run(&train, &test, Stepper::Guarded, false, false),
    );
    println!("a NaN batch at step {POISONED_STEP}:");
    show("raw", run(&train, &test, Stepper::Raw, true, false));
    show("guarded", run(&train, &test, Stepper::Guarded, true, false));
    println!("to_device after the weights were drawn:");
    show("raw", run(&train, &test, Stepper::Raw, false, true));
    show("guarded", run(&train, &test, Stepper::Guarded, false, true));
}
