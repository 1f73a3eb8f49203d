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
        return Err(GuardError::InvalidArgument {
            op,
            rule: "the size along dim must be even",
            got: format!("size={size} (dim {dim}, shape {shape:?})"),
        });
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
    let mismatch = |rule| GuardError::ShapeMismatch {
        op,
        rule,
        shapes: vec![shape.to_vec(), alpha.to_vec()],
    };
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

/// `linear(input, weight, bias)`: `input[.., k]` against `weight[k, n]`, `bias[n]`. burn checks
/// none of this for a float weight (the backend panics); it checks the same through
/// `matmul`/`add` for a quantized weight. Beyond burn: a rank-1 input with a zero-sized dim is
/// refused (burn's `unsqueeze` panics on it). Returns the output shape.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with the shapes involved; [`GuardError::InvalidArgument`] for
/// the empty rank-1 input.
///
/// ```
/// use burn_guard::check::module;
/// assert_eq!(module::linear("linear", &[2, 3], &[3, 5], Some(&[5])).unwrap(), vec![2, 5]);
/// assert!(module::linear("linear", &[2, 3], &[4, 5], None).is_err());
/// assert!(module::linear("linear", &[2, 3], &[3, 5], Some(&[4])).is_err());
/// ```
pub fn linear(
    op: &'static str,
    input: &[usize],
    weight: &[usize],
    bias: Option<&[usize]>,
) -> Result<Vec<usize>> {
    let (Some(&k), Some(&k_weight), Some(&n)) = (input.last(), weight.first(), weight.get(1))
    else {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "input and weight must have rank 1 or more and 2",
            shapes: vec![input.to_vec(), weight.to_vec()],
        });
    };
    if k != k_weight {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "the last input dimension must equal the weight rows",
            shapes: vec![input.to_vec(), weight.to_vec()],
        });
    }
    if let Some(bias) = bias
        && bias != [n]
    {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "bias must have one entry per weight column",
            shapes: vec![weight.to_vec(), bias.to_vec()],
        });
    }
    if input.len() == 1 && k == 0 {
        return Err(GuardError::InvalidArgument {
            op,
            rule: "a rank-1 input must not be empty (burn's unsqueeze panics on a zero-sized dim)",
            got: format!("input={input:?}"),
        });
    }
    let mut out = input.to_vec();
    if let Some(last) = out.last_mut() {
        *last = n;
    }
    Ok(out)
}

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
pub fn batch_norm(
    op: &'static str,
    input: &[usize],
    params: &[(&'static str, Vec<usize>)],
) -> Result<usize> {
    let Some(&channels) = input.get(1) else {
        return Err(GuardError::RankMismatch {
            op,
            rule: "batch norm requires an input rank of at least 2",
            expected: 2,
            got: input.len(),
            shape: input.to_vec(),
        });
    };
    for (name, shape) in params {
        if shape.as_slice() != [channels] {
            let rule = match *name {
                "gamma" => "gamma must have shape [channels]",
                "beta" => "beta must have shape [channels]",
                "mean" => "mean must have shape [channels]",
                "variance" => "variance must have shape [channels]",
                _ => "parameters must have shape [channels]",
            };
            return Err(GuardError::ShapeMismatch {
                op,
                rule,
                shapes: vec![input.to_vec(), shape.clone()],
            });
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
/// As [`batch_norm`]; [`GuardError::InvalidArgument`] for an empty input.
///
/// ```
/// use burn_guard::check::module;
/// let params = [("gamma", vec![3]), ("beta", vec![3])];
/// assert!(module::batch_norm_train("batch_norm_train", &[2, 3, 4], &params).is_ok());
/// assert!(module::batch_norm_train("batch_norm_train", &[0, 3, 4], &params).is_err());
/// ```
pub fn batch_norm_train(
    op: &'static str,
    input: &[usize],
    params: &[(&'static str, Vec<usize>)],
) -> Result<usize> {
    let channels = batch_norm(op, input, params)?;
    if input.contains(&0) {
        return Err(GuardError::InvalidArgument {
            op,
            rule: "batch statistics need a non-empty input",
            got: format!("input={input:?}"),
        });
    }
    Ok(channels)
}

fn nonzero(op: &'static str, name: &str, values: &[usize]) -> Result<()> {
    if values.contains(&0) {
        return Err(GuardError::InvalidArgument {
            op,
            rule: "stride, dilation and groups must be non-zero",
            got: format!("{name}={values:?}"),
        });
    }
    Ok(())
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
            return Err(GuardError::ShapeMismatch {
                op,
                rule: "input and weight must have the rank the convolution needs",
                shapes: vec![x.to_vec(), weight.to_vec()],
            });
        };
        if kernel == 0 {
            return Err(GuardError::ShapeMismatch {
                op,
                rule: "kernel sizes must be non-zero",
                shapes: vec![x.to_vec(), weight.to_vec()],
            });
        }
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
/// [`GuardError::InvalidArgument`] for bad options or a kernel larger than the padded input.
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
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "input and weight must have the rank the convolution needs",
            shapes: vec![x.to_vec(), weight.to_vec()],
        });
    };
    // burn's own check (TensorCheck::conv); an overflowing product panics in debug builds.
    if c_in_group.checked_mul(options.groups) != Some(channels) {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "input channels must equal weight input channels times groups",
            shapes: vec![x.to_vec(), weight.to_vec()],
        });
    }
    if symmetric_only && options.is_asymmetric() {
        return Err(GuardError::InvalidArgument {
            op,
            rule: "asymmetric padding is not supported for conv3d",
            got: format!("padding={:?}", options.padding),
        });
    }
    nonzero(op, "stride", &options.stride)?;
    nonzero(op, "dilation", &options.dilation)?;
    nonzero(op, "groups", &[options.groups])?;
    if c_out % options.groups != 0 {
        return Err(GuardError::InvalidArgument {
            op,
            rule: "weight output channels must be divisible by groups",
            got: format!("out_channels={c_out}, groups={}", options.groups),
        });
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
        Some(bias) if bias != [c_out] => Err(GuardError::ShapeMismatch {
            op,
            rule: "bias must have one entry per output channel",
            shapes: vec![weight.to_vec(), bias.to_vec()],
        }),
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
/// [`GuardError::InvalidArgument`] for bad options or a negative output size.
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
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "input and weight must have the rank the convolution needs",
            shapes: vec![x.to_vec(), weight.to_vec()],
        });
    };
    if channels != c_in {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "input channels must equal weight input channels",
            shapes: vec![x.to_vec(), weight.to_vec()],
        });
    }
    nonzero(op, "stride", &options.stride)?;
    nonzero(op, "dilation", &options.dilation)?;
    nonzero(op, "groups", &[options.groups])?;
    if c_in % options.groups != 0 {
        return Err(GuardError::InvalidArgument {
            op,
            rule: "weight input channels must be divisible by groups",
            got: format!("in_channels={c_in}, groups={}", options.groups),
        });
    }
    let Some(c_out) = c_out_group.checked_mul(options.groups) else {
        return Err(GuardError::InvalidArgument {
            op,
            rule: "output channels overflow",
            got: format!("weight={weight:?}, groups={}", options.groups),
        });
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
            return Err(GuardError::ShapeMismatch {
                op,
                rule: "input and weight must have the rank the convolution needs",
                shapes: vec![x.to_vec(), weight.to_vec()],
            });
        };
        if kernel == 0 {
            return Err(GuardError::ShapeMismatch {
                op,
                rule: "kernel sizes must be non-zero",
                shapes: vec![x.to_vec(), weight.to_vec()],
            });
        }
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
/// [`GuardError::ShapeMismatch`] for shape mismatches; [`GuardError::InvalidArgument`] for bad
/// options or a kernel larger than the padded input.
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
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "input and weight must have rank 4",
            shapes: vec![x.to_vec(), weight.to_vec()],
        });
    };
    if c_in_group.checked_mul(options.weight_groups) != Some(channels) {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "input channels must equal weight input channels times groups",
            shapes: vec![x.to_vec(), weight.to_vec()],
        });
    }
    nonzero(op, "stride", &options.stride)?;
    nonzero(op, "dilation", &options.dilation)?;
    nonzero(
        op,
        "groups",
        &[options.weight_groups, options.offset_groups],
    )?;
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
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "input and weight must have rank 4",
            shapes: vec![x.to_vec(), weight.to_vec()],
        });
    };
    let expected_offset = [
        batch,
        taps.saturating_mul(2).saturating_mul(options.offset_groups),
        out_h,
        out_w,
    ];
    if offset != expected_offset {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "offset must have shape [batch, 2 * offset_groups * kernel_h * kernel_w, out_h, out_w]",
            shapes: vec![offset.to_vec(), expected_offset.to_vec()],
        });
    }
    if let Some(mask) = mask {
        let expected_mask = [
            batch,
            taps.saturating_mul(options.offset_groups),
            out_h,
            out_w,
        ];
        if mask != expected_mask {
            return Err(GuardError::ShapeMismatch {
                op,
                rule: "mask must have shape [batch, offset_groups * kernel_h * kernel_w, out_h, out_w]",
                shapes: vec![mask.to_vec(), expected_mask.to_vec()],
            });
        }
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
/// [`GuardError::InvalidArgument`] naming the options or sizes.
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
        return Err(GuardError::RankMismatch {
            op,
            rule: "interpolate needs a rank-4 input",
            expected: 4,
            got: x.len(),
            shape: x.to_vec(),
        });
    };
    let size = match (options.output_size, options.scale_factor) {
        (Some(size), None) => size,
        (None, Some(scale)) => {
            let mut size = [0usize; 2];
            for ((slot, input), factor) in size.iter_mut().zip([h, w]).zip(scale) {
                let scaled = input as f64 * f64::from(factor);
                if scaled > usize::MAX as f64 {
                    return Err(GuardError::InvalidArgument {
                        op,
                        rule: "the scaled size must fit in usize",
                        got: format!("scale_factor={scale:?}, input={x:?}"),
                    });
                }
                if !factor.is_finite() || factor <= 0.0 {
                    return Err(GuardError::InvalidArgument {
                        op,
                        rule: "scale factors must be finite and positive",
                        got: format!("scale_factor={scale:?}"),
                    });
                }
                // The saturating float-to-int cast burn uses.
                *slot = scaled as usize;
            }
            size
        }
        (Some(size), Some(scale)) => {
            return Err(GuardError::InvalidArgument {
                op,
                rule: "options must set only one of output_size or scale_factor",
                got: format!("output_size={size:?}, scale_factor={scale:?}"),
            });
        }
        (None, None) => {
            return Err(GuardError::InvalidArgument {
                op,
                rule: "options must set output_size or scale_factor",
                got: "output_size=None, scale_factor=None".into(),
            });
        }
    };
    if h == 0 || w == 0 {
        return Err(GuardError::InvalidArgument {
            op,
            rule: "input spatial sizes must be non-zero",
            got: format!("input={x:?}, output_size={size:?}"),
        });
    }
    Ok(size)
}

/// `interpolate` on the CPU backends: Flex and NdArray implement every mode but
/// `NearestExact`, for which both panic ("unsupported mode" / "not supported for ndarray
/// backend"). `backend` names the input's backend when it is one of them.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the mode and backend.
///
/// ```
/// use burn::tensor::ops::InterpolateMode;
/// use burn_guard::check::module;
/// assert!(module::interpolate_mode("interpolate", &InterpolateMode::NearestExact, None).is_ok());
/// assert!(module::interpolate_mode("interpolate", &InterpolateMode::NearestExact, Some("flex")).is_err());
/// ```
pub fn interpolate_mode(
    op: &'static str,
    mode: &InterpolateMode,
    backend: Option<&'static str>,
) -> Result<()> {
    match (backend, mode) {
        (Some(backend), InterpolateMode::NearestExact) => Err(GuardError::InvalidArgument {
            op,
            rule: "the backend does not implement this interpolation mode",
            got: format!("mode={mode:?}, backend={backend}"),
        }),
        _ => Ok(()),
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
/// [`GuardError::InvalidArgument`] for a zero size; [`GuardError::ShapeMismatch`] for a
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
        return Err(GuardError::InvalidArgument {
            op,
            rule: "batch, height and width must be non-zero",
            got: format!("dims={dims:?}"),
        });
    }
    let (Some(&b), Some(&rows), Some(&cols)) =
        (transform.first(), transform.get(1), transform.get(2))
    else {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "transform must have rank 3",
            shapes: vec![transform.to_vec()],
        });
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
    if grid_x != grid_y {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "transform must have shape [batch, 2, 3]",
            shapes: vec![transform.to_vec()],
        });
    }
    let mut out = grid_x;
    out.push(2);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    #[test]
    fn glu_rules() -> TestResult {
        assert!(matches!(
            glu("glu", &[2, 4], 2),
            Err(GuardError::DimOutOfRange { .. })
        ));
        let err = glu("glu", &[2, 3], -1)
            .err()
            .ok_or("glu: expected an error")?;
        assert!(matches!(err, GuardError::InvalidArgument { .. }));
        assert!(err.to_string().contains("must be even"));
        assert_eq!(glu("glu", &[0, 2], 0)?, (0, vec![0, 2]));
        Ok(())
    }

    #[test]
    fn prelu_rules() -> TestResult {
        let cases: &[(&[usize], &[usize], Option<&str>)] = &[
            (&[4], &[1], None),
            (&[4], &[4], Some("rank-1 input takes exactly one weight")),
            (&[2, 3], &[3], None),
            (&[2, 3], &[2], Some("one weight per channel")),
            (&[2, 0], &[0], Some("must not be empty")),
        ];
        for (shape, alpha, rule) in cases {
            match (prelu("prelu", shape, alpha), rule) {
                (Ok(()), None) => {}
                (Err(err), Some(rule)) => {
                    assert!(matches!(err, GuardError::ShapeMismatch { .. }));
                    assert!(err.to_string().contains(rule), "{err}");
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
        assert_eq!(linear("linear", &[3], &[3, 2], None)?, vec![2]);
        let err = linear("linear", &[2, 3], &[4, 2], None)
            .err()
            .ok_or("linear: expected an error")?;
        assert!(matches!(err, GuardError::ShapeMismatch { .. }));
        assert!(err.to_string().contains("weight rows"));
        let err = linear("linear", &[2, 3], &[3, 2], Some(&[3]))
            .err()
            .ok_or("linear: expected an error")?;
        assert!(err.to_string().contains("bias"));
        let err = linear("linear", &[0], &[0, 2], None)
            .err()
            .ok_or("linear: expected an error")?;
        assert!(matches!(err, GuardError::InvalidArgument { .. }));
        Ok(())
    }

    #[test]
    fn batch_norm_rules() -> TestResult {
        let err = batch_norm("batch_norm", &[3], &[])
            .err()
            .ok_or("batch_norm: expected an error")?;
        assert!(matches!(
            err,
            GuardError::RankMismatch {
                expected: 2,
                got: 1,
                ..
            }
        ));
        let err = batch_norm(
            "batch_norm",
            &[2, 3],
            &[("gamma", vec![3]), ("variance", vec![2])],
        )
        .err()
        .ok_or("batch_norm: expected an error")?;
        assert!(matches!(err, GuardError::ShapeMismatch { .. }));
        assert!(
            err.to_string()
                .contains("variance must have shape [channels]")
        );
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
        let err = batch_norm_train("batch_norm_train", &[2, 0, 3], &params)
            .err()
            .ok_or("batch_norm_train: expected an error")?;
        assert!(matches!(err, GuardError::InvalidArgument { .. }));
        assert!(err.to_string().contains("non-empty input"));
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
                "times groups",
            ),
            (
                vec![2, 3, 5],
                vec![4, 3, 2],
                Some(vec![3]),
                ok.clone(),
                "bias",
            ),
            (vec![2, 3, 5], vec![4, 3, 6], None, ok.clone(), "must fit"),
            (
                vec![2, 3, 5],
                vec![4, 3, 0],
                None,
                ok.clone(),
                "kernel sizes",
            ),
            (
                vec![2, 4, 5],
                vec![3, 2, 2],
                None,
                ConvOptions::new([1], [0], [1], 2),
                "divisible",
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
                "non-zero",
            ),
        ];
        for (x, w, b, options, rule) in cases {
            let err = conv("conv1d", &x, &w, b.as_deref(), &options, false)
                .err()
                .ok_or("conv: expected an error")?;
            assert!(err.to_string().contains(rule), "{err} vs {rule}");
        }
        let asym = ConvOptions::new_with_padding([1, 1, 1], [(1, 0), (0, 0), (0, 0)], [1, 1, 1], 1);
        let err = conv(
            "conv3d",
            &[1, 1, 3, 3, 3],
            &[1, 1, 1, 1, 1],
            None,
            &asym,
            true,
        )
        .err()
        .ok_or("conv: expected an error")?;
        assert!(matches!(err, GuardError::InvalidArgument { .. }));
        assert!(err.to_string().contains("asymmetric"));
        Ok(())
    }

    #[test]
    fn conv_transpose_rules() -> TestResult {
        let ok = ConvTransposeOptions::new([2], [0], [1], [1], 1);
        assert_eq!(
            conv_transpose("ct", &[1, 2, 3], &[2, 3, 2], Some(&[3]), &ok)?,
            vec![1, 3, 7]
        );
        let err = conv_transpose("ct", &[1, 3, 3], &[2, 3, 2], None, &ok)
            .err()
            .ok_or("conv_transpose: expected an error")?;
        assert!(matches!(err, GuardError::ShapeMismatch { .. }));
        assert!(err.to_string().contains("input channels"));
        let err = conv_transpose("ct", &[1, 2, 0], &[2, 3, 2], None, &ok)
            .err()
            .ok_or("conv_transpose: expected an error")?;
        assert!(err.to_string().contains("must not be negative"));
        let zero = ConvTransposeOptions::new([1], [1], [0], [1], 1);
        assert_eq!(
            conv_transpose("ct", &[1, 2, 1], &[2, 3, 2], None, &zero)?,
            vec![1, 3, 0]
        );
        let big_pad = ConvTransposeOptions::new([1], [3], [0], [1], 1);
        let err = conv_transpose("ct", &[1, 2, 1], &[2, 3, 2], None, &big_pad)
            .err()
            .ok_or("conv_transpose: expected an error")?;
        assert!(matches!(err, GuardError::InvalidArgument { .. }));
        Ok(())
    }

    #[test]
    fn interpolate_rules() -> TestResult {
        use burn::tensor::ops::InterpolateMode;
        let base = InterpolateOptions::new(InterpolateMode::Nearest);
        let mut both = base.clone().with_output_size([2, 2]);
        both.scale_factor = Some([1.0, 1.0]);
        let err = interpolate("interpolate", &[1, 1, 2, 2], &both)
            .err()
            .ok_or("interpolate: expected an error")?;
        assert!(err.to_string().contains("only one of"));
        let err = interpolate("interpolate", &[1, 1, 2, 2], &base)
            .err()
            .ok_or("interpolate: expected an error")?;
        assert!(err.to_string().contains("output_size or scale_factor"));
        let huge = base.clone().with_scale_factor([f32::MAX, 1.0]);
        let err = interpolate("interpolate", &[1, 1, 2, 2], &huge)
            .err()
            .ok_or("interpolate: expected an error")?;
        assert!(err.to_string().contains("fit in usize"));
        let empty = base.with_output_size([0, 2]);
        assert_eq!(interpolate("interpolate", &[1, 1, 2, 2], &empty)?, [0, 2]);
        let err = interpolate("interpolate", &[1, 1, 0, 2], &empty)
            .err()
            .ok_or("interpolate: expected an error")?;
        assert!(matches!(err, GuardError::InvalidArgument { .. }));
        assert!(
            err.to_string()
                .contains("input spatial sizes must be non-zero")
        );
        let negative = empty.with_scale_factor([-1.0, 1.0]);
        let err = interpolate("interpolate", &[1, 1, 2, 2], &negative)
            .err()
            .ok_or("interpolate: expected an error")?;
        assert!(err.to_string().contains("finite and positive"));
        Ok(())
    }

    #[test]
    fn affine_grid_rules() -> TestResult {
        assert_eq!(
            affine_grid_2d("a", &[1, 2, 3], [3, 1, 2, 2])?,
            vec![3, 2, 2, 2]
        );
        let err = affine_grid_2d("a", &[1, 2, 3], [3, 1, 0, 2])
            .err()
            .ok_or("affine_grid_2d: expected an error")?;
        assert!(err.to_string().contains("non-zero"));
        let err = affine_grid_2d("a", &[1, 1, 3], [1, 1, 2, 2])
            .err()
            .ok_or("affine_grid_2d: expected an error")?;
        assert!(matches!(err, GuardError::ShapeMismatch { .. }));
        Ok(())
    }

    #[test]
    fn cross_entropy_rules() -> TestResult {
        let err = cross_entropy_with_logits("c", &[2, 3], &[2, 4])
            .err()
            .ok_or("cross_entropy_with_logits: expected an error")?;
        assert!(err.to_string().contains("broadcast"));
        Ok(())
    }
}
