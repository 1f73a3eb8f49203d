//! # burn-guard
//!
//! Fallible, capability-checked calls into [Burn](https://burn.dev) 0.22: a `Result` where
//! burn panics.
//!
//! Burn panics by design on shape errors, on operations a backend never implemented (the
//! router/remote backend's quantization, NdArray's missing quantization schemes), and on
//! backward passes it cannot differentiate under nested autodiff. burn-guard sits between your
//! code and burn:
//!
//! - [`check`]: pure functions that mirror burn's own assertions and return
//!   [`GuardError`] exactly where burn would panic — no stricter, no looser, except where a
//!   refusal is documented (a request no backend can honour as written).
//! - [`panic`](mod@panic): the backstop. A panic no check predicted is caught and returned as
//!   [`GuardError::BackendPanic`], without printing.
//! - [`devices`]: finding real devices (a wgpu adapter, a loopback burn-remote server) without
//!   panicking when one is missing.
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
//! - A checked call that returns `Err` dispatched nothing to the backend.
//! - A panic inside a guarded call is returned as an error — **unless the build uses
//!   `panic = "abort"`**: then the process ends before anything can catch it, and the checks are
//!   the only defence.
//! - Values a backend computes wrongly outside the declared capability tables cannot be caught.
//!
//! ## Features
//!
//! | feature | enables |
//! |---|---|
//! | `flex` | burn's Flex CPU backend (the default fallback) |
//! | `ndarray` | burn's NdArray CPU backend |
//! | `wgpu` | burn's wgpu backend; [`devices::wgpu_adapter`] |
//! | `autodiff` | burn's autodiff decorator |
//! | `remote` | burn's router backend and burn-remote; [`devices::LoopbackRemote`] |
#![deny(missing_docs)]
#![forbid(unsafe_code)]
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

pub mod backend;
pub mod capability;
pub mod check;
pub mod devices;
pub mod error;
pub mod nn;
pub mod panic;
pub mod policy;
pub mod prelude;
pub mod tensor;

pub use error::{ErrorKind, GuardError, Limit, Result, ResultExt, ScalarValue, Unsupported};
