//! The two models of `examples/quantized_models.rs`, shared with `tests/quantized_models.rs`
//! and `benches/quantized_models.rs`: a small transformer sequence classifier on a synthetic
//! token task, and a small CNN on the 8×8 digits (`support/digits.rs` loads them); both are
//! plain `#[derive(Module)]` structs of burn's layers with their own `forward`, trained on
//! Flex with autodiff by a small Adam written as a `ModuleMapper`.
#![allow(dead_code)]

use std::collections::HashMap;

use burn::module::{Module, ModuleMapper, Param, ParamId};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::loss::CrossEntropyLossConfig;
use burn::nn::pool::{MaxPool2d, MaxPool2dConfig};
use burn::nn::transformer::{
    TransformerEncoder, TransformerEncoderConfig, TransformerEncoderInput,
};
use burn::nn::{Embedding, EmbeddingConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Gradients, Int, Tensor, TensorData};

use super::digits::{self, Split};

/// Seed of the token data, the initial weights and the batch order.
pub const SEED: u64 = 2026;

// --- The token task ---------------------------------------------------------------------

/// Tokens in the vocabulary.
pub const VOCAB: usize = 32;
/// Tokens per sequence.
pub const SEQ: usize = 16;
/// Classes: token `t` belongs to group `t / (VOCAB / GROUPS)`.
pub const GROUPS: usize = 4;

/// Sequences of [`SEQ`] token ids, each labelled with the group most of its tokens belong
/// to (sequences with a tie are not drawn).
#[derive(Debug, Clone)]
pub struct Tokens {
    pub ids: Vec<i64>,
    pub y: Vec<i64>,
}

impl Tokens {
    /// `n` sequences drawn uniformly from the vocabulary with `seed`.
    pub fn generate(n: usize, seed: u64) -> Self {
        let mut rng = XorShift(seed.max(1));
        let mut ids = Vec::with_capacity(n * SEQ);
        let mut y = Vec::with_capacity(n);
        while y.len() < n {
            let seq: Vec<i64> = (0..SEQ)
                .map(|_| (rng.next() % VOCAB as u64) as i64)
                .collect();
            let mut counts = [0usize; GROUPS];
            for &t in &seq {
                counts[t as usize / (VOCAB / GROUPS)] += 1;
            }
            let max = *counts.iter().max().unwrap();
            if counts.iter().filter(|&&c| c == max).count() > 1 {
                continue;
            }
            y.push(counts.iter().position(|&c| c == max).unwrap() as i64);
            ids.extend(seq);
        }
        Self { ids, y }
    }

    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// Every sequence, `[n, SEQ]` ids on `device`.
    pub fn all(&self, device: &Device) -> Tensor<2, Int> {
        Tensor::from_data(TensorData::new(self.ids.clone(), [self.len(), SEQ]), device)
    }

    fn batch(&self, indices: &[usize], device: &Device) -> (Tensor<2, Int>, Tensor<1, Int>) {
        let mut ids = Vec::with_capacity(indices.len() * SEQ);
        let mut y = Vec::with_capacity(indices.len());
        for &i in indices {
            ids.extend_from_slice(&self.ids[i * SEQ..(i + 1) * SEQ]);
            y.push(self.y[i]);
        }
        (
            Tensor::from_data(TensorData::new(ids, [indices.len(), SEQ]), device),
            Tensor::from_data(TensorData::new(y, [indices.len()]), device),
        )
    }
}

/// Width of the transformer: a multiple of 32, so that blocks of 32 divide every weight but
/// the head's.
pub const D_MODEL: usize = 32;

/// Token embedding, a 2-layer transformer encoder, mean pooling over the sequence, a linear
/// head.
#[derive(Module, Debug)]
pub struct TokenClassifier {
    pub embedding: Embedding,
    pub encoder: TransformerEncoder,
    pub head: Linear,
}

impl TokenClassifier {
    pub fn new(device: &Device) -> Self {
        Self {
            embedding: EmbeddingConfig::new(VOCAB, D_MODEL).init(device),
            encoder: TransformerEncoderConfig::new(D_MODEL, 2 * D_MODEL, 2, 2)
                .with_dropout(0.0)
                .init(device),
            head: LinearConfig::new(D_MODEL, GROUPS).init(device),
        }
    }

    /// Logits `[batch, GROUPS]` for ids `[batch, SEQ]`.
    pub fn forward(&self, ids: Tensor<2, Int>) -> Tensor<2> {
        let [batch, _] = ids.dims();
        let x = self.embedding.forward(ids);
        let x = self.encoder.forward(TransformerEncoderInput::new(x));
        let pooled = x.mean_dim(1).reshape([batch, D_MODEL]);
        self.head.forward(pooled)
    }
}

/// Trains the transformer on `train` (Flex, autodiff) and returns it on plain Flex.
pub fn train_transformer(train: &Tokens, epochs: usize) -> TokenClassifier {
    let device = Device::flex().autodiff();
    device.seed(SEED);
    let model = TokenClassifier::new(&device);
    let loss = CrossEntropyLossConfig::new().init(&device);
    let model = fit(model, train.len(), epochs, 3e-3, |model, chunk| {
        let (ids, y) = train.batch(chunk, &device);
        loss.forward(model.forward(ids), y)
    });
    model.valid().to_device(&Device::flex())
}

// --- The digits CNN ---------------------------------------------------------------------

/// Conv 3×3 (1→8) → ReLU → max pool 2 → conv 3×3 (8→16) → ReLU → max pool 2 → linear
/// 64→128 → ReLU → linear 128→10.
#[derive(Module, Debug)]
pub struct DigitsCnn {
    pub conv1: Conv2d,
    pub conv2: Conv2d,
    pub pool: MaxPool2d,
    pub hidden: Linear,
    pub head: Linear,
}

impl DigitsCnn {
    pub fn new(device: &Device) -> Self {
        let conv = |c_in, c_out| {
            Conv2dConfig::new([c_in, c_out], [3, 3])
                .with_padding(PaddingConfig2d::Same)
                .init(device)
        };
        Self {
            conv1: conv(1, 8),
            conv2: conv(8, 16),
            pool: MaxPool2dConfig::new([2, 2]).with_strides([2, 2]).init(),
            hidden: LinearConfig::new(16 * 2 * 2, 128).init(device),
            head: LinearConfig::new(128, digits::CLASSES).init(device),
        }
    }

    /// Logits `[batch, 10]` for images `[batch, 1, 8, 8]`.
    pub fn forward(&self, x: Tensor<4>) -> Tensor<2> {
        let [batch, ..] = x.dims();
        let x = self.pool.forward(relu(self.conv1.forward(x)));
        let x = self.pool.forward(relu(self.conv2.forward(x)));
        let x = relu(self.hidden.forward(x.reshape([batch, 16 * 2 * 2])));
        self.head.forward(x)
    }
}

/// Images `[n, 1, 8, 8]` of `split` on `device`.
pub fn images(split: &Split, device: &Device) -> Tensor<4> {
    split.images(device).reshape([split.len(), 1, 8, 8])
}

fn image_batch(split: &Split, indices: &[usize], device: &Device) -> (Tensor<4>, Tensor<1, Int>) {
    let mut x = Vec::with_capacity(indices.len() * digits::FEATURES);
    let mut y = Vec::with_capacity(indices.len());
    for &i in indices {
        x.extend_from_slice(&split.x[i * digits::FEATURES..(i + 1) * digits::FEATURES]);
        y.push(split.y[i]);
    }
    (
        Tensor::from_data(TensorData::new(x, [indices.len(), 1, 8, 8]), device),
        Tensor::from_data(TensorData::new(y, [indices.len()]), device),
    )
}

/// Trains the CNN on `train` (Flex, autodiff) and returns it on plain Flex.
pub fn train_cnn(train: &Split, epochs: usize) -> DigitsCnn {
    let device = Device::flex().autodiff();
    device.seed(SEED);
    let model = DigitsCnn::new(&device);
    let loss = CrossEntropyLossConfig::new().init(&device);
    let model = fit(model, train.len(), epochs, 3e-3, |model, chunk| {
        let (x, y) = image_batch(train, chunk, &device);
        loss.forward(model.forward(x), y)
    });
    model.valid().to_device(&Device::flex())
}

// --- Training and evaluation ------------------------------------------------------------

/// Minibatches of 32 in a seeded order, one Adam step each.
fn fit<M: Module>(
    mut model: M,
    len: usize,
    epochs: usize,
    lr: f64,
    mut loss: impl FnMut(&M, &[usize]) -> Tensor<1>,
) -> M {
    let mut adam = Adam::new(lr);
    let mut order: Vec<usize> = (0..len).collect();
    for epoch in 0..epochs {
        shuffle(&mut order, SEED + epoch as u64 + 1);
        for chunk in order.chunks(32) {
            let grads = loss(&model, chunk).backward();
            model = adam.step(model, &grads);
        }
    }
    model
}

/// Adam (β₁ 0.9, β₂ 0.999, ε 1e-8), its moments kept per parameter id, flattened.
struct Adam {
    lr: f64,
    t: i32,
    moments: HashMap<ParamId, (Tensor<1>, Tensor<1>)>,
}

impl Adam {
    fn new(lr: f64) -> Self {
        Self {
            lr,
            t: 0,
            moments: HashMap::new(),
        }
    }

    fn step<M: Module>(&mut self, model: M, grads: &Gradients) -> M {
        self.t += 1;
        model.map(&mut AdamStep { adam: self, grads })
    }
}

struct AdamStep<'a> {
    adam: &'a mut Adam,
    grads: &'a Gradients,
}

impl ModuleMapper for AdamStep<'_> {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
        let id = param.id;
        let adam = &mut *self.adam;
        let grads = self.grads;
        param.map(|t| {
            let Some(g) = t.grad(grads) else { return t };
            let dims = g.dims();
            let g = g.reshape([dims.iter().product::<usize>()]);
            let (m, v) = adam
                .moments
                .remove(&id)
                .unwrap_or_else(|| (g.zeros_like(), g.zeros_like()));
            let m = m.mul_scalar(b1) + g.clone().mul_scalar(1.0 - b1);
            let v = v.mul_scalar(b2) + g.powi_scalar(2).mul_scalar(1.0 - b2);
            let m_hat = m.clone().div_scalar(1.0 - b1.powi(adam.t));
            let v_hat = v.clone().div_scalar(1.0 - b2.powi(adam.t));
            let update = (m_hat / v_hat.sqrt().add_scalar(eps)).mul_scalar(adam.lr);
            adam.moments.insert(id, (m, v));
            (t.inner() - update.reshape(dims)).autodiff().require_grad()
        })
    }
}

/// Fisher–Yates with xorshift64*: the same order on every machine.
fn shuffle(order: &mut [usize], seed: u64) {
    let mut rng = XorShift(seed.max(1));
    for i in (1..order.len()).rev() {
        order.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
}

/// xorshift64*.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Share of `logits`' rows whose argmax is the label.
pub fn accuracy(logits: Tensor<2>, labels: &[i64]) -> f64 {
    let predicted: Vec<i64> = logits
        .argmax(1)
        .into_data()
        .convert::<i64>()
        .try_to_vec::<i64>()
        .unwrap();
    let correct = predicted.iter().zip(labels).filter(|(p, y)| p == y).count();
    correct as f64 / labels.len() as f64
}
