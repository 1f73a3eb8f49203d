//! Twins of burn's free functions in `burn::tensor::activation`: the softmax family (one
//! table row per function), `glu` and `prelu`.
//!
//! burn checks `dim` for the softmax family and `glu`'s even split, and leaves the rest to the
//! backend: NdArray panics reducing an empty axis, and `prelu` reshapes its weights without
//! checking their device or a zero channel count. The twins refuse or answer those first.

use burn::tensor::{AsIndex, Tensor, activation};

use super::same_devices;
use crate::check;
use crate::error::Result;
use crate::panic::catch;

/// One row per softmax-like function, all `(tensor, dim)` over one axis: the twin and burn's
/// function (its op name), what panics on an empty axis; then the doc example's lines.
macro_rules! softmax_twins {
    ($(fn $twin:ident = $burn:ident($op:literal), empty $empty:literal;
        example $($line:literal)*;)*) => {$(
        #[doc = concat!("Fallible twin of [`activation::", $op, "`].")]
        ///
        /// Checks that `dim` is in `-D..D`. An empty tensor is returned as is, without dispatch
        #[doc = concat!("(", $empty, ").")]
        ///
        /// # Errors
        ///
        /// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
        ///
        /// ```
        /// use burn::tensor::{Device, Tensor};
        #[doc = concat!("use burn_guard::tensor::activation::", stringify!($twin), ";")]
        ///
        /// let t = Tensor::<2>::ones([2, 4], &Device::flex());
        $(#[doc = $line])*
        /// # Ok::<(), burn_guard::GuardError>(())
        /// ```
        #[doc(alias = $op)]
        pub fn $twin<const D: usize>(tensor: Tensor<D>, dim: impl AsIndex) -> Result<Tensor<D>> {
            const OP: &str = $op;
            let dim = check::dim(OP, dim.as_index(), D)?;
            if tensor.shape().num_elements() == 0 {
                // The result is the empty tensor itself.
                return Ok(tensor);
            }
            catch(OP, || activation::$burn(tensor, dim))
        }
    )*};
}

softmax_twins! {
    fn try_softmax = softmax("softmax"), empty "NdArray panics reducing an empty axis";
        example "assert_eq!(try_softmax(t.clone(), -1)?.dims(), [2, 4]);"
        "assert!(try_softmax(t, 2).is_err());";
    fn try_softmin = softmin("softmin"), empty "NdArray panics reducing an empty axis";
        example "assert_eq!(try_softmin(t.clone(), 0)?.dims(), [2, 4]);"
        "assert!(try_softmin(t, -3).is_err());";
    fn try_quiet_softmax = quiet_softmax("quiet_softmax"), empty "burn's own `max_dim` inside `quiet_softmax` panics on an empty axis, on Flex and NdArray";
        example "assert_eq!(try_quiet_softmax(t.clone(), 1)?.dims(), [2, 4]);"
        "assert!(try_quiet_softmax(t, 2).is_err());";
    fn try_log_softmax = log_softmax("log_softmax"), empty "NdArray panics reducing an empty axis";
        example "assert_eq!(try_log_softmax(t.clone(), -1)?.dims(), [2, 4]);"
        "let err = try_log_softmax(t, 5).unwrap_err();"
        "assert_eq!(err.to_string(), \"log_softmax: dimension out of range; got dim 5 for rank 2\");";
}

/// Fallible twin of [`activation::glu`].
///
/// Checks that `dim` is in `-D..D` and that the size along it is even.
///
/// # Errors
///
/// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
/// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for an odd size.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::activation::try_glu;
///
/// let t = Tensor::<2>::ones([2, 4], &Device::flex());
/// assert_eq!(try_glu(t.clone(), 1)?.dims(), [2, 2]);
/// assert!(try_glu(Tensor::<2>::ones([2, 3], &Device::flex()), 1).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "glu")]
pub fn try_glu<const D: usize>(tensor: Tensor<D>, dim: impl AsIndex) -> Result<Tensor<D>> {
    const OP: &str = "glu";
    let (dim, _) = check::activation::glu(OP, &tensor.dims(), dim.as_index())?;
    catch(OP, || activation::glu(tensor, dim))
}

/// Fallible twin of [`activation::prelu`].
///
/// Checks that `alpha` holds one weight, or (rank ≥ 2) one weight per channel (`dims[1]`),
/// and — beyond burn — that both are on the same device, and that the channel count is not 0
/// (burn's reshape of the weights panics on a zero-sized dim: a burn bug, refused here).
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with both shapes.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::activation::try_prelu;
///
/// let device = Device::flex();
/// let t = Tensor::<3>::ones([2, 3, 4], &device);
/// assert!(try_prelu(t.clone(), Tensor::<1>::ones([3], &device)).is_ok());
/// assert!(try_prelu(t, Tensor::<1>::ones([2], &device)).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "prelu")]
pub fn try_prelu<const D: usize>(tensor: Tensor<D>, alpha: Tensor<1>) -> Result<Tensor<D>> {
    const OP: &str = "prelu";
    check::activation::prelu(OP, &tensor.dims(), &alpha.dims())?;
    same_devices(OP, &[tensor.device(), alpha.device()])?;
    catch(OP, || activation::prelu(tensor, alpha))
}
