//! Guide: quantized inference — a model's weights in 8 or 4 bits, quantized where the model
//! lives (wgpu, say) or where the policy places them, with a report of what became what.
//!
//! # What it is for
//!
//! burn quantizes a model with `Module::quantize_weights`. It panics where the scheme cannot
//! apply to a parameter (a block of 32 along a 10-class head), where the device cannot quantize
//! the scheme at all (NdArray's packed stores, a remote device), and on wgpu it panics on the
//! device thread for every weight whose last dimension does not hold a whole number of `u32`
//! words, which is every 1×1, 3×3 or 7×7 convolution: that panic poisons the device for the
//! process. burn-guard gives two quantizers over one set of checks and one report:
//!
//! | you want | call | you get |
//! |---|---|---|
//! | the model's own type and `forward`, quantized in place, strict | [`model.try_quantize_weights(&mut quantizer)`](crate::quant::TryQuantizeWeights::try_quantize_weights) | `M` |
//! | the same with choices: keep what cannot be quantized in float, fall back when the device cannot quantize | [`WeightQuantizer`] | [`QuantizedModel<M>`](crate::quant::QuantizedModel), with its [`QuantReport`] |
//! | each `Linear` on whichever device can hold it quantized, blocks along the input features | [`ModuleQuantizer`](crate::quant::ModuleQuantizer) | [`QuantizedLayers`](crate::quant::QuantizedLayers), one [`QuantizedLinear`](crate::quant::QuantizedLinear) per path |
//!
//! Use the model quantizer when you serve your own `#[derive(Module)]` model and want to keep
//! calling its `forward`; use the layer quantizer when a device cannot quantize (a remote
//! device, NdArray) and you want the weights held quantized elsewhere layer by layer, moving
//! only activations, or when a head's shape refuses the blocks in burn's layout.
//! [`QuantizedLinear`](crate::quant::QuantizedLinear) is
//! [`PlacedLinear`](crate::quant::PlacedLinear) on burn's `Dispatch` backend: for code written
//! at the backend level, `PlacedLinear<B, C>` holds a layer of any backend `B` (burn-router's
//! remote devices included, whose quantized ops are unimplemented upstream) with its packed
//! weight on a fallback backend `C`.
//!
//! # What the model quantizer does
//!
//! Before anything is quantized, every float parameter the burn `Quantizer` selects is checked:
//! the scheme against the shape (the block divides it), the calibration, emptiness, the
//! device's capability for this scheme and shape
//! ([`quantize_support`](crate::capability::quantize_support)), then the values (finite, with a
//! scale their dtype can hold), read once per device from burn's own `compute_range`. Then
//! burn's own quantization runs: the values are burn's. Where it differs from burn:
//!
//! - **Outer-axis packing on wgpu.** CubeCL packs `PackedU32` values along the last dimension
//!   only when it holds whole words. A per-tensor parameter whose last dimension does not (a
//!   conv weight `[64, 3, 7, 7]`, a head `[512, 10]`) is packed along its innermost dimension
//!   that does, the conv's 64 output channels, the head's 512 input features
//!   ([`check::quant::outer_packing`](crate::check::quant::outer_packing)): quantized with that
//!   dimension swapped innermost and swapped back, which is burn-cubecl's own `PackedU32(k)`
//!   layout, read by its conv, matmul and dequantization. The report names it
//!   `packedu32@k`, `k` counted from the end. Only CubeCL holds such a tensor
//!   ([`outer_packing_support`](crate::capability::outer_packing_support)); on Flex the
//!   question does not arise, Flex stores the packed scheme in its native store.
//! - **Running statistics stay in float** (batch norm's running mean and variance), listed
//!   with the reason; [`WeightQuantizer::quantize_running_statistics`] quantizes them as burn
//!   does.
//! - **The caller's model is untouched.** The model is borrowed, and the copy that is
//!   quantized is detached first: burn's `RunningState` shares its storage between clones, so
//!   burn's `model.clone().quantize_weights(..)` rewrites the original's running statistics.
//!
//! [`WeightQuantizer`] adds these choices: [`keep_unquantizable_in_float`] keeps (and reports,
//! with the reason) each parameter the scheme cannot apply to instead of refusing the model;
//! [`measure_error`](crate::quant::WeightQuantizer::measure_error) reports each parameter's
//! round-trip error `‖dequantize(q) − w‖ / ‖w‖`, measured where it was quantized (on Flex from
//! the stored values in place, on a device from two sums with one read for the model), and
//! [`max_relative_error`](crate::quant::WeightQuantizer::max_relative_error) holds
//! each to a bound (kept in float, or the model refused, naming them: a quantization gone far
//! off without a word is caught; `tests/quantize_weights.rs`,
//! `the_round_trip_error_is_measured_and_held_to_a_bound`);
//! [`policy`] decides what happens when the model's device cannot quantize the scheme at
//! all: strict refuses, naming the device and the gap;
//! [`Policy::fallback_to`](crate::policy::Policy::fallback_to) moves the model once to the
//! first capable device and quantizes it there, and [`QuantizedModel::forward`] moves each
//! call's inputs there and its outputs back, counted under
//! [`Op::QuantizedModel`](crate::policy::Op::QuantizedModel).
//!
//! One tensor is measured the same way:
//! [`try_quantize_dynamic_measured`](crate::tensor::TryQuantize::try_quantize_dynamic_measured)
//! (and `quantize_dynamic_measured_with` under a policy, `try_quantize_measured` with your own
//! parameters) returns the quantized tensor with its
//! [`relative_error`](crate::quant::MeasuredQuantization::relative_error), and refuses one over
//! [`QuantizeOptions::max_relative_error`](crate::quant::QuantizeOptions::max_relative_error)
//! naming the op and the error (`tests/quantize_weights.rs`,
//! `the_tensor_twins_measure_the_round_trip_and_hold_it_to_a_bound`: a transposed tensor, on
//! Flex and on wgpu, quantizes with its contiguous copy's error).
//!
//! # The report
//!
//! A [`QuantReport`] has one [`ParamReport`] per parameter, in module order: its path, shape,
//! what it is stored as (`q8s-packedu32-tensor`, `q4s-native-block32`, `f32`), the device that
//! holds it, its bytes before and after (packed values and scales), and its [`Placement`]:
//! quantized natively, quantized on a fallback device (`from` and `to`), kept in float (why),
//! or not in the quantizer's group. `{report}` prints a table; it serialises with serde;
//! [`quantized_ratio`] and [`total_ratio`] give the bytes over the quantized parameters and
//! over all of them; [`fit_only_quantized`] lists the weights that fit a device's largest
//! buffer only because they were quantized.
//!
//! # Example: a model of your own, on Flex
//!
//! A convolution, a batch norm and two linear layers; quantized in place, refused, kept in
//! float and reported, placed on a fallback device, and quantized layer by layer.
//!
//! ```
//! # #![allow(deprecated)] // NdArray is deprecated upstream; still supported.
//! use burn::module::{Module, Quantizer};
//! use burn::nn::conv::{Conv2d, Conv2dConfig};
//! use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig};
//! use burn::tensor::quantization::{Calibration, QuantScheme, QuantStore, QuantValue, ScaleDtype};
//! use burn::tensor::{DType, Device, Tensor};
//! use burn_guard::nn::ModuleQuantizer;
//! use burn_guard::policy::{Op, Policy};
//! use burn_guard::prelude::*;
//! use burn_guard::quant::{Placement, WeightQuantizer};
//!
//! #[derive(Module, Debug)]
//! struct Cnn {
//!     conv: Conv2d,
//!     norm: BatchNorm,
//!     hidden: Linear,
//!     head: Linear,
//! }
//!
//! impl Cnn {
//!     fn new(device: &Device) -> Self {
//!         Self {
//!             conv: Conv2dConfig::new([1, 32], [3, 3]).init(device),
//!             norm: BatchNormConfig::new(32).init(device),
//!             hidden: LinearConfig::new(32, 64).init(device),
//!             head: LinearConfig::new(64, 10).init(device),
//!         }
//!     }
//!
//!     fn forward(&self, images: Tensor<4>) -> Tensor<2> {
//!         let x = self.norm.forward(self.conv.forward(images));
//!         let x = x.mean_dim(3).mean_dim(2).flatten::<2>(1, 3);
//!         self.head.forward(self.hidden.forward(x))
//!     }
//! }
//!
//! let device = Device::flex();
//! let model = Cnn::new(&device);
//! let images = Tensor::<4>::ones([2, 1, 8, 8], &device);
//! let before = model.forward(images.clone()).into_data();
//!
//! // 1. In place, strict: the model's own type back, served through its own forward.
//! let q8 = QuantScheme::default()
//!     .with_value(QuantValue::Q8S)
//!     .with_store(QuantStore::PackedU32(0));
//! let quantized: Cnn = model.try_quantize_weights(&mut Quantizer::new(Calibration::MinMax, q8))?;
//! assert!(matches!(quantized.conv.weight.val().dtype(), DType::QFloat(_)));
//! assert_eq!(quantized.norm.running_var.value().dtype(), DType::F32); // stays in float
//! assert_eq!(quantized.forward(images.clone()).dims(), [2, 10]);
//! // The caller's model is as it was.
//! assert_eq!(model.conv.weight.val().dtype(), DType::F32);
//! assert_eq!(model.forward(images.clone()).into_data(), before);
//!
//! // 2. Q4 in blocks of 32 cannot apply to the conv weight [32, 1, 3, 3]: refused, naming it.
//! let q4_block32 = q8.with_value(QuantValue::Q4S).per_block([32], ScaleDtype::F32);
//! let mut q4 = Quantizer::new(Calibration::MinMax, q4_block32);
//! let err = model.try_quantize_weights(&mut q4).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::InvalidQuantScheme);
//! assert_eq!(err.path().as_deref(), Some("conv.weight"));
//! // conv.weight: quantize_dynamic: block size must divide every dimension; block [1, 1, 1, 32];
//! // got scheme q4s-packedu32-block32, shape [32, 1, 3, 3]
//! println!("{err}");
//!
//! // 3. ...or kept in float, and reported with the reason.
//! let quantized = WeightQuantizer::new()
//!     .keep_unquantizable_in_float()
//!     .quantize(&model, &mut q4)?;
//! let report = quantized.report();
//! println!("{report}");
//! let kept: Vec<&str> = report.kept_in_float().map(|p| p.path.as_str()).collect();
//! assert_eq!(
//!     kept,
//!     ["conv.weight", "norm.running_mean", "norm.running_var", "head.weight", "head.bias"]
//! );
//! let Placement::KeptFloat { reason } = &report.param("head.weight").unwrap().placement else {
//!     unreachable!()
//! };
//! assert!(reason.contains("block size must divide every dimension"));
//! // 0.281×: Flex stores each 4-bit value in a byte.
//! assert_eq!(report.quantized_bytes(), (8832, 2484));
//! let _logits = quantized.forward(images, |m, x| m.forward(x))?;
//!
//! // 4. NdArray cannot quantize a packed store: strict refuses, naming the device and the gap...
//! let ndarray = Device::ndarray();
//! let served = Cnn::new(&ndarray);
//! let err = WeightQuantizer::new()
//!     .quantize(&served, &mut Quantizer::new(Calibration::MinMax, q8))
//!     .unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Unsupported);
//! // ...and a fallback policy quantizes the model on Flex once and serves it from there.
//! let policy = Policy::fallback_to([Device::flex()]);
//! let quantized = WeightQuantizer::new()
//!     .policy(policy.clone())
//!     .quantize(&served, &mut Quantizer::new(Calibration::MinMax, q8))?;
//! assert!(matches!(quantized.report().placement(), Placement::Fallback { .. }));
//! assert_eq!(quantized.held_on(), Some(&Device::flex()));
//! let logits = quantized.forward(Tensor::<4>::ones([2, 1, 8, 8], &ndarray), |m, x| m.forward(x))?;
//! assert_eq!(logits.device(), ndarray); // the output came back
//! assert_eq!(policy.stats_of(Op::QuantizedModel).fallbacks, 1);
//!
//! // 5. Layer by layer: each Linear's weight transposed to [d_output, d_input], so that blocks
//! //    of 32 run along the input features and the 10-class head quantizes too; each held on
//! //    Flex, activations moved per call.
//! let layers = ModuleQuantizer::new(q4_block32, Policy::fallback_to([Device::flex()]))
//!     .quantize(&served)?;
//! println!("{}", layers.report());
//! assert_eq!(layers.report().fallbacks().count(), 2);
//! let features = Tensor::<2>::ones([2, 32], &ndarray);
//! let logits = layers.forward("head", layers.forward("hidden", features)?)?;
//! assert_eq!((logits.dims(), logits.device()), ([2, 10], ndarray));
//! # Ok::<(), burn_guard::GuardError>(())
//! ```
//!
//! # Example: on wgpu
//!
//! The same model quantized Q8 per tensor on the machine's wgpu adapter: the conv weight
//! `[32, 1, 3, 3]`, which burn's own `quantize_weights` panics on there, is packed along its 32
//! output channels (`q8s-packedu32@3-tensor`), the head `[64, 10]` along its 64 input features
//! (`@1`), and the head's bias `[10]`, no dimension of which holds whole words, stays in float
//! with that reason. It needs a wgpu adapter (Mesa's lavapipe on a machine without a GPU), so
//! the doctest compiles it without running it.
//!
//! ```no_run
//! # use burn::module::Module;
//! # use burn::nn::conv::{Conv2d, Conv2dConfig};
//! # use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig};
//! # #[derive(Module, Debug)]
//! # struct Cnn { conv: Conv2d, norm: BatchNorm, hidden: Linear, head: Linear }
//! # impl Cnn {
//! #     fn new(device: &Device) -> Self {
//! #         Self {
//! #             conv: Conv2dConfig::new([1, 32], [3, 3]).init(device),
//! #             norm: BatchNormConfig::new(32).init(device),
//! #             hidden: LinearConfig::new(32, 64).init(device),
//! #             head: LinearConfig::new(64, 10).init(device),
//! #         }
//! #     }
//! #     fn forward(&self, images: Tensor<4>) -> Tensor<2> {
//! #         let x = self.norm.forward(self.conv.forward(images));
//! #         let x = x.mean_dim(3).mean_dim(2).flatten::<2>(1, 3);
//! #         self.head.forward(self.hidden.forward(x))
//! #     }
//! # }
//! use burn::module::Quantizer;
//! use burn::tensor::quantization::{Calibration, QuantScheme, QuantValue};
//! use burn::tensor::{Device, Tensor};
//! use burn_guard::devices::wgpu_adapter;
//! use burn_guard::quant::WeightQuantizer;
//!
//! let device = wgpu_adapter()?.device;
//! let model = Cnn::new(&device);
//! let q8 = QuantScheme::default().with_value(QuantValue::Q8S);
//! let quantized = WeightQuantizer::new()
//!     .keep_unquantizable_in_float()
//!     .quantize(&model, &mut Quantizer::new(Calibration::MinMax, q8))?;
//! let conv = quantized.report().param("conv.weight").unwrap();
//! assert!(conv.is_quantized());
//! assert_eq!(conv.scheme, "q8s-packedu32@3-tensor"); // packed along dimension 0
//! let logits = quantized.model().forward(Tensor::ones([2, 1, 8, 8], &device));
//! # let _ = logits;
//! # Ok::<(), burn_guard::GuardError>(())
//! ```
//!
//! # Errors
//!
//! The first refusal, with the parameter's module path as its context
//! (`err.path()`: `conv.weight`, `encoder.layers.0.mha.query.weight`):
//!
//! - [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme): the scheme
//!   cannot apply to the parameter's shape, or the calibration cannot produce its scales;
//!   the message gives the block, the scheme's name and the shape.
//! - [`GuardError::Empty`](crate::GuardError::Empty): a parameter without elements.
//! - [`GuardError::Unsupported`](crate::GuardError::Unsupported): the device cannot quantize
//!   the scheme (or this shape with it) and the policy forbids a fallback; it names the backend
//!   stack (`dispatch<ndarray>`) and what burn would do there (panic, wrong values).
//! - [`GuardError::NonFinite`](crate::GuardError::NonFinite) /
//!   [`GuardError::OutOfRange`](crate::GuardError::OutOfRange): NaN, ±inf, or a magnitude whose
//!   scale overflows its dtype.
//! - [`GuardError::Execution`](crate::GuardError::Execution) /
//!   [`GuardError::Timeout`](crate::GuardError::Timeout): reading the values' range or moving
//!   the model failed; [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn
//!   panics anyway.
//!
//! The layer quantizer adds [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument)
//! for a module without any `Linear` and for a path [`QuantizedLayers::layer`] does not know
//! (it lists the known ones); a layer whose shape the scheme cannot apply to is refused unless
//! [`keep_invalid_in_float`](crate::quant::ModuleQuantizer::keep_invalid_in_float).
//!
//! # What it costs
//!
//! | what | figure | measured by |
//! |---|---|---|
//! | `try_quantize_weights` beside burn's `quantize_weights`, Flex, release | 1.003×–1.012× (three runs; target ≤ 1.05×) | `benches/quantized_models.rs` |
//! | the error gate (`max_relative_error`) beside `WeightQuantizer` without it, Flex, release | 1.119× (1.78× before the error was taken from Flex's storage in place; target ≤ 1.10×) | `benches/quantized_models.rs` |
//! | the same on wgpu (lavapipe), dev profile | 1.251×, quartiles 20 % apart: CPU emulation, no wgpu figure claimed | `benches/quantized_models.rs` |
//! | torchvision's ResNet-18, Q8 per tensor on lavapipe: stored bytes | 0.2506× of float (every conv weight and `fc.weight` quantized) | `tests/real_models.rs` |
//! | the same: max \|logit − f32 logit\| | within PyTorch's own fake-quantization error of the same weights (the test's bound: at most 1.1× PyTorch's) | `tests/real_models.rs` |
//! | a small transformer of your own on lavapipe: quantized bytes, accuracy | Q8 per tensor 0.252×, 100 % as f32; Q4 block 32 0.156×, 99.22 % (the head kept in float) | `examples/quantized_models.rs` |
//! | a quantized forward against f32 on Flex, dev profile | Q8 per tensor 0.928×; Q8 and Q4 block 32 1.389× and 1.416× | `benches/quantized_models.rs` |
//! | the layer quantizer's digits MLP: weight bytes | Q8 per tensor 0.250×, Q8 block 32 0.281×, Q4 block 32 0.156× | `benches/quantized.rs` |
//! | layers served from NdArray with their weights on Flex, against native on Flex (Q8 block 32, batch 256) | 1.20× | `benches/quantized.rs` |
//! | a quantized matmul whose weight is held on Flex for a remote device, against native | 1.93× (0.5 MiB moved per call) | `benches/fallback.rs` |
//!
//! Q8 per block of 32 with f32 scales stores 9 bits per value: 0.281× whatever the model. No
//! GPU figure exists yet: every wgpu figure above is Mesa's lavapipe, the CPU through Vulkan.
//!
//! # What it does not catch
//!
//! - **Accuracy.** The checks guard shapes, devices and values, not how much a scheme costs a
//!   model: measure it on your data, as `examples/quantized_models.rs` does.
//! - **Memory on Flex.** Flex stores a packed scheme in its native store, one byte per value:
//!   Q4 saves nothing over Q8 there (the report reads `q4s-native-block32`, 0.281×).
//! - **Moving a model quantized on wgpu.** A tensor packed along an outer dimension can be read
//!   by CubeCL only (Flex and NdArray cannot take its data), and any reshape of one is refused
//!   ([`check::quant::quantized_reshape`](crate::check::quant::quantized_reshape)).
//! - **burn's own calls.** burn's quantize with `PackedU32(k)` gives wrong values on wgpu
//!   (declared, and avoided by the quantizer's swap); a raw `quantize_weights` or
//!   `quantize_dynamic` elsewhere in your code is not guarded: `lint/clippy.toml` finds them.
//! - **The layer quantizer quantizes `Linear` weights only**; biases, convolutions and norms
//!   stay in float, and the model's own `forward` no longer runs: each layer is called by its
//!   path.
//! - **A fallback costs a move per call**, of inputs and outputs for a model, of activations
//!   for a layer; the policy's statistics count the bytes and the time
//!   ([`Policy::stats`](crate::policy::Policy::stats)).
//!
//! [`WeightQuantizer`]: crate::quant::WeightQuantizer
//! [`WeightQuantizer::quantize_running_statistics`]:
//!     crate::quant::WeightQuantizer::quantize_running_statistics
//! [`keep_unquantizable_in_float`]: crate::quant::WeightQuantizer::keep_unquantizable_in_float
//! [`policy`]: crate::quant::WeightQuantizer::policy
//! [`quantized_ratio`]: crate::quant::QuantReport::quantized_ratio
//! [`total_ratio`]: crate::quant::QuantReport::total_ratio
//! [`fit_only_quantized`]: crate::quant::QuantReport::fit_only_quantized
//! [`QuantizedModel::forward`]: crate::quant::QuantizedModel::forward
//! [`QuantReport`]: crate::quant::QuantReport
//! [`ParamReport`]: crate::quant::ParamReport
//! [`Placement`]: crate::quant::Placement
//! [`QuantizedLayers::layer`]: crate::quant::QuantizedLayers::layer
