//! A layer twin's error starts with the layer the caller called, then the path of the part
//! that refused inside it; the kind, the op and the path stay the inner error's.

use burn::nn::transformer::{TransformerDecoderConfig, TransformerEncoderConfig};
use burn::nn::{BiLstmConfig, GruConfig, LstmConfig, LstmState};
use burn::tensor::{Device, Tensor};
use burn_guard::nn::transformer::{TransformerDecoderInput, TransformerEncoderInput};
use burn_guard::prelude::*;
use burn_guard::{ErrorKind, GuardError};

use crate::support::refused;

const FLEX: &str = "flex";

/// `err` reads `{layer}: {path}: {root}`, the root starting with its op, and its kind, op and
/// path are the root's.
fn named(err: &GuardError, layer: &str, path: &str, kind: ErrorKind, op: &str) {
    assert_eq!(err.to_string(), format!("{layer}: {path}: {}", err.root()));
    assert!(
        err.to_string()
            .starts_with(&format!("{layer}: {path}: {op}: ")),
        "{err}"
    );
    assert_eq!(err.layer(), Some(layer), "{err}");
    assert_eq!(err.path().as_deref(), Some(path), "{err}");
    assert_eq!(err.kind(), kind, "{err}");
    assert_eq!(err.op(), op, "{err}");
}

#[test]
fn a_recurrent_layer_names_itself_before_the_gate() {
    let device = Device::flex();
    let lstm = LstmConfig::new(4, 5, true).init(&device);
    let err = refused(
        FLEX,
        "lstm features",
        lstm.try_forward(Tensor::ones([2, 3, 6], &device), None),
    );
    named(
        &err,
        "lstm",
        "input_gate.input_transform",
        ErrorKind::ShapeMismatch,
        "linear",
    );

    let gru = GruConfig::new(4, 5, true).init(&device);
    let err = refused(
        FLEX,
        "gru features",
        gru.try_forward(Tensor::ones([2, 3, 3], &device), None),
    );
    named(
        &err,
        "gru",
        "update_gate.input_transform",
        ErrorKind::ShapeMismatch,
        "linear",
    );

    // A bidirectional layer keeps the direction in the path, after its own name.
    let bilstm = BiLstmConfig::new(4, 5, true).init(&device);
    let err = refused(
        FLEX,
        "bilstm features",
        bilstm.try_forward(Tensor::ones([2, 3, 6], &device), None),
    );
    named(
        &err,
        "bilstm",
        "forward.input_gate.input_transform",
        ErrorKind::ShapeMismatch,
        "linear",
    );
}

#[test]
fn an_error_of_the_layer_itself_is_named_once() {
    let device = Device::flex();
    let lstm = LstmConfig::new(4, 5, true).init(&device);
    // A saved state of batch 3 for a request of batch 2: the LSTM's own rule, no path.
    let state = LstmState::new(
        Tensor::zeros([3, 5], &device),
        Tensor::zeros([3, 5], &device),
    );
    let err = refused(
        FLEX,
        "lstm state batch",
        lstm.try_forward(Tensor::ones([2, 3, 4], &device), Some(state)),
    );
    assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    assert_eq!(err.op(), "lstm");
    assert_eq!(err.layer(), None, "{err}");
    let text = err.to_string();
    assert!(
        text.starts_with("lstm: ") && !text.starts_with("lstm: lstm:"),
        "{text}"
    );
}

#[test]
fn a_transformer_layer_names_itself_and_a_container_keeps_its_paths() {
    let device = Device::flex();
    let encoder = TransformerEncoderConfig::new(4, 8, 2, 2)
        .try_init(&device)
        .unwrap();
    let x = || Tensor::<3>::ones([2, 3, 5], &device);

    // One layer, called on its own: its name, then the sub-layer.
    let err = refused(
        FLEX,
        "encoder layer width",
        encoder.layers[0].try_forward(x(), None, None),
    );
    named(
        &err,
        "transformer_encoder_layer",
        "norm_2",
        ErrorKind::ShapeMismatch,
        "layer_norm",
    );

    // The encoder: its name once, then the layer's path inside it, as before.
    let err = refused(
        FLEX,
        "encoder width",
        encoder.try_forward(TransformerEncoderInput::new(x())),
    );
    named(
        &err,
        "transformer_encoder",
        "layers.0.norm_2",
        ErrorKind::ShapeMismatch,
        "layer_norm",
    );

    // A caller's own context goes around the whole line.
    let wrapped = encoder
        .try_forward(TransformerEncoderInput::new(x()))
        .context("encoder")
        .unwrap_err();
    assert!(
        wrapped
            .to_string()
            .starts_with("encoder: transformer_encoder: layers.0.norm_2: layer_norm: "),
        "{wrapped}"
    );
    assert_eq!(wrapped.kind(), ErrorKind::ShapeMismatch);

    let decoder = TransformerDecoderConfig::new(4, 8, 2, 1)
        .try_init(&device)
        .unwrap();
    let input = TransformerDecoderInput::new(
        Tensor::ones([2, 3, 4], &device),
        Tensor::ones([1, 5, 4], &device),
    );
    let err = refused(
        FLEX,
        "decoder memory batch",
        decoder.layers[0].try_forward(input),
    );
    assert_eq!(err.layer(), Some("transformer_decoder_layer"), "{err}");
    assert_eq!(err.path().as_deref(), Some("cross_attn"));
    assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
}
