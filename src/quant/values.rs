//! The range burn's quantizer computes for each parameter, computed once for both the checks
//! and the quantization.
//!
//! burn's `Quantizer` derives a parameter's scales from its range (burn-tensor
//! `quantization.rs`: `compute_range`, then `compute_q_params`, whose scale is
//! `2·max(|min|, |max|) / (b − a)` per tensor or per block, burn-backend
//! `quantization/scheme.rs`). So the range is computed here, with burn's own `compute_range`,
//! under the backstop; each parameter's extremes (one min and one max, a block scheme's folded
//! on the device) are read at once, one read per device ([`check_params`]); the checks run on
//! exactly the magnitude burn will divide; and the mapping pass quantizes with that range
//! ([`Prepared`]), as burn's quantizer would. On a backend that
//! [runs on the host](crate::check::quirks::Quirks::runs_on_host) the read is one
//! concatenated tensor, and a per-tensor scale is computed from it on the host
//! ([`quant_scale`]), bit for bit burn's (`tests/capability_truth.rs`,
//! `host_scale_claims_are_true`): what burn's quantizer spends on `compute_q_params` pays for the
//! read and the checks (`benches/quantized_models.rs`).
//!
//! Whether finite extremes prove every value finite is backend data
//! ([`Quirks::extrema_propagate_nan`](crate::check::quirks::Quirks::extrema_propagate_nan)):
//! ±inf reaches a min or a max on every backend, NaN only where min and max return it. Where
//! the backend does not say so, a sum of the values (not finite when any value is NaN or ±inf)
//! joins the same transaction.
//!
//! The exact check (`backend::quant::check_values`: the count of non-finite values) runs only
//! on the error path: a parameter whose extremes or sum are not finite, one whose range burn
//! could not compute, every parameter of a device whose batched read failed.

use burn::backend::Dispatch;
use burn::module::ParamId;
use burn::tensor::quantization::{Calibration, CalibrationRange, QuantScheme, compute_range};
use burn::tensor::{DType, Device, Tensor};
use burn_backend::ops::{FloatTensorOps, TransactionPrimitive};
use burn_backend::tensor::FloatTensor;
use burn_backend::{TensorData, TensorMetadata, TensorPrimitive, try_read_sync};

use crate::capability::quirks_of;
use crate::check::quant::{ValueRange, quant_scale, quant_values, range_magnitude};
use crate::error::{Result, ResultExt};
use crate::panic::catch;
use crate::quant::engine::check_values;

/// A parameter to quantize: its module path and id, its stored values, and the range burn's
/// quantizer computes from them (or the panic computing it).
pub(crate) struct ParamRange<'a> {
    pub(crate) path: &'a str,
    pub(crate) id: ParamId,
    device: Device,
    values: FloatTensor<Dispatch>,
    /// burn's range; `Ok(None)` once the read has taken its tensors (a per-tensor scale is then
    /// computed on the host from what the read returned).
    range: Result<Option<CalibrationRange>>,
    /// What the device's read returned for it.
    read: Read,
}

impl<'a> ParamRange<'a> {
    /// burn's range of `tensor` (the stored value, as `Quantizer::map_float` receives it from
    /// `Param::consume`), under the backstop.
    pub(crate) fn compute<const D: usize>(
        op: &'static str,
        path: &'a str,
        id: ParamId,
        tensor: Tensor<D>,
        scheme: &QuantScheme,
        calibration: &Calibration,
    ) -> Self {
        let range = catch(op, || compute_range(scheme, &tensor, calibration)).map(Some);
        Self {
            path,
            id,
            device: tensor.device(),
            values: tensor.into_dispatch(),
            range,
            read: UNREAD,
        }
    }
}

/// How the mapping pass quantizes a parameter the checks passed, keyed by its id.
pub(crate) enum Prepared {
    /// With this per-tensor scale, computed on the host from burn's range
    /// ([`quant_scale`]): what burn's `compute_q_params` computes on a backend that
    /// [runs on the host](crate::check::quirks::Quirks::runs_on_host).
    Scale(f32),
    /// With the parameters burn's `compute_q_params` computes from this range.
    Range(Box<CalibrationRange>),
    /// As burn's quantizer does, range and all: the read took the range and failed.
    Recompute,
}

/// Checks every parameter's range for `scheme`, the first refusal carrying its path; then says
/// how each is quantized, in their order.
///
/// # Errors
///
/// As [`check_values`], with the parameter's path as context; the panic burn's `compute_range`
/// raised for a parameter whose values are finite; [`GuardError::OutOfRange`] for a range whose
/// magnitude gives a scale its dtype cannot hold, finite values included (an `AbsMean` whose
/// sum overflows).
///
/// [`GuardError::OutOfRange`]: crate::GuardError::OutOfRange
pub(crate) fn check_params(
    op: &'static str,
    mut params: Vec<ParamRange<'_>>,
    scheme: &QuantScheme,
) -> Result<Vec<(ParamId, Prepared)>> {
    let mut groups: Vec<Vec<&mut ParamRange<'_>>> = Vec::new();
    for param in &mut params {
        match groups
            .iter_mut()
            .find(|group| group.first().is_some_and(|p| p.device == param.device))
        {
            Some(group) => group.push(param),
            None => groups.push(vec![param]),
        }
    }
    for group in &mut groups {
        read_group(op, group, scheme)?;
        for param in group.iter() {
            check_param(op, param, scheme)?;
        }
    }
    Ok(params
        .into_iter()
        .map(|param| {
            let prepared = match (param.range, param.read.extremes) {
                (Ok(Some(range)), _) => Prepared::Range(Box::new(range)),
                (_, Some((min, max))) => {
                    Prepared::Scale(quant_scale(scheme, range_magnitude(min, max)))
                }
                _ => Prepared::Recompute,
            };
            (param.id, prepared)
        })
        .collect())
}

/// What the batched read says of one parameter.
#[derive(Clone, Copy)]
struct Read {
    /// The smallest min and the largest max of the range.
    extremes: Option<(f32, f32)>,
    /// Whether the values' sum is finite, when it was read.
    sum_finite: Option<bool>,
}

/// Nothing read: the exact check decides.
const UNREAD: Read = Read {
    extremes: None,
    sum_finite: None,
};

/// Reads the extremes of every parameter of `group` (one device) at once, into each one's
/// `read`.
///
/// On a backend that [runs on the host](crate::check::quirks::Quirks::runs_on_host), with
/// NaN-propagating extremes and F32 ranges, they are concatenated on the device and read as one
/// tensor (a launch costs nothing there, a read allocates); a per-tensor range's tensors are
/// taken, its scale then computed on the host. Elsewhere they are registered in one transaction
/// (CubeCL's `cat` launches a kernel per input, its transaction reads every buffer in one go),
/// with each parameter's sum where a NaN could hide from a min and a max. A block scheme's
/// range holds one min and one max per block: folded on the device, so that the read stays two
/// numbers per parameter. A read that panics or fails leaves the group unread (the exact check
/// then reads each parameter on its own); a device marked unhealthy by the time the read
/// returned refuses the group ([`value_reads::read_sync`](crate::value_reads::read_sync)).
fn read_group(
    op: &'static str,
    group: &mut [&mut ParamRange<'_>],
    scheme: &QuantScheme,
) -> Result<()> {
    let Some(device) = group.first().map(|param| param.device.clone()) else {
        return Ok(());
    };
    let quirks = quirks_of(&device);
    let with_sum = !quirks.extrema_propagate_nan;
    let blocks = scheme.block_size().is_some();
    let on_host = quirks.runs_on_host
        && !with_sum
        && group.iter().all(|param| match &param.range {
            Ok(Some(range)) => range.min.dtype() == DType::F32 && range.max.dtype() == DType::F32,
            _ => true,
        });
    // The two extremes of each parameter whose range was computed, in the group's order.
    let mut extremes = Vec::with_capacity(group.len());
    for param in group.iter_mut() {
        let (min, max) = match &mut param.range {
            Ok(slot @ Some(_)) if on_host && !blocks => match slot.take() {
                Some(range) => (range.min, range.max),
                None => continue,
            },
            Ok(Some(range)) => (range.min.clone(), range.max.clone()),
            _ => continue,
        };
        extremes.push((min.into_dispatch(), max.into_dispatch()));
    }
    let sums: Vec<FloatTensor<Dispatch>> = if with_sum {
        group.iter().map(|param| param.values.clone()).collect()
    } else {
        Vec::new()
    };
    let values = crate::value_reads::read_sync(op, Some(&device), || {
        let folded = extremes.into_iter().map(|(min, max)| {
            if blocks {
                (Dispatch::float_min(min), Dispatch::float_max(max))
            } else {
                (min, max)
            }
        });
        if on_host {
            let all: Vec<_> = folded.flat_map(|(min, max)| [min, max]).collect();
            if all.is_empty() {
                return Some(Ok(Some(Vec::new())));
            }
            let data = try_read_sync(Dispatch::float_into_data(Dispatch::float_cat(all, 0)))?;
            return Some(data.map(|data| data.try_into_vec::<f32>().ok()));
        }
        let mut transaction = TransactionPrimitive::<Dispatch>::default();
        for (min, max) in folded {
            transaction.register_float(TensorPrimitive::Float(min));
            transaction.register_float(TensorPrimitive::Float(max));
        }
        for values in sums {
            transaction.register_float(TensorPrimitive::Float(Dispatch::float_sum(values)));
        }
        let reads = try_read_sync(transaction.execute_async())?;
        Some(reads.map(|reads| reads.iter().map(first_f32).collect::<Option<Vec<f32>>>()))
    });
    let values = match values {
        Ok(Some(values)) => values,
        // A marked device refuses; any other failure leaves the group to the exact check.
        Err(err) if err.kind() == crate::ErrorKind::DeviceUnavailable => return Err(err),
        Ok(None) | Err(_) => return Ok(()),
    };
    let mut values = values.into_iter();
    // The same walk as the one that registered them: a range `take`n above is `Ok(None)` now.
    for param in group.iter_mut() {
        if param.range.is_ok() {
            param.read.extremes = values.next().zip(values.next());
        }
    }
    if with_sum {
        for param in group.iter_mut() {
            param.read.sum_finite = Some(values.next().is_some_and(f32::is_finite));
        }
    }
    Ok(())
}

/// One parameter's verdict from its read: straight from the extremes when they (and the sum,
/// where read) are finite; otherwise the exact check first, which names the count of NaN and
/// ±inf.
fn check_param(op: &'static str, param: &ParamRange<'_>, scheme: &QuantScheme) -> Result<()> {
    let read = param.read;
    let context = param.path;
    let len = u64::try_from(param.values.shape().num_elements()).unwrap_or(u64::MAX);
    let range = |max_abs| ValueRange {
        non_finite: 0,
        len,
        max_abs,
    };
    match (&param.range, read.extremes) {
        (Ok(_), Some((min, max))) => {
            let magnitude = range_magnitude(min, max);
            let finite = min.is_finite() && max.is_finite() && read.sum_finite != Some(false);
            if !finite {
                check_values::<Dispatch>(op, &param.values, scheme).context(context)?;
            }
            quant_values(op, scheme, range(magnitude)).context(context)
        }
        (Ok(_), None) => check_values::<Dispatch>(op, &param.values, scheme).context(context),
        (Err(panic), _) => {
            check_values::<Dispatch>(op, &param.values, scheme).context(context)?;
            Err(panic.clone().context(context))
        }
    }
}

/// The first value of a read as `f32`: straight from an `f32` read, converted from another.
fn first_f32(data: &TensorData) -> Option<f32> {
    match data.as_slice::<f32>() {
        Ok(values) => values.first().copied(),
        Err(_) => data.clone().convert::<f32>().iter::<f32>().next(),
    }
}

#[cfg(test)]
mod tests {
    use burn::tensor::TensorData;
    use burn::tensor::quantization::QuantScheme;

    use super::*;
    use crate::error::{ErrorKind, GuardError};

    const OP: &str = "quantize_dynamic";

    type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    /// The refusal a check returned, or an error saying it accepted.
    fn refusal(result: Result<()>) -> std::result::Result<GuardError, &'static str> {
        match result {
            Err(err) => Ok(err),
            Ok(()) => Err("the check accepted what it should refuse"),
        }
    }

    fn param(values: Vec<f32>) -> ParamRange<'static> {
        let len = values.len();
        let tensor = Tensor::<1>::from_data(TensorData::new(values, [len]), &Device::flex());
        let calibration = Calibration::MinMax;
        let id = ParamId::new();
        ParamRange::compute(
            OP,
            "head.weight",
            id,
            tensor,
            &QuantScheme::default(),
            &calibration,
        )
    }

    fn read(min: f32, max: f32, sum_finite: Option<bool>) -> Read {
        Read {
            extremes: Some((min, max)),
            sum_finite,
        }
    }

    fn check(param: &mut ParamRange<'_>, read: Read) -> Result<()> {
        param.read = read;
        check_param(OP, param, &QuantScheme::default())
    }

    /// What each read decides: the extremes alone when finite; the exact check (which counts
    /// NaN and ±inf) first when an extreme or the sum is not; burn's magnitude last.
    #[test]
    fn a_read_decides_as_burns_range_would() -> TestResult {
        let mut finite = param(vec![1.0, -3.0, 2.0]);
        assert!(check(&mut finite, read(-3.0, 2.0, None)).is_ok());
        // Finite values whose sum overflowed: the exact check finds nothing.
        assert!(check(&mut finite, read(-3.0, 2.0, Some(false))).is_ok());
        // Finite values, an infinite range (an `AbsMean` that overflowed): burn's scale is
        // infinite too.
        let err = refusal(check(&mut finite, read(0.0, f32::INFINITY, None)))?;
        assert_eq!(err.kind(), ErrorKind::OutOfRange, "{err}");
        // A NaN |min| is burn's magnitude (`mask_where` keeps it), not dropped.
        let err = refusal(check(&mut finite, read(f32::NAN, 2.0, None)))?;
        assert_eq!(err.kind(), ErrorKind::OutOfRange, "{err}");

        let mut nan = param(vec![1.0, f32::NAN, 2.0]);
        // Extremes that skipped the NaN (a backend without NaN-propagating min and max): the
        // sum sends the values to the exact check.
        let err = refusal(check(&mut nan, read(1.0, 2.0, Some(false))))?;
        assert!(
            matches!(
                err.root(),
                GuardError::NonFinite {
                    count: 1,
                    total: 3,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(err.path().as_deref(), Some("head.weight"));
        let err = refusal(check(&mut nan, read(f32::NAN, f32::NAN, None)))?;
        assert_eq!(err.kind(), ErrorKind::NonFinite, "{err}");
        // No read at all: the exact check alone.
        let unread = Read {
            extremes: None,
            sum_finite: None,
        };
        assert_eq!(
            refusal(check(&mut nan, unread))?.kind(),
            ErrorKind::NonFinite
        );
        assert!(check(&mut finite, unread).is_ok());
        Ok(())
    }

    /// A range burn could not compute refuses the parameter, after the exact check has had
    /// its say on the values.
    #[test]
    fn a_range_that_panicked_refuses_the_parameter() -> TestResult {
        let panicked = |values| {
            let mut param = param(values);
            param.range = Err(GuardError::BackendPanic {
                op: OP,
                message: "boom".into(),
                location: None,
            });
            param
        };
        let unread = Read {
            extremes: None,
            sum_finite: None,
        };
        let err = refusal(check(&mut panicked(vec![1.0, 2.0]), unread))?;
        assert_eq!(err.kind(), ErrorKind::BackendPanic, "{err}");
        assert_eq!(err.path().as_deref(), Some("head.weight"));
        let err = refusal(check(&mut panicked(vec![1.0, f32::INFINITY]), unread))?;
        assert_eq!(err.kind(), ErrorKind::NonFinite, "{err}");
        Ok(())
    }

    /// On Flex the batched read alone names the parameter: NaN and ±inf reach its range.
    #[test]
    fn flex_ranges_are_read_in_one_batch() -> TestResult {
        assert!(quirks_of(&Device::flex()).extrema_propagate_nan);
        let params = [param(vec![1.0, 2.0]), param(vec![f32::NEG_INFINITY, 2.0])];
        let err = refusal(check_params(OP, params.into(), &QuantScheme::default()).map(drop))?;
        assert!(
            matches!(
                err.root(),
                GuardError::NonFinite {
                    count: 1,
                    total: 2,
                    ..
                }
            ),
            "{err}"
        );
        Ok(())
    }
}
