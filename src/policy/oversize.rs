//! Oversize fallback: a tensor that cannot fit on its device ([`TooLarge`]: over the largest
//! buffer; [`OutOfMemory`]: over the host's memory or the device's budget) is created, or an
//! operation's output computed, on the first fallback device of the policy where it fits,
//! when the policy allows [`Op::Oversize`]. The result stays there: it could not come back.
//! A device recorded poisoned ([`devices::health`](crate::devices::health)) holds nothing,
//! and is treated the same way.
//!
//! Decide, then act: [`Policy::place`] decides where an allocation lives; the caller creates
//! it there. Every fallback is counted and warned about once per (op, from, to) like the
//! others; [`Policy::deny_op`]`(Op::Oversize)` and [`Policy::allow_only`] govern it, and the
//! process-wide switch turns it off.
//!
//! [`TooLarge`]: crate::GuardError::TooLarge
//! [`OutOfMemory`]: crate::GuardError::OutOfMemory

use burn::tensor::{DType, Device};

use super::{Moved, Op, Place, Policy, Route, Target};
use crate::capability::{require_fits, stack_of};
use crate::error::{ErrorKind, Result};

impl Policy {
    /// The device where a tensor of `shape` and `dtype`, which `op` would create on `device`,
    /// can live: `device` itself when it fits there (the byte rule, the host's memory and the
    /// device's budget: [`require_fits`]); otherwise, when the policy allows
    /// [`Op::Oversize`], the first of the policy's healthy devices where it fits, recorded as
    /// a fallback (no bytes move: the tensor is created there).
    ///
    /// # Errors
    ///
    /// The home device's refusal ([`GuardError::TooLarge`](crate::GuardError::TooLarge),
    /// [`GuardError::OutOfMemory`](crate::GuardError::OutOfMemory),
    /// [`GuardError::DeviceUnavailable`](crate::GuardError::DeviceUnavailable)) when the
    /// policy does not fall back for [`Op::Oversize`] or no fallback device can hold it.
    ///
    /// ```
    /// use burn::tensor::{DType, Device, Tensor};
    /// use burn_guard::policy::{Op, Policy};
    /// use burn_guard::prelude::*;
    ///
    /// let home = Device::flex();
    /// let policy = Policy::fallback_to([Device::flex()]);
    /// // Small enough for home: it stays there, nothing is recorded.
    /// let device = policy.place("zeros", &[2, 3], DType::F32, &home)?;
    /// let zeros = Tensor::<2>::try_zeros([2, 3], &device)?;
    /// // Too large for any host: refused, whatever the policy.
    /// let err = policy.place("zeros", &[1 << 61], DType::F32, &home).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::TooLarge);
    /// # let _ = zeros;
    /// # Ok::<(), GuardError>(())
    /// ```
    pub fn place(
        &self,
        op: &'static str,
        shape: &[usize],
        dtype: DType,
        device: &Device,
    ) -> Result<Device> {
        match self.fit(op, shape, dtype, device) {
            // It fits where it was asked for: not an oversize, nothing to count.
            Route::Home => Ok(device.clone()),
            // No bytes move: the tensor is created there.
            route => self.run(
                Op::Oversize,
                route,
                &|| stack_of(device).label().to_owned(),
                |place| match place {
                    Place::Home => Ok((device.clone(), Moved::default())),
                    Place::Away(target) => Ok((target.place.clone(), Moved::default())),
                },
            ),
        }
    }

    /// Decides where an allocation goes (see [`Policy::place`]): home when it fits there, the
    /// first of the policy's healthy devices where it fits when the policy falls back for
    /// [`Op::Oversize`], else refused with the home device's refusal. Records nothing.
    pub(crate) fn fit(
        &self,
        op: &'static str,
        shape: &[usize],
        dtype: DType,
        device: &Device,
    ) -> Route<Device> {
        let refusal = match require_fits(op, shape, dtype, device) {
            Ok(_) => return Route::Home,
            Err(err) => err,
        };
        // A poisoned home device cannot hold anything either: the same fallback serves it.
        let movable = matches!(
            refusal.kind(),
            ErrorKind::TooLarge | ErrorKind::OutOfMemory | ErrorKind::DeviceUnavailable
        );
        if !movable || !self.may_fall_back(Op::Oversize) {
            return Route::Refused(refusal);
        }
        match self
            .devices()
            .iter()
            .find(|target| *target != device && require_fits(op, shape, dtype, target).is_ok())
        {
            Some(target) => Route::Fallback(Target {
                place: target.clone(),
                label: stack_of(target).label().to_owned(),
                support: crate::gap::Support::Native,
            }),
            None => Route::Refused(refusal),
        }
    }
}
