//! Checks for the module, activation and loss functions: convolutions, linear, batch norm,
//! interpolate, affine grids, softmax family, glu, prelu, cross entropy.
//!
//! Pure functions over shapes and options; each names the burn check it mirrors. Where burn
//! leaves a condition to the backend (bias lengths, strides of 0, a kernel larger than the
//! padded input, …) the check says so: those refusals go beyond burn, and are documented on
//! the twins.

use burn::tensor::ops::{
    ConvOptions, ConvTransposeOptions, DeformConvOptions, InterpolateMode, InterpolateOptions,
};

use super::rule::Rule;
use crate::check::quirks::Quirks;
use crate::check::shape;
use crate::error::{GuardError, Result};

/// `glu(tensor, dim)`: `dim` in `-D..D` (`unwrap_dim_index`) and an even size along it
/// (`assert!` in `activation::glu`). Returns the resolved dim and the output shape (the size
/// along `dim` halved).
///
/// # Errors
///
/// [`GuardError::DimOutOfRange`] for a bad dim; [`GuardError::InvalidArgument`] for an odd
/// size.
///
/// ```
/// use burn_guard::check::module;
/// assert_eq!(module::glu("glu", &[2, 4], -1).unwrap(), (1, vec![2, 2]));
/// assert!(module::glu("glu", &[2, 3], 1).is_err());
/// ```
pub fn glu(op: &'static str, shape: &[usize], dim: isize) -> Result<(usize, Vec<usize>)> {
    let dim = shape::dim(op, dim, shape.len())?;
    let size = shape.get(dim).copied().unwrap_or(0);
    if size % 2 != 0 {
        return Err(Rule(op, "the size along dim must be even")
            .invalid(format!("size={size} (dim {dim}, shape {shape:?})")));
    }
    let mut out = shape.to_vec();
    if let Some(slot) = out.get_mut(dim) {
        *slot = size / 2;
    }
    Ok((dim, out))
}

/// `prelu(tensor, alpha)`: `alpha` has 1 weight, or (rank ≥ 2) one weight per channel
/// (`TensorCheck::check_prelu_shape`). Beyond burn: zero channels with zero weights is refused,
/// because burn then reshapes the weights to a shape containing 0, which its reshape reads as
/// "keep the source dim" and panics on.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
///
/// ```
/// use burn_guard::check::module;
/// assert!(module::prelu("prelu", &[2, 3, 4], &[3]).is_ok());
/// assert!(module::prelu("prelu", &[2, 3, 4], &[1]).is_ok());
/// assert!(module::prelu("prelu", &[2, 3, 4], &[2]).is_err());
/// ```
pub fn prelu(op: &'static str, shape: &[usize], alpha: &[usize]) -> Result<()> {
    let weights = alpha.first().copied().unwrap_or(0);
    let mismatch = |rule| Rule(op, rule).shape_mismatch(&[shape, alpha]);
    if weights == 1 {
        return Ok(());
    }
    if shape.len() < 2 {
        return Err(mismatch("a rank-1 input takes exactly one weight"));
    }
    let channels = shape.get(1).copied().unwrap_or(0);
    if channels != weights {
        return Err(mismatch(
            "alpha must have one weight or one weight per channel",
        ));
    }
    if weights == 0 {
        return Err(mismatch("alpha must not be empty"));
    }
    Ok(())
}

/// The shape burn-tensor's `activation::prelu` reshapes `alpha` (of `weights` weights) to for
/// an input of rank `rank`: `[1; rank]` for one weight, `[1, weights, 1, ..]` otherwise. A
/// quantized `alpha` must keep whole blocks and words in it
/// ([`quantized_reshape`](super::quant::quantized_reshape)).
///
/// ```
/// use burn_guard::check::module;
/// assert_eq!(module::prelu_weights_shape(3, 1), vec![1, 1, 1]);
/// assert_eq!(module::prelu_weights_shape(3, 64), vec![1, 64, 1]);
/// assert_eq!(module::prelu_weights_shape(2, 64), vec![1, 64]);
/// ```
pub fn prelu_weights_shape(rank: usize, weights: usize) -> Vec<usize> {
    let mut shape = vec![1; rank];
    if weights != 1
        && let Some(slot) = shape.get_mut(1)
    {
        *slot = weights;
    }
    shape
}

/// What [`linear`] proved about a linear layer's shapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinearShapes {
    /// The input's shape, `[..., d_input]`.
    pub x: Vec<usize>,
    /// The number of rows once every leading dimension of `x` is folded into one
    /// (1 for a rank-1 input).
    pub rows: usize,
    /// The input features, `weight`'s first dimension.
    pub d_input: usize,
    /// The output features, `weight`'s second dimension.
    pub d_output: usize,
    /// The output's shape, `[..., d_output]`.
    pub output: Vec<usize>,
}

/// `linear(input, weight, bias)`: `input` is `[..., d_input]` of rank 1 or more, `weight` is
/// `[d_input, d_output]` (not transposed, unlike PyTorch), `bias` is `[d_output]`. burn checks
/// none of this for a float weight (the backend panics); it checks the same through
/// `matmul`/`add` for a quantized weight. Returns the shapes it implies.
///
/// One rule for every layer that runs a linear: the tensor twin
/// ([`try_linear`](crate::tensor::module::try_linear)), the backend-level
/// [`backend::linear`](crate::backend::linear) and the quantized layers.
///
/// A rank-1 input with no element is refused: burn's `linear` runs a rank-1 input through
/// `unsqueeze`, whose shape computation panics on it (burn 0.22.1: `index out of bounds` in
/// cubecl-zspace's `Shape`, before any backend runs; measured on Flex). The backend-level
/// [`backend::linear`](crate::backend::linear) could compute that case, but one operation gets
/// one verdict: where burn's `linear` panics, every layer refuses.
///
/// # Errors
///
/// - [`GuardError::RankMismatch`] when `weight` is not rank 2, `input` has rank 0 or `bias` is
///   not rank 1.
/// - [`GuardError::ShapeMismatch`] when `input`'s last dimension differs from `weight`'s first,
///   or `bias` from `weight`'s second.
/// - [`GuardError::Empty`] for an empty rank-1 input.
/// - [`GuardError::InvalidArgument`] when the input's element count overflows `usize`.
///
/// ```
/// use burn_guard::check::module;
///
/// let shapes = module::linear("linear", &[2, 5, 3], &[3, 4], Some(&[4]))?;
/// assert_eq!((shapes.rows, shapes.d_input, shapes.d_output), (10, 3, 4));
/// assert_eq!(shapes.output, vec![2, 5, 4]);
/// assert!(module::linear("linear", &[2, 3], &[4, 5], None).is_err());
/// assert!(module::linear("linear", &[2, 3], &[3, 5], Some(&[4])).is_err());
/// assert!(module::linear("linear", &[0], &[0, 5], None).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn linear(
    op: &'static str,
    input: &[usize],
    weight: &[usize],
    bias: Option<&[usize]>,
) -> Result<LinearShapes> {
    let features = linear_features(op, input, weight, bias)?;
    let leading = input.split_last().map_or(&[][..], |(_, leading)| leading);
    let mut output = leading.to_vec();
    output.push(features.d_output);
    Ok(LinearShapes {
        x: input.to_vec(),
        rows: features.rows,
        d_input: features.d_input,
        d_output: features.d_output,
        output,
    })
}

/// What [`linear_features`] proved: [`LinearShapes`] without the shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LinearFeatures {
    pub rows: usize,
    pub d_input: usize,
    pub d_output: usize,
}

/// The [`linear`] rule, without building the input's and output's shapes: what the layer
/// twins run on every forward, so it allocates nothing unless it refuses.
pub(crate) fn linear_features(
    op: &'static str,
    input: &[usize],
    weight: &[usize],
    bias: Option<&[usize]>,
) -> Result<LinearFeatures> {
    let [d_input, d_output] = Rule(op, "weight must be [d_input, d_output]").dims(weight)?;
    let Some((&last, leading)) = input.split_last() else {
        return Err(GuardError::RankMismatch {
            op,
            rule: "input must have rank 1 or more",
            expected: 1,
            got: 0,
            shape: Vec::new(),
        });
    };
    Rule(
        op,
        "input's last dimension must equal weight's first (weight is [d_input, d_output])",
    )
    .shapes_agree(last == d_input, &[input, weight])?;
    match bias {
        None => {}
        Some(&[d]) if d == d_output => {}
        Some(bias @ &[_]) => {
            return Err(
                Rule(op, "bias must be [d_output], weight's second dimension")
                    .shape_mismatch(&[weight, bias]),
            );
        }
        Some(bias) => {
            return Err(Rule(op, "bias must be [d_output]").rank_mismatch(1, bias.len(), bias));
        }
    }
    if leading.is_empty() && d_input == 0 {
        return Err(Rule(
            op,
            "a rank-1 input must not be empty (burn's unsqueeze panics on a zero-sized dim)",
        )
        .empty(input, Some(0)));
    }
    let rows = leading
        .iter()
        .try_fold(1usize, |acc, d| acc.checked_mul(*d))
        .ok_or_else(|| {
            Rule(op, "the input's element count must fit in usize")
                .invalid(format!("shape={input:?}"))
        })?;
    Ok(LinearFeatures {
        rows,
        d_input,
        d_output,
    })
}

/// `linear_backward(x, weight, output_grad)`: the [`linear`] rules for `x` and `weight`, and
/// `output_grad` of shape `[..., d_output]` with `x`'s leading dimensions.
///
/// # Errors
///
/// What [`linear`] returns for `x` and `weight`, and [`GuardError::ShapeMismatch`] for
/// `output_grad`.
///
/// ```
/// use burn_guard::check::module::linear_backward;
///
/// let shapes = linear_backward("linear_backward", &[2, 3], &[3, 4], &[2, 4])?;
/// assert_eq!(shapes.output, vec![2, 4]);
/// assert!(linear_backward("linear_backward", &[2, 3], &[3, 4], &[2, 5]).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn linear_backward(
    op: &'static str,
    x: &[usize],
    weight: &[usize],
    output_grad: &[usize],
) -> Result<LinearShapes> {
    let shapes = linear(op, x, weight, None)?;
    Rule(
        op,
        "output_grad must be [..., d_output] with the input's leading dimensions",
    )
    .shapes_agree(
        output_grad == shapes.output.as_slice(),
        &[x, weight, output_grad],
    )?;
    Ok(shapes)
}

/// Parameters by name, each with its shape (`("gamma", [channels])`).
type NamedShapes = [(&'static str, Vec<usize>)];

/// `batch_norm` and `batch_norm_train`: input rank ≥ 2 and every parameter of shape
/// `[channels]` with `channels = input[1]` (the `assert!`s of `module::batch_norm`). `params`
/// names each parameter with its shape. Returns the channel count.
///
/// # Errors
///
/// [`GuardError::RankMismatch`] for a rank below 2; [`GuardError::ShapeMismatch`] naming the
/// first bad parameter's rule, with the input and parameter shapes.
///
/// ```
/// use burn_guard::check::module;
/// let params = [("gamma", vec![3]), ("beta", vec![3])];
/// assert_eq!(module::batch_norm("batch_norm", &[2, 3, 4], &params).unwrap(), 3);
/// let params = [("gamma", vec![3]), ("beta", vec![4])];
/// assert!(module::batch_norm("batch_norm", &[2, 3, 4], &params).is_err());
/// ```
pub fn batch_norm(op: &'static str, input: &[usize], params: &NamedShapes) -> Result<usize> {
    let channels = Rule(op, "batch norm requires an input rank of at least 2").dim(input, 1)?;
    for (name, shape) in params {
        if shape.as_slice() != [channels] {
            let rule = match *name {
                "gamma" => "gamma must have shape [channels]",
                "beta" => "beta must have shape [channels]",
                "mean" => "mean must have shape [channels]",
                "variance" => "variance must have shape [channels]",
                _ => "parameters must have shape [channels]",
            };
            return Err(Rule(op, rule).shape_mismatch(&[input, shape]));
        }
    }
    Ok(channels)
}

/// `batch_norm_train`: the [`batch_norm`] rules, and — beyond burn — at least one channel and
/// one sample per channel: burn-backend's default `batch_norm_train` divides by the channel
/// count, and the batch statistics of an empty batch are undefined. Returns the channel count.
///
/// # Errors
///
/// As [`batch_norm`]; [`GuardError::Empty`] for an empty input.
///
/// ```
/// use burn_guard::check::module;
/// let params = [("gamma", vec![3]), ("beta", vec![3])];
/// assert!(module::batch_norm_train("batch_norm_train", &[2, 3, 4], &params).is_ok());
/// assert!(module::batch_norm_train("batch_norm_train", &[0, 3, 4], &params).is_err());
/// ```
pub fn batch_norm_train(op: &'static str, input: &[usize], params: &NamedShapes) -> Result<usize> {
    let channels = batch_norm(op, input, params)?;
    Rule(op, "batch statistics need a non-empty input").nonempty(input)?;
    Ok(channels)
}

/// Strides, dilations and group counts non-zero, checked in that order.
fn nonzero_options(
    op: &'static str,
    stride: &[usize],
    dilation: &[usize],
    groups: &[usize],
) -> Result<()> {
    let rule = Rule(op, "stride, dilation and groups must be non-zero");
    rule.nonzero_sizes("stride", stride)?;
    rule.nonzero_sizes("dilation", dilation)?;
    rule.nonzero_sizes("groups", groups)
}

/// The refusal of an input or weight whose rank is not the convolution's.
fn conv_ranks(op: &'static str, x: &[usize], weight: &[usize]) -> GuardError {
    Rule(
        op,
        "input and weight must have the rank the convolution needs",
    )
    .shape_mismatch(&[x, weight])
}

/// Output size of one spatial dim of a convolution, `None` when the kernel's extent exceeds
/// the padded input (burn-backend's `calculate_conv_output_size` would underflow).
fn conv_out(
    size: usize,
    kernel: usize,
    stride: usize,
    pad: (usize, usize),
    dilation: usize,
) -> Option<usize> {
    let padded = size.checked_add(pad.0)?.checked_add(pad.1)?;
    let extent = dilation
        .checked_mul(kernel.checked_sub(1)?)?
        .checked_add(1)?;
    let room = padded.checked_sub(extent)?;
    room.checked_div(stride)?.checked_add(1)
}

/// The spatial output sizes, or the rule that the sizes break.
fn conv_spatial(
    op: &'static str,
    x: &[usize],
    weight: &[usize],
    stride: &[usize],
    padding: &[(usize, usize)],
    dilation: &[usize],
) -> Result<Vec<usize>> {
    let n = stride.len();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (Some(&size), Some(&kernel), Some(&s), Some(&p), Some(&d)) = (
            x.get(i + 2),
            weight.get(i + 2),
            stride.get(i),
            padding.get(i),
            dilation.get(i),
        ) else {
            return Err(conv_ranks(op, x, weight));
        };
        Rule(op, "kernel sizes must be non-zero").shapes_agree(kernel != 0, &[x, weight])?;
        match conv_out(size, kernel, s, p, d) {
            Some(o) => out.push(o),
            None => {
                return Err(GuardError::InvalidArgument {
                    op,
                    rule: "the dilated kernel must fit in the padded input",
                    got: format!(
                        "input={x:?}, weight={weight:?}, padding={padding:?}, dilation={dilation:?} (spatial dim {i})"
                    ),
                });
            }
        }
    }
    Ok(out)
}

/// `conv1d`/`conv2d`/`conv3d`: `x[1] == weight[1] · groups` (`TensorCheck::conv`) and, for
/// `conv3d`, symmetric padding (`panic!` in `module::conv3d`; pass `symmetric_only`). Beyond
/// burn: stride, dilation and groups non-zero (the option structs' pub fields bypass the
/// constructors' checks), `weight[0]` divisible by `groups`, `bias` of shape `[weight[0]]`,
/// non-zero kernel sizes and a dilated kernel that fits in the padded input. Returns the
/// output shape.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] for channel, bias and kernel mismatches;
/// [`GuardError::OutOfRange`] for a stride, dilation or group count of 0;
/// [`GuardError::InvalidArgument`] for other bad options or a kernel larger than the padded input.
///
/// ```
/// use burn::tensor::ops::ConvOptions;
/// use burn_guard::check::module;
/// let options = ConvOptions::new([1, 1], [0, 0], [1, 1], 1);
/// let out = module::conv("conv2d", &[1, 3, 5, 5], &[8, 3, 3, 3], None, &options, false);
/// assert_eq!(out.unwrap(), vec![1, 8, 3, 3]);
/// assert!(module::conv("conv2d", &[1, 4, 5, 5], &[8, 3, 3, 3], None, &options, false).is_err());
/// ```
pub fn conv<const N: usize>(
    op: &'static str,
    x: &[usize],
    weight: &[usize],
    bias: Option<&[usize]>,
    options: &ConvOptions<N>,
    symmetric_only: bool,
) -> Result<Vec<usize>> {
    let (Some(&batch), Some(&channels), Some(&c_out), Some(&c_in_group)) =
        (x.first(), x.get(1), weight.first(), weight.get(1))
    else {
        return Err(conv_ranks(op, x, weight));
    };
    // burn's own check (TensorCheck::conv); an overflowing product panics in debug builds.
    Rule(
        op,
        "input channels must equal weight input channels times groups",
    )
    .shapes_agree(
        c_in_group.checked_mul(options.groups) == Some(channels),
        &[x, weight],
    )?;
    if symmetric_only && options.is_asymmetric() {
        return Err(Rule(op, "asymmetric padding is not supported for conv3d")
            .invalid(format!("padding={:?}", options.padding)));
    }
    nonzero_options(op, &options.stride, &options.dilation, &[options.groups])?;
    if c_out % options.groups != 0 {
        return Err(
            Rule(op, "weight output channels must be divisible by groups")
                .invalid(format!("out_channels={c_out}, groups={}", options.groups)),
        );
    }
    conv_bias(op, weight, bias, c_out)?;
    let spatial = conv_spatial(
        op,
        x,
        weight,
        &options.stride,
        &options.padding,
        &options.dilation,
    )?;
    let mut out = vec![batch, c_out];
    out.extend(spatial);
    Ok(out)
}

fn conv_bias(
    op: &'static str,
    weight: &[usize],
    bias: Option<&[usize]>,
    c_out: usize,
) -> Result<()> {
    match bias {
        Some(bias) if bias != [c_out] => {
            Err(Rule(op, "bias must have one entry per output channel")
                .shape_mismatch(&[weight, bias]))
        }
        _ => Ok(()),
    }
}

/// `conv_transpose1d/2d/3d`: `x[1] == weight[0]` (`TensorCheck::conv_transpose`). Beyond
/// burn: stride, dilation and groups non-zero, `weight[0]` divisible by `groups`, `bias` of
/// shape `[weight[1] · groups]`, non-zero kernel and input sizes and a non-negative output
/// size `(in - 1)·stride + dilation·(kernel - 1) + 1 + padding_out - 2·padding` (burn-backend's
/// arithmetic underflows otherwise; an output size of 0 is allowed, backends return an empty
/// tensor). Returns the output shape.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] for channel, bias and kernel mismatches;
/// [`GuardError::OutOfRange`] for a stride, dilation or group count of 0;
/// [`GuardError::InvalidArgument`] for other bad options or a negative output size.
///
/// ```
/// use burn::tensor::ops::ConvTransposeOptions;
/// use burn_guard::check::module;
/// let options = ConvTransposeOptions::new([1], [0], [0], [1], 1);
/// let out = module::conv_transpose("conv_transpose1d", &[1, 2, 5], &[2, 3, 3], None, &options);
/// assert_eq!(out.unwrap(), vec![1, 3, 7]);
/// assert!(module::conv_transpose("conv_transpose1d", &[1, 3, 5], &[2, 3, 3], None, &options).is_err());
/// ```
pub fn conv_transpose<const N: usize>(
    op: &'static str,
    x: &[usize],
    weight: &[usize],
    bias: Option<&[usize]>,
    options: &ConvTransposeOptions<N>,
) -> Result<Vec<usize>> {
    let (Some(&batch), Some(&channels), Some(&c_in), Some(&c_out_group)) =
        (x.first(), x.get(1), weight.first(), weight.get(1))
    else {
        return Err(conv_ranks(op, x, weight));
    };
    Rule(op, "input channels must equal weight input channels")
        .shapes_agree(channels == c_in, &[x, weight])?;
    nonzero_options(op, &options.stride, &options.dilation, &[options.groups])?;
    if c_in % options.groups != 0 {
        return Err(
            Rule(op, "weight input channels must be divisible by groups")
                .invalid(format!("in_channels={c_in}, groups={}", options.groups)),
        );
    }
    let Some(c_out) = c_out_group.checked_mul(options.groups) else {
        return Err(Rule(op, "output channels overflow")
            .invalid(format!("weight={weight:?}, groups={}", options.groups)));
    };
    conv_bias(op, weight, bias, c_out)?;
    let mut out = vec![batch, c_out];
    for i in 0..N {
        let (Some(&size), Some(&kernel), Some(&s), Some(&p), Some(&po), Some(&d)) = (
            x.get(i + 2),
            weight.get(i + 2),
            options.stride.get(i),
            options.padding.get(i),
            options.padding_out.get(i),
            options.dilation.get(i),
        ) else {
            return Err(conv_ranks(op, x, weight));
        };
        Rule(op, "kernel sizes must be non-zero").shapes_agree(kernel != 0, &[x, weight])?;
        let size_out = size
            .checked_sub(1)
            .and_then(|v| v.checked_mul(s))
            .and_then(|v| v.checked_add(d.checked_mul(kernel - 1)?))
            .and_then(|v| v.checked_add(1))
            .and_then(|v| v.checked_add(po))
            .and_then(|v| v.checked_sub(p.checked_mul(2)?));
        match size_out {
            Some(v) => out.push(v),
            None => {
                return Err(GuardError::InvalidArgument {
                    op,
                    rule: "the output size must not be negative",
                    got: format!(
                        "input={x:?}, weight={weight:?}, stride={:?}, padding={:?}, padding_out={:?}, dilation={:?} (spatial dim {i})",
                        options.stride, options.padding, options.padding_out, options.dilation
                    ),
                });
            }
        }
    }
    Ok(out)
}

/// `deform_conv2d`: `x[1] == weight[1] · weight_groups` (`TensorCheck::conv`). Beyond burn:
/// stride, dilation and both group counts non-zero, `weight[0]` divisible by `weight_groups`
/// and `x[1]` by `offset_groups`, a kernel that fits in the padded input, `offset` of shape
/// `[batch, 2·offset_groups·kh·kw, out_h, out_w]`, `mask` of shape
/// `[batch, offset_groups·kh·kw, out_h, out_w]` and `bias` of shape `[weight[0]]`. Returns the
/// output shape.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] for shape mismatches; [`GuardError::OutOfRange`] for a stride
/// or dilation of 0; [`GuardError::InvalidArgument`] for other bad options or a kernel larger
/// than the padded input.
pub fn deform_conv2d(
    op: &'static str,
    x: &[usize],
    offset: &[usize],
    weight: &[usize],
    mask: Option<&[usize]>,
    bias: Option<&[usize]>,
    options: &DeformConvOptions<2>,
) -> Result<Vec<usize>> {
    let (Some(&batch), Some(&channels), Some(&c_out), Some(&c_in_group)) =
        (x.first(), x.get(1), weight.first(), weight.get(1))
    else {
        return Err(Rule(op, "input and weight must have rank 4").shape_mismatch(&[x, weight]));
    };
    Rule(
        op,
        "input channels must equal weight input channels times groups",
    )
    .shapes_agree(
        c_in_group.checked_mul(options.weight_groups) == Some(channels),
        &[x, weight],
    )?;
    let groups = [options.weight_groups, options.offset_groups];
    nonzero_options(op, &options.stride, &options.dilation, &groups)?;
    if c_out % options.weight_groups != 0 || channels % options.offset_groups != 0 {
        return Err(GuardError::InvalidArgument {
            op,
            rule: "output channels must be divisible by weight_groups and input channels by offset_groups",
            got: format!(
                "out_channels={c_out}, in_channels={channels}, weight_groups={}, offset_groups={}",
                options.weight_groups, options.offset_groups
            ),
        });
    }
    conv_bias(op, weight, bias, c_out)?;
    let padding = options.padding.map(|p| (p, p));
    let spatial = conv_spatial(op, x, weight, &options.stride, &padding, &options.dilation)?;
    let taps = weight
        .get(2..4)
        .map(|k| k.iter().product::<usize>())
        .unwrap_or(0);
    let (Some(&out_h), Some(&out_w)) = (spatial.first(), spatial.get(1)) else {
        return Err(Rule(op, "input and weight must have rank 4").shape_mismatch(&[x, weight]));
    };
    let expected_offset = [
        batch,
        taps.saturating_mul(2).saturating_mul(options.offset_groups),
        out_h,
        out_w,
    ];
    Rule(
        op,
        "offset must have shape [batch, 2 * offset_groups * kernel_h * kernel_w, out_h, out_w]",
    )
    .same_shape(offset, &expected_offset)?;
    if let Some(mask) = mask {
        let expected_mask = [
            batch,
            taps.saturating_mul(options.offset_groups),
            out_h,
            out_w,
        ];
        Rule(
            op,
            "mask must have shape [batch, offset_groups * kernel_h * kernel_w, out_h, out_w]",
        )
        .same_shape(mask, &expected_mask)?;
    }
    Ok(vec![batch, c_out, out_h, out_w])
}

/// `interpolate(x, options)`: exactly one of `output_size` and `scale_factor` set, and a scaled
/// size that fits in `usize` (`panic!`/`assert!` in `module::interpolate_output_size`). Beyond
/// burn: non-zero input spatial sizes (Flex asserts on an empty input, NdArray returns
/// whatever it has) and a finite, positive scale factor (a negative factor would silently
/// give size 0; a NaN one panics in burn). An output size of 0 is allowed: every backend
/// returns an empty tensor. Returns the output spatial size.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the options or sizes; [`GuardError::Empty`] for an
/// input with an empty spatial dimension.
///
/// ```
/// use burn::tensor::ops::{InterpolateMode, InterpolateOptions};
/// use burn_guard::check::module;
/// let options = InterpolateOptions::new(InterpolateMode::Nearest).with_scale_factor([2.0, 2.0]);
/// assert_eq!(module::interpolate("interpolate", &[1, 1, 3, 4], &options).unwrap(), [6, 8]);
/// let neither = InterpolateOptions::new(InterpolateMode::Nearest);
/// assert!(module::interpolate("interpolate", &[1, 1, 3, 4], &neither).is_err());
/// ```
pub fn interpolate(
    op: &'static str,
    x: &[usize],
    options: &InterpolateOptions,
) -> Result<[usize; 2]> {
    let (Some(&h), Some(&w)) = (x.get(2), x.get(3)) else {
        return Err(Rule(op, "interpolate needs a rank-4 input").rank_mismatch(4, x.len(), x));
    };
    let size = match (options.output_size, options.scale_factor) {
        (Some(size), None) => size,
        (None, Some(scale)) => {
            let mut size = [0usize; 2];
            for ((slot, input), factor) in size.iter_mut().zip([h, w]).zip(scale) {
                let scaled = input as f64 * f64::from(factor);
                if scaled > usize::MAX as f64 {
                    return Err(Rule(op, "the scaled size must fit in usize")
                        .invalid(format!("scale_factor={scale:?}, input={x:?}")));
                }
                if !factor.is_finite() || factor <= 0.0 {
                    return Err(Rule(op, "scale factors must be finite and positive")
                        .invalid(format!("scale_factor={scale:?}")));
                }
                // The saturating float-to-int cast burn uses.
                *slot = scaled as usize;
            }
            size
        }
        (Some(size), Some(scale)) => {
            return Err(Rule(
                op,
                "options must set only one of output_size or scale_factor",
            )
            .invalid(format!("output_size={size:?}, scale_factor={scale:?}")));
        }
        (None, None) => {
            return Err(Rule(op, "options must set output_size or scale_factor")
                .invalid("output_size=None, scale_factor=None".into()));
        }
    };
    if h == 0 || w == 0 {
        return Err(Rule(op, "input spatial sizes must be non-zero")
            .empty(x, Some(if h == 0 { 2 } else { 3 })));
    }
    Ok(size)
}

/// `interpolate` on the CPU backends: Flex and NdArray implement every mode but
/// `NearestExact`, for which both panic ("unsupported mode" / "not supported for ndarray
/// backend"). `quirks` are the input's backend's (`interpolate_modes`).
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the mode and backend.
///
/// ```
/// use burn::tensor::ops::InterpolateMode;
/// use burn_guard::capability::{FLEX_QUIRKS, Quirks};
/// use burn_guard::check::module;
/// assert!(module::interpolate_mode("interpolate", &InterpolateMode::NearestExact, &Quirks::NONE).is_ok());
/// assert!(module::interpolate_mode("interpolate", &InterpolateMode::NearestExact, &FLEX_QUIRKS).is_err());
/// ```
pub fn interpolate_mode(op: &'static str, mode: &InterpolateMode, quirks: &Quirks) -> Result<()> {
    if quirks.interpolate_modes.contains(mode) {
        Ok(())
    } else {
        Err(
            Rule(op, "the backend does not implement this interpolation mode")
                .invalid(format!("mode={mode:?}, backend={}", quirks.backend)),
        )
    }
}

/// `cross_entropy_with_logits(logits, target_probs)`: the shapes broadcast
/// (`TensorCheck::binary_ops_ew` through `mul`). Returns the broadcast shape.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with both shapes.
pub fn cross_entropy_with_logits(
    op: &'static str,
    logits: &[usize],
    target: &[usize],
) -> Result<Vec<usize>> {
    shape::broadcast(op, logits, target)
}

/// `affine_grid_2d(transform, dims)`: simulates burn's construction. `batch`, `height` and
/// `width` must be non-zero (burn's `reshape`/`expand` panic on a 0), the slices
/// `transform[.., i, j]` must broadcast against `[batch, height, width]`
/// (`TensorCheck::binary_ops_ew`), and the two grids must have equal shapes
/// (`TensorCheck::stack`; stacking on the last dim never moves a zero-sized dim, so burn's
/// reshape bug does not fire). Returns the output shape.
///
/// # Errors
///
/// [`GuardError::Empty`] for a zero size; [`GuardError::ShapeMismatch`] for a
/// transform that does not broadcast or gives unequal grids.
///
/// ```
/// use burn_guard::check::module;
/// assert_eq!(module::affine_grid_2d("affine_grid_2d", &[2, 2, 3], [2, 1, 4, 5]).unwrap(), vec![2, 4, 5, 2]);
/// assert!(module::affine_grid_2d("affine_grid_2d", &[3, 2, 3], [2, 1, 4, 5]).is_err());
/// ```
pub fn affine_grid_2d(
    op: &'static str,
    transform: &[usize],
    dims: [usize; 4],
) -> Result<Vec<usize>> {
    let [batch, _, height, width] = dims;
    if batch == 0 || height == 0 || width == 0 {
        return Err(Rule(op, "batch, height and width must be non-zero").empty(
            &dims,
            [0, 2, 3].into_iter().find(|&d| dims.get(d) == Some(&0)),
        ));
    }
    let (Some(&b), Some(&rows), Some(&cols)) =
        (transform.first(), transform.get(1), transform.get(2))
    else {
        return Err(Rule(op, "transform must have rank 3").shape_mismatch(&[transform]));
    };
    // `transform.slice(s![.., i, j])` clamps an index past the end to an empty range.
    let entry = |i: usize, j: usize| vec![b, usize::from(i < rows), usize::from(j < cols)];
    let grid = [batch, height, width];
    let row = |i: usize| -> Result<Vec<usize>> {
        let a = shape::broadcast(op, &entry(i, 0), &grid)?;
        let c = shape::broadcast(op, &entry(i, 1), &grid)?;
        let sum = shape::broadcast(op, &a, &c)?;
        shape::broadcast(op, &sum, &entry(i, 2))
    };
    let grid_x = row(0)?;
    let grid_y = row(1)?;
    Rule(op, "transform must have shape [batch, 2, 3]")
        .shapes_agree(grid_x == grid_y, &[transform])?;
    let mut out = grid_x;
    out.push(2);
    Ok(out)
}

/// `grid_sample_2d(input, grid)`: burn checks nothing; the backends assert (Flex: `input must
/// be 4D`, `grid last dim must be 2`, `batch size mismatch`; NdArray the same through its own
/// asserts or a shape error). The input is `[N, C, H_in, W_in]` and the grid
/// `[N, H_out, W_out, 2]`. Both must be rank 4, the grid's last dimension 2 and the batch
/// sizes equal.
///
/// # Errors
///
/// - [`GuardError::RankMismatch`] for a tensor of another rank.
/// - [`GuardError::ShapeMismatch`] for the grid's last dimension or the batch sizes.
///
/// ```
/// use burn_guard::check::module;
/// assert!(module::grid_sample_2d("grid_sample_2d", &[1, 2, 3, 3], &[1, 4, 4, 2]).is_ok());
/// assert!(module::grid_sample_2d("grid_sample_2d", &[1, 2, 3, 3], &[1, 4, 4, 3]).is_err());
/// assert!(module::grid_sample_2d("grid_sample_2d", &[2, 2, 3, 3], &[1, 4, 4, 2]).is_err());
/// assert!(module::grid_sample_2d("grid_sample_2d", &[2, 3, 3], &[2, 4, 2]).is_err());
/// ```
pub fn grid_sample_2d(op: &'static str, input: &[usize], grid: &[usize]) -> Result<()> {
    for (shape, rule) in [
        (input, "the input must be [batch, channels, height, width]"),
        (grid, "the grid must be [batch, height_out, width_out, 2]"),
    ] {
        Rule(op, rule).rank(shape, 4)?;
    }
    let mismatch = |rule| Rule(op, rule).shape_mismatch(&[input, grid]);
    if grid.get(3) != Some(&2) {
        return Err(mismatch("the grid's last dimension must be 2 (x, y)"));
    }
    if input.first() != grid.first() {
        return Err(mismatch(
            "the input and the grid must have the same batch size",
        ));
    }
    Ok(())
}

/// `grid_sample_2d` on the CPU backends: Flex implements `Bilinear` and `Nearest` and panics on
/// `Bicubic` ("Bicubic mode is not supported"); NdArray implements `Bilinear` only and panics
/// (`not yet implemented`) on the others. `quirks` are the input's backend's
/// (`grid_sample_modes`); a backend without a row is left to answer.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the mode and backend.
///
/// ```
/// use burn::tensor::ops::InterpolateMode;
/// use burn_guard::capability::{FLEX_QUIRKS, NDARRAY_QUIRKS};
/// use burn_guard::check::module;
/// assert!(module::grid_sample_mode("grid_sample_2d", &InterpolateMode::Nearest, &FLEX_QUIRKS).is_ok());
/// assert!(module::grid_sample_mode("grid_sample_2d", &InterpolateMode::Nearest, &NDARRAY_QUIRKS).is_err());
/// assert!(module::grid_sample_mode("grid_sample_2d", &InterpolateMode::Bicubic, &FLEX_QUIRKS).is_err());
/// ```
pub fn grid_sample_mode(op: &'static str, mode: &InterpolateMode, quirks: &Quirks) -> Result<()> {
    if quirks.grid_sample_modes.contains(mode) {
        Ok(())
    } else {
        Err(
            Rule(op, "the backend does not implement this grid sampling mode")
                .invalid(format!("mode={mode:?}, backend={}", quirks.backend)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::{ranks, refused};

    type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    /// The rule of the variants that carry a static one.
    fn rule_of(err: &GuardError) -> Option<&'static str> {
        match err {
            GuardError::ShapeMismatch { rule, .. }
            | GuardError::RankMismatch { rule, .. }
            | GuardError::InvalidArgument { rule, .. }
            | GuardError::OutOfRange { rule, .. }
            | GuardError::Empty { rule, .. } => Some(rule),
            _ => None,
        }
    }

    #[test]
    fn glu_rules() -> TestResult {
        assert!(matches!(
            glu("glu", &[2, 4], 2),
            Err(GuardError::DimOutOfRange { .. })
        ));
        let err = refused("glu", glu("glu", &[2, 3], -1))?;
        assert!(matches!(
            &err,
            GuardError::InvalidArgument { rule: "the size along dim must be even", got, .. }
                if got == "size=3 (dim 1, shape [2, 3])"
        ));
        assert_eq!(glu("glu", &[0, 2], 0)?, (0, vec![0, 2]));
        Ok(())
    }

    #[test]
    fn prelu_rules() -> TestResult {
        let cases: &[(&[usize], &[usize], Option<&str>)] = &[
            (&[4], &[1], None),
            (&[4], &[4], Some("a rank-1 input takes exactly one weight")),
            (&[2, 3], &[3], None),
            (
                &[2, 3],
                &[2],
                Some("alpha must have one weight or one weight per channel"),
            ),
            (&[2, 0], &[0], Some("alpha must not be empty")),
        ];
        for (shape, alpha, rule) in cases {
            match (prelu("prelu", shape, alpha), rule) {
                (Ok(()), None) => {}
                (Err(err), Some(rule)) => {
                    assert!(matches!(err, GuardError::ShapeMismatch { .. }));
                    assert_eq!(rule_of(&err), Some(*rule), "{err}");
                }
                (got, want) => {
                    return Err(format!("{shape:?} {alpha:?}: {got:?} vs {want:?}").into());
                }
            }
        }
        Ok(())
    }

    #[test]
    fn linear_rules() -> TestResult {
        for x in [vec![3], vec![2, 3], vec![4, 2, 3], vec![1, 4, 2, 3]] {
            let s = linear("linear", &x, &[3, 5], Some(&[5]))?;
            assert_eq!(s.output.last(), Some(&5));
            assert_eq!(s.output.len(), x.len());
            assert_eq!(s.rows, x.iter().product::<usize>() / 3);
        }
        assert_eq!(linear("linear", &[3], &[3, 2], None)?.output, vec![2]);
        assert_eq!(linear("linear", &[0, 3], &[3, 2], None)?.rows, 0);
        let rank = |err: GuardError| match err {
            GuardError::RankMismatch { expected, got, .. } => Some((expected, got)),
            _ => None,
        };
        let refused =
            |result: Result<LinearShapes>| result.err().ok_or("linear: expected an error");
        assert_eq!(
            rank(refused(linear("linear", &[], &[3, 5], None))?),
            Some((1, 0))
        );
        assert_eq!(
            rank(refused(linear("linear", &[2, 3], &[3], None))?),
            Some((2, 1))
        );
        assert_eq!(
            rank(refused(linear("linear", &[2, 3], &[3, 5], Some(&[1, 5])))?),
            Some((1, 2))
        );
        let err = refused(linear("linear", &[2, 3], &[4, 2], None))?;
        assert!(matches!(&err, GuardError::ShapeMismatch { shapes, .. }
            if shapes == &[vec![2, 3], vec![4, 2]]));
        let err = refused(linear("linear", &[2, 3], &[3, 2], Some(&[3])))?;
        assert!(matches!(&err, GuardError::ShapeMismatch { shapes, .. }
            if shapes == &[vec![3, 2], vec![3]]));
        let err = refused(linear("linear", &[0], &[0, 2], None))?;
        assert!(matches!(&err, GuardError::Empty { shape, dim: Some(0), .. } if shape == &[0]));
        let err = refused(linear_backward(
            "linear_backward",
            &[2, 3],
            &[3, 5],
            &[3, 5],
        ))?;
        assert!(matches!(&err, GuardError::ShapeMismatch { shapes, .. }
            if shapes == &[vec![2, 3], vec![3, 5], vec![3, 5]]));
        Ok(())
    }

    #[test]
    fn batch_norm_rules() -> TestResult {
        let err = refused("batch_norm", batch_norm("batch_norm", &[3], &[]))?;
        assert_eq!(ranks(&err), Some((2, 1)));
        let err = refused(
            "batch_norm",
            batch_norm(
                "batch_norm",
                &[2, 3],
                &[("gamma", vec![3]), ("variance", vec![2])],
            ),
        )?;
        assert!(matches!(&err, GuardError::ShapeMismatch { shapes, .. }
            if shapes == &[vec![2, 3], vec![2]]));
        assert_eq!(rule_of(&err), Some("variance must have shape [channels]"));
        Ok(())
    }

    type ConvCase = (
        Vec<usize>,
        Vec<usize>,
        Option<Vec<usize>>,
        ConvOptions<1>,
        &'static str,
    );

    #[test]
    fn batch_norm_train_rules() -> TestResult {
        let params = [("gamma", vec![0]), ("beta", vec![0])];
        let err = refused(
            "batch_norm_train",
            batch_norm_train("batch_norm_train", &[2, 0, 3], &params),
        )?;
        assert!(matches!(&err, GuardError::Empty { shape, dim: None, .. } if shape == &[2, 0, 3]));
        Ok(())
    }

    #[test]
    fn conv_rules() -> TestResult {
        let ok = ConvOptions::new([1], [0], [1], 1);
        assert_eq!(
            conv("conv1d", &[2, 3, 5], &[4, 3, 2], Some(&[4]), &ok, false)?,
            vec![2, 4, 4]
        );
        let cases: Vec<ConvCase> = vec![
            (
                vec![2, 3, 5],
                vec![4, 2, 2],
                None,
                ok.clone(),
                "input channels must equal weight input channels times groups",
            ),
            (
                vec![2, 3, 5],
                vec![4, 3, 2],
                Some(vec![3]),
                ok.clone(),
                "bias must have one entry per output channel",
            ),
            (
                vec![2, 3, 5],
                vec![4, 3, 6],
                None,
                ok.clone(),
                "the dilated kernel must fit in the padded input",
            ),
            (
                vec![2, 3, 5],
                vec![4, 3, 0],
                None,
                ok.clone(),
                "kernel sizes must be non-zero",
            ),
            (
                vec![2, 4, 5],
                vec![3, 2, 2],
                None,
                ConvOptions::new([1], [0], [1], 2),
                "weight output channels must be divisible by groups",
            ),
            (
                vec![2, 3, 5],
                vec![4, 3, 2],
                None,
                ConvOptions {
                    stride: [0],
                    padding: [(0, 0)],
                    dilation: [1],
                    groups: 1,
                },
                "stride, dilation and groups must be non-zero",
            ),
        ];
        for (x, w, b, options, rule) in cases {
            let err = refused(
                "conv",
                conv("conv1d", &x, &w, b.as_deref(), &options, false),
            )?;
            assert_eq!(rule_of(&err), Some(rule), "{err:?}");
        }
        let asym = ConvOptions::new_with_padding([1, 1, 1], [(1, 0), (0, 0), (0, 0)], [1, 1, 1], 1);
        let err = refused(
            "conv",
            conv(
                "conv3d",
                &[1, 1, 3, 3, 3],
                &[1, 1, 1, 1, 1],
                None,
                &asym,
                true,
            ),
        )?;
        assert_eq!(
            rule_of(&err),
            Some("asymmetric padding is not supported for conv3d")
        );
        Ok(())
    }

    #[test]
    fn conv_transpose_rules() -> TestResult {
        let ok = ConvTransposeOptions::new([2], [0], [1], [1], 1);
        assert_eq!(
            conv_transpose("ct", &[1, 2, 3], &[2, 3, 2], Some(&[3]), &ok)?,
            vec![1, 3, 7]
        );
        let err = refused(
            "conv_transpose",
            conv_transpose("ct", &[1, 3, 3], &[2, 3, 2], None, &ok),
        )?;
        assert!(matches!(&err, GuardError::ShapeMismatch { shapes, .. }
            if shapes == &[vec![1, 3, 3], vec![2, 3, 2]]));
        assert_eq!(
            rule_of(&err),
            Some("input channels must equal weight input channels")
        );
        let err = refused(
            "conv_transpose",
            conv_transpose("ct", &[1, 2, 0], &[2, 3, 2], None, &ok),
        )?;
        assert_eq!(rule_of(&err), Some("the output size must not be negative"));
        let zero = ConvTransposeOptions::new([1], [1], [0], [1], 1);
        assert_eq!(
            conv_transpose("ct", &[1, 2, 1], &[2, 3, 2], None, &zero)?,
            vec![1, 3, 0]
        );
        let big_pad = ConvTransposeOptions::new([1], [3], [0], [1], 1);
        let err = refused(
            "conv_transpose",
            conv_transpose("ct", &[1, 2, 1], &[2, 3, 2], None, &big_pad),
        )?;
        assert!(matches!(err, GuardError::InvalidArgument { .. }));
        Ok(())
    }

    #[test]
    fn interpolate_rules() -> TestResult {
        use burn::tensor::ops::InterpolateMode;
        let base = InterpolateOptions::new(InterpolateMode::Nearest);
        let mut both = base.clone().with_output_size([2, 2]);
        both.scale_factor = Some([1.0, 1.0]);
        let err = refused(
            "interpolate",
            interpolate("interpolate", &[1, 1, 2, 2], &both),
        )?;
        assert_eq!(
            rule_of(&err),
            Some("options must set only one of output_size or scale_factor")
        );
        let err = refused(
            "interpolate",
            interpolate("interpolate", &[1, 1, 2, 2], &base),
        )?;
        assert_eq!(
            rule_of(&err),
            Some("options must set output_size or scale_factor")
        );
        let huge = base.clone().with_scale_factor([f32::MAX, 1.0]);
        let err = refused(
            "interpolate",
            interpolate("interpolate", &[1, 1, 2, 2], &huge),
        )?;
        assert_eq!(rule_of(&err), Some("the scaled size must fit in usize"));
        let empty = base.with_output_size([0, 2]);
        assert_eq!(interpolate("interpolate", &[1, 1, 2, 2], &empty)?, [0, 2]);
        let err = refused(
            "interpolate",
            interpolate("interpolate", &[1, 1, 0, 2], &empty),
        )?;
        assert!(matches!(&err, GuardError::Empty { shape, dim: Some(2), .. }
            if shape == &[1, 1, 0, 2]));
        let negative = empty.with_scale_factor([-1.0, 1.0]);
        let err = refused(
            "interpolate",
            interpolate("interpolate", &[1, 1, 2, 2], &negative),
        )?;
        assert_eq!(
            rule_of(&err),
            Some("scale factors must be finite and positive")
        );
        Ok(())
    }

    #[test]
    fn affine_grid_rules() -> TestResult {
        assert_eq!(
            affine_grid_2d("a", &[1, 2, 3], [3, 1, 2, 2])?,
            vec![3, 2, 2, 2]
        );
        let err = refused(
            "affine_grid_2d",
            affine_grid_2d("a", &[1, 2, 3], [3, 1, 0, 2]),
        )?;
        assert!(matches!(&err, GuardError::Empty { shape, dim: Some(2), .. }
            if shape == &[3, 1, 0, 2]));
        let err = refused(
            "affine_grid_2d",
            affine_grid_2d("a", &[1, 1, 3], [1, 1, 2, 2]),
        )?;
        assert!(matches!(err, GuardError::ShapeMismatch { .. }));
        Ok(())
    }

    #[test]
    fn cross_entropy_rules() -> TestResult {
        let err = refused(
            "cross_entropy_with_logits",
            cross_entropy_with_logits("c", &[2, 3], &[2, 4]),
        )?;
        assert!(matches!(&err, GuardError::ShapeMismatch { shapes, .. }
            if shapes == &[vec![2, 3], vec![2, 4]]));
        Ok(())
    }
}
