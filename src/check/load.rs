//! Rules of loading a checkpoint into a model (twinned in `store/`): what a checkpoint's tensor
//! must be for the parameter it goes to. burn-store's `Applier::apply_tensor` checks the kind and
//! the shape *while* it writes; burn-core's `ModuleRecordMapper::take` checks only the shape.
//! These run before anything is written.
//!
//! Pure functions over shapes, dtypes and host values; each names the burn check it mirrors,
//! or says it is burn-guard's own.

use burn::tensor::{DType, TensorData, bf16, f16};

use super::rule::Rule;
use crate::error::{GuardError, NonFiniteSplit, Result, Unsupported};
use crate::gap::{Effect, Gap};
use serde::Serialize;

/// Whose conventions a file follows: burn's or PyTorch's. Three things differ:
///
/// | | `Layout::Burn` | `Layout::PyTorch` |
/// |---|---|---|
/// | a `Linear` weight (2-D) | `[d_input, d_output]`, read as is | `[out_features, in_features]`, transposed on the way in |
/// | a normalization layer's scale and shift (`BatchNorm`, `LayerNorm`, `GroupNorm`, `RmsNorm`) | `gamma`, `beta` | `weight`, `bias`, found under burn's names |
/// | bookkeeping buffers no burn module has (`num_batches_tracked`, ...) | unused keys | skipped by name, listed in [`LoadReport::skipped`](crate::store::LoadReport::skipped) |
///
/// The first two are burn-store's `PyTorchToBurnAdapter` (every rename it does is in that
/// table); the third is burn-guard's, by the names in
/// [`PYTORCH_BOOKKEEPING`]. A
/// convolution's weight has one layout in both, `[out, in, k...]`.
///
/// A square `Linear` weight from a file burn did not write is refused until the layout is
/// stated: the two cannot be told apart by shape, and the wrong one loads transposed without a
/// word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// burn's: read as is.
    Burn,
    /// PyTorch's (a `state_dict` saved by `torch.save` or `safetensors.torch`): read through
    /// burn-store's `PyTorchToBurnAdapter`, with PyTorch's bookkeeping buffers skipped.
    PyTorch,
}

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

/// The device holds `dtype`: the refusal when it does not, from the device's answer (`held`,
/// burn's `Device::supports_dtype`, which
/// [`capability::require_dtype`](crate::capability::require_dtype) asks and passes here with
/// the device's stack label). NdArray has no `F16`/`BF16`; burn-store's apply panics there
/// inside its abort guard and the process ends.
///
/// # Errors
///
/// [`GuardError::Unsupported`] naming `op`, `device`, `dtype {dtype:?}`, effect
/// [`Effect::Unimplemented`].
///
/// ```
/// use burn::tensor::DType;
/// use burn_guard::check::load::dtype_held;
/// assert!(dtype_held("load_file", DType::F16, true, "dispatch<flex>").is_ok());
/// assert!(dtype_held("load_file", DType::F16, false, "dispatch<ndarray>").is_err());
/// ```
pub fn dtype_held(op: &'static str, dtype: DType, held: bool, device: &str) -> Result<()> {
    if held {
        return Ok(());
    }
    Err(GuardError::Unsupported(Unsupported::new(
        op,
        device,
        format!("dtype {dtype:?}"),
        Gap::new(
            Effect::Unimplemented,
            "the device cannot hold this dtype (burn's supports_dtype)",
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
    let (split, total) = match data.dtype() {
        DType::F64 => non_finite(op, data, |v: f64| v)?,
        DType::F32 | DType::Flex32 => non_finite(op, data, |v: f32| f64::from(v))?,
        DType::F16 => non_finite(op, data, |v: f16| v.to_f64())?,
        DType::BF16 => non_finite(op, data, |v: bf16| v.to_f64())?,
        // Integers and bools are finite by construction; quantized data is scanned in float.
        _ => return Ok(()),
    };
    Rule(
        op,
        "the checkpoint's values must be finite (the non-finite scan is on)",
    )
    .finite_split(
        split,
        total,
        Some(data.dtype()),
        Some(data.shape().as_slice()),
    )
}

/// `(NaN, +inf and -inf among the values, values)` of `data`, stored as `E` (widened to `f64`,
/// which keeps each class): read in place, or copied when the buffer is not aligned for `E` (a
/// checkpoint's bytes may sit anywhere in a file).
fn non_finite<E: burn::tensor::Element>(
    op: &'static str,
    data: &TensorData,
    widen: impl Fn(E) -> f64,
) -> Result<(NonFiniteSplit, u64)> {
    let count = |values: &[E]| {
        let split = NonFiniteSplit::of(values.iter().map(|v| widen(*v)));
        (split, u64::try_from(values.len()).unwrap_or(u64::MAX))
    };
    match data.as_slice::<E>() {
        Ok(values) => Ok(count(values)),
        Err(_) => data
            .clone()
            .try_into_vec::<E>()
            .map(|values| count(&values))
            .map_err(|e| GuardError::from_data(op, e)),
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

/// A pattern compiles as a regular expression, with the `regex` crate burn-store compiles its
/// patterns with (the same version in the build), so that the verdict is burn's:
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
    match ::regex::Regex::new(pattern) {
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

/// The last segments of PyTorch state-dict keys that hold bookkeeping no burn module has a
/// place for, skipped by name under [`Layout::PyTorch`]:
///
/// - `num_batches_tracked`: torch's `BatchNorm*d` counts its training batches (an `int64`
///   scalar; burn's `BatchNorm` uses a fixed momentum). torchvision's ResNet-18 holds 20.
/// - `position_ids`, `token_type_ids`: index buffers of BERT-family embeddings, in files saved
///   by transformers before they became non-persistent (4.31); burn's embeddings take the ids
///   as input.
/// - `masked_bias`: GPT-2's mask fill value, in files saved by transformers before 4.31.
///
/// GPT-2's causal mask `attn.bias` is not among them: `bias` is also a parameter's name.
pub const PYTORCH_BOOKKEEPING: [&str; 4] = [
    "num_batches_tracked",
    "position_ids",
    "token_type_ids",
    "masked_bias",
];

/// Whether a checkpoint's `key` is PyTorch bookkeeping ([`PYTORCH_BOOKKEEPING`]), by its last
/// segment: burn-guard's own rule, applied to keys no parameter took.
///
/// ```
/// use burn_guard::check::load::pytorch_bookkeeping;
/// assert!(pytorch_bookkeeping("layer1.0.bn1.num_batches_tracked"));
/// assert!(pytorch_bookkeeping("embeddings.position_ids"));
/// assert!(!pytorch_bookkeeping("layer1.0.bn1.running_mean"));
/// assert!(!pytorch_bookkeeping("h.0.attn.bias"));
/// ```
pub fn pytorch_bookkeeping(key: &str) -> bool {
    let last = key.rsplit('.').next().unwrap_or(key);
    PYTORCH_BOOKKEEPING.contains(&last)
}

/// Whether `key` matches `pattern`, where `*` stands for any run of characters (dots
/// included, none at all too) and every other character for itself: the patterns of
/// `allow_unused` ([`AllowUnused::Matching`](crate::store::AllowUnused::Matching)).
///
/// ```
/// use burn_guard::check::load::key_matches;
/// assert!(key_matches("aux_logits.*", "aux_logits.fc.weight"));
/// assert!(key_matches("*.num_batches_tracked", "bn1.num_batches_tracked"));
/// assert!(key_matches("fc.weight", "fc.weight"));
/// assert!(!key_matches("fc.*", "fc2.weight"));
/// assert!(!key_matches("layer1.*", "layer2.0.conv1.weight"));
/// ```
pub fn key_matches(pattern: &str, key: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else {
        return pattern == key;
    };
    let Some(mut rest) = key.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        // No `*`: the whole pattern was the prefix.
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = rest.get(at.saturating_add(part.len())..).unwrap_or(""),
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// When a checkpoint's unused keys look like the model's missing parameters under other
/// module paths, the renamings that would make them fit, file's prefix first, the model's
/// second: burn-guard's own hint, for the refusal of a load (PyTorch's `nn.Sequential` keys
/// `0.weight`, `2.weight` against a model's `fc1`, `fc2`; a file whose keys carry a `model.`
/// prefix the model lacks). Empty when nothing lines up.
///
/// Two ways to line up, tried in order:
/// - one prefix added or taken away makes every missing parameter an unused key;
/// - grouped by module path (the key less its last segment), the missing and the unused
///   groups are as many, and pair off in sorted order with the same last segments.
///
/// `missing` and `unused` are sorted.
///
/// ```
/// use burn_guard::check::load::renamed_prefixes;
/// let missing = ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"].map(String::from);
/// let unused = ["0.bias", "0.weight", "2.bias", "2.weight"].map(String::from);
/// assert_eq!(
///     renamed_prefixes(&missing, &unused),
///     [("0".to_owned(), "fc1".to_owned()), ("2".to_owned(), "fc2".to_owned())]
/// );
/// let unused = ["model.fc1.bias", "model.fc1.weight", "model.fc2.bias", "model.fc2.weight"];
/// let unused = unused.map(String::from);
/// assert_eq!(renamed_prefixes(&missing, &unused), [("model.".to_owned(), String::new())]);
/// assert!(renamed_prefixes(&missing, &["other.weight".to_owned()]).is_empty());
/// ```
pub fn renamed_prefixes(missing: &[String], unused: &[String]) -> Vec<(String, String)> {
    if missing.is_empty() || unused.is_empty() {
        return Vec::new();
    }
    if let Some(prefix) = uniform_prefix(missing, unused) {
        return vec![(prefix, String::new())];
    }
    if let Some(prefix) = uniform_prefix(unused, missing) {
        return vec![(String::new(), prefix)];
    }
    let missing = groups(missing);
    let unused = groups(unused);
    if missing.len() != unused.len() {
        return Vec::new();
    }
    let mut pairs = Vec::with_capacity(missing.len());
    for ((model, model_leaves), (file, file_leaves)) in missing.iter().zip(&unused) {
        if model_leaves != file_leaves || model == file {
            return Vec::new();
        }
        pairs.push(((*file).to_owned(), (*model).to_owned()));
    }
    pairs
}

/// The one prefix `p` for which every key of `short` is in `long` as `p` + key.
fn uniform_prefix(short: &[String], long: &[String]) -> Option<String> {
    let first = short.first()?;
    long.iter()
        .filter_map(|key| key.strip_suffix(first.as_str()))
        .filter(|p| !p.is_empty() && p.ends_with('.'))
        .find(|prefix| {
            short.iter().all(|key| {
                long.iter()
                    .any(|l| l.strip_prefix(prefix) == Some(key.as_str()))
            })
        })
        .map(str::to_owned)
}

/// Keys grouped by module path (all but the last segment), each with its last segments, in
/// sorted order of the path.
fn groups(keys: &[String]) -> Vec<(&str, Vec<&str>)> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for key in keys {
        let (path, leaf) = key.rsplit_once('.').unwrap_or(("", key.as_str()));
        match groups.iter_mut().find(|(p, _)| *p == path) {
            Some((_, leaves)) => leaves.push(leaf),
            None => groups.push((path, vec![leaf])),
        }
    }
    for (_, leaves) in &mut groups {
        leaves.sort_unstable();
    }
    groups.sort_unstable_by(|a, b| a.0.cmp(b.0));
    groups
}

/// The one refusal of a load from every problem it found, or `None` when it found none:
/// burn-guard's own rule, in the spirit of PyTorch's strict `load_state_dict`, which lists
/// missing and unexpected keys together.
///
/// One problem refuses as itself: [`GuardError::Missing`] (the missing parameters),
/// [`GuardError::Unused`] (the unused keys) or the one parameter's refusal. More than one
/// refuses as [`GuardError::LoadMismatch`], with every list whole and the renamings
/// [`renamed_prefixes`] finds.
///
/// `missing` and `unused` are sorted; `refused` holds each parameter's error, its path as
/// context.
///
/// ```
/// use burn_guard::ErrorKind;
/// use burn_guard::check::load::refusal;
/// let missing = ["fc1.bias", "fc1.weight"].map(String::from);
/// let unused = ["0.bias", "0.weight"].map(String::from);
/// assert!(refusal("load_from", &[], &[], Vec::new()).is_none());
/// let only_missing = refusal("load_from", &missing, &[], Vec::new()).unwrap();
/// assert_eq!(only_missing.kind(), ErrorKind::Missing);
/// let both = refusal("load_from", &missing, &unused, Vec::new()).unwrap();
/// assert_eq!(both.kind(), ErrorKind::LoadMismatch);
/// assert!(both.to_string().contains("remap the file's keys `0` -> `fc1`"));
/// ```
pub fn refusal(
    op: &'static str,
    missing: &[String],
    unused: &[String],
    mut refused: Vec<GuardError>,
) -> Option<GuardError> {
    let problems =
        usize::from(!missing.is_empty()) + usize::from(!unused.is_empty()) + refused.len();
    match problems {
        0 => None,
        1 if !missing.is_empty() => Some(GuardError::Missing {
            op,
            params: missing.to_vec(),
        }),
        1 if !unused.is_empty() => Some(GuardError::Unused {
            op,
            keys: unused.to_vec(),
        }),
        1 => refused.pop(),
        _ => Some(GuardError::LoadMismatch {
            op,
            missing: missing.to_vec(),
            unused: unused.to_vec(),
            renamed: renamed_prefixes(missing, unused),
            refused,
        }),
    }
}
