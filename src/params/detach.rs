//! A copy of a module that shares no mutable storage with the original.
//!
//! Cloning a burn module clones its parameters' handles (a `Param` forks on any change), but a
//! [`RunningState`](burn::module::RunningState) — batch norm's running mean and variance —
//! keeps its value in a cell the clones share, and `Module::map` writes through that cell. So
//! mapping `model.clone()` (quantizing it, loading into it, moving it) rewrites the original's
//! running statistics. [`detached`] gives the copy cells of its own.
//!
//! burn builds a `RunningState` anew only in `Module::valid` and `Module::train`; `valid`
//! also drops autodiff and turns training flags off, so [`detached`] takes `valid`'s fresh
//! cells and then puts back every parameter and flag of the original as it was (its id,
//! value, autodiff state and trainability). `valid` draws every parameter, so a lazy one is
//! first replaced by an empty stand-in, and the original's (still lazy) parameter put back
//! after.

use std::any::Any;

use burn::module::{Flag, Module, ModuleMapper, ModuleVisitor, Param, Parameter};
use burn::tensor::kind::Basic;
use burn::tensor::{Bool, Int, Tensor};

use crate::error::Result;
use crate::panic::catch;

/// A copy of `module` whose `RunningState`s have storage of their own, every parameter and
/// flag the original's (same ids, values, autodiff state, lazy or not): mapping the copy
/// leaves the original bit for bit as it was.
///
/// Pending per-thread updates of a running state (a training forward whose statistics were
/// not synced yet) are folded into its value first, in the original too, as burn's own
/// `Module::valid` and `RunningState::value_sync` fold them: read with `value_sync`, the
/// original's statistics are the same bits before and after.
///
/// # Errors
///
/// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics while copying.
pub(crate) fn detached<M: Module>(op: &'static str, module: &M) -> Result<M> {
    catch(op, || {
        // No cell to share: a clone is already a copy of its own (and costs no walk).
        if !builds_params(module) {
            return module.clone();
        }
        let mut lazy = Lazy(false);
        module.visit(&mut lazy);
        let copy = if lazy.0 {
            module.clone().map(&mut StandIn)
        } else {
            module.clone()
        };
        // `valid` folds pending updates into the shared cells, then gives the copy its own;
        // the original is read after it, so that both hold the folded values.
        let copy = copy.valid();
        let mut originals = Originals::default();
        module.visit(&mut originals);
        let mut restore = Restore {
            originals: originals.params.into_iter().map(Some).collect(),
            next: 0,
        };
        copy.map(&mut restore)
    })
}

/// Whether `module`'s walk presents a parameter it builds on the spot: burn's `RunningState`
/// (the one module whose clones share storage) builds a `Param` on the stack of its `visit`
/// for the value it holds, where every other module presents a parameter it stores. burn
/// offers no other way to ask. A parameter the walk builds lives on this thread's stack
/// between this function's frame and the visitor's (the stack grows down on every target
/// this crate builds for); a stored one lives in the module, in an older frame or on the heap.
/// Where the stack's direction is not known, every module is taken to build them.
fn builds_params<M: Module>(module: &M) -> bool {
    /// An address in the frame of a call made now: below every frame that called it.
    #[inline(never)]
    fn stack_here() -> usize {
        let here = 0u8;
        std::hint::black_box(std::ptr::from_ref(&here) as usize)
    }
    struct Probe {
        top: usize,
        built: bool,
    }
    impl ModuleVisitor for Probe {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            let at = std::ptr::from_ref(param) as usize;
            self.built |= at > stack_here() && at < self.top;
        }
    }
    if !cfg!(any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64"
    )) {
        return true;
    }
    let top = 0u8;
    let mut probe = Probe {
        top: std::hint::black_box(std::ptr::from_ref(&top) as usize),
        built: false,
    };
    walk(module, &mut probe);
    std::hint::black_box(&top);
    probe.built
}

/// The walk, in a frame of its own below the one holding the probe's top: whatever burn's
/// modules inline, a parameter built during the walk is below `top`.
#[inline(never)]
fn walk<M: Module, V: ModuleVisitor>(module: &M, visitor: &mut V) {
    module.visit(visitor);
}

/// Whether a module has a lazy parameter (one `valid` would draw).
struct Lazy(bool);

impl ModuleVisitor for Lazy {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        self.0 |= !param.is_initialized();
    }

    fn visit_int<const D: usize>(&mut self, param: &Param<Tensor<D, Int>>) {
        self.0 |= !param.is_initialized();
    }

    fn visit_bool<const D: usize>(&mut self, param: &Param<Tensor<D, Bool>>) {
        self.0 |= !param.is_initialized();
    }
}

/// Every parameter and flag of the original, in walk order.
#[derive(Default)]
struct Originals {
    params: Vec<(burn::module::ParamId, Box<dyn Any>)>,
}

impl Originals {
    fn keep<T: 'static + burn::module::ParameterValue>(&mut self, param: &Param<T>)
    where
        Param<T>: Clone,
    {
        self.params.push((param.id, Box::new(param.clone())));
    }
}

impl ModuleVisitor for Originals {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        self.keep(param);
    }

    fn visit_int<const D: usize>(&mut self, param: &Param<Tensor<D, Int>>) {
        self.keep(param);
    }

    fn visit_bool<const D: usize>(&mut self, param: &Param<Tensor<D, Bool>>) {
        self.keep(param);
    }

    fn visit_flag(&mut self, flag: &Param<Flag>) {
        self.keep(flag);
    }
}

/// Replaces each lazy parameter with an empty tensor, so that `valid` draws none; the lazy
/// original comes back in [`Restore`]. A `RunningState` is never lazy.
struct StandIn;

impl StandIn {
    fn param<const D: usize, K: Basic + 'static>(param: Param<Tensor<D, K>>) -> Param<Tensor<D, K>>
    where
        Tensor<D, K>: Parameter,
    {
        if param.is_initialized() {
            return param;
        }
        let device = param.lazy_device();
        Param::initialized(param.id, Tensor::empty([0; D], &device))
    }
}

impl ModuleMapper for StandIn {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        Self::param(param)
    }

    fn map_int<const D: usize>(&mut self, param: Param<Tensor<D, Int>>) -> Param<Tensor<D, Int>> {
        Self::param(param)
    }

    fn map_bool<const D: usize>(
        &mut self,
        param: Param<Tensor<D, Bool>>,
    ) -> Param<Tensor<D, Bool>> {
        Self::param(param)
    }
}

/// Puts back the original's parameters and flags, in walk order (by id where a walk differs).
struct Restore {
    originals: Vec<Option<(burn::module::ParamId, Box<dyn Any>)>>,
    next: usize,
}

impl Restore {
    fn put_back<T: 'static + burn::module::ParameterValue>(&mut self, param: Param<T>) -> Param<T> {
        let at = match self.originals.get(self.next) {
            Some(Some((id, _))) if *id == param.id => Some(self.next),
            _ => self
                .originals
                .iter()
                .position(|entry| entry.as_ref().is_some_and(|(id, _)| *id == param.id)),
        };
        let Some(at) = at else {
            return param;
        };
        self.next = at.saturating_add(1);
        match self
            .originals
            .get_mut(at)
            .and_then(Option::take)
            .and_then(|(_, value)| value.downcast::<Param<T>>().ok())
        {
            Some(original) => *original,
            None => param,
        }
    }
}

impl ModuleMapper for Restore {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        self.put_back(param)
    }

    fn map_int<const D: usize>(&mut self, param: Param<Tensor<D, Int>>) -> Param<Tensor<D, Int>> {
        self.put_back(param)
    }

    fn map_bool<const D: usize>(
        &mut self,
        param: Param<Tensor<D, Bool>>,
    ) -> Param<Tensor<D, Bool>> {
        self.put_back(param)
    }

    fn map_flag(&mut self, flag: Param<Flag>) -> Param<Flag> {
        self.put_back(flag)
    }
}

#[cfg(all(test, feature = "flex"))]
mod probe_tests {
    use burn::nn::{BatchNormConfig, LinearConfig};
    use burn::tensor::Device;

    use super::builds_params;

    #[test]
    fn only_a_module_holding_a_running_state_builds_parameters_in_its_walk() {
        let device = Device::flex();
        let linear = LinearConfig::new(4, 3).init(&device);
        assert!(!builds_params(&linear));
        assert!(!builds_params(&vec![linear.clone(), linear]));
        let norm = BatchNormConfig::new(3).init(&device);
        assert!(builds_params(&norm));
        assert!(builds_params(&vec![norm]));
    }
}
