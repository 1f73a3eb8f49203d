//! `burn::Tensor`-level remote devices, as burn 0.22 users hold them:
//! `Device::remote_options(&RemoteHost::websocket(address)).init()`, with burn's `remote`
//! features (burn-guard's `remote-device` feature turns them on).
//!
//! - [`connect_remote_device`]: the device, or [`GuardError::DeviceUnavailable`] within a
//!   bounded time (burn's own `init` retries a refused connection for 15.75 s and waits forever
//!   on a server that accepts but never answers).
//! - [`LoopbackRemoteDevice`]: burn's own `RemoteServer` hosting a Flex device on `127.0.0.1`,
//!   served in-process, and a client `Device` connected to it.
//!
//! A device connected through either is named by its address in every error, warning and
//! report (`remote ws://127.0.0.1:40123`). The deadline helpers of [`crate::devices`] take
//! these devices as they are: `sync_with_deadline::<Dispatch>(device.as_dispatch(), ..)`,
//! `read_with_deadline("into_data", .., tensor.into_data_async())`.

use std::time::Duration;

use burn::remote::RemoteHost;
use burn::tensor::Device;

use super::{LoopbackServer, connect_within, default_timeout};
use crate::error::Result;

/// Connects device `index` of the burn-remote server at `address` (`ws://host:port`) as a
/// `burn::Tensor` [`Device`], or says why not within `timeout` (plus the time to start a
/// thread).
///
/// The same bounded connect as [`connect_remote`](super::connect_remote) (one TCP probe, then
/// burn's `RemoteOptions::init` under [`with_deadline`](super::with_deadline)), at the level
/// burn 0.22's `Tensor` API uses. The device is named `remote <address>` from then on.
///
/// # Errors
///
/// [`GuardError::DeviceUnavailable`](crate::GuardError::DeviceUnavailable) when the address
/// does not resolve, nothing listens, burn refuses the session, or no session is open within
/// `timeout` (see [`connect_remote`](super::connect_remote) for what stays behind then).
///
/// ```
/// use std::time::Duration;
/// use burn_guard::{GuardError, devices::connect_remote_device};
///
/// let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
/// let err = connect_remote_device(&format!("ws://127.0.0.1:{port}"), 0, Duration::from_secs(1))
///     .unwrap_err();
/// assert!(matches!(err, GuardError::DeviceUnavailable { .. }));
/// assert!(err.to_string().contains(&format!("remote ws://127.0.0.1:{port}")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn connect_remote_device(address: &str, index: usize, timeout: Duration) -> Result<Device> {
    let device = connect_within("connect_remote_device", address, timeout, move |target| {
        Device::remote_options(&RemoteHost::websocket(target))
            .device_index(index)
            .init()
            .map_err(|err| format!("connect: {err}"))
    })?;
    crate::capability::remote::remember(device.as_dispatch(), address);
    Ok(device)
}

/// burn's `RemoteServer` hosting one Flex device on `127.0.0.1` (a port the OS picks), served
/// in-process over WebSocket, and a `burn::Tensor` [`Device`] connected to it: a real
/// Tensor-level remote device for tests, examples and the capability report. A
/// [`Loopback`](super::Loopback): [`stop`](super::Loopback::stop) takes the server away mid-run.
///
/// ```no_run
/// use burn::tensor::Tensor;
/// use burn_guard::devices::LoopbackRemoteDevice;
/// use burn_guard::capability::stack_of;
///
/// let remote = LoopbackRemoteDevice::start()?;
/// let x = Tensor::<2>::ones([2, 3], remote.device());
/// println!("{} on {}", x, stack_of(remote.device()).label());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
///
/// Stopped, the device stays; its reads and syncs return `Err`:
///
/// ```
/// use std::time::Duration;
/// use burn::tensor::Tensor;
/// use burn_guard::devices::{LoopbackRemoteDevice, read_with_deadline};
///
/// let mut remote = LoopbackRemoteDevice::start()?;
/// remote.stop();
/// assert!(!remote.is_running());
/// let x = Tensor::<1>::ones([4], remote.device());
/// let read = read_with_deadline("into_data", Duration::from_secs(1), x.into_data_async());
/// assert!(read.is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub type LoopbackRemoteDevice = super::Loopback<Device>;

impl super::Loopback<Device> {
    /// Binds `127.0.0.1:0`, serves `RemoteServer::new([Device::flex()])` on it and connects
    /// device 0 with [`connect_remote_device`] within
    /// [`default_timeout`].
    ///
    /// # Errors
    ///
    /// [`GuardError::DeviceUnavailable`](crate::GuardError::DeviceUnavailable) when the socket
    /// cannot be bound, the runtime cannot start, or the client cannot connect in time.
    pub fn start() -> Result<Self> {
        use burn::server::{RemoteServer, WebSocketTransport};

        let server = LoopbackServer::start("LoopbackRemoteDevice::start", |listener| {
            RemoteServer::new([Device::flex()])
                .serve_async(WebSocketTransport::from_listener(listener))
        })?;
        let device = connect_remote_device(&server.address, 0, default_timeout())?;
        Ok(Self { server, device })
    }
}
