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

use std::time::Duration;

use burn::tensor::{DType, Device};

use super::{Op, Outcome, Policy};
use crate::capability::{require_fits, stack_of};
use crate::error::{ErrorKind, Result};

/// Where an allocation that `op` makes goes: its own device, or a fallback device where it
/// fits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Fit {
    /// It fits where it was asked for.
    Home,
    /// It does not fit there; it fits on this fallback device.
    Fallback(Device),
}

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
            Ok(Fit::Home) => Ok(device.clone()),
            Ok(Fit::Fallback(target)) => {
                self.record_oversize(device, &target, 0, Duration::ZERO);
                Ok(target)
            }
            Err(err) => {
                self.record(Op::Oversize, Outcome::Error);
                Err(err)
            }
        }
    }

    /// Decides where an allocation goes (see [`Policy::place`]); records nothing.
    pub(crate) fn fit(
        &self,
        op: &'static str,
        shape: &[usize],
        dtype: DType,
        device: &Device,
    ) -> Result<Fit> {
        let refusal = match require_fits(op, shape, dtype, device) {
            Ok(_) => return Ok(Fit::Home),
            Err(err) => err,
        };
        // A poisoned home device cannot hold anything either: the same fallback serves it.
        let movable = matches!(
            refusal.kind(),
            ErrorKind::TooLarge | ErrorKind::OutOfMemory | ErrorKind::DeviceUnavailable
        );
        if !movable || !self.may_fall_back(Op::Oversize) {
            return Err(refusal);
        }
        self.devices()
            .iter()
            .find(|target| *target != device && require_fits(op, shape, dtype, target).is_ok())
            .map(|target| Fit::Fallback(target.clone()))
            .ok_or(refusal)
    }

    /// Counts an oversize fallback from `from` to `to` that moved `bytes_out` there in
    /// `elapsed` (nothing comes back).
    pub(crate) fn record_oversize(
        &self,
        from: &Device,
        to: &Device,
        bytes_out: u64,
        elapsed: Duration,
    ) {
        let from = stack_of(from).label();
        let to = stack_of(to).label();
        self.record(
            Op::Oversize,
            Outcome::Fallback {
                from: &from,
                to: &to,
                bytes_out,
                bytes_back: 0,
                elapsed,
            },
        );
    }
}
