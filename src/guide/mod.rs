//! Guides: one per use, each a page of prose around a complete example that compiles (and
//! runs, where it needs no GPU) as a doctest.
//!
//! | I want to … | guide |
//! |---|---|
//! | replace raw burn calls in a service | [`migrating`] |
//! | choose what happens when a backend cannot run an op | [`fallback`] |
//! | run a quantized model on the GPU through wgpu | [`quantization`] |
//! | load a checkpoint (burn's, PyTorch's, SafeTensors) and trust it | [`loading`] |
//! | train without a silent no-op or a NaN written | [`training`] |
//! | catch wrong values: canary, shadow checks, anomaly mode, taint | [`sentinel`] |
//! | call burn-linalg, burn-signal or burn-vision | [`math`] |
//! | bound memory, sizes and time | [`limits`] |
//! | reach a model on another process or host | [`remote`] |
//! | survive an abort, a segfault or a hang inside the model | [`cell`](crate::cell) (Unix) |
//!
//! A guide whose example needs a feature is built with that feature (docs.rs builds them all).

#[cfg(all(feature = "flex", feature = "optim"))]
pub mod migrating;

#[cfg(all(feature = "flex", feature = "ndarray"))]
pub mod fallback;

#[cfg(all(feature = "flex", feature = "ndarray", feature = "wgpu"))]
pub mod quantization;

#[cfg(all(feature = "flex", feature = "store"))]
pub mod loading;

#[cfg(all(feature = "flex", feature = "optim"))]
pub mod training;

#[cfg(all(feature = "flex", feature = "ndarray"))]
pub mod sentinel;

#[cfg(all(
    feature = "linalg",
    feature = "signal",
    feature = "vision",
    feature = "flex",
    feature = "ndarray",
    feature = "autodiff"
))]
pub mod math;

#[cfg(all(feature = "flex", feature = "wgpu"))]
pub mod limits;

#[cfg(feature = "remote-device")]
pub mod remote;
