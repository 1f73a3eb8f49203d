//! `burn::Tensor`-level remote devices, as burn 0.22 users hold them
//! (`Device::remote_options(&RemoteHost::websocket(addr)).init()`), against burn's own
//! `RemoteServer` serving a Flex device on 127.0.0.1, started by each test: how the device is
//! read and named, what it can do (checked against what it does), and every guarded path on it —
//! twins, quantization under both policies, the module quantizer, the layer twins and the
//! deadline helpers. Built only with the `remote-device` feature.

#[path = "common/example.rs"]
mod example;
#[path = "common/proxy.rs"]
mod proxy;

use std::net::TcpListener;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use burn::backend::Dispatch;
use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::remote::RemoteHost;
use burn::tensor::quantization::{QuantScheme, QuantStore, QuantValue, ScaleDtype};
use burn::tensor::{Device, Tensor, TensorData};
use burn_guard::GuardError;
use burn_guard::capability::{Layer, quantize_support, stack_of};
use burn_guard::devices::{
    LoopbackRemote, LoopbackRemoteDevice, connect_remote_device, read_with_deadline,
    sync_with_deadline, with_deadline,
};
use burn_guard::nn::ModuleQuantizer;
use burn_guard::policy::{Op, Policy};
use burn_guard::prelude::*;

/// Where burn notices the fault itself (a closed socket, a refused port).
const BOUND: Duration = Duration::from_secs(1);
/// Where burn would wait forever.
const HUNG_BOUND: Duration = Duration::from_millis(400);
/// Scheduling slack on a loaded 2-core machine.
const SLACK: Duration = Duration::from_secs(2);

fn values(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i as f32 * 0.37).sin()).collect()
}

fn tensor<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D> {
    let n = dims.iter().product();
    Tensor::from_data(TensorData::new(values(n), dims), device)
}

fn read<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().convert::<f32>().try_to_vec::<f32>().unwrap()
}

fn block_scheme() -> QuantScheme {
    QuantScheme::default()
        .with_value(QuantValue::Q8S)
        .with_store(QuantStore::PackedU32(0))
        .per_block([32], ScaleDtype::F32)
}

/// Raw burn's outcome, `None` when it panicked.
fn raw<T>(f: impl FnOnce() -> T) -> Option<T> {
    burn_guard::panic::catch("raw burn", f).ok()
}

#[test]
fn the_remote_variant_is_read_as_a_router_with_its_host() {
    let remote = LoopbackRemoteDevice::start().unwrap();
    let address = remote.address().to_owned();
    let stack = stack_of(remote.device());
    assert_eq!(
        stack.layers(),
        &[Layer::Dispatch, Layer::Router, Layer::Remote]
    );
    assert_eq!(stack.label(), format!("dispatch<router<remote {address}>>"));
    assert_eq!(stack.remote_address(), Some(address.as_str()));

    let autodiff = stack_of(&remote.device().clone().autodiff());
    assert_eq!(autodiff.autodiff_depth(), 1);
    assert_eq!(
        autodiff.label(),
        format!("dispatch<autodiff<router<remote {address}>>>")
    );

    // A device connected with burn's own API, not through burn-guard, to another server: its
    // host comes from burn's name for it.
    let backend_level = LoopbackRemote::start().unwrap();
    let raw_device = Device::remote_options(&RemoteHost::websocket(backend_level.address()))
        .init()
        .unwrap();
    assert_eq!(
        stack_of(&raw_device).label(),
        format!("dispatch<router<remote {}>>", backend_level.address())
    );
    // Two servers, two names.
    assert_ne!(stack_of(&raw_device).label(), stack.label());
}

/// The declared table says a remote device quantizes nothing; raw burn agrees (it panics), and
/// its float ops, declared native, compute what Flex computes.
#[test]
fn declared_capabilities_match_the_real_remote_device() {
    let remote = LoopbackRemoteDevice::start().unwrap();
    let device = remote.device();
    let stack = stack_of(device);
    for scheme in [QuantScheme::default(), block_scheme()] {
        let support = quantize_support(stack, &scheme, &[4, 64]);
        assert!(!support.is_native(), "{scheme:?}");
        let raw_quantized = raw(|| tensor([4, 64], device).quantize_dynamic(&scheme));
        assert!(
            raw_quantized.is_none(),
            "raw burn quantized on a remote device; the declared gap is wrong"
        );
    }
    let raw_product = read(tensor([3, 4], device).matmul(tensor([4, 2], device)));
    let guarded = tensor([3, 4], device)
        .try_matmul(tensor([4, 2], device))
        .unwrap();
    assert_eq!(guarded.device(), *device);
    assert_eq!(read(guarded), raw_product);
    let flex = Device::flex();
    assert_eq!(
        read(tensor([3, 4], &flex).matmul(tensor([4, 2], &flex))),
        raw_product
    );
}

#[test]
fn strict_quantization_is_refused_naming_the_router_briefly() {
    let remote = LoopbackRemoteDevice::start().unwrap();
    let err = tensor([4, 64], remote.device())
        .try_quantize_dynamic(&block_scheme())
        .unwrap_err();
    assert!(matches!(err, GuardError::Unsupported(_)), "{err}");
    let message = err.to_string();
    assert!(
        message.contains(&format!("router<remote {}>", remote.address())),
        "{message}"
    );
    assert!(!message.contains("RemoteDevice"), "{message}");
    assert!(!message.contains('\n'), "{message}");
    assert!(message.len() < 300, "{} chars: {message}", message.len());

    // A device mismatch names the remote device the same way.
    let err = tensor([2], remote.device())
        .try_add(tensor([2], &Device::flex()))
        .unwrap_err();
    assert!(matches!(err, GuardError::DeviceMismatch { .. }), "{err}");
    assert!(
        err.to_string()
            .contains(&format!("remote {}", remote.address())),
        "{err}"
    );
    assert!(!err.to_string().contains("RemoteDevice"), "{err}");
}

/// A logger that keeps burn-guard's warnings, for the warn-once check.
struct Warnings(Mutex<Vec<String>>);

impl log::Log for Warnings {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= log::Level::Warn
    }
    fn log(&self, record: &log::Record) {
        if self.enabled(record.metadata()) {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(record.args().to_string());
        }
    }
    fn flush(&self) {}
}

fn warnings() -> &'static Warnings {
    static LOGGER: OnceLock<&'static Warnings> = OnceLock::new();
    LOGGER.get_or_init(|| {
        let logger: &'static Warnings = Box::leak(Box::new(Warnings(Mutex::new(Vec::new()))));
        log::set_logger(logger).unwrap();
        log::set_max_level(log::LevelFilter::Warn);
        logger
    })
}

#[test]
fn fallback_quantization_moves_exact_bytes_and_warns_once() {
    let logger = warnings();
    let remote = LoopbackRemoteDevice::start().unwrap();
    let flex = Device::flex();
    let policy = Policy::fallback_to([flex.clone()]);
    let scheme = block_scheme();
    for _ in 0..3 {
        let quantized = tensor([4, 64], remote.device())
            .quantize_dynamic_with(&scheme, &policy)
            .unwrap();
        assert_eq!(quantized.device(), flex);
        // The same bytes as quantizing the same values on Flex itself.
        let native = tensor([4, 64], &flex).quantize_dynamic(&scheme);
        assert_eq!(
            quantized.into_data().as_bytes(),
            native.into_data().as_bytes()
        );
    }
    let stats = policy.stats_of(Op::QuantizeDynamic);
    assert_eq!((stats.native, stats.fallbacks, stats.errors), (0, 3, 0));
    // The f32 input moved to Flex, nothing came back (the result lives on Flex).
    assert_eq!(stats.bytes_to_fallback, 3 * 4 * 64 * 4);
    assert_eq!(stats.bytes_from_fallback, 0);

    let from = format!("remote {}", remote.address());
    let warned: Vec<String> = logger
        .0
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter(|w| w.contains(&from))
        .cloned()
        .collect();
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(warned[0].contains("quantize_dynamic"), "{warned:?}");
    assert!(!warned[0].contains("RemoteDevice"), "{warned:?}");
}

#[derive(Module, Debug)]
struct Net {
    hidden: Linear,
    head: Linear,
}

#[test]
fn module_quantizer_keeps_weights_on_the_fallback_and_moves_activations() {
    let remote = LoopbackRemoteDevice::start().unwrap();
    let device = remote.device();
    let flex = Device::flex();
    let net = Net {
        hidden: LinearConfig::new(64, 32).init(device),
        head: LinearConfig::new(32, 10).init(device),
    };

    let err = ModuleQuantizer::new(block_scheme(), Policy::strict())
        .quantize(&net)
        .unwrap_err();
    assert!(matches!(err, GuardError::Unsupported(_)), "{err}");
    assert!(err.to_string().contains("router<remote"), "{err}");

    let policy = Policy::fallback_to([flex.clone()]);
    let layers = ModuleQuantizer::new(block_scheme(), policy.clone())
        .quantize(&net)
        .unwrap();
    for (path, layer) in layers.iter() {
        assert_eq!(layer.device(), device, "{path}");
        assert_eq!(
            layer.weight_device(),
            flex,
            "{path}: the weight stays on Flex"
        );
    }
    let report = layers.report();
    assert_eq!(report.fallbacks().count(), 2);
    let printed = report.to_string();
    assert!(
        printed.contains(&format!("remote {}", remote.address())),
        "{printed}"
    );

    // The same net, quantized where it can be: Flex, natively.
    let on_flex = net.clone().to_device(&flex);
    let native = ModuleQuantizer::new(block_scheme(), Policy::strict())
        .quantize(&on_flex)
        .unwrap();

    let batch = 5;
    let forward = |layers: &burn_guard::nn::QuantizedLayers, x: Tensor<2>| {
        layers.forward("head", layers.forward("hidden", x)?)
    };
    let y = forward(&layers, tensor([batch, 64], device)).unwrap();
    assert_eq!(
        y.device(),
        *device,
        "activations come back to the remote device"
    );
    let expected = read(forward(&native, tensor([batch, 64], &flex)).unwrap());
    let got = read(y);
    let worst = got
        .iter()
        .zip(&expected)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(worst <= 1e-5, "max |remote - flex| = {worst}");

    let stats = policy.stats_of(Op::QuantizedLinear);
    assert_eq!(stats.fallbacks, 2);
    assert_eq!(
        stats.bytes_to_fallback,
        (batch * 64 * 4 + batch * 32 * 4) as u64
    );
    assert_eq!(
        stats.bytes_from_fallback,
        (batch * 32 * 4 + batch * 10 * 4) as u64
    );
}

#[test]
fn a_model_quantized_in_place_is_refused_or_placed_on_flex() {
    let remote = LoopbackRemoteDevice::start().unwrap();
    let device = remote.device();
    let flex = Device::flex();
    let net = Net {
        hidden: LinearConfig::new(64, 32).init(device),
        head: LinearConfig::new(32, 32).init(device),
    };
    let quantizer = || {
        burn::module::Quantizer::new(
            burn::tensor::quantization::Calibration::MinMax,
            block_scheme(),
        )
    };
    // burn-router's quantized ops are not implemented: raw burn panics; the twin refuses,
    // naming the first parameter and the device.
    assert!(raw(|| net.clone().quantize_weights(&mut quantizer())).is_none());
    let err = net.try_quantize_weights(&mut quantizer()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert_eq!(err.path().as_deref(), Some("hidden.weight"));
    assert!(err.to_string().contains("router<remote"), "{err}");

    let policy = Policy::fallback_to([flex.clone()]);
    let quantized = burn_guard::module::WeightQuantizer::new()
        .policy(policy.clone())
        .quantize(&net, &mut quantizer())
        .unwrap();
    assert_eq!(quantized.held_on(), Some(&flex));
    let moved = policy.stats_of(Op::QuantizeWeights);
    assert_eq!(
        moved.bytes_to_fallback,
        ((64 * 32 + 32 + 32 * 32 + 32) * 4) as u64
    );

    let batch = 3;
    let y = quantized
        .forward(tensor([batch, 64], device), |m, x| {
            m.head.forward(m.hidden.forward(x))
        })
        .unwrap();
    assert_eq!(
        y.device(),
        *device,
        "the output comes back to the remote device"
    );
    let native = net
        .clone()
        .to_device(&flex)
        .try_quantize_weights(&mut quantizer())
        .unwrap();
    let expected = read(
        native
            .head
            .forward(native.hidden.forward(tensor([batch, 64], &flex))),
    );
    assert_eq!(read(y), expected);
    let forward = policy.stats_of(Op::QuantizedModel);
    assert_eq!(forward.bytes_to_fallback, (batch * 64 * 4) as u64);
    assert_eq!(forward.bytes_from_fallback, (batch * 32 * 4) as u64);
}

#[test]
fn layer_and_tensor_twins_run_on_the_remote_device() {
    let remote = LoopbackRemoteDevice::start().unwrap();
    let device = remote.device();
    let linear = LinearConfig::new(4, 3).init(device);
    let x = tensor([2, 4], device);
    let expected = read(linear.forward(x.clone()));
    assert_eq!(read(linear.try_forward(x).unwrap()), expected);

    let err = linear.try_forward(tensor([2, 5], device)).unwrap_err();
    assert!(matches!(err, GuardError::ShapeMismatch { .. }), "{err}");

    let norm = burn::nn::LayerNormConfig::new(4).init(device);
    let x = tensor([3, 4], device);
    assert_eq!(
        read(norm.try_forward(x.clone()).unwrap()),
        read(norm.forward(x))
    );
    assert!(norm.try_forward(tensor([3, 5], device)).is_err());

    // An embedding's twin reads the ids back from the remote device to check them.
    let embedding = burn::nn::EmbeddingConfig::new(10, 4).init(device);
    let ids = Tensor::<2, burn::tensor::Int>::from_data(TensorData::from([[1i64, 9]]), device);
    assert_eq!(
        read(embedding.try_forward(ids.clone()).unwrap()),
        read(embedding.forward(ids))
    );
    let bad = Tensor::<2, burn::tensor::Int>::from_data(TensorData::from([[1i64, 10]]), device);
    let err = embedding.try_forward(bad).unwrap_err();
    assert!(matches!(err, GuardError::IndexOutOfRange { .. }), "{err}");

    let err = tensor([2, 3], device)
        .try_matmul(tensor([4, 2], device))
        .unwrap_err();
    assert!(matches!(err, GuardError::ShapeMismatch { .. }), "{err}");
    // Nothing reached the server: it still computes.
    assert_eq!(
        read(
            tensor([1, 2], device)
                .try_add(tensor([1, 2], device))
                .unwrap()
        )
        .len(),
        2
    );
}

fn assert_not_panic(err: &GuardError) {
    assert!(
        !matches!(err, GuardError::BackendPanic { .. }),
        "a caught panic is not a clean error: {err}"
    );
}

#[test]
fn server_never_started_or_mute_gives_err_within_the_bound() {
    // Nothing listens.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let address = format!("ws://127.0.0.1:{port}");
    let start = Instant::now();
    let err = connect_remote_device(&address, 0, BOUND).unwrap_err();
    assert!(start.elapsed() < BOUND + SLACK, "{:?}", start.elapsed());
    assert!(matches!(err, GuardError::DeviceUnavailable { .. }), "{err}");
    assert!(
        err.to_string().contains(&format!("remote {address}")),
        "{err}"
    );

    // Accepts, never answers: burn would wait forever.
    let mute = burn_guard::devices::loopback_listener().unwrap();
    let address = format!("ws://{}", mute.local_addr().unwrap());
    let start = Instant::now();
    let err = connect_remote_device(&address, 0, HUNG_BOUND).unwrap_err();
    let elapsed = start.elapsed();
    assert!(
        elapsed >= HUNG_BOUND && elapsed < HUNG_BOUND + SLACK,
        "{elapsed:?}"
    );
    assert!(matches!(err, GuardError::DeviceUnavailable { .. }), "{err}");
    drop(mute);
}

#[test]
fn server_stopped_mid_run_gives_err_within_the_bound() {
    let mut remote = LoopbackRemoteDevice::start().unwrap();
    let device = remote.device().clone();
    assert_eq!(
        read_with_deadline(
            "into_data",
            BOUND,
            tensor([2, 2], &device).into_data_async()
        )
        .unwrap()
        .num_elements(),
        4
    );
    let net = Net {
        hidden: LinearConfig::new(64, 32).init(&device),
        head: LinearConfig::new(32, 10).init(&device),
    };
    let layers = ModuleQuantizer::new(block_scheme(), Policy::fallback_to([Device::flex()]))
        .quantize(&net)
        .unwrap();
    remote.stop();
    let start = Instant::now();
    // The activations' move to the weights' device reads them back: a clean Err, where burn's
    // own `to_device` would panic.
    let err = layers
        .forward("hidden", tensor([2, 64], &device))
        .unwrap_err();
    assert!(matches!(err, GuardError::Execution { .. }), "{err}");
    let y = tensor([2, 3], &device).try_matmul(tensor([3, 2], &device));
    // Ops are fire-and-forget: the stop shows at the first read or sync.
    if let Ok(y) = y {
        let err = read_with_deadline("into_data", BOUND, y.into_data_async()).unwrap_err();
        assert!(matches!(err, GuardError::Execution { .. }), "{err}");
    }
    let err = sync_with_deadline::<Dispatch>(device.as_dispatch(), BOUND).unwrap_err();
    assert!(matches!(err, GuardError::Execution { .. }), "{err}");
    let policy = Policy::fallback_to([Device::flex()]);
    let err = tensor([4, 64], &device)
        .quantize_dynamic_with(&block_scheme(), &policy)
        .unwrap_err();
    assert_not_panic(&err);
    assert!(start.elapsed() < 3 * BOUND + SLACK, "{:?}", start.elapsed());
}

#[test]
fn server_frozen_mid_run_gives_timeout_at_the_bound() {
    let remote = LoopbackRemoteDevice::start().unwrap();
    let proxy = proxy::FreezableProxy::in_front_of(remote.address());
    let device = connect_remote_device(&proxy.address(), 0, BOUND).unwrap();
    assert_eq!(read(tensor([2, 2], &device)).len(), 4);

    proxy.freeze();
    let start = Instant::now();
    let err = read_with_deadline(
        "into_data",
        HUNG_BOUND,
        tensor([2, 2], &device).into_data_async(),
    )
    .unwrap_err();
    let elapsed = start.elapsed();
    assert!(matches!(err, GuardError::Timeout { .. }), "{err}");
    assert!(
        elapsed >= HUNG_BOUND && elapsed < HUNG_BOUND + SLACK,
        "{elapsed:?}"
    );
    // A guarded call that reads internally (the values' range, before quantizing) blocks as
    // long as burn does; a deadline around the whole call bounds it.
    let policy = Policy::fallback_to([Device::flex()]);
    let x = tensor([4, 64], &device);
    let start = Instant::now();
    let err = with_deadline("quantize_dynamic_with", HUNG_BOUND, move || {
        x.quantize_dynamic_with(&block_scheme(), &policy)
            .map(|_| ())
    })
    .unwrap_err();
    assert!(matches!(err, GuardError::Timeout { .. }), "{err}");
    assert!(start.elapsed() < HUNG_BOUND + SLACK);
    proxy.close();
}

/// `capabilities --json` lists the Tensor-level remote device with its rows. Runs the example
/// binary `cargo test` builds beside the test binaries.
#[test]
fn the_capability_report_lists_the_remote_device() {
    let stdout = example::run_example(
        "capabilities",
        &["--json"],
        "`cargo test --features remote-device`",
    );
    let records: Vec<serde_json::Value> = serde_json::from_slice(&stdout).unwrap();
    let remote: Vec<_> = records
        .iter()
        .filter(|r| r["backend"] == "remote-device")
        .collect();
    assert!(!remote.is_empty(), "no remote-device rows");
    for record in &remote {
        let device = record["device"].as_str().unwrap();
        assert!(device.starts_with("ws://127.0.0.1:"), "{record}");
        assert_ne!(record["support"], "native", "{record}");
    }
    let quantize = remote
        .iter()
        .filter(|r| r["op"] == "quantize_dynamic")
        .count();
    let schemes = remote.iter().filter(|r| !r["scheme"].is_null()).count();
    assert_eq!(quantize * 3, schemes, "three ops per scheme");
    assert!(remote.iter().any(|r| r["support"] == "fallback"));
}
