//! The burn-vision twins, with the backstop off (a rule that let a bad input through would panic
//! through these tests instead of coming back as `BackendPanic`): each twin against burn's
//! function on the same inputs (burn panics ⇔ the twin refuses; equal values otherwise) on
//! Flex, where burn-vision runs here; on NdArray and wgpu, where burn panics for want of it,
//! refused under the strict policy and equal to Flex's answer under a fallback policy.
//!
//! burn-vision's CPU morphology is `unsafe` code: a bad anchor or border can corrupt memory
//! rather than panic. So a morphology case the twin refuses is run raw in a child process
//! (`vision_raw_child`), which reports burn's verdict case by case; a child that dies mid-way
//! counts its case as failing and a new child takes the rest.
//! Its own test binary, because the backstop switch is process-wide.

#![allow(deprecated)] // NdArray is deprecated upstream; still supported.

mod common;

#[path = "common/differential.rs"]
mod differential;

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};

use burn::tensor::ops::PadMode;
use burn::tensor::{Bool, Device, Distribution, Tensor, TensorData};
use burn_guard::capability::Support;
use burn_guard::policy::{Op, Policy};
use burn_guard::prelude::*;
use burn_guard::vision::*;
use burn_vision::{ColorConversion, Morphology, Nms};
use differential::differential;

fn no_backstop() {
    burn_guard::panic::set_backstop_disabled(true);
}

/// A morphology case, drawn from its index by a fixed generator.
#[derive(Debug, Clone)]
struct MorphCase {
    kind: u8,
    dilate: bool,
    image: [usize; 3],
    kernel: [usize; 2],
    cross: bool,
    anchor: Option<Point>,
    border: BorderType,
    values: Option<usize>,
    iterations: usize,
}

const MORPH_CASES: u64 = 1200;

fn morph_case(index: u64) -> MorphCase {
    let mut state = index.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5DEE_CE66;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) % n) as usize
    };
    let sizes = [0usize, 1, 2, 3, 5];
    let image = [sizes[next(5)], sizes[next(5)], [0usize, 1, 3][next(3)]];
    let kernel = [[0usize, 1, 2, 3][next(4)], [0usize, 1, 2, 3][next(4)]];
    let anchor = match next(5) {
        0 | 1 => None,
        2 => Some(Point::new(0, 0)),
        3 => Some(Point::new(
            kernel[1].saturating_sub(1),
            kernel[0].saturating_sub(1),
        )),
        _ => Some(Point::new(kernel[1] + next(2), next(4))),
    };
    let border = [
        BorderType::Constant,
        BorderType::Replicate,
        BorderType::Reflect,
        BorderType::Reflect101,
        BorderType::Wrap,
    ][next(5)];
    let values = [None, Some(0), Some(1), Some(3), Some(4)][next(5)];
    MorphCase {
        kind: next(3) as u8,
        dilate: next(2) == 1,
        image,
        kernel,
        cross: next(2) == 1,
        anchor,
        border,
        values,
        iterations: next(3),
    }
}

fn morph_inputs(case: &MorphCase, device: &Device) -> (Tensor<2, Bool>, MorphOptions) {
    let [kh, kw] = case.kernel;
    let kernel: Vec<bool> = (0..kh * kw)
        .map(|i| !case.cross || i / kw.max(1) == kh / 2 || i % kw.max(1) == kw / 2)
        .collect();
    let kernel = Tensor::<2, Bool>::from_data(TensorData::new(kernel, [kh, kw]), device);
    let opts = MorphOptions {
        anchor: case.anchor,
        iterations: case.iterations,
        border_type: case.border,
        border_value: case
            .values
            .map(|n| (0..n).map(|i| (i as f64 * 0.5).into()).collect()),
    };
    (kernel, opts)
}

/// The raw call of a morphology case, its output as data.
fn raw_morph(case: &MorphCase, device: &Device) -> TensorData {
    let (kernel, opts) = morph_inputs(case, device);
    let images = Tensor::<3>::random(case.image, Distribution::Uniform(0.0, 4.0), device);
    macro_rules! run {
        ($image:expr) => {
            if case.dilate {
                $image.dilate(kernel, opts).into_data()
            } else {
                $image.erode(kernel, opts).into_data()
            }
        };
    }
    match case.kind {
        0 => run!(images),
        1 => run!(images.int()),
        _ => run!(images.greater_elem(2.0)),
    }
}

/// The twin's call of a morphology case on the same image (seeded by the caller).
fn twin_morph(
    case: &MorphCase,
    device: &Device,
    policy: &Policy,
) -> Result<TensorData, GuardError> {
    let (kernel, opts) = morph_inputs(case, device);
    let images = Tensor::<3>::random(case.image, Distribution::Uniform(0.0, 4.0), device);
    macro_rules! run {
        ($image:expr) => {
            if case.dilate {
                $image
                    .try_dilate_with(kernel, opts, policy)
                    .map(|t| t.into_data())
            } else {
                $image
                    .try_erode_with(kernel, opts, policy)
                    .map(|t| t.into_data())
            }
        };
    }
    match case.kind {
        0 => run!(images),
        1 => run!(images.int()),
        _ => run!(images.greater_elem(2.0)),
    }
}

const CHILD: &str = "BURN_GUARD_VISION_RAW_CASES";

/// The child: each morphology case named in the environment, raw, under `catch_unwind`,
/// its verdict printed (and flushed) before the next.
#[test]
#[ignore = "run by the_morphology_twins_refuse_exactly_where_burn_fails in a child process"]
fn vision_raw_child() {
    let Ok(cases) = std::env::var(CHILD) else {
        return;
    };
    std::panic::set_hook(Box::new(|_| {}));
    let device = Device::flex();
    for index in cases.split(',').filter_map(|c| c.parse::<u64>().ok()) {
        let case = morph_case(index);
        let failed = catch_unwind(AssertUnwindSafe(|| raw_morph(&case, &device))).is_err();
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "VERDICT {index} {}",
            if failed { "fails" } else { "answers" }
        );
        let _ = out.flush();
    }
}

/// burn's verdict on each case: true where it panicked or its process died.
fn raw_verdicts(mut cases: Vec<u64>) -> Vec<(u64, bool)> {
    let mut verdicts = Vec::new();
    while !cases.is_empty() {
        let list = cases
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["vision_raw_child", "--exact", "--ignored", "--nocapture"])
            .env(CHILD, list)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let mut seen = 0;
        for line in stdout.lines().filter_map(|l| l.strip_prefix("VERDICT ")) {
            let mut parts = line.split(' ');
            let index: u64 = parts.next().unwrap().parse().unwrap();
            verdicts.push((index, parts.next() == Some("fails")));
            seen += 1;
        }
        if seen < cases.len() {
            // The child died on the case after the last verdict: that case fails hard.
            verdicts.push((cases[seen], true));
            seen += 1;
        }
        cases.drain(..seen);
    }
    verdicts
}

/// Erosion and dilation of float, int and bool images on Flex: the twin answers burn's values
/// where it accepts (both seeded alike), and burn fails (panics, or its process dies) on every
/// case the twin refuses. Kernels empty, rectangular and cross-shaped; anchors inside and
/// outside; every border type; too few, enough and extra border values; 0 to 2 iterations.
#[test]
fn the_morphology_twins_refuse_exactly_where_burn_fails() {
    no_backstop();
    let device = Device::flex();
    let strict = Policy::strict();
    let mut refused = Vec::new();
    let (mut answered, mut empty) = (0, 0);
    for index in 0..MORPH_CASES {
        let case = morph_case(index);
        device.seed(index);
        let result = twin_morph(&case, &device, &strict);
        if case.image.contains(&0) {
            // The twin's own answer (burn divides by the empty dimension, or loops): the
            // image as it came, where the options are valid.
            if let Ok(ours) = result {
                assert_eq!(ours.shape().to_vec(), case.image.to_vec(), "{case:?}");
                empty += 1;
            }
            continue;
        }
        match result {
            Ok(ours) => {
                device.seed(index);
                let raw = catch_unwind(AssertUnwindSafe(|| raw_morph(&case, &device)))
                    .unwrap_or_else(|_| panic!("burn panicked, the twin answered: {case:?}"));
                assert_eq!(raw, ours, "{case:?}");
                answered += 1;
            }
            Err(err) => {
                assert_ne!(err.kind(), ErrorKind::BackendPanic, "{err}");
                refused.push(index);
            }
        }
    }
    let refused_count = refused.len();
    for (index, failed) in raw_verdicts(refused) {
        assert!(
            failed,
            "burn answered, the twin refused: {:?}",
            morph_case(index)
        );
    }
    eprintln!("{answered} answered, {refused_count} refused, {empty} empty images returned");
    assert!(
        answered > 150 && refused_count > 150 && empty > 100,
        "{answered} answered, {refused_count} refused, {empty} empty"
    );
}

fn data<const D: usize, K: burn::tensor::kind::Basic>(t: Tensor<D, K>) -> TensorData {
    t.into_data()
}

/// The other twins on Flex, burn's function under `catch_unwind` (safe Rust below them): NMS
/// over box columns and score counts; connected components over empty and small images;
/// filter2d over every image dim in {0, 1, 3}, kernels of 0 to 3 rows and columns and each
/// border; median over image dims and window sizes; the colour conversions over channel
/// counts; structuring elements over shapes, sizes and anchors; the blur configs and blurs.
#[test]
fn the_other_vision_twins_equal_burn_on_flex_or_refuse_where_it_panics() {
    no_backstop();
    let d = &Device::flex();
    let (mut answered, mut refused) = (0, 0);
    let mut count = |ok: bool| if ok { answered += 1 } else { refused += 1 };
    let (mut silent, mut refused_nms) = (0, 0);
    for n in [0usize, 1, 3] {
        for cols in [0usize, 2, 4, 5] {
            for scores in [n.saturating_sub(1), n, n + 1] {
                let boxes = Tensor::<2>::random([n, cols], Distribution::Uniform(0.0, 4.0), d);
                let boxes = if cols == 4 {
                    let [x, y] = [
                        boxes.clone().slice([0..n, 0..2]),
                        boxes.clone().slice([0..n, 2..4]),
                    ];
                    Tensor::cat(vec![x.clone(), x + y], 1)
                } else {
                    boxes
                };
                let s = Tensor::<1>::random([scores], Distribution::Default, d);
                let case = format!("nms [{n}, {cols}] scores {scores}");
                if n > 0 && (cols != 4 || scores != n) {
                    // burn panics (an index past the boxes) or answers wrong (boxes read at
                    // the wrong stride, or dropped): refused either way.
                    let raw = catch_unwind(AssertUnwindSafe(|| {
                        boxes.clone().nms(s.clone(), NmsOptions::default())
                    }));
                    let err = boxes
                        .clone()
                        .try_nms(s.clone(), NmsOptions::default())
                        .unwrap_err();
                    assert_eq!(err.kind(), ErrorKind::ShapeMismatch, "{case}");
                    silent += usize::from(raw.is_ok());
                    refused_nms += 1;
                    continue;
                }
                count(differential(
                    &case,
                    || boxes.clone().nms(s.clone(), NmsOptions::default()),
                    || boxes.clone().try_nms(s.clone(), NmsOptions::default()),
                    data,
                ));
            }
        }
    }
    // Both kinds occur: burn's panics, and its silent answers (more columns, fewer scores).
    assert!(
        silent > 3 && refused_nms > silent,
        "{silent} silent of {refused_nms}"
    );
    for h in [0usize, 1, 3] {
        for w in [0usize, 1, 4] {
            let image = Tensor::<2>::random([h, w], Distribution::Default, d).greater_elem(0.5);
            for connectivity in [Connectivity::Four, Connectivity::Eight] {
                if h * w == 0 {
                    // burn reads out of bounds (a segfault with 8-connectivity): not run. The
                    // twin answers the empty labels.
                    let labels = image
                        .clone()
                        .try_connected_components(connectivity)
                        .unwrap();
                    assert_eq!(labels.dims(), [h, w]);
                    continue;
                }
                count(differential(
                    &format!("connected_components [{h}, {w}] {connectivity:?}"),
                    || {
                        burn_vision::ConnectedComponents::connected_components(
                            image.clone(),
                            connectivity,
                        )
                    },
                    || image.clone().try_connected_components(connectivity),
                    data,
                ));
            }
        }
    }
    let sizes = [0usize, 1, 3];
    for &b in &sizes {
        for &c in &sizes {
            for &h in &sizes {
                for &w in &sizes {
                    let images = Tensor::<4>::random([b, c, h, w], Distribution::Default, d);
                    for kh in 0..4usize {
                        for kw in 0..4usize {
                            let kernel = Tensor::<2>::ones([kh, kw], d);
                            for border in [PadMode::Constant(0.0), PadMode::Reflect, PadMode::Edge]
                            {
                                if b * c * h * w == 0 && kh * kw > 0 {
                                    // The twin's exact answer, the image as it came; where
                                    // burn answers too, the same.
                                    let ours = try_filter2d(images.clone(), kernel.clone(), border)
                                        .unwrap();
                                    let raw = catch_unwind(AssertUnwindSafe(|| {
                                        burn_vision::filter2d(
                                            images.clone(),
                                            kernel.clone(),
                                            border,
                                        )
                                    }));
                                    if let Ok(raw) = raw {
                                        assert_eq!(raw.into_data(), ours.into_data());
                                    }
                                    continue;
                                }
                                count(differential(
                                    &format!(
                                        "filter2d [{b}, {c}, {h}, {w}] kernel [{kh}, {kw}] {border:?}"
                                    ),
                                    || {
                                        burn_vision::filter2d(
                                            images.clone(),
                                            kernel.clone(),
                                            border,
                                        )
                                    },
                                    || try_filter2d(images.clone(), kernel.clone(), border),
                                    data,
                                ));
                            }
                        }
                    }
                    for size in 0..4usize {
                        if b * c * h * w == 0 && size > 0 {
                            // The twin's exact answer, the image as it came; burn panics on
                            // most of these.
                            let ours = try_median(images.clone(), size).unwrap();
                            assert_eq!(ours.dims(), [b, c, h, w]);
                            continue;
                        }
                        count(differential(
                            &format!("median [{b}, {c}, {h}, {w}] size {size}"),
                            || burn_vision::median(images.clone(), size),
                            || try_median(images.clone(), size),
                            data,
                        ));
                    }
                }
            }
        }
    }
    for c in 0..5usize {
        for other in [0usize, 2] {
            let images = Tensor::<4>::random([other.max(1), c, other, 2], Distribution::Default, d);
            let case = |name: &str| format!("{name} channels {c} other {other}");
            count(differential(
                &case("rgb2gray"),
                || images.clone().rgb2gray(),
                || images.clone().try_rgb2gray(),
                data,
            ));
            count(differential(
                &case("gray2rgb"),
                || images.clone().gray2rgb(),
                || images.clone().try_gray2rgb(),
                data,
            ));
            count(differential(
                &case("rgb2hsv"),
                || images.clone().rgb2hsv(),
                || images.clone().try_rgb2hsv(),
                data,
            ));
            count(differential(
                &case("hsv2rgb"),
                || images.clone().hsv2rgb(),
                || images.clone().try_hsv2rgb(),
                data,
            ));
        }
    }
    for shape in [KernelShape::Rect, KernelShape::Cross, KernelShape::Ellipse] {
        for (kw, kh) in [(0usize, 0usize), (1, 1), (3, 3), (3, 1), (2, 4)] {
            for anchor in [
                None,
                Some(Point::new(0, 0)),
                Some(Point::new(2, 2)),
                Some(Point::new(3, 0)),
                Some(Point::new(0, 4)),
            ] {
                let outside = anchor.is_some_and(|a| a.x >= kw || a.y >= kh);
                if shape == KernelShape::Cross && (kw, kh) != (1, 1) && outside {
                    // burn writes past the element: a panic, or a wrong element. Refused.
                    let err = try_create_structuring_element(shape, Size::new(kw, kh), anchor, d)
                        .unwrap_err();
                    assert_eq!(err.kind(), ErrorKind::OutOfRange);
                    continue;
                }
                count(differential(
                    &format!("structuring element {shape:?} {kw}x{kh} {anchor:?}"),
                    || burn_vision::create_structuring_element(shape, Size::new(kw, kh), anchor, d),
                    || try_create_structuring_element(shape, Size::new(kw, kh), anchor, d),
                    data,
                ));
            }
        }
    }
    for kernel_size in 0..7usize {
        let config = BoxBlurConfig::new().with_kernel_size(kernel_size);
        let raw = catch_unwind(AssertUnwindSafe(|| config.init(d)));
        let ours = config.try_init(d);
        assert_eq!(raw.is_ok(), ours.is_ok(), "box blur {kernel_size}");
        if let (Ok(raw), Ok(ours)) = (raw, ours) {
            for side in [1usize, 2, 3, 5] {
                let images = Tensor::<4>::random([1, 2, side, side + 1], Distribution::Default, d);
                count(differential(
                    &format!("box blur {kernel_size} side {side}"),
                    || raw.apply(images.clone()),
                    || ours.try_apply(images.clone()),
                    data,
                ));
            }
        }
        let config = MedianBlurConfig::new().with_kernel_size(kernel_size);
        let raw = catch_unwind(AssertUnwindSafe(|| config.init()));
        let ours = config.try_init();
        assert_eq!(raw.is_ok(), ours.is_ok(), "median blur {kernel_size}");
        if let (Ok(raw), Ok(ours)) = (raw, ours) {
            for side in [0usize, 1, 3] {
                let images = Tensor::<4>::random([1, 1, side, 3], Distribution::Default, d);
                count(differential(
                    &format!("median blur {kernel_size} side {side}"),
                    || raw.apply(images.clone()),
                    || ours.try_apply(images.clone()),
                    data,
                ));
            }
        }
    }
    eprintln!("{answered} answered, {refused} refused");
    assert!(
        answered > 300 && refused > 300,
        "{answered} answered, {refused} refused"
    );
}

fn devices() -> Vec<Device> {
    let mut devices = vec![Device::flex(), Device::ndarray(), Device::flex().autodiff()];
    devices.extend(common::wgpu_device());
    devices
}

/// Where burn-vision has no implementation here (NdArray, autodiff, wgpu), burn panics; the
/// strict twins refuse with `Unsupported`, and under a fallback policy erosion, NMS and
/// connected components run on Flex with their inputs moved there and their outputs moved back,
/// equal to Flex's own answers and counted.
#[test]
fn vision_refuses_or_falls_back_where_burn_has_none() {
    no_backstop();
    let flex = Device::flex();
    let image = Tensor::<3>::random([5, 4, 2], Distribution::Default, &flex);
    let kernel = Tensor::<2, Bool>::ones([3, 3], &flex);
    let boxes = Tensor::<2>::from_floats([[0.0, 0.0, 2.0, 2.0], [0.1, 0.1, 2.0, 2.0]], &flex);
    let scores = Tensor::<1>::from_floats([0.9, 0.8], &flex);
    let mask = |t: Tensor<3>| {
        t.greater_elem(0.5)
            .slice([0..5, 0..4, 0..1])
            .reshape([5, 4])
    };
    for device in devices() {
        let native = vision_support(&device) == Support::Native;
        // Made on the device from the data (burn's `to_device` into autodiff keeps a plain
        // primitive behind an autodiff device).
        let on3 = |t: &Tensor<3>| Tensor::<3>::from_data(t.to_data(), &device);
        // burn's `to_device` of a bool tensor from Flex panics on wgpu: made on the device.
        let kernel_here = || Tensor::<2, Bool>::ones([3, 3], &device);
        let raw = catch_unwind(AssertUnwindSafe(|| {
            on3(&image).erode(kernel_here(), MorphOptions::default())
        }));
        assert_eq!(raw.is_ok(), native, "vision_support is stale on {device:?}");
        if native {
            continue;
        }
        let err = on3(&image)
            .try_erode(kernel_here(), MorphOptions::default())
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unsupported, "{err}");
        let policy = Policy::fallback_to([flex.clone()]);
        let eroded = on3(&image)
            .try_erode_with(kernel_here(), MorphOptions::default(), &policy)
            .unwrap();
        assert_eq!(eroded.device(), device);
        let expected = image.clone().erode(kernel.clone(), MorphOptions::default());
        assert_eq!(eroded.into_data(), expected.into_data());
        let kept = Tensor::<2>::from_data(boxes.to_data(), &device)
            .try_nms_with(
                Tensor::from_data(scores.to_data(), &device),
                NmsOptions::default(),
                &policy,
            )
            .unwrap();
        assert_eq!(
            kept.into_data().convert::<i64>().to_vec::<i64>().unwrap(),
            [0]
        );
        let labels = mask(on3(&image))
            .try_connected_components_with(Connectivity::Eight, &policy)
            .unwrap();
        let expected = burn_vision::ConnectedComponents::connected_components(
            mask(image.clone()),
            Connectivity::Eight,
        );
        assert_eq!(
            labels.into_data().convert::<i64>(),
            expected.into_data().convert::<i64>()
        );
        // A bool image there and back: the result in the device's own bool storage.
        let dilated = mask(on3(&image))
            .unsqueeze_dim::<3>(2)
            .try_dilate_with(kernel_here(), MorphOptions::default(), &policy)
            .unwrap();
        let expected = mask(image.clone())
            .unsqueeze_dim::<3>(2)
            .dilate(kernel.clone(), MorphOptions::default());
        assert_eq!(
            dilated.into_data().convert::<u8>(),
            expected.into_data().convert::<u8>()
        );
        let stats = policy.stats_of(Op::Vision);
        assert_eq!((stats.fallbacks, stats.errors), (4, 0), "{stats:?}");
    }
}

#[path = "common/example.rs"]
mod example;

/// `capabilities --json` lists burn-vision per backend: native on Flex, a fallback on NdArray
/// and wgpu (when there is an adapter), as `vision_support` answers.
#[test]
fn the_capability_report_lists_vision_per_backend() {
    let vision = example::report_support("vision");
    assert_eq!(vision("flex").as_deref(), Some("native"));
    assert_eq!(vision("ndarray").as_deref(), Some("fallback"));
    if common::wgpu_device().is_some() {
        assert_eq!(vision("wgpu").as_deref(), Some("fallback"));
    }
}

/// `save_tensor_as_image` over dimension orders and ranks, channel counts, F32 and F64, empty
/// tensors, RGB and monochrome, tiled batches: burn panics ⇔ the twin refuses by a check; where
/// burn writes a file the twin writes the same bytes; a path burn cannot write is a `Store`
/// error. (Safe Rust below: burn runs in-process.)
#[test]
fn save_tensor_as_image_refuses_where_burn_panics_and_writes_the_same_file() {
    use burn::tensor::DType;
    use burn_vision::utils::save_tensor_as_image;

    no_backstop();
    let d = &Device::flex();
    let dir = std::env::temp_dir().join(format!("burn_guard_save_{}", std::process::id()));
    let options = |order: u8, rgb: bool, tiled: bool| TensorDisplayOptions {
        dim_order: match order {
            0 => ImageDimOrder::Hw,
            1 => ImageDimOrder::Chw,
            2 => ImageDimOrder::Hwc,
            3 => ImageDimOrder::Nhw,
            4 => ImageDimOrder::Nchw,
            _ => ImageDimOrder::Nhwc,
        },
        color_opts: if rgb {
            ColorDisplayOpts::Rgb
        } else {
            ColorDisplayOpts::Monochrome {
                min: [0.0; 3],
                max: [1.0; 3],
            }
        },
        batch_opts: tiled.then_some(BatchDisplayOpts::Tiled),
        width_out: 6,
        height_out: 5,
    };
    let (mut written, mut refused) = (0, 0);
    let mut case = 0;
    for order in 0..6u8 {
        for channels in [0usize, 1, 3, 4] {
            for f64 in [false, true] {
                for (rgb, tiled) in [(true, false), (false, true)] {
                    case += 1;
                    let t3 = Tensor::<3>::random([2, channels, 3], Distribution::Default, d);
                    let t3 = if f64 { t3.cast(DType::F64) } else { t3 };
                    let raw_path = dir.join(format!("raw_{case}.png"));
                    let our_path = dir.join(format!("ours_{case}.png"));
                    let raw = catch_unwind(AssertUnwindSafe(|| {
                        save_tensor_as_image(t3.clone(), options(order, rgb, tiled), &raw_path)
                    }));
                    let ours =
                        try_save_tensor_as_image(t3.clone(), options(order, rgb, tiled), &our_path);
                    match (raw, ours) {
                        (Err(_), Err(err)) => {
                            assert_ne!(err.kind(), ErrorKind::Store, "{case}: {err}");
                            refused += 1;
                        }
                        (Ok(Ok(())), Ok(())) => {
                            assert_eq!(
                                std::fs::read(&raw_path).unwrap(),
                                std::fs::read(&our_path).unwrap()
                            );
                            written += 1;
                        }
                        (Ok(Err(_)), Err(err)) => assert_eq!(err.kind(), ErrorKind::Store),
                        (raw, ours) => panic!(
                            "case {case} order {order} channels {channels} f64 {f64} rgb {rgb}: burn {} the twin {:?}",
                            match raw {
                                Err(_) => "panicked".to_owned(),
                                Ok(r) => format!("{r:?}"),
                            },
                            ours
                        ),
                    }
                }
            }
        }
    }
    let blocked = dir.join("a_file");
    std::fs::write(&blocked, b"").unwrap();
    let t = Tensor::<2>::random([3, 3], Distribution::Default, d);
    let err =
        try_save_tensor_as_image(t, options(0, true, false), blocked.join("x.png")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Store, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{written} written, {refused} refused");
    assert!(
        written > 5 && refused > 20,
        "{written} written, {refused} refused"
    );
}

/// `Transform2D::transform` over every image dim in {0, 1, 3} and four transforms: burn panics
/// ⇔ the twin refuses; equal values otherwise; an empty batch comes back as it is (equal to
/// burn's answer where burn has one).
#[test]
fn transform_equals_burn_or_refuses_where_it_panics() {
    no_backstop();
    let d = &Device::flex();
    let transforms = || {
        [
            Transform2D::identity(),
            Transform2D::rotation(0.4, 1.0, 1.0),
            Transform2D::scale(1.5, 0.5, 0.0, 0.0),
            Transform2D::translation(0.3, -0.2),
        ]
    };
    let (mut answered, mut empty) = (0, 0);
    let sizes = [0usize, 1, 3];
    for &b in &sizes {
        for &c in &sizes {
            for &h in &sizes {
                for &w in &sizes {
                    let images = Tensor::<4>::random([b, c, h, w], Distribution::Default, d);
                    for (raw_t, our_t) in transforms().into_iter().zip(transforms()) {
                        let ours = our_t.try_transform(images.clone());
                        let raw =
                            catch_unwind(AssertUnwindSafe(|| raw_t.transform(images.clone())));
                        if b * c * h * w == 0 {
                            let ours = ours.unwrap();
                            assert_eq!(ours.dims(), [b, c, h, w]);
                            if let Ok(raw) = raw {
                                assert_eq!(raw.into_data(), ours.into_data());
                            }
                            empty += 1;
                            continue;
                        }
                        let raw =
                            raw.unwrap_or_else(|_| panic!("burn panicked on [{b}, {c}, {h}, {w}]"));
                        assert_eq!(raw.into_data(), ours.unwrap().into_data());
                        answered += 1;
                    }
                }
            }
        }
    }
    assert!(
        answered > 20 && empty > 100,
        "{answered} answered, {empty} empty"
    );
}
