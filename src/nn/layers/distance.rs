//! [`PairwiseDistance`], [`CosineSimilarity`].

use burn::nn::{CosineSimilarity, PairwiseDistance};
use burn::tensor::Tensor;

use super::support::{Sealed, dims, same_devices};
use crate::check::{self, distance};
use crate::panic::catch;

twins! {
/// Twin of [`PairwiseDistance::forward`].
pub trait TryPairwiseDistance for PairwiseDistance = "pairwise_distance" {
    /// Fallible twin of [`PairwiseDistance::forward`]: `[batch, d]` twice → `[batch]`.
    ///
    /// Checks that the shapes broadcast (burn's `sub` check), that an infinite `p` has at
    /// least one feature (Flex and NdArray panic taking the max of an empty dim), and that
    /// both inputs are on the same device.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::Empty`](crate::GuardError::Empty) (no features, `p` infinite),
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::PairwiseDistanceConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let distance = PairwiseDistanceConfig::new().init();
    /// let x = Tensor::<2>::ones([2, 3], &device);
    /// assert_eq!(distance.try_forward(x.clone(), Tensor::zeros([2, 3], &device))?.dims(), [2]);
    /// assert!(distance.try_forward(x, Tensor::zeros([2, 4], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, x1: Tensor<2>, x2: Tensor<2>) -> Tensor<1> {
        distance::pairwise_distance(OP, &dims(&x1), &dims(&x2), self.p)?;
        same_devices(OP, &[x1.device(), x2.device()])?;
        catch(OP, || self.forward(x1, x2))
    }
}

/// Twin of [`CosineSimilarity::forward`].
pub trait TryCosineSimilarity for CosineSimilarity = "cosine_similarity" {
    /// Fallible twin of [`CosineSimilarity::forward`]: `[batch, d]` twice → one value per
    /// row (or column, with `dim` 0).
    ///
    /// Checks the layer's `dim` against rank 2, that the shapes broadcast, and the devices.
    ///
    /// # Errors
    ///
    /// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange),
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::CosineSimilarityConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let cosine = CosineSimilarityConfig::new().init();
    /// let x = Tensor::<2>::ones([2, 3], &device);
    /// assert_eq!(cosine.try_forward(x.clone(), x.clone())?.dims(), [2]);
    /// assert!(cosine.try_forward(x, Tensor::ones([2, 4], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, x1: Tensor<2>, x2: Tensor<2>) -> Tensor<1> {
        check::dim(OP, self.dim, 2)?;
        check::broadcast(OP, &dims(&x1), &dims(&x2))?;
        same_devices(OP, &[x1.device(), x2.device()])?;
        catch(OP, || self.forward(x1, x2))
    }
}
}
