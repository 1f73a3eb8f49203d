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
    /// A CubeCL backend; the runtime as it names itself (`wgpu<wgsl>`, `cuda`, …).
    Cubecl(String),
    /// burn-flex.
    Flex,
    /// burn-ndarray.
    NdArray,
    /// A router channel to a burn-remote server.
    Remote,
    /// A backend burn-guard has no table for, by its name.
    Unknown(String),
}

/// A backend stack: its layers, outermost first, and the name it was read from.
///
/// ```
/// use burn_guard::capability::{BackendStack, Layer};
///
/// let stack = BackendStack::parse("autodiff<autodiff<flex>>");
/// assert_eq!(stack.layers(), &[Layer::Autodiff, Layer::Autodiff, Layer::Flex]);
/// assert_eq!(stack.autodiff_depth(), 2);
/// assert_eq!(stack.base(), Some(&Layer::Flex));
///
/// let wgpu = BackendStack::parse("fusion<cubecl<wgpu<wgsl>>>");
/// assert_eq!(wgpu.base(), Some(&Layer::Cubecl("wgpu<wgsl>".into())));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BackendStack {
    layers: Vec<Layer>,
    name: String,
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
        Self {
            layers,
            name: name.to_owned(),
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
            "cubecl" => Layer::Cubecl(inner.to_owned()),
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
                vec![Layer::Fusion, Layer::Cubecl("wgpu<wgsl>".into())],
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
}
