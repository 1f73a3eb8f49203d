//! What a device can hold: the largest single buffer it can allocate, the alignment of its
//! allocations and its capacity, read once per device and cached like the stacks.
//!
//! A CubeCL runtime (wgpu, CUDA, …) states its limits in its client's memory properties
//! (cubecl-ir `MemoryDeviceProperties`: `max_page_size`, `alignment`, `max_memory()`); on wgpu
//! the largest buffer is the smaller of the adapter's `max_storage_buffer_binding_size` and
//! `max_buffer_size` (cubecl-wgpu `runtime.rs`), and wgpu has no capacity query. Flex and
//! NdArray allocate host memory through Rust's allocator, which refuses any single allocation
//! over `isize::MAX` bytes; their capacity is the host's memory. A remote device's limits are
//! its server's, which burn does not report: unknown.

use std::collections::HashMap;
use std::sync::{OnceLock, PoisonError, RwLock};

use burn::backend::DispatchDevice;
use burn::tensor::{DType, Device};
use burn_backend::Device as _;

use super::device::{Base, base_of};
pub use crate::check::device_limits::{DeviceLimits, HostMemory, LimitsSource};
use crate::error::Result;

/// The host's memory now, read from `/proc/meminfo`, `/proc/self/limits` and
/// `/proc/self/status`; `None` on other systems or when `/proc/meminfo` cannot be read. Not
/// cached: what is available changes. Costs three small file reads (tens of microseconds).
pub fn host_memory() -> Option<HostMemory> {
    #[cfg(target_os = "linux")]
    {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        let mut memory = parse_meminfo(&text)?;
        if let Ok(limits) = std::fs::read_to_string("/proc/self/limits") {
            memory.address_space_limit = parse_address_space_limit(&limits);
        }
        if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
            memory.address_space_used = parse_vm_size(&status);
        }
        Some(memory)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The soft limit of `Max address space` in the text of `/proc/self/limits`
/// (`Max address space   4294967296   4294967296   bytes`); `None` for `unlimited`.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse_address_space_limit(text: &str) -> Option<u64> {
    let line = text
        .lines()
        .find(|line| line.starts_with("Max address space"))?;
    line.trim_start_matches("Max address space")
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `VmSize` from the text of `/proc/self/status` (`VmSize:  3892 kB`), in bytes.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse_vm_size(text: &str) -> Option<u64> {
    kib_field(text, "VmSize")
}

/// `MemTotal` and `MemAvailable` from the text of `/proc/meminfo` (`MemTotal:  16318812 kB`).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn parse_meminfo(text: &str) -> Option<HostMemory> {
    Some(HostMemory {
        total_bytes: kib_field(text, "MemTotal")?,
        available_bytes: kib_field(text, "MemAvailable")?,
        address_space_limit: None,
        address_space_used: None,
    })
}

/// A `Name:  <value> kB` line of a `/proc` file, in bytes.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn kib_field(text: &str, name: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let rest = line.strip_prefix(name)?.strip_prefix(':')?;
        let mut words = rest.split_whitespace();
        let value: u64 = words.next()?.parse().ok()?;
        match words.next() {
            Some("kB") => value.checked_mul(1024),
            None => Some(value),
            Some(_) => None,
        }
    })
}

/// The memory limits of `device`, read once per device and cached: an autodiff device has the
/// limits of the device it wraps. Asking a CubeCL device opens it (its client); a device that
/// cannot open has unknown limits.
pub fn limits_of(device: &Device) -> DeviceLimits {
    known(device).limits
}

/// The byte rule ([`check::bytes::allocation`](crate::check::bytes::allocation)) for a tensor
/// of `shape` and `dtype` that `op` would create on `device`, against the device's cached
/// limits and named as errors name the device. Returns the bytes.
///
/// On a host device (Flex, NdArray), an allocation of at least [`HOST_BUDGET_FLOOR`] bytes is
/// also held against what the host can give now
/// ([`check::bytes::host_budget`](crate::check::bytes::host_budget), [`host_memory`] read
/// afresh): Rust aborts the process when the allocator refuses, so a refusal here is the only
/// one the caller can see.
///
/// On any device with a budget ([`set_memory_budget`](crate::devices::set_memory_budget)),
/// the allocation is held against it too. A device recorded poisoned
/// ([`health`](crate::devices::health)) is refused first.
///
/// # Errors
///
/// - [`GuardError::DeviceUnavailable`](crate::GuardError::DeviceUnavailable) for a device
///   burn reported poisoned.
/// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for a tensor over the device's
///   largest buffer, or whose size overflows.
/// - [`GuardError::OutOfMemory`](crate::GuardError::OutOfMemory) for a host allocation over
///   the memory available now or over the process's address-space limit, or an allocation
///   that would take a device past its budget.
///
/// ```
/// use burn::tensor::{DType, Device};
/// use burn_guard::ErrorKind;
/// use burn_guard::capability::require_fits;
///
/// let flex = Device::flex();
/// assert_eq!(require_fits("zeros", &[2, 3], DType::F32, &flex)?, 24);
/// let err = require_fits("zeros", &[1 << 61], DType::F32, &flex).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::TooLarge);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[inline]
pub fn require_fits(
    op: &'static str,
    shape: &[usize],
    dtype: DType,
    device: &Device,
) -> Result<u64> {
    // Inlined into every allocating twin: a few multiplies and two atomic loads. Everything
    // else (the device's limits, the host's memory, the budget, a poisoned device) is one call
    // away, so a tiny op's guard stays short in the instruction cache.
    match small_plain_bytes(shape, dtype) {
        Some(bytes) if !super::health::any_poisoned() && !super::budget::any_budget() => Ok(bytes),
        _ => require_fits_checked(op, shape, dtype, device),
    }
}

/// The bytes of a tensor of a plain (not quantized) dtype when they are at most
/// [`SMALL_ALLOCATION`]; `None` for anything else, including an overflow. Equal to
/// [`check::bytes::tensor_bytes`](crate::check::bytes::tensor_bytes) where it answers.
#[inline]
fn small_plain_bytes(shape: &[usize], dtype: DType) -> Option<u64> {
    if matches!(dtype, DType::QFloat(_)) {
        return None;
    }
    // As `check::bytes::elements`: the non-zero dims must multiply without overflow even when
    // a zero dim empties the tensor (burn's strides are that product).
    let (mut nonzero, mut empty) = (1usize, false);
    for &size in shape {
        if size == 0 {
            empty = true;
        } else {
            nonzero = nonzero.checked_mul(size)?;
        }
    }
    let elements = u64::try_from(if empty { 0 } else { nonzero }).ok()?;
    let bytes = elements.checked_mul(u64::try_from(dtype.size()).ok()?)?;
    (bytes <= SMALL_ALLOCATION).then_some(bytes)
}

/// [`require_fits`] beyond its fast path.
#[inline(never)]
fn require_fits_checked(
    op: &'static str,
    shape: &[usize],
    dtype: DType,
    device: &Device,
) -> Result<u64> {
    super::health::require_healthy(op, device)?;
    // The inline answer leaves out quantized dtypes; a small quantized tensor skips the
    // look-up here for the same reason.
    if let Some(bytes) = crate::check::bytes::tensor_bytes(shape, dtype)
        && bytes <= SMALL_ALLOCATION
        && !super::budget::any_budget()
    {
        return Ok(bytes);
    }
    let known = known(device);
    let bytes = crate::check::bytes::allocation(op, shape, dtype, &known.limits, &known.name)?;
    if known.limits.source == LimitsSource::Host
        && bytes >= HOST_BUDGET_FLOOR
        && let Some(memory) = host_memory()
    {
        crate::check::bytes::host_budget(op, bytes, &memory, &known.name)?;
    }
    super::budget::require_budget(op, bytes, device, &known.name)?;
    Ok(bytes)
}

/// Allocations of at most this many bytes are not held against the device's limits: every
/// device burn runs on gives one buffer at least this large (WebGPU's smallest storage binding
/// is 128 MiB, a host allocation may reach `isize::MAX`), so the look-up would always pass.
/// Skipping it keeps a tiny op's guard short (the instruction-cache footprint of the look-up
/// costs more than its instructions). A budget, when one is set, still counts them.
///
/// ```
/// use burn::tensor::{DType, Device};
/// use burn_guard::capability::{SMALL_ALLOCATION, limits_of};
///
/// let limit = limits_of(&Device::flex()).max_buffer_bytes.unwrap_or(u64::MAX);
/// assert!(limit >= SMALL_ALLOCATION);
/// ```
pub const SMALL_ALLOCATION: u64 = 64 << 10;

/// Host allocations below this many bytes are not checked against the host's free memory:
/// reading it costs tens of microseconds, which a 64 MiB allocation (milliseconds to fill)
/// hides and a tiny op would not; and a small allocation that fails means the host is already
/// out of memory, which no budget predicts.
pub const HOST_BUDGET_FLOOR: u64 = 64 << 20;

/// Whether `expand` allocates its output on `device`: NdArray copies the broadcast into an owned
/// array (burn-ndarray `NdArrayOps::expand`: `broadcast(..).into_owned()`), so an expand past the
/// host's memory aborts the process there; Flex and CubeCL return a strided view.
pub fn expand_allocates(device: &Device) -> bool {
    matches!(base_of(device.as_dispatch()).1, Base::NdArray)
}

/// A device's limits and its name as errors give it, both computed once.
#[derive(Debug)]
pub(crate) struct Known {
    pub(crate) limits: DeviceLimits,
    pub(crate) name: String,
}

/// The cached limits and name of `device`: for Flex and NdArray a load, for other devices a
/// read-locked map lookup.
pub(crate) fn known(device: &Device) -> &'static Known {
    let dispatch = device.as_dispatch();
    let (autodiff, base) = base_of(dispatch);
    static HOST: [OnceLock<Known>; 4] = [const { OnceLock::new() }; 4];
    let host_slot = match base {
        Base::Flex => Some(usize::from(autodiff)),
        Base::NdArray => Some(2 + usize::from(autodiff)),
        _ => None,
    };
    if let Some(slot) = host_slot.and_then(|slot| HOST.get(slot)) {
        return slot.get_or_init(|| read(device, dispatch, base));
    }
    type Others = RwLock<HashMap<(bool, u16, u16), &'static Known>>;
    static OTHERS: OnceLock<Others> = OnceLock::new();
    let others = OTHERS.get_or_init(|| RwLock::new(HashMap::new()));
    let id = dispatch.to_id();
    let key = (autodiff, id.type_id, id.index_id);
    if let Some(known) = others
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
    {
        return known;
    }
    // Read outside the lock: opening a CubeCL device can take a while.
    let fresh = read(device, dispatch, base);
    others
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(key)
        .or_insert_with(|| Box::leak(Box::new(fresh)))
}

fn read(device: &Device, dispatch: &DispatchDevice, base: Base) -> Known {
    let limits = match base {
        Base::Flex | Base::NdArray => host_limits(),
        Base::Cube(_) => cube_limits(dispatch).unwrap_or(DeviceLimits::UNKNOWN),
        Base::Remote | Base::LibTorch | Base::Capture | Base::Unknown(_) => DeviceLimits::UNKNOWN,
    };
    Known {
        limits,
        name: super::naming::brief(device),
    }
}

/// Rust's allocator refuses a single allocation over `isize::MAX` bytes (`Layout`); Flex
/// allocates bytes (`vec![0u8; n]`), NdArray a `Vec` of its element type, both bounded by it.
fn host_limits() -> DeviceLimits {
    DeviceLimits {
        max_buffer_bytes: u64::try_from(isize::MAX).ok(),
        alignment: None,
        capacity_bytes: host_memory().map(|memory| memory.total_bytes),
        source: LimitsSource::Host,
    }
}

/// The CubeCL client's memory properties, under the backstop (the client panics for a runtime
/// this build does not link, or a device that cannot open).
#[cfg(feature = "wgpu")]
fn cube_limits(dispatch: &DispatchDevice) -> Option<DeviceLimits> {
    let memory = crate::panic::catch("device limits", || match dispatch {
        DispatchDevice::Cube(cube) => {
            let client = cube.client();
            let memory = &client.properties().memory;
            Some((memory.max_page_size, memory.alignment, memory.max_memory()))
        }
        #[cfg(feature = "autodiff")]
        DispatchDevice::Autodiff(_) => match dispatch.clone().inner() {
            DispatchDevice::Cube(cube) => {
                let client = cube.client();
                let memory = &client.properties().memory;
                Some((memory.max_page_size, memory.alignment, memory.max_memory()))
            }
            #[allow(unreachable_patterns)]
            _ => None,
        },
        #[allow(unreachable_patterns)]
        _ => None,
    })
    .ok()
    .flatten()?;
    let (max_page_size, alignment, max_memory) = memory;
    Some(DeviceLimits {
        max_buffer_bytes: Some(max_page_size),
        alignment: Some(alignment),
        capacity_bytes: max_memory,
        source: LimitsSource::Cubecl,
    })
}

/// Without a CubeCL runtime in this build there is no client to ask.
#[cfg(not(feature = "wgpu"))]
fn cube_limits(_dispatch: &DispatchDevice) -> Option<DeviceLimits> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_is_read_in_bytes() {
        let text = "MemTotal:       16318812 kB\nMemFree:         1000000 kB\nMemAvailable:    8000000 kB\n";
        assert_eq!(
            parse_meminfo(text),
            Some(HostMemory::for_tests(16_318_812 * 1024, 8_000_000 * 1024))
        );
        // A missing field, a unit it does not know, a number past u64: no figure, no guess.
        assert_eq!(parse_meminfo("MemTotal: 1 kB\n"), None);
        assert_eq!(parse_meminfo("MemTotal: 1 MB\nMemAvailable: 1 kB\n"), None);
        let huge = format!("MemTotal: {} kB\nMemAvailable: 1 kB\n", u64::MAX);
        assert_eq!(parse_meminfo(&huge), None);
    }

    #[test]
    fn the_address_space_is_read_in_bytes() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max stack size            8388608              unlimited            bytes     \n\
                      Max address space         4294967296           unlimited            bytes     \n";
        assert_eq!(parse_address_space_limit(limits), Some(4 << 30));
        let unlimited =
            "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(parse_address_space_limit(unlimited), None);
        assert_eq!(
            parse_vm_size("Name:\tx\nVmSize:\t    3892 kB\n"),
            Some(3892 * 1024)
        );
        assert_eq!(parse_vm_size("Name:\tx\n"), None);
    }

    #[test]
    fn the_fast_path_counts_bytes_as_the_full_rule_does() {
        use burn::tensor::quantization::QuantScheme;

        let huge = 1usize << 62;
        let shapes: [&[usize]; 9] = [
            &[],
            &[0],
            &[4],
            &[2, 3],
            &[16 << 10],
            &[(16 << 10) + 1],
            &[huge, huge, 0],
            &[0, huge, huge],
            &[huge, 4],
        ];
        let dtypes = [
            DType::F32,
            DType::F16,
            DType::F64,
            DType::Bool(burn::tensor::BoolStore::Native),
            DType::QFloat(QuantScheme::default()),
        ];
        for shape in shapes {
            for dtype in dtypes {
                let full = crate::check::bytes::tensor_bytes(shape, dtype);
                match small_plain_bytes(shape, dtype) {
                    // Where the fast path answers, it answers as the full rule does.
                    Some(bytes) => {
                        assert_eq!(Some(bytes), full, "{shape:?} {dtype:?}");
                        assert!(bytes <= SMALL_ALLOCATION);
                    }
                    // Where it does not, the full rule runs: only a quantized dtype, a size
                    // over the small limit or an overflow end up there.
                    None => assert!(
                        matches!(dtype, DType::QFloat(_))
                            || full.is_none_or(|bytes| bytes > SMALL_ALLOCATION),
                        "{shape:?} {dtype:?}"
                    ),
                }
            }
        }
    }

    #[cfg(feature = "flex")]
    #[test]
    fn host_devices_have_rusts_largest_allocation() {
        let flex = limits_of(&Device::flex());
        assert_eq!(flex.source, LimitsSource::Host);
        assert_eq!(flex.max_buffer_bytes, Some(i64::MAX as u64));
        assert_eq!(flex.alignment, None);
        #[cfg(target_os = "linux")]
        assert!(flex.capacity_bytes.is_some_and(|bytes| bytes > 0));
        // Cached: the same entry every time, the name computed with it.
        assert!(std::ptr::eq(known(&Device::flex()), known(&Device::flex())));
        #[cfg(feature = "autodiff")]
        assert_eq!(limits_of(&Device::flex().autodiff()), flex);
    }
}
