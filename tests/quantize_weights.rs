//! `try_quantize_weights` against burn's own `Module::quantize_weights` on real backends: the
//! same quantized model where burn succeeds (same stored bytes, same forward values on Flex);
//! a check's `Err` naming the parameter path where burn panics (a block that does not divide
//! a conv weight, NdArray's packed stores, CubeCL's `PackedU32` rule, native Q8S on wgpu),
//! never `BackendPanic`, the model intact and a wgpu device still computing afterwards; kept
//! in float on request, with a report read from the packed tensors' metadata; a device that
//! cannot quantize at all under a fallback policy, with bytes counted.

mod common;

use burn::module::{Module, ParamGroup, Quantizer};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{Embedding, EmbeddingConfig, LayerNorm, LayerNormConfig, Linear, LinearConfig};
use burn::tensor::quantization::{Calibration, QuantScheme, QuantStore, QuantValue, ScaleDtype};
use burn::tensor::{DType, Device, FloatDType, Int, Tensor, TensorData};
use burn_guard::GuardError;
use burn_guard::error::NonFiniteSplit;
use burn_guard::module::WeightQuantizer;
use burn_guard::nn::Placement;
use burn_guard::policy::{Op, Policy};
use burn_guard::prelude::*;

#[derive(Module, Debug)]
struct Tagger {
    embedding: Embedding,
    norm: LayerNorm,
    head: Linear,
}

impl Tagger {
    fn new(device: &Device) -> Self {
        Self {
            embedding: EmbeddingConfig::new(50, 64).init(device),
            norm: LayerNormConfig::new(64).init(device),
            head: LinearConfig::new(64, 32).init(device),
        }
    }

    fn forward(&self, ids: Tensor<2, Int>) -> Tensor<3> {
        self.head
            .forward(self.norm.forward(self.embedding.forward(ids)))
    }
}

#[derive(Module, Debug)]
struct ConvNet {
    conv: Conv2d,
    head: Linear,
}

impl ConvNet {
    fn new(device: &Device) -> Self {
        Self {
            conv: Conv2dConfig::new([4, 8], [3, 3]).init(device),
            head: LinearConfig::new(8, 10).init(device),
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<2> {
        let x = self.conv.forward(x); // [b, 8, 4, 4] from [b, 4, 6, 6]
        let x = x.mean_dim(3).mean_dim(2).flatten::<2>(1, 3);
        self.head.forward(x)
    }
}

fn q8_tensor() -> QuantScheme {
    QuantScheme::default()
        .with_value(QuantValue::Q8S)
        .with_store(QuantStore::PackedU32(0))
}

fn q8_block32() -> QuantScheme {
    q8_tensor().per_block([32], ScaleDtype::F32)
}

fn q4_block32() -> QuantScheme {
    q8_block32().with_value(QuantValue::Q4S)
}

fn quantizer(scheme: QuantScheme) -> Quantizer {
    Quantizer::new(Calibration::MinMax, scheme)
}

fn ids(device: &Device) -> Tensor<2, Int> {
    Tensor::from_data(
        TensorData::new((0..24i64).map(|i| (i * 7) % 50).collect(), [3, 8]),
        device,
    )
}

fn values<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().convert::<f32>().try_to_vec::<f32>().unwrap()
}

/// Every float parameter's dtype and stored bytes, in module order.
fn stored<M: Module>(module: &M) -> Vec<(DType, Vec<u8>)> {
    #[derive(Default)]
    struct Reader(Vec<(DType, Vec<u8>)>);
    impl burn::module::ModuleVisitor for Reader {
        fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
            let t = param.val();
            self.0.push((t.dtype(), t.into_data().as_bytes().to_vec()));
        }
    }
    let mut reader = Reader::default();
    module.visit(&mut reader);
    reader.0
}

#[test]
fn equals_burns_own_quantization_on_flex() {
    let device = Device::flex();
    let model = Tagger::new(&device);
    for scheme in [q8_tensor(), q8_block32(), q4_block32()] {
        let raw = model.clone().quantize_weights(&mut quantizer(scheme));
        let ours = model.try_quantize_weights(&mut quantizer(scheme)).unwrap();
        assert_eq!(stored(&raw), stored(&ours), "{scheme:?}");
        assert!(
            stored(&ours)
                .iter()
                .all(|(dtype, _)| matches!(dtype, DType::QFloat(_)))
        );
        assert_eq!(
            values(raw.forward(ids(&device))),
            values(ours.forward(ids(&device)))
        );
    }
    // The original is untouched.
    assert!(stored(&model).iter().all(|(dtype, _)| *dtype == DType::F32));
}

/// On a device that runs on the host the twin reads every range in one concatenated read and
/// computes each per-tensor scale itself (`Quirks::runs_on_host`); the bytes stay burn's on
/// NdArray, and under autodiff, as on Flex. A model with an F16 parameter reads its device's
/// ranges in one transaction instead, and takes its scales from burn's `compute_q_params`:
/// burn's bytes too.
#[test]
#[allow(deprecated)] // NdArray is deprecated upstream; still supported.
fn host_scales_and_transaction_reads_keep_burns_bytes() {
    let native = q8_tensor().with_store(QuantStore::Native);
    let ndarray = Tagger::new(&Device::ndarray());
    let mut flex_f16 = Tagger::new(&Device::flex());
    flex_f16.head.weight = flex_f16
        .head
        .weight
        .map(|weight| weight.cast(burn::tensor::FloatDType::F16));
    // A model trained on Flex under autodiff, quantized as it is: its device runs on the host.
    let trained = Tagger::new(&Device::flex().autodiff());
    let cases = [
        ("flex under autodiff", &trained, q8_tensor()),
        ("ndarray", &ndarray, native),
        ("ndarray", &ndarray, native.per_block([32], ScaleDtype::F32)),
        ("flex, head in f16", &flex_f16, q8_tensor()),
        ("flex, head in f16", &flex_f16, q8_block32()),
    ];
    let mut compared = 0;
    for (name, model, scheme) in cases {
        let raw = common::raw(|| model.clone().quantize_weights(&mut quantizer(scheme)));
        let ours = model.try_quantize_weights(&mut quantizer(scheme));
        match (raw, ours) {
            (Some(raw), Ok(ours)) => {
                assert_eq!(stored(&raw), stored(&ours), "{name} {scheme:?}");
                compared += 1;
            }
            (None, Err(_)) => {}
            (raw, ours) => panic!(
                "{name} {scheme:?}: burn {}, the twin {ours:?}",
                if raw.is_some() {
                    "quantized"
                } else {
                    "panicked"
                }
            ),
        }
    }
    assert_eq!(compared, 5, "cases quantized by both");
}

/// The range the twin reads for its checks is the one it quantizes with: burn's own, for
/// every calibration and scale level, so the stored bytes stay burn's.
#[test]
fn equals_burns_own_quantization_with_every_calibration() {
    let device = Device::flex();
    let model = Tagger::new(&device);
    let two_level = q8_tensor()
        .per_block([16], ScaleDtype::UE4M3)
        .per_tensor(ScaleDtype::F32);
    // `Calibration` is neither `Clone` nor `Debug`: each case makes its own, by name.
    let calibration = |name| match name {
        "abs_mean" => Calibration::AbsMean,
        _ => Calibration::MinMax,
    };
    let cases = [
        ("abs_mean", q8_tensor()),
        ("abs_mean", q4_block32()),
        ("min_max", two_level),
    ];
    for (name, scheme) in cases {
        let raw = model
            .clone()
            .quantize_weights(&mut Quantizer::new(calibration(name), scheme));
        let ours = model
            .try_quantize_weights(&mut Quantizer::new(calibration(name), scheme))
            .unwrap();
        assert_eq!(stored(&raw), stored(&ours), "{name} {scheme:?}");
        assert_eq!(
            values(raw.forward(ids(&device))),
            values(ours.forward(ids(&device)))
        );
    }
}

#[test]
fn the_group_twin_selects_as_burn_does() {
    let device = Device::flex();
    let model = Tagger::new(&device);
    let group = || ParamGroup::from_predicate("weight");
    let raw = model
        .clone()
        .quantize_weights_group(&mut quantizer(q8_tensor()), group());
    let ours = model
        .try_quantize_weights_group(&mut quantizer(q8_tensor()), group())
        .unwrap();
    assert_eq!(stored(&raw), stored(&ours));
    let dtypes: Vec<bool> = stored(&ours)
        .iter()
        .map(|(d, _)| matches!(d, DType::QFloat(_)))
        .collect();
    // embedding.weight, norm.gamma, norm.beta, head.weight, head.bias
    assert_eq!(dtypes, [true, false, false, true, false]);
}

#[test]
fn a_block_that_does_not_divide_is_refused_naming_the_parameter() {
    let device = Device::flex();
    let model = ConvNet::new(&device);
    // burn panics: the conv weight [8, 4, 3, 3] is not a whole number of blocks of 32.
    assert!(common::raw(|| model.clone().quantize_weights(&mut quantizer(q8_block32()))).is_none());
    let err = model
        .try_quantize_weights(&mut quantizer(q8_block32()))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidQuantScheme);
    assert_eq!(err.path().as_deref(), Some("conv.weight"));
    assert!(
        err.to_string()
            .starts_with("conv.weight: quantize_dynamic: "),
        "{err}"
    );
    // The caller still has its model, in float.
    assert!(stored(&model).iter().all(|(d, _)| *d == DType::F32));
    let x = Tensor::<4>::ones([2, 4, 6, 6], &device);
    assert_eq!(model.forward(x).dims(), [2, 10]);
}

#[test]
fn kept_in_float_on_request_and_reported_from_metadata() {
    let device = Device::flex();
    let model = ConvNet::new(&device);
    let quantized = WeightQuantizer::new()
        .keep_unquantizable_in_float()
        .quantize(&model, &mut quantizer(q8_block32()))
        .unwrap();
    let report = quantized.report();
    println!("{report}");
    let kept: Vec<&str> = report.kept_in_float().map(|p| p.path.as_str()).collect();
    // conv.weight [8, 4, 3, 3], conv.bias [8], head.weight [8, 10], head.bias [10]: blocks of
    // 32 divide none of them.
    assert_eq!(
        kept,
        ["conv.weight", "conv.bias", "head.weight", "head.bias"]
    );
    assert_eq!(report.placement(), &Placement::Native);
    let json = serde_json::to_value(report).unwrap();
    assert_eq!(json["params"][0]["placement"]["kind"], "kept_float");
    assert!(matches!(
        &report.params[0].placement,
        Placement::KeptFloat { reason } if reason.contains("block size must divide")
    ));

    // Bytes after, from metadata, equal what the packed tensors hold.
    let model = Tagger::new(&device);
    let quantized = WeightQuantizer::new()
        .quantize(&model, &mut quantizer(q4_block32()))
        .unwrap();
    let report = quantized.report();
    for ((dtype, bytes), param) in stored(quantized.model()).iter().zip(&report.params) {
        assert!(matches!(dtype, DType::QFloat(_)), "{}", param.path);
        assert_eq!(bytes.len() as u64, param.bytes_after, "{}", param.path);
        assert!(param.scheme.starts_with("q4s"), "{}", param.scheme);
    }
    println!("{report}");
    let (before, after) = report.quantized_bytes();
    assert_eq!(before, (50 * 64 + 64 + 64 + 64 * 32 + 32) * 4);
    // burn-flex holds 4-bit values one per byte (i8), so its Q4 blocks of 32 take 32 bytes
    // and a 4-byte scale per 128 float bytes; a packing backend (wgpu) takes 16 + 4.
    assert_eq!(after * 128, before * 36);
}

/// A Tagger whose head weight holds `bad` at one place.
fn with_bad_weight(device: &Device, bad: f32) -> Tagger {
    let mut model = Tagger::new(device);
    let mut weight = vec![0.5f32; 64 * 32];
    weight[7] = bad;
    model.head.weight = burn::module::Param::from_tensor(Tensor::from_data(
        TensorData::new(weight, [64, 32]),
        device,
    ));
    model
}

#[test]
#[allow(deprecated)] // NdArray is deprecated upstream; still supported.
fn bad_values_are_refused_before_any_quantization() {
    // Each value in its own class of the split, with the weight's dtype and shape.
    let split = |nan, pos_inf, neg_inf| NonFiniteSplit {
        nan,
        pos_inf,
        neg_inf,
    };
    for (bad, class) in [
        (f32::NAN, split(1, 0, 0)),
        (f32::INFINITY, split(0, 1, 0)),
        (f32::NEG_INFINITY, split(0, 0, 1)),
    ] {
        let model = with_bad_weight(&Device::flex(), bad);
        let err = model
            .try_quantize_weights(&mut quantizer(q8_tensor()))
            .unwrap_err();
        assert!(
            matches!(
                err.root(),
                GuardError::NonFinite {
                    count: 1,
                    total: 2048,
                    split: Some(s),
                    dtype: Some(FloatDType::F32),
                    shape: Some(shape),
                    ..
                } if *s == class && shape == &[64, 32]
            ),
            "{bad}: {err}"
        );
        assert!(
            err.to_string().ends_with(&format!(
                "got 1 non-finite of 2048 values ({class}) in F32 [64, 32]"
            )),
            "{bad}: {err}"
        );
        assert_eq!(err.path().as_deref(), Some("head.weight"));
    }
    // NdArray (native store): its range comes back NaN, and the exact check names the count.
    let native = q8_tensor().with_store(QuantStore::Native);
    let model = with_bad_weight(&Device::ndarray(), f32::NAN);
    let err = model
        .try_quantize_weights(&mut quantizer(native))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NonFinite, "{err}");
    assert_eq!(err.path().as_deref(), Some("head.weight"));
    // A magnitude whose F16 scale overflows.
    let f16 = q8_tensor().per_tensor(ScaleDtype::F16);
    let err = with_bad_weight(&Device::flex(), 1e9)
        .try_quantize_weights(&mut quantizer(f16))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfRange, "{err}");
    // Finite values whose `AbsMean` overflows: burn's range is +inf, its scale too.
    let mut model = Tagger::new(&Device::flex());
    model.head.weight = burn::module::Param::from_tensor(Tensor::from_data(
        TensorData::new(vec![3e38f32; 64 * 32], [64, 32]),
        &Device::flex(),
    ));
    let err = model
        .try_quantize_weights(&mut Quantizer::new(Calibration::AbsMean, q8_tensor()))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfRange, "{err}");
    assert_eq!(err.path().as_deref(), Some("head.weight"));
}

#[derive(Module, Debug)]
struct Normed {
    norm: burn::nn::BatchNorm,
    head: Linear,
}

/// All or nothing with storage burn maps in place: a batch norm's running state is shared
/// between clones, so a refusal of a later parameter must come before any mapping.
#[test]
fn a_refusal_leaves_the_shared_running_state_in_float() {
    let device = Device::flex();
    let model = Normed {
        norm: burn::nn::BatchNormConfig::new(64).init(&device),
        head: with_bad_weight(&device, f32::NAN).head,
    };
    let err = model
        .try_quantize_weights(&mut quantizer(q8_tensor()))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NonFinite, "{err}");
    assert_eq!(err.path().as_deref(), Some("head.weight"));
    assert_eq!(model.norm.running_mean.value().dtype(), DType::F32);
    assert_eq!(model.norm.running_var.value().dtype(), DType::F32);
}

#[test]
#[allow(deprecated)] // NdArray is deprecated upstream; still supported.
fn ndarray_is_refused_under_strict_and_falls_back_whole() {
    let device = Device::ndarray();
    let model = Tagger::new(&device);
    assert!(common::raw(|| model.clone().quantize_weights(&mut quantizer(q8_tensor()))).is_none());
    let err = model
        .try_quantize_weights(&mut quantizer(q8_tensor()))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert_eq!(err.path().as_deref(), Some("embedding.weight"));
    assert!(err.to_string().contains("ndarray"), "{err}");

    let policy = Policy::fallback_to([Device::flex()]);
    let quantized = WeightQuantizer::new()
        .policy(policy.clone())
        .quantize(&model, &mut quantizer(q8_tensor()))
        .unwrap();
    let report = quantized.report();
    assert!(
        matches!(report.placement(), Placement::Fallback { from, to }
            if from.contains("ndarray") && to.contains("flex")),
        "{:?}",
        report.placement()
    );
    let moved = policy.stats_of(Op::QuantizeWeights);
    assert_eq!(moved.fallbacks, 1);
    assert_eq!(
        moved.bytes_to_fallback,
        (50 * 64 + 64 + 64 + 64 * 32 + 32) * 4
    );
    assert_eq!(quantized.held_on(), Some(&Device::flex()));

    // The model's own forward, inputs moved in and outputs back, equal to a native Flex run.
    let y = quantized
        .forward(ids(&device), |m, ids| m.forward(ids))
        .unwrap();
    assert_eq!(y.device(), device);
    let native = model
        .clone()
        .to_device(&Device::flex())
        .try_quantize_weights(&mut quantizer(q8_tensor()))
        .unwrap();
    assert_eq!(values(y), values(native.forward(ids(&Device::flex()))));
    let forward = policy.stats_of(Op::QuantizedModel);
    assert_eq!(forward.fallbacks, 1);
    assert_eq!(forward.bytes_to_fallback, 3 * 8 * 8); // i64 ids
    assert_eq!(forward.bytes_from_fallback, 3 * 8 * 32 * 4);
}

/// On wgpu every refusal comes from a check, before burn touches the device; the device
/// computes afterwards.
#[test]
fn wgpu_refusals_come_before_the_device() {
    let Some(device) = common::wgpu_device() else {
        return;
    };
    let model = ConvNet::new(&device);
    // PackedU32 needs a dimension that holds whole words of 4 values. burn packs the last and
    // would panic on the device thread for the conv weight's 3 and the head's 10 (poisoning the
    // device); the twin packs those weights along their innermost dimension that does, the 4
    // input channels (conv) and the 8 input features (head), and refuses the head's bias [10],
    // which has no such dimension.
    let err = model
        .try_quantize_weights(&mut quantizer(q8_tensor()))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
    assert_eq!(err.path().as_deref(), Some("head.bias"));

    // Native Q8S: CubeCL's WGSL has no i8 storage; the whole device is refused, or falls back.
    let native = q8_tensor().with_store(QuantStore::Native);
    let err = model
        .try_quantize_weights(&mut quantizer(native))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
    assert!(err.to_string().contains("wgpu"), "{err}");

    // Kept in float where the scheme cannot apply; the rest quantized on the device.
    let quantized = WeightQuantizer::new()
        .keep_unquantizable_in_float()
        .quantize(&model, &mut quantizer(q8_tensor()))
        .unwrap();
    let kept: Vec<&str> = quantized
        .report()
        .kept_in_float()
        .map(|p| p.path.as_str())
        .collect();
    // Only head.bias [10]: no dimension of it holds whole words.
    assert_eq!(kept, ["head.bias"]);
    let packed = |path: &str| quantized.report().param(path).unwrap().scheme.clone();
    assert_eq!(packed("conv.weight"), "q8s-packedu32@2-tensor");
    assert_eq!(packed("head.weight"), "q8s-packedu32@1-tensor");
    let x = Tensor::<4>::ones([2, 4, 6, 6], &device);
    let y = quantized.forward(x.clone(), |m, x| m.forward(x)).unwrap();
    let f32_y = model.forward(x);
    let diff = (y - f32_y).abs().max().into_scalar::<f32>();
    assert!(diff < 0.05, "max |q8 - f32| = {diff}");

    // The device still computes.
    let a = Tensor::<2>::ones([4, 4], &device);
    assert_eq!(values(a.clone().matmul(a)), vec![4.0; 16]);
}

/// The quantization error gate. A weight held transposed (a non-contiguous tensor: burn has
/// quantized one on wgpu with about 500× the error of its contiguous copy) is quantized with
/// the same round-trip error as its contiguous copy, on Flex and on wgpu, measured on the
/// device; a bound the scheme cannot meet keeps the parameters in float (named, with their
/// error) or refuses the model naming the first.
#[test]
fn the_round_trip_error_is_measured_and_held_to_a_bound() {
    let mut devices = vec![Device::flex()];
    devices.extend(common::wgpu_device());
    let q8 = QuantScheme::default().with_value(QuantValue::Q8S);
    for device in devices {
        device.seed(11);
        let contiguous: Linear = LinearConfig::new(64, 32).init(&device);
        let values = contiguous.weight.val();
        let mut transposed = contiguous.clone();
        // The same values, stored [32, 64] and presented [64, 32] through a transpose.
        let stored = Tensor::<2>::from_data(values.clone().transpose().into_data(), &device);
        transposed.weight = burn::module::Param::from_tensor(stored.transpose());
        let error_of = |layer: &Linear| {
            let quantized = WeightQuantizer::new()
                .measure_error()
                .quantize(layer, &mut Quantizer::new(Calibration::MinMax, q8))
                .unwrap();
            let report = quantized.report();
            assert!(report.to_string().contains("round trip off by"), "{report}");
            let weight = report.params.iter().find(|p| p.path == "weight").unwrap();
            weight.relative_error.unwrap()
        };
        let (plain, strided) = (error_of(&contiguous), error_of(&transposed));
        assert!(plain > 0.0 && plain < 1e-2, "{device:?}: {plain}");
        assert!(
            (strided - plain).abs() <= 1e-6,
            "{device:?}: {strided} against {plain}"
        );

        // Q4 per tensor cannot hold this layer within 1e-3.
        let q4 = QuantScheme::default().with_value(QuantValue::Q4S);
        let err = WeightQuantizer::new()
            .max_relative_error(1e-3)
            .quantize(&contiguous, &mut Quantizer::new(Calibration::MinMax, q4))
            .unwrap_err();
        assert_eq!(err.kind(), burn_guard::ErrorKind::OutOfRange, "{err}");
        assert_eq!(err.path().as_deref(), Some("weight"), "{err}");
        let kept = WeightQuantizer::new()
            .max_relative_error(1e-3)
            .keep_unquantizable_in_float()
            .quantize(&contiguous, &mut Quantizer::new(Calibration::MinMax, q4))
            .unwrap();
        let report = kept.report();
        let floats: Vec<&str> = report.kept_in_float().map(|p| p.path.as_str()).collect();
        assert!(floats.contains(&"weight"), "{report}");
        assert!(!matches!(
            kept.model().weight.val().dtype(),
            DType::QFloat(_)
        ));
    }
}

/// `‖dequantize(q) − w‖ / ‖w‖` computed here, in f64, from the values read back: what the
/// measured figures must equal.
fn dequantized_error(original: Vec<f32>, back: Vec<f32>) -> f64 {
    assert_eq!(back.len(), original.len());
    let (diff, norm) =
        original
            .iter()
            .zip(&back)
            .fold((0.0f64, 0.0f64), |(diff, norm), (&w, &d)| {
                let (w, d) = (f64::from(w), f64::from(d));
                (diff + (d - w) * (d - w), norm + w * w)
            });
    if norm == 0.0 && diff == 0.0 {
        return 0.0; // zeros quantized exactly
    }
    (diff / norm).sqrt()
}

/// Every float parameter's values (dequantized when quantized), in module order.
fn param_values<M: Module>(module: &M) -> Vec<Vec<f32>> {
    #[derive(Default)]
    struct Reader(Vec<Vec<f32>>);
    impl burn::module::ModuleVisitor for Reader {
        fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
            let t = param.val();
            let t = match t.dtype() {
                DType::QFloat(_) => t.dequantize(),
                _ => t,
            };
            self.0.push(values(t));
        }
    }
    let mut reader = Reader::default();
    module.visit(&mut reader);
    reader.0
}

/// The measured round-trip error is the one computed from the dequantized values, for every
/// quantized parameter of a model (an embedding, a norm, a head; a conv weight, on wgpu packed
/// along its output channels), per tensor and per block, by each way it is measured: on Flex
/// from the stored values in place (blocks along the last dimension, and blocks of two
/// dimensions), on Flex for a two-level scheme and on NdArray from the dequantized values read
/// back, on wgpu from two sums reduced on the device.
#[test]
fn the_measured_error_is_the_dequantized_values_error() {
    let flex = Device::flex();
    #[allow(deprecated)]
    let ndarray = Device::ndarray();
    let native = |scheme: QuantScheme| scheme.with_store(QuantStore::Native);
    let two_level = native(q8_tensor())
        .per_block([32], ScaleDtype::F16)
        .per_tensor(ScaleDtype::F32);
    let mut runs = vec![
        (
            flex.clone(),
            vec![
                q8_tensor(),
                q8_block32(),
                q8_tensor().per_block([2, 32], ScaleDtype::F32),
            ],
        ),
        (flex.clone(), vec![two_level]),
        (ndarray, vec![native(q8_tensor()), native(q8_block32())]),
    ];
    runs.extend(common::wgpu_device().map(|wgpu| (wgpu, vec![q8_tensor(), q8_block32()])));
    for (device, schemes) in runs {
        // f32 lanes summed in f64 on the host, f32 reductions on a device: a few ulps apart.
        let tolerance = 1e-5;
        device.seed(5);
        let tagger = Tagger::new(&device);
        let conv = ConvNet::new(&device);
        for scheme in schemes {
            let check = |name: &str,
                         originals: Vec<Vec<f32>>,
                         quantized: Vec<Vec<f32>>,
                         report: &burn_guard::quant::QuantReport| {
                let mut measured = 0;
                for ((param, original), back) in report.params.iter().zip(originals).zip(quantized)
                {
                    let Some(error) = param.relative_error else {
                        assert!(!param.is_quantized(), "{name} {}: not measured", param.path);
                        continue;
                    };
                    let reference = dequantized_error(original, back);
                    assert!(
                        (error - reference).abs() <= tolerance * reference,
                        "{name} {device:?} {}: measured {error}, dequantized {reference}",
                        param.path
                    );
                    measured += 1;
                }
                assert!(measured > 0, "{name}: {report}");
            };
            let q = WeightQuantizer::new()
                .measure_error()
                .keep_unquantizable_in_float()
                .quantize(&tagger, &mut quantizer(scheme))
                .unwrap();
            check(
                "tagger",
                param_values(&tagger),
                param_values(q.model()),
                q.report(),
            );
            // Blocks of 32 divide none of the conv net's parameters.
            if scheme.block_size().is_none() {
                let q = WeightQuantizer::new()
                    .measure_error()
                    .keep_unquantizable_in_float()
                    .quantize(&conv, &mut quantizer(scheme))
                    .unwrap();
                check(
                    "conv",
                    param_values(&conv),
                    param_values(q.model()),
                    q.report(),
                );
            }
        }
    }
}

/// The tensor twins measure their round trip too. A tensor held transposed (a non-contiguous
/// tensor: burn has quantized one on wgpu with about 500× the error of its contiguous copy)
/// quantizes with the same error as its contiguous copy, or is refused by the bound naming the
/// op and the error, through each measured twin, on Flex and on wgpu; the figure is the one
/// computed from the dequantized values; a fallback measures where the tensor went.
#[test]
fn the_tensor_twins_measure_the_round_trip_and_hold_it_to_a_bound() {
    use burn::tensor::Distribution;
    use burn_guard::quant::{MeasuredQuantization, QuantizeOptions};
    use burn_guard::tensor::TryQuantize;
    use burn_guard::tensor::quantization::{try_compute_q_params, try_compute_range};

    let q8 = q8_tensor();
    let bound = QuantizeOptions::new().max_relative_error(0.05);
    // The strided tensor's figure equals its copy's, or the bound caught it.
    let same_or_caught =
        |what: &str, strided: burn_guard::Result<MeasuredQuantization<2>>, plain: f64, op: &str| {
            match strided {
                Ok(measured) => assert!(
                    (measured.relative_error - plain).abs() <= 1e-6,
                    "{what}: {} against its contiguous copy's {plain}",
                    measured.relative_error
                ),
                Err(err) => {
                    assert_eq!(
                        err.kind(),
                        burn_guard::ErrorKind::OutOfRange,
                        "{what}: {err}"
                    );
                    let message = err.to_string();
                    assert!(message.starts_with(op), "{what}: {message}");
                    assert!(message.contains("relative_error"), "{what}: {message}");
                }
            }
        };
    let mut devices = vec![Device::flex()];
    devices.extend(common::wgpu_device());
    for device in devices {
        device.seed(12);
        // Stored [32, 64], presented [64, 32]: non-contiguous.
        let strided = Tensor::<2>::random([32, 64], Distribution::Default, &device).transpose();
        let contiguous = Tensor::<2>::from_data(strided.to_data(), &device);
        let original = values(contiguous.clone());

        let plain = contiguous
            .clone()
            .try_quantize_dynamic_measured(&q8, &bound)
            .unwrap();
        let reference =
            dequantized_error(original.clone(), values(plain.tensor.clone().dequantize()));
        assert!(
            (plain.relative_error - reference).abs() <= 1e-5 * reference,
            "{device:?}: measured {}, dequantized {reference}",
            plain.relative_error
        );
        assert!(
            reference > 0.0 && reference < 1e-2,
            "{device:?}: {reference}"
        );
        same_or_caught(
            "try_quantize_dynamic_measured",
            strided.clone().try_quantize_dynamic_measured(&q8, &bound),
            plain.relative_error,
            "quantize_dynamic",
        );
        let policy = Policy::fallback_to([Device::flex()]);
        same_or_caught(
            "quantize_dynamic_measured_with",
            strided
                .clone()
                .quantize_dynamic_measured_with(&q8, &policy, &bound),
            plain.relative_error,
            "quantize_dynamic",
        );
        let qparams = |t: &Tensor<2>| {
            try_compute_q_params(
                &q8,
                try_compute_range(&q8, t, &Calibration::MinMax).unwrap(),
            )
            .unwrap()
        };
        let plain = contiguous
            .clone()
            .try_quantize_measured(&q8, qparams(&contiguous), &bound)
            .unwrap();
        let reference =
            dequantized_error(original.clone(), values(plain.tensor.clone().dequantize()));
        assert!((plain.relative_error - reference).abs() <= 1e-5 * reference);
        same_or_caught(
            "try_quantize_measured",
            strided
                .clone()
                .try_quantize_measured(&q8, qparams(&strided), &bound),
            plain.relative_error,
            "quantize",
        );

        // Q4 per tensor cannot hold it within 1e-3: refused, naming the op and the error, and
        // counted as an error of the op; without a bound it is measured and returned.
        let q4 = q8.with_value(QuantValue::Q4S);
        let tight = QuantizeOptions::new().max_relative_error(1e-3);
        let err = strided
            .clone()
            .quantize_dynamic_measured_with(&q4, &policy, &tight)
            .unwrap_err();
        assert_eq!(err.kind(), burn_guard::ErrorKind::OutOfRange, "{err}");
        assert!(
            err.to_string().starts_with("quantize_dynamic")
                && err.to_string().contains("relative_error"),
            "{err}"
        );
        assert_eq!(policy.stats_of(Op::QuantizeDynamic).errors, 1);
        let loose = contiguous
            .clone()
            .try_quantize_dynamic_measured(&q4, &QuantizeOptions::new())
            .unwrap();
        assert!(loose.relative_error > 1e-3, "{}", loose.relative_error);
    }

    // NdArray cannot quantize a packed scheme: the fallback quantizes on Flex and measures
    // there, against the values moved there.
    #[allow(deprecated)]
    let ndarray = Device::ndarray();
    let x = Tensor::<2>::random([32, 64], burn::tensor::Distribution::Default, &ndarray);
    let original = values(x.clone());
    let policy = Policy::fallback_to([Device::flex()]);
    let measured = x
        .quantize_dynamic_measured_with(&q8, &policy, &bound)
        .unwrap();
    assert_eq!(measured.tensor.device(), Device::flex());
    assert_eq!(policy.stats_of(Op::QuantizeDynamic).fallbacks, 1);
    let reference = dequantized_error(original, values(measured.tensor.dequantize()));
    assert!((measured.relative_error - reference).abs() <= 1e-6 * reference);
}
