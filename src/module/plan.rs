//! What a module holds, read without running anything: every float parameter's module path,
//! id, shape, device and dtype, as burn's own `Quantizer` will meet them.

use burn::module::{ModuleVisitor, Param, ParamGroup, ParamId};
use burn::tensor::{DType, Device, Tensor};

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
}

impl FloatParam {
    /// Bytes of the parameter as it is: elements × dtype size, saturating.
    pub(crate) fn bytes(&self) -> u64 {
        bytes_of(&self.shape, self.dtype)
    }
}

/// Elements × dtype size, saturating (the report's and the move's count).
pub(crate) fn bytes_of(shape: &[usize], dtype: DType) -> u64 {
    let elements = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .unwrap_or(usize::MAX);
    u64::try_from(elements.saturating_mul(dtype.size())).unwrap_or(u64::MAX)
}

/// Walks a module as burn's `Quantizer` does (the same `enter_module` names joined by `.`,
/// the same group match) and records what it finds.
pub(crate) struct ParamCollector<'a> {
    path: Vec<String>,
    group: &'a ParamGroup,
    pub(crate) floats: Vec<FloatParam>,
}

impl<'a> ParamCollector<'a> {
    pub(crate) fn new(group: &'a ParamGroup) -> Self {
        Self {
            path: Vec::new(),
            group,
            // A parameter's record holds its device, a few hundred bytes in all: room for a small
            // model's, so that the walk does not copy them as the vector grows.
            floats: Vec::with_capacity(64),
        }
    }
}

impl ModuleVisitor for ParamCollector<'_> {
    fn enter_module(&mut self, name: &str, _container_type: &str) {
        self.path.push(name.to_owned());
    }

    fn exit_module(&mut self, _name: &str, _container_type: &str) {
        self.path.pop();
    }

    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let path = self.path.join(".");
        let selected = self.group.matches(&param.id, Some(&path));
        let device = param.lazy_device();
        // Read through the reference: `base()` would clone the tensor for its dtype.
        let dtype = if param.is_initialized() {
            (**param).dtype()
        } else {
            device.settings().float_dtype.into()
        };
        self.floats.push(FloatParam {
            path,
            id: param.id,
            shape: param.lazy_shape().to_vec(),
            device,
            dtype,
            selected,
        });
    }
}
