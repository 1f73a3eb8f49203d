//! # burn-guard
//!
//! Fallible, capability-checked calls into [Burn](https://burn.dev) 0.22: a `Result` where
//! burn panics.
//!
//! Every burn function that can panic on its input has a `try_` twin with the same arguments
//! that returns [`GuardError`] instead (the [`twins`] page lists them; `use
//! burn_guard::prelude::*;` brings them in scope), and a [`Policy`](policy::Policy) decides
//! whether an operation a backend cannot run is refused or falls back to another device.
//! Start with the [`guide`]: one page per use, each around an example that compiles and runs.
//!
//! ```
//! use burn::tensor::quantization::{QuantScheme, ScaleDtype};
//! use burn_guard::{GuardError, check};
//!
//! // burn panics "must be evenly divisible by block size"; we return an error first.
//! let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
//! let err = check::quant_scheme("quantize_dynamic", &scheme, &[8, 24]).unwrap_err();
//! assert!(matches!(err, GuardError::InvalidQuantScheme { .. }));
//! println!("{err}");
//! # Ok::<(), GuardError>(())
//! ```
//!
//! ## What burn-guard guarantees, and what it cannot
//!
//! - A call refused by a check on shapes, dims, dtypes, sizes, devices, quantization schemes
//!   or declared capabilities dispatched nothing to the backend. Checks on *values* (index
//!   ranges, class values, quantization ranges, the checked reads) read them from the device
//!   first; each twin's docs say which.
//! - A panic inside a guarded call is returned as [`GuardError::BackendPanic`] — **unless the
//!   build uses `panic = "abort"`**: then the process ends before anything can catch it, and
//!   the checks are the only defence.
//! - Values a backend computes wrongly outside the declared capability tables cannot be caught
//!   by a check; [`verify`] compares them against a reference device.
//!
//! ## Modules
//!
//! [`tensor`], [`nn`], [`module`], [`store`]: the twins · [`check`]: the pure checks ·
//! [`policy`]: fallback · [`capability`]: what a backend can do · [`devices`]: finding devices,
//! limits, health, deadlines · [`quant`]: quantization · [`backend`]: code generic over
//! `B: Backend` · [`verify`]: wrong values · [`input`]: a service's input ·
//! [`panic`](mod@panic): the backstop · [`error`]: [`GuardError`].
//!
//! ## Features
//!
//! None is on by default; turn on the ones your burn build has, under burn's names.
//!
//! | feature | enables |
//! |---|---|
//! | `flex` | burn's Flex CPU backend (the default fallback) |
//! | `ndarray` | burn's NdArray CPU backend (deprecated upstream) |
//! | `wgpu` | burn's wgpu backend; `devices::wgpu_adapter` |
//! | `autodiff` | burn's autodiff decorator |
//! | `remote` | burn's router backend and burn-remote; `devices::LoopbackRemote` (implies `flex`) |
//! | `remote-device` | `burn::Tensor`-level remote devices; `devices::LoopbackRemoteDevice` (implies `remote`) |
//! | `store` | burn-store's SafeTensors, PyTorch and burnpack stores, checked |
//! | `optim` | `optim`: checked optimizer steps (implies `autodiff`) |
//! | `linalg` | `linalg`: the burn-linalg twins |
//! | `signal` | `signal`: the burn-signal twins |
//! | `vision` | `vision`: the burn-vision twins |
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// `tensor::twins!` reads a trait of twins row by row, one expansion per part of a row.
#![recursion_limit = "256"]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::unreachable,
    clippy::todo,
    clippy::unimplemented,
    clippy::indexing_slicing
)]
// Unit tests inside the crate may index, but they return `Result` instead of unwrapping or
// panicking, like the library (only the backstop's own tests in `panic.rs` opt out).
#![cfg_attr(test, allow(clippy::indexing_slicing))]

/// Builder setters written as the list of their docs: each `$(#[$doc])* $vis fn
/// $name($arg: $ty) => $field;` becomes a `#[must_use]` method that sets `self.$field` to
/// `$arg` and returns the builder; `=> via $path;` sets it through the builder at `self.$path`,
/// with its setter of the same name.
macro_rules! setters {
    ($($(#[$doc:meta])* $vis:vis fn $name:ident($arg:ident: $ty:ty) => via $($path:ident).+;)+) => {
        $(
            $(#[$doc])*
            #[must_use]
            $vis fn $name(mut self, $arg: $ty) -> Self {
                self.$($path).+ = self.$($path).+.$name($arg);
                self
            }
        )+
    };
    ($($(#[$doc:meta])* $vis:vis fn $name:ident($arg:ident: $ty:ty) => $field:ident;)+) => {
        $(
            $(#[$doc])*
            #[must_use]
            $vis fn $name(mut self, $arg: $ty) -> Self {
                self.$field = $arg;
                self
            }
        )+
    };
}

pub mod backend;
pub mod capability;
#[cfg(unix)]
pub mod cell;
pub mod check;
pub mod devices;
pub mod error;
pub(crate) mod gap;
pub mod guide;
pub mod input;
#[cfg(feature = "linalg")]
pub mod linalg;
pub mod module;
pub mod nn;
#[cfg(feature = "optim")]
pub mod optim;
pub mod panic;
pub(crate) mod params;
pub mod policy;
pub mod prelude;
pub mod quant;
#[cfg(feature = "signal")]
pub mod signal;
pub mod store;
pub mod tensor;
mod transfer;
#[cfg(feature = "vision")]
pub mod vision;
#[doc = include_str!("../docs/twins.md")]
pub mod twins {}
mod upstream;
pub mod value_reads;
pub mod verify;

pub use error::{ErrorKind, GuardError, Limit, Result, ResultExt, ScalarValue, Unsupported};

// Every Rust block of the README compiles and runs as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
