//! Twins of `burn::tensor::module::attention` and `attention_fallback`.

use burn::tensor::module as burn_module;
use burn::tensor::ops::AttentionModuleOptions;
use burn::tensor::{Bool, Device, Tensor};

use crate::capability::{Layer, stack_of};
use crate::check::{self, attention::AttentionShapes};
use crate::error::Result;
use crate::panic::catch;

/// Whether `device` groups query heads over fewer key heads in its own kernel (plain Flex);
/// every other backend runs a matmul that only broadcasts a single key head.
fn groups_heads(device: &Device) -> bool {
    stack_of(device).layers() == [Layer::Dispatch, Layer::Flex]
}

struct Gathered {
    shapes: AttentionShapes,
    device: Device,
}

#[allow(clippy::too_many_arguments)]
fn gather(
    op: &'static str,
    query: &Tensor<4>,
    key: &Tensor<4>,
    value: &Tensor<4>,
    mask: Option<&Tensor<4, Bool>>,
    attn_bias: Option<&Tensor<4>>,
    options: &AttentionModuleOptions,
    grouped: impl Fn(&Device) -> bool,
) -> Result<Gathered> {
    let device = query.device();
    let mask_dims = mask.map(|m| m.dims().to_vec());
    let bias_dims = attn_bias.map(|b| b.dims().to_vec());
    let shapes = check::attention::attention(
        op,
        &query.dims(),
        &key.dims(),
        &value.dims(),
        mask_dims.as_deref(),
        bias_dims.as_deref(),
        options.scale,
        options.softcap,
        grouped(&device),
    )?;
    let mut devices = vec![key.device(), value.device()];
    devices.extend(mask.map(Tensor::device));
    devices.extend(attn_bias.map(Tensor::device));
    for other in &devices {
        crate::capability::same_device(op, &device, other)?;
    }
    let dtype = query.dtype();
    let mut dtypes = vec![key.dtype(), value.dtype()];
    dtypes.extend(attn_bias.map(Tensor::dtype));
    for other in dtypes {
        if other != dtype {
            return Err(crate::GuardError::DTypeMismatch {
                op,
                rule: "key, value and bias must have the query's float dtype",
                lhs: dtype,
                rhs: other,
            });
        }
    }
    Ok(Gathered { shapes, device })
}

/// The inputs of burn's attention functions, in their order.
type AttentionInputs = (
    Tensor<4>,
    Tensor<4>,
    Tensor<4>,
    Option<Tensor<4, Bool>>,
    Option<Tensor<4>>,
    AttentionModuleOptions,
);

/// The attention twins' one body: gather and check the inputs (`grouped`: whether the device
/// groups query heads itself), answer an empty or keyless shape with zeros, else run burn's
/// `run` under the backstop.
fn attend(
    op: &'static str,
    inputs: AttentionInputs,
    grouped: impl Fn(&Device) -> bool,
    run: fn(AttentionInputs) -> Tensor<4>,
) -> Result<Tensor<4>> {
    let (query, key, value, mask, attn_bias, options) = &inputs;
    let g = gather(
        op,
        query,
        key,
        value,
        mask.as_ref(),
        attn_bias.as_ref(),
        options,
        grouped,
    )?;
    if g.shapes.trivial() {
        return trivial(op, &g, query);
    }
    catch(op, || run(inputs))
}

/// Zeros of the output's shape: the result when the output is empty or there is no key
/// (Flex gives a row with no key the value 0; NdArray panics reducing an empty axis).
fn trivial(op: &'static str, g: &Gathered, query: &Tensor<4>) -> Result<Tensor<4>> {
    let dtype = query.dtype();
    catch(op, || {
        Tensor::<4>::zeros(g.shapes.output, (&g.device, dtype))
    })
}

/// Fallible twin of [`burn_module::attention`]: `softmax(QKᵗ · scale) · V`.
///
/// `query` `[batch, heads, seq_q, head_dim]`, `key` `[batch, kv_heads, seq_k, head_dim]`,
/// `value` `[batch, kv_heads, seq_k, val_dim]`, `mask` and `attn_bias` broadcastable to
/// `[batch, heads, seq_q, seq_k]` (each dimension equal or 1). burn's front end checks none
/// of it; the backends assert (Flex) or panic in a matmul (NdArray). The rules are
/// [`check::attention::attention`](crate::check::attention::attention): what Flex asserts,
/// plus what NdArray panics on (grouped key heads other than 1 are accepted on plain Flex
/// only), plus, beyond burn, a finite `scale` and `softcap`. All tensors must share a device
/// and the float tensors a dtype.
///
/// An empty output, or no key (`seq_k = 0`), gives zeros without dispatch: Flex computes the
/// same, NdArray panics on it.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
/// [`GuardError::Empty`](crate::GuardError::Empty) (a `head_dim` or head count of 0),
/// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) (`scale`, `softcap`),
/// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch),
/// [`GuardError::DTypeMismatch`](crate::GuardError::DTypeMismatch).
///
/// ```
/// use burn::tensor::ops::AttentionModuleOptions;
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::module::try_attention;
///
/// let device = Device::flex();
/// let q = Tensor::<4>::ones([2, 2, 3, 4], &device);
/// let kv = Tensor::<4>::ones([2, 2, 5, 4], &device);
/// let options = AttentionModuleOptions::default();
/// let out = try_attention(q.clone(), kv.clone(), kv.clone(), None, None, options)?;
/// assert_eq!(out.dims(), [2, 2, 3, 4]);
/// let short_value = Tensor::<4>::ones([2, 2, 4, 4], &device);
/// assert!(try_attention(q, kv, short_value, None, None, options).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "attention")]
pub fn try_attention(
    query: Tensor<4>,
    key: Tensor<4>,
    value: Tensor<4>,
    mask: Option<Tensor<4, Bool>>,
    attn_bias: Option<Tensor<4>>,
    options: AttentionModuleOptions,
) -> Result<Tensor<4>> {
    let inputs = (query, key, value, mask, attn_bias, options);
    attend("attention", inputs, groups_heads, |(q, k, v, m, b, o)| {
        burn_module::attention(q, k, v, m, b, o)
    })
}

/// Fallible twin of [`burn_module::attention_fallback`]: burn's decomposed attention (matmul,
/// mask fill, softmax, matmul) on any backend.
///
/// The rules of [`try_attention`], with grouped key heads accepted only when there is one
/// key head (the decomposition broadcasts it through a matmul, on every backend).
///
/// # Errors
///
/// As [`try_attention`].
///
/// ```
/// use burn::tensor::ops::AttentionModuleOptions;
/// use burn::tensor::{Device, Tensor};
/// use burn_guard::tensor::module::try_attention_fallback;
///
/// let device = Device::flex();
/// let q = Tensor::<4>::ones([1, 4, 3, 4], &device);
/// let kv = Tensor::<4>::ones([1, 2, 5, 4], &device);
/// let options = AttentionModuleOptions::default();
/// assert!(try_attention_fallback(q, kv.clone(), kv, None, None, options).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "attention_fallback")]
pub fn try_attention_fallback(
    query: Tensor<4>,
    key: Tensor<4>,
    value: Tensor<4>,
    mask: Option<Tensor<4, Bool>>,
    attn_bias: Option<Tensor<4>>,
    options: AttentionModuleOptions,
) -> Result<Tensor<4>> {
    let inputs = (query, key, value, mask, attn_bias, options);
    attend(
        "attention_fallback",
        inputs,
        |_| false,
        |(q, k, v, m, b, o)| burn_module::attention_fallback(q, k, v, m, b, o),
    )
}
