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
