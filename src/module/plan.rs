//! What a module holds, read without running anything: every float parameter's module path,
//! id, shape, device and dtype, as burn's own `Quantizer` will meet them, and the bytes of
//! every parameter (for the bytes a placement moves).

use burn::module::{ModuleVisitor, Param, ParamGroup, ParamId};
use burn::tensor::{Bool, DType, Device, Int, Tensor};

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
    /// Bytes of the int and bool parameters (they move with the model, never quantize).
    pub(crate) other_bytes: u64,
}

impl<'a> ParamCollector<'a> {
    pub(crate) fn new(group: &'a ParamGroup) -> Self {
        Self {
            path: Vec::new(),
            group,
            floats: Vec::new(),
            other_bytes: 0,
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
        let dtype = if param.is_initialized() {
            param.base().dtype()
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

    fn visit_int<const D: usize>(&mut self, param: &Param<Tensor<D, Int>>) {
        let dtype = param.lazy_device().settings().int_dtype.into();
        self.other_bytes = self
            .other_bytes
            .saturating_add(bytes_of(&param.lazy_shape().to_vec(), dtype));
    }

    fn visit_bool<const D: usize>(&mut self, param: &Param<Tensor<D, Bool>>) {
        let dtype = param.lazy_device().settings().bool_dtype.into();
        self.other_bytes = self
            .other_bytes
            .saturating_add(bytes_of(&param.lazy_shape().to_vec(), dtype));
    }
}
