//! A backend stack, read from [`Backend::name`](burn_backend::Backend::name) layer by layer:
//! `autodiff<autodiff<flex>>`, `fusion<cubecl<wgpu<wgsl>>>`, `router<remote-…>`.

use std::fmt;

/// One layer of a backend stack, outermost first.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Layer {
    /// burn's `Autodiff<B>` decorator.
    Autodiff,
    /// burn's `Fusion<B>` decorator.
    Fusion,
    /// burn's `BackendRouter<R>` (burn-remote's `RemoteBackend` is one).
    Router,
    /// burn's `Dispatch` backend (the `burn::Tensor` API's own).
    Dispatch,
    /// A CubeCL backend, on the runtime (and, for wgpu, the shader compiler) it names.
    Cubecl(CubeRuntime),
    /// burn-flex.
    Flex,
    /// burn-ndarray.
    NdArray,
    /// A router channel to a burn-remote server.
    Remote,
    /// A backend burn-guard has no table for, by its name.
    Unknown(String),
}

/// The runtime under a CubeCL backend. Capability tables are declared per runtime, and only
/// for runtimes that were measured: a CUDA device never answers from the WGSL table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CubeRuntime {
    /// wgpu compiling to WGSL (`wgpu<wgsl>`): what every wgpu adapter uses unless burn's
    /// `vulkan` or `metal` feature switches the compiler.
    WgpuWgsl,
    /// wgpu compiling to SPIR-V (`wgpu<spirv>`, burn's `vulkan` feature).
    WgpuSpirv,
    /// wgpu compiling to MSL (`wgpu<msl>`, burn's `metal` feature).
    WgpuMsl,
    /// CUDA.
    Cuda,
    /// ROCm / HIP.
    Hip,
    /// Native Metal.
    Metal,
    /// CubeCL's CPU runtime.
    Cpu,
    /// A runtime burn-guard does not know, as it names itself.
    Other(String),
}

impl CubeRuntime {
    /// Reads a runtime from the name a CubeCL client gives itself (`wgpu<wgsl>`, `cuda`, …).
    ///
    /// ```
    /// use burn_guard::capability::CubeRuntime;
    /// assert_eq!(CubeRuntime::parse("wgpu<wgsl>"), CubeRuntime::WgpuWgsl);
    /// assert_eq!(CubeRuntime::parse("wgpu<spirv>"), CubeRuntime::WgpuSpirv);
    /// assert_eq!(CubeRuntime::parse("cuda"), CubeRuntime::Cuda);
    /// ```
    pub fn parse(name: &str) -> Self {
        match name.trim() {
            "wgpu" | "wgpu<wgsl>" => Self::WgpuWgsl,
            "wgpu<spirv>" => Self::WgpuSpirv,
            "wgpu<msl>" => Self::WgpuMsl,
            name if name.starts_with("cuda") => Self::Cuda,
            name if name.starts_with("hip") || name.starts_with("rocm") => Self::Hip,
            "metal" => Self::Metal,
            "cpu" => Self::Cpu,
            other => Self::Other(other.to_owned()),
        }
    }

    /// The runtime's name as CubeCL spells it.
    pub fn name(&self) -> &str {
        match self {
            Self::WgpuWgsl => "wgpu<wgsl>",
            Self::WgpuSpirv => "wgpu<spirv>",
            Self::WgpuMsl => "wgpu<msl>",
            Self::Cuda => "cuda",
            Self::Hip => "hip",
            Self::Metal => "metal",
            Self::Cpu => "cpu",
            Self::Other(name) => name,
        }
    }
}

/// A backend stack: its layers, outermost first, and the name it was read from.
///
/// ```
/// use burn_guard::capability::{BackendStack, CubeRuntime, Layer};
///
/// let stack = BackendStack::parse("autodiff<autodiff<flex>>");
/// assert_eq!(stack.layers(), &[Layer::Autodiff, Layer::Autodiff, Layer::Flex]);
/// assert_eq!(stack.autodiff_depth(), 2);
/// assert_eq!(stack.base(), Some(&Layer::Flex));
///
/// let wgpu = BackendStack::parse("fusion<cubecl<wgpu<wgsl>>>");
/// assert_eq!(wgpu.base(), Some(&Layer::Cubecl(CubeRuntime::WgpuWgsl)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BackendStack {
    layers: Vec<Layer>,
    name: String,
    label: String,
    remote_address: Option<String>,
}

impl BackendStack {
    /// Reads a stack from a backend name as burn spells it.
    pub fn parse(name: &str) -> Self {
        let mut layers = Vec::new();
        let mut rest = name.trim();
        loop {
            let (head, inner) = match rest.split_once('<') {
                Some((head, tail)) if tail.ends_with('>') => {
                    (head, tail.strip_suffix('>').unwrap_or(tail))
                }
                _ => (rest, ""),
            };
            let wrapper = match head {
                "autodiff" => Some(Layer::Autodiff),
                "fusion" => Some(Layer::Fusion),
                "router" => Some(Layer::Router),
                "dispatch" => Some(Layer::Dispatch),
                _ => None,
            };
            match wrapper {
                Some(layer) if !inner.is_empty() => {
                    layers.push(layer);
                    rest = inner;
                }
                _ => {
                    layers.push(Self::terminal(head, inner, rest));
                    break;
                }
            }
        }
        let remote_address = layers
            .contains(&Layer::Remote)
            .then(|| crate::upstream::remote_address_in(name))
            .flatten();
        let label = label(&layers, remote_address.as_deref());
        Self {
            layers,
            name: name.to_owned(),
            label,
            remote_address,
        }
    }

    /// The stack of backend `B` on `device`.
    ///
    /// ```
    /// use burn_guard::capability::{BackendStack, Layer};
    /// type B = burn_autodiff::Autodiff<burn_flex::Flex>;
    /// let stack = BackendStack::of::<B>(&Default::default());
    /// assert_eq!(stack.name(), "autodiff<flex>");
    /// ```
    pub fn of<B: burn_backend::Backend>(device: &B::Device) -> Self {
        Self::parse(&B::name(device))
    }

    /// The stack of backend `B`, read once per backend type and shared: the hot-path form of
    /// [`BackendStack::of`] (a read lock and a lookup instead of formatting and parsing the
    /// name on every call).
    ///
    /// The layers depend only on the type; the [`name`](Self::name) is the one of the first
    /// device asked about, so error messages that must name a particular device (a remote's
    /// address) use [`BackendStack::of`].
    ///
    /// ```
    /// use burn_guard::capability::BackendStack;
    /// type B = burn_autodiff::Autodiff<burn_autodiff::Autodiff<burn_flex::Flex>>;
    /// assert_eq!(BackendStack::cached::<B>(&Default::default()).autodiff_depth(), 2);
    /// ```
    pub fn cached<B: burn_backend::Backend>(device: &B::Device) -> &'static BackendStack {
        use std::any::TypeId;
        use std::collections::HashMap;
        use std::sync::{OnceLock, PoisonError, RwLock};

        type Cache = RwLock<HashMap<TypeId, &'static BackendStack>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(|| RwLock::new(HashMap::new()));
        let key = TypeId::of::<B>();
        if let Some(stack) = cache
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return stack;
        }
        let mut cache = cache.write().unwrap_or_else(PoisonError::into_inner);
        cache
            .entry(key)
            .or_insert_with(|| Box::leak(Box::new(Self::of::<B>(device))))
    }

    fn terminal(head: &str, inner: &str, whole: &str) -> Layer {
        match head {
            "flex" => Layer::Flex,
            "ndarray" => Layer::NdArray,
            "cubecl" => Layer::Cubecl(CubeRuntime::parse(inner)),
            _ if whole.starts_with("remote") => Layer::Remote,
            _ => Layer::Unknown(whole.to_owned()),
        }
    }

    /// The layers, outermost first.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// The name the stack was read from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The stack in a few words, for errors, warnings and reports: the layers, without a
    /// device's `Debug` dump; a remote device by its address.
    ///
    /// ```
    /// use burn_guard::capability::BackendStack;
    /// let remote = BackendStack::parse(
    ///     r#"router<remote-RemoteDevice { endpoint: WebSocket(Address { scheme: "ws", host: "127.0.0.1", port: Some(4000) }), device_index: 0, id: 0 }>"#,
    /// );
    /// assert_eq!(remote.label(), "router<remote ws://127.0.0.1:4000>");
    /// assert_eq!(BackendStack::parse("autodiff<flex>").label(), "autodiff<flex>");
    /// ```
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The address of the remote server behind a router stack, when its name gives one.
    pub fn remote_address(&self) -> Option<&str> {
        self.remote_address.as_deref()
    }

    /// How many `Autodiff` layers the stack has: 2 or more means nested autodiff.
    pub fn autodiff_depth(&self) -> usize {
        self.layers
            .iter()
            .filter(|layer| **layer == Layer::Autodiff)
            .count()
    }

    /// Whether any layer is `layer`.
    pub fn has(&self, layer: &Layer) -> bool {
        self.layers.contains(layer)
    }

    /// The innermost layer: the one that executes (or `Remote` for a router to a server).
    pub fn base(&self) -> Option<&Layer> {
        self.layers.last()
    }
}

fn label(layers: &[Layer], remote_address: Option<&str>) -> String {
    layers.iter().rev().fold(String::new(), |inner, layer| {
        let name = match layer {
            Layer::Autodiff => "autodiff".to_owned(),
            Layer::Fusion => "fusion".to_owned(),
            Layer::Router => "router".to_owned(),
            Layer::Dispatch => "dispatch".to_owned(),
            Layer::Cubecl(runtime) => format!("cubecl<{}>", runtime.name()),
            Layer::Flex => "flex".to_owned(),
            Layer::NdArray => "ndarray".to_owned(),
            Layer::Remote => match remote_address {
                Some(address) => format!("remote {address}"),
                None => "remote".to_owned(),
            },
            Layer::Unknown(name) => name.clone(),
        };
        if inner.is_empty() {
            name
        } else {
            format!("{name}<{inner}>")
        }
    })
}

impl fmt::Display for BackendStack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_stacks_burn_builds() {
        let cases: [(&str, Vec<Layer>); 6] = [
            ("flex", vec![Layer::Flex]),
            ("ndarray", vec![Layer::NdArray]),
            (
                "autodiff<autodiff<ndarray>>",
                vec![Layer::Autodiff, Layer::Autodiff, Layer::NdArray],
            ),
            (
                "fusion<cubecl<wgpu<wgsl>>>",
                vec![Layer::Fusion, Layer::Cubecl(CubeRuntime::WgpuWgsl)],
            ),
            (
                "router<remote-RemoteDevice { endpoint: WebSocket { .. }, device_index: 0, id: 0 }>",
                vec![Layer::Router, Layer::Remote],
            ),
            ("mystery<x>", vec![Layer::Unknown("mystery<x>".into())]),
        ];
        for (name, layers) in cases {
            assert_eq!(
                BackendStack::parse(name).layers(),
                layers.as_slice(),
                "{name}"
            );
        }
    }

    #[test]
    fn labels_drop_device_details() {
        for (name, label) in [
            ("dispatch<flex>", "dispatch<flex>"),
            ("fusion<cubecl<wgpu<wgsl>>>", "fusion<cubecl<wgpu<wgsl>>>"),
            ("autodiff<ndarray>", "autodiff<ndarray>"),
            (
                "router<remote-RemoteDevice { device_index: 0 }>",
                "router<remote>",
            ),
            (
                r#"router<remote-RemoteDevice { endpoint: WebSocket(Address { scheme: "ws", host: "127.0.0.1", port: Some(38801) }), device_index: 0, id: 0 }>"#,
                "router<remote ws://127.0.0.1:38801>",
            ),
            (
                r#"router<remote-RemoteDevice { endpoint: WebSocket { address: Address { inner: "wss://127.0.0.1:9" } } }>"#,
                "router<remote wss://127.0.0.1:9>",
            ),
        ] {
            assert_eq!(BackendStack::parse(name).label(), label, "{name}");
        }
    }
}
