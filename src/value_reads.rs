//! Checks on values that need a synchronous device read, and the way to skip them.
//!
//! A few checks cannot be decided from shapes: an index tensor's values against the size it
//! indexes (`try_select`, `try_gather`, an embedding's token ids), class ids against the class
//! count (`try_one_hot`, a loss's targets). Each reads the tensor back from the device before
//! dispatch: one synchronous read per checked tensor, which also waits for the work pending
//! on it. On a CPU backend that is a copy; on a GPU it is a round trip that stalls the queue.
//!
//! - [`count`] says how many such reads this thread has made, so a service can see what a
//!   forward costs (the nn twins document which of them read).
//! - [`vouched`] runs a closure with those reads skipped on this thread: for callers that
//!   already know their indices are in range (ids from their own tokenizer, targets from
//!   their own dataset). A value out of range then reaches the backend unchecked: on a CPU
//!   backend the backstop still turns its panic into an error, on wgpu a gather out of range
//!   reads whatever is there.
//!
//! ```
//! use burn::tensor::{Device, Int, Tensor};
//! use burn_guard::prelude::*;
//! use burn_guard::value_reads;
//!
//! let device = Device::flex();
//! let t = Tensor::<1>::from_floats([1.0, 2.0, 3.0], &device);
//! let ids = Tensor::<1, Int>::from_ints([2, 0], &device);
//!
//! let before = value_reads::count();
//! t.clone().try_select(0, ids.clone())?;
//! assert_eq!(value_reads::count(), before + 1);
//!
//! value_reads::vouched(|| t.try_select(0, ids))?;
//! assert_eq!(value_reads::count(), before + 1);
//! # Ok::<(), burn_guard::GuardError>(())
//! ```

use std::cell::Cell;

use burn::tensor::kind::Basic;
use burn::tensor::{Device, Element, ExecutionError, Tensor, TensorData};

use crate::error::{GuardError, NonFiniteSplit, Result};
use crate::panic::catch;

thread_local! {
    static VOUCHED: Cell<bool> = const { Cell::new(false) };
    static READS: Cell<u64> = const { Cell::new(0) };
}

/// How many value reads the guarded calls on this thread have made so far.
pub fn count() -> u64 {
    READS.with(Cell::get)
}

/// Runs `f` with value reads skipped on this thread: index and class checks trust the values.
///
/// Nested calls keep the outer setting once they return; a panic inside `f` restores it too.
pub fn vouched<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            VOUCHED.with(|v| v.set(self.0));
        }
    }
    let _restore = Restore(VOUCHED.with(|v| v.replace(true)));
    f()
}

/// Whether a value check should read: `false` inside [`vouched`]. Counts the read when it
/// should.
pub(crate) fn should_read() -> bool {
    if VOUCHED.with(Cell::get) {
        return false;
    }
    READS.with(|reads| reads.set(reads.get().saturating_add(1)));
    true
}

/// The values of `tensor` as `E`, for a check on values (index ranges, divisors, class ids):
/// one synchronous read ([`read_data`]), counted in [`count`]; empty inside [`vouched`], where
/// there is nothing to check. Every value check of the crate reads through it.
pub(crate) fn read_values<E: Element, const D: usize, K: Basic>(
    op: &'static str,
    tensor: &Tensor<D, K>,
) -> Result<Vec<E>> {
    if !should_read() {
        return Ok(Vec::new());
    }
    let data = read_data(op, tensor)?;
    catch(op, || {
        data.try_cast_as::<E>()
            .and_then(TensorData::try_into_vec::<E>)
    })?
    .map_err(|source| GuardError::from_data(op, source))
}

/// `tensor`'s data, read under the backstop; see [`read_failed`]. Not counted: the value
/// checks count through [`read_values`], and a twin of burn's own reads is the caller's read.
pub(crate) fn read_data<const D: usize, K: Basic>(
    op: &'static str,
    tensor: &Tensor<D, K>,
) -> Result<TensorData> {
    let device = tensor.device();
    let data =
        catch(op, || tensor.try_to_data())?.map_err(|source| read_failed(op, &device, source))?;
    trusted(op, &device, data)
}

/// NaN, `+inf` and `-inf` among a float tensor's values, counted apart on its device and read
/// together (one read): for a refusal that has counted them as one.
pub(crate) fn read_non_finite_split<const D: usize>(
    op: &'static str,
    tensor: &Tensor<D>,
) -> Result<NonFiniteSplit> {
    let values = tensor.clone();
    let by_class = catch(op, || {
        Tensor::cat(
            vec![
                values.clone().is_nan().int().sum(),
                values.clone().equal_elem(f64::INFINITY).int().sum(),
                values.equal_elem(f64::NEG_INFINITY).int().sum(),
            ],
            0,
        )
    })?;
    let data = read_data_into(op, by_class)?;
    let counts: Vec<u64> = catch(op, || {
        data.iter::<i64>()
            .map(|count| u64::try_from(count).unwrap_or(0))
            .collect()
    })?;
    match counts.as_slice() {
        &[nan, pos_inf, neg_inf] => Ok(NonFiniteSplit {
            nan,
            pos_inf,
            neg_inf,
        }),
        other => Err(GuardError::from_read(
            op,
            burn::tensor::TensorReadError::InvalidShape {
                expected: 3,
                actual: other.len(),
            },
        )),
    }
}

/// As [`read_data`], consuming `tensor`.
pub(crate) fn read_data_into<const D: usize, K: Basic>(
    op: &'static str,
    tensor: Tensor<D, K>,
) -> Result<TensorData> {
    let device = tensor.device();
    let data =
        catch(op, || tensor.try_into_data())?.map_err(|source| read_failed(op, &device, source))?;
    trusted(op, &device, data)
}

/// A synchronous read of work on a device — a transaction, a backend primitive's data — run
/// under the backstop: how a check that is not about a `burn::Tensor` reads values (a
/// quantization's range, at the backend level or for a whole model). `device` is the
/// `burn::Tensor`-level device the work runs on, when there is one (a backend-level caller
/// passes [`dispatch_device`]'s answer): a failed read then records the device poisoned
/// ([`read_failed`]), and a read that returns is refused when the device was marked by the time
/// it did ([`trusted`]'s rule). `None` from `read` means the platform cannot read synchronously.
///
/// Not counted in [`count`]: these reads are the quantizers' own, not index checks a caller can
/// vouch for.
pub(crate) fn read_sync<T>(
    op: &'static str,
    device: Option<&Device>,
    read: impl FnOnce() -> Option<std::result::Result<T, ExecutionError>>,
) -> Result<T> {
    let unavailable = || GuardError::DeviceUnavailable {
        op,
        device: device.map_or_else(|| "host".to_owned(), crate::capability::naming::brief),
        reason: "cannot read tensor data synchronously on this platform".into(),
    };
    match catch(op, read)? {
        None => Err(unavailable()),
        Some(Err(cause)) => Err(match device {
            Some(device) => read_failed(op, device, cause),
            None => GuardError::from_execution(op, cause),
        }),
        Some(Ok(value)) => {
            if let Some(device) = device {
                crate::capability::require_healthy(op, device)?;
            }
            Ok(value)
        }
    }
}

/// The `burn::Tensor`-level device behind a backend-level device, when the backend is burn's
/// `Dispatch` (what the tensor twins and the model quantizer run on): the device whose health
/// the crate records. `None` for any other backend, which has no such record.
pub(crate) fn dispatch_device<B: burn_backend::Backend>(device: &B::Device) -> Option<Device> {
    let any: &dyn std::any::Any = device;
    any.downcast_ref::<burn::backend::DispatchDevice>()
        .map(|dispatch| Device::from(dispatch.clone()))
}

/// `data` read from `device`, unless the device is marked (poisoned, tainted, quarantined)
/// by the time the read returned: a task that failed on the device's runner before the read
/// finished may have left these values unwritten.
fn trusted(op: &'static str, device: &Device, data: TensorData) -> Result<TensorData> {
    crate::capability::require_healthy(op, device)?;
    Ok(data)
}

/// The error of a failed read; a read that found its device poisoned records it
/// ([`devices::health`](crate::devices::health)), so that later twins refuse the device at
/// once.
pub(crate) fn read_failed(op: &'static str, device: &Device, source: ExecutionError) -> GuardError {
    crate::capability::note_execution_error(op, device, &source);
    GuardError::from_read(op, source.into())
}
