//! The byte rule: the bytes a tensor of a shape and dtype needs, in checked arithmetic, against
//! the largest single buffer its device can allocate.
//!
//! burn computes a tensor's element count as the plain product of its dims (burn-std
//! `Shape::num_elements`) and its contiguous strides as products of the trailing dims: an
//! overflow panics in a debug build (on wgpu on the fusion device thread, which poisons the
//! device) and wraps silently in a release build (burn-flex `FlexTensor::empty` then allocates a
//! tiny buffer behind a huge shape). Bytes over the device's largest buffer are accepted by
//! every op and fail at the first read on wgpu, or panic on the device thread when the tensor is
//! a parameter. Refused here, before anything is dispatched.

use burn::tensor::DType;
use burn::tensor::quantization::{QuantScheme, QuantStore};

use super::device_limits::{DeviceLimits, HostMemory};
use crate::error::{GuardError, Result};

/// The number of elements of `shape`, or `None` when the product of its non-zero dims overflows
/// `usize`.
///
/// The non-zero dims, not all of them: burn multiplies in any order (the element count left to
/// right, strides right to left), so `[0, usize::MAX, 2]` overflows in its strides although it
/// holds no element. When the product of the non-zero dims fits, so does every partial product.
///
/// ```
/// use burn_guard::check::bytes::elements;
/// assert_eq!(elements(&[2, 3]), Some(6));
/// assert_eq!(elements(&[2, 0, 3]), Some(0));
/// assert_eq!(elements(&[]), Some(1));
/// assert_eq!(elements(&[0, usize::MAX, 2]), None);
/// ```
pub fn elements(shape: &[usize]) -> Option<usize> {
    let nonzero = shape
        .iter()
        .filter(|&&dim| dim != 0)
        .try_fold(1usize, |acc, &dim| acc.checked_mul(dim))?;
    Some(if shape.contains(&0) { 0 } else { nonzero })
}

/// The dtype an operation's output is counted in, from its input's: a quantized input's
/// result comes back in float (burn dequantizes before the operation), counted as `F32`, burn's
/// default float; any other input keeps its dtype.
pub(crate) fn output_dtype(input: DType) -> DType {
    match input {
        DType::QFloat(_) => DType::F32,
        dtype => dtype,
    }
}

/// The bytes a tensor of `shape` and `dtype` occupies: elements × dtype size, or for a quantized
/// dtype the packed values, the block scales and the per-tensor scale, as burn-std's
/// `quantized_data_len` lays them out. `None` when the element count overflows `usize` or the
/// bytes overflow `u64`.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::bytes::tensor_bytes;
/// assert_eq!(tensor_bytes(&[1024, 1024], DType::F32), Some(4 << 20));
/// assert_eq!(tensor_bytes(&[1 << 61], DType::F32), Some(1 << 63));
/// assert_eq!(tensor_bytes(&[1 << 62], DType::F32), None);
/// ```
pub fn tensor_bytes(shape: &[usize], dtype: DType) -> Option<u64> {
    let count = u64::try_from(elements(shape)?).ok()?;
    match dtype {
        DType::QFloat(scheme) => quantized_bytes(&scheme, shape, count),
        dtype => count.checked_mul(u64::try_from(dtype.size()).ok()?),
    }
}

/// [`tensor_bytes`], saturating at `u64::MAX` where it overflows: the one byte count that
/// reports, transfers and loads print (a count that overflows was refused before anything
/// allocated it).
///
/// ```
/// use burn::tensor::DType;
/// use burn::tensor::quantization::{QuantScheme, QuantValue};
/// use burn_guard::check::bytes::counted_bytes;
/// assert_eq!(counted_bytes(&[4, 8], DType::F16), 64);
/// let q8 = DType::QFloat(QuantScheme::default().with_value(QuantValue::Q8S));
/// assert_eq!(counted_bytes(&[4, 8], q8), 32 + 4); // packed values, one f32 scale
/// assert_eq!(counted_bytes(&[1 << 62], DType::F32), u64::MAX);
/// ```
pub fn counted_bytes(shape: &[usize], dtype: DType) -> u64 {
    tensor_bytes(shape, dtype).unwrap_or(u64::MAX)
}

/// burn-std `quantized_data_len` (`tensor/quantization.rs`) in checked arithmetic: storage
/// elements × stored bytes each, then one scale per block (or one for the tensor) in the scale
/// dtype, then a two-level scheme's per-tensor scale. A packed store divides only the packed
/// dimension, rounding it up (burn-std `storage_elements`).
fn quantized_bytes(scheme: &QuantScheme, shape: &[usize], count: u64) -> Option<u64> {
    use burn::tensor::quantization::{global_scale_dtype, scale_size};

    let stored_bits = u64::try_from(scheme.size_bits_stored()).ok()?;
    let num_quants = u64::try_from(scheme.num_quants()).ok()?.max(1);
    let packed = match scheme.store {
        QuantStore::PackedU32(packed_dim) | QuantStore::PackedNative(packed_dim)
            if num_quants > 1 && !shape.is_empty() =>
        {
            shape
                .len()
                .checked_sub(packed_dim)
                .and_then(|rest| rest.checked_sub(1))
        }
        _ => None,
    };
    let storage = match packed {
        Some(dim) => shape.iter().enumerate().try_fold(1u64, |acc, (i, &size)| {
            let size = u64::try_from(size).ok()?;
            let size = if i == dim {
                size.div_ceil(num_quants)
            } else {
                size
            };
            acc.checked_mul(size)
        })?,
        // A packing dim past the rank is a scheme the quantization checks refuse; count it flat.
        None => count.div_ceil(num_quants),
    };
    let values = storage.checked_mul(stored_bits.div_ceil(8))?;
    let scales = match scheme.block_size() {
        None => 1u64,
        Some(block) => block.to_dim_vec(shape.len()).iter().zip(shape).try_fold(
            1u64,
            |acc, (&extent, &size)| {
                let blocks = u64::try_from(size).ok()?.div_ceil(u64::from(extent.max(1)));
                acc.checked_mul(blocks)
            },
        )?,
    };
    let scale_bytes = scales.checked_mul(u64::try_from(scale_size(scheme.scale_dtype())).ok()?)?;
    let global = global_scale_dtype(scheme).map_or(0, scale_size);
    values
        .checked_add(scale_bytes)?
        .checked_add(u64::try_from(global).ok()?)
}

/// The byte rule for a tensor `op` would allocate: its bytes ([`tensor_bytes`]) must be
/// countable and at most the device's largest buffer (`limits.max_buffer_bytes`; a device that
/// states none refuses only an overflow). `device` names the device in the error; the caller
/// computes it, a check never reaches a device. Returns the bytes.
///
/// Run it after the shape checks, on the output shape they proved.
///
/// # Errors
///
/// [`GuardError::TooLarge`] with the bytes (`None` on overflow), the limit and the device.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::GuardError;
/// use burn_guard::capability::DeviceLimits;
/// use burn_guard::check::bytes::allocation;
///
/// let lavapipe = DeviceLimits::with_max_buffer(134_217_728);
/// assert_eq!(allocation("zeros", &[1024, 1024], DType::F32, &lavapipe, "wgpu")?, 4 << 20);
/// let err = allocation("zeros", &[33_555_456], DType::F32, &lavapipe, "wgpu").unwrap_err();
/// assert!(matches!(
///     err,
///     GuardError::TooLarge { bytes: Some(134_221_824), limit: Some(134_217_728), .. }
/// ));
/// # Ok::<(), GuardError>(())
/// ```
pub fn allocation(
    op: &'static str,
    shape: &[usize],
    dtype: DType,
    limits: &DeviceLimits,
    device: &str,
) -> Result<u64> {
    let bytes = tensor_bytes(shape, dtype);
    match (bytes, limits.max_buffer_bytes) {
        (Some(bytes), None) => Ok(bytes),
        (Some(bytes), Some(limit)) if bytes <= limit => Ok(bytes),
        (bytes, limit) => Err(GuardError::TooLarge {
            op,
            bytes,
            limit,
            device: device.to_owned(),
        }),
    }
}

/// The host's budget for one allocation of `bytes` (a rule of burn-guard's: burn asks the
/// allocator, and Rust aborts the process when it refuses): within the process's address-space
/// limit (`RLIMIT_AS`, which `ulimit -v` lowers: the allocator refuses past it), then within
/// the memory available now (past it the host swaps, or the kernel's OOM killer ends the
/// process once the pages are touched). `memory` is what the OS reported just before; `device`
/// names the device in the error.
///
/// # Errors
///
/// [`GuardError::OutOfMemory`] with the bytes, what is in use (the address space, or the
/// memory not available) and the budget (the address-space limit, or the host's memory).
///
/// ```
/// use burn_guard::GuardError;
/// use burn_guard::capability::host_memory;
/// use burn_guard::check::bytes::host_budget;
///
/// if let Some(memory) = host_memory() {
///     assert!(host_budget("zeros", 1024, &memory, "Flex").is_ok());
///     let err = host_budget("zeros", memory.total_bytes + 1, &memory, "Flex").unwrap_err();
///     assert!(matches!(err, GuardError::OutOfMemory { .. }));
/// }
/// ```
pub fn host_budget(op: &'static str, bytes: u64, memory: &HostMemory, device: &str) -> Result<()> {
    if let (Some(limit), Some(used)) = (memory.address_space_limit, memory.address_space_used)
        && used.checked_add(bytes).is_none_or(|total| total > limit)
    {
        return Err(GuardError::OutOfMemory {
            op,
            bytes,
            in_use: used,
            budget: limit,
            device: device.to_owned(),
        });
    }
    if bytes > memory.available_bytes {
        return Err(GuardError::OutOfMemory {
            op,
            bytes,
            in_use: memory.total_bytes.saturating_sub(memory.available_bytes),
            budget: memory.total_bytes,
            device: device.to_owned(),
        });
    }
    Ok(())
}

/// The budget rule: `bytes` more on a device whose live allocations take `in_use` bytes, held
/// to `budget` bytes ([`devices::set_memory_budget`](crate::devices::set_memory_budget)), in
/// checked arithmetic (a sum past `u64` is over any budget).
///
/// # Errors
///
/// [`GuardError::OutOfMemory`] naming the bytes, what is in use, the budget and the device.
///
/// ```
/// use burn_guard::check::bytes::device_budget;
///
/// assert!(device_budget("zeros", 100, 900, 1000, "wgpu").is_ok());
/// let err = device_budget("zeros", 101, 900, 1000, "wgpu").unwrap_err();
/// assert_eq!(err.kind(), burn_guard::ErrorKind::OutOfMemory);
/// ```
pub fn device_budget(
    op: &'static str,
    bytes: u64,
    in_use: u64,
    budget: u64,
    device: &str,
) -> Result<()> {
    if in_use.checked_add(bytes).is_none_or(|total| total > budget) {
        return Err(GuardError::OutOfMemory {
            op,
            bytes,
            in_use,
            budget,
            device: device.to_owned(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use burn::tensor::quantization::{QuantValue, ScaleDtype};

    use super::*;
    use crate::check::test_support::refused;

    const LAVAPIPE: u64 = 134_217_728;
    const HOST: u64 = i64::MAX as u64;

    #[test]
    fn the_rule_refuses_what_does_not_fit_and_names_it() -> std::result::Result<(), String> {
        let lavapipe = DeviceLimits::with_max_buffer(LAVAPIPE);
        let host = DeviceLimits::with_max_buffer(HOST);
        let unknown = DeviceLimits::UNKNOWN;
        // (shape, dtype, limits, Ok(bytes) or Err((bytes, limit)))
        type Row = (
            Vec<usize>,
            DType,
            DeviceLimits,
            std::result::Result<u64, (Option<u64>, Option<u64>)>,
        );
        let rows: Vec<Row> = vec![
            // Exactly the limit fits; one element more does not.
            (
                vec![LAVAPIPE as usize / 4],
                DType::F32,
                lavapipe,
                Ok(LAVAPIPE),
            ),
            (
                vec![LAVAPIPE as usize / 4 + 1],
                DType::F32,
                lavapipe,
                Err((Some(LAVAPIPE + 4), Some(LAVAPIPE))),
            ),
            (
                vec![LAVAPIPE as usize / 4 + 1024],
                DType::F32,
                lavapipe,
                Err((Some(LAVAPIPE + 4096), Some(LAVAPIPE))),
            ),
            // The dtype's size counts: the same shape fits as f16 and not as f64.
            (vec![1 << 26], DType::F16, lavapipe, Ok(LAVAPIPE)),
            (
                vec![1 << 25],
                DType::F64,
                lavapipe,
                Err((Some(2 * LAVAPIPE), Some(LAVAPIPE))),
            ),
            // A matmul output [8192, 8192] f32 is 256 MiB.
            (
                vec![8192, 8192],
                DType::F32,
                lavapipe,
                Err((Some(1 << 28), Some(LAVAPIPE))),
            ),
            // The host: 2^61 f32 is 2^63 bytes, one past isize::MAX.
            (
                vec![1 << 61],
                DType::F32,
                host,
                Err((Some(1 << 63), Some(HOST))),
            ),
            (vec![1 << 60], DType::F32, host, Ok(1 << 62)),
            // Bytes past u64, element counts past usize: refused as overflow on every device.
            (vec![1 << 62], DType::F32, host, Err((None, Some(HOST)))),
            (vec![usize::MAX, 2], DType::U8, unknown, Err((None, None))),
            (
                vec![1 << 32, 1 << 32],
                DType::Bool(burn::tensor::BoolStore::Native),
                host,
                Err((None, Some(HOST))),
            ),
            (
                vec![0, usize::MAX, 2],
                DType::F32,
                unknown,
                Err((None, None)),
            ),
            // No element, no byte; a device without a stated limit takes any countable size.
            (vec![0, usize::MAX], DType::F32, lavapipe, Ok(0)),
            (vec![1 << 40], DType::F32, unknown, Ok(1 << 42)),
            (vec![], DType::I64, lavapipe, Ok(8)),
        ];
        for (shape, dtype, limits, expected) in rows {
            let what = format!("{shape:?} {dtype:?} {limits:?}");
            let got = allocation("zeros", &shape, dtype, &limits, "device 0");
            match expected {
                Ok(bytes) => assert_eq!(got.ok(), Some(bytes), "{what}"),
                Err((bytes, limit)) => {
                    let err = refused(&what, got)?;
                    assert!(
                        matches!(
                            &err,
                            GuardError::TooLarge { op: "zeros", bytes: b, limit: l, device }
                                if *b == bytes && *l == limit && device == "device 0"
                        ),
                        "{what}: {err:?}"
                    );
                }
            }
        }
        Ok(())
    }

    #[test]
    fn the_host_budget_refuses_what_the_os_would() -> std::result::Result<(), String> {
        use crate::check::device_limits::HostMemory;

        const GIB: u64 = 1 << 30;
        let memory = |available, limit: Option<u64>, used| {
            let mut memory = HostMemory::for_tests(16 * GIB, available);
            memory.address_space_limit = limit;
            memory.address_space_used = Some(used);
            memory
        };
        // (bytes, memory, Ok or Err((in_use, budget)))
        type Row = (u64, HostMemory, Option<(u64, u64)>);
        let rows: Vec<Row> = vec![
            (GIB, memory(8 * GIB, None, GIB), None),
            (8 * GIB, memory(8 * GIB, None, GIB), None),
            // Past what is available: in use is what is not available, of the host's memory.
            (
                8 * GIB + 1,
                memory(8 * GIB, None, GIB),
                Some((8 * GIB, 16 * GIB)),
            ),
            // Under `ulimit -v 4 GiB` with 1 GiB mapped, 8 GiB cannot be mapped.
            (
                8 * GIB,
                memory(12 * GIB, Some(4 * GIB), GIB),
                Some((GIB, 4 * GIB)),
            ),
            (3 * GIB, memory(12 * GIB, Some(4 * GIB), GIB), None),
            (
                3 * GIB + 1,
                memory(12 * GIB, Some(4 * GIB), GIB),
                Some((GIB, 4 * GIB)),
            ),
            (
                u64::MAX,
                memory(12 * GIB, Some(4 * GIB), GIB),
                Some((GIB, 4 * GIB)),
            ),
        ];
        for (bytes, memory, expected) in rows {
            let what = format!("{bytes} {memory:?}");
            let got = host_budget("ones", bytes, &memory, "Flex");
            match expected {
                None => assert!(got.is_ok(), "{what}: {got:?}"),
                Some((in_use, budget)) => {
                    let err = refused(&what, got)?;
                    assert!(
                        matches!(
                            &err,
                            GuardError::OutOfMemory { op: "ones", bytes: b, in_use: u, budget: g, device }
                                if *b == bytes && *u == in_use && *g == budget && device == "Flex"
                        ),
                        "{what}: {err:?}"
                    );
                }
            }
        }
        Ok(())
    }

    /// The quantized count is burn-std's `quantized_data_len` wherever that does not overflow.
    #[test]
    fn quantized_bytes_are_burns() {
        let base = QuantScheme::default();
        let schemes = [
            base,
            base.with_value(QuantValue::Q8S),
            base.with_value(QuantValue::Q4F),
            base.with_value(QuantValue::Q2S),
            base.with_value(QuantValue::Q4F)
                .per_block([32], ScaleDtype::F32),
            base.with_value(QuantValue::Q8F)
                .per_block([16], ScaleDtype::F16),
            base.with_store(QuantStore::Native),
            base.with_store(QuantStore::Native)
                .per_block([32], ScaleDtype::BF16),
            base.with_value(QuantValue::E4M3)
                .with_store(QuantStore::Native),
            base.with_value(QuantValue::E2M1)
                .with_store(QuantStore::PackedNative(0))
                .per_block([16], ScaleDtype::UE4M3),
            base.with_value(QuantValue::Q4F)
                .with_store(QuantStore::PackedU32(1)),
        ];
        let shapes: [&[usize]; 6] = [&[64, 64], &[3, 3], &[1, 96], &[2, 3, 64], &[7], &[0, 32]];
        for scheme in schemes {
            for shape in shapes {
                // burn-std underflows on a packing dim past the rank: a scheme no check admits.
                if scheme.packing_dim().is_some_and(|dim| dim >= shape.len()) {
                    continue;
                }
                let expected = burn::tensor::quantization::quantized_data_len(
                    &scheme,
                    &burn::tensor::Shape::from(shape.to_vec()),
                );
                assert_eq!(
                    tensor_bytes(shape, DType::QFloat(scheme)),
                    Some(expected as u64),
                    "{scheme:?} {shape:?}"
                );
            }
        }
        // Past what burn can count: refused, where burn-std would overflow.
        assert_eq!(
            tensor_bytes(&[usize::MAX, usize::MAX], DType::QFloat(base)),
            None
        );
    }
}
