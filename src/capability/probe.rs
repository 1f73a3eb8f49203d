//! Probing a backend by running an operation on a tiny tensor under the panic backstop.

use burn::tensor::FloatDType;
use burn::tensor::quantization::{QuantScheme, QuantValue};
use burn_backend::{Backend, TensorData, try_read_sync};

use super::quant::Support;
use crate::panic::catch;

/// Deterministic probe values, `2·sin(0.37 i)`: both signs, no zeros, max |x| near 2.
pub(crate) fn probe_values(len: usize) -> Vec<f32> {
    (0..len)
        .map(|i| 2.0 * (0.37 * i as f32).sin() + 0.001)
        .collect()
}

/// The largest dequantization error a correct scheme allows on values of magnitude `max_abs`:
/// a little over two steps of the value grid, and a little over one step of a minifloat's
/// relative grid (as the capability-gap measurements use).
pub(crate) fn tolerance(scheme: &QuantScheme, max_abs: f32) -> f32 {
    let step = match scheme.value {
        QuantValue::E4M3 => 1.0 / 16.0,
        QuantValue::E5M2 => 1.0 / 8.0,
        QuantValue::E2M1 => 1.0 / 6.0,
        value => {
            let (a, b) = value.range();
            2.0 / (b - a)
        }
    };
    2.1 * max_abs * step
}

/// Quantizes and dequantizes `probe_values` of `shape` on `B`; native when it runs and every
/// value comes back within [`tolerance`].
pub(crate) fn quantize_roundtrip<B: Backend>(
    device: &B::Device,
    scheme: &QuantScheme,
    shape: &[usize],
) -> Support {
    let len: usize = shape.iter().product();
    let values = probe_values(len);
    let max_abs = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let input = TensorData::new(values.clone(), shape.to_vec());
    let outcome = catch("probe quantize_dynamic", || {
        let tensor = B::float_from_data(input, device);
        let quantized = B::quantize_dynamic(tensor, scheme);
        let restored = B::dequantize(quantized, FloatDType::F32);
        try_read_sync(B::float_into_data(restored))
    });
    let data = match outcome {
        Ok(Some(Ok(data))) => data,
        Ok(Some(Err(err))) => return Support::Unsupported(format!("execution error: {err}")),
        Ok(None) => return Support::Unsupported("cannot read back synchronously".into()),
        Err(panic) => return Support::Unsupported(panic.to_string()),
    };
    let restored = match data.convert::<f32>().try_to_vec::<f32>() {
        Ok(values) => values,
        Err(err) => return Support::Unsupported(format!("unreadable result: {err:?}")),
    };
    let limit = tolerance(scheme, max_abs);
    let worst = values
        .iter()
        .zip(&restored)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    if restored.len() != values.len() || worst.is_nan() || worst > limit {
        Support::Unsupported(format!(
            "runs but gives wrong values: max error {worst} > {limit}"
        ))
    } else {
        Support::Native
    }
}
