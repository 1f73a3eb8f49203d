//! Real parts for the integration tests: a wgpu device (a test without an adapter fails unless
//! `BURN_GUARD_SKIP_WGPU=1`, see `wgpu.rs`), and a loopback burn-remote server. No mocks of burn.
#![allow(dead_code)]

use burn::tensor::Device;

mod wgpu;
#[allow(unused_imports)] // Not every test binary that includes `common` runs on wgpu.
pub use wgpu::wgpu_device;

/// A burn-remote server on 127.0.0.1 (Flex behind it) and a connected client device.
pub fn loopback_remote() -> burn_guard::devices::LoopbackRemote {
    burn_guard::devices::LoopbackRemote::start().unwrap()
}

/// Runs `f` under `catch_unwind` with the default hook silenced, returning the panic message.
pub fn panic_message<T>(f: impl FnOnce() -> T) -> Option<String> {
    match burn_guard::panic::catch("canary", f) {
        Ok(_) => None,
        Err(burn_guard::GuardError::BackendPanic { message, .. }) => Some(message),
        Err(other) => panic!("unexpected {other:?}"),
    }
}

/// Raw burn's outcome: `None` when it panicked (silently).
pub fn raw<T>(f: impl FnOnce() -> T) -> Option<T> {
    burn_guard::panic::catch("raw burn", f).ok()
}

/// Raw burn and the twin on the row of a table of methods that `op` selects, each row
/// `i => burn / twin (args) wrap;`: `(raw(|| wrap(make().burn(args))), make().twin(args).map(wrap))`,
/// `wrap` turning either output into what is compared.
#[allow(unused_macros)] // Not every test binary that includes `common` runs such a table.
macro_rules! both {
    ($make:expr, $op:expr; $($i:pat => $burn:ident / $twin:ident ($($arg:expr),*) $wrap:expr;)+) => {
        (
            $crate::common::raw(|| match $op { $($i => $wrap($make().$burn($($arg),*)),)+ }),
            match $op { $($i => $make().$twin($($arg),*).map($wrap),)+ },
        )
    };
}
#[allow(unused_imports)]
pub(crate) use both;

/// A float tensor's shape and values, for comparing outcomes.
pub fn snapshot<const D: usize>(t: burn::tensor::Tensor<D>) -> (Vec<usize>, Vec<f32>) {
    let dims = t.dims().to_vec();
    (
        dims,
        t.into_data().convert::<f32>().try_to_vec::<f32>().unwrap(),
    )
}

/// An int tensor's shape and values.
pub fn snapshot_int<const D: usize>(
    t: burn::tensor::Tensor<D, burn::tensor::Int>,
) -> (Vec<usize>, Vec<i64>) {
    let dims = t.dims().to_vec();
    (
        dims,
        t.into_data().convert::<i64>().try_to_vec::<i64>().unwrap(),
    )
}

/// A bool tensor's shape and values.
pub fn snapshot_bool<const D: usize>(
    t: burn::tensor::Tensor<D, burn::tensor::Bool>,
) -> (Vec<usize>, Vec<bool>) {
    let dims = t.dims().to_vec();
    (dims, t.into_data().try_to_vec::<bool>().unwrap())
}

/// The parity rule: burn panics ⇔ we return `Err` (and not merely a caught panic); equal
/// values when both succeed.
pub fn assert_parity<T: PartialEq + std::fmt::Debug>(
    case: &str,
    burn: Option<T>,
    ours: Result<T, burn_guard::GuardError>,
) {
    match (burn, ours) {
        (Some(b), Ok(o)) => assert_eq!(b, o, "{case}: values differ"),
        (None, Err(err)) => assert!(
            !matches!(err, burn_guard::GuardError::BackendPanic { .. }),
            "{case}: burn panicked and we only caught it ({err}); a check should refuse first"
        ),
        (Some(_), Err(err)) => panic!("{case}: burn succeeds but we refuse: {err}"),
        (None, Ok(_)) => panic!("{case}: burn panics but we return Ok"),
    }
}

/// Every quantization value burn defines: the integer ones (Q8F..Q2S) first, then the floats.
pub const QUANT_VALUES: [burn::tensor::quantization::QuantValue; 9] = {
    use burn::tensor::quantization::QuantValue::*;
    [Q8F, Q8S, Q4F, Q4S, Q2F, Q2S, E4M3, E5M2, E2M1]
};

/// Every value in every store, as a per-tensor scheme to build on (value-major).
pub fn quant_bases() -> impl Iterator<Item = burn::tensor::quantization::QuantScheme> {
    use burn::tensor::quantization::{QuantScheme, QuantStore};
    let stores = [
        QuantStore::Native,
        QuantStore::PackedU32(0),
        QuantStore::PackedNative(0),
    ];
    QUANT_VALUES.into_iter().flat_map(move |value| {
        stores.map(|store| QuantScheme::default().with_value(value).with_store(store))
    })
}

/// Flex and NdArray, the CPU backends every family runs on.
pub fn cpu_devices() -> Vec<(&'static str, Device)> {
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let ndarray = Device::ndarray();
    vec![("flex", Device::flex()), ("ndarray", ndarray)]
}

/// A deterministic float tensor of the given shape with small integer-valued entries; zeros
/// when it has no elements (burn's `reshape` reads a 0 in the target shape as "keep this dim",
/// so an empty tensor cannot be reshaped into shape).
pub fn float_tensor<const D: usize>(dims: [usize; D], device: &Device) -> burn::tensor::Tensor<D> {
    if dims.contains(&0) {
        return burn::tensor::Tensor::zeros(dims, device);
    }
    let n: usize = dims.iter().product();
    let values: Vec<f32> = (0..n).map(|i| ((i * 7 % 13) as f32) - 6.0).collect();
    burn::tensor::Tensor::<1>::from_floats(values.as_slice(), device).reshape(dims)
}

/// Runs the ignored test `name` of the current test binary in a child process with the
/// environment variable `var` set to `mode` (for tests that set something process-wide: the
/// logger, a device's health, a memory budget), asserts it succeeded, and returns what it
/// printed.
pub fn child_succeeds(var: &str, name: &str, mode: &str) -> String {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([name, "--exact", "--ignored", "--nocapture"])
        .env(var, mode)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
