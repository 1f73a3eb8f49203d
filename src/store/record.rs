//! The twins of burn-core's loaders: a [`ModuleRecord`] in memory and a burnpack file.

use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::store::ModuleRecord;
use burn_pack::Reader;

use super::engine::{self, Checkpoint, Matching, store_error};
use super::fingerprint;
use super::options::LoadOptions;
use super::{Format, LoadReport};
use crate::error::{GuardError, Result};

mod sealed {
    pub trait Sealed {}
    impl<M: burn::module::Module> Sealed for M {}
}

/// Fallible twins of [`Module::load_record`] and [`Module::load_file`] (and of burn's
/// `try_load_record` / `try_load_file`, which return `Err` but consume the model): the model is
/// borrowed, and on `Err` it is exactly as it was.
///
/// Sealed: implemented for every `M: Module`. In the prelude.
///
/// ```
/// use burn::module::Module;
/// use burn::nn::{Linear, LinearConfig};
/// use burn::tensor::Device;
/// use burn_guard::prelude::*;
///
/// let device = Device::flex();
/// let trained: Linear = LinearConfig::new(3, 4).init(&device);
/// let mut served: Linear = LinearConfig::new(3, 4).init(&device);
/// let report = served.load_record_checked(trained.clone().into_record())?;
/// assert_eq!(report.loaded().count(), 2);
///
/// // A checkpoint of another shape is refused, and the served model is untouched.
/// let other: Linear = LinearConfig::new(4, 4).init(&device);
/// let err = served.load_record_checked(other.into_record()).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
/// assert_eq!(err.path().as_deref(), Some("weight"));
/// assert_eq!(
///     served.weight.val().into_data(),
///     trained.weight.val().into_data()
/// );
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub trait CheckedLoad: Module + sealed::Sealed {
    /// Fallible twin of [`Module::load_record`]: writes `record` into the model, all or
    /// nothing, and reports what it did.
    ///
    /// The record's own `allow_partial`, `allow_unused` and `validate` settings are honoured.
    /// Its dtype policy is not: the model keeps its dtypes (burn's default would adopt the
    /// record's); [`LoadOptions::dtype`] chooses.
    ///
    /// Costs one copy of the record's bytes on the host: a `ModuleRecord` shows nothing of its
    /// tensors but through its serialised form.
    ///
    /// # Errors
    ///
    /// [`GuardError::Checkpoint`] around the refusal: the parameter's path as the error's path,
    /// and [`GuardError::ShapeMismatch`], [`GuardError::DTypeMismatch`],
    /// [`GuardError::Missing`], [`GuardError::Unused`], [`GuardError::Unsupported`],
    /// [`GuardError::TooLarge`] or [`GuardError::OutOfMemory`] inside.
    #[doc(alias = "load_record")]
    #[doc(alias = "try_load_record")]
    fn load_record_checked(&mut self, record: ModuleRecord) -> Result<LoadReport> {
        let options = match crate::upstream::record_settings(&record) {
            Some(settings) => LoadOptions::new()
                .allow_partial(settings.allow_partial)
                .allow_unused(settings.allow_unused)
                .validate(settings.validate),
            None => {
                return Err(GuardError::Unreadable {
                    op: "load_record",
                    what: "`ModuleRecord`'s private load settings",
                });
            }
        };
        load_record(self, record, &options)
    }

    /// Fallible twin of [`Module::load_file`]: reads a burnpack file (`.bpk` is appended to a
    /// path without an extension that does not exist, as burn appends it) into the model, all
    /// or nothing. Reads the file's index first and its data only once everything is checked.
    ///
    /// # Errors
    ///
    /// As [`CheckedLoad::load_record_checked`], and [`GuardError::Store`] (inside
    /// [`GuardError::Checkpoint`]) when the file cannot be opened or is not a burnpack file.
    #[doc(alias = "load_file")]
    #[doc(alias = "try_load_file")]
    fn load_file_checked(&mut self, path: impl AsRef<Path>) -> Result<LoadReport> {
        load_file(self, path.as_ref(), &LoadOptions::new())
    }
}

impl<M: Module> CheckedLoad for M {}

pub(super) fn load_record<M: Module>(
    model: &mut M,
    record: ModuleRecord,
    options: &LoadOptions,
) -> Result<LoadReport> {
    const OP: &str = "load_record";
    let read = record
        .into_bytes()
        .map_err(|e| store_error(OP, e))
        .and_then(|bytes| Reader::from_bytes(bytes).map_err(|e| store_error(OP, e)));
    load(model, OP, "<record>".to_owned(), read, options)
}

pub(super) fn load_file<M: Module>(
    model: &mut M,
    path: &Path,
    options: &LoadOptions,
) -> Result<LoadReport> {
    const OP: &str = "load_file";
    let path = resolve(path);
    let read = Reader::from_file_exact(&path).map_err(|e| store_error(OP, e));
    load(model, OP, path.display().to_string(), read, options)
}

/// The path burn's `Reader::from_file` opens: `.bpk` appended to a path without an extension
/// that does not exist.
fn resolve(path: &Path) -> PathBuf {
    if path.extension().is_none() && !path.exists() {
        path.with_extension(burn_pack::EXTENSION)
    } else {
        path.to_path_buf()
    }
}

/// A burnpack's index: every tensor, its data still in the buffer or file.
fn checkpoint(op: &'static str, file: String, reader: Reader) -> Result<Checkpoint> {
    let producer = reader.metadata().get("producer").cloned();
    let fingerprint = fingerprint::from_metadata(
        op,
        reader.metadata().get(fingerprint::KEY).map(String::as_str),
    )?;
    let tensors = reader.into_tensors().map_err(|e| store_error(op, e))?;
    Ok(Checkpoint {
        op,
        format: if file == "<record>" {
            Format::Record
        } else {
            Format::Burnpack
        },
        // burnpack is burn's own format, whatever its metadata says (`Module::save_file`
        // writes none).
        producer: producer.or_else(|| Some("burn".to_owned())),
        file,
        tensors,
        remapped: Vec::new(),
        ids: true,
        fingerprint,
    })
}

fn load<M: Module>(
    model: &mut M,
    op: &'static str,
    file: String,
    read: Result<Reader>,
    options: &LoadOptions,
) -> Result<LoadReport> {
    match read.and_then(|reader| checkpoint(op, file.clone(), reader)) {
        Ok(checkpoint) => engine::load(model, checkpoint, &Matching::default(), options, None),
        Err(err) => Err(GuardError::Checkpoint {
            op,
            file,
            device: engine::model_device(model),
            inner: Box::new(err),
        }),
    }
}

impl LoadOptions {
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
        load_record(model, record, self)
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
        load_file(model, path.as_ref(), self)
    }
}
