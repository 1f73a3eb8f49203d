//! Fallible twins of burn-signal's functions (`burn::signal` under burn's `signal` feature; the
//! crate itself, `burn_signal`, here): each runs the rules of
//! [`check::signal`](crate::check::signal) that mirror burn-signal's `assert!`s and the FFT
//! kernels' below them, then, where the device's backend has burn-signal's FFT
//! ([`fft_support`]), burn's function under the backstop.
//!
//! Feature `signal` (default). burn-signal's FFTs are a backend extension: this build compiles
//! its Flex arm (and its Autodiff arm over Flex). NdArray has no FFT at all in burn 0.22, and
//! the CubeCL and router arms need burn's `fusion` feature, which would turn a remote device
//! into `Fusion<Router>`; so on those devices `try_*` returns
//! [`GuardError::Unsupported`] and `try_*_with` runs the whole
//! function on the policy's first capable device (Flex) with the inputs moved there and the
//! result moved back, counted under [`Op::Fft`]. Every FFT length is a
//! power of two (burn-signal 0.22 has no other algorithm); a length that is not is refused with
//! the two nearest, and `stft` with burn's own defaults (`n_fft = 400`) with the fix.
//!
//! ```
//! use burn::tensor::{Device, Tensor};
//! use burn_guard::prelude::*;
//! use burn_guard::signal::{StftOptions, try_hann_window, try_stft};
//!
//! let device = Device::flex();
//! let audio = Tensor::<2>::ones([1, 1600], &device);
//! // burn's defaults are Whisper's n_fft = 400, which burn-signal panics on.
//! let err = try_stft(audio.clone(), None, StftOptions::default()).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::OutOfRange);
//! assert!(err.to_string().contains("256 or 512"));
//! // A 400-sample window in a 512-point frame.
//! let options = StftOptions { n_fft: 512, win_length: Some(400), hop_length: 160, ..StftOptions::new(512) };
//! let window = try_hann_window(400, true, &device)?;
//! let spectrum = try_stft(audio, Some(window), options)?;
//! assert_eq!(spectrum.dims(), [1, 11, 257, 2]);
//! # Ok::<(), burn_guard::GuardError>(())
//! ```

use burn::tensor::kind::Kind;
use burn::tensor::{AsIndex, DType, Device, Tensor, TensorCreationOptions};
pub use burn_signal::StftOptions;

use crate::capability::{BackendStack, Layer, Support, require_fits, stack_of};
use crate::check::signal as rules;
#[cfg(doc)]
use crate::error::GuardError;
use crate::error::Result;
use crate::gap::{Effect, Gap};
use crate::panic::catch;
use crate::policy::{Op, Policy};
use crate::tensor::same_devices;
use crate::transfer::{Extension, Trip};

/// Whether `device`'s backend runs burn-signal's FFT (`rfft`, `irfft`, and through them
/// `cfft`, `stft`, `istft`) in this build: Flex, and Autodiff over Flex. NdArray has none in
/// burn 0.22; wgpu and remote devices have one in burn-signal that this build does not compile
/// (it needs burn's `fusion`).
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::capability::Support;
/// use burn_guard::signal::fft_support;
///
/// assert_eq!(fft_support(&Device::flex()), Support::Native);
/// assert_eq!(fft_support(&Device::flex().autodiff()), Support::Native);
/// assert!(!fft_support(&Device::ndarray()).is_native());
/// ```
pub fn fft_support(device: &Device) -> Support {
    fft_support_of(stack_of(device))
}

/// [`fft_support`] for a backend stack (`capabilities`' report asks it for each backend).
///
/// ```
/// use burn_guard::capability::BackendStack;
/// use burn_guard::signal::fft_support_of;
///
/// assert!(fft_support_of(&BackendStack::parse("flex")).is_native());
/// assert!(!fft_support_of(&BackendStack::parse("fusion<cubecl<wgpu<wgsl>>>")).is_native());
/// ```
pub fn fft_support_of(stack: &BackendStack) -> Support {
    let reason = match stack.base() {
        Some(Layer::Flex) => return Support::Native,
        Some(Layer::NdArray) => {
            "burn-signal 0.22 has no NdArray implementation of its FFT (the backend extension \
             has no NdArray arm)"
        }
        _ => {
            "burn-signal's FFT is a backend extension; this build compiles its Flex arm only \
             (the CubeCL and router arms need burn's fusion feature, which changes the remote \
             backend)"
        }
    };
    Support::Gap(Gap::new(Effect::Unimplemented, reason))
}

/// burn-signal's backend extension, for [`Extension::run`](crate::transfer::Extension).
const EXTENSION: Extension = Extension {
    routed: Op::Fft,
    family: "signal",
    support: fft_support,
};

/// Fallible twin of [`burn_signal::rfft`]: `dim` in range, the FFT length a power of two
/// (`n`, or the signal's length without it: [`check::signal::fft_length`](crate::check::signal::fft_length)),
/// a signal with samples when `n` is given (burn-flex divides by its length), and a device
/// whose backend has the FFT ([`fft_support`]). Returns the real and imaginary parts of the
/// `n / 2 + 1` non-negative frequencies.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`], [`GuardError::OutOfRange`], [`GuardError::Empty`],
/// [`GuardError::Unsupported`] (NdArray, wgpu, remote: [`try_rfft_with`] falls back).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::signal::try_rfft;
///
/// let x = Tensor::<1>::from_floats([1.0, 2.0, 3.0, 4.0], &Device::flex());
/// let (re, im) = try_rfft(x.clone(), 0, None)?;
/// assert_eq!(re.into_data().to_vec::<f32>().unwrap(), [10.0, -2.0, -2.0]);
/// assert_eq!(im.into_data().to_vec::<f32>().unwrap(), [0.0, 2.0, 0.0]);
/// assert!(try_rfft(x, 0, Some(6)).unwrap_err().to_string().contains("4 or 8"));
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_rfft<const D: usize>(
    signal: Tensor<D>,
    dim: impl AsIndex,
    n: Option<usize>,
) -> Result<(Tensor<D>, Tensor<D>)> {
    try_rfft_with(signal, dim, n, Policy::shared_strict())
}

/// [`try_rfft`] under `policy`: on a device without the FFT, when the policy allows
/// [`Op::Fft`], the signal moves to the first capable device, the spectrum back.
///
/// # Errors
///
/// As [`try_rfft`]; [`GuardError::Unsupported`] naming every fallback's gap when none can.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::policy::{Op, Policy};
/// use burn_guard::signal::try_rfft_with;
///
/// # #[allow(deprecated)]
/// let ndarray = Device::ndarray();
/// let policy = Policy::fallback_to([Device::flex()]);
/// let x = Tensor::<1>::from_floats([1.0, 0.0, 0.0, 0.0], &ndarray);
/// let (re, _) = try_rfft_with(x, 0, None, &policy)?;
/// assert_eq!(re.device(), ndarray);
/// assert_eq!(re.into_data().to_vec::<f32>().unwrap(), [1.0, 1.0, 1.0]);
/// assert_eq!(policy.stats_of(Op::Fft).fallbacks, 1);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_rfft_with<const D: usize>(
    signal: Tensor<D>,
    dim: impl AsIndex,
    n: Option<usize>,
    policy: &Policy,
) -> Result<(Tensor<D>, Tensor<D>)> {
    const OP: &str = "rfft";
    let dims = signal.dims();
    let dim = policy.checked(Op::Fft, rfft_rules(OP, &dims, dim.as_index(), n))?;
    let home = signal.device();
    EXTENSION.run(OP, policy, &home, |trip| {
        let moved = trip.out(signal)?;
        let (re, im) = catch(OP, || burn_signal::rfft(moved, dim, n))?;
        Ok((trip.back(re)?, trip.back(im)?))
    })
}

/// The rules of `rfft` (and of each part of `cfft`); returns the resolved dim.
fn rfft_rules(op: &'static str, dims: &[usize], dim: isize, n: Option<usize>) -> Result<usize> {
    let dim = crate::check::shape::dim(op, dim, dims.len())?;
    let len = dims.get(dim).copied().unwrap_or(0);
    rules::fft_length(op, len, n)?;
    rules::rfft_samples(op, dims, dim)?;
    Ok(dim)
}

/// Fallible twin of [`burn_signal::irfft`]: `dim` in range, real and imaginary parts of one
/// shape, dtype and device, at least one bin, and an output length that is a power of two
/// ([`check::signal::irfft_spectrum`](crate::check::signal::irfft_spectrum)). Without `n` the
/// implied length `2 · (bins − 1)` must be one on every backend: Flex panics on another and
/// CubeCL pads it silently, so the twin refuses it everywhere.
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`], [`GuardError::ShapeMismatch`],
/// [`GuardError::DTypeMismatch`], [`GuardError::DeviceMismatch`], [`GuardError::Empty`],
/// [`GuardError::OutOfRange`], [`GuardError::Unsupported`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::signal::try_irfft;
///
/// let device = Device::flex();
/// let re = Tensor::<1>::from_floats([10.0, -2.0, -2.0], &device);
/// let im = Tensor::<1>::from_floats([0.0, 2.0, 0.0], &device);
/// let x = try_irfft(re.clone(), im.clone(), 0, None)?;
/// assert_eq!(x.into_data().to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
/// let four = Tensor::<1>::zeros([4], &device); // 6 samples implied
/// assert!(try_irfft(four.clone(), four, 0, None).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_irfft<const D: usize>(
    spectrum_re: Tensor<D>,
    spectrum_im: Tensor<D>,
    dim: impl AsIndex,
    n: Option<usize>,
) -> Result<Tensor<D>> {
    try_irfft_with(spectrum_re, spectrum_im, dim, n, Policy::shared_strict())
}

/// [`try_irfft`] under `policy` (see [`try_rfft_with`]).
///
/// # Errors
///
/// As [`try_irfft`]; [`GuardError::Unsupported`] naming every fallback's gap when none can.
pub fn try_irfft_with<const D: usize>(
    spectrum_re: Tensor<D>,
    spectrum_im: Tensor<D>,
    dim: impl AsIndex,
    n: Option<usize>,
    policy: &Policy,
) -> Result<Tensor<D>> {
    const OP: &str = "irfft";
    let checks = || -> Result<usize> {
        let dims = spectrum_re.dims();
        let dim = crate::check::shape::dim(OP, dim.as_index(), D)?;
        rules::irfft_spectrum(OP, &dims, &spectrum_im.dims(), dim, n)?;
        same_parts(OP, &spectrum_re, &spectrum_im)?;
        Ok(dim)
    };
    let dim = policy.checked(Op::Fft, checks())?;
    on_parts(OP, policy, spectrum_re, spectrum_im, |trip, re, im| {
        trip.back(catch(OP, || burn_signal::irfft(re, im, dim, n))?)
    })
}

/// `call` with a complex signal's two parts, moved to the device the policy routes `op` to
/// (or left home): the one trip the two-part functions share.
fn on_parts<const D: usize, T>(
    op: &'static str,
    policy: &Policy,
    re: Tensor<D>,
    im: Tensor<D>,
    call: impl FnOnce(&mut Trip<'_>, Tensor<D>, Tensor<D>) -> Result<T>,
) -> Result<T> {
    let home = re.device();
    EXTENSION.run(op, policy, &home, |trip| {
        let re = trip.out(re)?;
        let im = trip.out(im)?;
        call(trip, re, im)
    })
}

/// Two parts of one complex tensor: one dtype, one device.
fn same_parts<const D: usize>(op: &'static str, re: &Tensor<D>, im: &Tensor<D>) -> Result<()> {
    crate::check::elementwise::same_dtype(op, re.dtype(), im.dtype())?;
    same_devices(op, &[re.device(), im.device()])
}

/// Fallible twin of [`burn_signal::cfft`]: real and imaginary parts of one shape, dtype and
/// device, then the rules of [`try_rfft`] for each part. Returns the full `n`-bin spectrum.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`], [`GuardError::DTypeMismatch`],
/// [`GuardError::DeviceMismatch`], and what [`try_rfft`] returns.
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::signal::try_cfft;
///
/// let device = Device::flex();
/// let re = Tensor::<1>::from_floats([1.0, 0.0, -1.0, 0.0], &device);
/// let im = Tensor::<1>::from_floats([0.0, 1.0, 0.0, -1.0], &device);
/// let (sr, si) = try_cfft(re.clone(), im, 0, None)?;
/// assert_eq!(sr.into_data().to_vec::<f32>().unwrap(), [0.0, 4.0, 0.0, 0.0]);
/// assert!(try_cfft(re, Tensor::<1>::zeros([2], &device), 0, None).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_cfft<const D: usize>(
    signal_re: Tensor<D>,
    signal_im: Tensor<D>,
    dim: impl AsIndex,
    n: Option<usize>,
) -> Result<(Tensor<D>, Tensor<D>)> {
    try_cfft_with(signal_re, signal_im, dim, n, Policy::shared_strict())
}

/// [`try_cfft`] under `policy` (see [`try_rfft_with`]).
///
/// # Errors
///
/// As [`try_cfft`]; [`GuardError::Unsupported`] naming every fallback's gap when none can.
pub fn try_cfft_with<const D: usize>(
    signal_re: Tensor<D>,
    signal_im: Tensor<D>,
    dim: impl AsIndex,
    n: Option<usize>,
    policy: &Policy,
) -> Result<(Tensor<D>, Tensor<D>)> {
    const OP: &str = "cfft";
    let checks = || -> Result<usize> {
        let dims = signal_re.dims();
        crate::check::shape::same_shape(
            OP,
            "the real and imaginary parts must have the same shape",
            &dims,
            &signal_im.dims(),
        )?;
        let dim = rfft_rules(OP, &dims, dim.as_index(), n)?;
        same_parts(OP, &signal_re, &signal_im)?;
        Ok(dim)
    };
    let dim = policy.checked(Op::Fft, checks())?;
    on_parts(OP, policy, signal_re, signal_im, |trip, re, im| {
        let (re, im) = catch(OP, || burn_signal::cfft(re, im, dim, n))?;
        Ok((trip.back(re)?, trip.back(im)?))
    })
}

/// Fallible twin of [`burn_signal::stft`]: the options' rules
/// ([`check::signal::stft_options`](crate::check::signal::stft_options): `n_fft` a power of two,
/// `hop_length` at most the window length, ...), the window's length, enough samples for the
/// padding or one frame ([`check::signal::stft_signal`](crate::check::signal::stft_signal)), the
/// window on the signal's device and dtype. Returns `[batch, frames, bins, 2]` (real,
/// imaginary). burn's `StftOptions::default()` (`n_fft = 400`) is refused with the fix:
/// `n_fft = 512` with `win_length = Some(400)`.
///
/// # Errors
///
/// [`GuardError::OutOfRange`], [`GuardError::OutOfOrder`], [`GuardError::ShapeMismatch`],
/// [`GuardError::DTypeMismatch`], [`GuardError::DeviceMismatch`],
/// [`GuardError::Unsupported`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::signal::{StftOptions, try_stft};
///
/// let x = Tensor::<2>::ones([2, 64], &Device::flex());
/// assert_eq!(try_stft(x.clone(), None, StftOptions::new(16))?.dims(), [2, 17, 9, 2]);
/// let hop_too_long = StftOptions { hop_length: 20, ..StftOptions::new(16) };
/// assert!(try_stft(x, None, hop_too_long).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_stft(
    signal: Tensor<2>,
    window: Option<Tensor<1>>,
    options: StftOptions,
) -> Result<Tensor<4>> {
    try_stft_with(signal, window, options, Policy::shared_strict())
}

/// [`try_stft`] under `policy`: on a device without the FFT the signal and window move to the
/// first capable device, the whole transform (framing, window, FFT) runs there, the result
/// moves back (see [`try_rfft_with`]).
///
/// # Errors
///
/// As [`try_stft`]; [`GuardError::Unsupported`] naming every fallback's gap when none can.
pub fn try_stft_with(
    signal: Tensor<2>,
    window: Option<Tensor<1>>,
    options: StftOptions,
    policy: &Policy,
) -> Result<Tensor<4>> {
    const OP: &str = "stft";
    let checks = || -> Result<()> {
        rules::stft_options(OP, &options)?;
        rules::stft_window(
            OP,
            window.as_ref().map(|w| w.dims()).as_ref().map(|d| &d[..]),
            &options,
        )?;
        rules::stft_signal(OP, &signal.dims(), &options)?;
        window_like(OP, signal.dtype(), &signal.device(), window.as_ref())
    };
    policy.checked(Op::Fft, checks())?;
    let home = signal.device();
    EXTENSION.run(OP, policy, &home, |trip| {
        let moved = trip.out(signal)?;
        let window = window.map(|w| trip.out(w)).transpose()?;
        trip.back(catch(OP, || burn_signal::stft(moved, window, options))?)
    })
}

/// A window beside a tensor: its dtype and device.
fn window_like(
    op: &'static str,
    dtype: DType,
    device: &Device,
    window: Option<&Tensor<1>>,
) -> Result<()> {
    match window {
        Some(window) => {
            crate::check::elementwise::same_dtype(op, dtype, window.dtype())?;
            same_devices(op, &[device.clone(), window.device()])
        }
        None => Ok(()),
    }
}

/// Fallible twin of [`burn_signal::istft`]: the options' rules (as [`try_stft`]), a matrix
/// `[batch, frames, bins, 2]` with at least one frame and the bins these options make
/// ([`check::signal::istft_matrix`](crate::check::signal::istft_matrix)), the window's length,
/// dtype and device.
///
/// # Errors
///
/// [`GuardError::OutOfRange`], [`GuardError::OutOfOrder`], [`GuardError::ShapeMismatch`],
/// [`GuardError::Empty`], [`GuardError::DTypeMismatch`], [`GuardError::DeviceMismatch`],
/// [`GuardError::Unsupported`].
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::signal::{StftOptions, try_istft, try_stft};
///
/// let x = Tensor::<2>::from_floats([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]], &Device::flex());
/// let options = StftOptions::new(4);
/// let back = try_istft(try_stft(x.clone(), None, options)?, None, Some(8), options)?;
/// back.into_data().assert_approx_eq::<f32>(&x.into_data(), burn::tensor::Tolerance::default());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn try_istft(
    stft_matrix: Tensor<4>,
    window: Option<Tensor<1>>,
    length: Option<usize>,
    options: StftOptions,
) -> Result<Tensor<2>> {
    try_istft_with(
        stft_matrix,
        window,
        length,
        options,
        Policy::shared_strict(),
    )
}

/// [`try_istft`] under `policy` (see [`try_stft_with`]).
///
/// # Errors
///
/// As [`try_istft`]; [`GuardError::Unsupported`] naming every fallback's gap when none can.
pub fn try_istft_with(
    stft_matrix: Tensor<4>,
    window: Option<Tensor<1>>,
    length: Option<usize>,
    options: StftOptions,
    policy: &Policy,
) -> Result<Tensor<2>> {
    const OP: &str = "istft";
    let checks = || -> Result<()> {
        rules::stft_options(OP, &options)?;
        rules::istft_matrix(OP, &stft_matrix.dims(), &options)?;
        rules::istft_output(OP, &stft_matrix.dims(), length, &options)?;
        rules::stft_window(
            OP,
            window.as_ref().map(|w| w.dims()).as_ref().map(|d| &d[..]),
            &options,
        )?;
        window_like(
            OP,
            stft_matrix.dtype(),
            &stft_matrix.device(),
            window.as_ref(),
        )
    };
    policy.checked(Op::Fft, checks())?;
    let home = stft_matrix.device();
    EXTENSION.run(OP, policy, &home, |trip| {
        let moved = trip.out(stft_matrix)?;
        let window = window.map(|w| trip.out(w)).transpose()?;
        trip.back(catch(OP, || {
            burn_signal::istft(moved, window, length, options)
        })?)
    })
}

/// The checks of a window's creation: a float dtype (burn-signal casts to the one asked for,
/// and panics on an integer or bool one), a size that fits `i64` and the device's buffers.
fn window_checks(op: &'static str, size: usize, options: &TensorCreationOptions) -> Result<()> {
    let dtype = options
        .dtype
        .unwrap_or_else(|| options.device.settings().float_dtype.into());
    crate::check::creation::creation_dtype(op, Kind::Float, dtype)?;
    if i64::try_from(size).is_err() {
        return Err(crate::error::GuardError::OutOfRange {
            op,
            rule: "the window's size must fit in i64 (burn builds it with an arange)",
            name: "size",
            value: size.into(),
            limit: crate::error::Limit::AtMost(i64::MAX.into()),
        });
    }
    require_fits(op, &[size], dtype, &options.device).map(|_| ())
}

macro_rules! window_twins {
    ($($(#[$doc:meta])* $twin:ident => $burn:ident, $op:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// # Errors
        ///
        /// [`GuardError::InvalidDType`] for a non-float dtype, [`GuardError::OutOfRange`] for a
        /// size over `i64::MAX`, [`GuardError::TooLarge`] over the device's largest buffer.
        pub fn $twin(
            size: usize,
            periodic: bool,
            options: impl Into<TensorCreationOptions>,
        ) -> Result<Tensor<1>> {
            const OP: &str = $op;
            let options = options.into();
            window_checks(OP, size, &options)?;
            catch(OP, || burn_signal::$burn(size, periodic, options))
        }
    )*};
}

window_twins! {
    /// Fallible twin of [`burn_signal::hann_window`]: a float dtype and a size that fits.
    ///
    /// ```
    /// use burn::tensor::{DType, Device};
    /// use burn_guard::signal::try_hann_window;
    ///
    /// let device = Device::flex();
    /// assert_eq!(try_hann_window(4, true, &device)?.into_data().to_vec::<f32>().unwrap(), [0.0, 0.5, 1.0, 0.5]);
    /// assert!(try_hann_window(4, true, (&device, DType::I32)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    try_hann_window => hann_window, "hann_window";
    /// Fallible twin of [`burn_signal::hamming_window`]: a float dtype and a size that fits.
    ///
    /// ```
    /// use burn::tensor::Device;
    /// use burn_guard::signal::try_hamming_window;
    ///
    /// assert_eq!(try_hamming_window(8, false, &Device::flex())?.dims(), [8]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    try_hamming_window => hamming_window, "hamming_window";
    /// Fallible twin of [`burn_signal::blackman_window`]: a float dtype and a size that fits.
    ///
    /// ```
    /// use burn::tensor::Device;
    /// use burn_guard::signal::try_blackman_window;
    ///
    /// assert_eq!(try_blackman_window(8, true, &Device::flex())?.dims(), [8]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    try_blackman_window => blackman_window, "blackman_window";
}
