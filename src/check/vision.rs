//! Rules of burn-vision 0.22.1: the `assert!`s of its configs (`filter.rs`), what its CPU
//! kernels index out of bounds or underflow on (`backends/cpu/morphology`, `nms.rs`), and what
//! the burn tensor ops its composite functions call panic on (the padding of `filter2d` and
//! `median`, the channel narrows of the colour conversions), as pure functions of shapes,
//! options and dtypes.

use burn::tensor::DType;
use burn::tensor::ops::PadMode;
use burn_vision::utils::{BatchDisplayOpts, ColorDisplayOpts, ImageDimOrder, TensorDisplayOptions};
use burn_vision::{BorderType, MorphOptions, Point, Size};

use super::rule::Rule;
use crate::error::{GuardError as Error, Limit, Result};

/// A float input that is not quantized (burn-vision's `unimplemented!("Quantized float is not
/// supported")`, and the casts of its composite functions).
///
/// # Errors
///
/// [`GuardError::InvalidDType`](Error::InvalidDType).
pub fn not_quantized(op: &'static str, dtype: DType) -> Result<()> {
    if matches!(dtype, DType::QFloat(_)) {
        return Err(Error::InvalidDType {
            op,
            rule: "burn-vision does not take a quantized tensor; dequantize it first",
            dtype,
        });
    }
    Ok(())
}

/// A structuring element (kernel) with rows and columns, and an anchor inside it: the CPU
/// morphology computes `width - anchor.x - 1`, which underflows past the kernel.
///
/// # Errors
///
/// [`GuardError::Empty`](Error::Empty), [`GuardError::OutOfRange`](Error::OutOfRange).
///
/// ```
/// use burn_guard::check::vision;
/// use burn_guard::vision::Point;
/// assert!(vision::kernel_anchor("erode", &[3, 3], Some(Point::new(2, 2))).is_ok());
/// assert!(vision::kernel_anchor("erode", &[3, 3], Some(Point::new(3, 0))).is_err());
/// assert!(vision::kernel_anchor("erode", &[0, 3], None).is_err());
/// ```
pub fn kernel_anchor(op: &'static str, kernel: &[usize], anchor: Option<Point>) -> Result<()> {
    let (rows, cols) = match kernel {
        [rows, cols] => (*rows, *cols),
        _ => (0, 0),
    };
    if rows == 0 || cols == 0 {
        return Err(Rule(
            op,
            "the kernel (structuring element) must have at least one row and one column",
        )
        .empty(kernel, Some(if rows == 0 { 0 } else { 1 })));
    }
    anchor_within(op, Size::new(cols, rows), anchor)
}

/// An anchor inside a kernel of `size` (`x < width`, `y < height`), when one is given.
///
/// # Errors
///
/// [`GuardError::OutOfRange`](Error::OutOfRange).
pub fn anchor_within(op: &'static str, size: Size, anchor: Option<Point>) -> Result<()> {
    let Some(anchor) = anchor else {
        return Ok(());
    };
    let outside = |name: &'static str, value: usize, bound: usize| {
        Rule(op, "the anchor must lie inside the kernel").out_of_range(
            name,
            value,
            Limit::Below(bound.into()),
        )
    };
    if anchor.x >= size.width {
        return Err(outside("anchor.x", anchor.x, size.width));
    }
    if anchor.y >= size.height {
        return Err(outside("anchor.y", anchor.y, size.height));
    }
    Ok(())
}

/// The options of an erosion or a dilation of an `[height, width, channels]` image: the
/// kernel and anchor ([`kernel_anchor`]), and, for a constant border with values, exactly one
/// value per channel (the CPU morphology copies the values into each channel-sized chunk).
///
/// # Errors
///
/// [`GuardError::Empty`](Error::Empty), [`GuardError::OutOfRange`](Error::OutOfRange),
/// [`GuardError::ShapeMismatch`](Error::ShapeMismatch).
///
/// ```
/// use burn_guard::check::vision;
/// use burn_guard::vision::{BorderType, MorphOptions};
/// let opts = MorphOptions { border_value: Some(vec![0.0.into()]), ..MorphOptions::default() };
/// assert!(vision::morph("erode", &[4, 4, 1], &[3, 3], &opts).is_ok());
/// assert!(vision::morph("erode", &[4, 4, 3], &[3, 3], &opts).is_err());
/// ```
pub fn morph(
    op: &'static str,
    image: &[usize],
    kernel: &[usize],
    opts: &MorphOptions,
) -> Result<()> {
    kernel_anchor(op, kernel, opts.anchor)?;
    let channels = image.get(2).copied().unwrap_or(0);
    if let (BorderType::Constant, Some(values)) = (opts.border_type, &opts.border_value)
        && values.len() != channels
    {
        return Err(Error::ShapeMismatch {
            op,
            rule: "a constant border needs exactly one border value per channel (the image's \
                   last dimension)",
            shapes: vec![vec![values.len()], vec![channels]],
        });
    }
    Ok(())
}

/// The boxes and scores of `nms`, when there is a box: boxes `[n, 4]` (`x1, y1, x2, y2`) and
/// one score per box. burn-vision's CPU code reads four values per box whatever the columns
/// and takes the box count from the scores: fewer columns or more scores index past the
/// boxes (a panic); more columns or fewer scores give wrong boxes or drop some without a
/// word (refused too). With no box, burn returns no index before reading anything.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`](Error::ShapeMismatch).
///
/// ```
/// use burn_guard::check::vision;
/// assert!(vision::nms("nms", &[3, 4], &[3]).is_ok());
/// assert!(vision::nms("nms", &[3, 2], &[3]).is_err());
/// assert!(vision::nms("nms", &[3, 4], &[4]).is_err());
/// assert!(vision::nms("nms", &[0, 0], &[5]).is_ok());
/// ```
pub fn nms(op: &'static str, boxes: &[usize], scores: &[usize]) -> Result<()> {
    let n = boxes.first().copied().unwrap_or(0);
    if n == 0 {
        return Ok(());
    }
    if boxes.get(1) != Some(&4) {
        return Err(Error::ShapeMismatch {
            op,
            rule: "the boxes must be [n, 4]: x1, y1, x2, y2",
            shapes: vec![boxes.to_vec(), vec![n, 4]],
        });
    }
    if scores != [n] {
        return Err(
            Rule(op, "the scores must be [n], one per box").shape_mismatch(&[boxes, scores])
        );
    }
    Ok(())
}

/// A blur config's `kernel_size`: odd and at least 3 (`BoxBlurConfig::init`,
/// `MedianBlurConfig::init`).
///
/// # Errors
///
/// [`GuardError::OutOfRange`](Error::OutOfRange).
///
/// ```
/// use burn_guard::check::vision;
/// assert!(vision::blur_kernel_size("box_blur_init", 5).is_ok());
/// assert!(vision::blur_kernel_size("box_blur_init", 4).is_err());
/// ```
pub fn blur_kernel_size(op: &'static str, kernel_size: usize) -> Result<()> {
    if kernel_size >= 3 && kernel_size % 2 == 1 {
        return Ok(());
    }
    Err(
        Rule(op, "kernel_size must be odd and at least 3").out_of_range(
            "kernel_size",
            kernel_size,
            Limit::AtLeast(3usize.into()),
        ),
    )
}

/// The padding a "same"-size filter applies to an `[batch, channels, height, width]` image
/// (`filter2d`: `k / 2` before and `k - 1 - k / 2` after each spatial dim; `median` and the
/// median blur: `size / 2` on both sides, edge mode; the box blur: reflect), under
/// burn-backend's `validate_padding`: reflect padding must be shorter than every dimension it
/// pads, which asks every dimension, even an unpadded one, to be non-empty; edge padding needs a
/// non-empty dimension where it pads; constant padding takes anything.
///
/// # Errors
///
/// [`GuardError::Empty`](Error::Empty), [`GuardError::OutOfRange`](Error::OutOfRange).
///
/// ```
/// use burn::tensor::ops::PadMode;
/// use burn_guard::check::vision;
/// assert!(vision::same_padding("filter2d", &[1, 1, 4, 4], [(1, 1), (1, 1)], PadMode::Reflect).is_ok());
/// assert!(vision::same_padding("filter2d", &[1, 1, 1, 4], [(1, 1), (1, 1)], PadMode::Reflect).is_err());
/// assert!(vision::same_padding("filter2d", &[0, 1, 4, 4], [(1, 1), (1, 1)], PadMode::Reflect).is_err());
/// assert!(vision::same_padding("median", &[0, 1, 4, 4], [(1, 1), (1, 1)], PadMode::Edge).is_ok());
/// ```
pub fn same_padding(
    op: &'static str,
    image: &[usize],
    padding: [(usize, usize); 2],
    mode: PadMode,
) -> Result<()> {
    let reflect = matches!(mode, PadMode::Reflect);
    let edge = matches!(mode, PadMode::Edge);
    let pads = [(0, 0), (0, 0), padding[0], padding[1]];
    for (dim, (&size, (before, after))) in image.iter().zip(pads).enumerate() {
        let padded = before > 0 || after > 0;
        if size == 0 && (reflect || (edge && padded)) {
            return Err(Rule(
                op,
                "the padding needs a non-empty dimension (reflect padding: every dimension)",
            )
            .empty(image, Some(dim)));
        }
        if reflect && before.max(after) >= size {
            return Err(Error::OutOfRange {
                op,
                rule: "reflect padding must be shorter than the dimension it pads: the image is \
                       too small for the kernel",
                name: if dim == 2 { "height" } else { "width" },
                value: size.into(),
                limit: Limit::Above(before.max(after).into()),
            });
        }
    }
    Ok(())
}

/// `median`'s window: at least one pixel (burn stacks one shifted copy per pixel of it, and a
/// stack of none panics).
///
/// # Errors
///
/// [`GuardError::OutOfRange`](Error::OutOfRange).
pub fn median_size(op: &'static str, size: usize) -> Result<()> {
    if size >= 1 {
        return Ok(());
    }
    Err(Rule(op, "the window size must be at least 1").out_of_range(
        "size",
        size,
        Limit::AtLeast(1usize.into()),
    ))
}

/// The padding `filter2d` applies for a kernel of `[rows, cols]`: (top, bottom), (left, right).
pub(crate) fn filter2d_padding(kernel: &[usize]) -> [(usize, usize); 2] {
    let half = |k: usize| (k / 2, k.saturating_sub(1) - k / 2);
    match kernel {
        [rows, cols] => [half(*rows), half(*cols)],
        _ => [(0, 0), (0, 0)],
    }
}

/// The channels a colour conversion reads: at least 3 (R, G, B or H, S, V; `narrow` of the
/// channel dim).
///
/// # Errors
///
/// [`GuardError::OutOfRange`](Error::OutOfRange).
///
/// ```
/// use burn_guard::check::vision;
/// assert!(vision::colour_channels("rgb2gray", &[1, 3, 4, 4]).is_ok());
/// assert!(vision::colour_channels("rgb2gray", &[1, 1, 4, 4]).is_err());
/// ```
pub fn colour_channels(op: &'static str, image: &[usize]) -> Result<()> {
    let channels = image.get(1).copied().unwrap_or(0);
    Rule(op, "the image needs 3 channels (dim 1) to convert").at_least("channels", channels, 3)
}

/// A tensor `save_tensor_as_image` can write: the rank its dimension order names (`Hw` 2;
/// `Chw`, `Hwc`, `Nhw` 3; `Nchw`, `Nhwc` 4), values (it normalises by the minimum and maximum),
/// F32 (it reads the values as `f32` and unwraps), at most 3 channels in RGB, and an output of
/// `width_out × height_out` (times the batch when tiled) that fits `u32`. Returns the batch
/// (1 for the orders without one).
///
/// # Errors
///
/// [`GuardError::RankMismatch`](Error::RankMismatch), [`GuardError::Empty`](Error::Empty),
/// [`GuardError::InvalidDType`](Error::InvalidDType), [`GuardError::OutOfRange`](Error::OutOfRange).
pub fn image_save(
    op: &'static str,
    dims: &[usize],
    dtype: DType,
    opts: &TensorDisplayOptions,
) -> Result<usize> {
    let (channels, batch) = match (&opts.dim_order, dims) {
        (ImageDimOrder::Hw, [_, _]) => (1, 1),
        (ImageDimOrder::Chw, [c, _, _]) | (ImageDimOrder::Hwc, [_, _, c]) => (*c, 1),
        (ImageDimOrder::Nhw, [n, _, _]) => (1, *n),
        (ImageDimOrder::Nchw, [n, c, _, _]) | (ImageDimOrder::Nhwc, [n, _, _, c]) => (*c, *n),
        (order, _) => {
            let expected = match order {
                ImageDimOrder::Hw => 2,
                ImageDimOrder::Chw | ImageDimOrder::Hwc | ImageDimOrder::Nhw => 3,
                ImageDimOrder::Nchw | ImageDimOrder::Nhwc => 4,
            };
            return Err(Rule(
                op,
                "the tensor's rank must be the one its dimension order names",
            )
            .rank_mismatch(expected, dims.len(), dims));
        }
    };
    if dims.contains(&0) {
        return Err(Rule(
            op,
            "the tensor must hold values (burn normalises by its minimum and maximum)",
        )
        .empty(dims, dims.iter().position(|&d| d == 0)));
    }
    if dtype != DType::F32 {
        return Err(Error::InvalidDType {
            op,
            rule: "the tensor must be F32 (burn reads its values as f32 and unwraps); cast it first",
            dtype,
        });
    }
    if matches!(opts.color_opts, ColorDisplayOpts::Rgb) && channels > 3 {
        return Err(Rule(
            op,
            "RGB output takes at most 3 channels (use Monochrome, or select channels)",
        )
        .out_of_range("channels", channels, Limit::AtMost(3usize.into())));
    }
    let tiled = opts.batch_opts == Some(BatchDisplayOpts::Tiled);
    let height = if tiled {
        opts.height_out.checked_mul(batch)
    } else {
        Some(opts.height_out)
    };
    for (name, size) in [("width_out", Some(opts.width_out)), ("height_out", height)] {
        if size.is_none_or(|size| u32::try_from(size).is_err()) {
            return Err(Rule(
                op,
                "the output image's sides (the height times the batch when tiled) must fit u32",
            )
            .out_of_range(
                name,
                size.unwrap_or(usize::MAX),
                Limit::AtMost(u64::from(u32::MAX).into()),
            ));
        }
    }
    Ok(batch)
}
