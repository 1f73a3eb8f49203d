//! Rules of the convolutions: `burn::tensor::module`'s conv, conv-transpose and deformable
//! conv functions (twinned in `tensor/conv.rs`) and the `burn::nn` conv layers and their
//! configs (`nn/layers/conv.rs`).
//!
//! Pure functions over shapes and options; each names the burn check it mirrors. Where burn
//! leaves a condition to the backend (bias lengths, strides of 0, a kernel larger than the
//! padded input, …) the check says so: those refusals go beyond burn, and are documented on
//! the twins.

use burn::tensor::ops::{ConvOptions, ConvTransposeOptions, DeformConvOptions};

use super::rule::Rule;
use crate::error::{GuardError, Limit, Result};

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
/// use burn_guard::check::conv;
/// let options = ConvOptions::new([1, 1], [0, 0], [1, 1], 1);
/// let out = conv::conv("conv2d", &[1, 3, 5, 5], &[8, 3, 3, 3], None, &options, false);
/// assert_eq!(out.unwrap(), vec![1, 8, 3, 3]);
/// assert!(conv::conv("conv2d", &[1, 4, 5, 5], &[8, 3, 3, 3], None, &options, false).is_err());
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
/// use burn_guard::check::conv;
/// let options = ConvTransposeOptions::new([1], [0], [0], [1], 1);
/// let out = conv::conv_transpose("conv_transpose1d", &[1, 2, 5], &[2, 3, 3], None, &options);
/// assert_eq!(out.unwrap(), vec![1, 3, 7]);
/// assert!(conv::conv_transpose("conv_transpose1d", &[1, 3, 5], &[2, 3, 3], None, &options).is_err());
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

/// A convolution config's channels and groups (`checks_channels_div_groups` in burn-nn's
/// conv `init`s): a non-zero group count that divides both channel counts. burn panics on a
/// group count of 0 too (a division by zero when the channels are 0).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for 0 groups; [`GuardError::InvalidArgument`] for channels the
/// groups do not divide.
///
/// ```
/// use burn_guard::check::conv::conv_groups;
/// assert!(conv_groups("conv2d_init", 4, 6, 2).is_ok());
/// assert!(conv_groups("conv2d_init", 4, 6, 4).is_err());
/// assert!(conv_groups("conv2d_init", 4, 6, 0).is_err());
/// ```
pub fn conv_groups(
    op: &'static str,
    channels_in: usize,
    channels_out: usize,
    groups: usize,
) -> Result<()> {
    if groups == 0 {
        return Err(Rule(op, "the group count must be non-zero").out_of_range(
            "groups",
            0usize,
            Limit::AtLeast(1usize.into()),
        ));
    }
    if !channels_in.is_multiple_of(groups) || !channels_out.is_multiple_of(groups) {
        return Err(Rule(
            op,
            "both channel counts must be divisible by the number of groups",
        )
        .invalid(format!(
            "channels_in={channels_in}, channels_out={channels_out}, groups={groups}"
        )));
    }
    Ok(())
}

/// `Same` padding in a config whose layer only pads symmetrically (`Conv3dConfig`,
/// `DeformConv2dConfig`): odd kernel sizes (`check_same_padding_support` in burn-nn, which
/// panics with `unimplemented!`).
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the kernel.
///
/// ```
/// use burn_guard::check::conv::same_padding_kernel;
/// assert!(same_padding_kernel("conv3d_init", &[3, 3, 5]).is_ok());
/// assert!(same_padding_kernel("conv3d_init", &[3, 2, 5]).is_err());
/// ```
pub fn same_padding_kernel(op: &'static str, kernel: &[usize]) -> Result<()> {
    if kernel.iter().any(|k| k % 2 == 0) {
        return Err(Rule(op, "same padding needs odd kernel sizes here")
            .invalid(format!("kernel_size={kernel:?}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::TestResult;
    use crate::check::test_support::{refused, rule_of};

    #[test]
    fn conv_rules() -> TestResult {
        let ok = ConvOptions::new([1], [0], [1], 1);
        let conv1d = |x: &[usize], w: &[usize], b: Option<&[usize]>, options: &ConvOptions<1>| {
            conv("conv1d", x, w, b, options, false)
        };
        assert_eq!(
            conv1d(&[2, 3, 5], &[4, 3, 2], Some(&[4]), &ok)?,
            vec![2, 4, 4]
        );
        let two_groups = ConvOptions::new([1], [0], [1], 2);
        let no_stride = ConvOptions {
            stride: [0],
            ..ok.clone()
        };
        // Each refusal and the start of its rule.
        let refusals = [
            (
                conv1d(&[2, 3, 5], &[4, 2, 2], None, &ok),
                "input channels must equal",
            ),
            (
                conv1d(&[2, 3, 5], &[4, 3, 2], Some(&[3]), &ok),
                "bias must have one",
            ),
            (
                conv1d(&[2, 3, 5], &[4, 3, 6], None, &ok),
                "the dilated kernel must",
            ),
            (
                conv1d(&[2, 3, 5], &[4, 3, 0], None, &ok),
                "kernel sizes must be",
            ),
            (
                conv1d(&[2, 4, 5], &[3, 2, 2], None, &two_groups),
                "weight output channels",
            ),
            (
                conv1d(&[2, 3, 5], &[4, 3, 2], None, &no_stride),
                "stride, dilation and",
            ),
        ];
        for (result, rule) in refusals {
            let err = refused(rule, result)?;
            let got = rule_of(&err).unwrap_or_default();
            assert!(got.starts_with(rule), "{err:?}");
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
    fn conv_groups_rules() -> TestResult {
        let err = refused("groups", conv_groups("conv1d_init", 3, 4, 2))?;
        assert!(matches!(err, GuardError::InvalidArgument { .. }));
        Ok(())
    }
}
