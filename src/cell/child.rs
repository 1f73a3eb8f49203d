//! The child's side of a cell: build the model, answer requests, die with the parent.

use std::os::unix::net::UnixStream;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::Duration;

use burn::tensor::TensorData;

use super::wire::{self, FromChild, ToChild};
use crate::error::{GuardError, Result};

/// Set in a cell's child: the cell's name. [`serve_if_cell`] serves when it is set.
pub(super) const NAME_ENV: &str = "BURN_GUARD_CELL";
/// The parent's socket.
pub(super) const SOCKET_ENV: &str = "BURN_GUARD_CELL_SOCKET";
/// The parent's pid: the child exits when its parent is no longer that process.
pub(super) const PARENT_ENV: &str = "BURN_GUARD_CELL_PARENT";
/// The checkpoint the cell was given, if any.
pub(super) const CHECKPOINT_ENV: &str = "BURN_GUARD_CELL_CHECKPOINT";
/// How many children of this cell came before this one.
pub(super) const GENERATION_ENV: &str = "BURN_GUARD_CELL_GENERATION";

/// Exit codes of a child that ends on its own terms (never while a request is in flight).
const EXIT_PARENT_GONE: i32 = 0;
const EXIT_SETUP: i32 = 70;

/// How often the child looks for its parent: the longest an orphan outlives its parent.
const ORPHAN_POLL: Duration = Duration::from_millis(50);

/// What a cell's child knows when it builds its model: the cell's name, the checkpoint it
/// was given and how many children came before it.
#[derive(Debug, Clone)]
pub struct CellContext {
    name: String,
    checkpoint: Option<PathBuf>,
    generation: u64,
}

impl CellContext {
    /// The cell's name ([`CellOptions::new`](super::CellOptions::new); a pool's cells are
    /// `name.0`, `name.1`, …).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The checkpoint given with [`CellOptions::checkpoint`](super::CellOptions::checkpoint),
    /// for the model to load its weights from: every child of the cell loads the same file.
    pub fn checkpoint(&self) -> Option<&Path> {
        self.checkpoint.as_deref()
    }

    /// 0 for the cell's first child, then one more for each restart.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// A model served in a cell: tensors in, tensors out, through the guarded calls of your
/// choice. Any `FnMut(Vec<TensorData>) -> Result<Vec<TensorData>>` is one.
pub trait CellModel {
    /// Answers one request.
    ///
    /// # Errors
    ///
    /// The guarded call's own refusal; it reaches the caller as
    /// [`CellFault::Refused`](super::CellFault::Refused) and the child goes on.
    fn call(&mut self, inputs: Vec<TensorData>) -> Result<Vec<TensorData>>;
}

impl<F> CellModel for F
where
    F: FnMut(Vec<TensorData>) -> Result<Vec<TensorData>>,
{
    fn call(&mut self, inputs: Vec<TensorData>) -> Result<Vec<TensorData>> {
        self(inputs)
    }
}

/// A cell's model for a pool that serves no model of its own, only the operations a policy
/// sends it ([`Policy::in_cells`](crate::policy::Policy::in_cells)): every plain
/// [`Cell::call`](super::Cell::call) is refused.
///
/// ```no_run
/// use burn_guard::cell::{ops_only, serve_if_cell};
///
/// fn main() {
///     serve_if_cell(ops_only);
///     // ... the program, which starts a `CellPool` and names it in its policy.
/// }
/// ```
///
/// # Errors
///
/// None: the `Result` is [`serve_if_cell`]'s build signature.
pub fn ops_only(_cx: &CellContext) -> Result<impl CellModel + use<>> {
    Ok(|_inputs: Vec<TensorData>| -> Result<Vec<TensorData>> {
        Err(GuardError::InvalidArgument {
            op: "cell",
            rule: "this cell serves no model, only the operations a policy sends it",
            got: "a call".into(),
        })
    })
}

/// Serves a cell when this process was started as one, and returns at once otherwise.
///
/// Call it first thing in `main` (and in the program a [`CellOptions::program`] names): in a
/// cell's child it builds the model with `build`, answers the parent's requests until the
/// parent closes the cell or dies, and **exits the process**; anywhere else it does nothing.
/// A cell's child is this same program started again with the environment variable
/// `BURN_GUARD_CELL` set, so that the model's code is yours, compiled once.
///
/// [`CellOptions::program`]: super::CellOptions::program
///
/// ```no_run
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::{Device, Tensor, TensorData};
/// use burn_guard::cell::{Cell, CellOptions, serve_if_cell};
/// use burn_guard::prelude::*;
///
/// fn main() -> burn_guard::Result<()> {
///     // In the child: build the model, serve, exit. In the parent: nothing.
///     serve_if_cell(|_cx| {
///         let device = Device::flex();
///         let model: Linear = LinearConfig::new(4, 2).init(&device);
///         Ok(move |inputs: Vec<TensorData>| {
///             let x = Tensor::<2>::try_from_data(inputs[0].clone(), &device)?;
///             Ok(vec![model.try_forward(x)?.into_data()])
///         })
///     });
///
///     let mut cell = Cell::start(CellOptions::new("linear"))?;
///     let answer = cell.call(vec![TensorData::new(vec![1.0f32; 8], [2, 4])])?;
///     assert_eq!(answer[0].shape().as_slice(), &[2, 2]);
///     Ok(())
/// }
/// ```
pub fn serve_if_cell<F, M>(build: F)
where
    F: FnOnce(&CellContext) -> Result<M>,
    M: CellModel,
{
    let Some(name) = std::env::var_os(NAME_ENV) else {
        return;
    };
    let code = serve(name.to_string_lossy().into_owned(), build);
    std::process::exit(code)
}

fn serve<F, M>(name: String, build: F) -> i32
where
    F: FnOnce(&CellContext) -> Result<M>,
    M: CellModel,
{
    let env = |key| std::env::var(key).ok();
    let (Some(socket), Some(parent)) = (
        env(SOCKET_ENV),
        env(PARENT_ENV).and_then(|p| p.parse::<u32>().ok()),
    ) else {
        eprintln!("burn-guard cell {name}: started without its socket or parent");
        return EXIT_SETUP;
    };
    watch_parent(parent);
    let Ok(mut stream) = UnixStream::connect(&socket) else {
        eprintln!("burn-guard cell {name}: cannot reach its parent at {socket}");
        return EXIT_SETUP;
    };
    let cx = CellContext {
        name,
        checkpoint: env(CHECKPOINT_ENV).map(PathBuf::from),
        generation: env(GENERATION_ENV)
            .and_then(|g| g.parse().ok())
            .unwrap_or(0),
    };

    let built = catch_unwind(AssertUnwindSafe(|| build(&cx)));
    let mut model = match built {
        Ok(Ok(model)) => model,
        Ok(Err(e)) => {
            let _ = send(
                &mut stream,
                &FromChild::BuildFailed {
                    message: e.to_string(),
                },
            );
            return EXIT_SETUP;
        }
        Err(panic) => {
            let message = format!("the model's build panicked: {}", panic_text(&*panic));
            let _ = send(&mut stream, &FromChild::BuildFailed { message });
            return EXIT_SETUP;
        }
    };
    let pid = std::process::id();
    if send(&mut stream, &FromChild::Ready { pid }).is_err() {
        return EXIT_PARENT_GONE;
    }

    loop {
        // No deadline: the parent keeps its own, and kills this process when it passes.
        let Ok(body) = wire::read_frame(&mut stream, None) else {
            // The parent closed the cell (or died): nothing is in flight.
            return EXIT_PARENT_GONE;
        };
        let request = match wire::decode_to_child(&body) {
            Ok(request) => request,
            Err(e) => {
                eprintln!("burn-guard cell {}: unreadable request: {e}", cx.name);
                return EXIT_SETUP;
            }
        };
        let (id, outcome) = match request {
            ToChild::Call { id, inputs } => {
                (id, catch_unwind(AssertUnwindSafe(|| model.call(inputs))))
            }
            // One of burn-guard's own operations, sent by a policy: not the model's code.
            ToChild::Op {
                id,
                op,
                params,
                inputs,
            } => (
                id,
                catch_unwind(AssertUnwindSafe(|| super::ops::serve(&op, &params, inputs))),
            ),
        };
        let (reply, last) = match outcome {
            Ok(result) if !crate::capability::marked_devices().is_empty() => {
                let message = crate::capability::marked_devices().join("; ");
                let message = match result {
                    Ok(_) => message,
                    Err(e) => format!("{message} (the call: {e})"),
                };
                (FromChild::Poisoned { id, message }, true)
            }
            Ok(Ok(outputs)) => (FromChild::Answer { id, outputs }, false),
            Ok(Err(e)) => (
                FromChild::Refused {
                    id,
                    op: e.op().to_string(),
                    kind: format!("{:?}", e.kind()),
                    message: e.to_string(),
                },
                false,
            ),
            Err(panic) => {
                let message = panic_text(&*panic);
                (FromChild::Panicked { id, message }, true)
            }
        };
        if let Err(e) = send(&mut stream, &reply) {
            // An answer that cannot be encoded (a quantized output) is the model's refusal.
            if e.kind() == std::io::ErrorKind::InvalidData {
                let refusal = FromChild::Refused {
                    id,
                    op: "cell_answer".into(),
                    kind: "InvalidDType".into(),
                    message: format!("cell_answer: {e}"),
                };
                if send(&mut stream, &refusal).is_ok() && !last {
                    continue;
                }
            }
            return EXIT_PARENT_GONE;
        }
        if last {
            return EXIT_SETUP;
        }
    }
}

fn send(stream: &mut UnixStream, msg: &FromChild) -> std::io::Result<()> {
    let frame = wire::encode_from_child(msg)?;
    wire::write_frame(stream, &frame, None)
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a payload that is not text".to_string()
    }
}

/// Exits this process as soon as its parent is gone: Linux gives an orphan a new parent, so
/// the parent's pid changes. A thread of its own, so that a hung request does not stop it.
fn watch_parent(parent: u32) {
    let spawned = std::thread::Builder::new()
        .name("burn-guard-cell-orphan-watch".into())
        .spawn(move || {
            loop {
                if std::os::unix::process::parent_id() != parent {
                    std::process::exit(EXIT_PARENT_GONE);
                }
                std::thread::sleep(ORPHAN_POLL);
            }
        });
    if spawned.is_err() {
        // Without the watch the socket still ends the child when the parent dies, once it is
        // idle; a process that cannot start a thread will not serve long anyway.
        eprintln!("burn-guard cell: could not start the orphan watch");
    }
}
