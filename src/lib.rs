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
//! - A call refused by a check on shapes, dims, dtypes, devices, quantization schemes or
//!   declared capabilities dispatched nothing to the backend. Checks on *values* must read
//!   them from the device first, so their refusals come after device work (a read, for
//!   quantization a reduction too; the inputs are left unchanged):
//!   - index ranges: [`try_select`](tensor::TryTensor::try_select), `try_select_assign`,
//!     `try_gather`, `try_scatter`, `try_gather_nd`, `try_scatter_nd` and `try_take` read the
//!     index tensor back (one synchronous read, which also runs the work pending on it);
//!   - class values: `try_one_hot` and `try_one_hot_fill` read the input tensor back;
//!   - quantization ranges: [`try_quantize_dynamic`](tensor::TryQuantize::try_quantize_dynamic),
//!     `quantize_dynamic_with`, [`backend::quant::quantize_dynamic_or_fallback`] and the layers
//!     that quantize through them ([`nn::QuantizedLinear`], [`nn::PlacedLinear`]) dispatch a
//!     reduction (the count of NaN/±inf values, the largest magnitude) and read those two
//!     numbers back before refusing NaN, ±inf or a scale that would overflow;
//!   - checked reads: [`into_scalar_checked`](tensor::CheckedRead::into_scalar_checked),
//!     `into_scalar_async_checked`, `to_data_as_checked`, `into_data_as_checked`,
//!     `to_data_dtype_checked` and `into_data_dtype_checked` read the tensor, then
//!     refuse a value that does not fit the requested type.
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
pub mod check;
pub mod devices;
pub mod error;
pub(crate) mod gap;
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
