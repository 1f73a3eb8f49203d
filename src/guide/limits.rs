//! # Bounding memory, sizes and time
//!
//! burn checks shapes, not sizes. On wgpu a tensor over the device's largest buffer comes back
//! `Ok` and fails at the first read (or panics on the device thread, for a parameter); on Flex
//! and NdArray an allocation past Rust's largest panics ("capacity overflow"), one the OS
//! refuses **aborts the process** (SIGABRT, which no `catch_unwind` sees), and a size that
//! overflows `usize` wraps silently in a release build. burn-guard checks sizes like shapes,
//! before anything is dispatched.
//!
//! ## The byte rule
//!
//! Every twin that allocates (the creation twins, `from_data`, `matmul`, a broadcast
//! `add`/`sub`/`mul`/`div`, `cat`, `stack`, `repeat`, `pad`, `one_hot`, `select`, `gather`,
//! `gather_nd`, `take`, conv/pool/interpolate outputs, `unfold4d`/`fold4d`, the config
//! `try_init`s whose parameters or tables would not fit) computes the bytes of what it would
//! create — elements × dtype size in checked arithmetic, packed values plus scales for a
//! quantized dtype — and refuses with:
//!
//! - [`GuardError::TooLarge`](crate::GuardError::TooLarge) (never fits): over the device's
//!   largest single buffer ([`limits_of`](crate::capability::limits_of): `isize::MAX` on the
//!   CPU backends; on lavapipe 134 217 728 B, WebGPU's default, as
//!   `tests/limits.rs` reads it), or a size that overflows.
//! - [`GuardError::OutOfMemory`](crate::GuardError::OutOfMemory) (may fit once memory is
//!   freed): on Flex and NdArray an allocation of
//!   [`HOST_BUDGET_FLOOR`](crate::capability::HOST_BUDGET_FLOOR) (64 MiB) or more is held
//!   against the host's available memory and the process's address-space limit
//!   ([`host_memory`](crate::capability::host_memory), read afresh each time). In
//!   `tests/limits.rs` an 8 GiB tensor in a process limited to 4 GiB of address space
//!   (`ulimit -v`) aborts raw burn on Flex and on NdArray; the twin returns `OutOfMemory` and
//!   the process lives.
//!
//! ```
//! use burn::tensor::{Device, Tensor};
//! use burn_guard::capability::{LimitsSource, host_memory, limits_of};
//! use burn_guard::prelude::*;
//!
//! let device = Device::flex();
//! let limits = limits_of(&device); // read once per device, cached
//! assert_eq!(limits.source, LimitsSource::Host);
//! assert_eq!(limits.max_buffer_bytes, Some(isize::MAX as u64));
//!
//! // Never fits: raw burn panics "capacity overflow" in the allocator.
//! let err = Tensor::<1>::try_zeros([1usize << 61], &device).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::TooLarge);
//! println!("{err}");
//! // An output the shape checks compute is held to the same rule: 2^61 f32 elements.
//! let err = Tensor::<1>::ones([4], &device).try_repeat(&[1 << 59]).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::TooLarge);
//!
//! // More than the host has: raw burn would ask the allocator, and past the address-space
//! // limit the process would abort.
//! if let Some(memory) = host_memory() {
//!     let elements = usize::try_from(memory.total_bytes / 2).unwrap(); // 2 × the host, in f32
//!     let err = Tensor::<1>::try_zeros([elements], &device).unwrap_err();
//!     assert_eq!(err.kind(), ErrorKind::OutOfMemory);
//! }
//! # Ok::<(), GuardError>(())
//! ```
//!
//! ## A budget per device
//!
//! [`devices::set_memory_budget`](crate::devices::set_memory_budget)`(&device, Some(bytes))`
//! holds a device's live bytes plus each new tensor to a budget, like PyTorch's per-process
//! memory fraction or ONNX Runtime's `gpu_mem_limit`: past it, `OutOfMemory` naming the bytes,
//! the use and the budget. burn's pool usage (`Device::memory_pool_usage`) is read only when
//! the running estimate nears the budget or
//! [`SAMPLE_PERIOD`](crate::devices::SAMPLE_PERIOD) has gone by (reading it drains pending
//! work), and burn's cached pages are freed once before a refusal. A device that reports no
//! usage cannot be held to a budget: `set_memory_budget` returns `DeviceUnavailable` (Flex
//! keeps no pools; its allocations are held against the host instead). `tests/limits.rs`
//! holds wgpu to a budget: allocations within it work, the one past it is refused, and once
//! tensors are dropped the same allocation works again.
//!
//! ## Oversize fallback
//!
//! Under a policy that allows [`Op::Oversize`](crate::policy::Op::Oversize) (see
//! [`fallback`](super::fallback)), a tensor too large for its device goes to the first of the
//! policy's devices where it fits, and stays there (it could not come back): counted in the
//! policy's statistics and warned about once like any fallback.
//! [`Policy::place`](crate::policy::Policy::place)`("zeros", &shape, dtype, &device)` says
//! where a new tensor can live;
//! [`a.try_matmul_or_fallback(b, &policy)`](crate::tensor::TryOversize::try_matmul_or_fallback)
//! computes a product too large for its device where it fits, both operands moved there.
//! Under a strict policy, or `deny_op(Op::Oversize)`, the home device's refusal comes back.
//! Only a device with a smaller limit than the fallback's gains from it: a GPU, with Flex as
//! the fallback. This block needs a wgpu adapter and 256 MiB of host memory, so it is compiled
//! but not run here; `tests/limits.rs` (`an_output_too_large_for_its_device_runs_on_the_fallback_device`)
//! runs the same on lavapipe:
//!
//! ```no_run
//! use burn::tensor::{DType, Device, Tensor};
//! use burn_guard::capability::limits_of;
//! use burn_guard::devices::wgpu_adapter;
//! use burn_guard::policy::{Op, Policy};
//! use burn_guard::prelude::*;
//!
//! let gpu = wgpu_adapter()?.device;
//! let limit = limits_of(&gpu).max_buffer_bytes.unwrap_or(u64::MAX);
//! let side = 8192; // [8192, 8192] f32 is 256 MiB: over lavapipe's 128 MiB buffers
//! let column = Tensor::<2>::ones([side, 1], &gpu);
//! let row = Tensor::<2>::ones([1, side], &gpu);
//!
//! let err = column.clone().try_matmul_or_fallback(row.clone(), &Policy::strict()).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::TooLarge); // burn would return Ok and fail at the read
//! let policy = Policy::fallback_to([Device::flex()]);
//! let product = column.try_matmul_or_fallback(row, &policy)?; // computed on Flex, kept there
//! assert_eq!(product.device(), Device::flex());
//! // A creation: ask where it can live, create it there.
//! let elements = usize::try_from(limit / 4).unwrap_or(usize::MAX / 8) + 1024;
//! let device = policy.place("zeros", &[elements], DType::F32, &gpu)?;
//! let zeros = Tensor::<1>::try_zeros([elements], &device)?;
//! assert_eq!(policy.stats_of(Op::Oversize).fallbacks, 2);
//! # let _ = zeros;
//! # Ok::<(), GuardError>(())
//! ```
//!
//! ## Device health
//!
//! A device burn reports poisoned (`ExecutionError::DevicePoisoned`, received through a
//! guarded read or [`devices::probe_health`](crate::devices::probe_health)) is recorded for the
//! process; so is a device tainted by a task failure burn only logged, or quarantined by a
//! shadow check (see the [sentinel](super::sentinel) guide).
//! [`devices::health`](crate::devices::health) says which
//! ([`DeviceHealth`](crate::devices::DeviceHealth)); every allocating twin then refuses the
//! device at once with [`GuardError::DeviceUnavailable`](crate::GuardError::DeviceUnavailable)
//! instead of dispatching into a cascade of failures, and `Policy::place` routes around it.
//! [`devices::reinstate`](crate::devices::reinstate) lifts a taint or a quarantine after you
//! re-checked the device; a poisoned device stays poisoned. `tests/limits.rs` measures which
//! raw failures on wgpu poison the device in burn 0.22.1: none of the kernel failures it
//! tries does (burn's runner hands a device-thread panic to the reader).
//!
//! ## Time
//!
//! A read or a sync can block on a device that stopped answering (a frozen remote server
//! blocks forever in burn). [`devices::with_deadline`](crate::devices::with_deadline),
//! [`read_with_deadline`](crate::devices::read_with_deadline) and
//! [`sync_with_deadline`](crate::devices::sync_with_deadline) wait at most a timeout and
//! return [`GuardError::Timeout`](crate::GuardError::Timeout); the helper thread a timed-out
//! call leaves behind ends when the call returns.
//! [`default_timeout`](crate::devices::default_timeout) is
//! [`DEFAULT_TIMEOUT`](crate::devices::DEFAULT_TIMEOUT) (5 s) until
//! [`set_default_timeout`](crate::devices::set_default_timeout) changes it. The
//! [remote](super::remote) guide shows them against a server that stops and one that freezes.
//!
//! ```
//! use std::time::Duration;
//! use burn::tensor::{Device, Tensor};
//! use burn_guard::devices::{default_timeout, read_with_deadline, with_deadline};
//! use burn_guard::prelude::*;
//!
//! let x = Tensor::<1>::ones([4], &Device::flex());
//! let data = read_with_deadline("into_data", default_timeout(), x.into_data_async())?;
//! assert_eq!(data.num_elements(), 4);
//! let err = with_deadline("hang", Duration::from_millis(10), || {
//!     std::thread::sleep(Duration::from_millis(200))
//! })
//! .unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::Timeout);
//! # Ok::<(), GuardError>(())
//! ```
//!
//! ## What no check can predict
//!
//! Memory a kernel allocates for itself (workspaces, autotune buffers, fusion's
//! intermediates), a GPU's real out-of-memory without a budget (wgpu has no free-memory
//! query), memory the OS overcommits and the OOM killer reclaims later, and host allocations
//! under 64 MiB. `RELIABILITY.md` lists what each case was measured to do.
//!
//! ## What it costs
//!
//! The rule is inlined into every allocating twin: a few multiplications and two atomic loads
//! while no device has a budget or a health record; the whole guard of a tiny op is measured
//! in `benches/overhead.rs` (`BENCHMARKS.md`). The host's memory is read (three small `/proc`
//! files) only for allocations of 64 MiB or more, and a budget reads burn's pool usage only
//! when the estimate nears it.
