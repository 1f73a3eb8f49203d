//! Attention and transformers: `attention`, `MultiHeadAttention`, `PositionWiseFeedForward`,
//! `TransformerEncoder` (and its layers), and their configs.

use burn::module::Module;
use burn::nn::attention::{
    CrossAttentionCache, CrossAttentionConfig, MhaInput as BurnMhaInput, MultiHeadAttentionConfig,
};
use burn::nn::transformer::{
    PositionWiseFeedForwardConfig, TransformerDecoder, TransformerDecoderConfig,
    TransformerDecoderInput as BurnDecoderInput, TransformerEncoder, TransformerEncoderConfig,
    TransformerEncoderInput as BurnEncoderInput,
};
use burn::nn::{Linear, LinearConfig, LinearLayout};
use burn::tensor::module::attention;
use burn::tensor::ops::AttentionModuleOptions;
use burn::tensor::{Bool, Device, Tensor};
use burn_guard::nn::attention::MhaInput;
use burn_guard::nn::transformer::{TransformerDecoderInput, TransformerEncoderInput};
use burn_guard::prelude::*;
use burn_guard::tensor::module::{try_attention, try_attention_fallback};
use proptest::prelude::*;

use crate::support::{cpu_devices, float_tensor, parity_on_cpus, raw, refusals, refused, snapshot};

fn t<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D> {
    if dims.contains(&0) {
        Tensor::zeros(dims, device)
    } else {
        float_tensor(dims, device).div_scalar(6.0)
    }
}

/// A mask with some positions set (never a whole row of a tiny tensor: the pattern varies).
fn mask<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D, Bool> {
    if dims.contains(&0) {
        Tensor::<D>::zeros(dims, device).greater_elem(0.0)
    } else {
        float_tensor(dims, device).greater_elem(3.0)
    }
}

#[derive(Debug, Clone, Copy)]
struct AttnCase {
    q: [usize; 4],
    k: [usize; 4],
    v: [usize; 4],
    mask: Option<[usize; 4]>,
    bias: Option<[usize; 4]>,
    options: AttentionModuleOptions,
}

fn attn_args(
    c: &AttnCase,
    device: &Device,
) -> (
    Tensor<4>,
    Tensor<4>,
    Tensor<4>,
    Option<Tensor<4, Bool>>,
    Option<Tensor<4>>,
) {
    (
        t(c.q, device),
        t(c.k, device),
        t(c.v, device),
        c.mask.map(|m| mask(m, device)),
        c.bias.map(|b| t(b, device)),
    )
}

fn attn_case() -> impl Strategy<Value = AttnCase> {
    (
        (
            0usize..3,
            1usize..3,
            any::<bool>(),
            0usize..4,
            0usize..4,
            1usize..4,
            0usize..3,
        ),
        (
            0usize..3,
            0usize..3,
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
    )
        .prop_map(
            |((b, h, one_kv, sq, sk, hd, vd), (mask_kind, bias_kind, causal, softcap, bad_v))| {
                let kv = if one_kv { 1 } else { h };
                let scores = [b, h, sq, sk];
                let bcast = [1, 1, sq, sk];
                let pick = |kind| match kind {
                    1 => Some(scores),
                    2 => Some(bcast),
                    _ => None,
                };
                AttnCase {
                    q: [b, h, sq, hd],
                    k: [b, kv, sk, hd],
                    // A value one longer than the key: every backend panics.
                    v: [b, kv, sk + usize::from(bad_v), vd],
                    mask: pick(mask_kind),
                    bias: pick(bias_kind),
                    options: AttentionModuleOptions {
                        scale: None,
                        softcap: softcap.then_some(2.0),
                        is_causal: causal,
                    },
                }
            },
        )
}

fn mha_input(
    q: [usize; 3],
    k: [usize; 3],
    pad: Option<[usize; 2]>,
    attn: Option<[usize; 3]>,
    device: &Device,
) -> MhaInput {
    let (query, key) = (t(q, device), t(k, device));
    let mut input = MhaInput::new(query, key.clone(), key);
    if let Some(pad) = pad {
        input = input.mask_pad(mask(pad, device));
    }
    if let Some(attn) = attn {
        input = input.mask_attn(mask(attn, device));
    }
    input
}

fn encoder(d_model: usize, heads: usize, norm_first: bool, device: &Device) -> TransformerEncoder {
    TransformerEncoderConfig::new(d_model, 2 * d_model, heads, 2)
        .with_norm_first(norm_first)
        .try_init(device)
        .unwrap()
}

fn encoder_input(x: [usize; 3], pad: bool, attn: bool, device: &Device) -> TransformerEncoderInput {
    let [b, s, _] = x;
    let mut input = TransformerEncoderInput::new(t(x, device));
    if pad {
        input = input.mask_pad(mask([b, s], device));
    }
    if attn {
        input = input.mask_attn(mask([b, s, s], device));
    }
    input
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn attention_parity(case in attn_case()) {
        parity_on_cpus(
            &format!("attention {case:?}"),
            |_| case,
            |c, device| {
                let (q, k, v, m, b) = attn_args(c, device);
                snapshot(attention(q, k, v, m, b, c.options))
            },
            |c, device| {
                let (q, k, v, m, b) = attn_args(c, device);
                try_attention(q, k, v, m, b, c.options).map(snapshot)
            },
        );
    }

    #[test]
    fn mha_parity(
        heads in 1usize..3, d_k in 1usize..3, batch in 1usize..3, sq in 1usize..4, sk in 1usize..4,
        wrong_width: bool, pad in 0usize..3, attn in 0usize..3, quiet: bool,
    ) {
        let d = heads * d_k;
        let width = d + usize::from(wrong_width);
        let pad = match pad { 1 => Some([batch, sk]), 2 => Some([1, sk]), _ => None };
        let attn = match attn { 1 => Some([batch, sq, sk]), 2 => Some([batch, 1, sk]), _ => None };
        parity_on_cpus(
            &format!("mha {heads}x{d_k} q [{batch}, {sq}, {width}] k seq {sk} pad {pad:?} attn {attn:?}"),
            |device| MultiHeadAttentionConfig::new(d, heads).with_quiet_softmax(quiet).init(device),
            |mha, device| {
                let input = mha_input([batch, sq, width], [batch, sk, width], pad, attn, device);
                let out = mha.forward(input.into_burn());
                (snapshot(out.context), snapshot(out.weights))
            },
            |mha, device| {
                let input = mha_input([batch, sq, width], [batch, sk, width], pad, attn, device);
                mha.try_forward(input).map(|out| (snapshot(out.context), snapshot(out.weights)))
            },
        );
    }

    #[test]
    fn pwff_parity(d_model in 1usize..5, d_ff in 1usize..6, batch in 1usize..3, seq in 0usize..3, fed in 1usize..6) {
        parity_on_cpus(
            &format!("pwff {d_model}->{d_ff} on [{batch}, {seq}, {fed}]"),
            |device| PositionWiseFeedForwardConfig::new(d_model, d_ff).init(device),
            |layer, device| snapshot(layer.forward(t([batch, seq, fed], device))),
            |layer, device| layer.try_forward(t([batch, seq, fed], device)).map(snapshot),
        );
    }

    #[test]
    fn decoder_parity(
        heads in 1usize..3, batch in 1usize..3, st in 1usize..4, sm in 1usize..4,
        wrong_memory_width: bool, memory_batch_1: bool, target_pad: bool, memory_pad: bool,
        causal: bool, norm_first: bool,
    ) {
        let d = 2 * heads;
        let memory = [if memory_batch_1 { 1 } else { batch }, sm, d + usize::from(wrong_memory_width)];
        let args = DecoderArgs { target: [batch, st, d], memory, target_pad, memory_pad, causal };
        parity_on_cpus(
            &format!("decoder heads {heads} {args:?}"),
            |device| decoder(d, heads, norm_first, device),
            |dec, device| snapshot(dec.forward(decoder_input(&args, device).into_burn())),
            |dec, device| dec.try_forward(decoder_input(&args, device)).map(snapshot),
        );
    }

    #[test]
    fn cross_attention_parity(
        d_model in 1usize..4, d_context in 1usize..4, kv in 1usize..3, rep in 1usize..3, d_head in 1usize..3,
        batch in 1usize..3, sq in 1usize..4, sk in 1usize..4,
        context_batch_1: bool, wrong_width: bool, with_mask: bool, quiet: bool,
    ) {
        let q = [batch, sq, d_model + usize::from(wrong_width)];
        let c = [if context_batch_1 { 1 } else { batch }, sk, d_context];
        let m = with_mask.then_some([batch, sk]);
        parity_on_cpus(
            &format!("cross attention {d_model}/{d_context} heads {kv}x{rep} d_head {d_head} q {q:?} c {c:?} mask {m:?}"),
            |device| CrossAttentionConfig::new(d_model, d_context, kv * rep, kv, d_head).with_quiet_softmax(quiet).init(device),
            |layer, device| snapshot(layer.forward(t(q, device), t(c, device), m.map(|m| mask(m, device)))),
            |layer, device| layer.try_forward(t(q, device), t(c, device), m.map(|m| mask(m, device))).map(snapshot),
        );
    }

    #[test]
    fn encoder_parity(
        heads in 1usize..3, batch in 1usize..3, seq in 1usize..4, wrong_width: bool,
        pad: bool, attn: bool, norm_first: bool,
    ) {
        let d = 2 * heads;
        let x = [batch, seq, d + usize::from(wrong_width)];
        parity_on_cpus(
            &format!("encoder d {d} heads {heads} x {x:?} pad {pad} attn {attn}"),
            |device| encoder(d, heads, norm_first, device),
            |enc, device| snapshot(enc.forward(encoder_input(x, pad, attn, device).into_burn())),
            |enc, device| enc.try_forward(encoder_input(x, pad, attn, device)).map(snapshot),
        );
    }
}

#[test]
fn attention_bad_inputs_are_refused_by_checks() {
    let opts = AttentionModuleOptions::default();
    let base = AttnCase {
        q: [2, 2, 3, 4],
        k: [2, 2, 5, 4],
        v: [2, 2, 5, 3],
        mask: None,
        bias: None,
        options: opts,
    };
    // (case, input, whether raw burn panics there on flex / ndarray: false marks a refusal
    // beyond burn on that backend, by a named rule)
    let cases: Vec<(&str, AttnCase, [bool; 2])> = vec![
        (
            "head_dim 0",
            AttnCase {
                q: [2, 2, 3, 0],
                k: [2, 2, 5, 0],
                ..base
            },
            [true, true],
        ),
        (
            "key batch 1",
            AttnCase {
                k: [1, 2, 5, 4],
                v: [1, 2, 5, 3],
                ..base
            },
            [true, false],
        ),
        (
            "key batch 3",
            AttnCase {
                k: [3, 2, 5, 4],
                v: [3, 2, 5, 3],
                ..base
            },
            [true, true],
        ),
        (
            "key head_dim",
            AttnCase {
                k: [2, 2, 5, 3],
                ..base
            },
            [true, true],
        ),
        (
            "value seq",
            AttnCase {
                v: [2, 2, 4, 3],
                ..base
            },
            [true, true],
        ),
        (
            "value heads",
            AttnCase {
                v: [2, 1, 5, 3],
                ..base
            },
            [true, false],
        ),
        (
            "3 kv heads for 4",
            AttnCase {
                q: [2, 4, 3, 4],
                k: [2, 3, 5, 4],
                v: [2, 3, 5, 3],
                ..base
            },
            [true, true],
        ),
        (
            "0 heads",
            AttnCase {
                q: [2, 0, 3, 4],
                k: [2, 0, 5, 4],
                v: [2, 0, 5, 3],
                ..base
            },
            [true, false],
        ),
        (
            "mask seq_k",
            AttnCase {
                mask: Some([2, 2, 3, 4]),
                ..base
            },
            [true, true],
        ),
        (
            "bias seq_q",
            AttnCase {
                bias: Some([2, 2, 2, 5]),
                ..base
            },
            [true, true],
        ),
        (
            "bias batch larger",
            AttnCase {
                q: [1, 2, 3, 4],
                k: [1, 2, 5, 4],
                v: [1, 2, 5, 3],
                bias: Some([2, 2, 3, 5]),
                ..base
            },
            [true, false],
        ),
        (
            "softcap 0",
            AttnCase {
                options: AttentionModuleOptions {
                    softcap: Some(0.0),
                    ..opts
                },
                ..base
            },
            [true, true],
        ),
        (
            "softcap NaN",
            AttnCase {
                options: AttentionModuleOptions {
                    softcap: Some(f64::NAN),
                    ..opts
                },
                ..base
            },
            [true, true],
        ),
        (
            "softcap inf",
            AttnCase {
                options: AttentionModuleOptions {
                    softcap: Some(f64::INFINITY),
                    ..opts
                },
                ..base
            },
            [false, false],
        ),
        (
            "scale NaN",
            AttnCase {
                options: AttentionModuleOptions {
                    scale: Some(f64::NAN),
                    ..opts
                },
                ..base
            },
            [false, false],
        ),
    ];
    for (i, (name, device)) in cpu_devices().into_iter().enumerate() {
        for (case, c, panics) in &cases {
            let burn_panics = raw(|| {
                let (q, k, v, m, b) = attn_args(c, &device);
                snapshot(attention(q, k, v, m, b, c.options))
            })
            .is_none();
            assert_eq!(
                burn_panics, panics[i],
                "{name}: {case}: raw burn panics = {burn_panics}"
            );
            let (q, k, v, m, b) = attn_args(c, &device);
            refused(name, case, try_attention(q, k, v, m, b, c.options));
        }
    }
}

#[test]
fn grouped_key_heads_run_on_flex_only() {
    let c = AttnCase {
        q: [2, 4, 3, 4],
        k: [2, 2, 5, 4],
        v: [2, 2, 5, 3],
        mask: None,
        bias: None,
        options: AttentionModuleOptions::default(),
    };
    let flex = Device::flex();
    let (q, k, v, m, b) = attn_args(&c, &flex);
    let ours = try_attention(q, k, v, m, b, c.options)
        .map(snapshot)
        .unwrap();
    let (q, k, v, m, b) = attn_args(&c, &flex);
    assert_eq!(ours, snapshot(attention(q, k, v, m, b, c.options)));
    // burn's decomposed fallback cannot group them, on Flex too.
    let (q, k, v, m, b) = attn_args(&c, &flex);
    assert!(raw(|| attention_fallback_raw(q, k, v, m, b, c.options)).is_none());
    let (q, k, v, m, b) = attn_args(&c, &flex);
    refused(
        "flex",
        "fallback gqa",
        try_attention_fallback(q, k, v, m, b, c.options),
    );
    // NdArray panics on them; refused.
    let (_, ndarray) = cpu_devices().remove(1);
    let (q, k, v, m, b) = attn_args(&c, &ndarray);
    refused("ndarray", "gqa", try_attention(q, k, v, m, b, c.options));
}

fn attention_fallback_raw(
    q: Tensor<4>,
    k: Tensor<4>,
    v: Tensor<4>,
    m: Option<Tensor<4, Bool>>,
    b: Option<Tensor<4>>,
    o: AttentionModuleOptions,
) -> Tensor<4> {
    burn::tensor::module::attention_fallback(q, k, v, m, b, o)
}

#[test]
fn mha_bad_inputs_are_refused_by_checks() {
    // (case, query, key, padding mask, attention mask, raw burn panics on [flex, ndarray];
    // `None` where raw burn must not be run: it crashes the process on Flex)
    type Case = (
        &'static str,
        [usize; 3],
        [usize; 3],
        Option<[usize; 2]>,
        Option<[usize; 3]>,
        Option<[bool; 2]>,
    );
    let cases: Vec<Case> = vec![
        (
            "wrong d_model",
            [2, 3, 5],
            [2, 5, 5],
            None,
            None,
            Some([true, true]),
        ),
        (
            "key batch",
            [2, 3, 4],
            [1, 5, 4],
            None,
            None,
            Some([true, true]),
        ),
        (
            "pad seq",
            [2, 3, 4],
            [2, 5, 4],
            Some([2, 3]),
            None,
            Some([true, true]),
        ),
        (
            "pad batch",
            [2, 3, 4],
            [2, 5, 4],
            Some([3, 5]),
            None,
            Some([true, true]),
        ),
        (
            "attn transposed",
            [2, 3, 4],
            [2, 5, 4],
            None,
            Some([2, 5, 3]),
            Some([true, true]),
        ),
        (
            "query seq 0",
            [2, 0, 4],
            [2, 5, 4],
            None,
            None,
            Some([false, true]),
        ),
        (
            "key seq 0",
            [2, 3, 4],
            [2, 0, 4],
            None,
            None,
            Some([false, true]),
        ),
        ("batch 0", [0, 3, 4], [0, 5, 4], None, None, None),
    ];
    for (i, (name, device)) in cpu_devices().into_iter().enumerate() {
        let mha = MultiHeadAttentionConfig::new(4, 2).init(&device);
        for (case, q, k, pad, attn, panics) in &cases {
            if let Some(panics) = panics {
                let burn_panics = raw(|| {
                    let input = mha_input(*q, *k, *pad, *attn, &device).into_burn();
                    snapshot(mha.forward(input).context)
                })
                .is_none();
                assert_eq!(burn_panics, panics[i], "{name}: {case}");
            }
            let err = refused(
                name,
                case,
                mha.try_forward(mha_input(*q, *k, *pad, *attn, &device)),
            );
            assert_eq!(err.op(), "multi_head_attention", "{name}: {case}");
        }
    }
}

#[test]
fn mha_with_indivisible_heads_is_refused_at_init_and_at_forward() {
    let device = Device::flex();
    // burn's init takes 5 / 2; its forward panics. n_heads 0: burn's init divides by it.
    let mha = MultiHeadAttentionConfig::new(5, 2).init(&device);
    assert!(raw(|| mha.forward(BurnMhaInput::self_attn(t([1, 2, 5], &device)))).is_none());
    assert!(raw(|| MultiHeadAttentionConfig::new(4, 0).init(&device)).is_none());
    refusals! { "flex";
        "forward 5 / 2" => mha.try_forward(MhaInput::self_attn(t([1, 2, 5], &device)));
    }
    refusals! { "none";
        "5 / 2", ShapeMismatch => MultiHeadAttentionConfig::new(5, 2).try_init(&device);
        "0 heads" => MultiHeadAttentionConfig::new(4, 0).try_init(&device);
        "dropout 1", OutOfRange =>
            MultiHeadAttentionConfig::new(4, 2).with_dropout(1.0).try_init(&device);
        "encoder 0 heads" => TransformerEncoderConfig::new(4, 8, 0, 2).try_init(&device);
        "encoder 4 / 3" => TransformerEncoderConfig::new(4, 8, 3, 2).try_init(&device);
        "pwff dropout" =>
            PositionWiseFeedForwardConfig::new(4, 8).with_dropout(-0.5).try_init(&device);
    }
}

#[test]
fn an_error_in_a_later_layer_names_its_path() {
    for (name, device) in cpu_devices() {
        let mut enc = encoder(4, 2, false, &device);
        // Layer 1's query projection loaded with 6 outputs: burn panics inside that layer.
        enc.layers[1].mha.query = LinearConfig::new(4, 6).init(&device);
        let x = [2, 3, 4];
        assert!(raw(|| enc.forward(encoder_input(x, false, false, &device).into_burn())).is_none());
        let err = refused(
            name,
            "layer 1 query",
            enc.try_forward(encoder_input(x, false, false, &device)),
        );
        assert!(
            err.to_string()
                .starts_with("transformer_encoder: layers.1.mha.query: "),
            "{err}"
        );
        assert_eq!(err.path().as_deref(), Some("layers.1.mha.query"));

        // A bad mask fails in layer 0 first.
        let input = encoder_input(x, false, false, &device).mask_pad(mask([2, 4], &device));
        let err = refused(name, "pad", enc.try_forward(input));
        assert_eq!(err.path().as_deref(), Some("layers.0.mha"));
    }
}

#[test]
fn encoder_autoregressive_inference_matches_burn() {
    let device = Device::flex();
    let enc = encoder(4, 2, true, &device);
    let mut burn_cache = enc.new_autoregressive_cache();
    let mut our_cache = enc.new_autoregressive_cache();
    for seq in 1..4 {
        let x = t([1, seq, 4], &device);
        let burn =
            enc.forward_autoregressive_inference(BurnEncoderInput::new(x.clone()), &mut burn_cache);
        let ours = enc
            .try_forward_autoregressive_inference(TransformerEncoderInput::new(x), &mut our_cache)
            .unwrap();
        assert_eq!(snapshot(burn), snapshot(ours));
    }
    // One layer on its own cache, as the encoder runs it.
    let mut burn_layer = burn::nn::transformer::TransformerEncoderLayerAutoregressiveCache::empty();
    let mut our_layer = burn::nn::transformer::TransformerEncoderLayerAutoregressiveCache::empty();
    for seq in 1..3 {
        let x = t([1, seq, 4], &device);
        let burn =
            enc.layers[0].forward_autoregressive_inference(x.clone(), None, None, &mut burn_layer);
        let ours = enc.layers[0]
            .try_forward_autoregressive_inference(x, None, None, &mut our_layer)
            .unwrap();
        assert_eq!(snapshot(burn), snapshot(ours));
    }
    let err = refused(
        "flex",
        "wrong width",
        enc.try_forward_autoregressive_inference(
            TransformerEncoderInput::new(t([1, 4, 5], &device)),
            &mut our_cache,
        ),
    );
    assert!(
        err.path().is_some_and(|p| p.starts_with("layers.0.")),
        "{err}"
    );
}

/// A small classifier: an encoder, mean pooling over the sequence, a linear head.
#[derive(Module, Debug)]
struct Classifier {
    encoder: TransformerEncoder,
    head: Linear,
}

impl Classifier {
    fn forward(&self, x: Tensor<3>, pad: Tensor<2, Bool>) -> Tensor<2> {
        let x = self.encoder.forward(BurnEncoderInput::new(x).mask_pad(pad));
        self.head.forward(x.mean_dim(1).squeeze_dim::<2>(1))
    }

    fn try_forward(&self, x: Tensor<3>, pad: Tensor<2, Bool>) -> burn_guard::Result<Tensor<2>> {
        let x = self
            .encoder
            .try_forward(TransformerEncoderInput::new(x).mask_pad(pad))
            .context("encoder")?;
        let pooled = x.try_mean_dim(1)?.try_squeeze_dim::<2>(1)?;
        self.head.try_forward(pooled).context("head")
    }
}

#[test]
fn a_transformer_classifier_from_twins_equals_burn_on_flex() {
    let device = Device::flex();
    let model = Classifier {
        encoder: encoder(8, 2, false, &device),
        head: LinearConfig::new(8, 3).init(&device),
    };
    let x = t([3, 5, 8], &device);
    let pad = mask([3, 5], &device);
    let burn = snapshot(model.forward(x.clone(), pad.clone()));
    let ours = snapshot(model.try_forward(x, pad).unwrap());
    assert_eq!(burn, ours);
    assert_eq!(ours.0, vec![3, 3]);
    let err = refused(
        "flex",
        "classifier width",
        model.try_forward(t([3, 5, 7], &device), mask([3, 5], &device)),
    );
    assert!(
        err.to_string()
            .starts_with("encoder: transformer_encoder: layers.0."),
        "{err}"
    );
}

#[derive(Debug, Clone, Copy)]
struct DecoderArgs {
    target: [usize; 3],
    memory: [usize; 3],
    target_pad: bool,
    memory_pad: bool,
    causal: bool,
}

fn decoder(d_model: usize, heads: usize, norm_first: bool, device: &Device) -> TransformerDecoder {
    TransformerDecoderConfig::new(d_model, 2 * d_model, heads, 2)
        .with_norm_first(norm_first)
        .try_init(device)
        .unwrap()
}

fn decoder_input(a: &DecoderArgs, device: &Device) -> TransformerDecoderInput {
    let [b, st, _] = a.target;
    let [mb, sm, _] = a.memory;
    let mut input = TransformerDecoderInput::new(t(a.target, device), t(a.memory, device));
    if a.target_pad {
        input = input.target_mask_pad(mask([b, st], device));
    }
    if a.memory_pad {
        input = input.memory_mask_pad(mask([mb, sm], device));
    }
    if a.causal {
        input = input.target_mask_attn(burn::nn::attention::generate_autoregressive_mask(
            b, st, device,
        ));
    }
    input
}

#[test]
fn decoder_layers_chain_like_the_decoder_and_errors_name_their_path() {
    for (name, device) in cpu_devices() {
        let mut dec = decoder(4, 2, false, &device);
        let args = DecoderArgs {
            target: [2, 3, 4],
            memory: [2, 5, 4],
            target_pad: true,
            memory_pad: true,
            causal: true,
        };
        let whole = dec.try_forward(decoder_input(&args, &device)).unwrap();
        let mut input = decoder_input(&args, &device);
        for layer in &dec.layers {
            input = layer.try_forward(input).unwrap();
        }
        assert_eq!(snapshot(whole), snapshot(input.target().clone()), "{name}");

        // Layer 1's cross-attention key loaded with 6 outputs.
        dec.layers[1].cross_attn.key = LinearConfig::new(4, 6).init(&device);
        assert!(raw(|| dec.forward(decoder_input(&args, &device).into_burn())).is_none());
        let err = refused(
            name,
            "layer 1 key",
            dec.try_forward(decoder_input(&args, &device)),
        );
        assert_eq!(
            err.path().as_deref(),
            Some("layers.1.cross_attn.key"),
            "{err}"
        );
    }
}

#[test]
fn decoder_autoregressive_inference_matches_burn() {
    let device = Device::flex();
    let dec = decoder(4, 2, false, &device);
    let mut burn_cache = dec.new_autoregressive_cache();
    let mut our_cache = dec.new_autoregressive_cache();
    let memory = t([1, 5, 4], &device);
    for seq in 1..4 {
        let target = t([1, seq, 4], &device);
        let burn = dec.forward_autoregressive_inference(
            BurnDecoderInput::new(target.clone(), memory.clone()),
            &mut burn_cache,
        );
        let ours = dec
            .try_forward_autoregressive_inference(
                TransformerDecoderInput::new(target, memory.clone()),
                &mut our_cache,
            )
            .unwrap();
        assert_eq!(snapshot(burn), snapshot(ours));
    }
}

#[test]
fn cross_attention_bad_inputs_are_refused_by_checks() {
    for (name, device) in cpu_devices() {
        let layer = CrossAttentionConfig::new(4, 6, 2, 1, 3).init(&device);
        let q = || t([2, 3, 4], &device);
        let c = || t([2, 5, 6], &device);
        let m = |dims| Some(mask(dims, &device));
        // A transposed mask has as many elements: burn reshapes it and runs (beyond burn). A
        // mask for another length: burn's reshape panics.
        assert!(raw(|| layer.forward(q(), c(), m([5, 2]))).is_some());
        assert!(raw(|| layer.forward(q(), c(), m([2, 4]))).is_none());
        let mut cache = CrossAttentionCache::new();
        // An empty batch crashes Flex (raw burn is not run on it); refused everywhere.
        refusals! { name;
            "transposed mask" => layer.try_forward(q(), c(), m([5, 2]));
            "mask length" => layer.try_forward(q(), c(), m([2, 4]));
            "context width" => layer.try_forward(q(), t([2, 5, 4], &device), None);
            "query width" => layer.try_forward(t([2, 3, 6], &device), c(), None);
            "batch 0" => layer.try_forward(t([0, 3, 4], &device), t([0, 5, 6], &device), None);
            "context seq 0" => layer.try_forward(q(), t([2, 0, 6], &device), None);
            "cache batch" => layer.try_forward_cache(q(), t([1, 5, 6], &device), None, &mut cache);
        }
    }
    let device = Device::flex();
    for (n_heads, n_kv) in [(3, 2), (2, 0)] {
        assert!(raw(|| CrossAttentionConfig::new(4, 6, n_heads, n_kv, 3).init(&device)).is_none());
        refusals! { "none";
            "cross init" => CrossAttentionConfig::new(4, 6, n_heads, n_kv, 3).try_init(&device);
        }
    }
    refusals! { "none";
        "cross init d_head 0" => CrossAttentionConfig::new(4, 6, 2, 1, 0).try_init(&device);
        "decoder 4 / 3" => TransformerDecoderConfig::new(4, 8, 3, 2).try_init(&device);
    }
}

#[test]
fn encoder_bad_inputs_are_refused_by_checks() {
    // (case, input, padding mask, attention mask, raw burn panics on [flex, ndarray]; `None`
    // where raw burn must not run: it crashes the process on Flex)
    type Case = (
        &'static str,
        [usize; 3],
        Option<[usize; 2]>,
        Option<[usize; 3]>,
        Option<[bool; 2]>,
    );
    let cases: Vec<Case> = vec![
        ("wrong d_model", [2, 3, 5], None, None, Some([true, true])),
        ("pad seq", [2, 3, 4], Some([2, 4]), None, Some([true, true])),
        (
            "pad batch",
            [2, 3, 4],
            Some([3, 3]),
            None,
            Some([true, true]),
        ),
        (
            "attn shape",
            [2, 3, 4],
            None,
            Some([2, 3, 2]),
            Some([true, true]),
        ),
        ("seq 0", [2, 0, 4], None, None, Some([false, true])),
        ("batch 0", [0, 3, 4], None, None, None),
    ];
    for (i, (name, device)) in cpu_devices().into_iter().enumerate() {
        let enc = encoder(4, 2, false, &device);
        let input = |x: [usize; 3], pad: Option<[usize; 2]>, attn: Option<[usize; 3]>| {
            let mut input = TransformerEncoderInput::new(t(x, &device));
            if let Some(pad) = pad {
                input = input.mask_pad(mask(pad, &device));
            }
            if let Some(attn) = attn {
                input = input.mask_attn(mask(attn, &device));
            }
            input
        };
        for (case, x, pad, attn, panics) in &cases {
            if let Some(panics) = panics {
                let burn_panics =
                    raw(|| snapshot(enc.forward(input(*x, *pad, *attn).into_burn()))).is_none();
                assert_eq!(burn_panics, panics[i], "{name}: {case}");
            }
            let err = refused(name, case, enc.try_forward(input(*x, *pad, *attn)));
            assert!(
                err.path().is_some_and(|p| p.starts_with("layers.0.")),
                "{name}: {case}: {err}"
            );
        }
    }
}

/// The layer twins read a parameter's dims in place, drawing a lazy one first: a
/// `LinearLayout::Col` linear stores `[d_output, d_input]` and transposes in an init mapper, so
/// its lazy shape is not the shape the forward sees. Checked with the lazy shape, the
/// feed-forward below would refuse its good input.
#[test]
fn lazy_column_layout_linears_are_checked_with_the_drawn_shape() {
    let device = Device::flex();
    let col = |d_input, d_output| {
        LinearConfig::new(d_input, d_output)
            .with_layout(LinearLayout::Col)
            .init(&device)
    };
    let probe = col(4, 6);
    assert!(!probe.weight.is_initialized());
    assert_eq!(probe.weight.lazy_shape().dims::<2>(), [6, 4]);
    assert_eq!(probe.weight.val().dims(), [4, 6]);

    let mut pwff = PositionWiseFeedForwardConfig::new(4, 6).init(&device);
    pwff.linear_inner = col(4, 6);
    pwff.linear_outer = col(6, 4);
    assert!(!pwff.linear_inner.weight.is_initialized());
    let x = t([2, 3, 4], &device);
    let ours = snapshot(pwff.try_forward(x.clone()).unwrap());
    assert_eq!(ours, snapshot(pwff.forward(x)));
    let err = refused(
        "flex",
        "col pwff, 6 features",
        pwff.try_forward(t([2, 3, 6], &device)),
    );
    assert_eq!(err.path().as_deref(), Some("linear_inner"));

    // The same in an encoder layer, still lazy when the twin first sees it.
    let mut enc = encoder(4, 2, false, &device);
    enc.layers[1].pwff.linear_inner = col(4, 6);
    enc.layers[1].pwff.linear_outer = col(6, 4);
    let input = || encoder_input([2, 3, 4], true, false, &device);
    let ours = snapshot(enc.try_forward(input()).unwrap());
    assert_eq!(ours, snapshot(enc.forward(input().into_burn())));
}

/// A parameter whose initializer panics when drawn (Kaiming with a fan of 0) is drawn under the
/// backstop: the twin returns an error, nothing unwinds through it.
#[test]
fn a_parameter_that_panics_when_drawn_comes_back_as_an_error() {
    let device = Device::flex();
    let pwff = PositionWiseFeedForwardConfig::new(0, 4).init(&device);
    assert!(!pwff.linear_inner.weight.is_initialized());
    let err = pwff
        .try_forward(Tensor::<3>::zeros([1, 2, 0], &device))
        .unwrap_err();
    assert_eq!(err.path().as_deref(), Some("linear_inner"), "{err}");
}

/// Every input, mask and parameter of the attention and transformer twins is compared with the
/// input's device before anything runs; the error names the sub-layer whose parameter differs.
#[test]
fn attention_and_transformer_devices_are_refused_by_checks() {
    let flex = Device::flex();
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let other = Device::ndarray();
    let x = [2, 3, 4];

    let mha = MultiHeadAttentionConfig::new(4, 2).init(&flex);
    let cases = [
        ("key", MhaInput::new(t(x, &flex), t(x, &other), t(x, &flex))),
        (
            "value",
            MhaInput::new(t(x, &flex), t(x, &flex), t(x, &other)),
        ),
        (
            "pad",
            MhaInput::self_attn(t(x, &flex)).mask_pad(mask([2, 3], &other)),
        ),
        (
            "attn",
            MhaInput::self_attn(t(x, &flex)).mask_attn(mask([2, 3, 3], &other)),
        ),
        ("all", MhaInput::self_attn(t(x, &other))),
    ];
    for (case, input) in cases {
        let err = refused("flex", case, mha.try_forward(input));
        assert_eq!(err.kind(), ErrorKind::DeviceMismatch, "{case}: {err}");
    }
    let mut moved = mha.clone();
    moved.value = moved.value.to_device(&other);
    let err = refused(
        "flex",
        "value projection",
        moved.try_forward(MhaInput::self_attn(t(x, &flex))),
    );
    assert_eq!(err.kind(), ErrorKind::DeviceMismatch);
    assert_eq!(err.path().as_deref(), Some("value"));

    let pwff = PositionWiseFeedForwardConfig::new(4, 8).init(&flex);
    let enc = encoder(4, 2, false, &flex);
    let input = TransformerEncoderInput::new(t(x, &flex)).mask_attn(mask([2, 3, 3], &other));
    refusals! { "flex";
        "pwff input", DeviceMismatch => pwff.try_forward(t(x, &other));
        "encoder input", DeviceMismatch =>
            enc.try_forward(encoder_input(x, true, true, &other));
        "encoder mask", DeviceMismatch => enc.try_forward(input);
        "encoder layer mask", DeviceMismatch =>
            enc.layers[0].try_forward(t(x, &flex), Some(mask([2, 3], &other)), None);
    }
    for (path, setup) in [
        (
            "layers.1.norm_1",
            (|e: &mut TransformerEncoder, d: &Device| {
                e.layers[1].norm_1 = e.layers[1].norm_1.clone().to_device(d);
            }) as fn(&mut TransformerEncoder, &Device),
        ),
        ("layers.1.pwff.linear_outer", |e, d| {
            e.layers[1].pwff.linear_outer = e.layers[1].pwff.linear_outer.clone().to_device(d);
        }),
        ("layers.0.mha.output", |e, d| {
            e.layers[0].mha.output = e.layers[0].mha.output.clone().to_device(d);
        }),
    ] {
        let mut enc = encoder(4, 2, false, &flex);
        setup(&mut enc, &other);
        let err = refused(
            "flex",
            path,
            enc.try_forward(encoder_input(x, false, false, &flex)),
        );
        assert_eq!(err.kind(), ErrorKind::DeviceMismatch, "{path}: {err}");
        assert!(
            err.path().is_some_and(|p| p.starts_with(path)),
            "{path}: {err}"
        );
    }

    let dec = decoder(4, 2, false, &flex);
    let memory = TransformerDecoderInput::new(t(x, &flex), t([2, 5, 4], &other));
    let memory_mask = TransformerDecoderInput::new(t(x, &flex), t([2, 5, 4], &flex))
        .memory_mask_pad(mask([2, 5], &other));
    refusals! { "flex";
        "decoder memory", DeviceMismatch => dec.try_forward(memory);
        "decoder layer mask", DeviceMismatch => dec.layers[0].try_forward(memory_mask);
    }
}
