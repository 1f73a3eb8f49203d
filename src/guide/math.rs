//! Guide: burn-linalg, burn-signal and burn-vision through their twins — what each refuses,
//! which backends can run it, and the fallback to Flex where one cannot.
//!
//! # What it is for
//!
//! Three of burn's crates compute on top of tensors: burn-linalg (`burn::linalg`), burn-signal
//! (`burn::signal`) and burn-vision (`burn::vision`). Each panics on inputs its own checks or
//! algorithms cannot take, and each has operations that are a *backend extension*: compiled
//! per backend, absent on others, where burn panics "not supported" on first use. burn-guard
//! twins every public function of the three:
//!
//! | crate | twins | backend extension | runs natively in this build | elsewhere |
//! |---|---|---|---|---|
//! | burn-linalg | [`linalg`](crate::linalg): `try_det`, `try_lu`, `try_qr`, `try_svd`, `try_diag`, `try_trace`, `try_matvec`, `try_outer`, `try_cosine_similarity`, the norms | `svd` | Flex, NdArray ([`svd_support`](crate::linalg::svd_support)) | wgpu, remote and autodiff devices: [`try_svd_with`](crate::linalg::try_svd_with) falls back, counted under `Op::Svd` |
//! | burn-signal | [`signal`](crate::signal): `try_rfft`, `try_irfft`, `try_cfft`, `try_stft`, `try_istft`, the three windows | every FFT | Flex, and autodiff over Flex ([`fft_support`](crate::signal::fft_support)) | NdArray (no FFT in burn 0.22), wgpu and remote (their arms need burn's `fusion`): each `try_*_with` falls back, counted under `Op::Fft` |
//! | burn-vision | [`vision`](crate::vision): `TryMorphology`, `TryNms`, `TryConnectedComponents`, `try_filter2d`, `try_median`, `TryColorConversion`, `TryTransform2D`, the blur configs, `try_save_tensor_as_image` | morphology, NMS, connected components | Flex ([`vision_support`](crate::vision::vision_support)) | NdArray, remote and autodiff devices, wgpu: each `try_*_with` falls back, counted under `Op::Vision` |
//!
//! Everything else composes burn tensor ops and runs on every backend. A `try_*` call never
//! falls back (strict); its `try_*_with(.., &policy)` form runs the whole function on the
//! policy's first capable device, inputs moved there and results moved back, and the policy
//! counts it ([`Policy::stats_of`](crate::policy::Policy::stats_of)).
//!
//! # What the twins refuse
//!
//! Each twin runs the rule that mirrors burn's own check first, then what burn's algorithms
//! and kernels panic on, then the capability:
//!
//! - **burn-linalg.** `det` needs a batch dimension (a plain `[n, n]` is refused with the fix,
//!   `unsqueeze_dim(0)`); an empty matrix or batch that LU and QR `expand`; a `diag` of rows
//!   without columns; an extremum norm over an empty dimension; `svd` of a tensor that requires
//!   grad (it has no backward: `.detach()`), with zero sweeps, or on a device without svd.
//! - **burn-signal.** Every FFT length must be a power of two (burn-signal 0.22 has no other
//!   algorithm), so `StftOptions::default()`, Whisper's `n_fft = 400`, panics on first use; the
//!   twin names the two nearest powers and the fix (`n_fft: 512, win_length: Some(400)`). Also
//!   an `irfft` whose implied length `2 · (bins − 1)` is not a power of two (Flex panics;
//!   CubeCL pads and truncates without a word, so it is refused everywhere), an empty spectrum,
//!   an `rfft` with `n` of an empty signal, parts of two dtypes, a centred `stft` of an empty
//!   batch, an `istft` of one centred frame or to length 0, a window of the wrong length, dtype
//!   or device.
//! - **burn-vision.** Its CPU morphology and labelling are `unsafe` code: an anchor outside the
//!   kernel, a kernel without rows, border values that are not one per channel, or an empty
//!   image to label can corrupt memory rather than panic, so they are refused before the call.
//!   NMS boxes must be `[n, 4]` with `n` scores (burn panics on fewer columns or more scores,
//!   and answers wrong boxes without a word on more columns or fewer scores). An empty image to
//!   erode, filter or median comes back as it is, the exact answer.
//!
//! # Example
//!
//! Each crate on Flex, and its extension on NdArray through the fallback.
//!
//! ```
//! # #![allow(deprecated)] // NdArray is deprecated upstream; still supported.
//! use burn::tensor::{Bool, Device, Tensor, TensorData};
//! use burn_guard::linalg::{try_det, try_qr, try_svd, try_svd_with};
//! use burn_guard::policy::{Op, Policy};
//! use burn_guard::prelude::*;
//! use burn_guard::signal::{StftOptions, try_hann_window, try_stft, try_stft_with};
//! use burn_guard::vision::{MorphOptions, NmsOptions, Point, TryMorphology, TryNms};
//!
//! let flex = Device::flex();
//! let ndarray = Device::ndarray();
//! let policy = Policy::fallback_to([flex.clone()]);
//!
//! // burn-linalg: `det` of a plain matrix is refused with the fix; batched, it runs.
//! let m = Tensor::<2>::from_floats([[4.0, 7.0], [2.0, 6.0]], &flex);
//! let err = try_det::<2, 1, 0>(m.clone()).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::RankMismatch);
//! assert!(err.to_string().contains("unsqueeze_dim(0)"));
//! let det = try_det::<3, 2, 1>(m.clone().unsqueeze_dim(0))?;
//! assert_eq!(det.into_data().try_to_vec::<f32>().unwrap(), [10.0]);
//! let rows = [[1.0, 2.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [2.0, 1.0, 3.0]];
//! let a = Tensor::<2>::from_floats(rows, &flex);
//! let (q, r) = try_qr(a.clone(), true)?;
//! let apart: f32 = (q.matmul(r) - a).abs().max().into_scalar();
//! assert!(apart < 1e-5);
//! // svd has no autodiff arm: refused on an autodiff device, computed on Flex under the policy.
//! let tracked_device = Tensor::<2>::from_data(m.to_data(), &flex.clone().autodiff());
//! let err = try_svd::<2, 1>(tracked_device.clone().require_grad(), 16).unwrap_err();
//! assert!(err.to_string().contains(".detach()"));
//! let err = try_svd::<2, 1>(tracked_device.clone(), 16).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Unsupported);
//! let (_u, s, _vt) = try_svd_with::<2, 1>(tracked_device, 16, &policy)?;
//! assert_eq!(s.dims(), [2]);
//! assert_eq!(policy.stats_of(Op::Svd).fallbacks, 1);
//!
//! // burn-signal: burn's default options are refused in one line naming the fix...
//! let audio = Tensor::<2>::ones([1, 1600], &ndarray);
//! let err = try_stft(audio.clone(), None, StftOptions::default()).unwrap_err();
//! assert!(err.to_string().contains("such as 256 or 512"));
//! // ...a 400-sample window in a 512-point frame is the fix; NdArray has no FFT, so the
//! // strict call is refused and the fallback runs it on Flex, the spectrum moved back.
//! let options = StftOptions { win_length: Some(400), hop_length: 160, ..StftOptions::new(512) };
//! let window = try_hann_window(400, true, &ndarray)?;
//! let err = try_stft(audio.clone(), Some(window.clone()), options).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Unsupported);
//! let spectrum = try_stft_with(audio, Some(window), options, &policy)?;
//! assert_eq!((spectrum.dims(), spectrum.device()), ([1, 11, 257, 2], ndarray.clone()));
//! assert_eq!(policy.stats_of(Op::Fft).fallbacks, 1);
//!
//! // burn-vision: an anchor outside the kernel (unsafe indexing in burn's CPU code) and NMS
//! // scores that do not match the boxes are refused before the call.
//! let pixels = TensorData::new(vec![0.0f32, 1.0, 0.0, 1.0], [2, 2, 1]);
//! let image = Tensor::<3>::from_data(pixels, &flex);
//! let kernel = Tensor::<2, Bool>::from_data(TensorData::new(vec![true; 4], [2, 2]), &flex);
//! let outside = MorphOptions { anchor: Some(Point::new(2, 0)), ..MorphOptions::default() };
//! assert_eq!(image.try_dilate(kernel, outside).unwrap_err().kind(), ErrorKind::OutOfRange);
//! let corners = [[0.0, 0.0, 2.0, 2.0], [0.1, 0.1, 2.0, 2.0], [5.0, 5.0, 6.0, 6.0]];
//! let boxes = Tensor::<2>::from_floats(corners, &flex);
//! let scores = Tensor::<1>::from_floats([0.9, 0.8, 0.7], &flex);
//! assert!(boxes.clone().try_nms(scores.clone().slice([0..2]), NmsOptions::default()).is_err());
//! let kept = boxes.try_nms(scores, NmsOptions::default())?;
//! assert_eq!(kept.into_data().convert::<i64>().try_to_vec::<i64>().unwrap(), [0, 2]);
//! // Morphology on NdArray: refused strict, run on Flex under the policy.
//! let image = Tensor::<3>::ones([4, 4, 1], &ndarray);
//! let kernel = Tensor::<2, Bool>::ones([3, 3], &ndarray);
//! assert!(image.clone().try_erode(kernel.clone(), MorphOptions::default()).is_err());
//! let eroded = image.try_erode_with(kernel, MorphOptions::default(), &policy)?;
//! assert_eq!(eroded.device(), ndarray);
//! assert_eq!(policy.stats_of(Op::Vision).fallbacks, 1);
//! # Ok::<(), burn_guard::GuardError>(())
//! ```
//!
//! # Errors
//!
//! Each twin's `# Errors` lists its own; across the three:
//!
//! - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) /
//!   [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch): burn's own shape rules,
//!   with the fix where there is one (`det`'s batch dimension, NMS's `[n, 4]` boxes and `[n]`
//!   scores).
//! - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange): an FFT length that is not a
//!   power of two (with the two nearest), zero svd sweeps, an anchor outside the kernel.
//! - [`GuardError::Empty`](crate::GuardError::Empty): what an algorithm divides by or expands.
//! - [`GuardError::InvalidDType`](crate::GuardError::InvalidDType) /
//!   [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch): parts of two dtypes, a
//!   window or kernel on another device.
//! - [`GuardError::Unsupported`](crate::GuardError::Unsupported): the extension is not on this
//!   device's backend, naming the backend stack and what burn would do there; under a fallback
//!   policy, naming every fallback's gap when none can.
//! - [`GuardError::BackendPanic`](crate::GuardError::BackendPanic): what no check predicts
//!   (an svd that does not converge on NaN input).
//!
//! # What it costs
//!
//! | twin beside burn's function, on Flex, dev profile | ratio | measured by |
//! |---|---|---|
//! | `qr` of a `[64, 64]` matrix | 0.999× | `benches/linalg.rs` |
//! | `det` of `[64, 8, 8]` | 1.001× | `benches/linalg.rs` |
//! | `vector_norm` L2 of `[64, 1024]` over dim 1 | 1.050× (a 32 µs call; the rule costs 1.6 µs unoptimised) | `benches/linalg.rs` |
//! | `rfft` of 64 signals of 1 024 samples | 0.999× | `benches/signal.rs` |
//! | `stft` of one second at 16 kHz (`n_fft` 512, window 400, hop 160) | 1.003× | `benches/signal.rs` |
//! | `erode` of a `[256, 256, 3]` image by a 5 × 5 cross | 1.004× | `benches/vision.rs` |
//! | `nms` of 1 000 boxes | 1.005× | `benches/vision.rs` |
//!
//! The rules read shapes and options only. A fallback costs the moves of its inputs and
//! results on top (not benched). `examples/linalg.rs` shows a `qr` whose `Q · R` is within
//! 2.4e-7 of its input; `examples/log_mel.rs` computes Whisper-style log-mel features on Flex
//! and on NdArray through the fallback.
//!
//! How the twins are held to burn: `tests/linalg.rs` runs burn-linalg's own `#[should_panic]`
//! cases (19) with the backstop off, each refused by a check, and each twin against burn's
//! function on square, rectangular, batched and empty inputs on Flex, NdArray and wgpu: burn
//! panics exactly where the twin refuses, equal values otherwise. `tests/signal.rs` does the
//! same for burn-signal's 11 cases and about 10 000 differential cases on Flex;
//! `tests/vision.rs` for 1 200 generated morphology cases (burn's verdict taken in a child
//! process), about 2 400 cases of the other twins, 96 saves and 324 transforms. Each checks
//! that burn panics exactly where the `*_support` answer says, and that each fallback equals
//! Flex's values.
//!
//! # What it does not catch
//!
//! - **Numerics.** An ill-conditioned matrix, an FFT of a signal that aliases, an svd that
//!   stops at its sweep count: the values are burn's.
//! - **What a backend computes wrongly outside the declared capabilities**: the fallback
//!   covers what is declared missing, not a kernel that returns wrong numbers (see the
//!   sentinel guide).
//! - **burn-vision's `loss` feature** (the Gram-matrix loss) is reachable from no burn feature
//!   and is not built.
//! - **burn's own calls**: a raw `burn::linalg`, `burn::signal` or `burn::vision` call is not
//!   guarded, and `lint/clippy.toml` does not list these crates' functions yet: grep for them.
