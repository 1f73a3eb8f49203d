//! Quantized inference end to end: a 64→256→128→10 MLP trained on the UCI digits on
//! Flex, then evaluated in f32, Q8 per tensor, Q8 per block of 32 and Q4 per block of 32 on
//! Flex and on wgpu (lavapipe here), and run on NdArray and a loopback remote under a
//! fallback policy (equal to the native Flex run) and the strict policy (`Err`).

#[path = "../examples/support/digits.rs"]
mod digits;

mod common;

use std::sync::OnceLock;

use burn::module::Module;
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor};
use burn_backend::ops::FloatTensorOps;
use burn_backend::{TensorData, read_sync};
use burn_flex::Flex;
use burn_guard::GuardError;
use burn_guard::nn::{ModuleQuantizer, PlacedLinear, Placement, QuantizedLayers};
use burn_guard::policy::Policy;
use burn_remote::RemoteBackend;
use digits::{DigitsMlp, Split};

/// Epochs of SGD: enough for ≥ 95 % test accuracy, seconds in a debug build.
const EPOCHS: usize = 20;

fn trained() -> &'static (DigitsMlp, Split) {
    static MODEL: OnceLock<(DigitsMlp, Split)> = OnceLock::new();
    MODEL.get_or_init(|| {
        let (train, test) = digits::load();
        let start = std::time::Instant::now();
        let model = digits::train(&train, [256, 128], EPOCHS);
        println!("trained in {:?}", start.elapsed());
        (model, test)
    })
}

/// Accuracy of the f32 model and of each scheme on `device`; asserts the bounds on accuracy
/// (f32 at least 95 %, Q8 at most 0.5 points below it, Q4 at most 2) and, where
/// `assert_q4_bytes`, on the Q4 packed size (at most 0.16 of the f32 bytes).
fn accuracy_table(device: &Device, assert_q4_bytes: bool) {
    let (model, test) = trained();
    let model = model.clone().to_device(device);
    let x = test.images(device);
    let f32_accuracy = digits::accuracy(model.forward(x.clone()), test);
    println!("{device:?} f32: {f32_accuracy:.4}");
    assert!(f32_accuracy >= 0.95, "f32 accuracy {f32_accuracy}");
    let f32_bytes = digits::float_weight_bytes(&model);
    for (name, scheme) in digits::schemes() {
        let layers = ModuleQuantizer::new(scheme, Policy::strict())
            .quantize(&model)
            .unwrap();
        let report = layers.report();
        assert_eq!(report.total_bytes().0, f32_bytes);
        assert!(
            report
                .params
                .iter()
                .all(|l| l.placement == Placement::Native)
        );
        let accuracy =
            digits::accuracy(digits::quantized_forward(&layers, x.clone()).unwrap(), test);
        let ratio = report.total_ratio();
        println!(
            "{device:?} {name}: accuracy {accuracy:.4}, bytes {} ({ratio:.4}x)\n{report}",
            report.total_bytes().1
        );
        let (max_loss, max_ratio) = match name {
            "q8-tensor" => (0.005, 0.26),
            "q8-block32" => (0.005, 0.29),
            _ => (0.02, if assert_q4_bytes { 0.16 } else { 0.29 }),
        };
        assert!(
            f32_accuracy - accuracy <= max_loss + 1e-9,
            "{name}: accuracy {accuracy} vs f32 {f32_accuracy}"
        );
        assert!(ratio <= max_ratio, "{name}: {ratio}");
    }
}

/// Flex keeps 4-bit values one per byte (measured: a Q4 block-32 weight reads back as 1.125
/// bytes per value), so only wgpu is held to Q4's 0.16×.
#[test]
fn accuracy_and_bytes_on_flex() {
    accuracy_table(&Device::flex(), false);
}

#[test]
fn accuracy_and_bytes_on_wgpu() {
    let Some(device) = common::wgpu_device() else {
        return;
    };
    accuracy_table(&device, true);
}

fn q8_block32() -> burn::tensor::quantization::QuantScheme {
    digits::schemes().swap_remove(1).1
}

/// Logits of the quantized model run natively on Flex: what every fallback must equal.
fn native_flex_logits(layers_device: &Device) -> (Vec<f32>, QuantizedLayers) {
    let (model, test) = trained();
    let layers = ModuleQuantizer::new(q8_block32(), Policy::strict())
        .quantize(&model.clone().to_device(layers_device))
        .unwrap();
    let logits = digits::quantized_forward(&layers, test.images(layers_device)).unwrap();
    (logits.into_data().try_to_vec::<f32>().unwrap(), layers)
}

#[test]
fn ndarray_falls_back_to_flex_with_equal_results() {
    let (model, test) = trained();
    #[allow(deprecated)]
    let ndarray = Device::ndarray();
    let on_ndarray = model.clone().to_device(&ndarray);

    let strict = ModuleQuantizer::new(q8_block32(), Policy::strict()).quantize(&on_ndarray);
    assert!(
        matches!(&strict, Err(GuardError::Unsupported(u)) if u.backend.contains("ndarray")),
        "{strict:?}"
    );

    let policy = Policy::fallback_to([Device::flex()]);
    let layers = ModuleQuantizer::new(q8_block32(), policy.clone())
        .quantize(&on_ndarray)
        .unwrap();
    let report = layers.report();
    println!("{report}");
    assert_eq!(report.fallbacks().count(), 3);
    let x = test.images(&ndarray);
    let logits = digits::quantized_forward(&layers, x).unwrap();
    assert_eq!(logits.device(), ndarray);
    let (expected, _) = native_flex_logits(&Device::flex());
    assert_eq!(logits.into_data().try_to_vec::<f32>().unwrap(), expected);

    // One forward: three layers fell back; activations out, products back, weights never.
    let stats = policy.stats_of(burn_guard::policy::Op::QuantizedLinear);
    let n = test.len() as u64;
    assert_eq!(stats.fallbacks, 3);
    assert_eq!(stats.bytes_to_fallback, n * (64 + 256 + 128) * 4);
    assert_eq!(stats.bytes_from_fallback, n * (256 + 128 + 10) * 4);
    assert_eq!(stats.errors, 0);
}

/// The remote device at the backend level: burn-router's quantized ops are unimplemented, so
/// strict refuses and a fallback policy quantizes on Flex; the remote computes everything else.
#[test]
fn remote_falls_back_to_flex_with_equal_results() {
    let (model, test) = trained();
    let remote = common::loopback_remote();
    let device = remote.device();
    let to_remote = |t: TensorData| RemoteBackend::float_from_data(t, device);
    let flex = Default::default();
    let build = |policy: &Policy| -> Result<Vec<PlacedLinear<RemoteBackend, Flex>>, GuardError> {
        [("l1", &model.l1), ("l2", &model.l2), ("l3", &model.l3)]
            .into_iter()
            .map(|(path, linear)| {
                let weight = to_remote(linear.weight.val().into_data());
                let bias = linear.bias.as_ref().map(|b| to_remote(b.val().into_data()));
                PlacedLinear::quantize(path, weight, bias, &q8_block32(), policy, &flex)
            })
            .collect()
    };
    let strict = build(&Policy::strict());
    assert!(
        matches!(&strict, Err(GuardError::Unsupported(u)) if u.backend.contains("router")),
        "{strict:?}"
    );

    let policy = Policy::fallback_to([]);
    let layers = build(&policy).unwrap();
    assert!(layers.iter().all(|l| l.is_fallback()));
    let relu = |t| {
        burn_guard::backend::Activation::Relu
            .apply::<RemoteBackend>(t)
            .unwrap()
    };
    let x = to_remote(TensorData::new(test.x.clone(), [test.len(), 64]));
    let h = relu(layers[0].forward(x).unwrap());
    let h = relu(layers[1].forward(h).unwrap());
    let logits = layers[2].forward(h).unwrap();
    let logits = read_sync(RemoteBackend::float_into_data(logits)).unwrap();
    let (expected, _) = native_flex_logits(&Device::flex());
    assert_eq!(logits.try_to_vec::<f32>().unwrap(), expected);
    let stats = policy.stats_of(burn_guard::policy::Op::QMatmul);
    assert_eq!(stats.fallbacks, 3);
    assert_eq!(
        stats.bytes_to_fallback,
        test.len() as u64 * (64 + 256 + 128) * 4
    );
}

/// A scheme whose block cannot divide a layer: refused by default, kept in float on request,
/// reported either way; never a panic.
#[test]
fn invalid_layers_are_refused_or_kept_in_float() {
    let (model, test) = trained();
    let scheme = burn::tensor::quantization::QuantScheme::default()
        .per_block([48], burn::tensor::quantization::ScaleDtype::F32);
    let refused = ModuleQuantizer::new(scheme, Policy::strict()).quantize(model);
    assert!(
        matches!(refused, Err(GuardError::InvalidQuantScheme { .. })),
        "{refused:?}"
    );
    let layers = ModuleQuantizer::new(scheme, Policy::strict())
        .keep_invalid_in_float()
        .quantize(model)
        .unwrap();
    let report = layers.report();
    println!("{report}");
    // 64 and 256 and 128 input features: 48 divides none of them.
    assert_eq!(report.kept_in_float().count(), 3);
    let logits = digits::quantized_forward(&layers, test.images(&Device::flex())).unwrap();
    let expected = model.forward(test.images(&Device::flex()));
    let diff = (logits - expected).abs().max().into_scalar::<f32>();
    assert!(diff < 1e-4, "{diff}");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["params"][0]["placement"]["kind"], "kept_float");
}

/// Wrong inputs to a quantized layer are `Err`s naming the layer's op.
#[test]
fn forward_refuses_bad_inputs() {
    let (model, _) = trained();
    let layers = ModuleQuantizer::new(q8_block32(), Policy::strict())
        .quantize(model)
        .unwrap();
    let bad = layers.forward("l1", Tensor::<2>::ones([2, 63], &Device::flex()));
    assert!(
        matches!(
            bad,
            Err(GuardError::ShapeMismatch {
                op: "quantized_linear",
                ..
            })
        ),
        "{bad:?}"
    );
    #[allow(deprecated)]
    let elsewhere = layers.forward("l1", Tensor::<2>::ones([2, 64], &Device::ndarray()));
    assert!(
        matches!(elsewhere, Err(GuardError::DeviceMismatch { .. })),
        "{elsewhere:?}"
    );
    let missing = layers.forward("l9", Tensor::<2>::ones([2, 64], &Device::flex()));
    assert!(
        matches!(
            missing,
            Err(GuardError::InvalidArgument {
                op: "quantized_layer",
                ..
            })
        ),
        "{missing:?}"
    );
    // An empty batch is answered without a kernel.
    let empty = layers
        .forward("l1", Tensor::<2>::ones([0, 64], &Device::flex()))
        .unwrap();
    assert_eq!(empty.dims(), [0, 256]);
    // A rank-3 batch keeps its leading dims.
    let y = relu(
        layers
            .forward("l1", Tensor::<3>::ones([2, 3, 64], &Device::flex()))
            .unwrap(),
    );
    assert_eq!(y.dims(), [2, 3, 256]);
}
