//! What went wrong with a cell's request, as data.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

/// What happened to a request a [`Cell`](super::Cell) could not answer, carried by
/// [`GuardError::Cell`](crate::GuardError::Cell).
///
/// The deaths ([`Signal`](CellFault::Signal), [`Exit`](CellFault::Exit),
/// [`Deadline`](CellFault::Deadline), [`Panicked`](CellFault::Panicked),
/// [`DevicePoisoned`](CellFault::DevicePoisoned)) each cost the child its life: the cell
/// restarts it before its next request. [`Refused`](CellFault::Refused) is the guarded call's
/// own `Err` in the child, which lives on.
///
/// ```
/// use burn_guard::cell::CellFault;
///
/// let fault = CellFault::Signal { signal: 6, stderr: "memory allocation of 4398046511104 bytes failed".into() };
/// assert!(fault.is_death());
/// assert_eq!(fault.cause(), "SIGABRT");
/// assert_eq!(
///     fault.to_string(),
///     "died by signal 6 (SIGABRT); its last words: memory allocation of 4398046511104 bytes failed"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "fault")]
#[non_exhaustive]
pub enum CellFault {
    /// The child was killed by a signal: SIGABRT (an abort: Rust's allocation failure, a panic
    /// while panicking, `std::process::abort`), SIGSEGV (a wild read or write in unsafe code),
    /// SIGKILL (the OOM killer, or anyone with `kill -9`).
    Signal {
        /// The signal number.
        signal: i32,
        /// The last line the child wrote to its standard error (empty when none), folded onto
        /// one line.
        stderr: String,
    },
    /// The child exited on its own (`std::process::exit` in code it ran) while a request was
    /// in flight.
    Exit {
        /// Its exit code.
        code: i32,
        /// The last line the child wrote to its standard error (empty when none).
        stderr: String,
    },
    /// The child did not answer within the request's deadline (a hang, an endless loop, a
    /// device that never finishes): it was killed (SIGKILL) at the deadline.
    Deadline {
        /// The deadline the request was given.
        after: Duration,
    },
    /// The call panicked in the child and nothing in it caught the panic. The child exits
    /// after reporting it: a panic can leave locks poisoned and state half-written.
    Panicked {
        /// The panic message.
        message: String,
    },
    /// A device in the child was reported poisoned by burn (a device-thread panic, a lost
    /// device): every later call there would fail, so the child exits and a fresh one starts.
    DevicePoisoned {
        /// What burn-guard's health record says, on one line.
        message: String,
    },
    /// The guarded call in the child returned `Err`: a refusal, not a death. The child lives.
    Refused {
        /// The refused operation, as the child's error named it.
        op: String,
        /// The error's [`ErrorKind`](crate::ErrorKind), as its `Debug` name.
        kind: String,
        /// The child's error message, whole.
        message: String,
    },
    /// A child could not be started, or died or gave up before its model was built.
    StartFailed {
        /// Why, on one line.
        reason: String,
    },
    /// A restarted child answered the last good request differently from the child before
    /// it: its weights or code are not the ones that answered. The cell is down.
    RestartDiverged,
    /// The cell restarted more often than its [`RestartPolicy`](super::RestartPolicy) allows
    /// (`max_restarts` within `within`) and is down: it answers nothing until
    /// [`Cell::revive`](super::Cell::revive).
    Down {
        /// The restarts allowed in the window.
        max_restarts: u32,
        /// The window.
        within: Duration,
    },
    /// Every cell of a [`CellPool`](super::CellPool) was busy or restarting for the whole
    /// deadline.
    Busy {
        /// How long the request waited.
        after: Duration,
    },
    /// The child sent something that is not an answer to the request (garbage, another
    /// request's id): it was killed.
    Protocol {
        /// What was wrong, on one line.
        reason: String,
    },
}

impl CellFault {
    /// Whether the child died of it (and is restarted before the next request).
    pub fn is_death(&self) -> bool {
        matches!(
            self,
            Self::Signal { .. }
                | Self::Exit { .. }
                | Self::Deadline { .. }
                | Self::Panicked { .. }
                | Self::DevicePoisoned { .. }
                | Self::Protocol { .. }
        )
    }

    /// A short name of the cause, for counting and logs: `SIGABRT`, `SIGSEGV`, `SIGKILL`,
    /// `signal N`, `exit`, `deadline`, `panic`, `poisoned`, `refused`, `start`,
    /// `restart diverged`, `down`, `busy`, `protocol`.
    pub fn cause(&self) -> String {
        match self {
            Self::Signal { signal, .. } => match signal_name(*signal) {
                Some(name) => name.to_string(),
                None => format!("signal {signal}"),
            },
            Self::Exit { .. } => "exit".into(),
            Self::Deadline { .. } => "deadline".into(),
            Self::Panicked { .. } => "panic".into(),
            Self::DevicePoisoned { .. } => "poisoned".into(),
            Self::Refused { .. } => "refused".into(),
            Self::StartFailed { .. } => "start".into(),
            Self::RestartDiverged => "restart diverged".into(),
            Self::Down { .. } => "down".into(),
            Self::Busy { .. } => "busy".into(),
            Self::Protocol { .. } => "protocol".into(),
        }
    }
}

/// The names of the signals a cell's child is seen to die of.
pub(super) fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return None,
    })
}

fn last_words(f: &mut fmt::Formatter<'_>, stderr: &str) -> fmt::Result {
    if stderr.is_empty() {
        Ok(())
    } else {
        write!(f, "; its last words: {stderr}")
    }
}

impl fmt::Display for CellFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Signal { signal, stderr } => {
                match signal_name(*signal) {
                    Some(name) => write!(f, "died by signal {signal} ({name})")?,
                    None => write!(f, "died by signal {signal}")?,
                }
                last_words(f, stderr)
            }
            Self::Exit { code, stderr } => {
                write!(f, "exited with code {code} mid-request")?;
                last_words(f, stderr)
            }
            Self::Deadline { after } => {
                write!(f, "gave no answer within {after:?} and was killed")
            }
            Self::Panicked { message } => write!(f, "panicked: {message}"),
            Self::DevicePoisoned { message } => write!(f, "has a poisoned device: {message}"),
            Self::Refused { message, .. } => write!(f, "refused: {message}"),
            Self::StartFailed { reason } => write!(f, "could not start: {reason}"),
            Self::RestartDiverged => write!(
                f,
                "restarted, then answered the last good request differently; it is down"
            ),
            Self::Down {
                max_restarts,
                within,
            } => write!(
                f,
                "is down: it restarted more than {max_restarts} times within {within:?}"
            ),
            Self::Busy { after } => write!(f, "had no free live cell within {after:?}"),
            Self::Protocol { reason } => write!(f, "broke the protocol and was killed: {reason}"),
        }
    }
}
