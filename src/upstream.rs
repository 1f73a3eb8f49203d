//! The one seam to what burn keeps private: every read of a private field, a `Debug` format, an
//! id layout or a derive string is one function here.
//!
//! Each function returns `Option` (or a typed answer with an explicit unknown case): a miss is
//! never a default. The callers turn a miss into
//! [`GuardError::Unreadable`](crate::GuardError::Unreadable) naming what could not be read, or,
//! where a name is all that is at stake, into a plainer name. Each function is pinned by a unit
//! test against the real burn type, so that a burn release that changes a form fails here
//! first. ARCHITECTURE.md lists the getters that would make this module unnecessary.
//!
//! A leaf: it imports nothing from the crate, so every layer may read through it.

use std::fmt::Debug;

use burn::backend::DispatchDevice;
use burn::nn::activation::GLU;
use burn::nn::loss::{CTCLoss, RNNTLoss};
use burn::tensor::Device;
use burn_backend::Device as _;

// ---------------------------------------------------------------- private fields, from `Debug`

/// The unsigned number after `field: ` in a derived `Debug` text (`CTCLoss { blank: 3, .. }`).
fn debug_usize(debug: &str, field: &str) -> Option<usize> {
    let key = format!("{field}: ");
    let start = debug.find(&key)?.checked_add(key.len())?;
    let rest = debug.get(start..)?;
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest.get(..end)?.parse().ok()
}

/// The split dim of a [`GLU`] (private; its derived `Debug` prints `GLU { dim: -1 }`).
pub(crate) fn glu_dim(glu: &GLU) -> Option<isize> {
    let debug = format!("{glu:?}");
    let (_, rest) = debug.split_once("dim:")?;
    rest.trim().trim_end_matches('}').trim().parse().ok()
}

/// The blank index of a [`CTCLoss`] (private; its derived `Debug` prints `blank: 3`).
pub(crate) fn ctc_blank(loss: &CTCLoss) -> Option<usize> {
    debug_usize(&format!("{loss:?}"), "blank")
}

/// The blank index of an [`RNNTLoss`] (private; its derived `Debug` prints `blank: 3`).
pub(crate) fn rnnt_blank(loss: &RNNTLoss) -> Option<usize> {
    debug_usize(&format!("{loss:?}"), "blank")
}

/// A [`ModuleRecord`](burn::store::ModuleRecord)'s private load settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RecordSettings {
    pub(crate) allow_partial: bool,
    pub(crate) allow_unused: bool,
    pub(crate) validate: bool,
}

/// The load settings of a [`ModuleRecord`](burn::store::ModuleRecord) (private fields; its
/// `Debug` prints `ModuleRecord { num_tensors: 2, dtype_policy: FromRecord, allow_partial:
/// false, allow_unused: false, validate: true }`).
pub(crate) fn record_settings(record: &burn::store::ModuleRecord) -> Option<RecordSettings> {
    let debug = format!("{record:?}");
    let flag = |field: &str| -> Option<bool> {
        let key = format!("{field}: ");
        let start = debug.find(&key)?.checked_add(key.len())?;
        let rest = debug.get(start..)?;
        if rest.starts_with("true") {
            Some(true)
        } else if rest.starts_with("false") {
            Some(false)
        } else {
            None
        }
    };
    Some(RecordSettings {
        allow_partial: flag("allow_partial")?,
        allow_unused: flag("allow_unused")?,
        validate: flag("validate")?,
    })
}

/// The module types of a [`HalfPrecisionAdapter`](burn::store::HalfPrecisionAdapter), sorted
/// (a private `HashSet`; its derived `Debug` prints `HalfPrecisionAdapter { modules:
/// {"Struct:Linear", ...} }`).
#[cfg(feature = "store")]
pub(crate) fn half_precision_modules(
    adapter: &burn::store::HalfPrecisionAdapter,
) -> Option<Vec<String>> {
    let debug = format!("{adapter:?}");
    let (_, rest) = debug.split_once("modules: {")?;
    let (set, _) = rest.split_once('}')?;
    let mut modules: Vec<String> = set
        .split(", ")
        .filter(|s| !s.is_empty())
        .map(|s| s.strip_prefix('"')?.strip_suffix('"').map(str::to_owned))
        .collect::<Option<_>>()?;
    modules.sort();
    Some(modules)
}

/// The settings `AdafactorConfig::build` asserts: `[epsilon_1, epsilon_2, clip_threshold,
/// decay_rate, weight_decay]` (private fields; the derived `Debug` prints `AdafactorConfig {
/// epsilon_1: 1e-30, epsilon_2: 0.001, clip_threshold: 1.0, decay_rate: -0.8, .. }`).
#[cfg(feature = "optim")]
pub(crate) fn adafactor_settings(config: &burn::optim::AdafactorConfig) -> Option<[f64; 5]> {
    let debug = format!("{config:?}");
    let field = |name: &str| -> Option<f64> {
        let key = format!("{name}: ");
        let start = debug.find(&key)?.checked_add(key.len())?;
        let rest = debug.get(start..)?;
        let end = rest.find([',', ' ', '}']).unwrap_or(rest.len());
        rest.get(..end)?.parse().ok()
    };
    Some([
        field("epsilon_1")?,
        field("epsilon_2")?,
        field("clip_threshold")?,
        field("decay_rate")?,
        field("weight_decay")?,
    ])
}

// ---------------------------------------------------------------- module visits

/// Whether a `ModuleVisitor`'s `container_type` is the one burn's `Module` derive gives a
/// `burn::nn::Linear` (`"Struct:Linear"`, burn-derive `codegen_struct.rs`). The derive passes
/// it to `enter_module` before the struct's own fields.
pub(crate) fn is_linear_container(container_type: &str) -> bool {
    container_type == "Struct:Linear"
}

/// Whether the field `name` of a module whose `container_type` a `ModuleVisitor` was given is a
/// running statistic: a `RunningState` (a buffer burn updates in the forward, not a weight),
/// which a visit shows as a float parameter like any other. burn-nn's only ones are
/// `BatchNorm`'s `running_mean` and `running_var` (burn-nn `modules/norm/batch.rs`); the
/// derive passes `"Struct:BatchNorm"` to `enter_module` before those fields.
pub(crate) fn is_running_statistic(container_type: &str, name: &str) -> bool {
    container_type == "Struct:BatchNorm" && matches!(name, "running_mean" | "running_var")
}

/// One projection of a [`CrossAttention`](burn::nn::attention::CrossAttention): its weight's shape and, when it has one, its bias's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Projection {
    pub(crate) weight: Vec<usize>,
    pub(crate) bias: Option<Vec<usize>>,
}

/// A [`CrossAttention`](burn::nn::attention::CrossAttention)'s private projections (`query`, `key`, `value`, `output`) and the devices
/// of every float parameter, read without initializing a lazy parameter.
#[derive(Debug, Clone)]
pub(crate) struct CrossAttentionParts {
    pub(crate) query: Projection,
    pub(crate) key: Projection,
    pub(crate) value: Projection,
    pub(crate) output: Projection,
    pub(crate) devices: Vec<Device>,
}

/// The shape of the parameter at `path` among `params` (`(path, shape)` pairs).
fn shape_at(params: &[(String, Vec<usize>)], path: &str) -> Option<Vec<usize>> {
    params
        .iter()
        .find(|(at, _)| at == path)
        .map(|(_, shape)| shape.clone())
}

/// The weight and bias shapes of the projection `name` among `params`.
fn projection(params: &[(String, Vec<usize>)], name: &str) -> Option<Projection> {
    Some(Projection {
        weight: shape_at(params, &format!("{name}.weight"))?,
        bias: shape_at(params, &format!("{name}.bias")),
    })
}

/// The projections of a [`CrossAttention`](burn::nn::attention::CrossAttention) (private fields, visited by their field names),
/// from the `(path, shape)` of each float parameter its visit meets (the caller's walk:
/// `nn/layers/attention.rs`). `None` when a projection's weight is not where burn 0.22.1's
/// fields put it.
pub(crate) fn cross_attention_parts(
    params: &[(String, Vec<usize>)],
    devices: Vec<Device>,
) -> Option<CrossAttentionParts> {
    Some(CrossAttentionParts {
        query: projection(params, "query")?,
        key: projection(params, "key")?,
        value: projection(params, "value")?,
        output: projection(params, "output")?,
        devices,
    })
}

// ---------------------------------------------------------------- device ids

/// The variant of burn's `DispatchDevice`, as its id names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum DispatchVariant {
    /// A CubeCL device, with CubeCL's `RuntimeId` number (Cuda 0, Hip 1, Metal 2, Wgpu 3,
    /// Cpu 4).
    Cube(u16),
    Flex,
    LibTorch,
    NdArray,
    Remote,
    Capture,
    /// A variant this layout does not name, by its number.
    Unknown(u16),
}

impl DispatchVariant {
    /// Reads the variant from a device's `type_id`: burn-dispatch keeps the high byte for the
    /// variant (`DispatchDeviceId`: Cube 0, Flex 4, LibTorch 5, NdArray 6, Remote 10,
    /// Capture 11) and, for Cube, CubeCL keeps bits 5–7 for its `RuntimeId`.
    pub(crate) fn from_type_id(type_id: u16) -> Self {
        match type_id >> 8 {
            0 => Self::Cube(cube_runtime_id(type_id)),
            4 => Self::Flex,
            5 => Self::LibTorch,
            6 => Self::NdArray,
            10 => Self::Remote,
            11 => Self::Capture,
            other => Self::Unknown(other),
        }
    }
}

/// CubeCL's `RuntimeId` number in a cube device's `type_id` (bits 5–7).
fn cube_runtime_id(type_id: u16) -> u16 {
    (type_id >> 5) & 0x7
}

/// CubeCL's `RuntimeId` number of a cube device, from its id.
#[cfg(feature = "wgpu")]
pub(crate) fn cube_device_runtime_id(device: &burn_backend::cubecl::Device) -> u16 {
    cube_runtime_id(device.to_id().type_id)
}

/// A dispatch device's variant, from its id.
pub(crate) fn dispatch_variant(device: &DispatchDevice) -> DispatchVariant {
    DispatchVariant::from_type_id(device.to_id().type_id)
}

/// A dispatch device's index within its variant. For a remote device, its slot in
/// burn-remote's process-wide registry: one per (server, device index), kept for the life of
/// the process, so an index never names two servers.
pub(crate) fn dispatch_index(device: &DispatchDevice) -> u16 {
    device.to_id().index_id
}

// ---------------------------------------------------------------- remote addresses

/// The server address in burn-remote's `Debug` of a `RemoteDevice` (or a backend name that
/// embeds it): burn-communication's `Address` (`scheme: "ws", host: "127.0.0.1",
/// port: Some(4000)`) as `ws://127.0.0.1:4000`, else the first `ws://…` / `wss://…` URL the text
/// holds. `None` when it holds neither: `RemoteDevice` has no accessor for its endpoint.
pub(crate) fn remote_address_in(text: &str) -> Option<String> {
    let field = |key: &str, end: char| {
        let start = text.find(key)? + key.len();
        let rest = text.get(start..)?;
        rest.get(..rest.find(end)?)
    };
    if let (Some(scheme), Some(host)) = (field("scheme: \"", '"'), field("host: \"", '"')) {
        return Some(match field("port: Some(", ')') {
            Some(port) => format!("{scheme}://{host}:{port}"),
            None => format!("{scheme}://{host}"),
        });
    }
    let start = ["ws://", "wss://"]
        .iter()
        .filter_map(|scheme| text.find(scheme))
        .min()?;
    let rest = text.get(start..)?;
    let end = rest.find(['"', ' ', '}', ',', '>']).unwrap_or(rest.len());
    rest.get(..end).map(str::to_owned)
}

/// A device whose `Debug` is burn-remote's `RemoteDevice { .. }`, read as one: `None` for any
/// other device, else `Some` with the server's address when the text gives it.
pub(crate) fn remote_device<Dev: Debug>(device: &Dev) -> Option<Option<String>> {
    let text = format!("{device:?}");
    text.starts_with("RemoteDevice")
        .then(|| remote_address_in(&text))
}

#[cfg(test)]
mod tests {
    use burn::module::{Module, ModuleVisitor};
    use burn::nn::activation::GLU;
    use burn::nn::loss::{CTCLossConfig, RNNTLossConfig};

    use super::*;

    #[test]
    fn private_fields_read_from_the_real_layers() {
        for dim in [-3isize, -1, 0, 2, 7] {
            assert_eq!(glu_dim(&GLU::new(dim)), Some(dim));
        }
        let ctc = CTCLossConfig::new().with_blank(12).init();
        assert_eq!(ctc_blank(&ctc), Some(12));
        let rnnt = RNNTLossConfig::new().with_blank(3).init();
        assert_eq!(rnnt_blank(&rnnt), Some(3));
        assert_eq!(debug_usize("Other { size: 4 }", "blank"), None);
    }

    #[test]
    fn record_settings_read_from_a_real_record() {
        let device = burn::tensor::Device::flex();
        let linear: burn::nn::Linear = burn::nn::LinearConfig::new(2, 3).init(&device);
        let record = linear.into_record();
        let strict = RecordSettings {
            allow_partial: false,
            allow_unused: false,
            validate: true,
        };
        assert_eq!(record_settings(&record), Some(strict));
        let record = record
            .allow_partial(true)
            .allow_unused(true)
            .validate(false);
        let loose = RecordSettings {
            allow_partial: true,
            allow_unused: true,
            validate: false,
        };
        assert_eq!(record_settings(&record), Some(loose));
    }

    #[cfg(feature = "store")]
    #[test]
    fn half_precision_modules_read_from_a_real_adapter() {
        let adapter = burn::store::HalfPrecisionAdapter::new().with_module("Custom");
        let modules = half_precision_modules(&adapter);
        let modules = modules.as_deref().unwrap_or_default();
        assert!(modules.iter().any(|m| m == "Struct:Linear"), "{modules:?}");
        assert!(modules.iter().any(|m| m == "Struct:Custom"), "{modules:?}");
        let fewer = half_precision_modules(&adapter.without_module("Custom"));
        assert_eq!(fewer.map(|m| m.len()), Some(modules.len() - 1));
    }

    #[cfg(feature = "optim")]
    #[test]
    fn adafactor_settings_read_from_a_real_config() {
        let config = burn::optim::AdafactorConfig::new()
            .with_epsilon_1(1e-20)
            .with_decay_rate(-0.5)
            .with_weight_decay(0.25);
        let settings = adafactor_settings(&config);
        assert_eq!(settings, Some([1e-20, 1e-3, 1.0, -0.5, 0.25]));
        let nan = burn::optim::AdafactorConfig::new().with_epsilon_2(f32::NAN);
        assert!(adafactor_settings(&nan).is_some_and(|s| s[1].is_nan()));
    }

    /// The derive names a Linear as the container of its own fields, as the seam expects, and
    /// nothing else as one.
    #[test]
    fn the_derive_names_a_linear_container() {
        #[derive(Default)]
        struct Fields {
            path: Vec<String>,
            in_linear: Vec<String>,
        }
        impl ModuleVisitor for Fields {
            fn enter_module(&mut self, name: &str, container_type: &str) {
                self.path.push(name.to_owned());
                if is_linear_container(container_type) {
                    self.in_linear.push(self.path.join("."));
                }
            }
            fn exit_module(&mut self, _name: &str, _container_type: &str) {
                self.path.pop();
            }
        }
        let device = Device::flex();
        let layer = burn::nn::attention::CrossAttentionConfig::new(4, 6, 2, 1, 3).init(&device);
        let mut fields = Fields::default();
        layer.visit(&mut fields);
        let expected: Vec<String> = ["query", "key", "value", "output"]
            .iter()
            .flat_map(|p| [format!("{p}.weight"), format!("{p}.bias")])
            .collect();
        assert_eq!(fields.in_linear, expected);
    }

    #[test]
    fn every_dispatch_id_maps_to_its_variant() {
        let cases = [
            (3 << 5, DispatchVariant::Cube(3)),
            (0, DispatchVariant::Cube(0)),
            ((1 << 5) | 2, DispatchVariant::Cube(1)),
            (4 << 8, DispatchVariant::Flex),
            (5 << 8, DispatchVariant::LibTorch),
            (6 << 8, DispatchVariant::NdArray),
            (10 << 8, DispatchVariant::Remote),
            (11 << 8, DispatchVariant::Capture),
            (42 << 8, DispatchVariant::Unknown(42)),
        ];
        for (id, variant) in cases {
            assert_eq!(DispatchVariant::from_type_id(id), variant, "{id:#x}");
        }
    }

    /// The layout against burn's own ids, for every variant this build can construct.
    #[test]
    fn real_devices_have_the_variant_they_are() {
        #[cfg(feature = "flex")]
        assert_eq!(
            dispatch_variant(Device::flex().as_dispatch()),
            DispatchVariant::Flex
        );
        #[cfg(feature = "ndarray")]
        #[allow(deprecated)] // NdArray is deprecated upstream; still supported.
        let ndarray = Device::ndarray();
        #[cfg(feature = "ndarray")]
        assert_eq!(
            dispatch_variant(ndarray.as_dispatch()),
            DispatchVariant::NdArray
        );
        #[cfg(feature = "wgpu")]
        {
            use burn_backend::cubecl::Device as Cube;
            for (cube, runtime) in [
                (Cube::Cuda(Default::default()), 0),
                (Cube::Hip(Default::default()), 1),
                (Cube::Metal(Default::default()), 2),
                (Cube::Wgpu(Default::default()), 3),
                (Cube::Cpu(Default::default()), 4),
            ] {
                let dispatch = DispatchDevice::Cube(cube);
                assert_eq!(dispatch_variant(&dispatch), DispatchVariant::Cube(runtime));
            }
        }
        #[cfg(feature = "remote-device")]
        {
            let dispatch = DispatchDevice::from(burn_remote::RemoteDevice::default());
            assert_eq!(dispatch_variant(&dispatch), DispatchVariant::Remote);
        }
    }

    #[test]
    fn remote_addresses_read_from_burns_debug() {
        for (text, address) in [
            (
                r#"RemoteDevice { endpoint: WebSocket(Address { scheme: "ws", host: "127.0.0.1", port: Some(38801) }), device_index: 0, id: 0 }"#,
                Some("ws://127.0.0.1:38801"),
            ),
            (
                r#"RemoteDevice { endpoint: WebSocket { address: Address { inner: "wss://127.0.0.1:9" } } }"#,
                Some("wss://127.0.0.1:9"),
            ),
            ("RemoteDevice { device_index: 0 }", None),
        ] {
            assert_eq!(remote_address_in(text).as_deref(), address, "{text}");
        }
        assert_eq!(remote_device(&"Flex"), None);
    }

    /// burn-remote's own device, built (it connects nothing), read by its `Debug`.
    #[cfg(feature = "remote")]
    #[test]
    fn a_real_remote_device_gives_its_address() {
        // burn's default remote device: `BURN_REMOTE_ADDRESS`, else ws://127.0.0.1:3000.
        let address = std::env::var("BURN_REMOTE_ADDRESS")
            .unwrap_or_else(|_| "ws://127.0.0.1:3000".to_owned());
        let device = burn_remote::RemoteDevice::default();
        assert_eq!(remote_device(&device), Some(Some(address)));
    }
}
