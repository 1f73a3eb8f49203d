//! The parent's side of a cell: start the child, send it requests under a deadline, read how
//! it died, restart it within the restart policy, verify the restarted child.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use burn::tensor::{Device, Tensor, TensorData};
use serde::Serialize;

use super::child::{CHECKPOINT_ENV, GENERATION_ENV, NAME_ENV, PARENT_ENV, SOCKET_ENV};
use super::fault::CellFault;
use super::wire::{self, FromChild};
use crate::error::{GuardError, Result};
use crate::tensor::TryCreate;

const OP: &str = "cell";

/// When a cell restarts its child, and when it gives up (Erlang/OTP's restart intensity).
///
/// A child that died is restarted before the cell's next request: at once after a good
/// answer, then after `backoff`, doubled for each death in a row up to `max_backoff`. A cell
/// whose child needed more than `max_restarts` restarts within `within` is down: it answers
/// [`CellFault::Down`] until [`Cell::revive`].
///
/// ```
/// use std::time::Duration;
/// use burn_guard::cell::RestartPolicy;
///
/// let policy = RestartPolicy { max_restarts: 100, ..RestartPolicy::default() };
/// assert_eq!(policy.within, Duration::from_secs(60));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestartPolicy {
    /// The restarts allowed within `within`. Default 5.
    pub max_restarts: u32,
    /// The window of `max_restarts`. Default 60 s.
    pub within: Duration,
    /// The wait before the second restart in a row; doubled for each one after. Default
    /// 10 ms.
    pub backoff: Duration,
    /// The longest wait before a restart. Default 1 s.
    pub max_backoff: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            max_restarts: 5,
            within: Duration::from_secs(60),
            backoff: Duration::from_millis(10),
            max_backoff: Duration::from_secs(1),
        }
    }
}

/// How to start a [`Cell`]: its name, the program its child runs, the checkpoint its model
/// loads, the deadlines, the restart policy.
///
/// ```
/// use std::time::Duration;
/// use burn_guard::cell::{CellOptions, RestartPolicy};
///
/// let options = CellOptions::new("encoder")
///     .checkpoint("weights/encoder.bpk")
///     .deadline(Duration::from_secs(2))
///     .restart_policy(RestartPolicy { max_restarts: 10, ..RestartPolicy::default() });
/// assert_eq!(options.name(), "encoder");
/// ```
#[derive(Debug, Clone)]
pub struct CellOptions {
    name: String,
    program: Option<PathBuf>,
    args: Vec<OsString>,
    envs: Vec<(OsString, OsString)>,
    checkpoint: Option<PathBuf>,
    deadline: Duration,
    start_deadline: Duration,
    restart: RestartPolicy,
    verify_restart: bool,
    keep_heap: bool,
}

impl CellOptions {
    /// A cell named `name` whose child is this program
    /// ([`std::env::current_exe`]), with no arguments: its `main` calls
    /// [`serve_if_cell`](super::serve_if_cell) first. Deadlines: 30 s a request, 60 s to
    /// start; the default [`RestartPolicy`]; restarts verified.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            program: None,
            args: Vec::new(),
            envs: Vec::new(),
            checkpoint: None,
            deadline: Duration::from_secs(30),
            start_deadline: Duration::from_secs(60),
            restart: RestartPolicy::default(),
            verify_restart: true,
            keep_heap: true,
        }
    }

    /// The cell's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(super) fn rename(&mut self, name: String) {
        self.name = name;
    }

    pub(super) fn request_deadline(&self) -> Duration {
        self.deadline
    }

    /// The program the child runs, if not this one: it must call
    /// [`serve_if_cell`](super::serve_if_cell) with the model's build.
    pub fn program(mut self, program: impl Into<PathBuf>) -> Self {
        self.program = Some(program.into());
        self
    }

    /// Arguments for the child's program (a test binary's filter that selects the test which
    /// calls [`serve_if_cell`](super::serve_if_cell), say).
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// An environment variable for the child (it inherits the parent's otherwise).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.envs.push((key.into(), value.into()));
        self
    }

    /// The checkpoint every child loads its weights from, handed to the model's build as
    /// [`CellContext::checkpoint`](super::CellContext::checkpoint).
    pub fn checkpoint(mut self, path: impl Into<PathBuf>) -> Self {
        self.checkpoint = Some(path.into());
        self
    }

    /// How long a request may take, from sending it to its whole answer; past it the child
    /// is killed and the request gets [`CellFault::Deadline`]. Default 30 s.
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// How long a child may take to build its model and say it is ready. Default 60 s.
    pub fn start_deadline(mut self, deadline: Duration) -> Self {
        self.start_deadline = deadline;
        self
    }

    /// When to restart and when to give up.
    pub fn restart_policy(mut self, policy: RestartPolicy) -> Self {
        self.restart = policy;
        self
    }

    /// Whether a restarted child must first answer the last good request exactly as the child
    /// before it did (default `true`): a child that loaded other weights is caught before it
    /// serves ([`CellFault::RestartDiverged`]). Costs one request per restart.
    pub fn verify_restart(mut self, verify: bool) -> Self {
        self.verify_restart = verify;
        self
    }

    /// Whether the child keeps the memory its requests free for the next request (default
    /// `true`): glibc's allocator is told, through its environment (`MALLOC_TRIM_THRESHOLD_`,
    /// `MALLOC_MMAP_THRESHOLD_`), neither to give the freed top of its heap back to the
    /// system after each request nor to serve buffers under 32 MiB from fresh mappings.
    ///
    /// Why: a child that only serves one model frees all of a forward's activations at its
    /// end, so by default glibc trims them and the next forward page-faults every buffer
    /// anew, with a TLB shootdown per trim. Measured (`benches/cells.rs`, the encoder of
    /// `benches/nn.rs` at batch 64 on Flex, one run): the child's forward 15.0 ms without it
    /// and 10.4 ms with it, against 10.8 ms for the same forward in the parent; the whole
    /// request through the cell 1.50× the in-process forward without it, 1.04× with it. It
    /// misses when the machine's allocator is not glibc's, or when the user's own settings
    /// differ. The cost: the child stays at its peak
    /// resident size between requests, which it reaches again in each one anyway. A value the
    /// parent's environment or [`CellOptions::env`] gives either variable wins; another
    /// allocator (musl, jemalloc, mimalloc) ignores both.
    pub fn keep_heap(mut self, keep: bool) -> Self {
        self.keep_heap = keep;
        self
    }
}

/// glibc's allocator settings a cell's child gets under [`CellOptions::keep_heap`]: never trim
/// the heap (1 GiB of free top before a trim) and allocate from the heap up to 32 MiB, glibc's
/// largest mmap threshold on 64-bit.
const KEEP_HEAP_ENV: [(&str, &str); 2] = [
    ("MALLOC_TRIM_THRESHOLD_", "1073741824"),
    ("MALLOC_MMAP_THRESHOLD_", "33554432"),
];

/// How many of a cell's children died of what.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Deaths {
    /// Killed by SIGABRT (an abort).
    pub abort: u64,
    /// Killed by SIGSEGV or SIGBUS (a wild memory access).
    pub segfault: u64,
    /// Killed by SIGKILL from outside (the OOM killer, `kill -9`); kills by the cell itself at
    /// a deadline count under `deadline`.
    pub kill: u64,
    /// Killed by another signal.
    pub other_signal: u64,
    /// Exited mid-request.
    pub exit: u64,
    /// Past a request's deadline (killed by the cell).
    pub deadline: u64,
    /// An uncaught panic.
    pub panic: u64,
    /// A device reported poisoned, tainted or quarantined.
    pub poisoned: u64,
    /// A broken frame.
    pub protocol: u64,
}

impl Deaths {
    /// All deaths.
    pub fn total(&self) -> u64 {
        self.abort
            + self.segfault
            + self.kill
            + self.other_signal
            + self.exit
            + self.deadline
            + self.panic
            + self.poisoned
            + self.protocol
    }

    fn count(&mut self, fault: &CellFault) {
        match fault {
            CellFault::Signal { signal: 6, .. } => self.abort += 1,
            CellFault::Signal { signal: 7 | 11, .. } => self.segfault += 1,
            CellFault::Signal { signal: 9, .. } => self.kill += 1,
            CellFault::Signal { .. } => self.other_signal += 1,
            CellFault::Exit { .. } => self.exit += 1,
            CellFault::Deadline { .. } => self.deadline += 1,
            CellFault::Panicked { .. } => self.panic += 1,
            CellFault::DevicePoisoned { .. } => self.poisoned += 1,
            CellFault::Protocol { .. } => self.protocol += 1,
            _ => {}
        }
    }
}

/// Whether a cell can answer now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
#[non_exhaustive]
pub enum CellHealth {
    /// A child is running and ready.
    Up {
        /// The child's process id.
        pid: u32,
        /// How many children came before it.
        generation: u64,
    },
    /// The child died; the next request (or [`Cell::restart`]) starts a new one.
    Dead,
    /// Restarted too often, or a restarted child answered differently: the cell answers
    /// nothing until [`Cell::revive`].
    Down {
        /// Why, on one line.
        reason: String,
    },
}

/// A cell's counters, readable as data ([`Cell::stats`]; `Serialize`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CellStats {
    /// The cell's name.
    pub name: String,
    /// Requests received.
    pub requests: u64,
    /// Requests answered `Ok`.
    pub answered: u64,
    /// Requests the guarded call in the child refused (the child lived).
    pub refused: u64,
    /// Requests that got any other `Err` (a death, down, a failed start).
    pub failed: u64,
    /// The children's deaths, by cause.
    pub deaths: Deaths,
    /// Children started after the first.
    pub restarts: u64,
    /// Time from each death to the next child's readiness, summed.
    pub time_down: Duration,
    /// The longest single death-to-ready time.
    pub longest_restart: Duration,
    /// Whether the cell can answer now.
    pub health: CellHealth,
}

struct Running {
    child: Child,
    stream: UnixStream,
    pid: u32,
}

/// A model served in a supervised child process: an abort, a segfault, an OOM kill, a hang or
/// a poisoned device inside the model's code becomes an `Err` for that one request
/// ([`GuardError::Cell`] with its [`CellFault`]) and a restart, not the death of the caller's
/// process.
///
/// The child is a program that calls [`serve_if_cell`](super::serve_if_cell) (by default,
/// this one); see the [module docs](super) for what a cell isolates and what it costs.
///
/// ```no_run
/// use burn::tensor::{Device, Tensor, TensorData};
/// use burn_guard::cell::{Cell, CellOptions};
///
/// # fn main() -> burn_guard::Result<()> {
/// let mut cell = Cell::start(CellOptions::new("encoder"))?;
/// match cell.call(vec![TensorData::new(vec![0.5f32; 64], [1, 64])]) {
///     Ok(outputs) => println!("{:?}", outputs[0].shape()),
///     Err(e) => eprintln!("{e}"), // cell: ... died by signal 11 (SIGSEGV) ...
/// }
/// println!("{:?}", cell.stats());
/// # Ok(())
/// # }
/// ```
pub struct Cell {
    options: CellOptions,
    dir: PathBuf,
    running: Option<Running>,
    generation: u64,
    next_id: u64,
    restarts_at: VecDeque<Instant>,
    deaths_in_a_row: u32,
    died_at: Option<Instant>,
    down: Option<CellFault>,
    /// The last request answered `Ok` (its frame) and its answer (the frame's body).
    last_good: Option<(Vec<u8>, Vec<u8>)>,
    stats: CellStats,
}

impl std::fmt::Debug for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cell")
            .field("name", &self.options.name)
            .field("health", &self.health())
            .finish_non_exhaustive()
    }
}

fn cell_error(cell: &str, fault: CellFault) -> GuardError {
    GuardError::Cell {
        op: OP,
        cell: cell.to_string(),
        fault,
    }
}

/// A directory of this process's own for a cell's socket and its children's standard error.
fn scratch_dir() -> io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    // Short, and without the cell's name: a Unix socket's path has at most 107 bytes.
    let dir = std::env::temp_dir().join(format!("bgcell-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

impl Cell {
    /// Starts the cell's first child and waits until its model is built.
    ///
    /// # Errors
    ///
    /// [`GuardError::Cell`] with [`CellFault::StartFailed`]: the program could not be started,
    /// the model's build failed or panicked, or the child was not ready within the start
    /// deadline.
    pub fn start(options: CellOptions) -> Result<Self> {
        let dir = scratch_dir().map_err(|e| {
            cell_error(
                &options.name,
                CellFault::StartFailed {
                    reason: format!("cannot make its scratch directory: {e}"),
                },
            )
        })?;
        let stats = CellStats {
            name: options.name.clone(),
            requests: 0,
            answered: 0,
            refused: 0,
            failed: 0,
            deaths: Deaths::default(),
            restarts: 0,
            time_down: Duration::ZERO,
            longest_restart: Duration::ZERO,
            health: CellHealth::Dead,
        };
        let mut cell = Self {
            options,
            dir,
            running: None,
            generation: 0,
            next_id: 0,
            restarts_at: VecDeque::new(),
            deaths_in_a_row: 0,
            died_at: None,
            down: None,
            last_good: None,
            stats,
        };
        let running = cell.spawn().map_err(|fault| cell.error(fault))?;
        cell.running = Some(running);
        Ok(cell)
    }

    /// The cell's name.
    pub fn name(&self) -> &str {
        &self.options.name
    }

    /// Whether the cell can answer now.
    pub fn health(&self) -> CellHealth {
        if let Some(fault) = &self.down {
            return CellHealth::Down {
                reason: fault.to_string(),
            };
        }
        match &self.running {
            Some(running) => CellHealth::Up {
                pid: running.pid,
                generation: self.generation,
            },
            None => CellHealth::Dead,
        }
    }

    pub(super) fn down_fault(&self) -> Option<CellFault> {
        self.down.clone()
    }

    /// The child's process id while one runs.
    pub fn pid(&self) -> Option<u32> {
        self.running.as_ref().map(|r| r.pid)
    }

    /// The cell's counters.
    pub fn stats(&self) -> CellStats {
        let mut stats = self.stats.clone();
        stats.health = self.health();
        stats
    }

    fn error(&self, fault: CellFault) -> GuardError {
        cell_error(&self.options.name, fault)
    }

    /// Sends `inputs` to the model in the child and returns its outputs.
    ///
    /// A dead child is restarted first (within the [`RestartPolicy`]). Each request is
    /// answered exactly once: `Ok` with the model's outputs, or `Err` naming what happened
    /// to it; a request in flight when the child dies is not sent again.
    ///
    /// # Errors
    ///
    /// [`GuardError::Cell`]: its [`CellFault`] says whether the child refused (the guarded
    /// call's `Err`, [`CellFault::Refused`]), died (signal, exit, deadline, panic, poisoned
    /// device), could not be restarted, or the cell is down.
    pub fn call(&mut self, inputs: Vec<TensorData>) -> Result<Vec<TensorData>> {
        self.counted(|id| wire::encode_call(id, &inputs))
    }

    /// Runs one of burn-guard's own operations in the child ([`super::ops`]), as
    /// [`Cell::call`] runs the model: what a policy's cell pool does.
    pub(crate) fn call_op(
        &mut self,
        op: &str,
        params: &[f64],
        inputs: Vec<TensorData>,
    ) -> Result<Vec<TensorData>> {
        self.counted(|id| wire::encode_op(id, op, params, &inputs))
    }

    /// One request, built by `encode` from its id, sent and answered, and counted.
    fn counted(
        &mut self,
        encode: impl FnOnce(u64) -> std::io::Result<Vec<u8>>,
    ) -> Result<Vec<TensorData>> {
        self.stats.requests += 1;
        let result = self.call_once(encode);
        match &result {
            Ok(_) => self.stats.answered += 1,
            Err(GuardError::Cell {
                fault: CellFault::Refused { .. },
                ..
            }) => self.stats.refused += 1,
            Err(_) => self.stats.failed += 1,
        }
        result
    }

    /// One float tensor in, one out: `input` is read (a guarded read), sent, and the child's
    /// one answer built on `input`'s device as a rank-`E` tensor.
    ///
    /// # Errors
    ///
    /// As [`Cell::call`]; the read's error; [`GuardError::ShapeMismatch`] when the child
    /// answers other than one tensor, [`GuardError::RankMismatch`] when its rank is not `E`.
    pub fn try_forward<const D: usize, const E: usize>(
        &mut self,
        input: Tensor<D>,
    ) -> Result<Tensor<E>> {
        let device = input.device();
        let data = crate::value_reads::read_data_into(OP, input)?;
        one_tensor(self.call(vec![data])?, &device)
    }

    fn call_once(
        &mut self,
        encode: impl FnOnce(u64) -> std::io::Result<Vec<u8>>,
    ) -> Result<Vec<TensorData>> {
        self.restart()?;
        self.next_id += 1;
        let id = self.next_id;
        let frame = encode(id).map_err(|e| GuardError::InvalidArgument {
            op: OP,
            rule: "a cell's inputs must be plain tensors",
            got: e.to_string(),
        })?;
        match self.exchange(id, &frame) {
            Ok((FromChild::Answer { outputs, .. }, body)) => {
                self.deaths_in_a_row = 0;
                self.last_good = Some((frame, body));
                Ok(outputs)
            }
            Ok((
                FromChild::Refused {
                    op, kind, message, ..
                },
                _,
            )) => Err(self.error(CellFault::Refused { op, kind, message })),
            Ok((other, _)) => Err(self.error(CellFault::Protocol {
                reason: format!("{other:?} in answer to a request"),
            })),
            Err(fault) => Err(self.error(fault)),
        }
    }

    /// Sends one request frame and reads its answer within the deadline. A death is read
    /// from the child's exit status and recorded; the child is reaped.
    fn exchange(
        &mut self,
        id: u64,
        frame: &[u8],
    ) -> std::result::Result<(FromChild, Vec<u8>), CellFault> {
        let deadline = Instant::now() + self.options.deadline;
        let Some(running) = self.running.as_mut() else {
            return Err(CellFault::StartFailed {
                reason: "no child is running".into(),
            });
        };
        let sent = wire::write_frame(&mut running.stream, frame, Some(deadline));
        let answer = sent.and_then(|()| wire::read_frame(&mut running.stream, Some(deadline)));
        let fault = match answer {
            Ok(body) => match wire::decode_from_child(&body) {
                Ok(FromChild::Answer { id: got, outputs }) if got == id => {
                    return Ok((FromChild::Answer { id, outputs }, body));
                }
                Ok(refused @ FromChild::Refused { id: got, .. }) if got == id => {
                    return Ok((refused, body));
                }
                Ok(FromChild::Panicked { id: got, message }) if got == id => {
                    CellFault::Panicked { message }
                }
                Ok(FromChild::Poisoned { id: got, message }) if got == id => {
                    CellFault::DevicePoisoned { message }
                }
                Ok(other) => CellFault::Protocol {
                    reason: format!("{other:?} in answer to request {id}"),
                },
                Err(e) => CellFault::Protocol {
                    reason: e.to_string(),
                },
            },
            Err(e) if wire::is_timeout(&e) => CellFault::Deadline {
                after: self.options.deadline,
            },
            // The socket closed or broke: the child is dying; its status says of what.
            Err(_) => match self.reap(Duration::from_secs(5)) {
                Some(status) => self.fault_of(status),
                None => CellFault::Protocol {
                    reason: "the child closed its socket and did not exit".into(),
                },
            },
        };
        self.bury(&fault);
        Err(fault)
    }

    /// Kills and reaps the child (if still there), and records the death.
    fn bury(&mut self, fault: &CellFault) {
        if let Some(mut running) = self.running.take() {
            let _ = running.child.kill();
            let _ = running.child.wait();
        }
        self.stats.deaths.count(fault);
        self.deaths_in_a_row += 1;
        self.died_at = Some(Instant::now());
    }

    /// Waits up to `within` for the child to exit, and returns its status.
    fn reap(&mut self, within: Duration) -> Option<ExitStatus> {
        let running = self.running.as_mut()?;
        let until = Instant::now() + within;
        loop {
            match running.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(1)),
                _ => return None,
            }
        }
    }

    fn fault_of(&self, status: ExitStatus) -> CellFault {
        let stderr = self.last_stderr_line();
        match (status.signal(), status.code()) {
            (Some(signal), _) => CellFault::Signal { signal, stderr },
            (None, Some(code)) => CellFault::Exit { code, stderr },
            (None, None) => CellFault::Protocol {
                reason: format!("the child ended with status {status}"),
            },
        }
    }

    fn stderr_path(&self) -> PathBuf {
        self.dir.join(format!("stderr-{}.log", self.generation))
    }

    /// What the current child last said on its standard error: its last panic (the thread
    /// and the message), or else its last line that is not part of a backtrace.
    fn last_stderr_line(&self) -> String {
        std::fs::read_to_string(self.stderr_path())
            .map(|text| last_words(&text))
            .unwrap_or_default()
    }

    /// Starts a child if none runs: after the backoff, within the restart intensity, and,
    /// when the cell verifies restarts, checked against the last good answer. Does nothing
    /// while a child runs.
    ///
    /// # Errors
    ///
    /// [`GuardError::Cell`]: [`CellFault::Down`] past the restart intensity (the cell is then
    /// down), [`CellFault::RestartDiverged`] (down too), [`CellFault::StartFailed`] or the
    /// fault of a child that died answering the check.
    pub fn restart(&mut self) -> Result<()> {
        if let Some(fault) = &self.down {
            return Err(self.error(fault.clone()));
        }
        if self.running.is_some() {
            return Ok(());
        }
        let policy = self.options.restart;
        let now = Instant::now();
        while self
            .restarts_at
            .front()
            .is_some_and(|&at| now.duration_since(at) > policy.within)
        {
            self.restarts_at.pop_front();
        }
        if self.restarts_at.len() >= policy.max_restarts as usize {
            let fault = CellFault::Down {
                max_restarts: policy.max_restarts,
                within: policy.within,
            };
            self.down = Some(fault.clone());
            return Err(self.error(fault));
        }
        if self.deaths_in_a_row > 1 {
            let doublings = (self.deaths_in_a_row - 2).min(20);
            let wait = policy
                .backoff
                .saturating_mul(1 << doublings)
                .min(policy.max_backoff);
            std::thread::sleep(wait);
        }
        self.restarts_at.push_back(Instant::now());
        self.generation += 1;
        self.stats.restarts += 1;
        let running = match self.spawn() {
            Ok(running) => running,
            Err(fault) => {
                self.deaths_in_a_row += 1;
                return Err(self.error(fault));
            }
        };
        self.running = Some(running);
        if self.options.verify_restart
            && let Some((frame, expected)) = self.last_good.take()
        {
            let id = self.next_id;
            // The replayed frame keeps its first id: the child answers with it.
            let replayed = frame
                .get(9..17)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_le_bytes)
                .unwrap_or(id);
            match self.exchange(replayed, &frame) {
                Ok((_, body)) if body == expected => {
                    self.last_good = Some((frame, expected));
                }
                Ok(_) => {
                    if let Some(mut running) = self.running.take() {
                        let _ = running.child.kill();
                        let _ = running.child.wait();
                    }
                    self.down = Some(CellFault::RestartDiverged);
                    return Err(self.error(CellFault::RestartDiverged));
                }
                Err(fault) => {
                    self.last_good = Some((frame, expected));
                    return Err(self.error(fault));
                }
            }
        }
        if let Some(died) = self.died_at.take() {
            let down = died.elapsed();
            self.stats.time_down += down;
            self.stats.longest_restart = self.stats.longest_restart.max(down);
        }
        Ok(())
    }

    /// Lifts a down cell: forgets its restart history, so that the next request starts a
    /// child. For an operator who fixed what made it go down.
    pub fn revive(&mut self) {
        self.down = None;
        self.restarts_at.clear();
        self.deaths_in_a_row = 0;
    }

    /// Starts a child and waits for its `Ready`.
    fn spawn(&mut self) -> std::result::Result<Running, CellFault> {
        let start_failed = |reason: String| CellFault::StartFailed { reason };
        let program = match &self.options.program {
            Some(p) => p.clone(),
            None => std::env::current_exe()
                .map_err(|e| start_failed(format!("cannot find this program: {e}")))?,
        };
        let socket = self.dir.join(format!("s{}", self.generation));
        let _ = std::fs::remove_file(&socket);
        let listener = UnixListener::bind(&socket)
            .map_err(|e| start_failed(format!("cannot listen at {}: {e}", socket.display())))?;
        let stderr = std::fs::File::create(self.stderr_path())
            .map_err(|e| start_failed(format!("cannot open its log: {e}")))?;
        let mut command = Command::new(&program);
        command
            .args(&self.options.args)
            .envs(self.options.envs.iter().map(|(k, v)| (k, v)))
            .env(NAME_ENV, &self.options.name)
            .env(SOCKET_ENV, &socket)
            .env(PARENT_ENV, std::process::id().to_string())
            .env(GENERATION_ENV, self.generation.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr);
        if self.options.keep_heap {
            for (key, value) in KEEP_HEAP_ENV {
                let set_by_user = std::env::var_os(key).is_some()
                    || self.options.envs.iter().any(|(k, _)| k == key);
                if !set_by_user {
                    command.env(key, value);
                }
            }
        }
        match &self.options.checkpoint {
            Some(path) => command.env(CHECKPOINT_ENV, path),
            None => command.env_remove(CHECKPOINT_ENV),
        };
        let mut child = command
            .spawn()
            .map_err(|e| start_failed(format!("cannot run {}: {e}", program.display())))?;
        let pid = child.id();
        let deadline = Instant::now() + self.options.start_deadline;
        let connected = accept_until(&listener, &mut child, deadline);
        let _ = std::fs::remove_file(&socket);
        let ready = connected.and_then(|mut stream| {
            let body = wire::read_frame(&mut stream, Some(deadline)).map_err(|e| e.to_string())?;
            match wire::decode_from_child(&body) {
                Ok(FromChild::Ready { .. }) => Ok(stream),
                Ok(FromChild::BuildFailed { message }) => {
                    Err(format!("the model's build failed: {message}"))
                }
                Ok(other) => Err(format!("{other:?} instead of ready")),
                Err(e) => Err(e.to_string()),
            }
        });
        match ready {
            Ok(stream) => Ok(Running { child, stream, pid }),
            Err(reason) => {
                let _ = child.kill();
                let status = child.wait().ok();
                let words = self.last_stderr_line();
                let mut reason = reason;
                if let Some(status) = status.filter(|s| !s.success()) {
                    reason = format!("{reason} (the child: {status})");
                }
                if !words.is_empty() {
                    reason = format!("{reason}; its last words: {words}");
                }
                Err(start_failed(reason))
            }
        }
    }
}

/// The one tensor of a child's answer, on `device`.
pub(super) fn one_tensor<const E: usize>(
    mut outputs: Vec<TensorData>,
    device: &Device,
) -> Result<Tensor<E>> {
    if outputs.len() != 1 {
        return Err(GuardError::ShapeMismatch {
            op: OP,
            rule: "a forward through a cell must answer one tensor",
            shapes: vec![vec![outputs.len()], vec![1]],
        });
    }
    let data = outputs.remove(0);
    if data.shape().len() != E {
        return Err(GuardError::RankMismatch {
            op: OP,
            rule: "the cell's answer must have the rank asked for",
            expected: E,
            got: data.shape().len(),
            shape: data.shape().to_vec(),
        });
    }
    Tensor::<E>::try_from_data(data, device)
}

/// Accepts the child's connection, or says why it will not come: the child exited, or the
/// deadline passed.
fn accept_until(
    listener: &UnixListener,
    child: &mut Child,
    deadline: Instant,
) -> std::result::Result<UnixStream, String> {
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot poll its socket: {e}"))?;
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream
                    .set_nonblocking(false)
                    .map_err(|e| format!("cannot block on its socket: {e}"))?;
                return Ok(stream);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(format!("cannot accept its connection: {e}")),
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("the child ended before it connected ({status})"));
        }
        if Instant::now() >= deadline {
            return Err("the child did not connect within the start deadline".into());
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

impl Drop for Cell {
    fn drop(&mut self) {
        if let Some(mut running) = self.running.take() {
            // Closing the socket ends an idle child; a busy one is killed.
            drop(running.stream);
            let until = Instant::now() + Duration::from_millis(200);
            while Instant::now() < until {
                if let Ok(Some(_)) = running.child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            let _ = running.child.kill();
            let _ = running.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The last panic in a child's standard error, as `thread 'NAME' panicked: MESSAGE`, or else
/// its last line that is not part of a backtrace; at most 300 characters, on one line.
fn last_words(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().map(str::trim).collect();
    let noise = |l: &str| {
        l.is_empty()
            || l.starts_with("at ")
            || l.starts_with("note:")
            || l.starts_with("stack backtrace")
            || l == "No backtrace available"
            || l.split_once(':')
                .is_some_and(|(n, _)| n.trim().parse::<u32>().is_ok())
    };
    let panic = lines
        .iter()
        .rposition(|l| l.starts_with("thread '") && l.contains(" panicked at "));
    let words = match panic {
        Some(at) => {
            let thread = lines
                .get(at)
                .and_then(|l| l.strip_prefix("thread '"))
                .and_then(|rest| rest.split_once('\''))
                .map_or("?", |(name, _)| name);
            let message: Vec<&str> = lines
                .iter()
                .skip(at + 1)
                .copied()
                .take_while(|l| !l.starts_with("stack backtrace") && !l.starts_with("note:"))
                .filter(|l| !l.is_empty() && *l != "No backtrace available")
                .collect();
            format!("thread '{thread}' panicked: {}", message.join(" "))
        }
        None => lines
            .iter()
            .copied()
            .rfind(|l| !noise(l))
            .unwrap_or("")
            .to_string(),
    };
    words.chars().take(300).collect()
}

#[cfg(test)]
mod tests {
    use super::last_words;

    #[test]
    fn last_words_are_the_last_panic_or_the_last_plain_line() {
        let stderr = "\nthread 'DSD-4-0' (14560) panicked at src/compute/stream.rs:402:82:\n\
                      called `Option::take()` on a value: can't allocate\n\
                      No backtrace available\nstack backtrace:\n  10: core::ops\n\
                      note: Some details are omitted\n";
        assert_eq!(
            last_words(stderr),
            "thread 'DSD-4-0' panicked: called `Option::take()` on a value: can't \
             allocate"
        );
        let abort = "memory allocation of 4398046511104 bytes failed\nstack backtrace:\n   0: \
                     std::alloc::rust_oom\n             at /rustc/library/std/src/alloc.rs:424:5\n";
        assert_eq!(
            last_words(abort),
            "memory allocation of 4398046511104 bytes failed"
        );
        assert_eq!(last_words(""), "");
    }
}
