//! Finding the real devices this machine offers, without panicking when one is missing, and
//! bounding the calls that can block on one.
//!
//! - [`wgpu_adapter`]: the wgpu device burn would pick, with its adapter's name, or
//!   [`GuardError::DeviceUnavailable`] when there is no adapter (burn itself panics on the first
//!   tensor in that case).
//! - [`LoopbackRemote`]: a real burn-remote server (`BackendServer<Flex>` over WebSocket) bound
//!   to `127.0.0.1` on a port the OS picks, served in-process, with a client device connected to
//!   it. Tests and examples use it to exercise burn's router backend for real;
//!   [`Loopback::stop`] takes the server away mid-run.
//! - [`loopback_listener`]: a loopback port no earlier server of this process had (burn-remote
//!   keeps client sessions by address, dead ones included).
//! - [`connect_remote`]: a burn-remote device at an address, or
//!   [`GuardError::DeviceUnavailable`] within a bounded time.
//! - `connect_remote_device` and `LoopbackRemoteDevice` (feature `remote-device`): the same
//!   two at the `burn::Tensor` level, for burn's `Device::remote_options(..)` devices.
//! - [`with_deadline`], [`read_with_deadline`], [`sync_with_deadline`]: a bounded wait around
//!   calls that can block on a device, returning [`GuardError::Timeout`].
//! - [`health`], [`probe_health`], [`require_healthy`], [`reinstate`]: whether a device is
//!   poisoned (burn said so), tainted (a task failed on it and burn only logged it, seen by
//!   the opt-in [`TaintLogger`] / [`install_taint_logger`]) or quarantined (a shadow check saw
//!   it disagree); twins and guarded reads refuse such a device with
//!   [`GuardError::DeviceUnavailable`].
//! - [`set_memory_budget`], [`memory_budget`]: an opt-in byte budget per device, held by every
//!   allocating twin ([`GuardError::OutOfMemory`]).
//!
//! # What burn-remote 0.22.1 does when the server is missing (measured on 127.0.0.1)
//!
//! | fault | burn-remote | with burn-guard |
//! |---|---|---|
//! | nothing listens on the port | `HostSpec::connect` retries a refused connection for 15.75 s (250 ms … 8 s apart), then `ConnectError::Unreachable` | [`connect_remote`]: `DeviceUnavailable` at the first refusal (well under a millisecond) |
//! | the port accepts but never answers (a hung server) | `connect` blocks forever (no handshake timeout) | [`connect_remote`]: `DeviceUnavailable` at the deadline |
//! | the server stops mid-run (its sockets close) | ops are fire-and-forget and "succeed"; a read or a sync returns `Err` within a millisecond (the client notices the closed socket) | the same `Err`, through the guarded read ([`read_with_deadline`] → [`GuardError::Execution`]) |
//! | the server freezes mid-run (sockets stay open, nothing answers) | a read or a sync blocks forever (TCP keep-alive never fires while the peer's kernel still answers); a blocked sync also blocks the device's runner thread, so every later blocking call on that device blocks too | [`read_with_deadline`] / [`sync_with_deadline`]: [`GuardError::Timeout`] at the deadline, every time |
//!
//! # The bound
//!
//! [`DEFAULT_TIMEOUT`] is 5 s: a loopback read back or sync answers in well under a
//! millisecond and a handshake in a few, so 5 s is three orders of magnitude of headroom for a
//! loaded machine or a real network, and still short enough that a dead server is reported
//! while someone is waiting. Every function here takes its timeout explicitly;
//! [`default_timeout`] / [`set_default_timeout`] hold the process-wide value for callers that
//! do not choose one (a read back of a large tensor over a slow network needs more: about
//! 8.6 s per GiB at 1 Gbit/s).

#[cfg(feature = "remote-device")]
mod remote_device;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use burn_backend::{Backend, ExecutionError, StreamId, TensorData, try_read_sync};

use crate::error::{GuardError, Result};

#[cfg(feature = "remote-device")]
pub use remote_device::{LoopbackRemoteDevice, connect_remote_device};

/// A device's health and memory budget: kept with its other capabilities, offered here where
/// a service looks for its devices.
pub use crate::capability::{
    DeviceHealth, SAMPLE_PERIOD, TaintLogger, health, install_taint_logger, memory_budget,
    probe_health, reinstate, require_healthy, set_memory_budget,
};

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
            op: "wgpu_adapter",
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

/// The documented default deadline for calls that can block on a device: 5 s.
///
/// See the [module documentation](self#the-bound) for why. [`default_timeout`] starts at this
/// value.
///
/// ```
/// assert_eq!(burn_guard::devices::DEFAULT_TIMEOUT.as_secs(), 5);
/// ```
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The process-wide deadline, in nanoseconds (saturating at about 584 years).
static TIMEOUT_NANOS: AtomicU64 = AtomicU64::new(5_000_000_000);

/// The process-wide deadline used where a caller does not pass one: [`DEFAULT_TIMEOUT`] until
/// [`set_default_timeout`] changes it.
///
/// ```
/// let bound = burn_guard::devices::default_timeout();
/// assert!(bound > std::time::Duration::ZERO);
/// ```
pub fn default_timeout() -> Duration {
    Duration::from_nanos(TIMEOUT_NANOS.load(Ordering::Relaxed))
}

/// Sets the process-wide deadline returned by [`default_timeout`] (for every thread).
///
/// ```
/// use std::time::Duration;
/// use burn_guard::devices::{DEFAULT_TIMEOUT, default_timeout, set_default_timeout};
///
/// set_default_timeout(Duration::from_secs(30)); // a slow network, large tensors
/// assert_eq!(default_timeout(), Duration::from_secs(30));
/// set_default_timeout(DEFAULT_TIMEOUT);
/// ```
pub fn set_default_timeout(timeout: Duration) {
    let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
    TIMEOUT_NANOS.store(nanos, Ordering::Relaxed);
}

/// Runs `f` on a helper thread and waits for it at most `timeout`.
///
/// `f` runs on the caller's burn stream ([`StreamId::current`] of the calling thread), so
/// remote work it submits is ordered with the caller's own, and under the
/// [panic backstop](crate::panic::catch): a panic inside it comes back as
/// [`GuardError::BackendPanic`] (with the backstop disabled, the panic is resumed on the
/// calling thread instead).
///
/// Use it around calls that can block on a device: reads back, syncs, connects. A call that
/// cannot block gains nothing but the cost of a thread (tens of microseconds). After a timeout
/// the abandoned call may still submit work on the caller's stream.
///
/// # Errors
///
/// - [`GuardError::Timeout`] when `f` has not returned after `timeout`. **The helper thread is
///   left behind**, still blocked inside `f`; it ends when `f` returns (for a remote device,
///   when its socket closes), and its result is dropped. Each timed-out call leaks one thread
///   for as long as the device stays hung.
/// - [`GuardError::BackendPanic`] when `f` panics.
/// - [`GuardError::DeviceUnavailable`] when the helper thread cannot be started.
///
/// ```
/// use std::time::Duration;
/// use burn_guard::{GuardError, devices::with_deadline};
///
/// assert_eq!(with_deadline("add", Duration::from_secs(5), || 1 + 1)?, 2);
///
/// let err = with_deadline("hang", Duration::from_millis(10), || {
///     std::thread::sleep(Duration::from_millis(200))
/// })
/// .unwrap_err();
/// assert!(matches!(err, GuardError::Timeout { op: "hang", .. }));
/// # Ok::<(), GuardError>(())
/// ```
pub fn with_deadline<T, F>(op: &'static str, timeout: Duration, f: F) -> Result<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    use std::sync::mpsc::{RecvTimeoutError, sync_channel};

    let stream = StreamId::current();
    let (sender, receiver) = sync_channel(1);
    let helper = std::thread::Builder::new()
        .name(format!("burn-guard-deadline {op}"))
        .spawn(move || {
            let outcome = stream.executes(|| crate::panic::catch(op, f));
            // The caller may have stopped waiting; then the result is dropped here.
            let _ = sender.send(outcome);
        })
        .map_err(|err| GuardError::DeviceUnavailable {
            op,
            // The deadline's thread runs on the host, whatever device `f` uses.
            device: "host".into(),
            reason: format!("cannot start the deadline thread: {err}"),
        })?;
    match receiver.recv_timeout(timeout) {
        Ok(outcome) => outcome,
        Err(RecvTimeoutError::Timeout) => Err(GuardError::Timeout { op, after: timeout }),
        // The helper ended without sending: `f` panicked with the backstop disabled.
        Err(RecvTimeoutError::Disconnected) => match helper.join() {
            Err(payload) => std::panic::resume_unwind(payload),
            Ok(()) => Err(GuardError::BackendPanic {
                op,
                message: "the deadline thread ended without a result".into(),
                location: None,
            }),
        },
    }
}

/// Waits at most `timeout` for a read back: the future of a backend's `*_into_data`
/// (`B::float_into_data(tensor)`, `B::int_into_data`, `B::bool_into_data`, `B::q_into_data`).
///
/// burn's read futures are lazy: nothing is submitted until the future is polled, which
/// happens on the helper thread of [`with_deadline`], on the caller's stream.
///
/// # Errors
///
/// - [`GuardError::Timeout`] when no data came back within `timeout` (a hung or frozen
///   server); the helper thread is left behind as [`with_deadline`] describes.
/// - [`GuardError::Execution`] when the backend reports the read as failed (a server that
///   stopped: its socket closed).
/// - [`GuardError::BackendPanic`] when the read panics.
/// - [`GuardError::DeviceUnavailable`] where reads cannot block (wasm).
///
/// ```
/// use std::time::Duration;
/// use burn_backend::{TensorData, ops::FloatTensorOps};
/// use burn_flex::Flex;
/// use burn_guard::devices::read_with_deadline;
///
/// let x = Flex::float_from_data(TensorData::from([1.0f32, 2.0]), &Default::default());
/// let data = read_with_deadline("float_into_data", Duration::from_secs(5), Flex::float_into_data(x))?;
/// assert_eq!(data.try_to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn read_with_deadline<F>(op: &'static str, timeout: Duration, read: F) -> Result<TensorData>
where
    F: Future<Output = core::result::Result<TensorData, ExecutionError>> + Send + 'static,
{
    with_deadline(op, timeout, move || try_read_sync(read))?
        .ok_or_else(|| GuardError::DeviceUnavailable {
            op,
            // A read future does not say its device; what cannot block is the host.
            device: "host".into(),
            reason: "cannot read tensor data synchronously on this platform".into(),
        })?
        .map_err(|cause| GuardError::Execution { op, cause })
}

/// [`Backend::sync`] on `device`, waiting at most `timeout`.
///
/// A remote sync blocks the device's runner thread until the server answers, so after a
/// timeout every later blocking call on that device (reads, syncs) waits behind it: wrap
/// those in a deadline too.
///
/// # Errors
///
/// - [`GuardError::Timeout`] when the device did not answer within `timeout`.
/// - [`GuardError::Execution`] when the backend reports the sync as failed (a stopped server).
/// - [`GuardError::BackendPanic`] when the sync panics.
///
/// ```
/// use std::time::Duration;
/// use burn_flex::Flex;
///
/// burn_guard::devices::sync_with_deadline::<Flex>(&Default::default(), Duration::from_secs(5))?;
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn sync_with_deadline<B: Backend>(device: &B::Device, timeout: Duration) -> Result<()> {
    const OP: &str = "sync";
    let device = device.clone();
    with_deadline(OP, timeout, move || B::sync(&device))?
        .map_err(|cause| GuardError::Execution { op: OP, cause })
}

/// Connects device `index` of the burn-remote server at `address` (`ws://host:port`), or says
/// why not within `timeout` (plus the time to start a thread).
///
/// Before handing the address to burn, the TCP port is probed once: when nothing listens (the
/// connection is refused), this returns at once. burn's own
/// [`HostSpec::connect`](burn_remote::HostSpec::connect) retries a refused connection for
/// 15.75 s, for a server that is still starting; call this again if yours may be. When the port
/// accepts, burn connects and runs its handshake under [`with_deadline`].
///
/// # Errors
///
/// [`GuardError::DeviceUnavailable`] when the address does not resolve, nothing listens
/// (connection refused), burn refuses the session (wrong device index, protocol version,
/// credential), or no session is open within `timeout` (a server that accepts but never
/// answers: burn would wait forever). In the last case burn's connect is left running on its
/// own thread and the device stays registered in burn's process-wide registry with its runner
/// thread blocked, so a later connect to the same address and index also waits (and times out)
/// until that socket closes. [`GuardError::BackendPanic`] if burn panics.
///
/// ```
/// use std::time::Duration;
/// use burn_guard::{GuardError, devices::connect_remote};
///
/// // A port that was free a moment ago: nothing listens there.
/// let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
/// let err = connect_remote(&format!("ws://127.0.0.1:{port}"), 0, Duration::from_secs(1)).unwrap_err();
/// assert!(matches!(err, GuardError::DeviceUnavailable { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "remote")]
pub fn connect_remote(
    address: &str,
    index: usize,
    timeout: Duration,
) -> Result<burn_remote::RemoteDevice> {
    connect_within("connect_remote", address, timeout, move |target| {
        burn_remote::HostSpec::websocket(target)
            .connect(index)
            .map_err(|err| format!("connect: {err}"))
    })
}

/// Probes `address`'s port, then runs `connect` under [`with_deadline`]: the bounded connect
/// both remote levels share. Every failure is [`GuardError::DeviceUnavailable`] naming
/// `remote <address>`.
#[cfg(feature = "remote")]
pub(crate) fn connect_within<T, C>(
    op: &'static str,
    address: &str,
    timeout: Duration,
    connect: C,
) -> Result<T>
where
    T: Send + 'static,
    C: FnOnce(&str) -> std::result::Result<T, String> + Send + 'static,
{
    let device = format!("remote {address}");
    let unavailable = |reason: String| GuardError::DeviceUnavailable {
        op,
        device: device.clone(),
        reason,
    };
    let target = address.to_owned();
    let started = std::time::Instant::now();
    match with_deadline(op, timeout, move || {
        probe_port(&target, timeout)?;
        connect(&target)
    }) {
        Ok(Ok(device)) => Ok(device),
        Ok(Err(reason)) => Err(unavailable(reason)),
        Err(GuardError::Timeout { .. }) => Err(unavailable(format!(
            "no session within {timeout:?} (the port accepted, the handshake got no answer)"
        ))),
        Err(GuardError::DeviceUnavailable { reason, .. }) => Err(unavailable(reason)),
        Err(other) => Err(other),
    }
    .inspect_err(|err| log::debug!("{err} (after {:?})", started.elapsed()))
}

/// One TCP connect to the address's port: `Err` with the reason when nothing can be reached.
/// Addresses without a port are left to burn.
#[cfg(feature = "remote")]
pub(crate) fn probe_port(address: &str, timeout: Duration) -> std::result::Result<(), String> {
    use std::net::{TcpStream, ToSocketAddrs};

    let rest = address
        .trim()
        .split_once("://")
        .map_or(address.trim(), |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(_, port)| port.parse::<u16>().is_ok());
    if !has_port {
        return Ok(());
    }
    let addrs: Vec<_> = authority
        .to_socket_addrs()
        .map_err(|err| format!("resolve {authority}: {err}"))?
        .collect();
    let per_try = timeout.max(Duration::from_millis(1));
    let mut last = format!("{authority} resolves to no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, per_try) {
            Ok(_probe) => return Ok(()),
            Err(err) if err.kind() == std::io::ErrorKind::ConnectionRefused => {
                last = format!("connection refused at {addr}: nothing listens there");
            }
            Err(err) => last = format!("tcp connect to {addr}: {err}"),
        }
    }
    Err(last)
}

/// A server on `127.0.0.1`, served in-process, and a client device `D` connected to it:
/// [`LoopbackRemote`] (burn-remote's `BackendServer`, a [`burn_remote::RemoteDevice`]) and,
/// with `remote-device`, [`LoopbackRemoteDevice`] (burn's `RemoteServer`, a `burn::Tensor`
/// [`Device`](burn::tensor::Device)).
///
/// The server hosts one default [`Flex`](burn_flex::Flex) device. [`stop`](Self::stop) takes
/// it away mid-run (the client device stays, and its reads fail); dropping the value stops the
/// server too (its Tokio runtime shuts down in the background).
#[cfg(feature = "remote")]
pub struct Loopback<D> {
    server: LoopbackServer,
    device: D,
}

/// burn-remote's `BackendServer<Flex>` on `127.0.0.1`, and a [`burn_remote::RemoteDevice`]
/// connected to it.
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
pub type LoopbackRemote = Loopback<burn_remote::RemoteDevice>;

#[cfg(feature = "remote")]
impl Loopback<burn_remote::RemoteDevice> {
    /// Binds `127.0.0.1:0`, serves a `BackendServer<Flex>` on it and connects device 0 with
    /// [`connect_remote`] within [`default_timeout`].
    ///
    /// # Errors
    ///
    /// [`GuardError::DeviceUnavailable`] when the socket cannot be bound, the runtime cannot
    /// start, or the client cannot connect in time.
    pub fn start() -> Result<Self> {
        use burn_remote::server::{BackendServer, WebSocketTransport};

        let server = LoopbackServer::start("LoopbackRemote::start", |listener| {
            BackendServer::<burn_flex::Flex>::new(vec![Default::default()])
                .serve_async(WebSocketTransport::from_listener(listener))
        })?;
        let device = connect_remote(&server.address, 0, default_timeout())?;
        Ok(Self { server, device })
    }
}

#[cfg(feature = "remote")]
impl<D> Loopback<D> {
    /// The WebSocket address the server listens on, e.g. `ws://127.0.0.1:40123`.
    pub fn address(&self) -> &str {
        &self.server.address
    }

    /// The connected client device.
    pub fn device(&self) -> &D {
        &self.device
    }

    /// Stops the server mid-run: its runtime shuts down, waiting up to a second for its tasks
    /// to drop, which closes the listener and every session socket. The client device stays;
    /// what it had submitted is lost, and its reads and syncs return `Err` (the client notices
    /// the closed socket). Stopping twice does nothing.
    ///
    /// Called from inside a Tokio runtime, it cannot wait and shuts down in the background:
    /// the sockets close a moment later.
    ///
    /// ```
    /// use std::time::Duration;
    /// use burn_backend::{TensorData, ops::FloatTensorOps};
    /// use burn_guard::devices::{LoopbackRemote, read_with_deadline};
    /// use burn_remote::RemoteBackend;
    ///
    /// let mut remote = LoopbackRemote::start()?;
    /// remote.stop();
    /// assert!(!remote.is_running());
    /// let x = RemoteBackend::float_from_data(TensorData::from([1.0f32]), remote.device());
    /// let read = RemoteBackend::float_into_data(x);
    /// assert!(read_with_deadline("float_into_data", Duration::from_secs(1), read).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn stop(&mut self) {
        self.server.stop();
    }

    /// Whether the server is still serving: `false` after [`stop`](Self::stop).
    ///
    /// ```
    /// let remote = burn_guard::devices::LoopbackRemote::start()?;
    /// assert!(remote.is_running());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn is_running(&self) -> bool {
        self.server.is_running()
    }
}

#[cfg(feature = "remote")]
impl<D> std::fmt::Debug for Loopback<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loopback")
            .field("address", &self.server.address)
            .field("running", &self.is_running())
            .finish_non_exhaustive()
    }
}

/// A server task on `127.0.0.1`, on a port the OS picks, served on its own Tokio runtime:
/// what [`LoopbackRemote`] and the `burn::Tensor`-level loopback share.
#[cfg(feature = "remote")]
pub(crate) struct LoopbackServer {
    runtime: Option<tokio::runtime::Runtime>,
    pub(crate) address: String,
}

#[cfg(feature = "remote")]
impl LoopbackServer {
    /// Binds `127.0.0.1:0` and spawns `serve(listener)` on a fresh runtime, for `op` (the
    /// loopback's own `start`).
    ///
    /// # Errors
    ///
    /// [`GuardError::DeviceUnavailable`] when the socket cannot be bound or the runtime cannot
    /// start.
    pub(crate) fn start<S, F, E>(op: &'static str, serve: S) -> Result<Self>
    where
        S: FnOnce(std::net::TcpListener) -> F,
        F: Future<Output = std::result::Result<(), E>> + Send + 'static,
        E: std::fmt::Display,
    {
        let unavailable = |reason: String| GuardError::DeviceUnavailable {
            op,
            device: "remote 127.0.0.1".into(),
            reason,
        };
        let listener = loopback_listener()?;
        let local = listener
            .local_addr()
            .map_err(|e| unavailable(format!("local address: {e}")))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("burn-guard-loopback")
            .enable_all()
            .build()
            .map_err(|e| unavailable(format!("tokio runtime: {e}")))?;
        let serving = serve(listener);
        runtime.spawn(async move {
            if let Err(err) = serving.await {
                log::error!("burn-guard loopback remote stopped: {err}");
            }
        });
        Ok(Self {
            runtime: Some(runtime),
            address: format!("ws://{local}"),
        })
    }

    /// Shuts the runtime down, waiting up to a second for its tasks to drop (in the
    /// background when called from inside a Tokio runtime, which cannot wait).
    pub(crate) fn stop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            if tokio::runtime::Handle::try_current().is_ok() {
                runtime.shutdown_background();
            } else {
                runtime.shutdown_timeout(Duration::from_secs(1));
            }
        }
    }

    pub(crate) fn is_running(&self) -> bool {
        self.runtime.is_some()
    }
}

/// A listener on `127.0.0.1` on a port no earlier listener from this function had in this
/// process: for serving burn-remote (or a proxy in front of it) on loopback.
///
/// burn-remote keeps one client session per (address, device index) for the life of the
/// process and hands it back to every later connect: a new server on a port the OS recycled
/// from a stopped one would be reached through the stopped one's dead session. Ports already
/// handed out are skipped, holding each refused listener until a fresh port comes, so the OS
/// cannot give the same one twice in a row. [`LoopbackRemote`] binds through it.
///
/// # Errors
///
/// [`GuardError::DeviceUnavailable`] when `127.0.0.1` cannot be bound, or 64 binds in a row
/// gave ports handed out before.
///
/// ```
/// let a = burn_guard::devices::loopback_listener()?;
/// let b = burn_guard::devices::loopback_listener()?;
/// assert_ne!(a.local_addr()?.port(), b.local_addr()?.port());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "remote")]
pub fn loopback_listener() -> Result<std::net::TcpListener> {
    use std::collections::HashSet;
    use std::sync::{Mutex, PoisonError};

    let unavailable = |reason: String| GuardError::DeviceUnavailable {
        op: "loopback_listener",
        device: "remote 127.0.0.1".into(),
        reason,
    };
    static USED: Mutex<Option<HashSet<u16>>> = Mutex::new(None);
    let mut used = USED.lock().unwrap_or_else(PoisonError::into_inner);
    let used = used.get_or_insert_with(HashSet::new);
    let mut held = Vec::new();
    for _ in 0..64 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")
            .map_err(|e| unavailable(format!("bind: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| unavailable(format!("local address: {e}")))?
            .port();
        if used.insert(port) {
            return Ok(listener);
        }
        held.push(listener);
    }
    Err(unavailable(
        "64 binds in a row gave ports handed out before".into(),
    ))
}

#[cfg(feature = "remote")]
impl Drop for LoopbackServer {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
