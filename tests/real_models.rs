//! Models nobody here wrote, from the files their own tools saved: torchvision's ResNet-18 and
//! ResNet-34 and a Hugging Face BERT (`tests/data/models/`, with `make_models.py`, which wrote
//! them and PyTorch's outputs for the same inputs).
//!
//! - ResNet-18 loads strictly under the PyTorch layout (its `num_batches_tracked` skipped and
//!   listed), and its forward matches PyTorch's logits; a ResNet-34 file is refused under the
//!   same settings, in one readable line.
//! - Quantized Q8 per tensor on Flex and on wgpu, every convolution and the head are quantized
//!   (on wgpu, packed along their output channels), within PyTorch's own fake-quantization
//!   error of the same weights.
//! - Quantizing through `&self` and loading into a clone leave the original bit for bit as it
//!   was, its running statistics included, on Flex, under autodiff and on wgpu.
//! - BERT loads strictly and matches transformers' hidden states.

#[path = "common/bert.rs"]
mod bert;
mod common;
#[path = "common/resnet.rs"]
mod resnet;

use burn::module::{Module, Quantizer};
use burn::store::ModuleStore;
use burn::tensor::quantization::{Calibration, QuantScheme, QuantValue};
use burn::tensor::{DType, Device, Int, Tensor, TensorData};
use burn_guard::module::WeightQuantizer;
use burn_guard::prelude::*;
use burn_guard::store::{Layout, LoadReport, SafetensorsStore};

use resnet::ResNet18;

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(resnet::DIR).join(name)
}

/// A store of one of the ResNet files, with the settings that load torchvision's ResNet-18:
/// PyTorch's layout and the two `downsample` remaps, strict otherwise.
fn resnet_store(file: &str) -> SafetensorsStore {
    let mut store = SafetensorsStore::from_file(fixture(file)).layout(Layout::PyTorch);
    for (from, to) in resnet::KEY_REMAPS {
        store = store.try_with_key_remapping(from, to).unwrap();
    }
    store
}

/// ResNet-18 with torchvision's weights (F16 in the file, cast to the model's F32).
fn resnet18(device: &Device) -> (ResNet18, LoadReport) {
    let mut model = ResNet18::new(10, device);
    let report = model
        .load_from_checked(&resnet_store("resnet18_f16.safetensors"))
        .unwrap();
    (model, report)
}

/// A named tensor of a SafeTensors fixture, as f32 values, through burn-store's own reader.
fn reference(file: &str, name: &str) -> (Vec<usize>, Vec<f32>) {
    let mut store = burn::store::SafetensorsStore::from_file(fixture(file));
    let tensor = store.get_tensor(name).unwrap().unwrap().clone();
    let (_, dtype, shape, _, bytes) = tensor.into_parts().unwrap();
    let data = TensorData::from_bytes(bytes, shape.clone(), dtype);
    (
        shape.to_vec(),
        data.convert::<f32>().try_to_vec::<f32>().unwrap(),
    )
}

fn values<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().convert::<f32>().try_to_vec::<f32>().unwrap()
}

fn bits<const D: usize>(t: Tensor<D>) -> Vec<u32> {
    values(t).into_iter().map(f32::to_bits).collect()
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Share of rows of `[n, classes]` logits whose argmax agrees.
fn top1_agreement(a: &[f32], b: &[f32], classes: usize) -> f64 {
    let argmax = |row: &[f32]| {
        row.iter()
            .enumerate()
            .fold((0, f32::NEG_INFINITY), |best, (i, &v)| {
                if v > best.1 { (i, v) } else { best }
            })
            .0
    };
    let rows = a.len() / classes;
    let agree = a
        .chunks(classes)
        .zip(b.chunks(classes))
        .filter(|(x, y)| argmax(x) == argmax(y))
        .count();
    agree as f64 / rows as f64
}

/// Every running statistic of the model, as bits: what "the original is untouched" compares
/// besides its forward.
fn running_statistics(model: &ResNet18) -> Vec<Vec<u32>> {
    let mut bns = vec![&model.bn1];
    for block in model
        .layer1
        .iter()
        .chain(&model.layer2)
        .chain(&model.layer3)
        .chain(&model.layer4)
    {
        bns.extend([&block.bn1, &block.bn2]);
        bns.extend(block.downsample.as_ref().map(|d| &d.bn));
    }
    bns.iter()
        .flat_map(|bn| {
            [
                bits(bn.running_mean.value_sync()),
                bits(bn.running_var.value_sync()),
            ]
        })
        .collect()
}

/// The model's running statistics and its logits on the first `n` fixed images, as bits. The
/// statistics are read first and with `value_sync` (a training forward, under autodiff, leaves
/// its update pending until then), so that reading twice gives the same bits.
fn fingerprint(model: &ResNet18, n: usize, device: &Device) -> (Vec<u32>, Vec<Vec<u32>>) {
    let statistics = running_statistics(model);
    let logits = model.forward(resnet::images(n, device));
    (bits(logits), statistics)
}

#[test]
fn resnet18_loads_strictly_under_the_pytorch_layout_and_gives_pytorchs_logits() {
    let device = Device::flex();
    let (model, report) = resnet18(&device);
    // 20 conv weights, 20 batch norms × 4, the head's weight and bias: 102 tensors, each cast
    // from the file's F16.
    assert_eq!(report.loaded().count(), 102);
    assert_eq!(report.cast().count(), 102);
    assert!(report.unused.is_empty() && report.missing.is_empty());
    assert_eq!(report.skipped.len(), 20, "{:?}", report.skipped);
    assert!(
        report
            .skipped
            .iter()
            .all(|k| k.ends_with(".num_batches_tracked"))
    );
    assert!(
        report
            .to_string()
            .contains("skipped (PyTorch bookkeeping): bn1.num_batches_tracked")
    );

    let x = resnet::images(resnet::IMAGES, &device);
    let logits = model.forward(x.clone());
    let (shape, torch) = reference("resnet18_reference.safetensors", "logits_f32");
    assert_eq!(shape, [resnet::IMAGES, 10]);
    let ours = values(logits.clone());
    let diff = max_abs_diff(&ours, &torch);
    println!("resnet18 f32 on flex: max |logit - pytorch| = {diff:e}");
    assert!(diff < 1e-4, "{diff}");
    // The guarded forward is burn's, bit for bit.
    assert_eq!(bits(model.try_forward(x).unwrap()), bits(logits));
}

#[test]
fn a_resnet34_file_is_refused_under_the_settings_that_load_resnet18() {
    let device = Device::flex();
    let (mut model, _) = resnet18(&device);
    let before = fingerprint(&model, 2, &device);
    let err = model
        .load_from_checked(&resnet_store("resnet34_zeros_f16.safetensors"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unused);
    let GuardError::Unused { keys, .. } = err.root() else {
        panic!("{err:?}")
    };
    // ResNet-34's blocks past ResNet-18's two per stage: (1 + 2 + 4 + 1) blocks of two convs
    // and two batch norms (4 tensors each), ResNet-18's tensors all taken, bookkeeping skipped.
    assert_eq!(keys.len(), 8 * (2 + 2 * 4), "{keys:?}");
    assert!(keys.iter().all(|k| !k.ends_with("num_batches_tracked")));
    let line = err.to_string();
    println!("{line}");
    // Short whatever the key count; the file's path, as opened, comes on top.
    let file = fixture("resnet34_zeros_f16.safetensors")
        .display()
        .to_string();
    assert!(
        line.len() - file.len() < 300,
        "{} characters: {line}",
        line.len()
    );
    assert!(
        line.contains("80 unused") && line.contains("more)"),
        "{line}"
    );
    assert_eq!(fingerprint(&model, 2, &device), before);

    // What `allow_unused(true)` was: the file loads into the wrong model without a word but the
    // report's list. Patterns keep the load strict for everything they do not name.
    let loose = resnet_store("resnet34_zeros_f16.safetensors").allow_unused(true);
    let report = model.clone().load_from_checked(&loose).unwrap();
    assert_eq!(report.unused.len(), 80);
    let patterns = resnet_store("resnet34_zeros_f16.safetensors").allow_unused(["layer4.2.*"]);
    let err = model.load_from_checked(&patterns).unwrap_err();
    let GuardError::Unused { keys, .. } = err.root() else {
        panic!("{err:?}")
    };
    assert_eq!(keys.len(), 80 - 10);
}

/// A model quantized through `&self`, and loaded into through a clone: the original's forward
/// and running statistics are bit for bit those of a twin model that went through the same
/// calls without the quantization and the load (a training forward, under autodiff, updates
/// the statistics: the twin makes the same updates).
fn original_untouched(device: &Device, images: usize) {
    let (model, _) = resnet18(device);
    let (twin, _) = resnet18(device);
    let check = |when: &str| {
        let (ours, theirs) = (
            fingerprint(&model, images, device),
            fingerprint(&twin, images, device),
        );
        assert_eq!(ours.0, theirs.0, "logits {when}");
        for (i, (a, b)) in ours.1.iter().zip(&theirs.1).enumerate() {
            assert_eq!(a, b, "running statistic {i} {when}");
        }
        ours
    };
    check("before");

    let scheme = QuantScheme::default().with_value(QuantValue::Q8S);
    let mut quantizer = Quantizer::new(Calibration::MinMax, scheme);
    // Strict where every parameter packs (Flex); on wgpu the head's bias `[10]` cannot.
    let quantized = match model.try_quantize_weights(&mut quantizer) {
        Ok(quantized) => quantized,
        Err(_) => WeightQuantizer::new()
            .keep_unquantizable_in_float()
            .quantize(&model, &mut quantizer)
            .unwrap()
            .into_model(),
    };
    assert!(matches!(
        quantized.conv1.weight.val().dtype(),
        DType::QFloat(_)
    ));
    let after = check("after quantizing through &self");
    // The statistics stay float in the quantized copy, and equal the original's.
    assert_eq!(running_statistics(&quantized), after.1);

    // Asked to quantize the running statistics as burn does: in the copy only.
    let with_statistics = WeightQuantizer::new()
        .keep_unquantizable_in_float()
        .quantize_running_statistics()
        .quantize(&model, &mut quantizer)
        .unwrap()
        .into_model();
    let var = with_statistics.bn1.running_var.value();
    assert!(matches!(var.dtype(), DType::QFloat(_)), "{:?}", var.dtype());
    check("after quantizing the running statistics through &self");

    let mut copy = model.clone();
    let loose = resnet_store("resnet34_zeros_f16.safetensors").allow_unused(true);
    copy.load_from_checked(&loose).unwrap();
    check("after a load into a clone");
    // The copy did load: ResNet-34's zeros.
    assert!(running_statistics(&copy).iter().flatten().all(|&b| b == 0));
}

#[test]
fn quantizing_or_loading_a_copy_leaves_the_original_untouched_on_flex() {
    original_untouched(&Device::flex(), 2);
}

#[test]
fn quantizing_or_loading_a_copy_leaves_the_original_untouched_under_autodiff() {
    original_untouched(&Device::flex().autodiff(), 2);
}

/// burn's own `clone().quantize_weights(..)` and burn-store's load into a clone do rewrite the
/// original's running statistics: what the twins above are measured against.
#[test]
fn burn_rewrites_the_originals_running_statistics() {
    let device = Device::flex();
    let (model, _) = resnet18(&device);
    assert_eq!(model.bn1.running_var.value().dtype(), DType::F32);
    let scheme = QuantScheme::default().with_value(QuantValue::Q8S);
    let _ = model
        .clone()
        .quantize_weights(&mut Quantizer::new(Calibration::MinMax, scheme));
    assert!(
        matches!(model.bn1.running_var.value().dtype(), DType::QFloat(_)),
        "burn's quantize_weights of a clone quantized the original's running variance"
    );
}

/// ResNet-18 quantized Q8 per tensor on `device`, against its f32 forward and PyTorch's own
/// fake-quantization of the same weights. `float_bias`: the head's bias `[10]` stays in float
/// (no dimension of it packs into u32 words on CubeCL).
fn quantized_resnet18(device: &Device, name: &str, float_bias: bool) {
    let (model, _) = resnet18(device);
    let scheme = QuantScheme::default().with_value(QuantValue::Q8S);
    // With the error gate: every weight's round trip measured where it was quantized (on Flex
    // from the stored values in place, on wgpu reduced there) and held to 5 %.
    let quantized = WeightQuantizer::new()
        .keep_unquantizable_in_float()
        .max_relative_error(0.05)
        .quantize(&model, &mut Quantizer::new(Calibration::MinMax, scheme))
        .unwrap();
    let report = quantized.report();
    println!("{report}");
    let errors: Vec<f64> = report
        .quantized()
        .map(|p| p.relative_error.unwrap())
        .collect();
    let worst = errors.iter().copied().fold(0.0, f64::max);
    println!("resnet18 q8s on {name}: worst round-trip error {worst:e}");
    // Batch norm's scales and shifts are constant here (ones and zeros), which Q8 holds
    // exactly: 0. The convolutions' weights are off by about 1 %.
    assert!(errors.iter().all(|e| (0.0..0.05).contains(e)), "{errors:?}");
    assert!(
        report
            .param("conv1.weight")
            .unwrap()
            .relative_error
            .unwrap()
            > 1e-3
    );
    // Every weight quantized; in float the running statistics and the bias that cannot pack,
    // each saying why, none for its last dimension.
    for param in report.kept_in_float() {
        let burn_guard::quant::Placement::KeptFloat { reason } = &param.placement else {
            unreachable!()
        };
        if param.path == "fc.bias" {
            assert!(reason.contains("no dimension of [10]"), "{reason}");
        } else {
            assert!(param.path.contains(".running_"), "{}", param.path);
            assert!(reason.contains("running statistic"), "{reason}");
        }
        assert!(!reason.contains("last dimension"), "{reason}");
    }
    assert_eq!(
        report.quantized().count(),
        102 - 40 - usize::from(float_bias)
    );
    assert!(report.param("conv1.weight").unwrap().is_quantized());
    assert!(report.param("fc.weight").unwrap().is_quantized());
    let (before, after) = report.total_bytes();
    let ratio = after as f64 / before as f64;
    println!("resnet18 q8s on {name}: stored bytes {after} of {before} ({ratio:.4}x)");
    assert!(ratio <= 0.27, "{ratio}");

    let x = resnet::images(resnet::IMAGES, device);
    let f32_logits = values(model.forward(x.clone()));
    let q8_logits = values(quantized.model().try_forward(x).unwrap());
    let ours = max_abs_diff(&q8_logits, &f32_logits);
    let (_, torch_f32) = reference("resnet18_reference.safetensors", "logits_f32");
    let (_, torch_q8) = reference("resnet18_reference.safetensors", "logits_q8s_fake");
    let torch = max_abs_diff(&torch_q8, &torch_f32);
    let agreement = top1_agreement(&q8_logits, &f32_logits, 10);
    println!(
        "resnet18 q8s on {name}: max |logit diff| {ours:e} against f32 (pytorch's fake quantization: \
         {torch:e}); top-1 agreement {agreement}"
    );
    assert!(ours <= torch * 1.10, "{ours} > 1.1 × {torch}");
}

#[test]
fn resnet18_quantizes_every_weight_q8_on_flex_within_pytorchs_error() {
    quantized_resnet18(&Device::flex(), "flex", false);
}

#[test]
fn resnet18_quantizes_every_weight_q8_on_wgpu_within_pytorchs_error() {
    let Some(device) = common::wgpu_device() else {
        return;
    };
    quantized_resnet18(&device, "wgpu", true);
    original_untouched(&device, 2);
}

#[test]
fn bert_loads_strictly_and_gives_transformers_hidden_states() {
    let device = Device::flex();
    let mut model = bert::Bert::new(&bert::TINY, &device);
    let mut store =
        SafetensorsStore::from_file(fixture("bert_tiny.safetensors")).layout(Layout::PyTorch);
    for (from, to) in bert::KEY_REMAPS {
        store = store.try_with_key_remapping(from, to).unwrap();
    }
    let report = model.load_from_checked(&store).unwrap();
    assert_eq!(report.loaded().count(), 39);
    assert!(report.unused.is_empty() && report.skipped.is_empty());

    let (shape, ids) = reference("bert_tiny_reference.safetensors", "input_ids");
    let ids: Vec<i64> = ids.iter().map(|&v| v as i64).collect();
    let ids = Tensor::<2, Int>::from_data(TensorData::new(ids, [shape[0], shape[1]]), &device);
    let (hidden, pooled) = model.forward(ids);
    let (_, torch_hidden) = reference("bert_tiny_reference.safetensors", "last_hidden_state");
    let (_, torch_pooled) = reference("bert_tiny_reference.safetensors", "pooler_output");
    let (dh, dp) = (
        max_abs_diff(&values(hidden), &torch_hidden),
        max_abs_diff(&values(pooled), &torch_pooled),
    );
    println!("bert tiny on flex: max |hidden - transformers| {dh:e}, pooler {dp:e}");
    assert!(dh < 1e-4 && dp < 1e-4, "{dh} {dp}");
}
