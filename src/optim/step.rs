//! The checked step: a walk of the model against the gradients, then one fused check that
//! finds the gradients that are not finite and those that are zero everywhere.

use burn::module::{Module, Param, ParamId};
use burn::optim::lr_scheduler::module_lr_scheduler::ModuleLearningRate;
use burn::optim::{GradientsParams, ModuleOptimizer, MultiGradientsParams};
use burn::tensor::{DType, Device, Tensor, TensorData};

use crate::check::optim::{self as rules, ParamCensus, ParamState};
use crate::error::{GuardError, NonFiniteParam, NonFiniteSplit, Result, float_dtype};
use crate::panic::catch;
use crate::params::walk::{AtPath, PathWalk};

mod sealed {
    pub trait Sealed {}
    impl Sealed for burn::optim::ModuleOptimizer {}
}

/// Reads a gradient's values: the exact count, on the error path only.
type ReadValues = Box<dyn FnOnce() -> Result<TensorData>>;

/// A parameter's gradient, reduced for the fused check.
struct Gradient {
    /// Its parameter's index in [`Census::params`].
    param: usize,
    device: Device,
    /// Whether it has elements: an empty gradient is neither zero nor not finite.
    elements: usize,
    /// The gradient's values, read only when `reduced` is not finite.
    values: ReadValues,
    /// F32 and F64: one value, the sum, not finite when a value is not (or the sum overflowed:
    /// the values are then read and counted), and 0 when every value is (or when they cancel:
    /// a sum of exactly 0 is then confirmed by a read of the values, which a gradient that
    /// trains anything almost never costs). Half precision, whose sums overflow: two, the sum
    /// of `g × 0` (NaN exactly when a value is not finite) and the largest `|g|` (0 exactly
    /// when every value is).
    reduced: Tensor<1>,
}

impl Gradient {
    /// How many values `reduced` holds.
    fn slots(&self) -> usize {
        let [slots] = self.reduced.dims();
        slots
    }
}

/// What the fused check found on gradients that are all finite.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    /// Device reads made: one per device, one more per gradient whose reduction was not finite.
    pub(crate) reads: u32,
    /// The paths of the parameters whose gradient is zero everywhere: a step trains nothing
    /// there (a dead ReLU, a branch cut from the loss, a half-precision gradient that
    /// underflowed).
    pub(crate) zero: Vec<String>,
}

/// What the walk found.
pub(crate) struct Census {
    pub(crate) params: Vec<ParamCensus>,
    /// `(id, index in params)` of every parameter with a gradient: the ones the step updates.
    stepped: Vec<(ParamId, usize)>,
    gradients: Vec<Gradient>,
    errors: Vec<GuardError>,
}

impl Census {
    /// The devices the gradients live on: the finite check reads each once.
    pub(crate) fn devices(&self) -> usize {
        let mut devices: Vec<&Device> = Vec::new();
        for gradient in &self.gradients {
            if !devices.contains(&&gradient.device) {
                devices.push(&gradient.device);
            }
        }
        devices.len()
    }

    /// The gradients found.
    pub(crate) fn gradients(&self) -> usize {
        self.gradients.len()
    }
}

struct Walk<'a> {
    op: &'static str,
    grads: &'a GradientsParams,
    census: Census,
}

impl AtPath for Walk<'_> {
    fn float<const D: usize>(&mut self, path: String, param: &Param<Tensor<D>>) {
        let state = classify(param);
        let grads = self.grads;
        let id = param.id;
        let gradient = match catch(self.op, move || grads.get::<D>(id)) {
            Ok(gradient) => gradient,
            Err(_) => {
                // burn's container downcasts to the parameter's rank and unwraps.
                self.census.errors.push(
                    GuardError::InvalidArgument {
                        op: self.op,
                        rule: "a gradient must have its parameter's rank",
                        got: format!("rank={D}"),
                    }
                    .context(path.clone()),
                );
                None
            }
        };
        let has_gradient = gradient.is_some();
        if has_gradient {
            self.census.stepped.push((id, self.census.params.len()));
        }
        if let Some(gradient) = gradient {
            let checked = rules::rank(self.op, D).and_then(|()| {
                rules::gradient_shape(self.op, &param.lazy_shape().to_vec(), &gradient.dims())
            });
            match checked {
                Ok(()) => {
                    let op = self.op;
                    let device = gradient.device();
                    let elements = gradient.shape().num_elements();
                    let kept = gradient.clone();
                    let prepared = catch(op, move || {
                        if matches!(gradient.dtype(), DType::F16 | DType::BF16) {
                            let largest = gradient.clone().abs().max();
                            Tensor::cat(vec![gradient.mul_scalar(0.0).sum(), largest], 0)
                        } else {
                            gradient.sum()
                        }
                    });
                    match prepared {
                        Ok(reduced) => self.census.gradients.push(Gradient {
                            param: self.census.params.len(),
                            device,
                            elements,
                            values: Box::new(move || crate::value_reads::read_data_into(op, kept)),
                            reduced,
                        }),
                        Err(err) => self.census.errors.push(err.context(path.clone())),
                    }
                }
                Err(err) => self.census.errors.push(err.context(path.clone())),
            }
        }
        self.census.params.push(ParamCensus {
            path,
            state,
            has_gradient,
        });
    }
}

/// What a float parameter is to burn's optimizer, from its metadata only. Its drawn state is
/// tested first: reading a lazy parameter would draw it (burn's converter does).
pub(crate) fn classify<const D: usize>(param: &Param<Tensor<D>>) -> ParamState {
    if !param.is_initialized() {
        ParamState::Unused
    } else if !param.lazy_device().is_autodiff() {
        ParamState::Plain
    } else {
        let base = param.base();
        if base.is_require_grad() {
            ParamState::Trainable
        } else if base.is_tracked() {
            ParamState::NotLeaf
        } else {
            ParamState::Frozen
        }
    }
}

/// `(path, state)` of every float parameter of `module`.
pub(crate) fn states<M: Module>(module: &M) -> Vec<(String, ParamState)> {
    struct States(Vec<(String, ParamState)>);
    impl AtPath for States {
        fn float<const D: usize>(&mut self, path: String, param: &Param<Tensor<D>>) {
            self.0.push((path, classify(param)));
        }
    }
    let mut walk = PathWalk::new(States(Vec::new()));
    module.visit(&mut walk);
    walk.at.0
}

/// Walks `module` against `grads`: every structural rule, and the gradients prepared for the
/// finite check. Reads nothing from a device.
pub(crate) fn census<M: Module>(
    op: &'static str,
    module: &M,
    grads: &GradientsParams,
    allow_missing: bool,
) -> Result<Census> {
    let mut walk = PathWalk::new(Walk {
        op,
        grads,
        census: Census {
            params: Vec::new(),
            stepped: Vec::new(),
            gradients: Vec::new(),
            errors: Vec::new(),
        },
    });
    module.visit(&mut walk);
    let census = walk.at.census;
    if let Some(err) = census.errors.first() {
        return Err(err.clone());
    }
    rules::trainable(op, &census.params, allow_missing)?;
    let matched = census.params.iter().filter(|p| p.has_gradient).count();
    if grads.len() > matched {
        return Err(GuardError::InvalidArgument {
            op,
            rule: "the gradients must be the model's: some match none of its parameters (gradients \
                   of another model, or of parameters replaced since the backward pass)",
            got: format!("gradients={}, matched={matched}", grads.len()),
        });
    }
    Ok(census)
}

/// Every parameter the step updates has a learning rate, finite and not negative. burn's
/// `ModuleLearningRate::lr_from_param` panics on a parameter no group matches (a `default()`
/// one matches none); its groups are private, so the look-up itself runs under the backstop,
/// on the host, before anything changes.
pub(crate) fn learning_rates(
    op: &'static str,
    lr: &ModuleLearningRate,
    census: &Census,
) -> Result<()> {
    let mut unmatched = Vec::new();
    for &(id, param) in &census.stepped {
        let Some(path) = census.params.get(param).map(|p| &p.path) else {
            continue;
        };
        match catch(op, || lr.lr_from_param(id, Some(path))) {
            Ok(rate) => rules::learning_rate(op, rate).map_err(|e| e.context(path.clone()))?,
            Err(_) => unmatched.push(path.clone()),
        }
    }
    if unmatched.is_empty() {
        return Ok(());
    }
    Err(GuardError::InvalidArgument {
        op,
        rule: "every parameter the step updates must have a learning rate (the ModuleLearningRate \
               matches no group for these; ModuleLearningRate::default() matches none)",
        got: format!("params={}", unmatched.join(", ")),
    })
}

/// The fused check: per device, the gradients' reduced values are gathered on the device
/// (one `cat`) and read together (one read per device per step); only the gradients whose
/// reduction is not finite are read and counted one by one (an F32 sum of finite values that
/// overflowed counts 0 and passes). The same values say which gradients are zero everywhere.
pub(crate) fn finite(op: &'static str, census: Census) -> Result<Checked> {
    let Census {
        params, gradients, ..
    } = census;
    let mut devices: Vec<Device> = Vec::new();
    for gradient in &gradients {
        if !devices.contains(&gradient.device) {
            devices.push(gradient.device.clone());
        }
    }
    let mut reads = 0u32;
    let mut suspects = vec![false; gradients.len()];
    let mut zero = vec![false; gradients.len()];
    for device in &devices {
        let gradients = &gradients;
        let on_device = || {
            gradients
                .iter()
                .enumerate()
                .filter(|(_, g)| &g.device == device)
        };
        let reduced: Vec<Tensor<1>> = on_device()
            .map(|(_, g)| {
                let r = g.reduced.clone();
                if r.dtype() == DType::F32 {
                    r
                } else {
                    r.cast(DType::F32)
                }
            })
            .collect();
        // Through the one reader: a failed read records the device poisoned, and a device
        // marked by the time the read returned is refused.
        let joined = catch(op, move || Tensor::cat(reduced, 0))?;
        let values = crate::value_reads::read_data_into(op, joined)?;
        reads += 1;
        let values = catch(op, || values.iter::<f64>().collect::<Vec<f64>>())?;
        let mut values = values.into_iter();
        for (i, gradient) in on_device() {
            let reduced: Vec<f64> = values.by_ref().take(gradient.slots()).collect();
            let (finite, largest) = match reduced.as_slice() {
                [sum] => (sum.is_finite(), *sum),
                [probe, largest] => (probe.is_finite(), *largest),
                _ => (true, f64::NAN),
            };
            if let Some(suspect) = suspects.get_mut(i) {
                *suspect = !finite;
            }
            if let Some(zero) = zero.get_mut(i) {
                *zero = finite && largest == 0.0 && gradient.elements > 0;
            }
        }
    }
    let path_of = |g: &Gradient| params.get(g.param).map(|p| p.path.clone());
    let mut zeros = Vec::new();
    let mut counts = Vec::new();
    for ((gradient, suspect), zero) in gradients.into_iter().zip(suspects).zip(zero) {
        if zero {
            let path = path_of(&gradient);
            // A sum of 0 is every value 0, or values that cancel: read to tell which.
            let confirmed = gradient.slots() > 1 || {
                let data = (gradient.values)()?;
                reads += 1;
                catch(op, || data.iter::<f64>().all(|v| v == 0.0))?
            };
            if confirmed {
                zeros.extend(path);
            }
            continue;
        }
        if !suspect {
            continue;
        }
        let data = (gradient.values)()?;
        reads += 1;
        // The values are on the host: NaN, +inf and -inf are counted apart at no further cost.
        let (split, total) = catch(op, || {
            let mut split = NonFiniteSplit::default();
            let mut total = 0u64;
            for value in data.iter::<f64>() {
                split.add(value);
                total += 1;
            }
            (split, total)
        })?;
        let path = params
            .get(gradient.param)
            .map(|p| p.path.clone())
            .unwrap_or_default();
        counts.push(NonFiniteParam {
            path,
            count: split.count(),
            total,
            split: Some(split),
            dtype: float_dtype(data.dtype()),
            shape: Some(data.shape().to_vec()),
        });
    }
    rules::finite_gradients(op, counts)?;
    Ok(Checked { reads, zero: zeros })
}

/// Fallible twins of [`ModuleOptimizer::step`]: every parameter checked against the gradients,
/// and the gradients checked finite (one device read), before any parameter or optimizer state
/// changes. Sealed. In the prelude (with the `optim` feature).
///
/// For a loop that skips a bad batch rather than stops, and counts what it skipped, see
/// [`GuardedOptimizer`](super::GuardedOptimizer).
///
/// ```
/// use burn::module::Module;
/// use burn::nn::{Linear, LinearConfig};
/// use burn::optim::{GradientsParams, SgdConfig};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::prelude::*;
///
/// let device = Device::flex().autodiff();
/// let model: Linear = LinearConfig::new(3, 2).init(&device);
/// let mut optimizer = SgdConfig::new().init();
///
/// // A model moved with `to_device` after its weights were drawn: burn would step nothing.
/// let _ = model.forward(Tensor::<2>::ones([1, 3], &device));
/// let moved = model.clone().to_device(&device);
/// let loss = moved.forward(Tensor::<2>::ones([4, 3], &device)).sum();
/// let grads = GradientsParams::from_grads(loss.backward(), &moved);
/// let err = optimizer.try_step(0.1, moved, grads).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::NoGradient);
///
/// let loss = model.forward(Tensor::<2>::ones([4, 3], &device)).sum();
/// let grads = GradientsParams::from_grads(loss.backward(), &model);
/// let model = optimizer.try_step(0.1, model, grads)?;
/// # let _ = model;
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub trait TryStep: sealed::Sealed {
    /// Fallible twin of [`ModuleOptimizer::step`].
    ///
    /// # Errors
    ///
    /// [`GuardError::NoGradient`] when a parameter would not be updated (a non-leaf, a model
    /// with nothing to train, a trainable parameter without a gradient);
    /// [`GuardError::NonFiniteGradients`] naming each parameter whose gradient holds NaN or
    /// ±inf, with the count; [`GuardError::OutOfRange`] for a rank past 8; a shape or rank
    /// mismatch between a gradient and its parameter. The module is consumed, as by burn's
    /// `step`: clone it first to keep it (cloning a module copies handles).
    #[doc(alias = "step")]
    fn try_step<M: Module>(
        &mut self,
        lr: impl Into<ModuleLearningRate>,
        module: M,
        grads: GradientsParams,
    ) -> Result<M>;

    /// Fallible twin of [`ModuleOptimizer::step_multi`], over gradients from several devices:
    /// every part checked as [`try_step`](Self::try_step) checks its gradients (a trainable
    /// parameter needs a gradient in some part), each part's gradients checked finite (one
    /// read per part's device).
    ///
    /// # Errors
    ///
    /// As [`try_step`](Self::try_step).
    #[doc(alias = "step_multi")]
    fn try_step_multi<M: Module>(
        &mut self,
        lr: impl Into<ModuleLearningRate>,
        module: M,
        grads: MultiGradientsParams,
    ) -> Result<M>;
}

impl TryStep for ModuleOptimizer {
    fn try_step<M: Module>(
        &mut self,
        lr: impl Into<ModuleLearningRate>,
        module: M,
        grads: GradientsParams,
    ) -> Result<M> {
        const OP: &str = "step";
        let lr = lr.into();
        let census = census(OP, &module, &grads, false)?;
        learning_rates(OP, &lr, &census)?;
        finite(OP, census)?;
        catch(OP, move || self.step(lr, module, grads))
    }

    fn try_step_multi<M: Module>(
        &mut self,
        lr: impl Into<ModuleLearningRate>,
        module: M,
        grads: MultiGradientsParams,
    ) -> Result<M> {
        const OP: &str = "step_multi";
        let lr = lr.into();
        let mut parts = Vec::with_capacity(grads.grads.len());
        for (part, _) in &grads.grads {
            // Each part on its own may lack gradients the others hold.
            parts.push(census(OP, &module, part, true)?);
        }
        let mut combined: Vec<ParamCensus> = match parts.first() {
            Some(first) => first.params.clone(),
            None => census(OP, &module, &GradientsParams::new(), true)?.params,
        };
        for part in parts.iter().skip(1) {
            for (param, other) in combined.iter_mut().zip(&part.params) {
                param.has_gradient |= other.has_gradient;
            }
        }
        rules::trainable(OP, &combined, false)?;
        for part in &parts {
            learning_rates(OP, &lr, part)?;
        }
        for part in parts {
            finite(OP, part)?;
        }
        catch(OP, move || self.step_multi(lr, module, grads))
    }
}
