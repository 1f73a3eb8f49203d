//! The operations a policy sends to a pool of cells
//! ([`Policy::in_cells`](crate::policy::Policy::in_cells)), served in every child beside the
//! model's calls: a request names one with its settings, and the extension that defines it runs
//! it (burn-vision's labelling and box suppression, whose CPU code is `unsafe`).

use burn::tensor::TensorData;

use crate::error::{GuardError, Result};

/// The child's side: runs the operation a request names.
pub(super) fn serve(
    name: &str,
    params: &[f64],
    inputs: Vec<TensorData>,
) -> Result<Vec<TensorData>> {
    #[cfg(feature = "vision")]
    if let Some(answer) = crate::vision::serve_isolated(name, params, inputs) {
        return answer;
    }
    #[cfg(not(feature = "vision"))]
    let _ = (params, inputs);
    Err(GuardError::InvalidArgument {
        op: "cell_op",
        rule: "a cell runs the operations a policy sends it: connected_components and nms (with \
               the `vision` feature)",
        got: format!("{name} with {params:?}"),
    })
}
