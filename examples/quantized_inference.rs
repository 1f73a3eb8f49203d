//! Quantized inference of a digits classifier, on the GPU through wgpu, with the policy
//! deciding where each layer runs.
//!
//! 1. Trains a 64→256→128→10 MLP on the UCI digits (1438 training images; Flex, autodiff).
//! 2. On wgpu (the machine's adapter; Mesa's lavapipe on a CPU-only machine) evaluates the
//!    359 test images in f32, Q8 per tensor, Q8 per block of 32 and Q4 per block of 32:
//!    accuracy, weight bytes (read from the packed tensors) and time per batch. Without an
//!    adapter it says so and runs the rows on Flex.
//! 3. Runs the Q8 block-32 model on a burn-remote server over loopback and on NdArray under a
//!    fallback policy — neither can quantize it — and shows where each layer ran.
//!
//! ```text
//! cargo run --release --all-features --example quantized_inference            # tables
//! cargo run --release --all-features --example quantized_inference -- --json  # the scheme rows as JSON
//! cargo run --release --all-features --example quantized_inference -- --save digits.bpk  # and the checkpoint
//! ```
//!
//! `--save PATH` writes the trained float model with burn's `Module::save_file`; the
//! `checkpoint` example serves it.
//!
//! The first wgpu run on lavapipe compiles the quantized matmul kernels (minutes); later runs
//! reuse Mesa's shader cache.

#[path = "support/digits.rs"]
mod digits;
#[path = "support/runtime_dir.rs"]
mod runtime_dir;

use std::time::Instant;

use burn::module::Module;
use burn::tensor::{Device, Tensor};
use burn_backend::ops::FloatTensorOps;
use burn_backend::{TensorData, read_sync};
use burn_flex::Flex;
use burn_guard::backend::Activation;
use burn_guard::devices::{LoopbackRemote, wgpu_adapter};
use burn_guard::nn::{ModuleQuantizer, PlacedLinear, QuantReport};
use burn_guard::policy::Policy;
use burn_remote::RemoteBackend;
use digits::{DigitsMlp, Split};
use serde::Serialize;

/// One row of the scheme table.
#[derive(Serialize)]
struct Row {
    scheme: &'static str,
    device: String,
    accuracy: f64,
    weight_bytes: u64,
    ms_per_batch: f64,
}

/// Runs `forward` a few times after a warm-up and returns the mean milliseconds per call.
fn time_ms(mut forward: impl FnMut() -> Tensor<2>) -> f64 {
    let _ = forward().into_data();
    let runs = 5;
    let start = Instant::now();
    for _ in 0..runs {
        // Reading the result waits for the device.
        let _ = forward().into_data();
    }
    start.elapsed().as_secs_f64() * 1e3 / f64::from(runs)
}

fn scheme_rows(model: &DigitsMlp, test: &Split, device: &Device, name: &str) -> Vec<Row> {
    if name.starts_with("wgpu") {
        // Nothing prints while Mesa compiles the kernels; say why before the wait.
        eprintln!(
            "compiling the wgpu kernels (f32, then quantized): about 6 minutes on the first run \
             with a software Vulkan driver (lavapipe); later runs take seconds (Mesa's shader cache)"
        );
    }
    let model = model.clone().to_device(device);
    let x = test.images(device);
    let mut rows = vec![Row {
        scheme: "f32",
        device: name.to_owned(),
        accuracy: digits::accuracy(model.forward(x.clone()), test),
        weight_bytes: digits::float_weight_bytes(&model),
        ms_per_batch: time_ms(|| model.forward(x.clone())),
    }];
    for (scheme_name, scheme) in digits::schemes() {
        let layers = match ModuleQuantizer::new(scheme, Policy::strict()).quantize(&model) {
            Ok(layers) => layers,
            Err(err) => {
                eprintln!("{scheme_name} on {name}: {err}");
                continue;
            }
        };
        let forward = || digits::quantized_forward(&layers, x.clone()).unwrap();
        rows.push(Row {
            scheme: scheme_name,
            device: name.to_owned(),
            accuracy: digits::accuracy(forward(), test),
            weight_bytes: layers.report().total_bytes().1,
            ms_per_batch: time_ms(forward),
        });
    }
    rows
}

/// The Q8 block-32 model on a loopback remote (backend level): weights quantized on Flex,
/// activations moved per call.
fn remote_run(model: &DigitsMlp, test: &Split) -> Result<(f64, QuantReport, Policy), String> {
    let remote = LoopbackRemote::start().map_err(|e| e.to_string())?;
    let device = remote.device();
    let to_remote = |t: TensorData| RemoteBackend::float_from_data(t, device);
    let scheme = digits::schemes().swap_remove(1).1;
    let policy = Policy::fallback_to([]);
    let flex = Default::default();
    let mut layers = Vec::new();
    for (path, linear) in [("l1", &model.l1), ("l2", &model.l2), ("l3", &model.l3)] {
        let weight = to_remote(linear.weight.val().into_data());
        let bias = linear.bias.as_ref().map(|b| to_remote(b.val().into_data()));
        let layer = PlacedLinear::<RemoteBackend, Flex>::quantize(
            path, weight, bias, &scheme, &policy, &flex,
        )
        .map_err(|e| e.to_string())?;
        layers.push(layer);
    }
    let mut h = to_remote(TensorData::new(
        test.x.clone(),
        [test.len(), digits::FEATURES],
    ));
    for (i, layer) in layers.iter().enumerate() {
        h = layer.forward(h).map_err(|e| e.to_string())?;
        if i + 1 < layers.len() {
            h = Activation::Relu
                .apply::<RemoteBackend>(h)
                .map_err(|e| e.to_string())?;
        }
    }
    let logits = read_sync(RemoteBackend::float_into_data(h)).map_err(|e| e.to_string())?;
    let logits = Tensor::<2>::from_data(logits, &Device::flex());
    let report = QuantReport {
        params: layers.iter().map(|l| l.report().clone()).collect(),
    };
    Ok((digits::accuracy(logits, test), report, policy))
}

fn main() {
    // SAFETY: first thing in `main`, before any thread starts.
    unsafe { runtime_dir::ensure_runtime_dir() };
    let json = std::env::args().any(|a| a == "--json");
    let (train, test) = digits::load();
    let start = Instant::now();
    let model = digits::train(&train, [256, 128], 20);
    let args: Vec<String> = std::env::args().collect();
    if let Some(path) = args
        .iter()
        .position(|a| a == "--save")
        .and_then(|i| args.get(i + 1))
    {
        model.clone().save_file(path).unwrap();
        eprintln!("saved the trained model to {path}");
    }
    if !json {
        println!(
            "trained 64-256-128-10 on {} digits in {:.2?} (Flex, autodiff); {} test images (ms/batch: the whole test set as one batch)",
            train.len(),
            start.elapsed(),
            test.len()
        );
    }

    let (device, name) = match wgpu_adapter() {
        Ok(adapter) => (adapter.device, format!("wgpu ({})", adapter.name)),
        Err(err) => {
            // On stderr, so that `--json` output stays JSON and still says so.
            eprintln!("no wgpu adapter ({err}); running the scheme rows on Flex");
            (Device::flex(), "flex".to_owned())
        }
    };
    let rows = scheme_rows(&model, &test, &device, &name);
    if json {
        println!("{}", serde_json::to_string_pretty(&rows).unwrap());
        return;
    }
    let f32_bytes = rows.first().map_or(1, |r| r.weight_bytes) as f64;
    println!(
        "\n{:<11} {:>9} {:>13} {:>7} {:>13}  device",
        "scheme", "accuracy", "weight bytes", "ratio", "ms/batch"
    );
    for row in &rows {
        println!(
            "{:<11} {:>8.2}% {:>13} {:>7.3} {:>13.3}  {}",
            row.scheme,
            row.accuracy * 100.0,
            row.weight_bytes,
            row.weight_bytes as f64 / f32_bytes,
            row.ms_per_batch,
            row.device
        );
    }

    println!("\nq8-block32 on a burn-remote server over 127.0.0.1 (fallback policy):");
    match remote_run(&model, &test) {
        Ok((accuracy, report, policy)) => {
            println!("{report}");
            let stats = policy.stats_of(burn_guard::policy::Op::QMatmul);
            println!(
                "accuracy {:.2}%; per forward of the test set: {} fallbacks, {} bytes out, {} bytes back",
                accuracy * 100.0,
                stats.fallbacks,
                stats.bytes_to_fallback,
                stats.bytes_from_fallback
            );
        }
        Err(err) => println!("remote unavailable: {err}"),
    }

    println!("\nq8-block32 on NdArray (fallback policy to Flex):");
    #[allow(deprecated)]
    let ndarray = Device::ndarray();
    let on_ndarray = model.clone().to_device(&ndarray);
    let scheme = digits::schemes().swap_remove(1).1;
    if let Err(err) = ModuleQuantizer::new(scheme, Policy::strict()).quantize(&on_ndarray) {
        println!("strict: {err}");
    }
    let policy = Policy::fallback_to([Device::flex()]);
    let layers = ModuleQuantizer::new(scheme, policy.clone())
        .quantize(&on_ndarray)
        .unwrap();
    println!("{}", layers.report());
    let logits = digits::quantized_forward(&layers, test.images(&ndarray)).unwrap();
    let stats = policy.stats_of(burn_guard::policy::Op::QuantizedLinear);
    println!(
        "accuracy {:.2}%; per forward: {} fallbacks, {} bytes out, {} bytes back, {:.2?} moving",
        digits::accuracy(logits, &test) * 100.0,
        stats.fallbacks,
        stats.bytes_to_fallback,
        stats.bytes_from_fallback,
        stats.move_time
    );
}
