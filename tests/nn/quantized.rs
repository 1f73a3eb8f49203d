//! Every `burn::nn` layer with parameters, quantized: raw burn against the twins.
//!
//! Each layer is built by its burn config and quantized with burn's `Quantizer` (MinMax) in
//! three schemes on burn's default packed store (`PackedU32(0)`): Q8S per tensor (`q8`), Q8S
//! in blocks of 32 with F32 scales (`q8/32`), Q4S in blocks of 32 (`q4/32`); and a fourth,
//! Q8S per tensor on the native store (`q8n`), the one scheme NdArray quantizes, so that
//! NdArray's quantized forwards are measured too. Sizes make a block of 32 divide where that
//! is natural (d = 64); conv kernels (3, or 4 where wgpu's packing needs a multiple of 4), a
//! 10-class head's bias and PRelu's default single weight are the natural shapes where it
//! does not.
//!
//! Per cell, raw burn: `Module::quantize_weights`, then the layer's own `forward`, each under
//! `catch_unwind` on Flex and NdArray, against the f32 forward: it runs, panics, or computes
//! wrong values (non-finite, or a relative difference beyond the scheme's bound). The twin:
//! the weight quantizer (`try_quantize_weights`'s machinery, told to quantize the running
//! statistics as burn does, so that the values compare), then the layer twin's `try_forward`. The contract: burn panics ⇔
//! the twin refuses, by a check (never the backstop), at quantize time naming the parameter
//! by its path, or at forward time; where burn runs, the twin runs and gives burn's values
//! bit for bit. Each cell builds its own layer, its parameters jittered by a small pattern
//! (the norms start at ones and zeros, which every scheme quantizes exactly). burn's
//! `RunningState` clones share their storage and burn's quantizer writes it in place, so raw
//! burn quantizes a `valid()` copy (fresh storage) taken before the twin runs; the twin never
//! writes the layer it borrows (`try_quantize_weights_leaves_the_borrowed_layer_as_it_was`).
//!
//! On wgpu a kernel panic happens on the fusion device thread and poisons the device for the
//! process, so raw burn runs there only for the cells the twin accepted with burn's own
//! packing (the twin's values, within a small tolerance; wgpu is compared with itself, not
//! with Flex). Where the twin packed a weight along an outer dimension (a conv weight whose
//! last dimension is 3, packed along its output channels; burn's packing panics there), raw
//! burn is not run (`-`) and the twin's forward is judged against the f32 forward within the
//! scheme's bound, as burn's is on the CPUs. A refusal there
//! must be a check: a shape rule (which refuses on the CPUs too), or a gap the capability
//! table declares as a panic. The wgpu test ends with a matmul on the same device, so a
//! kernel panic that slipped through anywhere fails it.
//!
//! What the table shows beyond burn's quantization itself (`quantize_weights`): group and
//! instance norms and PRelu reshape their per-channel parameters to `[1, channels, 1, ..]`,
//! which splits a block of 32 (Flex panics in `q_reshape`) and, on wgpu, a word of four packed
//! Q8 values (`Cannot reshape packed tensor`, on the device thread, measured once before the
//! twins checked it): their twins refuse at forward time; on a rank-2 input the reshape is
//! `[1, channels]` and they run. No layer computes wrong values here.
//!
//! Each cell reads `burn/twin`: burn `runs`, `wrong` (values far off), `panics`, or `-` (not
//! run: wgpu, where the twin refused or packed along an outer dimension); the twin `ok`, `q` (refused at quantize time) or `fwd`
//! (refused at forward time). The tests print this table and the differences behind it
//! (`cargo test --test nn quantized -- --nocapture`) and fail when what they measure differs
//! from it.
//!
//! <!-- matrix -->
//! | layer | flex q8 | flex q8/32 | flex q4/32 | flex q8n | ndarray q8 | ndarray q8/32 | ndarray q4/32 | ndarray q8n | wgpu q8 | wgpu q8/32 | wgpu q4/32 | wgpu q8n |
//! |---|---|---|---|---|---|---|---|---|---|---|---|---|
//! | linear 64→32 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | linear 64→10 (head) | runs/ok | panics/q | panics/q | runs/ok | panics/q | panics/q | panics/q | runs/ok | -/q | -/q | -/q | -/q |
//! | embedding 100×64 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | conv1d 32→32 k4 | runs/ok | panics/q | panics/q | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | -/q | -/q | -/q |
//! | conv2d 32→32 k3 | runs/ok | panics/q | panics/q | runs/ok | panics/q | panics/q | panics/q | runs/ok | -/ok | -/q | -/q | -/q |
//! | conv3d 8→8 k3 | runs/ok | panics/q | panics/q | runs/ok | panics/q | panics/q | panics/q | runs/ok | -/ok | -/q | -/q | -/q |
//! | conv_transpose1d k4 | runs/ok | panics/q | panics/q | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | -/q | -/q | -/q |
//! | conv_transpose2d k3 | runs/ok | panics/q | panics/q | runs/ok | panics/q | panics/q | panics/q | runs/ok | -/ok | -/q | -/q | -/q |
//! | conv_transpose3d k2 | runs/ok | panics/q | panics/q | runs/ok | panics/q | panics/q | panics/q | runs/ok | -/ok | -/q | -/q | -/q |
//! | deform_conv2d 8→8 k3 | runs/ok | panics/q | panics/q | runs/ok | panics/q | panics/q | panics/q | runs/ok | -/ok | -/q | -/q | -/q |
//! | layer_norm 64 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | group_norm 4×64 | runs/ok | panics/fwd | panics/fwd | runs/ok | panics/q | panics/q | panics/q | runs/ok | -/fwd | -/fwd | -/fwd | -/q |
//! | group_norm 4×64 on [n, 64] | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | batch_norm 64 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | instance_norm 64 | runs/ok | panics/fwd | panics/fwd | runs/ok | panics/q | panics/q | panics/q | runs/ok | -/fwd | -/fwd | -/fwd | -/q |
//! | rms_norm 64 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | prelu 64 | runs/ok | panics/fwd | panics/fwd | runs/ok | panics/q | panics/q | panics/q | runs/ok | -/fwd | -/fwd | -/fwd | -/q |
//! | prelu 64 on [n, 64] | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | prelu 1 (default) | runs/ok | panics/q | panics/q | runs/ok | panics/q | panics/q | panics/q | runs/ok | -/q | -/q | -/q | -/q |
//! | swiglu 64→64 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | mha d64 h4 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | cross_attention d64 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | pwff 64→128 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | encoder d64 ff128 h4 ×2 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | decoder d64 ff128 h4 ×1 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | lstm 32→64 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | bilstm 32→64 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | gru 32→64 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | bigru 32→64 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | rnn 32→64 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! | birnn 32→64 | runs/ok | runs/ok | runs/ok | runs/ok | panics/q | panics/q | panics/q | runs/ok | runs/ok | runs/ok | runs/ok | -/q |
//! <!-- /matrix -->

use std::fmt::Write as _;
use std::time::Instant;

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param, Quantizer};
use burn::nn::attention::{
    CrossAttentionConfig, MhaInput as BurnMhaInput, MultiHeadAttentionConfig,
};
use burn::nn::conv::{
    Conv1dConfig, Conv2dConfig, Conv3dConfig, ConvTranspose1dConfig, ConvTranspose2dConfig,
    ConvTranspose3dConfig, DeformConv2dConfig,
};
use burn::nn::transformer::{
    PositionWiseFeedForwardConfig, TransformerDecoderConfig,
    TransformerDecoderInput as BurnDecoderInput, TransformerEncoderConfig,
    TransformerEncoderInput as BurnEncoderInput,
};
use burn::nn::{
    BatchNormConfig, BiGruConfig, BiLstmConfig, BiRnnConfig, EmbeddingConfig, GroupNormConfig,
    GruConfig, InstanceNormConfig, LayerNormConfig, LinearConfig, LstmConfig, PReluConfig,
    RmsNormConfig, RnnConfig, SwiGluConfig,
};
use burn::tensor::quantization::{Calibration, QuantScheme, QuantStore, QuantValue, ScaleDtype};
use burn::tensor::{DType, Device, Int, Tensor};
use burn_guard::GuardError;
use burn_guard::capability::Effect;
use burn_guard::module::WeightQuantizer;
use burn_guard::nn::attention::MhaInput;
use burn_guard::nn::transformer::{TransformerDecoderInput, TransformerEncoderInput};
use burn_guard::prelude::*;

use crate::common::wgpu_device;
use crate::support::{cpu_devices, raw, snapshot};

// ---------------------------------------------------------------- schemes

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheme {
    Q8Tensor,
    Q8Block32,
    Q4Block32,
    Q8Native,
}

impl Scheme {
    const ALL: [Scheme; 4] = [
        Scheme::Q8Tensor,
        Scheme::Q8Block32,
        Scheme::Q4Block32,
        Scheme::Q8Native,
    ];

    fn label(self) -> &'static str {
        match self {
            Scheme::Q8Tensor => "q8",
            Scheme::Q8Block32 => "q8/32",
            Scheme::Q4Block32 => "q4/32",
            Scheme::Q8Native => "q8n",
        }
    }

    fn scheme(self) -> QuantScheme {
        let packed = QuantScheme::default().with_store(QuantStore::PackedU32(0));
        match self {
            Scheme::Q8Tensor => packed.with_value(QuantValue::Q8S),
            Scheme::Q8Block32 => packed
                .with_value(QuantValue::Q8S)
                .per_block([32], ScaleDtype::F32),
            Scheme::Q4Block32 => packed
                .with_value(QuantValue::Q4S)
                .per_block([32], ScaleDtype::F32),
            Scheme::Q8Native => QuantScheme::default()
                .with_value(QuantValue::Q8S)
                .with_store(QuantStore::Native),
        }
    }

    fn quantizer(self) -> Quantizer {
        Quantizer::new(Calibration::MinMax, self.scheme())
    }

    /// The largest difference from the f32 forward, relative to the f32 output's largest
    /// magnitude, that still counts as the scheme's own rounding; beyond it, `wrong`. The
    /// layers' weights are drawn afresh each run: over ten runs the largest measured were 0.04
    /// (Q8, `birnn`) and 0.42 (Q4, `birnn`), so the bounds sit well above them, where a wrong
    /// scale or garbage values would land.
    fn bound(self) -> f32 {
        match self {
            Scheme::Q8Tensor | Scheme::Q8Block32 | Scheme::Q8Native => 0.25,
            Scheme::Q4Block32 => 1.0,
        }
    }
}

// ---------------------------------------------------------------- outcomes

/// What raw burn did with a quantized layer.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Burn {
    /// Ran; the largest absolute and relative differences from the f32 forward.
    Runs { abs: f32, rel: f32 },
    /// Ran, with non-finite values or a difference beyond the scheme's bound.
    Wrong { abs: f32, rel: f32 },
    /// `quantize_weights` panicked.
    PanicsAtQuantize,
    /// The quantized layer's `forward` panicked.
    PanicsAtForward,
    /// Not run (wgpu, where the twin refused).
    NotRun,
}

impl Burn {
    fn code(self) -> &'static str {
        match self {
            Burn::Runs { .. } => "runs",
            Burn::Wrong { .. } => "wrong",
            Burn::PanicsAtQuantize | Burn::PanicsAtForward => "panics",
            Burn::NotRun => "-",
        }
    }

    fn panics(self) -> bool {
        matches!(self, Burn::PanicsAtQuantize | Burn::PanicsAtForward)
    }
}

/// What the twin did with the same layer.
#[derive(Debug, Clone, PartialEq)]
enum Twin {
    Ok,
    /// Refused by `try_quantize_weights`: the error's kind and the parameter's path.
    RefusedAtQuantize(ErrorKind, String),
    /// Refused by the layer twin's `try_forward`.
    RefusedAtForward(ErrorKind),
}

impl Twin {
    fn code(&self) -> &'static str {
        match self {
            Twin::Ok => "ok",
            Twin::RefusedAtQuantize(..) => "q",
            Twin::RefusedAtForward(_) => "fwd",
        }
    }
}

#[derive(Debug, Clone)]
struct Cell {
    layer: &'static str,
    backend: &'static str,
    scheme: Scheme,
    burn: Burn,
    twin: Twin,
    faults: Faults,
}

impl Cell {
    /// `burn/twin`, with a `!` when the cell breaks the contract.
    fn code(&self) -> String {
        let mark = if self.faults.is_empty() { "" } else { "!" };
        format!("{}/{}{mark}", self.burn.code(), self.twin.code())
    }

    fn column(&self) -> String {
        format!("{} {}", self.backend, self.scheme.label())
    }

    fn detail(&self) -> String {
        let burn = match self.burn {
            Burn::Runs { abs, rel } => format!("runs (max |q - f32| {abs:.2e}, rel {rel:.2e})"),
            Burn::Wrong { abs, rel } => format!("WRONG (max |q - f32| {abs:.2e}, rel {rel:.2e})"),
            Burn::PanicsAtQuantize => "panics in quantize_weights".to_owned(),
            Burn::PanicsAtForward => "panics in forward".to_owned(),
            Burn::NotRun => "not run".to_owned(),
        };
        let twin = match &self.twin {
            Twin::Ok => "ok, burn's values".to_owned(),
            Twin::RefusedAtQuantize(kind, path) => {
                format!("refused at quantize ({kind:?} at {path})")
            }
            Twin::RefusedAtForward(kind) => format!("refused at forward ({kind:?})"),
        };
        format!(
            "{:<22} {:<8} {:<6} burn {burn}; twin {twin}",
            self.layer,
            self.backend,
            self.scheme.label()
        )
    }
}

// ---------------------------------------------------------------- subjects

/// A forward's outputs, read back: (shape, values) per output tensor.
type Out = Vec<(Vec<usize>, Vec<f32>)>;

/// One layer: how to build it, and its forward raw and through the twin.
struct Subject<M> {
    name: &'static str,
    build: fn(&Device) -> M,
    raw: fn(&M, &Device) -> Out,
    twin: fn(&M, &Device) -> burn_guard::Result<Out>,
}

/// A layer of any type, for the table.
trait Family {
    fn name(&self) -> &'static str;
    fn cells_on_cpu(&self, backend: &'static str, device: &Device) -> Vec<Cell>;
    fn cells_on_wgpu(&self, device: &Device) -> Vec<Cell>;
    /// What `try_quantize_weights` changed in the layer it borrowed, per scheme.
    fn changes_to_the_borrowed(&self, backend: &'static str, device: &Device) -> Faults;
}

fn subject<M: Module + 'static>(
    name: &'static str,
    build: fn(&Device) -> M,
    raw: fn(&M, &Device) -> Out,
    twin: fn(&M, &Device) -> burn_guard::Result<Out>,
) -> Box<dyn Family> {
    Box::new(Subject {
        name,
        build,
        raw,
        twin,
    })
}

fn one<const D: usize>(t: Tensor<D>) -> Out {
    vec![snapshot(t)]
}

/// A deterministic input in [-1, 1].
fn x<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D> {
    let n: usize = dims.iter().product();
    let values: Vec<f32> = (0..n)
        .map(|i| ((i * 37 + 11) % 101) as f32 / 50.0 - 1.0)
        .collect();
    Tensor::<1>::from_floats(values.as_slice(), device).reshape(dims)
}

fn ids(device: &Device) -> Tensor<2, Int> {
    Tensor::<2, Int>::from_ints([[0, 17, 99, 42, 5], [63, 1, 88, 30, 71]], device)
}

/// A family whose forward takes one input, `x(dims)`, and returns one tensor.
macro_rules! unary {
    ($name:literal, $dims:expr => $build:expr) => {
        subject(
            $name,
            $build,
            |m, d| one(m.forward(x($dims, d))),
            |m, d| m.try_forward(x($dims, d)).map(one),
        )
    };
}

/// Every layer family with parameters in `burn::nn`.
fn subjects() -> Vec<Box<dyn Family>> {
    vec![
        unary!("linear 64→32", [4, 64] => |d| LinearConfig::new(64, 32).init(d)),
        unary!("linear 64→10 (head)", [4, 64] => |d| LinearConfig::new(64, 10).init(d)),
        subject(
            "embedding 100×64",
            |d| EmbeddingConfig::new(100, 64).init(d),
            |m, d| one(m.forward(ids(d))),
            |m, d| m.try_forward(ids(d)).map(one),
        ),
        unary!("conv1d 32→32 k4", [1, 32, 12] => |d| Conv1dConfig::new(32, 32, 4).init(d)),
        unary!("conv2d 32→32 k3", [1, 32, 6, 6] => |d| Conv2dConfig::new([32, 32], [3, 3]).init(d)),
        unary!("conv3d 8→8 k3", [1, 8, 4, 4, 4] =>
            |d| Conv3dConfig::new([8, 8], [3, 3, 3]).init(d)),
        unary!("conv_transpose1d k4", [1, 32, 6] =>
            |d| ConvTranspose1dConfig::new([32, 32], 4).init(d)),
        unary!("conv_transpose2d k3", [1, 32, 4, 4] =>
            |d| ConvTranspose2dConfig::new([32, 32], [3, 3]).init(d)),
        unary!("conv_transpose3d k2", [1, 8, 3, 3, 3] =>
            |d| ConvTranspose3dConfig::new([8, 8], [2, 2, 2]).init(d)),
        subject(
            "deform_conv2d 8→8 k3",
            |d| DeformConv2dConfig::new([8, 8], [3, 3]).init(d),
            |m, d| {
                one(m.forward(
                    x([1, 8, 5, 5], d),
                    x([1, 18, 3, 3], d).mul_scalar(0.5),
                    None,
                ))
            },
            |m, d| {
                m.try_forward(
                    x([1, 8, 5, 5], d),
                    x([1, 18, 3, 3], d).mul_scalar(0.5),
                    None,
                )
                .map(one)
            },
        ),
        unary!("layer_norm 64", [2, 5, 64] => |d| LayerNormConfig::new(64).init(d)),
        unary!("group_norm 4×64", [2, 64, 8] => |d| GroupNormConfig::new(4, 64).init(d)),
        unary!("group_norm 4×64 on [n, 64]", [3, 64] => |d| GroupNormConfig::new(4, 64).init(d)),
        unary!("batch_norm 64", [2, 64, 8] => |d| BatchNormConfig::new(64).init(d)),
        unary!("instance_norm 64", [2, 64, 8] => |d| InstanceNormConfig::new(64).init(d)),
        unary!("rms_norm 64", [2, 5, 64] => |d| RmsNormConfig::new(64).init(d)),
        unary!("prelu 64", [2, 64, 8] => |d| PReluConfig::new().with_num_parameters(64).init(d)),
        unary!("prelu 64 on [n, 64]", [3, 64] =>
            |d| PReluConfig::new().with_num_parameters(64).init(d)),
        unary!("prelu 1 (default)", [2, 64, 8] => |d| PReluConfig::new().init(d)),
        unary!("swiglu 64→64", [2, 5, 64] => |d| SwiGluConfig::new(64, 64).init(d)),
        subject(
            "mha d64 h4",
            |d| MultiHeadAttentionConfig::new(64, 4).init(d),
            |m, d| one(m.forward(BurnMhaInput::self_attn(x([2, 6, 64], d))).context),
            |m, d| {
                m.try_forward(MhaInput::self_attn(x([2, 6, 64], d)))
                    .map(|o| one(o.context))
            },
        ),
        subject(
            "cross_attention d64",
            |d| CrossAttentionConfig::new(64, 64, 4, 2, 16).init(d),
            |m, d| one(m.forward(x([2, 6, 64], d), x([2, 4, 64], d), None)),
            |m, d| {
                m.try_forward(x([2, 6, 64], d), x([2, 4, 64], d), None)
                    .map(one)
            },
        ),
        unary!("pwff 64→128", [2, 6, 64] =>
            |d| PositionWiseFeedForwardConfig::new(64, 128).init(d)),
        subject(
            "encoder d64 ff128 h4 ×2",
            |d| TransformerEncoderConfig::new(64, 128, 4, 2).init(d),
            |m, d| one(m.forward(BurnEncoderInput::new(x([2, 6, 64], d)))),
            |m, d| {
                m.try_forward(TransformerEncoderInput::new(x([2, 6, 64], d)))
                    .map(one)
            },
        ),
        subject(
            "decoder d64 ff128 h4 ×1",
            |d| TransformerDecoderConfig::new(64, 128, 4, 1).init(d),
            |m, d| one(m.forward(BurnDecoderInput::new(x([2, 4, 64], d), x([2, 6, 64], d)))),
            |m, d| {
                m.try_forward(TransformerDecoderInput::new(
                    x([2, 4, 64], d),
                    x([2, 6, 64], d),
                ))
                .map(one)
            },
        ),
        subject(
            "lstm 32→64",
            |d| LstmConfig::new(32, 64, true).init(d),
            |m, d| {
                let (out, state) = m.forward(x([2, 5, 32], d), None);
                vec![snapshot(out), snapshot(state.cell), snapshot(state.hidden)]
            },
            |m, d| {
                m.try_forward(x([2, 5, 32], d), None).map(|(out, state)| {
                    vec![snapshot(out), snapshot(state.cell), snapshot(state.hidden)]
                })
            },
        ),
        subject(
            "bilstm 32→64",
            |d| BiLstmConfig::new(32, 64, true).init(d),
            |m, d| {
                let (out, state) = m.forward(x([2, 5, 32], d), None);
                vec![snapshot(out), snapshot(state.cell), snapshot(state.hidden)]
            },
            |m, d| {
                m.try_forward(x([2, 5, 32], d), None).map(|(out, state)| {
                    vec![snapshot(out), snapshot(state.cell), snapshot(state.hidden)]
                })
            },
        ),
        subject(
            "gru 32→64",
            |d| GruConfig::new(32, 64, true).init(d),
            |m, d| one(m.forward(x([2, 5, 32], d), None)),
            |m, d| m.try_forward(x([2, 5, 32], d), None).map(one),
        ),
        subject(
            "bigru 32→64",
            |d| BiGruConfig::new(32, 64, true).init(d),
            |m, d| {
                let (out, state) = m.forward(x([2, 5, 32], d), None);
                vec![snapshot(out), snapshot(state)]
            },
            |m, d| {
                m.try_forward(x([2, 5, 32], d), None)
                    .map(|(out, state)| vec![snapshot(out), snapshot(state)])
            },
        ),
        subject(
            "rnn 32→64",
            |d| RnnConfig::new(32, 64, true).init(d),
            |m, d| {
                let (out, state) = m.forward(x([2, 5, 32], d), None);
                vec![snapshot(out), snapshot(state.hidden)]
            },
            |m, d| {
                m.try_forward(x([2, 5, 32], d), None)
                    .map(|(out, state)| vec![snapshot(out), snapshot(state.hidden)])
            },
        ),
        subject(
            "birnn 32→64",
            |d| BiRnnConfig::new(32, 64, true).init(d),
            |m, d| {
                let (out, state) = m.forward(x([2, 5, 32], d), None);
                vec![snapshot(out), snapshot(state.hidden)]
            },
            |m, d| {
                m.try_forward(x([2, 5, 32], d), None)
                    .map(|(out, state)| vec![snapshot(out), snapshot(state.hidden)])
            },
        ),
    ]
}

// ---------------------------------------------------------------- one layer

const WGPU: &str = "wgpu";

/// How far the twin's wgpu values may be from raw burn's on the same device, relative to the
/// output's largest magnitude: the same kernels, but fusion may order a reduction differently.
const WGPU_TOLERANCE: f32 = 1e-5;

/// The float parameters' paths, as burn's quantizer and the twin name them.
#[derive(Default)]
struct Paths {
    at: Vec<String>,
    found: Vec<(String, Vec<usize>, DType)>,
}

impl ModuleVisitor for Paths {
    fn enter_module(&mut self, name: &str, _container_type: &str) {
        self.at.push(name.to_owned());
    }

    fn exit_module(&mut self, _name: &str, _container_type: &str) {
        self.at.pop();
    }

    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        self.found
            .push((self.at.join("."), param.shape().to_vec(), param.dtype()));
    }
}

/// Every float parameter (running states included): path, shape, dtype.
type Params = Vec<(String, Vec<usize>, DType)>;

/// The twin's quantization of `layer`, comparable with burn's `quantize_weights`: the weight
/// quantizer behind `try_quantize_weights`, told to quantize the running statistics too (as
/// burn does; `try_quantize_weights` keeps them in float).
fn quantize_as_burn<M: Module>(layer: &M, scheme: Scheme) -> burn_guard::Result<M> {
    WeightQuantizer::new()
        .quantize_running_statistics()
        .quantize(layer, &mut scheme.quantizer())
        .map(|q| q.into_model())
}

/// Whether a parameter of `module` is packed along an outer dimension (`PackedU32(k)`,
/// `k > 0`): the twin's packing where burn's panics.
fn outer_packed<M: Module>(module: &M) -> bool {
    params_of(module).iter().any(|(_, _, dtype)| {
        matches!(dtype, DType::QFloat(scheme) if matches!(scheme.store, QuantStore::PackedU32(k) if k > 0))
    })
}

fn params_of<M: Module>(module: &M) -> Params {
    let mut paths = Paths::default();
    module.visit(&mut paths);
    paths.found
}

/// The largest absolute difference, and relative to the reference's largest magnitude;
/// infinite when a value is not finite or the shapes differ.
fn difference(reference: &Out, quantized: &Out) -> (f32, f32) {
    let mut abs = 0.0f32;
    let mut scale = 0.0f32;
    if reference.len() != quantized.len() {
        return (f32::INFINITY, f32::INFINITY);
    }
    for ((ref_dims, ref_values), (q_dims, q_values)) in reference.iter().zip(quantized) {
        if ref_dims != q_dims {
            return (f32::INFINITY, f32::INFINITY);
        }
        for (r, q) in ref_values.iter().zip(q_values) {
            if !q.is_finite() {
                return (f32::INFINITY, f32::INFINITY);
            }
            abs = abs.max((r - q).abs());
            scale = scale.max(r.abs());
        }
    }
    (abs, abs / scale.max(f32::MIN_POSITIVE))
}

fn judge(scheme: Scheme, reference: &Out, quantized: &Out) -> Burn {
    let (abs, rel) = difference(reference, quantized);
    if rel.is_finite() && rel <= scheme.bound() {
        Burn::Runs { abs, rel }
    } else {
        Burn::Wrong { abs, rel }
    }
}

/// Bit-level equality of two outputs (NaN included).
fn bits(out: &Out) -> Vec<(Vec<usize>, Vec<u32>)> {
    out.iter()
        .map(|(dims, values)| (dims.clone(), values.iter().map(|v| v.to_bits()).collect()))
        .collect()
}

/// What went against the contract in one cell; empty when nothing did.
type Faults = Vec<String>;

/// A twin's refusal: by a check (not the backstop), on one line. Notes a fault otherwise.
fn by_a_check(case: &str, err: &GuardError, faults: &mut Faults) -> ErrorKind {
    if matches!(err.root(), GuardError::BackendPanic { .. }) {
        faults.push(format!(
            "{case}: refused by the backstop, not a check: {err}"
        ));
    }
    let line = err.to_string();
    if line.contains('\n') {
        faults.push(format!("{case}: {line:?} is not one line"));
    }
    err.kind()
}

/// The twin's quantize-time refusal: by a check, naming a float parameter by its path.
fn refused_at_quantize(case: &str, err: &GuardError, params: &Params, faults: &mut Faults) -> Twin {
    let kind = by_a_check(case, err, faults);
    let path = err.path().unwrap_or_default();
    if !params.iter().any(|(p, ..)| *p == path) {
        faults.push(format!(
            "{case}: the refusal names {path:?}, not one of the parameters {params:?}: {err}"
        ));
    }
    Twin::RefusedAtQuantize(kind, path)
}

/// Adds a small deterministic pattern to every float parameter: the norms start at exactly
/// representable ones and zeros (and BatchNorm's running statistics at 0 and 1), which any
/// scheme quantizes without error; jittered, their quantized forwards are measured too.
struct Jitter;

impl ModuleMapper for Jitter {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        param.map(|t| {
            let pattern = x(t.dims(), &t.device()).mul_scalar(0.1);
            t + pattern
        })
    }
}

impl<M: Module> Subject<M> {
    /// A new layer (its own random weights, jittered), its f32 forward, and its float
    /// parameters.
    fn fresh(&self, device: &Device) -> (M, Out, Params) {
        let layer = (self.build)(device).map(&mut Jitter);
        let reference = (self.raw)(&layer, device);
        let params = params_of(&layer);
        (layer, reference, params)
    }
}

/// The twin borrows the layer: whatever it answered, the layer's parameters are as they were.
fn untouched<M: Module>(case: &str, layer: &M, before: &Params, faults: &mut Faults) {
    let after = params_of(layer);
    let changed: Vec<String> = before
        .iter()
        .zip(&after)
        .filter(|((_, _, b), (_, _, a))| b != a)
        .map(|((path, _, b), (_, _, a))| format!("{path}: {b:?} → {a:?}"))
        .collect();
    if !changed.is_empty() {
        faults.push(format!(
            "{case}: try_quantize_weights changed the layer it borrowed: {}",
            changed.join(", ")
        ));
    }
}

impl<M: Module> Family for Subject<M> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn changes_to_the_borrowed(&self, backend: &'static str, device: &Device) -> Faults {
        let mut faults = Faults::new();
        for scheme in Scheme::ALL {
            let case = format!("{} {backend} {}", self.name, scheme.label());
            let (layer, _, params) = self.fresh(device);
            // burn's `RunningState` (batch norm's running mean and variance) shares its storage
            // between clones and burn maps it in place; the twin quantizes a copy with storage
            // of its own, whatever it answers, and whether it quantizes the statistics or not.
            let _ = layer.try_quantize_weights(&mut scheme.quantizer());
            untouched(&case, &layer, &params, &mut faults);
            let _ = quantize_as_burn(&layer, scheme);
            untouched(&case, &layer, &params, &mut faults);
        }
        faults
    }

    fn cells_on_cpu(&self, backend: &'static str, device: &Device) -> Vec<Cell> {
        Scheme::ALL
            .into_iter()
            .map(|scheme| {
                let case = format!("{} {backend} {}", self.name, scheme.label());
                let mut faults = Faults::new();
                let (layer, reference, params) = self.fresh(device);
                // Raw burn quantizes its own copy: a clone would share the running states'
                // storage, which burn's mapper writes in place.
                let copy = layer.valid();
                let quantized = raw(|| copy.quantize_weights(&mut scheme.quantizer()));
                let (burn, burn_out) = match quantized {
                    None => (Burn::PanicsAtQuantize, None),
                    Some(q) => match raw(|| (self.raw)(&q, device)) {
                        None => (Burn::PanicsAtForward, None),
                        Some(out) => (judge(scheme, &reference, &out), Some(out)),
                    },
                };
                let twin = match quantize_as_burn(&layer, scheme) {
                    Err(err) => refused_at_quantize(&case, &err, &params, &mut faults),
                    Ok(q) => match (self.twin)(&q, device) {
                        Err(err) => Twin::RefusedAtForward(by_a_check(&case, &err, &mut faults)),
                        Ok(out) => {
                            match &burn_out {
                                Some(burn_out) if bits(burn_out) != bits(&out) => faults
                                    .push(format!("{case}: the twin's values differ from burn's")),
                                _ => {}
                            }
                            Twin::Ok
                        }
                    },
                };
                if burn.panics() != (twin != Twin::Ok) {
                    faults.push(format!(
                        "{case}: burn {burn:?}, twin {twin:?}: burn panics ⇔ the twin refuses"
                    ));
                }
                Cell {
                    layer: self.name,
                    backend,
                    scheme,
                    burn,
                    twin,
                    faults,
                }
            })
            .collect()
    }

    fn cells_on_wgpu(&self, device: &Device) -> Vec<Cell> {
        Scheme::ALL
            .into_iter()
            .map(|scheme| {
                let case = format!("{} {WGPU} {}", self.name, scheme.label());
                let mut faults = Faults::new();
                let (layer, reference, params) = self.fresh(device);
                // Raw burn's own copy, taken before the twin runs (see `cells_on_cpu`).
                let copy = layer.valid();
                let (burn, twin) = match quantize_as_burn(&layer, scheme) {
                    Err(err) => {
                        let twin = refused_at_quantize(&case, &err, &params, &mut faults);
                        declared_refusal(&case, &err, &mut faults);
                        (Burn::NotRun, twin)
                    }
                    Ok(q) => match (self.twin)(&q, device) {
                        Err(err) => (
                            Burn::NotRun,
                            Twin::RefusedAtForward(by_a_check(&case, &err, &mut faults)),
                        ),
                        // Packed along an outer dimension, where burn's packing panics on the
                        // device thread: burn is not run, the twin is judged as burn is on
                        // the CPUs, against the f32 forward.
                        Ok(out) if outer_packed(&q) => {
                            if let Burn::Wrong { abs, rel } = judge(scheme, &reference, &out) {
                                faults.push(format!(
                                    "{case}: the twin's values are off by {abs:e} (relative {rel:e})"
                                ));
                            }
                            (Burn::NotRun, Twin::Ok)
                        }
                        Ok(out) => {
                            // The twin accepted: raw burn on the same device, its own
                            // quantization of the same layer.
                            let q = copy.quantize_weights(&mut scheme.quantizer());
                            let burn_out = (self.raw)(&q, device);
                            let (abs, rel) = difference(&burn_out, &out);
                            if rel > WGPU_TOLERANCE {
                                faults.push(format!(
                                    "{case}: the twin's values differ from burn's on wgpu by \
                                     {abs:e} (relative {rel:e})"
                                ));
                            }
                            (judge(scheme, &reference, &burn_out), Twin::Ok)
                        }
                    },
                };
                Cell {
                    layer: self.name,
                    backend: WGPU,
                    scheme,
                    burn,
                    twin,
                    faults,
                }
            })
            .collect()
    }
}

/// A wgpu refusal raw burn was not run for: a shape rule (which refuses on the CPUs too), or
/// a gap the capability table declares as a panic.
fn declared_refusal(case: &str, err: &GuardError, faults: &mut Faults) {
    match err.root() {
        GuardError::InvalidQuantScheme { .. } => {}
        GuardError::Unsupported(u) if u.gap.effect == Effect::Panics => {}
        other => faults.push(format!(
            "{case}: refused by {other:?}, neither a scheme rule nor a gap declared as a panic"
        )),
    }
}

// ---------------------------------------------------------------- the table

/// The table in this file's doc comment: layer → column → code.
fn documented() -> Vec<(String, Vec<(String, String)>)> {
    let source = include_str!("quantized.rs");
    let table: Vec<&str> = source
        .lines()
        .skip_while(|l| !l.contains("<!-- matrix -->"))
        .skip(1)
        .take_while(|l| !l.contains("<!-- /matrix -->"))
        .map(|l| l.trim_start_matches("//!").trim())
        .collect();
    let split = |l: &str| -> Vec<String> {
        l.trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let Some((header, rows)) = table.split_first() else {
        return Vec::new();
    };
    let columns: Vec<String> = split(header).into_iter().skip(1).collect();
    rows.iter()
        .filter(|l| !l.starts_with("|---"))
        .map(|l| {
            let cells = split(l);
            let (layer, codes) = cells.split_first().unwrap();
            (
                layer.clone(),
                columns.iter().cloned().zip(codes.iter().cloned()).collect(),
            )
        })
        .collect()
}

/// Prints the measured cells as the doc table's rows and the details, and fails where a
/// measured cell differs from the table (for the columns measured).
fn print_and_compare(title: &str, cells: &[Cell]) {
    let mut layers: Vec<&'static str> = Vec::new();
    for cell in cells {
        if !layers.contains(&cell.layer) {
            layers.push(cell.layer);
        }
    }
    let mut columns: Vec<String> = Vec::new();
    for cell in cells {
        if !columns.contains(&cell.column()) {
            columns.push(cell.column());
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "{title}");
    let _ = writeln!(out, "| layer | {} |", columns.join(" | "));
    for layer in &layers {
        let codes: Vec<String> = columns
            .iter()
            .map(|column| {
                cells
                    .iter()
                    .find(|c| c.layer == *layer && c.column() == *column)
                    .map_or_else(|| "?".to_owned(), Cell::code)
            })
            .collect();
        let _ = writeln!(out, "| {layer} | {} |", codes.join(" | "));
    }
    for cell in cells {
        let _ = writeln!(out, "  {}", cell.detail());
    }
    println!("{out}");

    let faults: Vec<&String> = cells.iter().flat_map(|c| &c.faults).collect();
    assert!(
        faults.is_empty(),
        "{} cells break the contract:\n{}",
        faults.len(),
        faults
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );

    let documented = documented();
    let mut mismatches = Vec::new();
    for cell in cells {
        let doc = documented
            .iter()
            .find(|(layer, _)| layer == cell.layer)
            .and_then(|(_, row)| row.iter().find(|(column, _)| *column == cell.column()))
            .map(|(_, code)| code.as_str());
        if doc != Some(cell.code().as_str()) {
            mismatches.push(format!(
                "{} / {}: measured {}, documented {doc:?}",
                cell.layer,
                cell.column(),
                cell.code()
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "the doc table of tests/nn/quantized.rs differs from what was measured:\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn quantized_layers_on_cpus() {
    let start = Instant::now();
    let mut cells = Vec::new();
    for (backend, device) in cpu_devices() {
        for subject in subjects() {
            let t = Instant::now();
            cells.extend(subject.cells_on_cpu(backend, &device));
            println!("{backend} {}: {:.2?}", subject.name(), t.elapsed());
        }
    }
    print_and_compare(
        &format!(
            "quantized layers on Flex and NdArray ({:.1?})",
            start.elapsed()
        ),
        &cells,
    );
}

/// `try_quantize_weights` borrows the layer: whatever it answers, the layer's parameters and
/// running states are as they were (burn's `RunningState` clones share their storage, and
/// burn's mapper writes it in place, so a quantized clone must not be mapped in place).
#[test]
fn try_quantize_weights_leaves_the_borrowed_layer_as_it_was() {
    let mut faults = Faults::new();
    for (backend, device) in cpu_devices() {
        for subject in subjects() {
            faults.extend(subject.changes_to_the_borrowed(backend, &device));
        }
    }
    assert!(
        faults.is_empty(),
        "{} cases changed the layer:\n{}",
        faults.len(),
        faults.join("\n")
    );
}

/// One test, one device: a kernel panic anywhere would poison it, and the cells after it and
/// the matmul at the end would fail.
#[test]
fn quantized_layers_on_wgpu() {
    let Some(device) = wgpu_device() else { return };
    let start = Instant::now();
    let mut cells = Vec::new();
    for subject in subjects() {
        let t = Instant::now();
        cells.extend(subject.cells_on_wgpu(&device));
        println!("wgpu {}: {:.2?}", subject.name(), t.elapsed());
    }
    // The device still computes.
    let a = Tensor::<2>::from_floats([[1.0, 2.0], [3.0, 4.0]], &device);
    let b = Tensor::<2>::from_floats([[5.0, 6.0], [7.0, 8.0]], &device);
    assert_eq!(snapshot(a.matmul(b)).1, vec![19.0, 22.0, 43.0, 50.0]);
    print_and_compare(
        &format!("quantized layers on wgpu ({:.1?})", start.elapsed()),
        &cells,
    );
}
