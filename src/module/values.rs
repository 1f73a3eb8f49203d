//! The values of every parameter to quantize, checked before any is quantized, in one read per
//! device: per parameter a sum (NaN and ±inf make it non-finite) and the largest magnitude
//! (the scale the quantizer will compute must fit its dtype), registered in one transaction.
//!
//! The exact check (`backend::quant::check_values`: the count of non-finite values, the
//! largest finite magnitude) runs only for a parameter whose sum or magnitude is not finite
//! (a bad value, or finite values whose sum overflows), and for every parameter of a device
//! whose batched read failed: the fast path costs two reductions per parameter and one
//! synchronous read per device, where the exact one costs eight passes and one read per
//! parameter.

use burn::backend::Dispatch;
use burn::tensor::quantization::QuantScheme;
use burn_backend::ops::{FloatTensorOps, TransactionPrimitive};
use burn_backend::tensor::FloatTensor;
use burn_backend::{TensorData, TensorMetadata, TensorPrimitive, try_read_sync};

use crate::backend::quant::check_values;
use crate::check::quant::{ValueRange, quant_values};
use crate::error::{Result, ResultExt};
use crate::panic::catch;

/// A parameter to quantize: its module path and its stored values.
pub(crate) struct ParamValues {
    pub(crate) path: String,
    pub(crate) tensor: FloatTensor<Dispatch>,
}

/// Checks every parameter's values for `scheme`; the first refusal carries its path.
///
/// # Errors
///
/// As [`check_values`], with the parameter's path as context.
pub(crate) fn check_params(
    op: &'static str,
    params: Vec<ParamValues>,
    scheme: &QuantScheme,
) -> Result<()> {
    let mut groups: Vec<Vec<ParamValues>> = Vec::new();
    for param in params {
        let device = param.tensor.device();
        match groups
            .iter_mut()
            .find(|group| group.first().is_some_and(|p| p.tensor.device() == device))
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

fn check_group(op: &'static str, group: &[ParamValues], scheme: &QuantScheme) -> Result<()> {
    let read = catch(op, || {
        let mut transaction = TransactionPrimitive::<Dispatch>::default();
        for param in group {
            let values = param.tensor.clone();
            transaction.register_float(TensorPrimitive::Float(Dispatch::float_sum(values.clone())));
            transaction.register_float(TensorPrimitive::Float(Dispatch::float_max_abs(values)));
        }
        try_read_sync(transaction.execute_async())
    });
    // A panic (NdArray's max over a NaN), no synchronous read, or an execution error: the
    // exact check, parameter by parameter, says which parameter and why.
    let reads = match read {
        Ok(Some(Ok(reads))) if reads.len() == 2 * group.len() => reads,
        _ => {
            return group.iter().try_for_each(|param| {
                check_values::<Dispatch>(op, &param.tensor, scheme).context(param.path.as_str())
            });
        }
    };
    for (param, pair) in group.iter().zip(reads.chunks(2)) {
        let (Some(sum), Some(max_abs)) = (
            pair.first().and_then(first_f32),
            pair.get(1).and_then(first_f32),
        ) else {
            check_values::<Dispatch>(op, &param.tensor, scheme).context(param.path.as_str())?;
            continue;
        };
        if sum.is_finite() && max_abs.is_finite() {
            let len = u64::try_from(param.tensor.shape().num_elements()).unwrap_or(u64::MAX);
            let range = ValueRange {
                non_finite: 0,
                len,
                max_abs,
            };
            quant_values(op, scheme, range).context(param.path.as_str())?;
        } else {
            check_values::<Dispatch>(op, &param.tensor, scheme).context(param.path.as_str())?;
        }
    }
    Ok(())
}

fn first_f32(data: &TensorData) -> Option<f32> {
    data.clone().convert::<f32>().iter::<f32>().next()
}
