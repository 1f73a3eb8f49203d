//! Differential tests of the module family: raw burn under `catch_unwind` vs our twin.
//!
//! burn panics ⇒ we return `Err` (never merely a caught panic); burn succeeds ⇒ we return the
//! same values, unless we refuse on one of the documented rules that go beyond burn (bias
//! lengths, zero strides, kernels larger than the input, …), which burn leaves to the backend.

use crate::common;

use burn::tensor::module::{self as m};
use burn::tensor::ops::{
    ConvOptions, ConvTransposeOptions, DeformConvOptions, InterpolateMode, InterpolateOptions,
};
use burn::tensor::{Device, Tensor, activation, grid, loss};
use burn_guard::GuardError;
use burn_guard::tensor::activation::{
    try_glu, try_log_softmax, try_prelu, try_quiet_softmax, try_softmax, try_softmin,
};
use burn_guard::tensor::grid::try_affine_grid_2d;
use burn_guard::tensor::loss::try_cross_entropy_with_logits;
use burn_guard::tensor::module::{
    try_batch_norm, try_batch_norm_train, try_conv_transpose1d, try_conv_transpose2d, try_conv1d,
    try_conv2d, try_conv3d, try_deform_conv2d, try_interpolate, try_linear,
};
use proptest::prelude::*;

use crate::common::{assert_parity, cpu_devices as devices, float_tensor as tensor, raw};

/// Shape and values as bits, with every NaN made canonical, so that equal NaN-bearing results
/// compare equal (affine grids of width or height 1 divide 0 by 0).
fn snapshot<const D: usize>(t: Tensor<D>) -> (Vec<usize>, Vec<u32>) {
    let (dims, values) = common::snapshot(t);
    let bits = values
        .into_iter()
        .map(|v| {
            if v.is_nan() {
                f32::NAN.to_bits()
            } else {
                v.to_bits()
            }
        })
        .collect();
    (dims, bits)
}

/// Rules on which the twins refuse beyond burn (burn leaves them to the backend, which may
/// panic, or compute something meaningless), exactly as the checks name them.
const BEYOND: &[&str] = &[
    "bias must have one entry per output channel",
    "bias must be [d_output], weight's second dimension",
    "the dilated kernel must fit in the padded input",
    "kernel sizes must be non-zero",
    "stride, dilation and groups must be non-zero",
    "batch, height and width must be non-zero",
    "weight output channels must be divisible by groups",
    "weight input channels must be divisible by groups",
    "output channels must be divisible by weight_groups and input channels by offset_groups",
    "the output size must not be negative",
    "offset must have shape [batch, 2 * offset_groups * kernel_h * kernel_w, out_h, out_w]",
    "mask must have shape [batch, offset_groups * kernel_h * kernel_w, out_h, out_w]",
    "alpha must not be empty",
    "a rank-1 input must not be empty (burn's unsqueeze panics on a zero-sized dim)",
    "scale factors must be finite and positive",
    "input spatial sizes must be non-zero",
    "batch statistics need a non-empty input",
    "the backend does not implement this interpolation mode",
];

/// The rule of the refusals that carry one.
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

fn is_beyond(err: &GuardError) -> bool {
    rule_of(err).is_some_and(|rule| BEYOND.contains(&rule))
}

/// [`assert_parity`], except that a refusal on a documented beyond-burn rule is accepted
/// whatever burn did.
fn assert_parity_or_beyond<T: PartialEq + std::fmt::Debug>(
    case: &str,
    burn: Option<T>,
    ours: Result<T, GuardError>,
) {
    match ours {
        Err(err) if is_beyond(&err) => {}
        ours => assert_parity(case, burn, ours),
    }
}

/// Where NdArray panics on an input Flex handles (an empty product or reduction), the twin
/// computes the result itself: it must then equal Flex's. Otherwise [`assert_parity`].
fn assert_parity_or_flex<T: PartialEq + std::fmt::Debug>(
    name: &str,
    case: &str,
    burn: Option<T>,
    ours: Result<T, GuardError>,
    flex: &Option<T>,
) {
    match (name, burn, ours) {
        ("ndarray", None, Ok(ours)) => {
            assert_eq!(flex.as_ref(), Some(&ours), "{case}: differs from flex")
        }
        (_, burn, ours) => assert_parity_or_beyond(case, burn, ours),
    }
}

/// A dim drawn to be valid about half the time for rank `rank` (negatives included).
fn any_dim(rank: usize) -> impl Strategy<Value = isize> {
    let r = rank as isize;
    prop_oneof![-r..r, (-r - 2)..(r + 2)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn softmax_family_parity(dims in [0usize..4, 1usize..4, 1usize..4], dim in any_dim(3), op in 0usize..4) {
        let run = |device: &Device, guarded: bool| {
            let t = || tensor(dims, device);
            if guarded {
                match op {
                    0 => try_softmax(t(), dim),
                    1 => try_softmin(t(), dim),
                    2 => try_quiet_softmax(t(), dim),
                    _ => try_log_softmax(t(), dim),
                }
                .map(snapshot)
                .map_err(Some)
            } else {
                raw(|| {
                    snapshot(match op {
                        0 => activation::softmax(t(), dim),
                        1 => activation::softmin(t(), dim),
                        2 => activation::quiet_softmax(t(), dim),
                        _ => activation::log_softmax(t(), dim),
                    })
                })
                .ok_or(None)
            }
        };
        let flex = run(&Device::flex(), false).ok();
        for (name, device) in devices() {
            let case = format!("{name} softmax#{op} {dims:?} dim={dim}");
            let burn = run(&device, false).ok();
            let ours = run(&device, true).map_err(|e| e.unwrap());
            if dims.contains(&0) && (-3..3).contains(&dim) {
                // An empty input gives an empty output; burn panics reducing an empty axis
                // (NdArray for every op, Flex for quiet_softmax's `max_dim`).
                assert_eq!(ours.ok(), Some((dims.to_vec(), vec![])), "{case}");
                continue;
            }
            assert_parity_or_flex(name, &case, burn, ours, &flex);
        }
    }

    #[test]
    fn glu_parity(dims in [0usize..5, 1usize..5], dim in any_dim(2)) {
        for (name, device) in devices() {
            let case = format!("{name} glu {dims:?} dim={dim}");
            let burn = raw(|| snapshot(activation::glu(tensor(dims, &device), dim)));
            let ours = try_glu(tensor(dims, &device), dim).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn prelu_parity(dims in [0usize..3, 0usize..4, 1usize..3], pick in 0usize..3, other in 0usize..4) {
        let weights = match pick { 0 => 1, 1 => dims[1], _ => other };
        for (name, device) in devices() {
            let case = format!("{name} prelu {dims:?} alpha=[{weights}]");
            let burn = raw(|| snapshot(activation::prelu(tensor(dims, &device), tensor([weights], &device))));
            let ours = try_prelu(tensor(dims, &device), tensor([weights], &device)).map(snapshot);
            assert_parity_or_beyond(&case, burn, ours);
            // Rank 1: only a single weight is accepted.
            let case = format!("{name} prelu [{}] alpha=[{weights}]", dims[1]);
            let burn = raw(|| snapshot(activation::prelu(tensor([dims[1]], &device), tensor([weights], &device))));
            let ours = try_prelu(tensor([dims[1]], &device), tensor([weights], &device)).map(snapshot);
            assert_parity_or_beyond(&case, burn, ours);
        }
    }

    #[test]
    fn cross_entropy_parity(lhs in [0usize..4, 1usize..4], rhs in [0usize..4, 1usize..4], pick in 0usize..3) {
        let rhs = match pick { 0 => lhs, 1 => [1, lhs[1]], _ => rhs };
        for (name, device) in devices() {
            let case = format!("{name} cross_entropy {lhs:?} {rhs:?}");
            let burn = raw(|| snapshot(loss::cross_entropy_with_logits(tensor(lhs, &device), tensor(rhs, &device))));
            let ours = try_cross_entropy_with_logits(tensor(lhs, &device), tensor(rhs, &device)).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn linear_parity(
        batch in 0usize..3,
        k in 0usize..4,
        k_weight in 0usize..4,
        n in 0usize..4,
        bias in proptest::option::of(0usize..4),
        pick in 0usize..2,
        rank in 1usize..4,
    ) {
        // Half the cases are made compatible on purpose.
        let (k_weight, bias) = if pick == 0 { (k, bias.map(|_| n)) } else { (k_weight, bias) };
        let run = |device: &Device, guarded: bool| {
            let w = || tensor([k_weight, n], device);
            let b = || bias.map(|len| tensor([len], device));
            match (rank, guarded) {
                (1, false) => raw(|| snapshot(m::linear(tensor([k], device), w(), b()))).ok_or(None),
                (1, true) => try_linear(tensor([k], device), w(), b()).map(snapshot).map_err(Some),
                (2, false) => raw(|| snapshot(m::linear(tensor([batch, k], device), w(), b()))).ok_or(None),
                (2, true) => try_linear(tensor([batch, k], device), w(), b()).map(snapshot).map_err(Some),
                (_, false) => raw(|| snapshot(m::linear(tensor([2, batch, k], device), w(), b()))).ok_or(None),
                (_, true) => try_linear(tensor([2, batch, k], device), w(), b()).map(snapshot).map_err(Some),
            }
        };
        // Flex computes empty products; NdArray divides by zero on them, and the twin computes
        // the result itself, so an empty product is compared with Flex's.
        let flex = run(&Device::flex(), false).ok();
        for (name, device) in devices() {
            let case = format!("{name} linear rank={rank} batch={batch} k={k} weight=[{k_weight}, {n}] bias={bias:?}");
            let burn = run(&device, false).ok();
            let ours = run(&device, true).map_err(|e| e.unwrap());
            assert_parity_or_flex(name, &case, burn, ours, &flex);
        }
    }

    #[test]
    fn batch_norm_parity(dims in [0usize..3, 0usize..4, 1usize..4], lens in [0usize..5, 0usize..5, 0usize..5, 0usize..5], pick in 0usize..3) {
        // pick 0: every length right; 1: one length wrong; 2: random lengths.
        let c = dims[1];
        let lens = match pick { 0 => [c; 4], 1 => [c, c, c, lens[3]], _ => lens };
        for (name, device) in devices() {
            let case = format!("{name} batch_norm {dims:?} params={lens:?}");
            let p = |i: usize| tensor([lens[i]], &device);
            let burn = raw(|| snapshot(m::batch_norm(tensor(dims, &device), p(0), p(1), p(2), p(3), 1e-5)));
            let ours = try_batch_norm(tensor(dims, &device), p(0), p(1), p(2), p(3), 1e-5).map(snapshot);
            assert_parity(&case, burn, ours);

            let case = format!("{name} batch_norm_train {dims:?} params={:?}", &lens[2..]);
            let train = |out: m::BatchNormTrainOutput<3>| (snapshot(out.output), snapshot(out.mean), snapshot(out.variance));
            let burn = raw(|| train(m::batch_norm_train(tensor(dims, &device), p(2), p(3), 1e-5)));
            let ours = try_batch_norm_train(tensor(dims, &device), p(2), p(3), 1e-5).map(train);
            assert_parity_or_beyond(&case, burn, ours);

            // Rank 1 is refused by burn.
            let case = format!("{name} batch_norm rank 1");
            let burn = raw(|| snapshot(m::batch_norm(tensor([c], &device), p(0), p(0), p(0), p(0), 1e-5)));
            let ours = try_batch_norm(tensor([c], &device), p(0), p(0), p(0), p(0), 1e-5).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }

    #[test]
    fn conv1d_parity(
        batch in 0usize..3,
        groups in 0usize..3,
        c_in_group in 0usize..3,
        c_out_group in 0usize..3,
        length in 0usize..6,
        kernel in 0usize..4,
        stride in 0usize..3,
        padding in (0usize..2, 0usize..2),
        dilation in 0usize..3,
        channels_delta in 0usize..2,
        bias in proptest::option::of(0usize..5),
    ) {
        // Half the cases have burn's channel rule right.
        let g = groups.max(1);
        let channels = c_in_group * g + if channels_delta == 0 { 0 } else { 1 };
        let c_out = c_out_group * g;
        let options = ConvOptions { stride: [stride], padding: [padding], dilation: [dilation], groups };
        let bias = bias.map(|b| if b < 2 { c_out } else { b });
        for (name, device) in devices() {
            let case = format!("{name} conv1d x=[{batch}, {channels}, {length}] w=[{c_out}, {c_in_group}, {kernel}] bias={bias:?} {options:?}");
            let x = || tensor([batch, channels, length], &device);
            let w = || tensor([c_out, c_in_group, kernel], &device);
            let b = || bias.map(|len| tensor([len], &device));
            let burn = raw(|| snapshot(m::conv1d(x(), w(), b(), options.clone())));
            let ours = try_conv1d(x(), w(), b(), options.clone()).map(snapshot);
            assert_parity_or_beyond(&case, burn, ours);
        }
    }

    #[test]
    fn conv2d_parity(
        groups in 1usize..3,
        c_in_group in 1usize..3,
        size in (1usize..5, 1usize..5),
        kernel in (1usize..4, 1usize..4),
        stride in (1usize..3, 1usize..3),
        padding in ((0usize..2, 0usize..2), (0usize..2, 0usize..2)),
        dilation in (1usize..3, 1usize..3),
        channels_delta in 0usize..2,
        with_bias in any::<bool>(),
    ) {
        let channels = c_in_group * groups + if channels_delta == 0 { 0 } else { 1 };
        let c_out = 2 * groups;
        let options = ConvOptions::new_with_padding(
            [stride.0, stride.1],
            [padding.0, padding.1],
            [dilation.0, dilation.1],
            groups,
        );
        for (name, device) in devices() {
            let case = format!("{name} conv2d x=[1, {channels}, {size:?}] w=[{c_out}, {c_in_group}, {kernel:?}] {options:?}");
            let x = || tensor([1, channels, size.0, size.1], &device);
            let w = || tensor([c_out, c_in_group, kernel.0, kernel.1], &device);
            let b = || with_bias.then(|| tensor([c_out], &device));
            let burn = raw(|| snapshot(m::conv2d(x(), w(), b(), options.clone())));
            let ours = try_conv2d(x(), w(), b(), options.clone()).map(snapshot);
            assert_parity_or_beyond(&case, burn, ours);
        }
    }

    #[test]
    fn conv3d_parity(
        channels in 1usize..3,
        c_in in 1usize..3,
        size in 1usize..4,
        kernel in 1usize..3,
        pad in (0usize..2, 0usize..2),
    ) {
        let options = ConvOptions::new_with_padding([1; 3], [pad, (0, 0), (0, 0)], [1; 3], 1);
        for (name, device) in devices() {
            let case = format!("{name} conv3d x=[1, {channels}, {size}³] w=[2, {c_in}, {kernel}³] {options:?}");
            let x = || tensor([1, channels, size, size, size], &device);
            let w = || tensor([2, c_in, kernel, kernel, kernel], &device);
            let burn = raw(|| snapshot(m::conv3d(x(), w(), None, options.clone())));
            let ours = try_conv3d(x(), w(), None, options.clone()).map(snapshot);
            assert_parity_or_beyond(&case, burn, ours);
        }
    }

    #[test]
    fn conv_transpose1d_parity(
        batch in 0usize..3,
        groups in 0usize..3,
        c_in in 0usize..5,
        c_out_group in 0usize..3,
        length in 0usize..5,
        kernel in 0usize..4,
        stride in 0usize..3,
        padding in 0usize..3,
        padding_out in 0usize..2,
        dilation in 0usize..3,
        channels_delta in 0usize..2,
        bias in proptest::option::of(0usize..6),
    ) {
        let channels = c_in + channels_delta;
        let options = ConvTransposeOptions { stride: [stride], padding: [padding], padding_out: [padding_out], dilation: [dilation], groups };
        let bias = bias.map(|b| if b < 3 { c_out_group * groups } else { b });
        for (name, device) in devices() {
            let case = format!("{name} conv_transpose1d x=[{batch}, {channels}, {length}] w=[{c_in}, {c_out_group}, {kernel}] bias={bias:?} {options:?}");
            let x = || tensor([batch, channels, length], &device);
            let w = || tensor([c_in, c_out_group, kernel], &device);
            let b = || bias.map(|len| tensor([len], &device));
            let burn = raw(|| snapshot(m::conv_transpose1d(x(), w(), b(), options.clone())));
            let ours = try_conv_transpose1d(x(), w(), b(), options.clone()).map(snapshot);
            assert_parity_or_beyond(&case, burn, ours);
        }
    }

    #[test]
    fn conv_transpose2d_parity(
        c_in in 1usize..4,
        size in (1usize..4, 1usize..4),
        kernel in (1usize..3, 1usize..3),
        stride in 1usize..3,
        padding in 0usize..2,
        channels_delta in 0usize..2,
    ) {
        let channels = c_in + channels_delta;
        let options = ConvTransposeOptions::new([stride; 2], [padding; 2], [0; 2], [1; 2], 1);
        for (name, device) in devices() {
            let case = format!("{name} conv_transpose2d x=[1, {channels}, {size:?}] w=[{c_in}, 2, {kernel:?}] {options:?}");
            let x = || tensor([1, channels, size.0, size.1], &device);
            let w = || tensor([c_in, 2, kernel.0, kernel.1], &device);
            let burn = raw(|| snapshot(m::conv_transpose2d(x(), w(), None, options.clone())));
            let ours = try_conv_transpose2d(x(), w(), None, options.clone()).map(snapshot);
            assert_parity_or_beyond(&case, burn, ours);
        }
    }

    #[test]
    fn deform_conv2d_parity(
        weight_groups in 1usize..3,
        offset_groups in 1usize..3,
        c_in in 1usize..3,
        channels_delta in 0usize..2,
        size in 2usize..5,
        kernel in 1usize..3,
        stride in 1usize..3,
        padding in 0usize..2,
        out_delta in 0usize..2,
        mask in proptest::option::of(0usize..2),
    ) {
        let options = DeformConvOptions::new([stride; 2], [padding; 2], [1, 1], weight_groups, offset_groups);
        let channels = c_in * weight_groups + channels_delta;
        let c_out = 2 * weight_groups;
        let out = (size + 2 * padding).saturating_sub(kernel) / stride + 1 + out_delta;
        let taps = kernel * kernel;
        for (name, device) in devices() {
            let case = format!(
                "{name} deform_conv2d x=[1, {channels}, {size}²] w=[{c_out}, {c_in}, {kernel}²] out={out} mask={mask:?} {options:?}"
            );
            let x = || tensor([1, channels, size, size], &device);
            let offset = || Tensor::<4>::zeros([1, 2 * offset_groups * taps, out, out], &device);
            let w = || tensor([c_out, c_in, kernel, kernel], &device);
            let mask = || mask.map(|delta| Tensor::<4>::ones([1, offset_groups * taps + delta, out, out], &device));
            let burn = raw(|| snapshot(m::deform_conv2d(x(), offset(), w(), mask(), None, options.clone())));
            let ours = try_deform_conv2d(x(), offset(), w(), mask(), None, options.clone()).map(snapshot);
            assert_parity_or_beyond(&case, burn, ours);
        }
    }

    #[test]
    fn interpolate_parity(
        size in (0usize..4, 1usize..4),
        out in proptest::option::of((0usize..5, 1usize..5)),
        scale in proptest::option::of((-1.0f32..3.0, 0.5f32..3.0)),
        mode in 0usize..5,
        align_corners in any::<bool>(),
    ) {
        let mode = match mode {
            0 => InterpolateMode::Nearest,
            1 => InterpolateMode::NearestExact,
            2 => InterpolateMode::Bilinear,
            3 => InterpolateMode::Bicubic,
            _ => InterpolateMode::Lanczos3,
        };
        let mut options = InterpolateOptions::new(mode).with_align_corners(align_corners);
        options.output_size = out.map(|(h, w)| [h, w]);
        options.scale_factor = scale.map(|(h, w)| [h, w]);
        for (name, device) in devices() {
            let case = format!("{name} interpolate [1, 2, {size:?}] {options:?}");
            let x = || tensor([1, 2, size.0, size.1], &device);
            let burn = raw(|| snapshot(m::interpolate(x(), options.clone())));
            let ours = try_interpolate(x(), options.clone()).map(snapshot);
            assert_parity_or_beyond(&case, burn, ours);
        }
    }

    #[test]
    fn affine_grid_2d_parity(
        transform in [1usize..3, 1usize..4, 1usize..5],
        dims in [0usize..3, 1usize..2, 0usize..4, 0usize..4],
        pick in 0usize..2,
    ) {
        let transform = if pick == 0 { [transform[0], 2, 3] } else { transform };
        for (name, device) in devices() {
            let case = format!("{name} affine_grid_2d {transform:?} {dims:?}");
            let burn = raw(|| snapshot(grid::affine_grid_2d(tensor(transform, &device), dims)));
            let ours = try_affine_grid_2d(tensor(transform, &device), dims).map(snapshot);
            assert_parity_or_beyond(&case, burn, ours);
        }
    }
}

/// The deprecated `PaddedConvOptions` re-checks its stride when converted: burn panics, we
/// refuse.
#[test]
#[allow(deprecated)]
fn padded_conv_options_conversion() {
    use burn::tensor::ops::PaddedConvOptions;
    let device = Device::flex();
    let options = || PaddedConvOptions {
        options: ConvOptions {
            stride: [0],
            padding: [(0, 0)],
            dilation: [1],
            groups: 1,
        },
        padding_end: Some([1]),
    };
    let x = || tensor([1, 1, 4], &device);
    let w = || tensor([1, 1, 2], &device);
    let burn = raw(|| snapshot(m::conv1d(x(), w(), None, options())));
    let ours = try_conv1d(x(), w(), None, options()).map(snapshot);
    assert_parity("padded options with stride 0", burn, ours);
    let valid = PaddedConvOptions::asymmetric([1], [1], [0], [1], 1);
    let burn = raw(|| snapshot(m::conv1d(x(), w(), None, valid.clone())));
    let ours = try_conv1d(x(), w(), None, valid).map(snapshot);
    assert_parity("padded options, valid", burn, ours);
}

/// Flex and NdArray do not implement `NearestExact`; the twin refuses it on them, with or
/// without autodiff.
#[test]
fn nearest_exact_on_cpu_backends() {
    let options = InterpolateOptions::new(InterpolateMode::NearestExact).with_output_size([4, 4]);
    for (name, device) in devices() {
        for device in [device.clone(), device.autodiff()] {
            let case = format!("{name} nearest exact (autodiff: {})", device.is_autodiff());
            let x = || tensor([1, 1, 2, 2], &device);
            let burn = raw(|| snapshot(m::interpolate(x(), options.clone())));
            let ours = try_interpolate(x(), options.clone()).map(snapshot);
            assert_parity(&case, burn, ours);
        }
    }
}

/// burn checks no device in these functions; the twins refuse operands on different devices.
#[test]
fn mixed_devices_are_refused() {
    #[allow(deprecated)]
    let (flex, ndarray) = (Device::flex(), Device::ndarray());
    let options = ConvOptions::new([1, 1], [0, 0], [1, 1], 1);
    let err = try_conv2d(
        tensor([1, 2, 3, 3], &flex),
        tensor([1, 2, 2, 2], &ndarray),
        None,
        options,
    )
    .unwrap_err();
    assert!(matches!(err, GuardError::DeviceMismatch { .. }), "{err}");
    let err = try_linear(
        tensor([2, 3], &flex),
        tensor([3, 2], &flex),
        Some(tensor([2], &ndarray)),
    )
    .unwrap_err();
    assert!(matches!(err, GuardError::DeviceMismatch { .. }), "{err}");
    let err = try_prelu(tensor([2, 3], &flex), tensor([3], &ndarray)).unwrap_err();
    assert!(matches!(err, GuardError::DeviceMismatch { .. }), "{err}");
}

#[test]
fn wgpu_softmax_and_conv2d() {
    let Some(device) = common::wgpu_device() else {
        return;
    };
    let t = || tensor([2, 3], &device);
    assert_parity(
        "wgpu softmax dim=-1",
        raw(|| snapshot(activation::softmax(t(), -1))),
        try_softmax(t(), -1).map(snapshot),
    );
    assert_parity(
        "wgpu softmax dim=2",
        raw(|| snapshot(activation::softmax(t(), 2))),
        try_softmax(t(), 2).map(snapshot),
    );
    let options = ConvOptions::new([1, 1], [1, 1], [1, 1], 1);
    let x = || tensor([1, 2, 4, 4], &device);
    for c_in in [2, 3] {
        let w = || tensor([3, c_in, 3, 3], &device);
        assert_parity(
            &format!("wgpu conv2d c_in={c_in}"),
            raw(|| snapshot(m::conv2d(x(), w(), None, options.clone()))),
            try_conv2d(x(), w(), None, options.clone()).map(snapshot),
        );
    }
}
