//! The MLP of `benches/nn.rs`, `benches/training.rs` and `benches/training_instructions.rs`:
//! 64 → 256 → 10 with a ReLU between, as burn's layers.
#![allow(dead_code)]

use burn::module::Module;
use burn::nn::{Linear, LinearConfig, Relu};
use burn::tensor::{Device, Tensor};

#[derive(Module, Debug)]
pub struct Mlp {
    pub hidden: Linear,
    pub activation: Relu,
    pub output: Linear,
}

impl Mlp {
    pub fn new(device: &Device) -> Self {
        Self {
            hidden: LinearConfig::new(64, 256).init(device),
            activation: Relu::new(),
            output: LinearConfig::new(256, 10).init(device),
        }
    }

    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.output
            .forward(self.activation.forward(self.hidden.forward(x)))
    }

    /// The training benches' loss: the mean of the squared outputs.
    pub fn loss(&self, x: Tensor<2>) -> Tensor<1> {
        self.forward(x).powi_scalar(2).mean()
    }
}
