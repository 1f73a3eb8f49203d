//! Guarded calls for code generic over `B: Backend` (burn-backend primitives): custom
//! backends, backend extensions and nested autodiff.
//!
//! - [`linear`] / [`linear_backward`]: burn's linear layer, whose gradients are built from
//!   `matmul` / `swap_dims` / `sum` / `reshape`, so `Autodiff<Autodiff<B>>` differentiates it
//!   twice (burn's own `linear` panics there: `Can't differentiate linear_x_backward.`).
//! - [`Mlp`]: linear layers and elementwise activations, differentiable to any order the stack
//!   offers; [`grad`], [`grads`], [`track`] and [`lift`] for gradients of gradients.
//! - [`embedding`], the pooling ops and [`interpolate`]: refused with
//!   [`GuardError::NotDifferentiable`](crate::GuardError::NotDifferentiable) under nested
//!   autodiff, where burn panics on the first backward (or, for `max_pool1d`, silently drops
//!   the second-order gradient).
//!
//! ```
//! use burn_backend::ops::FloatTensorOps;
//! use burn_backend::TensorData;
//! use burn_guard::backend::{grad, linear, track};
//! type Inner = burn_autodiff::Autodiff<burn_flex::Flex>;
//! type Outer = burn_autodiff::Autodiff<Inner>;
//!
//! let device = Default::default();
//! let data = |v: Vec<f32>, s: [usize; 2]| burn_flex::Flex::float_from_data(TensorData::new(v, s), &device);
//! let w = track::<Inner>(data(vec![0.5, -1.0], [2, 1]));
//! let x = track::<Outer>(burn_guard::backend::lift::<Inner>(data(vec![1.0, 2.0], [1, 2])));
//! let y = linear::<Outer>(x.clone(), burn_guard::backend::lift::<Outer>(w.clone()), None)?;
//! let y = Outer::float_mul(y.clone(), y); // y² : d/dx = 2y·wᵀ
//! let dx = grad::<Outer>(y, &x)?;         // tracked in Inner
//! let dw = grad::<Inner>(dx, &w)?;        // d(sum dx)/dw: second order
//! # let dw = burn_backend::read_sync(burn_flex::Flex::float_into_data(dw)).unwrap();
//! assert_eq!(dw.try_to_vec::<f32>().unwrap().len(), 2);
//! # Ok::<(), burn_guard::GuardError>(())
//! ```

mod autodiff;
pub mod check;
mod linear;
mod mlp;
mod module;
/// Guarded quantization of backend primitives, with fallback to another backend: the routed
/// engine of the quantization wing ([`crate::quant`]), re-exported at its old path.
pub mod quant {
    pub use crate::quant::{
        Placed, PlacedQuantized, dequantize, q_matmul, quantize_dynamic,
        quantize_dynamic_or_fallback,
    };
}

pub use autodiff::{grad, grads, grads_or_zeros, lift, track};
pub use linear::{
    LinearGrads, linear, linear_backward, linear_decomposed, linear_needs_decomposition,
};
pub use mlp::{Activation, Dense, Mlp};
pub use module::{
    NonDifferentiableOp, adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, avg_pool1d,
    avg_pool2d, batch_norm_train, deform_conv2d, differentiable, embedding, interpolate,
    max_pool1d, max_pool2d,
};
pub use quant::*;
