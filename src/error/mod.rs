//! One error type for every refusal, capability gap and caught panic.
//!
//! Every variant names the operation it came from and carries the offending values and the
//! limit they broke as typed fields, so that code matches on [`GuardError::kind`] and on fields,
//! and a single log line explains what went wrong. `Display` is one line:
//! `"{op}: {rule}; got {values}"`, lowercase, no trailing period; every string field is folded
//! onto that line. Each variant's message is the `#[error(..)]` attribute beside it (thiserror,
//! as candle and wgpu write theirs); what a message needs beyond a format string (folding,
//! lists cut short, the context path) is a small function in `format.rs`.
//!
//! # Sources and context
//!
//! `Display` is complete: it already prints every cause (burn's own error for
//! [`GuardError::Execution`] and [`GuardError::Data`], the inner error of a
//! [`GuardError::Context`]). So [`Error::source`](std::error::Error::source) returns `None` and
//! a reporter that walks the source chain (`anyhow`'s `{:#}`) prints each cause exactly once.
//! The wrapped errors stay available as fields (`cause` for burn's, `inner` for a wrapped
//! one), and [`GuardError::root`] reaches the innermost one. No field is named `source` and
//! none is marked `#[source]` or `#[from]`: thiserror would make it the source.
//!
//! A context names where the error happened, as one segment of a path through nested modules:
//! stacked contexts print as a dotted path, then the inner error. A layer twin
//! (`burn_guard::nn`) puts its own name before that path ([`GuardError::Layer`]):
//! `lstm: input_gate.input_transform: linear: ...`.
//!
//! ```
//! use burn_guard::{ErrorKind, GuardError, ResultExt};
//!
//! fn attention() -> burn_guard::Result<()> {
//!     Err(GuardError::DimOutOfRange { op: "linear", dim: 3, rank: 2 })
//! }
//! let err = attention()
//!     .context("attention")
//!     .with_context(|| format!("layers.{}", 2))
//!     .context("encoder")
//!     .unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "encoder.layers.2.attention: linear: dimension out of range; got dim 3 for rank 2"
//! );
//! assert_eq!(err.kind(), ErrorKind::DimOutOfRange);
//! assert_eq!(err.path().as_deref(), Some("encoder.layers.2.attention"));
//! ```
//!
//! # Non-finite values
//!
//! [`GuardError::NonFinite`] and [`GuardError::NonFiniteGradients`] split their count into NaN,
//! `+inf` and `-inf` ([`NonFiniteSplit`]) wherever the check read the values or counted them by
//! class, and name the tensor's dtype and shape where known: `features: values must be finite;
//! got 3 non-finite of 8 values (2 NaN, 1 +inf, 0 -inf) in F32 [2, 4]`.
//!
//! # Backtraces
//!
//! With `BURN_GUARD_BACKTRACE=1` (read once) or [`set_capture_backtraces`]`(true)`, an error
//! carries the [`Backtrace`] of the call that refused, as a [`GuardError::WithBacktrace`]
//! around it: captured as the error leaves a twin of the tensor and layer traits, where a
//! caught panic was raised, or else where the first context is added to it. `Display` is
//! unchanged, `{:?}` prints the backtrace, [`GuardError::backtrace`] returns it, and `kind`,
//! `op`, `root` and `path` look through it (match on `err.root()` for a variant's fields).
//! Off, the default, a refusal costs one relaxed atomic load more and an accepted call nothing.

use std::backtrace::Backtrace;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use burn::tensor::quantization::QuantScheme;
use burn::tensor::{DType, DataError, FloatDType, TensorReadError};
use burn_backend::ExecutionError;

use crate::gap::Gap;

mod format;
#[cfg(test)]
mod tests;
mod values;

pub use format::SchemeName;
#[cfg_attr(not(feature = "wgpu"), allow(unused_imports))] // Its one caller is the wgpu probe.
pub(crate) use format::one_line;
use format::{
    FirstFew, OneLine, bytes_or_overflow, device_list, dim_note, fallback_list, folded,
    limit_or_none, non_finite_counts, non_finite_detail, plural, shape_list,
};
pub(crate) use values::float_dtype;
pub use values::{Limit, NonFiniteParam, NonFiniteSplit, ScalarValue};

/// The result of a guarded call.
pub type Result<T, E = GuardError> = std::result::Result<T, E>;

/// Why a guarded call did not run, or did not finish.
///
/// Marked `#[non_exhaustive]`: new checks add variants without breaking matches. Match on
/// [`GuardError::kind`] to look through [`GuardError::Context`] layers.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum GuardError {
    // ---------------------------------------------------------------- shapes, ranks, dims, indices
    /// Two or more shapes that the operation needs to agree do not.
    #[error("{}: {}; got {}", OneLine(.op), OneLine(.rule), shape_list(.shapes))]
    ShapeMismatch {
        /// The operation, by burn's name for it.
        op: &'static str,
        /// The rule the shapes broke, e.g. `lhs columns must equal rhs rows`.
        rule: &'static str,
        /// The shapes involved, in argument order.
        shapes: Vec<Vec<usize>>,
    },
    /// A tensor has a rank the operation does not accept.
    #[error(
        "{}: {}; got rank {got} (shape {shape:?}), expected {expected}",
        OneLine(.op),
        OneLine(.rule)
    )]
    RankMismatch {
        /// The operation.
        op: &'static str,
        /// The rule the rank broke.
        rule: &'static str,
        /// The rank the operation needs.
        expected: usize,
        /// The rank it got.
        got: usize,
        /// The shape of the offending tensor.
        shape: Vec<usize>,
    },
    /// A dimension index (possibly negative) outside `-rank..rank`.
    #[error("{}: dimension out of range; got dim {dim} for rank {rank}", OneLine(.op))]
    DimOutOfRange {
        /// The operation.
        op: &'static str,
        /// The dimension as the caller gave it.
        dim: isize,
        /// The tensor's rank.
        rank: usize,
    },
    /// An index (possibly negative) outside a dimension's size.
    #[error(
        "{}: index out of range; got index {index} for size {size} (dim {dim})",
        OneLine(.op)
    )]
    IndexOutOfRange {
        /// The operation.
        op: &'static str,
        /// The index as the caller gave it.
        index: i64,
        /// The size of the indexed dimension.
        size: usize,
        /// The indexed dimension.
        dim: usize,
    },
    /// A tensor with no elements (or an empty dimension) where the operation needs values.
    #[error("{}: {}; got shape {shape:?}{}", OneLine(.op), OneLine(.rule), dim_note(.dim))]
    Empty {
        /// The operation.
        op: &'static str,
        /// The rule, e.g. `the reduced dimension must not be empty`.
        rule: &'static str,
        /// The shape of the empty tensor.
        shape: Vec<usize>,
        /// The empty dimension the rule is about, if it is about one.
        dim: Option<usize>,
    },
    /// Operands live on different devices.
    #[error(
        "{}: operands must be on the same device; got {}",
        OneLine(.op),
        device_list(.devices)
    )]
    DeviceMismatch {
        /// The operation.
        op: &'static str,
        /// The devices, in argument order.
        devices: Vec<String>,
    },

    // ---------------------------------------------------------------- numbers and dtypes
    /// A number outside the range its rule allows (a step of 0, `k` above the dimension size,
    /// a shift of 64 bits on an `I64` tensor).
    #[error(
        "{}: {}; got {}={value}, expected {limit}",
        OneLine(.op),
        OneLine(.rule),
        OneLine(.name)
    )]
    OutOfRange {
        /// The operation.
        op: &'static str,
        /// The rule the number broke, e.g. `k must not exceed the dimension size`.
        rule: &'static str,
        /// The argument's name, e.g. `k`.
        name: &'static str,
        /// The value it had.
        value: ScalarValue,
        /// What the rule allows.
        limit: Limit,
    },
    /// Two numbers that must be ordered are not (`min <= max`, `start_dim <= end_dim`).
    #[error(
        "{}: {}; got {}={lower}, {}={upper}",
        OneLine(.op),
        OneLine(.rule),
        OneLine(.lower_name),
        OneLine(.upper_name)
    )]
    OutOfOrder {
        /// The operation.
        op: &'static str,
        /// The rule, e.g. `min must not exceed max`.
        rule: &'static str,
        /// The name of the number that must come first (`min`).
        lower_name: &'static str,
        /// Its value.
        lower: ScalarValue,
        /// The name of the number that must come second (`max`).
        upper_name: &'static str,
        /// Its value.
        upper: ScalarValue,
    },
    /// A value (a scalar argument, an element of host data) that the dtype it goes to cannot
    /// hold: NaN for an integer tensor, `3e9` for `I32`.
    #[error("{}: {}; got value={value}, dtype={dtype:?}", OneLine(.op), OneLine(.rule))]
    NotRepresentable {
        /// The operation.
        op: &'static str,
        /// The rule, e.g. `the scalar is not representable in the tensor's dtype`.
        rule: &'static str,
        /// The value.
        value: ScalarValue,
        /// The dtype it had to fit.
        dtype: DType,
    },
    /// Values that must be finite are not: `count` of `total` are NaN or ±inf, split into NaN,
    /// `+inf` and `-inf` where the check could tell (it read the values, or reduced them on
    /// the device by class), in a tensor of the dtype and shape given where known:
    /// `got 3 non-finite of 8 values (2 NaN, 1 +inf, 0 -inf) in F32 [2, 4]`.
    #[error(
        "{}: {}; got {count} non-finite of {total} values{}",
        OneLine(.op),
        OneLine(.rule),
        non_finite_detail(.split, .dtype, .shape)
    )]
    NonFinite {
        /// The operation.
        op: &'static str,
        /// The rule, e.g. `values must be finite; a scale computed from NaN or ±inf is meaningless`.
        rule: &'static str,
        /// How many values are NaN, `+inf` or `-inf`.
        count: u64,
        /// How many values were looked at.
        total: u64,
        /// How `count` splits; `None` where the check counted them together (a single
        /// reduction on the device).
        split: Option<NonFiniteSplit>,
        /// The float dtype of the tensor (or the one the values were converted to), where
        /// known.
        dtype: Option<FloatDType>,
        /// The shape of the tensor, where the values are one (`None` for scalar arguments).
        shape: Option<Vec<usize>>,
    },
    /// Two dtypes that must agree do not (the operands of an element-wise operation, the two
    /// sides of a conversion).
    #[error("{}: {}; got {lhs:?} and {rhs:?}", OneLine(.op), OneLine(.rule))]
    DTypeMismatch {
        /// The operation.
        op: &'static str,
        /// The rule, e.g. `both operands must have the same dtype`.
        rule: &'static str,
        /// The first dtype, in argument order (the source of a conversion).
        lhs: DType,
        /// The second dtype (the target of a conversion).
        rhs: DType,
    },
    /// A dtype the operation does not accept (a quantized tensor, a bool tensor, a float dtype
    /// for an int tensor).
    #[error("{}: {}; got dtype={dtype:?}", OneLine(.op), OneLine(.rule))]
    InvalidDType {
        /// The operation.
        op: &'static str,
        /// The rule, e.g. `quantized tensors are not supported`.
        rule: &'static str,
        /// The dtype it got.
        dtype: DType,
    },
    /// An argument outside what the operation accepts, by a rule no other variant types
    /// (repeated axes, a reshape entry below -1, an autodiff state).
    #[error("{}: {}; got {}", OneLine(.op), OneLine(.rule), OneLine(.got))]
    InvalidArgument {
        /// The operation.
        op: &'static str,
        /// The rule the argument broke.
        rule: &'static str,
        /// The offending values, formatted as `name=value`.
        got: String,
    },

    // ---------------------------------------------------------------- quantization schemes
    /// A quantization scheme that cannot be applied to a tensor of this shape, on any backend.
    #[error(
        "{}: {}; got scheme {}, shape {shape:?}",
        OneLine(.op),
        OneLine(.reason),
        SchemeName(.scheme)
    )]
    InvalidQuantScheme {
        /// The operation.
        op: &'static str,
        /// The scheme as the caller gave it.
        scheme: QuantScheme,
        /// The shape of the tensor to quantize.
        shape: Vec<usize>,
        /// The rule the scheme broke.
        reason: String,
    },

    // ---------------------------------------------------------------- capabilities
    /// The backend stack cannot run the operation (it would panic, or compute wrong values).
    #[error("{0}")]
    Unsupported(Unsupported),
    /// The backend stack cannot differentiate the operation to the order asked for.
    #[error(
        "{}: not differentiable to order {order} on this backend; got backend {}",
        OneLine(.op),
        OneLine(.backend)
    )]
    NotDifferentiable {
        /// The operation.
        op: &'static str,
        /// The backend stack, as [`Backend::name`](burn_backend::Backend::name) spells it.
        backend: String,
        /// The derivative order that was needed (2 for a gradient of a gradient).
        order: u8,
    },
    /// A device could not be obtained (no wgpu adapter, a remote server that does not answer),
    /// or is marked unusable (poisoned, tainted, quarantined).
    #[error(
        "{}: device unavailable; got {}: {}",
        OneLine(.op),
        OneLine(.device),
        OneLine(.reason)
    )]
    DeviceUnavailable {
        /// The operation that needed the device (`wgpu_adapter`, `connect_remote`, `zeros`).
        op: &'static str,
        /// The device asked for, e.g. `wgpu` or `remote ws://127.0.0.1:4000`.
        device: String,
        /// Why it is unavailable, as the backend reported it.
        reason: String,
    },
    /// A tensor that can never fit on the device: its bytes exceed the largest single buffer
    /// the device can allocate, or its element count overflows. Freeing memory does not help.
    #[error(
        "{}: the tensor exceeds the largest buffer the device can allocate; got {}, {} \
         (device {})",
        OneLine(.op),
        bytes_or_overflow(.bytes),
        limit_or_none(.limit),
        OneLine(.device)
    )]
    TooLarge {
        /// The operation.
        op: &'static str,
        /// The bytes the tensor needs: elements × dtype size (packed values plus scales for a
        /// quantized dtype). `None` when the count overflows: the element count does not fit in
        /// `usize`, or the bytes in `u64`.
        bytes: Option<u64>,
        /// The largest single buffer the device can allocate, in bytes; `None` when the device
        /// states none (only an overflow is refused then).
        limit: Option<u64>,
        /// The device, as errors name it.
        device: String,
    },
    /// An allocation that does not fit in what the device has free now: it may fit once
    /// memory is freed.
    #[error(
        "{}: the allocation does not fit in the device's free memory; got {bytes} bytes with \
         {in_use} of {budget} bytes in use (device {})",
        OneLine(.op),
        OneLine(.device)
    )]
    OutOfMemory {
        /// The operation.
        op: &'static str,
        /// The bytes the allocation needs.
        bytes: u64,
        /// The bytes already in use on the device, as far as they are known.
        in_use: u64,
        /// The bytes the device may hold in all.
        budget: u64,
        /// The device, as errors name it.
        device: String,
    },

    // ---------------------------------------------------------------- backend failures
    /// The backend panicked in a way no check predicted; the panic backstop caught it.
    #[error(
        "{}: backend panicked; got \"{}\" at {}",
        OneLine(.op),
        OneLine(.message),
        OneLine(.location.as_deref().unwrap_or("unknown location"))
    )]
    BackendPanic {
        /// The operation that was running.
        op: &'static str,
        /// The panic message.
        message: String,
        /// `file:line:column` of the panic, when the hook saw it.
        location: Option<String>,
    },
    /// A call that can block on a device (a remote read back, a sync) did not finish within its
    /// deadline; see [`devices::with_deadline`](crate::devices::with_deadline).
    ///
    /// The call may still be running on a helper thread, which is left behind: its result, if
    /// it ever comes, is dropped.
    #[error(
        "{}: did not finish within the deadline; got no result after {after:?}",
        OneLine(.op)
    )]
    Timeout {
        /// The operation that was running.
        op: &'static str,
        /// The deadline it was given.
        after: std::time::Duration,
    },
    /// burn reported an execution error (a device fault, a failed read back).
    ///
    /// `Display` prints burn's message; [`Error::source`](std::error::Error::source) is `None`
    /// so that it is not printed twice. The error itself is the `cause` field.
    #[error("{}: backend execution failed; got {}", OneLine(.op), folded(.cause))]
    Execution {
        /// The operation that was running.
        op: &'static str,
        /// burn's own error.
        cause: ExecutionError,
    },
    /// burn refused to access or convert host data ([`TensorData`](burn::tensor::TensorData)'s
    /// storage, a conversion it does not implement).
    ///
    /// `Display` prints burn's message; the error itself is the `cause` field.
    #[error(
        "{}: burn refused the data access or conversion; got {}",
        OneLine(.op),
        folded(.cause)
    )]
    Data {
        /// The operation that was running.
        op: &'static str,
        /// burn's own error (shared: burn's type is not `Clone`).
        cause: Arc<DataError>,
    },
    /// A value burn keeps private (a layer's field, a device's address) could not be read from
    /// this version of burn: the form burn-guard reads it in (`Debug` text, a module visit)
    /// changed. The check that needs it refuses rather than guess; see `src/upstream.rs`.
    #[error(
        "{}: cannot read what this version of burn keeps private; got no {}",
        OneLine(.op),
        OneLine(.what)
    )]
    Unreadable {
        /// The operation that needed it.
        op: &'static str,
        /// What could not be read, e.g. `` `CTCLoss`'s private `blank` ``.
        what: &'static str,
    },

    // ---------------------------------------------------------------- checkpoints
    /// Parameters of the model that the checkpoint holds no tensor for (refused unless the load
    /// allows a partial checkpoint).
    #[error(
        "{}: every parameter needs a tensor in the checkpoint (allow_partial accepts fewer); \
         got {} missing: {}",
        OneLine(.op),
        .params.len(),
        FirstFew(.params)
    )]
    Missing {
        /// The loading operation (`load_file`, `load_from`, ...).
        op: &'static str,
        /// The parameters' module paths, sorted.
        params: Vec<String>,
    },
    /// Keys of the checkpoint that no parameter of the model takes (refused unless the load
    /// allows unused keys): the checkpoint is not the model's, or the keys need remapping.
    #[error(
        "{}: every checkpoint key must go to a parameter (allow_unused accepts keys or \
         patterns); got {} unused: {}",
        OneLine(.op),
        .keys.len(),
        FirstFew(.keys)
    )]
    Unused {
        /// The loading operation.
        op: &'static str,
        /// The keys as the checkpoint names them, sorted.
        keys: Vec<String>,
    },
    /// A checkpoint that does not fit the model in more than one way, every problem at once:
    /// the missing parameters, the unused keys and each parameter's own refusal (its shape,
    /// kind or dtype), with the renamings that look likely when the unused keys are the
    /// missing parameters under other module paths. A load with one problem only refuses
    /// with that problem's own variant ([`GuardError::Missing`], [`GuardError::Unused`],
    /// [`GuardError::ShapeMismatch`], ...).
    ///
    /// `Display` gives the counts and the first few names; the fields hold every one.
    #[error(
        "{}: the checkpoint must fit the model; got {}",
        OneLine(.op),
        load_mismatch(.missing, .unused, .refused, .renamed)
    )]
    LoadMismatch {
        /// The loading operation.
        op: &'static str,
        /// The parameters the checkpoint holds no tensor for, sorted (empty when the load
        /// allows a partial checkpoint).
        missing: Vec<String>,
        /// The checkpoint's keys no parameter takes and the load does not accept, sorted, as
        /// the file names them.
        unused: Vec<String>,
        /// Each refused parameter's error, its path as context, in module order.
        refused: Vec<GuardError>,
        /// `(file's prefix, model's prefix)` renamings under which the unused keys would be
        /// the missing parameters ([`check::load::renamed_prefixes`](crate::check::load::renamed_prefixes)).
        renamed: Vec<(String, String)>,
    },
    /// Two or more keys of a checkpoint that key remapping sends to one name: burn would keep
    /// one of them, which one depending on the order the file's index is read in.
    #[error(
        "{}: key remapping must not send two keys to one name; got {} sent to {}",
        OneLine(.op),
        OneLine(&.sources.join(", ")),
        OneLine(.name)
    )]
    KeyCollision {
        /// The loading operation.
        op: &'static str,
        /// The name they are all sent to.
        name: String,
        /// The keys as the checkpoint names them, sorted.
        sources: Vec<String>,
    },
    /// A square 2-D `Linear` weight read from a file that burn did not write, with no stated
    /// layout: burn's `[in, out]` and PyTorch's `[out, in]` cannot be told apart by shape, and
    /// the wrong one loads transposed without an error.
    #[error(
        "{}: a square Linear weight from a file burn did not write needs its layout stated \
         (Layout::PyTorch applies PyTorchToBurnAdapter, Layout::Burn reads it as is); got \
         shape {shape:?} from producer {}",
        OneLine(.op),
        OneLine(.producer.as_deref().unwrap_or("unnamed"))
    )]
    LayoutUnstated {
        /// The loading operation.
        op: &'static str,
        /// The weight's shape.
        shape: Vec<usize>,
        /// The producer the file names in its metadata, if it names one.
        producer: Option<String>,
    },
    /// burn could not read the checkpoint (a missing file, a truncated or malformed one, a dtype
    /// the format reader does not know): burn's own error.
    ///
    /// `Display` prints burn's message; the error itself is the `cause` field.
    #[error("{}: burn could not read the checkpoint; got {}", OneLine(.op), folded(.cause))]
    Store {
        /// The loading operation.
        op: &'static str,
        /// burn's error (`RecordError`, `burn_pack::Error`, a store's error), shared.
        cause: Arc<dyn std::error::Error + Send + Sync>,
    },
    /// A load that was refused, naming the checkpoint and the device around the refusal, whose
    /// path is the parameter's (`fc.weight`): `load_file: model.bpk on dispatch<flex>:
    /// fc.weight: ...`.
    ///
    /// Like [`GuardError::Layer`], it has no kind of its own: [`GuardError::kind`],
    /// [`GuardError::op`], [`GuardError::root`] and [`GuardError::path`] look through it;
    /// [`GuardError::checkpoint`] reads it.
    #[error(
        "{}: {} on {}: {}",
        OneLine(.op),
        OneLine(.file),
        OneLine(.device),
        WithoutOp(.inner, .op)
    )]
    Checkpoint {
        /// The loading operation.
        op: &'static str,
        /// The checkpoint: its path as opened (`.bpk` appended as burn appends it), or
        /// `<record>` / `<bytes>` for one in memory.
        file: String,
        /// The device the model's parameters live on, as errors name it.
        device: String,
        /// The refusal.
        inner: Box<GuardError>,
    },

    // ---------------------------------------------------------------- training
    /// An optimizer step that would leave trainable parameters as they are without a word
    /// (burn's `GradientsParams::from_grads` skips them, `ModuleOptimizer::step` returns them
    /// unchanged): parameters with no gradient, parameters burn can never update (non-leaves),
    /// or a model with nothing to train.
    #[error(
        "{}: {}; got {} parameter{}: {}",
        OneLine(.op),
        OneLine(.rule),
        .params.len(),
        plural(.params.len()),
        OneLine(&.params.join(", "))
    )]
    NoGradient {
        /// The operation (`step`).
        op: &'static str,
        /// The rule, with the likely cause and the remedy.
        rule: &'static str,
        /// The parameters' module paths.
        params: Vec<String>,
    },
    /// Gradients holding NaN or ±inf: a step would write them into the parameters (and into the
    /// optimizer's moments, for good).
    #[error(
        "{}: gradients must be finite; got NaN or ±inf in {} parameter{}: {}",
        OneLine(.op),
        .params.len(),
        plural(.params.len()),
        non_finite_counts(.params)
    )]
    NonFiniteGradients {
        /// The operation (`step`).
        op: &'static str,
        /// Each parameter whose gradient is not finite, with its count, its split into NaN,
        /// `+inf` and `-inf`, its dtype and its shape.
        params: Vec<NonFiniteParam>,
    },

    // ---------------------------------------------------------------- silent wrong results
    /// A device's outputs differ from a reference device's beyond the tolerance (a canary
    /// before serving, or a sampled shadow check while serving): the device computes wrong
    /// numbers without a word.
    #[error(
        "{}: outputs must agree with the reference device within the tolerance; got \
         {mismatched} of {elements} elements apart on {} against {} (max abs {max_abs:e}, \
         max rel {max_rel:e})",
        OneLine(.op),
        OneLine(.device),
        OneLine(.reference)
    )]
    Diverged {
        /// The check (`canary`, `shadow`).
        op: &'static str,
        /// The device checked, as errors name it.
        device: String,
        /// The reference device.
        reference: String,
        /// Elements outside `abs + rel × |reference|`, or non-finite where the reference is not.
        mismatched: u64,
        /// Elements compared.
        elements: u64,
        /// The largest absolute difference over the finite pairs.
        max_abs: f64,
        /// The largest relative difference over the finite pairs.
        max_rel: f64,
    },

    // ---------------------------------------------------------------- isolation cells
    /// A request to an isolation [`Cell`](crate::cell::Cell) got no answer from the model: its
    /// child died (by signal, exit, deadline, panic or a poisoned device), could not be
    /// restarted, or the guarded call in it refused ([`CellFault::Refused`], which carries the
    /// child's own error as text). The caller's process is unharmed.
    ///
    /// [`CellFault::Refused`]: crate::cell::CellFault::Refused
    #[error(
        "{}: the cell must answer the request; got cell {} that {}",
        OneLine(.op),
        OneLine(.cell),
        folded(.fault)
    )]
    Cell {
        /// `cell` for a [`Cell`](crate::cell::Cell), `cell_pool` for a
        /// [`CellPool`](crate::cell::CellPool).
        op: &'static str,
        /// The cell's name (`encoder.1` in a pool).
        cell: String,
        /// What happened.
        fault: crate::cell::CellFault,
    },

    // ---------------------------------------------------------------- context
    /// Where an error happened: one segment of a path through nested modules (`encoder`,
    /// `layers.2`), around the error itself. Added with [`ResultExt::context`].
    ///
    /// `Display` prints the stacked segments as one dotted path, then the inner error:
    /// `encoder.layers.2.attention: linear: ...`. [`GuardError::kind`] and [`GuardError::op`]
    /// look through it.
    #[error("{}", in_context(.context, .inner))]
    Context {
        /// This layer's segment of the path.
        context: String,
        /// The error inside it.
        inner: Box<GuardError>,
    },
    /// The layer twin the caller called, around the error of one of its parts: `lstm` around
    /// `input_gate.input_transform: linear: ...`, so that a log line names the layer a service
    /// ran, not only the part inside it that refused.
    ///
    /// `Display` prints `{layer}: {inner}`: `lstm: input_gate.input_transform: linear: ...`.
    /// [`GuardError::kind`], [`GuardError::op`], [`GuardError::root`] and [`GuardError::path`]
    /// look through it (the path is the one inside the layer, `input_gate.input_transform`),
    /// so there is no kind for it; [`GuardError::layer`] reads it. The layer twins add it only
    /// where the message would not already start with the layer's name.
    #[error("{}: {inner}", OneLine(.layer))]
    Layer {
        /// The layer's name as its own errors give it (`lstm`, `transformer_encoder_layer`).
        layer: &'static str,
        /// The error of the part that refused, with its path inside the layer.
        inner: Box<GuardError>,
    },
    /// An error with the backtrace captured where it was refused, only while backtraces are
    /// asked for ([`set_capture_backtraces`], `BURN_GUARD_BACKTRACE=1`).
    ///
    /// `Display` is the inner error's, unchanged; `{:?}` shows the backtrace, and
    /// [`GuardError::backtrace`] returns it. Like [`GuardError::Context`], it has no kind of
    /// its own: [`GuardError::kind`], [`GuardError::op`], [`GuardError::root`] and
    /// [`GuardError::path`] look through it. It sits around the error as it left the first
    /// guarded call it came out of; contexts added later go around it.
    #[error("{inner}")]
    WithBacktrace {
        /// The error.
        inner: Box<GuardError>,
        /// The backtrace, shared: `Backtrace` is not `Clone`.
        backtrace: Arc<Backtrace>,
    },
}

// ---------------------------------------------------------------- kinds and ops

/// Writes [`ErrorKind`] and [`GuardError`]'s `kind`, `op` and `root` from one table: the
/// variants that wrap another error and have no kind of their own, then each variant that has
/// one, with the pattern that finds its op. A new variant is one row here.
macro_rules! error_kinds {
    (
        wrappers: $($wrapper:ident),+;
        $($kind:ident $fields:tt => $op:expr,)+
    ) => {
        /// What kind of [`GuardError`] a value is: one value per variant, `Copy`, for matching
        /// and counting without caring about the fields.
        ///
        /// [`GuardError::kind`] looks through the variants that wrap another error
        /// ([`GuardError::Context`], [`GuardError::Layer`], [`GuardError::Checkpoint`],
        /// [`GuardError::WithBacktrace`]), so there is no kind for them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorKind {
            $(
                #[doc = concat!("[`GuardError::", stringify!($kind), "`].")]
                $kind,
            )+
        }

        impl GuardError {
            /// The operation the error came from (the root error's, through any context).
            ///
            /// ```
            /// use burn_guard::GuardError;
            /// let err = GuardError::DimOutOfRange { op: "narrow", dim: 3, rank: 2 };
            /// assert_eq!(err.op(), "narrow");
            /// ```
            pub fn op(&self) -> &str {
                match self.root() {
                    $(Self::$kind $fields => $op,)+
                    // `root` never returns a wrapper; were it to, its inner error has the op.
                    $(Self::$wrapper { inner, .. })|+ => inner.op(),
                }
            }

            /// The kind of the root error, through any [`GuardError::Context`] layers.
            ///
            /// ```
            /// use burn_guard::{ErrorKind, GuardError};
            /// let err = GuardError::DimOutOfRange { op: "narrow", dim: 3, rank: 2 }.context("head");
            /// assert_eq!(err.kind(), ErrorKind::DimOutOfRange);
            /// ```
            pub fn kind(&self) -> ErrorKind {
                match self.root() {
                    $(Self::$kind { .. } => ErrorKind::$kind,)+
                    // `root` never returns a wrapper; were it to, its inner error has the kind.
                    $(Self::$wrapper { inner, .. })|+ => inner.kind(),
                }
            }

            /// The innermost error: `self` without its [`GuardError::Context`],
            /// [`GuardError::Layer`], [`GuardError::Checkpoint`] and
            /// [`GuardError::WithBacktrace`] wrappers.
            ///
            /// ```
            /// use burn_guard::GuardError;
            /// let err = GuardError::DimOutOfRange { op: "narrow", dim: 3, rank: 2 };
            /// let wrapped = err.clone().context("layers.0").context("encoder");
            /// assert!(matches!(wrapped.root(), GuardError::DimOutOfRange { dim: 3, .. }));
            /// ```
            pub fn root(&self) -> &GuardError {
                let mut err = self;
                while let $(Self::$wrapper { inner, .. })|+ = err {
                    err = inner;
                }
                err
            }
        }
    };
}

error_kinds! {
    wrappers: Context, Layer, Checkpoint, WithBacktrace;
    // shapes, ranks, dims, indices
    ShapeMismatch { op, .. } => op,
    RankMismatch { op, .. } => op,
    DimOutOfRange { op, .. } => op,
    IndexOutOfRange { op, .. } => op,
    Empty { op, .. } => op,
    DeviceMismatch { op, .. } => op,
    // numbers and dtypes
    OutOfRange { op, .. } => op,
    OutOfOrder { op, .. } => op,
    NotRepresentable { op, .. } => op,
    NonFinite { op, .. } => op,
    DTypeMismatch { op, .. } => op,
    InvalidDType { op, .. } => op,
    InvalidArgument { op, .. } => op,
    // quantization schemes
    InvalidQuantScheme { op, .. } => op,
    // capabilities
    Unsupported(gap) => gap.op,
    NotDifferentiable { op, .. } => op,
    DeviceUnavailable { op, .. } => op,
    TooLarge { op, .. } => op,
    OutOfMemory { op, .. } => op,
    // backend failures
    BackendPanic { op, .. } => op,
    Timeout { op, .. } => op,
    Execution { op, .. } => op,
    Data { op, .. } => op,
    Unreadable { op, .. } => op,
    // checkpoints
    Missing { op, .. } => op,
    Unused { op, .. } => op,
    LoadMismatch { op, .. } => op,
    KeyCollision { op, .. } => op,
    LayoutUnstated { op, .. } => op,
    Store { op, .. } => op,
    // training
    NoGradient { op, .. } => op,
    NonFiniteGradients { op, .. } => op,
    // silent wrong results
    Diverged { op, .. } => op,
    // isolation cells
    Cell { op, .. } => op,
}

// Errors cross threads (fallback devices, deadline helpers) and live in `anyhow` chains.
const _: fn() = || {
    fn assert<T: Send + Sync + 'static>() {}
    assert::<GuardError>();
    assert::<ErrorKind>();
};

/// A capability gap: `op` cannot run on `backend`, and what would happen if it did.
///
/// Shared by every capability refusal so that callers can inspect the gap without matching on
/// strings: [`Unsupported::gap`]`.effect` says whether the backend would panic, compute wrong
/// values, not implement the operation, or was never measured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{}: {} {} on this backend; got backend {} ({}){}",
    OneLine(.op),
    OneLine(.capability),
    .gap.effect,
    OneLine(.backend),
    OneLine(&.gap.reason),
    fallback_list(.fallbacks)
)]
#[non_exhaustive]
pub struct Unsupported {
    /// The operation.
    pub op: &'static str,
    /// The backend stack, in a few words (see [`BackendStack::label`](crate::capability::BackendStack::label)).
    pub backend: String,
    /// The capability that is missing, e.g. `quantization q8f-packedu32-tensor`.
    pub capability: String,
    /// What the backend would do instead, and why.
    pub gap: Gap,
    /// The fallback backends the policy offered that cannot either, with their gaps, in the
    /// policy's order. Empty when the policy offered none or forbade falling back.
    pub fallbacks: Vec<(String, Gap)>,
}

impl Unsupported {
    /// A refusal of `op` on `backend` for `capability`, with no fallback tried.
    pub fn new(
        op: &'static str,
        backend: impl Into<String>,
        capability: impl Into<String>,
        gap: Gap,
    ) -> Self {
        Self {
            op,
            backend: backend.into(),
            capability: capability.into(),
            gap,
            fallbacks: Vec::new(),
        }
    }

    /// The same refusal, naming the fallback backends that cannot either.
    #[must_use]
    pub fn with_fallbacks(mut self, fallbacks: Vec<(String, Gap)>) -> Self {
        self.fallbacks = fallbacks;
        self
    }
}

// ---------------------------------------------------------------- accessors

impl GuardError {
    /// The one-line message without the op that leads it (`outputs must agree …; got …`), for a
    /// wrapper or a log line that names the op itself: an op is said once.
    ///
    /// ```
    /// use burn_guard::GuardError;
    /// let err = GuardError::DimOutOfRange { op: "narrow", dim: 3, rank: 2 };
    /// assert_eq!(err.message(), "dimension out of range; got dim 3 for rank 2");
    /// assert_eq!(err.context("head").message(), "head: dimension out of range; got dim 3 for rank 2");
    /// ```
    pub fn message(&self) -> String {
        WithoutOp(self, self.op()).to_string()
    }

    /// The context path, outermost segment first, joined with `.`; `None` without context.
    /// A [`GuardError::Layer`] is not a segment: a layer twin's error has the path inside the
    /// layer (`input_gate.input_transform`).
    pub fn path(&self) -> Option<String> {
        let mut segments = Vec::new();
        let mut err = self;
        loop {
            match err {
                Self::Context { context, inner } => {
                    segments.push(context.as_str());
                    err = inner;
                }
                Self::Layer { inner, .. }
                | Self::Checkpoint { inner, .. }
                | Self::WithBacktrace { inner, .. } => err = inner,
                _ => break,
            }
        }
        (!segments.is_empty()).then(|| segments.join("."))
    }

    /// The layer twin that named itself around the error (`lstm`), through any context the
    /// caller added; `None` when no layer did.
    ///
    /// ```
    /// use burn::nn::LstmConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let lstm = LstmConfig::new(4, 5, true).init(&device);
    /// let err = lstm.try_forward(Tensor::ones([2, 3, 6], &device), None).unwrap_err();
    /// assert_eq!(err.layer(), Some("lstm"));
    /// assert_eq!(err.path().as_deref(), Some("input_gate.input_transform"));
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// ```
    pub fn layer(&self) -> Option<&'static str> {
        let mut err = self;
        loop {
            match err {
                Self::Layer { layer, .. } => return Some(*layer),
                Self::Context { inner, .. }
                | Self::Checkpoint { inner, .. }
                | Self::WithBacktrace { inner, .. } => err = inner,
                _ => return None,
            }
        }
    }

    /// The checkpoint and the device of a refused load (`("model.bpk", "dispatch<flex>")`),
    /// through any context the caller added; `None` for an error that is not a load's.
    pub fn checkpoint(&self) -> Option<(&str, &str)> {
        let mut err = self;
        loop {
            match err {
                Self::Checkpoint { file, device, .. } => return Some((file, device)),
                Self::Context { inner, .. }
                | Self::Layer { inner, .. }
                | Self::WithBacktrace { inner, .. } => err = inner,
                _ => return None,
            }
        }
    }

    /// Names the layer twin `layer` around `self`, unless the message already starts with it:
    /// an error of the layer's own op without a path (`lstm: ...`), or one a layer already
    /// named.
    pub(crate) fn in_layer(self, layer: &'static str) -> Self {
        let named = match self.without_backtrace() {
            Self::Layer { .. } => true,
            Self::Context { .. } => false,
            other => other.op() == layer,
        };
        if named {
            self
        } else {
            Self::Layer {
                layer,
                inner: Box::new(self),
            }
        }
    }

    /// Wraps `self` in a [`GuardError::Context`] layer: `context` becomes the outermost segment
    /// of the error's path.
    ///
    /// With backtraces asked for ([`set_capture_backtraces`]), an error without one gets it
    /// here: the first context is added on the way out of the call that refused.
    pub fn context(self, context: impl Into<String>) -> Self {
        Self::Context {
            context: context.into(),
            inner: Box::new(self.with_backtrace()),
        }
    }

    /// A [`GuardError::NonFinite`] completed with what its caller knows of the tensor whose
    /// values a pure check counted: `split` (called only for that refusal, so that its read is
    /// paid on the error path alone) where the refusal has none, and the dtype and shape. Any
    /// other error as it is.
    pub(crate) fn of_tensor(
        self,
        split: impl FnOnce() -> Option<NonFiniteSplit>,
        dtype: DType,
        shape: &[usize],
    ) -> Self {
        match self {
            Self::NonFinite {
                op,
                rule,
                count,
                total,
                split: known,
                ..
            } => Self::NonFinite {
                op,
                rule,
                count,
                total,
                split: known.or_else(split),
                dtype: float_dtype(dtype),
                shape: Some(shape.to_vec()),
            },
            other => other,
        }
    }

    /// burn's execution error, attributed to `op`.
    pub fn from_execution(op: &'static str, cause: ExecutionError) -> Self {
        Self::Execution { op, cause }
    }

    /// burn's data error, attributed to `op`.
    pub fn from_data(op: &'static str, cause: DataError) -> Self {
        Self::Data {
            op,
            cause: Arc::new(cause),
        }
    }

    /// burn's read error (`Tensor::try_into_data`, `try_to_data`, `try_into_scalar`, ...),
    /// attributed to `op`: an execution failure becomes [`GuardError::Execution`], a data
    /// failure [`GuardError::Data`], a wrong element count [`GuardError::OutOfRange`].
    pub fn from_read(op: &'static str, cause: TensorReadError) -> Self {
        match cause {
            TensorReadError::Execution(cause) => Self::Execution { op, cause },
            TensorReadError::Data(cause) => Self::from_data(op, cause),
            TensorReadError::InvalidShape { expected, actual } => Self::OutOfRange {
                op,
                rule: "the tensor must hold the number of elements the read needs",
                name: "elements",
                value: actual.into(),
                limit: Limit::Exactly(expected.into()),
            },
        }
    }
}

/// `?` on burn's fallible syncs and reads: op `execute`.
impl From<ExecutionError> for GuardError {
    fn from(cause: ExecutionError) -> Self {
        Self::from_execution("execute", cause)
    }
}

/// `?` on burn's [`TensorData`](burn::tensor::TensorData) accessors and conversions
/// (`to_vec`, `as_slice`, `try_cast`): op `tensor_data`.
impl From<DataError> for GuardError {
    fn from(cause: DataError) -> Self {
        Self::from_data("tensor_data", cause)
    }
}

/// `?` on burn's tensor reads (`try_into_data`, `try_to_data`, `try_into_scalar`): op `read`.
/// See [`GuardError::from_read`].
impl From<TensorReadError> for GuardError {
    fn from(cause: TensorReadError) -> Self {
        Self::from_read("read", cause)
    }
}

// ---------------------------------------------------------------- messages that walk errors

/// What a [`GuardError::LoadMismatch`] reports after `got `: the counts and first few names of
/// the missing parameters, the unused keys and the refused parameters (each by its path and
/// kind), then the first two likely renamings.
fn load_mismatch<'a>(
    missing: &'a [String],
    unused: &'a [String],
    refused: &'a [GuardError],
    renamed: &'a [(String, String)],
) -> impl fmt::Display + 'a {
    fmt::from_fn(move |f| {
        let mut sep = "";
        if !missing.is_empty() {
            write!(f, "{} missing ({})", missing.len(), FirstFew(missing))?;
            sep = ", ";
        }
        if !unused.is_empty() {
            write!(f, "{sep}{} unused ({})", unused.len(), FirstFew(unused))?;
            sep = ", ";
        }
        if !refused.is_empty() {
            let named: Vec<String> = refused
                .iter()
                .map(|e| format!("{}: {:?}", e.path().unwrap_or_default(), e.kind()))
                .collect();
            write!(f, "{sep}{} refused ({})", refused.len(), FirstFew(&named))?;
        }
        if !renamed.is_empty() {
            f.write_str("; remap the file's keys ")?;
            for (i, (from, to)) in renamed.iter().take(2).enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                write!(f, "{sep}`{}` -> `{}`", OneLine(from), OneLine(to))?;
            }
            if renamed.len() > 2 {
                write!(f, " (and {} more)", renamed.len() - 2)?;
            }
        }
        Ok(())
    })
}

/// A [`GuardError::Context`]'s segment and those of the contexts stacked inside it as one
/// dotted path (empty segments add nothing), then the innermost error:
/// `encoder.layers.2.attention: linear: ...`.
fn in_context<'a>(context: &'a str, inner: &'a GuardError) -> impl fmt::Display + 'a {
    fmt::from_fn(move |f| {
        let (mut segment, mut err) = (context, inner);
        let mut first = true;
        loop {
            if !segment.is_empty() {
                let sep = if first { "" } else { "." };
                write!(f, "{sep}{}", OneLine(segment))?;
                first = false;
            }
            match err.without_backtrace() {
                GuardError::Context { context, inner } => (segment, err) = (context, inner),
                _ => break,
            }
        }
        if first {
            write!(f, "{err}")
        } else {
            write!(f, ": {err}")
        }
    })
}

/// An error displayed inside a wrapper that already named its op: the inner message without
/// that op a second time (`load_from: model.pt on dispatch<flex>: fc.weight: shape …`, not
/// `… fc.weight: load_from: shape …`).
struct WithoutOp<'a>(&'a GuardError, &'a str);

impl fmt::Display for WithoutOp<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self(err, op) = *self;
        let text = err.to_string();
        if err.op() != op {
            return f.write_str(&text);
        }
        let head = format!("{op}: ");
        if let Some(rest) = text.strip_prefix(&head) {
            return f.write_str(rest);
        }
        let inner = format!(": {op}: ");
        match text.find(&inner) {
            Some(at) => {
                let (before, after) = text.split_at(at);
                write!(f, "{before}: {}", after.get(inner.len()..).unwrap_or(""))
            }
            None => f.write_str(&text),
        }
    }
}

// ---------------------------------------------------------------- backtraces

/// Whether refusals capture a backtrace: not yet decided (the environment is read on the
/// first refusal), off, or on.
static CAPTURE: AtomicU8 = AtomicU8::new(UNDECIDED);
const UNDECIDED: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;

/// Turns the capture of a backtrace with every refusal on (or off) for the whole process,
/// overriding `BURN_GUARD_BACKTRACE`. With it on, an error that leaves a guarded call is a
/// [`GuardError::WithBacktrace`]: `Display` as before, the backtrace in `{:?}` and
/// [`GuardError::backtrace`].
///
/// For debugging: a capture walks the stack (symbols are resolved only when it is printed).
/// With it off, a refusal costs one relaxed atomic load more, an accepted call nothing.
///
/// ```
/// use burn_guard::error::{capture_backtraces, set_capture_backtraces};
/// set_capture_backtraces(true);
/// assert!(capture_backtraces());
/// set_capture_backtraces(false);
/// ```
pub fn set_capture_backtraces(capture: bool) {
    CAPTURE.store(if capture { ON } else { OFF }, Ordering::Relaxed);
}

/// Whether refusals capture a backtrace: [`set_capture_backtraces`]'s last word, else the
/// environment variable `BURN_GUARD_BACKTRACE` (on for any value but `0` or empty), read once.
#[inline]
pub fn capture_backtraces() -> bool {
    match CAPTURE.load(Ordering::Relaxed) {
        ON => true,
        OFF => false,
        _ => capture_from_env(),
    }
}

/// Reads `BURN_GUARD_BACKTRACE` once; a setter that came first wins.
#[cold]
fn capture_from_env() -> bool {
    let on = std::env::var_os("BURN_GUARD_BACKTRACE").is_some_and(|v| !v.is_empty() && v != "0");
    let decided = if on { ON } else { OFF };
    let _ = CAPTURE.compare_exchange(UNDECIDED, decided, Ordering::Relaxed, Ordering::Relaxed);
    CAPTURE.load(Ordering::Relaxed) == ON
}

/// `result`, its error with a backtrace captured here when backtraces are asked for: for the
/// point a refusal leaves a guarded call (a twin's return).
#[inline]
pub(crate) fn traced<T>(result: Result<T>) -> Result<T> {
    result.map_err(GuardError::with_backtrace)
}

/// Runs a twin's `body` so that each way out of it (its `?`s too) leaves through [`traced`].
#[inline]
pub(crate) fn traced_call<T>(body: impl FnOnce() -> Result<T>) -> Result<T> {
    traced(body())
}

impl GuardError {
    /// The backtrace captured with the error ([`GuardError::WithBacktrace`]), through any
    /// context; `None` when backtraces were not asked for ([`set_capture_backtraces`]).
    pub fn backtrace(&self) -> Option<&Backtrace> {
        let mut err = self;
        loop {
            match err {
                Self::WithBacktrace { backtrace, .. } => return Some(backtrace),
                Self::Context { inner, .. }
                | Self::Layer { inner, .. }
                | Self::Checkpoint { inner, .. } => err = inner,
                _ => return None,
            }
        }
    }

    /// `self` with a backtrace captured here, when backtraces are asked for and it has none
    /// yet (the first capture is the nearest to the refusal). Off, one relaxed atomic load.
    #[inline]
    pub(crate) fn with_backtrace(self) -> Self {
        if capture_backtraces() {
            self.with_backtrace_captured_here()
        } else {
            self
        }
    }

    /// The capture, out of line, so that the path with backtraces off stays one load.
    #[cold]
    #[inline(never)]
    fn with_backtrace_captured_here(self) -> Self {
        if self.backtrace().is_some() {
            return self;
        }
        Self::WithBacktrace {
            inner: Box::new(self),
            backtrace: Arc::new(Backtrace::force_capture()),
        }
    }

    /// `self` with the backtrace `captured` elsewhere (a panic's, captured where it was
    /// raised), unless it has one.
    pub(crate) fn with_captured_backtrace(self, captured: Option<Backtrace>) -> Self {
        match captured {
            Some(backtrace) if self.backtrace().is_none() => Self::WithBacktrace {
                inner: Box::new(self),
                backtrace: Arc::new(backtrace),
            },
            _ => self,
        }
    }

    /// `self` without the [`GuardError::WithBacktrace`] around it, for the walks that look at
    /// the next wrapper.
    fn without_backtrace(&self) -> &GuardError {
        let mut err = self;
        while let Self::WithBacktrace { inner, .. } = err {
            err = inner;
        }
        err
    }
}

// ---------------------------------------------------------------- context on results

mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for super::Result<T> {}
}

/// Adds a [`GuardError::Context`] layer to the error of a guarded [`Result`].
///
/// Sealed: implemented for `Result<T, GuardError>` only. A segment names where the call sits
/// (a module field, `layers.2`); stacked segments print as one dotted path.
///
/// Note: `anyhow::Context` has methods of the same names for every `Result` whose error is a
/// `std::error::Error`; with both traits in scope, call this one as
/// `ResultExt::context(result, "..")`.
///
/// ```
/// use burn_guard::{GuardError, ResultExt};
///
/// let inner: burn_guard::Result<()> =
///     Err(GuardError::DimOutOfRange { op: "linear", dim: 3, rank: 2 });
/// let err = inner.context("head").unwrap_err();
/// assert!(err.to_string().starts_with("head: linear: "));
/// ```
pub trait ResultExt<T>: sealed::Sealed {
    /// Wraps the error, if any, in a context layer named `context`.
    ///
    /// # Errors
    ///
    /// The error of `self`, wrapped.
    fn context(self, context: impl Into<String>) -> Result<T>;

    /// As [`ResultExt::context`], building the segment only when there is an error.
    ///
    /// # Errors
    ///
    /// The error of `self`, wrapped.
    fn with_context<C: Into<String>>(self, context: impl FnOnce() -> C) -> Result<T>;
}

impl<T> ResultExt<T> for Result<T> {
    fn context(self, context: impl Into<String>) -> Result<T> {
        self.map_err(|err| err.context(context))
    }

    fn with_context<C: Into<String>>(self, context: impl FnOnce() -> C) -> Result<T> {
        self.map_err(|err| err.context(context()))
    }
}
