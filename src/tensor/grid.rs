//! Twins of burn's free functions in `burn::tensor::grid`: `affine_grid_2d`, `meshgrid` and
//! `meshgrid_stack`.

use burn::tensor::grid::{GridOptions, GridSparsity, IndexPos};
use burn::tensor::kind::Basic;
use burn::tensor::{Tensor, grid};

use crate::check;
use crate::error::Result;
use crate::panic::catch;

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

/// Fallible twin of [`burn::tensor::grid::meshgrid`].
///
/// Checks that no input is empty where burn would fail: any input of a dense grid, or an input
/// after the first of a sparse grid (burn's reshape reads a 0 as "keep the source dim", and its
/// expand refuses 0).
///
/// # Errors
///
/// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) naming the empty input.
///
/// ```
/// use burn::tensor::grid::GridOptions;
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::grid::try_meshgrid;
///
/// let device = Device::flex();
/// let x = Tensor::<1>::from_floats([1.0, 2.0], &device);
/// let y = Tensor::<1>::from_floats([3.0, 4.0, 5.0], &device);
/// let [gx, gy] = try_meshgrid(&[x.clone(), y], GridOptions::default())?;
/// assert_eq!((gx.dims(), gy.dims()), ([2, 3], [2, 3]));
/// assert!(try_meshgrid(&[x, Tensor::<1>::zeros([0], &device)], GridOptions::default()).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "meshgrid")]
pub fn try_meshgrid<const N: usize, K, O>(
    tensors: &[Tensor<1, K>; N],
    options: O,
) -> Result<[Tensor<N, K>; N]>
where
    K: Basic,
    O: Into<GridOptions>,
{
    const OP: &str = "meshgrid";
    let options: GridOptions = catch(OP, || options.into())?;
    let lengths = lengths(tensors);
    check::grid::meshgrid(OP, &lengths, options.sparsity == GridSparsity::Dense)?;
    catch(OP, || burn::tensor::grid::meshgrid(tensors, options))
}

/// Fallible twin of [`burn::tensor::grid::meshgrid_stack`].
///
/// Checks that `D2 == D + 1`, that there is at least one input and none is empty, and — beyond
/// burn, whose `stack` does not check it — that every input is on the first one's device.
///
/// # Errors
///
/// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) when `D2 != D + 1`.
/// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for no input; [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for an empty one.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::grid::IndexPos;
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::grid::try_meshgrid_stack;
///
/// let device = Device::flex();
/// let x = Tensor::<1>::from_floats([1.0, 2.0], &device);
/// let y = Tensor::<1>::from_floats([3.0, 4.0, 5.0], &device);
/// let grid: Tensor<3> = try_meshgrid_stack(&[x.clone(), y.clone()], IndexPos::Last)?;
/// assert_eq!(grid.dims(), [2, 3, 2]);
/// assert!(try_meshgrid_stack::<2, 2, _>(&[x, y], IndexPos::Last).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "meshgrid_stack")]
pub fn try_meshgrid_stack<const D: usize, const D2: usize, K>(
    tensors: &[Tensor<1, K>; D],
    index_pos: IndexPos,
) -> Result<Tensor<D2, K>>
where
    K: Basic,
{
    const OP: &str = "meshgrid_stack";
    let lengths = lengths(tensors);
    check::grid::meshgrid_stack(OP, &lengths, D2)?;
    if let Some((first, rest)) = tensors.split_first() {
        let device = first.device();
        for tensor in rest {
            crate::capability::same_device(OP, &device, &tensor.device())?;
        }
    }
    catch(OP, || {
        burn::tensor::grid::meshgrid_stack::<D, D2, K>(tensors, index_pos)
    })
}

/// The length of each one-dimensional input.
fn lengths<K: Basic>(tensors: &[Tensor<1, K>]) -> Vec<usize> {
    tensors
        .iter()
        .map(|t| {
            let [length] = t.dims();
            length
        })
        .collect()
}
