//! Anomaly mode in the backward pass: the layer twin whose backward (or whose consumers'
//! backward) gave a gradient NaN or ±inf.
//!
//! burn-autodiff keeps only the gradients of leaves that require one: an intermediate
//! tensor's gradient is dropped as soon as the backward pass consumed it, so a layer's output
//! cannot be asked for its gradient after `backward`. In anomaly mode each layer twin's tracked
//! output therefore gets a *tap*: a zero leaf that requires a gradient, added to the output
//! (`y + 0`, the same values), whose gradient is the output's. The twin's parameters are
//! leaves already. After the guarded backward
//! ([`TryAutodiffFloat::try_backward`](crate::tensor::TryAutodiffFloat::try_backward)), the
//! records are walked from the last layer twin called to the first: a layer called later
//! cannot depend on one called earlier, so the first record with a non-finite gradient is the
//! nearest to where the non-finite value was born. Either its output's gradient is already
//! non-finite (the backward of what consumed that output produced it), or its output's
//! gradient is finite and its parameters' is not (its own backward produced it).

use std::cell::RefCell;

use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::{Gradients, Tensor};

use super::{LayerKey, LayerOutput, PATHS};
use crate::check::rule::Rule;
use crate::error::{GuardError, Result};
use crate::panic::catch;
use crate::value_reads::read_data_into;

const OP: &str = "backward";

const CONSUMED: &str = "anomaly mode: the gradient of the layer's output holds NaN or ±inf, from \
                        the backward of what consumed that output (every layer twin called after \
                        it got finite gradients)";

const OWN: &str = "anomaly mode: the layer's own backward gave its parameters NaN or ±inf (the \
                   gradient of its output was finite)";

/// A tracked parameter's gradient, flattened (`None` when `grads` holds none for it).
type ParamGradient = Box<dyn Fn(&Gradients) -> Option<Tensor<1>>>;

/// One layer twin's call in anomaly mode, on a tracked output.
struct BackwardRecord {
    /// The twin's op name (`linear`).
    op: &'static str,
    /// Its module, to name its path ([`super::LayerPaths`]).
    layer: Option<LayerKey>,
    /// One zero leaf per float tensor of the output, flattened: its gradient is that tensor's.
    taps: Vec<Tensor<1>>,
    /// The module's parameters that require a gradient.
    params: Vec<ParamGradient>,
}

thread_local! {
    /// The layer twins' calls on tracked outputs since the last guarded backward, in call
    /// order; emptied when the outermost anomaly scope ends.
    static RECORDS: RefCell<Vec<BackwardRecord>> = const { RefCell::new(Vec::new()) };
}

/// `output` with a tap on each of its tracked float tensors, and the call recorded with
/// `layer`'s parameters. An output that is not tracked (no autodiff, a model in `valid()`
/// mode) is returned as it is and nothing is recorded. Called in anomaly mode only.
pub(super) fn tapped<M: Module, T: LayerOutput>(op: &'static str, layer: &M, output: T) -> T {
    let mut taps = Vec::new();
    let output = output.tapped(&mut taps);
    if taps.is_empty() {
        return output;
    }
    let record = BackwardRecord {
        op,
        layer: LayerKey::of(layer),
        taps,
        params: params_of(layer),
    };
    RECORDS.with(|records| records.borrow_mut().push(record));
    output
}

/// `output + tap`, `tap` a zero leaf that requires a gradient, pushed to `taps`; `output` as it
/// is when it is not a tracked float tensor, or empty, or the tap cannot be made.
pub(super) fn tap<const D: usize>(output: Tensor<D>, taps: &mut Vec<Tensor<1>>) -> Tensor<D> {
    let n = output.shape().num_elements();
    if !output.dtype().is_float() || n == 0 || !output.is_tracked() {
        return output;
    }
    let made = catch(OP, || {
        let tap = Tensor::<1>::zeros([n], (&output.device(), output.dtype())).require_grad();
        let tapped = output.clone() + tap.clone().reshape(output.dims());
        (tap, tapped)
    });
    match made {
        Ok((tap, tapped)) => {
            taps.push(tap);
            tapped
        }
        Err(_) => output,
    }
}

/// `layer`'s float parameters that require a gradient, each as a reader of its gradient.
fn params_of<M: Module>(layer: &M) -> Vec<ParamGradient> {
    struct Collect(Vec<ParamGradient>);
    impl ModuleVisitor for Collect {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            if !param.is_initialized() {
                return;
            }
            let tensor = param.val();
            if !tensor.is_require_grad() {
                return;
            }
            let n = tensor.shape().num_elements();
            self.0.push(Box::new(move |grads: &Gradients| {
                tensor.grad(grads).map(|grad| grad.reshape([n]))
            }));
        }
    }
    let mut collect = Collect(Vec::new());
    match catch(OP, || layer.visit(&mut collect)) {
        Ok(()) => collect.0,
        Err(_) => Vec::new(),
    }
}

/// Forgets the recorded calls: the outermost anomaly scope ended.
pub(super) fn forget() {
    let records = RECORDS.with(|records| std::mem::take(&mut *records.borrow_mut()));
    drop(records);
}

/// The guarded backward's check in anomaly mode: `grads` when every recorded layer twin's
/// output and parameters got finite gradients (or none), else `Err(NonFinite)` naming the layer
/// twin nearest to where the non-finite value was born (see [the module](self)), by its op and,
/// inside [`detect_anomaly_in`](super::detect_anomaly_in), its module path. The calls this
/// backward reached are forgotten; the others (another loss's forward) are kept for its own.
/// After an `Err`, every call is forgotten.
///
/// Outside anomaly mode, `grads` as they are: one thread-local read.
///
/// # Errors
///
/// [`GuardError::NonFinite`] (op `backward`, inside [`GuardError::Layer`] naming the twin and,
/// when the path is known, [`GuardError::Context`] naming its module path); a failed read of a
/// gradient.
pub(crate) fn checked_backward(grads: Gradients) -> Result<Gradients> {
    if !super::anomaly_mode() {
        return Ok(grads);
    }
    let records = RECORDS.with(|records| std::mem::take(&mut *records.borrow_mut()));
    let mut unreached = Vec::new();
    for record in records.into_iter().rev() {
        let outputs = gradients(record.taps.iter().map(|tap| || tap.grad(&grads)));
        if outputs.is_empty() {
            // Not part of this backward's graph: kept for another loss's backward.
            unreached.push(record);
            continue;
        }
        if let Some(err) = non_finite(CONSUMED, outputs)? {
            return Err(named(&record, err));
        }
        let params = gradients(record.params.iter().map(|grad| || grad(&grads)));
        if let Some(err) = non_finite(OWN, params)? {
            return Err(named(&record, err));
        }
    }
    unreached.reverse();
    // Nothing was recorded since the take: the check calls no layer twin.
    RECORDS.with(|records| *records.borrow_mut() = unreached);
    Ok(grads)
}

/// The gradients present, each looked up under the backstop.
fn gradients<F: FnOnce() -> Option<Tensor<1>>>(lookups: impl Iterator<Item = F>) -> Vec<Tensor<1>> {
    lookups
        .filter_map(|lookup| catch(OP, lookup).ok().flatten())
        .collect()
}

/// `Some(NonFinite)` under `rule` when a value of `grads` is NaN or ±inf: one reduction and
/// one read for all of them (one each when they live on different devices), the values read
/// only when one is not finite.
fn non_finite(rule: &'static str, grads: Vec<Tensor<1>>) -> Result<Option<GuardError>> {
    if grads.is_empty() {
        return Ok(None);
    }
    // NaN and ±inf survive `× 0` as NaN, and finite values sum to exactly 0: no overflow.
    let probes: Vec<Tensor<1>> = grads
        .iter()
        .map(|grad| catch(OP, || (grad.clone() * 0.0).sum()))
        .collect::<Result<_>>()?;
    let joined = catch(OP, || Tensor::cat(probes.clone(), 0).sum());
    let finite = match joined {
        Ok(sum) => scalar(sum)?.is_finite(),
        // Different devices: one read each.
        Err(_) => {
            let mut all = true;
            for probe in probes {
                all &= scalar(probe)?.is_finite();
            }
            all
        }
    };
    if finite {
        return Ok(None);
    }
    let mut values = Vec::new();
    for grad in grads {
        let data = read_data_into(OP, grad)?;
        values.extend(catch(OP, || data.iter::<f64>().collect::<Vec<f64>>())?);
    }
    Ok(Rule(OP, rule).finite(&values).err())
}

/// A one-value tensor's value.
fn scalar(tensor: Tensor<1>) -> Result<f64> {
    let data = read_data_into(OP, tensor)?;
    Ok(catch(OP, || data.iter::<f64>().next())?.unwrap_or(0.0))
}

/// `err` named by the record's twin, and by its module path inside `detect_anomaly_in`.
fn named(record: &BackwardRecord, err: GuardError) -> GuardError {
    let err = err.in_layer(record.op);
    let paths = PATHS.with(|paths| paths.borrow().clone());
    let path = paths.and_then(|paths| Some(paths.path(record.layer.as_ref()?)?.to_owned()));
    match path {
        Some(path) => err.context(path),
        None => err,
    }
}
