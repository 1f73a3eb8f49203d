//! One error type for every refusal, capability gap and caught panic.
//!
//! Every variant names the operation it came from and carries the offending values and the
//! limit they broke, so that a single log line explains what went wrong. `Display` is one line:
//! `"{op}: {rule}; got {values}"`, lowercase, no trailing period.

use std::fmt;

use burn_backend::ExecutionError;

use crate::capability::Gap;
use crate::check::SchemeName;
use burn::tensor::quantization::QuantScheme;

/// The result of a guarded call.
pub type Result<T, E = GuardError> = std::result::Result<T, E>;

/// Why a guarded call did not run, or did not finish.
///
/// Marked `#[non_exhaustive]`: new checks add variants without breaking matches.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GuardError {
    // ---------------------------------------------------------------- shapes, ranks, dims, indices
    /// Two or more shapes that the operation needs to agree do not.
    #[error("{op}: {rule}; got {}", fmt_shapes(shapes))]
    ShapeMismatch {
        /// The operation, by burn's name for it.
        op: &'static str,
        /// The rule the shapes broke, e.g. `lhs columns must equal rhs rows`.
        rule: &'static str,
        /// The shapes involved, in argument order.
        shapes: Vec<Vec<usize>>,
    },
    /// A tensor has a rank the operation does not accept.
    #[error("{op}: {rule}; got rank {got} (shape {shape:?}), expected {expected}")]
    RankMismatch {
        /// The operation.
        op: &'static str,
        /// The rule the rank broke.
        rule: &'static str,
        /// The rank the operation needs.
        expected: usize,
        /// The rank it got.
        got: usize,
        /// The shape of the offending tensor.
        shape: Vec<usize>,
    },
    /// A dimension index (possibly negative) outside `-rank..rank`.
    #[error("{op}: dimension out of range; got dim {dim} for rank {rank}")]
    DimOutOfRange {
        /// The operation.
        op: &'static str,
        /// The dimension as the caller gave it.
        dim: isize,
        /// The tensor's rank.
        rank: usize,
    },
    /// An index (possibly negative) outside a dimension's size.
    #[error("{op}: index out of range; got index {index} for size {size} (dim {dim})")]
    IndexOutOfRange {
        /// The operation.
        op: &'static str,
        /// The index as the caller gave it.
        index: i64,
        /// The size of the indexed dimension.
        size: usize,
        /// The indexed dimension.
        dim: usize,
    },
    /// Operands live on different devices.
    #[error("{op}: operands must be on the same device; got {}", devices.join(" and "))]
    DeviceMismatch {
        /// The operation.
        op: &'static str,
        /// The devices, in argument order.
        devices: Vec<String>,
    },
    /// An argument outside what the operation accepts (a step of 0, a chunk count of 0, ...).
    #[error("{op}: {rule}; got {got}")]
    InvalidArgument {
        /// The operation.
        op: &'static str,
        /// The rule the argument broke.
        rule: &'static str,
        /// The offending values, formatted as `name=value`.
        got: String,
    },

    // ---------------------------------------------------------------- quantization schemes
    /// A quantization scheme that cannot be applied to a tensor of this shape, on any backend.
    #[error("{op}: {reason}; got scheme {}, shape {shape:?}", SchemeName(scheme))]
    InvalidQuantScheme {
        /// The operation.
        op: &'static str,
        /// The scheme as the caller gave it.
        scheme: QuantScheme,
        /// The shape of the tensor to quantize.
        shape: Vec<usize>,
        /// The rule the scheme broke.
        reason: String,
    },

    // ---------------------------------------------------------------- capabilities
    /// The backend stack cannot run the operation (it would panic, or compute wrong values).
    #[error("{0}")]
    Unsupported(Unsupported),
    /// The backend stack cannot differentiate the operation to the order asked for.
    #[error("{op}: not differentiable to order {order} on this backend; got backend {backend}")]
    NotDifferentiable {
        /// The operation.
        op: &'static str,
        /// The backend stack, as [`Backend::name`](burn_backend::Backend::name) spells it.
        backend: String,
        /// The derivative order that was needed (2 for a gradient of a gradient).
        order: u8,
    },
    /// A device could not be obtained (no wgpu adapter, a remote server that does not answer).
    #[error("{device}: device unavailable; got {reason}")]
    DeviceUnavailable {
        /// The device asked for, e.g. `wgpu` or `remote ws://127.0.0.1:4000`.
        device: String,
        /// Why it is unavailable, as the backend reported it.
        reason: String,
    },

    // ---------------------------------------------------------------- backend failures
    /// The backend panicked in a way no check predicted; the panic backstop caught it.
    #[error("{op}: backend panicked; got \"{}\" at {}", one_line(message), location.as_deref().unwrap_or("unknown location"))]
    BackendPanic {
        /// The operation that was running.
        op: &'static str,
        /// The panic message.
        message: String,
        /// `file:line:column` of the panic, when the hook saw it.
        location: Option<String>,
    },
    /// A call that can block on a device (a remote read back, a sync) did not finish within its
    /// deadline; see [`devices::with_deadline`](crate::devices::with_deadline).
    ///
    /// The call may still be running on a helper thread, which is left behind: its result, if
    /// it ever comes, is dropped.
    #[error("{op}: did not finish within the deadline; got no result after {after:?}")]
    Timeout {
        /// The operation that was running.
        op: &'static str,
        /// The deadline it was given.
        after: std::time::Duration,
    },
    /// burn reported an execution error (a device fault, a failed read back).
    #[error("{op}: backend execution failed; got {}", one_line(&source.to_string()))]
    Execution {
        /// The operation that was running.
        op: &'static str,
        /// burn's own error.
        #[source]
        source: ExecutionError,
    },
}

/// A capability gap: `op` cannot run on `backend`, and what would happen if it did.
///
/// Shared by every capability refusal so that callers can inspect the gap without matching on
/// strings: [`Unsupported::gap`]`.effect` says whether the backend would panic, compute wrong
/// values, not implement the operation, or was never measured.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Unsupported {
    /// The operation.
    pub op: &'static str,
    /// The backend stack, in a few words (see [`BackendStack::label`](crate::capability::BackendStack::label)).
    pub backend: String,
    /// The capability that is missing, e.g. `quantization q8f-packedu32-tensor`.
    pub capability: String,
    /// What the backend would do instead, and why.
    pub gap: Gap,
    /// The fallback backends the policy offered that cannot either, with their gaps, in the
    /// policy's order. Empty when the policy offered none or forbade falling back.
    pub fallbacks: Vec<(String, Gap)>,
}

impl Unsupported {
    /// A refusal of `op` on `backend` for `capability`, with no fallback tried.
    pub fn new(
        op: &'static str,
        backend: impl Into<String>,
        capability: impl Into<String>,
        gap: Gap,
    ) -> Self {
        Self {
            op,
            backend: backend.into(),
            capability: capability.into(),
            gap,
            fallbacks: Vec::new(),
        }
    }

    /// The same refusal, naming the fallback backends that cannot either.
    #[must_use]
    pub fn with_fallbacks(mut self, fallbacks: Vec<(String, Gap)>) -> Self {
        self.fallbacks = fallbacks;
        self
    }
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} {} on this backend; got backend {} ({})",
            self.op,
            self.capability,
            self.gap.effect,
            one_line(&self.backend),
            one_line(&self.gap.reason)
        )?;
        for (i, (backend, gap)) in self.fallbacks.iter().enumerate() {
            let lead = if i == 0 { "; no fallback can: " } else { ", " };
            write!(
                f,
                "{lead}{} {} ({})",
                one_line(backend),
                gap.effect,
                one_line(&gap.reason)
            )?;
        }
        Ok(())
    }
}

impl GuardError {
    /// The operation the error came from.
    ///
    /// ```
    /// use burn_guard::GuardError;
    /// let err = GuardError::DimOutOfRange { op: "narrow", dim: 3, rank: 2 };
    /// assert_eq!(err.op(), "narrow");
    /// ```
    pub fn op(&self) -> &str {
        match self {
            Self::ShapeMismatch { op, .. }
            | Self::RankMismatch { op, .. }
            | Self::DimOutOfRange { op, .. }
            | Self::IndexOutOfRange { op, .. }
            | Self::InvalidArgument { op, .. }
            | Self::DeviceMismatch { op, .. }
            | Self::InvalidQuantScheme { op, .. }
            | Self::NotDifferentiable { op, .. }
            | Self::BackendPanic { op, .. }
            | Self::Timeout { op, .. }
            | Self::Execution { op, .. } => op,
            Self::Unsupported(gap) => gap.op,
            Self::DeviceUnavailable { device, .. } => device,
        }
    }
}

fn fmt_shapes(shapes: &[Vec<usize>]) -> String {
    let parts: Vec<String> = shapes.iter().map(|s| format!("{s:?}")).collect();
    parts.join(" and ")
}

/// Folds a possibly multi-line message onto one line, so a log line stays a line.
pub(crate) fn one_line(message: &str) -> String {
    let parts: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    parts.join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_display_is_one_line_and_names_the_op() {
        let errors = [
            GuardError::ShapeMismatch {
                op: "matmul",
                rule: "lhs columns must equal rhs rows",
                shapes: vec![vec![2, 3], vec![4, 5]],
            },
            GuardError::BackendPanic {
                op: "matmul",
                message: "line one\nline two".into(),
                location: Some("src/x.rs:1:2".into()),
            },
            GuardError::Timeout {
                op: "float_into_data",
                after: std::time::Duration::from_secs(5),
            },
            GuardError::Unsupported(
                Unsupported::new(
                    "quantize_dynamic",
                    "router<flex>",
                    "quantization",
                    Gap::new(
                        crate::capability::Effect::Panics,
                        "not implemented\n(panics)",
                    ),
                )
                .with_fallbacks(vec![(
                    "ndarray\nx".into(),
                    Gap::new(crate::capability::Effect::Unmeasured, "a\nb"),
                )]),
            ),
        ];
        for err in errors {
            let text = err.to_string();
            assert!(!text.contains('\n'), "{text}");
            assert!(text.starts_with(err.op()), "{text}");
        }
    }

    #[test]
    fn timeout_reads_like_the_style_guide() {
        let err = GuardError::Timeout {
            op: "sync",
            after: std::time::Duration::from_millis(1500),
        };
        assert_eq!(
            err.to_string(),
            "sync: did not finish within the deadline; got no result after 1.5s"
        );
    }

    #[test]
    fn shape_mismatch_reads_like_the_style_guide() {
        let err = GuardError::ShapeMismatch {
            op: "matmul",
            rule: "lhs columns must equal rhs rows",
            shapes: vec![vec![2, 3], vec![4, 5]],
        };
        assert_eq!(
            err.to_string(),
            "matmul: lhs columns must equal rhs rows; got [2, 3] and [4, 5]"
        );
    }
}
