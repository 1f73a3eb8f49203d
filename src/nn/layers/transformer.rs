//! [`burn::nn::transformer`]: the position-wise feed-forward, the encoder, the decoder and
//! their layers, and [`TransformerEncoderInput`] and [`TransformerDecoderInput`], the twins'
//! inputs.

use burn::nn::activation::Activation;
use burn::nn::transformer::{
    PositionWiseFeedForward, PositionWiseFeedForwardConfig, TransformerDecoder,
    TransformerDecoderAutoregressiveCache, TransformerDecoderConfig,
    TransformerDecoderInput as BurnDecoderInput, TransformerDecoderLayer, TransformerEncoder,
    TransformerEncoderAutoregressiveCache, TransformerEncoderConfig,
    TransformerEncoderInput as BurnEncoderInput, TransformerEncoderLayer,
    TransformerEncoderLayerAutoregressiveCache,
};
use burn::tensor::{Bool, Device, Tensor};

use super::attention::{MhaDims, check_mha};
use super::norm::check_layer_norm;
use super::support::{Sealed, all_on, in_layer, linear_params, param_layout, with_last};
use crate::check::attention::mha_heads;
use crate::check::layer::probability;
use crate::check::module::prelu;
use crate::error::{Result, ResultExt};
use crate::nn::init::{TryInit, init_fitting};
use crate::panic::catch;

impl Sealed for PositionWiseFeedForward {}
impl Sealed for PositionWiseFeedForwardConfig {}
impl Sealed for TransformerEncoder {}
impl Sealed for TransformerEncoderLayer {}
impl Sealed for TransformerEncoderConfig {}

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
        let (alpha, alpha_device) = param_layout("prelu", &layer.alpha).context("activation")?;
        prelu("prelu", &hidden, &alpha).context("activation")?;
        crate::capability::same_device("prelu", device, &alpha_device).context("activation")?;
    }
    probability("dropout", "prob", pwff.dropout.prob).context("dropout")?;
    let outer = linear_params(&pwff.linear_outer, &hidden, device).context("linear_outer")?;
    Ok(with_last(input, outer.d_output))
}

/// Twin of [`PositionWiseFeedForward::forward`].
pub trait TryPositionWiseFeedForward: Sealed {
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
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Result<Tensor<D>>;
}

impl TryPositionWiseFeedForward for PositionWiseFeedForward {
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Result<Tensor<D>> {
        const OP: &str = "position_wise_feed_forward";
        let device = input.device();
        let output = in_layer(OP, check_pwff(self, input.dims(), &device))?;
        if output.contains(&0) {
            let dtype = input.dtype();
            return catch(OP, || Tensor::<D>::zeros(output, (&device, dtype)));
        }
        catch(OP, || self.forward(input))
    }
}

impl TryInit for PositionWiseFeedForwardConfig {
    type Module = PositionWiseFeedForward;

    /// Refuses a dropout outside `[0, 1)`.
    fn try_init(&self, device: &Device) -> Result<PositionWiseFeedForward> {
        const INIT: &str = "position_wise_feed_forward_init";
        probability(INIT, "dropout", self.dropout)?;
        init_fitting(INIT, || self.init(device))
    }
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

    /// The padding mask `[batch, seq]` (`true` masks a position).
    #[must_use]
    pub fn mask_pad(mut self, mask_pad: Tensor<2, Bool>) -> Self {
        self.mask_pad = Some(mask_pad);
        self
    }

    /// The attention mask `[batch, seq, seq]`.
    #[must_use]
    pub fn mask_attn(mut self, mask_attn: Tensor<3, Bool>) -> Self {
        self.mask_attn = Some(mask_attn);
        self
    }

    /// The input tensor.
    pub fn tensor(&self) -> &Tensor<3> {
        &self.tensor
    }

    /// The padding mask, if any.
    pub fn padding_mask(&self) -> Option<&Tensor<2, Bool>> {
        self.mask_pad.as_ref()
    }

    /// The attention mask, if any.
    pub fn attention_mask(&self) -> Option<&Tensor<3, Bool>> {
        self.mask_attn.as_ref()
    }

    /// burn's `TransformerEncoderInput` with the same tensors.
    pub fn into_burn(self) -> BurnEncoderInput {
        let mut input = BurnEncoderInput::new(self.tensor);
        if let Some(mask) = self.mask_pad {
            input = input.mask_pad(mask);
        }
        if let Some(mask) = self.mask_attn {
            input = input.mask_attn(mask);
        }
        input
    }
}

impl From<TransformerEncoderInput> for BurnEncoderInput {
    fn from(input: TransformerEncoderInput) -> Self {
        input.into_burn()
    }
}

/// One encoder layer against an input of dims `dims.query` `[batch, seq, d_model]` (query,
/// key and value alike) and the masks' dims, every parameter on `device`; its output has the
/// input's dims. Errors carry the sub-layer's field name. The caller compares the masks'
/// devices with `device`.
fn check_encoder_layer(
    layer: &TransformerEncoderLayer,
    dims: &MhaDims,
    device: &Device,
) -> Result<()> {
    let shape = dims.query;
    check_layer_norm(&layer.norm_2, &shape, device).context("norm_2")?;
    check_mha(&layer.mha, dims, device).context("mha")?;
    check_layer_norm(&layer.norm_1, &shape, device).context("norm_1")?;
    check_pwff(&layer.pwff, shape, device).context("pwff")?;
    probability("dropout", "prob", layer.dropout.prob).context("dropout")
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

/// Twins of [`TransformerEncoderLayer::forward`] and
/// [`TransformerEncoderLayer::forward_autoregressive_inference`].
pub trait TryTransformerEncoderLayer: Sealed {
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
    fn try_forward(
        &self,
        input: Tensor<3>,
        mask_pad: Option<Tensor<2, Bool>>,
        mask_attn: Option<Tensor<3, Bool>>,
    ) -> Result<Tensor<3>>;

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
    fn try_forward_autoregressive_inference(
        &self,
        input: Tensor<3>,
        mask_pad: Option<Tensor<2, Bool>>,
        mask_attn: Option<Tensor<3, Bool>>,
        cache: &mut TransformerEncoderLayerAutoregressiveCache,
    ) -> Result<Tensor<3>>;
}

const OP_LAYER: &str = "transformer_encoder_layer";

impl TryTransformerEncoderLayer for TransformerEncoderLayer {
    fn try_forward_autoregressive_inference(
        &self,
        input: Tensor<3>,
        mask_pad: Option<Tensor<2, Bool>>,
        mask_attn: Option<Tensor<3, Bool>>,
        cache: &mut TransformerEncoderLayerAutoregressiveCache,
    ) -> Result<Tensor<3>> {
        let checked = check_encoder_input(
            OP_LAYER,
            &input,
            mask_pad.as_ref(),
            mask_attn.as_ref(),
            |dims, device| check_encoder_layer(self, dims, device),
        );
        in_layer(OP_LAYER, checked)?;
        catch(OP_LAYER, || {
            self.forward_autoregressive_inference(input, mask_pad, mask_attn, cache)
        })
    }

    fn try_forward(
        &self,
        input: Tensor<3>,
        mask_pad: Option<Tensor<2, Bool>>,
        mask_attn: Option<Tensor<3, Bool>>,
    ) -> Result<Tensor<3>> {
        let checked = check_encoder_input(
            OP_LAYER,
            &input,
            mask_pad.as_ref(),
            mask_attn.as_ref(),
            |dims, device| check_encoder_layer(self, dims, device),
        );
        in_layer(OP_LAYER, checked)?;
        catch(OP_LAYER, || self.forward(input, mask_pad, mask_attn))
    }
}

/// Every layer of the encoder against the input, each error under `layers.{i}`.
fn check_encoder(encoder: &TransformerEncoder, input: &TransformerEncoderInput) -> Result<()> {
    let checked = check_encoder_input(
        "transformer_encoder",
        &input.tensor,
        input.mask_pad.as_ref(),
        input.mask_attn.as_ref(),
        |dims, device| {
            // A layer's output has its input's shape, so every layer sees the encoder's input
            // dims.
            for (i, layer) in encoder.layers.iter().enumerate() {
                check_encoder_layer(layer, dims, device).with_context(|| format!("layers.{i}"))?;
            }
            Ok(())
        },
    );
    in_layer("transformer_encoder", checked)
}

/// Twins of [`TransformerEncoder::forward`] and
/// [`TransformerEncoder::forward_autoregressive_inference`].
pub trait TryTransformerEncoder: Sealed {
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
    fn try_forward(&self, input: TransformerEncoderInput) -> Result<Tensor<3>>;

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
    fn try_forward_autoregressive_inference(
        &self,
        input: TransformerEncoderInput,
        cache: &mut TransformerEncoderAutoregressiveCache,
    ) -> Result<Tensor<3>>;
}

impl TryTransformerEncoder for TransformerEncoder {
    fn try_forward(&self, input: TransformerEncoderInput) -> Result<Tensor<3>> {
        check_encoder(self, &input)?;
        catch("transformer_encoder", || self.forward(input.into_burn()))
    }

    fn try_forward_autoregressive_inference(
        &self,
        input: TransformerEncoderInput,
        cache: &mut TransformerEncoderAutoregressiveCache,
    ) -> Result<Tensor<3>> {
        check_encoder(self, &input)?;
        catch("transformer_encoder", || {
            self.forward_autoregressive_inference(input.into_burn(), cache)
        })
    }
}

impl TryInit for TransformerEncoderConfig {
    type Module = TransformerEncoder;

    /// Refuses what the layers' inits would panic on or their forward would: `n_heads = 0` or
    /// not dividing `d_model`, and a dropout outside `[0, 1)`.
    fn try_init(&self, device: &Device) -> Result<TransformerEncoder> {
        const INIT: &str = "transformer_encoder_init";
        let d_k = self.d_model.checked_div(self.n_heads).unwrap_or(0);
        mha_heads(INIT, self.d_model, self.n_heads, d_k)?;
        probability(INIT, "dropout", self.dropout)?;
        init_fitting(INIT, || self.init(device))
    }
}

// ---------------------------------------------------------------- decoder

impl Sealed for TransformerDecoder {}
impl Sealed for TransformerDecoderLayer {}
impl Sealed for TransformerDecoderConfig {}

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

    /// The memory's padding mask `[batch, seq_m]`.
    #[must_use]
    pub fn memory_mask_pad(mut self, mask_pad: Tensor<2, Bool>) -> Self {
        self.memory_mask_pad = Some(mask_pad);
        self
    }

    /// The memory's attention mask `[batch, seq_t, seq_m]`.
    #[must_use]
    pub fn memory_mask_attn(mut self, mask_attn: Tensor<3, Bool>) -> Self {
        self.memory_mask_attn = Some(mask_attn);
        self
    }

    /// The target's padding mask `[batch, seq_t]`.
    #[must_use]
    pub fn target_mask_pad(mut self, mask_pad: Tensor<2, Bool>) -> Self {
        self.target_mask_pad = Some(mask_pad);
        self
    }

    /// The target's attention mask `[batch, seq_t, seq_t]`.
    #[must_use]
    pub fn target_mask_attn(mut self, mask_attn: Tensor<3, Bool>) -> Self {
        self.target_mask_attn = Some(mask_attn);
        self
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
        let mut input = BurnDecoderInput::new(self.target, self.memory);
        if let Some(mask) = self.target_mask_pad {
            input = input.target_mask_pad(mask);
        }
        if let Some(mask) = self.target_mask_attn {
            input = input.target_mask_attn(mask);
        }
        if let Some(mask) = self.memory_mask_pad {
            input = input.memory_mask_pad(mask);
        }
        if let Some(mask) = self.memory_mask_attn {
            input = input.memory_mask_attn(mask);
        }
        input
    }
}

impl From<TransformerDecoderInput> for BurnDecoderInput {
    fn from(input: TransformerDecoderInput) -> Self {
        input.into_burn()
    }
}

/// One decoder layer against the dims of its self-attention (the target as query, key and
/// value, with the target's masks) and its cross-attention (the target as query, the memory as
/// key and value, with the memory's masks), every parameter on `device`; its output target has
/// the input target's dims. Errors carry the sub-layer's field name.
fn check_decoder_layer(
    layer: &TransformerDecoderLayer,
    self_attn: &MhaDims,
    cross_attn: &MhaDims,
    device: &Device,
) -> Result<()> {
    let shape = self_attn.query;
    check_layer_norm(&layer.norm_3, &shape, device).context("norm_3")?;
    check_mha(&layer.self_attn, self_attn, device).context("self_attn")?;
    check_layer_norm(&layer.norm_1, &shape, device).context("norm_1")?;
    check_mha(&layer.cross_attn, cross_attn, device).context("cross_attn")?;
    check_layer_norm(&layer.norm_2, &shape, device).context("norm_2")?;
    check_pwff(&layer.pwff, shape, device).context("pwff")?;
    probability("dropout", "prob", layer.dropout.prob).context("dropout")
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

fn check_decoder(decoder: &TransformerDecoder, input: &TransformerDecoderInput) -> Result<()> {
    let checked = check_decoder_input(
        "transformer_decoder",
        input,
        |self_attn, cross_attn, device| {
            for (i, layer) in decoder.layers.iter().enumerate() {
                check_decoder_layer(layer, self_attn, cross_attn, device)
                    .with_context(|| format!("layers.{i}"))?;
            }
            Ok(())
        },
    );
    in_layer("transformer_decoder", checked)
}

/// Twin of [`TransformerDecoderLayer::forward`].
pub trait TryTransformerDecoderLayer: Sealed {
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
    fn try_forward(&self, input: TransformerDecoderInput) -> Result<TransformerDecoderInput>;
}

impl TryTransformerDecoderLayer for TransformerDecoderLayer {
    fn try_forward(&self, mut input: TransformerDecoderInput) -> Result<TransformerDecoderInput> {
        let checked = check_decoder_input(
            "transformer_decoder_layer",
            &input,
            |self_attn, cross_attn, device| {
                check_decoder_layer(self, self_attn, cross_attn, device)
            },
        );
        in_layer("transformer_decoder_layer", checked)?;
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
        input.target = catch("transformer_decoder_layer", || decoder.forward(burn_input))?;
        Ok(input)
    }
}

/// Twins of [`TransformerDecoder::forward`] and
/// [`TransformerDecoder::forward_autoregressive_inference`].
pub trait TryTransformerDecoder: Sealed {
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
    fn try_forward(&self, input: TransformerDecoderInput) -> Result<Tensor<3>>;

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
    fn try_forward_autoregressive_inference(
        &self,
        input: TransformerDecoderInput,
        cache: &mut TransformerDecoderAutoregressiveCache,
    ) -> Result<Tensor<3>>;
}

impl TryTransformerDecoder for TransformerDecoder {
    fn try_forward(&self, input: TransformerDecoderInput) -> Result<Tensor<3>> {
        check_decoder(self, &input)?;
        catch("transformer_decoder", || self.forward(input.into_burn()))
    }

    fn try_forward_autoregressive_inference(
        &self,
        input: TransformerDecoderInput,
        cache: &mut TransformerDecoderAutoregressiveCache,
    ) -> Result<Tensor<3>> {
        check_decoder(self, &input)?;
        catch("transformer_decoder", || {
            self.forward_autoregressive_inference(input.into_burn(), cache)
        })
    }
}

impl TryInit for TransformerDecoderConfig {
    type Module = TransformerDecoder;

    /// Refuses `n_heads = 0` or not dividing `d_model`, and a dropout outside `[0, 1)`.
    fn try_init(&self, device: &Device) -> Result<TransformerDecoder> {
        const INIT: &str = "transformer_decoder_init";
        let d_k = self.d_model.checked_div(self.n_heads).unwrap_or(0);
        mha_heads(INIT, self.d_model, self.n_heads, d_k)?;
        probability(INIT, "dropout", self.dropout)?;
        init_fitting(INIT, || self.init(device))
    }
}
