//! Rules of burn-signal 0.22.1: the `assert!`s of its `functions/fft.rs` and
//! `functions/stft.rs` (`StftOptions::assert_valid`), and what burn-flex's FFT kernels assert
//! below them (`ops/fft.rs`: an empty spectrum, an implied `irfft` length that is not a power
//! of two), as pure functions of shapes, lengths and options.
//!
//! burn-signal computes every FFT length as a power of two (no Bluestein step in 0.22), so a
//! length that is not one is refused with its two nearest powers of two
//! ([`Limit::PowerOfTwo`]); an `stft` frame of another length keeps its window through
//! `win_length` ([`stft_options`]).

use burn_signal::StftOptions;

use super::rule::Rule;
use super::shape;

use crate::error::{GuardError as Error, Limit, Result};

/// `n` is a power of two; otherwise [`GuardError::OutOfRange`](Error::OutOfRange) naming the
/// two nearest.
///
/// # Errors
///
/// [`GuardError::OutOfRange`](Error::OutOfRange) with [`Limit::PowerOfTwo`].
///
/// ```
/// use burn_guard::check::signal;
/// assert!(signal::power_of_two("rfft", "the FFT length must be a power of two", "n", 1024).is_ok());
/// let err = signal::power_of_two("rfft", "the FFT length must be a power of two", "n", 1000)
///     .unwrap_err();
/// assert!(err.to_string().contains("512 or 1024"));
/// ```
pub fn power_of_two(
    op: &'static str,
    rule: &'static str,
    name: &'static str,
    n: usize,
) -> Result<()> {
    if n.is_power_of_two() {
        return Ok(());
    }
    let above = n.checked_next_power_of_two().unwrap_or(0);
    Err(Error::OutOfRange {
        op,
        rule,
        name,
        value: n.into(),
        limit: Limit::PowerOfTwo {
            below: (above / 2) as u64,
            above: above as u64,
        },
    })
}

/// The length an FFT runs at along `dim` (burn-signal's `rfft` front end): with `n` given, a
/// power of two (at least 1); without, the signal's own length must be one.
///
/// # Errors
///
/// [`GuardError::OutOfRange`](Error::OutOfRange) with [`Limit::PowerOfTwo`].
///
/// ```
/// use burn_guard::check::signal;
/// assert_eq!(signal::fft_length("rfft", 1000, Some(1024))?, 1024);
/// assert!(signal::fft_length("rfft", 1000, None).is_err());
/// assert!(signal::fft_length("rfft", 4, Some(0)).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn fft_length(op: &'static str, len: usize, n: Option<usize>) -> Result<usize> {
    match n {
        Some(n) => {
            power_of_two(
                op,
                "n, the FFT length, must be a power of two (burn-signal 0.22 computes no other); \
                 the signal is zero-padded or truncated to it",
                "n",
                n,
            )?;
            Ok(n)
        }
        None => {
            power_of_two(
                op,
                "without n, the signal's length along dim must be a power of two; pass n (a \
                 power of two) to zero-pad or truncate it",
                "signal length",
                len,
            )?;
            Ok(len)
        }
    }
}

/// An `rfft` with `n` given of a signal with no samples along `dim`: burn-flex divides by the
/// empty length (`ops/fft.rs`, its fibre count).
///
/// # Errors
///
/// [`GuardError::Empty`](Error::Empty).
pub fn rfft_samples(op: &'static str, dims: &[usize], dim: usize) -> Result<()> {
    if dims.get(dim).copied().unwrap_or(0) > 0 {
        return Ok(());
    }
    Err(Rule(op, "the signal must have at least one sample along dim").empty(dims, Some(dim)))
}

/// The spectrum an `irfft` reads: real and imaginary parts of one shape, at least one bin along
/// `dim`, and an output length that is a power of two: `n` when given, else the implied
/// `2 · (bins − 1)` (burn-flex's rule; CubeCL pads instead, so a non-power-of-two implied length
/// is refused on every backend). Returns the output length.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`](Error::ShapeMismatch), [`GuardError::Empty`](Error::Empty),
/// [`GuardError::OutOfRange`](Error::OutOfRange).
///
/// ```
/// use burn_guard::check::signal;
/// assert_eq!(signal::irfft_spectrum("irfft", &[5], &[5], 0, None)?, 8);
/// assert!(signal::irfft_spectrum("irfft", &[4], &[4], 0, None).is_err()); // 6 samples
/// assert_eq!(signal::irfft_spectrum("irfft", &[4], &[4], 0, Some(8))?, 8);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn irfft_spectrum(
    op: &'static str,
    re: &[usize],
    im: &[usize],
    dim: usize,
    n: Option<usize>,
) -> Result<usize> {
    shape::same_shape(
        op,
        "the real and imaginary parts must have the same shape",
        re,
        im,
    )?;
    Rule(op, "the spectrum must have at least one bin along dim").nonempty_dim(re, dim)?;
    let bins = re.get(dim).copied().unwrap_or(0);
    match n {
        Some(n) => {
            power_of_two(
                op,
                "n, the output length, must be a power of two (burn-signal 0.22 computes no other)",
                "n",
                n,
            )?;
            Ok(n)
        }
        None => {
            let implied = 2 * (bins - 1);
            power_of_two(
                op,
                "without n, the implied output length 2 * (bins - 1) must be a power of two \
                 (Flex panics, CubeCL pads and truncates); pass n",
                "2 * (bins - 1)",
                implied,
            )?;
            Ok(implied)
        }
    }
}

/// [`StftOptions`] as burn-signal's `assert_valid` reads them: `n_fft` a power of two (at
/// least 1), `hop_length` at least 1, the window length (`win_length`, or `n_fft`) in
/// `1..=n_fft`, and `hop_length` at most the window length (so that overlap-add can invert).
/// burn's default options (`n_fft = 400`, Whisper's) fail the first rule; the message names
/// the fix: `n_fft = 512` with `win_length = Some(400)` keeps a 400-sample window.
///
/// # Errors
///
/// [`GuardError::OutOfRange`](Error::OutOfRange), [`GuardError::OutOfOrder`](Error::OutOfOrder).
///
/// ```
/// use burn_guard::check::signal;
/// use burn_guard::signal::StftOptions;
/// let err = signal::stft_options("stft", &StftOptions::default()).unwrap_err();
/// assert!(err.to_string().contains("win_length"));
/// let whisper = StftOptions { n_fft: 512, win_length: Some(400), hop_length: 160, ..StftOptions::new(512) };
/// assert!(signal::stft_options("stft", &whisper).is_ok());
/// ```
pub fn stft_options(op: &'static str, options: &StftOptions) -> Result<()> {
    let at_least_one = |name: &'static str, rule: &'static str, value: usize| {
        if value >= 1 {
            Ok(())
        } else {
            Err(Rule(op, rule).out_of_range(name, value, Limit::AtLeast(1usize.into())))
        }
    };
    at_least_one("n_fft", "n_fft must be at least 1", options.n_fft)?;
    power_of_two(
        op,
        "n_fft must be a power of two (burn-signal 0.22 computes no other FFT length); to keep a \
         window of another length, pass the next power of two as n_fft and the window's length \
         as win_length",
        "n_fft",
        options.n_fft,
    )?;
    at_least_one(
        "hop_length",
        "hop_length must be at least 1",
        options.hop_length,
    )?;
    let win_length = window_length(options);
    at_least_one(
        "win_length",
        "the window length (win_length, or n_fft) must be at least 1",
        win_length,
    )?;
    if win_length > options.n_fft {
        return Err(Error::OutOfOrder {
            op,
            rule: "win_length must not exceed n_fft",
            lower_name: "win_length",
            lower: win_length.into(),
            upper_name: "n_fft",
            upper: options.n_fft.into(),
        });
    }
    if options.hop_length > win_length {
        return Err(Error::OutOfOrder {
            op,
            rule: "hop_length must not exceed the window length (win_length, or n_fft), or \
                   overlap-add cannot invert the transform",
            lower_name: "hop_length",
            lower: options.hop_length.into(),
            upper_name: "win_length",
            upper: win_length.into(),
        });
    }
    Ok(())
}

/// The window's length burn-signal expects: `win_length`, or `n_fft`.
fn window_length(options: &StftOptions) -> usize {
    options.win_length.unwrap_or(options.n_fft)
}

/// A window given to `stft` or `istft` has the effective window length.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`](Error::ShapeMismatch).
pub fn stft_window(
    op: &'static str,
    window: Option<&[usize]>,
    options: &StftOptions,
) -> Result<()> {
    match window {
        Some(dims) => shape::same_shape(
            op,
            "the window's length must be the window length (win_length, or n_fft)",
            dims,
            &[window_length(options)],
        ),
        None => Ok(()),
    }
}

/// The signal `stft` frames, `[batch, samples]`: with `center`, a batch that is not empty and
/// more samples than `n_fft / 2` (the reflect padding reads that many); without, at least
/// `n_fft` samples.
///
/// # Errors
///
/// [`GuardError::Empty`](Error::Empty), [`GuardError::OutOfRange`](Error::OutOfRange).
///
/// ```
/// use burn_guard::check::signal;
/// use burn_guard::signal::StftOptions;
/// assert!(signal::stft_signal("stft", &[0, 8], &StftOptions::new(4)).is_err());
/// assert!(signal::stft_signal("stft", &[1, 2], &StftOptions::new(4)).is_err());
/// assert!(signal::stft_signal("stft", &[1, 3], &StftOptions::new(4)).is_ok());
/// ```
pub fn stft_signal(op: &'static str, dims: &[usize], options: &StftOptions) -> Result<()> {
    let samples = dims.get(1).copied().unwrap_or(0);
    let n_fft = options.n_fft;
    if options.center && dims.first() == Some(&0) {
        // burn-backend's reflect padding asks `0 < size` of every dim, the unpadded batch too.
        return Err(Rule(
            op,
            "with center, the batch must not be empty (burn's reflect padding refuses an \
                   empty dimension)",
        )
        .empty(dims, Some(0)));
    }
    if options.center && samples <= n_fft / 2 {
        return Err(Rule(
            op,
            "with center, the signal needs more samples than n_fft / 2 (the reflect \
                   padding)",
        )
        .out_of_range("signal length", samples, Limit::Above((n_fft / 2).into())));
    }
    if !options.center && samples < n_fft {
        return Err(Rule(
            op,
            "without center, the signal needs at least n_fft samples (one frame)",
        )
        .out_of_range("signal length", samples, Limit::AtLeast(n_fft.into())));
    }
    Ok(())
}

/// The matrix `istft` inverts, `[batch, frames, bins, 2]`: a last dimension of 2 (real and
/// imaginary), at least one frame, and the bins `stft` makes with these options
/// (`n_fft / 2 + 1` one-sided, else `n_fft`).
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`](Error::ShapeMismatch), [`GuardError::Empty`](Error::Empty).
///
/// ```
/// use burn_guard::check::signal;
/// use burn_guard::signal::StftOptions;
/// assert!(signal::istft_matrix("istft", &[1, 3, 3, 2], &StftOptions::new(4)).is_ok());
/// assert!(signal::istft_matrix("istft", &[1, 3, 4, 2], &StftOptions::new(4)).is_err());
/// ```
pub fn istft_matrix(op: &'static str, dims: &[usize], options: &StftOptions) -> Result<()> {
    let [batch, frames, bins, parts] = match dims {
        [a, b, c, d] => [*a, *b, *c, *d],
        _ => [0, 0, 0, 0],
    };
    let bins_expected = if options.onesided {
        options.n_fft / 2 + 1
    } else {
        options.n_fft
    };
    let expected = [batch, frames, bins_expected, 2];
    if parts != 2 || bins != bins_expected {
        return Err(Rule(
            op,
            "the matrix must be [batch, frames, bins, 2], with n_fft / 2 + 1 bins \
                   one-sided or n_fft bins two-sided",
        )
        .shape_mismatch(&[dims, &expected]));
    }
    Rule(op, "the matrix must hold at least one frame").nonempty_dim(dims, 1)
}

/// The signal `istft` returns: with `center`, the frames must cover more than the padding it
/// trims (one frame of `n_fft ≥ 2` leaves no sample), and a `length` given must be at least 1
/// (burn narrows to it, and a narrow of 0 panics).
///
/// # Errors
///
/// [`GuardError::Empty`](Error::Empty), [`GuardError::OutOfRange`](Error::OutOfRange).
///
/// ```
/// use burn_guard::check::signal;
/// use burn_guard::signal::StftOptions;
/// assert!(signal::istft_output("istft", &[1, 1, 3, 2], None, &StftOptions::new(4)).is_err());
/// assert!(signal::istft_output("istft", &[1, 2, 3, 2], Some(0), &StftOptions::new(4)).is_err());
/// assert!(signal::istft_output("istft", &[1, 2, 3, 2], Some(8), &StftOptions::new(4)).is_ok());
/// ```
pub fn istft_output(
    op: &'static str,
    dims: &[usize],
    length: Option<usize>,
    options: &StftOptions,
) -> Result<()> {
    let frames = dims.get(1).copied().unwrap_or(0);
    let padding = options.n_fft / 2;
    if options.center && padding > 0 && frames.saturating_sub(1) * options.hop_length == 0 {
        return Err(Rule(
            op,
            "with center, the frames must reach past the padding istft trims: one frame \
                   leaves no sample",
        )
        .empty(dims, Some(1)));
    }
    if length == Some(0) {
        return Err(
            Rule(op, "the output length, when given, must be at least 1").out_of_range(
                "length",
                0usize,
                Limit::AtLeast(1usize.into()),
            ),
        );
    }
    Ok(())
}
