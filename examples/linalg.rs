//! Linear algebra through burn-guard: burn-linalg's functions with their panics turned into
//! one-line errors that say how to fix the call.
//!
//! ```text
//! cargo run --all-features --example linalg
//! ```
//!
//! 1. `det` of a plain `[n, n]` matrix: burn panics (its `det` needs a batch dimension); the
//!    twin says so and names the fix, then runs on the batched matrix.
//! 2. `qr` of a 4 × 3 matrix, and how far `Q · R` is from it.
//! 3. `svd` of a layer's weight that requires grad: refused with the fix (`detach`); the
//!    detached weight's singular values.
//! 4. The largest magnitude over an empty dimension: refused (Flex and NdArray panic).

use burn::nn::{Linear, LinearConfig};
use burn::tensor::{Device, Tensor};
use burn_guard::linalg::{Norm, try_det, try_qr, try_svd, try_vector_norm};

fn main() -> Result<(), burn_guard::GuardError> {
    let device = Device::flex();

    // 1. det
    let m = Tensor::<2>::from_floats([[4.0, 7.0], [2.0, 6.0]], &device);
    match try_det::<2, 1, 0>(m.clone()) {
        Ok(_) => println!("det of a plain matrix: accepted (burn would have panicked)"),
        Err(err) => println!("det of a plain matrix refused: {err}"),
    }
    let det = try_det::<3, 2, 1>(m.unsqueeze_dim(0))?;
    println!(
        "det of the batched matrix: {:?}",
        det.into_data().try_to_vec::<f32>().unwrap_or_default()
    );

    // 2. qr
    let a = Tensor::<2>::from_floats(
        [
            [1.0, 2.0, 0.0],
            [0.0, 1.0, 1.0],
            [1.0, 0.0, 1.0],
            [2.0, 1.0, 3.0],
        ],
        &device,
    );
    let (q, r) = try_qr(a.clone(), true)?;
    let apart: f32 = (q.clone().matmul(r.clone()) - a).abs().max().into_scalar();
    println!(
        "qr of a 4 x 3 matrix: Q {:?}, R {:?}, max |Q R - A| = {apart:e}",
        q.dims(),
        r.dims()
    );

    // 3. svd of a weight that requires grad
    let layer: Linear = LinearConfig::new(3, 2).init(&device.clone().autodiff());
    let weight = layer.weight.val();
    match try_svd::<2, 1>(weight.clone(), 16) {
        Ok(_) => println!("svd of a tracked weight: accepted"),
        Err(err) => println!("svd of a tracked weight refused: {err}"),
    }
    let detached = Tensor::<2>::from_data(weight.to_data(), &device);
    match try_svd::<2, 1>(detached, 16) {
        Ok((_, s, _)) => println!(
            "svd of the detached weight: singular values {:?}",
            s.into_data().try_to_vec::<f32>().unwrap_or_default()
        ),
        Err(err) => println!("svd of the detached weight refused: {err}"),
    }

    // 4. an extremum norm over an empty dimension
    let empty = Tensor::<2>::zeros([3, 0], &device);
    match try_vector_norm(empty, Norm::LInf, 1) {
        Ok(_) => println!("inf-norm over an empty dim: accepted"),
        Err(err) => println!("inf-norm over an empty dim refused: {err}"),
    }
    Ok(())
}
