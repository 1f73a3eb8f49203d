//! Every activation module of `burn::nn::activation`, the `Activation` wrapper and the
//! configs whose `init` can panic.

use burn::nn::activation::*;
use burn::nn::{PReluConfig, SwiGluConfig};
use burn::tensor::Device;
use burn_guard::prelude::*;
use proptest::prelude::*;

use crate::support::{
    cpu_devices, float_tensor as input, init_parity, parity_on_cpus, raw, refusals, refused,
    snapshot,
};

/// One parity case per activation on `dims`: raw forward vs the twin.
macro_rules! sweep {
    ($dims:expr; $($name:literal => $make:expr;)*) => {$(
        parity_on_cpus(
            &format!("{} on {:?}", $name, $dims),
            |_device| $make,
            |layer, device| snapshot(layer.forward(input($dims, device))),
            |layer, device| layer.try_forward(input($dims, device)).map(snapshot),
        );
    )*};
}

fn sweep_all<const D: usize>(dims: [usize; D]) {
    sweep! { dims;
        "relu" => Relu::new();
        "relu6" => Relu6::new();
        "gelu" => Gelu::new();
        "gelu approximate" => Gelu::new_approximate();
        "sigmoid" => Sigmoid::new();
        "tanh" => Tanh::new();
        "leaky_relu" => LeakyReluConfig::new().init();
        "softplus" => SoftplusConfig::new().with_beta(2.0).init();
        "celu" => CeluConfig::new().with_alpha(0.5).init();
        "elu" => EluConfig::new().init();
        "hard_sigmoid" => HardSigmoidConfig::new().init();
        "hard_swish" => HardSwish::new();
        "hardtanh" => HardtanhConfig::new().with_min_val(-2.0).init();
        "hard_shrink" => HardShrinkConfig::new().init();
        "log_sigmoid" => LogSigmoid::new();
        "mish" => Mish::new();
        "rrelu" => RReluConfig::new().init();
        "selu" => Selu::new();
        "shrink" => ShrinkConfig::new().init();
        "silu" => SiLU::new();
        "soft_shrink" => SoftShrinkConfig::new().init();
        "softsign" => Softsign::new();
        "tanhshrink" => Tanhshrink::new();
        "threshold" => ThresholdConfig::new(1.0, -3.0).init();
        "thresholded_relu" => ThresholdedReluConfig::new().init();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn every_activation_parity(a in 0usize..4, b in 0usize..4, c in 0usize..3) {
        sweep_all([a]);
        sweep_all([a, b]);
        sweep_all([a, b, c]);
    }

    #[test]
    fn prelu_parity(params in 1usize..4, batch in 0usize..3, c in 0usize..4, len in 0usize..3) {
        parity_on_cpus(
            &format!("prelu {params} on [{batch}, {c}, {len}]"),
            |device| PReluConfig::new().with_num_parameters(params).init(device),
            |layer, device| snapshot(layer.forward(input([batch, c, len], device))),
            |layer, device| layer.try_forward(input([batch, c, len], device)).map(snapshot),
        );
        parity_on_cpus(
            &format!("prelu {params} on [{c}]"),
            |device| PReluConfig::new().with_num_parameters(params).init(device),
            |layer, device| snapshot(layer.forward(input([c], device))),
            |layer, device| layer.try_forward(input([c], device)).map(snapshot),
        );
    }

    #[test]
    fn glu_parity(dim in -3isize..3, a in 0usize..4, b in 0usize..5) {
        parity_on_cpus(
            &format!("glu dim {dim} on [{a}, {b}]"),
            |_| GLU::new(dim),
            |layer, device| snapshot(layer.forward(input([a, b], device))),
            |layer, device| layer.try_forward(input([a, b], device)).map(snapshot),
        );
    }

    #[test]
    fn swiglu_parity(d_in in 1usize..4, d_out in 1usize..4, batch in 0usize..3, fed in 0usize..5, bias: bool) {
        parity_on_cpus(
            &format!("swiglu {d_in}->{d_out} on [{batch}, {fed}]"),
            |device| SwiGluConfig::new(d_in, d_out).with_bias(bias).init(device),
            |layer, device| snapshot(layer.forward(input([batch, fed], device))),
            |layer, device| layer.try_forward(input([batch, fed], device)).map(snapshot),
        );
    }

    #[test]
    fn activation_wrapper_parity(kind in 0usize..8, batch in 0usize..3, fed in 0usize..5) {
        let config = || -> ActivationConfig {
            match kind {
                0 => ActivationConfig::Identity,
                1 => ActivationConfig::Relu,
                2 => ActivationConfig::GeluApproximate,
                3 => PReluConfig::new().with_num_parameters(3).into(),
                4 => SwiGluConfig::new(3, 2).into(),
                5 => CeluConfig::new().into(),
                6 => ShrinkConfig::new().into(),
                _ => ActivationConfig::Softsign,
            }
        };
        parity_on_cpus(
            &format!("activation {kind} on [{batch}, {fed}]"),
            |device| config().init(device),
            |layer: &Activation, device| snapshot(layer.forward(input([batch, fed], device))),
            |layer, device| layer.try_forward(input([batch, fed], device)).map(snapshot),
        );
    }
}

#[test]
fn activation_bad_inputs_are_refused_by_checks() {
    for (name, device) in cpu_devices() {
        let d = &device;
        let ad = device.clone().autodiff();
        let prelu = PReluConfig::new().with_num_parameters(3).init(d);
        let swiglu = SwiGluConfig::new(3, 2).init(d);
        let mut hardtanh = HardtanhConfig::new().init();
        hardtanh.min_val = 2.0;
        let mut rrelu = RReluConfig::new().init();
        rrelu.lower = 0.5;
        rrelu.upper = 0.1;
        let wrapped_prelu =
            ActivationConfig::PRelu(PReluConfig::new().with_num_parameters(2)).init(d);
        let wrapped_swiglu = ActivationConfig::SwiGlu(SwiGluConfig::new(2, 2)).init(d);
        // Flex's clamp kernel panics; NdArray returns values: refused on both, beyond burn on
        // NdArray.
        let burn_panics = raw(|| snapshot(hardtanh.forward(input([2, 3], d)))).is_none();
        assert_eq!(burn_panics, name == "flex");
        let burn_panics = raw(|| snapshot(rrelu.forward(input([2, 3], &ad)))).is_none();
        assert!(burn_panics, "{name}: rrelu lower > upper");
        refusals! { name;
            "prelu channels", ShapeMismatch => prelu.try_forward(input([2, 4, 2], d));
            "prelu rank 1", ShapeMismatch => prelu.try_forward(input([3], d));
            "glu odd", InvalidArgument => GLU::new(1).try_forward(input([2, 3], d));
            "glu dim", DimOutOfRange => GLU::new(2).try_forward(input([2, 4], d));
            "hardtanh min > max", OutOfOrder => hardtanh.try_forward(input([2, 3], d));
            "rrelu lower > upper", OutOfOrder => rrelu.try_forward(input([2, 3], &ad));
            "wrapped prelu", ShapeMismatch => wrapped_prelu.try_forward(input([2, 3], d));
            "wrapped swiglu", ShapeMismatch => wrapped_swiglu.try_forward(input([2, 3], d));
        }
        let err = refused(
            name,
            "swiglu features",
            swiglu.try_forward(input([2, 4], d)),
        );
        assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
        assert!(
            err.to_string().starts_with("swiglu: linear_inner: linear:"),
            "{err}"
        );
        // Off the training path the bounds only set the mean slope: no panic, no refusal.
        assert!(rrelu.try_forward(input([2, 3], d)).is_ok());
    }
}

#[test]
fn activation_inits_refuse_what_burn_panics_on() {
    let device = Device::flex();
    for alpha in [0.0, -0.0, f64::NAN, f64::INFINITY, -1.0, 1.0] {
        let config = CeluConfig::new().with_alpha(alpha);
        init_parity(
            &format!("celu {alpha}"),
            raw(|| config.init()),
            config.try_init(),
        );
        let wrapped: ActivationConfig = CeluConfig::new().with_alpha(alpha).into();
        init_parity(
            &format!("activation celu {alpha}"),
            raw(|| wrapped.init(&device)),
            wrapped.try_init(&device),
        );
    }
    let bounds = [
        (-1.0, 1.0),
        (1.0, 1.0),
        (2.0, 1.0),
        (f64::NAN, 1.0),
        (-1.0, f64::INFINITY),
        (f64::NEG_INFINITY, 0.0),
    ];
    for (low, high) in bounds {
        let config = HardtanhConfig::new().with_min_val(low).with_max_val(high);
        init_parity(
            &format!("hardtanh {low} {high}"),
            raw(|| config.init()),
            config.try_init(),
        );
        let config = RReluConfig::new().with_lower(low).with_upper(high);
        init_parity(
            &format!("rrelu {low} {high}"),
            raw(|| config.init()),
            config.try_init(),
        );
    }
}

#[test]
fn rrelu_on_autodiff_matches_burn() {
    // The training path samples slopes in [lower, upper]; equal bounds are what the config
    // allows at the edge.
    for (name, device) in cpu_devices() {
        let device = device.autodiff();
        for (low, high) in [(0.1, 0.3), (0.2, 0.2)] {
            let layer = RReluConfig::new().with_lower(low).with_upper(high).init();
            let burn = raw(|| layer.forward(input([2, 3], &device)).dims());
            let ours = layer.try_forward(input([2, 3], &device)).map(|t| t.dims());
            assert_eq!(
                burn.is_some(),
                ours.is_ok(),
                "{name}: rrelu {low} {high}: {ours:?}"
            );
        }
    }
}
