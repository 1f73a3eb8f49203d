//! Panic containment: after 1 000 consecutive refused or caught failures on one
//! device — refusals by our checks and backend panics caught by the backstop — that device
//! still computes a known matmul exactly. Flex, NdArray, wgpu and a loopback remote.
//!
//! wgpu is different: a panic inside a kernel happens on burn's fusion worker thread and
//! poisons the device for the whole process (measured; see `tests/capability_truth.rs`), so
//! no kernel-level failure is provoked there. Its 1 000 failures are refusals by our checks
//! before dispatch and panics that burn raises on the caller thread before anything is
//! queued (its own argument assertions in `burn-tensor`: matmul shapes, narrow range, reshape
//! size). Each caught panic is asserted to come from the caller thread (the backstop's
//! `catch_unwind` on this thread saw it) and from outside CubeCL / fusion (its location).

mod common;

use burn::tensor::quantization::{QuantScheme, QuantStore, QuantValue, ScaleDtype};
use burn::tensor::{Device, Tensor, TensorData};
use burn_backend::ops::FloatTensorOps;
use burn_backend::read_sync;
use burn_flex::Flex;
use burn_guard::GuardError;
use burn_guard::backend::quant::{
    Placed, q_matmul, quantize_dynamic, quantize_dynamic_or_fallback,
};
use burn_guard::policy::Policy;
use burn_guard::tensor::{TryNumeric, TryQuantize, TryTensor, TryView};
use burn_remote::RemoteBackend;

const FAILURES: usize = 1_000;

/// `A · B` for the known matmul: 3×4 · 4×2.
const A: [f32; 12] = [1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12.];
const B: [f32; 8] = [1., 0., 0., 1., 1., 1., 2., -1.];
const AB: [f32; 6] = [12., 1., 28., 5., 44., 9.];

fn known_matmul(device: &Device) -> Vec<f32> {
    let a = Tensor::<2>::from_data(TensorData::new(A.to_vec(), [3, 4]), device);
    let b = Tensor::<2>::from_data(TensorData::new(B.to_vec(), [4, 2]), device);
    let product = a.try_matmul(b).unwrap();
    assert_eq!(product.dims(), [3, 2]);
    product
        .into_data()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .unwrap()
}

fn ones(dims: [usize; 2], device: &Device) -> Tensor<2> {
    Tensor::<2>::ones(dims, device)
}

/// How the failures split, by kind.
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    refused: usize,
    caught: usize,
}

thread_local! {
    /// Where the caught panics came from, `file:line` (no column), for the run's report.
    static LOCATIONS: std::cell::RefCell<std::collections::BTreeSet<String>> =
        const { std::cell::RefCell::new(std::collections::BTreeSet::new()) };
}

fn report_locations(name: &str) {
    LOCATIONS.with(|set| {
        for location in set.borrow_mut().split_off("") {
            println!("{name}: caught panics at {location}");
        }
    });
}

/// Asserts a refusal by our checks (anything but a caught panic).
fn refused(tally: &mut Tally, case: &str, outcome: Result<impl Sized, GuardError>) {
    match outcome {
        Err(GuardError::BackendPanic { message, .. }) => {
            panic!("{case}: reached the backend and panicked ({message}); a check should refuse")
        }
        Err(_) => tally.refused += 1,
        Ok(_) => panic!("{case}: expected a refusal, got Ok"),
    }
}

/// Runs raw burn under the backstop and asserts it panicked on this thread, before any
/// CubeCL kernel or fusion stream (by the panic's location).
fn caught<T>(tally: &mut Tally, case: &str, f: impl FnOnce() -> T) {
    caught_on(tally, case, false, f);
}

/// [`caught`]; with `wgpu_only_caller_thread`, also asserts the panic is one of burn-tensor's
/// argument checks (raised on the caller thread before anything is queued).
fn caught_on<T>(
    tally: &mut Tally,
    case: &str,
    wgpu_only_caller_thread: bool,
    f: impl FnOnce() -> T,
) {
    match burn_guard::panic::catch("raw burn", f) {
        Err(GuardError::BackendPanic { location, .. }) => {
            let location = location.unwrap_or_default();
            assert!(
                !location.contains("cubecl") && !location.contains("burn-fusion"),
                "{case}: panicked in a kernel path at {location}"
            );
            // `…/burn-tensor-0.22.1/src/tensor/api/check.rs:1394:13` becomes
            // `burn-tensor-0.22.1/src/tensor/api/check.rs:1394`.
            let without_column = location
                .rsplit_once(':')
                .map_or(location.as_str(), |(l, _)| l);
            let short = match without_column.rsplit_once("/src/") {
                Some((head, tail)) => {
                    format!("{}/src/{tail}", head.rsplit('/').next().unwrap_or(head))
                }
                None => without_column.to_owned(),
            };
            if wgpu_only_caller_thread {
                assert!(
                    short.starts_with("burn-tensor-"),
                    "{case}: on wgpu only burn-tensor's own argument checks may panic; got {short}"
                );
            }
            LOCATIONS.with(|set| set.borrow_mut().insert(short));
            tally.caught += 1;
        }
        Err(other) => panic!("{case}: unexpected {other}"),
        Ok(_) => panic!("{case}: raw burn did not panic"),
    }
}

/// One failure of kind `i % 8` on a CPU backend (`burn::Tensor` level): four refused by our
/// checks, four real backend panics caught by the backstop.
fn cpu_failure(i: usize, device: &Device, ndarray: bool, tally: &mut Tally) {
    let non_dividing = QuantScheme::default().per_block([32], ScaleDtype::F32);
    match i % 8 {
        0 => refused(
            tally,
            "try_matmul [2, 3]·[4, 5]",
            ones([2, 3], device).try_matmul(ones([4, 5], device)),
        ),
        1 => refused(
            tally,
            "try_narrow dim 2 of rank 2",
            ones([2, 3], device).try_narrow(2, 0, 1),
        ),
        2 => refused(
            tally,
            "try_quantize_dynamic block 32 on [4, 24]",
            ones([4, 24], device).try_quantize_dynamic(&non_dividing),
        ),
        3 => {
            // Unsupported capability: NdArray packs nothing; Flex has no minifloat quantization.
            let scheme = if ndarray {
                QuantScheme::default()
            } else {
                QuantScheme::default().with_value(QuantValue::E4M3)
            };
            let outcome = ones([4, 32], device).try_quantize_dynamic(&scheme);
            assert!(
                matches!(outcome, Err(GuardError::Unsupported(_))),
                "{outcome:?}"
            );
            refused(tally, "unsupported quantization", outcome);
        }
        4 => caught(tally, "raw matmul [2, 3]·[4, 5]", || {
            ones([2, 3], device).matmul(ones([4, 5], device))
        }),
        5 => caught(tally, "raw narrow 2..5 of 3", || {
            ones([2, 3], device).narrow(1, 2, 3)
        }),
        6 => {
            if ndarray {
                // NdArray panics inside the backend: packed stores are not supported.
                caught(tally, "raw NdArray quantize packed", || {
                    ones([4, 32], device).quantize_dynamic(&QuantScheme::default())
                });
            } else {
                // Flex panics inside the backend: the block does not divide the shape.
                caught(tally, "raw Flex quantize block 32 on [4, 24]", || {
                    ones([4, 24], device).quantize_dynamic(&non_dividing)
                });
            }
        }
        _ => caught(tally, "raw reshape [2, 3] -> [4, 2]", || {
            ones([2, 3], device).reshape([4, 2])
        }),
    }
}

fn cpu_containment(name: &str, device: &Device, ndarray: bool) {
    let mut tally = Tally::default();
    for i in 0..FAILURES {
        cpu_failure(i, device, ndarray, &mut tally);
    }
    assert_eq!(
        tally,
        Tally {
            refused: 500,
            caught: 500
        },
        "{name}"
    );
    assert_eq!(known_matmul(device), AB, "{name}");
    println!("{name}: {tally:?} in a row, then 3x4 · 4x2 exact");
    report_locations(name);
}

#[test]
fn flex_still_computes_after_1000_failures() {
    cpu_containment("flex", &Device::flex(), false);
}

#[test]
fn ndarray_still_computes_after_1000_failures() {
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let ndarray = Device::ndarray();
    cpu_containment("ndarray", &ndarray, true);
}

/// wgpu: only failures that never reach a kernel — see the module comment.
#[test]
fn wgpu_still_computes_after_1000_failures() {
    let Some(wgpu) = common::wgpu_device() else {
        return;
    };
    let stack = burn_guard::capability::stack_of(&wgpu);
    let native_q8 = QuantScheme::default().with_store(QuantStore::Native);
    assert!(!burn_guard::capability::quantize_support(stack, &native_q8, &[4, 32]).is_native());
    let non_dividing = QuantScheme::default().per_block([32], ScaleDtype::F32);
    let mut tally = Tally::default();
    for i in 0..FAILURES {
        match i % 8 {
            0 => refused(
                &mut tally,
                "try_matmul [2, 3]·[4, 5]",
                ones([2, 3], &wgpu).try_matmul(ones([4, 5], &wgpu)),
            ),
            1 => refused(
                &mut tally,
                "try_narrow 2..5 of 3",
                ones([2, 3], &wgpu).try_narrow(1, 2, 3),
            ),
            2 => refused(
                &mut tally,
                "try_quantize_dynamic block 32 on [4, 24]",
                ones([4, 24], &wgpu).try_quantize_dynamic(&non_dividing),
            ),
            3 => {
                let outcome = ones([4, 32], &wgpu).try_quantize_dynamic(&native_q8);
                assert!(
                    matches!(outcome, Err(GuardError::Unsupported(_))),
                    "{outcome:?}"
                );
                refused(&mut tally, "native q8 on wgpu", outcome);
            }
            4 => refused(
                &mut tally,
                "try_reshape [2, 3] -> [4, 2]",
                ones([2, 3], &wgpu).try_reshape([4, 2]),
            ),
            5 => caught_on(&mut tally, "raw matmul [2, 3]·[4, 5]", true, || {
                ones([2, 3], &wgpu).matmul(ones([4, 5], &wgpu))
            }),
            6 => caught_on(&mut tally, "raw narrow 2..5 of 3", true, || {
                ones([2, 3], &wgpu).narrow(1, 2, 3)
            }),
            _ => caught_on(&mut tally, "raw reshape [2, 3] -> [4, 2]", true, || {
                ones([2, 3], &wgpu).reshape([4, 2])
            }),
        }
    }
    assert_eq!(
        tally,
        Tally {
            refused: 625,
            caught: 375
        }
    );
    assert_eq!(known_matmul(&wgpu), AB);
    println!("wgpu: {tally:?} in a row, then 3x4 · 4x2 exact");
    report_locations("wgpu");
}

/// Remote, at the backend level: 1 000 refusals on a `RemoteBackend` device, then a matmul on
/// the same device, read back exactly.
#[test]
fn remote_still_computes_after_1000_refusals() {
    let remote = common::loopback_remote();
    let device = remote.device();
    let flex = Default::default();
    let float = |values: Vec<f32>, shape: [usize; 2]| {
        RemoteBackend::float_from_data(TensorData::new(values, shape), device)
    };
    let strict = Policy::strict();
    // A weight quantized through fallback, to refuse mismatched activations against.
    let weight = quantize_dynamic_or_fallback::<RemoteBackend, Flex>(
        float(vec![0.5; 4 * 8], [4, 8]),
        &QuantScheme::default(),
        &Policy::fallback_to([]),
        &flex,
    )
    .unwrap();
    assert!(matches!(weight, Placed::Fallback(_)));

    let mut tally = Tally::default();
    for i in 0..FAILURES {
        match i % 5 {
            0 => {
                // The router cannot quantize at all: refused before anything is sent.
                let outcome = quantize_dynamic::<RemoteBackend>(
                    float(vec![1.0; 8], [2, 4]),
                    &QuantScheme::default(),
                );
                assert!(
                    matches!(outcome, Err(GuardError::Unsupported(_))),
                    "{outcome:?}"
                );
                refused(&mut tally, "router quantize", outcome);
            }
            1 => refused(
                &mut tally,
                "strict quantize_dynamic_or_fallback",
                quantize_dynamic_or_fallback::<RemoteBackend, Flex>(
                    float(vec![1.0; 8], [2, 4]),
                    &QuantScheme::default(),
                    &strict,
                    &flex,
                ),
            ),
            2 => refused(
                &mut tally,
                "linear x [2, 3], weight [4, 5]",
                burn_guard::backend::linear::<RemoteBackend>(
                    float(vec![1.0; 6], [2, 3]),
                    float(vec![1.0; 20], [4, 5]),
                    None,
                ),
            ),
            3 => refused(
                &mut tally,
                "q_matmul [3, 5]·q[4, 8]",
                q_matmul::<RemoteBackend, Flex>(
                    float(vec![1.0; 15], [3, 5]),
                    &weight,
                    &strict,
                    &flex,
                ),
            ),
            _ => refused(
                &mut tally,
                "invalid scheme",
                quantize_dynamic_or_fallback::<RemoteBackend, Flex>(
                    float(vec![1.0; 4 * 24], [4, 24]),
                    &QuantScheme::default().per_block([32], ScaleDtype::F32),
                    &Policy::fallback_to([]),
                    &flex,
                ),
            ),
        }
    }
    assert_eq!(
        tally,
        Tally {
            refused: FAILURES,
            caught: 0
        }
    );
    assert_eq!(
        strict
            .stats_of(burn_guard::policy::Op::QuantizeDynamic)
            .errors,
        200
    );
    assert_eq!(strict.stats_of(burn_guard::policy::Op::QMatmul).errors, 200);

    let a = float(A.to_vec(), [3, 4]);
    let b = float(B.to_vec(), [4, 2]);
    let product = RemoteBackend::float_matmul(a, b);
    let values = read_sync(RemoteBackend::float_into_data(product))
        .unwrap()
        .convert::<f32>()
        .try_to_vec::<f32>()
        .unwrap();
    assert_eq!(values, AB);
    println!("remote: {tally:?} in a row, then 3x4 · 4x2 exact");
}
