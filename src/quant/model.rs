//! The twin of burn's `Module::quantize_weights`: every float parameter the quantizer selects
//! is checked (scheme against shape, calibration, emptiness, the device's capability, then
//! the values' range) before any is quantized; then burn's own quantization runs on a clone.

use std::time::Instant;

use burn::backend::Dispatch;
use burn::module::{Module, ModuleMapper, Param, ParamGroup, ParamId, Quantizer};
use burn::tensor::quantization::{
    Calibration, QuantScheme, QuantStore, QuantizationParameters, compute_q_params, compute_range,
};
use burn::tensor::{DType, Device, Tensor, TensorData};

use super::held::QuantizedModel;
use super::report::{ParamReport, Placement, QuantReport};
use super::round_trip::{self, RoundTrip, read_round_trips};
use super::values::{ParamRange, Prepared, check_params};
use crate::capability::{
    outer_packing_support, quant_capability, quantize_support, quirks_of, require_quantize,
    stack_of,
};
use crate::check;
use crate::error::{ErrorKind, GuardError, Result, ResultExt};
use crate::panic::catch;
use crate::params::detach::detached;
use crate::params::walk::{FloatParam, float_params};
use crate::policy::{Moved, Op, Place, Policy, Route, Target};

/// The op every parameter's check names: the parameter is quantized by `quantize_dynamic`'s
/// rules (burn's `Tensor::quantize` with the quantizer's range).
const PARAM_OP: &str = "quantize_dynamic";
/// The op of the module-level steps (walking, moving, mapping).
const MODULE_OP: &str = "quantize_weights";

mod sealed {
    pub trait Sealed {}
    impl<M: burn::module::Module> Sealed for M {}
}

/// Fallible twins of [`Module::quantize_weights`] and [`Module::quantize_weights_group`],
/// for every burn [`Module`] (a `#[derive(Module)]` struct of yours included), in the prelude.
///
/// Before anything is quantized, every float parameter the [`Quantizer`] selects is checked
/// against the quantizer's scheme and calibration: the block divides the parameter's shape,
/// the parameter has elements, the device can quantize the scheme for that shape (NdArray's
/// packed schemes, remote devices: see [`quantize_support`]), and its values are finite with
/// a scale its dtype can hold. The values are judged from burn's own range (`compute_range`,
/// computed once per parameter, its extremes read at once, one read per device) and the
/// quantization then uses that same range. The first refusal names the parameter by its module
/// path, the path burn's quantizer and [`ParamGroup`] use:
/// `encoder.layers.0.mha.query.weight: quantize_dynamic: …`. Then burn's own quantization
/// (`compute_q_params`, `Tensor::quantize`, as burn's `Quantizer` calls them) runs on a copy
/// of the module: the values are burn's.
///
/// Where burn differs, and why:
///
/// - **Packing.** CubeCL (wgpu) packs `PackedU32` values along the last dimension only when it
///   holds a whole number of words, which no 7×7, 3×3 or 1×1 convolution and no 10-class head
///   does (burn panics on the device thread). Such a parameter is packed along its innermost
///   dimension that does hold whole words, the output channels of a conv weight
///   ([`check::quant::outer_packing`], `PackedU32(k)`): burn's own layout and forward, and per
///   tensor the same values as the last-dimension packing.
/// - **Running statistics stay in float** (batch norm's running mean and variance); burn
///   quantizes them. [`WeightQuantizer::quantize_running_statistics`] does as burn does.
/// - **The caller's model is untouched.** The module is borrowed, not consumed as burn's
///   method consumes it, so that on `Err` the caller still has its model; and the copy that is
///   quantized shares nothing with it (burn's `RunningState` shares its storage between
///   clones, so burn's `model.clone().quantize_weights(..)` rewrites the original's running
///   statistics; this one gives the copy its own first).
///
/// Strict: nothing falls back and nothing is kept in float but the running statistics; for
/// those choices, and for the per-parameter report, use [`WeightQuantizer`].
///
/// Sealed: implemented for every `M: Module`.
///
/// ```
/// use burn::module::{Module, Quantizer};
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::quantization::{Calibration, QuantScheme, QuantValue};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::prelude::*;
///
/// #[derive(Module, Debug)]
/// struct Net {
///     hidden: Linear,
///     head: Linear,
/// }
///
/// let device = Device::flex();
/// let net = Net {
///     hidden: LinearConfig::new(64, 32).init(&device),
///     head: LinearConfig::new(32, 10).init(&device),
/// };
/// let scheme = QuantScheme::default().with_value(QuantValue::Q8S);
/// let quantized: Net = net.try_quantize_weights(&mut Quantizer::new(Calibration::MinMax, scheme))?;
/// let y = quantized.head.forward(quantized.hidden.forward(Tensor::ones([2, 64], &device)));
/// assert_eq!(y.dims(), [2, 10]);
///
/// // A block of 32 cannot divide the head's weight [32, 10]: refused, naming it; `net` is intact.
/// let blocks = scheme.per_block([32], burn::tensor::quantization::ScaleDtype::F32);
/// let err = net.try_quantize_weights(&mut Quantizer::new(Calibration::MinMax, blocks)).unwrap_err();
/// assert_eq!(err.path().as_deref(), Some("head.weight"));
/// assert_eq!(err.kind(), ErrorKind::InvalidQuantScheme);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub trait TryQuantizeWeights: Module + sealed::Sealed {
    /// Fallible twin of [`Module::quantize_weights`]: quantizes every float parameter that
    /// `quantizer`'s group selects, and returns the quantized module, of the same type.
    ///
    /// # Errors
    ///
    /// The first refusal, with the parameter's path as [context](GuardError::Context):
    /// - [`GuardError::InvalidQuantScheme`] when the scheme cannot apply to the parameter's
    ///   shape (a block that does not divide it) or the calibration cannot produce its scales;
    /// - [`GuardError::Empty`] for a parameter with no elements;
    /// - [`GuardError::Unsupported`] when the parameter's device cannot quantize it (the
    ///   device's whole scheme, or this shape on it);
    /// - [`GuardError::NonFinite`] / [`GuardError::OutOfRange`] for values that cannot be
    ///   quantized (NaN, ±inf, a magnitude whose scale overflows its dtype);
    /// - [`GuardError::Execution`] when the values' range cannot be read back;
    /// - [`GuardError::BackendPanic`] if burn panics anyway.
    ///
    /// # Fallback
    ///
    /// Never; see [`WeightQuantizer::policy`].
    #[doc(alias = "quantize_weights")]
    fn try_quantize_weights(&self, quantizer: &mut Quantizer) -> Result<Self>;

    /// Fallible twin of [`Module::quantize_weights_group`]: sets `quantizer`'s group to
    /// `group` (as burn does) and quantizes the parameters it selects.
    ///
    /// # Errors
    ///
    /// As [`TryQuantizeWeights::try_quantize_weights`].
    ///
    /// ```
    /// use burn::module::{Module, ParamGroup, Quantizer};
    /// use burn::nn::LinearConfig;
    /// use burn::tensor::quantization::{Calibration, QuantScheme};
    /// use burn::tensor::{DType, Device};
    /// use burn_guard::prelude::*;
    ///
    /// let linear = LinearConfig::new(32, 10).init(&Device::flex());
    /// let mut quantizer = Quantizer::new(Calibration::MinMax, QuantScheme::default());
    /// let q = linear.try_quantize_weights_group(&mut quantizer, ParamGroup::from_path("weight"))?;
    /// assert!(matches!(q.weight.val().dtype(), DType::QFloat(_)));
    /// assert!(!matches!(q.bias.unwrap().val().dtype(), DType::QFloat(_)));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "quantize_weights_group")]
    fn try_quantize_weights_group(
        &self,
        quantizer: &mut Quantizer,
        group: ParamGroup,
    ) -> Result<Self>;
}

impl<M: Module> TryQuantizeWeights for M {
    fn try_quantize_weights(&self, quantizer: &mut Quantizer) -> Result<Self> {
        // The caller keeps the model alone: no report is built for it.
        WeightQuantizer::new().quantize_in_place(self, quantizer)
    }

    fn try_quantize_weights_group(
        &self,
        quantizer: &mut Quantizer,
        group: ParamGroup,
    ) -> Result<Self> {
        quantizer.set_param_group(group);
        self.try_quantize_weights(quantizer)
    }
}

/// What a parameter the group selected becomes.
#[derive(Debug, Clone)]
enum Decision {
    /// Quantized with the quantizer's scheme; with `swap`, along the dimension `swap` moved
    /// innermost and moved back after: the tensor then holds its values packed along that
    /// dimension, in burn's layout ([`check::quant::outer_packing`]).
    Quantize {
        swap: Option<usize>,
    },
    KeepFloat(String),
}

/// Why a running statistic stays in float unless the quantizer is told otherwise.
const RUNNING_STATISTIC: &str = "a running statistic (batch norm's running mean or variance) \
    stays in float; WeightQuantizer::quantize_running_statistics quantizes it";

/// A module quantized in place, with what the report is read from.
struct InPlace<M> {
    model: M,
    plan: Plan,
    placement: Placement,
    held_on: Option<Device>,
}

/// Every float parameter the collector met, in its order, with what each selected one becomes
/// (`None`: not in the quantizer's group).
struct Plan {
    floats: Vec<FloatParam>,
    decisions: Vec<Option<Decision>>,
    /// Each quantized parameter's measured round-trip error, when measured.
    errors: Vec<Option<f64>>,
}

impl Plan {
    /// The entry of the parameter `id` that a walk meets after the entry `*next`; moves `*next`
    /// past it. A module's walks meet its parameters in one order (the derive walks the fields
    /// in declaration order), so the entry at `*next` is tried first, then the first with that
    /// id; position, not id alone, tells apart two parameters that share an id.
    fn find(&self, next: &mut usize, id: &ParamId) -> Option<usize> {
        let at = match self.floats.get(*next) {
            Some(param) if param.id == *id => *next,
            _ => self.floats.iter().position(|param| param.id == *id)?,
        };
        *next = at.saturating_add(1);
        Some(at)
    }

    fn decision(&self, at: usize) -> Option<&Decision> {
        self.decisions.get(at).and_then(Option::as_ref)
    }

    /// The entry `at` and the dimension it is packed along when not the last, when it is to
    /// be quantized.
    fn quantized(&self, at: Option<usize>) -> Option<(&FloatParam, Option<usize>)> {
        let at = at?;
        match self.decision(at) {
            Some(Decision::Quantize { swap }) => Some((self.floats.get(at)?, *swap)),
            _ => None,
        }
    }
}

/// Quantizes a module's weights in place with choices burn's method does not offer: keep in
/// float what the scheme cannot apply to, fall back to another device when the model's own
/// cannot quantize at all, and a per-parameter [`QuantReport`].
///
/// - [`keep_unquantizable_in_float`](Self::keep_unquantizable_in_float): a parameter whose
///   shape the scheme cannot apply to (a conv weight whose last dimension is 3 on CubeCL's
///   packed store, a bias of 10 with blocks of 32, an empty parameter) stays in float and is
///   listed with the reason, instead of refusing the model.
/// - [`policy`](Self::policy): when the model's device cannot quantize the scheme at all
///   (NdArray with a packed store, a remote device, wgpu with `QuantStore::Native`), the
///   policy decides: strict refuses naming the device and the gap; a fallback policy moves
///   the model to its first capable device, quantizes it there, and
///   [`QuantizedModel::forward`] moves inputs there and outputs back, counted in
///   [`Policy::stats`] (under [`Op::QuantizeWeights`] for the model, [`Op::QuantizedModel`]
///   per forward).
///
/// ```
/// # #![allow(deprecated)] // NdArray is deprecated upstream; still supported.
/// use burn::module::{Module, Quantizer};
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::quantization::{Calibration, QuantScheme, ScaleDtype};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::module::WeightQuantizer;
/// use burn_guard::quant::Placement;
/// use burn_guard::policy::{Op, Policy};
///
/// // NdArray cannot quantize the default (packed) scheme; Flex can.
/// let device = Device::ndarray();
/// let layers: Vec<Linear> = vec![
///     LinearConfig::new(64, 32).init(&device),
///     LinearConfig::new(32, 10).init(&device),
/// ];
/// let scheme = QuantScheme::default().per_block([32], ScaleDtype::F32);
/// let mut quantizer = Quantizer::new(Calibration::MinMax, scheme);
/// let policy = Policy::fallback_to([Device::flex()]);
/// let quantized = WeightQuantizer::new()
///     .keep_unquantizable_in_float() // the head's [32, 10] and 10 cannot take blocks of 32
///     .policy(policy.clone())
///     .quantize(&layers, &mut quantizer)?;
/// println!("{}", quantized.report());
/// assert!(matches!(quantized.report().placement(), Placement::Fallback { .. }));
/// let kept: Vec<&str> = quantized.report().kept_in_float().map(|p| p.path.as_str()).collect();
/// assert_eq!(kept, ["1.weight", "1.bias"]);
///
/// // The model's own forward, with inputs moved to Flex and outputs back to NdArray.
/// let x = Tensor::<2>::ones([3, 64], &device);
/// let y = quantized.forward(x, |m, x| m[1].forward(m[0].forward(x)))?;
/// assert_eq!(y.device(), device);
/// assert_eq!(policy.stats_of(Op::QuantizedModel).fallbacks, 1);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct WeightQuantizer {
    policy: Policy,
    keep_float: bool,
    running_statistics: bool,
    measure_error: bool,
    max_error: Option<f64>,
}

impl WeightQuantizer {
    /// Strict: refuse the model at the first parameter that cannot be quantized; never fall
    /// back.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keep in float (and list in the report) the parameters the scheme cannot apply to,
    /// instead of refusing the model: a shape the block does not divide, an empty
    /// parameter, a shape the device cannot quantize with this scheme. Refusals that hold
    /// for every parameter (a calibration the scheme cannot use, a device that cannot
    /// quantize the scheme at all) and bad values (NaN, ±inf) still refuse.
    #[must_use]
    pub fn keep_unquantizable_in_float(mut self) -> Self {
        self.keep_float = true;
        self
    }

    /// Quantize running statistics too (batch norm's running mean and variance, burn's
    /// `RunningState`s), as burn's `quantize_weights` does. By default they stay in float and
    /// the report lists each with the reason: they are buffers the forward divides by, not
    /// weights, and the model's size barely changes (ResNet-18: 9 600 values of 11.2 M).
    #[must_use]
    pub fn quantize_running_statistics(mut self) -> Self {
        self.running_statistics = true;
        self
    }

    /// Measure each quantized parameter's round-trip error, `‖dequantize(q) − w‖ / ‖w‖`, where
    /// it was quantized, and report it ([`ParamReport::relative_error`]). A quantization that
    /// went far off without a word (burn has quantized a non-contiguous tensor on wgpu with
    /// about 500× the expected error) shows here.
    ///
    /// On Flex the figure is taken from the stored values in place, without an op or a read
    /// (the gate costs about 1.07× the quantization without it on x86-64 with AVX2,
    /// `BENCHMARKS.md`); on NdArray
    /// from the dequantized values, read one parameter at a time; on a device from two sums
    /// reduced there, one read per device for the whole model.
    #[must_use]
    pub fn measure_error(mut self) -> Self {
        self.measure_error = true;
        self
    }

    /// Measure the round-trip error ([`measure_error`](Self::measure_error)) and hold each
    /// quantized parameter to `bound`: one over it (or not finite) is kept in float, listed
    /// with its error, under [`keep_unquantizable_in_float`](Self::keep_unquantizable_in_float);
    /// otherwise the model is refused, naming them ([`GuardError::OutOfRange`]). Q8 per tensor
    /// on trained weights is typically off by under 1e-2; Q4 by under 1e-1.
    ///
    /// ```
    /// use burn::module::Quantizer;
    /// use burn::nn::{Linear, LinearConfig};
    /// use burn::tensor::quantization::{Calibration, QuantScheme, QuantValue};
    /// use burn::tensor::Device;
    /// use burn_guard::quant::WeightQuantizer;
    ///
    /// let layer: Linear = LinearConfig::new(64, 32).init(&Device::flex());
    /// let scheme = QuantScheme::default().with_value(QuantValue::Q8S);
    /// let mut quantizer = Quantizer::new(Calibration::MinMax, scheme);
    /// let quantized = WeightQuantizer::new().max_relative_error(0.05).quantize(&layer, &mut quantizer)?;
    /// let weight = quantized.report().params.iter().find(|p| p.path == "weight").unwrap();
    /// assert!(weight.relative_error.unwrap() < 0.05);
    /// // Q4 cannot hold this layer within 1e-4: refused, naming the parameters.
    /// let q4 = QuantScheme::default().with_value(QuantValue::Q4S);
    /// let err = WeightQuantizer::new()
    ///     .max_relative_error(1e-4)
    ///     .quantize(&layer, &mut Quantizer::new(Calibration::MinMax, q4))
    ///     .unwrap_err();
    /// assert_eq!(err.path().as_deref(), Some("weight"));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[must_use]
    pub fn max_relative_error(mut self, bound: f64) -> Self {
        self.max_error = Some(bound);
        self
    }

    setters! {
        /// Decide with `policy` where a model whose device cannot quantize the scheme at all is
        /// quantized (and then lives). The default is strict.
        pub fn policy(policy: Policy) => policy;
    }

    /// Quantizes `module`'s float parameters that `quantizer`'s group selects. `module` is
    /// left untouched.
    ///
    /// # Errors
    ///
    /// As [`TryQuantizeWeights::try_quantize_weights`], less the parameters kept in float
    /// when told to; [`GuardError::Unsupported`] when the model's device cannot quantize
    /// the scheme and the policy forbids a fallback or no fallback device can; errors moving
    /// the model ([`GuardError::Execution`], [`GuardError::Timeout`] from a remote device).
    pub fn quantize<M: Module>(
        &self,
        module: &M,
        quantizer: &mut Quantizer,
    ) -> Result<QuantizedModel<M>> {
        self.quantize_inner(module, quantizer, |done, group| {
            let report = report_of(&done.model, group, &done.plan, done.placement)?;
            Ok(QuantizedModel::new(
                done.model,
                report,
                self.policy.clone(),
                done.held_on,
            ))
        })
    }

    /// The quantization without the report: what [`TryQuantizeWeights`] returns.
    fn quantize_in_place<M: Module>(&self, module: &M, quantizer: &mut Quantizer) -> Result<M> {
        self.quantize_inner(module, quantizer, |done, _| Ok(done.model))
    }

    /// Checks, places and quantizes `module`, then `finish`es the result, recorded by the
    /// policy as one call of [`Op::QuantizeWeights`]: natively, as a fallback with the bytes
    /// moved, or as an error whichever step refused.
    fn quantize_inner<M: Module, T>(
        &self,
        module: &M,
        quantizer: &Quantizer,
        finish: impl FnOnce(InPlace<M>, &ParamGroup) -> Result<T>,
    ) -> Result<T> {
        let op = Op::QuantizeWeights;
        let scheme = quantizer.scheme;
        let floats = self.policy.checked(op, self.selected(module, quantizer))?;
        // Where the model is quantized: its own device when that can quantize the scheme at
        // all (any shape), else where the policy says.
        let (route, home) = self.place(&floats, &scheme);
        self.policy.run(op, route, &|| home.clone(), |place| {
            // A copy that shares no running statistic with `module`: burn maps a
            // `RunningState` in place, through the storage its clones share.
            let (model, placement, held_on, moved) = match place {
                Place::Home => (
                    detached(MODULE_OP, module)?,
                    Placement::Native,
                    None,
                    Moved::default(),
                ),
                Place::Away(target) => {
                    let start = Instant::now();
                    let (model, bytes_out) = move_module(module, &target.place)?;
                    let moved = Moved {
                        bytes_out,
                        bytes_back: 0,
                        elapsed: start.elapsed(),
                    };
                    let placement = Placement::Fallback {
                        from: home.clone(),
                        to: target.label.clone(),
                    };
                    (model, placement, Some(target.place.clone()), moved)
                }
            };
            let done = self.quantize_on(model, floats, placement, held_on, quantizer)?;
            Ok((finish(done, &quantizer.group)?, moved))
        })
    }

    /// The float parameters of `module`, those in the quantizer's group checked against the
    /// rules that hold for every parameter whatever the options (calibration).
    fn selected<M: Module>(&self, module: &M, quantizer: &Quantizer) -> Result<Vec<FloatParam>> {
        let floats = float_params(MODULE_OP, module, &quantizer.group)?;
        for param in floats.iter().filter(|p| p.selected) {
            check::quant_calibration(
                PARAM_OP,
                &quantizer.scheme,
                &quantizer.calibration,
                &param.shape,
            )
            .context(param.path.as_str())?;
        }
        Ok(floats)
    }

    /// Quantizes `model` (already a detached copy, on `held_on` when it moved): each selected
    /// parameter decided against its device, every check run, then burn's quantization.
    fn quantize_on<M: Module>(
        &self,
        model: M,
        floats: Vec<FloatParam>,
        placement: Placement,
        held_on: Option<Device>,
        quantizer: &Quantizer,
    ) -> Result<InPlace<M>> {
        let scheme = quantizer.scheme;
        // Each selected parameter against the device it is quantized on.
        let mut decisions = Vec::with_capacity(floats.len());
        for param in &floats {
            if !param.selected {
                decisions.push(None);
                continue;
            }
            let device = held_on.as_ref().unwrap_or(&param.device);
            match self.decide(param, &scheme, device) {
                Ok(decision) => decisions.push(Some(decision)),
                Err(err) => return Err(err.context(param.path.as_str())),
            }
        }
        let errors = vec![None; floats.len()];
        let mut plan = Plan {
            floats,
            decisions,
            errors,
        };
        // The gate may send parameters back to float when told to keep them: the quantization
        // is then redone from a copy taken before it (its own running statistics, as every
        // copy here). Refusing needs no copy.
        let fresh = match self.max_error {
            Some(_) if self.keep_float => Some(detached(MODULE_OP, &model)?),
            _ => None,
        };
        let (quantized, measured) = self.map_quantized(model, &plan, quantizer)?;
        let Some(measured) = measured else {
            return Ok(InPlace {
                model: quantized,
                plan,
                placement,
                held_on,
            });
        };
        let measured = read_errors(measured)?;
        let over: Vec<(usize, f64)> = match self.max_error {
            Some(bound) => measured
                .iter()
                .copied()
                .filter(|(_, e)| round_trip::over(*e, bound))
                .collect(),
            None => Vec::new(),
        };
        for (at, error) in &measured {
            if let Some(slot) = plan.errors.get_mut(*at) {
                *slot = Some(*error);
            }
        }
        let bound = self.max_error.unwrap_or(0.0);
        if !over.is_empty() && !self.keep_float {
            return Err(over_bound(&plan, &over, bound));
        }
        let model = match (fresh, over.is_empty()) {
            (Some(fresh), false) => {
                for (at, error) in &over {
                    if let Some(decision) = plan.decisions.get_mut(*at) {
                        *decision = Some(Decision::KeepFloat(format!(
                            "its quantization round trip is off by {error:.3e} (relative), over \
                             the bound {bound:e}"
                        )));
                    }
                }
                self.map_quantized(fresh, &plan, quantizer)?.0
            }
            _ => quantized,
        };
        Ok(InPlace {
            model,
            plan,
            placement,
            held_on,
        })
    }

    /// burn's range of every parameter the plan quantizes, on the device it is quantized on,
    /// computed once (read for the checks, then quantized with), then burn's quantization,
    /// parameter by parameter, on `model` (a copy). Every check runs before anything is
    /// mapped: a `RunningState` shares its storage with the caller's module. With the error
    /// measured, each quantized parameter's round trip, reduced on its device and unread.
    fn map_quantized<M: Module>(
        &self,
        model: M,
        plan: &Plan,
        quantizer: &Quantizer,
    ) -> Result<(M, Option<Vec<Measured>>)> {
        let scheme = quantizer.scheme;
        let calibration = &quantizer.calibration;
        let quantized = plan
            .decisions
            .iter()
            .filter(|d| matches!(d, Some(Decision::Quantize { .. })))
            .count();
        let mut ranges = RangeGatherer {
            plan,
            next: 0,
            scheme: &scheme,
            calibration,
            params: Vec::with_capacity(quantized),
        };
        catch(MODULE_OP, || model.visit(&mut ranges))?;
        let prepared = check_params(PARAM_OP, ranges.params, &scheme)?;

        let mut mapper = GuardedMapper {
            plan,
            next: 0,
            scheme: &scheme,
            calibration,
            prepared: prepared.into_iter().peekable(),
            first_error: None,
            measured: self.measures().then(Vec::new),
        };
        let model = catch(MODULE_OP, || model.map(&mut mapper))?;
        if let Some(err) = mapper.first_error {
            return Err(err);
        }
        Ok((model, mapper.measured))
    }

    /// Whether the round-trip error is measured.
    fn measures(&self) -> bool {
        self.measure_error || self.max_error.is_some()
    }

    /// Where the model is quantized: at home when every selected parameter's device can
    /// quantize `scheme` for some shape, else the policy's route for the first that cannot;
    /// with the label of that home backend.
    fn place(&self, floats: &[FloatParam], scheme: &QuantScheme) -> (Route<Device>, String) {
        let Some((param, gap)) = floats.iter().filter(|p| p.selected).find_map(|p| {
            let support = quantize_support(stack_of(&p.device), scheme, &[]);
            (!support.is_native()).then_some((p, support))
        }) else {
            return (Route::Home, String::new());
        };
        let home = stack_of(&param.device).label().to_owned();
        let targets = self.policy.devices().iter().map(|device| {
            let stack = stack_of(device);
            Target {
                support: quantize_support(stack, scheme, &[]),
                label: stack.label().to_owned(),
                place: device.clone(),
            }
        });
        let route = match self.policy.route(
            Op::QuantizeWeights,
            &|| home.clone(),
            &|| quant_capability(scheme),
            gap,
            targets,
        ) {
            Route::Refused(why) => Route::Refused(why.context(param.path.as_str())),
            route => route,
        };
        (route, home)
    }

    /// Whether `param` is quantized on `device`, kept in float, or refuses the model.
    ///
    /// A shape the device cannot pack along its last dimension is packed along another one
    /// when the device can ([`check::quant::outer_packing`]): the same values, burn's layout.
    fn decide(
        &self,
        param: &FloatParam,
        scheme: &QuantScheme,
        device: &Device,
    ) -> Result<Decision> {
        if param.running_statistic && !self.running_statistics {
            return Ok(Decision::KeepFloat(RUNNING_STATISTIC.to_owned()));
        }
        let stack = stack_of(device);
        let accepts = |scheme: &QuantScheme, shape: &[usize]| {
            check::quant_scheme(PARAM_OP, scheme, shape)
                .and_then(|_| check::quant::quant_nonempty(PARAM_OP, shape))
                .and_then(|()| require_quantize(PARAM_OP, stack, scheme, shape))
        };
        let err = match accepts(scheme, &param.shape) {
            Ok(()) => return Ok(Decision::Quantize { swap: None }),
            Err(err) => err,
        };
        // burn-cubecl quantizes a `PackedU32(k)` scheme wrongly, but holds and reads such a
        // tensor right: quantize it with the packed dimension swapped innermost, then swap back.
        if let Some(axis) = check::quant::outer_packing(scheme, &param.shape)
            && outer_packing_support(stack).is_native()
            && accepts(scheme, &swapped(&param.shape, axis)).is_ok()
        {
            return Ok(Decision::Quantize { swap: Some(axis) });
        }
        if !(self.keep_float && shape_bound(&err)) {
            return Err(err);
        }
        let packs_outer = scheme.store == QuantStore::PackedU32(0)
            && scheme.block_size().is_none()
            && outer_packing_support(stack).is_native();
        let reason = if packs_outer && check::quant::outer_packing(scheme, &param.shape).is_none() {
            format!(
                "no dimension of {:?} holds a whole number of u32 words ({} values each), so \
                 CubeCL cannot pack it",
                param.shape,
                scheme.num_quants()
            )
        } else {
            err.to_string()
        };
        Ok(Decision::KeepFloat(reason))
    }
}

/// `shape` with dimension `axis` and the last swapped.
fn swapped(shape: &[usize], axis: usize) -> Vec<usize> {
    let mut shape = shape.to_vec();
    let last = shape.len().saturating_sub(1);
    if axis < shape.len() {
        shape.swap(axis, last);
    }
    shape
}

/// Moves every parameter of `module` to `device`, each through a bounded read off a remote
/// device (burn's `Module::to_device` reads a remote tensor with no deadline and panics when
/// the server has gone); returns the moved module and the bytes moved.
fn move_module<M: Module>(module: &M, device: &Device) -> Result<(M, u64)> {
    let mut mover = Mover {
        device,
        bytes: 0,
        first_error: None,
    };
    let copy = detached(MODULE_OP, module)?;
    let moved = catch(MODULE_OP, || copy.map(&mut mover))?;
    match mover.first_error {
        Some(err) => Err(err),
        None => Ok((moved, mover.bytes)),
    }
}

/// Moves each parameter with [`crate::transfer::move_any`], keeping the first error.
struct Mover<'a> {
    device: &'a Device,
    bytes: u64,
    first_error: Option<GuardError>,
}

impl Mover<'_> {
    fn param<const D: usize, K>(&mut self, param: Param<Tensor<D, K>>) -> Param<Tensor<D, K>>
    where
        K: burn::tensor::kind::Basic + 'static,
        Tensor<D, K>: burn::module::ParameterValue,
    {
        if self.first_error.is_some() {
            return param;
        }
        let (id, tensor, mapper) = param.consume();
        match crate::transfer::move_any(MODULE_OP, tensor.clone(), self.device) {
            Ok((moved, bytes)) => {
                self.bytes = self.bytes.saturating_add(bytes);
                Param::from_mapped_value(id, moved, mapper)
            }
            Err(err) => {
                self.first_error = Some(err);
                Param::from_mapped_value(id, tensor, mapper)
            }
        }
    }
}

impl ModuleMapper for Mover<'_> {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        self.param(param)
    }

    fn map_int<const D: usize>(
        &mut self,
        param: Param<Tensor<D, burn::tensor::Int>>,
    ) -> Param<Tensor<D, burn::tensor::Int>> {
        self.param(param)
    }

    fn map_bool<const D: usize>(
        &mut self,
        param: Param<Tensor<D, burn::tensor::Bool>>,
    ) -> Param<Tensor<D, burn::tensor::Bool>> {
        self.param(param)
    }
}

/// Whether a parameter's refusal is about its shape (the scheme or the device cannot apply
/// to it), so that keeping it in float is a choice the caller may make.
fn shape_bound(err: &GuardError) -> bool {
    matches!(
        err.kind(),
        ErrorKind::InvalidQuantScheme | ErrorKind::Empty | ErrorKind::Unsupported
    )
}

/// Computes burn's range of every parameter to quantize, named by the plan's path.
struct RangeGatherer<'a> {
    plan: &'a Plan,
    next: usize,
    scheme: &'a QuantScheme,
    calibration: &'a Calibration,
    params: Vec<ParamRange<'a>>,
}

impl burn::module::ModuleVisitor for RangeGatherer<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let at = self.plan.find(&mut self.next, &param.id);
        if let Some((entry, _)) = self.plan.quantized(at) {
            self.params.push(ParamRange::compute(
                PARAM_OP,
                entry.path.as_str(),
                param.id,
                param.base(),
                self.scheme,
                self.calibration,
            ));
        }
    }
}

/// burn's `Quantizer::map_float_at_path`, for the parameters decided `Quantize`, under the
/// backstop, with what [`check_params`] prepared from the range [`RangeGatherer`] computed: the
/// first panic is kept and the parameter left as it was.
///
/// What [`check_params`] prepared is taken in the order the visit computed it; a parameter
/// whose id is not the next one's (a module whose `map` walks otherwise than its `visit`) gets
/// its range computed again, as burn would.
struct GuardedMapper<'a> {
    plan: &'a Plan,
    next: usize,
    scheme: &'a QuantScheme,
    calibration: &'a Calibration,
    prepared: std::iter::Peekable<std::vec::IntoIter<(ParamId, Prepared)>>,
    first_error: Option<GuardError>,
    /// With the error measured: each quantized parameter's round trip, reduced on its device.
    measured: Option<Vec<Measured>>,
}

/// A quantized parameter's round trip, by its plan index.
enum Measured {
    /// Read as soon as it was dequantized, on a backend that runs on the host: its values are
    /// summed there, and holding every parameter's values for one read would hold the model
    /// twice over.
    Read { at: usize, error: f64 },
    /// Reduced on its device to two numbers, read with the others of that device.
    Pending {
        at: usize,
        device: Device,
        trip: Box<RoundTrip<Dispatch>>,
    },
}

impl ModuleMapper for GuardedMapper<'_> {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let at = self.plan.find(&mut self.next, &param.id);
        let Some((entry, swap)) = self
            .plan
            .quantized(at)
            .filter(|_| self.first_error.is_none())
        else {
            return param;
        };
        let prepared = self
            .prepared
            .next_if(|(id, _)| *id == param.id)
            .map_or(Prepared::Recompute, |(_, prepared)| prepared);
        let (id, tensor, mapper) = param.consume();
        let quantized = catch(PARAM_OP, || {
            let qparams = match prepared {
                Prepared::Scale(scale) => QuantizationParameters {
                    scales: Tensor::from_data(
                        TensorData::new(vec![scale], [1]),
                        (&tensor.device(), DType::F32),
                    ),
                    global: None,
                },
                Prepared::Range(range) => compute_q_params(self.scheme, *range),
                Prepared::Recompute => compute_q_params(
                    self.scheme,
                    compute_range(self.scheme, &tensor, self.calibration),
                ),
            };
            match swap {
                None => tensor.clone().quantize(self.scheme, qparams),
                // Packed along `axis`: quantized with it innermost, presented in burn's layout.
                Some(axis) => {
                    let last = D.saturating_sub(1);
                    let inner = tensor.clone().swap_dims(axis, last);
                    inner.quantize(self.scheme, qparams).swap_dims(axis, last)
                }
            }
        });
        match (quantized, self.measured.as_mut(), at) {
            (Ok(quantized), Some(measured), Some(at)) => {
                // The float values go to the round trip, not back into the model: the
                // quantized parameter takes their place whatever the measure says. Its
                // primitive is lent to the measure and put back, not cloned: a clone per
                // parameter was a measurable part of the gate's cost.
                let back = quantized.into_dispatch();
                if let Err(err) = measure(measured, at, tensor, &back) {
                    self.first_error = Some(err.context(entry.path.as_str()));
                }
                Param::from_mapped_value(id, Tensor::from_dispatch(back), mapper)
            }
            (Ok(quantized), _, _) => Param::from_mapped_value(id, quantized, mapper),
            (Err(err), _, _) => {
                self.first_error = Some(err.context(entry.path.as_str()));
                Param::from_mapped_value(id, tensor, mapper)
            }
        }
    }
}

/// Measures the round trip of the parameter `at`, `original` quantized as `quantized`, on its
/// device: on Flex in place ([`round_trip::flex_sums`]), read at once on another host backend,
/// left pending (reduced, unread) on a device.
fn measure<const D: usize>(
    measured: &mut Vec<Measured>,
    at: usize,
    original: Tensor<D>,
    quantized: &burn::tensor::DispatchTensor,
) -> Result<()> {
    let device = original.device();
    let original = original.into_dispatch();
    if let Some((diff, norm)) = catch(PARAM_OP, || round_trip::flex_sums(&original, quantized))? {
        crate::capability::require_healthy(PARAM_OP, &device)?;
        let error = round_trip::relative_error(diff, norm);
        measured.push(Measured::Read { at, error });
        return Ok(());
    }
    let on_host = quirks_of(&device).runs_on_host;
    let quantized = quantized.clone();
    let trip = catch(PARAM_OP, move || {
        RoundTrip::start(original, quantized, on_host)
    })?;
    if on_host {
        let error = read_round_trips(PARAM_OP, Some(&device), vec![trip])?
            .first()
            .copied()
            .unwrap_or(f64::NAN);
        measured.push(Measured::Read { at, error });
    } else {
        let trip = Box::new(trip);
        measured.push(Measured::Pending { at, device, trip });
    }
    Ok(())
}

/// The measured round trips, those pending read at once per device ([`read_round_trips`]):
/// `(plan index, ‖Δ‖ / ‖w‖)`, 0 for a parameter of zeros quantized exactly, infinite for one
/// of zeros that was not.
fn read_errors(measured: Vec<Measured>) -> Result<Vec<(usize, f64)>> {
    let mut errors = Vec::with_capacity(measured.len());
    let mut devices: Vec<(Device, Vec<usize>, Vec<RoundTrip<Dispatch>>)> = Vec::new();
    for measured in measured {
        let (at, device, trip) = match measured {
            Measured::Read { at, error } => {
                errors.push((at, error));
                continue;
            }
            Measured::Pending { at, device, trip } => (at, device, *trip),
        };
        match devices.iter_mut().find(|(d, _, _)| *d == device) {
            Some((_, ats, trips)) => {
                ats.push(at);
                trips.push(trip);
            }
            None => devices.push((device, vec![at], vec![trip])),
        }
    }
    for (device, ats, trips) in devices {
        let read = read_round_trips(MODULE_OP, Some(&device), trips)?;
        errors.extend(ats.into_iter().zip(read));
    }
    Ok(errors)
}

/// The refusal of parameters whose round trip is over `bound`: the first named, the others
/// counted.
fn over_bound(plan: &Plan, over: &[(usize, f64)], bound: f64) -> GuardError {
    let paths: Vec<&str> = over
        .iter()
        .filter_map(|(at, _)| plan.floats.get(*at).map(|p| p.path.as_str()))
        .collect();
    let (first_at, first_error) = over.first().copied().unwrap_or((0, f64::INFINITY));
    let path = plan
        .floats
        .get(first_at)
        .map_or_else(String::new, |p| p.path.clone());
    let rule = if paths.len() > 1 {
        "a parameter's quantization round-trip error must not exceed the bound (more \
         parameters are over it: see the error's values with WeightQuantizer::measure_error)"
    } else {
        "a parameter's quantization round-trip error must not exceed the bound"
    };
    round_trip::over_bound(MODULE_OP, rule, first_error, bound).context(path)
}

/// The report, read from the quantized module's own parameters (dtype, shape, device); a
/// quantized parameter lives where the model was quantized (`placement`).
fn report_of<M: Module>(
    model: &M,
    group: &ParamGroup,
    plan: &Plan,
    placement: Placement,
) -> Result<QuantReport> {
    let mut next = 0;
    let params = float_params(MODULE_OP, model, group)?
        .into_iter()
        .map(|param| {
            let at = plan.find(&mut next, &param.id);
            let placement = match at.and_then(|at| plan.decision(at)) {
                Some(Decision::Quantize { .. }) => placement.clone(),
                Some(Decision::KeepFloat(reason)) => Placement::KeptFloat {
                    reason: reason.clone(),
                },
                None => Placement::NotInGroup,
            };
            let (scheme, bytes_before, bytes_after) = stored(&param);
            let relative_error = at.and_then(|at| plan.errors.get(at).copied().flatten());
            ParamReport {
                path: param.path,
                shape: param.shape,
                scheme,
                placement,
                device: stack_of(&param.device).label().to_owned(),
                bytes_before,
                bytes_after,
                relative_error,
            }
        })
        .collect();
    Ok(QuantReport { params })
}

/// What a parameter is stored as, its float bytes and its stored bytes, from its dtype and
/// shape ([`check::bytes::counted_bytes`]: burn's `quantized_data_len` for a quantized one).
/// A quantized parameter's float bytes are counted in the device's float dtype.
fn stored(param: &FloatParam) -> (String, u64, u64) {
    use burn::tensor::DType;
    match param.dtype {
        DType::QFloat(scheme) => {
            let float: DType = param.device.settings().float_dtype.into();
            (
                check::SchemeName(&scheme).to_string(),
                check::bytes::counted_bytes(&param.shape, float),
                check::bytes::counted_bytes(&param.shape, param.dtype),
            )
        }
        dtype => {
            let bytes = param.bytes();
            (format!("{dtype:?}").to_lowercase(), bytes, bytes)
        }
    }
}
