//! [`burn::nn::transformer`]: the position-wise feed-forward, the encoder, the decoder and
//! their layers, and [`TransformerEncoderInput`] and [`TransformerDecoderInput`], the twins'
//! inputs.

use burn::nn::LayerNorm;
use burn::nn::activation::Activation;
use burn::nn::attention::MultiHeadAttention;
use burn::nn::transformer::{
    PositionWiseFeedForward, PositionWiseFeedForwardConfig, TransformerDecoder,
    TransformerDecoderAutoregressiveCache, TransformerDecoderConfig,
    TransformerDecoderInput as BurnDecoderInput, TransformerDecoderLayer, TransformerEncoder,
    TransformerEncoderAutoregressiveCache, TransformerEncoderConfig,
    TransformerEncoderInput as BurnEncoderInput, TransformerEncoderLayer,
    TransformerEncoderLayerAutoregressiveCache,
};
use burn::tensor::{Bool, Device, Tensor};

use super::attention::{MhaDims, check_mha, heads_and_dropout};
use super::norm::check_layer_norm;
use super::support::{Sealed, all_on, in_layer, linear_params, with_last, with_mask};
use crate::check::activation::prelu;
use crate::check::layer::probability;
use crate::error::{Result, ResultExt};
use crate::nn::init::TryInit;
use crate::panic::catch;
use crate::params::read as params;

// ---------------------------------------------------------------- position-wise feed-forward

/// The feed-forward's two linears, its activation's parameters and dropout, against an input
/// of dims `input`, every parameter on `device`. Returns the output's dims.
fn check_pwff<const D: usize>(
    pwff: &PositionWiseFeedForward,
    input: [usize; D],
    device: &Device,
) -> Result<[usize; D]> {
    let inner = linear_params(&pwff.linear_inner, &input, device).context("linear_inner")?;
    let hidden = with_last(input, inner.d_output);
    if let Activation::PRelu(layer) = &pwff.activation {
        let (alpha, alpha_device) = params::layout("prelu", &layer.alpha).context("activation")?;
        prelu("prelu", &hidden, &alpha).context("activation")?;
        crate::capability::same_device("prelu", device, &alpha_device).context("activation")?;
    }
    probability("dropout", "prob", pwff.dropout.prob).context("dropout")?;
    let outer = linear_params(&pwff.linear_outer, &hidden, device).context("linear_outer")?;
    Ok(with_last(input, outer.d_output))
}

twins! {
/// Twin of [`PositionWiseFeedForward::forward`].
pub trait TryPositionWiseFeedForward for PositionWiseFeedForward = "position_wise_feed_forward" {
    /// Fallible twin of [`PositionWiseFeedForward::forward`]: `[.., d_model]` → `[.., d_model]`.
    ///
    /// Checks the input against `linear_inner` and `linear_inner`'s output against
    /// `linear_outer` (the [`try_linear`](crate::tensor::module::try_linear) rule, under each
    /// field's name), a `PRelu` activation's `alpha`, the dropout probability and the
    /// devices. An input with no element gives the empty output without dispatch (burn's
    /// `Linear` crashes the process on Flex for a rank-3 input with batch 0). Other
    /// activations with parameters (`SwiGlu`) are not checked: they run under the backstop.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) under `linear_inner`,
    /// `activation` or `linear_outer`, [`GuardError::OutOfRange`](crate::GuardError::OutOfRange)
    /// for the dropout, [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::transformer::PositionWiseFeedForwardConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let pwff = PositionWiseFeedForwardConfig::new(4, 8).try_init(&device)?;
    /// assert_eq!(pwff.try_forward(Tensor::<3>::ones([2, 3, 4], &device))?.dims(), [2, 3, 4]);
    /// let err = pwff.try_forward(Tensor::<3>::ones([2, 3, 5], &device)).unwrap_err();
    /// assert_eq!(err.path().as_deref(), Some("linear_inner"));
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        let device = input.device();
        let output = in_layer(OP, check_pwff(self, input.dims(), &device))?;
        if output.contains(&0) {
            let dtype = input.dtype();
            return catch(OP, || Tensor::<D>::zeros(output, (&device, dtype)));
        }
        catch(OP, || self.forward(input))
    }
}
}

config_twins! {
/// Refuses a dropout outside `[0, 1)`.
impl TryInit for PositionWiseFeedForwardConfig = PositionWiseFeedForward("position_wise_feed_forward_init"), |config| [
    probability("dropout", config.dropout),
];
/// Refuses what the layers' inits would panic on or their forward would: `n_heads = 0` or
/// not dividing `d_model`, and a dropout outside `[0, 1)`.
impl TryInit for TransformerEncoderConfig = TransformerEncoder("transformer_encoder_init"), |config| [
    heads_and_dropout(config.d_model, config.n_heads, config.dropout),
];
/// Refuses `n_heads = 0` or not dividing `d_model`, and a dropout outside `[0, 1)`.
impl TryInit for TransformerDecoderConfig = TransformerDecoder("transformer_decoder_init"), |config| [
    heads_and_dropout(config.d_model, config.n_heads, config.dropout),
];
}

// ---------------------------------------------------------------- encoder

/// The input of [`TryTransformerEncoder`]: burn's
/// [`TransformerEncoderInput`](burn::nn::transformer::TransformerEncoderInput), with the same
/// constructors, whose tensors the twin can see (burn's are private).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::nn::transformer::TransformerEncoderInput;
///
/// let x = Tensor::<3>::ones([2, 3, 4], &Device::flex());
/// let input = TransformerEncoderInput::new(x);
/// assert_eq!(input.tensor().dims(), [2, 3, 4]);
/// let burn_input: burn::nn::transformer::TransformerEncoderInput = input.into();
/// # let _ = burn_input;
/// ```
#[derive(Debug, Clone)]
pub struct TransformerEncoderInput {
    tensor: Tensor<3>,
    mask_pad: Option<Tensor<2, Bool>>,
    mask_attn: Option<Tensor<3, Bool>>,
}

impl TransformerEncoderInput {
    /// The input `[batch, seq, d_model]`.
    pub fn new(tensor: Tensor<3>) -> Self {
        Self {
            tensor,
            mask_pad: None,
            mask_attn: None,
        }
    }

    /// The input tensor.
    pub fn tensor(&self) -> &Tensor<3> {
        &self.tensor
    }

    optional_fields! {
        /// The padding mask `[batch, seq]` (`true` masks a position).
        mask_pad(mask_pad) -> padding_mask: Tensor<2, Bool>;
        /// The attention mask `[batch, seq, seq]`.
        mask_attn(mask_attn) -> attention_mask: Tensor<3, Bool>;
    }

    /// burn's `TransformerEncoderInput` with the same tensors.
    pub fn into_burn(self) -> BurnEncoderInput {
        let input = BurnEncoderInput::new(self.tensor);
        let input = with_mask(input, self.mask_pad, BurnEncoderInput::mask_pad);
        with_mask(input, self.mask_attn, BurnEncoderInput::mask_attn)
    }
}

/// A sub-layer of a transformer layer before its feed-forward, as its checks need it.
enum Part<'a> {
    Norm(&'a LayerNorm),
    Attention(&'a MultiHeadAttention, &'a MhaDims),
}

/// A transformer layer's sub-layers, in the order burn's forward runs them: `parts`, then the
/// feed-forward and the dropout every layer ends with. Each runs on the layer's input shape
/// `[batch, seq, d_model]` (a sub-layer's output has it too) with every parameter on
/// `device`; an error carries the sub-layer's field name.
fn check_parts(
    parts: &[(&'static str, Part<'_>)],
    (pwff, dropout): (&PositionWiseFeedForward, f64),
    shape: [usize; 3],
    device: &Device,
) -> Result<()> {
    for (name, part) in parts {
        let checked = match part {
            Part::Norm(norm) => check_layer_norm(norm, &shape, device),
            Part::Attention(mha, dims) => check_mha(mha, dims, device).map(drop),
        };
        checked.context(*name)?;
    }
    check_pwff(pwff, shape, device).context("pwff")?;
    probability("dropout", "prob", dropout).context("dropout")
}

/// One encoder layer against an input of dims `dims.query` `[batch, seq, d_model]` (query,
/// key and value alike) and the masks' dims. The caller compares the masks' devices with
/// `device`.
fn encoder_layer(layer: &TransformerEncoderLayer, dims: &MhaDims, device: &Device) -> Result<()> {
    let parts = [
        ("norm_2", Part::Norm(&layer.norm_2)),
        ("mha", Part::Attention(&layer.mha, dims)),
        ("norm_1", Part::Norm(&layer.norm_1)),
    ];
    check_parts(
        &parts,
        (&layer.pwff, layer.dropout.prob),
        dims.query,
        device,
    )
}

/// An encoder's (or encoder layer's) input, read once for every layer: its dims, the masks'
/// dims and the input's device; `check_layers` checks the layers against them, then the masks'
/// devices are compared with the input's.
fn check_encoder_input(
    op: &'static str,
    input: &Tensor<3>,
    mask_pad: Option<&Tensor<2, Bool>>,
    mask_attn: Option<&Tensor<3, Bool>>,
    check_layers: impl FnOnce(&MhaDims, &Device) -> Result<()>,
) -> Result<()> {
    let dims = MhaDims::self_attn(input.dims(), mask_pad, mask_attn);
    let device = input.device();
    check_layers(&dims, &device)?;
    all_on(
        op,
        &device,
        &[mask_pad.map(Tensor::device), mask_attn.map(Tensor::device)],
    )
}

/// One encoder layer's checks against its input and masks, named after the layer.
fn check_layer_input(
    op: &'static str,
    layer: &TransformerEncoderLayer,
    input: &Tensor<3>,
    mask_pad: Option<&Tensor<2, Bool>>,
    mask_attn: Option<&Tensor<3, Bool>>,
) -> Result<()> {
    let checked = check_encoder_input(op, input, mask_pad, mask_attn, |dims, device| {
        encoder_layer(layer, dims, device)
    });
    in_layer(op, checked)
}

twins! {
/// Twins of [`TransformerEncoderLayer::forward`] and
/// [`TransformerEncoderLayer::forward_autoregressive_inference`].
pub trait TryTransformerEncoderLayer for TransformerEncoderLayer = "transformer_encoder_layer" {
    /// Fallible twin of [`TransformerEncoderLayer::forward`]: `[batch, seq, d_model]` in and
    /// out.
    ///
    /// Checks every sub-layer the forward runs, under its field name: `norm_2` and `norm_1`
    /// (gamma and beta `[d_model]`), `mha` (as
    /// [`TryMultiHeadAttention::try_forward`](super::TryMultiHeadAttention::try_forward) does,
    /// with the input as query, key and value and the masks), `pwff` (as
    /// [`TryPositionWiseFeedForward::try_forward`]), `dropout`, and the devices. An empty batch
    /// or sequence is refused, as by the attention twin.
    ///
    /// # Errors
    ///
    /// The sub-layer's error, with its path after the layer's name:
    /// `transformer_encoder_layer: mha.query: linear: …`.
    ///
    /// ```
    /// use burn::nn::transformer::TransformerEncoderConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let encoder = TransformerEncoderConfig::new(4, 8, 2, 1).try_init(&device)?;
    /// let layer = &encoder.layers[0];
    /// let x = Tensor::<3>::ones([2, 3, 4], &device);
    /// assert_eq!(layer.try_forward(x, None, None)?.dims(), [2, 3, 4]);
    /// let err = layer.try_forward(Tensor::ones([2, 3, 5], &device), None, None).unwrap_err();
    /// assert_eq!(err.path().as_deref(), Some("norm_2"));
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<3>, mask_pad: Option<Tensor<2, Bool>>, mask_attn: Option<Tensor<3, Bool>>) -> Tensor<3> => forward(..) [check_layer_input(self, &input, mask_pad.as_ref(), mask_attn.as_ref())];
    /// Fallible twin of [`TransformerEncoderLayer::forward_autoregressive_inference`].
    ///
    /// The input is checked as by [`try_forward`](Self::try_forward); the cache's content is
    /// private to burn and not checked (see
    /// [`TryMultiHeadAttention::try_forward_cache`](super::TryMultiHeadAttention::try_forward_cache)).
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward).
    ///
    /// ```
    /// use burn::nn::transformer::{TransformerEncoderConfig, TransformerEncoderLayerAutoregressiveCache};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let encoder = TransformerEncoderConfig::new(4, 8, 2, 1).try_init(&device)?;
    /// let mut cache = TransformerEncoderLayerAutoregressiveCache::empty();
    /// let x = Tensor::<3>::ones([1, 2, 4], &device);
    /// let out = encoder.layers[0].try_forward_autoregressive_inference(x, None, None, &mut cache)?;
    /// assert_eq!(out.dims(), [1, 2, 4]);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward_autoregressive_inference(&self, input: Tensor<3>, mask_pad: Option<Tensor<2, Bool>>, mask_attn: Option<Tensor<3, Bool>>, cache: &mut TransformerEncoderLayerAutoregressiveCache) -> Tensor<3> => forward_autoregressive_inference(..) [check_layer_input(self, &input, mask_pad.as_ref(), mask_attn.as_ref())];
}
}

/// Every layer of the encoder against the input, each error under `layers.{i}`.
fn check_encoder(
    op: &'static str,
    encoder: &TransformerEncoder,
    input: &TransformerEncoderInput,
) -> Result<()> {
    let checked = check_encoder_input(
        op,
        &input.tensor,
        input.mask_pad.as_ref(),
        input.mask_attn.as_ref(),
        |dims, device| {
            // A layer's output has its input's shape, so every layer sees the encoder's input
            // dims.
            for (i, layer) in encoder.layers.iter().enumerate() {
                encoder_layer(layer, dims, device).with_context(|| format!("layers.{i}"))?;
            }
            Ok(())
        },
    );
    in_layer(op, checked)
}

twins! {
/// Twins of [`TransformerEncoder::forward`] and
/// [`TransformerEncoder::forward_autoregressive_inference`].
pub trait TryTransformerEncoder for TransformerEncoder = "transformer_encoder" {
    /// Fallible twin of [`TransformerEncoder::forward`], with burn-guard's
    /// [`TransformerEncoderInput`] (burn's keeps its tensors private).
    ///
    /// Checks every layer before any runs, as
    /// [`TryTransformerEncoderLayer::try_forward`] does; an error names the layer and the
    /// sub-layer after its own name: `transformer_encoder: layers.1.mha.query: linear: …`.
    ///
    /// # Errors
    ///
    /// The first failing layer's error, under `layers.{i}`.
    ///
    /// ```
    /// use burn::nn::transformer::TransformerEncoderConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::nn::transformer::TransformerEncoderInput;
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let encoder = TransformerEncoderConfig::new(4, 8, 2, 2).try_init(&device)?;
    /// let x = Tensor::<3>::ones([2, 3, 4], &device);
    /// let pad = Tensor::<2>::zeros([2, 3], &device).equal_elem(1.0);
    /// let out = encoder.try_forward(TransformerEncoderInput::new(x.clone()).mask_pad(pad))?;
    /// assert_eq!(out.dims(), [2, 3, 4]);
    /// let bad_pad = Tensor::<2>::zeros([2, 4], &device).equal_elem(1.0);
    /// let err = encoder.try_forward(TransformerEncoderInput::new(x).mask_pad(bad_pad)).unwrap_err();
    /// assert_eq!(err.path().as_deref(), Some("layers.0.mha"));
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: TransformerEncoderInput) -> Tensor<3> => forward(input.into_burn()) [check_encoder(self, &input)];
    /// Fallible twin of [`TransformerEncoder::forward_autoregressive_inference`].
    ///
    /// The input is checked as by [`try_forward`](Self::try_forward). The cache's content is
    /// private to burn and not checked: see
    /// [`TryMultiHeadAttention::try_forward_cache`](super::TryMultiHeadAttention::try_forward_cache).
    /// A cache made by another encoder (fewer layers) is caught by the backstop.
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward).
    ///
    /// ```
    /// use burn::nn::transformer::TransformerEncoderConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::nn::transformer::TransformerEncoderInput;
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let encoder = TransformerEncoderConfig::new(4, 8, 2, 2).try_init(&device)?;
    /// let mut cache = encoder.new_autoregressive_cache();
    /// let x = Tensor::<3>::ones([1, 2, 4], &device);
    /// let out = encoder.try_forward_autoregressive_inference(TransformerEncoderInput::new(x), &mut cache)?;
    /// assert_eq!(out.dims(), [1, 2, 4]);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward_autoregressive_inference(&self, input: TransformerEncoderInput, cache: &mut TransformerEncoderAutoregressiveCache) -> Tensor<3> => forward_autoregressive_inference(input.into_burn(), cache) [check_encoder(self, &input)];
}
}

// ---------------------------------------------------------------- decoder

/// The input of [`TryTransformerDecoder`]: burn's
/// [`TransformerDecoderInput`](burn::nn::transformer::TransformerDecoderInput), with the same
/// constructors, whose tensors the twin can see (burn's are private).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::nn::transformer::TransformerDecoderInput;
///
/// let device = Device::flex();
/// let input = TransformerDecoderInput::new(Tensor::ones([2, 3, 4], &device), Tensor::ones([2, 5, 4], &device));
/// assert_eq!(input.memory().dims(), [2, 5, 4]);
/// let burn_input: burn::nn::transformer::TransformerDecoderInput = input.into();
/// # let _ = burn_input;
/// ```
#[derive(Debug, Clone)]
pub struct TransformerDecoderInput {
    target: Tensor<3>,
    target_mask_pad: Option<Tensor<2, Bool>>,
    target_mask_attn: Option<Tensor<3, Bool>>,
    memory: Tensor<3>,
    memory_mask_pad: Option<Tensor<2, Bool>>,
    memory_mask_attn: Option<Tensor<3, Bool>>,
}

impl TransformerDecoderInput {
    /// The target `[batch, seq_t, d_model]` and the memory `[batch, seq_m, d_model]`.
    pub fn new(target: Tensor<3>, memory: Tensor<3>) -> Self {
        Self {
            target,
            target_mask_pad: None,
            target_mask_attn: None,
            memory,
            memory_mask_pad: None,
            memory_mask_attn: None,
        }
    }

    optional_fields! {
        /// The memory's padding mask `[batch, seq_m]`.
        memory_mask_pad(mask_pad): Tensor<2, Bool>;
        /// The memory's attention mask `[batch, seq_t, seq_m]`.
        memory_mask_attn(mask_attn): Tensor<3, Bool>;
        /// The target's padding mask `[batch, seq_t]`.
        target_mask_pad(mask_pad): Tensor<2, Bool>;
        /// The target's attention mask `[batch, seq_t, seq_t]`.
        target_mask_attn(mask_attn): Tensor<3, Bool>;
    }

    /// The target.
    pub fn target(&self) -> &Tensor<3> {
        &self.target
    }

    /// The memory.
    pub fn memory(&self) -> &Tensor<3> {
        &self.memory
    }

    /// burn's `TransformerDecoderInput` with the same tensors.
    pub fn into_burn(self) -> BurnDecoderInput {
        let input = BurnDecoderInput::new(self.target, self.memory);
        let input = with_mask(
            input,
            self.target_mask_pad,
            BurnDecoderInput::target_mask_pad,
        );
        let input = with_mask(
            input,
            self.target_mask_attn,
            BurnDecoderInput::target_mask_attn,
        );
        let input = with_mask(
            input,
            self.memory_mask_pad,
            BurnDecoderInput::memory_mask_pad,
        );
        with_mask(
            input,
            self.memory_mask_attn,
            BurnDecoderInput::memory_mask_attn,
        )
    }
}

/// A decoder's (or decoder layer's) input, read once for every layer: `check_layers` checks the
/// layers against its dims and the target's device, then the memory's and the masks' devices
/// are compared with the target's.
fn check_decoder_input(
    op: &'static str,
    input: &TransformerDecoderInput,
    check_layers: impl FnOnce(&MhaDims, &MhaDims, &Device) -> Result<()>,
) -> Result<()> {
    let target = input.target.dims();
    let memory = input.memory.dims();
    let self_attn = MhaDims::self_attn(
        target,
        input.target_mask_pad.as_ref(),
        input.target_mask_attn.as_ref(),
    );
    let cross_attn = MhaDims {
        query: target,
        key: memory,
        value: memory,
        mask_pad: input.memory_mask_pad.as_ref().map(Tensor::dims),
        mask_attn: input.memory_mask_attn.as_ref().map(Tensor::dims),
    };
    let device = input.target.device();
    check_layers(&self_attn, &cross_attn, &device)?;
    all_on(
        op,
        &device,
        &[
            Some(input.memory.device()),
            input.target_mask_pad.as_ref().map(Tensor::device),
            input.target_mask_attn.as_ref().map(Tensor::device),
            input.memory_mask_pad.as_ref().map(Tensor::device),
            input.memory_mask_attn.as_ref().map(Tensor::device),
        ],
    )
}

/// One decoder layer against the dims of its self-attention (the target as query, key and
/// value, with the target's masks) and its cross-attention (the target as query, the memory as
/// key and value, with the memory's masks); its output target has the input target's dims.
fn decoder_layer(
    layer: &TransformerDecoderLayer,
    self_attn: &MhaDims,
    cross_attn: &MhaDims,
    device: &Device,
) -> Result<()> {
    let parts = [
        ("norm_3", Part::Norm(&layer.norm_3)),
        ("self_attn", Part::Attention(&layer.self_attn, self_attn)),
        ("norm_1", Part::Norm(&layer.norm_1)),
        ("cross_attn", Part::Attention(&layer.cross_attn, cross_attn)),
        ("norm_2", Part::Norm(&layer.norm_2)),
    ];
    let tail = (&layer.pwff, layer.dropout.prob);
    check_parts(&parts, tail, self_attn.query, device)
}

fn check_decoder(
    op: &'static str,
    decoder: &TransformerDecoder,
    input: &TransformerDecoderInput,
) -> Result<()> {
    let checked = check_decoder_input(op, input, |self_attn, cross_attn, device| {
        for (i, layer) in decoder.layers.iter().enumerate() {
            decoder_layer(layer, self_attn, cross_attn, device)
                .with_context(|| format!("layers.{i}"))?;
        }
        Ok(())
    });
    in_layer(op, checked)
}

twins! {
/// Twin of [`TransformerDecoderLayer::forward`].
pub trait TryTransformerDecoderLayer for TransformerDecoderLayer = "transformer_decoder_layer" {
    /// Fallible twin of [`TransformerDecoderLayer::forward`], with burn-guard's
    /// [`TransformerDecoderInput`]: the same input comes back with the layer's output as its
    /// target.
    ///
    /// Checks every sub-layer the forward runs, under its field name: `norm_3`, `self_attn`
    /// (the target as query, key and value, with the target's masks), `norm_1`, `cross_attn`
    /// (the target as query, the memory as key and value, with the memory's masks), `norm_2`,
    /// `pwff`, `dropout`, and the devices — the rules of
    /// [`TryMultiHeadAttention::try_forward`](super::TryMultiHeadAttention::try_forward) and
    /// [`TryPositionWiseFeedForward::try_forward`].
    ///
    /// # Errors
    ///
    /// The sub-layer's error, with its path after the layer's name:
    /// `transformer_decoder_layer: cross_attn: multi_head_attention: …`.
    ///
    /// ```
    /// use burn::nn::transformer::TransformerDecoderConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::nn::transformer::TransformerDecoderInput;
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let decoder = TransformerDecoderConfig::new(4, 8, 2, 1).try_init(&device)?;
    /// let input = TransformerDecoderInput::new(Tensor::ones([2, 3, 4], &device), Tensor::ones([2, 5, 4], &device));
    /// assert_eq!(decoder.layers[0].try_forward(input)?.target().dims(), [2, 3, 4]);
    /// let input = TransformerDecoderInput::new(Tensor::ones([2, 3, 4], &device), Tensor::ones([1, 5, 4], &device));
    /// let err = decoder.layers[0].try_forward(input).unwrap_err();
    /// assert_eq!(err.path().as_deref(), Some("cross_attn"));
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: TransformerDecoderInput) -> TransformerDecoderInput {
        let mut input = input;
        let checked = check_decoder_input(OP, &input, |self_attn, cross_attn, device| {
            decoder_layer(self, self_attn, cross_attn, device)
        });
        in_layer(OP, checked)?;
        // burn's layer returns burn's input, whose target is private: run the layer as a
        // one-layer decoder (the same calls), which returns the target.
        let decoder = TransformerDecoder {
            layers: vec![self.clone()],
            d_model: 0,
            d_ff: 0,
            n_heads: 0,
            n_layers: 1,
            dropout: self.dropout.prob,
            norm_first: self.norm_first,
            quiet_softmax: self.self_attn.quiet_softmax,
        };
        let burn_input = input.clone().into_burn();
        input.target = catch(OP, || decoder.forward(burn_input))?;
        Ok(input)
    }
}

/// Twins of [`TransformerDecoder::forward`] and
/// [`TransformerDecoder::forward_autoregressive_inference`].
pub trait TryTransformerDecoder for TransformerDecoder = "transformer_decoder" {
    /// Fallible twin of [`TransformerDecoder::forward`], with burn-guard's
    /// [`TransformerDecoderInput`] (burn's keeps its tensors private).
    ///
    /// Checks every layer before any runs, as
    /// [`TryTransformerDecoderLayer::try_forward`] does; an error names the layer and the
    /// sub-layer after its own name: `transformer_decoder: layers.1.cross_attn.key: linear: …`.
    ///
    /// # Errors
    ///
    /// The first failing layer's error, under `layers.{i}`.
    ///
    /// ```
    /// use burn::nn::transformer::TransformerDecoderConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::nn::transformer::TransformerDecoderInput;
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let decoder = TransformerDecoderConfig::new(4, 8, 2, 2).try_init(&device)?;
    /// let input = TransformerDecoderInput::new(Tensor::ones([2, 3, 4], &device), Tensor::ones([2, 5, 4], &device));
    /// assert_eq!(decoder.try_forward(input)?.dims(), [2, 3, 4]);
    /// let input = TransformerDecoderInput::new(Tensor::ones([2, 3, 4], &device), Tensor::ones([2, 5, 6], &device));
    /// let err = decoder.try_forward(input).unwrap_err();
    /// assert_eq!(err.path().as_deref(), Some("layers.0.cross_attn"));
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: TransformerDecoderInput) -> Tensor<3> => forward(input.into_burn()) [check_decoder(self, &input)];
    /// Fallible twin of [`TransformerDecoder::forward_autoregressive_inference`].
    ///
    /// The input is checked as by [`try_forward`](Self::try_forward); the cache's content is
    /// private to burn and not checked (see
    /// [`TryMultiHeadAttention::try_forward_cache`](super::TryMultiHeadAttention::try_forward_cache)).
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward).
    ///
    /// ```
    /// use burn::nn::transformer::TransformerDecoderConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::nn::transformer::TransformerDecoderInput;
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let decoder = TransformerDecoderConfig::new(4, 8, 2, 2).try_init(&device)?;
    /// let mut cache = decoder.new_autoregressive_cache();
    /// let input = TransformerDecoderInput::new(Tensor::ones([1, 2, 4], &device), Tensor::ones([1, 5, 4], &device));
    /// assert_eq!(decoder.try_forward_autoregressive_inference(input, &mut cache)?.dims(), [1, 2, 4]);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward_autoregressive_inference(&self, input: TransformerDecoderInput, cache: &mut TransformerDecoderAutoregressiveCache) -> Tensor<3> => forward_autoregressive_inference(input.into_burn(), cache) [check_decoder(self, &input)];
}
}

into_burn! {
    TransformerEncoderInput => BurnEncoderInput;
    TransformerDecoderInput => BurnDecoderInput;
}
