//! Two models of your own, quantized in place and served through their own `forward`.
//!
//! 1. Trains, on Flex with autodiff, a small transformer sequence classifier (embedding, a
//!    2-layer encoder, mean pooling, a linear head) on a synthetic token task (label: the
//!    group most of a sequence's tokens belong to; seeded, nothing downloaded), and a small
//!    CNN (two 3×3 convolutions with max pooling, two linear layers) on the 8×8 UCI digits.
//! 2. On wgpu (the machine's adapter; Mesa's lavapipe on a CPU-only machine; Flex when there
//!    is no adapter, which it says) quantizes each model's weights in place in Q8 per tensor,
//!    Q8 per block of 32 and Q4 per block of 32 — strict first (what
//!    `model.try_quantize_weights(&mut quantizer)` does), and where a scheme cannot apply to
//!    some parameter (a conv weight whose last dimension is 3, a head of 10 or 4 outputs with
//!    blocks of 32) again keeping those in float — then evaluates the test set through the
//!    model's own `forward`: accuracy, weight bytes from the report (quantized parameters and
//!    kept in float), ms per batch, and what was kept in float and why.
//! 3. Prints the targets as met or missed: accuracy within 1 point of f32 in Q8 and 3 points in
//!    Q4 block 32; the quantized parameters' bytes at most 0.26× f32 in Q8 per tensor and
//!    0.16× in Q4 block 32 (Q8 per block of 32 with f32 scales stores 9 bits per value,
//!    0.281×, by construction: no byte target).
//!
//! ```text
//! cargo run --all-features --example quantized_models            # tables
//! cargo run --all-features --example quantized_models -- --json  # one JSON document
//! cargo run --all-features --example quantized_models -- --quick # Flex, short training (the test's run)
//! ```
//!
//! The first wgpu run on lavapipe compiles the quantized kernels (minutes); later runs reuse
//! Mesa's shader cache.

#[path = "support/digits.rs"]
mod digits;
#[path = "support/models.rs"]
mod models;
#[path = "support/runtime_dir.rs"]
mod runtime_dir;

use std::time::Instant;

use burn::module::{Module, Quantizer};
use burn::tensor::quantization::{Calibration, QuantScheme};
use burn::tensor::{Device, Tensor};
use burn_guard::devices::wgpu_adapter;
use burn_guard::module::WeightQuantizer;
use burn_guard::prelude::*;
use models::{DigitsCnn, TokenClassifier, Tokens};
use serde::Serialize;

/// One model in one scheme.
#[derive(Serialize)]
struct Row {
    scheme: &'static str,
    accuracy: f64,
    /// (quantized − f32) accuracy, in points.
    accuracy_delta_points: f64,
    ms_per_batch: f64,
    /// f32 bytes of every float parameter.
    f32_bytes: u64,
    /// f32 bytes and stored bytes of the quantized parameters.
    quantized_f32_bytes: u64,
    quantized_stored_bytes: u64,
    /// `quantized_stored_bytes / quantized_f32_bytes` (the report's `quantized_ratio()`).
    quantized_ratio: f64,
    /// Bytes of the parameters kept in float.
    kept_float_bytes: u64,
    /// Every float parameter's stored bytes over their f32 bytes (`total_ratio()`).
    total_ratio: f64,
    /// The strict refusal (`try_quantize_weights`'s error) when some parameter had to be
    /// kept in float.
    strict_refusal: Option<String>,
    kept_in_float: Vec<Kept>,
}

#[derive(Serialize)]
struct Kept {
    path: String,
    shape: Vec<usize>,
    reason: String,
}

#[derive(Serialize)]
struct ModelRun {
    model: &'static str,
    test_examples: usize,
    train_seconds: f64,
    rows: Vec<Row>,
}

#[derive(Serialize)]
struct Target {
    model: &'static str,
    scheme: &'static str,
    what: &'static str,
    value: f64,
    limit: f64,
    met: bool,
}

#[derive(Serialize)]
struct Report {
    device: String,
    models: Vec<ModelRun>,
    targets: Vec<Target>,
    /// Whether `try_quantize_weights` gave the same logits as the Q8 per-tensor row's model.
    in_place_matches: bool,
}

/// The schemes compared, as `support/digits.rs` defines them (u32-packed values, f32 scales).
fn schemes() -> Vec<(&'static str, QuantScheme)> {
    digits::schemes()
}

/// Mean milliseconds of `forward` over a few runs after a warm-up; reading the output waits
/// for the device.
fn time_ms(mut forward: impl FnMut() -> Tensor<2>) -> f64 {
    let _ = forward().into_data();
    let runs = 5;
    let start = Instant::now();
    for _ in 0..runs {
        let _ = forward().into_data();
    }
    start.elapsed().as_secs_f64() * 1e3 / f64::from(runs)
}

/// The model in f32 and in every scheme, on `device`, evaluated by `forward` (the model's own
/// forward on the whole test set as one batch).
fn rows<M: Module>(
    model: &M,
    device: &Device,
    labels: &[i64],
    forward: impl Fn(&M) -> Tensor<2>,
) -> Vec<Row> {
    let model = model.clone().to_device(device);
    let f32_accuracy = models::accuracy(forward(&model), labels);
    let mut rows = vec![Row {
        scheme: "f32",
        accuracy: f32_accuracy,
        accuracy_delta_points: 0.0,
        ms_per_batch: time_ms(|| forward(&model)),
        // Filled from the first report below: every parameter's bytes before quantization.
        f32_bytes: 0,
        quantized_f32_bytes: 0,
        quantized_stored_bytes: 0,
        quantized_ratio: 1.0,
        kept_float_bytes: 0,
        total_ratio: 1.0,
        strict_refusal: None,
        kept_in_float: Vec::new(),
    }];
    for (name, scheme) in schemes() {
        let mut quantizer = Quantizer::new(Calibration::MinMax, scheme);
        // Strict, as `model.try_quantize_weights(&mut quantizer)` (which returns the model
        // alone), with the report; where the scheme cannot apply to a parameter, the same
        // keeping those in float.
        let (quantized, strict_refusal) =
            match WeightQuantizer::new().quantize(&model, &mut quantizer) {
                Ok(quantized) => (quantized, None),
                Err(err) => (
                    WeightQuantizer::new()
                        .keep_unquantizable_in_float()
                        .quantize(&model, &mut quantizer)
                        .unwrap(),
                    Some(err.to_string()),
                ),
            };
        let report = quantized.report();
        // The model's own forward, on the quantized weights in place.
        let q = quantized.model();
        let accuracy = models::accuracy(forward(q), labels);
        let (quantized_f32_bytes, quantized_stored_bytes) = report.quantized_bytes();
        rows.push(Row {
            scheme: name,
            accuracy,
            accuracy_delta_points: (accuracy - f32_accuracy) * 100.0,
            ms_per_batch: time_ms(|| forward(q)),
            f32_bytes: report.total_bytes().0,
            quantized_f32_bytes,
            quantized_stored_bytes,
            quantized_ratio: report.quantized_ratio(),
            kept_float_bytes: report.kept_in_float().map(|p| p.bytes_after).sum(),
            total_ratio: report.total_ratio(),
            strict_refusal,
            kept_in_float: report
                .kept_in_float()
                .map(|p| Kept {
                    path: p.path.clone(),
                    shape: p.shape.clone(),
                    reason: match &p.placement {
                        burn_guard::quant::Placement::KeptFloat { reason } => reason.clone(),
                        other => other.to_string(),
                    },
                })
                .collect(),
        });
    }
    let f32_bytes = rows[1].f32_bytes;
    rows[0].f32_bytes = f32_bytes;
    rows[0].kept_float_bytes = f32_bytes;
    rows
}

fn targets(run: &ModelRun) -> Vec<Target> {
    let mut targets = Vec::new();
    for row in run.rows.iter().skip(1) {
        let accuracy_limit = if row.scheme.starts_with("q8") {
            1.0
        } else {
            3.0
        };
        let drop = -row.accuracy_delta_points;
        targets.push(Target {
            model: run.model,
            scheme: row.scheme,
            what: "accuracy drop, points",
            value: drop,
            limit: accuracy_limit,
            met: drop <= accuracy_limit,
        });
        let bytes_limit = match row.scheme {
            "q8-tensor" => Some(0.26),
            "q4-block32" => Some(0.16),
            _ => None,
        };
        if let Some(limit) = bytes_limit {
            targets.push(Target {
                model: run.model,
                scheme: row.scheme,
                what: "quantized bytes / f32",
                value: row.quantized_ratio,
                limit,
                met: row.quantized_ratio <= limit,
            });
        }
    }
    targets
}

/// `x`, with −0 printed as 0.
fn zero(x: f64) -> f64 {
    if x == 0.0 { 0.0 } else { x }
}

fn print_run(run: &ModelRun) {
    println!(
        "\n{} — trained in {:.1} s; {} test examples, one batch",
        run.model, run.train_seconds, run.test_examples
    );
    println!(
        "{:<11} {:>9} {:>7} {:>10} {:>21} {:>7} {:>10} {:>7}",
        "scheme",
        "accuracy",
        "Δ pts",
        "ms/batch",
        "quantized f32→stored",
        "ratio",
        "kept f32",
        "total"
    );
    for row in &run.rows {
        let (quantized, ratio) = if row.scheme == "f32" {
            ("-".to_owned(), "-".to_owned())
        } else {
            (
                format!(
                    "{} → {}",
                    row.quantized_f32_bytes, row.quantized_stored_bytes
                ),
                format!("{:.3}", row.quantized_ratio),
            )
        };
        println!(
            "{:<11} {:>8.2}% {:>+7.2} {:>10.2} {:>21} {:>7} {:>10} {:>7.3}",
            row.scheme,
            row.accuracy * 100.0,
            zero(row.accuracy_delta_points),
            row.ms_per_batch,
            quantized,
            ratio,
            row.kept_float_bytes,
            row.total_ratio
        );
    }
    for row in run.rows.iter().skip(1) {
        if let Some(refusal) = &row.strict_refusal {
            println!("{}: strict: {refusal}", row.scheme);
        }
        if row.kept_in_float.is_empty() {
            println!("{}: every float parameter quantized", row.scheme);
        }
        for kept in &row.kept_in_float {
            println!(
                "{}: kept in float: {} {:?}",
                row.scheme, kept.path, kept.shape
            );
        }
    }
}

fn main() {
    // SAFETY: first thing in `main`, before any thread starts.
    unsafe { runtime_dir::ensure_runtime_dir() };
    let args: Vec<String> = std::env::args().collect();
    let json = args.iter().any(|a| a == "--json");
    let quick = args.iter().any(|a| a == "--quick");
    let (transformer_epochs, cnn_epochs) = if quick { (1, 1) } else { (12, 15) };

    let (device, device_name) = if quick {
        (Device::flex(), "flex (--quick)".to_owned())
    } else {
        match wgpu_adapter() {
            Ok(adapter) => (adapter.device, format!("wgpu ({})", adapter.name)),
            Err(err) => {
                // On stderr, so that `--json` output stays JSON and still says so.
                eprintln!("no wgpu adapter ({err}); evaluating on Flex");
                (Device::flex(), "flex (no wgpu adapter)".to_owned())
            }
        }
    };
    if device_name.starts_with("wgpu") {
        // Nothing prints while Mesa compiles the kernels; say why before the wait.
        eprintln!(
            "the first run with a software Vulkan driver (lavapipe) compiles the quantized \
             kernels for minutes; later runs take seconds (Mesa's shader cache)"
        );
    }

    let mut runs = Vec::new();

    let train = Tokens::generate(2048, models::SEED);
    let test = Tokens::generate(512, models::SEED + 1);
    let start = Instant::now();
    let transformer = models::train_transformer(&train, transformer_epochs);
    let train_seconds = start.elapsed().as_secs_f64();
    let ids = test.all(&device);
    let transformer_rows = rows(&transformer, &device, &test.y, |m: &TokenClassifier| {
        m.forward(ids.clone())
    });
    runs.push(ModelRun {
        model: "transformer (embedding 32×32, 2-layer encoder d_model 32, 2 heads, d_ff 64; head 32→4)",
        test_examples: test.len(),
        train_seconds,
        rows: transformer_rows,
    });

    // The in-place twin itself: the model's own type back, the same logits as the Q8
    // per-tensor row's model.
    let on_device = transformer.clone().to_device(&device);
    let q8 = schemes()[0].1;
    let in_place: TokenClassifier = on_device
        .try_quantize_weights(&mut Quantizer::new(Calibration::MinMax, q8))
        .unwrap();
    let again = WeightQuantizer::new()
        .quantize(&on_device, &mut Quantizer::new(Calibration::MinMax, q8))
        .unwrap();
    let in_place_matches =
        in_place.forward(ids.clone()).into_data() == again.model().forward(ids.clone()).into_data();

    let (digits_train, digits_test) = digits::load();
    let start = Instant::now();
    let cnn = models::train_cnn(&digits_train, cnn_epochs);
    let train_seconds = start.elapsed().as_secs_f64();
    let images = models::images(&digits_test, &device);
    let cnn_rows = rows(&cnn, &device, &digits_test.y, |m: &DigitsCnn| {
        m.forward(images.clone())
    });
    runs.push(ModelRun {
        model: "cnn (conv 3×3 1→8, conv 3×3 8→16, max pool 2, linear 64→128→10)",
        test_examples: digits_test.len(),
        train_seconds,
        rows: cnn_rows,
    });

    let targets: Vec<Target> = runs.iter().flat_map(targets).collect();
    let report = Report {
        device: device_name,
        models: runs,
        targets,
        in_place_matches,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report).unwrap());
        return;
    }
    println!(
        "evaluated on {}; bytes from the quantization report (values, scales)",
        report.device
    );
    for run in &report.models {
        print_run(run);
    }
    println!(
        "\nin place: `try_quantize_weights` (q8-tensor) returned a TokenClassifier whose logits {} the row's",
        if report.in_place_matches {
            "equal"
        } else {
            "DIFFER from"
        }
    );
    println!("\ntargets:");
    for t in &report.targets {
        println!(
            "  {:<11} {:<11} {:<22} {:>6.3} (limit {:.2})  {}",
            t.model.split(' ').next().unwrap_or_default(),
            t.scheme,
            t.what,
            zero(t.value),
            t.limit,
            if t.met { "met" } else { "MISSED" }
        );
    }
}
