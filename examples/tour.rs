//! A tour of burn-guard: the backends this machine has, and burn panics turned into `Err`s.
//!
//! ```text
//! cargo run --release --all-features --example tour
//! ```

#[path = "support/runtime_dir.rs"]
mod runtime_dir;

use burn::tensor::quantization::{QuantScheme, ScaleDtype};
use burn::tensor::{Device, Int, Tensor};
use burn_backend::Backend;
use burn_guard::tensor::{TryNumeric, TryTensor};
use burn_guard::{check, panic};

fn main() {
    // SAFETY: first thing in `main`, before any thread starts.
    unsafe { runtime_dir::ensure_runtime_dir() };
    static LOGGER: StdoutLogger = StdoutLogger;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Warn);
    }
    println!("== backends found");
    let flex = Device::flex();
    println!("flex     {}", describe(&flex));
    #[allow(deprecated)] // NdArray is deprecated upstream; still a supported backend.
    let ndarray = Device::ndarray();
    println!("ndarray  {}", describe(&ndarray));
    match burn_guard::devices::wgpu_adapter() {
        Ok(adapter) => println!("wgpu     adapter {}", adapter.name),
        Err(_) => println!("wgpu     none"),
    }
    let remote = burn_guard::devices::LoopbackRemote::start();
    match &remote {
        Ok(remote) => println!(
            "remote   {} (backend {}, a burn-remote server on loopback)",
            remote.address(),
            backend_kind(&burn_remote::RemoteBackend::name(remote.device()))
        ),
        Err(err) => println!("remote   none: {err}"),
    }

    println!();
    println!("== three everyday mistakes: burn would panic, we return Err");
    let a = Tensor::<2>::ones([2, 3], &flex);
    let b = Tensor::<2>::ones([4, 5], &flex);
    // Raw burn: `a.matmul(b)` panics "The inner dimension of matmul should be the same".
    show("matmul shape mismatch", a.clone().try_matmul(b));
    // Raw burn: `a.narrow(2, 0, 1)` panics on a dim that a rank-2 tensor does not have.
    show("dim out of range     ", a.clone().try_narrow(2, 0, 1));
    // Raw burn: `a.select(0, [7])` reaches the backend with a row that does not exist.
    let rows = Tensor::<1, Int>::from_ints([0, 7], &flex);
    show("index out of range   ", a.try_select(0, rows));

    println!();
    println!("== a quantization scheme no backend can apply, refused before dispatch");
    // Raw burn: `quantize_dynamic` panics "must be evenly divisible by block size".
    let weights = Tensor::<2>::ones([8, 24], &flex);
    let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
    show(
        "block does not divide",
        check::quant_scheme("quantize_dynamic", &scheme, &weights.dims()),
    );

    println!();
    println!("== a remote quantization: refused under the strict policy, on Flex under fallback");
    if let Ok(remote) = &remote {
        remote_quantization(remote);
    }

    println!();
    println!("== the backstop: a panic no check predicted, caught silently");
    show(
        "backend panic        ",
        panic::catch("custom_op", || -> f32 { panic!("a backend bug") }),
    );
}

/// Raw burn: `RemoteBackend::quantize_dynamic` panics `not implemented` (burn-router).
fn remote_quantization(remote: &burn_guard::devices::LoopbackRemote) {
    use burn_backend::TensorData;
    use burn_backend::ops::FloatTensorOps;
    use burn_guard::backend::quant::quantize_dynamic_or_fallback;
    use burn_guard::policy::Policy;
    use burn_remote::RemoteBackend;

    let values: Vec<f32> = (0..64 * 64).map(|i| (i as f32 * 0.37).sin()).collect();
    let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
    let weights = || {
        RemoteBackend::float_from_data(TensorData::new(values.clone(), [64, 64]), remote.device())
    };
    let flex = Default::default();

    let strict = Policy::strict();
    let refused = quantize_dynamic_or_fallback::<RemoteBackend, burn_flex::Flex>(
        weights(),
        &scheme,
        &strict,
        &flex,
    );
    show("strict               ", refused);

    let policy = Policy::fallback_to([]);
    let placed = quantize_dynamic_or_fallback::<RemoteBackend, burn_flex::Flex>(
        weights(),
        &scheme,
        &policy,
        &flex,
    );
    let placement = placed.as_ref().map(|p| {
        if p.is_fallback() {
            "on Flex (fallback)"
        } else {
            "native"
        }
    });
    println!("fallback               {placement:?}");
    for (op, stats) in policy.stats() {
        println!(
            "stats {op}: native {}, fallbacks {}, errors {}, {} bytes to the fallback in {:?}",
            stats.native, stats.fallbacks, stats.errors, stats.bytes_to_fallback, stats.move_time
        );
    }
}

/// Prints burn-guard's own log lines at `warn` and above: its fallback warnings.
struct StdoutLogger;

impl log::Log for StdoutLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn && metadata.target().starts_with("burn_guard")
    }
    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            println!("[{}] {}", record.level(), record.args());
        }
    }
    fn flush(&self) {}
}

/// One line per outcome: `Ok` or the error's one-line message.
fn show<T>(label: &str, outcome: burn_guard::Result<T>) {
    match outcome {
        Ok(_) => println!("{label}  Ok"),
        Err(err) => println!("{label}  Err({err})"),
    }
}

/// `router<remote-RemoteDevice { .. }>` → `router`: the stack's outer layer.
fn backend_kind(name: &str) -> &str {
    name.split('<').next().unwrap_or(name)
}

fn describe(device: &Device) -> String {
    // A tiny computation proves the backend runs, not just that it compiled in.
    let sum = panic::catch("sum", || {
        Tensor::<1>::from_floats([1.0, 2.0, 3.0], device)
            .sum()
            .into_scalar::<f32>()
    });
    match sum {
        Ok(value) if (value - 6.0).abs() < 1e-6 => "ok".to_owned(),
        Ok(value) => format!("wrong sum {value}"),
        Err(err) => format!("failed: {err}"),
    }
}
