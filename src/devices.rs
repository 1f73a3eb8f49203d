//! Finding the real devices this machine offers, without panicking when one is missing.
//!
//! - [`wgpu_adapter`]: the wgpu device burn would pick, with its adapter's name, or
//!   [`GuardError::DeviceUnavailable`] when there is no adapter (burn itself panics on the first
//!   tensor in that case).
//! - [`LoopbackRemote`]: a real burn-remote server (`BackendServer<Flex>` over WebSocket) bound
//!   to `127.0.0.1` on a port the OS picks, served in-process, with a client device connected to
//!   it. Tests and examples use it to exercise burn's router backend for real.

#[cfg(any(feature = "wgpu", feature = "remote"))]
use crate::error::{GuardError, Result};

/// A wgpu adapter and the burn [`Device`](burn::tensor::Device) that runs on it.
#[cfg(feature = "wgpu")]
#[derive(Debug, Clone)]
pub struct WgpuAdapter {
    /// The adapter as it names itself, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)` or
    /// `NVIDIA H200`.
    pub name: String,
    /// The burn device on that adapter.
    pub device: burn::tensor::Device,
}

/// The wgpu adapter burn picks by default (`DeviceKind::DefaultDevice`, automatic graphics
/// API), initialised once per process and cached.
///
/// # Errors
///
/// [`GuardError::DeviceUnavailable`] with wgpu's reason when no adapter can be opened.
///
/// ```no_run
/// match burn_guard::devices::wgpu_adapter() {
///     Ok(adapter) => println!("wgpu on {}", adapter.name),
///     Err(err) => println!("{err}"),
/// }
/// ```
#[cfg(feature = "wgpu")]
pub fn wgpu_adapter() -> Result<WgpuAdapter> {
    use std::sync::OnceLock;

    static ADAPTER: OnceLock<std::result::Result<WgpuAdapter, String>> = OnceLock::new();
    ADAPTER
        .get_or_init(probe_wgpu)
        .clone()
        .map_err(|reason| GuardError::DeviceUnavailable {
            device: "wgpu".into(),
            reason,
        })
}

#[cfg(feature = "wgpu")]
fn probe_wgpu() -> std::result::Result<WgpuAdapter, String> {
    use burn::tensor::{Device, DeviceKind};

    use crate::panic::catch;

    // `init` refuses to register a runtime twice; if someone got there first the default
    // device is already usable, which `identity` below proves.
    let (device, init_error) = match catch("wgpu init", || Device::wgpu_options().init()) {
        Ok(Ok(device)) => (device, None),
        Ok(Err(err)) => (
            Device::wgpu(DeviceKind::DefaultDevice),
            Some(err.to_string()),
        ),
        Err(panic) => (
            Device::wgpu(DeviceKind::DefaultDevice),
            Some(panic.to_string()),
        ),
    };
    match catch("wgpu identity", || device.as_dispatch().identity()) {
        Ok(identity) => Ok(WgpuAdapter {
            name: identity.map_or_else(|| "unnamed adapter".to_owned(), |id| id.name),
            device,
        }),
        Err(panic) => Err(crate::error::one_line(
            &init_error.unwrap_or_else(|| panic.to_string()),
        )),
    }
}

/// A burn-remote server on `127.0.0.1`, served in-process, and a client device connected to it.
///
/// The server hosts one default [`Flex`](burn_flex::Flex) device. Dropping the value stops the
/// server (its Tokio runtime shuts down in the background).
///
/// ```no_run
/// use burn_backend::Backend;
/// use burn_guard::devices::LoopbackRemote;
/// use burn_remote::RemoteBackend;
///
/// let remote = LoopbackRemote::start()?;
/// println!("{} -> {}", remote.address(), RemoteBackend::name(remote.device()));
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[cfg(feature = "remote")]
pub struct LoopbackRemote {
    runtime: Option<tokio::runtime::Runtime>,
    address: String,
    device: burn_remote::RemoteDevice,
}

#[cfg(feature = "remote")]
impl LoopbackRemote {
    /// Binds `127.0.0.1:0`, serves a `BackendServer<Flex>` on it and connects device 0.
    ///
    /// # Errors
    ///
    /// [`GuardError::DeviceUnavailable`] when the socket cannot be bound, the runtime cannot
    /// start, or the client cannot connect.
    pub fn start() -> Result<Self> {
        use burn_remote::server::{BackendServer, WebSocketTransport};

        let unavailable = |reason: String| GuardError::DeviceUnavailable {
            device: "remote 127.0.0.1".into(),
            reason,
        };
        let listener = std::net::TcpListener::bind("127.0.0.1:0")
            .map_err(|e| unavailable(format!("bind: {e}")))?;
        let local = listener
            .local_addr()
            .map_err(|e| unavailable(format!("local address: {e}")))?;
        let address = format!("ws://{local}");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("burn-guard-loopback")
            .enable_all()
            .build()
            .map_err(|e| unavailable(format!("tokio runtime: {e}")))?;
        let serving = BackendServer::<burn_flex::Flex>::new(vec![Default::default()])
            .serve_async(WebSocketTransport::from_listener(listener));
        runtime.spawn(async move {
            if let Err(err) = serving.await {
                log::error!("burn-guard loopback remote stopped: {err}");
            }
        });
        let device = burn_remote::HostSpec::websocket(&address)
            .connect(0)
            .map_err(|e| GuardError::DeviceUnavailable {
                device: format!("remote {address}"),
                reason: format!("connect: {e}"),
            })?;
        Ok(Self {
            runtime: Some(runtime),
            address,
            device,
        })
    }

    /// The WebSocket address the server listens on, e.g. `ws://127.0.0.1:40123`.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The connected client device, for [`burn_remote::RemoteBackend`].
    pub fn device(&self) -> &burn_remote::RemoteDevice {
        &self.device
    }
}

#[cfg(feature = "remote")]
impl Drop for LoopbackRemote {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[cfg(feature = "remote")]
impl std::fmt::Debug for LoopbackRemote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackRemote")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}
