//! [`QuantizedModel`]: a model quantized in place, and where it lives; its forward moves
//! inputs to the model's device and outputs back when the policy placed the model on a
//! fallback device.

use std::time::Instant;

use burn::tensor::kind::Basic;
use burn::tensor::{Device, Tensor};

use super::report::QuantReport;
use crate::capability::stack_of;
use crate::error::Result;
use crate::panic::catch_result;
use crate::policy::{Op, Outcome, Policy};

const OP: &str = "quantized_model";

/// A model whose weights were quantized by [`WeightQuantizer`](super::WeightQuantizer), with
/// its [`QuantReport`].
///
/// When the model's own device could quantize, the model lives there and
/// [`forward`](Self::forward) just runs it. When the policy moved it to a fallback device,
/// the model stays there (its weights never move again) and each forward moves the inputs
/// there and the outputs back to the inputs' device, counted under [`Op::QuantizedModel`] in
/// the policy's statistics.
#[derive(Debug, Clone)]
pub struct QuantizedModel<M> {
    model: M,
    report: QuantReport,
    policy: Policy,
    held_on: Option<Device>,
}

impl<M> QuantizedModel<M> {
    pub(crate) fn new(
        model: M,
        report: QuantReport,
        policy: Policy,
        held_on: Option<Device>,
    ) -> Self {
        Self {
            model,
            report,
            policy,
            held_on,
        }
    }

    /// The quantized model, where it lives.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The quantized model, where it lives.
    pub fn into_model(self) -> M {
        self.model
    }

    /// What was quantized, kept in float or left alone, per parameter, and where the model
    /// lives.
    pub fn report(&self) -> &QuantReport {
        &self.report
    }

    /// The fallback device the model lives on, when the policy moved it there.
    pub fn held_on(&self) -> Option<&Device> {
        self.held_on.as_ref()
    }

    /// Runs the model's own forward `f` on `input`, under the backstop.
    ///
    /// When the model lives on a fallback device, `input` moves there first and the output
    /// moves back to the device of `input`'s first tensor; both moves are counted in bytes.
    ///
    /// # Errors
    ///
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if `f` panics;
    /// errors moving the tensors ([`GuardError::Execution`](crate::GuardError::Execution),
    /// [`GuardError::Timeout`](crate::GuardError::Timeout) from a remote device).
    pub fn forward<I: Movable, O: Movable>(
        &self,
        input: I,
        f: impl FnOnce(&M, I) -> O,
    ) -> Result<O> {
        self.try_forward(input, |model, input| Ok(f(model, input)))
    }

    /// As [`forward`](Self::forward), for a forward that returns a guarded [`Result`] (one
    /// built from the layer twins: `|m, x| m.try_forward(x)`).
    ///
    /// # Errors
    ///
    /// As [`forward`](Self::forward), and `f`'s own error.
    ///
    /// ```
    /// use burn::module::Quantizer;
    /// use burn::nn::LinearConfig;
    /// use burn::tensor::quantization::{Calibration, QuantScheme};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::module::WeightQuantizer;
    /// use burn_guard::prelude::*;
    ///
    /// let layer = LinearConfig::new(8, 4).init(&Device::flex());
    /// let mut quantizer = Quantizer::new(Calibration::MinMax, QuantScheme::default());
    /// let quantized = WeightQuantizer::new().quantize(&layer, &mut quantizer)?;
    /// let bad = Tensor::<2>::ones([2, 5], &Device::flex());
    /// let err = quantized.try_forward(bad, |m, x| m.try_forward(x)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn try_forward<I: Movable, O: Movable>(
        &self,
        input: I,
        f: impl FnOnce(&M, I) -> Result<O>,
    ) -> Result<O> {
        let outcome = self.run(input, f);
        if outcome.is_err() {
            self.policy.record(Op::QuantizedModel, Outcome::Error);
        }
        outcome
    }

    fn run<I: Movable, O: Movable>(
        &self,
        input: I,
        f: impl FnOnce(&M, I) -> Result<O>,
    ) -> Result<O> {
        let home = input.first_device();
        let (Some(held_on), Some(home)) = (&self.held_on, home) else {
            let output = catch_result(OP, || f(&self.model, input))?;
            self.policy.record(Op::QuantizedModel, Outcome::Native);
            return Ok(output);
        };
        let start = Instant::now();
        let bytes_out = input.bytes();
        let moved = input.move_to(held_on)?;
        let mut elapsed = start.elapsed();
        let output = catch_result(OP, || f(&self.model, moved))?;
        let back = Instant::now();
        let bytes_back = output.bytes();
        let output = output.move_to(&home)?;
        elapsed += back.elapsed();
        self.policy.record(
            Op::QuantizedModel,
            Outcome::Fallback {
                from: stack_of(&home).label(),
                to: stack_of(held_on).label(),
                bytes_out,
                bytes_back,
                elapsed,
            },
        );
        Ok(output)
    }
}

/// What a [`QuantizedModel`]'s forward can move between devices: tensors of any kind, and
/// tuples, vectors and options of them.
///
/// Sealed: implemented for `burn::Tensor<D, K>` and compositions of it.
pub trait Movable: sealed::Sealed + Sized {
    /// The device of the first tensor, if any.
    fn first_device(&self) -> Option<Device>;
    /// Bytes in transit: elements × dtype size, summed.
    fn bytes(&self) -> u64;
    /// Moves every tensor to `device`.
    ///
    /// # Errors
    ///
    /// [`GuardError::Execution`](crate::GuardError::Execution) or
    /// [`GuardError::Timeout`](crate::GuardError::Timeout) when a remote tensor cannot be
    /// read back; [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn
    /// panics.
    fn move_to(self, device: &Device) -> Result<Self>;
}

mod sealed {
    pub trait Sealed {}
    impl<const D: usize, K: burn::tensor::kind::Basic> Sealed for burn::tensor::Tensor<D, K> {}
    impl<A: Sealed, B: Sealed> Sealed for (A, B) {}
    impl<A: Sealed, B: Sealed, C: Sealed> Sealed for (A, B, C) {}
    impl<T: Sealed> Sealed for Vec<T> {}
    impl<T: Sealed> Sealed for Option<T> {}
}

impl<const D: usize, K> Movable for Tensor<D, K>
where
    K: Basic + 'static,
{
    fn first_device(&self) -> Option<Device> {
        Some(self.device())
    }

    fn bytes(&self) -> u64 {
        crate::transfer::bytes_of_any(self)
    }

    fn move_to(self, device: &Device) -> Result<Self> {
        crate::transfer::move_any(OP, self, device).map(|(moved, _)| moved)
    }
}

impl<A: Movable, B: Movable> Movable for (A, B) {
    fn first_device(&self) -> Option<Device> {
        self.0.first_device().or_else(|| self.1.first_device())
    }

    fn bytes(&self) -> u64 {
        self.0.bytes().saturating_add(self.1.bytes())
    }

    fn move_to(self, device: &Device) -> Result<Self> {
        Ok((self.0.move_to(device)?, self.1.move_to(device)?))
    }
}

impl<A: Movable, B: Movable, C: Movable> Movable for (A, B, C) {
    fn first_device(&self) -> Option<Device> {
        self.0
            .first_device()
            .or_else(|| self.1.first_device())
            .or_else(|| self.2.first_device())
    }

    fn bytes(&self) -> u64 {
        self.0
            .bytes()
            .saturating_add(self.1.bytes())
            .saturating_add(self.2.bytes())
    }

    fn move_to(self, device: &Device) -> Result<Self> {
        Ok((
            self.0.move_to(device)?,
            self.1.move_to(device)?,
            self.2.move_to(device)?,
        ))
    }
}

impl<T: Movable> Movable for Vec<T> {
    fn first_device(&self) -> Option<Device> {
        self.iter().find_map(Movable::first_device)
    }

    fn bytes(&self) -> u64 {
        self.iter().map(Movable::bytes).fold(0, u64::saturating_add)
    }

    fn move_to(self, device: &Device) -> Result<Self> {
        self.into_iter().map(|t| t.move_to(device)).collect()
    }
}

impl<T: Movable> Movable for Option<T> {
    fn first_device(&self) -> Option<Device> {
        self.as_ref().and_then(Movable::first_device)
    }

    fn bytes(&self) -> u64 {
        self.as_ref().map_or(0, Movable::bytes)
    }

    fn move_to(self, device: &Device) -> Result<Self> {
        self.map(|t| t.move_to(device)).transpose()
    }
}
