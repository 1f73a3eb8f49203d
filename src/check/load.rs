//! Rules of loading a checkpoint into a model (twinned in `store/`): what a checkpoint's tensor
//! must be for the parameter it goes to. burn-store's `Applier::apply_tensor` checks the kind and
//! the shape *while* it writes; burn-core's `ModuleRecordMapper::take` checks only the shape.
//! These run before anything is written.
//!
//! Pure functions over shapes, dtypes and host values; each names the burn check it mirrors,
//! or says it is burn-guard's own.

use burn::tensor::{DType, Device, TensorData};

use crate::capability::{Effect, Gap};
use crate::error::{GuardError, Result, Unsupported};
use crate::store::Layout;

/// The kind of tensor a parameter holds, as burn-store's `TargetDType` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `Param<Tensor<D>>`: accepts any float dtype, and quantized data.
    Float,
    /// `Param<Tensor<D, Int>>`: accepts signed and unsigned integers.
    Int,
    /// `Param<Tensor<D, Bool>>`: accepts bool, and the `U8`/`U32` a format without bools
    /// stores them in.
    Bool,
}

/// The checkpoint's dtype is of the parameter's kind: burn-store's `TargetDType::accepts`
/// (burn-core checks no kind, and its `Tensor::from_data` then panics, `Expected float dtype`,
/// or leaves an int parameter holding `F32`).
///
/// # Errors
///
/// [`GuardError::DTypeMismatch`] with the checkpoint's dtype first, the parameter's second.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::load::{ParamKind, kind};
/// assert!(kind("load_file", ParamKind::Float, DType::BF16, DType::F32).is_ok());
/// assert!(kind("load_file", ParamKind::Float, DType::I64, DType::F32).is_err());
/// assert!(kind("load_file", ParamKind::Bool, DType::U8, DType::U8).is_ok());
/// ```
pub fn kind(op: &'static str, param: ParamKind, file: DType, param_dtype: DType) -> Result<()> {
    let accepts = match param {
        ParamKind::Float => file.is_float() || matches!(file, DType::QFloat(_)),
        ParamKind::Int => file.is_int() || file.is_uint(),
        ParamKind::Bool => file.is_bool() || matches!(file, DType::U8 | DType::U32),
    };
    if accepts {
        Ok(())
    } else {
        Err(GuardError::DTypeMismatch {
            op,
            rule: "the checkpoint's tensor must be of the parameter's kind (float, int or bool)",
            lhs: file,
            rhs: param_dtype,
        })
    }
}

/// The checkpoint's shape is the parameter's: burn-store's `Applier::apply_tensor` and burn-core's
/// `ModuleRecordMapper::take` (both against `Param::lazy_shape`).
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] with the parameter's shape first, the checkpoint's second; when
/// the checkpoint's is the transpose of a 2-D parameter's, the rule names PyTorch's layout and
/// the adapter that reads it.
///
/// ```
/// use burn_guard::check::load::shape;
/// assert!(shape("load_file", &[3, 4], &[3, 4]).is_ok());
/// let err = shape("load_file", &[3, 4], &[4, 3]).unwrap_err();
/// assert!(err.to_string().contains("PyTorchToBurnAdapter"));
/// ```
pub fn shape(op: &'static str, param: &[usize], file: &[usize]) -> Result<()> {
    if param == file {
        return Ok(());
    }
    let transposed = matches!((param, file), ([a, b], [c, d]) if a == d && b == c);
    Err(GuardError::ShapeMismatch {
        op,
        rule: if transposed {
            "the checkpoint's tensor must have the parameter's shape (parameter's, then \
             checkpoint's: the transpose, PyTorch's [out, in] layout, which Layout::PyTorch \
             reads through PyTorchToBurnAdapter)"
        } else {
            "the checkpoint's tensor must have the parameter's shape (parameter's, then \
             checkpoint's)"
        },
        shapes: vec![param.to_vec(), file.to_vec()],
    })
}

/// A square 2-D `Linear` weight from a file burn did not write needs a stated layout:
/// burn-guard's own rule. burn's `[in, out]` and PyTorch's `[out, in]` have the same shape when
/// square, so burn loads PyTorch's transposed without a word; a non-square one is caught by
/// [`shape`].
///
/// `producer` is what the file names in its metadata; `Some("burn")` is burn's own.
///
/// # Errors
///
/// [`GuardError::LayoutUnstated`].
///
/// ```
/// use burn_guard::check::load::layout;
/// use burn_guard::store::Layout;
/// assert!(layout("load_from", true, &[4, 4], None, None).is_err());
/// assert!(layout("load_from", true, &[4, 4], None, Some(Layout::PyTorch)).is_ok());
/// assert!(layout("load_from", true, &[4, 4], Some("burn"), None).is_ok());
/// assert!(layout("load_from", true, &[3, 4], None, None).is_ok());
/// ```
pub fn layout(
    op: &'static str,
    linear_weight: bool,
    file: &[usize],
    producer: Option<&str>,
    layout: Option<Layout>,
) -> Result<()> {
    let square = matches!(file, [a, b] if a == b);
    if linear_weight && square && producer != Some("burn") && layout.is_none() {
        return Err(GuardError::LayoutUnstated {
            op,
            shape: file.to_vec(),
            producer: producer.map(str::to_owned),
        });
    }
    Ok(())
}

/// The checkpoint's values can be cast on the host to the dtype the parameter ends with:
/// `TensorData::try_cast` within a kind (float to float, integer to integer); quantized data is
/// never cast.
///
/// # Errors
///
/// [`GuardError::DTypeMismatch`] with the checkpoint's dtype first, the target second.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::load::cast;
/// assert!(cast("load_file", DType::F16, DType::F32).is_ok());
/// assert!(cast("load_file", DType::I64, DType::I32).is_ok());
/// assert!(cast("load_file", DType::F32, DType::I32).is_err());
/// ```
pub fn cast(op: &'static str, file: DType, target: DType) -> Result<()> {
    let castable = file == target
        || (file.is_float() && target.is_float())
        || ((file.is_int() || file.is_uint()) && (target.is_int() || target.is_uint()))
        || (file.is_bool() && target.is_bool());
    if castable {
        Ok(())
    } else {
        Err(GuardError::DTypeMismatch {
            op,
            rule: "the checkpoint's values must cast to the parameter's dtype (quantized data \
                   loads only with DTypeChoice::AdoptFile)",
            lhs: file,
            rhs: target,
        })
    }
}

/// The device holds the dtype the parameter adopts from the checkpoint: `Device::supports_dtype`
/// (NdArray has no `F16`/`BF16`; burn-store's apply panics there inside its abort guard, and the
/// process ends).
///
/// # Errors
///
/// [`GuardError::Unsupported`] naming the dtype, effect [`Effect::Unimplemented`].
///
/// ```
/// use burn::tensor::{DType, Device};
/// use burn_guard::check::load::device_holds;
/// assert!(device_holds("load_file", &Device::flex(), DType::F16).is_ok());
/// ```
pub fn device_holds(op: &'static str, device: &Device, dtype: DType) -> Result<()> {
    if device.supports_dtype(dtype) {
        return Ok(());
    }
    let backend = crate::capability::stack_of(device).label().to_owned();
    Err(GuardError::Unsupported(Unsupported::new(
        op,
        backend,
        format!("dtype {dtype:?}"),
        Gap::new(
            Effect::Unimplemented,
            "the device cannot hold the checkpoint's dtype; DTypeChoice::KeepModel casts it to \
             the parameter's",
        ),
    )))
}

/// Every value of the checkpoint's tensor is finite, read in the dtype the parameter ends with
/// (an `F32` value past `F16`'s range is `inf` there): burn-guard's own opt-in rule.
///
/// # Errors
///
/// [`GuardError::NonFinite`] with the count; a data error when the values cannot be read.
///
/// ```
/// use burn::tensor::TensorData;
/// use burn_guard::check::load::finite;
/// assert!(finite("load_file", &TensorData::from([1.0f32, 2.0])).is_ok());
/// let err = finite("load_file", &TensorData::from([1.0f32, f32::NAN])).unwrap_err();
/// assert!(err.to_string().contains("1 non-finite of 2"));
/// ```
pub fn finite(op: &'static str, data: &TensorData) -> Result<()> {
    let values = crate::panic::catch(op, || {
        data.iter::<f64>().fold((0u64, 0u64), |(bad, all), v| {
            (bad + u64::from(!v.is_finite()), all + 1)
        })
    })?;
    match values {
        (0, _) => Ok(()),
        (count, total) => Err(GuardError::NonFinite {
            op,
            rule: "the checkpoint's values must be finite (the non-finite scan is on)",
            count,
            total,
        }),
    }
}

/// A model adopting the checkpoint's dtypes ends with one float dtype: burn-guard's own rule
/// (burn's forward refuses mixed operands: Flex `matmul: dtype mismatch`).
///
/// `params` is `(path, dtype)` of every float parameter as the load leaves it.
///
/// # Errors
///
/// [`GuardError::DTypeMismatch`] with the first two dtypes that differ, in a context naming the
/// second parameter.
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::load::one_float_dtype;
/// assert!(one_float_dtype("load_file", &[("a", DType::F16), ("b", DType::F16)]).is_ok());
/// assert!(one_float_dtype("load_file", &[("a", DType::F16), ("b", DType::F32)]).is_err());
/// ```
pub fn one_float_dtype(op: &'static str, params: &[(&str, DType)]) -> Result<()> {
    let Some(&(_, first)) = params.first() else {
        return Ok(());
    };
    match params.iter().find(|(_, dtype)| *dtype != first) {
        None => Ok(()),
        Some((path, dtype)) => Err(GuardError::DTypeMismatch {
            op,
            rule: "a model that adopts the checkpoint's dtypes must end with one float dtype",
            lhs: first,
            rhs: *dtype,
        }
        .context(*path)),
    }
}

/// A pattern compiles as a regular expression, with burn-store's own regex engine (through
/// `KeyRemapper::add_pattern`, which returns the error), so that the verdict is burn's:
/// `PathFilter::with_regex` and the stores' `with_key_remapping` panic on what this refuses.
///
/// # Errors
///
/// [`GuardError::InvalidArgument`] naming the pattern and the regex engine's message.
///
/// ```
/// use burn_guard::check::load::regex;
/// assert!(regex("with_regex", r"^encoder\.").is_ok());
/// assert!(regex("with_regex", "(").is_err());
/// ```
#[cfg(feature = "store")]
pub fn regex(op: &'static str, pattern: &str) -> Result<()> {
    match burn::store::KeyRemapper::new().add_pattern(pattern, "") {
        Ok(_) => Ok(()),
        Err(err) => Err(GuardError::InvalidArgument {
            op,
            rule: "the pattern must be a valid regular expression",
            got: format!("pattern={pattern:?} ({err})"),
        }),
    }
}

/// The target of a float cast is a float dtype: burn-store's `FloatCastAdapter::to` asserts it.
///
/// # Errors
///
/// [`GuardError::InvalidDType`].
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::load::float_target;
/// assert!(float_target("FloatCastAdapter::to", DType::BF16).is_ok());
/// assert!(float_target("FloatCastAdapter::to", DType::I32).is_err());
/// ```
pub fn float_target(op: &'static str, target: DType) -> Result<()> {
    if target.is_float() {
        Ok(())
    } else {
        Err(GuardError::InvalidDType {
            op,
            rule: "the target of a float cast must be a float dtype",
            dtype: target,
        })
    }
}
