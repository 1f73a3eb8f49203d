//! What the burn-linalg twins cost against burn's functions on Flex: `qr` of a `[64, 64]`
//! matrix, `det` of 64 `[8, 8]` matrices and the L2 norm of 64 rows of 1 024, each ending in a
//! read of its output.
//!
//! ```text
//! cargo bench --profile dev --all-features --bench linalg
//! ```
//!
//! One paired criterion benchmark per function (`benches/support/paired.rs`): each iteration
//! runs burn's call and the twin's, alternating which goes first. The twin's extra work is its
//! rule, on the shapes only.

#[path = "support/paired.rs"]
mod paired;

use burn::tensor::{Device, Distribution, Tensor};
use burn_guard::linalg::{try_det, try_qr, try_vector_norm};

fn read<const D: usize>(t: Tensor<D>) -> usize {
    t.into_data().bytes().len()
}

fn main() {
    let mut c = paired::twin_criterion();
    let device = Device::flex();
    device.seed(3);
    let mut results = Vec::new();

    let m = Tensor::<2>::random([64, 64], Distribution::Default, &device);
    let group = "qr [64, 64] flex".to_owned();
    let record = paired::paired(
        &mut c,
        &group,
        &mut [
            ("burn qr", &mut || read(burn_linalg::qr(m.clone(), true).1)),
            ("try_qr", &mut || read(try_qr(m.clone(), true).unwrap().1)),
        ],
    );
    results.push((group, record));

    let batch = Tensor::<3>::random([64, 8, 8], Distribution::Default, &device);
    let group = "det [64, 8, 8] flex".to_owned();
    let record = paired::paired(
        &mut c,
        &group,
        &mut [
            ("burn det", &mut || {
                read(burn_linalg::det::<3, 2, 1>(batch.clone()))
            }),
            ("try_det", &mut || {
                read(try_det::<3, 2, 1>(batch.clone()).unwrap())
            }),
        ],
    );
    results.push((group, record));

    let rows = Tensor::<2>::random([64, 1024], Distribution::Default, &device);
    let group = "vector_norm L2 [64, 1024] flex".to_owned();
    let record = paired::paired(
        &mut c,
        &group,
        &mut [
            ("burn vector_norm", &mut || {
                read(burn_linalg::vector_norm(rows.clone(), 2.0, 1))
            }),
            ("try_vector_norm", &mut || {
                read(try_vector_norm(rows.clone(), 2.0, 1).unwrap())
            }),
        ],
    );
    results.push((group, record));

    paired::finish_twins(&mut c, &results);
}
