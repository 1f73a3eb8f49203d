//! The range burn's quantizer computes for each parameter, computed once for both the checks
//! and the quantization.
//!
//! burn's `Quantizer` derives a parameter's scales from its range (burn-tensor
//! `quantization.rs`: `compute_range`, then `compute_q_params`, whose scale is
//! `2·max(|min|, |max|) / (b − a)` per tensor or per block, burn-backend
//! `quantization/scheme.rs`). So the range is computed here, with burn's own `compute_range`,
//! under the backstop; each parameter's extremes (one min and one max, a block scheme's folded
//! on the device) are registered in one transaction per device and read once; the checks run on
//! exactly the magnitude burn will divide; and the mapping pass quantizes with the same range
//! ([`ParamRange::into_range`]), as burn's quantizer would.
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
use burn::tensor::{Device, Tensor};
use burn_backend::ops::{FloatTensorOps, TransactionPrimitive};
use burn_backend::tensor::FloatTensor;
use burn_backend::{TensorData, TensorMetadata, TensorPrimitive, try_read_sync};

use crate::backend::quant::check_values;
use crate::capability::quirks_of;
use crate::check::quant::{ValueRange, quant_values, range_magnitude};
use crate::error::{Result, ResultExt};
use crate::panic::catch;

/// A parameter to quantize: its module path and id, its stored values, and the range burn's
/// quantizer computes from them (or the panic computing it).
pub(crate) struct ParamRange<'a> {
    pub(crate) path: &'a str,
    pub(crate) id: ParamId,
    device: Device,
    values: FloatTensor<Dispatch>,
    range: Result<CalibrationRange>,
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
        let range = catch(op, || compute_range(scheme, &tensor, calibration));
        Self {
            path,
            id,
            device: tensor.device(),
            values: tensor.into_dispatch(),
            range,
        }
    }

    /// The parameter's id and burn's range, for the quantization; `None` when it panicked.
    pub(crate) fn into_range(self) -> (ParamId, Option<CalibrationRange>) {
        (self.id, self.range.ok())
    }
}

/// Checks every parameter's range for `scheme`; the first refusal carries its path.
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
    params: &[ParamRange<'_>],
    scheme: &QuantScheme,
) -> Result<()> {
    let mut groups: Vec<Vec<&ParamRange<'_>>> = Vec::new();
    for param in params {
        match groups
            .iter_mut()
            .find(|group| group.first().is_some_and(|p| p.device == param.device))
        {
            Some(group) => group.push(param),
            None => groups.push(vec![param]),
        }
    }
    for group in groups {
        check_group(op, &group, scheme)?;
    }
    Ok(())
}

/// What the batched read says of one parameter.
#[derive(Clone, Copy)]
struct Read {
    /// The smallest min and the largest max of the range.
    extremes: Option<(f32, f32)>,
    /// Whether the values' sum is finite, when it was read.
    sum_finite: Option<bool>,
}

fn check_group(op: &'static str, group: &[&ParamRange<'_>], scheme: &QuantScheme) -> Result<()> {
    let Some(device) = group.first().map(|p| &p.device) else {
        return Ok(());
    };
    let with_sum = !quirks_of(device).extrema_propagate_nan;
    let blocks = scheme.block_size().is_some();
    let read = catch(op, || {
        let mut transaction = TransactionPrimitive::<Dispatch>::default();
        for param in group {
            if let Ok(range) = &param.range {
                let min: FloatTensor<Dispatch> = range.min.clone().into_dispatch();
                let max: FloatTensor<Dispatch> = range.max.clone().into_dispatch();
                // A block scheme's range holds one min and one max per block: folded on the
                // device, so that one read stays two numbers per parameter.
                let (min, max) = if blocks {
                    (Dispatch::float_min(min), Dispatch::float_max(max))
                } else {
                    (min, max)
                };
                transaction.register_float(TensorPrimitive::Float(min));
                transaction.register_float(TensorPrimitive::Float(max));
            }
            if with_sum {
                let sum = Dispatch::float_sum(param.values.clone());
                transaction.register_float(TensorPrimitive::Float(sum));
            }
        }
        try_read_sync(transaction.execute_async())
    });
    // A panic, no synchronous read, or an execution error: the exact check, parameter by
    // parameter, says which parameter and why.
    let reads = match read {
        Ok(Some(Ok(reads))) => reads,
        _ => {
            let unread = Read {
                extremes: None,
                sum_finite: None,
            };
            return group
                .iter()
                .try_for_each(|param| check_param(op, param, scheme, unread));
        }
    };
    let mut reads = reads.iter();
    for param in group {
        let extremes = match param.range {
            Ok(_) => reads
                .next()
                .and_then(first_f32)
                .zip(reads.next().and_then(first_f32)),
            Err(_) => None,
        };
        let sum_finite = if with_sum {
            Some(reads.next().and_then(first_f32).is_some_and(f32::is_finite))
        } else {
            None
        };
        check_param(
            op,
            param,
            scheme,
            Read {
                extremes,
                sum_finite,
            },
        )?;
    }
    Ok(())
}

/// One parameter's verdict from its read: straight from the extremes when they (and the sum,
/// where read) are finite; otherwise the exact check first, which names the count of NaN and
/// ±inf.
fn check_param(
    op: &'static str,
    param: &ParamRange<'_>,
    scheme: &QuantScheme,
    read: Read,
) -> Result<()> {
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

    fn check(param: &ParamRange<'_>, read: Read) -> Result<()> {
        check_param(OP, param, &QuantScheme::default(), read)
    }

    /// What each read decides: the extremes alone when finite; the exact check (which counts
    /// NaN and ±inf) first when an extreme or the sum is not; burn's magnitude last.
    #[test]
    fn a_read_decides_as_burns_range_would() -> TestResult {
        let finite = param(vec![1.0, -3.0, 2.0]);
        assert!(check(&finite, read(-3.0, 2.0, None)).is_ok());
        // Finite values whose sum overflowed: the exact check finds nothing.
        assert!(check(&finite, read(-3.0, 2.0, Some(false))).is_ok());
        // Finite values, an infinite range (an `AbsMean` that overflowed): burn's scale is
        // infinite too.
        let err = refusal(check(&finite, read(0.0, f32::INFINITY, None)))?;
        assert_eq!(err.kind(), ErrorKind::OutOfRange, "{err}");
        // A NaN |min| is burn's magnitude (`mask_where` keeps it), not dropped.
        let err = refusal(check(&finite, read(f32::NAN, 2.0, None)))?;
        assert_eq!(err.kind(), ErrorKind::OutOfRange, "{err}");

        let nan = param(vec![1.0, f32::NAN, 2.0]);
        // Extremes that skipped the NaN (a backend without NaN-propagating min and max): the
        // sum sends the values to the exact check.
        let err = refusal(check(&nan, read(1.0, 2.0, Some(false))))?;
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
        let err = refusal(check(&nan, read(f32::NAN, f32::NAN, None)))?;
        assert_eq!(err.kind(), ErrorKind::NonFinite, "{err}");
        // No read at all: the exact check alone.
        let unread = Read {
            extremes: None,
            sum_finite: None,
        };
        assert_eq!(refusal(check(&nan, unread))?.kind(), ErrorKind::NonFinite);
        assert!(check(&finite, unread).is_ok());
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
        let err = refusal(check(&panicked(vec![1.0, 2.0]), unread))?;
        assert_eq!(err.kind(), ErrorKind::BackendPanic, "{err}");
        assert_eq!(err.path().as_deref(), Some("head.weight"));
        let err = refusal(check(&panicked(vec![1.0, f32::INFINITY]), unread))?;
        assert_eq!(err.kind(), ErrorKind::NonFinite, "{err}");
        Ok(())
    }

    /// On Flex the batched read alone names the parameter: NaN and ±inf reach its range.
    #[test]
    fn flex_ranges_are_read_in_one_batch() -> TestResult {
        assert!(quirks_of(&Device::flex()).extrema_propagate_nan);
        let params = [param(vec![1.0, 2.0]), param(vec![f32::NEG_INFINITY, 2.0])];
        let err = refusal(check_params(OP, &params, &QuantScheme::default()))?;
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
