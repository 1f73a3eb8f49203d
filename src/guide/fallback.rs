//! # Choosing what happens when a backend cannot run an operation
//!
//! Some burn operations exist on one backend and not on another: NdArray cannot quantize
//! burn's default (u32-packed) scheme, burn-router's quantized ops are `unimplemented!()` on
//! every remote device, wgpu has no svd, only Flex has burn-signal's FFT in this build. Raw
//! burn panics there. burn-guard answers from declared capability tables
//! ([`capability`](crate::capability)) before anything is dispatched, and a
//! [`Policy`](crate::policy::Policy) says what to do with a gap:
//!
//! - [`Policy::strict`](crate::policy::Policy::strict) (the default, and what every plain
//!   `try_` twin runs under): refuse with [`GuardError::Unsupported`](crate::GuardError::Unsupported);
//!   nothing ran, nothing moved.
//! - [`Policy::fallback_to`](crate::policy::Policy::fallback_to)`([devices])`: run on the first
//!   device of the list whose own answer is native. The inputs move there; where the result
//!   lives depends on the operation (below).
//! - [`deny_op`](crate::policy::Policy::deny_op) and
//!   [`allow_only`](crate::policy::Policy::allow_only): per operation, by
//!   [`Op`](crate::policy::Op), a closed enum (a misspelt operation does not compile).
//! - [`set_fallback_disabled`](crate::policy::set_fallback_disabled)`(true)`: a process-wide
//!   switch that turns every fallback of every policy off, like ONNX Runtime's
//!   `session.disable_cpu_ep_fallback`; [`fallback_disabled`](crate::policy::fallback_disabled)
//!   reads it. `tests/fallback_switch.rs` shows a working fallback refused while it is off,
//!   with nothing moved, and working again once it is back.
//! - [`Policy::in_cells`](crate::policy::Policy::in_cells)`(pool)` (Unix): burn-vision's
//!   `connected_components` and `nms`, whose CPU code is `unsafe`, run in a pool of
//!   [isolation cells](crate::cell) instead of this process, whatever their device can: a
//!   segfault there is the call's `Err` and a restart, counted under `Op::Vision` as a run
//!   away to `cell pool {name}`. `tests/cells.rs`
//!   (`a_policy_runs_burn_visions_operations_in_a_pool_of_cells`) shows the same answers as
//!   in-process, and a child killed mid-service costing one call.
//!
//! ```
//! use burn::tensor::quantization::QuantScheme;
//! use burn::tensor::{Device, Tensor};
//! use burn_guard::capability::Effect;
//! use burn_guard::policy::{Op, Policy};
//! use burn_guard::prelude::*;
//!
//! #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
//! let ndarray = Device::ndarray();
//! let weights = Tensor::<2>::ones([4, 32], &ndarray);
//! let scheme = QuantScheme::default(); // Q8 per tensor, packed in u32: NdArray panics on it
//!
//! // Strict: refused before anything runs, saying what burn would have done.
//! let strict = Policy::strict();
//! let err = weights.clone().quantize_dynamic_with(&scheme, &strict).unwrap_err();
//! let GuardError::Unsupported(gap) = &err else { panic!("{err}") };
//! assert_eq!((gap.op, gap.gap.effect), ("quantize_dynamic", Effect::Panics));
//! assert!(gap.fallbacks.is_empty()); // strict asks no other device
//! println!("{err}");
//!
//! // Fallback: quantized on Flex, and the result stays there.
//! let policy = Policy::fallback_to([Device::flex()]);
//! let quantized = weights.clone().quantize_dynamic_with(&scheme, &policy)?;
//! assert_eq!(quantized.device(), Device::flex());
//! let stats = policy.stats_of(Op::QuantizeDynamic);
//! assert_eq!((stats.native, stats.fallbacks, stats.errors), (0, 1, 0));
//! assert_eq!(stats.bytes_to_fallback, 4 * 32 * 4); // the f32 input, counted from its dtype
//!
//! // Where NdArray can (Q8 stored natively), the same policy runs at home.
//! let native = QuantScheme::default().with_store(burn::tensor::quantization::QuantStore::Native);
//! assert_eq!(weights.clone().quantize_dynamic_with(&native, &policy)?.device(), ndarray);
//! assert_eq!(policy.stats_of(Op::QuantizeDynamic).native, 1);
//!
//! // Per operation: this policy falls back for every operation but quantize_dynamic.
//! let denied = Policy::fallback_to([Device::flex()]).deny_op(Op::QuantizeDynamic);
//! assert!(weights.quantize_dynamic_with(&scheme, &denied).is_err());
//! assert_eq!(denied.stats_of(Op::QuantizeDynamic).errors, 1);
//! # Ok::<(), GuardError>(())
//! ```
//!
//! ## Which operations fall back, and where the result lives
//!
//! | [`Op`](crate::policy::Op) | entry point | what moves |
//! |---|---|---|
//! | `QuantizeDynamic` | [`quantize_dynamic_with`](crate::tensor::TryQuantize::quantize_dynamic_with), [`quantize_dynamic_or_fallback`](crate::backend::quant::quantize_dynamic_or_fallback) | the input; the quantized tensor stays on the fallback |
//! | `QMatmul` | [`backend::quant::q_matmul`](crate::backend::quant::q_matmul) | activations there, the product back; the weight never |
//! | `QuantizedLinear` | [`nn::QuantizedLinear`](crate::nn::QuantizedLinear), [`nn::ModuleQuantizer`](crate::nn::ModuleQuantizer) | the same, per layer |
//! | `QuantizeWeights` | [`WeightQuantizer::policy`](crate::module::WeightQuantizer::policy) | the whole model, once |
//! | `QuantizedModel` | [`QuantizedModel::forward`](crate::module::QuantizedModel::forward) | inputs there, outputs back |
//! | `Oversize` | [`Policy::place`](crate::policy::Policy::place), [`try_matmul_or_fallback`](crate::tensor::TryOversize::try_matmul_or_fallback) | the operands; the result stays (see [`limits`](super::limits)) |
//! | `Svd` | `linalg::try_svd_with` | the input there, the factors back |
//! | `Fft` | `signal::try_rfft_with`, `try_stft_with`, … | the inputs there, the results back |
//! | `Vision` | the `_with` forms of `vision::TryMorphology`, `TryNms`, … | the inputs there, the output back |
//!
//! Quantization checks the values on the home device before anything moves: a tensor refused
//! for NaN or a scale that would overflow never reaches a fallback device.
//!
//! ## The errors you get
//!
//! - [`GuardError::Unsupported`](crate::GuardError::Unsupported): the home device cannot and
//!   the policy forbids a fallback for this operation (strict, `deny_op`, `allow_only`, the
//!   process-wide switch), or no device of the list can either. Its
//!   [`Unsupported`](crate::Unsupported) payload names the operation, the home backend
//!   (`dispatch<ndarray>`, `router<remote ws://127.0.0.1:40123>`), the missing capability, the
//!   [`Gap`](crate::capability::Gap) (what burn would do: [`Effect`](crate::capability::Effect)
//!   `Panics`, `WrongValues`, `Unimplemented` or `Unmeasured`, and why), and each fallback
//!   device that was asked and cannot, with its own gap.
//! - The operation's own errors (a bad scheme, a shape mismatch), before any routing, and a
//!   failed move ([`GuardError::Execution`](crate::GuardError::Execution) when the home device
//!   cannot be read back).
//!
//! ## What is recorded and logged
//!
//! [`Policy::stats`](crate::policy::Policy::stats) (every operation that ran at least once) and
//! [`Policy::stats_of`](crate::policy::Policy::stats_of) give an
//! [`OpStats`](crate::policy::OpStats) per operation: runs at home (`native`), runs on a
//! fallback (`fallbacks`), refusals and failures (`errors`, a check that refused included),
//! the bytes moved each way (`bytes_to_fallback`, `bytes_from_fallback`, counted from each
//! tensor's dtype) and the time spent moving (`move_time`). Clones of a policy share their
//! statistics; `OpStats` serialises with serde. Each fallback path is logged once per process
//! at `warn`, under a `burn_guard` target: `burn-guard: quantize_dynamic is not supported on
//! dispatch<ndarray>; falling back to dispatch<flex>`.
//!
//! ## Backend-level code
//!
//! Code generic over `B: Backend` (burn-backend primitives) takes its fallback backend as a
//! type parameter instead of a device list: the policy only says whether to fall back, and
//! `Policy::fallback_to([])` is enough. The result says where it lives
//! ([`Placed`](crate::backend::quant::Placed)):
//!
//! ```
//! # #![allow(deprecated)] // NdArray is deprecated upstream; still supported.
//! use burn::tensor::quantization::QuantScheme;
//! use burn_backend::TensorData;
//! use burn_backend::ops::FloatTensorOps;
//! use burn_flex::Flex;
//! use burn_guard::backend::quant::{q_matmul, quantize_dynamic_or_fallback};
//! use burn_guard::policy::{Op, Policy};
//! use burn_ndarray::NdArray;
//!
//! let (device, flex) = (Default::default(), Default::default());
//! let weight = NdArray::float_from_data(TensorData::new(vec![0.5f32; 8 * 32], [8, 32]), &device);
//! let policy = Policy::fallback_to([]);
//! // NdArray cannot quantize the default scheme: quantized on Flex, and kept there.
//! let weight = quantize_dynamic_or_fallback::<NdArray, Flex>(weight, &QuantScheme::default(), &policy, &flex)?;
//! assert!(weight.is_fallback());
//! // The activations go to Flex and the product comes back to NdArray; the weight never moves.
//! let x = NdArray::float_from_data(TensorData::new(vec![1.0f32; 2 * 8], [2, 8]), &device);
//! let y = q_matmul::<NdArray, Flex>(x, &weight, &policy, &flex)?;
//! let moved = policy.stats_of(Op::QMatmul);
//! assert_eq!((moved.bytes_to_fallback, moved.bytes_from_fallback), (2 * 8 * 4, 2 * 32 * 4));
//! # let _ = y;
//! # Ok::<(), burn_guard::GuardError>(())
//! ```
//!
//! ## What it costs
//!
//! - The decision: [`may_fall_back`](crate::policy::Policy::may_fall_back) is a bit mask and
//!   the global switch, 1.7 ns (`benches/overhead.rs`, `BENCHMARKS.md`).
//! - A fallback costs the moves: a quantized matmul 256×256 · 256×256 (Q8 per block of 32)
//!   native on Flex takes 1.047 ms; the same weight quantized for a remote device, falling
//!   back to Flex with the activations moved to Flex and back over the loopback WebSocket,
//!   2.019 ms, 1.93× (0.5 MiB moved per call, 1.01 ms per MiB: `benches/fallback.rs`).
//! - Quantized layers served from NdArray with their weights on Flex (Q8 per block of 32,
//!   batch 256) against the same layers native on Flex: 3.17 ms against 2.60 ms, 1.20×
//!   (`benches/quantized.rs`).
