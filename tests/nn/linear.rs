//! `Linear` and `Dropout`.

use burn::nn::{DropoutConfig, LinearConfig};
use burn::tensor::{Device, Tensor};
use burn_guard::prelude::*;
use proptest::prelude::*;

use crate::support::{
    cpu_devices, float_tensor as input, parity_on_cpus, raw, refusals, refused, snapshot,
};

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn linear_parity(d_in in 1usize..5, d_out in 1usize..5, batch in 0usize..3, fed in 0usize..6, bias: bool) {
        parity_on_cpus(
            &format!("linear {d_in}->{d_out} on [{batch}, {fed}]"),
            |device| LinearConfig::new(d_in, d_out).with_bias(bias).init(device),
            |layer, device| snapshot(layer.forward(input([batch, fed], device))),
            |layer, device| layer.try_forward(input([batch, fed], device)).map(snapshot),
        );
    }
}

#[test]
fn linear_bad_inputs_are_refused_by_checks() {
    for (name, device) in cpu_devices() {
        let layer = LinearConfig::new(3, 2).init(&device);
        refusals! { name;
            "wrong features", ShapeMismatch, "linear" => layer.try_forward(input([2, 4], &device));
        }
    }
}

#[test]
fn dropout_init_refuses_what_burn_panics_on() {
    for prob in [-0.1, 1.0, 2.0, f64::NAN, f64::INFINITY] {
        let burn = raw(|| DropoutConfig::new(prob).init());
        let ours = DropoutConfig::new(prob).try_init();
        assert!(burn.is_none(), "burn accepts {prob}");
        let err = refused("none", &format!("dropout {prob}"), ours);
        assert_eq!(err.kind(), ErrorKind::OutOfRange);
    }
    assert!(DropoutConfig::new(0.0).try_init().is_ok());
}

/// A layer built by burn's own `init` with a fan of 0 panics at its first parameter read;
/// the twin reads the parameters under the backstop, so the panic comes back as an error.
#[test]
fn linear_with_an_undrawable_weight_returns_an_error() {
    let device = Device::flex();
    let layer = LinearConfig::new(0, 5).init(&device);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        layer.try_forward(Tensor::<2>::zeros([2, 0], &device))
    }));
    let err = result
        .expect("the twin must not let the initializer's panic escape")
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BackendPanic);
}

#[derive(burn::module::Module, Debug)]
struct OneLinear {
    layer: burn::nn::Linear,
}

/// A lazy `LinearLayout::Col` layer stores its weight `[d_output, d_input]` and transposes it
/// at the first draw: the quantized layer has the shape the layer's forward sees, and its
/// values.
#[test]
fn a_lazy_column_major_linear_is_quantized_in_the_shape_its_forward_sees() {
    use burn::nn::LinearLayout;
    use burn::tensor::quantization::{QuantScheme, QuantStore, QuantValue};
    use burn_guard::nn::ModuleQuantizer;
    use burn_guard::policy::Policy;

    let device = Device::flex();
    let layer = LinearConfig::new(4, 8)
        .with_layout(LinearLayout::Col)
        .init(&device);
    let model = OneLinear { layer };
    assert!(!model.layer.weight.is_initialized());
    let scheme = QuantScheme::default()
        .with_value(QuantValue::Q8S)
        .with_store(QuantStore::PackedU32(0));
    let layers = ModuleQuantizer::new(scheme, Policy::strict())
        .quantize(&model)
        .unwrap();
    let x = input([2, 4], &device);
    let quantized = layers.forward("layer", x.clone()).unwrap();
    let float = model.layer.forward(x);
    assert_eq!(quantized.dims(), [2, 8]);
    let difference = (quantized - float.clone()).abs().max().into_scalar::<f32>();
    let scale = float.abs().max().into_scalar::<f32>();
    assert!(difference <= 0.05 * scale, "{difference} of {scale}");
}
