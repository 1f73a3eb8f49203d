//! Every quantization-scheme rule refuses before dispatch: with the backstop turned off, a
//! scheme that reached a backend would panic through this test instead of coming back as
//! `BackendPanic`. Its own test binary, because the switch is process-wide.

mod common;

use burn::tensor::quantization::{QuantScheme, QuantStore, ScaleDtype};
use burn::tensor::{Device, Tensor};
use burn_backend::TensorData;
use burn_backend::ops::FloatTensorOps;
use burn_flex::Flex;
use burn_guard::GuardError;
use burn_guard::backend::quant::quantize_dynamic_or_fallback;
use burn_guard::policy::Policy;
use burn_guard::tensor::TryQuantize;
use burn_remote::RemoteBackend;

/// Schemes no backend can apply to a [4, 24] tensor: blocks that do not divide it, zero
/// extents, sub-byte values stored natively, two-level schemes burn's generic path asserts on.
fn invalid_grid() -> Vec<QuantScheme> {
    let mut grid = Vec::new();
    for base in common::quant_bases() {
        grid.push(base.per_block([32], ScaleDtype::F32));
        grid.push(base.per_block([16], ScaleDtype::F32));
        grid.push(base.per_block([0], ScaleDtype::F32));
        grid.push(
            base.per_block([8], ScaleDtype::UE8M0)
                .per_tensor(ScaleDtype::F32),
        );
        grid.push(
            base.per_block([8], ScaleDtype::BF16)
                .per_tensor(ScaleDtype::F32),
        );
        grid.push(
            base.per_block([8], ScaleDtype::UE4M3)
                .per_tensor(ScaleDtype::F16),
        );
        if base.value.size_bits() < 8 {
            grid.push(base.with_store(QuantStore::Native));
        }
    }
    grid
}

#[test]
fn the_invalid_grid_never_reaches_a_backend() {
    // Opened while the backstop is on: without an adapter, burn's wgpu init panics, and
    // `wgpu_device` must turn that into its own failure (or the explicit skip).
    let wgpu = common::wgpu_device();
    burn_guard::panic::set_backstop_disabled(true);
    let grid = invalid_grid();
    assert!(grid.len() >= 150, "{}", grid.len());

    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let mut devices = vec![Device::flex(), Device::ndarray()];
    devices.extend(wgpu);
    let mut refused = 0;
    for device in &devices {
        for scheme in &grid {
            let t = Tensor::<2>::ones([4, 24], device);
            let err = t.try_quantize_dynamic(scheme).unwrap_err();
            assert!(
                matches!(err, GuardError::InvalidQuantScheme { .. }),
                "{device:?} {scheme:?}: {err}"
            );
            refused += 1;
        }
    }
    let remote = common::loopback_remote();
    let flex = Default::default();
    for scheme in &grid {
        let x = RemoteBackend::float_from_data(
            TensorData::new(vec![0.5f32; 4 * 24], [4, 24]),
            remote.device(),
        );
        let policy = Policy::fallback_to([]);
        let err = quantize_dynamic_or_fallback::<RemoteBackend, Flex>(x, scheme, &policy, &flex)
            .unwrap_err();
        assert!(
            matches!(err, GuardError::InvalidQuantScheme { .. }),
            "{err}"
        );
        refused += 1;
    }
    // And with the backstop off, a panic that does reach a backend is not turned into an error.
    let escaped = std::panic::catch_unwind(|| {
        burn_guard::panic::catch("probe", || -> () { panic!("reached the backend") })
    });
    assert!(escaped.is_err(), "the disabled backstop caught {escaped:?}");
    burn_guard::panic::set_backstop_disabled(false);
    println!("{refused} invalid (scheme, backend) pairs refused before dispatch");
}
