//! Guide: catching wrong values — a canary before serving, shadow checks while serving,
//! anomaly mode to find the layer, and device health to stop using a device that lies.
//!
//! # What it is for
//!
//! The errors the other guides prevent are loud. These are not: a fusion or autotune bug, or a
//! device task whose failure the runtime only logs, gives wrong numbers or zeros and no error.
//! burn has no cross-check. [`verify`](crate::verify) checks a model's own forward on its
//! serving device against a reference device (Flex, say), with NumPy's `allclose` rule
//! (`|x − r| ≤ abs + rel × |r|`; a NaN or ±inf where the reference is finite never agrees):
//!
//! | detector | when | what it does |
//! |---|---|---|
//! | [`canary`](crate::verify::canary) | before traffic | the model's forward on your inputs on both devices; a [`CanaryReport`](crate::verify::CanaryReport) per input, `Err(Diverged)` when any disagrees ([`canary_against`](crate::verify::canary_against): against a reference model you give, loaded from the checkpoint on the reference device, say) |
//! | [`canary_steps`](crate::verify::canary_steps) | before traffic, for a stateful forward | your closure's decoding steps (with their cache) on both devices, compared step by step; `Err(Diverged)` names the first step that disagrees (`step 1`): a bug only in the cached path passes the one-shot canary (`tests/verify.rs`, `the_canary_over_steps_names_the_first_decoding_step_that_drifts`) |
//! | [`Shadowed`](crate::verify::Shadowed) | while serving | one request in `every` re-run on the reference, inline. The first divergence quarantines the serving device for this model: that request and every later one are answered from the reference, counted in [`ShadowStats`](crate::verify::ShadowStats); the diverging request is run once more with every layer twin's output recorded, to name [`first_diverging_layer`](crate::verify::Shadowed::first_diverging_layer) by call index, op and module path (`#3 layer_norm blocks.1.norm2`) |
//! | [`Shadowed::forward_steps`](crate::verify::Shadowed::forward_steps) | while serving, for a stateful forward | the closure [`canary_steps`](crate::verify::canary_steps) takes, run every call; a sampled call also on the reference, compared step by step: the first step that disagrees quarantines the device as a one-shot divergence does, and [`quarantined`](crate::verify::Shadowed::quarantined) names it (`step 3`) (`tests/verify.rs`, `shadow_checks_over_steps_name_the_first_decoding_step_that_drifts`) |
//! | [`detect_anomaly`](crate::verify::detect_anomaly) | while debugging, this thread, this scope | every layer twin checks its output; the first that holds NaN or ±inf returns `Err(NonFinite)` naming the layer: by its op, and with [`detect_anomaly_in`](crate::verify::detect_anomaly_in) given the model, by its module path too (`blocks.1.norm2: layer_norm: ...`), so two layers of one type are told apart (PyTorch's `detect_anomaly` is the model) |
//! | [`detect_anomaly`](crate::verify::detect_anomaly) in the backward | while debugging a training step: the forward and [`try_backward`](crate::tensor::TryAutodiffFloat::try_backward) in the scope | a finite forward whose backward gives NaN or ±inf returns `Err(NonFinite)` naming the layer twin nearest to its birth: the one whose output's gradient is the first not finite (`fc1: linear: backward: ... from the backward of what consumed that output`), or whose own backward gave its parameters NaN (`fc2: linear: backward: ... the layer's own backward ...`); each tracked output gets a zero leaf added in the mode, as burn keeps no intermediate gradient (`tests/verify.rs`, `anomaly_mode_names_the_layer_whose_backward_gave_non_finite_gradients`) |
//! | [`devices::health`](crate::devices::health) | always, one atomic load | a device marked poisoned, tainted or quarantined is refused by every allocating twin and guarded read, and [`Policy::place`](crate::policy::Policy::place) routes around it |
//!
//! # Device health
//!
//! Three things mark a device ([`DeviceHealth`](crate::devices::DeviceHealth)); the record is
//! process-wide:
//!
//! - **Poisoned**: burn's own word, an `ExecutionError` for which `is_device_poisoned()` holds,
//!   as a guarded read or [`probe_health`](crate::devices::probe_health) receives it. Permanent:
//!   burn will not compute on the device again.
//! - **Tainted**: a task on the device's runner thread failed and burn only logged it. The
//!   opt-in [`TaintLogger`](crate::devices::TaintLogger)
//!   ([`install_taint_logger`](crate::devices::install_taint_logger)) wraps your logger,
//!   forwards every record to it, and marks the device whose runner logged the failure: cubecl
//!   has no other hook. Guarded reads on it then return `DeviceUnavailable` instead of the
//!   values.
//! - **Quarantined**: a shadow check with
//!   [`quarantine_device`](crate::verify::Shadowed::quarantine_device) saw it disagree with the
//!   reference; for a service whose other models share the device.
//!
//! A taint or a quarantine is lifted by [`devices::reinstate`](crate::devices::reinstate),
//! after you re-checked the device (with a canary, say); a poisoned device stays poisoned.
//!
//! # Example
//!
//! The serving device is NdArray and the reference Flex; the wrong device is simulated by a
//! serving copy with one bias off by 0.5, which is what a wrong fused kernel or a zero-filled
//! buffer looks like from outside: numbers, no error.
//!
//! ```
//! # #![allow(deprecated)] // NdArray is deprecated upstream; still supported.
//! use burn::module::{Module, Param};
//! use burn::nn::{Linear, LinearConfig};
//! use burn::tensor::activation::relu;
//! use burn::tensor::{DType, Device, Tensor};
//! use burn_guard::devices::{DeviceHealth, health, install_taint_logger, reinstate};
//! use burn_guard::policy::Policy;
//! use burn_guard::prelude::*;
//! use burn_guard::verify::{Shadowed, Tolerance, canary, canary_against, detect_anomaly_in};
//!
//! #[derive(Module, Debug)]
//! struct Mlp {
//!     fc1: Linear,
//!     fc2: Linear,
//! }
//!
//! impl Mlp {
//!     // Through the layer twins: anomaly mode checks them, and a shadow check can name the
//!     // first that diverges.
//!     fn try_forward(&self, x: Tensor<2>) -> burn_guard::Result<Tensor<2>> {
//!         let h = self.fc1.try_forward(x)?;
//!         self.fc2.try_forward(relu(h))
//!     }
//! }
//!
//! fn forward(model: &Mlp, x: Tensor<2>) -> Tensor<2> {
//!     model.try_forward(x).expect("a valid request")
//! }
//!
//! let flex = Device::flex();
//! let serving = Device::ndarray();
//! let reference = Mlp {
//!     fc1: LinearConfig::new(16, 32).init(&flex),
//!     fc2: LinearConfig::new(32, 8).init(&flex),
//! };
//! let model = reference.clone().to_device(&serving);
//! let requests = |n: usize| -> Vec<Tensor<2>> {
//!     (0..n).map(|k| Tensor::<2>::ones([4, 16], &serving).mul_scalar(k as f32 + 1.0)).collect()
//! };
//!
//! // 0. Opt in to taint: a failure burn only logs marks its device (a process has one logger).
//! if let Err(err) = install_taint_logger(None, log::LevelFilter::Warn) {
//!     eprintln!("keeping the process's logger; wrap it with TaintLogger::new: {err}");
//! }
//!
//! // 1. Before traffic: the canary passes on a device that computes right.
//! let report = canary(&model, &flex, requests(3), Tolerance::default(), forward)?;
//! print!("{report}");
//! assert!(report.passed());
//!
//! // 2. A device that computes wrong numbers: the canary sees every output apart.
//! let mut wrong = model.clone();
//! let bias = wrong.fc2.bias.take().expect("fc2 has a bias").val();
//! wrong.fc2.bias = Some(Param::from_tensor(bias.add_scalar(0.5)));
//! let report = canary_against(&wrong, &reference, requests(3), Tolerance::default(), forward)?;
//! // canary: dispatch<ndarray> against dispatch<flex> (abs 1e-4, rel 1e-3): FAILED
//! //   input 0: 32 of 32 apart, 0 new non-finite, max abs 5.000000298023224e-1, …
//! print!("{report}");
//! assert!(!report.passed());
//!
//! // 3. Had it started serving: the first sampled request (1 in 100) diverges; it and every
//! //    later request are answered from Flex, and the device is quarantined for the process.
//! let served = Shadowed::with_reference(wrong, reference.clone(), 100, Tolerance::default())?
//!     .quarantine_device();
//! for x in requests(1000) {
//!     assert_eq!(served.forward(x, forward)?.dims(), [4, 8]);
//! }
//! let divergence = served.quarantined().expect("the first sampled request diverged");
//! assert_eq!(divergence.kind(), ErrorKind::Diverged);
//! let layer = served.first_diverging_layer().expect("the forward calls layer twins");
//! // The second layer twin called, a linear, at `fc2` in the model: its bias is off.
//! assert_eq!((layer.index, layer.layer, layer.path.as_deref()), (1, "linear", Some("fc2")));
//! assert!(layer.to_string().starts_with("#1 linear fc2 ("));
//! let stats = served.stats();
//! assert_eq!((stats.requests, stats.shadowed, stats.routed), (1000, 1, 1000));
//!
//! // 4. The quarantined device is refused by the twins and routed around by the policy...
//! assert!(matches!(health(&serving), DeviceHealth::Quarantined { .. }));
//! let err = Tensor::<2>::try_ones([4, 16], &serving).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::DeviceUnavailable);
//! let policy = Policy::fallback_to([flex.clone()]);
//! assert_eq!(policy.place("ones", &[4, 16], DType::F32, &serving)?, flex);
//! // ...until it is reinstated, once it was re-checked.
//! assert_eq!(reinstate(&serving), DeviceHealth::Healthy);
//! assert!(Tensor::<2>::try_ones([4, 16], &serving).is_ok());
//!
//! // 5. Anomaly mode: infinities pass through burn's layers without a word; inside
//! //    `detect_anomaly_in` the first layer twin whose output is not finite refuses, by its
//! //    module path in the model and its op (`detect_anomaly`, without the model: the op).
//! let huge = Tensor::<2>::full([1, 16], f32::INFINITY, &flex);
//! assert!(reference.try_forward(huge.clone()).is_ok());
//! let err = detect_anomaly_in(&reference, || reference.try_forward(huge)).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::NonFinite);
//! assert_eq!(err.path().as_deref(), Some("fc1"));
//! assert!(err.to_string().starts_with("fc1: linear: anomaly mode"));
//! # Ok::<(), burn_guard::GuardError>(())
//! ```
//!
//! # Errors
//!
//! - [`GuardError::Diverged`](crate::GuardError::Diverged): the canary's first output that
//!   disagrees, or what [`Shadowed::quarantined`](crate::verify::Shadowed::quarantined)
//!   returns: both devices, how many elements of how many are apart, the largest absolute and
//!   relative differences. A divergence in a shadow check is not an error of the request,
//!   which is answered from the reference.
//! - [`GuardError::NonFinite`](crate::GuardError::NonFinite) in anomaly mode: the layer twin's
//!   name and the count of non-finite values, split into NaN, `+inf` and `-inf` (by the read
//!   that counts them), with the output's dtype and shape; inside
//!   [`detect_anomaly_in`](crate::verify::detect_anomaly_in), wrapped in the layer's module
//!   path ([`GuardError::path`](crate::GuardError::path): `blocks.1.norm2`).
//! - [`GuardError::DeviceUnavailable`](crate::GuardError::DeviceUnavailable) for a marked
//!   device: the op that needed it, the device, and why (quarantined by which check, the
//!   runner a task failed on, burn's poisoning reason), with the way out
//!   (`devices::reinstate`).
//! - The model's forward failing on either device, as its own error or
//!   [`GuardError::BackendPanic`](crate::GuardError::BackendPanic);
//!   [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) when the two outputs
//!   differ in shape.
//!
//! While debugging, `BURN_GUARD_BACKTRACE=1` (or
//! [`error::set_capture_backtraces`](crate::error::set_capture_backtraces)) makes each of these
//! carry the backtrace of the call that refused, which `{:?}` prints; messages do not change.
//!
//! # What it costs
//!
//! | what | figure | measured by |
//! |---|---|---|
//! | a served transformer encoder on Flex, shadowed 1 in 1 000 against Flex, beside burn's forward | 1.005×; 1.008× after the per-request health test was added | `benches/verify.rs` |
//! | the same against NdArray, a reference slower than the serving device | 1.058× | `benches/verify.rs` |
//! | the canary on one input | 6.9 ms (the encoder's forward on both devices and two reads) | `benches/verify.rs` |
//! | the canary on wgpu (lavapipe) against Flex, a device that computes right | max abs difference 6e-8 | `examples/sentinel.rs` |
//! | a task failure burn only logs, on lavapipe | raw burn reads back `0.0` where eight ones were summed; the guarded read returns `DeviceUnavailable` | `tests/verify.rs` (`a_task_failure_burn_only_logs_taints_the_device`) |
//!
//! A sampled request costs a reference forward and two reads, inline; the others an atomic
//! increment and the health load. The reference forward amortised over `every` requests is
//! what a shadow costs: a reference much slower than the serving device needs a sparser sample.
//! Anomaly mode costs a reduction and a synchronous one-value read per layer twin: for finding
//! the layer, not for production traffic.
//!
//! # What it does not catch
//!
//! - **What the sample misses.** A device that is wrong only on some requests is caught when
//!   one of them is sampled; the canary sees only the inputs you give it.
//! - **The reference's own errors.** Both devices wrong the same way agree; Flex is a
//!   different code path from CubeCL's kernels, not an oracle.
//! - **Differences inside the tolerance**, and any numerics a looser tolerance lets through.
//! - **Layers your forward calls through burn directly**: the first diverging layer and anomaly
//!   mode see the layer twins only, not layers burn's containers call inside their own
//!   forward; a forward without twins names no layer. A layer is found in the model by its
//!   first float parameter's id and its type: one without float parameters (an activation,
//!   a pool), one the model does not hold, or one whose parameter is tied to another's is
//!   named by call index and op alone (`#2 relu`).
//! - **Taint without the logger**: a process that did not install the `TaintLogger` (or wrap
//!   its own logger with it) reads the zeros.
