//! The process-wide switch against a real fallback: a policy that falls back from NdArray to
//! Flex stops doing so the moment `set_fallback_disabled(true)` is called, refuses before
//! anything moves, and falls back again once the switch is back. Its own test binary: the
//! switch is global, and no other test may run while it is off.

use burn::tensor::quantization::QuantScheme;
use burn::tensor::{Device, Tensor};
use burn_guard::GuardError;
use burn_guard::policy::{Op, Policy, set_fallback_disabled};
use burn_guard::tensor::TryQuantize;

#[test]
fn the_global_switch_stops_a_working_fallback() {
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let t = Tensor::<2>::ones([4, 32], &Device::ndarray());
    let policy = Policy::fallback_to([Device::flex()]);
    let scheme = QuantScheme::default();

    let q = t.clone().quantize_dynamic_with(&scheme, &policy).unwrap();
    assert_eq!(q.device(), Device::flex());
    let before = policy.stats_of(Op::QuantizeDynamic);
    assert_eq!(
        (before.fallbacks, before.bytes_to_fallback),
        (1, 4 * 32 * 4)
    );

    set_fallback_disabled(true);
    let refused = t.clone().quantize_dynamic_with(&scheme, &policy);
    set_fallback_disabled(false);
    let err = refused.unwrap_err();
    assert!(matches!(err, GuardError::Unsupported(_)), "{err}");
    let during = policy.stats_of(Op::QuantizeDynamic);
    assert_eq!(during.fallbacks, 1, "no fallback while the switch is off");
    assert_eq!(
        during.bytes_to_fallback, before.bytes_to_fallback,
        "nothing moved"
    );
    assert_eq!(during.errors, 1);

    let q = t.quantize_dynamic_with(&scheme, &policy).unwrap();
    assert_eq!(q.device(), Device::flex());
    assert_eq!(policy.stats_of(Op::QuantizeDynamic).fallbacks, 2);
}
