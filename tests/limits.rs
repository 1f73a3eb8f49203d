//! Device limits and the byte rule on real parts: what Flex, NdArray and wgpu (lavapipe here)
//! report, tensors over a device's largest buffer refused by checks before dispatch (kind
//! `TooLarge`, never a caught `BackendPanic`), and tensors just under it created and read back.
//!
//! Every refusal here is one burn would not make: without the rule, `zeros` over the limit on
//! wgpu returns `Ok` and fails at the first read; `[2^61]` on Flex and NdArray panics in the
//! allocator ("capacity overflow", caught as `BackendPanic`); an overflowing shape panics in a
//! debug build and wraps silently in a release one.

mod common;

use burn::tensor::{DType, Device, Int, Tensor};
use burn_guard::capability::{LimitsSource, host_memory, limits_of};
use burn_guard::prelude::*;

/// Asserts `result` is a `TooLarge` refusal of `op` with these bytes and limit, on `device`.
#[track_caller]
fn assert_too_large<T: std::fmt::Debug>(
    result: burn_guard::Result<T>,
    op: &str,
    bytes: Option<u64>,
    limit: Option<u64>,
    device: &Device,
) {
    let err = result.unwrap_err();
    match &err {
        GuardError::TooLarge {
            op: got_op,
            bytes: got_bytes,
            limit: got_limit,
            device: name,
        } => {
            assert_eq!(*got_op, op, "{err}");
            assert_eq!(*got_bytes, bytes, "{err}");
            assert_eq!(*got_limit, limit, "{err}");
            assert_eq!(*name, format!("{device:?}"), "{err}");
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    assert_eq!(err.kind(), ErrorKind::TooLarge);
}

#[allow(deprecated)] // NdArray is deprecated upstream; still supported.
fn cpu_devices() -> Vec<Device> {
    vec![
        Device::flex(),
        Device::ndarray(),
        Device::flex().autodiff(),
        Device::ndarray().autodiff(),
    ]
}

#[test]
fn cpu_devices_report_the_hosts_limits() {
    let host = host_memory();
    #[cfg(target_os = "linux")]
    assert!(host.is_some(), "/proc/meminfo unreadable");
    for device in cpu_devices() {
        let limits = limits_of(&device);
        assert_eq!(limits.source, LimitsSource::Host, "{device:?}");
        assert_eq!(limits.max_buffer_bytes, Some(isize::MAX as u64));
        assert_eq!(limits.alignment, None);
        assert_eq!(limits.capacity_bytes, host.map(|memory| memory.total_bytes));
    }
    if let Some(memory) = host {
        assert!(memory.available_bytes <= memory.total_bytes, "{memory:?}");
        println!(
            "host: largest buffer {} B, {} of {} B available",
            isize::MAX,
            memory.available_bytes,
            memory.total_bytes
        );
    }
}

/// Past Rust's largest allocation and past `usize`: refused by the byte rule on every CPU
/// device, for every kind of creation and for outputs the shape checks computed.
#[test]
fn cpu_sizes_past_the_allocator_are_refused_by_checks() {
    const HOST: Option<u64> = Some(isize::MAX as u64);
    for device in cpu_devices() {
        let d = &device;
        // 2^61 f32 = 2^63 bytes: one past isize::MAX.
        assert_too_large(
            Tensor::<1>::try_zeros([1usize << 61], d),
            "zeros",
            Some(1 << 63),
            HOST,
            d,
        );
        assert_too_large(
            Tensor::<1>::try_empty([1usize << 61], d),
            "empty",
            Some(1 << 63),
            HOST,
            d,
        );
        assert_too_large(
            Tensor::<1, Int>::try_full([1usize << 61], 7, (d, DType::I32)),
            "full",
            Some(1 << 63),
            HOST,
            d,
        );
        assert_too_large(
            Tensor::<1>::try_random([1usize << 61], burn::tensor::Distribution::Default, d),
            "random",
            Some(1 << 63),
            HOST,
            d,
        );
        // Element counts that overflow usize, in every order burn multiplies.
        assert_too_large(
            Tensor::<2>::try_ones([usize::MAX, 2], d),
            "ones",
            None,
            HOST,
            d,
        );
        assert_too_large(
            Tensor::<3>::try_zeros([0, usize::MAX, 2], d),
            "zeros",
            None,
            HOST,
            d,
        );
        // Bytes that overflow u64 although the elements fit usize.
        assert_too_large(
            Tensor::<1>::try_zeros([1usize << 62], d),
            "zeros",
            None,
            HOST,
            d,
        );
        // arange's length from its range, eye's from its size.
        assert_too_large(
            Tensor::<1, Int>::try_arange(i64::MIN..i64::MAX, d),
            "arange",
            None,
            HOST,
            d,
        );
        assert_too_large(Tensor::<2>::try_eye(1 << 32, d), "eye", None, HOST, d);
        // An output the shape check computed from a small input. (A matmul, cat or stack output
        // is at most the product or sum of its inputs' sizes: past isize::MAX only from inputs
        // too big to build here; the wgpu test below covers them at the device's limit.)
        assert_too_large(
            Tensor::<1>::ones([4], d).try_repeat(&[1usize << 59]),
            "repeat",
            Some(1 << 63),
            HOST,
            d,
        );
        // What fits still works, on the same devices.
        let small = Tensor::<1>::try_zeros([4], d).unwrap();
        assert_eq!(small.into_data().try_to_vec::<f32>().unwrap(), vec![0.0; 4]);
    }
}

/// Module outputs that the shape checks compute from a one-element input, past Rust's largest
/// allocation: one per family (convolution, transposed convolution, pooling, adaptive pooling,
/// interpolation), refused by the byte rule on Flex. Without it, Flex's allocator panics
/// ("capacity overflow"), which the backstop can only report as `BackendPanic`.
#[test]
fn module_outputs_past_the_allocator_are_refused_by_checks() {
    use burn::tensor::ops::{
        ConvOptions, ConvTransposeOptions, InterpolateMode, InterpolateOptions, MaxPoolOptions,
    };
    use burn_guard::tensor::module::{
        try_adaptive_avg_pool1d, try_conv_transpose1d, try_conv1d, try_interpolate, try_max_pool1d,
    };
    const HOST: Option<u64> = Some(isize::MAX as u64);
    // 2^61 + 1 f32 values: 4 bytes past 2^63.
    const PAST: Option<u64> = Some((1 << 63) + 4);
    let d = &Device::flex();
    let x = || Tensor::<3>::ones([1, 1, 1], d);
    let w = || Tensor::<3>::ones([1, 1, 1], d);
    // A padding of 2^60 on each side: 2^61 + 1 windows of one element.
    let conv = ConvOptions::new([1], [1 << 60], [1], 1);
    assert_too_large(try_conv1d(x(), w(), None, conv), "conv1d", PAST, HOST, d);
    // A stride of 2^61 between two inputs: (2 - 1) · 2^61 + 1 outputs.
    let transpose = ConvTransposeOptions::new([1 << 61], [0], [0], [1], 1);
    let two = Tensor::<3>::ones([1, 1, 2], d);
    let out = try_conv_transpose1d(two, w(), None, transpose);
    assert_too_large(out, "conv_transpose1d", PAST, HOST, d);
    let mut pool = MaxPoolOptions::new([1]);
    pool.padding = [(1 << 60, 1 << 60)];
    assert_too_large(try_max_pool1d(x(), pool), "max_pool1d", PAST, HOST, d);
    let out = try_adaptive_avg_pool1d(x(), 1 << 61);
    assert_too_large(out, "adaptive_avg_pool1d", Some(1 << 63), HOST, d);
    // 2^30 × 2^31 pixels from one.
    let up = InterpolateOptions::new(InterpolateMode::Nearest).with_output_size([1 << 30, 1 << 31]);
    let out = try_interpolate(Tensor::<4>::ones([1, 1, 1, 1], d), up);
    assert_too_large(out, "interpolate", Some(1 << 63), HOST, d);
    // The same twins on outputs that fit still compute.
    let conv = ConvOptions::new([1], [1], [1], 1);
    assert_eq!(try_conv1d(x(), w(), None, conv).unwrap().dims(), [1, 1, 3]);
}

/// `expand` is a view on Flex (and wgpu) and a copy on NdArray: the byte rule applies where it
/// allocates. Without it, NdArray's expand of one element to `[2^60]` f32 aborts the process
/// ("memory allocation of 4611686018427387904 bytes failed").
#[test]
fn expand_is_refused_where_it_copies() {
    let big = [1usize << 61];
    #[allow(deprecated)]
    for device in [Device::ndarray(), Device::ndarray().autodiff()] {
        assert!(burn_guard::capability::expand_allocates(&device));
        let one = Tensor::<1>::ones([1], &device);
        assert_too_large(
            one.try_expand(big),
            "expand",
            Some(1 << 63),
            Some(isize::MAX as u64),
            &device,
        );
    }
    for device in [Device::flex(), Device::flex().autodiff()] {
        assert!(!burn_guard::capability::expand_allocates(&device));
        let view = Tensor::<1>::ones([1], &device).try_expand(big).unwrap();
        assert_eq!(view.dims(), big);
    }
}

/// The smallest power of two `side` for which a `[side, side]` f32 tensor is over `limit`.
fn square_side_over(limit: u64) -> usize {
    let mut side = 1usize;
    while (side as u64) * (side as u64) * 4 <= limit {
        side *= 2;
    }
    side
}

/// On wgpu: the device's largest buffer from its CubeCL client; a tensor 4 KiB over it refused
/// with nothing dispatched, one 4 KiB under it created and read back; the same for a matmul
/// output, a broadcast sum, a repeat, a cat, a select, a take and an unfold4d/fold4d. Then the device still computes: nothing reached a kernel.
#[test]
fn wgpu_buffers_over_the_device_limit_are_refused_and_under_it_work() {
    use burn::tensor::ops::UnfoldOptions;
    use burn_guard::tensor::module::{try_fold4d, try_unfold4d};
    let Some(device) = common::wgpu_device() else {
        return;
    };
    let d = &device;
    let limits = limits_of(d);
    assert_eq!(limits.source, LimitsSource::Cubecl, "{limits:?}");
    let limit = limits.max_buffer_bytes.unwrap();
    // `require_fits` skips the look-up at or below this size; every device must hold it.
    assert!(
        limit >= burn_guard::capability::SMALL_ALLOCATION,
        "{limits:?}"
    );
    let adapter = burn_guard::devices::wgpu_adapter().unwrap().name;
    println!("wgpu ({adapter}): {limits:?}");
    if adapter.contains("llvmpipe") {
        // lavapipe: WebGPU's default binding limit, 32-byte alignment, no capacity query.
        assert_eq!(limit, 134_217_728);
        assert_eq!(limits.alignment, Some(32));
        assert_eq!(limits.capacity_bytes, None);
    }
    let elements = usize::try_from(limit / 4).unwrap();

    let over = elements + 1024;
    assert_too_large(
        Tensor::<1>::try_zeros([over], d),
        "zeros",
        Some(over as u64 * 4),
        Some(limit),
        d,
    );
    assert_too_large(
        Tensor::<2>::try_ones([over / 1024, 1024], d),
        "ones",
        Some(over as u64 * 4),
        Some(limit),
        d,
    );

    let under = elements - 1024;
    let t = Tensor::<1>::try_ones([under], d).unwrap();
    let tail = t.narrow(0, under - 4, 4).into_data();
    assert_eq!(tail.try_to_vec::<f32>().unwrap(), vec![1.0; 4]);

    // A matmul whose inputs are small and whose output is not.
    let side = square_side_over(limit);
    let column = Tensor::<2>::ones([side, 1], d);
    let row = Tensor::<2>::ones([1, side], d);
    assert_too_large(
        column.try_matmul(row),
        "matmul",
        Some((side * side * 4) as u64),
        Some(limit),
        d,
    );
    // A broadcast sum of the same two vectors: the same n² elements.
    let sum = Tensor::<2>::ones([side, 1], d).try_add(Tensor::<2>::ones([1, side], d));
    assert_too_large(sum, "add", Some((side * side * 4) as u64), Some(limit), d);
    let half = side / 2;
    let product = Tensor::<2>::ones([half, 1], d)
        .try_matmul(Tensor::<2>::ones([1, half], d))
        .unwrap();
    let corner = product.narrow(0, half - 1, 1).narrow(1, half - 4, 4);
    assert_eq!(
        corner.into_data().try_to_vec::<f32>().unwrap(),
        vec![1.0; 4]
    );

    // repeat and cat, over by one block of 4 MiB.
    let block = Tensor::<2>::zeros([1024, 1024], d);
    let times = usize::try_from(limit / (4 << 20)).unwrap() + 1;
    assert_too_large(
        block.clone().try_repeat(&[times, 1]),
        "repeat",
        Some(times as u64 * (4 << 20)),
        Some(limit),
        d,
    );
    let blocks = vec![block; times];
    assert_too_large(
        Tensor::try_cat(blocks, 0),
        "cat",
        Some(times as u64 * (4 << 20)),
        Some(limit),
        d,
    );

    // Index twins whose output is rows of a 4 MiB row: select and take, over by one row.
    let row = Tensor::<2>::zeros([1, 1 << 20], d);
    let picks = || Tensor::<1, Int>::zeros([times], d);
    let over_rows = Some(times as u64 * (4 << 20));
    assert_too_large(
        row.clone().try_select(0, picks()),
        "select",
        over_rows,
        Some(limit),
        d,
    );
    let taken = row.try_take::<1, 2>(0, picks());
    assert_too_large(taken, "take", over_rows, Some(limit), d);

    // im2col columns over the limit from a 16 MiB image: 4 channels · 3 · 3 taps · 2^20 blocks.
    let image = Tensor::<4>::zeros([1, 4, 1024, 1024], d);
    let options = UnfoldOptions::new([1, 1], [1, 1], [1, 1]);
    assert_too_large(
        try_unfold4d(image, [3, 3], options),
        "unfold4d",
        Some(4 * 9 * (1 << 20) * 4),
        Some(limit),
        d,
    );
    // And back: 2^20 blocks of a stride-2 fold spread 40 MiB of columns over 160 MiB.
    let columns = Tensor::<3>::zeros([1, 10, 1 << 20], d);
    let options = UnfoldOptions::new([2, 2], [0, 0], [1, 1]);
    assert_too_large(
        try_fold4d(columns, [2048, 2048], [1, 1], options),
        "fold4d",
        Some(10 * 2048 * 2048 * 4),
        Some(limit),
        d,
    );

    // Nothing above reached a kernel: the device is not poisoned.
    let sum = Tensor::<1>::from_floats([1.0, 2.0, 3.0], d).sum();
    assert_eq!(sum.into_scalar::<f32>(), 6.0);
}

/// A config whose parameters cannot fit is refused by `try_init` before burn's initializer
/// draws them (on wgpu into the persistent pool, where an oversized buffer panics on the device
/// thread); the refusal names the parameter. A layer that fits still initializes and runs.
#[test]
fn a_layer_whose_parameters_cannot_fit_is_refused_at_init() {
    use burn::nn::LinearConfig;

    #[track_caller]
    fn refused_weight(err: GuardError, bytes: Option<u64>, limit: Option<u64>) {
        assert_eq!(err.kind(), ErrorKind::TooLarge, "{err}");
        assert_eq!(err.path().as_deref(), Some("weight"), "{err}");
        assert!(
            matches!(
                err.root(),
                GuardError::TooLarge { op: "linear_init", bytes: b, limit: l, .. }
                    if *b == bytes && *l == limit
            ),
            "{err}"
        );
    }

    for device in cpu_devices() {
        // 2^62 weights of 4 bytes: past u64.
        let err = LinearConfig::new(1 << 31, 1 << 31)
            .try_init(&device)
            .unwrap_err();
        refused_weight(err, None, Some(isize::MAX as u64));
        let layer = LinearConfig::new(4, 2).try_init(&device).unwrap();
        let out = layer.forward(Tensor::<2>::ones([1, 4], &device));
        assert_eq!(out.dims(), [1, 2]);
    }

    let Some(device) = common::wgpu_device() else {
        return;
    };
    let limit = limits_of(&device).max_buffer_bytes;
    // 2^40 weights: 4 TiB against the device's largest buffer.
    let err = LinearConfig::new(1 << 20, 1 << 20)
        .try_init(&device)
        .unwrap_err();
    refused_weight(err, Some(1 << 42), limit);
    let layer = LinearConfig::new(4, 2).try_init(&device).unwrap();
    let out = layer.forward(Tensor::<2>::ones([1, 4], &device));
    assert_eq!(out.into_data().num_elements(), 2);

    // Every config twin that builds parameters holds them to the device before any is drawn:
    // the refusal names the parameter's path inside the module.
    use burn::nn::attention::MultiHeadAttentionConfig;
    use burn::nn::conv::Conv2dConfig;
    use burn::nn::{BatchNormConfig, PositionalEncodingConfig};
    #[track_caller]
    fn refused_at(err: GuardError, path: &str, bytes: u64) {
        assert_eq!(err.kind(), ErrorKind::TooLarge, "{err}");
        assert_eq!(err.path().as_deref(), Some(path), "{err}");
        assert!(
            matches!(err.root(), GuardError::TooLarge { bytes: b, .. } if *b == Some(bytes)),
            "{err}"
        );
    }
    // [4096, 4096, 3, 3] f32: 576 MiB.
    let conv = Conv2dConfig::new([4096, 4096], [3, 3]).try_init(&device);
    refused_at(conv.unwrap_err(), "weight", 4096 * 4096 * 9 * 4);
    // Each projection [8192, 8192] f32: 256 MiB.
    let mha = MultiHeadAttentionConfig::new(8192, 8).try_init(&device);
    refused_at(mha.unwrap_err(), "query.weight", 8192 * 8192 * 4);
    let norm = BatchNormConfig::new(1 << 26).try_init(&device);
    refused_at(norm.unwrap_err(), "gamma", (1 << 26) * 4);
    // A table burn builds on the host and uploads: [65536, 1024] f32.
    let table = PositionalEncodingConfig::new(1024)
        .with_max_sequence_size(65_536)
        .with_max_timescale(65_536)
        .try_init(&device);
    refused_at(table.unwrap_err(), "sinusoids", 65_536 * 1024 * 4);
    // Layers that fit still build and run.
    let mha = MultiHeadAttentionConfig::new(8, 2)
        .try_init(&device)
        .unwrap();
    let x = Tensor::<3>::ones([1, 2, 8], &device);
    let out = mha.forward(burn::nn::attention::MhaInput::self_attn(x));
    assert_eq!(out.context.into_data().num_elements(), 16);
}

/// Selects what `allocation_child` does when a parent test runs it in a child process.
const CHILD: &str = "BURN_GUARD_LIMITS_CHILD";

/// An allocation the OS refuses: an 8 GiB tensor in a process limited to 4 GiB of address space
/// (`ulimit -v`). Raw burn aborts the process (SIGABRT: Rust's allocation-failure handler, which
/// no `catch_unwind` sees) on Flex and on NdArray; the twin returns `OutOfMemory` and the child
/// exits normally. Each run is a child process of this test binary.
#[cfg(target_os = "linux")]
#[test]
fn an_allocation_the_os_refuses_is_out_of_memory_and_the_process_lives() {
    use std::os::unix::process::ExitStatusExt;

    let exe = std::env::current_exe().unwrap();
    let run = |mode: &str| {
        std::process::Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 4194304 && exec \"$0\" allocation_child --exact --ignored --nocapture")
            .arg(&exe)
            .env(CHILD, mode)
            .output()
            .unwrap()
    };
    for backend in ["flex", "ndarray"] {
        let raw = run(&format!("raw {backend}"));
        let stderr = String::from_utf8_lossy(&raw.stderr);
        assert_eq!(raw.status.signal(), Some(6), "raw {backend}: {stderr}");
        assert!(
            stderr.contains("memory allocation of 8589934592 bytes failed"),
            "raw {backend}: {stderr}"
        );
        let guarded = run(&format!("guarded {backend}"));
        let stdout = String::from_utf8_lossy(&guarded.stdout);
        assert!(
            guarded.status.success(),
            "guarded {backend}: {stdout} {}",
            String::from_utf8_lossy(&guarded.stderr)
        );
        assert!(stdout.contains("refused: OutOfMemory"), "{stdout}");
        println!(
            "{backend}: {}",
            stdout.lines().find(|l| l.contains("refused")).unwrap()
        );
    }
}

/// The child of `an_allocation_the_os_refuses_is_out_of_memory_and_the_process_lives`; does
/// nothing unless that test runs it.
#[test]
#[ignore = "run by an_allocation_the_os_refuses_is_out_of_memory_and_the_process_lives in a child process"]
fn allocation_child() {
    let Ok(mode) = std::env::var(CHILD) else {
        return;
    };
    #[allow(deprecated)]
    let device = match mode.split(' ').nth(1) {
        Some("flex") => Device::flex(),
        Some("ndarray") => Device::ndarray(),
        other => panic!("unknown backend {other:?}"),
    };
    let shape = [2usize << 30]; // 2^31 f32: 8 GiB.
    if mode.starts_with("raw") {
        let t = Tensor::<1>::zeros(shape, &device);
        println!("raw survived: {:?}", t.dims());
    } else {
        let err = Tensor::<1>::try_zeros(shape, &device).unwrap_err();
        assert!(
            matches!(
                err,
                GuardError::OutOfMemory {
                    bytes: 8_589_934_592,
                    budget: 4_294_967_296,
                    ..
                }
            ),
            "{err}"
        );
        println!("refused: {:?}: {err}", err.kind());
        // The process is alive and the device still works.
        let small = Tensor::<1>::try_ones([4], &device).unwrap();
        assert_eq!(small.sum().into_scalar::<f32>(), 4.0);
    }
}

/// Oversize fallback: a product too large for wgpu's largest buffer is refused under a strict
/// policy (and under one that denies `Op::Oversize`), and computed on Flex under a policy that
/// falls back there: the operands move (counted), the product stays on Flex with burn's values.
/// `Policy::place` sends a creation the same way.
#[test]
fn an_output_too_large_for_its_device_runs_on_the_fallback_device() {
    use burn_guard::policy::{Op, Policy};

    let Some(device) = common::wgpu_device() else {
        return;
    };
    let d = &device;
    let limit = limits_of(d).max_buffer_bytes.unwrap();
    let side = square_side_over(limit);
    let column = || Tensor::<2>::ones([side, 1], d);
    let row = || Tensor::<2>::full([1, side], 2.0, d);
    let bytes = Some((side * side * 4) as u64);

    let strict = Policy::strict();
    assert_too_large(
        column().try_matmul_or_fallback(row(), &strict),
        "matmul",
        bytes,
        Some(limit),
        d,
    );
    assert_eq!(strict.stats_of(Op::Oversize).errors, 1);
    let denied = Policy::fallback_to([Device::flex()]).deny_op(Op::Oversize);
    assert_too_large(
        column().try_matmul_or_fallback(row(), &denied),
        "matmul",
        bytes,
        Some(limit),
        d,
    );

    let lenient = Policy::fallback_to([Device::flex()]);
    let product = column().try_matmul_or_fallback(row(), &lenient).unwrap();
    assert_eq!(product.device(), Device::flex());
    assert_eq!(product.dims(), [side, side]);
    let corner = product.narrow(0, side - 1, 1).narrow(1, side - 4, 4);
    assert_eq!(
        corner.into_data().try_to_vec::<f32>().unwrap(),
        vec![2.0; 4]
    );
    let stats = lenient.stats_of(Op::Oversize);
    assert_eq!((stats.fallbacks, stats.errors), (1, 0), "{stats:?}");
    assert_eq!(stats.bytes_to_fallback, (2 * side * 4) as u64, "{stats:?}");
    assert_eq!(stats.bytes_from_fallback, 0, "{stats:?}");

    // A product that fits stays home and is not an oversize run.
    let small = Tensor::<2>::ones([2, 3], d)
        .try_matmul_or_fallback(Tensor::<2>::ones([3, 2], d), &lenient)
        .unwrap();
    assert_eq!(small.device(), device);
    assert_eq!(lenient.stats_of(Op::Oversize).fallbacks, 1);

    // Creation: ask where it can live, create it there.
    let over = usize::try_from(limit / 4).unwrap() + 1024;
    let placed = lenient.place("zeros", &[over], DType::F32, d).unwrap();
    assert_eq!(placed, Device::flex());
    let zeros = Tensor::<1>::try_zeros([over], &placed).unwrap();
    assert_eq!(zeros.dims(), [over]);
    assert_eq!(lenient.stats_of(Op::Oversize).fallbacks, 2);
    let err = strict.place("zeros", &[over], DType::F32, d).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::TooLarge);
    println!("oversize: {:?}", lenient.stats_of(Op::Oversize));
}

/// A memory budget on wgpu, in a child process (the budget holds for the whole process, and
/// the other tests of this binary allocate on the same device): allocations within it work,
/// the one that would pass it is refused with `OutOfMemory` naming bytes, use and budget, and
/// once tensors are dropped the same allocation works again.
#[test]
fn a_device_budget_refuses_what_would_pass_it() {
    if common::wgpu_device().is_none() {
        return;
    }
    let stdout = common::child_succeeds(CHILD, "budget_child", "budget");
    assert!(stdout.contains("budget refused: OutOfMemory"), "{stdout}");
    println!(
        "{}",
        stdout.lines().find(|l| l.contains("refused")).unwrap()
    );
}

/// The child of `a_device_budget_refuses_what_would_pass_it`.
#[test]
#[ignore = "run by a_device_budget_refuses_what_would_pass_it in a child process"]
fn budget_child() {
    use burn_guard::devices::{memory_budget, set_memory_budget};

    if std::env::var(CHILD).as_deref() != Ok("budget") {
        return;
    }
    let device = common::wgpu_device().unwrap();
    const MIB: usize = 1 << 20;
    const BUDGET: u64 = 64 << 20;
    set_memory_budget(&device, Some(BUDGET)).unwrap();
    assert_eq!(memory_budget(&device), Some(BUDGET));
    // 16 MiB each: three fit beside what the device already holds, the fifth cannot.
    let mut held = Vec::new();
    let err = loop {
        match Tensor::<1>::try_ones([4 * MIB], &device) {
            Ok(t) => {
                // Written, so that the pool holds it.
                let _ = t.clone().sum().into_scalar::<f32>();
                held.push(t);
                assert!(held.len() < 5, "the budget never refused");
            }
            Err(err) => break err,
        }
    };
    assert!(held.len() >= 2, "refused too early: {err}");
    match &err {
        GuardError::OutOfMemory {
            op: "ones",
            bytes,
            in_use,
            budget,
            ..
        } => {
            assert_eq!(*bytes, 16 << 20);
            assert_eq!(*budget, BUDGET);
            assert!(in_use + bytes > BUDGET, "{err}");
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    println!(
        "budget refused: {:?}: {err} (after {})",
        err.kind(),
        held.len()
    );
    // Freed: the same request fits again.
    held.clear();
    let again = Tensor::<1>::try_ones([4 * MIB], &device).unwrap();
    assert_eq!(again.dims(), [4 * MIB]);
    set_memory_budget(&device, None).unwrap();
    assert_eq!(memory_budget(&device), None);
}

/// Which raw-burn failures on wgpu leave the device poisoned, measured in a child process (raw
/// burn runs kernels the twins would refuse): a kernel failing on an empty `[0, 4]` input
/// (`round`, `not_equal_elem`: "attempt to subtract with overflow" on the device), a tensor
/// over the largest buffer read back, and one created in burn's persistent pool (a panic on
/// the device thread). After each, burn's own sync reports no poisoning
/// (`devices::probe_health` is `Healthy`) and the device computes: burn 0.22.1's runner
/// catches a device-thread panic and hands it to the reader.
#[test]
fn raw_kernel_failures_on_wgpu_do_not_poison_the_device() {
    if common::wgpu_device().is_none() {
        return;
    }
    let stdout = common::child_succeeds(CHILD, "health_child", "health");
    for case in ["round", "not_equal_elem", "over the buffer", "persistent"] {
        assert!(
            stdout.contains(&format!("{case}: healthy")),
            "{case}: {stdout}"
        );
    }
}

/// The child of `raw_kernel_failures_on_wgpu_do_not_poison_the_device`.
#[test]
#[ignore = "run by raw_kernel_failures_on_wgpu_do_not_poison_the_device in a child process"]
fn health_child() {
    use burn_guard::devices::{DeviceHealth, probe_health};
    use std::panic::{AssertUnwindSafe, catch_unwind};

    if std::env::var(CHILD).as_deref() != Ok("health") {
        return;
    }
    let device = common::wgpu_device().unwrap();
    let d = &device;
    let over = usize::try_from(limits_of(d).max_buffer_bytes.unwrap() / 4).unwrap() + 1024;
    type Case<'a> = (&'a str, Box<dyn Fn() -> usize + 'a>);
    let cases: [Case; 4] = [
        (
            "round",
            Box::new(|| {
                Tensor::<2>::empty([0, 4], d)
                    .round()
                    .into_data()
                    .num_elements()
            }),
        ),
        (
            "not_equal_elem",
            Box::new(|| {
                Tensor::<2>::empty([0, 4], d)
                    .not_equal_elem(1.0)
                    .into_data()
                    .num_elements()
            }),
        ),
        (
            "over the buffer",
            Box::new(|| Tensor::<1>::zeros([over], d).into_data().num_elements()),
        ),
        (
            "persistent",
            Box::new(|| {
                d.memory_persistent_allocations((), |_| Tensor::<1>::zeros([over], d))
                    .into_data()
                    .num_elements()
            }),
        ),
    ];
    for (case, run) in cases {
        let outcome = catch_unwind(AssertUnwindSafe(run));
        let health = probe_health(d);
        assert_eq!(health, DeviceHealth::Healthy, "{case}");
        let sum = Tensor::<1>::try_ones([3], d)
            .unwrap()
            .sum()
            .into_scalar::<f32>();
        assert_eq!(sum, 3.0, "{case}");
        println!(
            "{case}: healthy (raw burn: {})",
            if outcome.is_ok() {
                "returned"
            } else {
                "panicked"
            }
        );
    }
}
