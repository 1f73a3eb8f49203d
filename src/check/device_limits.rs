//! What a device can hold, as data: the figures the byte rule checks against. Read from the
//! devices by [`capability::limits_of`](crate::capability::limits_of) and
//! [`capability::host_memory`](crate::capability::host_memory); kept here, below the
//! capability layer, so that the pure rules can take them without reaching a device.

use serde::Serialize;

/// The memory limits of one device. `None` where the device states no figure: a guess would
/// read as a measurement.
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::capability::{LimitsSource, limits_of};
///
/// let limits = limits_of(&Device::flex());
/// assert_eq!(limits.source, LimitsSource::Host);
/// assert_eq!(limits.max_buffer_bytes, Some(isize::MAX as u64));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct DeviceLimits {
    /// The largest single allocation, in bytes: a tensor needing more can never be created on
    /// this device.
    pub max_buffer_bytes: Option<u64>,
    /// The alignment of the device's allocations, in bytes.
    pub alignment: Option<u64>,
    /// How many bytes the device holds in all (a GPU's memory, the host's RAM).
    pub capacity_bytes: Option<u64>,
    /// Where the figures come from.
    pub source: LimitsSource,
}

impl DeviceLimits {
    /// Limits nobody stated: every figure `None`.
    pub const UNKNOWN: Self = Self {
        max_buffer_bytes: None,
        alignment: None,
        capacity_bytes: None,
        source: LimitsSource::Unknown,
    };

    /// Limits with the given largest buffer, and nothing else stated; for tests and for
    /// callers that know a device burn-guard cannot ask.
    pub const fn with_max_buffer(max_buffer_bytes: u64) -> Self {
        Self {
            max_buffer_bytes: Some(max_buffer_bytes),
            alignment: None,
            capacity_bytes: None,
            source: LimitsSource::Unknown,
        }
    }
}

/// Where a device's [`DeviceLimits`] come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LimitsSource {
    /// The CubeCL client's memory properties: the runtime's own figures.
    Cubecl,
    /// The host: Rust's largest allocation (`isize::MAX`) and the operating system's memory
    /// figure (`/proc/meminfo` on Linux; none elsewhere).
    Host,
    /// Nothing to ask: a remote device (its server's limits are not reported), a backend this
    /// build cannot open, or limits given by hand.
    Unknown,
}

/// The host's memory, as the operating system reports it now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct HostMemory {
    /// Physical memory, in bytes (`MemTotal`).
    pub total_bytes: u64,
    /// Memory available for new allocations without swapping, in bytes (`MemAvailable`).
    pub available_bytes: u64,
    /// This process's address-space limit, in bytes (the soft `RLIMIT_AS`, as `ulimit -v`
    /// sets it); `None` when unlimited or unknown.
    pub address_space_limit: Option<u64>,
    /// This process's address space now, in bytes (`VmSize`); `None` when unknown.
    pub address_space_used: Option<u64>,
}

impl HostMemory {
    /// Figures for unit tests of the budget rule: no address-space limit, nothing mapped.
    #[cfg(test)]
    pub(crate) fn for_tests(total_bytes: u64, available_bytes: u64) -> Self {
        Self {
            total_bytes,
            available_bytes,
            address_space_limit: None,
            address_space_used: None,
        }
    }
}
