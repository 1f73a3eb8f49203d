//! Numbers you can trust on a device you don't: a model's outputs on its serving device checked
//! against a reference device (Flex, say), before serving and while serving.
//!
//! Fusion and autotune bugs, and device tasks whose failure the runtime only logs, give wrong
//! numbers or zeros without a word. burn has no cross-check; these compare the model's own
//! forward on two devices with [`check::verify`](crate::check::verify)'s rule
//! (`|x − r| ≤ abs + rel × |r|`, a non-finite value where the reference is finite never agrees):
//!
//! - [`canary`]: before traffic, the model's forward on the caller's inputs, on the serving
//!   device and on the reference; a [`CanaryReport`] per output, and `Err(Diverged)` when any
//!   output disagrees. [`canary_steps`] does it for a stateful computation (decoding steps
//!   with a cache), step by step, naming the first step that disagrees. A canary marks no
//!   device: only a [`Shadowed`] with [`Shadowed::quarantine_device`] quarantines one.
//! - [`Shadowed`]: while serving, one request in `every` re-run on the reference, inline. A
//!   divergence quarantines the serving device for this model (and, with
//!   [`Shadowed::quarantine_device`], for the process: [`devices::health`]): that request and
//!   every later one are answered from the reference, and [`ShadowStats`] counts them; the
//!   first layer twin that diverged is named by its module path
//!   ([`Shadowed::first_diverging_layer`]). [`Shadowed::forward_steps`] does it for a stateful
//!   computation, step by step, naming the first step that disagrees.
//! - [`detect_anomaly`] and [`detect_anomaly_in`]: the layer twins check their outputs for NaN
//!   and ±inf, and the guarded backward their gradients; given the model, the refusing layer is
//!   named by its module path.
//!
//! Failures burn only logs are the other source of quiet wrong numbers: the opt-in
//! [`devices::TaintLogger`] marks a device whose runner swallowed a task failure, and guarded
//! reads on it then refuse ([`devices::health`] says how it was measured).
//!
//! [`devices::health`]: crate::devices::health
//! [`devices::TaintLogger`]: crate::devices::TaintLogger

mod shadow;

pub use crate::nn::anomaly::{anomaly_mode, detect_anomaly, detect_anomaly_in};
pub use shadow::{LayerDivergence, ShadowStats, Shadowed};

use std::fmt;

use burn::module::Module;
use burn::tensor::{Device, Tensor};
use serde::Serialize;

pub use crate::check::verify::{Agreement, Tolerance};
use crate::check::verify::{agree, compare};
use crate::error::{GuardError, Result};
use crate::panic::catch;
use crate::value_reads::read_data_into;

/// What the canary found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CanaryReport {
    /// The serving device, as errors name it.
    pub device: String,
    /// The reference device.
    pub reference: String,
    /// The tolerance used.
    pub tolerance: Tolerance,
    /// One comparison per input, in order.
    pub outputs: Vec<Agreement>,
}

impl CanaryReport {
    /// Whether every output agrees.
    pub fn passed(&self) -> bool {
        self.outputs.iter().all(Agreement::agrees)
    }
}

impl fmt::Display for CanaryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "canary: {} against {} (abs {:e}, rel {:e}): {}",
            self.device,
            self.reference,
            self.tolerance.abs,
            self.tolerance.rel,
            if self.passed() { "passed" } else { "FAILED" }
        )?;
        for (i, output) in self.outputs.iter().enumerate() {
            writeln!(
                f,
                "  input {i}: {} of {} apart, {} new non-finite, max abs {:e}, max rel {:e}",
                output.mismatched,
                output.elements,
                output.new_non_finite,
                output.max_abs,
                output.max_rel
            )?;
        }
        Ok(())
    }
}

/// The device errors name (`dispatch<wgpu>`).
fn device_name(device: &Device) -> String {
    crate::capability::stack_of(device).label().to_owned()
}

/// The model's device: its first parameter's.
fn model_device<M: Module>(model: &M) -> Option<Device> {
    model.devices().first().cloned()
}

/// An output's values, read as `f64`.
fn values<const D: usize>(op: &'static str, output: Tensor<D>) -> Result<Vec<f64>> {
    let data = read_data_into(op, output)?;
    catch(op, || data.iter::<f64>().collect())
}

/// One input through the model on both devices, compared. Returns the agreement, the serving
/// output and the reference output.
fn compare_once<M, const DI: usize, const DO: usize>(
    op: &'static str,
    serving: &M,
    reference: &M,
    reference_device: &Device,
    input: Tensor<DI>,
    tolerance: Tolerance,
    forward: &impl Fn(&M, Tensor<DI>) -> Tensor<DO>,
) -> Result<(Agreement, Tensor<DO>, Tensor<DO>)>
where
    M: Module,
{
    let reference_input = catch(op, || input.clone().to_device(reference_device))?;
    let output = catch(op, || forward(serving, input))?;
    let expected = catch(op, || forward(reference, reference_input))?;
    if output.dims() != expected.dims() {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "the output must have the reference's shape",
            shapes: vec![output.dims().to_vec(), expected.dims().to_vec()],
        });
    }
    let agreement = compare(
        op,
        &values(op, output.clone())?,
        &values(op, expected.clone())?,
        tolerance,
    )?;
    Ok((agreement, output, expected))
}

/// Checks `model` on its own device against a copy on `reference`: `forward` (the model's own,
/// typically `|m, x| m.forward(x)`) runs each input on both, and the outputs are compared.
/// Inputs live on the model's device; the reference copy is a copy of `model` moved to
/// `reference`, with running statistics of its own (burn's `model.clone().to_device(..)` would
/// move the original's too).
///
/// ```
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::verify::{Tolerance, canary};
///
/// let device = Device::flex();
/// let model: Linear = LinearConfig::new(4, 2).init(&device);
/// let inputs = vec![Tensor::<2>::ones([3, 4], &device)];
/// let report = canary(&model, &Device::ndarray(), inputs, Tolerance::default(), |m, x| m.forward(x))?;
/// assert!(report.passed());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
///
/// # Errors
///
/// [`GuardError::Diverged`] for the first output that disagrees (the report, printed, shows
/// them all: call [`canary_report`] to get it either way); the model's forward failing on
/// either device, as its error or [`GuardError::BackendPanic`].
pub fn canary<M, const DI: usize, const DO: usize>(
    model: &M,
    reference: &Device,
    inputs: Vec<Tensor<DI>>,
    tolerance: Tolerance,
    forward: impl Fn(&M, Tensor<DI>) -> Tensor<DO>,
) -> Result<CanaryReport>
where
    M: Module,
{
    let report = canary_report(model, reference, inputs, tolerance, forward)?;
    for output in &report.outputs {
        agree("canary", &report.device, &report.reference, output)?;
    }
    Ok(report)
}

/// As [`canary`], returning the report whether or not the outputs agree.
///
/// # Errors
///
/// The model's forward failing on either device.
pub fn canary_report<M, const DI: usize, const DO: usize>(
    model: &M,
    reference: &Device,
    inputs: Vec<Tensor<DI>>,
    tolerance: Tolerance,
    forward: impl Fn(&M, Tensor<DI>) -> Tensor<DO>,
) -> Result<CanaryReport>
where
    M: Module,
{
    // A copy that shares no running statistic with `model`: burn's `to_device` moves a
    // `RunningState` in place, through the storage its clones share.
    let copy = crate::params::detach::detached("canary", model)?;
    let copy = catch("canary", || copy.to_device(reference))?;
    canary_against(model, &copy, inputs, tolerance, forward)
}

/// The canary over a stateful computation: decoding N tokens with a key-value cache, a
/// recurrent state carried across calls. A one-shot [`canary`] checks one forward; a bug in the
/// cached path (burn's fusion and autotune on Vulkan have given wrong logits only after a few
/// decoding steps) shows only later. `run` drives the model through its steps on the device it
/// is given (it builds its inputs and its cache there) and returns each step's output; it runs
/// on `model` with the model's device and on a copy on `reference` with that device, and the
/// outputs are compared step by step. The report has one row per step.
///
/// ```
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::verify::{Tolerance, canary_steps};
///
/// let model: Linear = LinearConfig::new(4, 4).init(&Device::flex());
/// // Four decoding steps: each step's output is the next step's input.
/// let decode = |m: &Linear, device: &Device| {
///     let mut x = Tensor::<2>::ones([1, 4], device);
///     (0..4).map(|_| { x = m.forward(x.clone()).tanh(); x.clone() }).collect()
/// };
/// let report = canary_steps(&model, &Device::ndarray(), Tolerance::default(), decode)?;
/// assert_eq!(report.outputs.len(), 4);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
///
/// # Errors
///
/// [`GuardError::Diverged`] for the first step that disagrees, with the context `step <i>`
/// (counted from 0); [`GuardError::ShapeMismatch`] when the two runs give different numbers of
/// steps or shapes; `run` panicking on either device, as [`GuardError::BackendPanic`].
pub fn canary_steps<M, const D: usize>(
    model: &M,
    reference: &Device,
    tolerance: Tolerance,
    run: impl Fn(&M, &Device) -> Vec<Tensor<D>>,
) -> Result<CanaryReport>
where
    M: Module,
{
    let copy = crate::params::detach::detached("canary_steps", model)?;
    let copy = catch("canary_steps", || copy.to_device(reference))?;
    canary_steps_against(model, &copy, tolerance, run)
}

/// As [`canary_steps`], against a reference model given rather than copied (loaded from the
/// checkpoint onto the reference device, say).
///
/// # Errors
///
/// As [`canary_steps`]; [`GuardError::Unreadable`] for a model without parameters (it has no
/// device).
pub fn canary_steps_against<M, const D: usize>(
    model: &M,
    reference: &M,
    tolerance: Tolerance,
    run: impl Fn(&M, &Device) -> Vec<Tensor<D>>,
) -> Result<CanaryReport>
where
    M: Module,
{
    const OP: &str = "canary_steps";
    let device_of = |m: &M| {
        model_device(m).ok_or(GuardError::Unreadable {
            op: OP,
            what: "a model's device (it has no parameters)",
        })
    };
    let (home, reference_device) = (device_of(model)?, device_of(reference)?);
    let outputs = catch(OP, || run(model, &home))?;
    let expected = catch(OP, || run(reference, &reference_device))?;
    let (device, reference) = (device_name(&home), device_name(&reference_device));
    match compare_steps(OP, (&device, &reference), &outputs, &expected, tolerance)? {
        Steps::Agree(outputs) => Ok(CanaryReport {
            device,
            reference,
            tolerance,
            outputs,
        }),
        Steps::Diverged(divergence) => Err(divergence),
    }
}

/// What two runs of the same steps, compared step by step, found.
enum Steps {
    /// Every step agrees: one comparison per step, in order.
    Agree(Vec<Agreement>),
    /// The first step that disagrees: [`GuardError::Diverged`] in the context `step <i>`.
    Diverged(GuardError),
}

/// `outputs` (on the serving device) against `expected` (on the reference), step by step, up to
/// the first step that disagrees; `devices` names the two (serving, reference) in a divergence.
/// A run of stateful steps (decoding with a cache) checked this way names the first step at
/// which a bug only in the cached path shows.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] when the runs give different numbers of steps, or a step's
/// shapes differ (in the context `step <i>`); a failed read. A divergence is not an `Err`: it is
/// [`Steps::Diverged`].
fn compare_steps<const D: usize>(
    op: &'static str,
    devices: (&str, &str),
    outputs: &[Tensor<D>],
    expected: &[Tensor<D>],
    tolerance: Tolerance,
) -> Result<Steps> {
    if outputs.len() != expected.len() {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "both runs must give the same number of steps",
            shapes: vec![vec![outputs.len()], vec![expected.len()]],
        });
    }
    let mut agreements = Vec::with_capacity(outputs.len());
    for (step, (output, expected)) in outputs.iter().zip(expected).enumerate() {
        let at = || format!("step {step}");
        if output.dims() != expected.dims() {
            return Err(GuardError::ShapeMismatch {
                op,
                rule: "each step's output must have the reference's shape",
                shapes: vec![output.dims().to_vec(), expected.dims().to_vec()],
            }
            .context(at()));
        }
        let agreement = compare(
            op,
            &values(op, output.clone())?,
            &values(op, expected.clone())?,
            tolerance,
        )?;
        if let Err(divergence) = agree(op, devices.0, devices.1, &agreement) {
            return Ok(Steps::Diverged(divergence.context(at())));
        }
        agreements.push(agreement);
    }
    Ok(Steps::Agree(agreements))
}

/// As [`canary_report`], against a reference model given rather than copied (loaded from the
/// checkpoint onto the reference device, say).
///
/// # Errors
///
/// The model's forward failing on either device; [`GuardError::Unreadable`] for a reference
/// model without parameters (it has no device).
pub fn canary_against<M, const DI: usize, const DO: usize>(
    model: &M,
    reference: &M,
    inputs: Vec<Tensor<DI>>,
    tolerance: Tolerance,
    forward: impl Fn(&M, Tensor<DI>) -> Tensor<DO>,
) -> Result<CanaryReport>
where
    M: Module,
{
    const OP: &str = "canary";
    let device =
        model_device(model).map_or_else(|| "no parameters".to_owned(), |d| device_name(&d));
    let reference_device = model_device(reference).ok_or(GuardError::Unreadable {
        op: OP,
        what: "the reference model's device (it has no parameters)",
    })?;
    let mut outputs = Vec::with_capacity(inputs.len());
    for input in inputs {
        let (agreement, _, _) = compare_once(
            OP,
            model,
            reference,
            &reference_device,
            input,
            tolerance,
            &forward,
        )?;
        outputs.push(agreement);
    }
    Ok(CanaryReport {
        device,
        reference: device_name(&reference_device),
        tolerance,
        outputs,
    })
}
