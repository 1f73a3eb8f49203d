//! Config `init`s measured with degenerate fields (zero sizes, NaN, negative and extreme
//! numbers): the ones that panic are twinned (rows of `tests/data/twins.tsv`); the rest are
//! shown here not to panic, which is why they have no twin.

use burn::module::{Module, ModuleVisitor, Param};
use burn::nn::attention::MultiHeadAttentionConfig;
use burn::nn::pool::{AdaptiveAvgPool2dConfig, AvgPool2dConfig, MaxPool2dConfig};
use burn::nn::transformer::{TransformerDecoderConfig, TransformerEncoderConfig};
use burn::nn::{
    BiLstmConfig, EmbeddingConfig, GroupNormConfig, GruConfig, InstanceNormConfig, LayerNormConfig,
    LeakyReluConfig, LinearConfig, LstmConfig, PReluConfig, PixelShuffleConfig,
    PositionalEncodingConfig, RnnConfig, RotaryEncodingConfig, SwiGluConfig,
};
use burn::nn::{Fold4dConfig, Unfold4dConfig};
use burn::tensor::{Device, Tensor};

use crate::support::raw;

fn panics<T>(f: impl FnOnce() -> T) -> bool {
    raw(f).is_none()
}

/// Draws every parameter: burn initialises them lazily, and an initializer that panics
/// (a fan of 0 for Kaiming or Xavier) does so at the first use, not in `init`.
fn drawn<M: Module>(module: M) -> M {
    struct Draw;
    impl ModuleVisitor for Draw {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            let _ = param.val();
        }
    }
    module.visit(&mut Draw);
    module
}

/// One measurement: whether the init (with its parameters drawn) panicked.
type Case<'a> = Box<dyn Fn() -> bool + 'a>;

#[test]
fn inits_without_a_twin_do_not_panic_on_degenerate_fields() {
    let d = Device::flex();
    let cases: Vec<(&str, Case)> = vec![
        (
            "linear 5->0",
            Box::new(|| panics(|| drawn(LinearConfig::new(5, 0).init(&d)))),
        ),
        (
            "embedding 0x4",
            Box::new(|| panics(|| drawn(EmbeddingConfig::new(0, 4).init(&d)))),
        ),
        (
            "embedding 4x0",
            Box::new(|| panics(|| drawn(EmbeddingConfig::new(4, 0).init(&d)))),
        ),
        (
            "layer norm 0",
            Box::new(|| panics(|| drawn(LayerNormConfig::new(0).init(&d)))),
        ),
        (
            "layer norm eps 0",
            Box::new(|| panics(|| drawn(LayerNormConfig::new(4).with_epsilon(0.0).init(&d)))),
        ),
        (
            "lstm hidden 0",
            Box::new(|| panics(|| drawn(LstmConfig::new(4, 0, true).init(&d)))),
        ),
        (
            "lstm input 0",
            Box::new(|| panics(|| drawn(LstmConfig::new(0, 4, true).init(&d)))),
        ),
        (
            "bilstm hidden 0",
            Box::new(|| panics(|| drawn(BiLstmConfig::new(4, 0, true).init(&d)))),
        ),
        (
            "gru hidden 0",
            Box::new(|| panics(|| drawn(GruConfig::new(4, 0, true).init(&d)))),
        ),
        (
            "rnn hidden 0",
            Box::new(|| panics(|| drawn(RnnConfig::new(4, 0, true).init(&d)))),
        ),
        (
            "prelu 0 parameters",
            Box::new(|| panics(|| drawn(PReluConfig::new().with_num_parameters(0).init(&d)))),
        ),
        (
            "leaky relu NaN slope",
            Box::new(|| panics(|| LeakyReluConfig::new().with_negative_slope(f64::NAN).init())),
        ),
        (
            "instance norm 0",
            Box::new(|| panics(|| drawn(InstanceNormConfig::new(0).init(&d)))),
        ),
        (
            "swiglu 0",
            Box::new(|| panics(|| drawn(SwiGluConfig::new(0, 4).init(&d)))),
        ),
        (
            "pixel shuffle 0",
            Box::new(|| panics(|| PixelShuffleConfig::new(0).init())),
        ),
        (
            "encoder 0 layers",
            Box::new(|| panics(|| drawn(TransformerEncoderConfig::new(8, 16, 2, 0).init(&d)))),
        ),
        (
            "max pool kernel 0",
            Box::new(|| panics(|| MaxPool2dConfig::new([0, 0]).init())),
        ),
        (
            "avg pool kernel 0",
            Box::new(|| panics(|| AvgPool2dConfig::new([0, 0]).init())),
        ),
        (
            "adaptive pool 0",
            Box::new(|| panics(|| AdaptiveAvgPool2dConfig::new([0, 0]).init())),
        ),
        (
            "unfold kernel 0",
            Box::new(|| panics(|| Unfold4dConfig::new([0, 0]).init())),
        ),
        (
            "fold kernel 0",
            Box::new(|| panics(|| Fold4dConfig::new([0, 0], [0, 0]).init())),
        ),
    ];
    let panicking: Vec<&str> = cases
        .iter()
        .filter(|(_, case)| case())
        .map(|(name, _)| *name)
        .collect();
    assert!(
        panicking.is_empty(),
        "these inits panic, so their configs need a try_init twin: {panicking:?}"
    );
}

/// Inits that panic through helpers a scan of their body cannot see (a table builder's index, a
/// remainder by a zero field, a layer another module builds, a parameter drawn lazily with a fan
/// of 0): each does panic on the field shown, which is why each has a row and a twin.
#[test]
fn measured_panicking_inits_do_panic() {
    let d = Device::flex();
    let cases: Vec<(&str, bool)> = vec![
        (
            "GroupNormConfig 0 groups",
            panics(|| drawn(GroupNormConfig::new(0, 4).init(&d))),
        ),
        (
            "MultiHeadAttentionConfig 0 heads",
            panics(|| drawn(MultiHeadAttentionConfig::new(8, 0).init(&d))),
        ),
        (
            "PositionalEncodingConfig d_model 0",
            panics(|| drawn(PositionalEncodingConfig::new(0).init(&d))),
        ),
        (
            "RotaryEncodingConfig odd d_model",
            panics(|| drawn(RotaryEncodingConfig::new(8, 3).init(&d))),
        ),
        (
            "TransformerEncoderConfig dropout 2",
            panics(|| {
                TransformerEncoderConfig::new(8, 16, 2, 1)
                    .with_dropout(2.0)
                    .init(&d)
            }),
        ),
        (
            "TransformerDecoderConfig 0 heads",
            panics(|| drawn(TransformerDecoderConfig::new(8, 16, 0, 1).init(&d))),
        ),
    ];
    let calm: Vec<&str> = cases
        .iter()
        .filter(|(_, panicked)| !panicked)
        .map(|(name, _)| *name)
        .collect();
    assert!(calm.is_empty(), "expected a panic from: {calm:?}");
}
