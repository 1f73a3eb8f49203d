//! The fixed wgpu set: bad layer inputs are refused by checks before anything reaches a wgpu
//! kernel (a kernel panic on the fusion thread would poison the device for the whole process),
//! and a transformer-encoder classifier built from the twins gives raw burn's output.
//!
//! One test, so that every case runs on one device in order: if any bad input reached a
//! kernel and poisoned the device, the good forwards at the end would fail.

use burn::module::Module;
use burn::nn::activation::HardtanhConfig;
use burn::nn::attention::MultiHeadAttentionConfig;
use burn::nn::conv::Conv2dConfig;
use burn::nn::loss::CrossEntropyLossConfig;
use burn::nn::pool::MaxPool2dConfig;
use burn::nn::transformer::{
    TransformerEncoder, TransformerEncoderConfig, TransformerEncoderInput,
};
use burn::nn::{
    EmbeddingConfig, LayerNormConfig, Linear, LinearConfig, LocalResponseNormConfig,
    PairwiseDistanceConfig,
};
use burn::tensor::{Bool, Device, Int, Tensor};
use burn_guard::nn::attention::MhaInput;
use burn_guard::nn::transformer::TransformerEncoderInput as GuardedEncoderInput;
use burn_guard::prelude::*;

use crate::common::wgpu_device;
use crate::support::{float_tensor, refused, snapshot};

/// A classifier: transformer encoder, mean over the sequence, linear head.
#[derive(Module, Debug)]
struct Classifier {
    encoder: TransformerEncoder,
    head: Linear,
}

impl Classifier {
    fn new(device: &Device) -> Self {
        Self {
            encoder: TransformerEncoderConfig::new(8, 16, 2, 2).init(device),
            head: LinearConfig::new(8, 3).init(device),
        }
    }

    fn forward(&self, x: Tensor<3>) -> Tensor<2> {
        let encoded = self.encoder.forward(TransformerEncoderInput::new(x));
        self.head.forward(encoded.mean_dim(1).squeeze_dim::<2>(1))
    }

    fn try_forward(&self, x: Tensor<3>) -> burn_guard::Result<Tensor<2>> {
        let encoded = self
            .encoder
            .try_forward(GuardedEncoderInput::new(x))
            .context("encoder")?;
        let pooled = encoded.try_mean_dim(1)?.try_squeeze_dim::<2>(1)?;
        self.head.try_forward(pooled).context("head")
    }
}

#[test]
fn bad_layer_inputs_never_reach_a_wgpu_kernel() {
    let Some(device) = wgpu_device() else { return };
    let d = &device;
    const WGPU: &str = "wgpu";

    let linear = LinearConfig::new(4, 3).init(d);
    refused(
        WGPU,
        "linear: wrong features",
        linear.try_forward(float_tensor([2, 5], d)),
    );

    let conv = Conv2dConfig::new([2, 3], [3, 3]).init(d);
    refused(
        WGPU,
        "conv2d: wrong channels",
        conv.try_forward(float_tensor([1, 4, 5, 5], d)),
    );
    refused(
        WGPU,
        "conv2d: kernel larger than input",
        conv.try_forward(float_tensor([1, 2, 2, 2], d)),
    );

    let pool = MaxPool2dConfig::new([3, 3]).init();
    refused(
        WGPU,
        "max_pool2d: kernel larger than input",
        pool.try_forward(float_tensor([1, 1, 2, 2], d)),
    );

    let norm = LayerNormConfig::new(4).init(d);
    refused(
        WGPU,
        "layer_norm: wrong d_model",
        norm.try_forward(float_tensor([2, 5], d)),
    );

    let lrn = LocalResponseNormConfig::new(3).try_init().unwrap();
    // NdArray's average pool underflows on no channels; the twin returns the empty input
    // without dispatch on every backend.
    let empty = lrn.try_forward(Tensor::<3>::zeros([1, 0, 4], d)).unwrap();
    assert_eq!(empty.dims(), [1, 0, 4]);

    let mut hardtanh = HardtanhConfig::new().try_init().unwrap();
    hardtanh.min_val = 2.0;
    hardtanh.max_val = 1.0;
    refused(
        WGPU,
        "hardtanh: min above max",
        hardtanh.try_forward(float_tensor([2, 3], d)),
    );

    let distance = PairwiseDistanceConfig::new().with_p(f64::INFINITY).init();
    refused(
        WGPU,
        "pairwise_distance: infinite p, no features",
        distance.try_forward(Tensor::<2>::zeros([2, 0], d), Tensor::<2>::zeros([2, 0], d)),
    );

    let embedding = EmbeddingConfig::new(10, 4).init(d);
    let ids = Tensor::<2, Int>::from_ints([[1, 10]], d);
    let err = refused(
        WGPU,
        "embedding: id out of range",
        embedding.try_forward(ids),
    );
    assert_eq!(err.kind(), ErrorKind::IndexOutOfRange);

    let mha = MultiHeadAttentionConfig::new(8, 2).init(d);
    let x = || float_tensor([2, 3, 8], d);
    refused(
        WGPU,
        "mha: wrong d_model",
        mha.try_forward(MhaInput::new(float_tensor([2, 3, 6], d), x(), x())),
    );
    refused(
        WGPU,
        "mha: mask_pad of the wrong length",
        mha.try_forward(MhaInput::new(x(), x(), x()).mask_pad(Tensor::<2, Bool>::empty([2, 4], d))),
    );
    refused(
        WGPU,
        "mha: key batch differs from query batch",
        mha.try_forward(MhaInput::new(
            x(),
            float_tensor([1, 3, 8], d),
            float_tensor([1, 3, 8], d),
        )),
    );

    let loss = CrossEntropyLossConfig::new().try_init(d).unwrap();
    let logits = float_tensor([2, 3], d);
    let err = refused(
        WGPU,
        "cross_entropy: class id out of range",
        loss.try_forward(logits.clone(), Tensor::<1, Int>::from_ints([0, 3], d)),
    );
    assert_eq!(err.kind(), ErrorKind::IndexOutOfRange);
    refused(
        WGPU,
        "cross_entropy: batch mismatch",
        loss.try_forward(logits, Tensor::<1, Int>::from_ints([0], d)),
    );

    let classifier = Classifier::new(d);
    let err = refused(
        WGPU,
        "classifier: wrong d_model",
        classifier.try_forward(float_tensor([2, 5, 6], d)),
    );
    assert_eq!(
        err.path().as_deref().map(|p| p.starts_with("encoder")),
        Some(true),
        "{err}"
    );

    // The device is still healthy: good inputs run, and the guarded classifier gives raw
    // burn's output.
    assert_eq!(
        linear.try_forward(float_tensor([2, 4], d)).unwrap().dims(),
        [2, 3]
    );
    assert_eq!(
        conv.try_forward(float_tensor([1, 2, 5, 5], d))
            .unwrap()
            .dims(),
        [1, 3, 3, 3]
    );
    let ids = Tensor::<2, Int>::from_ints([[1, 9]], d);
    assert_eq!(embedding.try_forward(ids).unwrap().dims(), [1, 2, 4]);
    let tokens = float_tensor([2, 5, 8], d);
    let raw = snapshot(classifier.forward(tokens.clone()));
    let guarded = snapshot(classifier.try_forward(tokens).unwrap());
    assert_eq!(raw, guarded);
    println!("wgpu refusals by kind: {:?}", crate::support::tally());
}
