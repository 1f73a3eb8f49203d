//! Sampled shadow checks while serving.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use burn::module::Module;
use burn::tensor::{Device, Tensor};
use serde::Serialize;

use super::{
    Agreement, Steps, Tolerance, compare_once, compare_steps, device_name, model_device, values,
};
use crate::check::verify::{agree, compare, sampling};
use crate::error::{GuardError, Result};
use crate::nn::anomaly::{LayerPaths, traced};
use crate::panic::catch;

/// Counts over a [`Shadowed`] model's life.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ShadowStats {
    /// Requests served.
    pub requests: u64,
    /// Requests also run on the reference and compared.
    pub shadowed: u64,
    /// Shadowed requests whose outputs disagreed.
    pub diverged: u64,
    /// Requests answered from the reference because the serving device was quarantined for
    /// this model (the diverging one included) or marked in
    /// [`devices::health`](crate::devices::health) (tainted, quarantined, poisoned).
    pub routed: u64,
}

/// The first layer twin whose output diverged on the request that quarantined a device: the
/// request re-run on both devices with every layer twin's output recorded, compared layer by
/// layer ([`Shadowed::first_diverging_layer`]).
///
/// `Display` names it as the log does: `#3 layer_norm blocks.1.norm2 (5 of 64 apart)`, the
/// path left out where none is known (`#1 linear (2 of 6 apart)`).
///
/// ```
/// use burn_guard::verify::{Agreement, LayerDivergence};
///
/// let agreement = Agreement {
///     elements: 64,
///     mismatched: 5,
///     new_non_finite: 0,
///     max_abs: 0.5,
///     max_rel: 0.1,
/// };
/// let layer = LayerDivergence {
///     index: 3,
///     layer: "layer_norm",
///     path: Some("blocks.1.norm2".to_owned()),
///     agreement,
/// };
/// assert_eq!(layer.to_string(), "#3 layer_norm blocks.1.norm2 (5 of 64 apart)");
/// let unnamed = LayerDivergence { path: None, ..layer };
/// assert_eq!(unnamed.to_string(), "#3 layer_norm (5 of 64 apart)");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerDivergence {
    /// Its position among the layer twins the forward called, 0 for the first.
    pub index: usize,
    /// The twin's op name (`linear`, `conv2d`).
    pub layer: &'static str,
    /// Its module path in the served model (`blocks.1.norm2`), found by its first float
    /// parameter's id and its type; `None` for a layer without float parameters (an
    /// activation, a pool), one the model does not hold, or one whose parameter is tied to
    /// another's.
    pub path: Option<String>,
    /// How its output differed from the reference's.
    pub agreement: Agreement,
}

impl std::fmt::Display for LayerDivergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{} {}", self.index, self.layer)?;
        if let Some(path) = &self.path {
            write!(f, " {path}")?;
        }
        write!(
            f,
            " ({} of {} apart)",
            self.agreement.mismatched, self.agreement.elements
        )
    }
}

/// A model served on its device, with one request in `every` re-run on a reference device and
/// compared. The first divergence quarantines the serving device for this model: that request
/// is answered from the reference, and so is every later one ([`ShadowStats::routed`]).
///
/// On that divergence (once, not per request) the request is run again on both devices with
/// the layer twins' outputs recorded, to name the first layer that diverges
/// ([`first_diverging_layer`](Self::first_diverging_layer), by call index, op and module path
/// in the served model: `#3 layer_norm blocks.1.norm2`); a forward that calls no layer twin
/// (burn's own `forward`) names none. The divergence is logged (`log::error!`) with the
/// device, the sizes of the difference and that layer.
///
/// With [`quarantine_device`](Self::quarantine_device), a divergence also quarantines the
/// serving device process-wide ([`DeviceHealth::Quarantined`](crate::devices::DeviceHealth)):
/// every twin then refuses it and [`Policy::place`](crate::policy::Policy::place) routes
/// around it. A serving device marked in [`devices::health`](crate::devices::health) by
/// anything (a taint from a failure burn only logged, say) is routed around too.
///
/// The shadow runs inline, on the request that is sampled: that request costs a reference
/// forward and two reads more; the others cost an atomic increment and an atomic load.
///
/// ```
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::verify::{Shadowed, Tolerance};
///
/// let device = Device::flex();
/// let model: Linear = LinearConfig::new(4, 2).init(&device);
/// let served = Shadowed::new(model, &Device::ndarray(), 10, Tolerance::default())?;
/// for _ in 0..20 {
///     let y = served.forward(Tensor::<2>::ones([3, 4], &device), |m, x| m.forward(x))?;
///     assert_eq!(y.dims(), [3, 2]);
/// }
/// assert_eq!(served.stats().shadowed, 2);
/// assert!(served.quarantined().is_none());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub struct Shadowed<M> {
    serving: M,
    reference: M,
    reference_device: Device,
    every: u64,
    tolerance: Tolerance,
    requests: AtomicU64,
    shadowed: AtomicU64,
    diverged: AtomicU64,
    routed: AtomicU64,
    /// Set with `quarantine`: the per-request test, without the lock.
    is_quarantined: AtomicBool,
    quarantine: Mutex<Option<GuardError>>,
    diverging_layer: Mutex<Option<LayerDivergence>>,
    /// Whether a divergence quarantines the serving device process-wide.
    quarantines_device: bool,
    /// The serving device (`None` for a model without parameters).
    serving_device: Option<Device>,
}

impl<M: Module> Shadowed<M> {
    /// Serves `model` on its device, shadowing one request in `every` on `reference` (a copy
    /// of the model moved there). `every` of 1 shadows every request.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`] for `every` of 0; moving the copy failing, as
    /// [`GuardError::BackendPanic`].
    pub fn new(model: M, reference: &Device, every: u64, tolerance: Tolerance) -> Result<Self> {
        sampling("shadow", every)?;
        // Its own running statistics: `to_device` moves a `RunningState` in place.
        let copy = crate::params::detach::detached("shadow", &model)?;
        let copy = catch("shadow", || copy.to_device(reference))?;
        Self::with_reference(model, copy, every, tolerance)
    }

    /// As [`new`](Self::new), with the reference model given (loaded from the checkpoint onto
    /// the reference device, say) rather than copied from `model`.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`] for `every` of 0; [`GuardError::Unreadable`] for a reference
    /// model without parameters (it has no device).
    pub fn with_reference(
        model: M,
        reference: M,
        every: u64,
        tolerance: Tolerance,
    ) -> Result<Self> {
        sampling("shadow", every)?;
        let reference_device = model_device(&reference).ok_or(GuardError::Unreadable {
            op: "shadow",
            what: "the reference model's device (it has no parameters)",
        })?;
        let serving_device = model_device(&model);
        Ok(Self {
            serving: model,
            reference,
            reference_device,
            every,
            tolerance,
            requests: AtomicU64::new(0),
            shadowed: AtomicU64::new(0),
            diverged: AtomicU64::new(0),
            routed: AtomicU64::new(0),
            is_quarantined: AtomicBool::new(false),
            quarantine: Mutex::new(None),
            diverging_layer: Mutex::new(None),
            quarantines_device: false,
            serving_device,
        })
    }

    /// A divergence also quarantines the serving device for the whole process
    /// ([`DeviceHealth::Quarantined`](crate::devices::DeviceHealth)), not only for this model:
    /// for a service whose other models and twins share the device. Lifted by
    /// [`devices::reinstate`](crate::devices::reinstate).
    #[must_use]
    pub fn quarantine_device(mut self) -> Self {
        self.quarantines_device = true;
        self
    }

    /// Whether the serving device is marked in [`devices::health`](crate::devices::health):
    /// one atomic load while no device is.
    fn serving_device_marked(&self) -> bool {
        self.serving_device
            .as_ref()
            .is_some_and(|device| crate::capability::require_healthy("shadow", device).is_err())
    }

    /// Runs `forward` (the model's own) on `input`: on the serving device, or, once it is
    /// quarantined, on the reference (the output then lives on the reference device). A
    /// sampled request runs on both; on a divergence it answers from the reference and
    /// quarantines the serving device.
    ///
    /// # Errors
    ///
    /// The model's forward failing, as its error or [`GuardError::BackendPanic`]. A
    /// divergence is not an error of the request (it is answered from the reference): read it
    /// with [`quarantined`](Self::quarantined).
    pub fn forward<const DI: usize, const DO: usize>(
        &self,
        input: Tensor<DI>,
        forward: impl Fn(&M, Tensor<DI>) -> Tensor<DO>,
    ) -> Result<Tensor<DO>> {
        const OP: &str = "shadow";
        let n = self.requests.fetch_add(1, Ordering::Relaxed);
        if self.is_quarantined.load(Ordering::Acquire) || self.serving_device_marked() {
            self.routed.fetch_add(1, Ordering::Relaxed);
            let input = catch(OP, || input.to_device(&self.reference_device))?;
            return catch(OP, || forward(&self.reference, input));
        }
        if !n.is_multiple_of(self.every) {
            return catch(OP, || forward(&self.serving, input));
        }
        self.shadowed.fetch_add(1, Ordering::Relaxed);
        let kept = input.clone();
        let (agreement, output, expected) = compare_once(
            OP,
            &self.serving,
            &self.reference,
            &self.reference_device,
            input,
            self.tolerance,
            &forward,
        )?;
        let device = model_device(&self.serving)
            .map_or_else(|| "no parameters".to_owned(), |d| device_name(&d));
        match agree(
            OP,
            &device,
            &device_name(&self.reference_device),
            &agreement,
        ) {
            Ok(()) => Ok(output),
            Err(divergence) => {
                self.quarantine_on(OP, divergence, || {
                    let reference_input =
                        catch(OP, || kept.clone().to_device(&self.reference_device)).ok()?;
                    self.bisect(
                        || catch(OP, || forward(&self.serving, kept)).map(drop),
                        || catch(OP, || forward(&self.reference, reference_input)).map(drop),
                    )
                });
                Ok(expected)
            }
        }
    }

    /// The shadow check of a stateful computation: `run` drives the model through its steps
    /// (decoding N tokens with a key-value cache, a recurrent state carried across calls) on
    /// the device it is given, building its inputs and its state there, and returns each
    /// step's output, as [`canary_steps`](super::canary_steps) takes it. A bug only in the
    /// cached path shows only after a few steps; a one-shot [`forward`](Self::forward) of the
    /// first step never sees it.
    ///
    /// Every call runs `run` on the serving model with the serving device, or, once that is
    /// quarantined (or marked in [`devices::health`](crate::devices::health)), on the reference
    /// with the reference device. A sampled call (one in `every`, counted with the one-shot
    /// requests) runs on both and compares the outputs step by step, as
    /// [`canary_steps_against`](super::canary_steps_against) does; at the first step that
    /// disagrees the call is answered from the reference's steps, the serving device is
    /// quarantined as by [`forward`](Self::forward) (process-wide with
    /// [`quarantine_device`](Self::quarantine_device)), and
    /// [`quarantined`](Self::quarantined) returns the divergence in the context `step <i>`
    /// (counted from 0). [`first_diverging_layer`](Self::first_diverging_layer) then indexes
    /// the layer twins called over the whole run, every step's in turn.
    ///
    /// ```
    /// use burn::nn::{Linear, LinearConfig};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::verify::{Shadowed, Tolerance};
    ///
    /// let model: Linear = LinearConfig::new(4, 4).init(&Device::flex());
    /// let served = Shadowed::new(model, &Device::ndarray(), 2, Tolerance::default())?;
    /// // Four decoding steps: each step's output is the next step's input.
    /// let decode = |m: &Linear, device: &Device| {
    ///     let mut x = Tensor::<2>::ones([1, 4], device);
    ///     (0..4).map(|_| { x = m.forward(x.clone()).tanh(); x.clone() }).collect()
    /// };
    /// for _ in 0..4 {
    ///     assert_eq!(served.forward_steps(decode)?.len(), 4);
    /// }
    /// assert_eq!((served.stats().requests, served.stats().shadowed), (4, 2));
    /// assert!(served.quarantined().is_none());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `run` panicking, as [`GuardError::BackendPanic`]; on a sampled call,
    /// [`GuardError::ShapeMismatch`] when the two runs give different numbers of steps or a
    /// step's shapes differ; [`GuardError::Unreadable`] for a serving model without parameters
    /// (it has no device to give `run`). A divergence is not an error of the call (it is
    /// answered from the reference): read it with [`quarantined`](Self::quarantined).
    pub fn forward_steps<const D: usize>(
        &self,
        run: impl Fn(&M, &Device) -> Vec<Tensor<D>>,
    ) -> Result<Vec<Tensor<D>>> {
        const OP: &str = "shadow_steps";
        let n = self.requests.fetch_add(1, Ordering::Relaxed);
        if self.is_quarantined.load(Ordering::Acquire) || self.serving_device_marked() {
            self.routed.fetch_add(1, Ordering::Relaxed);
            return catch(OP, || run(&self.reference, &self.reference_device));
        }
        let home = self.serving_device.as_ref().ok_or(GuardError::Unreadable {
            op: OP,
            what: "the serving model's device (it has no parameters)",
        })?;
        if !n.is_multiple_of(self.every) {
            return catch(OP, || run(&self.serving, home));
        }
        self.shadowed.fetch_add(1, Ordering::Relaxed);
        let outputs = catch(OP, || run(&self.serving, home))?;
        let expected = catch(OP, || run(&self.reference, &self.reference_device))?;
        let devices = (device_name(home), device_name(&self.reference_device));
        match compare_steps(
            OP,
            (&devices.0, &devices.1),
            &outputs,
            &expected,
            self.tolerance,
        )? {
            Steps::Agree(_) => Ok(outputs),
            Steps::Diverged(divergence) => {
                self.quarantine_on(OP, divergence, || {
                    self.bisect(
                        || catch(OP, || run(&self.serving, home)).map(drop),
                        || catch(OP, || run(&self.reference, &self.reference_device)).map(drop),
                    )
                });
                Ok(expected)
            }
        }
    }

    /// A sampled request's `divergence`: counted (diverged, routed); the first one logged with
    /// the first diverging layer twin (`bisect`, run once, not per request); the serving device
    /// quarantined for this model, and for the process with
    /// [`quarantine_device`](Self::quarantine_device).
    fn quarantine_on(
        &self,
        op: &'static str,
        divergence: GuardError,
        bisect: impl FnOnce() -> Option<LayerDivergence>,
    ) {
        self.diverged.fetch_add(1, Ordering::Relaxed);
        self.routed.fetch_add(1, Ordering::Relaxed);
        let mut quarantine = self
            .quarantine
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if quarantine.is_none() {
            let layer = bisect();
            log::error!(
                "burn-guard: {divergence}; first diverging layer twin: {}; answering from {} \
                 from now on",
                layer.as_ref().map_or_else(
                    || "none named (the forward calls no layer twin)".to_owned(),
                    ToString::to_string
                ),
                device_name(&self.reference_device)
            );
            *self
                .diverging_layer
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = layer;
        }
        if self.quarantines_device
            && let Some(serving) = &self.serving_device
        {
            crate::capability::quarantine(op, serving, &divergence.message());
        }
        quarantine.get_or_insert(divergence);
        self.is_quarantined.store(true, Ordering::Release);
    }

    /// The same request through both models again (`serving` and `reference` run it), every
    /// layer twin's output recorded; the first pair that disagrees. `None` when the two runs
    /// called different layers, or none.
    fn bisect(
        &self,
        serving: impl FnOnce() -> Result<()>,
        reference: impl FnOnce() -> Result<()>,
    ) -> Option<LayerDivergence> {
        const OP: &str = "shadow";
        let (_, serving) = traced(serving);
        let (_, reference) = traced(reference);
        // Once per divergence: the served model's layers by path.
        let paths = LayerPaths::of(&self.serving);
        for (index, (ours, theirs)) in serving.iter().zip(&reference).enumerate() {
            if ours.op != theirs.op || ours.outputs.len() != theirs.outputs.len() {
                return None;
            }
            for (x, r) in ours.outputs.iter().zip(&theirs.outputs) {
                let x = values(OP, x.clone()).ok()?;
                let r = values(OP, r.clone()).ok()?;
                let agreement = compare(OP, &x, &r, self.tolerance).ok()?;
                if !agreement.agrees() {
                    return Some(LayerDivergence {
                        index,
                        layer: ours.op,
                        path: ours
                            .layer
                            .as_ref()
                            .and_then(|key| paths.path(key))
                            .map(str::to_owned),
                        agreement,
                    });
                }
            }
        }
        None
    }

    /// The first layer twin whose output diverged on the request that quarantined the serving
    /// device, when its forward calls layer twins (see [`LayerDivergence`]).
    pub fn first_diverging_layer(&self) -> Option<LayerDivergence> {
        self.diverging_layer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The divergence that quarantined the serving device, if one did: every request since is
    /// answered from the reference.
    pub fn quarantined(&self) -> Option<GuardError> {
        self.quarantine
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The counts so far.
    pub fn stats(&self) -> ShadowStats {
        ShadowStats {
            requests: self.requests.load(Ordering::Relaxed),
            shadowed: self.shadowed.load(Ordering::Relaxed),
            diverged: self.diverged.load(Ordering::Relaxed),
            routed: self.routed.load(Ordering::Relaxed),
        }
    }

    /// The model as served.
    pub fn model(&self) -> &M {
        &self.serving
    }
}
