//! The twin of `ModuleOptimizer::load_record`, which takes any record: a state for another
//! model is kept and panics at the next step, or broadcasts silently.

use std::collections::BTreeMap;

use burn::module::{Module, Param};
use burn::optim::ModuleOptimizer;
use burn::optim::OptimizerRecord;
use burn::tensor::Tensor;
use burn_pack::Reader;

use crate::error::{GuardError, Result};
use crate::panic::catch;
use crate::params::walk::{AtPath, PathWalk};

mod sealed {
    pub trait Sealed {}
    impl Sealed for burn::optim::ModuleOptimizer {}
}

/// Fallible twin of `ModuleOptimizer::load_record`: the record's state checked against the
/// model it will step. Sealed.
///
/// ```
/// use burn::module::Module;
/// use burn::nn::{Linear, LinearConfig};
/// use burn::optim::{AdamConfig, GradientsParams};
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::optim::TryOptimizerRecord;
///
/// let device = Device::flex().autodiff();
/// let model: Linear = LinearConfig::new(3, 2).init(&device);
/// let mut optimizer = AdamConfig::new().init();
/// let loss = model.forward(Tensor::<2>::ones([4, 3], &device)).sum();
/// let grads = GradientsParams::from_grads(loss.backward(), &model);
/// let model = optimizer.step(1e-3, model, grads);
///
/// // The state of this model loads; for another model it is refused.
/// let other: Linear = LinearConfig::new(3, 2).init(&device);
/// assert!(AdamConfig::new().init().try_load_record(optimizer.to_record(), &other).is_err());
/// let restored = AdamConfig::new().init().try_load_record(optimizer.to_record(), &model)?;
/// # let _ = restored;
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub trait TryOptimizerRecord: Sized + sealed::Sealed {
    /// Loads `record` after checking that every parameter it holds a state for is a float
    /// parameter of `model`, of the rank the state was saved at.
    ///
    /// # Errors
    ///
    /// [`GuardError::InvalidArgument`] naming the state ids that match no parameter (a record
    /// of another model); [`GuardError::RankMismatch`] in a context naming the parameter;
    /// [`GuardError::Store`] when the record cannot be read.
    #[doc(alias = "load_record")]
    fn try_load_record<M: Module>(self, record: OptimizerRecord, model: &M) -> Result<Self>;
}

impl TryOptimizerRecord for ModuleOptimizer {
    fn try_load_record<M: Module>(self, record: OptimizerRecord, model: &M) -> Result<Self> {
        const OP: &str = "ModuleOptimizer::load_record";
        // The record's fields are private: its serialised form is the one way to read which
        // parameters it holds, and at which rank.
        let store = |e: &dyn std::fmt::Display| GuardError::Store {
            op: OP,
            cause: std::sync::Arc::new(std::io::Error::other(e.to_string())),
        };
        let bytes = record.into_bytes().map_err(|e| store(&e))?;
        let reader = Reader::from_bytes(bytes.clone()).map_err(|e| store(&e))?;
        let mut saved: BTreeMap<u64, usize> = BTreeMap::new();
        for (name, value) in reader.scalars() {
            if let Some(id) = name.strip_suffix(".__rank")
                && let (Ok(id), Ok(rank)) = (id.parse::<u64>(), usize::try_from(*value))
            {
                saved.insert(id, rank);
            }
        }
        for tensor in reader.into_tensors().map_err(|e| store(&e))? {
            if let Some(id) = tensor.param_id {
                saved.entry(id).or_insert(tensor.shape.num_dims());
            }
        }

        struct Params(BTreeMap<u64, (String, usize)>);
        impl AtPath for Params {
            fn float<const D: usize>(&mut self, path: String, param: &Param<Tensor<D>>) {
                self.0.insert(param.id.val(), (path, D));
            }
        }
        let mut walk = PathWalk::new(Params(BTreeMap::new()));
        model.visit(&mut walk);
        let params = walk.at;

        let foreign: Vec<String> = saved
            .keys()
            .filter(|id| !params.0.contains_key(id))
            .map(u64::to_string)
            .collect();
        if !foreign.is_empty() {
            return Err(GuardError::InvalidArgument {
                op: OP,
                rule: "the optimizer state must be the model's: these state ids match none of its \
                       parameters (a record of another model, or of one built anew: load the \
                       model's own checkpoint, which keeps its parameter ids)",
                got: format!("ids={} of {}", foreign.len(), saved.len()),
            });
        }
        for (id, rank) in &saved {
            if let Some((path, param_rank)) = params.0.get(id)
                && param_rank != rank
            {
                return Err(GuardError::RankMismatch {
                    op: OP,
                    rule: "an optimizer state must have its parameter's rank",
                    expected: *param_rank,
                    got: *rank,
                    shape: Vec::new(),
                }
                .context(path.clone()));
            }
        }
        let record = OptimizerRecord::from_bytes(bytes).map_err(|e| store(&e))?;
        catch(OP, move || self.load_record(record))
    }
}
