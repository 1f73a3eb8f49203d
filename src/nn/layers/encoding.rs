//! [`PositionalEncoding`], [`RotaryEncoding`] and their configs.

use burn::nn::{
    PositionalEncoding, PositionalEncodingConfig, RotaryEncoding, RotaryEncodingConfig,
};
use burn::tensor::Tensor;

use super::support::{Sealed, dims, same_devices};
use crate::check::{encoding, layer};
use crate::nn::init::{TryInit, require_params_fit};
use crate::panic::catch;

// The encodings build their tables at `init`, through shapes that panic on a 0.
config_twins! {
/// Checks that `d_model` is even and not 0, `max_sequence_size` not 0 (burn builds its
/// table through shapes that panic on a 0), `max_sequence_size <= max_timescale`, and that
/// the `[max_sequence_size, d_model]` table fits on the device (the byte rule).
// Sizes compared as f64 are exact below 2^53, far past any table that fits in memory.
#[allow(clippy::cast_precision_loss)]
impl TryInit for PositionalEncodingConfig = PositionalEncoding("positional_encoding_init"), |config, device| [
    layer::even("d_model", config.d_model),
    layer::nonzero("d_model", config.d_model),
    layer::nonzero("max_sequence_size", config.max_sequence_size),
    layer::ordered(("max_sequence_size", config.max_sequence_size as f64), ("max_timescale", config.max_timescale as f64), false),
    // burn builds the table on the host, then uploads it (burn-nn `generate_sinusoids`).
    require_params_fit(device, &[("sinusoids", &[config.max_sequence_size, config.d_model])]),
];
/// Checks that `d_model` is even and `theta > 0`, and that `d_model` and
/// `max_sequence_length` are not 0 (burn builds its table through shapes that panic on a
/// 0), and that the cached rotations fit on the device (the byte rule).
impl TryInit for RotaryEncodingConfig = RotaryEncoding("rotary_encoding_init"), |config, device| [
    layer::even("d_model", config.d_model),
    layer::nonzero("d_model", config.d_model),
    layer::nonzero("max_sequence_length", config.max_sequence_length),
    layer::positive("theta", f64::from(config.theta), false),
    // The cached rotations, `[max_sequence_length, d_model / 2, 2]` (burn-nn
    // `RotaryEncoding::compute_rotary_frequencies`).
    require_params_fit(device, &[("freq_complex", &[config.max_sequence_length, config.d_model / 2, 2])]),
];
}

twins! {
/// Twin of [`PositionalEncoding::forward`].
pub trait TryPositionalEncoding for PositionalEncoding = "positional_encoding" {
    /// Fallible twin of [`PositionalEncoding::forward`]: `[batch, seq, d_model]`, same shape
    /// out.
    ///
    /// Checks `d_model` and `seq <= max_sequence_size` against the sinusoid table, and — beyond
    /// burn — that the table is on the input's device.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for another `d_model`,
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a longer sequence,
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::PositionalEncodingConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let pe = PositionalEncodingConfig::new(6).with_max_sequence_size(8).try_init(&device)?;
    /// assert_eq!(pe.try_forward(Tensor::<3>::zeros([2, 5, 6], &device))?.dims(), [2, 5, 6]);
    /// let err = pe.try_forward(Tensor::<3>::zeros([2, 9, 6], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::OutOfRange);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<3>) -> Tensor<3> {
        let [_, max_sequence_size, d_model] = self.sinusoids.dims();
        encoding::positional(OP, &dims(&input), d_model, max_sequence_size)?;
        same_devices(OP, &[input.device(), self.sinusoids.device()])?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`RotaryEncoding::forward`] and [`RotaryEncoding::apply`].
pub trait TryRotaryEncoding for RotaryEncoding = "rotary_encoding" {
    /// Fallible twin of [`RotaryEncoding::forward`]: `[.., seq, d_model]`, same shape out.
    ///
    /// As [`try_apply`](Self::try_apply) with `start` 0.
    ///
    /// # Errors
    ///
    /// As [`try_apply`](Self::try_apply).
    ///
    /// ```
    /// use burn::nn::RotaryEncodingConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let rope = RotaryEncodingConfig::new(16, 8).try_init(&device)?;
    /// assert_eq!(rope.try_forward(Tensor::<3>::ones([1, 4, 8], &device))?.dims(), [1, 4, 8]);
    /// assert!(rope.try_forward(Tensor::<3>::ones([1, 4, 6], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, x: Tensor<D>) -> Tensor<D> {
        self.try_apply(x, 0)
    }
    /// Fallible twin of [`RotaryEncoding::apply`]: `[.., seq, d_model]` rotated from position
    /// `start`, same shape out.
    ///
    /// Checks the rank (≥ 2), `d_model` against the frequency table, `start + seq` within
    /// the table, a non-empty `seq` and `d_model` (burn divides by their product), and —
    /// beyond burn — that the table is on the input's device.
    ///
    /// `start + seq` past the table goes beyond burn in one case: burn clamps its slice of the
    /// table, so when exactly one row remains it broadcasts that row's frequencies over the
    /// whole sequence (wrong values, no panic); with more or fewer rows it panics.
    ///
    /// An input with an empty leading dim (`[0, seq, d_model]`) is returned as is, without
    /// dispatch: burn 0.22.1 kills the process with SIGSEGV on Flex for it (measured; NdArray
    /// returns the empty tensor).
    ///
    /// # Errors
    ///
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch),
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for `start + seq`,
    /// [`GuardError::Empty`](crate::GuardError::Empty),
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::RotaryEncodingConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let rope = RotaryEncodingConfig::new(16, 8).try_init(&device)?;
    /// assert_eq!(rope.try_apply(Tensor::<3>::ones([1, 4, 8], &device), 12)?.dims(), [1, 4, 8]);
    /// let err = rope.try_apply(Tensor::<3>::ones([1, 4, 8], &device), 13).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::OutOfRange);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_apply<const D: usize>(&self, x: Tensor<D>, start: usize) -> Tensor<D> {
        let [max_sequence_length, d_model, _] = self.freq_complex.dims();
        let shape = dims(&x);
        encoding::rotary(OP, &shape, d_model, max_sequence_length, start)?;
        same_devices(OP, &[x.device(), self.freq_complex.device()])?;
        if shape.contains(&0) {
            // An empty leading dim: burn 0.22.1 dies with SIGSEGV on Flex (its matmul of the
            // `[0, seq, d_model / 2, 2]` reshape); the result, empty, is the input.
            return Ok(x);
        }
        catch(OP, || self.apply(x, start))
    }
}
}
