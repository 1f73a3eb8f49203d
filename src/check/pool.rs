//! Rules of the pooling, unfold and fold functions of `burn::tensor::module` (twinned in
//! `tensor/pool.rs`) and of the `burn::nn` pooling, unfold, fold and pixel shuffle layers
//! (`nn/layers/pool.rs`), whose padding may be `PaddingConfig*::Same`.
//!
//! burn's front end checks none of these sizes: the backends compute the output size with
//! unsigned arithmetic (`calculate_pool_output_size`, `calculate_conv_output_size` in
//! burn-backend) and panic when it underflows, or index past the input. Each rule here says
//! which of its conditions burn leaves to the backend.

use super::rule::Rule;
use crate::error::{GuardError, Limit, Result};

/// Every value non-zero; `name` is the option (`kernel_size`, `stride`, `dilation`). burn's
/// option constructors panic on 0 (`check_nonzero`), and the pub fields bypass them.
///
/// # Errors
///
/// [`GuardError::OutOfRange`] naming the option.
///
/// ```
/// use burn_guard::check::pool::nonzero;
/// assert!(nonzero("max_pool2d", "stride", &[1, 2]).is_ok());
/// assert!(nonzero("max_pool2d", "stride", &[1, 0]).is_err());
/// ```
pub fn nonzero(op: &'static str, name: &'static str, values: &[usize]) -> Result<()> {
    Rule(op, "kernel sizes, strides and dilations must be non-zero").nonzero_sizes(name, values)
}

/// The `(begin, end)` padding that `burn::nn`'s `PaddingConfig*::Same` computes for one
/// spatial dim (burn-nn's private `calculate_same_padding`, mirrored): the padding that gives
/// `ceil(size / stride)` outputs. `None` for a stride of 0, where burn's division panics.
///
/// ```
/// use burn_guard::check::pool::same_padding;
/// assert_eq!(same_padding(3, 1, 5), Some((1, 1)));
/// assert_eq!(same_padding(4, 1, 5), Some((1, 2)));
/// assert_eq!(same_padding(3, 0, 5), None);
/// ```
pub fn same_padding(kernel: usize, stride: usize, size: usize) -> Option<(usize, usize)> {
    if stride == 0 {
        return None;
    }
    let size_out = size.div_ceil(stride);
    let total = if size_out > 0 {
        (size_out - 1)
            .checked_mul(stride)?
            .checked_add(kernel)?
            .saturating_sub(size)
    } else {
        0
    };
    let begin = total / 2;
    Some((begin, total - begin))
}

/// What [`pool`] checks, per spatial dim, as the backends receive it.
#[derive(Debug, Clone, Copy)]
pub struct PoolDim {
    /// Input size along the dim.
    pub size: usize,
    /// Kernel size.
    pub kernel: usize,
    /// Stride.
    pub stride: usize,
    /// `(begin, end)` padding.
    pub padding: (usize, usize),
    /// Dilation (1 for average pooling).
    pub dilation: usize,
}

/// `max_pool{1,2}d`, `avg_pool{1,2}d` (and their `_with_indices` forms): an input of rank
/// `N + 2` (`[batch, channels, spatial...]`), non-zero kernel sizes, strides and dilations,
/// and — beyond burn, which leaves both to the backend — non-empty spatial dims and a dilated
/// kernel that fits in the padded input (in ceil mode, up to `stride - 1` past it, as
/// burn-backend's `calculate_pool_output_size` allows). NdArray panics on both (burn 0.22.1);
/// Flex returns an empty output, or a window of nothing. An empty batch or channel dim is
/// fine. Returns the spatial output sizes the backend computes
/// (before burn drops a ceil-mode window that starts in asymmetric end padding).
///
/// # Errors
///
/// [`GuardError::RankMismatch`] for a wrong rank; [`GuardError::OutOfRange`] for a zero
/// option; [`GuardError::Empty`] for an empty spatial dim; [`GuardError::InvalidArgument`]
/// for a kernel larger than the padded input.
///
/// ```
/// use burn_guard::check::pool::{pool, PoolDim};
/// let dim = PoolDim { size: 5, kernel: 2, stride: 2, padding: (0, 0), dilation: 1 };
/// assert_eq!(pool("max_pool1d", &[1, 2, 5], &[dim], false)?, vec![2]);
/// assert_eq!(pool("max_pool1d", &[1, 2, 5], &[dim], true)?, vec![3]);
/// let big = PoolDim { kernel: 6, stride: 6, ..dim };
/// assert!(pool("max_pool1d", &[1, 2, 5], &[big], false).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn pool(
    op: &'static str,
    x: &[usize],
    dims: &[PoolDim],
    ceil_mode: bool,
) -> Result<Vec<usize>> {
    spatial_rank(op, x, dims.len())?;
    for dim in dims {
        nonzero(op, "kernel_size", &[dim.kernel])?;
        nonzero(op, "stride", &[dim.stride])?;
        nonzero(op, "dilation", &[dim.dilation])?;
    }
    if let Some(i) = dims.iter().position(|dim| dim.size == 0) {
        // Flex pools an empty dim into a window of padding or nothing (a `-inf` max, a 0
        // average) where NdArray panics; no window of an empty input has a value.
        return Err(Rule(
            op,
            "pooling needs a non-empty input along every spatial dim",
        )
        .empty(x, Some(i + 2)));
    }
    let mut out = Vec::with_capacity(dims.len());
    for (i, dim) in dims.iter().enumerate() {
        let size = pool_out(dim, ceil_mode).ok_or_else(|| {
            Rule(op, "the dilated kernel must fit in the padded input").invalid(format!(
                "input={x:?}, spatial dim {i}: {dim:?}, ceil_mode={ceil_mode}"
            ))
        })?;
        out.push(size);
    }
    Ok(out)
}

/// burn-backend's `calculate_pool_output_size` on the padded size, `None` where it underflows.
fn pool_out(dim: &PoolDim, ceil_mode: bool) -> Option<usize> {
    let padded = dim
        .size
        .checked_add(dim.padding.0)?
        .checked_add(dim.padding.1)?;
    let extent = dim
        .dilation
        .checked_mul(dim.kernel.checked_sub(1)?)?
        .checked_add(1)?;
    if ceil_mode {
        let room = padded.checked_add(dim.stride - 1)?.checked_sub(extent)?;
        Some(room / dim.stride + 1)
    } else {
        Some(padded.checked_sub(extent)? / dim.stride + 1)
    }
}

fn spatial_rank(op: &'static str, x: &[usize], n: usize) -> Result<()> {
    Rule(op, "the input must be [batch, channels, spatial...]").rank(x, n + 2)
}

/// burn-backend's `calculate_pool_output_size` for symmetric padding `padding`, ceil-mode
/// window drop included; `None` where its arithmetic underflows (the caller ran [`pool`]
/// first, which refuses those).
fn backend_pool_out(dim: &PoolDim, ceil_mode: bool) -> Option<usize> {
    let out = pool_out(dim, ceil_mode)?;
    if ceil_mode && (out - 1).checked_mul(dim.stride)? >= dim.size.checked_add(dim.padding.0)? {
        Some(out - 1)
    } else {
        Some(out)
    }
}

/// `avg_pool2d_backward` and `max_pool2d_with_indices_backward`: the [`pool`] rules on `x`
/// with symmetric `padding`, and — beyond burn, which leaves it to the backend — a gradient
/// (and indices) of the shape the forward pass gives, `[batch, channels, out_h, out_w]`.
/// Returns that shape.
///
/// # Errors
///
/// As [`pool`]; [`GuardError::ShapeMismatch`] for a gradient of another shape.
///
/// ```
/// use burn_guard::check::pool::{pool_backward, PoolDim};
/// let dim = PoolDim { size: 4, kernel: 2, stride: 2, padding: (0, 0), dilation: 1 };
/// assert_eq!(pool_backward("avg_pool2d_backward", &[1, 1, 4, 4], &[dim, dim], false, &[1, 1, 2, 2])?, vec![1, 1, 2, 2]);
/// assert!(pool_backward("avg_pool2d_backward", &[1, 1, 4, 4], &[dim, dim], false, &[1, 1, 3, 2]).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn pool_backward(
    op: &'static str,
    x: &[usize],
    dims: &[PoolDim],
    ceil_mode: bool,
    grad: &[usize],
) -> Result<Vec<usize>> {
    pool(op, x, dims, ceil_mode)?;
    let mut expected: Vec<usize> = x.iter().take(2).copied().collect();
    for dim in dims {
        expected.push(backend_pool_out(dim, ceil_mode).unwrap_or(0));
    }
    Rule(op, "the gradient must have the shape of the pooling output")
        .shapes_agree(grad == expected.as_slice(), &[grad, &expected])?;
    Ok(expected)
}

/// `adaptive_avg_pool{1,2,3}d`: an input of rank `N + 2` and — beyond burn, which leaves it
/// to the backend — non-empty spatial dims (both CPU backends return averages of empty
/// windows). An output size of 0 is allowed: the backends return an empty tensor.
///
/// # Errors
///
/// [`GuardError::RankMismatch`] for a wrong rank; [`GuardError::Empty`] for an input with an
/// empty spatial dim.
///
/// ```
/// use burn_guard::check::pool::adaptive_pool;
/// assert!(adaptive_pool("adaptive_avg_pool2d", &[1, 2, 5, 5], &[2, 3]).is_ok());
/// assert!(adaptive_pool("adaptive_avg_pool2d", &[1, 2, 5, 5], &[0, 3]).is_ok());
/// assert!(adaptive_pool("adaptive_avg_pool2d", &[1, 2, 0, 5], &[2, 3]).is_err());
/// ```
pub fn adaptive_pool(op: &'static str, x: &[usize], output_size: &[usize]) -> Result<()> {
    spatial_rank(op, x, output_size.len())?;
    if let Some(i) = x.iter().skip(2).position(|&s| s == 0) {
        return Err(
            Rule(op, "adaptive pooling needs a non-empty input window").empty(x, Some(i + 2))
        );
    }
    Ok(())
}

/// What [`unfold`] proved: the number of sliding blocks along each spatial dim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blocks {
    /// Blocks along the height.
    pub height: usize,
    /// Blocks along the width.
    pub width: usize,
}

/// `unfold4d(x, kernel_size, options)` on an input `[batch, channels, height, width]`:
/// non-zero kernel sizes, strides and dilations and — beyond burn, which leaves it to the
/// backend's output-size arithmetic — a dilated kernel that fits in the padded input.
/// Returns the blocks along each dim.
///
/// # Errors
///
/// [`GuardError::RankMismatch`], [`GuardError::OutOfRange`] for a zero option,
/// [`GuardError::InvalidArgument`] for a kernel larger than the padded input.
///
/// ```
/// use burn_guard::check::pool::{unfold, Blocks};
/// let blocks = unfold("unfold4d", &[1, 2, 4, 5], [2, 2], [1, 1], [0, 0], [1, 1])?;
/// assert_eq!(blocks, Blocks { height: 3, width: 4 });
/// assert!(unfold("unfold4d", &[1, 2, 4, 5], [5, 2], [1, 1], [0, 0], [1, 1]).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn unfold(
    op: &'static str,
    x: &[usize],
    kernel: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
) -> Result<Blocks> {
    spatial_rank(op, x, 2)?;
    let spatial = [
        x.get(2).copied().unwrap_or(0),
        x.get(3).copied().unwrap_or(0),
    ];
    let [height, width] = blocks(op, "input", spatial, kernel, stride, padding, dilation)?;
    Ok(Blocks { height, width })
}

fn blocks(
    op: &'static str,
    what: &str,
    spatial: [usize; 2],
    kernel: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
) -> Result<[usize; 2]> {
    nonzero(op, "kernel_size", &kernel)?;
    nonzero(op, "stride", &stride)?;
    nonzero(op, "dilation", &dilation)?;
    let mut out = [0; 2];
    for (i, slot) in out.iter_mut().enumerate() {
        let dim = PoolDim {
            size: spatial.get(i).copied().unwrap_or(0),
            kernel: kernel.get(i).copied().unwrap_or(1),
            stride: stride.get(i).copied().unwrap_or(1),
            padding: padding.get(i).map(|&p| (p, p)).unwrap_or((0, 0)),
            dilation: dilation.get(i).copied().unwrap_or(1),
        };
        *slot = pool_out(&dim, false).ok_or_else(|| {
            Rule(op, "the dilated kernel must fit in the padded input")
                .invalid(format!("{what}={spatial:?}, spatial dim {i}: {dim:?}"))
        })?;
    }
    Ok(out)
}

/// `fold4d(x, output_size, kernel_size, options)` on columns
/// `[batch, channels · kh · kw, blocks]`: the [`unfold`] rules on `output_size`, a column
/// count divisible by `kh · kw` and — beyond burn, which leaves both to the backend — a
/// block count equal to the blocks an unfold of `output_size` gives. Returns the output shape
/// `[batch, channels, out_h, out_w]`.
///
/// # Errors
///
/// As [`unfold`]; [`GuardError::ShapeMismatch`] for columns or blocks that do not match.
///
/// ```
/// use burn_guard::check::pool::fold;
/// let out = fold("fold4d", &[1, 8, 12], [4, 5], [2, 2], [1, 1], [0, 0], [1, 1])?;
/// assert_eq!(out, vec![1, 2, 4, 5]);
/// assert!(fold("fold4d", &[1, 8, 11], [4, 5], [2, 2], [1, 1], [0, 0], [1, 1]).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn fold(
    op: &'static str,
    x: &[usize],
    output_size: [usize; 2],
    kernel: [usize; 2],
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
) -> Result<Vec<usize>> {
    let [batch, columns, count] = Rule(
        op,
        "the input must be [batch, channels * kernel_h * kernel_w, blocks]",
    )
    .dims(x)?;
    let [bh, bw] = blocks(
        op,
        "output_size",
        output_size,
        kernel,
        stride,
        padding,
        dilation,
    )?;
    let taps = kernel[0].saturating_mul(kernel[1]);
    if columns % taps != 0 {
        return Err(Rule(
            op,
            "the input's dim 1 must be a multiple of kernel_h * kernel_w",
        )
        .shape_mismatch(&[x, &kernel]));
    }
    Rule(
        op,
        "the input's dim 2 must be the number of blocks an unfold of output_size gives",
    )
    .shapes_agree(bh.checked_mul(bw) == Some(count), &[x, &[bh, bw]])?;
    let mut out = vec![batch, columns / taps];
    out.extend(output_size);
    Ok(out)
}

/// `PixelShuffle::forward` (`upscale`) and `PixelUnshuffle::forward` (`!upscale`) on an input
/// `[batch, channels, height, width]`: a non-zero factor (burn asserts), and channels
/// divisible by `factor²` (shuffle) or height and width divisible by `factor` (unshuffle),
/// as burn asserts; and the empty shapes burn's reshapes can express (burn panics on the
/// others, e.g. an input with no channels and no height).
///
/// # Errors
///
/// [`GuardError::OutOfRange`] for a factor of 0; [`GuardError::ShapeMismatch`] for sizes the
/// factor does not divide; [`GuardError::Empty`] for an empty input burn's reshape rejects.
///
/// ```
/// use burn_guard::check::pool::pixel_shuffle;
/// assert!(pixel_shuffle("pixel_shuffle", &[1, 8, 2, 2], 2, true).is_ok());
/// assert!(pixel_shuffle("pixel_shuffle", &[1, 6, 2, 2], 2, true).is_err());
/// assert!(pixel_shuffle("pixel_unshuffle", &[1, 1, 4, 3], 2, false).is_err());
/// ```
pub fn pixel_shuffle(op: &'static str, x: &[usize], factor: usize, upscale: bool) -> Result<()> {
    let [batch, channels, height, width] =
        Rule(op, "the input must be [batch, channels, height, width]").dims(x)?;
    if factor == 0 {
        return Err(Rule(op, "the scale factor must be non-zero").out_of_range(
            "factor",
            0usize,
            Limit::AtLeast(1usize.into()),
        ));
    }
    let divides = if upscale {
        factor
            .checked_mul(factor)
            .is_some_and(|square| channels % square == 0)
    } else {
        height % factor == 0 && width % factor == 0
    };
    if !divides {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: if upscale {
                "input channels must be divisible by the square of the upscale factor"
            } else {
                "input height and width must be divisible by the downscale factor"
            },
            shapes: vec![x.to_vec(), vec![factor]],
        });
    }
    // burn's two reshapes read a 0 in the target shape as "the source's size at this
    // index" (cubecl-zspace `Shape::reshape`), which panics or mismatches on some empty
    // inputs; the same resolution, run here, refuses those.
    let (first, permuted, last) = if upscale {
        let out_channels = channels / factor.saturating_mul(factor);
        (
            vec![batch, out_channels, factor, factor, height, width],
            [0, 1, 4, 2, 5, 3],
            vec![
                batch,
                out_channels,
                height.saturating_mul(factor),
                width.saturating_mul(factor),
            ],
        )
    } else {
        let (out_h, out_w) = (height / factor, width / factor);
        (
            vec![batch, channels, out_h, factor, out_w, factor],
            [0, 1, 3, 5, 2, 4],
            vec![
                batch,
                channels.saturating_mul(factor).saturating_mul(factor),
                out_h,
                out_w,
            ],
        )
    };
    let empty = |shape: &[usize]| {
        Rule(op, "burn's reshape cannot express this empty shape").empty(shape, None)
    };
    let first = reshape_zeros(x, &first).ok_or_else(|| empty(x))?;
    let permuted: Vec<usize> = permuted
        .iter()
        .map(|&i| first.get(i).copied().unwrap_or(0))
        .collect();
    reshape_zeros(&permuted, &last).ok_or_else(|| empty(x))?;
    Ok(())
}

/// The shape burn's reshape gives `target` from `source` (a 0 in `target` takes the size of
/// `source` at the same index), `None` where it panics (no such index, or another element
/// count).
fn reshape_zeros(source: &[usize], target: &[usize]) -> Option<Vec<usize>> {
    let resolved = target
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            if t == 0 {
                source.get(i).copied()
            } else {
                Some(t)
            }
        })
        .collect::<Option<Vec<usize>>>()?;
    let count = |shape: &[usize]| shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    (count(&resolved)? == count(source)?).then_some(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_padding_matches_burn_nn() {
        // Values from burn-nn's own padding tests.
        assert_eq!(same_padding(3, 1, 5), Some((1, 1)));
        assert_eq!(same_padding(2, 1, 5), Some((0, 1)));
        assert_eq!(same_padding(3, 2, 5), Some((1, 1)));
        assert_eq!(same_padding(1, 1, 0), Some((0, 0)));
    }

    #[test]
    fn ceil_mode_allows_a_partial_window() {
        let dim = PoolDim {
            size: 3,
            kernel: 4,
            stride: 2,
            padding: (0, 0),
            dilation: 1,
        };
        assert!(pool("max_pool1d", &[1, 1, 3], &[dim], false).is_err());
        assert_eq!(
            pool("max_pool1d", &[1, 1, 3], &[dim], true).ok(),
            Some(vec![1])
        );
    }
    fn dim(size: usize, kernel: usize, stride: usize, padding: (usize, usize)) -> PoolDim {
        PoolDim {
            size,
            kernel,
            stride,
            padding,
            dilation: 1,
        }
    }

    /// Each rule's refusals, pinned by variant and payload.
    #[test]
    fn refusals_are_typed() -> std::result::Result<(), String> {
        use crate::check::test_support::{ranks, refused};
        let err = refused(
            "rank",
            pool("max_pool2d", &[1, 2, 5], &[dim(5, 2, 1, (0, 0)); 2], false),
        )?;
        assert_eq!(ranks(&err), Some((4, 3)));
        let err = refused(
            "stride",
            pool("max_pool1d", &[1, 2, 5], &[dim(5, 2, 0, (0, 0))], false),
        )?;
        assert!(matches!(err, GuardError::OutOfRange { name: "stride", .. }));
        let err = refused(
            "empty",
            pool("avg_pool1d", &[1, 2, 0], &[dim(0, 1, 1, (1, 1))], false),
        )?;
        assert!(matches!(err, GuardError::Empty { dim: Some(2), .. }));
        let err = refused(
            "fit",
            pool("avg_pool1d", &[1, 2, 3], &[dim(3, 5, 1, (1, 0))], false),
        )?;
        assert!(matches!(err, GuardError::InvalidArgument { rule, .. } if rule.contains("fit")));
        // Padding counts on both sides: 3 + 1 + 1 = 5 fits a kernel of 5.
        assert_eq!(
            pool("avg_pool1d", &[1, 2, 3], &[dim(3, 5, 1, (1, 1))], false).ok(),
            Some(vec![1])
        );
        let err = refused(
            "adaptive",
            adaptive_pool("adaptive_avg_pool1d", &[1, 2, 0], &[3]),
        )?;
        assert!(matches!(err, GuardError::Empty { dim: Some(2), .. }));
        let err = refused(
            "fold",
            fold("fold4d", &[1, 8, 5], [3, 3], [2, 2], [1, 1], [0, 0], [1, 1]),
        )?;
        assert!(
            matches!(&err, GuardError::ShapeMismatch { shapes, .. } if shapes == &[vec![1, 8, 5], vec![2, 2]])
        );
        let err = refused(
            "shuffle",
            pixel_shuffle("pixel_shuffle", &[1, 0, 0, 0], 1, true),
        )?;
        assert!(matches!(err, GuardError::Empty { .. }));
        // An empty batch reshapes fine.
        assert!(pixel_shuffle("pixel_shuffle", &[0, 4, 2, 2], 2, true).is_ok());
        let err = refused(
            "backward",
            pool_backward(
                "avg_pool2d_backward",
                &[1, 1, 4, 4],
                &[dim(4, 2, 2, (0, 0)); 2],
                false,
                &[1, 1, 2, 3],
            ),
        )?;
        assert!(
            matches!(&err, GuardError::ShapeMismatch { shapes, .. } if shapes == &[vec![1, 1, 2, 3], vec![1, 1, 2, 2]])
        );
        // Ceil mode: burn-backend drops a last window that starts in the end padding.
        let ceil = [dim(4, 2, 2, (1, 1)), dim(4, 2, 2, (0, 0))];
        assert_eq!(
            pool_backward(
                "avg_pool2d_backward",
                &[1, 1, 4, 4],
                &ceil,
                true,
                &[1, 1, 3, 2]
            )
            .ok(),
            Some(vec![1, 1, 3, 2])
        );
        Ok(())
    }
}
