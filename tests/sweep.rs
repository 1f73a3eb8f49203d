//! A sweep of burn-tensor's public `Tensor` methods on Flex and NdArray with empty
//! (`[0]`, `[2, 0]`, `[0, 3]`), zero-sized and out-of-range inputs, raw under `catch_unwind`.
//!
//! Every call that panics must have a row in `tests/data/twins.tsv` (any class): the test
//! fails naming the method, the backend and burn's message otherwise. Run with `--nocapture` to
//! see every panic it met. Raw burn is swept on wgpu too, in child processes of this binary,
//! each resuming after the call that panicked: a kernel panic poisons the device for the rest
//! of its process. Another test runs the twins on the empty inputs where raw burn panics: each
//! answers, or refuses by a check (never the backstop), on Flex, NdArray and wgpu.

mod common;
#[path = "common/manifest.rs"]
mod manifest;
#[path = "common/sources.rs"]
mod sources;

use std::collections::BTreeSet;

use burn::tensor::activation;
use burn::tensor::{Bool, Device, Int, Tensor};

/// A panic met: (method, backend, case, message).
type Found = Vec<(&'static str, &'static str, String, String)>;

/// The names of burn-tensor's functions that fail, as the sweep names its calls: `narrow` for
/// `Tensor::narrow`.
fn listed() -> BTreeSet<String> {
    manifest::read()
        .rows
        .iter()
        .filter(|row| row.krate() == "burn-tensor" && row.is_entry())
        .map(|row| {
            row.function
                .rsplit("::")
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// Runs `$body` (which must force the result, e.g. with `into_data`) under catch and records a
/// panic as `$name`.
macro_rules! probe {
    ($found:expr, $backend:expr, $case:expr, $name:literal, $body:expr) => {
        if cursor::should_run() {
            if let Some(message) = common::panic_message(|| $body) {
                $found.push((
                    $name,
                    $backend,
                    $case.to_string(),
                    message.lines().next().unwrap_or("").to_owned(),
                ));
                cursor::panicked($backend);
            }
        }
    };
}

/// Where a raw sweep is, for resuming it in a fresh process: a kernel panic on wgpu poisons
/// the device for the rest of the process, so the wgpu sweep runs in child processes, each
/// starting at the call after the last one that panicked (or hung), and stops at its first
/// panic. On the CPU backends every call runs in this process.
mod cursor {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    static NEXT: AtomicUsize = AtomicUsize::new(0);
    static FROM: AtomicUsize = AtomicUsize::new(0);
    static STOPPED: AtomicBool = AtomicBool::new(false);

    pub fn start_at(from: usize) {
        FROM.store(from, Ordering::SeqCst);
    }

    /// Whether the next call runs; in a child it says which call it starts, first.
    pub fn should_run() -> bool {
        let index = NEXT.fetch_add(1, Ordering::SeqCst);
        let run = index >= FROM.load(Ordering::SeqCst) && !STOPPED.load(Ordering::SeqCst);
        if run {
            super::LAST_RUN.with(|last| last.set(index));
        }
        if run && super::CHILD.with(|child| *child) {
            println!("AT\t{index}");
            let _ = std::io::stdout().flush();
        }
        run
    }

    /// After a panic on wgpu the device may be poisoned: nothing more runs in this process.
    pub fn panicked(backend: &str) {
        if backend == "wgpu" {
            STOPPED.store(true, Ordering::SeqCst);
        }
    }

    pub fn stopped() -> bool {
        STOPPED.load(Ordering::SeqCst)
    }
}

thread_local! {
    /// Whether this thread is a wgpu sweep child, which reports its progress on stdout.
    static CHILD: bool = std::env::var(SWEEP_FROM).is_ok();
}

/// Set in a wgpu sweep child: the index of the first call to run.
const SWEEP_FROM: &str = "BURN_GUARD_WGPU_SWEEP_FROM";

/// The float/int methods with one tensor in and a tensor out, on a rank-2 tensor.
fn sweep_float2(found: &mut Found, backend: &'static str, case: &str, t: impl Fn() -> Tensor<2>) {
    macro_rules! p {
        ($name:literal, $e:expr) => {
            probe!(found, backend, case, $name, $e)
        };
    }
    let d = |x: Tensor<2>| x.into_data();
    let d1 = |x: Tensor<1>| x.into_data();
    p!("abs", d(t().abs()));
    p!("exp", d(t().exp()));
    p!("log", d(t().log()));
    p!("log1p", d(t().log1p()));
    p!("sqrt", d(t().sqrt()));
    p!("sin", d(t().sin()));
    p!("tanh", d(t().tanh()));
    p!("erf", d(t().erf()));
    p!("recip", d(t().recip()));
    p!("round", d(t().round()));
    p!("floor", d(t().floor()));
    p!("trunc", d(t().trunc()));
    p!("ceil", d(t().ceil()));
    p!("not_equal_scalar", t().not_equal_scalar(1.0).into_data());
    p!("not_equal_elem", t().not_equal_elem(1.0).into_data());
    p!("neg", d(t().neg()));
    p!("sign", d(t().sign()));
    p!("square", d(t().square()));
    p!("deg2rad", d(t().deg2rad()));
    p!("powf_scalar", d(t().powf_scalar(2.0)));
    p!("fmod_scalar", d(t().fmod_scalar(2.0)));
    p!("is_nan", t().is_nan().into_data());
    p!("is_finite", t().is_finite().into_data());
    p!("contains_nan", t().contains_nan().into_data());
    p!("sum", d1(t().sum()));
    p!("prod", d1(t().prod()));
    p!("mean", d1(t().mean()));
    p!("max", d1(t().max()));
    p!("min", d1(t().min()));
    p!("max_abs", d1(t().max_abs()));
    p!("any", t().any().into_data());
    p!("all", t().all().into_data());
    for dim in [0usize, 1] {
        p!("sum_dim", d(t().sum_dim(dim)));
        p!("mean_dim", d(t().mean_dim(dim)));
        p!("prod_dim", d(t().prod_dim(dim)));
        p!("cumsum", d(t().cumsum(dim)));
        p!("cumprod", d(t().cumprod(dim)));
        p!("cummax", d(t().cummax(dim)));
        p!("cummin", d(t().cummin(dim)));
        p!("sort", d(t().sort(dim)));
        p!("argsort", t().argsort(dim).into_data());
        p!("argmax", t().argmax(dim).into_data());
        p!("argmin", t().argmin(dim).into_data());
        p!("max_dim", d(t().max_dim(dim)));
        p!("min_dim", d(t().min_dim(dim)));
        p!("max_abs_dim", d(t().max_abs_dim(dim)));
        p!("max_dim_with_indices", d(t().max_dim_with_indices(dim).0));
        p!("var", d(t().var(dim)));
        p!("var_bias", d(t().var_bias(dim)));
        p!("var_mean", d(t().var_mean(dim).0));
        p!("median", d(t().median(dim)));
        p!("any_dim", t().any_dim(dim).into_data());
        p!("all_dim", t().all_dim(dim).into_data());
        p!("softmax", d(activation::softmax(t(), dim)));
        p!("log_softmax", d(activation::log_softmax(t(), dim)));
        p!("flip", d(t().flip([dim as isize])));
        p!("repeat_dim", d(t().repeat_dim(dim, 2)));
        p!("topk", d(t().topk(0, dim)));
        p!(
            "select",
            d(t().select(dim, Tensor::<1, Int>::from_ints([0], &t().device())))
        );
        p!("roll_dim", d(t().roll_dim(1, dim)));
        p!("split", t().split(1, dim).len());
        p!("chunk", t().chunk(2, dim).len());
        p!("narrow", d(t().narrow(dim, 0, 0)));
        p!("cov", d(t().cov(dim, 1)));
    }
    p!("transpose", d(t().transpose()));
    p!("flatten", d1(t().flatten::<1>(0, 1)));
    p!("unsqueeze", t().unsqueeze::<3>().into_data());
    p!("reshape", d1(t().reshape([-1])));
    p!("tril", d(t().tril(0)));
    p!("triu", d(t().triu(0)));
    p!("matmul", d(t().matmul(t().transpose())));
    p!("int", t().int().into_data());
    p!("bool", t().bool().into_data());
    p!("clamp", d(t().clamp(-1.0, 1.0)));
    p!("mask_fill", d(t().mask_fill(t().bool(), 1.0)));
    p!("mask_where", d(t().mask_where(t().bool(), t())));
    p!("mask_select", d1(t().mask_select(t().bool())));
    p!("expand", d(t().expand([2, -1])));
    p!(
        "pad",
        d(t().pad((1, 1, 1, 1), burn::tensor::ops::PadMode::Constant(0.0)))
    );
    p!("into_scalar", t().into_scalar::<f32>());
    p!("iter_dim", t().iter_dim(0).count());
    p!("slice", d(t().slice(burn::tensor::s![0..1])));
    p!(
        "quantize_dynamic",
        t().quantize_dynamic(&burn::tensor::quantization::QuantScheme::default())
            .into_data()
    );
    p!("is_close", t().is_close(t(), None, None).into_data());
    p!("all_close", t().all_close(t(), None, None));
    p!("unfold", t().unfold::<3, _>(1, 1, 1).into_data());
    p!(
        "stack",
        Tensor::<2>::stack::<3>(vec![t(), t()], 0).into_data()
    );
    p!("cat", d(Tensor::cat(vec![t(), t()], 0)));
    p!(
        "one_hot",
        t().int().flatten::<1>(0, 1).one_hot::<2>(3).into_data()
    );
    p!("nonzero", t().bool().nonzero().len());
    p!("argwhere", t().bool().argwhere().into_data());
    p!("sum_dims", d(t().sum_dims(&[0, 1])));
    p!("max_dims", d(t().max_dims(&[0, 1])));
    p!("topk_with_indices", d(t().topk_with_indices(1, 1).0));
    p!("sort_with_indices", d(t().sort_with_indices(1).0));
    p!("gather", d(t().gather(1, t().int())));
    p!(
        "scatter",
        d(t().scatter(1, t().int(), t(), burn::tensor::IndexingUpdateOp::Add))
    );
    p!("categorical", t().categorical(1).into_data());
}

/// Int and Bool methods on rank-2 tensors.
fn sweep_int2(
    found: &mut Found,
    backend: &'static str,
    case: &str,
    t: impl Fn() -> Tensor<2, Int>,
) {
    macro_rules! p {
        ($name:literal, $e:expr) => {
            probe!(found, backend, case, $name, $e)
        };
    }
    p!("max", t().max().into_data());
    p!("min", t().min().into_data());
    p!("sum", t().sum().into_data());
    p!("mean", t().mean().into_data());
    p!("prod", t().prod().into_data());
    p!("bitwise_not", t().bitwise_not().into_data());
    p!("bitwise_and", t().bitwise_and(t()).into_data());
    p!(
        "bitwise_left_shift",
        t().bitwise_left_shift(t()).into_data()
    );
    p!("div_scalar", t().div_scalar(2).into_data());
    p!("remainder_scalar", t().remainder_scalar(2).into_data());
    for dim in [0usize, 1] {
        p!("argmax", t().argmax(dim).into_data());
        p!("mean_dim", t().mean_dim(dim).into_data());
        p!("cumprod", t().cumprod(dim).into_data());
        p!("sort", t().sort(dim).into_data());
    }
    p!("float", t().float().into_data());
    p!("one_hot", t().one_hot::<3>(3).into_data());
    let b = || t().bool();
    p!("bool_not", b().bool_not().into_data());
    p!("bool_and", b().bool_and(b()).into_data());
    p!("any", b().any().into_data());
    p!("all", b().all().into_data());
    p!(
        "triu_mask",
        Tensor::<2, Bool>::triu_mask(t().dims(), 0, &t().device()).into_data()
    );
}

/// The 1-D methods: dot, matmul of vectors, ranges.
fn sweep_float1(found: &mut Found, backend: &'static str, case: &str, t: impl Fn() -> Tensor<1>) {
    macro_rules! p {
        ($name:literal, $e:expr) => {
            probe!(found, backend, case, $name, $e)
        };
    }
    p!("dot", t().dot(t()).into_data());
    p!("max", t().max().into_data());
    p!("min", t().min().into_data());
    p!("max_abs", t().max_abs().into_data());
    p!("median", t().median(0).into_data());
    p!("var", t().var(0).into_data());
    p!("sort", t().sort(0).into_data());
    p!("argmax", t().argmax(0).into_data());
    p!("cumsum", t().cumsum(0).into_data());
    p!("into_scalar", t().into_scalar::<f32>());
    p!("sum", t().sum().into_data());
    p!(
        "cross",
        t().reshape([-1, 3])
            .cross(t().reshape([-1, 3]), 1)
            .into_data()
    );
}

/// Out-of-range arguments on a non-empty tensor (most are class A).
fn sweep_out_of_range(found: &mut Found, backend: &'static str, device: &Device) {
    let t = || Tensor::<2>::ones([2, 3], device);
    let case = "[2, 3] out of range";
    macro_rules! p {
        ($name:literal, $e:expr) => {
            probe!(found, backend, case, $name, $e)
        };
    }
    p!("sum_dim", t().sum_dim(2).into_data());
    p!("argmax", t().argmax(5).into_data());
    p!("narrow", t().narrow(1, 2, 2).into_data());
    p!(
        "select",
        t().select(0, Tensor::<1, Int>::from_ints([5], device))
            .into_data()
    );
    p!(
        "gather",
        t().gather(1, Tensor::<2, Int>::ones([2, 3], device) * 7)
            .into_data()
    );
    p!("topk", t().topk(4, 1).into_data());
    p!("repeat_dim", t().repeat_dim(3, 2).into_data());
    p!("split", t().split(0, 1).len());
    p!("chunk", t().chunk(0, 1).len());
    p!("tril", t().tril(-10).into_data());
    p!(
        "one_hot",
        Tensor::<1, Int>::from_ints([5], device)
            .one_hot::<2>(3)
            .into_data()
    );
    p!(
        "powi_scalar",
        Tensor::<2, Int>::ones([2, 3], device)
            .powi_scalar(-1)
            .into_data()
    );
    p!(
        "div_scalar",
        Tensor::<2, Int>::ones([2, 3], device)
            .div_scalar(0)
            .into_data()
    );
    p!(
        "remainder_scalar",
        Tensor::<2, Int>::ones([2, 3], device)
            .remainder_scalar(0)
            .into_data()
    );
    #[allow(clippy::reversed_empty_ranges)] // A descending range, on purpose.
    let descending = 3..1;
    p!(
        "arange",
        Tensor::<1, Int>::arange(descending.clone(), device).into_data()
    );
    p!(
        "arange_step",
        Tensor::<1, Int>::arange_step(0..3, 0, device).into_data()
    );
    p!("unfold", t().unfold::<3, _>(1, 4, 1).into_data());
}

/// Values that the backends cannot take: integer zero divisors, negative integer exponents,
/// NaN to int, integer overflow.
fn sweep_values(found: &mut Found, backend: &'static str, device: &Device) {
    let i = || Tensor::<1, Int>::from_ints([4, -3, 7], device);
    let zero = || Tensor::<1, Int>::from_ints([0, 1, 0], device);
    let case = "values";
    macro_rules! p {
        ($name:literal, $e:expr) => {
            probe!(found, backend, case, $name, $e)
        };
    }
    p!("div", i().div(zero()).into_data());
    p!("remainder", i().remainder(zero()).into_data());
    p!("powi", i().powi(i().neg()).into_data());
    p!("powi", i().powi(i().abs().mul_scalar(10)).into_data());
    p!("mul_scalar", i().mul_scalar(i64::MAX).into_data());
    p!(
        "int",
        Tensor::<1>::from_floats([f32::NAN, 1e30], device)
            .int()
            .into_data()
    );
}

/// Every swept call on one device.
fn sweep_device(found: &mut Found, backend: &'static str, device: &Device) {
    for dims in [[2usize, 0], [0, 3]] {
        let case = format!("{dims:?}");
        sweep_float2(found, backend, &case, || Tensor::<2>::zeros(dims, device));
        sweep_int2(found, backend, &case, || {
            Tensor::<2, Int>::zeros(dims, device)
        });
    }
    sweep_float1(found, backend, "[0]", || Tensor::<1>::zeros([0], device));
    sweep_out_of_range(found, backend, device);
    sweep_values(found, backend, device);
}

#[test]
fn every_panic_met_is_listed() {
    let mut found = Found::new();
    for (backend, device) in common::cpu_devices() {
        sweep_device(&mut found, backend, &device);
    }
    assert_listed(&found);
}

/// The raw sweep on wgpu, one child process per stretch between panics (see [`cursor`]).
/// Each child is this binary running `wgpu_sweep_child`; a child that hangs is killed after
/// `CHILD_LIMIT` and its call counted as a hang.
#[test]
fn every_panic_met_on_wgpu_is_listed() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    const CHILD_LIMIT: Duration = Duration::from_secs(120);
    if common::wgpu_device().is_none() {
        return;
    }
    let mut found = Found::new();
    let mut from = 0usize;
    let mut children = 0;
    loop {
        children += 1;
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "wgpu_sweep_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(SWEEP_FROM, from.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let started = Instant::now();
        let (mut at, mut resume, mut done) = (from, None, false);
        loop {
            let left = CHILD_LIMIT.saturating_sub(started.elapsed());
            match receiver.recv_timeout(left) {
                Ok(line) => {
                    let fields: Vec<&str> = line.split('\t').collect();
                    match fields.as_slice() {
                        ["AT", index] => at = index.parse().unwrap(),
                        ["FOUND", name, case, message] => found.push((
                            leak(name),
                            "wgpu",
                            (*case).to_owned(),
                            (*message).to_owned(),
                        )),
                        ["RESUME", index] => resume = Some(index.parse().unwrap()),
                        ["DONE"] => done = true,
                        _ => {}
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    found.push(("(hang)", "wgpu", format!("call {at}"), String::new()));
                    resume = Some(at + 1);
                    break;
                }
            }
        }
        let _ = child.wait();
        match (done, resume) {
            (true, _) => break,
            (false, Some(next)) => from = next,
            // The child died without saying where to go on: skip the call it was in.
            (false, None) => {
                found.push(("(crash)", "wgpu", format!("call {at}"), String::new()));
                from = at + 1;
            }
        }
        assert!(children < 200, "the wgpu sweep does not end");
    }
    println!("wgpu sweep: {children} child processes");
    assert_listed(&found);
}

/// Method names from a child's report, as the `&'static str` the tally keeps.
fn leak(name: &str) -> &'static str {
    Box::leak(name.to_owned().into_boxed_str())
}

/// The child side of [`every_panic_met_on_wgpu_is_listed`]: does nothing unless started by it.
#[test]
fn wgpu_sweep_child() {
    let Some(from) = std::env::var(SWEEP_FROM)
        .ok()
        .and_then(|from| from.parse().ok())
    else {
        return;
    };
    let Some(device) = common::wgpu_device() else {
        return;
    };
    cursor::start_at(from);
    let mut found = Found::new();
    sweep_device(&mut found, "wgpu", &device);
    for (name, _, case, message) in &found {
        println!("FOUND\t{name}\t{case}\t{}", message.replace('\t', " "));
    }
    if cursor::stopped() {
        println!("RESUME\t{}", resume_index());
    } else {
        println!("DONE");
    }
}

/// The call after the one that stopped the child: the last `AT` it printed, plus one.
fn resume_index() -> usize {
    LAST_RUN.with(|last| last.get()) + 1
}

thread_local! {
    static LAST_RUN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn assert_listed(found: &Found) {
    let listed = listed();
    let mut unlisted = Vec::new();
    for (name, backend, case, message) in found {
        let mark = if listed.contains(*name) {
            "listed"
        } else {
            "UNLISTED"
        };
        println!("{mark:8} {backend:8} {case:20} {name:24} {message}");
        if !listed.contains(*name) {
            unlisted.push(format!("{name} ({backend}, {case}): {message}"));
        }
    }
    assert!(
        unlisted.is_empty(),
        "panics with no row in tests/data/twins.tsv:\n{}",
        unlisted.join("\n")
    );
}

/// `Ok`, or a refusal by a check; a caught panic fails.
fn answered<T>(case: &str, result: burn_guard::Result<T>) {
    if let Err(err @ burn_guard::GuardError::BackendPanic { .. }) = result {
        panic!("{case}: the twin only caught a panic: {err}");
    }
}

/// The twins on the empty inputs where raw burn panics somewhere: each answers or refuses.
fn twins_on_empty_inputs(backend: &str, device: &Device) {
    use burn_guard::prelude::*;
    use burn_guard::tensor::activation::{try_log_softmax, try_softmax};
    let device = device.clone();
    {
        for dims in [[2usize, 0], [0, 3]] {
            let t = || Tensor::<2>::zeros(dims, &device);
            let i = || Tensor::<2, Int>::zeros(dims, &device);
            let case = |name: &str| format!("{name} on {backend} {dims:?}");
            answered(&case("matmul"), t().try_matmul(t().transpose()));
            answered(&case("max"), t().try_max());
            answered(&case("min"), i().try_min());
            answered(&case("max_abs"), t().try_max_abs());
            answered(&case("tril"), t().try_tril(0));
            answered(&case("triu"), t().try_triu(0));
            answered(
                &case("triu_mask"),
                Tensor::<2, Bool>::try_triu_mask(dims, 0, &device),
            );
            answered(&case("mean"), i().try_mean());
            for dim in [0usize, 1] {
                answered(&case("cov"), t().try_cov(dim, 1));
                answered(&case("softmax"), try_softmax(t(), dim));
                answered(&case("log_softmax"), try_log_softmax(t(), dim));
                answered(&case("any_dim"), t().try_any_dim(dim));
                answered(&case("all_dim"), t().try_all_dim(dim));
                answered(&case("argmax"), t().try_argmax(dim));
                answered(&case("argmin"), t().try_argmin(dim));
                answered(&case("max_dim"), t().try_max_dim(dim));
                answered(&case("min_dim"), t().try_min_dim(dim));
                answered(&case("max_abs_dim"), t().try_max_abs_dim(dim));
                answered(&case("max_dims"), t().try_max_dims(&[dim]));
                answered(
                    &case("max_dim_with_indices"),
                    t().try_max_dim_with_indices(dim),
                );
                answered(&case("var"), t().try_var(dim));
                answered(&case("median"), t().try_median(dim));
                answered(&case("mean_dim"), i().try_mean_dim(dim));
            }
            answered(&case("unsqueeze"), t().try_unsqueeze::<3>());
            answered(
                &case("stack"),
                Tensor::<2>::try_stack::<3>(vec![t(), t()], 0),
            );
            answered(
                &case("quantize_dynamic"),
                t().try_quantize_dynamic(&Default::default()),
            );
            // Element-wise ops, bool ops and whole reductions whose wgpu kernels panic on a
            // [0, n] input (or on the output of one): answered without a kernel. Each result
            // is read back, so that a kernel a twin dispatched would fail here, on its name.
            let b = || Tensor::<2, Bool>::empty(dims, &device);
            answered(&case("round"), t().try_round().map(|x| x.into_data()));
            answered(&case("floor"), t().try_floor().map(|x| x.into_data()));
            answered(&case("trunc"), t().try_trunc().map(|x| x.into_data()));
            answered(&case("ceil"), t().try_ceil().map(|x| x.into_data()));
            answered(
                &case("not_equal_scalar"),
                t().try_not_equal_scalar(1.0).map(|x| x.into_data()),
            );
            answered(
                &case("not_equal_elem"),
                i().try_not_equal_elem(1).map(|x| x.into_data()),
            );
            answered(
                &case("greater_scalar"),
                t().try_greater_scalar(1.0).map(|x| x.into_data()),
            );
            answered(
                &case("fmod_scalar"),
                t().try_fmod_scalar(2.0).map(|x| x.into_data()),
            );
            answered(
                &case("is_finite"),
                t().try_is_finite().map(|x| x.into_data()),
            );
            answered(&case("bool"), t().try_bool().map(|x| x.into_data()));
            answered(&case("bool of int"), i().try_bool().map(|x| x.into_data()));
            answered(&case("bool_not"), b().try_bool_not().map(|x| x.into_data()));
            answered(&case("nonzero"), b().try_nonzero().map(|v| v.len()));
            answered(&case("argwhere"), b().try_argwhere().map(|x| x.into_data()));
            answered(&case("any"), t().try_any().map(|x| x.into_data()));
            answered(&case("all"), i().try_all().map(|x| x.into_data()));
            answered(&case("any of bool"), b().try_any().map(|x| x.into_data()));
            answered(&case("all of bool"), b().try_all().map(|x| x.into_data()));
        }
    }
}

#[test]
fn twins_answer_the_swept_cases() {
    use burn_guard::prelude::*;
    for (backend, device) in common::cpu_devices() {
        twins_on_empty_inputs(backend, &device);
        let i = || Tensor::<1, Int>::from_ints([4, -3, 7], &device);
        let zero = || Tensor::<1, Int>::from_ints([0, 1, 0], &device);
        let checks = [
            ("div", i().try_div(zero())),
            ("remainder", i().try_remainder(zero())),
            ("powi", i().try_powi(i().neg())),
            (
                "int",
                Tensor::<1>::from_floats([f32::NAN, 1e30], &device)
                    .try_int()
                    .map(|_| i()),
            ),
        ];
        for (name, result) in checks {
            // NdArray refuses negative exponents and NaN to int; Flex takes them.
            if (name == "powi" || name == "int") && backend == "flex" {
                assert!(result.is_ok(), "{name} on {backend}: {result:?}");
                continue;
            }
            assert!(
                matches!(
                    result,
                    Err(burn_guard::GuardError::OutOfRange { .. }
                        | burn_guard::GuardError::NonFinite { .. })
                ),
                "{name} on {backend}: {result:?}"
            );
        }
    }
}

/// On wgpu a kernel panic poisons the device for the whole process, so there the backstop is
/// no defence: every swept empty input must be answered without a kernel that rejects it, or
/// refused by a check. A caught panic fails.
#[test]
fn twins_answer_the_swept_cases_on_wgpu() {
    let Some(device) = common::wgpu_device() else {
        return;
    };
    assert!(
        burn_guard::capability::stack_of(&device)
            .label()
            .contains("wgpu"),
        "{}",
        burn_guard::capability::stack_of(&device).label()
    );
    twins_on_empty_inputs("wgpu", &device);
    // The device still computes afterwards: nothing poisoned it.
    let x = Tensor::<1>::from_floats([1.0, 2.0], &device);
    assert_eq!(
        (x.clone() + x)
            .into_data()
            .convert::<f32>()
            .try_to_vec::<f32>()
            .unwrap(),
        vec![2.0, 4.0]
    );
}
