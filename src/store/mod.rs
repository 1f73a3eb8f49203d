//! Loading a checkpoint without losing the model: all or nothing, typed, never a process abort.
//!
//! burn's loaders write as they go and validate afterwards. `Module::load_record` and
//! `load_file` panic on any mismatch; `try_load_record` and `try_load_file` return `Err` but
//! consume the model, so a service that met a wrong file has no model left to serve; a dtype
//! the device cannot hold (`F16` on NdArray) panics inside them; and the default dtype policy
//! silently gives the model the file's dtype, which its first forward then refuses.
//!
//! The twins take the model by `&mut` and return a [`LoadReport`]:
//!
//! - [`CheckedLoad`] (in the prelude): `model.load_record_checked(record)?` and
//!   `model.load_file_checked("model.bpk")?`, the twins of burn-core's loaders.
//! - [`LoadOptions`]: the same with choices (a partial checkpoint, unused keys, the dtype, the
//!   non-finite scan).
//! - With the `store` feature, burn-store's formats: [`SafetensorsStore`], [`PytorchStore`]
//!   and [`BurnpackStore`], built as burn-store's are, loaded with
//!   `model.load_from_checked(&store)?` ([`CheckedSnapshot`], in the prelude) or
//!   `store.apply_to_checked(&mut model)?` ([`CheckedStore`]). burn-store's own `apply_to`
//!   writes the matching tensors before it validates, never refuses unused keys, loads a square
//!   PyTorch `Linear` weight transposed without a word, and aborts the process on a panic
//!   inside (a BF16 file on NdArray); these never hand a model to it.
//!
//! What every checked load does:
//!
//! 1. Reads the checkpoint's index (names, dtypes, shapes), not its data.
//! 2. Checks every parameter before writing any: the tensor's kind and shape
//!    ([`check::load`](crate::check::load)), that its values cast to the parameter's dtype, that
//!    the device holds the dtype and the bytes, parameters the checkpoint lacks and keys no
//!    parameter takes (both refused by default, as burn-core refuses them), and, opt-in, that
//!    every value is finite.
//! 3. Writes them all into a clone of the model and swaps it in. On `Err` the caller's model
//!    is exactly as before, its `RunningState`s included (they share storage between clones,
//!    so a failure while writing puts their values back).
//!
//! **Dtype.** By default the model keeps its own dtypes ([`DTypeChoice::KeepModel`]): the
//! file's values are cast on the host and the report says so. Adopting the file's dtype is
//! [`DTypeChoice::AdoptFile`], checked against the device, and refused when the model would end
//! with two float dtypes.
//!
//! **Ids.** A parameter takes the id the checkpoint stores for it, as in burn; where the
//! checkpoint stores none it keeps its own (burn-core draws a new random one).

#[cfg(feature = "store")]
mod builders;
mod engine;
mod record;
mod report;
#[cfg(feature = "store")]
mod stores;

#[cfg(feature = "store")]
pub use builders::{TryFloatCastAdapter, TryHalfPrecisionAdapter, TryPathFilter};
pub use record::CheckedLoad;
pub use report::{Format, KeptReason, LoadOutcome, LoadReport, ParamLoad};
#[cfg(feature = "store")]
pub use stores::{BurnpackStore, CheckedSnapshot, CheckedStore, PytorchStore, SafetensorsStore};

use std::path::Path;

use burn::module::Module;
use burn::store::ModuleRecord;
use serde::Serialize;

use crate::error::Result;

/// What a parameter's dtype is after a load.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DTypeChoice {
    /// Each parameter keeps its dtype; the checkpoint's values are cast on the host (the
    /// report lists every cast). The default: a model whose forward works before the load
    /// works after it.
    #[default]
    KeepModel,
    /// Each parameter takes the checkpoint's dtype (burn's default, `DTypePolicy::FromRecord`),
    /// checked against the device and refused when the model would end with two float dtypes.
    AdoptFile,
}

/// The layout of a file's 2-D `Linear` weights: burn's `[in, out]` or PyTorch's `[out, in]`.
///
/// A square weight from a file burn did not write is refused until the layout is stated:
/// the two cannot be told apart by shape, and the wrong one loads transposed without a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// burn's `[d_input, d_output]`: read as is.
    Burn,
    /// PyTorch's `[out_features, in_features]`: read through burn-store's
    /// `PyTorchToBurnAdapter`, which transposes it.
    PyTorch,
}

/// The choices of a checked load. Strict by default: every parameter must be in the
/// checkpoint, every checkpoint key must go to a parameter, and the model keeps its dtypes.
///
/// ```
/// use burn::nn::{Linear, LinearConfig};
/// use burn::module::Module;
/// use burn::tensor::Device;
/// use burn_guard::store::LoadOptions;
///
/// let device = Device::flex();
/// let trained: Linear = LinearConfig::new(3, 4).init(&device);
/// let record = trained.clone().into_record();
/// let mut model: Linear = LinearConfig::new(3, 4).init(&device);
/// let report = LoadOptions::new().scan_non_finite(true).load_record(&mut model, record)?;
/// assert_eq!(report.loaded().count(), 2);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    pub(crate) allow_partial: bool,
    pub(crate) allow_unused: bool,
    pub(crate) validate: bool,
    pub(crate) dtype: DTypeChoice,
    pub(crate) scan_non_finite: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            allow_partial: false,
            allow_unused: false,
            validate: true,
            dtype: DTypeChoice::KeepModel,
            scan_non_finite: false,
        }
    }
}

impl LoadOptions {
    /// The strict defaults.
    pub fn new() -> Self {
        Self::default()
    }

    setters! {
        /// Accept a checkpoint that lacks some parameters: they keep their values and the report
        /// lists them (burn's `allow_partial`).
        pub fn allow_partial(allow: bool) => allow_partial;

        /// Accept checkpoint keys that no parameter takes: the report lists them (burn-core's
        /// `allow_unused`; burn-store never refuses them).
        pub fn allow_unused(allow: bool) => allow_unused;

        /// `false`: a tensor of the wrong shape or kind is not refused; its parameter keeps its
        /// value and the report says why (burn's `validate(false)`, which says nothing).
        pub fn validate(validate: bool) => validate;

        /// Keep the model's dtypes (the default) or adopt the checkpoint's.
        pub fn dtype(choice: DTypeChoice) => dtype;

        /// Read every float value before anything is written, and refuse a checkpoint holding NaN
        /// or ±inf (in the dtype the parameter ends with), naming the parameter and the count.
        /// Costs a read of the whole checkpoint on the host.
        pub fn scan_non_finite(scan: bool) => scan_non_finite;
    }

    /// [`CheckedLoad::load_record_checked`] with these choices (the record's own settings are
    /// not read).
    ///
    /// # Errors
    ///
    /// As [`CheckedLoad::load_record_checked`].
    pub fn load_record<M: Module>(
        &self,
        model: &mut M,
        record: ModuleRecord,
    ) -> Result<LoadReport> {
        record::load_record(model, record, self)
    }

    /// [`CheckedLoad::load_file_checked`] with these choices.
    ///
    /// # Errors
    ///
    /// As [`CheckedLoad::load_file_checked`].
    pub fn load_file<M: Module>(
        &self,
        model: &mut M,
        path: impl AsRef<Path>,
    ) -> Result<LoadReport> {
        record::load_file(model, path.as_ref(), self)
    }
}
