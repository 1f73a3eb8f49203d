//! N cells behind one handle.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, TryLockError};
use std::time::{Duration, Instant};

use burn::tensor::{Tensor, TensorData};

use super::fault::CellFault;
use super::supervise::{Cell, CellHealth, CellOptions, CellStats};
use crate::error::{GuardError, Result};

/// N [`Cell`]s of one model behind one handle: each request goes to the next free live cell;
/// a cell whose child died restarts on a thread of its own while the others take its share.
///
/// `call` takes `&self` and may be called from many threads at once: each cell serves one
/// request at a time, so N cells serve N at once.
///
/// ```no_run
/// use burn::tensor::{Tensor, TensorData};
/// use burn_guard::cell::{CellOptions, CellPool};
///
/// # fn main() -> burn_guard::Result<()> {
/// let pool = CellPool::start(CellOptions::new("encoder"), 3)?;
/// let outputs = pool.call(vec![TensorData::new(vec![0.5f32; 64], [1, 64])])?;
/// let restarts: u64 = pool.stats().iter().map(|s| s.restarts).sum();
/// println!("{:?} after {restarts} restarts", outputs[0].shape());
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct CellPool {
    name: String,
    cells: Vec<Arc<Mutex<Cell>>>,
    next: AtomicUsize,
    wait: Duration,
}

impl CellPool {
    /// Starts `n` cells from `options`, named `{name}.0` … `{name}.{n-1}`, each with its own
    /// child.
    ///
    /// # Errors
    ///
    /// `n == 0` ([`GuardError::InvalidArgument`]), or the first cell that could not start
    /// ([`GuardError::Cell`]); the cells started before it are closed.
    pub fn start(options: CellOptions, n: usize) -> Result<Self> {
        if n == 0 {
            return Err(GuardError::InvalidArgument {
                op: "cell_pool",
                rule: "a pool needs at least one cell",
                got: "0 cells".into(),
            });
        }
        let name = options.name().to_string();
        let cells = (0..n)
            .map(|i| {
                let mut cell_options = options.clone();
                cell_options.rename(format!("{name}.{i}"));
                Cell::start(cell_options).map(|cell| Arc::new(Mutex::new(cell)))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            name,
            wait: options.request_deadline(),
            cells,
            next: AtomicUsize::new(0),
        })
    }

    /// The pool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sends `inputs` to the next free live cell and returns its outputs; see [`Cell::call`].
    ///
    /// Waits for a free live cell up to the cells' request deadline. A cell whose child died
    /// answering is restarted on a thread of its own, and takes requests again once its new
    /// child is ready.
    ///
    /// # Errors
    ///
    /// The cell's [`GuardError::Cell`]; [`CellFault::Down`] when every cell is down;
    /// [`CellFault::Busy`] when no cell was free within the deadline.
    pub fn call(&self, inputs: Vec<TensorData>) -> Result<Vec<TensorData>> {
        self.on_a_free_cell(|cell| cell.call(inputs))
    }

    /// Runs one of burn-guard's own operations on the next free live cell; see
    /// [`Cell::call_op`].
    pub(crate) fn call_op(
        &self,
        op: &str,
        params: &[f64],
        inputs: Vec<TensorData>,
    ) -> Result<Vec<TensorData>> {
        self.on_a_free_cell(|cell| cell.call_op(op, params, inputs))
    }

    /// Runs `request` on the next free live cell, waiting for one up to the deadline; a cell
    /// it leaves dead is restarted on a thread of its own.
    fn on_a_free_cell(
        &self,
        request: impl FnOnce(&mut Cell) -> Result<Vec<TensorData>>,
    ) -> Result<Vec<TensorData>> {
        let started = Instant::now();
        let n = self.cells.len();
        loop {
            let first = self.next.fetch_add(1, Ordering::Relaxed);
            let mut all_down = true;
            for slot in self.cells.iter().cycle().skip(first % n).take(n) {
                let mut cell = match slot.try_lock() {
                    Ok(cell) => cell,
                    Err(TryLockError::Poisoned(p)) => p.into_inner(),
                    Err(TryLockError::WouldBlock) => {
                        all_down = false;
                        continue;
                    }
                };
                match cell.health() {
                    CellHealth::Down { .. } => continue,
                    CellHealth::Dead => {
                        // Its restart failed (or has not begun): try again on a thread of
                        // its own; the restart intensity ends the tries.
                        all_down = false;
                        drop(cell);
                        self.restart_in_background(slot);
                        continue;
                    }
                    CellHealth::Up { .. } => {}
                }
                let result = request(&mut cell);
                if matches!(cell.health(), CellHealth::Dead) {
                    drop(cell);
                    self.restart_in_background(slot);
                }
                return result;
            }
            if all_down {
                return Err(GuardError::Cell {
                    op: "cell_pool",
                    cell: self.name.clone(),
                    fault: self.any_down_fault(),
                });
            }
            if started.elapsed() >= self.wait {
                return Err(GuardError::Cell {
                    op: "cell_pool",
                    cell: self.name.clone(),
                    fault: CellFault::Busy {
                        after: started.elapsed(),
                    },
                });
            }
            std::thread::sleep(Duration::from_micros(50));
        }
    }

    /// Why the first down cell is down.
    /// One float tensor in, one out, through the next free live cell; see
    /// [`Cell::try_forward`].
    ///
    /// # Errors
    ///
    /// As [`CellPool::call`] and [`Cell::try_forward`].
    pub fn try_forward<const D: usize, const E: usize>(
        &self,
        input: Tensor<D>,
    ) -> Result<Tensor<E>> {
        let device = input.device();
        let data = crate::value_reads::read_data_into("cell_pool", input)?;
        super::supervise::one_tensor(self.call(vec![data])?, &device)
    }

    fn any_down_fault(&self) -> CellFault {
        self.cells
            .iter()
            .find_map(|c| {
                c.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .down_fault()
            })
            .unwrap_or(CellFault::RestartDiverged)
    }

    fn restart_in_background(&self, slot: &Arc<Mutex<Cell>>) {
        let held = Arc::clone(slot);
        let spawned = std::thread::Builder::new()
            .name("burn-guard-cell-restart".into())
            .spawn(move || {
                let mut cell = held.lock().unwrap_or_else(PoisonError::into_inner);
                // Its error is the cell's state now (down, or dead for the next try).
                let _ = cell.restart();
            });
        if spawned.is_err() {
            // No thread: the cell stays dead until a request finds it; restart it here.
            let mut cell = slot.lock().unwrap_or_else(PoisonError::into_inner);
            let _ = cell.restart();
        }
    }

    /// Every cell's counters, in order.
    pub fn stats(&self) -> Vec<CellStats> {
        self.cells
            .iter()
            .map(|c| c.lock().unwrap_or_else(PoisonError::into_inner).stats())
            .collect()
    }

    /// The number of cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Never: a pool has at least one cell.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

impl crate::policy::isolate_sealed::Sealed for CellPool {}

/// A pool is where a policy runs the operations it sends out of this process
/// ([`Policy::in_cells`](crate::policy::Policy::in_cells)).
impl crate::policy::Isolation for CellPool {
    fn label(&self) -> String {
        format!("cell pool {}", self.name())
    }

    fn run(&self, op: &str, params: &[f64], inputs: Vec<TensorData>) -> Result<Vec<TensorData>> {
        self.call_op(op, params, inputs)
    }
}
