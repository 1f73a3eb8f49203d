//! Pure validation functions: shapes, dims, dtypes and quantization schemes in, `Result` out.
//!
//! Each check mirrors one of burn's own assertions so that a checked call returns `Err` exactly
//! where burn would have panicked, and returns what it proved (a resolved layout, a canonical
//! dim) so that dispatch never recomputes it. Checks never look at tensor values.
//!
//! | module | mirrors |
//! |---|---|
//! | [`shape`] | burn-tensor `TensorCheck` (`src/tensor/api/check.rs`) and `unwrap_dim_index` |
//! | [`numeric`] | burn-tensor `Tensor::einsum` (`src/tensor/api/einsum/`) and burn-einsum's parser |
//! | [`view`], [`indexing`], [`elementwise`], [`reduce`], [`creation`] | burn-tensor `TensorCheck` and the asserts of each family's methods |
//! | [`activation`], [`linear`], [`conv`], [`norm`], [`embedding`], [`interpolate`], [`grid`] | the asserts of `burn::tensor::module`'s functions and `burn::nn`'s layers of that family, and what the backends assert there |
//! | [`quant`] | burn-backend `quantization/scheme.rs`, burn-std `tensor/quantization.rs` |
//! | [`pool`] | the sizes burn leaves to the backends in pooling, unfold and fold, and burn-nn's `Same` padding |
//! | [`loss`] | burn-tensor `module::ctc_loss` and the backend's CTC recursion; the asserts of `burn::nn::loss` modules and their configs |
//! | [`rnn`] | the shape needs of burn-nn's recurrent layers (`Rnn`, `Gru`, `Lstm` and their `Bi` forms): gates, states, sizes their step panics on |
//! | [`encoding`] | the asserts of burn-nn's positional and rotary encodings |
//! | [`distance`] | the asserts of burn-nn's pairwise distance |
//! | [`layer`] | the asserts of `burn::nn` config `init`s that several layer families share, and the fans an initializer needs |
//! | [`attention`] | the backends' asserts in `attention` (burn-flex `ops/attention.rs`, burn-backend's `attention_fallback`), the asserts of `MultiHeadAttention` and the transformer layers (their layer norms use [`norm`]) |
//! | [`bytes`] | burn-std `Shape::num_elements`, `DType::size` and `quantized_data_len` in checked arithmetic, against a device's [`DeviceLimits`](crate::capability::DeviceLimits): what burn leaves to the allocator |
//! | [`input`] | nothing in burn: what a service promises about a user's input ([`InputSpec`](crate::input::InputSpec)) |
//!
//! Each module sits beside the twin family that uses it (`check/conv.rs` beside
//! `tensor/conv.rs` and `nn/layers/conv.rs`), and each rule is written once, in one module,
//! and called from every layer that runs it: the tensor twins, the backend-level wrappers and
//! the `burn::nn` twins. A check's `# Errors` section is the rule's error list; the twins link
//! to it.

pub mod activation;
pub mod attention;
pub mod bytes;
pub mod conv;
pub mod creation;
pub mod device_limits;
pub mod distance;
pub mod elementwise;
pub mod embedding;
pub mod encoding;
pub mod grid;
pub mod indexing;
pub mod input;
pub mod interpolate;
pub mod layer;
pub mod linalg;
pub mod linear;
pub mod load;
pub mod loss;
/// The encodings' and the pairwise distance's rules, at their old path: they moved to
/// [`encoding`] and [`distance`].
pub mod misc {
    pub use super::distance::pairwise_distance;
    pub use super::encoding::{positional, rotary};
}
pub mod norm;
pub mod numeric;
pub mod optim;
pub mod pool;
pub mod quant;
pub mod quirks;
pub mod reduce;
pub mod rnn;
pub(crate) mod rule;
pub mod shape;
#[cfg(feature = "signal")]
pub mod signal;
/// The capability answer's types, at their old path: they live in a crate-private leaf below
/// the error type that carries them; their public home is [`crate::capability`].
pub mod support {
    pub use crate::gap::{Effect, Gap, Support};
}
pub mod split;
pub mod verify;
pub mod view;
#[cfg(feature = "vision")]
pub mod vision;

pub use input::finite;
pub use quant::{QuantLayout, SchemeName, quant_calibration, quant_scheme};
pub use shape::{broadcast, cat, dim, indices, matmul, narrow, same_device, stack};

/// What the check modules' unit tests share.
#[cfg(test)]
mod test_support {
    use crate::error::{GuardError, Limit, Result, ScalarValue};

    /// A unit test's result: a failure is any error, the message shown.
    pub(super) type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    /// The error of `result`, or a test failure naming `what`.
    pub(super) fn refused<T: std::fmt::Debug>(
        what: &str,
        result: Result<T>,
    ) -> std::result::Result<GuardError, String> {
        match result {
            Err(err) => Ok(err),
            Ok(value) => Err(format!("{what}: expected an error, got {value:?}")),
        }
    }

    /// A refusal case of a rule table: what, the rule's result, the error it must be.
    pub(super) type Case = (&'static str, Result<()>, fn(&GuardError) -> bool);

    /// Every case refused with the error it names, on one line.
    pub(super) fn each_refused(cases: Vec<Case>) -> std::result::Result<(), String> {
        for (what, result, expected) in cases {
            let err = refused(what, result)?;
            if !expected(&err) {
                return Err(format!("{what}: unexpected {err:?}"));
            }
            if err.to_string().contains('\n') {
                return Err(format!("{what}: not one line"));
            }
        }
        Ok(())
    }

    /// The `(name, value, limit)` of a [`GuardError::OutOfRange`], `None` for another error.
    pub(super) fn bound(err: &GuardError) -> Option<(&'static str, ScalarValue, Limit)> {
        match err {
            GuardError::OutOfRange {
                name, value, limit, ..
            } => Some((name, *value, *limit)),
            _ => None,
        }
    }

    /// The rule of a [`GuardError::ShapeMismatch`] with exactly these shapes, `None` otherwise.
    pub(super) fn shape_rule(err: &GuardError, expected: &[&[usize]]) -> Option<&'static str> {
        match err {
            GuardError::ShapeMismatch { rule, shapes, .. }
                if shapes.len() == expected.len()
                    && shapes.iter().zip(expected).all(|(a, b)| a == b) =>
            {
                Some(rule)
            }
            _ => None,
        }
    }

    /// The rule of the variants that carry a static one.
    pub(super) fn rule_of(err: &GuardError) -> Option<&'static str> {
        match err {
            GuardError::ShapeMismatch { rule, .. }
            | GuardError::RankMismatch { rule, .. }
            | GuardError::InvalidArgument { rule, .. }
            | GuardError::OutOfRange { rule, .. }
            | GuardError::Empty { rule, .. } => Some(rule),
            _ => None,
        }
    }

    /// One row of a rule table: `got` must be `Ok` with the value `expected` holds, or an
    /// error whose rule, as `rule_of` reads it, is the text `expected` holds.
    pub(super) fn row<T: PartialEq + std::fmt::Debug>(
        case: &str,
        expected: std::result::Result<T, &str>,
        got: Result<T>,
        rule_of: impl Fn(&GuardError) -> Option<&'static str>,
    ) -> TestResult {
        let agrees = match (&expected, &got) {
            (Ok(want), Ok(have)) => want == have,
            (Err(want), Err(err)) => rule_of(err) == Some(*want),
            _ => false,
        };
        if agrees {
            Ok(())
        } else {
            Err(format!("{case}: expected {expected:?}, got {got:?}").into())
        }
    }

    /// Each `(value, dtype, accepted)` of a scalar rule table: `check` accepts exactly the
    /// rows marked so, and refuses the others with an error `refusal` recognises.
    pub(super) fn scalar_rows(
        cases: &[(ScalarValue, burn::tensor::DType, bool)],
        check: impl Fn(ScalarValue, &burn::tensor::DType) -> Result<()>,
        refusal: impl Fn(&GuardError, ScalarValue, burn::tensor::DType) -> bool,
    ) -> TestResult {
        for &(value, dtype, accepted) in cases {
            let got = check(value, &dtype);
            let agrees = match &got {
                Ok(()) => accepted,
                Err(err) => !accepted && refusal(err, value, dtype),
            };
            if !agrees {
                return Err(format!("{value} {dtype:?}: accepted {accepted}, got {got:?}").into());
            }
        }
        Ok(())
    }

    /// Asserts `result` is an error that `check` accepts.
    pub(super) fn assert_refused<T: std::fmt::Debug>(
        result: Result<T>,
        check: impl Fn(&GuardError) -> bool,
    ) {
        assert!(
            result.as_ref().is_err_and(&check),
            "unexpected outcome: {result:?}"
        );
    }

    /// An error of `kind` whose rule, as [`rule_of`] reads it, is exactly `rule`.
    pub(super) fn kind_rule(
        kind: crate::error::ErrorKind,
        rule: &'static str,
    ) -> impl Fn(&GuardError) -> bool {
        move |err| err.kind() == kind && rule_of(err) == Some(rule)
    }

    /// A [`GuardError::OutOfRange`] on `name` with `value` and `limit`.
    pub(super) fn out_of_range(
        name: &'static str,
        value: usize,
        limit: Limit,
    ) -> impl Fn(&GuardError) -> bool {
        move |err| {
            matches!(
                err,
                GuardError::OutOfRange { name: n, value: v, limit: l, .. }
                    if *n == name && *v == value.into() && *l == limit
            )
        }
    }

    /// `Limit::AtLeast(n)`.
    pub(super) fn at_least(n: usize) -> Limit {
        Limit::AtLeast(n.into())
    }

    /// The `(expected, got)` ranks of a [`GuardError::RankMismatch`], `None` for another error.
    pub(super) fn ranks(err: &GuardError) -> Option<(usize, usize)> {
        match err {
            GuardError::RankMismatch { expected, got, .. } => Some((*expected, *got)),
            _ => None,
        }
    }
}
