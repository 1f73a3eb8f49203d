//! Twins of burn's free functions in `burn::tensor::loss`: `cross_entropy_with_logits`.

use burn::tensor::{Tensor, loss};

use super::same_devices;
use crate::check;
use crate::error::Result;
use crate::panic::catch;

/// Fallible twin of [`loss::cross_entropy_with_logits`].
///
/// Checks that the shapes broadcast and the tensors are on the same device (burn's `mul`
/// check).
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with both shapes.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::loss::try_cross_entropy_with_logits;
///
/// let device = Device::flex();
/// let logits = Tensor::<2>::ones([2, 3], &device);
/// let loss = try_cross_entropy_with_logits(logits.clone(), Tensor::ones([2, 3], &device))?;
/// assert_eq!(loss.dims(), [1]);
/// assert!(try_cross_entropy_with_logits(logits, Tensor::ones([2, 4], &device)).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "cross_entropy_with_logits")]
pub fn try_cross_entropy_with_logits<const D: usize>(
    logits: Tensor<D>,
    target_probs: Tensor<D>,
) -> Result<Tensor<1>> {
    const OP: &str = "cross_entropy_with_logits";
    check::loss::cross_entropy_with_logits(OP, &logits.dims(), &target_probs.dims())?;
    same_devices(OP, &[logits.device(), target_probs.device()])?;
    catch(OP, || loss::cross_entropy_with_logits(logits, target_probs))
}
