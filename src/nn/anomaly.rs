//! Non-finite anomaly mode: the layer twins check their outputs ([`detect_anomaly`], offered
//! as `verify::detect_anomaly` beside the other detectors of wrong numbers).

use std::cell::{Cell, RefCell};

use burn::nn::attention::MhaOutput;
use burn::nn::{LstmState, RnnState};
use burn::tensor::Tensor;

use super::transformer::TransformerDecoderInput;
use crate::error::{GuardError, Result};
use crate::panic::catch;
use crate::value_reads::read_data_into;

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Set while [`traced`] records: the test on every layer twin's path, without the borrow.
    static TRACING: Cell<bool> = const { Cell::new(false) };
    static TRACE: RefCell<Vec<LayerRecord>> = const { RefCell::new(Vec::new()) };
}

/// One layer twin's output, as [`traced`] records it.
pub(crate) struct LayerRecord {
    /// The twin's op name (`linear`, `conv2d`).
    pub(crate) op: &'static str,
    /// Its float tensors, flattened.
    pub(crate) outputs: Vec<Tensor<1>>,
}

/// Runs `f` with every layer twin's output recorded, in call order (this thread only; not
/// nested: an inner call records into the outer one's trace).
pub(crate) fn traced<T>(f: impl FnOnce() -> T) -> (T, Vec<LayerRecord>) {
    struct Stop(bool);
    impl Drop for Stop {
        fn drop(&mut self) {
            TRACING.with(|tracing| tracing.set(self.0));
        }
    }
    let outer = TRACING.with(|tracing| tracing.replace(true));
    if !outer {
        // A trace a panic cut short is not this one's.
        TRACE.with(|trace| trace.borrow_mut().clear());
    }
    let value = {
        let _stop = Stop(outer);
        f()
    };
    let trace = if outer {
        Vec::new()
    } else {
        TRACE.with(|trace| std::mem::take(&mut *trace.borrow_mut()))
    };
    (value, trace)
}

/// Runs `f` in anomaly mode on this thread. Nested calls keep it on until the outermost
/// returns; a panic inside `f` restores it too.
///
/// Inside it, every layer twin of [`nn`](crate::nn) (`try_forward` and its
/// kin: the linear, conv, pool, norm, activation, attention, recurrent, transformer and loss
/// twins) checks its output after burn's forward and returns
/// [`GuardError::NonFinite`] naming the layer when the output holds NaN or ±inf. In a forward
/// written with the twins, the first `Err` is the first layer that produced a non-finite value:
/// every layer before it was checked and gave finite values. What the caller feeds the first
/// layer is not checked (a NaN input is reported at the first layer it reaches), nor are
/// layers burn's containers call inside their own forward.
///
/// PyTorch's `torch.autograd.detect_anomaly` is the model: off by default, scoped to a thread,
/// for finding the layer, not for production traffic. The cost is one reduction and one
/// synchronous scalar read per layer twin (a second read, for the count, only on a failure);
/// not counted in [`value_reads::count`](crate::value_reads::count), and not skipped inside
/// [`vouched`](crate::value_reads::vouched).
///
/// For training, run the forward inside it too: a NaN loss is then named at its
/// layer, before the guarded step would refuse its gradients
/// ([`GuardError::NonFiniteGradients`]).
///
/// ```
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::prelude::*;
/// use burn_guard::verify::detect_anomaly;
///
/// let device = Device::flex();
/// let layer: Linear = LinearConfig::new(2, 2).init(&device);
/// let huge = Tensor::<2>::full([1, 2], f32::INFINITY, &device);
/// // Outside the mode, the infinities pass as they do in burn.
/// assert!(layer.try_forward(huge.clone()).is_ok());
/// let err = detect_anomaly(|| layer.try_forward(huge)).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::NonFinite);
/// assert!(err.to_string().starts_with("linear"));
/// ```
pub fn detect_anomaly<T>(f: impl FnOnce() -> T) -> T {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            DEPTH.with(|depth| depth.set(depth.get().saturating_sub(1)));
        }
    }
    DEPTH.with(|depth| depth.set(depth.get().saturating_add(1)));
    let _leave = Leave;
    f()
}

/// Whether this thread is inside [`detect_anomaly`].
pub fn anomaly_mode() -> bool {
    DEPTH.with(Cell::get) > 0
}

/// A layer twin's result, checked in anomaly mode (passed through otherwise, at the cost of
/// one thread-local read).
pub(crate) fn checked<T: LayerOutput>(op: &'static str, result: Result<T>) -> Result<T> {
    let Ok(output) = result else {
        return result;
    };
    if anomaly_mode() {
        output.require_finite(op)?;
    }
    if TRACING.with(Cell::get) {
        let mut outputs = Vec::new();
        output.flatten_into(&mut outputs);
        TRACE.with(|trace| trace.borrow_mut().push(LayerRecord { op, outputs }));
    }
    Ok(output)
}

const RULE: &str =
    "anomaly mode: a layer's output must be finite (the first layer twin whose output is not)";

/// What a layer twin returns, as anomaly mode checks it: each float tensor in it.
pub(crate) trait LayerOutput {
    /// `Err(NonFinite)` when a float tensor of the output holds NaN or ±inf.
    fn require_finite(&self, op: &'static str) -> Result<()>;

    /// Its float tensors, flattened, appended to `into` (for [`traced`]).
    fn flatten_into(&self, into: &mut Vec<Tensor<1>>);
}

impl<const D: usize> LayerOutput for Tensor<D> {
    fn require_finite(&self, op: &'static str) -> Result<()> {
        if !self.dtype().is_float() || self.shape().num_elements() == 0 {
            return Ok(());
        }
        // NaN and ±inf survive `× 0` as NaN, so one scalar says whether any is there.
        let probe = catch(op, || (self.clone() * 0.0).sum())?;
        let sum: f64 = catch(op, || read_data_into(op, probe))??
            .iter::<f64>()
            .next()
            .unwrap_or(0.0);
        if sum.is_finite() {
            return Ok(());
        }
        let flags = catch(op, || self.clone().is_finite().bool_not().int().sum())?;
        let count = catch(op, || read_data_into(op, flags))??
            .iter::<i64>()
            .next()
            .unwrap_or(0);
        Err(GuardError::NonFinite {
            op,
            rule: RULE,
            count: u64::try_from(count).unwrap_or(0),
            total: u64::try_from(self.shape().num_elements()).unwrap_or(u64::MAX),
        })
    }

    fn flatten_into(&self, into: &mut Vec<Tensor<1>>) {
        if !self.dtype().is_float() {
            return;
        }
        let n = self.shape().num_elements();
        if let Ok(flat) = catch("trace", || self.clone().reshape([n])) {
            into.push(flat);
        }
    }
}

/// A layer output made of outputs: each part checked (the first refusal wins) and flattened,
/// in the order given.
macro_rules! output_of_parts {
    ($({$($generics:tt)*})? $ty:ty: $($part:tt),+) => {
        impl$(<$($generics)*>)? LayerOutput for $ty {
            fn require_finite(&self, op: &'static str) -> Result<()> {
                $(self.$part.require_finite(op)?;)+
                Ok(())
            }

            fn flatten_into(&self, into: &mut Vec<Tensor<1>>) {
                $(self.$part.flatten_into(into);)+
            }
        }
    };
}

output_of_parts!({A: LayerOutput, B: LayerOutput} (A, B): 0, 1);
output_of_parts!({const D: usize} RnnState<D>: hidden);
output_of_parts!({const D: usize} LstmState<D>: cell, hidden);
output_of_parts!(MhaOutput: context, weights);

/// A decoder layer's output is its input with the target replaced: the target is the output.
impl LayerOutput for TransformerDecoderInput {
    fn require_finite(&self, op: &'static str) -> Result<()> {
        self.target().require_finite(op)
    }

    fn flatten_into(&self, into: &mut Vec<Tensor<1>>) {
        self.target().flatten_into(into);
    }
}
