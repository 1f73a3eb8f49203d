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
//! - With the `store` feature, a checked save: `model.save_into_checked(&store)?`
//!   ([`CheckedSnapshot::save_into_checked`], [`CheckedSave`]) writes as burn-store's own
//!   (atomic) store does, with a fingerprint of every tensor's bytes in the file's metadata, which
//!   every checked load of the file verifies ([`SaveReport`]); optionally with a [`Probe`], an
//!   input and the model's output on it, which a load given the same probe re-runs on the
//!   loaded copy before it is swapped in.
//!
//! What every checked load does:
//!
//! 1. Reads the checkpoint's index (names, dtypes, shapes), not its data.
//! 2. Checks every parameter before writing any: the tensor's kind and shape
//!    ([`check::load`](crate::check::load)), that its values cast to the parameter's dtype, that
//!    the device holds the dtype and the bytes, parameters the checkpoint lacks and keys no
//!    parameter takes (both refused by default, as burn-core refuses them), and, opt-in, that
//!    every value is finite.
//! 3. Writes them all into a copy of the model and swaps it in. The copy shares no storage
//!    with the model: a `RunningState` (batch norm's running statistics) shares its storage
//!    between clones in burn, so the copy gets its own first. On `Err` the caller's model is
//!    exactly as before; on `Ok` only the model loaded into changed, so loading into
//!    `model.clone()` to try a file leaves `model` and its running statistics untouched.
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
mod fingerprint;
mod options;
#[cfg(feature = "store")]
mod probe;
mod record;
mod report;
#[cfg(feature = "store")]
mod save;
#[cfg(feature = "store")]
mod stores;

pub use crate::check::load::Layout;
#[cfg(feature = "store")]
pub use builders::{TryFloatCastAdapter, TryHalfPrecisionAdapter, TryPathFilter};
pub use options::{AllowUnused, DTypeChoice, LoadOptions};
#[cfg(feature = "store")]
pub use probe::Probe;
pub use record::CheckedLoad;
pub use report::{Format, KeptReason, LoadOutcome, LoadReport, ParamLoad};
#[cfg(feature = "store")]
pub use save::SaveReport;
#[cfg(feature = "store")]
pub use stores::{
    BurnpackStore, CheckedSave, CheckedSnapshot, CheckedStore, PytorchStore, SafetensorsStore,
};
