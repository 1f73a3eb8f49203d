//! Whisper-style log-mel features through burn-guard's burn-signal twins.
//!
//! ```text
//! cargo run --all-features --example log_mel
//! ```
//!
//! 1. `stft` with burn's `StftOptions::default()` (Whisper's `n_fft = 400`): burn-signal panics
//!    (it computes power-of-two FFTs only); the twin refuses in one line that names the fix.
//! 2. The fix: a 400-sample Hann window in a 512-point frame (`n_fft = 512`,
//!    `win_length = Some(400)`, hop 160), one second of a 16 kHz chirp, 80 mel bands, Whisper's
//!    log scaling, on Flex. These are not Whisper's exact features (its bins are 40 Hz apart,
//!    these 31.25 Hz): the mel filter bank is built for the 257 bins this frame gives.
//! 3. The same on NdArray, which has no FFT in burn 0.22: the transform runs on Flex under a
//!    fallback policy (audio moved there, spectrum back, counted); the rest on NdArray.

#![allow(deprecated)] // NdArray is deprecated upstream; still supported.

use burn::tensor::{Device, Tensor, TensorData};
use burn_guard::policy::{Op, Policy};
use burn_guard::prelude::*;
use burn_guard::signal::{StftOptions, try_hann_window, try_stft, try_stft_with};

const SAMPLE_RATE: f64 = 16_000.0;
const N_FFT: usize = 512;
const WINDOW: usize = 400;
const HOP: usize = 160;
const MELS: usize = 80;

fn hz_to_mel(hz: f64) -> f64 {
    2595.0 * (1.0 + hz / 700.0).log10()
}

fn mel_to_hz(mel: f64) -> f64 {
    700.0 * (10f64.powf(mel / 2595.0) - 1.0)
}

/// Triangular mel filters over the one-sided bins of an `N_FFT`-point frame: `[bins, MELS]`.
fn mel_filter_bank(device: &Device) -> Tensor<2> {
    let bins = N_FFT / 2 + 1;
    let top = hz_to_mel(SAMPLE_RATE / 2.0);
    let edges: Vec<f64> = (0..MELS + 2)
        .map(|i| mel_to_hz(top * i as f64 / (MELS + 1) as f64))
        .collect();
    let mut weights = vec![0f32; bins * MELS];
    for bin in 0..bins {
        let hz = bin as f64 * SAMPLE_RATE / N_FFT as f64;
        for mel in 0..MELS {
            let (low, centre, high) = (edges[mel], edges[mel + 1], edges[mel + 2]);
            let rise = (hz - low) / (centre - low);
            let fall = (high - hz) / (high - centre);
            weights[bin * MELS + mel] = rise.min(fall).max(0.0) as f32;
        }
    }
    Tensor::from_data(TensorData::new(weights, [bins, MELS]), device)
}

/// Whisper's scaling of mel power: log10, floored 8 below the peak, mapped to about [-1, 1].
fn log_mel(spectrum: Tensor<4>, filters: Tensor<2>) -> Result<Tensor<3>, GuardError> {
    let [batch, frames, bins, _] = spectrum.dims();
    let parts = spectrum.try_swap_dims(0, 3)?;
    let re = parts
        .clone()
        .try_narrow(0, 0, 1)?
        .try_reshape([batch, frames, bins])?;
    let im = parts
        .try_narrow(0, 1, 1)?
        .try_reshape([batch, frames, bins])?;
    let power = re.clone() * re + im.clone() * im;
    let mel = power.try_matmul(filters.unsqueeze_dim(0))?;
    let log = mel.try_clamp_min(1e-10)?.log() / std::f32::consts::LN_10;
    let peak = log.clone().max().into_scalar::<f32>();
    let scaled = (log.try_clamp_min(peak - 8.0)? + 4.0) / 4.0;
    scaled.try_swap_dims(1, 2)
}

fn chirp(device: &Device) -> Tensor<2> {
    let samples: Vec<f32> = (0..SAMPLE_RATE as usize)
        .map(|i| {
            let t = i as f64 / SAMPLE_RATE;
            (2.0 * std::f64::consts::PI * (200.0 + 1900.0 * t) * t).sin() as f32
        })
        .collect();
    Tensor::from_data(TensorData::new(samples, [1, SAMPLE_RATE as usize]), device)
}

fn main() -> Result<(), GuardError> {
    let flex = Device::flex();

    // 1. burn's defaults
    match try_stft(chirp(&flex), None, StftOptions::default()) {
        Ok(_) => println!("stft with burn's defaults: accepted (burn would have panicked)"),
        Err(err) => println!("stft with burn's defaults refused: {err}"),
    }

    // 2. On Flex
    let options = StftOptions {
        win_length: Some(WINDOW),
        hop_length: HOP,
        ..StftOptions::new(N_FFT)
    };
    let window = try_hann_window(WINDOW, true, &flex)?;
    let spectrum = try_stft(chirp(&flex), Some(window), options)?;
    let on_flex = log_mel(spectrum, mel_filter_bank(&flex))?;
    println!("log-mel on flex: {:?}", on_flex.dims());

    // 3. On NdArray, the transform through the fallback
    let ndarray = Device::ndarray();
    let policy = Policy::fallback_to([flex.clone()]);
    let window = try_hann_window(WINDOW, true, &ndarray)?;
    let spectrum = try_stft_with(chirp(&ndarray), Some(window), options, &policy)?;
    let on_ndarray = log_mel(spectrum, mel_filter_bank(&ndarray))?;
    println!(
        "log-mel on ndarray (through the fallback to flex): {:?}",
        on_ndarray.dims()
    );
    println!("fallbacks counted: {}", policy.stats_of(Op::Fft).fallbacks);
    let apart = (on_ndarray.to_device(&flex) - on_flex)
        .abs()
        .max()
        .into_scalar::<f32>();
    println!("flex and ndarray agree: max |difference| = {apart:.1e}");
    Ok(())
}
