//! Twin of burn's `linear` in `burn::tensor::module`: the one linear rule
//! (`check::linear::linear_features`) that every linear layer shares.

use burn::tensor::Tensor;
use burn::tensor::module as burn_module;

use crate::check::linear;
use crate::error::Result;
use crate::panic::catch;

/// Fallible twin of [`burn_module::linear`].
///
/// Checks — all beyond burn, which leaves them to the backend for a float weight — that
/// `input[.., k]` matches `weight[k, n]`, that `bias` has shape `[n]`, that every tensor is on
/// the same device, and that a rank-1 input is not empty (burn's `unsqueeze` panics on a
/// zero-sized dim: a burn bug, refused here).
///
/// An empty output, or an empty inner dimension `k`, is computed here without dispatching the
/// matmul (zeros, plus the bias): NdArray's matmul divides by zero on an empty operand.
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with the shapes involved.
/// - [`GuardError::Empty`](crate::GuardError::Empty) for an empty rank-1 input.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::module::try_linear;
///
/// let device = Device::flex();
/// let x = Tensor::<2>::ones([2, 3], &device);
/// let y = try_linear(x.clone(), Tensor::ones([3, 5], &device), Some(Tensor::zeros([5], &device)))?;
/// assert_eq!(y.dims(), [2, 5]);
/// assert!(try_linear(x, Tensor::ones([4, 5], &device), None).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "linear")]
pub fn try_linear<const D: usize>(
    input: Tensor<D>,
    weight: Tensor<2>,
    bias: Option<Tensor<1>>,
) -> Result<Tensor<D>> {
    const OP: &str = "linear";
    // Shapes on the stack and devices compared pairwise: this runs on every layer's forward.
    let bias_dims = bias.as_ref().map(Tensor::dims);
    let input_dims = input.dims();
    let d_output = linear::linear_features(
        OP,
        &input_dims,
        &weight.dims(),
        bias_dims.as_ref().map(|d| &d[..]),
    )?
    .d_output;
    // The output: the input's leading dims, then `d_output` (the rule refused rank 0).
    let mut out = input_dims;
    if let Some(last) = out.last_mut() {
        *last = d_output;
    }
    let device = input.device();
    crate::capability::same_device(OP, &device, &weight.device())?;
    if let Some(bias) = &bias {
        crate::capability::same_device(OP, &device, &bias.device())?;
    }
    let empty_output = out.contains(&0);
    let empty_inner = input_dims.last() == Some(&0);
    if empty_output || empty_inner {
        // NdArray's matmul divides by zero on an empty operand; the result is known without it.
        return catch(OP, || {
            let device = input.device();
            let dtype = input.dtype();
            let zeros = if dtype.is_float() {
                Tensor::<D>::zeros(out, (&device, dtype))
            } else {
                Tensor::<D>::zeros(out, &device)
            };
            match bias {
                Some(bias) if !empty_output => zeros + bias.unsqueeze::<D>(),
                _ => zeros,
            }
        });
    }
    catch(OP, || burn_module::linear(input, weight, bias))
}
