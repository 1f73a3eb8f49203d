//! [`burn::nn::Embedding`].

use burn::nn::Embedding;
use burn::tensor::{Int, Tensor};

use super::support::Sealed;
use crate::params::read as params;
use crate::tensor::module::try_embedding;

twins! {
/// Twin of [`Embedding::forward`].
pub trait TryEmbedding for Embedding = "embedding" {
    /// Fallible twin of [`Embedding::forward`]: token ids `[batch, seq]` → `[batch, seq,
    /// d_model]`.
    ///
    /// Checks every id against the weight's row count (`0..n_embedding`) and the devices, as
    /// [`try_embedding`] does. The id check reads the ids back from the device: one
    /// synchronous read, counted by [`value_reads::count`](crate::value_reads::count) and
    /// skipped inside [`value_reads::vouched`](crate::value_reads::vouched).
    ///
    /// # Errors
    ///
    /// [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange) with the first id
    /// out of range, [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::EmbeddingConfig;
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let embedding = EmbeddingConfig::new(10, 4).init(&device);
    /// let ids = Tensor::<2, Int>::from_ints([[0, 9]], &device);
    /// assert_eq!(embedding.try_forward(ids)?.dims(), [1, 2, 4]);
    /// let err = embedding.try_forward(Tensor::<2, Int>::from_ints([[10]], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::IndexOutOfRange);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<2, Int>) -> Tensor<3> {
        // burn's forward is `embedding(weight, input)`; the tensor twin runs it after its checks.
        let [weight] = params::values(OP, [&self.weight])?;
        try_embedding(weight, input)
    }
}
}
