//! Isolation cells: a model served in a supervised child process, so that an abort, a
//! segfault, an OOM kill, a hang or a poisoned device inside it costs one request an `Err`
//! and the child a restart, never the caller's process.
//!
//! burn-guard's checks refuse, before the call, every input known to abort or corrupt memory;
//! a cell is for the next one nobody knows yet, and for code the checks do not see (your own
//! unsafe kernels, a driver, a C library under a backend). As TorchServe restarts a crashed
//! worker and Erlang/OTP supervisors restart a crashed process, a [`Cell`] restarts its child
//! and goes on.
//!
//! - [`serve_if_cell`]: the first line of your `main`. In a cell's child (this same program,
//!   started again with `BURN_GUARD_CELL` set) it builds the model and answers requests until
//!   the parent closes the cell or dies; anywhere else it returns at once.
//! - [`Cell`]: starts the child ([`CellOptions`]), sends it requests ([`Cell::call`]: plain
//!   [`TensorData`](burn::tensor::TensorData) in and out), kills it at a request's deadline,
//!   reads how it died, restarts it within a [`RestartPolicy`] and, before a restarted child
//!   serves, checks that it answers the last good request exactly as its predecessor did.
//! - [`CellPool`]: N cells behind one handle, callable from many threads; a dead cell restarts
//!   on a thread of its own while the others take its share.
//! - [`CellFault`], inside [`GuardError::Cell`](crate::GuardError::Cell): what happened to a
//!   request (`SIGABRT`, `SIGSEGV`, `SIGKILL`, an exit code, a deadline, a panic, a poisoned
//!   device, or the guarded call's own refusal); [`CellStats`]: requests, answers, deaths by
//!   cause, restarts and time down, as data.
//!
//! ```no_run
//! use burn::nn::{Linear, LinearConfig};
//! use burn::tensor::{Device, Tensor, TensorData};
//! use burn_guard::cell::{CellOptions, CellPool, serve_if_cell};
//! use burn_guard::prelude::*;
//!
//! fn main() -> burn_guard::Result<()> {
//!     serve_if_cell(|_cx| {
//!         let device = Device::flex();
//!         let model: Linear = LinearConfig::new(64, 8).init(&device);
//!         Ok(move |inputs: Vec<TensorData>| {
//!             let x = Tensor::<2>::try_from_data(inputs[0].clone(), &device)?;
//!             Ok(vec![model.try_forward(x)?.into_data()])
//!         })
//!     });
//!
//!     let pool = CellPool::start(CellOptions::new("head"), 3)?;
//!     let logits = pool.call(vec![TensorData::new(vec![0.1f32; 64], [1, 64])])?;
//!     assert_eq!(logits[0].shape().as_slice(), &[1, 8]);
//!     Ok(())
//! }
//! ```
//!
//! # What a cell isolates, and what it does not
//!
//! Isolated (each has a test in `tests/cells.rs` with a real child process and a real fault):
//! a raw burn call that aborts (a 4 TiB allocation on Flex: Rust's allocation-failure
//! handler, SIGABRT), one that segfaults (Flex's matmul of a `[0, m, k]` batch against
//! `[1, k, n]`, SIGSEGV), a SIGKILL from outside (as the OOM killer sends), an exit, a hang
//! past the deadline, a panic nothing in the child caught, and a device the child's guarded
//! calls recorded poisoned. Each request gets its fault as an `Err`, the caller's process
//! lives, and the next request is answered by a fresh child whose first answer equals the
//! last good one.
//!
//! Not isolated:
//! - **Wrong numbers.** A child that computes wrong values without dying answers them; that
//!   is the sentinel's work ([`verify`](crate::verify)), which runs inside the child as
//!   anywhere else.
//! - **The parent's own calls.** Only what runs in the child is isolated; tensors you build
//!   or read in the parent are the parent's.
//! - **State across requests.** A restarted child starts from its checkpoint: a KV cache or
//!   other state kept in the child is lost with it (the request in flight gets the `Err`; the
//!   next ones start afresh).
//! - **Resources outside the process.** A GPU left in a bad state by its driver stays so for
//!   the next child; the restart intensity then brings the cell down rather than looping.
//!
//! Every request is answered exactly once: a request in flight when its child dies gets the
//! fault, and is never sent again (it may be what killed the child). A child dies with its
//! parent: it watches its parent's pid (a thread of its own, every 50 ms, so a hung request
//! does not stop it) and its socket, so killing the parent with SIGKILL leaves no process
//! behind (`tests/cells.rs` checks it).
//!
//! # How a cell talks to its child, and why not burn-remote
//!
//! A cell's child runs the whole guarded call, model and all; the parent sends tensors over a
//! Unix socket and reads tensors back. burn's own remote backend (burn-remote, which
//! [`devices::LoopbackRemote`](crate::devices::LoopbackRemote) serves in-process) runs
//! tensor operations on a server, but the code between them — the module's forward, its
//! checks, loading a checkpoint, CPU-side extension code — runs in the client, the caller's
//! process, where a fault still kills it. So the cell runs that code in the child, and
//! burn-remote is the way to reach a device on another host.
//!
//! # A cell on another host
//!
//! A [`Cell`]'s child is a local process; its model's device can be on another machine,
//! reached through burn's own remote server. There, run a program (burn with the
//! `remote-server` and `remote-websocket` features) that serves its devices:
//!
//! ```text
//! // on the GPU host, in its main:
//! burn::server::RemoteServer::new([burn::tensor::Device::default()])
//!     .serve(burn::server::WebSocketTransport::new(3000))?;
//! ```
//!
//! and in the cell's model build, connect to it with
//! `devices::connect_remote_device("ws://gpu-host:3000", 0, timeout)` (feature
//! `remote-device`) and build the model on that device. The handle is the same [`Cell`]: its
//! child runs the module's code and checks, the server runs the tensor operations; a server
//! that stops or freezes is a guarded read's `Err` in the child (the request's
//! [`CellFault::Refused`], the child lives), and a child that dies is restarted here.
//! `tests/cells.rs` (`a_cell_reaches_a_device_on_another_host_through_burn_remote`) stands a
//! loopback server for the network.
//!
//! # Single operations in cells
//!
//! A [`Policy`](crate::policy::Policy) can name a [`CellPool`] as the place burn-vision's
//! `connected_components` and `nms` run ([`Policy::in_cells`](crate::policy::Policy::in_cells)):
//! their inputs are read, the child runs the same guarded twin on Flex (burn-guard serves
//! these operations in every cell, beside the model), and the answer comes back to the
//! inputs' device. A pool with no model of its own builds [`ops_only`].
//!
//! # What a cell costs
//!
//! Measured by `cargo bench --bench cells --all-features` (release, one run, 2 cores): see
//! `BENCHMARKS.md`, "Isolation cells".

mod child;
mod fault;
pub(crate) mod ops;
mod pool;
mod supervise;
mod wire;

pub use child::{CellContext, CellModel, ops_only, serve_if_cell};
pub use fault::CellFault;
pub use pool::CellPool;
pub use supervise::{Cell, CellHealth, CellOptions, CellStats, Deaths, RestartPolicy};
