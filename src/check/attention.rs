//! Rules of scaled dot-product attention (`burn::tensor::module::attention`) and of the
//! attention and transformer layers of `burn::nn` (`MultiHeadAttention`, the transformer
//! encoder and its feed-forward and layer-norm sub-layers).
//!
//! burn's front end checks none of `attention`'s shapes: the backends assert them (Flex) or
//! fail inside a matmul (NdArray), and they disagree on what they accept. These rules take
//! the stricter side where one backend panics, and each rule names the backend that asserts it.

use super::rule::Rule;
use crate::error::{GuardError, Limit, Result};

/// What [`attention`] proved: the sizes of `[batch, heads, seq_q, head_dim]` ×
/// `[batch, kv_heads, seq_k, head_dim]` × `[batch, kv_heads, seq_k, val_dim]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttentionShapes {
    /// The batch size.
    pub batch: usize,
    /// The query's head count.
    pub heads: usize,
    /// The key's and value's head count (a divisor of `heads`).
    pub kv_heads: usize,
    /// The query's sequence length.
    pub seq_q: usize,
    /// The key's and value's sequence length.
    pub seq_k: usize,
    /// The query's and key's last dimension.
    pub head_dim: usize,
    /// The value's last dimension.
    pub val_dim: usize,
    /// The output's shape, `[batch, heads, seq_q, val_dim]`.
    pub output: [usize; 4],
}

impl AttentionShapes {
    /// Whether the output has no element, or no key to attend to: the result is known
    /// without running the kernels (zeros, as Flex computes for a row with no key).
    pub fn trivial(&self) -> bool {
        self.output.contains(&0) || self.seq_k == 0
    }
}

fn rank4(op: &'static str, name: &'static str, shape: &[usize]) -> Result<[usize; 4]> {
    match shape {
        &[a, b, c, d] => Ok([a, b, c, d]),
        _ => Err(GuardError::RankMismatch {
            op,
            rule: match name {
                "query" => "query must be [batch, heads, seq_q, head_dim]",
                "key" => "key must be [batch, kv_heads, seq_k, head_dim]",
                "value" => "value must be [batch, kv_heads, seq_k, val_dim]",
                _ => "mask and bias must be [batch, heads, seq_q, seq_k] (each dim or 1)",
            },
            expected: 4,
            got: shape.len(),
            shape: shape.to_vec(),
        }),
    }
}

/// `attention(query, key, value, mask, attn_bias, options)`.
///
/// - `key` and `value` have the query's batch (Flex asserts it; NdArray broadcasts a batch
///   of 1, refused here too), `key` the query's `head_dim`, `value` the key's heads and
///   sequence length;
/// - `head_dim` is not 0 (Flex asserts it, NdArray panics);
/// - the key's head count is not 0 and divides the query's (Flex asserts it). Unless
///   `grouped_heads` (plain Flex, which shares each key head among `heads / kv_heads`
///   query heads), it must equal the query's or be 1: NdArray's matmul (and every backend
///   that runs burn's decomposed fallback) only broadcasts a single head;
/// - `mask` and `bias`, when present, are rank 4 and each dimension is the scores'
///   (`[batch, heads, seq_q, seq_k]`) or 1 (Flex asserts it; NdArray would broadcast the
///   scores up to a larger bias, refused here too);
/// - `softcap`, when set, is positive (both backends assert it, a NaN included) and — beyond
///   burn — finite: an infinite cap gives `0 · ∞ = NaN` scores;
/// - `scale`, when set, is finite (beyond burn: a NaN or infinite scale makes every score
///   NaN or ±∞ on NdArray).
///
/// # Errors
///
/// [`GuardError::RankMismatch`], [`GuardError::ShapeMismatch`], [`GuardError::Empty`] for a
/// `head_dim` or key head count of 0, [`GuardError::OutOfRange`] for `softcap` or `scale`.
///
/// ```
/// use burn_guard::check::attention::attention;
///
/// let s = attention("attention", &[2, 4, 3, 8], &[2, 2, 5, 8], &[2, 2, 5, 6], None, None, None, None, true)?;
/// assert_eq!(s.output, [2, 4, 3, 6]);
/// // Two key heads for four query heads: only Flex groups them.
/// assert!(attention("attention", &[2, 4, 3, 8], &[2, 2, 5, 8], &[2, 2, 5, 6], None, None, None, None, false).is_err());
/// assert!(attention("attention", &[2, 4, 3, 8], &[2, 4, 5, 8], &[2, 4, 5, 6], Some(&[2, 4, 3, 4]), None, None, None, false).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn attention(
    op: &'static str,
    query: &[usize],
    key: &[usize],
    value: &[usize],
    mask: Option<&[usize]>,
    bias: Option<&[usize]>,
    scale: Option<f64>,
    softcap: Option<f64>,
    grouped_heads: bool,
) -> Result<AttentionShapes> {
    let [batch, heads, seq_q, head_dim] = rank4(op, "query", query)?;
    let [k_batch, kv_heads, seq_k, k_dim] = rank4(op, "key", key)?;
    let [v_batch, v_heads, v_seq, val_dim] = rank4(op, "value", value)?;
    let mismatch = |rule| Rule(op, rule).shape_mismatch(&[query, key, value]);
    if k_batch != batch || v_batch != batch {
        return Err(mismatch("key and value must have the query's batch size"));
    }
    if k_dim != head_dim {
        return Err(mismatch(
            "key's last dimension must equal the query's (head_dim)",
        ));
    }
    if v_heads != kv_heads || v_seq != seq_k {
        return Err(mismatch(
            "value must have the key's head count and sequence length",
        ));
    }
    Rule(op, "head_dim must not be 0").nonempty_dim(query, 3)?;
    if kv_heads == 0 || heads == 0 {
        return Err(GuardError::Empty {
            op,
            rule: "query and key must have at least one head",
            shape: if heads == 0 { query } else { key }.to_vec(),
            dim: Some(1),
        });
    }
    if !heads.is_multiple_of(kv_heads) {
        return Err(mismatch("the key's head count must divide the query's"));
    }
    if !grouped_heads && kv_heads != heads && kv_heads != 1 {
        return Err(mismatch(
            "the key's head count must equal the query's or be 1 on this backend (only plain Flex groups query heads)",
        ));
    }
    let scores = [batch, heads, seq_q, seq_k];
    for (name, shape) in [("mask", mask), ("bias", bias)] {
        let Some(shape) = shape else { continue };
        let dims = rank4(op, name, shape)?;
        if dims.iter().zip(scores).any(|(&d, s)| d != s && d != 1) {
            return Err(GuardError::ShapeMismatch {
                op,
                rule: if name == "mask" {
                    "each mask dimension must be the scores' [batch, heads, seq_q, seq_k] or 1"
                } else {
                    "each bias dimension must be the scores' [batch, heads, seq_q, seq_k] or 1"
                },
                shapes: vec![scores.to_vec(), shape.to_vec()],
            });
        }
    }
    if let Some(cap) = softcap
        && !(cap > 0.0 && cap.is_finite())
    {
        return Err(
            Rule(op, "softcap must be positive and finite").out_of_range(
                "softcap",
                cap,
                Limit::Above(0.0.into()),
            ),
        );
    }
    if let Some(scale) = scale
        && !scale.is_finite()
    {
        return Err(Rule(op, "scale must be finite").out_of_range(
            "scale",
            scale,
            Limit::Between(f64::MIN.into(), f64::MAX.into()),
        ));
    }
    Ok(AttentionShapes {
        batch,
        heads,
        kv_heads,
        seq_q,
        seq_k,
        head_dim,
        val_dim,
        output: [batch, heads, seq_q, val_dim],
    })
}

/// A multi-head attention's own sizes: `n_heads` heads of `d_k` make `d_model`, none of them 0.
/// burn's `MultiHeadAttention::forward` reshapes each projection to `[.., n_heads, d_k]` and
/// the context back to `[.., d_model]`; a module whose `d_model` the heads do not divide
/// (a config `init` accepts it, flooring `d_k`) panics there, on every backend.
///
/// # Errors
///
/// [`GuardError::Empty`] for `n_heads` or `d_k` of 0, [`GuardError::ShapeMismatch`] when
/// `n_heads × d_k ≠ d_model`.
///
/// ```
/// use burn_guard::check::attention::mha_heads;
/// assert!(mha_heads("multi_head_attention", 8, 2, 4).is_ok());
/// assert!(mha_heads("multi_head_attention", 5, 2, 2).is_err());
/// assert!(mha_heads("multi_head_attention", 0, 1, 0).is_err());
/// ```
pub fn mha_heads(op: &'static str, d_model: usize, n_heads: usize, d_k: usize) -> Result<()> {
    if n_heads == 0 || d_k == 0 {
        return Err(
            Rule(op, "n_heads and d_k (d_model / n_heads) must not be 0")
                .empty(&[d_model, n_heads, d_k], None),
        );
    }
    Rule(op, "n_heads must divide d_model (n_heads × d_k = d_model)").shapes_agree(
        n_heads.checked_mul(d_k) == Some(d_model),
        &[&[d_model], &[n_heads, d_k]],
    )
}

/// What [`mha_input`] proved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MhaShapes {
    /// The batch size.
    pub batch: usize,
    /// The query's sequence length.
    pub seq_q: usize,
    /// The key's and value's sequence length.
    pub seq_k: usize,
}

/// The input of `MultiHeadAttention::forward` for a module of width `d_model` with `n_heads`
/// heads: `query` `[batch, seq_q, d_model]`, `key` `[batch, seq_k, d_model]`, `value`
/// `[batch, seq_k, d_model]` (burn's `assert_shape!`s), a padding mask `[batch, seq_k]` and an
/// attention mask `[batch, seq_q, seq_k]`, each dimension of a mask also allowed to be 1
/// (burn reshapes them to `[batch, 1, 1, seq_k]` and `[batch, 1, seq_q, seq_k]` and
/// broadcasts them against the scores; anything else panics in the backend's `mask_fill`).
///
/// Beyond burn, none of `batch`, `seq_q`, `seq_k` may be 0: burn's `Linear` on Flex crashes
/// the process (SIGSEGV, not a panic) on a rank-3 input with batch 0, and NdArray panics on
/// an empty sequence (Flex computes it).
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`] naming the operands, [`GuardError::Empty`] for an empty
/// batch or sequence.
///
/// ```
/// use burn_guard::check::attention::mha_input;
/// let s = mha_input("multi_head_attention", 4, &[2, 3, 4], &[2, 5, 4], &[2, 5, 4], Some(&[2, 5]), None)?;
/// assert_eq!((s.batch, s.seq_q, s.seq_k), (2, 3, 5));
/// assert!(mha_input("multi_head_attention", 4, &[2, 3, 4], &[2, 5, 4], &[2, 5, 4], Some(&[2, 3]), None).is_err());
/// assert!(mha_input("multi_head_attention", 4, &[2, 3, 4], &[1, 5, 4], &[1, 5, 4], None, None).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
pub fn mha_input(
    op: &'static str,
    d_model: usize,
    query: &[usize],
    key: &[usize],
    value: &[usize],
    mask_pad: Option<&[usize]>,
    mask_attn: Option<&[usize]>,
) -> Result<MhaShapes> {
    let (&[batch, seq_q, q_d], &[k_batch, seq_k, k_d], &[v_batch, v_seq, v_d]) =
        (query, key, value)
    else {
        return Err(
            Rule(op, "query, key and value must be [batch, seq, d_model]")
                .shape_mismatch(&[query, key, value]),
        );
    };
    let mismatch = |rule| Rule(op, rule).shape_mismatch(&[query, key, value, &[d_model]]);
    if q_d != d_model || k_d != d_model || v_d != d_model {
        return Err(mismatch(
            "the last dimension of query, key and value must be the module's d_model",
        ));
    }
    if k_batch != batch || v_batch != batch {
        return Err(mismatch("key and value must have the query's batch size"));
    }
    if v_seq != seq_k {
        return Err(mismatch("value must have the key's sequence length"));
    }
    for (dim, size) in [(0, batch), (1, seq_q), (1, seq_k)] {
        if size == 0 {
            return Err(GuardError::Empty {
                op,
                rule: "batch and sequence lengths must not be 0 (burn's linear crashes Flex on an empty batch; NdArray panics on an empty sequence)",
                shape: if dim == 1 && seq_q != 0 { key } else { query }.to_vec(),
                dim: Some(dim),
            });
        }
    }
    let masks: [(_, _, &[usize]); 2] = [
        (
            "the padding mask must be [batch, seq_k] (each dim or 1)",
            mask_pad,
            &[batch, seq_k],
        ),
        (
            "the attention mask must be [batch, seq_q, seq_k] (each dim or 1)",
            mask_attn,
            &[batch, seq_q, seq_k],
        ),
    ];
    for (rule, mask, expected) in masks {
        let Some(mask) = mask else { continue };
        let fits = mask.len() == expected.len()
            && mask.iter().zip(expected).all(|(&m, &e)| m == e || m == 1);
        if !fits {
            return Err(Rule(op, rule).shape_mismatch(&[expected, mask]));
        }
    }
    Ok(MhaShapes {
        batch,
        seq_q,
        seq_k,
    })
}

/// The parameter shapes of a `CrossAttention` that burn keeps private, as a module visitor
/// reads them (`query.weight`, `key.bias`, …).
#[derive(Debug, Clone, Copy)]
pub struct CrossAttentionParams<'a> {
    /// `query.weight`: `[d_model, n_heads × d_head]`.
    pub query: &'a [usize],
    /// `key.weight`: `[d_context, n_heads_kv × d_head]`.
    pub key: &'a [usize],
    /// `value.weight`: `[d_context, n_heads_kv × d_head]`.
    pub value: &'a [usize],
    /// `output.weight`: `[n_heads × d_head, d_model]`.
    pub output: &'a [usize],
}

/// `CrossAttention::forward(query, context, mask)`: `query` `[batch, seq_q, d_model]`,
/// `context` `[batch, seq_k, d_context]` (burn asserts the batch), `mask` `[batch, seq_k]`
/// (burn reshapes it to `[batch, 1, 1, seq_k]`: another shape of as many elements would pass
/// and mean something else, so — beyond burn — only that shape is accepted), and the
/// projections' weights agreeing with each other (`query` and `output` on `n_heads × d_head`,
/// `key` and `value` on `n_heads_kv × d_head`, the first a multiple of the second). The head
/// split itself (`n_heads`, `d_head`) is private to burn and cannot be checked; an `init`
/// module always agrees with it.
///
/// Beyond burn, an empty batch or sequence is refused, as [`mha_input`] does.
///
/// # Errors
///
/// [`GuardError::ShapeMismatch`], [`GuardError::Empty`].
///
/// ```
/// use burn_guard::check::attention::{CrossAttentionParams, cross_attention};
/// let p = CrossAttentionParams { query: &[4, 8], key: &[6, 4], value: &[6, 4], output: &[8, 4] };
/// assert!(cross_attention("cross_attention", &[2, 3, 4], &[2, 5, 6], Some(&[2, 5]), p).is_ok());
/// assert!(cross_attention("cross_attention", &[2, 3, 4], &[2, 5, 6], Some(&[5, 2]), p).is_err());
/// assert!(cross_attention("cross_attention", &[2, 3, 4], &[1, 5, 6], None, p).is_err());
/// ```
pub fn cross_attention(
    op: &'static str,
    query: &[usize],
    context: &[usize],
    mask: Option<&[usize]>,
    params: CrossAttentionParams<'_>,
) -> Result<()> {
    let (&[batch, seq_q, d_q], &[c_batch, seq_k, d_c]) = (query, context) else {
        return Err(Rule(
            op,
            "query must be [batch, seq_q, d_model] and context [batch, seq_k, d_context]",
        )
        .shape_mismatch(&[query, context]));
    };
    let weights = |rule| GuardError::ShapeMismatch {
        op,
        rule,
        shapes: vec![
            params.query.to_vec(),
            params.key.to_vec(),
            params.value.to_vec(),
            params.output.to_vec(),
        ],
    };
    let (&[q_in, q_out], &[k_in, k_out], &[v_in, v_out], &[o_in, _]) =
        (params.query, params.key, params.value, params.output)
    else {
        return Err(weights("every projection weight must be rank 2"));
    };
    if k_in != v_in || k_out != v_out || q_out != o_in || k_out == 0 || q_out % k_out != 0 {
        return Err(weights(
            "key and value weights must agree, query's outputs must be output's inputs and a multiple of key's",
        ));
    }
    Rule(op, "context must have the query's batch size")
        .shapes_agree(c_batch == batch, &[query, context])?;
    if d_q != q_in || d_c != k_in {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "query's last dimension must be query.weight's inputs, context's key.weight's",
            shapes: vec![
                query.to_vec(),
                context.to_vec(),
                params.query.to_vec(),
                params.key.to_vec(),
            ],
        });
    }
    if batch == 0 || seq_q == 0 || seq_k == 0 {
        return Err(GuardError::Empty {
            op,
            rule: "batch and sequence lengths must not be 0 (burn's linear crashes Flex on an empty batch; NdArray panics on an empty sequence)",
            shape: if seq_k == 0 { context } else { query }.to_vec(),
            dim: Some(usize::from(batch != 0)),
        });
    }
    if let Some(mask) = mask
        && mask != [batch, seq_k]
    {
        return Err(
            Rule(op, "the mask must be [batch, seq_k]").shape_mismatch(&[&[batch, seq_k], mask])
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_support::refused;
    use crate::error::ErrorKind;

    /// Each case's result is an error of its kind whose message contains its needle.
    fn each_refused<T: std::fmt::Debug>(
        cases: Vec<(&str, Result<T>, ErrorKind, &str)>,
    ) -> std::result::Result<(), String> {
        for (case, result, kind, needle) in cases {
            let err = refused(case, result)?;
            assert_eq!(err.kind(), kind, "{case}");
            assert!(err.to_string().contains(needle), "{case}: {err}");
        }
        Ok(())
    }

    #[test]
    fn attention_rules_pin_their_errors() -> std::result::Result<(), String> {
        let (q, k, v) = (&[2, 2, 3, 4][..], &[2, 2, 5, 4][..], &[2, 2, 5, 3][..]);
        let a = |q, k, v, m, b, s, c| attention("attention", q, k, v, m, b, s, c, false);
        let cases: Vec<(&str, Result<AttentionShapes>, ErrorKind, &str)> = vec![
            (
                "batch",
                a(q, &[1, 2, 5, 4], &[1, 2, 5, 3], None, None, None, None),
                ErrorKind::ShapeMismatch,
                "batch",
            ),
            (
                "head_dim",
                a(q, &[2, 2, 5, 3], v, None, None, None, None),
                ErrorKind::ShapeMismatch,
                "head_dim",
            ),
            (
                "value seq",
                a(q, k, &[2, 2, 4, 3], None, None, None, None),
                ErrorKind::ShapeMismatch,
                "sequence",
            ),
            (
                "hd0",
                a(&[2, 2, 3, 0], &[2, 2, 5, 0], v, None, None, None, None),
                ErrorKind::Empty,
                "head_dim",
            ),
            (
                "gqa",
                a(&[2, 4, 3, 4], k, v, None, None, None, None),
                ErrorKind::ShapeMismatch,
                "equal the query's or be 1",
            ),
            (
                "gqa3",
                a(
                    &[2, 4, 3, 4],
                    &[2, 3, 5, 4],
                    &[2, 3, 5, 3],
                    None,
                    None,
                    None,
                    None,
                ),
                ErrorKind::ShapeMismatch,
                "divide",
            ),
            (
                "mask",
                a(q, k, v, Some(&[2, 2, 3, 4]), None, None, None),
                ErrorKind::ShapeMismatch,
                "mask",
            ),
            (
                "bias",
                a(q, k, v, None, Some(&[2, 2, 2, 5]), None, None),
                ErrorKind::ShapeMismatch,
                "bias",
            ),
            (
                "softcap",
                a(q, k, v, None, None, None, Some(f64::NAN)),
                ErrorKind::OutOfRange,
                "softcap",
            ),
            (
                "scale",
                a(q, k, v, None, None, Some(f64::INFINITY), None),
                ErrorKind::OutOfRange,
                "scale",
            ),
        ];
        each_refused(cases)?;
        assert!(
            a(
                q,
                k,
                v,
                Some(&[1, 1, 3, 5]),
                Some(&[2, 1, 1, 5]),
                Some(0.5),
                Some(2.0)
            )
            .is_ok()
        );
        assert!(
            attention(
                "attention",
                &[2, 4, 3, 4],
                k,
                v,
                None,
                None,
                None,
                None,
                true
            )
            .is_ok()
        );
        Ok(())
    }
    #[test]
    fn layer_rules_pin_their_errors() -> std::result::Result<(), String> {
        const OP: &str = "multi_head_attention";
        let (q, kv) = (&[2, 3, 4][..], &[2, 5, 4][..]);
        let m = |q, k, v, pad, attn| mha_input(OP, 4, q, k, v, pad, attn);
        let p = CrossAttentionParams {
            query: &[4, 8],
            key: &[6, 4],
            value: &[6, 4],
            output: &[8, 4],
        };
        let x = |q, c, mask, p| cross_attention("cross_attention", q, c, mask, p);
        let cases: Vec<(&str, Result<()>, ErrorKind, &str)> = vec![
            (
                "heads 0",
                mha_heads(OP, 4, 0, 0),
                ErrorKind::Empty,
                "n_heads",
            ),
            (
                "heads 5/2",
                mha_heads(OP, 5, 2, 2),
                ErrorKind::ShapeMismatch,
                "divide d_model",
            ),
            (
                "d_model",
                m(&[2, 3, 5], kv, kv, None, None).map(drop),
                ErrorKind::ShapeMismatch,
                "d_model",
            ),
            (
                "batch",
                m(q, &[1, 5, 4], &[1, 5, 4], None, None).map(drop),
                ErrorKind::ShapeMismatch,
                "batch",
            ),
            (
                "value seq",
                m(q, kv, &[2, 4, 4], None, None).map(drop),
                ErrorKind::ShapeMismatch,
                "sequence length",
            ),
            (
                "seq 0",
                m(q, &[2, 0, 4], &[2, 0, 4], None, None).map(drop),
                ErrorKind::Empty,
                "must not be 0",
            ),
            (
                "pad",
                m(q, kv, kv, Some(&[2, 3]), None).map(drop),
                ErrorKind::ShapeMismatch,
                "padding mask",
            ),
            (
                "attn",
                m(q, kv, kv, None, Some(&[2, 5, 3])).map(drop),
                ErrorKind::ShapeMismatch,
                "attention mask",
            ),
            (
                "cross batch",
                x(q, &[1, 5, 6], None, p),
                ErrorKind::ShapeMismatch,
                "batch",
            ),
            (
                "cross width",
                x(q, &[2, 5, 4], None, p),
                ErrorKind::ShapeMismatch,
                "key.weight",
            ),
            (
                "cross mask",
                x(q, &[2, 5, 6], Some(&[5, 2]), p),
                ErrorKind::ShapeMismatch,
                "mask",
            ),
            (
                "cross weights",
                x(
                    q,
                    &[2, 5, 6],
                    None,
                    CrossAttentionParams {
                        output: &[6, 4],
                        ..p
                    },
                ),
                ErrorKind::ShapeMismatch,
                "weights",
            ),
            (
                "cross empty",
                x(&[0, 3, 4], &[0, 5, 6], None, p),
                ErrorKind::Empty,
                "must not be 0",
            ),
        ];
        each_refused(cases)?;
        assert!(m(q, kv, kv, Some(&[1, 5]), Some(&[2, 1, 5])).is_ok());
        Ok(())
    }
}
