//! Gradients that stay differentiable: the helpers for a gradient of a gradient.
//!
//! On `Autodiff<Autodiff<B>>` the gradient that the outer layer's backward returns is a tensor
//! of the inner `Autodiff<B>`, still tracked there; differentiating it again gives second-order
//! derivatives. Three layers give third order (a physics-informed loss on `u''`, differentiated
//! w.r.t. the weights).

use burn_backend::ops::FloatTensorOps;
use burn_backend::tensor::FloatTensor;
use burn_backend::{AutodiffBackend, FloatDType, TensorMetadata};

use crate::error::{GuardError, Result};
use crate::panic;

/// Lifts an inner tensor into autodiff backend `B` and marks it as requiring a gradient there.
///
/// To differentiate twice w.r.t. the same value, lift it at every layer: an inner tensor that
/// requires a gradient, lifted again with `track`, is tracked at both layers.
///
/// ```
/// use burn_backend::ops::FloatTensorOps;
/// use burn_backend::{AutodiffBackend, TensorData};
/// type Inner = burn_autodiff::Autodiff<burn_flex::Flex>;
/// type Outer = burn_autodiff::Autodiff<Inner>;
///
/// let device = Default::default();
/// let x = burn_guard::backend::track::<Inner>(burn_flex::Flex::float_from_data(TensorData::new(vec![1.0f32], [1]), &device));
/// let x = burn_guard::backend::track::<Outer>(x);
/// assert!(Outer::float_is_require_grad(&x));
/// ```
pub fn track<B: AutodiffBackend>(tensor: FloatTensor<B::InnerBackend>) -> FloatTensor<B> {
    B::float_set_require_grad(B::from_inner(tensor), true)
}

/// Lifts an inner tensor into autodiff backend `B` without tracking it there (a constant at
/// this layer; it keeps whatever tracking it has on the inner layers).
///
/// ```
/// use burn_backend::ops::FloatTensorOps;
/// use burn_backend::{AutodiffBackend, TensorData};
/// type Ad = burn_autodiff::Autodiff<burn_flex::Flex>;
///
/// let device = Default::default();
/// let c = burn_guard::backend::lift::<Ad>(burn_flex::Flex::float_from_data(TensorData::new(vec![1.0f32], [1]), &device));
/// assert!(!Ad::float_is_require_grad(&c));
/// ```
pub fn lift<B: AutodiffBackend>(tensor: FloatTensor<B::InnerBackend>) -> FloatTensor<B> {
    B::from_inner(tensor)
}

/// The gradient of `sum(output)` w.r.t. each tensor of `wrt`, as tensors of the inner backend.
///
/// When the inner backend is itself autodiff, the gradients are tracked there and can be
/// differentiated again (see [`grad`]).
///
/// # Errors
///
/// - [`GuardError::InvalidArgument`] when a tensor of `wrt` gets no gradient: it is not
///   tracked, or `output` does not depend on it through a differentiable path (burn returns
///   nothing rather than zeros; under nested autodiff `max_pool1d` drops its second-order
///   gradient this way).
/// - [`GuardError::BackendPanic`] when burn panics during the backward pass (burn's own
///   `linear` under nested autodiff: use [`linear`](super::linear) instead).
///
/// ```
/// use burn_backend::ops::FloatTensorOps;
/// use burn_backend::TensorData;
/// use burn_guard::backend::{grads, track};
/// type Ad = burn_autodiff::Autodiff<burn_flex::Flex>;
///
/// let device = Default::default();
/// let x = track::<Ad>(burn_flex::Flex::float_from_data(TensorData::new(vec![3.0f32], [1]), &device));
/// let y = Ad::float_mul(x.clone(), x.clone());
/// let [dx] = grads::<Ad>(y, &[x])?.try_into().unwrap();
/// # let dx = burn_backend::read_sync(burn_flex::Flex::float_into_data(dx)).unwrap();
/// assert_eq!(dx.try_to_vec::<f32>().unwrap(), vec![6.0]);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn grads<B: AutodiffBackend>(
    output: FloatTensor<B>,
    wrt: &[FloatTensor<B>],
) -> Result<Vec<FloatTensor<B::InnerBackend>>> {
    const OP: &str = "grad";
    let gradients = backward::<B>(output)?;
    wrt.iter()
        .enumerate()
        .map(|(index, tensor)| {
            B::grad(tensor, &gradients).ok_or_else(|| GuardError::InvalidArgument {
                op: OP,
                rule: "every tensor must receive a gradient: tracked, and reached from the output through differentiable operations",
                got: format!("no gradient for wrt[{index}] (shape {:?})", tensor.shape().as_slice()),
            })
        })
        .collect()
}

/// Like [`grads`], but a tensor that gets no gradient gets zeros of its shape instead of an
/// error.
///
/// burn returns no gradient both for a tensor the output does not depend on (a legitimate zero:
/// the last layer's bias does not change an input gradient) and for a gradient it silently
/// dropped (`max_pool1d` under nested autodiff, which [`max_pool1d`](super::max_pool1d)
/// refuses). Use this only where every missing gradient is a true zero.
///
/// # Errors
///
/// [`GuardError::BackendPanic`] when burn panics during the backward pass.
///
/// ```
/// use burn_backend::ops::FloatTensorOps;
/// use burn_backend::TensorData;
/// use burn_guard::backend::{grads_or_zeros, track};
/// type Ad = burn_autodiff::Autodiff<burn_flex::Flex>;
///
/// let device = Default::default();
/// let data = |v: f32| burn_flex::Flex::float_from_data(TensorData::new(vec![v], [1]), &device);
/// let (x, unused) = (track::<Ad>(data(3.0)), track::<Ad>(data(1.0)));
/// let y = Ad::float_mul(x.clone(), x.clone());
/// let [dx, du] = grads_or_zeros::<Ad>(y, &[x, unused])?.try_into().unwrap();
/// # let read = |t| burn_backend::read_sync(burn_flex::Flex::float_into_data(t)).unwrap().try_to_vec::<f32>().unwrap();
/// assert_eq!((read(dx), read(du)), (vec![6.0], vec![0.0]));
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn grads_or_zeros<B: AutodiffBackend>(
    output: FloatTensor<B>,
    wrt: &[FloatTensor<B>],
) -> Result<Vec<FloatTensor<B::InnerBackend>>> {
    let gradients = backward::<B>(output)?;
    Ok(wrt
        .iter()
        .map(|tensor| {
            B::grad(tensor, &gradients).unwrap_or_else(|| {
                <B::InnerBackend as FloatTensorOps<B::InnerBackend>>::float_zeros(
                    tensor.shape(),
                    &tensor.device(),
                    FloatDType::from(tensor.dtype()),
                )
            })
        })
        .collect())
}

fn backward<B: AutodiffBackend>(output: FloatTensor<B>) -> Result<B::Gradients> {
    panic::catch("grad", || {
        let scalar = if output.shape().num_elements() == 1 {
            output
        } else {
            B::float_sum(output)
        };
        B::backward(scalar)
    })
}

/// The gradient of `sum(output)` w.r.t. `wrt`, as a tensor of the inner backend, kept
/// differentiable when the inner backend is autodiff.
///
/// # Errors
///
/// As [`grads`].
///
/// ```
/// use burn_backend::ops::FloatTensorOps;
/// use burn_backend::TensorData;
/// use burn_guard::backend::{grad, track};
/// type Inner = burn_autodiff::Autodiff<burn_flex::Flex>;
/// type Outer = burn_autodiff::Autodiff<Inner>;
///
/// // y = x³: dy/dx = 3x² (kept differentiable), d²y/dx² = 6x.
/// let device = Default::default();
/// let x_inner = track::<Inner>(burn_flex::Flex::float_from_data(TensorData::new(vec![2.0f32], [1]), &device));
/// let x = track::<Outer>(x_inner.clone());
/// let y = Outer::float_mul(Outer::float_mul(x.clone(), x.clone()), x.clone());
/// let dy = grad::<Outer>(y, &x)?;
/// let d2y = grad::<Inner>(dy, &x_inner)?;
/// # let d2y = burn_backend::read_sync(burn_flex::Flex::float_into_data(d2y)).unwrap();
/// assert_eq!(d2y.try_to_vec::<f32>().unwrap(), vec![12.0]);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn grad<B: AutodiffBackend>(
    output: FloatTensor<B>,
    wrt: &FloatTensor<B>,
) -> Result<FloatTensor<B::InnerBackend>> {
    grads::<B>(output, std::slice::from_ref(wrt))?
        .into_iter()
        .next()
        .ok_or_else(|| GuardError::InvalidArgument {
            op: "grad",
            rule: "the tensor must receive a gradient",
            got: "none".to_owned(),
        })
}
