//! The capability matrix of every backend found on this machine: op × scheme → native,
//! fallback (to Flex, the default fallback) or unsupported, with the reason.
//!
//! ```text
//! cargo run --release --all-features --example capabilities           # a table
//! cargo run --release --all-features --example capabilities -- --json # an array of records
//! ```
//!
//! Then the backend extensions (with feature `linalg`: burn-linalg's `svd`, native on Flex
//! and NdArray, a fallback to Flex elsewhere; with feature `signal`: burn-signal's `fft`,
//! native on Flex, a fallback to Flex elsewhere; with feature `vision`: burn-vision's ops,
//! native on Flex, a fallback to Flex elsewhere; in `--json`, records with neither a `scheme`
//! nor a `case`). Each backend's quirks follow: what it panics on although burn checks nothing (a negative
//! integer exponent, a grid sampling mode), which the twins refuse before dispatch (in
//! `--json`, records with a `case` and no `scheme`). Then each backend's device limits: the
//! largest single buffer, the alignment and the capacity, where the device states them (in
//! `--json`, the `limits` field of every record).
//!
//! With `--features remote-device`, burn's `burn::Tensor`-level remote device (a loopback
//! `RemoteServer`) is listed too, as `remote-device`.

#[path = "support/runtime_dir.rs"]
mod runtime_dir;

use burn::tensor::Device;
use burn::tensor::quantization::{QuantScheme, QuantStore, QuantValue, ScaleDtype};
use burn_backend::Backend;
use burn_guard::capability::{
    BackendStack, DeviceLimits, Support, host_memory, limits_of, quantize_support, quirk_gaps,
    quirks_of_stack,
};
use burn_guard::check::{self, SchemeName};
use serde::Serialize;

/// One cell of the matrix.
#[derive(Serialize)]
struct Record {
    backend: &'static str,
    device: String,
    op: &'static str,
    /// The quantization scheme (`null` on a quirk's record).
    scheme: Option<String>,
    /// A quirk's inputs (absent on a scheme's record).
    #[serde(skip_serializing_if = "Option::is_none")]
    case: Option<String>,
    support: &'static str,
    /// What the backend would do: `panics`, `computes wrong values`, `is not implemented`,
    /// `is unmeasured`; absent when native.
    effect: Option<String>,
    reason: Option<String>,
    /// The device's memory limits (`null` where it states none).
    limits: DeviceLimits,
}

/// Every quantized op shares the scheme table: quantize, dequantize, quantized matmul.
const OPS: [&str; 3] = ["quantize_dynamic", "dequantize", "q_matmul"];
const SHAPE: [usize; 2] = [64, 64];

fn schemes() -> Vec<QuantScheme> {
    let values = [
        QuantValue::Q8F,
        QuantValue::Q8S,
        QuantValue::Q4F,
        QuantValue::Q4S,
        QuantValue::Q2F,
        QuantValue::Q2S,
        QuantValue::E4M3,
        QuantValue::E5M2,
        QuantValue::E2M1,
    ];
    let mut out = Vec::new();
    for value in values {
        for store in [QuantStore::Native, QuantStore::PackedU32(0)] {
            let base = QuantScheme::default().with_value(value).with_store(store);
            for scheme in [base, base.per_block([32], ScaleDtype::F32)] {
                if check::quant_scheme("capabilities", &scheme, &SHAPE).is_ok() {
                    out.push(scheme);
                }
            }
        }
    }
    out
}

fn records(
    backend: &'static str,
    device: String,
    stack: &BackendStack,
    limits: DeviceLimits,
) -> Vec<Record> {
    let flex = BackendStack::parse("flex");
    let mut out = Vec::new();
    for scheme in schemes() {
        let (support, effect, reason) = match quantize_support(stack, &scheme, &SHAPE) {
            Support::Native => ("native", None, None),
            Support::Gap(gap) => {
                let effect = Some(gap.effect.to_string());
                if quantize_support(&flex, &scheme, &SHAPE).is_native() {
                    (
                        "fallback",
                        effect,
                        Some(format!("{}; Flex can", gap.reason)),
                    )
                } else {
                    ("unsupported", effect, Some(gap.reason.into_owned()))
                }
            }
        };
        for op in OPS {
            out.push(Record {
                backend,
                device: device.clone(),
                op,
                scheme: Some(SchemeName(&scheme).to_string()),
                case: None,
                support,
                effect: effect.clone(),
                reason: reason.clone(),
                limits,
            });
        }
    }
    // The backend extensions the twins know: each one's op, its answer for this stack, and the
    // twins that fall back to Flex.
    type ExtensionSupport = fn(&BackendStack) -> Support;
    let extensions: Vec<(&'static str, ExtensionSupport, &str)> = vec![
        #[cfg(feature = "linalg")]
        ("svd", burn_guard::linalg::svd_support_of, "try_svd_with"),
        #[cfg(feature = "signal")]
        (
            "fft",
            burn_guard::signal::fft_support_of,
            "try_rfft_with, try_stft_with, ...",
        ),
        #[cfg(feature = "vision")]
        (
            "vision",
            burn_guard::vision::vision_support_of,
            "try_erode_with, try_nms_with, ...",
        ),
    ];
    for (op, support_of, twins) in extensions {
        let (support, effect, reason) = match support_of(stack) {
            Support::Native => ("native", None, None),
            Support::Gap(gap) => (
                "fallback",
                Some(gap.effect.to_string()),
                Some(format!("{}; Flex can ({twins})", gap.reason)),
            ),
        };
        out.push(Record {
            backend,
            device: device.clone(),
            op,
            scheme: None,
            case: None,
            support,
            effect,
            reason,
            limits,
        });
    }
    // The backend's quirks: refused by the twins before dispatch.
    for quirk in quirk_gaps(&quirks_of_stack(stack)) {
        out.push(Record {
            backend,
            device: device.clone(),
            op: quirk.op,
            scheme: None,
            case: Some(quirk.case),
            support: "refused",
            effect: Some(quirk.gap.effect.to_string()),
            reason: Some(quirk.gap.reason.into_owned()),
            limits,
        });
    }
    out
}

fn main() {
    // SAFETY: first thing in `main`, before any thread starts.
    unsafe { runtime_dir::ensure_runtime_dir() };
    let json = std::env::args().any(|arg| arg == "--json");
    let mut all = Vec::new();
    all.extend(records(
        "flex",
        "cpu".into(),
        &BackendStack::parse("flex"),
        limits_of(&Device::flex()),
    ));
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let ndarray = Device::ndarray();
    all.extend(records(
        "ndarray",
        "cpu".into(),
        &BackendStack::parse("ndarray"),
        limits_of(&ndarray),
    ));
    match burn_guard::devices::wgpu_adapter() {
        Ok(adapter) => all.extend(records(
            "wgpu",
            adapter.name,
            &BackendStack::of::<burn_wgpu::Wgpu>(&Default::default()),
            limits_of(&adapter.device),
        )),
        Err(err) => eprintln!("wgpu: {err}"),
    }
    match burn_guard::devices::LoopbackRemote::start() {
        Ok(remote) => all.extend(records(
            "remote",
            remote.address().to_owned(),
            &BackendStack::parse(&burn_remote::RemoteBackend::name(remote.device())),
            // burn-remote's server does not report its device's limits.
            DeviceLimits::UNKNOWN,
        )),
        Err(err) => eprintln!("remote: {err}"),
    }
    // burn's Tensor-level remote device (`Device::remote_options(..)`), when built with it.
    #[cfg(feature = "remote-device")]
    match burn_guard::devices::LoopbackRemoteDevice::start() {
        Ok(remote) => all.extend(records(
            "remote-device",
            remote.address().to_owned(),
            burn_guard::capability::stack_of(remote.device()),
            limits_of(remote.device()),
        )),
        Err(err) => eprintln!("remote-device: {err}"),
    }

    if json {
        match serde_json::to_string_pretty(&all) {
            Ok(text) => println!("{text}"),
            Err(err) => eprintln!("json: {err}"),
        }
        return;
    }
    // One line per (backend, scheme): the three ops share the answer.
    println!(
        "{:<13} {:<26} {:<12} {:<22} reason",
        "backend", "scheme", "support", "effect"
    );
    for record in all.iter().filter(|r| r.op == "quantize_dynamic") {
        println!(
            "{:<13} {:<26} {:<12} {:<22} {}",
            record.backend,
            record.scheme.as_deref().unwrap_or(""),
            record.support,
            record.effect.as_deref().unwrap_or(""),
            record.reason.as_deref().unwrap_or("")
        );
    }

    println!();
    println!(
        "{:<13} {:<15} {:<12} {:<22} reason",
        "backend", "extension op", "support", "effect"
    );
    for record in all
        .iter()
        .filter(|r| r.scheme.is_none() && r.case.is_none())
    {
        println!(
            "{:<13} {:<15} {:<12} {:<22} {}",
            record.backend,
            record.op,
            record.support,
            record.effect.as_deref().unwrap_or(""),
            record.reason.as_deref().unwrap_or("")
        );
    }

    println!();
    println!(
        "{:<13} {:<15} {:<46} {:<22} reason",
        "backend", "quirk of", "inputs (refused before dispatch)", "effect"
    );
    for record in all.iter().filter(|r| r.case.is_some()) {
        println!(
            "{:<13} {:<15} {:<46} {:<22} {}",
            record.backend,
            record.op,
            record.case.as_deref().unwrap_or(""),
            record.effect.as_deref().unwrap_or(""),
            record.reason.as_deref().unwrap_or("")
        );
    }

    println!();
    println!(
        "{:<13} {:>22} {:>10} {:>16} source",
        "backend", "largest buffer (B)", "alignment", "capacity (B)"
    );
    let figure = |value: Option<u64>| value.map_or_else(|| "-".to_owned(), |v| v.to_string());
    let mut shown = Vec::new();
    for record in &all {
        if shown.contains(&record.backend) {
            continue;
        }
        shown.push(record.backend);
        let limits = record.limits;
        println!(
            "{:<13} {:>22} {:>10} {:>16} {:?}",
            record.backend,
            figure(limits.max_buffer_bytes),
            figure(limits.alignment),
            figure(limits.capacity_bytes),
            limits.source
        );
    }
    if let Some(memory) = host_memory() {
        println!(
            "host memory: {} of {} bytes available",
            memory.available_bytes, memory.total_bytes
        );
    }
}
