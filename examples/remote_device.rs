//! A client of a `burn::Tensor`-level remote device: it starts burn's own `RemoteServer` (a
//! Flex device over WebSocket) as a second process on 127.0.0.1, the way burn's
//! `examples/server` runs one, connects to it with a bounded connect, quantizes a model that
//! lives on the remote device under a fallback policy (the remote backend cannot quantize, so
//! the weights are quantized on, and stay on, local Flex), serves a few batches and prints
//! where everything ran and how many bytes moved. Then it stops the server and shows the next
//! batch failing with an `Err` in bounded time, not a hang or a panic.
//!
//! ```text
//! cargo run --all-features --example remote_device --features remote-device
//! ```

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::quantization::{QuantScheme, QuantStore, QuantValue, ScaleDtype};
use burn::tensor::{Device, Tensor, TensorData};
use burn_guard::capability::stack_of;
use burn_guard::devices::{connect_remote_device, default_timeout, read_with_deadline};
use burn_guard::nn::{ModuleQuantizer, QuantizedLayers};
use burn_guard::policy::{Op, Policy};

#[derive(Module, Debug)]
struct Net {
    hidden: Linear,
    head: Linear,
}

/// The server process: burn's `RemoteServer` hosting one Flex device on a loopback port the OS
/// picks, announced on stdout. It serves until it is killed.
fn serve() -> anyhow::Result<()> {
    use burn::server::{RemoteServer, WebSocketTransport};

    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    println!("listening ws://{}", listener.local_addr()?);
    RemoteServer::new([Device::flex()]).serve(WebSocketTransport::from_listener(listener))?;
    Ok(())
}

/// Starts `serve` in a child process and waits for its address.
fn start_server() -> anyhow::Result<(Child, String)> {
    let mut child = Command::new(std::env::current_exe()?)
        .arg("--serve")
        .stdout(Stdio::piped())
        .spawn()?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| anyhow::anyhow!("no stdout"))?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let address = line
        .trim()
        .strip_prefix("listening ")
        .ok_or_else(|| anyhow::anyhow!("unexpected server line {line:?}"))?
        .to_owned();
    Ok((child, address))
}

fn batch(rows: usize, seed: usize, device: &Device) -> Tensor<2> {
    let values = (0..rows * 64)
        .map(|i| ((i + seed * 7) as f32 * 0.13).sin())
        .collect::<Vec<_>>();
    Tensor::from_data(TensorData::new(values, [rows, 64]), device)
}

fn predict(layers: &QuantizedLayers, x: Tensor<2>) -> burn_guard::Result<Tensor<2>> {
    let hidden = burn::tensor::activation::relu(layers.forward("hidden", x)?);
    layers.forward("head", hidden)
}

fn main() -> anyhow::Result<()> {
    if std::env::args().any(|arg| arg == "--serve") {
        return serve();
    }
    let (mut server, address) = start_server()?;
    println!("server   {address} (pid {})", server.id());

    let started = Instant::now();
    let device = connect_remote_device(&address, 0, default_timeout())?;
    println!(
        "device   {} (connected in {:.1?})",
        stack_of(&device).label(),
        started.elapsed()
    );

    let net = Net {
        hidden: LinearConfig::new(64, 32).init(&device),
        head: LinearConfig::new(32, 10).init(&device),
    };
    let scheme = QuantScheme::default()
        .with_value(QuantValue::Q8S)
        .with_store(QuantStore::PackedU32(0))
        .per_block([32], ScaleDtype::F32);

    println!("\n== strict policy: the remote backend cannot quantize");
    match ModuleQuantizer::new(scheme, Policy::strict()).quantize(&net) {
        Ok(_) => println!("quantized (unexpected)"),
        Err(err) => println!("refused: {err}"),
    }

    println!("\n== fallback to Flex: weights quantized and kept on Flex");
    let policy = Policy::fallback_to([Device::flex()]);
    let layers = ModuleQuantizer::new(scheme, policy.clone()).quantize(&net)?;
    print!("{}", layers.report());

    println!("\n== serving batches on the remote device");
    for (i, rows) in [1, 8, 32].into_iter().enumerate() {
        let x = batch(rows, i, &device);
        let logits = predict(&layers, x)?;
        let placed = stack_of(&logits.device()).label().to_owned();
        let classes = read_with_deadline(
            "into_data",
            default_timeout(),
            logits.argmax(1).into_data_async(),
        )?;
        let stats = policy.stats_of(Op::QuantizedLinear);
        println!(
            "batch {rows:>2}: classes {:?}… on {placed}; moved so far {} B to Flex, {} B back",
            classes.iter::<i64>().take(4).collect::<Vec<_>>(),
            stats.bytes_to_fallback,
            stats.bytes_from_fallback
        );
    }

    println!("\n== the server goes away");
    server.kill()?;
    server.wait()?;
    let started = Instant::now();
    let outcome = predict(&layers, batch(4, 9, &device)).and_then(|logits| {
        read_with_deadline(
            "into_data",
            Duration::from_secs(2),
            logits.into_data_async(),
        )
    });
    match outcome {
        Ok(_) => println!("served (unexpected)"),
        Err(err) => println!("Err after {:.1?}: {err}", started.elapsed()),
    }
    Ok(())
}
