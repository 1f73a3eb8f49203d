//! [`burn::nn::Linear`].

use burn::nn::Linear;
use burn::tensor::Tensor;

use super::support::Sealed;
use crate::error::Result;
use crate::tensor::module::try_linear;

impl Sealed for Linear {}

/// Twin of [`Linear::forward`].
pub trait TryLinear: Sealed {
    /// Fallible twin of [`Linear::forward`]: `[..., d_input]` → `[..., d_output]`.
    ///
    /// Checks the input's last dim against the weight's `d_input`, and that input, weight and
    /// bias share a device. An input with no rows (or a layer with no features) gives the
    /// empty or bias-filled result without dispatch, as [`try_linear`] does.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for a wrong feature
    /// count, [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a rank-0
    /// input, [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::LinearConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let layer = LinearConfig::new(3, 5).init(&device);
    /// assert_eq!(layer.try_forward(Tensor::<2>::ones([2, 3], &device))?.dims(), [2, 5]);
    /// let err = layer.try_forward(Tensor::<2>::ones([2, 4], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Result<Tensor<D>>;
}

impl TryLinear for Linear {
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Result<Tensor<D>> {
        // burn's forward is `linear(input, weight, bias)` after its own shape assertion; the
        // tensor twin runs the same call after the same check (and more).
        try_linear(
            input,
            self.weight.val(),
            self.bias.as_ref().map(|b| b.val()),
        )
    }
}
