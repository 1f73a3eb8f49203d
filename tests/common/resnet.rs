//! torchvision's ResNet-18 written in burn (`torchvision/models/resnet.py`, `BasicBlock`), for
//! the real-model fixtures of `tests/data/models/` (written by torchvision, loaded here), the
//! tests that quantize and load it, and `benches/resnet.rs`.
//!
//! Module paths follow torchvision's keys except `downsample.0` / `downsample.1`, which burn
//! names `downsample.conv` / `downsample.bn` ([`KEY_REMAPS`]); PyTorch's batch norm `weight` and
//! `bias` are burn's `gamma` and `beta`, and a `Linear` weight is transposed
//! (`Layout::PyTorch`).
#![allow(dead_code)]

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::{AdaptiveAvgPool2d, AdaptiveAvgPool2dConfig, MaxPool2d, MaxPool2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData};
use burn_guard::prelude::*;

/// The fixtures' directory.
pub const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/models");

/// torchvision's `downsample.N` keys to burn's field names (burn-store's regex remapping).
pub const KEY_REMAPS: [(&str, &str); 2] = [
    (r"(.*)\.downsample\.0\.(.*)", "$1.downsample.conv.$2"),
    (r"(.*)\.downsample\.1\.(.*)", "$1.downsample.bn.$2"),
];

/// The number of fixed images [`images`] makes, and PyTorch's reference logits cover.
pub const IMAGES: usize = 256;

fn conv(c_in: usize, c_out: usize, kernel: usize, stride: usize, pad: usize, d: &Device) -> Conv2d {
    Conv2dConfig::new([c_in, c_out], [kernel, kernel])
        .with_stride([stride, stride])
        .with_padding(PaddingConfig2d::Explicit(pad, pad, pad, pad))
        .with_bias(false)
        .init(d)
}

fn bn(channels: usize, d: &Device) -> BatchNorm {
    BatchNormConfig::new(channels).init(d)
}

/// `downsample`: a 1×1 convolution and a batch norm on the shortcut.
#[derive(Module, Debug)]
pub struct Downsample {
    pub conv: Conv2d,
    pub bn: BatchNorm,
}

/// torchvision's `BasicBlock`.
#[derive(Module, Debug)]
pub struct BasicBlock {
    pub conv1: Conv2d,
    pub bn1: BatchNorm,
    pub conv2: Conv2d,
    pub bn2: BatchNorm,
    pub downsample: Option<Downsample>,
}

impl BasicBlock {
    fn new(c_in: usize, c_out: usize, stride: usize, d: &Device) -> Self {
        let downsample = (stride != 1 || c_in != c_out).then(|| Downsample {
            conv: conv(c_in, c_out, 1, stride, 0, d),
            bn: bn(c_out, d),
        });
        Self {
            conv1: conv(c_in, c_out, 3, stride, 1, d),
            bn1: bn(c_out, d),
            conv2: conv(c_out, c_out, 3, 1, 1, d),
            bn2: bn(c_out, d),
            downsample,
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let identity = match &self.downsample {
            Some(down) => down.bn.forward(down.conv.forward(x.clone())),
            None => x.clone(),
        };
        let out = relu(self.bn1.forward(self.conv1.forward(x)));
        let out = self.bn2.forward(self.conv2.forward(out));
        relu(out + identity)
    }

    fn try_forward(&self, x: Tensor<4>) -> burn_guard::Result<Tensor<4>> {
        let identity = match &self.downsample {
            Some(down) => {
                let y = down
                    .conv
                    .try_forward(x.clone())
                    .context("downsample.conv")?;
                down.bn.try_forward(y).context("downsample.bn")?
            }
            None => x.clone(),
        };
        let out = self.conv1.try_forward(x).context("conv1")?;
        let out = relu(self.bn1.try_forward(out).context("bn1")?);
        let out = self.conv2.try_forward(out).context("conv2")?;
        let out = self.bn2.try_forward(out).context("bn2")?;
        Ok(relu(out.try_add(identity)?))
    }
}

/// torchvision's `resnet18(num_classes)`.
#[derive(Module, Debug)]
pub struct ResNet18 {
    pub conv1: Conv2d,
    pub bn1: BatchNorm,
    pub maxpool: MaxPool2d,
    pub layer1: Vec<BasicBlock>,
    pub layer2: Vec<BasicBlock>,
    pub layer3: Vec<BasicBlock>,
    pub layer4: Vec<BasicBlock>,
    pub avgpool: AdaptiveAvgPool2d,
    pub fc: Linear,
}

impl ResNet18 {
    pub fn new(num_classes: usize, d: &Device) -> Self {
        let layer = |c_in, c_out, stride| {
            vec![
                BasicBlock::new(c_in, c_out, stride, d),
                BasicBlock::new(c_out, c_out, 1, d),
            ]
        };
        Self {
            conv1: conv(3, 64, 7, 2, 3, d),
            bn1: bn(64, d),
            maxpool: MaxPool2dConfig::new([3, 3])
                .with_strides([2, 2])
                .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
                .init(),
            layer1: layer(64, 64, 1),
            layer2: layer(64, 128, 2),
            layer3: layer(128, 256, 2),
            layer4: layer(256, 512, 2),
            avgpool: AdaptiveAvgPool2dConfig::new([1, 1]).init(),
            fc: LinearConfig::new(512, num_classes).init(d),
        }
    }

    /// burn's own forward: logits `[batch, classes]` of images `[batch, 3, h, w]`.
    pub fn forward(&self, x: Tensor<4>) -> Tensor<2> {
        let x = relu(self.bn1.forward(self.conv1.forward(x)));
        let mut x = self.maxpool.forward(x);
        for block in self
            .layer1
            .iter()
            .chain(&self.layer2)
            .chain(&self.layer3)
            .chain(&self.layer4)
        {
            x = block.forward(x);
        }
        let x = self.avgpool.forward(x);
        let [batch, channels, ..] = x.dims();
        self.fc.forward(x.reshape([batch, channels]))
    }

    /// The same forward through burn-guard's layer twins.
    pub fn try_forward(&self, x: Tensor<4>) -> burn_guard::Result<Tensor<2>> {
        let x = self.conv1.try_forward(x).context("conv1")?;
        let x = relu(self.bn1.try_forward(x).context("bn1")?);
        let mut x = self.maxpool.try_forward(x).context("maxpool")?;
        for (name, layer) in [
            ("layer1", &self.layer1),
            ("layer2", &self.layer2),
            ("layer3", &self.layer3),
            ("layer4", &self.layer4),
        ] {
            for (i, block) in layer.iter().enumerate() {
                x = block.try_forward(x).context(format!("{name}.{i}"))?;
            }
        }
        let x = self.avgpool.try_forward(x).context("avgpool")?;
        let [batch, channels, ..] = x.dims();
        let x = x.try_reshape([batch, channels])?;
        self.fc.try_forward(x).context("fc")
    }
}

/// The fixed images `[n, 3, 32, 32]` of `make_models.py` `images()`: from the flat index `k`,
/// `h = k · 2654435761 mod 2³²`, value `((h mod 2049) − 1024) / 1024`, exact in f32.
pub fn images(n: usize, device: &Device) -> Tensor<4> {
    let values: Vec<f32> = (0..n * 3 * 32 * 32)
        .map(|k| {
            let h = (k as u64).wrapping_mul(2_654_435_761) % (1u64 << 32);
            ((h % 2049) as f32 - 1024.0) / 1024.0
        })
        .collect();
    Tensor::from_data(TensorData::new(values, [n, 3, 32, 32]), device)
}
