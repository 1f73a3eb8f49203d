//! Concurrency: 8 threads × 10 000 mixed calls on shared devices (one Flex, one
//! NdArray) and one shared policy (`Policy::fallback_to([Flex])`, whose clones share their
//! statistics): no deadlock, no poisoned lock, statistics totals exact.
//!
//! The mix, per block of 100 calls on every thread (deterministic, by call index):
//!
//! | calls | what |
//! |---|---|
//! | 30 | pure checks (`check::matmul`, `quant_scheme`, `dim`, `narrow`, `broadcast`, `quant_values`), Ok and Err |
//! | 20 | capability lookups (`stack_of`, `quantize_support`, `dtype_support`) |
//! | 8 | `try_` twins refused (matmul, narrow, add shapes) on Flex / NdArray |
//! | 8 | `try_` twins that succeed (matmul, add) on Flex / NdArray, values checked |
//! | 3 | `quantize_dynamic_with` on NdArray, packed scheme → fallback to Flex (counted) |
//! | 3 | `quantize_dynamic_with`, invalid scheme → refused (counted error) |
//! | 1 | `quantize_dynamic_with` on NdArray, a NaN in the values → refused (counted error) |
//! | 3 | `quantize_dynamic_with` on Flex → native (counted) |
//! | 2 | raw burn panics caught by the backstop (matmul shape mismatch on Flex / NdArray) |
//! | 22 | `policy.stats()` reads (each a lock of the shared statistics), checked monotonic |
//!
//! Most calls are cheap on purpose: the binary stays within seconds in debug on 2 cores, while
//! 8 × 10 000 calls still interleave on the same locks (statistics, warn-once set, stack and
//! probe caches, the backstop's hook).
//!
//! A deadlock is detected by a watchdog: every thread reports on a channel when done, and the
//! test fails if all have not reported within a generous bound. A poisoned lock can only come
//! from a thread panicking while holding it; every thread reports `Ok` (no panic escaped
//! anywhere), and the statistics lock is read again after all threads are done.

mod common;

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use burn::tensor::quantization::{QuantScheme, QuantStore, ScaleDtype};
use burn::tensor::{DType, Device, Tensor, TensorData};
use burn_guard::GuardError;
use burn_guard::capability::{dtype_support, quantize_support, stack_of};
use burn_guard::check;
use burn_guard::policy::Policy;
use burn_guard::tensor::{TryNumeric, TryQuantize, TryTensor};

const THREADS: usize = 8;
const CALLS: usize = 10_000;
const WATCHDOG: Duration = Duration::from_secs(300);
const SHAPE: [usize; 2] = [2, 32];

/// What one thread did, by kind.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    checks: u64,
    lookups: u64,
    refused: u64,
    succeeded: u64,
    fallbacks: u64,
    invalid: u64,
    non_finite: u64,
    native: u64,
    caught: u64,
    reads: u64,
}

impl Counts {
    fn total(&self) -> u64 {
        self.checks
            + self.lookups
            + self.refused
            + self.succeeded
            + self.fallbacks
            + self.invalid
            + self.non_finite
            + self.native
            + self.caught
            + self.reads
    }

    fn add(&mut self, other: &Counts) {
        self.checks += other.checks;
        self.lookups += other.lookups;
        self.refused += other.refused;
        self.succeeded += other.succeeded;
        self.fallbacks += other.fallbacks;
        self.invalid += other.invalid;
        self.non_finite += other.non_finite;
        self.native += other.native;
        self.caught += other.caught;
        self.reads += other.reads;
    }
}

fn values(seed: usize) -> Vec<f32> {
    (0..SHAPE[0] * SHAPE[1])
        .map(|i| ((i + seed) % 11) as f32 * 0.25 - 1.0)
        .collect()
}

fn tensor(seed: usize, device: &Device) -> Tensor<2> {
    Tensor::<2>::from_data(TensorData::new(values(seed), SHAPE), device)
}

fn is_refusal<T>(outcome: &Result<T, GuardError>) -> bool {
    matches!(outcome, Err(err) if !matches!(err, GuardError::BackendPanic { .. }))
}

/// One thread's 10 000 calls. Returns its counts, or what went wrong.
fn worker(id: usize, flex: Device, ndarray: Device, policy: Policy) -> Result<Counts, String> {
    let mut n = Counts::default();
    let packed = QuantScheme::default();
    let native = QuantScheme::default().with_store(QuantStore::Native);
    let invalid = QuantScheme::default().per_block([24], ScaleDtype::F32);
    let mut last_seen = 0u64;
    for i in 0..CALLS {
        let slot = (i + id * 7) % 100;
        let device = if i % 2 == 0 { &flex } else { &ndarray };
        let fail = |what: &str| format!("thread {id} call {i} (slot {slot}): {what}");
        match slot {
            0..30 => {
                let ok = match slot % 6 {
                    0 => {
                        check::matmul("matmul", &[2, 3], &[3, 4]).ok() == Some(vec![2, 4])
                            && check::matmul("matmul", &[2, 3], &[4, 4]).is_err()
                    }
                    1 => {
                        check::quant_scheme("q", &packed, &SHAPE).is_ok()
                            && check::quant_scheme("q", &invalid, &SHAPE).is_err()
                    }
                    2 => {
                        check::dim("narrow", -1, 3).ok() == Some(2)
                            && check::dim("narrow", 3, 3).is_err()
                    }
                    3 => {
                        check::narrow("narrow", &[4, 4], 0, 1, 3).is_ok()
                            && check::narrow("narrow", &[4, 4], 0, 3, 2).is_err()
                    }
                    4 => {
                        check::broadcast("add", &[2, 1], &[1, 3]).ok() == Some(vec![2, 3])
                            && check::broadcast("add", &[2, 2], &[3, 2]).is_err()
                    }
                    _ => {
                        let range = |non_finite, max_abs| check::quant::ValueRange {
                            non_finite,
                            len: 64,
                            max_abs,
                        };
                        check::quant::quant_values("q", &packed, range(0, 1.0)).is_ok()
                            && check::quant::quant_values("q", &packed, range(1, 1.0)).is_err()
                    }
                };
                if !ok {
                    return Err(fail("a pure check answered wrongly"));
                }
                n.checks += 1;
            }
            30..50 => {
                let flex_stack = stack_of(&flex);
                let ndarray_stack = stack_of(&ndarray);
                let ok = match slot % 3 {
                    0 => {
                        flex_stack.name().contains("flex")
                            && ndarray_stack.name().contains("ndarray")
                    }
                    1 => {
                        quantize_support(flex_stack, &packed, &SHAPE).is_native()
                            && !quantize_support(ndarray_stack, &packed, &SHAPE).is_native()
                            && quantize_support(ndarray_stack, &native, &SHAPE).is_native()
                    }
                    _ => dtype_support::<burn_flex::Flex>(&Default::default(), DType::F32)
                        .is_native(),
                };
                if !ok {
                    return Err(fail("a capability lookup answered wrongly"));
                }
                n.lookups += 1;
            }
            50..58 => {
                let outcome = match slot % 3 {
                    0 => tensor(i, device).try_matmul(tensor(i, device)).map(|_| ()),
                    1 => tensor(i, device).try_narrow(1, 30, 5).map(|_| ()),
                    _ => tensor(i, device)
                        .try_add(Tensor::ones([3, 32], device))
                        .map(|_| ()),
                };
                if !is_refusal(&outcome) {
                    return Err(fail(&format!("expected a refusal, got {outcome:?}")));
                }
                n.refused += 1;
            }
            58..66 => {
                let a = Tensor::<2>::from_data(
                    TensorData::new(vec![1.0f32, 2.0, 3.0, 4.0], [2, 2]),
                    device,
                );
                let b = Tensor::<2>::from_data(
                    TensorData::new(vec![0.0f32, 1.0, 1.0, 0.0], [2, 2]),
                    device,
                );
                let got = if slot.is_multiple_of(2) {
                    a.try_matmul(b)
                } else {
                    a.try_add(b)
                }
                .map_err(|err| fail(&err.to_string()))?;
                let got = got
                    .into_data()
                    .convert::<f32>()
                    .try_to_vec::<f32>()
                    .map_err(|err| fail(&format!("{err:?}")))?;
                let want = if slot.is_multiple_of(2) {
                    vec![2.0, 1.0, 4.0, 3.0]
                } else {
                    vec![1.0, 3.0, 4.0, 4.0]
                };
                if got != want {
                    return Err(fail(&format!("{got:?} != {want:?}")));
                }
                n.succeeded += 1;
            }
            66..69 => {
                let q = tensor(i, &ndarray)
                    .quantize_dynamic_with(&packed, &policy)
                    .map_err(|err| fail(&err.to_string()))?;
                if q.device() != flex {
                    return Err(fail("fallback did not land on Flex"));
                }
                n.fallbacks += 1;
            }
            69..72 => {
                let outcome = tensor(i, device).quantize_dynamic_with(&invalid, &policy);
                if !matches!(outcome, Err(GuardError::InvalidQuantScheme { .. })) {
                    return Err(fail(&format!(
                        "expected InvalidQuantScheme, got {outcome:?}"
                    )));
                }
                n.invalid += 1;
            }
            72 => {
                let mut hostile = values(i);
                hostile[5] = f32::NAN;
                let t = Tensor::<2>::from_data(TensorData::new(hostile, SHAPE), &ndarray);
                let outcome = t.quantize_dynamic_with(&packed, &policy);
                if !matches!(outcome, Err(GuardError::NonFinite { count: 1, .. })) {
                    return Err(fail(&format!("expected NonFinite, got {outcome:?}")));
                }
                n.non_finite += 1;
            }
            73..76 => {
                let q = tensor(i, &flex)
                    .quantize_dynamic_with(&packed, &policy)
                    .map_err(|err| fail(&err.to_string()))?;
                if q.device() != flex {
                    return Err(fail("native quantization moved"));
                }
                n.native += 1;
            }
            76..78 => {
                let outcome = burn_guard::panic::catch("raw burn", || {
                    Tensor::<2>::ones([2, 3], device).matmul(Tensor::ones([4, 5], device))
                });
                if !matches!(outcome, Err(GuardError::BackendPanic { .. })) {
                    return Err(fail("raw burn did not panic into the backstop"));
                }
                n.caught += 1;
            }
            _ => {
                let stats = policy.stats();
                let seen = stats
                    .get(&burn_guard::policy::Op::QuantizeDynamic)
                    .map_or(0, |s| s.native + s.fallbacks + s.errors);
                if seen < last_seen {
                    return Err(fail(&format!("statistics went back: {seen} < {last_seen}")));
                }
                last_seen = seen;
                n.reads += 1;
            }
        }
    }
    // The backstop still works on this thread, and stays silent and scoped.
    let after = burn_guard::panic::catch("after", || -> () { panic!("thread {id} still caught") });
    match after {
        Err(GuardError::BackendPanic { message, .. }) if message.contains("still caught") => {}
        other => return Err(format!("thread {id}: backstop after the run: {other:?}")),
    }
    Ok(n)
}

#[test]
fn eight_threads_share_devices_and_one_policy() {
    let flex = Device::flex();
    #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
    let ndarray = Device::ndarray();
    let policy = Policy::fallback_to([flex.clone()]);

    let start = Instant::now();
    let (done, reports) = mpsc::channel();
    let mut handles = Vec::new();
    for id in 0..THREADS {
        let (flex, ndarray, policy, done) =
            (flex.clone(), ndarray.clone(), policy.clone(), done.clone());
        handles.push(thread::spawn(move || {
            // A panic escaping the worker would be reported by the join below; report it here
            // too so that the watchdog does not wait for it.
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                worker(id, flex, ndarray, policy)
            }))
            .unwrap_or_else(|_| Err(format!("thread {id} panicked")));
            let _ = done.send((id, outcome));
        }));
    }
    drop(done);

    let deadline = start + WATCHDOG;
    let mut totals = Counts::default();
    let mut per_thread = Vec::new();
    for _ in 0..THREADS {
        let left = deadline.saturating_duration_since(Instant::now());
        let (id, outcome) = reports.recv_timeout(left).unwrap_or_else(|err| {
            panic!(
                "watchdog: only {} of {THREADS} threads finished within {WATCHDOG:?} ({err}): deadlock?",
                per_thread.len()
            )
        });
        let counts = outcome.unwrap();
        assert_eq!(counts.total(), CALLS as u64, "thread {id}: {counts:?}");
        totals.add(&counts);
        per_thread.push((id, counts));
    }
    for handle in handles {
        handle.join().unwrap();
    }
    let elapsed = start.elapsed();

    // Every thread ran the same mix (shifted): the totals are exact.
    let per_kind = |slots: u64| slots * (CALLS as u64 / 100) * THREADS as u64;
    assert_eq!(
        totals,
        Counts {
            checks: per_kind(30),
            lookups: per_kind(20),
            refused: per_kind(8),
            succeeded: per_kind(8),
            fallbacks: per_kind(3),
            invalid: per_kind(3),
            non_finite: per_kind(1),
            native: per_kind(3),
            caught: per_kind(2),
            reads: per_kind(22),
        }
    );
    assert_eq!(totals.total(), (THREADS * CALLS) as u64);

    // The shared statistics count exactly what the threads did, read after all are done.
    let stats = policy.stats();
    assert_eq!(stats.len(), 1, "{stats:?}");
    let quantize = stats[&burn_guard::policy::Op::QuantizeDynamic];
    assert_eq!(quantize.native, totals.native);
    assert_eq!(quantize.fallbacks, totals.fallbacks);
    assert_eq!(quantize.errors, totals.invalid + totals.non_finite);
    assert_eq!(
        quantize.bytes_to_fallback,
        // The tensors are f32; `tests/policy.rs` checks f16 and bf16 moves too.
        totals.fallbacks * (SHAPE[0] * SHAPE[1] * burn::tensor::DType::F32.size()) as u64
    );
    assert_eq!(quantize.bytes_from_fallback, 0);

    // The backstop still works on this thread too.
    assert!(common::panic_message(|| -> () { panic!("main still caught") }).is_some());
    println!(
        "{THREADS} threads x {CALLS} calls in {elapsed:?}: {totals:?}; quantize_dynamic stats {quantize:?}"
    );
}
