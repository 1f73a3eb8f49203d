//! The linear layer at the backend level, with a backward built from differentiable primitives.

use burn_backend::tensor::FloatTensor;
use burn_backend::{Backend, Shape, TensorMetadata};

use crate::capability::BackendStack;
use crate::check;
use crate::error::Result;
use crate::panic;

/// The gradients of `linear(x, weight, bias)` for a given output gradient.
pub struct LinearGrads<B: Backend> {
    /// The input's gradient, shaped like `x`.
    pub x: FloatTensor<B>,
    /// The weight's gradient, `[d_input, d_output]`.
    pub weight: FloatTensor<B>,
    /// The bias's gradient, `[d_output]`, when the layer has a bias.
    pub bias: Option<FloatTensor<B>>,
}

impl<B: Backend> std::fmt::Debug for LinearGrads<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinearGrads")
            .field("x", &self.x.shape())
            .field("weight", &self.weight.shape())
            .field("bias", &self.bias.as_ref().map(TensorMetadata::shape))
            .finish()
    }
}

/// Whether burn's own `linear` cannot be differentiated on `B`'s stack to the order it offers:
/// nested autodiff (two or more `Autodiff` layers), where burn-autodiff's
/// `linear_*_backward` panic (`Can't differentiate linear_x_backward.`).
///
/// ```
/// use burn_guard::backend::linear_needs_decomposition;
/// type Nested = burn_autodiff::Autodiff<burn_autodiff::Autodiff<burn_flex::Flex>>;
/// type Plain = burn_autodiff::Autodiff<burn_flex::Flex>;
/// assert!(linear_needs_decomposition::<Nested>(&Default::default()));
/// assert!(!linear_needs_decomposition::<Plain>(&Default::default()));
/// ```
pub fn linear_needs_decomposition<B: Backend>(device: &B::Device) -> bool {
    BackendStack::cached::<B>(device).autodiff_depth() >= 2
}

fn reshape<B: Backend>(tensor: FloatTensor<B>, dims: &[usize]) -> FloatTensor<B> {
    if tensor.shape().as_slice() == dims {
        tensor
    } else {
        B::float_reshape(tensor, Shape::from(dims.to_vec()))
    }
}

/// Applies a linear transformation like burn's `linear`: `y = x @ weight [+ bias]`.
///
/// `x` is `[..., d_input]` (rank 1 or more), `weight` is `[d_input, d_output]` (burn's layout,
/// not PyTorch's transposed one), `bias` is `[d_output]`; the result is `[..., d_output]`.
///
/// On a stack whose linear backward burn cannot differentiate (nested autodiff, see
/// [`linear_needs_decomposition`]) the layer is computed by [`linear_decomposed`], so that its
/// gradients flow through the same matmul / transpose / sum operations as
/// [`linear_backward`] and can be differentiated again. Elsewhere it calls burn's own `linear`
/// (a rank-1 input is given a leading batch dimension of 1 first, as burn's tensor API does).
///
/// # Errors
///
/// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) /
///   [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) /
///   [`GuardError::Empty`](crate::GuardError::Empty) (an empty rank-1 `x`, where burn's
///   `linear` panics) from [`check::linear::linear`], the rule every linear in the crate follows,
///   before anything is dispatched.
/// - [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if the backend still panics.
///
/// ```
/// use burn_backend::ops::FloatTensorOps;
/// use burn_backend::TensorData;
/// use burn_flex::Flex;
///
/// let device = Default::default();
/// let x = Flex::float_from_data(TensorData::new(vec![1.0f32, 2.0], [1, 2]), &device);
/// let w = Flex::float_from_data(TensorData::new(vec![1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0], [2, 3]), &device);
/// let y = burn_guard::backend::linear::<Flex>(x, w, None)?;
/// let values = Flex::float_into_data(y);
/// # let values = burn_backend::read_sync(values).unwrap();
/// assert_eq!(values.try_to_vec::<f32>().unwrap(), vec![3.0, 2.0, 2.0]);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn linear<B: Backend>(
    x: FloatTensor<B>,
    weight: FloatTensor<B>,
    bias: Option<FloatTensor<B>>,
) -> Result<FloatTensor<B>> {
    if linear_needs_decomposition::<B>(&x.device()) {
        return linear_decomposed::<B>(x, weight, bias);
    }
    let shapes = linear_shapes::<B>(&x, &weight, bias.as_ref())?;
    panic::catch(LINEAR, || {
        if shapes.x.len() == 1 {
            let x = reshape::<B>(x, &[1, shapes.d_input]);
            let y = B::linear(x, weight, bias);
            reshape::<B>(y, &shapes.output)
        } else {
            B::linear(x, weight, bias)
        }
    })
}

/// [`linear`] computed from differentiable primitives on every stack: the leading dimensions are
/// folded into rows, then `float_matmul`, `float_add` of the bias as `[1, d_output]`, and a
/// reshape back. Its autodiff backward is matmul's, which nested autodiff differentiates again.
///
/// # Errors
///
/// As [`linear`].
///
/// ```
/// use burn_backend::ops::FloatTensorOps;
/// use burn_backend::TensorData;
/// use burn_flex::Flex;
///
/// let device = Default::default();
/// let x = Flex::float_from_data(TensorData::new(vec![1.0f32, 2.0], [2]), &device);
/// let w = Flex::float_from_data(TensorData::new(vec![1.0f32, 0.0, 0.0, 1.0], [2, 2]), &device);
/// let b = Flex::float_from_data(TensorData::new(vec![0.5f32, -0.5], [2]), &device);
/// let y = burn_guard::backend::linear_decomposed::<Flex>(x, w, Some(b))?;
/// # let values = burn_backend::read_sync(Flex::float_into_data(y)).unwrap();
/// assert_eq!(values.try_to_vec::<f32>().unwrap(), vec![1.5, 1.5]);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn linear_decomposed<B: Backend>(
    x: FloatTensor<B>,
    weight: FloatTensor<B>,
    bias: Option<FloatTensor<B>>,
) -> Result<FloatTensor<B>> {
    let shapes = linear_shapes::<B>(&x, &weight, bias.as_ref())?;
    panic::catch(LINEAR, || decomposed::<B>(x, weight, bias, &shapes))
}

/// The operation's name in the errors of [`linear`] and [`linear_decomposed`].
const LINEAR: &str = "linear";

/// The one linear rule ([`check::linear::linear`]) on the operands' shapes.
fn linear_shapes<B: Backend>(
    x: &FloatTensor<B>,
    weight: &FloatTensor<B>,
    bias: Option<&FloatTensor<B>>,
) -> Result<check::linear::LinearShapes> {
    let bias = bias.map(TensorMetadata::shape);
    check::linear::linear(LINEAR, &x.shape(), &weight.shape(), bias.as_deref())
}

fn decomposed<B: Backend>(
    x: FloatTensor<B>,
    weight: FloatTensor<B>,
    bias: Option<FloatTensor<B>>,
    shapes: &check::linear::LinearShapes,
) -> FloatTensor<B> {
    let x = reshape::<B>(x, &[shapes.rows, shapes.d_input]);
    let mut y = B::float_matmul(x, weight);
    if let Some(bias) = bias {
        y = B::float_add(y, reshape::<B>(bias, &[1, shapes.d_output]));
    }
    reshape::<B>(y, &shapes.output)
}

/// The gradients of `linear(x, weight, bias)` given the gradient of its output, computed with
/// differentiable primitives only (`float_matmul`, `float_swap_dims`, `float_sum_dim`,
/// `float_reshape`), so that on an autodiff backend the gradients are themselves differentiable.
///
/// - `x`'s gradient: `output_grad @ weightᵀ`, shaped like `x`;
/// - `weight`'s gradient: `xᵀ @ output_grad` with every leading dimension summed;
/// - `bias`'s gradient (when `bias_present`): `output_grad` summed over every leading dimension.
///
/// # Errors
///
/// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) /
///   [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) from
///   [`check::linear::linear_backward`], before anything is dispatched.
/// - [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if the backend still panics.
///
/// ```
/// use burn_backend::ops::FloatTensorOps;
/// use burn_backend::TensorData;
/// use burn_flex::Flex;
///
/// let device = Default::default();
/// let x = Flex::float_from_data(TensorData::new(vec![1.0f32, 2.0], [1, 2]), &device);
/// let w = Flex::float_from_data(TensorData::new(vec![1.0f32, 2.0, 3.0, 4.0], [2, 2]), &device);
/// let g = Flex::float_from_data(TensorData::new(vec![1.0f32, 1.0], [1, 2]), &device);
/// let grads = burn_guard::backend::linear_backward::<Flex>(x, w, true, g)?;
/// # let read = |t| burn_backend::read_sync(Flex::float_into_data(t)).unwrap().try_to_vec::<f32>().unwrap();
/// assert_eq!(read(grads.x), vec![3.0, 7.0]);
/// assert_eq!(read(grads.weight), vec![1.0, 1.0, 2.0, 2.0]);
/// assert_eq!(read(grads.bias.unwrap()), vec![1.0, 1.0]);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn linear_backward<B: Backend>(
    x: FloatTensor<B>,
    weight: FloatTensor<B>,
    bias_present: bool,
    output_grad: FloatTensor<B>,
) -> Result<LinearGrads<B>> {
    const OP: &str = "linear_backward";
    let shapes = check::linear::linear_backward(
        OP,
        x.shape().as_slice(),
        weight.shape().as_slice(),
        output_grad.shape().as_slice(),
    )?;
    panic::catch(OP, || {
        let grad = reshape::<B>(output_grad, &[shapes.rows, shapes.d_output]);
        let x = reshape::<B>(x, &[shapes.rows, shapes.d_input]);
        let dx = B::float_matmul(grad.clone(), B::float_swap_dims(weight, 0, 1));
        let dx = reshape::<B>(dx, &shapes.x);
        let dweight = B::float_matmul(B::float_swap_dims(x, 0, 1), grad.clone());
        let dbias =
            bias_present.then(|| reshape::<B>(B::float_sum_dim(grad, 0), &[shapes.d_output]));
        LinearGrads {
            x: dx,
            weight: dweight,
            bias: dbias,
        }
    })
}
