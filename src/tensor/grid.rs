//! Twins of burn's free functions in `burn::tensor::grid`: `affine_grid_2d` here, and
//! `meshgrid`/`meshgrid_stack` from [`TryView`](super::TryView)'s file.

use burn::tensor::{Tensor, grid};

use crate::check;
use crate::error::Result;
use crate::panic::catch;

pub use super::view::{try_meshgrid, try_meshgrid_stack};

/// Fallible twin of [`grid::affine_grid_2d`].
///
/// Simulates burn's construction: `batch`, `height` and `width` must be non-zero (burn's
/// `reshape`/`expand` panic on 0: a burn bug for width or height 0, refused here), each entry
/// `transform[.., i, j]` must broadcast against `[batch, height, width]`, and the two grids
/// must have equal shapes. A `[batch, 2, 3]` (or `[1, 2, 3]`) transform always passes.
///
/// # Errors
///
/// - [`GuardError::Empty`](crate::GuardError::Empty) for a zero size.
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for a transform that does
///   not fit.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::grid::try_affine_grid_2d;
///
/// let transform = Tensor::<3>::ones([2, 2, 3], &Device::flex());
/// assert_eq!(try_affine_grid_2d(transform.clone(), [2, 1, 4, 5])?.dims(), [2, 4, 5, 2]);
/// assert!(try_affine_grid_2d(transform, [2, 1, 0, 5]).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "affine_grid_2d")]
pub fn try_affine_grid_2d(transform: Tensor<3>, dims: [usize; 4]) -> Result<Tensor<4>> {
    const OP: &str = "affine_grid_2d";
    check::grid::affine_grid_2d(OP, &transform.dims(), dims)?;
    catch(OP, || grid::affine_grid_2d(transform, dims))
}
