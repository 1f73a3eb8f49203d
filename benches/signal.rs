//! What the burn-signal twins cost against burn's functions on Flex: a 1 024-point `rfft` over
//! 64 signals, and an `stft` of one second of 16 kHz audio (Whisper's window of 400 samples in a
//! 512-point frame, hop 160), each ending in a read of its output.
//!
//! ```text
//! cargo bench --profile dev --all-features --bench signal
//! ```
//!
//! One paired criterion benchmark per function (`benches/support/paired.rs`): each iteration
//! runs burn's call and the twin's, alternating which goes first. The twin's extra work is its
//! rules (on shapes and options only), the capability answer for the device, and the policy's
//! count.

#[path = "support/paired.rs"]
mod paired;

use burn::tensor::{Device, Distribution, Tensor};
use burn_guard::signal::{StftOptions, try_hann_window, try_rfft, try_stft};

fn read<const D: usize>(t: Tensor<D>) -> usize {
    t.into_data().bytes().len()
}

fn main() {
    let mut c = paired::twin_criterion();
    let device = Device::flex();
    device.seed(3);
    let mut results = Vec::new();

    let signals = Tensor::<2>::random([64, 1024], Distribution::Default, &device);
    let group = "rfft [64, 1024] flex".to_owned();
    let record = paired::paired(
        &mut c,
        &group,
        &mut [
            ("burn rfft", &mut || {
                read(burn_signal::rfft(signals.clone(), 1, None).0)
            }),
            ("try_rfft", &mut || {
                read(try_rfft(signals.clone(), 1, None).unwrap().0)
            }),
        ],
    );
    results.push((group, record));

    let audio = Tensor::<2>::random([1, 16_000], Distribution::Default, &device);
    let window = try_hann_window(400, true, &device).unwrap();
    let options = StftOptions {
        win_length: Some(400),
        hop_length: 160,
        ..StftOptions::new(512)
    };
    let group = "stft [1, 16000] n_fft 512 flex".to_owned();
    let record = paired::paired(
        &mut c,
        &group,
        &mut [
            ("burn stft", &mut || {
                read(burn_signal::stft(
                    audio.clone(),
                    Some(window.clone()),
                    options,
                ))
            }),
            ("try_stft", &mut || {
                read(try_stft(audio.clone(), Some(window.clone()), options).unwrap())
            }),
        ],
    );
    results.push((group, record));

    paired::finish_twins(&mut c, &results);
}
