//! A tour of burn-guard: the backends this machine has, and burn panics turned into `Err`s.
//!
//! ```text
//! cargo run --release --example tour
//! ```

use burn::tensor::quantization::{QuantScheme, ScaleDtype};
use burn::tensor::{Device, Tensor};
use burn_backend::Backend;
use burn_guard::{check, panic};

fn main() {
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
    println!("== a burn panic, as an Err");
    // Raw burn: `tensor.quantize_dynamic(&scheme)` panics "must be evenly divisible by block
    // size". The scheme check refuses it before anything is dispatched.
    let weights = Tensor::<2>::ones([8, 24], &flex);
    let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
    let refused = check::quant_scheme("quantize_dynamic", &scheme, &weights.dims());
    println!("{:?}", refused.map(|_| ()).map_err(|e| e.to_string()));

    // Raw burn: `a.matmul(b)` with mismatched inner dimensions panics. The backstop catches what
    // no check has yet covered and prints nothing through the panic hook.
    let a = Tensor::<2>::ones([2, 3], &flex);
    let b = Tensor::<2>::ones([4, 5], &flex);
    let caught = panic::catch("matmul", || a.matmul(b));
    println!("{:?}", caught.map(|_| ()).map_err(|e| e.to_string()));
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
