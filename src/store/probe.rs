//! A checkpoint's probe: a fixed input and the model's output on it, stored by a checked save
//! as one metadata entry ([`KEY`]) and re-run by a checked load on the loaded copy before it is
//! swapped in.
//!
//! Shapes cannot see a tensor whose values are right but in another order (a square weight
//! read transposed, rows permuted), and the fingerprint cannot see one that was already in that
//! order when it was saved: it hashes the bytes written. The model's output on an input does.

use std::any::TypeId;

use burn::module::Module;
use burn::tensor::{Bool, DType, Device, Float, Int, Tensor, TensorData, bf16, f16, kind::Basic};
use serde::{Deserialize, Serialize};

use crate::check::verify::{self, Tolerance};
use crate::error::{GuardError, Result};
use crate::panic::catch;
use crate::value_reads::read_data_into;

/// The metadata key a checked save stores the probe under.
pub(crate) const KEY: &str = "burn_guard.probe";

/// The op a probe's own errors name.
const OP: &str = "probe";

/// The most bytes a probe's input, and its output, may hold: both live in the file's header,
/// which every load of it reads.
const MAX_BYTES: usize = 1 << 20;

/// The element kinds a probe's input can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Float,
    Int,
    Bool,
}

impl Kind {
    fn of<K: 'static>() -> Option<Self> {
        let id = TypeId::of::<K>();
        if id == TypeId::of::<Float>() {
            Some(Self::Float)
        } else if id == TypeId::of::<Int>() {
            Some(Self::Int)
        } else if id == TypeId::of::<Bool>() {
            Some(Self::Bool)
        } else {
            None
        }
    }

    fn holds(self, dtype: DType) -> bool {
        match self {
            Self::Float => dtype.is_float(),
            Self::Int => dtype.is_int() || dtype.is_uint(),
            Self::Bool => dtype.is_bool(),
        }
    }
}

/// The forward a probe runs: the model, the input's data and the device to put it on, to the
/// output's data.
type Forward<'a, M> = dyn Fn(&M, TensorData, &Device) -> Result<TensorData> + 'a;

/// A probe of a model `M`: the forward a checked save runs on a fixed input, storing the input
/// and the output in the file's metadata (`burn_guard.probe`), and a checked load runs again on
/// the loaded copy before it is swapped in, refusing the file when the outputs differ beyond
/// the [`tolerance`](Self::tolerance).
///
/// The same probe serves both sides: the save is given the input
/// ([`CheckedSnapshot::save_into_checked_with_probe`](super::CheckedSnapshot::save_into_checked_with_probe)),
/// the load reads it from the file
/// ([`CheckedSnapshot::load_from_checked_with_probe`](super::CheckedSnapshot::load_from_checked_with_probe)).
/// The input is put on the device of the model's first parameter. The forward's panics are
/// caught. The outputs are compared as `f64`, element by element, within
/// `abs + rel × |saved|` ([`Tolerance`], by default `abs 1e-4, rel 1e-3`): F32 kernels that
/// reorder a reduction stay inside (half precision, or a device that runs F32 matmuls in TF32,
/// needs more); a weight read in another order moves the outputs by about their own size.
///
/// ```
/// use burn::module::Module;
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::check::verify::Tolerance;
/// use burn_guard::store::Probe;
///
/// #[derive(Module, Debug)]
/// struct Net {
///     fc: Linear,
/// }
///
/// let probe = Probe::new(|model: &Net, x: Tensor<2>| model.fc.forward(x))
///     .tolerance(Tolerance { abs: 1e-3, rel: 1e-2 });
/// assert_eq!(probe.input_rank(), 2);
/// ```
pub struct Probe<'a, M> {
    forward: Box<Forward<'a, M>>,
    rank: usize,
    kind: Option<Kind>,
    tolerance: Tolerance,
}

impl<'a, M: Module> Probe<'a, M> {
    /// A probe that runs `forward` on the model and an input of rank `D` and kind `K`.
    pub fn new<const D: usize, K, const O: usize, KO, F>(forward: F) -> Self
    where
        K: Basic + 'static,
        KO: Basic,
        F: Fn(&M, Tensor<D, K>) -> Tensor<O, KO> + 'a,
    {
        let forward = move |model: &M, input: TensorData, device: &Device| {
            let dtype = input.dtype();
            let input = catch(OP, || Tensor::<D, K>::from_data(input, (device, dtype)))?;
            let output = catch(OP, || forward(model, input))?;
            read_data_into(OP, output)
        };
        Self {
            forward: Box::new(forward),
            rank: D,
            kind: Kind::of::<K>(),
            tolerance: Tolerance::default(),
        }
    }

    /// How far the loaded model's output may be from the saved one:
    /// `|x − saved| ≤ abs + rel × |saved|` per element (default `abs 1e-4, rel 1e-3`). A model
    /// in half precision, or one loaded onto a device that computes in reduced precision,
    /// needs more.
    #[must_use]
    pub fn tolerance(mut self, tolerance: Tolerance) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The rank of the input the forward takes.
    pub fn input_rank(&self) -> usize {
        self.rank
    }

    /// Refuses `input` (the save's, or the file's) unless the forward takes its rank and kind.
    fn accepts(&self, input: &TensorData) -> Result<()> {
        let kind_fits = self.kind.is_none_or(|kind| kind.holds(input.dtype()));
        if input.rank() == self.rank && kind_fits {
            return Ok(());
        }
        Err(GuardError::InvalidArgument {
            op: OP,
            rule: "the probe's input must have the rank and kind its forward takes",
            got: format!(
                "an input of shape {:?} and dtype {:?} for a forward taking rank {}{}",
                input.shape().as_slice(),
                input.dtype(),
                self.rank,
                self.kind.map(|k| format!(", {k:?}")).unwrap_or_default()
            ),
        })
    }

    /// Runs the forward on `model`, with `input` on the device of the model's first parameter
    /// (`fallback` for a model without one).
    fn run(&self, model: &M, input: TensorData, fallback: &Device) -> Result<TensorData> {
        let device = model
            .devices()
            .into_iter()
            .next()
            .unwrap_or_else(|| fallback.clone());
        (self.forward)(model, input, &device)
    }
}

/// A tensor's data as a probe stores it: dtype, shape and little-endian bytes in hex.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Stored {
    dtype: DType,
    shape: Vec<usize>,
    bytes: String,
}

impl Stored {
    fn of(what: &str, data: &TensorData) -> Result<Self> {
        let bytes = data.as_bytes();
        if bytes.len() > MAX_BYTES {
            return Err(GuardError::InvalidArgument {
                op: OP,
                rule: "a probe's input and output are stored in the file's header: at most \
                       1 MiB each",
                got: format!("{what} of {} bytes", bytes.len()),
            });
        }
        Ok(Self {
            dtype: data.dtype(),
            shape: data.shape().as_slice().to_vec(),
            bytes: to_hex(bytes),
        })
    }

    fn data(&self, refuse: impl Fn(String) -> GuardError) -> Result<TensorData> {
        let bytes = from_hex(&self.bytes).ok_or_else(|| refuse("bytes not in hex".to_owned()))?;
        TensorData::try_from_bytes_vec(bytes, self.shape.clone(), self.dtype)
            .map_err(|e| refuse(e.to_string()))
    }
}

/// The metadata value: the probe's input and the output the saved model gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Record {
    input: Stored,
    output: Stored,
}

/// The probe a checkpoint's metadata holds: its input, and the output the saved model gave.
#[derive(Debug, Clone)]
pub(crate) struct Saved {
    input: TensorData,
    output: TensorData,
}

/// The metadata value for `probe` run on `model` with `input`: a checked save stores it.
pub(crate) fn record<M: Module, const D: usize, K: Basic>(
    model: &M,
    probe: &Probe<'_, M>,
    input: Tensor<D, K>,
) -> Result<String> {
    let device = input.device();
    let input = read_data_into(OP, input)?;
    probe.accepts(&input)?;
    let stored_input = Stored::of("an input", &input)?;
    let output = probe.run(model, input, &device)?;
    if values(&output).is_none() {
        return Err(GuardError::InvalidArgument {
            op: OP,
            rule: "a probe's output must hold float or integer values",
            got: format!("dtype {:?}", output.dtype()),
        });
    }
    let record = Record {
        input: stored_input,
        output: Stored::of("an output", &output)?,
    };
    serde_json::to_string(&record).map_err(|e| GuardError::InvalidArgument {
        op: OP,
        rule: "a probe's record must serialise",
        got: e.to_string(),
    })
}

/// The probe a checkpoint's metadata value holds (`None` when it has none).
pub(crate) fn from_metadata(op: &'static str, value: Option<&str>) -> Result<Option<Saved>> {
    let Some(json) = value else {
        return Ok(None);
    };
    let refuse = |got: String| GuardError::InvalidArgument {
        op,
        rule: "the checkpoint's probe (`burn_guard.probe`) must be a JSON object of an input \
               and an output, each a dtype, a shape and bytes in hex",
        got,
    };
    let record: Record = serde_json::from_str(json).map_err(|e| refuse(e.to_string()))?;
    Ok(Some(Saved {
        input: record.input.data(|e| refuse(format!("input: {e}")))?,
        output: record.output.data(|e| refuse(format!("output: {e}")))?,
    }))
}

/// The refusal of a load asked to verify a probe, of a file that holds none.
pub(crate) fn none_saved(op: &'static str) -> GuardError {
    GuardError::InvalidArgument {
        op,
        rule: "a load that verifies a probe needs a file a checked save stored one in \
               (`burn_guard.probe`)",
        got: "a file without a probe".to_owned(),
    }
}

/// Runs `probe` on `model` (the loaded copy) with the saved input and refuses an output that is
/// not the saved one within the probe's tolerance.
pub(crate) fn verify<M: Module>(probe: &Probe<'_, M>, saved: &Saved, model: &M) -> Result<()> {
    let tolerance = probe.tolerance;
    if !(tolerance.abs >= 0.0 && tolerance.rel >= 0.0) {
        return Err(GuardError::InvalidArgument {
            op: OP,
            rule: "a probe's tolerance must be non-negative",
            got: format!("abs={}, rel={}", tolerance.abs, tolerance.rel),
        });
    }
    probe.accepts(&saved.input)?;
    let output = probe.run(model, saved.input.clone(), &Device::default())?;
    let (found, expected) = (output.shape().as_slice(), saved.output.shape().as_slice());
    if found != expected {
        return Err(GuardError::ShapeMismatch {
            op: OP,
            rule: "the probe's output must have the shape saved with the checkpoint",
            shapes: vec![found.to_vec(), expected.to_vec()],
        });
    }
    let unreadable = |data: &TensorData| GuardError::InvalidArgument {
        op: OP,
        rule: "a probe's output must hold float or integer values",
        got: format!("dtype {:?}", data.dtype()),
    };
    let found = values(&output).ok_or_else(|| unreadable(&output))?;
    let expected = values(&saved.output).ok_or_else(|| unreadable(&saved.output))?;
    let agreement = verify::compare(OP, &found, &expected, tolerance)?;
    let device = super::engine::model_device(model);
    verify::agree(
        OP,
        &device,
        "the probe's output saved in the checkpoint",
        &agreement,
    )
}

/// The values of `data` as `f64`, decoded from its little-endian bytes (which need not be
/// aligned for their type); `None` for bools and quantized data.
fn values(data: &TensorData) -> Option<Vec<f64>> {
    fn decode<const N: usize>(bytes: &[u8], value: impl Fn([u8; N]) -> f64) -> Vec<f64> {
        bytes
            .chunks_exact(N)
            .map(|chunk| value(chunk.try_into().unwrap_or([0; N])))
            .collect()
    }
    let bytes = data.as_bytes();
    Some(match data.dtype() {
        DType::F64 => decode(bytes, f64::from_le_bytes),
        DType::F32 | DType::Flex32 => decode(bytes, |b| f64::from(f32::from_le_bytes(b))),
        DType::F16 => decode(bytes, |b| f16::from_le_bytes(b).to_f64()),
        DType::BF16 => decode(bytes, |b| bf16::from_le_bytes(b).to_f64()),
        // Compared as f64: integers beyond 2^53 round, as any float comparison would.
        DType::I64 => decode(bytes, |b| i64::from_le_bytes(b) as f64),
        DType::I32 => decode(bytes, |b| f64::from(i32::from_le_bytes(b))),
        DType::I16 => decode(bytes, |b| f64::from(i16::from_le_bytes(b))),
        DType::I8 => decode(bytes, |b| f64::from(i8::from_le_bytes(b))),
        DType::U64 => decode(bytes, |b| u64::from_le_bytes(b) as f64),
        DType::U32 => decode(bytes, |b| f64::from(u32::from_le_bytes(b))),
        DType::U16 => decode(bytes, |b| f64::from(u16::from_le_bytes(b))),
        DType::U8 => decode(bytes, |b| f64::from(u8::from_le_bytes(b))),
        DType::Bool(_) | DType::QFloat(_) => return None,
    })
}

fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        for nibble in [b >> 4, b & 0x0f] {
            hex.push(char::from(
                DIGITS.get(usize::from(nibble)).copied().unwrap_or(b'0'),
            ));
        }
    }
    hex
}

fn from_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    hex.as_bytes()
        .chunks_exact(2)
        .map(|pair| {
            let digit = |c: u8| char::from(c).to_digit(16);
            u8::try_from(digit(*pair.first()?)? * 16 + digit(*pair.get(1)?)?).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_refuses_what_is_not_hex() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(from_hex(&to_hex(&bytes)), Some(bytes));
        assert_eq!(from_hex("0g"), None);
        assert_eq!(from_hex("abc"), None);
    }

    #[test]
    fn values_decode_unaligned_bytes_of_every_numeric_dtype() -> Result<()> {
        let data = TensorData::new(vec![1.5f32, -2.0], [2]);
        assert_eq!(values(&data), Some(vec![1.5, -2.0]));
        let data = TensorData::new(vec![-3i64, 7], [2]);
        assert_eq!(values(&data), Some(vec![-3.0, 7.0]));
        let mut bytes = vec![0u8];
        bytes.extend(0.25f64.to_le_bytes());
        let shifted = bytes.get(1..).map(<[u8]>::to_vec).unwrap_or_default();
        let data = TensorData::try_from_bytes_vec(shifted, [1], DType::F64)
            .map_err(|e| GuardError::from_data("test", e))?;
        assert_eq!(values(&data), Some(vec![0.25]));
        assert_eq!(values(&TensorData::new(vec![true], [1])), None);
        Ok(())
    }
}
