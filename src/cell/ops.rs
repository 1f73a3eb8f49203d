//! burn-guard's own operations that a policy sends to a pool of cells
//! ([`Policy::in_cells`](crate::policy::Policy::in_cells)): the parent reads the inputs, the
//! child runs the same guarded twin on Flex, the answer comes back to the caller's device.
//!
//! Which: burn-vision's labelling and box suppression, whose CPU code is `unsafe` (its
//! connected components read out of bounds on an empty image and killed a test process with
//! SIGSEGV before the twin refused it). An operation is a name and numbers, so both ends agree
//! without a schema: they are the same binary.

use std::time::Instant;

use burn::tensor::TensorData;

use super::CellPool;
use crate::error::{GuardError, Result};
use crate::policy::{Moved, Op, Policy};

/// An operation a cell can run for a policy, with its settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum CellOp {
    /// burn-vision's `connected_components` of a `[height, width]` bool image: labels back.
    ConnectedComponents {
        /// 8-connectivity, else 4.
        eight: bool,
    },
    /// burn-vision's `nms` of boxes `[n, 4]` and scores `[n]`: kept indices back.
    Nms {
        iou_threshold: f32,
        score_threshold: f32,
        max_output_boxes: usize,
    },
}

impl CellOp {
    /// The name the request carries (and the refusal names): burn's.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            CellOp::ConnectedComponents { .. } => "connected_components",
            CellOp::Nms { .. } => "nms",
        }
    }

    /// The policy operation it is counted under.
    pub(crate) const fn routed(self) -> Op {
        Op::Vision
    }

    fn params(self) -> Vec<f64> {
        match self {
            CellOp::ConnectedComponents { eight } => vec![if eight { 8.0 } else { 4.0 }],
            CellOp::Nms {
                iou_threshold,
                score_threshold,
                max_output_boxes,
            } => vec![
                f64::from(iou_threshold),
                f64::from(score_threshold),
                // Exact up to 2^53 boxes.
                max_output_boxes as f64,
            ],
        }
    }

    /// The operation a request names, or the reason it names none.
    fn parse(name: &str, params: &[f64]) -> std::result::Result<Self, String> {
        match (name, params) {
            ("connected_components", &[c]) if c == 4.0 || c == 8.0 => {
                Ok(CellOp::ConnectedComponents { eight: c == 8.0 })
            }
            ("nms", &[iou, score, max])
                if max >= 0.0 && max.fract() == 0.0 && max <= 9_007_199_254_740_992.0 =>
            {
                Ok(CellOp::Nms {
                    iou_threshold: iou as f32,
                    score_threshold: score as f32,
                    max_output_boxes: max as usize,
                })
            }
            _ => Err(format!("{name} with {params:?}")),
        }
    }
}

/// The parent's side: runs `op` on `inputs` in the next free live cell of `pool`, counted by
/// `policy` as a run of the operation away from `home` (a fallback to the pool, with the bytes
/// each way and the whole round trip's time), or as an error.
pub(crate) fn run_in_pool(
    policy: &Policy,
    pool: &CellPool,
    op: CellOp,
    inputs: Vec<TensorData>,
    home: &str,
) -> Result<Vec<TensorData>> {
    let started = Instant::now();
    let bytes = |data: &[TensorData]| {
        data.iter()
            .map(|d| u64::try_from(d.as_bytes().len()).unwrap_or(u64::MAX))
            .sum::<u64>()
    };
    let bytes_out = bytes(&inputs);
    let to = format!("cell pool {}", pool.name());
    let answer = pool.call_op(op.name(), &op.params(), inputs);
    policy.recorded(op.routed(), answer, |outputs| {
        Moved {
            bytes_out,
            bytes_back: bytes(outputs),
            elapsed: started.elapsed(),
        }
        .fallback(home, &to)
    })
}

/// The one tensor a cell's operation answers, built on `home` in its own dtype (as a fallback
/// brings a result back), of rank `D`.
pub(crate) fn answer_on<const D: usize, K>(
    op: &'static str,
    mut outputs: Vec<TensorData>,
    home: &burn::tensor::Device,
) -> Result<burn::tensor::Tensor<D, K>>
where
    K: burn::tensor::kind::Basic + 'static,
{
    use crate::tensor::TryCreate as _;

    let (Some(data), true) = (outputs.pop(), outputs.is_empty()) else {
        return Err(GuardError::ShapeMismatch {
            op,
            rule: "a cell's operation answers one tensor",
            shapes: vec![vec![outputs.len()], vec![1]],
        });
    };
    if data.shape().len() != D {
        return Err(GuardError::RankMismatch {
            op,
            rule: "a cell's operation answers the rank of its twin",
            expected: D,
            got: data.shape().len(),
            shape: data.shape().to_vec(),
        });
    }
    let dtype = data.dtype();
    let options = burn::tensor::TensorCreationOptions::new(home.clone()).with_dtype(dtype);
    burn::tensor::Tensor::<D, K>::try_from_data(data, options)
}

/// The child's side: runs the operation a request names, through its guarded twin, on Flex.
pub(super) fn serve(
    name: &str,
    params: &[f64],
    inputs: Vec<TensorData>,
) -> Result<Vec<TensorData>> {
    let op = CellOp::parse(name, params).map_err(|got| GuardError::InvalidArgument {
        op: "cell_op",
        rule: "a cell runs the operations a policy sends it: connected_components, nms",
        got,
    })?;
    run(op, inputs)
}

#[cfg(feature = "vision")]
fn run(op: CellOp, inputs: Vec<TensorData>) -> Result<Vec<TensorData>> {
    use burn::tensor::{Bool, Device, Tensor};

    use crate::tensor::TryCreate as _;
    use crate::vision::{Connectivity, NmsOptions, TryConnectedComponents as _, TryNms as _};

    let device = Device::flex();
    let mut inputs = inputs.into_iter();
    let mut input = |what: &'static str| {
        inputs.next().ok_or(GuardError::InvalidArgument {
            op: op.name(),
            rule: "a cell's operation gets each of its inputs",
            got: format!("no {what}"),
        })
    };
    let answer = match op {
        CellOp::ConnectedComponents { eight } => {
            let image = Tensor::<2, Bool>::try_from_data(input("image")?, &device)?;
            let connectivity = if eight {
                Connectivity::Eight
            } else {
                Connectivity::Four
            };
            image.try_connected_components(connectivity)?.into_data()
        }
        CellOp::Nms {
            iou_threshold,
            score_threshold,
            max_output_boxes,
        } => {
            let boxes = Tensor::<2>::try_from_data(input("boxes")?, &device)?;
            let scores = Tensor::<1>::try_from_data(input("scores")?, &device)?;
            let options = NmsOptions {
                iou_threshold,
                score_threshold,
                max_output_boxes,
            };
            boxes.try_nms(scores, options)?.into_data()
        }
    };
    Ok(vec![answer])
}

#[cfg(not(feature = "vision"))]
fn run(op: CellOp, _inputs: Vec<TensorData>) -> Result<Vec<TensorData>> {
    Err(GuardError::InvalidArgument {
        op: op.name(),
        rule: "a cell runs burn-vision's operations only when built with the `vision` feature",
        got: "a child built without it".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::CellOp;

    #[test]
    fn operations_cross_as_names_and_numbers() {
        for op in [
            CellOp::ConnectedComponents { eight: true },
            CellOp::ConnectedComponents { eight: false },
            CellOp::Nms {
                iou_threshold: 0.25,
                score_threshold: -1.5,
                max_output_boxes: 7,
            },
        ] {
            assert_eq!(CellOp::parse(op.name(), &op.params()), Ok(op));
        }
        assert!(CellOp::parse("connected_components", &[6.0]).is_err());
        assert!(CellOp::parse("nms", &[0.5, 0.0, 1.5]).is_err());
        assert!(CellOp::parse("svd", &[]).is_err());
    }
}
