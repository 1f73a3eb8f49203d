//! What a backend stack can do, before anything is dispatched to it.
//!
//! A stack is read from [`Backend::name`](burn_backend::Backend::name) layer by layer
//! ([`BackendStack`]), or from a `burn::Tensor`'s device ([`stack_of`]). Known layers have
//! declared tables ([`quantize_support`]) for what was measured; a gap says what would happen
//! ([`Effect`]: panics, wrong values, not implemented, unmeasured). An unknown backend can be
//! probed once on a small tensor under the panic backstop and the answer cached
//! ([`probe_quantize`]). `tests/capability_truth.rs`
//! keeps the declared tables equal to what the backends actually do. A device's memory limits
//! (largest buffer, alignment, capacity) are read once per device ([`limits_of`]).

mod budget;
mod device;
mod dtype;
mod health;
mod limits;
pub(crate) mod naming;
mod probe;
mod quant;
mod quirks;
pub(crate) mod remote;
mod stack;
mod taint;

pub use crate::check::quirks::{Modes, Quirks};
pub use crate::gap::{Effect, Gap, Support};
pub use budget::{SAMPLE_PERIOD, memory_budget, set_memory_budget};
pub use device::stack_of;
pub use dtype::{dtype_support, require_dtype};
#[cfg(unix)]
pub(crate) use health::marked_devices;
pub(crate) use health::note_execution_error;
pub(crate) use health::quarantine;
pub use health::{DeviceHealth, health, probe_health, reinstate, require_healthy};
pub use limits::{
    DeviceLimits, HOST_BUDGET_FLOOR, HostMemory, LimitsSource, SMALL_ALLOCATION, expand_allocates,
    host_memory, limits_of, require_fits,
};
pub(crate) use naming::{same_device, same_devices};
pub use probe::{PROBE_MAX_ELEMENTS, cached_probe, probe_quantize, probe_shape};
pub(crate) use quant::quant_capability;
pub use quant::{outer_packing_support, quantize_support, require_quantize};
pub use quirks::{FLEX_QUIRKS, NDARRAY_QUIRKS, Quirk, quirk_gaps, quirks_of, quirks_of_stack};
pub use stack::{BackendStack, CubeRuntime, Layer};
pub use taint::{TaintLogger, install_taint_logger};
