//! A service that loads its model from a checkpoint: the right checkpoint serves, a wrong one
//! is refused in one line with the model already serving untouched, and a half-precision one
//! loads into the model's own F32, on Flex and on NdArray (where burn's loader panics).
//!
//! ```text
//! cargo run --release --all-features --example quantized_inference -- --save digits.bpk  # trains, saves
//! cargo run --release --all-features --example checkpoint -- digits.bpk                  # serves it
//! cargo run --release --all-features --example checkpoint                                # trains it here
//! ```
//!
//! Without a path it trains the same 64→256→128→10 MLP with the same code
//! (`support/digits.rs`, 20 epochs) and saves it to a temporary directory first.

#[path = "support/digits.rs"]
mod digits;

use std::path::PathBuf;

use burn::module::{Module, ModuleMapper, Param};
use burn::tensor::{DType, Device, Tensor};
use burn_guard::prelude::*;
use burn_guard::store::LoadReport;
use digits::{DigitsMlp, Split};

/// Casts every float parameter to F16: what a half-precision export of the model holds.
struct ToHalf;

impl ModuleMapper for ToHalf {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let id = param.id;
        Param::initialized(id, param.val().cast(DType::F16))
    }
}

fn accuracy(model: &DigitsMlp, test: &Split, device: &Device) -> f64 {
    digits::accuracy(model.forward(test.images(device)), test)
}

/// The report's lines past the table's header, indented.
fn show(report: &LoadReport) {
    for line in report.to_string().lines() {
        println!("  {line}");
    }
}

fn main() -> burn_guard::Result<()> {
    let dir = std::env::temp_dir().join(format!("burn-guard-checkpoint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| burn_guard::GuardError::Store {
        op: "create_dir_all",
        cause: std::sync::Arc::new(e),
    })?;
    let (train, test) = digits::load();
    let path: PathBuf = match std::env::args().nth(1) {
        Some(path) => PathBuf::from(path),
        None => {
            let path = dir.join("digits.bpk");
            println!("no checkpoint given: training 64-256-128-10 (20 epochs) and saving it");
            digits::train(&train, [256, 128], 20)
                .save_file(&path)
                .expect("writes the checkpoint");
            path
        }
    };

    // 1. The service starts: a fresh model, the checkpoint loaded into it, checked.
    let device = Device::flex();
    let mut model = DigitsMlp::new([256, 128], &device);
    let report = model.load_file_checked(&path)?;
    println!("loaded {}:", path.display());
    show(&report);
    let serving = accuracy(&model, &test, &device);
    println!("serving: test accuracy {:.1}%", serving * 100.0);

    // 2. A checkpoint of another model (hidden 128-64) arrives: refused in one line, and the
    //    model already serving keeps serving the same answers.
    let other = dir.join("other.bpk");
    DigitsMlp::new([128, 64], &device)
        .save_file(&other)
        .expect("writes the checkpoint");
    match model.load_file_checked(&other) {
        Ok(_) => println!("loaded a mismatched checkpoint (unexpected)"),
        Err(err) => println!("refused: {err}"),
    }
    let after = accuracy(&model, &test, &device);
    println!(
        "still serving: test accuracy {:.1}% ({})",
        after * 100.0,
        if after == serving {
            "unchanged"
        } else {
            "CHANGED"
        }
    );

    // 3. A half-precision export of the right model: burn's loader would make the model F16
    //    (and its F32 forward would panic), or panic itself on NdArray. The twin keeps F32.
    let half = dir.join("digits-f16.bpk");
    model
        .clone()
        .map(&mut ToHalf)
        .save_file(&half)
        .expect("writes the checkpoint");
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let ndarray = Device::ndarray();
    for (name, device) in [("flex", device.clone()), ("ndarray", ndarray)] {
        let mut model = DigitsMlp::new([256, 128], &device);
        let report = model.load_file_checked(&half)?;
        println!(
            "{name}: loaded the F16 export, {} parameters cast to F32: test accuracy {:.1}%",
            report.cast().count(),
            accuracy(&model, &test, &device) * 100.0
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
