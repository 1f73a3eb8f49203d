//! What crosses the socket between a cell and its parent: length-prefixed frames, each a tag
//! and its fields, tensors as dtype, shape and raw bytes.
//!
//! Both ends are the same binary, so the format has no version: it only has to refuse what is
//! not a frame (a peer that died mid-write, a stray byte) instead of trusting it.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use burn::tensor::{BoolStore, DType, TensorData};

/// The largest frame either end accepts: 64 GiB, far above a request a cell should carry,
/// and far below a length read from garbage.
const MAX_FRAME: u64 = 64 << 30;

/// A message to the child.
pub(super) enum ToChild {
    /// Run the model on these inputs.
    Call { id: u64, inputs: Vec<TensorData> },
    /// Run one of burn-guard's own operations ([`super::ops`]), named with its parameters, on
    /// these inputs: what a policy sends to a cell pool.
    Op {
        id: u64,
        op: String,
        params: Vec<f64>,
        inputs: Vec<TensorData>,
    },
}

/// A message from the child.
#[derive(Debug)]
pub(super) enum FromChild {
    /// The model is built; requests may come.
    Ready { pid: u32 },
    /// The model's answer to request `id`.
    Answer { id: u64, outputs: Vec<TensorData> },
    /// The guarded call refused request `id`; the child goes on.
    Refused {
        id: u64,
        op: String,
        kind: String,
        message: String,
    },
    /// The call panicked; the child exits after this frame.
    Panicked { id: u64, message: String },
    /// A device in the child was reported poisoned; the child exits after this frame.
    Poisoned { id: u64, message: String },
    /// The model could not be built; the child exits after this frame.
    BuildFailed { message: String },
}

const TAG_CALL: u8 = 1;
const TAG_OP: u8 = 2;
const TAG_READY: u8 = 10;
const TAG_ANSWER: u8 = 11;
const TAG_REFUSED: u8 = 12;
const TAG_PANICKED: u8 = 13;
const TAG_POISONED: u8 = 14;
const TAG_BUILD_FAILED: u8 = 15;

fn invalid(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

// ---------------------------------------------------------------- encoding

struct Frame(Vec<u8>);

impl Frame {
    fn new(tag: u8) -> Self {
        // Eight bytes of length, filled in by `finish`.
        let mut bytes = vec![0; 8];
        bytes.push(tag);
        Self(bytes)
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, v: usize) {
        // `usize` is at most 64 bits on every target std supports.
        self.u64(v as u64);
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn tensors(&mut self, tensors: &[TensorData]) -> io::Result<()> {
        self.len(tensors.len());
        for t in tensors {
            self.0.push(dtype_code(t.dtype())?);
            self.len(t.shape().len());
            for &d in t.shape().iter() {
                self.len(d);
            }
            let bytes = t.as_bytes();
            self.len(bytes.len());
            self.0.extend_from_slice(bytes);
        }
        Ok(())
    }
    fn finish(mut self) -> Vec<u8> {
        let body = (self.0.len() - 8) as u64;
        for (slot, byte) in self.0.iter_mut().zip(body.to_le_bytes()) {
            *slot = byte;
        }
        self.0
    }
}

/// The dtypes a cell carries: every plain one. A quantized tensor's layout is the backend's,
/// so it is dequantized or kept in the child.
fn dtype_code(dtype: DType) -> io::Result<u8> {
    Ok(match dtype {
        DType::F64 => 0,
        DType::F32 => 1,
        DType::Flex32 => 2,
        DType::F16 => 3,
        DType::BF16 => 4,
        DType::I64 => 5,
        DType::I32 => 6,
        DType::I16 => 7,
        DType::I8 => 8,
        DType::U64 => 9,
        DType::U32 => 10,
        DType::U16 => 11,
        DType::U8 => 12,
        DType::Bool(BoolStore::Native) => 13,
        DType::Bool(BoolStore::U8) => 14,
        DType::Bool(BoolStore::U32) => 15,
        DType::QFloat(_) => {
            return Err(invalid(
                "a quantized tensor cannot cross to a cell: dequantize it first",
            ));
        }
    })
}

fn dtype_of(code: u8) -> io::Result<DType> {
    Ok(match code {
        0 => DType::F64,
        1 => DType::F32,
        2 => DType::Flex32,
        3 => DType::F16,
        4 => DType::BF16,
        5 => DType::I64,
        6 => DType::I32,
        7 => DType::I16,
        8 => DType::I8,
        9 => DType::U64,
        10 => DType::U32,
        11 => DType::U16,
        12 => DType::U8,
        13 => DType::Bool(BoolStore::Native),
        14 => DType::Bool(BoolStore::U8),
        15 => DType::Bool(BoolStore::U32),
        other => return Err(invalid(format!("unknown dtype code {other}"))),
    })
}

/// An operation's request frame, ready to write (and kept to replay, as a call's).
pub(super) fn encode_op(
    id: u64,
    op: &str,
    params: &[f64],
    inputs: &[TensorData],
) -> io::Result<Vec<u8>> {
    let mut f = Frame::new(TAG_OP);
    f.u64(id);
    f.str(op);
    f.len(params.len());
    for p in params {
        f.u64(p.to_bits());
    }
    f.tensors(inputs)?;
    Ok(f.finish())
}

/// A request's frame, ready to write (and kept by the parent to replay after a restart).
pub(super) fn encode_call(id: u64, inputs: &[TensorData]) -> io::Result<Vec<u8>> {
    let mut f = Frame::new(TAG_CALL);
    f.u64(id);
    f.tensors(inputs)?;
    Ok(f.finish())
}

pub(super) fn encode_from_child(msg: &FromChild) -> io::Result<Vec<u8>> {
    let f = match msg {
        FromChild::Ready { pid } => {
            let mut f = Frame::new(TAG_READY);
            f.u64(u64::from(*pid));
            f
        }
        FromChild::Answer { id, outputs } => {
            let mut f = Frame::new(TAG_ANSWER);
            f.u64(*id);
            f.tensors(outputs)?;
            f
        }
        FromChild::Refused {
            id,
            op,
            kind,
            message,
        } => {
            let mut f = Frame::new(TAG_REFUSED);
            f.u64(*id);
            f.str(op);
            f.str(kind);
            f.str(message);
            f
        }
        FromChild::Panicked { id, message } | FromChild::Poisoned { id, message } => {
            let tag = if matches!(msg, FromChild::Panicked { .. }) {
                TAG_PANICKED
            } else {
                TAG_POISONED
            };
            let mut f = Frame::new(tag);
            f.u64(*id);
            f.str(message);
            f
        }
        FromChild::BuildFailed { message } => {
            let mut f = Frame::new(TAG_BUILD_FAILED);
            f.str(message);
            f
        }
    };
    Ok(f.finish())
}

// ---------------------------------------------------------------- decoding

struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.0.len() < n {
            return Err(invalid("a frame ends inside a field"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn u8(&mut self) -> io::Result<u8> {
        let mut b = [0; 1];
        b.copy_from_slice(self.take(1)?);
        Ok(b[0])
    }
    fn u64(&mut self) -> io::Result<u64> {
        let mut b = [0; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }
    fn len(&mut self) -> io::Result<usize> {
        usize::try_from(self.u64()?).map_err(|_| invalid("a length over usize"))
    }
    fn str(&mut self) -> io::Result<String> {
        let n = self.len()?;
        Ok(String::from_utf8_lossy(self.take(n)?).into_owned())
    }
    fn tensors(&mut self) -> io::Result<Vec<TensorData>> {
        let n = self.len()?;
        // Each tensor takes at least 17 bytes: a count larger than the frame is garbage.
        if n > self.0.len() {
            return Err(invalid("more tensors than bytes"));
        }
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let dtype = dtype_of(self.u8()?)?;
            let rank = self.len()?;
            if rank > self.0.len() {
                return Err(invalid("a rank larger than the frame"));
            }
            let mut shape = Vec::with_capacity(rank);
            for _ in 0..rank {
                shape.push(self.len()?);
            }
            let len = self.len()?;
            let expected = shape
                .iter()
                .try_fold(dtype.size(), |n, &d| n.checked_mul(d))
                .ok_or_else(|| invalid("a shape whose bytes overflow"))?;
            if expected != len {
                return Err(invalid(format!(
                    "{len} bytes for {shape:?} of {dtype:?} ({expected} expected)"
                )));
            }
            out.push(typed(self.take(len)?, shape, dtype)?);
        }
        Ok(out)
    }
}

/// A tensor's values, in storage aligned for its element type: Flex's kernels run markedly
/// slower on the byte-aligned storage of a `Vec<u8>` (the transformer encoder of
/// `benches/cells.rs`: 1.4× its time). A plain copy into a `Vec<E>` (`bytemuck`, already in
/// burn's tree): both ends are the same binary on the same machine, so the bytes are in its
/// own order. `bytes` holds exactly the shape's elements (checked by the caller).
fn typed(bytes: &[u8], shape: Vec<usize>, dtype: DType) -> io::Result<TensorData> {
    fn values<E: burn::tensor::Element + bytemuck::Pod>(
        bytes: &[u8],
        shape: Vec<usize>,
    ) -> TensorData {
        let mut values = vec![E::zeroed(); bytes.len() / std::mem::size_of::<E>()];
        bytemuck::cast_slice_mut::<E, u8>(&mut values).copy_from_slice(bytes);
        TensorData::new(values, shape)
    }
    Ok(match dtype {
        DType::F64 => values::<f64>(bytes, shape),
        DType::F32 => values::<f32>(bytes, shape),
        DType::I64 => values::<i64>(bytes, shape),
        DType::I32 => values::<i32>(bytes, shape),
        DType::I16 => values::<i16>(bytes, shape),
        DType::U64 => values::<u64>(bytes, shape),
        DType::U32 => values::<u32>(bytes, shape),
        DType::U16 => values::<u16>(bytes, shape),
        // One-byte elements, half floats (two bytes: Flex widens them anyway) and the rest keep
        // their bytes.
        _ => TensorData::try_from_bytes_vec(bytes.to_vec(), shape, dtype)
            .map_err(|e| invalid(format!("{e:?}")))?,
    })
}

pub(super) fn decode_to_child(body: &[u8]) -> io::Result<ToChild> {
    let mut c = Cursor(body);
    match c.u8()? {
        TAG_CALL => {
            let id = c.u64()?;
            let inputs = c.tensors()?;
            Ok(ToChild::Call { id, inputs })
        }
        TAG_OP => {
            let id = c.u64()?;
            let op = c.str()?;
            let n = c.len()?;
            if n > c.0.len() / 8 {
                return Err(invalid("more parameters than bytes"));
            }
            let params = (0..n)
                .map(|_| c.u64().map(f64::from_bits))
                .collect::<io::Result<Vec<_>>>()?;
            let inputs = c.tensors()?;
            Ok(ToChild::Op {
                id,
                op,
                params,
                inputs,
            })
        }
        other => Err(invalid(format!("unknown request tag {other}"))),
    }
}

pub(super) fn decode_from_child(body: &[u8]) -> io::Result<FromChild> {
    let mut c = Cursor(body);
    Ok(match c.u8()? {
        TAG_READY => FromChild::Ready {
            pid: u32::try_from(c.u64()?).map_err(|_| invalid("a pid over u32"))?,
        },
        TAG_ANSWER => FromChild::Answer {
            id: c.u64()?,
            outputs: c.tensors()?,
        },
        TAG_REFUSED => FromChild::Refused {
            id: c.u64()?,
            op: c.str()?,
            kind: c.str()?,
            message: c.str()?,
        },
        TAG_PANICKED => FromChild::Panicked {
            id: c.u64()?,
            message: c.str()?,
        },
        TAG_POISONED => FromChild::Poisoned {
            id: c.u64()?,
            message: c.str()?,
        },
        TAG_BUILD_FAILED => FromChild::BuildFailed { message: c.str()? },
        other => return Err(invalid(format!("unknown answer tag {other}"))),
    })
}

// ---------------------------------------------------------------- reading and writing

/// Writes a whole frame, giving up at `deadline`.
pub(super) fn write_frame(
    stream: &mut UnixStream,
    frame: &[u8],
    deadline: Option<Instant>,
) -> io::Result<()> {
    let mut written = 0;
    while written < frame.len() {
        stream.set_write_timeout(remaining(deadline)?)?;
        match stream.write(frame.get(written..).unwrap_or_default()) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => written += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads one frame's body (the bytes after its length), giving up at `deadline`; `None` waits
/// for ever. A clean end of stream before the first byte is `UnexpectedEof` too: for either end
/// it means the other is gone.
pub(super) fn read_frame(
    stream: &mut UnixStream,
    deadline: Option<Instant>,
) -> io::Result<Vec<u8>> {
    let mut len = [0; 8];
    read_exact_by(stream, &mut len, deadline)?;
    let len = u64::from_le_bytes(len);
    if len == 0 || len > MAX_FRAME {
        return Err(invalid(format!("a frame of {len} bytes")));
    }
    let len = usize::try_from(len).map_err(|_| invalid("a frame over usize"))?;
    let mut body = vec![0; len];
    read_exact_by(stream, &mut body, deadline)?;
    Ok(body)
}

fn read_exact_by(
    stream: &mut UnixStream,
    buf: &mut [u8],
    deadline: Option<Instant>,
) -> io::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        stream.set_read_timeout(remaining(deadline)?)?;
        let Some(rest) = buf.get_mut(filled..) else {
            break;
        };
        match stream.read(rest) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The time left until `deadline` as a socket timeout (`None`: no deadline), or `TimedOut`
/// once it has passed (a zero timeout would mean "none" to the socket).
fn remaining(deadline: Option<Instant>) -> io::Result<Option<Duration>> {
    match deadline {
        None => Ok(None),
        Some(at) => match at.checked_duration_since(Instant::now()) {
            Some(left) if !left.is_zero() => Ok(Some(left)),
            _ => Err(io::ErrorKind::TimedOut.into()),
        },
    }
}

/// Whether an I/O error is a deadline that passed (sockets report `WouldBlock` on Linux).
pub(super) fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_garbage_is_refused() -> io::Result<()> {
        let inputs = vec![
            TensorData::new(vec![1.5f32, -2.0, 3.25, 0.0], [2, 2]),
            TensorData::new(vec![7i64], [1]),
            TensorData::new(vec![true, false], [2]),
            TensorData::new(vec![1.0f64, -0.5], [2, 1]),
            TensorData::new(vec![burn::tensor::f16::from_f32(0.5)], [1]),
            TensorData::new(vec![burn::tensor::bf16::from_f32(-3.0)], [1, 1]),
            TensorData::new(vec![-3i32, 4], [2]),
            TensorData::new(vec![-3i16], [1]),
            TensorData::new(vec![-3i8], [1]),
            TensorData::new(vec![3u64], [1]),
            TensorData::new(vec![3u32, 4], [2]),
            TensorData::new(vec![3u16], [1]),
            TensorData::new(vec![3u8; 0], [0, 4]),
        ];
        let frame = encode_call(9, &inputs)?;
        let ToChild::Call { id, inputs: back } = decode_to_child(&frame[8..])? else {
            return Err(invalid("a call decoded as another request"));
        };
        assert_eq!(id, 9);
        assert_eq!(back, inputs);

        let frame = encode_op(4, "nms", &[0.5, -0.0, f64::INFINITY], &inputs[..2])?;
        let ToChild::Op {
            id,
            op,
            params,
            inputs: back,
        } = decode_to_child(&frame[8..])?
        else {
            return Err(invalid("an operation decoded as another request"));
        };
        assert_eq!((id, op.as_str()), (4, "nms"));
        assert_eq!(params.len(), 3);
        assert_eq!(params[0], 0.5);
        assert!(params[1].is_sign_negative() && params[2].is_infinite());
        assert_eq!(back, inputs[..2]);
        for cut in 9..frame.len() {
            assert!(decode_to_child(&frame[8..cut]).is_err(), "cut at {cut}");
        }

        let answer = FromChild::Refused {
            id: 3,
            op: "linear".into(),
            kind: "ShapeMismatch".into(),
            message: "linear: ...".into(),
        };
        let frame = encode_from_child(&answer)?;
        let back = decode_from_child(&frame[8..])?;
        assert!(matches!(back, FromChild::Refused { id: 3, ref op, .. } if op == "linear"));

        // Cut anywhere, a frame is refused, never misread.
        let frame = encode_call(1, &inputs)?;
        for cut in 9..frame.len() {
            assert!(decode_to_child(&frame[8..cut]).is_err(), "cut at {cut}");
        }
        assert!(decode_from_child(&[99]).is_err());
        Ok(())
    }
}
