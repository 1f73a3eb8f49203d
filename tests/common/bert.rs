//! Hugging Face's `BertModel` written in burn (transformers `models/bert/modeling_bert.py`,
//! eval mode, no attention mask), for the `bert_tiny` fixture of `tests/data/models/` (written by
//! transformers, loaded here).
//!
//! Module paths follow transformers' keys except two names Rust or burn spell otherwise:
//! `LayerNorm` → `layer_norm` and `attention.self` → `attention.self_attn` ([`KEY_REMAPS`]);
//! PyTorch's `LayerNorm` `weight`/`bias` are burn's `gamma`/`beta`, and a `Linear` weight is
//! transposed (`Layout::PyTorch`).
#![allow(dead_code)]

use burn::module::Module;
use burn::nn::{Embedding, EmbeddingConfig, LayerNorm, LayerNormConfig, Linear, LinearConfig};
use burn::tensor::activation::{gelu, softmax};
use burn::tensor::{Device, Int, Tensor};

/// transformers' key names to burn's field names (burn-store's regex remapping).
pub const KEY_REMAPS: [(&str, &str); 2] = [
    (r"(.*)\.LayerNorm\.(.*)", "$1.layer_norm.$2"),
    (r"(.*)\.attention\.self\.(.*)", "$1.attention.self_attn.$2"),
];

/// The fixture's configuration (`make_models.py` `bert()`).
pub struct BertConfig {
    pub vocab: usize,
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub intermediate: usize,
    pub max_positions: usize,
    pub type_vocab: usize,
}

pub const TINY: BertConfig = BertConfig {
    vocab: 256,
    hidden: 64,
    layers: 2,
    heads: 2,
    intermediate: 128,
    max_positions: 64,
    type_vocab: 2,
};

const EPSILON: f64 = 1e-12;

fn linear(d_in: usize, d_out: usize, device: &Device) -> Linear {
    LinearConfig::new(d_in, d_out).init(device)
}

fn norm(d: usize, device: &Device) -> LayerNorm {
    LayerNormConfig::new(d).with_epsilon(EPSILON).init(device)
}

#[derive(Module, Debug)]
pub struct Embeddings {
    pub word_embeddings: Embedding,
    pub position_embeddings: Embedding,
    pub token_type_embeddings: Embedding,
    pub layer_norm: LayerNorm,
}

#[derive(Module, Debug)]
pub struct SelfAttention {
    pub query: Linear,
    pub key: Linear,
    pub value: Linear,
}

#[derive(Module, Debug)]
pub struct DenseNorm {
    pub dense: Linear,
    pub layer_norm: LayerNorm,
}

#[derive(Module, Debug)]
pub struct Attention {
    pub self_attn: SelfAttention,
    pub output: DenseNorm,
}

#[derive(Module, Debug)]
pub struct Dense {
    pub dense: Linear,
}

#[derive(Module, Debug)]
pub struct Layer {
    pub attention: Attention,
    pub intermediate: Dense,
    pub output: DenseNorm,
}

#[derive(Module, Debug)]
pub struct Encoder {
    pub layer: Vec<Layer>,
}

/// `BertModel`: embeddings, encoder, pooler.
#[derive(Module, Debug)]
pub struct Bert {
    pub embeddings: Embeddings,
    pub encoder: Encoder,
    pub pooler: Dense,
    heads: usize,
}

impl Bert {
    pub fn new(c: &BertConfig, device: &Device) -> Self {
        let h = c.hidden;
        Self {
            embeddings: Embeddings {
                word_embeddings: EmbeddingConfig::new(c.vocab, h).init(device),
                position_embeddings: EmbeddingConfig::new(c.max_positions, h).init(device),
                token_type_embeddings: EmbeddingConfig::new(c.type_vocab, h).init(device),
                layer_norm: norm(h, device),
            },
            encoder: Encoder {
                layer: (0..c.layers)
                    .map(|_| Layer {
                        attention: Attention {
                            self_attn: SelfAttention {
                                query: linear(h, h, device),
                                key: linear(h, h, device),
                                value: linear(h, h, device),
                            },
                            output: DenseNorm {
                                dense: linear(h, h, device),
                                layer_norm: norm(h, device),
                            },
                        },
                        intermediate: Dense {
                            dense: linear(h, c.intermediate, device),
                        },
                        output: DenseNorm {
                            dense: linear(c.intermediate, h, device),
                            layer_norm: norm(h, device),
                        },
                    })
                    .collect(),
            },
            pooler: Dense {
                dense: linear(h, h, device),
            },
            heads: c.heads,
        }
    }

    /// `(last_hidden_state [batch, seq, hidden], pooler_output [batch, hidden])` of token ids
    /// `[batch, seq]`, token type 0 everywhere.
    pub fn forward(&self, ids: Tensor<2, Int>) -> (Tensor<3>, Tensor<2>) {
        let [batch, seq] = ids.dims();
        let device = ids.device();
        let e = &self.embeddings;
        let positions = Tensor::<1, Int>::arange(0..seq as i64, &device)
            .reshape([1, seq])
            .expand([batch, seq]);
        let types = Tensor::<2, Int>::zeros([batch, seq], &device);
        let x = e.word_embeddings.forward(ids)
            + e.position_embeddings.forward(positions)
            + e.token_type_embeddings.forward(types);
        let mut x = e.layer_norm.forward(x);
        for layer in &self.encoder.layer {
            x = self.layer(layer, x);
        }
        let [_, _, hidden] = x.dims();
        let first = x.clone().narrow(1, 0, 1).reshape([batch, hidden]);
        let pooled = self.pooler.dense.forward(first).tanh();
        (x, pooled)
    }

    fn layer(&self, layer: &Layer, x: Tensor<3>) -> Tensor<3> {
        let [batch, seq, hidden] = x.dims();
        let head = hidden / self.heads;
        let split = |t: Tensor<3>| t.reshape([batch, seq, self.heads, head]).swap_dims(1, 2);
        let a = &layer.attention.self_attn;
        let q = split(a.query.forward(x.clone()));
        let k = split(a.key.forward(x.clone()));
        let v = split(a.value.forward(x.clone()));
        let scores = q.matmul(k.swap_dims(2, 3)).div_scalar((head as f64).sqrt());
        let context = softmax(scores, 3)
            .matmul(v)
            .swap_dims(1, 2)
            .reshape([batch, seq, hidden]);
        let out = &layer.attention.output;
        let x = out.layer_norm.forward(out.dense.forward(context) + x);
        let h = gelu(layer.intermediate.dense.forward(x.clone()));
        let out = &layer.output;
        out.layer_norm.forward(out.dense.forward(h) + x)
    }
}
