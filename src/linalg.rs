//! Fallible twins of burn-linalg's functions (`burn::linalg` under burn's `linalg` feature;
//! the crate itself, `burn_linalg`, here): each runs the rule of
//! [`check::linalg`](crate::check::linalg) that mirrors burn's `TensorCheck` or `assert!`, then
//! burn's function under the backstop.
//!
//! Feature `linalg` (default). It adds no crate to the build: burn-nn already depends on
//! burn-linalg; this crate turns on burn-linalg's `flex` and `ndarray` features with its own
//! (a rebuild of burn-linalg, burn-nn and burn only). Every function but `svd` composes burn
//! tensor ops and runs on every backend; `svd`, burn-linalg's one backend extension, runs on
//! Flex and NdArray ([`svd_support`]), is refused elsewhere by [`try_svd`], and falls back to a
//! capable device under a policy with [`try_svd_with`].
//!
//! ```
//! use burn::tensor::{Device, Tensor};
//! use burn_guard::linalg::try_det;
//! use burn_guard::prelude::*;
//!
//! let device = Device::flex();
//! let m = Tensor::<2>::from_floats([[2.0, 0.0], [0.0, 3.0]], &device);
//! // burn's det needs a batch dimension: a plain matrix is refused, with the fix.
//! let err = try_det::<2, 1, 0>(m.clone()).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::RankMismatch);
//! assert!(err.to_string().contains("unsqueeze_dim(0)"));
//! let det = try_det::<3, 2, 1>(m.unsqueeze_dim(0))?;
//! assert_eq!(det.into_data().to_vec::<f32>().unwrap(), [6.0]);
//! # Ok::<(), burn_guard::GuardError>(())
//! ```

use burn::tensor::kind::{Basic, Numeric, Ordered};
use burn::tensor::{AsIndex, ElementConversion, Tensor};
pub use burn_linalg::Norm;

use crate::capability::{BackendStack, Layer, Support, stack_of};
use crate::check::linalg as rules;
#[cfg(doc)]
use crate::error::GuardError;
use crate::error::Result;
use crate::gap::{Effect, Gap};
use crate::panic::catch;
use crate::policy::Op;
use crate::tensor::same_devices;

/// Fallible twin of [`burn_linalg::det`]: burn-linalg's check (rank ≥ 3, `D1 = D - 1`,
/// `D2 = D - 2`, square, not quantized, [`check::linalg::det`](crate::check::linalg::det)),
/// and the empty inputs its LU path panics on.
///
/// # Errors
///
/// What [`check::linalg::det`](crate::check::linalg::det) returns; a backend panic as
/// [`GuardError::BackendPanic`].
pub fn try_det<const D: usize, const D1: usize, const D2: usize>(
    tensor: Tensor<D>,
) -> Result<Tensor<D2>> {
    const OP: &str = "det";
    rules::det(OP, &tensor.dims(), tensor.dtype(), D1, D2)?;
    catch(OP, || burn_linalg::det::<D, D1, D2>(tensor))
}

/// Fallible twin of [`burn_linalg::diag`]: rank ≥ 2 and `DO = D - 1`.
///
/// # Errors
///
/// [`GuardError::RankMismatch`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::linalg::try_diag;
///
/// let m = Tensor::<2>::from_floats([[1.0, 2.0], [3.0, 4.0]], &Device::flex());
/// assert_eq!(try_diag::<2, 1, _>(m.clone())?.into_data().to_vec::<f32>().unwrap(), [1.0, 4.0]);
/// assert!(try_diag::<2, 2, _>(m).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_diag<const D: usize, const DO: usize, K: Basic>(
    tensor: Tensor<D, K>,
) -> Result<Tensor<DO, K>> {
    const OP: &str = "diag";
    rules::diag(OP, &tensor.dims(), DO)?;
    catch(OP, || burn_linalg::diag::<D, DO, K>(tensor))
}

/// Fallible twin of [`burn_linalg::trace`]: `diag`'s rule (rank ≥ 2, `DO = D - 1`).
///
/// # Errors
///
/// [`GuardError::RankMismatch`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::linalg::try_trace;
///
/// let m = Tensor::<2>::from_floats([[1.0, 2.0], [3.0, 4.0]], &Device::flex());
/// assert_eq!(try_trace::<2, 1>(m.clone())?.into_data().to_vec::<f32>().unwrap(), [5.0]);
/// assert!(try_trace::<2, 2>(m).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_trace<const D: usize, const DO: usize>(tensor: Tensor<D>) -> Result<Tensor<DO>> {
    const OP: &str = "trace";
    rules::diag(OP, &tensor.dims(), DO)?;
    catch(OP, || burn_linalg::trace::<D, DO>(tensor))
}

/// Fallible twin of [`burn_linalg::lu`]: a matrix input, `D1 = D - 1`, no empty matrix or
/// batch ([`check::linalg::lu`](crate::check::linalg::lu)).
///
/// # Errors
///
/// What [`check::linalg::lu`](crate::check::linalg::lu) returns; a backend panic as
/// [`GuardError::BackendPanic`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::linalg::try_lu;
///
/// let m = Tensor::<2>::from_floats([[4.0, 3.0], [6.0, 3.0]], &Device::flex());
/// let (_l, _u, _p) = try_lu::<2, 1>(m.clone())?;
/// assert!(try_lu::<2, 2>(m).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_lu<const D: usize, const D1: usize>(
    tensor: Tensor<D>,
) -> Result<(Tensor<D>, Tensor<D>, Tensor<D>)> {
    const OP: &str = "lu";
    rules::lu(OP, &tensor.dims(), tensor.dtype(), D1)?;
    catch(OP, || burn_linalg::lu::<D, D1>(tensor))
}

/// Fallible twin of [`burn_linalg::qr`]: a matrix input with rows and a non-empty batch
/// ([`check::linalg::qr`](crate::check::linalg::qr)).
///
/// # Errors
///
/// What [`check::linalg::qr`](crate::check::linalg::qr) returns; a backend panic as
/// [`GuardError::BackendPanic`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::linalg::try_qr;
///
/// let device = Device::flex();
/// let (q, r) = try_qr(Tensor::<2>::from_floats([[1.0, 2.0], [3.0, 4.0]], &device), false)?;
/// assert_eq!((q.dims(), r.dims()), ([2, 2], [2, 2]));
/// assert!(try_qr(Tensor::<1>::ones([3], &device), false).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_qr<const D: usize>(tensor: Tensor<D>, reduced: bool) -> Result<(Tensor<D>, Tensor<D>)> {
    const OP: &str = "qr";
    rules::qr(OP, &tensor.dims(), tensor.dtype())?;
    catch(OP, || burn_linalg::qr::<D>(tensor, reduced))
}

/// Whether the backend stack of `device` computes burn-linalg's `svd`: Flex and NdArray do
/// (burn-linalg's host pipeline; this crate turns on burn-linalg's `flex` and `ndarray`
/// features with its own); an autodiff stack does not (burn-linalg's `LinalgOps` lists no
/// `Autodiff`, so any tensor of an autodiff device panics, detached or not); CubeCL, remote
/// and unknown stacks do not in this build (burn-linalg's `wgpu` feature needs burn's
/// `fusion`, which would rebuild the stack and change the remote backend).
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::capability::Support;
/// use burn_guard::linalg::svd_support;
///
/// assert_eq!(svd_support(&Device::flex()), Support::Native);
/// assert!(matches!(svd_support(&Device::flex().autodiff()), Support::Gap(_)));
/// ```
pub fn svd_support(device: &burn::tensor::Device) -> Support {
    svd_support_of(stack_of(device))
}

/// [`svd_support`] for a backend stack (`capabilities`' report asks it for each backend).
///
/// ```
/// use burn_guard::capability::{BackendStack, Support};
/// use burn_guard::linalg::svd_support_of;
///
/// assert_eq!(svd_support_of(&BackendStack::parse("ndarray")), Support::Native);
/// assert!(!svd_support_of(&BackendStack::parse("fusion<cubecl<wgpu<wgsl>>>")).is_native());
/// ```
pub fn svd_support_of(stack: &BackendStack) -> Support {
    if stack.autodiff_depth() > 0 {
        return Support::Gap(Gap::new(
            Effect::Unimplemented,
            "burn-linalg's svd has no autodiff implementation: any tensor of an autodiff \
             device panics, detached or not (move it to the inner device first)",
        ));
    }
    match stack.base() {
        Some(Layer::Flex | Layer::NdArray) => Support::Native,
        _ => Support::Gap(Gap::new(
            Effect::Unimplemented,
            "burn-linalg's svd is a backend extension; this build enables it for Flex and \
             NdArray only (its CubeCL arm needs burn's fusion feature, its router arm \
             burn-linalg's remote feature)",
        )),
    }
}

/// Fallible twin of [`burn_linalg::svd`]: its rules (a matrix input, `D1 = D - 1`, at least
/// one sweep, no grad: [`check::linalg::svd`](crate::check::linalg::svd)), then the backend's
/// capability ([`svd_support`]): where burn would panic "Backend not supported" (wgpu, remote,
/// an autodiff device), [`GuardError::Unsupported`]. [`try_svd_with`] falls back instead.
///
/// # Errors
///
/// What [`check::linalg::svd`](crate::check::linalg::svd) returns;
/// [`GuardError::Unsupported`]; a non-convergence (NaN or ±inf input) as
/// [`GuardError::BackendPanic`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::linalg::try_svd;
/// use burn_guard::prelude::*;
///
/// let m = Tensor::<2>::from_floats([[3.0, 0.0], [0.0, 2.0], [0.0, 0.0]], &Device::flex());
/// let (_u, s, _vt) = try_svd::<2, 1>(m.clone(), 16)?;
/// assert_eq!(s.into_data().to_vec::<f32>().unwrap(), [3.0, 2.0]);
/// assert_eq!(try_svd::<2, 1>(m, 0).unwrap_err().kind(), ErrorKind::OutOfRange);
/// # Ok::<(), GuardError>(())
/// ```
pub fn try_svd<const D: usize, const D1: usize>(
    tensor: Tensor<D>,
    sweeps: usize,
) -> Result<(Tensor<D>, Tensor<D1>, Tensor<D>)> {
    try_svd_with(tensor, sweeps, crate::policy::Policy::shared_strict())
}

/// [`try_svd`] under `policy`: on a device without svd (wgpu, remote), when the policy allows
/// [`Op::Svd`](crate::policy::Op), the input moves to the policy's first device that has
/// it (Flex, say), the factors are computed there and moved back, counted in the policy's
/// statistics with the bytes moved.
///
/// # Errors
///
/// As [`try_svd`]; [`GuardError::Unsupported`] naming every fallback's gap when none can.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::linalg::try_svd_with;
/// use burn_guard::policy::{Op, Policy};
///
/// let policy = Policy::fallback_to([Device::flex()]);
/// let m = Tensor::<2>::ones([3, 2], &Device::flex());
/// let (u, s, vt) = try_svd_with::<2, 1>(m, 16, &policy)?;
/// assert_eq!((u.dims(), s.dims(), vt.dims()), ([3, 2], [2], [2, 2]));
/// assert_eq!(policy.stats_of(Op::Svd).native, 1);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_svd_with<const D: usize, const D1: usize>(
    tensor: Tensor<D>,
    sweeps: usize,
    policy: &crate::policy::Policy,
) -> Result<(Tensor<D>, Tensor<D1>, Tensor<D>)> {
    const OP: &str = "svd";
    const ROUTED: Op = Op::Svd;
    policy.checked(
        ROUTED,
        rules::svd(
            OP,
            &tensor.dims(),
            tensor.dtype(),
            D1,
            sweeps,
            tensor.is_require_grad(),
        ),
    )?;
    let home = tensor.device();
    const EXTENSION: crate::transfer::Extension = crate::transfer::Extension {
        routed: ROUTED,
        family: "linalg",
        support: svd_support,
    };
    EXTENSION.run(OP, policy, &home, |trip| {
        let moved = trip.out(tensor)?;
        let (u, s, vt) = catch(OP, || burn_linalg::svd::<D, D1>(moved, sweeps))?;
        Ok((trip.back(u)?, trip.back(s)?, trip.back(vt)?))
    })
}

/// Fallible twin of [`burn_linalg::matvec`]: the matrix of rank ≥ 2, the vector one rank
/// below, batch dimensions that broadcast, columns equal to entries, one device.
///
/// # Errors
///
/// [`GuardError::RankMismatch`], [`GuardError::ShapeMismatch`],
/// [`GuardError::DeviceMismatch`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::linalg::try_matvec;
///
/// let device = Device::flex();
/// let m = Tensor::<2>::from_floats([[1.0, 2.0], [3.0, 4.0]], &device);
/// let v = Tensor::<1>::from_floats([1.0, 1.0], &device);
/// assert_eq!(try_matvec(m.clone(), v)?.into_data().to_vec::<f32>().unwrap(), [3.0, 7.0]);
/// assert!(try_matvec(m, Tensor::<1>::ones([3], &device)).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_matvec<const DM: usize, const DV: usize, K: Numeric>(
    matrix: Tensor<DM, K>,
    vector: Tensor<DV, K>,
) -> Result<Tensor<DV, K>> {
    const OP: &str = "matvec";
    rules::matvec(OP, &matrix.dims(), &vector.dims())?;
    same_devices(OP, &[matrix.device(), vector.device()])?;
    catch(OP, || burn_linalg::matvec::<DM, DV, K>(matrix, vector))
}

/// Fallible twin of [`burn_linalg::outer`]: [`try_outer_dim`] over the last dimension.
///
/// # Errors
///
/// As [`try_outer_dim`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::linalg::try_outer;
///
/// let device = Device::flex();
/// let x = Tensor::<1>::from_floats([1.0, 2.0], &device);
/// let y = Tensor::<1>::from_floats([3.0, 4.0, 5.0], &device);
/// assert_eq!(try_outer::<1, 2, _>(x, y)?.dims(), [2, 3]);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_outer<const D: usize, const R: usize, K: Numeric>(
    lhs: Tensor<D, K>,
    rhs: Tensor<D, K>,
) -> Result<Tensor<R, K>> {
    const OP: &str = "outer";
    let dim = rules::outer_dim(OP, &lhs.dims(), &rhs.dims(), -1, R)?;
    same_devices(OP, &[lhs.device(), rhs.device()])?;
    catch(OP, || {
        burn_linalg::outer_dim::<D, R, usize, K>(lhs, rhs, dim)
    })
}

/// Fallible twin of [`burn_linalg::outer_dim`]: `R = D + 1`, `dim` in range, the other
/// dimensions broadcast, one device.
///
/// # Errors
///
/// [`GuardError::RankMismatch`], [`GuardError::DimOutOfRange`], [`GuardError::ShapeMismatch`],
/// [`GuardError::DeviceMismatch`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::linalg::try_outer_dim;
///
/// let device = Device::flex();
/// let x = Tensor::<2>::ones([4, 2], &device);
/// let y = Tensor::<2>::ones([4, 3], &device);
/// assert_eq!(try_outer_dim::<2, 3, _, _>(x.clone(), y.clone(), 1)?.dims(), [4, 2, 3]);
/// assert!(try_outer_dim::<2, 3, _, _>(x, y, 2).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_outer_dim<const D: usize, const R: usize, Dim: AsIndex, K: Numeric>(
    lhs: Tensor<D, K>,
    rhs: Tensor<D, K>,
    dim: Dim,
) -> Result<Tensor<R, K>> {
    const OP: &str = "outer_dim";
    let dim = rules::outer_dim(OP, &lhs.dims(), &rhs.dims(), dim.as_index(), R)?;
    same_devices(OP, &[lhs.device(), rhs.device()])?;
    catch(OP, || {
        burn_linalg::outer_dim::<D, R, usize, K>(lhs, rhs, dim)
    })
}

/// Fallible twin of [`burn_linalg::cosine_similarity`]: `dim` in range, shapes that
/// broadcast, one device.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`], [`GuardError::ShapeMismatch`], [`GuardError::DeviceMismatch`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::linalg::try_cosine_similarity;
///
/// let device = Device::flex();
/// let x = Tensor::<2>::ones([2, 3], &device);
/// assert_eq!(try_cosine_similarity(x.clone(), x.clone(), 1, None)?.dims(), [2, 1]);
/// assert!(try_cosine_similarity(x.clone(), x, 2, None).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_cosine_similarity<const D: usize>(
    x1: Tensor<D>,
    x2: Tensor<D>,
    dim: impl AsIndex,
    eps: Option<f64>,
) -> Result<Tensor<D>> {
    const OP: &str = "cosine_similarity";
    let dim = crate::check::shape::dim(OP, dim.as_index(), D)?;
    crate::check::shape::broadcast(OP, &x1.dims(), &x2.dims())?;
    same_devices(OP, &[x1.device(), x2.device()])?;
    catch(OP, || burn_linalg::cosine_similarity::<D>(x1, x2, dim, eps))
}

/// Whether an exponent makes the norm an extremum of magnitudes (a max or a min), which
/// panics on an empty dimension on Flex and NdArray.
fn is_extremum(p: f64) -> bool {
    p.is_infinite()
}

/// The one dim a single-dim norm reduces, resolved ([`check::linalg::norm_dims`](crate::check::linalg::norm_dims)).
fn one_dim(op: &'static str, dims: &[usize], dim: isize, extremum: bool) -> Result<usize> {
    let resolved = rules::norm_dims(op, dims, &[dim], extremum)?;
    Ok(resolved.first().copied().unwrap_or(0))
}

/// The one dim a [`Norm`] reduces, resolved: an extremum norm needs it non-empty.
fn norm_dim(op: &'static str, dims: &[usize], dim: isize, norm: &Norm) -> Result<usize> {
    one_dim(op, dims, dim, is_extremum(norm.to_exponent()))
}

fn indices<I: AsIndex>(dims: &[I]) -> Vec<isize> {
    dims.iter().map(|d| d.as_index()).collect()
}

/// Fallible twin of [`burn_linalg::vector_norm`]: `dim` in range, and, for an infinite norm
/// (a max or a min of magnitudes), a non-empty `dim`.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`], [`GuardError::Empty`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::linalg::{Norm, try_vector_norm};
///
/// let x = Tensor::<2>::from_floats([[3.0, 4.0]], &Device::flex());
/// assert_eq!(try_vector_norm(x.clone(), Norm::L2, 1)?.into_data().to_vec::<f32>().unwrap(), [5.0]);
/// assert!(try_vector_norm(x, Norm::L2, 5).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_vector_norm<const D: usize>(
    x: Tensor<D>,
    norm: impl Into<Norm>,
    dim: impl AsIndex,
) -> Result<Tensor<D>> {
    const OP: &str = "vector_norm";
    let norm = norm.into();
    let dim = norm_dim(OP, &x.dims(), dim.as_index(), &norm)?;
    catch(OP, || burn_linalg::vector_norm::<D>(x, norm, dim))
}

/// Fallible twin of [`burn_linalg::vector_norm_dims`]: as [`try_vector_norm`], per dim.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`], [`GuardError::Empty`].
pub fn try_vector_norm_dims<const D: usize, I: AsIndex>(
    x: Tensor<D>,
    norm: impl Into<Norm>,
    dims: &[I],
) -> Result<Tensor<D>> {
    const OP: &str = "vector_norm";
    let norm = norm.into();
    let dims = rules::norm_dims(
        OP,
        &x.dims(),
        &indices(dims),
        is_extremum(norm.to_exponent()),
    )?;
    catch(OP, || {
        burn_linalg::vector_norm_dims::<D, usize>(x, norm, &dims)
    })
}

/// Fallible twin of [`burn_linalg::vector_normalize`]: as [`try_vector_norm`].
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`], [`GuardError::Empty`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::linalg::{Norm, try_vector_normalize};
///
/// let x = Tensor::<2>::from_floats([[3.0, 4.0]], &Device::flex());
/// assert!(try_vector_normalize(x.clone(), Norm::L2, 1, 1e-5)?.dims() == [1, 2]);
/// assert!(try_vector_normalize(x, 1.0, 5, 1e-5).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_vector_normalize<const D: usize, E: ElementConversion>(
    x: Tensor<D>,
    norm: impl Into<Norm>,
    dim: impl AsIndex,
    eps: E,
) -> Result<Tensor<D>> {
    const OP: &str = "vector_normalize";
    let norm = norm.into();
    let dim = norm_dim(OP, &x.dims(), dim.as_index(), &norm)?;
    catch(OP, || {
        burn_linalg::vector_normalize::<D, E>(x, norm, dim, eps)
    })
}

/// Fallible twin of [`burn_linalg::lp_norm`]: as [`try_vector_norm`] with exponent `p`.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`], [`GuardError::Empty`].
pub fn try_lp_norm<const D: usize>(x: Tensor<D>, p: f64, dim: impl AsIndex) -> Result<Tensor<D>> {
    const OP: &str = "lp_norm";
    let dim = one_dim(OP, &x.dims(), dim.as_index(), is_extremum(p))?;
    catch(OP, || burn_linalg::lp_norm::<D>(x, p, dim))
}

/// Fallible twin of [`burn_linalg::lp_norm_dims`]: as [`try_lp_norm`], per dim.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`], [`GuardError::Empty`].
pub fn try_lp_norm_dims<const D: usize, I: AsIndex>(
    x: Tensor<D>,
    p: f64,
    dims: &[I],
) -> Result<Tensor<D>> {
    const OP: &str = "lp_norm";
    let dims = rules::norm_dims(OP, &x.dims(), &indices(dims), is_extremum(p))?;
    catch(OP, || burn_linalg::lp_norm_dims::<D, usize>(x, p, &dims))
}

/// The twins of the fixed norms: `dim`(s) in range, and for the extremum norms (max and min
/// of magnitudes) non-empty.
macro_rules! fixed_norms {
    ($($(#[$doc:meta])* $kind:ident, $extremum:literal, $op:literal:
        $twin:ident => $burn:ident, $twin_dims:ident => $burn_dims:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// # Errors
        ///
        /// [`GuardError::DimOutOfRange`], [`GuardError::Empty`] (an extremum over an empty
        /// dim).
        pub fn $twin<const D: usize, K: $kind>(
            x: Tensor<D, K>,
            dim: impl AsIndex,
        ) -> Result<Tensor<D, K>> {
            const OP: &str = $op;
            let dim = one_dim(OP, &x.dims(), dim.as_index(), $extremum)?;
            catch(OP, || burn_linalg::$burn::<D, K>(x, dim))
        }

        #[doc = concat!("Fallible twin of [`burn_linalg::", stringify!($burn_dims), "`]: as [`", stringify!($twin), "`], per dim.")]
        ///
        /// # Errors
        ///
        /// [`GuardError::DimOutOfRange`], [`GuardError::Empty`].
        pub fn $twin_dims<const D: usize, K: $kind, I: AsIndex>(
            x: Tensor<D, K>,
            dims: &[I],
        ) -> Result<Tensor<D, K>> {
            const OP: &str = $op;
            let dims = rules::norm_dims(OP, &x.dims(), &indices(dims), $extremum)?;
            catch(OP, || burn_linalg::$burn_dims::<D, K, usize>(x, &dims))
        }
    )*};
}

fixed_norms! {
    /// Fallible twin of [`burn_linalg::l0_norm`] (the count of non-zero entries).
    Numeric, false, "l0_norm": try_l0_norm => l0_norm, try_l0_norm_dims => l0_norm_dims;
    /// Fallible twin of [`burn_linalg::l1_norm`].
    Numeric, false, "l1_norm": try_l1_norm => l1_norm, try_l1_norm_dims => l1_norm_dims;
    /// Fallible twin of [`burn_linalg::max_abs_norm`] (the largest magnitude: the reduced dim
    /// must not be empty).
    Ordered, true, "max_abs_norm": try_max_abs_norm => max_abs_norm, try_max_abs_norm_dims => max_abs_norm_dims;
    /// Fallible twin of [`burn_linalg::min_abs_norm`] (the smallest magnitude: the reduced dim
    /// must not be empty).
    Ordered, true, "min_abs_norm": try_min_abs_norm => min_abs_norm, try_min_abs_norm_dims => min_abs_norm_dims;
}

/// Fallible twin of [`burn_linalg::l2_norm`].
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`].
pub fn try_l2_norm<const D: usize>(x: Tensor<D>, dim: impl AsIndex) -> Result<Tensor<D>> {
    const OP: &str = "l2_norm";
    let dim = one_dim(OP, &x.dims(), dim.as_index(), false)?;
    catch(OP, || burn_linalg::l2_norm::<D>(x, dim))
}

/// Fallible twin of [`burn_linalg::l2_norm_dims`]: as [`try_l2_norm`], per dim.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`].
pub fn try_l2_norm_dims<const D: usize, I: AsIndex>(x: Tensor<D>, dims: &[I]) -> Result<Tensor<D>> {
    const OP: &str = "l2_norm";
    let dims = rules::norm_dims(OP, &x.dims(), &indices(dims), false)?;
    catch(OP, || burn_linalg::l2_norm_dims::<D, usize>(x, &dims))
}
