//! # Reaching a model on another process or host
//!
//! burn 0.22 reaches a device on another process or host through burn-remote: a server
//! (`burn::server::RemoteServer`) hosts real devices over WebSocket, and a client device
//! routes every operation to it through burn-router. Three things go wrong there that do not
//! on a local device: burn-router's quantized ops are `unimplemented!()` (every quantization
//! panics), a connect to a server that is not there retries for seconds or waits forever, and
//! a read from a server that froze never returns. burn-guard covers both levels burn offers:
//!
//! | level | feature | connect | a server on loopback |
//! |---|---|---|---|
//! | `burn::Tensor`: `Device::remote_options(&RemoteHost::websocket(addr)).init()` | `remote-device` | `devices::connect_remote_device` | `devices::LoopbackRemoteDevice` (burn's `RemoteServer`) |
//! | backend: `burn_remote::RemoteBackend` primitives | `remote` | [`devices::connect_remote`](crate::devices::connect_remote) | [`devices::LoopbackRemote`](crate::devices::LoopbackRemote) (burn-remote's `BackendServer`) |
//!
//! The loopback servers bind `127.0.0.1` on a port the OS picks, serve one Flex device
//! in-process, and hand you a connected client; `stop()` takes the server away mid-run, for
//! testing what your service does then.
//!
//! ## What the guarded paths do on a remote device
//!
//! - The twins and layer twins check before anything is sent: a shape error never reaches the
//!   server.
//! - `try_quantize_dynamic` refuses with `Unsupported`; `quantize_dynamic_with(&policy)`,
//!   [`WeightQuantizer`](crate::module::WeightQuantizer) and
//!   [`ModuleQuantizer`](crate::nn::ModuleQuantizer) quantize on the policy's first capable
//!   device and keep the weights there, moving activations per call (counted in bytes: see
//!   the [fallback](super::fallback) guide).
//! - Errors, warnings and reports name the device by its address:
//!   `router<remote ws://127.0.0.1:40123>`. burn's `RemoteDevice` does not expose its address:
//!   burn-guard keeps the one it connected with, and for a device connected with burn's own
//!   API reads it from burn's name for the device.
//! - Moving activations off a remote device reads them under
//!   [`default_timeout`](crate::devices::default_timeout) (burn's `to_device` would hang on a
//!   frozen server and panic on a stopped one).
//!
//! ```
//! use std::time::Duration;
//! use burn::tensor::quantization::{QuantScheme, ScaleDtype};
//! use burn::tensor::{Device, Tensor};
//! use burn_guard::devices::{LoopbackRemoteDevice, connect_remote_device, read_with_deadline};
//! use burn_guard::policy::{Op, Policy};
//! use burn_guard::prelude::*;
//!
//! // burn's own RemoteServer hosting a Flex device on 127.0.0.1, and a client device for it.
//! let mut remote = LoopbackRemoteDevice::start()?;
//! let device = remote.device().clone();
//!
//! // Checked before anything is sent: the server never sees this matmul.
//! let a = Tensor::<2>::ones([2, 3], &device);
//! let err = a.clone().try_matmul(Tensor::ones([4, 2], &device)).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
//!
//! // burn-router cannot quantize: refused, naming the device by its address...
//! let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
//! let weights = Tensor::<2>::ones([4, 64], &device);
//! let err = weights.clone().try_quantize_dynamic(&scheme).unwrap_err();
//! assert!(err.to_string().contains(&format!("router<remote {}>", remote.address())), "{err}");
//! // ...or quantized on Flex under a fallback policy, and kept there.
//! let policy = Policy::fallback_to([Device::flex()]);
//! let quantized = weights.quantize_dynamic_with(&scheme, &policy)?;
//! assert_eq!(quantized.device(), Device::flex());
//! assert_eq!(policy.stats_of(Op::QuantizeDynamic).bytes_to_fallback, 4 * 64 * 4);
//!
//! // The server stops: the next read is an Err within the deadline, not a panic or a hang.
//! remote.stop();
//! let read = read_with_deadline("into_data", Duration::from_secs(1), a.into_data_async());
//! assert_eq!(read.unwrap_err().kind(), ErrorKind::Execution);
//!
//! // Nothing listens: Err at the first refused connection, where burn retries for 15.75 s.
//! let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
//! let address = format!("ws://127.0.0.1:{port}");
//! let err = connect_remote_device(&address, 0, Duration::from_secs(1)).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::DeviceUnavailable);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Faults and deadlines
//!
//! burn-remote has no deadline of its own. What it does, and what the guarded calls return
//! (`tests/remote_faults.rs` at the backend level, `tests/remote_device.rs` at the Tensor
//! level, each against a real server on 127.0.0.1; a frozen server is a proxy that stops
//! forwarding):
//!
//! | fault | burn-remote 0.22.1 | with burn-guard |
//! |---|---|---|
//! | nothing listens on the port | retries a refused connection 250 ms … 8 s apart (its `client/service/conn.rs`), 15.75 s in all, then an error | `connect_remote(_device)`: `DeviceUnavailable` at the first refusal |
//! | the port accepts but never answers | the connect blocks forever (no handshake timeout) | `DeviceUnavailable` at the deadline |
//! | the server stops mid-run | operations are fire-and-forget and "succeed"; a read or a sync returns `Err` (the client notices the closed socket) | the same `Err` through a guarded read: [`GuardError::Execution`](crate::GuardError::Execution) |
//! | the server freezes mid-run | a read or a sync blocks forever; a blocked sync also blocks the device's runner thread, so every later blocking call on that device blocks too | [`read_with_deadline`](crate::devices::read_with_deadline) / [`sync_with_deadline`](crate::devices::sync_with_deadline): [`GuardError::Timeout`](crate::GuardError::Timeout) at the deadline, every time |
//!
//! A guarded call that reads internally (the value range before quantizing, the move of
//! activations) blocks as long as burn does on a frozen server; wrap the whole call in
//! [`with_deadline`](crate::devices::with_deadline) to bound it, as
//! `tests/remote_device.rs` does. A timed-out call leaves its helper thread behind until the
//! socket closes.
//!
//! [`DEFAULT_TIMEOUT`](crate::devices::DEFAULT_TIMEOUT) is 5 s: a loopback read or sync
//! answers in well under a millisecond and a handshake in a few, so 5 s leaves headroom for a
//! loaded machine or a real network while still reporting a dead server to someone waiting.
//! A read of a large tensor over a slow network needs more (a GiB at 1 Gbit/s takes about
//! 8.6 s): [`set_default_timeout`](crate::devices::set_default_timeout), or pass a timeout.
//!
//! One limit stays: burn-remote keeps one client session per address and device index for the
//! life of the process, so once a server on an address is gone and anything else accepts TCP
//! there, a new connect is answered by the stale session (`tests/remote_faults.rs`,
//! `a_reused_address_is_answered_by_the_stale_client`). The loopback servers bind through
//! [`loopback_listener`](crate::devices::loopback_listener), which never hands out a port twice
//! in a process.
//!
//! ## Backend-level code
//!
//! With only the `remote` feature, burn-remote's `RemoteBackend` is a backend like any other
//! for the generic functions of [`backend`](crate::backend); the fallback backend is a type
//! parameter:
//!
//! ```
//! use burn::tensor::quantization::{QuantScheme, ScaleDtype};
//! use burn_backend::TensorData;
//! use burn_backend::ops::FloatTensorOps;
//! use burn_flex::Flex;
//! use burn_guard::backend::quant::quantize_dynamic_or_fallback;
//! use burn_guard::devices::LoopbackRemote;
//! use burn_guard::policy::Policy;
//! use burn_remote::RemoteBackend;
//!
//! let remote = LoopbackRemote::start()?;
//! let weights = || RemoteBackend::float_from_data(TensorData::new(vec![0.5f32; 4 * 64], [4, 64]), remote.device());
//! let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
//! let flex = Default::default();
//! let refused = quantize_dynamic_or_fallback::<RemoteBackend, Flex>(weights(), &scheme, &Policy::strict(), &flex);
//! assert!(refused.is_err());
//! let placed = quantize_dynamic_or_fallback::<RemoteBackend, Flex>(weights(), &scheme, &Policy::fallback_to([]), &flex)?;
//! assert!(placed.is_fallback());
//! # Ok::<(), burn_guard::GuardError>(())
//! ```
//!
//! ## What it costs
//!
//! - A fallback off a remote device costs the moves: a quantized matmul 256×256 · 256×256
//!   (Q8 per block of 32) with its weight on Flex and the activations moved from the remote
//!   device and back over the loopback WebSocket takes 2.019 ms, 1.93× the same product native
//!   on Flex (`benches/fallback.rs`, `BENCHMARKS.md`).
//! - The build: burn's `remote` feature, which `remote-device` turns on, always brings iroh
//!   (about 100 more crates) and changes features of dependencies burn-guard shares with burn,
//!   so it is a second build of burn's stack. A crate that turns on burn's `remote` for its own
//!   reasons needs no feature of ours for its devices to be read right: without
//!   `remote-device`, a remote device is still recognised from its dispatch id and named from
//!   burn's name for it.
