//! The backend stack behind a `burn::Tensor`'s [`Device`], from its dispatch variant.
//!
//! The variants this build names (`Flex`, `NdArray`, `Cube` with its runtime, `Autodiff(..)`)
//! are matched as types. A variant this build's features leave out, but that burn was compiled
//! with because another crate asked for it (LibTorch, a remote device, a graph capture), is
//! read from the device's id through the seam ([`upstream::dispatch_variant`]: the high byte is
//! burn's `DispatchDeviceId`, the next three bits CubeCL's `RuntimeId`). Nothing is parsed from
//! a `Debug` string.

use std::sync::{OnceLock, PoisonError, RwLock};

use burn::backend::DispatchDevice;
use burn::tensor::Device;

use super::stack::{BackendStack, CubeRuntime};
use crate::upstream::{self, DispatchVariant};

/// The backend stack a `burn::Tensor` on `device` runs on, read from the device's dispatch
/// variant (`Flex`, `NdArray`, `Cube` and its runtime, `Remote`, `Autodiff(..)`).
///
/// Each variant is read once per process and shared: asking costs a match, not a parse. A
/// wgpu device is asked once which shader compiler it uses (burn's `vulkan` and `metal`
/// features change it), which opens the device; no other runtime is opened.
///
/// ```
/// use burn::tensor::Device;
/// use burn_guard::capability::{Layer, stack_of};
///
/// assert_eq!(stack_of(&Device::flex()).layers(), &[Layer::Dispatch, Layer::Flex]);
/// ```
pub fn stack_of(device: &Device) -> &'static BackendStack {
    let dispatch = device.as_dispatch();
    let (autodiff, base) = base_of(dispatch);
    let slot = base.slot() * 2 + usize::from(autodiff);
    static STACKS: [OnceLock<BackendStack>; 2 * BASE_SLOTS] =
        [const { OnceLock::new() }; 2 * BASE_SLOTS];
    match (base, STACKS.get(slot)) {
        (Base::Remote, _) => remote_stack(autodiff, dispatch),
        (Base::Unknown(_), _) | (_, None) => leak_other(autodiff, &base, dispatch),
        (_, Some(cached)) => cached.get_or_init(|| stack(autodiff, &base, dispatch)),
    }
}

/// The executing backend behind a dispatch device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Base {
    Flex,
    NdArray,
    /// A CubeCL device; the runtime tag as CubeCL numbers it (`RuntimeId`).
    Cube(u16),
    Remote,
    LibTorch,
    Capture,
    /// A dispatch variant this version of burn-guard does not know, by its id.
    Unknown(u16),
}

const BASE_SLOTS: usize = 11;

impl Base {
    /// A slot per base (Cube runtimes 0..=4, anything else shares the map).
    fn slot(self) -> usize {
        match self {
            Base::Flex => 0,
            Base::NdArray => 1,
            Base::Remote => 2,
            Base::LibTorch => 3,
            Base::Capture => 4,
            Base::Cube(runtime) if runtime <= 4 => 5 + usize::from(runtime),
            Base::Cube(_) | Base::Unknown(_) => BASE_SLOTS,
        }
    }

    /// The base behind a variant read from burn's device id
    /// ([`upstream::dispatch_variant`](crate::upstream::dispatch_variant)).
    pub(crate) fn from_variant(variant: DispatchVariant) -> Self {
        match variant {
            DispatchVariant::Cube(runtime) => Base::Cube(runtime),
            DispatchVariant::Flex => Base::Flex,
            DispatchVariant::LibTorch => Base::LibTorch,
            DispatchVariant::NdArray => Base::NdArray,
            DispatchVariant::Remote => Base::Remote,
            DispatchVariant::Capture => Base::Capture,
            DispatchVariant::Unknown(other) => Base::Unknown(other),
        }
    }
}

/// (whether autodiff wraps it, the executing backend).
pub(crate) fn base_of(device: &DispatchDevice) -> (bool, Base) {
    match device {
        #[cfg(feature = "flex")]
        DispatchDevice::Flex(_) => (false, Base::Flex),
        #[cfg(feature = "ndarray")]
        DispatchDevice::NdArray(_) => (false, Base::NdArray),
        #[cfg(feature = "wgpu")]
        DispatchDevice::Cube(cube) => (false, Base::Cube(cube_runtime_tag(cube))),
        #[cfg(feature = "remote-device")]
        DispatchDevice::Remote(_) => (false, Base::Remote),
        #[cfg(feature = "autodiff")]
        DispatchDevice::Autodiff(_) => (true, base_of(&device.clone().inner()).1),
        #[allow(unreachable_patterns)]
        other => (false, Base::from_variant(upstream::dispatch_variant(other))),
    }
}

/// CubeCL's `RuntimeId` number for a cube device, matched on its variant.
#[cfg(feature = "wgpu")]
fn cube_runtime_tag(device: &burn_backend::cubecl::Device) -> u16 {
    use burn_backend::cubecl::Device as Cube;
    match device {
        Cube::Cuda(_) => 0,
        Cube::Hip(_) => 1,
        Cube::Metal(_) => 2,
        Cube::Wgpu(_) => 3,
        Cube::Cpu(_) => 4,
        #[allow(unreachable_patterns)]
        other => upstream::cube_device_runtime_id(other),
    }
}

/// The runtime behind a CubeCL tag. Only wgpu has more than one compiler: it is asked.
fn cube_runtime(tag: u16, device: &DispatchDevice) -> CubeRuntime {
    match tag {
        0 => CubeRuntime::Cuda,
        1 => CubeRuntime::Hip,
        2 => CubeRuntime::Metal,
        3 => wgpu_compiler(device),
        4 => CubeRuntime::Cpu,
        other => CubeRuntime::Other(format!("cubecl runtime {other}")),
    }
}

/// `wgpu<wgsl>`, `wgpu<spirv>` or `wgpu<msl>`, from the name the backend gives the device
/// (opening it), under the backstop: a device that cannot open is taken for WGSL's default.
fn wgpu_compiler(device: &DispatchDevice) -> CubeRuntime {
    use burn_backend::Backend;
    let name = crate::panic::catch("backend name", || {
        <burn::backend::Dispatch as Backend>::name(device)
    });
    let stack = name.map(|name| BackendStack::parse(&name)).ok();
    stack
        .as_ref()
        .and_then(|stack| {
            stack.layers().iter().find_map(|layer| match layer {
                super::Layer::Cubecl(runtime) => Some(runtime.clone()),
                _ => None,
            })
        })
        .unwrap_or(CubeRuntime::WgpuWgsl)
}

fn stack(autodiff: bool, base: &Base, device: &DispatchDevice) -> BackendStack {
    let inner = match base {
        Base::Flex => "flex".to_owned(),
        Base::NdArray => "ndarray".to_owned(),
        Base::Cube(tag) => format!("fusion<cubecl<{}>>", cube_runtime(*tag, device).name()),
        Base::Remote => "router<remote>".to_owned(),
        Base::LibTorch => "libtorch".to_owned(),
        Base::Capture => "capture".to_owned(),
        Base::Unknown(id) => format!("dispatch-variant-{id}"),
    };
    if autodiff {
        BackendStack::parse(&format!("dispatch<autodiff<{inner}>>"))
    } else {
        BackendStack::parse(&format!("dispatch<{inner}>"))
    }
}

/// A remote device's stack, named by its server: one per (autodiff, device), since each
/// remote device has its own address. burn-remote registers at most 65,536 remote devices per
/// process, which bounds what is kept.
fn remote_stack(autodiff: bool, device: &DispatchDevice) -> &'static BackendStack {
    use std::collections::HashMap;

    type Remotes = RwLock<HashMap<(bool, u16), &'static BackendStack>>;
    static REMOTES: OnceLock<Remotes> = OnceLock::new();
    let remotes = REMOTES.get_or_init(|| RwLock::new(HashMap::new()));
    let key = (autodiff, upstream::dispatch_index(device));
    if let Some(stack) = remotes
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
    {
        return stack;
    }
    let remote = match super::remote::address_of(device) {
        Some(address) => format!("remote {address}"),
        None => "remote".to_owned(),
    };
    let stack = if autodiff {
        BackendStack::parse(&format!("dispatch<autodiff<router<{remote}>>>"))
    } else {
        BackendStack::parse(&format!("dispatch<router<{remote}>>"))
    };
    remotes
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(key)
        .or_insert_with(|| Box::leak(Box::new(stack)))
}

/// A base without a fixed slot: read once per (autodiff, base) and kept.
fn leak_other(autodiff: bool, base: &Base, device: &DispatchDevice) -> &'static BackendStack {
    use std::collections::HashMap;

    type Others = RwLock<HashMap<(bool, Base), &'static BackendStack>>;
    static OTHERS: OnceLock<Others> = OnceLock::new();
    let others = OTHERS.get_or_init(|| RwLock::new(HashMap::new()));
    if let Some(stack) = others
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&(autodiff, *base))
    {
        return stack;
    }
    others
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .entry((autodiff, *base))
        .or_insert_with(|| Box::leak(Box::new(stack(autodiff, base, device))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::Layer;

    /// Every CubeCL runtime this build can construct a device for gets its own runtime, and
    /// only wgpu (asked for its compiler) can get the measured WGSL table.
    #[cfg(feature = "wgpu")]
    #[test]
    fn cube_runtimes_other_than_wgpu_are_never_wgsl() {
        use burn_backend::cubecl::Device as Cube;
        let devices = [
            (Cube::Cuda(Default::default()), CubeRuntime::Cuda),
            (Cube::Hip(Default::default()), CubeRuntime::Hip),
            (Cube::Metal(Default::default()), CubeRuntime::Metal),
            (Cube::Cpu(Default::default()), CubeRuntime::Cpu),
        ];
        for (cube, runtime) in devices {
            let dispatch = DispatchDevice::Cube(cube);
            let (autodiff, base) = base_of(&dispatch);
            assert!(!autodiff);
            let stack = stack(autodiff, &base, &dispatch);
            assert_eq!(
                stack.base(),
                Some(&Layer::Cubecl(runtime.clone())),
                "{runtime:?}"
            );
            // The runtime's own id agrees with the variant match.
            assert_eq!(
                Base::from_variant(upstream::dispatch_variant(&dispatch)),
                base,
                "{runtime:?}"
            );
        }
    }

    /// A remote device is read as what it is from its variant (typed, with this build's
    /// `remote-device` feature) and from its id alike (what a build without the feature sees
    /// when burn was compiled with `remote` for another crate); its host comes from burn's name
    /// for it when burn-guard did not connect it. Building the device connects nothing.
    #[cfg(feature = "remote-device")]
    #[test]
    fn a_remote_device_is_a_router_to_its_host() {
        let remote = burn_remote::RemoteDevice::default();
        let dispatch = DispatchDevice::from(remote);
        assert_eq!(base_of(&dispatch), (false, Base::Remote));
        assert_eq!(
            Base::from_variant(upstream::dispatch_variant(&dispatch)),
            Base::Remote
        );
        let stack = stack_of(&Device::new(dispatch));
        assert_eq!(
            stack.layers(),
            &[Layer::Dispatch, Layer::Router, Layer::Remote]
        );
        // burn's default remote device: `BURN_REMOTE_ADDRESS`, else ws://127.0.0.1:3000.
        let address = std::env::var("BURN_REMOTE_ADDRESS")
            .unwrap_or_else(|_| "ws://127.0.0.1:3000".to_owned());
        assert_eq!(stack.label(), format!("dispatch<router<remote {address}>>"));
    }
}
