//! [`ModuleQuantizer`]: quantize every linear layer of a burn `Module` under a policy, and
//! [`QuantizedLayers`], the layers it made, found by their module path.

use burn::module::{Module, ModuleVisitor, Param};
use burn::nn::Linear;
use burn::tensor::Tensor;
use burn::tensor::quantization::QuantScheme;

use super::linear::QuantizedLinear;
use super::placed::InvalidLayer;
use super::report::QuantReport;
use crate::error::{GuardError, Result};
use crate::panic::catch;
use crate::params::read as params;
use crate::policy::Policy;

/// Quantizes the weight of every `burn::nn::Linear` inside a module, layer by layer, into
/// [`QuantizedLayers`]: the scheme is checked against each weight's shape, the policy decides
/// each layer's device, and the [`QuantReport`] records what ran where.
///
/// To quantize a model in place and keep its own `forward`, use the in-place path instead:
/// `model.try_quantize_weights(&mut burn::module::Quantizer)`, the fallible twin of burn's
/// `Module::quantize_weights`, which quantizes every float parameter of any module where the
/// model lives. What `ModuleQuantizer` adds over it:
///
/// - **Per-layer placement across devices.** Each `Linear`'s packed weight stays on whichever
///   device could quantize it — its own, or the first capable fallback device of the policy —
///   and each forward moves that layer's activations there and the product back
///   ([`QuantizedLinear`]). A model quantized in place lives on one device.
/// - **A transposed weight layout**, `[d_output, d_input]`, so that quantization blocks run
///   along the input features: a 10-class head `[128, 10]` quantizes in blocks of 32, which
///   burn's layout (blocks along the 10 outputs) cannot.
///
/// The price: each layer is called by its path (`layers.forward("head", x)`) instead of
/// through the model's own `forward`, and only `Linear` weights are quantized (biases stay in
/// float).
///
/// ```
/// use burn::module::Module;
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::quantization::{QuantScheme, QuantStore, QuantValue, ScaleDtype};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::nn::ModuleQuantizer;
/// use burn_guard::policy::Policy;
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
/// let scheme = QuantScheme::default()
///     .with_value(QuantValue::Q4S)
///     .with_store(QuantStore::PackedU32(0))
///     .per_block([32], ScaleDtype::F32);
/// let layers = ModuleQuantizer::new(scheme, Policy::strict()).quantize(&net)?;
/// let x = Tensor::<2>::ones([2, 64], &device);
/// let y = layers.forward("head", layers.forward("hidden", x)?)?;
/// assert_eq!(y.dims(), [2, 10]);
/// println!("{}", layers.report());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ModuleQuantizer {
    scheme: QuantScheme,
    policy: Policy,
    invalid: InvalidLayer,
}

impl ModuleQuantizer {
    /// Quantize with `scheme` under `policy`; layers the scheme cannot apply to are refused.
    pub fn new(scheme: QuantScheme, policy: Policy) -> Self {
        Self {
            scheme,
            policy,
            invalid: InvalidLayer::Refuse,
        }
    }

    /// Keep layers the scheme cannot apply to in float (reported) instead of refusing.
    #[must_use]
    pub fn keep_invalid_in_float(mut self) -> Self {
        self.invalid = InvalidLayer::KeepFloat;
        self
    }

    /// The policy every layer records into.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Quantizes every `Linear` of `module`, in module order. `module` is left untouched.
    ///
    /// # Errors
    ///
    /// The first layer's error of [`QuantizedLinear::quantize`], with its path in
    /// [`QuantizeLayerError`](GuardError) form: [`GuardError::InvalidQuantScheme`] (unless
    /// kept in float), [`GuardError::Unsupported`] under a strict policy on a device that
    /// cannot, [`GuardError::InvalidArgument`] when the module has no `Linear` at all.
    pub fn quantize<M: Module>(&self, module: &M) -> Result<QuantizedLayers> {
        let mut finder = LinearFinder::default();
        catch(QUANTIZE_MODULE, || module.visit(&mut finder))?;
        if let Some(err) = finder.unreadable {
            return Err(err);
        }
        if finder.found.is_empty() {
            return Err(GuardError::InvalidArgument {
                op: QUANTIZE_MODULE,
                rule: "the module must contain at least one burn::nn::Linear",
                got: "no Linear layer".into(),
            });
        }
        let mut layers = Vec::with_capacity(finder.found.len());
        for (path, linear) in finder.found {
            let layer = QuantizedLinear::quantize_at(
                &path,
                &linear,
                &self.scheme,
                &self.policy,
                self.invalid,
            )?;
            layers.push((path, layer));
        }
        Ok(QuantizedLayers { layers })
    }
}

/// The quantized linear layers of a module, by module path (`hidden`, `blocks.0.fc`).
#[derive(Debug, Clone)]
pub struct QuantizedLayers {
    layers: Vec<(String, QuantizedLinear)>,
}

impl QuantizedLayers {
    /// The layer at `path`.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`] naming the known paths when there is none.
    pub fn layer(&self, path: &str) -> Result<&QuantizedLinear> {
        self.layers
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, layer)| layer)
            .ok_or_else(|| GuardError::InvalidArgument {
                op: "quantized_layer",
                rule: "no quantized Linear at this path",
                got: format!(
                    "{path:?}; known: {}",
                    self.paths().collect::<Vec<_>>().join(", ")
                ),
            })
    }

    /// `layer(path)?.forward(x)`.
    ///
    /// # Errors
    ///
    /// As [`QuantizedLayers::layer`] and [`QuantizedLinear::forward`].
    pub fn forward<const D: usize>(&self, path: &str, x: Tensor<D>) -> Result<Tensor<D>> {
        self.layer(path)?.forward(x)
    }

    /// The layers' paths, in module order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.layers.iter().map(|(p, _)| p.as_str())
    }

    /// The layers, in module order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &QuantizedLinear)> {
        self.layers.iter().map(|(p, l)| (p.as_str(), l))
    }

    /// Every layer's weight, one row each, in module order.
    pub fn report(&self) -> QuantReport {
        QuantReport {
            params: self
                .layers
                .iter()
                .map(|(_, l)| l.report().clone())
                .collect(),
        }
    }
}

/// The op name of [`ModuleQuantizer::quantize`]'s own errors.
const QUANTIZE_MODULE: &str = "quantize_module";

/// Collects every `burn::nn::Linear` of a module with its path. Burn's derive calls
/// `enter_module(field, container)` before a Linear's own parameters, with the container type
/// [`upstream::is_linear_container`](crate::upstream::is_linear_container) recognizes.
#[derive(Default)]
struct LinearFinder {
    path: Vec<(String, String)>,
    found: Vec<(String, Linear)>,
    /// The first parameter that could not be read (its initializer panicked when drawn).
    unreadable: Option<GuardError>,
}

impl LinearFinder {
    /// The path of the Linear whose parameter `field` is being visited, if it is one.
    fn linear_path(&self, field: &str) -> Option<String> {
        let (name, container) = self.path.last()?;
        (name == field && crate::upstream::is_linear_container(container)).then(|| {
            let parents = self.path.len().saturating_sub(1);
            self.path
                .iter()
                .take(parents)
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(".")
        })
    }
}

impl ModuleVisitor for LinearFinder {
    fn enter_module(&mut self, name: &str, container_type: &str) {
        self.path.push((name.to_owned(), container_type.to_owned()));
    }

    fn exit_module(&mut self, _name: &str, _container_type: &str) {
        self.path.pop();
    }

    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if self.unreadable.is_some() {
            return;
        }
        // The drawn value and its dims, not the lazy shape: see `nn::params`.
        let value = |finder: &mut Self| match params::values(QUANTIZE_MODULE, [param]) {
            Ok([value]) => Some(value),
            Err(err) => {
                finder.unreadable = Some(err);
                None
            }
        };
        if let (2, Some(path)) = (D, self.linear_path("weight")) {
            let Some(weight) = value(self) else {
                return;
            };
            let [rows, cols] = first_two(&weight.dims());
            let weight = weight.reshape([rows, cols]);
            self.found.push((
                path,
                Linear {
                    weight: Param::from_tensor(weight),
                    bias: None,
                },
            ));
        } else if let (1, Some(path)) = (D, self.linear_path("bias")) {
            // Burn visits a Linear's weight before its bias.
            if self.found.last().is_none_or(|(last, _)| *last != path) {
                return;
            }
            let Some(bias) = value(self) else {
                return;
            };
            let size = bias.dims().first().copied().unwrap_or(0);
            if let Some((_, linear)) = self.found.last_mut() {
                linear.bias = Some(Param::from_tensor(bias.reshape([size])));
            }
        }
    }
}

fn first_two(dims: &[usize]) -> [usize; 2] {
    match dims {
        [a, b, ..] => [*a, *b],
        [a] => [*a, 1],
        [] => [0, 0],
    }
}
