//! The burn-signal twins, with the backstop off (a rule that let a bad input through would
//! panic through these tests instead of coming back as `BackendPanic`): burn's own
//! `#[should_panic]` cases refused by checks, and each twin against burn's function on the same
//! inputs (burn panics ⇔ the twin refuses; equal values otherwise) on Flex, where burn-signal
//! has its FFT here; on NdArray and wgpu, where burn panics for want of it, refused under the
//! strict policy and equal to Flex's answer under a fallback policy.
//! Its own test binary, because the switch is process-wide.

#![allow(deprecated)] // NdArray is deprecated upstream; still supported.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};

use burn::tensor::{DType, Device, Distribution, Tensor, TensorData};
use burn_guard::capability::Support;
use burn_guard::policy::{Op, Policy};
use burn_guard::prelude::*;
use burn_guard::signal::*;

fn no_backstop() {
    burn_guard::panic::set_backstop_disabled(true);
}

fn devices() -> Vec<Device> {
    let mut devices = vec![Device::flex(), Device::ndarray()];
    devices.extend(common::wgpu_device());
    devices
}

fn opts(n_fft: usize, hop_length: usize, center: bool, onesided: bool) -> StftOptions {
    StftOptions {
        n_fft,
        hop_length,
        win_length: None,
        center,
        onesided,
    }
}

/// burn-signal 0.22.1's `#[should_panic]` tests (`tests/backend/fft.rs`, `stft.rs`), each
/// refused by a check with the kind the design names, on every device (the checks come before
/// the capability).
#[test]
fn burns_should_panic_cases_are_refused_by_checks() {
    no_backstop();
    for device in devices() {
        let d = &device;
        let kind = |r: Result<(), GuardError>| r.unwrap_err().kind();
        let row = |values: &[f32]| {
            Tensor::<2>::from_data(TensorData::new(values.to_vec(), [1, values.len()]), d)
        };
        let v = |values: &[f32]| Tensor::<1>::from_floats(values, d);
        let matrix = |bins: usize| Tensor::<4>::zeros([1, 3, bins, 2], d);
        let cases: Vec<(&str, ErrorKind, ErrorKind)> = vec![
            (
                "rfft n 5",
                kind(try_rfft(v(&[1.0, 2.0, 3.0, 4.0]), 0, Some(5)).map(drop)),
                ErrorKind::OutOfRange,
            ),
            (
                "irfft n 5",
                kind(try_irfft(v(&[1.0, 2.0, 3.0]), v(&[0.0, 0.0, 0.0]), 0, Some(5)).map(drop)),
                ErrorKind::OutOfRange,
            ),
            (
                "cfft shapes",
                kind(try_cfft(v(&[1.0, 2.0, 3.0, 4.0]), v(&[1.0, 2.0]), 0, None).map(drop)),
                ErrorKind::ShapeMismatch,
            ),
            (
                "stft hop 5 > win 4",
                kind(try_stft(row(&[1.0; 16]), None, opts(4, 5, false, true)).map(drop)),
                ErrorKind::OutOfOrder,
            ),
            (
                "stft n_fft 0",
                kind(try_stft(row(&[1.0; 4]), None, opts(0, 1, false, true)).map(drop)),
                ErrorKind::OutOfRange,
            ),
            (
                "stft n_fft 5",
                kind(try_stft(row(&[1.0; 8]), None, opts(5, 1, false, true)).map(drop)),
                ErrorKind::OutOfRange,
            ),
            (
                "stft hop 0",
                kind(try_stft(row(&[1.0; 4]), None, opts(4, 0, false, true)).map(drop)),
                ErrorKind::OutOfRange,
            ),
            (
                "stft win 0",
                kind(
                    try_stft(
                        row(&[1.0; 4]),
                        None,
                        StftOptions {
                            win_length: Some(0),
                            ..opts(4, 1, false, true)
                        },
                    )
                    .map(drop),
                ),
                ErrorKind::OutOfRange,
            ),
            (
                "stft reflect pad",
                kind(try_stft(row(&[1.0, 2.0]), None, opts(4, 1, true, true)).map(drop)),
                ErrorKind::OutOfRange,
            ),
            (
                "istft window length",
                kind(
                    try_istft(
                        matrix(3),
                        Some(Tensor::<1>::ones([4], d)),
                        None,
                        StftOptions {
                            win_length: Some(3),
                            ..opts(4, 1, false, true)
                        },
                    )
                    .map(drop),
                ),
                ErrorKind::ShapeMismatch,
            ),
            (
                "istft n_freqs",
                kind(try_istft(matrix(4), None, None, opts(4, 1, false, true)).map(drop)),
                ErrorKind::ShapeMismatch,
            ),
        ];
        for (case, got, expected) in cases {
            assert_eq!(got, expected, "{case} on {device:?}");
        }
    }
}

#[path = "common/differential.rs"]
mod differential;
use differential::differential;

fn data<const D: usize>(t: Tensor<D>) -> TensorData {
    t.into_data()
}

fn data2<const D: usize>((a, b): (Tensor<D>, Tensor<D>)) -> Vec<TensorData> {
    vec![a.into_data(), b.into_data()]
}

fn random<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D> {
    Tensor::random(dims, Distribution::Uniform(-1.0, 1.0), device)
}

/// On Flex: rfft, irfft and cfft over every length 0..=9 along each dim of a rank-2 signal,
/// with n absent, 0, a power of two and not one, and dims in and out of range; stft and istft
/// over hops, window lengths, centring, sidedness, batch sizes (0 included) and windows of the
/// wrong length, dtype or device; the windows over sizes and dtypes. Every case burn panics on
/// is refused, every other gives burn's values; both outcomes occur.
#[test]
fn signal_twins_equal_burn_on_flex_or_refuse_where_it_panics() {
    no_backstop();
    let d = &Device::flex();
    let (mut answered, mut refused) = (0, 0);
    let mut count = |ok: bool| if ok { answered += 1 } else { refused += 1 };
    for len in 0..=9usize {
        for other in [0usize, 3] {
            let x = random([other.max(1), len], d);
            let y = random([other.max(1), len], d);
            let x0 = if other == 0 {
                Tensor::<2>::zeros([0, len], d)
            } else {
                x.clone()
            };
            for dim in [-1isize, 0, 1, 2] {
                for n in [None, Some(0), Some(1), Some(4), Some(6), Some(8)] {
                    let case = format!("rfft len {len} other {other} dim {dim} n {n:?}");
                    count(differential(
                        &case,
                        || burn_signal::rfft(x0.clone(), dim, n),
                        || try_rfft(x0.clone(), dim, n),
                        data2,
                    ));
                    let case = format!("irfft bins {len} dim {dim} n {n:?}");
                    count(differential(
                        &case,
                        || burn_signal::irfft(x.clone(), y.clone(), dim, n),
                        || try_irfft(x.clone(), y.clone(), dim, n),
                        data,
                    ));
                    let case = format!("cfft len {len} dim {dim} n {n:?}");
                    count(differential(
                        &case,
                        || burn_signal::cfft(x.clone(), y.clone(), dim, n),
                        || try_cfft(x.clone(), y.clone(), dim, n),
                        data2,
                    ));
                }
            }
        }
    }
    let f64_part = random([2, 5], d).cast(DType::F64);
    count(differential(
        "irfft parts of two dtypes",
        || burn_signal::irfft(random([2, 5], d), f64_part.clone(), 1, None),
        || try_irfft(random([2, 5], d), f64_part.clone(), 1, None),
        data,
    ));

    for batch in [0usize, 2] {
        for samples in [1usize, 2, 3, 4, 7, 8, 16, 33] {
            let signal = random([batch, samples], d);
            for n_fft in [0usize, 1, 2, 4, 6, 8] {
                for hop in [0usize, 1, 3, 4, 5] {
                    for win in [None, Some(0), Some(3), Some(4), Some(9)] {
                        for (center, onesided) in [(true, true), (false, true), (true, false)] {
                            let options = StftOptions {
                                win_length: win,
                                ..opts(n_fft, hop, center, onesided)
                            };
                            let case = format!("stft [{batch}, {samples}] {options:?}");
                            let answered = differential(
                                &case,
                                || burn_signal::stft(signal.clone(), None, options),
                                || try_stft(signal.clone(), None, options),
                                data,
                            );
                            count(answered);
                            if answered {
                                let matrix = burn_signal::stft(signal.clone(), None, options);
                                for length in [None, Some(samples), Some(samples + 3), Some(0)] {
                                    let case = format!("istft of {case} length {length:?}");
                                    count(differential(
                                        &case,
                                        || {
                                            burn_signal::istft(
                                                matrix.clone(),
                                                None,
                                                length,
                                                options,
                                            )
                                        },
                                        || try_istft(matrix.clone(), None, length, options),
                                        data,
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let signal = random([1, 16], d);
    let options = StftOptions {
        win_length: Some(3),
        ..opts(4, 1, true, true)
    };
    let windows: Vec<(&str, Tensor<1>)> = vec![
        ("right", Tensor::ones([3], d)),
        ("too long", Tensor::ones([4], d)),
        ("f64", Tensor::<1>::ones([3], d).cast(DType::F64)),
        ("ndarray", Tensor::ones([3], &Device::ndarray())),
    ];
    for (name, window) in windows {
        count(differential(
            &format!("stft window {name}"),
            || burn_signal::stft(signal.clone(), Some(window.clone()), options),
            || try_stft(signal.clone(), Some(window.clone()), options),
            data,
        ));
        let matrix = burn_signal::stft(signal.clone(), None, options);
        count(differential(
            &format!("istft window {name}"),
            || burn_signal::istft(matrix.clone(), Some(window.clone()), None, options),
            || try_istft(matrix.clone(), Some(window.clone()), None, options),
            data,
        ));
    }
    for size in [0usize, 1, 2, 7, 8] {
        for periodic in [true, false] {
            for dtype in [
                DType::F32,
                DType::F64,
                DType::F16,
                DType::I32,
                DType::Bool(burn::tensor::BoolStore::Native),
            ] {
                let case = format!("windows size {size} periodic {periodic} {dtype:?}");
                count(differential(
                    &format!("hann {case}"),
                    || burn_signal::hann_window(size, periodic, (d, dtype)),
                    || try_hann_window(size, periodic, (d, dtype)),
                    data,
                ));
                count(differential(
                    &format!("hamming {case}"),
                    || burn_signal::hamming_window(size, periodic, (d, dtype)),
                    || try_hamming_window(size, periodic, (d, dtype)),
                    data,
                ));
                count(differential(
                    &format!("blackman {case}"),
                    || burn_signal::blackman_window(size, periodic, (d, dtype)),
                    || try_blackman_window(size, periodic, (d, dtype)),
                    data,
                ));
            }
        }
    }
    eprintln!("{answered} answered, {refused} refused");
    assert!(
        answered > 100 && refused > 100,
        "{answered} answered, {refused} refused"
    );
}

/// Where burn-signal has no FFT here (NdArray, wgpu), burn panics; the strict twin refuses with
/// `Unsupported`, and under a fallback policy every function runs on Flex with its inputs
/// moved there and its result moved back, equal to Flex's own answer and counted.
#[test]
fn signal_refuses_or_falls_back_where_burn_has_no_fft() {
    no_backstop();
    let flex = Device::flex();
    let x = random([3, 16], &flex);
    let y = random([3, 16], &flex);
    let options = StftOptions {
        win_length: Some(6),
        ..opts(8, 2, true, true)
    };
    let window = try_hann_window(6, true, &flex).unwrap();
    let matrix = burn_signal::stft(x.clone(), Some(window.clone()), options);
    for device in devices() {
        let native = fft_support(&device) == Support::Native;
        let on = |t: &Tensor<2>| t.clone().to_device(&device);
        let raw = catch_unwind(AssertUnwindSafe(|| burn_signal::rfft(on(&x), 1, None)));
        assert_eq!(raw.is_ok(), native, "fft_support is stale on {device:?}");
        if native {
            continue;
        }
        assert_eq!(
            try_rfft(on(&x), 1, None).unwrap_err().kind(),
            ErrorKind::Unsupported
        );
        let err = try_stft(on(&x), None, options).unwrap_err();
        assert!(err.to_string().contains("signal stft"), "{err}");
        let policy = Policy::fallback_to([flex.clone()]);
        let back = |t: Tensor<2>| {
            assert_eq!(t.device(), device);
            t.into_data()
        };
        let (re, im) = try_rfft_with(on(&x), 1, Some(8), &policy).unwrap();
        let (fre, fim) = burn_signal::rfft(x.clone(), 1, Some(8));
        assert_eq!((back(re), back(im)), (fre.into_data(), fim.into_data()));
        let spectrum = try_irfft_with(on(&x), on(&y), 1, Some(16), &policy).unwrap();
        let expected = burn_signal::irfft(x.clone(), y.clone(), 1, Some(16));
        assert_eq!(back(spectrum), expected.into_data());
        let (re, _) = try_cfft_with(on(&x), on(&y), 1, None, &policy).unwrap();
        let (fre, _) = burn_signal::cfft(x.clone(), y.clone(), 1, None);
        assert_eq!(back(re), fre.into_data());
        let w = window.clone().to_device(&device);
        let ours = try_stft_with(on(&x), Some(w.clone()), options, &policy).unwrap();
        assert_eq!(ours.device(), device);
        assert_eq!(ours.into_data(), matrix.clone().into_data());
        let m = matrix.clone().to_device(&device);
        let ours = try_istft_with(m, Some(w), Some(16), options, &policy).unwrap();
        let expected = burn_signal::istft(matrix.clone(), Some(window.clone()), Some(16), options);
        assert_eq!(back(ours), expected.into_data());
        let stats = policy.stats_of(Op::Fft);
        assert_eq!((stats.fallbacks, stats.errors), (5, 0), "{stats:?}");
        assert_eq!(
            stats.bytes_to_fallback,
            4 * (3 * 16 + 3 * 16 * 2 + 3 * 16 * 2 + 3 * 16 + 6 + 3 * 9 * 5 * 2 + 6),
            "{stats:?}"
        );
    }
}

/// Through Autodiff over Flex the FFT is native and differentiable, as burn-signal's autodiff
/// arm makes it: the twin's gradient equals raw burn's.
#[test]
fn rfft_differentiates_on_autodiff_flex() {
    no_backstop();
    let device = Device::flex().autodiff();
    assert_eq!(fft_support(&device), Support::Native);
    let grad = |twin: bool| {
        let x = Tensor::<1>::from_floats([1.0, -2.0, 0.5, 3.0], &device).require_grad();
        let (re, im) = if twin {
            try_rfft(x.clone(), 0, None).unwrap()
        } else {
            burn_signal::rfft(x.clone(), 0, None)
        };
        let loss = (re.clone() * re + im.clone() * im).sum();
        let grads = loss.backward();
        x.grad(&grads).unwrap().into_data()
    };
    assert_eq!(grad(true), grad(false));
}

#[path = "common/example.rs"]
mod example;

/// The example: Whisper's `n_fft = 400` refused in one line with the fix, then log-mel
/// features on Flex and on NdArray through the fallback, equal.
#[test]
fn the_log_mel_example_refuses_400_then_runs_on_flex_and_ndarray() {
    let stdout = example::run_example("log_mel", &[], "`cargo test --all-features`");
    let stdout = String::from_utf8(stdout).unwrap();
    for line in [
        "stft with burn's defaults refused: stft: n_fft must be a power of two",
        "got n_fft=400, expected a power of two, such as 256 or 512",
        "log-mel on flex: [1, 80, 101]",
        "log-mel on ndarray (through the fallback to flex): [1, 80, 101]",
        "fallbacks counted: 1",
    ] {
        assert!(stdout.contains(line), "{line}: {stdout}");
    }
    // Only the FFT runs on Flex for NdArray; its matmul and logarithm round on their own.
    let apart = example::number_after(&stdout, "max |difference| = ");
    assert!(apart < 1e-4, "{stdout}");
}

/// `capabilities --json` lists the FFT per backend: native on Flex, a fallback on NdArray and
/// wgpu (when there is an adapter), as `fft_support` answers.
#[test]
fn the_capability_report_lists_the_fft_per_backend() {
    let fft = example::report_support("fft");
    assert_eq!(fft("flex").as_deref(), Some("native"));
    assert_eq!(fft("ndarray").as_deref(), Some("fallback"));
    if common::wgpu_device().is_some() {
        assert_eq!(fft("wgpu").as_deref(), Some("fallback"));
    }
}
