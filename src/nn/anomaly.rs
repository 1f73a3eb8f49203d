//! Non-finite anomaly mode: the layer twins check their outputs ([`detect_anomaly`], offered
//! as `verify::detect_anomaly` beside the other detectors of wrong numbers).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use burn::module::{Module, ModuleVisitor, Param, ParamId};
use burn::nn::attention::MhaOutput;
use burn::nn::{LstmState, RnnState};
use burn::tensor::Tensor;

use super::transformer::TransformerDecoderInput;
use crate::error::{GuardError, Result};
use crate::panic::catch;
use crate::value_reads::read_data_into;

#[cfg(feature = "autodiff")]
mod backward;
#[cfg(feature = "autodiff")]
pub(crate) use backward::checked_backward;
/// Without autodiff there is no backward pass to check: outputs pass as they are.
#[cfg(not(feature = "autodiff"))]
mod backward {
    pub(super) fn tapped<M, T>(_op: &'static str, _layer: &M, output: T) -> T {
        output
    }

    pub(super) fn forget() {}
}

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Set while [`traced`] records: the test on every layer twin's path, without the borrow.
    static TRACING: Cell<bool> = const { Cell::new(false) };
    static TRACE: RefCell<Vec<LayerRecord>> = const { RefCell::new(Vec::new()) };
    /// Set by [`detect_anomaly_in`]: the module paths of its model's layers (the innermost
    /// call's); read only when a layer twin's output is refused.
    static PATHS: RefCell<Option<Rc<LayerPaths>>> = const { RefCell::new(None) };
}

/// A layer twin's module as the sentinel tells it apart: the id of its first float parameter
/// (in burn's visit order: a linear's weight) and the name of its type (`LayerNorm`). Two
/// layers of one type differ in the id; a module and the first of its sub-modules share the id
/// and differ in the type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LayerKey {
    id: ParamId,
    ty: &'static str,
}

impl LayerKey {
    /// `layer`'s key; `None` for a module without float parameters (an activation, a pool).
    /// One visit of its parameters, no tensor touched.
    pub(crate) fn of<M: Module>(layer: &M) -> Option<Self> {
        struct First(Option<ParamId>);
        impl ModuleVisitor for First {
            fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
                self.0.get_or_insert(param.id);
            }
        }
        let mut first = First(None);
        catch("anomaly", || layer.visit(&mut first)).ok()?;
        let id = first.0?;
        Some(Self {
            id,
            ty: short_type_name(std::any::type_name::<M>()),
        })
    }
}

/// `burn_nn::modules::norm::layer::LayerNorm` as burn's derive names it (`LayerNorm`): the
/// last path segment, without generics.
fn short_type_name(full: &str) -> &str {
    let base = full.split('<').next().unwrap_or(full);
    base.rsplit("::").next().unwrap_or(base)
}

/// A model's layers by module path (`blocks.1.norm2`), keyed as the layer twins know
/// themselves ([`LayerKey`]): built by one walk of the model.
#[derive(Debug, Default)]
pub(crate) struct LayerPaths {
    /// First float parameter id → (type name, path) of each module that has it first.
    by_id: HashMap<ParamId, Vec<(String, String)>>,
}

impl LayerPaths {
    /// Walks `model` once (its parameters' ids and the module names, no tensor touched).
    pub(crate) fn of<M: Module>(model: &M) -> Self {
        let mut walk = PathsWalk {
            names: Vec::new(),
            frames: vec![Frame::default()],
            paths: Self::default(),
        };
        if catch("anomaly", || model.visit(&mut walk)).is_err() {
            return Self::default();
        }
        walk.paths
    }

    /// The module path of the layer `key` names; `None` when the model holds no such module,
    /// or holds several (a tied parameter), or it is the model itself.
    pub(crate) fn path(&self, key: &LayerKey) -> Option<&str> {
        let mut found = self
            .by_id
            .get(&key.id)?
            .iter()
            .filter(|(ty, _)| ty == key.ty)
            .map(|(_, path)| path.as_str());
        let path = found.next()?;
        found.all(|other| other == path).then_some(path)
    }
}

/// One module the walk is inside: its first float parameter and its type, as its own fields
/// tell it (`enter_module` names the container's type).
#[derive(Default)]
struct Frame {
    first: Option<ParamId>,
    ty: Option<String>,
}

struct PathsWalk {
    names: Vec<String>,
    /// The model's frame, then one per name in `names`.
    frames: Vec<Frame>,
    paths: LayerPaths,
}

impl ModuleVisitor for PathsWalk {
    fn enter_module(&mut self, name: &str, container_type: &str) {
        if let Some(parent) = self.frames.last_mut() {
            let ty = container_type
                .split_once(':')
                .map_or(container_type, |(_, ty)| ty);
            parent.ty.get_or_insert_with(|| ty.to_owned());
        }
        self.names.push(name.to_owned());
        self.frames.push(Frame::default());
    }

    fn exit_module(&mut self, _name: &str, _container_type: &str) {
        if let Some(Frame {
            first: Some(id),
            ty: Some(ty),
        }) = self.frames.pop()
        {
            let entries = self.paths.by_id.entry(id).or_default();
            entries.push((ty, self.names.join(".")));
        }
        self.names.pop();
    }

    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        for frame in &mut self.frames {
            frame.first.get_or_insert(param.id);
        }
    }
}

/// One layer twin's output, as [`traced`] records it.
pub(crate) struct LayerRecord {
    /// The twin's op name (`linear`, `conv2d`).
    pub(crate) op: &'static str,
    /// Its module, when it has float parameters (to find its path: [`LayerPaths`]).
    pub(crate) layer: Option<LayerKey>,
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
/// layers burn's containers call inside their own forward. The error names the layer by its
/// op (`layer_norm`); [`detect_anomaly_in`], given the model, names its module path too
/// (`blocks.1.norm2`).
///
/// PyTorch's `torch.autograd.detect_anomaly` is the model: off by default, scoped to a thread,
/// for finding the layer, not for production traffic. The cost is one reduction and one
/// synchronous scalar read per layer twin (a second read, for the count, only on a failure);
/// not counted in [`value_reads::count`](crate::value_reads::count), and not skipped inside
/// [`vouched`](crate::value_reads::vouched).
///
/// **The backward pass.** For training, run the forward and the guarded backward
/// ([`try_backward`](crate::tensor::TryAutodiffFloat::try_backward)) inside it: a NaN loss is
/// named at its layer, and so is a finite forward whose backward gives NaN or ±inf, as
/// PyTorch's mode names the backward op. burn keeps no gradient of an intermediate tensor, so
/// in the mode each layer twin's tracked output gets a zero leaf added (`y + 0`, the same
/// values), whose gradient is the output's; after the backward the gradients are checked from
/// the last layer twin called to the first (a later call cannot feed an earlier one), and the
/// first found not finite is named, op `backward` inside a [`GuardError::Layer`] of the twin:
///
/// - the gradient of its **output** is not finite, while every twin called after it got finite
///   gradients: the backward of what consumed that output gave it (`sqrt` at 0 after the
///   layer, or the next twin's input gradient overflowing);
/// - its output's gradient is finite and its **parameters'** is not: its own backward gave it.
///
/// Only outputs and parameters are tapped, not a twin's input: a non-finite value born in a
/// twin's input gradient is named at the twin whose output it reaches. A twin's parameter
/// shared with other layers carries their gradients too. The taps cost, in the mode only, one
/// zero tensor the size of each tracked output (held until the guarded backward, or the end of
/// the outermost scope: a long forward-only loop on an autodiff device inside one scope holds
/// one per call), and after the backward one reduction and read per layer twin call. burn's
/// own `backward` is not checked; the guarded step then refuses the gradients
/// ([`GuardError::NonFiniteGradients`]) without naming a layer.
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
///
/// In the backward pass (with the `autodiff` feature):
///
/// ```
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::prelude::*;
/// use burn_guard::verify::detect_anomaly;
///
/// let device = Device::flex().autodiff();
/// let layer: Linear = LinearConfig::new(2, 2).init(&device);
/// let x = Tensor::<2>::ones([1, 2], &device);
/// // A finite forward (sqrt(0) is 0) whose backward is NaN (d sqrt / dx is inf at 0): the
/// // gradient of the layer's output is the first that is not finite.
/// let err = detect_anomaly(|| {
///     let h = layer.try_forward(x)?;
///     (h * 0.0).sqrt().sum().try_backward()
/// })
/// .err()
/// .expect("the backward gives NaN");
/// assert_eq!(err.kind(), ErrorKind::NonFinite);
/// assert!(err.to_string().starts_with("linear: backward: anomaly mode"));
/// ```
pub fn detect_anomaly<T>(f: impl FnOnce() -> T) -> T {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            let left = DEPTH.with(|depth| {
                let left = depth.get().saturating_sub(1);
                depth.set(left);
                left
            });
            // The calls recorded for the backward check are the scope's: none outlives it.
            if left == 0 {
                backward::forget();
            }
        }
    }
    DEPTH.with(|depth| depth.set(depth.get().saturating_add(1)));
    let _leave = Leave;
    f()
}

/// As [`detect_anomaly`], with the refusing layer named by its module path in `model`
/// (`blocks.1.norm2`): the error is wrapped in a [`GuardError::Context`] of that path, so that
/// `Display` reads `blocks.1.norm2: layer_norm: anomaly mode: ...` and
/// [`GuardError::path`] returns it. Two layers of one type are told apart this way.
///
/// `model` is walked once, before `f` runs (its parameters' ids and its module names, no
/// tensor touched). A layer twin is found in it by its first float parameter's id and its
/// type, looked up only when an output is refused: a layer without float parameters (an
/// activation, a pool), one not in `model`, or one whose parameter is tied to another's is
/// named by its op alone, as by [`detect_anomaly`]. A nested call names layers in its own
/// model.
///
/// ```
/// use burn::module::Module;
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::prelude::*;
/// use burn_guard::verify::detect_anomaly_in;
///
/// #[derive(Module, Debug)]
/// struct Net {
///     first: Linear,
///     second: Linear,
/// }
///
/// let device = Device::flex();
/// let net = Net {
///     first: LinearConfig::new(2, 2).init(&device),
///     second: LinearConfig::new(2, 2).init(&device),
/// };
/// let x = Tensor::<2>::full([1, 2], 1e30, &device);
/// let err = detect_anomaly_in(&net, || {
///     let h = net.first.try_forward(x)?;
///     net.second.try_forward(h * 1e30)
/// })
/// .unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::NonFinite);
/// assert_eq!(err.path().as_deref(), Some("second"));
/// assert!(err.to_string().starts_with("second: linear"));
/// # Ok::<(), GuardError>(())
/// ```
pub fn detect_anomaly_in<M: Module, T>(model: &M, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Rc<LayerPaths>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            PATHS.with(|paths| *paths.borrow_mut() = outer);
        }
    }
    let paths = Rc::new(LayerPaths::of(model));
    let outer = PATHS.with(|current| current.borrow_mut().replace(paths));
    let _restore = Restore(outer);
    detect_anomaly(f)
}

/// Whether this thread is inside [`detect_anomaly`].
pub fn anomaly_mode() -> bool {
    DEPTH.with(Cell::get) > 0
}

/// A layer twin's result, checked in anomaly mode (passed through otherwise, at the cost of
/// one thread-local read), for the twin of `layer`: a refusal inside [`detect_anomaly_in`] names
/// `layer`'s module path, and [`traced`] records its [`LayerKey`]. In anomaly mode a tracked
/// output is also tapped, and the call recorded with `layer`'s parameters, for the guarded
/// backward's check (`backward.rs`). `layer` is looked at only then: outside a trace and
/// outside the mode, the cost is one thread-local read (two with the trace's flag).
pub(crate) fn checked_in<M: Module, T: LayerOutput>(
    op: &'static str,
    layer: &M,
    result: Result<T>,
) -> Result<T> {
    let key = || LayerKey::of(layer);
    let Ok(output) = result else {
        return result;
    };
    // Off, one thread-local read: the forward check and the backward taps are both behind it.
    let output = if anomaly_mode() {
        if let Err(err) = output.require_finite(op) {
            let paths = PATHS.with(|paths| paths.borrow().clone());
            let path = paths.and_then(|paths| Some(paths.path(&key()?)?.to_owned()));
            return Err(match path {
                Some(path) => err.context(path),
                None => err,
            });
        }
        backward::tapped(op, layer, output)
    } else {
        output
    };
    if TRACING.with(Cell::get) {
        let mut outputs = Vec::new();
        output.flatten_into(&mut outputs);
        let layer = key();
        TRACE.with(|trace| {
            trace.borrow_mut().push(LayerRecord { op, layer, outputs });
        });
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

    /// The output with a tap on each tracked float tensor, the taps appended to `taps` (for
    /// the backward check, `anomaly/backward.rs`).
    #[cfg(feature = "autodiff")]
    fn tapped(self, taps: &mut Vec<Tensor<1>>) -> Self
    where
        Self: Sized;
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
        // NaN, +inf and -inf counted apart, in the one read that counts them.
        let split = crate::value_reads::read_non_finite_split(op, self)?;
        Err(GuardError::NonFinite {
            op,
            rule: RULE,
            count: split.count(),
            total: u64::try_from(self.shape().num_elements()).unwrap_or(u64::MAX),
            split: Some(split),
            dtype: crate::error::float_dtype(self.dtype()),
            shape: Some(self.dims().to_vec()),
        })
    }

    #[cfg(feature = "autodiff")]
    fn tapped(self, taps: &mut Vec<Tensor<1>>) -> Self {
        backward::tap(self, taps)
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

            #[cfg(feature = "autodiff")]
            fn tapped(mut self, taps: &mut Vec<Tensor<1>>) -> Self {
                $(self.$part = self.$part.tapped(taps);)+
                self
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

    /// Its target cannot be replaced from here (the fields are the layer module's): not
    /// tapped, so the backward check does not see this twin.
    #[cfg(feature = "autodiff")]
    fn tapped(self, _taps: &mut Vec<Tensor<1>>) -> Self {
        self
    }
}
