//! What the burn-vision twins cost against burn's functions on Flex: an erosion of a
//! `[256, 256, 3]` image by a 5 × 5 cross, and NMS over 1 000 boxes, each ending in a read of
//! its output.
//!
//! ```text
//! cargo bench --profile dev --all-features --bench vision
//! ```
//!
//! One paired criterion benchmark per function (`benches/support/paired.rs`): each iteration
//! runs burn's call and the twin's, alternating which goes first. The twin's extra work is its
//! rules (on shapes and options only), the capability answer for the device, and the policy's
//! count.

#[path = "support/paired.rs"]
mod paired;

use burn::tensor::{Device, Distribution, Tensor};
use burn_guard::vision::{
    KernelShape, MorphOptions, NmsOptions, Size, TryMorphology, TryNms,
    try_create_structuring_element,
};
use burn_vision::{Morphology, Nms};

fn read<const D: usize, K: burn::tensor::kind::Basic>(t: Tensor<D, K>) -> usize {
    t.into_data().bytes().len()
}

fn main() {
    let mut c = paired::twin_criterion();
    let device = Device::flex();
    device.seed(3);
    let mut results = Vec::new();

    let image = Tensor::<3>::random([256, 256, 3], Distribution::Default, &device);
    let kernel =
        try_create_structuring_element(KernelShape::Cross, Size::new(5, 5), None, &device).unwrap();
    let group = "erode [256, 256, 3] cross 5x5 flex".to_owned();
    let record = paired::paired(
        &mut c,
        &group,
        &mut [
            ("burn erode", &mut || {
                read(image.clone().erode(kernel.clone(), MorphOptions::default()))
            }),
            ("try_erode", &mut || {
                read(
                    image
                        .clone()
                        .try_erode(kernel.clone(), MorphOptions::default())
                        .unwrap(),
                )
            }),
        ],
    );
    results.push((group, record));

    let corners = Tensor::<2>::random([1000, 2], Distribution::Uniform(0.0, 100.0), &device);
    let sizes = Tensor::<2>::random([1000, 2], Distribution::Uniform(1.0, 10.0), &device);
    let boxes = Tensor::cat(vec![corners.clone(), corners + sizes], 1);
    let scores = Tensor::<1>::random([1000], Distribution::Default, &device);
    let group = "nms 1000 boxes flex".to_owned();
    let record = paired::paired(
        &mut c,
        &group,
        &mut [
            ("burn nms", &mut || {
                read(boxes.clone().nms(scores.clone(), NmsOptions::default()))
            }),
            ("try_nms", &mut || {
                read(
                    boxes
                        .clone()
                        .try_nms(scores.clone(), NmsOptions::default())
                        .unwrap(),
                )
            }),
        ],
    );
    results.push((group, record));

    paired::finish_twins(&mut c, &results);
}
