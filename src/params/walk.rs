//! What a module holds, read without running anything: every float parameter's module path,
//! id, shape, device and dtype, as burn's own `Quantizer` will meet them; and the one walk
//! that names parameters by their module path ([`PathWalk`]), for every walker that needs it.

use burn::module::{Module, ModuleVisitor, Param, ParamGroup, ParamId};
use burn::tensor::{DType, Device, Tensor};

use crate::error::Result;
use crate::panic::catch;

/// A float parameter as burn's `Quantizer` sees it.
#[derive(Debug, Clone)]
pub(crate) struct FloatParam {
    /// The module path burn's quantizer matches its group against (`layers.0.fc.weight`).
    pub(crate) path: String,
    pub(crate) id: ParamId,
    /// The stored shape (`Param::lazy_shape`: what burn's quantizer quantizes, read without
    /// drawing a lazy parameter).
    pub(crate) shape: Vec<usize>,
    pub(crate) device: Device,
    /// The dtype, when the parameter is drawn; a lazy one has the device's float dtype.
    pub(crate) dtype: DType,
    /// Whether the quantizer's group selects it.
    pub(crate) selected: bool,
    /// Whether it is a running statistic (a `RunningState`: batch norm's running mean and
    /// variance), a buffer rather than a weight.
    pub(crate) running_statistic: bool,
}

impl FloatParam {
    /// Bytes of the parameter as it is: elements × dtype size, saturating.
    pub(crate) fn bytes(&self) -> u64 {
        bytes_of(&self.shape, self.dtype)
    }
}

/// Elements × dtype size (the stored bytes for a quantized dtype), saturating: the report's
/// and the move's count ([`check::bytes::counted_bytes`](crate::check::bytes::counted_bytes)).
pub(crate) fn bytes_of(shape: &[usize], dtype: DType) -> u64 {
    crate::check::bytes::counted_bytes(shape, dtype)
}

/// What a walk does at each float parameter, given its module path: the part of a
/// [`ModuleVisitor`] that differs from one walk to the next ([`PathWalk`] tracks the path).
pub(crate) trait AtPath {
    /// `param`, at `path` (`layers.0.fc.weight`).
    fn float<const D: usize>(&mut self, path: String, param: &Param<Tensor<D>>);

    /// `param`, at `path`, with whether it is a running statistic (a `RunningState`, batch
    /// norm's `running_mean` and `running_var`): what a walk that tells buffers from weights
    /// implements. Calls [`AtPath::float`] by default.
    fn float_at<const D: usize>(
        &mut self,
        path: String,
        running_statistic: bool,
        param: &Param<Tensor<D>>,
    ) {
        let _ = running_statistic;
        self.float(path, param);
    }
}

/// A [`ModuleVisitor`] that names each float parameter by its module path as burn's walkers
/// build it (the `enter_module` names joined by `.`: burn's quantizer, `ParamGroup`,
/// burn-store's paths) and hands it to `at`.
pub(crate) struct PathWalk<V> {
    path: Vec<String>,
    /// The container type `enter_module` gave with each segment of `path`.
    containers: Vec<String>,
    pub(crate) at: V,
}

impl<V: AtPath> PathWalk<V> {
    pub(crate) fn new(at: V) -> Self {
        Self {
            path: Vec::new(),
            containers: Vec::new(),
            at,
        }
    }
}

impl<V: AtPath> ModuleVisitor for PathWalk<V> {
    fn enter_module(&mut self, name: &str, container_type: &str) {
        self.path.push(name.to_owned());
        self.containers.push(container_type.to_owned());
    }

    fn exit_module(&mut self, _name: &str, _container_type: &str) {
        self.path.pop();
        self.containers.pop();
    }

    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let running = match (self.path.last(), self.containers.last()) {
            (Some(name), Some(container)) => crate::upstream::is_running_statistic(container, name),
            _ => false,
        };
        self.at.float_at(self.path.join("."), running, param);
    }
}

/// Every float parameter of `module`, in the order burn's walks meet them, `selected` where
/// `group` matches it as burn's quantizer matches; read without drawing a lazy parameter, under
/// the backstop.
///
/// # Errors
///
/// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if a module's `visit` panics.
pub(crate) fn float_params<M: Module>(
    op: &'static str,
    module: &M,
    group: &ParamGroup,
) -> Result<Vec<FloatParam>> {
    let mut walk = PathWalk::new(ParamCollector {
        group,
        // A parameter's record holds its device, a few hundred bytes in all: room for a small
        // model's, so that the walk does not copy them as the vector grows.
        floats: Vec::with_capacity(64),
    });
    catch(op, || module.visit(&mut walk))?;
    Ok(walk.at.floats)
}

/// A parameter's stored shape, dtype and device, read without drawing it: what its `init`
/// allocates. A parameter not drawn yet has the device's default float dtype.
pub(crate) fn declared<const D: usize>(param: &Param<Tensor<D>>) -> (Vec<usize>, DType, Device) {
    let device = param.lazy_device();
    // Read through the reference: `base()` would clone the tensor for its dtype.
    let dtype = if param.is_initialized() {
        (**param).dtype()
    } else {
        device.settings().float_dtype.into()
    };
    (param.lazy_shape().to_vec(), dtype, device)
}

/// Records each float parameter as burn's `Quantizer` will meet it.
struct ParamCollector<'a> {
    group: &'a ParamGroup,
    floats: Vec<FloatParam>,
}

impl AtPath for ParamCollector<'_> {
    fn float<const D: usize>(&mut self, path: String, param: &Param<Tensor<D>>) {
        self.float_at(path, false, param);
    }

    fn float_at<const D: usize>(
        &mut self,
        path: String,
        running_statistic: bool,
        param: &Param<Tensor<D>>,
    ) {
        let selected = self.group.matches(&param.id, Some(&path));
        let (shape, dtype, device) = declared(param);
        self.floats.push(FloatParam {
            path,
            id: param.id,
            shape,
            device,
            dtype,
            selected,
            running_statistic,
        });
    }
}
