//! Operations whose output may not fit on their device, run on a fallback device instead when
//! the policy allows [`Op::Oversize`](crate::policy::Op::Oversize): the operands move there,
//! the result stays there.
//!
//! For creating a tensor, ask the policy where it can live
//! ([`Policy::place`](crate::policy::Policy::place)) and create it there.

use std::time::Instant;

use burn::tensor::{Tensor, kind::Numeric};

use super::numeric::{MatmulShapes, TryNumeric, matmul_shapes};
use super::sealed::Sealed;
use super::twins;
use crate::capability::stack_of;
use crate::check;
use crate::policy::{Moved, Op, Place, Policy, Route};
use crate::transfer::move_any;

twins! {
/// Twins that run on a fallback device when their output cannot fit on the operands' own.
pub trait TryOversize<const D: usize, K: Numeric> for Tensor<D, K> where K: 'static {
    /// [`TryNumeric::try_matmul`], or, when its output does not fit on the operands' device
    /// (over its largest buffer, the host's memory or its budget) and `policy` allows
    /// [`Op::Oversize`](crate::policy::Op::Oversize), the same product on the first of the
    /// policy's devices where it fits: both operands move there (counted), the product stays
    /// there.
    ///
    /// # Errors
    ///
    /// Those of [`TryNumeric::try_matmul`]; the home device's
    /// [`GuardError::TooLarge`](crate::GuardError::TooLarge) /
    /// [`GuardError::OutOfMemory`](crate::GuardError::OutOfMemory) when no fallback is allowed
    /// or none can hold the product; a failed move.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::policy::Policy;
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<2>::ones([2, 3], &device);
    /// let b = Tensor::<2>::ones([3, 4], &device);
    /// let product = a.try_matmul_or_fallback(b, &Policy::fallback_to([Device::ndarray()]))?;
    /// assert_eq!(product.dims(), [2, 4]);
    /// assert_eq!(product.device(), device); // it fitted: it ran where its operands live
    /// # Ok::<(), GuardError>(())
    /// ```
    #[doc(alias = "matmul")]
    fn try_matmul_or_fallback(self, other: Self, policy: &Policy) -> Self => matmul {
        let MatmulShapes { out, device, .. } = matmul_shapes(OP, &self, &other)?;
        let dtype = check::bytes::output_dtype(self.dtype());
        let route = match policy.fit(OP, &out, dtype, &device) {
            // It fits where its operands live: not an oversize, nothing to count.
            Route::Home => return self.try_matmul(other),
            route => route,
        };
        let home = || stack_of(&device).label().to_owned();
        policy.run(Op::Oversize, route, &home, |place| {
            let target = match place {
                Place::Home => return self.try_matmul(other).map(|p| (p, Moved::default())),
                Place::Away(target) => &target.place,
            };
            let started = Instant::now();
            let (lhs, lhs_bytes) = move_any(OP, self, target)?;
            let (rhs, rhs_bytes) = move_any(OP, other, target)?;
            let moved = Moved {
                bytes_out: lhs_bytes.saturating_add(rhs_bytes),
                bytes_back: 0,
                elapsed: started.elapsed(),
            };
            lhs.try_matmul(rhs).map(|product| (product, moved))
        })
    }
}
}
