//! The digits model shared by `examples/quantized_inference.rs`, `tests/quantized_model.rs`
//! and `benches/quantized.rs`: the UCI digits data (`tests/data/digits.csv.gz`, CC BY 4.0,
//! see `tests/data/README.md`), a fixed train/test split, a 64→256→128→10 MLP trained on Flex
//! with autodiff, and its forward pass in float and through quantized layers.
#![allow(dead_code)]

use std::io::Read;

use burn::module::{Module, ModuleMapper, Param};
use burn::nn::loss::CrossEntropyLossConfig;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Gradients, Int, Tensor, TensorData};
use burn_guard::nn::QuantizedLayers;

/// Pixels per image.
pub const FEATURES: usize = 64;
/// Digit classes.
pub const CLASSES: usize = 10;
/// Seed of the split and of the initial weights.
pub const SEED: u64 = 2026;

/// One split of the data set: `x` rows of 64 pixels scaled to [0, 1], labels 0–9.
#[derive(Debug, Clone)]
pub struct Split {
    pub x: Vec<f32>,
    pub y: Vec<i64>,
}

impl Split {
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// Images `[n, 64]` on `device`.
    pub fn images(&self, device: &Device) -> Tensor<2> {
        Tensor::from_data(
            TensorData::new(self.x.clone(), [self.len(), FEATURES]),
            device,
        )
    }

    pub fn batch(&self, indices: &[usize], device: &Device) -> (Tensor<2>, Tensor<1, Int>) {
        let mut x = Vec::with_capacity(indices.len() * FEATURES);
        let mut y = Vec::with_capacity(indices.len());
        for &i in indices {
            x.extend_from_slice(&self.x[i * FEATURES..(i + 1) * FEATURES]);
            y.push(self.y[i]);
        }
        (
            Tensor::from_data(TensorData::new(x, [indices.len(), FEATURES]), device),
            Tensor::from_data(TensorData::new(y, [indices.len()]), device),
        )
    }
}

/// The data set split 80/20 after a seeded shuffle: 1438 training and 359 test images.
pub fn load() -> (Split, Split) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/digits.csv.gz");
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let rows: Vec<Vec<f32>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split(',')
                .map(|v| v.trim().parse::<f32>().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 1797);
    let mut order: Vec<usize> = (0..rows.len()).collect();
    shuffle(&mut order, SEED);
    let test_len = rows.len() / 5;
    let split = |indices: &[usize]| {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for &i in indices {
            let row = &rows[i];
            x.extend(row[..FEATURES].iter().map(|v| v / 16.0));
            y.push(row[FEATURES] as i64);
        }
        Split { x, y }
    };
    let (test, train) = order.split_at(test_len);
    (split(train), split(test))
}

/// Fisher–Yates with xorshift64*: the same order on every machine.
pub fn shuffle(order: &mut [usize], seed: u64) {
    let mut state = seed.max(1);
    for i in (1..order.len()).rev() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let r = state.wrapping_mul(0x2545_F491_4F6C_DD1D);
        order.swap(i, (r % (i as u64 + 1)) as usize);
    }
}

/// The 64→256→128→10 MLP, ReLU between layers.
#[derive(Module, Debug)]
pub struct DigitsMlp {
    pub l1: Linear,
    pub l2: Linear,
    pub l3: Linear,
}

impl DigitsMlp {
    pub fn new(hidden: [usize; 2], device: &Device) -> Self {
        Self {
            l1: LinearConfig::new(FEATURES, hidden[0]).init(device),
            l2: LinearConfig::new(hidden[0], hidden[1]).init(device),
            l3: LinearConfig::new(hidden[1], CLASSES).init(device),
        }
    }

    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let x = relu(self.l1.forward(x));
        let x = relu(self.l2.forward(x));
        self.l3.forward(x)
    }
}

/// The same forward through quantized layers: every call is a `Result`.
pub fn quantized_forward(
    layers: &QuantizedLayers,
    x: Tensor<2>,
) -> Result<Tensor<2>, burn_guard::GuardError> {
    let x = relu(layers.forward("l1", x)?);
    let x = relu(layers.forward("l2", x)?);
    layers.forward("l3", x)
}

/// Plain SGD: `p ← p − lr · ∂loss/∂p`.
struct Sgd<'a> {
    grads: &'a Gradients,
    lr: f64,
}

impl ModuleMapper for Sgd<'_> {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let (grads, lr) = (self.grads, self.lr);
        param.map(|t| match t.grad(grads) {
            Some(g) => (t.inner() - g.mul_scalar(lr)).autodiff().require_grad(),
            None => t,
        })
    }
}

/// Trains on Flex with autodiff: minibatch SGD, fixed seed and order. Returns the model on
/// plain Flex.
pub fn train(train: &Split, hidden: [usize; 2], epochs: usize) -> DigitsMlp {
    let device = Device::flex().autodiff();
    device.seed(SEED);
    let mut model = DigitsMlp::new(hidden, &device);
    let loss = CrossEntropyLossConfig::new().init(&device);
    let batch = 32;
    let mut order: Vec<usize> = (0..train.len()).collect();
    for epoch in 0..epochs {
        shuffle(&mut order, SEED + epoch as u64 + 1);
        let lr = if epoch < epochs * 2 / 3 { 0.1 } else { 0.03 };
        for chunk in order.chunks(batch) {
            let (x, y) = train.batch(chunk, &device);
            let grads = loss.forward(model.forward(x), y).backward();
            model = model.map(&mut Sgd { grads: &grads, lr });
        }
    }
    model.valid().to_device(&Device::flex())
}

/// Share of `predictions` (logits `[n, 10]`) that match `split`'s labels.
pub fn accuracy(logits: Tensor<2>, split: &Split) -> f64 {
    let predicted: Vec<i64> = logits
        .argmax(1)
        .into_data()
        .convert::<i64>()
        .try_to_vec::<i64>()
        .unwrap();
    let correct = predicted
        .iter()
        .zip(&split.y)
        .filter(|(p, y)| p == y)
        .count();
    correct as f64 / split.len() as f64
}

/// The schemes compared: every one runs natively on wgpu (u32-packed values, f32 scales).
pub fn schemes() -> Vec<(&'static str, burn::tensor::quantization::QuantScheme)> {
    use burn::tensor::quantization::{QuantScheme, QuantStore, QuantValue, ScaleDtype};
    let packed = |value| {
        QuantScheme::default()
            .with_value(value)
            .with_store(QuantStore::PackedU32(0))
    };
    vec![
        ("q8-tensor", packed(QuantValue::Q8S)),
        (
            "q8-block32",
            packed(QuantValue::Q8S).per_block([32], ScaleDtype::F32),
        ),
        (
            "q4-block32",
            packed(QuantValue::Q4S).per_block([32], ScaleDtype::F32),
        ),
    ]
}

/// Bytes of every linear weight of `model` in f32, read from the tensors.
pub fn float_weight_bytes(model: &DigitsMlp) -> u64 {
    [&model.l1, &model.l2, &model.l3]
        .iter()
        .map(|l| l.weight.val().into_data().bytes().len() as u64)
        .sum()
}
