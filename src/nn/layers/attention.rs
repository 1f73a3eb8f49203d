//! [`burn::nn::attention::MultiHeadAttention`] and [`burn::nn::attention::CrossAttention`],
//! their configs, and [`MhaInput`], the attention twin's input.

use burn::nn::Linear;
use burn::nn::attention::{
    CrossAttention, CrossAttentionCache, CrossAttentionConfig, MhaCache, MhaInput as BurnMhaInput,
    MhaOutput, MultiHeadAttention, MultiHeadAttentionConfig,
};
use burn::tensor::{Bool, Device, Tensor};

use super::support::{Sealed, all_on, dims, in_layer, linear_params, same_devices, with_mask};
use crate::check::attention::{
    CrossAttentionParams, MhaShapes, cross_attention, mha_heads, mha_input,
};
use crate::check::layer::probability;
use crate::check::linear::linear as linear_rule;
use crate::error::{GuardError, Result, ResultExt};
use crate::nn::init::{TryInit, init_fitting};

/// The input of [`TryMultiHeadAttention`]: burn's
/// [`MhaInput`](burn::nn::attention::MhaInput), with the same constructors, whose tensors the
/// twin can see.
///
/// burn's `MhaInput` keeps its tensors private and has no getters, so a twin given one could
/// not check it. Build this one the same way (`MhaInput::self_attn(x).mask_pad(m)`); it
/// becomes burn's with [`MhaInput::into_burn`] (or `into()`).
///
/// ```
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::nn::attention::MhaInput;
///
/// let x = Tensor::<3>::ones([2, 3, 4], &Device::flex());
/// let input = MhaInput::self_attn(x);
/// assert_eq!(input.query().dims(), [2, 3, 4]);
/// let burn_input: burn::nn::attention::MhaInput = input.into();
/// # let _ = burn_input;
/// ```
#[derive(Debug, Clone)]
pub struct MhaInput {
    query: Tensor<3>,
    key: Tensor<3>,
    value: Tensor<3>,
    mask_pad: Option<Tensor<2, Bool>>,
    mask_attn: Option<Tensor<3, Bool>>,
}

impl MhaInput {
    /// Self-attention: `tensor` `[batch, seq, d_model]` as query, key and value.
    pub fn self_attn(tensor: Tensor<3>) -> Self {
        Self::new(tensor.clone(), tensor.clone(), tensor)
    }

    /// Query `[batch, seq_q, d_model]`, key and value `[batch, seq_k, d_model]`.
    pub fn new(query: Tensor<3>, key: Tensor<3>, value: Tensor<3>) -> Self {
        Self {
            query,
            key,
            value,
            mask_pad: None,
            mask_attn: None,
        }
    }

    optional_fields! {
        /// The padding mask `[batch, seq_k]` (`true` masks a key).
        mask_pad(mask_pad) -> padding_mask: Tensor<2, Bool>;
        /// The attention mask `[batch, seq_q, seq_k]` (`true` masks a pair).
        mask_attn(mask_attn) -> attention_mask: Tensor<3, Bool>;
    }

    /// The query.
    pub fn query(&self) -> &Tensor<3> {
        &self.query
    }

    /// The key.
    pub fn key(&self) -> &Tensor<3> {
        &self.key
    }

    /// The value.
    pub fn value(&self) -> &Tensor<3> {
        &self.value
    }

    /// burn's `MhaInput` with the same tensors.
    pub fn into_burn(self) -> BurnMhaInput {
        let input = BurnMhaInput::new(self.query, self.key, self.value);
        let input = with_mask(input, self.mask_pad, BurnMhaInput::mask_pad);
        with_mask(input, self.mask_attn, BurnMhaInput::mask_attn)
    }
}

const OP: &str = "multi_head_attention";

/// One projection of the attention: `[.., d_model]` in, `[.., n_heads × d_k]` out, its weight
/// and bias on `device`.
fn projection(linear: &Linear, input: &[usize], d_model: usize, device: &Device) -> Result<()> {
    let features = linear_params(linear, input, device)?;
    if features.d_output != d_model {
        return Err(GuardError::ShapeMismatch {
            op: OP,
            rule: "a projection must give d_model = n_heads × d_k features",
            shapes: vec![vec![features.d_input, features.d_output], vec![d_model]],
        });
    }
    Ok(())
}

/// The dims of an attention's inputs, read once: a transformer checks every layer's attention
/// against the same input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MhaDims {
    pub query: [usize; 3],
    pub key: [usize; 3],
    pub value: [usize; 3],
    pub mask_pad: Option<[usize; 2]>,
    pub mask_attn: Option<[usize; 3]>,
}

impl MhaDims {
    /// Self-attention over an input of dims `input`.
    pub(crate) fn self_attn(
        input: [usize; 3],
        mask_pad: Option<&Tensor<2, Bool>>,
        mask_attn: Option<&Tensor<3, Bool>>,
    ) -> Self {
        Self {
            query: input,
            key: input,
            value: input,
            mask_pad: mask_pad.map(Tensor::dims),
            mask_attn: mask_attn.map(Tensor::dims),
        }
    }
}

/// Everything `MultiHeadAttention::forward` (and `forward_cache`) needs of inputs of dims
/// `dims`, checked against the module's own sizes and weights, every weight on `device` (the
/// query's; the caller compares the other inputs' devices with it). Errors of a projection
/// carry its field name.
pub(crate) fn check_mha(
    mha: &MultiHeadAttention,
    dims: &MhaDims,
    device: &Device,
) -> Result<MhaShapes> {
    mha_heads(OP, mha.d_model, mha.n_heads, mha.d_k)?;
    let shapes = mha_input(
        OP,
        mha.d_model,
        &dims.query,
        &dims.key,
        &dims.value,
        dims.mask_pad.as_ref().map(|d| &d[..]),
        dims.mask_attn.as_ref().map(|d| &d[..]),
    )?;
    let context = [shapes.batch, shapes.seq_q, mha.d_model];
    for (name, linear, input) in [
        ("query", &mha.query, &dims.query),
        ("key", &mha.key, &dims.key),
        ("value", &mha.value, &dims.value),
        ("output", &mha.output, &context),
    ] {
        projection(linear, input, mha.d_model, device).context(name)?;
    }
    probability("dropout", "prob", mha.dropout.prob).context("dropout")?;
    Ok(shapes)
}

/// [`check_mha`] for the twin's own input: its dims and every device; an error names the
/// layer.
fn check_mha_input(op: &'static str, mha: &MultiHeadAttention, input: &MhaInput) -> Result<()> {
    in_layer(op, check_mha_input_dims(mha, input)).map(drop)
}

fn check_mha_input_dims(mha: &MultiHeadAttention, input: &MhaInput) -> Result<MhaShapes> {
    let dims = MhaDims {
        query: input.query.dims(),
        key: input.key.dims(),
        value: input.value.dims(),
        mask_pad: input.mask_pad.as_ref().map(Tensor::dims),
        mask_attn: input.mask_attn.as_ref().map(Tensor::dims),
    };
    let device = input.query.device();
    let shapes = check_mha(mha, &dims, &device)?;
    all_on(
        OP,
        &device,
        &[
            Some(input.key.device()),
            Some(input.value.device()),
            input.mask_pad.as_ref().map(Tensor::device),
            input.mask_attn.as_ref().map(Tensor::device),
        ],
    )?;
    Ok(shapes)
}

config_twins! {
/// Refuses `n_heads = 0` (burn divides by it), a `d_model` that `n_heads` does not divide
/// (burn builds the module; its forward panics) and a dropout outside `[0, 1)`.
impl TryInit for MultiHeadAttentionConfig = MultiHeadAttention("multi_head_attention_init"), |config| [
    heads_and_dropout(config.d_model, config.n_heads, config.dropout),
];
}

/// The rules of an attention config and of the transformer configs built on it: `n_heads`
/// not 0 and dividing `d_model` (burn divides by it, and the forward's reshapes need it), and
/// a dropout in `[0, 1)`.
pub(crate) fn heads_and_dropout(
    op: &'static str,
    d_model: usize,
    n_heads: usize,
    dropout: f64,
) -> Result<()> {
    let d_k = d_model.checked_div(n_heads).unwrap_or(0);
    mha_heads(op, d_model, n_heads, d_k)?;
    probability(op, "dropout", dropout)
}

twins! {
/// Twins of [`MultiHeadAttention::forward`] and [`MultiHeadAttention::forward_cache`].
pub trait TryMultiHeadAttention for MultiHeadAttention = "multi_head_attention" {
    /// Fallible twin of [`MultiHeadAttention::forward`], with burn-guard's [`MhaInput`]
    /// (burn's keeps its tensors private).
    ///
    /// Checks, before anything runs: the module's own sizes (`n_heads × d_k = d_model`, none
    /// 0); query `[batch, seq_q, d_model]`, key and value `[batch, seq_k, d_model]`; the
    /// padding mask `[batch, seq_k]` and the attention mask `[batch, seq_q, seq_k]` (each
    /// dimension or 1); each projection's weight (`query`, `key`, `value`, `output`:
    /// `[d_model, d_model]`, bias `[d_model]`) as [`try_linear`](crate::tensor::module::try_linear)
    /// does; the dropout probability; one device for all. The rules:
    /// [`check::attention::mha_heads`](crate::check::attention::mha_heads),
    /// [`mha_input`](crate::check::attention::mha_input).
    ///
    /// Beyond burn, an empty batch or sequence is refused: burn's `Linear` crashes the process
    /// on Flex for a rank-3 input with batch 0 (a SIGSEGV the backstop cannot catch), and
    /// NdArray panics on an empty sequence.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) (a projection's under
    /// its field name, after the layer's: `multi_head_attention: query: linear: …`), [`GuardError::Empty`](crate::GuardError::Empty),
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for the dropout,
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::attention::MultiHeadAttentionConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::nn::attention::MhaInput;
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let mha = MultiHeadAttentionConfig::new(4, 2).try_init(&device)?;
    /// let x = Tensor::<3>::ones([2, 3, 4], &device);
    /// assert_eq!(mha.try_forward(MhaInput::self_attn(x.clone()))?.context.dims(), [2, 3, 4]);
    /// let pad = Tensor::<2>::zeros([2, 5], &device).equal_elem(1.0);
    /// let err = mha.try_forward(MhaInput::self_attn(x).mask_pad(pad)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: MhaInput) -> MhaOutput => forward(input.into_burn()) [check_mha_input(self, &input)];
    /// Fallible twin of [`MultiHeadAttention::forward_cache`].
    ///
    /// The input is checked as by [`try_forward`](Self::try_forward). The cache's content is
    /// private to burn and is not checked: a cache filled for another batch size or width
    /// panics in burn's `Tensor::cat` front-end check (before any kernel), which the
    /// backstop returns as [`GuardError::BackendPanic`](crate::GuardError::BackendPanic);
    /// burn has emptied the cache by then, so start a new one.
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward).
    ///
    /// ```
    /// use burn::nn::attention::{MhaCache, MultiHeadAttentionConfig};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::nn::attention::MhaInput;
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let mha = MultiHeadAttentionConfig::new(4, 2).try_init(&device)?;
    /// let mut cache = MhaCache::autoregressive();
    /// let x = Tensor::<3>::ones([1, 2, 4], &device);
    /// let out = mha.try_forward_cache(MhaInput::self_attn(x), &mut cache)?;
    /// assert_eq!(out.context.dims(), [1, 2, 4]);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward_cache(&self, input: MhaInput, cache: &mut MhaCache) -> MhaOutput => forward_cache(input.into_burn(), cache) [check_mha_input(self, &input)];
}
}

// ---------------------------------------------------------------- cross attention

impl Sealed for CrossAttentionConfig {}

/// The private projections of `layer`, read through the seam from the one walk that names
/// parameters by path (without drawing a lazy one).
fn cross_attention_parts(
    op: &'static str,
    layer: &CrossAttention,
) -> Result<Option<crate::upstream::CrossAttentionParts>> {
    let params = crate::params::walk::float_params(op, layer, &burn::module::ParamGroup::all())?;
    let (named, devices): (Vec<(String, Vec<usize>)>, Vec<Device>) = params
        .into_iter()
        .map(|param| ((param.path, param.shape), param.device))
        .unzip();
    Ok(crate::upstream::cross_attention_parts(&named, devices))
}

fn check_cross(
    op: &'static str,
    layer: &CrossAttention,
    query: &Tensor<3>,
    context: &Tensor<3>,
    mask: Option<&Tensor<2, Bool>>,
) -> Result<()> {
    let parts = cross_attention_parts(op, layer)?.ok_or(GuardError::Unreadable {
        op,
        what: "`CrossAttention`'s private projections",
    })?;
    let mask_dims = mask.map(|m| m.dims().to_vec());
    cross_attention(
        op,
        &dims(query),
        &dims(context),
        mask_dims.as_deref(),
        CrossAttentionParams {
            query: &parts.query.weight,
            key: &parts.key.weight,
            value: &parts.value.weight,
            output: &parts.output.weight,
        },
    )?;
    // Each projection's own bias against its weight: the linear rule.
    for (name, projection) in [
        ("query", &parts.query),
        ("key", &parts.key),
        ("value", &parts.value),
        ("output", &parts.output),
    ] {
        let weight = projection.weight.as_slice();
        let input = [1, weight.first().copied().unwrap_or(0)];
        let bias = linear_rule("linear", &input, weight, projection.bias.as_deref());
        in_layer(op, bias.context(name))?;
    }
    let mut devices = vec![query.device(), context.device()];
    devices.extend(mask.map(Tensor::device));
    devices.extend(parts.devices);
    same_devices(op, &devices)
}

impl TryInit for CrossAttentionConfig {
    type Module = CrossAttention;

    /// Refuses what `init` asserts (`n_heads_kv` dividing `n_heads`, a 0 included), no head or
    /// head width (beyond burn: the forward's reshapes fail on them), and a dropout outside
    /// `[0, 1)`.
    fn try_init(&self, device: &Device) -> Result<CrossAttention> {
        const INIT: &str = "cross_attention_init";
        if self.n_heads == 0 || self.n_heads_kv == 0 || self.d_head == 0 {
            return Err(GuardError::Empty {
                op: INIT,
                rule: "n_heads, n_heads_kv and d_head must not be 0",
                shape: vec![self.n_heads, self.n_heads_kv, self.d_head],
                dim: None,
            });
        }
        if !self.n_heads.is_multiple_of(self.n_heads_kv) {
            return Err(GuardError::ShapeMismatch {
                op: INIT,
                rule: "n_heads_kv must divide n_heads",
                shapes: vec![vec![self.n_heads], vec![self.n_heads_kv]],
            });
        }
        probability(INIT, "dropout", self.dropout)?;
        init_fitting(INIT, || self.init(device))
    }
}

twins! {
/// Twins of [`CrossAttention::forward`] and [`CrossAttention::forward_cache`].
pub trait TryCrossAttention for CrossAttention = "cross_attention" {
    /// Fallible twin of [`CrossAttention::forward`]: `query` `[batch, seq_q, d_model]`,
    /// `context` `[batch, seq_k, d_context]`, `mask` `[batch, seq_k]`.
    ///
    /// burn keeps the module's fields private; the twin reads its parameters' shapes with a
    /// module visitor and checks the input against them
    /// ([`check::attention::cross_attention`](crate::check::attention::cross_attention)),
    /// each projection's bias (the linear rule, under its field name) and the devices. The
    /// head split and the dropout probability are private and not checked.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::Empty`](crate::GuardError::Empty) (an empty batch or sequence, beyond
    /// burn), [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::attention::CrossAttentionConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let layer = CrossAttentionConfig::new(4, 6, 2, 1, 3).try_init(&device)?;
    /// let q = Tensor::<3>::ones([2, 3, 4], &device);
    /// let out = layer.try_forward(q.clone(), Tensor::ones([2, 5, 6], &device), None)?;
    /// assert_eq!(out.dims(), [2, 3, 4]);
    /// let err = layer.try_forward(q, Tensor::ones([1, 5, 6], &device), None).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, query: Tensor<3>, context: Tensor<3>, mask: Option<Tensor<2, Bool>>) -> Tensor<3> => forward(..) [check_cross(self, &query, &context, mask.as_ref())];
    /// Fallible twin of [`CrossAttention::forward_cache`].
    ///
    /// The input is checked as by [`try_forward`](Self::try_forward). A filled cache holds the
    /// key and value of an earlier context, private to burn: a mask must match that context's
    /// length, which the twin cannot see (burn's reshape panics in its front-end check, before
    /// any kernel, and the backstop returns it).
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward).
    ///
    /// ```
    /// use burn::nn::attention::{CrossAttentionCache, CrossAttentionConfig};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let layer = CrossAttentionConfig::new(4, 6, 2, 1, 3).try_init(&device)?;
    /// let mut cache = CrossAttentionCache::new();
    /// let context = Tensor::<3>::ones([1, 5, 6], &device);
    /// let out = layer.try_forward_cache(Tensor::ones([1, 2, 4], &device), context, None, &mut cache)?;
    /// assert_eq!(out.dims(), [1, 2, 4]);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward_cache(&self, query: Tensor<3>, context: Tensor<3>, mask: Option<Tensor<2, Bool>>, cache: &mut CrossAttentionCache) -> Tensor<3> => forward_cache(..) [check_cross(self, &query, &context, mask.as_ref())];
}
}

into_burn! {
    MhaInput => BurnMhaInput;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seam's names for `CrossAttention`'s private fields, against burn's own layer.
    #[test]
    fn cross_attention_projections_are_found() -> std::result::Result<(), &'static str> {
        let device = Device::flex();
        let layer = burn::nn::attention::CrossAttentionConfig::new(4, 6, 2, 1, 3).init(&device);
        let parts = cross_attention_parts("cross_attention", &layer)
            .map_err(|_| "the walk failed")?
            .ok_or("a projection is missing")?;
        assert_eq!(parts.query.weight, [4, 6]);
        assert_eq!(parts.key.weight, [6, 3]);
        assert_eq!(parts.value.weight, [6, 3]);
        assert_eq!(parts.output.weight, [6, 4]);
        assert_eq!(parts.query.bias.as_deref(), Some(&[6][..]));
        assert_eq!(parts.devices.len(), 8);
        Ok(())
    }
}
