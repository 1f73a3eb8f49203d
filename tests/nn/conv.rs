//! Convolution, pooling, unfold and fold: the layers of `burn::nn::{conv, pool}` and the free
//! functions of `burn::tensor::module`.

use burn::nn::conv::{
    Conv1dConfig, Conv2dConfig, Conv3dConfig, ConvTranspose1dConfig, ConvTranspose2dConfig,
    ConvTranspose3dConfig, DeformConv2dConfig,
};
use burn::nn::interpolate::{Interpolate1dConfig, Interpolate2dConfig, InterpolateMode};
use burn::nn::pool::{
    AdaptiveAvgPool1dConfig, AdaptiveAvgPool2dConfig, AdaptiveAvgPool3dConfig, AvgPool1dConfig,
    AvgPool2dConfig, MaxPool1dConfig, MaxPool2dConfig,
};
use burn::nn::{
    Fold4dConfig, PaddingConfig1d, PaddingConfig2d, PaddingConfig3d, PixelShuffleConfig,
    PixelUnshuffleConfig, Unfold4dConfig,
};
use burn::tensor::module::{
    adaptive_avg_pool3d, avg_pool1d, fold4d, max_pool1d_with_indices, max_pool2d_with_indices,
    unfold4d,
};
use burn::tensor::ops::{AvgPoolOptions, MaxPoolOptions, UnfoldOptions};
use burn::tensor::{Device, Tensor};
use burn_guard::prelude::*;
use burn_guard::tensor::module::{
    try_adaptive_avg_pool3d, try_avg_pool1d, try_avg_pool2d_backward, try_conv2d_weight_backward,
    try_fold4d, try_max_pool1d_with_indices, try_max_pool2d_with_indices,
    try_max_pool2d_with_indices_backward, try_unfold4d,
};
use proptest::prelude::*;

use crate::common::snapshot_int;
use crate::support::{
    cpu_devices, float_tensor as input, init_parity, parity_on_cpus, raw, refusals, refused,
};

/// A float tensor's shape and value bits: average pooling over windows of padding only gives
/// NaN on NdArray, which must compare equal to itself.
fn snapshot<const D: usize>(t: Tensor<D>) -> (Vec<usize>, Vec<u32>) {
    let (dims, values) = crate::support::snapshot(t);
    (dims, values.into_iter().map(f32::to_bits).collect())
}

/// The rules by which the twins refuse inputs that raw burn handles on at least one CPU
/// backend (each documented on the twins): a kernel larger than the padded input and an
/// empty spatial dim (NdArray panics on both, Flex returns an empty tensor or a window of
/// nothing), an empty adaptive-pooling input (both return averages of nothing), and
/// deformable-convolution offsets and masks whose shape does not match the output (Flex
/// reads whatever is there), and an empty interpolation input (Flex asserts, NdArray
/// returns a tensor), and backward passes given a gradient or indices of another shape than
/// the forward output (the backends read out of step or panic).
const BEYOND_BURN: &[&str] = &[
    "the dilated kernel must fit in the padded input",
    "pooling needs a non-empty input along every spatial dim",
    "adaptive pooling needs a non-empty input window",
    "offset must have shape",
    "mask must have shape",
    "input spatial sizes must be non-zero",
    "the gradient must have the shape",
    "the indices must have the shape",
];

/// [`parity_on_cpus`], except where the twin refuses by a [`BEYOND_BURN`] rule: then it
/// must refuse by that check on both backends, whatever raw burn does.
fn parity<L, S: PartialEq + Clone + std::fmt::Debug>(
    case: &str,
    setup: impl Fn(&Device) -> L,
    burn: impl Fn(&L, &Device) -> S,
    ours: impl Fn(&L, &Device) -> Result<S, burn_guard::GuardError>,
) {
    let beyond = |device: &Device| match ours(&setup(device), device) {
        Err(err) => BEYOND_BURN
            .iter()
            .any(|rule| err.to_string().contains(rule)),
        Ok(_) => false,
    };
    if cpu_devices().iter().any(|(_, device)| beyond(device)) {
        for (name, device) in cpu_devices() {
            let err = refused(name, case, ours(&setup(&device), &device));
            assert!(
                BEYOND_BURN
                    .iter()
                    .any(|rule| err.to_string().contains(rule)),
                "{name}: {case}: {err}"
            );
        }
        return;
    }
    parity_on_cpus(case, setup, burn, ours);
}

fn padding1d() -> impl Strategy<Value = PaddingConfig1d> {
    prop_oneof![
        Just(PaddingConfig1d::Valid),
        Just(PaddingConfig1d::Same),
        (0usize..3, 0usize..3).prop_map(|(l, r)| PaddingConfig1d::Explicit(l, r)),
    ]
}

fn padding2d() -> impl Strategy<Value = PaddingConfig2d> {
    prop_oneof![
        Just(PaddingConfig2d::Valid),
        Just(PaddingConfig2d::Same),
        (0usize..3, 0usize..3, 0usize..3, 0usize..3)
            .prop_map(|(t, l, b, r)| PaddingConfig2d::Explicit(t, l, b, r)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn conv1d_parity(
        c_in in 0usize..3, c_out in 0usize..3, kernel in 1usize..4, stride in 1usize..3,
        dilation in 1usize..3, padding in padding1d(), batch in 0usize..3, fed in 0usize..4,
        length in 0usize..6, bias: bool,
    ) {
        let config = Conv1dConfig::new(c_in, c_out, kernel).with_stride(stride)
            .with_dilation(dilation).with_padding(padding.clone()).with_bias(bias);
        // A config whose parameters cannot be drawn is the init table's business.
        prop_assume!(config.try_init(&Device::flex()).is_ok());
        parity(
            &format!("conv1d {c_in}->{c_out} k{kernel} s{stride} d{dilation} {padding:?} on [{batch}, {fed}, {length}]"),
            |device| Conv1dConfig::new(c_in, c_out, kernel).with_stride(stride)
                .with_dilation(dilation).with_padding(padding.clone()).with_bias(bias).init(device),
            |layer, device| snapshot(layer.forward(input([batch, fed, length], device))),
            |layer, device| layer.try_forward(input([batch, fed, length], device)).map(snapshot),
        );
    }

    #[test]
    fn conv2d_parity(
        c_in in 0usize..3, c_out in 0usize..3, kh in 1usize..4, kw in 1usize..3,
        stride in 1usize..3, padding in padding2d(), batch in 0usize..2, fed in 0usize..4,
        h in 0usize..5, w in 0usize..5, groups in 1usize..3,
    ) {
        let (c_in, c_out) = (c_in * groups, c_out * groups);
        let config = Conv2dConfig::new([c_in, c_out], [kh, kw]).with_stride([stride, 1])
            .with_groups(groups).with_padding(padding.clone());
        prop_assume!(config.try_init(&Device::flex()).is_ok());
        parity(
            &format!("conv2d {c_in}->{c_out} g{groups} k[{kh},{kw}] s{stride} {padding:?} on [{batch}, {fed}, {h}, {w}]"),
            |device| Conv2dConfig::new([c_in, c_out], [kh, kw]).with_stride([stride, 1])
                .with_groups(groups).with_padding(padding.clone()).init(device),
            |layer, device| snapshot(layer.forward(input([batch, fed, h, w], device))),
            |layer, device| layer.try_forward(input([batch, fed, h, w], device)).map(snapshot),
        );
    }

    #[test]
    fn conv_transpose2d_parity(
        c_in in 0usize..3, c_out in 0usize..3, k in 1usize..4, stride in 1usize..3,
        padding in 0usize..3, padding_out in 0usize..2, batch in 0usize..2, fed in 0usize..4,
        h in 0usize..4, w in 1usize..4,
    ) {
        let config = ConvTranspose2dConfig::new([c_in, c_out], [k, k]).with_stride([stride, stride])
            .with_padding([padding, 0]).with_padding_out([padding_out, 0]);
        prop_assume!(config.try_init(&Device::flex()).is_ok());
        parity(
            &format!("conv_transpose2d {c_in}->{c_out} k{k} s{stride} p{padding} po{padding_out} on [{batch}, {fed}, {h}, {w}]"),
            |device| ConvTranspose2dConfig::new([c_in, c_out], [k, k]).with_stride([stride, stride])
                .with_padding([padding, 0]).with_padding_out([padding_out, 0]).init(device),
            |layer, device| snapshot(layer.forward(input([batch, fed, h, w], device))),
            |layer, device| layer.try_forward(input([batch, fed, h, w], device)).map(snapshot),
        );
    }

    #[test]
    fn conv_transpose1d_and_conv3d_parity(
        k in 1usize..3, stride in 1usize..3, padding in 0usize..3, fed in 1usize..3, len in 0usize..4,
        same: bool,
    ) {
        parity(
            &format!("conv_transpose1d k{k} s{stride} p{padding} on [1, {fed}, {len}]"),
            |device| ConvTranspose1dConfig::new([2, 1], k).with_stride(stride).with_padding(padding).init(device),
            |layer, device| snapshot(layer.forward(input([1, fed, len], device))),
            |layer, device| layer.try_forward(input([1, fed, len], device)).map(snapshot),
        );
        let pad = if same { PaddingConfig3d::Same } else { PaddingConfig3d::Explicit(padding, 0, 0) };
        let k3 = 2 * k - 1;
        parity(
            &format!("conv3d k{k3} s{stride} {pad:?} on [1, {fed}, {len}, 2, 2]"),
            |device| Conv3dConfig::new([2, 1], [k3, 1, 1]).with_stride([stride, 1, 1]).with_padding(pad.clone()).init(device),
            |layer, device| snapshot(layer.forward(input([1, fed, len, 2, 2], device))),
            |layer, device| layer.try_forward(input([1, fed, len, 2, 2], device)).map(snapshot),
        );
    }

    #[test]
    fn pool1d_parity(
        kernel in 1usize..5, stride in 1usize..3, dilation in 1usize..3, padding in padding1d(),
        ceil: bool, include: bool, batch in 0usize..2, channels in 0usize..3, length in 0usize..7,
    ) {
        let dims = [batch, channels, length];
        parity(
            &format!("max_pool1d k{kernel} s{stride} d{dilation} {padding:?} ceil={ceil} on {dims:?}"),
            |_| MaxPool1dConfig::new(kernel).with_stride(stride).with_dilation(dilation)
                .with_padding(padding.clone()).with_ceil_mode(ceil).init(),
            |layer, device| snapshot(layer.forward(input(dims, device))),
            |layer, device| layer.try_forward(input(dims, device)).map(snapshot),
        );
        parity(
            &format!("avg_pool1d k{kernel} s{stride} {padding:?} ceil={ceil} include={include} on {dims:?}"),
            |_| AvgPool1dConfig::new(kernel).with_stride(stride).with_padding(padding.clone())
                .with_ceil_mode(ceil).with_count_include_pad(include).init(),
            |layer, device| snapshot(layer.forward(input(dims, device))),
            |layer, device| layer.try_forward(input(dims, device)).map(snapshot),
        );
    }

    #[test]
    fn pool2d_parity(
        kh in 1usize..4, kw in 1usize..3, stride in 1usize..3, padding in padding2d(),
        ceil: bool, batch in 0usize..2, channels in 0usize..3, h in 0usize..5, w in 0usize..5,
    ) {
        let dims = [batch, channels, h, w];
        parity(
            &format!("max_pool2d k[{kh},{kw}] s{stride} {padding:?} ceil={ceil} on {dims:?}"),
            |_| MaxPool2dConfig::new([kh, kw]).with_strides([stride, stride])
                .with_padding(padding.clone()).with_ceil_mode(ceil).init(),
            |layer, device| snapshot(layer.forward(input(dims, device))),
            |layer, device| layer.try_forward(input(dims, device)).map(snapshot),
        );
        parity(
            &format!("avg_pool2d k[{kh},{kw}] s{stride} {padding:?} ceil={ceil} on {dims:?}"),
            |_| AvgPool2dConfig::new([kh, kw]).with_strides([stride, 1])
                .with_padding(padding.clone()).with_ceil_mode(ceil).init(),
            |layer, device| snapshot(layer.forward(input(dims, device))),
            |layer, device| layer.try_forward(input(dims, device)).map(snapshot),
        );
    }

    #[test]
    fn adaptive_pool_parity(
        out_h in 0usize..4, out_w in 1usize..4, batch in 0usize..2, channels in 0usize..3,
        h in 0usize..5, w in 1usize..5,
    ) {
        let dims = [batch, channels, h, w];
        parity(
            &format!("adaptive_avg_pool2d [{out_h}, {out_w}] on {dims:?}"),
            |_| AdaptiveAvgPool2dConfig::new([out_h, out_w]).init(),
            |layer, device| snapshot(layer.forward(input(dims, device))),
            |layer, device| layer.try_forward(input(dims, device)).map(snapshot),
        );
        parity(
            &format!("adaptive_avg_pool1d {out_h} on [{batch}, {channels}, {w}]"),
            |_| AdaptiveAvgPool1dConfig::new(out_h).init(),
            |layer, device| snapshot(layer.forward(input([batch, channels, w], device))),
            |layer, device| layer.try_forward(input([batch, channels, w], device)).map(snapshot),
        );
        parity(
            &format!("adaptive_avg_pool3d [1, {out_h}, {out_w}] on [{batch}, {channels}, 2, {h}, {w}]"),
            |_| [1, out_h, out_w],
            |size, device| snapshot(adaptive_avg_pool3d(input([batch, channels, 2, h, w], device), *size)),
            |size, device| try_adaptive_avg_pool3d(input([batch, channels, 2, h, w], device), *size).map(snapshot),
        );
    }

    #[test]
    fn unfold_fold_parity(
        kh in 1usize..4, kw in 1usize..3, stride in 1usize..3, padding in 0usize..2,
        dilation in 1usize..3, channels in 1usize..3, h in 0usize..5, w in 0usize..5, blocks in 0usize..8,
    ) {
        let options = UnfoldOptions::new([stride, 1], [padding, padding], [dilation, 1]);
        parity(
            &format!("unfold4d k[{kh},{kw}] {options:?} on [1, {channels}, {h}, {w}]"),
            |_| options.clone(),
            |o, device| snapshot(unfold4d(input([1, channels, h, w], device), [kh, kw], o.clone())),
            |o, device| try_unfold4d(input([1, channels, h, w], device), [kh, kw], o.clone()).map(snapshot),
        );
        let cols = [1, channels * kh * kw, blocks];
        parity(
            &format!("fold4d to [{h}, {w}] k[{kh},{kw}] {options:?} on {cols:?}"),
            |_| options.clone(),
            |o, device| snapshot(fold4d(input(cols, device), [h, w], [kh, kw], o.clone())),
            |o, device| try_fold4d(input(cols, device), [h, w], [kh, kw], o.clone()).map(snapshot),
        );
    }

    #[test]
    fn pool_functions_parity(
        kernel in 1usize..4, stride in 1usize..3, begin in 0usize..3, end in 0usize..3,
        ceil: bool, length in 0usize..6,
    ) {
        let options = MaxPoolOptions::new([kernel]).with_stride([stride])
            .with_padding_pairs([(begin, end)]).with_ceil_mode(ceil);
        parity(
            &format!("max_pool1d_with_indices {options:?} on [1, 2, {length}]"),
            |_| options.clone(),
            |o, device| {
                let (y, i) = max_pool1d_with_indices(input([1, 2, length], device), o.clone());
                (snapshot(y), snapshot_int(i))
            },
            |o, device| try_max_pool1d_with_indices(input([1, 2, length], device), o.clone())
                .map(|(y, i)| (snapshot(y), snapshot_int(i))),
        );
        let options2 = MaxPoolOptions::new([kernel, 1]).with_stride([stride, 1])
            .with_padding_pairs([(begin, end), (0, 0)]).with_ceil_mode(ceil);
        parity(
            &format!("max_pool2d_with_indices {options2:?} on [1, 1, {length}, 2]"),
            |_| options2.clone(),
            |o, device| {
                let (y, i) = max_pool2d_with_indices(input([1, 1, length, 2], device), o.clone());
                (snapshot(y), snapshot_int(i))
            },
            |o, device| try_max_pool2d_with_indices(input([1, 1, length, 2], device), o.clone())
                .map(|(y, i)| (snapshot(y), snapshot_int(i))),
        );
        let avg = AvgPoolOptions::new([kernel]).with_stride([stride])
            .with_padding_pairs([(begin, end)]).with_ceil_mode(ceil).with_count_include_pad(false);
        parity(
            &format!("avg_pool1d {avg:?} on [1, 2, {length}]"),
            |_| avg.clone(),
            |o, device| snapshot(avg_pool1d(input([1, 2, length], device), o.clone())),
            |o, device| try_avg_pool1d(input([1, 2, length], device), o.clone()).map(snapshot),
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn spatial_layers_parity(
        factor in 0usize..3, channels in 0usize..9, h in 0usize..5, w in 0usize..5, k in 1usize..3,
        blocks in 0usize..10, scale in 1usize..3, bilinear: bool,
    ) {
        let dims = [1, channels, h, w];
        parity(
            &format!("pixel_shuffle {factor} on {dims:?}"),
            |_| PixelShuffleConfig::new(factor).init(),
            |layer, device| snapshot(layer.forward(input(dims, device))),
            |layer, device| layer.try_forward(input(dims, device)).map(snapshot),
        );
        parity(
            &format!("pixel_unshuffle {factor} on {dims:?}"),
            |_| PixelUnshuffleConfig::new(factor).init(),
            |layer, device| snapshot(layer.forward(input(dims, device))),
            |layer, device| layer.try_forward(input(dims, device)).map(snapshot),
        );
        parity(
            &format!("unfold4d layer k{k} on {dims:?}"),
            |_| Unfold4dConfig::new([k, k]).with_padding([1, 0]).init(),
            |layer, device| snapshot(layer.forward(input(dims, device))),
            |layer, device| layer.try_forward(input(dims, device)).map(snapshot),
        );
        let cols = [1, channels * k * k, blocks];
        parity(
            &format!("fold4d layer to [{h}, {w}] k{k} on {cols:?}"),
            |_| Fold4dConfig::new([h, w], [k, k]).init(),
            |layer, device| snapshot(layer.forward(input(cols, device))),
            |layer, device| layer.try_forward(input(cols, device)).map(snapshot),
        );
        let mode = if bilinear { InterpolateMode::Linear } else { InterpolateMode::Nearest };
        parity(
            &format!("interpolate1d x{scale} {mode:?} on [1, {channels}, {w}]"),
            |_| Interpolate1dConfig::new().with_scale_factor(Some(scale as f32)).with_mode(mode.clone()).init(),
            |layer, device| snapshot(layer.forward(input([1, channels, w], device))),
            |layer, device| layer.try_forward(input([1, channels, w], device)).map(snapshot),
        );
        let mode2 = if bilinear { InterpolateMode::Linear } else { InterpolateMode::Nearest };
        parity(
            &format!("interpolate2d to [{scale}, 3] {mode2:?} on {dims:?}"),
            |_| Interpolate2dConfig::new().with_output_size(Some([scale, 3])).with_mode(mode2.clone()).init(),
            |layer, device| snapshot(layer.forward(input(dims, device))),
            |layer, device| layer.try_forward(input(dims, device)).map(snapshot),
        );
    }

    #[test]
    fn deform_conv2d_parity(
        fed in 1usize..4, h in 1usize..5, w in 1usize..5, k in 1usize..3, stride in 1usize..3,
        oh in 1usize..4, same: bool, masked: bool,
    ) {
        let padding = if same { PaddingConfig2d::Same } else { PaddingConfig2d::Valid };
        let k = 2 * k - 1;
        // Mostly the offset shape the output needs (valid padding), sometimes another.
        let (oh, ow) = if same || h < k || w < k { (oh, oh) } else { ((h - k) / stride + 1, (w - k) / stride + 1) };
        let offset = [1, 2 * k * k, oh, ow];
        let mask = [1, k * k, oh, ow];
        parity(
            &format!("deform_conv2d k{k} s{stride} {padding:?} on [1, {fed}, {h}, {w}] offset {offset:?}"),
            |device| DeformConv2dConfig::new([2, 2], [k, k]).with_stride([stride, stride])
                .with_padding(padding.clone()).init(device),
            |layer, device| snapshot(layer.forward(
                input([1, fed, h, w], device),
                Tensor::zeros(offset, device),
                masked.then(|| Tensor::ones(mask, device)),
            )),
            |layer, device| layer.try_forward(
                input([1, fed, h, w], device),
                Tensor::zeros(offset, device),
                masked.then(|| Tensor::ones(mask, device)),
            ).map(snapshot),
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn backward_functions_parity(
        k in 1usize..4, stride in 1usize..3, padding in 0usize..2, ceil: bool, h in 0usize..5,
        gh in 0usize..4, exact: bool,
    ) {
        use burn::tensor::module::{avg_pool2d_backward, conv2d_weight_backward, max_pool2d_with_indices_backward};
        use burn::tensor::ops::ConvOptions;
        // The forward output's height, where there is one; else any.
        let out = |ceil: bool| {
            let padded = h + 2 * padding;
            if h == 0 || padded < k { return gh; }
            let o = if ceil { (padded + stride - 1 - k) / stride + 1 } else { (padded - k) / stride + 1 };
            if ceil && (o - 1) * stride >= h + padding { o - 1 } else { o }
        };
        let oh = if exact { out(ceil) } else { gh };
        let x = [1, 2, h, 3];
        let g = [1, 2, oh, 3];
        parity(
            &format!("avg_pool2d_backward k{k} s{stride} p{padding} ceil={ceil} x {x:?} grad {g:?}"),
            |_| (),
            |_, device| snapshot(avg_pool2d_backward(input(x, device), input(g, device), [k, 1], [stride, 1], [padding, 0], true, ceil)),
            |_, device| try_avg_pool2d_backward(input(x, device), input(g, device), [k, 1], [stride, 1], [padding, 0], true, ceil).map(snapshot),
        );
        let idx = |device: &Device| Tensor::<4, burn::tensor::Int>::zeros(g, device);
        parity(
            &format!("max_pool2d_with_indices_backward k{k} s{stride} p{padding} ceil={ceil} x {x:?} grad {g:?}"),
            |_| (),
            |_, device| snapshot(max_pool2d_with_indices_backward(input(x, device), [k, 1], [stride, 1], [padding, 0], [1, 1], ceil, input(g, device), idx(device))),
            |_, device| try_max_pool2d_with_indices_backward(input(x, device), [k, 1], [stride, 1], [padding, 0], [1, 1], ceil, input(g, device), idx(device)).map(snapshot),
        );
        let cg = [1, 3, if exact { out(false) } else { gh }, 3];
        let options = ConvOptions::new([stride, 1], [padding, 0], [1, 1], 1);
        parity(
            &format!("conv2d_weight_backward k{k} {options:?} x {x:?} grad {cg:?}"),
            |_| options.clone(),
            |o, device| snapshot(conv2d_weight_backward(input(x, device), input([3, 2, k, 1], device), input(cg, device), o.clone())),
            |o, device| try_conv2d_weight_backward(input(x, device), input([3, 2, k, 1], device), input(cg, device), o.clone()).map(snapshot),
        );
    }
}

/// Draws a module's lazily initialized weight and bias, where burn-nn's initializer runs.
macro_rules! drawn {
    ($module:expr) => {{
        let m = $module;
        let _ = m.weight.val();
        let _ = m.bias.as_ref().map(|b| b.val());
    }};
}

/// Each row: raw burn's `init`, drawn, panics ⇔ the twin's `try_init` refuses by a check.
macro_rules! init_rows {
    ($d:expr; $($case:expr => $config:expr;)+) => {$({
        let c = $config;
        init_parity(&$case, raw(|| drawn!(c.init($d))), c.try_init($d).map(|m| drawn!(m)));
    })+};
}

#[test]
fn conv_inits_refuse_what_burn_panics_on() {
    use burn::nn::Initializer;
    for (_, device) in cpu_devices() {
        let d = &device;
        let groups = [
            (4, 6, 2),
            (4, 6, 4),
            (3, 6, 2),
            (4, 6, 0),
            (0, 0, 0),
            (0, 0, 1),
            (0, 4, 2),
        ];
        let inits = [
            Initializer::KaimingUniform {
                gain: 1.0 / 3.0f64.sqrt(),
                fan_out_only: false,
            },
            Initializer::KaimingNormal {
                gain: 1.0,
                fan_out_only: true,
            },
            Initializer::XavierUniform { gain: 1.0 },
            Initializer::Zeros,
        ];
        for (c_in, c_out, g) in groups {
            for init in &inits {
                for bias in [true, false] {
                    let case = format!("channels {c_in}->{c_out} groups {g} {init:?} bias={bias}");
                    let i = || init.clone();
                    init_rows! { d;
                        format!("conv1d {case}") => Conv1dConfig::new(c_in, c_out, 3)
                            .with_groups(g).with_initializer(i()).with_bias(bias);
                        format!("conv2d {case}") => Conv2dConfig::new([c_in, c_out], [3, 3])
                            .with_groups(g).with_initializer(i()).with_bias(bias);
                        format!("conv3d {case}") => Conv3dConfig::new([c_in, c_out], [3, 3, 3])
                            .with_groups(g).with_initializer(i()).with_bias(bias);
                        format!("conv_transpose1d {case}") =>
                            ConvTranspose1dConfig::new([c_in, c_out], 3)
                                .with_groups(g).with_initializer(i()).with_bias(bias);
                        format!("conv_transpose2d {case}") =>
                            ConvTranspose2dConfig::new([c_in, c_out], [3, 3])
                                .with_groups(g).with_initializer(i()).with_bias(bias);
                        format!("conv_transpose3d {case}") =>
                            ConvTranspose3dConfig::new([c_in, c_out], [3, 3, 3])
                                .with_groups(g).with_initializer(i()).with_bias(bias);
                    }
                    for offset_groups in [1, 2, 0] {
                        init_rows! { d;
                            format!("deform_conv2d {case} offset_groups {offset_groups}") =>
                                DeformConv2dConfig::new([c_in, c_out], [3, 3])
                                    .with_weight_groups(g.max(1))
                                    .with_offset_groups(offset_groups)
                                    .with_initializer(i())
                                    .with_bias(bias);
                        }
                    }
                }
            }
        }
        for kernel in [[3, 3, 3], [2, 3, 3], [3, 3, 4], [1, 1, 1]] {
            init_rows! { d;
                format!("conv3d same {kernel:?}") =>
                    Conv3dConfig::new([2, 2], kernel).with_padding(PaddingConfig3d::Same);
                format!("deform_conv2d same {kernel:?}") =>
                    DeformConv2dConfig::new([2, 2], [kernel[0], kernel[2]])
                        .with_padding(PaddingConfig2d::Same);
            }
        }
        // A zero kernel size: no fan for the default (Kaiming) initializer.
        init_rows! { d; "conv2d kernel 0" => Conv2dConfig::new([2, 2], [0, 3]); }
    }
}

#[test]
fn conv_and_pool_bad_inputs_are_refused_by_checks() {
    for (name, device) in cpu_devices() {
        let d = &device;
        let c1 = Conv1dConfig::new(2, 4, 3).init(d);
        let c2 = Conv2dConfig::new([2, 4], [3, 3]).init(d);
        let c3 = Conv3dConfig::new([2, 4], [3, 3, 3]).init(d);
        let t1 = ConvTranspose1dConfig::new([2, 4], 3).init(d);
        let t2 = ConvTranspose2dConfig::new([2, 4], [3, 3]).init(d);
        let t3 = ConvTranspose3dConfig::new([2, 4], [3, 3, 3]).init(d);
        // Modules loaded from a record can hold what the configs never build.
        let mut zero_stride = Conv2dConfig::new([2, 4], [3, 3]).init(d);
        zero_stride.stride = [0, 1];
        let mut same_zero = Conv1dConfig::new(2, 4, 3)
            .with_padding(PaddingConfig1d::Same)
            .init(d);
        same_zero.stride = 0;
        let same3 = Conv3dConfig::new([2, 4], [3, 3, 3])
            .with_stride([2, 1, 1])
            .with_padding(PaddingConfig3d::Same)
            .init(d);
        let mp1 = MaxPool1dConfig::new(3).init();
        let mp2 = MaxPool2dConfig::new([3, 3]).init();
        let ap1 = AvgPool1dConfig::new(3).init();
        let ap2 = AvgPool2dConfig::new([3, 3]).init();
        let aa1 = AdaptiveAvgPool1dConfig::new(2).init();
        let aa2 = AdaptiveAvgPool2dConfig::new([2, 2]).init();
        let aa3 = AdaptiveAvgPool3dConfig::new([2, 2, 2]).init();
        let mut mp_zero = MaxPool2dConfig::new([3, 3]).init();
        mp_zero.dilation = [1, 0];
        let mut ap_zero = AvgPool1dConfig::new(3)
            .with_padding(PaddingConfig1d::Same)
            .init();
        ap_zero.stride = 0;
        refusals! { name;
            "conv1d channels", ShapeMismatch => c1.try_forward(input([1, 3, 5], d));
            "conv1d kernel > input", InvalidArgument => c1.try_forward(input([1, 2, 2], d));
            "conv1d empty length", InvalidArgument => c1.try_forward(input([1, 2, 0], d));
            "conv2d channels", ShapeMismatch => c2.try_forward(input([1, 1, 5, 5], d));
            "conv2d kernel > input", InvalidArgument => c2.try_forward(input([1, 2, 5, 2], d));
            "conv3d channels", ShapeMismatch => c3.try_forward(input([1, 3, 3, 3, 3], d));
            "conv3d kernel > input", InvalidArgument => c3.try_forward(input([1, 2, 3, 1, 3], d));
            "conv_transpose1d channels", ShapeMismatch => t1.try_forward(input([1, 4, 5], d));
            "conv_transpose1d empty", InvalidArgument => t1.try_forward(input([1, 2, 0], d));
            "conv_transpose2d channels", ShapeMismatch => t2.try_forward(input([1, 3, 2, 2], d));
            "conv_transpose3d channels", ShapeMismatch =>
                t3.try_forward(input([1, 1, 2, 2, 2], d));
            "conv2d stride 0", OutOfRange => zero_stride.try_forward(input([1, 2, 5, 5], d));
            "conv1d same, stride 0", OutOfRange => same_zero.try_forward(input([1, 2, 5], d));
            "conv3d same asymmetric", InvalidArgument =>
                same3.try_forward(input([1, 2, 4, 3, 3], d));
            "max_pool1d kernel > input", InvalidArgument => mp1.try_forward(input([1, 2, 2], d));
            "max_pool1d empty", Empty => mp1.try_forward(input([1, 2, 0], d));
            "max_pool2d kernel > input", InvalidArgument => mp2.try_forward(input([1, 2, 5, 2], d));
            "avg_pool1d kernel > input", InvalidArgument => ap1.try_forward(input([1, 2, 2], d));
            "avg_pool2d kernel > input", InvalidArgument => ap2.try_forward(input([1, 2, 2, 5], d));
            "avg_pool2d empty", Empty => ap2.try_forward(input([1, 2, 0, 5], d));
            "adaptive_avg_pool1d empty", Empty => aa1.try_forward(input([1, 2, 0], d));
            "adaptive_avg_pool2d empty", Empty => aa2.try_forward(input([1, 2, 3, 0], d));
            "adaptive_avg_pool3d empty", Empty => aa3.try_forward(input([1, 2, 0, 3, 3], d));
            "max_pool2d dilation 0", OutOfRange => mp_zero.try_forward(input([1, 2, 5, 5], d));
            "avg_pool1d same, stride 0", OutOfRange => ap_zero.try_forward(input([1, 2, 5], d));
        }

        // An empty batch is not bad input: burn computes it on both backends.
        assert_eq!(
            c2.try_forward(input([0, 2, 5, 5], d)).unwrap().dims(),
            [0, 4, 3, 3]
        );
        assert_eq!(
            mp2.try_forward(input([0, 2, 5, 5], d)).unwrap().dims(),
            [0, 2, 1, 1]
        );
        assert_eq!(
            aa2.try_forward(input([0, 2, 5, 5], d)).unwrap().dims(),
            [0, 2, 2, 2]
        );
    }
}

#[test]
fn spatial_bad_inputs_are_refused_by_checks() {
    for (name, device) in cpu_devices() {
        let d = &device;
        let unfold = Unfold4dConfig::new([3, 3]).init();
        let fold = Fold4dConfig::new([3, 3], [2, 2]).init();
        let shuffle = PixelShuffleConfig::new(2).init();
        let unshuffle = PixelUnshuffleConfig::new(2).init();
        let up1 = Interpolate1dConfig::new().with_output_size(Some(4)).init();
        let up2 = Interpolate2dConfig::new()
            .with_output_size(Some([4, 4]))
            .init();
        let deform = DeformConv2dConfig::new([2, 3], [3, 3]).init(d);
        let offset = |oh, ow| Tensor::<4>::zeros([1, 18, oh, ow], d);
        let mut zero_factor = PixelShuffleConfig::new(2).init();
        zero_factor.upscale_factor = 0;
        let mut zero_stride = Unfold4dConfig::new([2, 2]).init();
        zero_stride.stride = [0, 1];
        let mask = Some(Tensor::ones([1, 8, 3, 3], d));
        let conv_options = burn::tensor::ops::ConvOptions::new([1, 1], [0, 0], [1, 1], 1);
        let x4 = |dims: [usize; 4]| input(dims, d);
        refusals! { name;
            "unfold4d kernel > input", InvalidArgument => unfold.try_forward(x4([1, 2, 2, 5]));
            "unfold4d stride 0", OutOfRange => zero_stride.try_forward(x4([1, 2, 4, 4]));
            "fold4d blocks", ShapeMismatch => fold.try_forward(input([1, 8, 5], d));
            "fold4d columns", ShapeMismatch => fold.try_forward(input([1, 7, 4], d));
            "pixel_shuffle channels", ShapeMismatch => shuffle.try_forward(x4([1, 6, 2, 2]));
            "pixel_shuffle factor 0", OutOfRange => zero_factor.try_forward(x4([1, 4, 2, 2]));
            "pixel_shuffle empty", Empty => shuffle.try_forward(x4([1, 0, 0, 0]));
            "pixel_unshuffle height", ShapeMismatch => unshuffle.try_forward(x4([1, 2, 3, 4]));
            "interpolate1d empty", Empty => up1.try_forward(input([1, 2, 0], d));
            "interpolate2d empty", Empty => up2.try_forward(x4([1, 2, 3, 0]));
            "deform_conv2d channels", ShapeMismatch =>
                deform.try_forward(x4([1, 3, 5, 5]), offset(3, 3), None);
            "deform_conv2d offset", ShapeMismatch =>
                deform.try_forward(x4([1, 2, 5, 5]), offset(2, 3), None);
            "deform_conv2d kernel > input", InvalidArgument =>
                deform.try_forward(x4([1, 2, 2, 5]), offset(1, 3), None);
            "deform_conv2d mask", ShapeMismatch =>
                deform.try_forward(x4([1, 2, 5, 5]), offset(3, 3), mask);
            "avg_pool2d_backward grad", ShapeMismatch => try_avg_pool2d_backward(
                x4([1, 1, 4, 4]), x4([1, 1, 3, 2]), [2, 2], [2, 2], [0, 0], true, false);
            "max_pool2d_with_indices_backward index", IndexOutOfRange =>
                try_max_pool2d_with_indices_backward(
                    x4([1, 1, 4, 4]), [2, 2], [2, 2], [0, 0], [1, 1], false, x4([1, 1, 2, 2]),
                    Tensor::full([1, 1, 2, 2], 16, d));
            "conv2d_weight_backward grad", ShapeMismatch => try_conv2d_weight_backward(
                x4([1, 2, 4, 4]), x4([3, 2, 3, 3]), x4([1, 3, 3, 2]), conv_options);
        }
    }
}
