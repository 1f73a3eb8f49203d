//! The losses of [`burn::nn::loss`] and their configs.
//!
//! Each twin checks the shapes its loss combines (the asserts of burn's `forward`, and the
//! broadcasts, reshapes and gathers its body does), the module's own fields (weights per
//! class, a blank index), the `Reduction` it accepts, and the devices; then runs burn's own
//! `forward` under the backstop. Class ids and lengths are values: the twins that gather with
//! them read them first (one synchronous read per tensor, counted in
//! [`value_reads`](crate::value_reads), skipped inside
//! [`value_reads::vouched`](crate::value_reads::vouched)); each says which.

use burn::nn::loss::{
    BinaryCrossEntropyLoss, BinaryCrossEntropyLossConfig, CTCLoss, CosineEmbeddingLoss,
    CrossEntropyLoss, CrossEntropyLossConfig, GaussianNLLLoss, HingeEmbeddingLoss, HuberLoss,
    HuberLossConfig, KLDivLoss, LpLoss, LpLossConfig, MarginRankingLoss, MarginRankingLossConfig,
    MseLoss, MultiMarginLoss, MultiMarginLossConfig, PoissonNllLoss, PoissonNllLossConfig,
    RNNTLoss, Reduction, SmoothL1Loss, SmoothL1LossConfig, SoftMarginLoss, TripletMarginLoss,
};
use burn::tensor::{AsIndex, Device, Int, Tensor};

use super::support::{Sealed, dims, same_devices};
use crate::check;
use crate::check::loss;
use crate::error::{GuardError, Result};
use crate::nn::init::{TryInit, TryInitStateless};
use crate::panic::catch;
use crate::tensor::{check_ctc, read_indices};
use crate::value_reads::read_values;

/// The devices of float tensors.
fn devices<const D: usize>(tensors: &[&Tensor<D>]) -> Vec<Device> {
    tensors.iter().map(|t| t.device()).collect()
}

/// The shapes of element-wise operands.
fn elementwise<const D: usize>(op: &'static str, tensors: &[&Tensor<D>]) -> Result<Vec<usize>> {
    let shapes: Vec<Vec<usize>> = tensors.iter().map(|t| dims(t)).collect();
    let slices: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    let out = loss::elementwise(op, &slices)?;
    same_devices(op, &devices(tensors))?;
    Ok(out)
}

// ------------------------------------------------------------------------------ configs

/// The cross-entropy configs' asserts: smoothing in `[0, 1]`, weights above 0.
fn cross_entropy_config(
    op: &'static str,
    smoothing: Option<f32>,
    weights: Option<&[f32]>,
) -> Result<()> {
    if let Some(alpha) = smoothing {
        loss::smoothing(op, alpha)?;
    }
    if let Some(weights) = weights {
        loss::positive_weights(op, weights)?;
    }
    Ok(())
}

config_twins! {
impl TryInit for BinaryCrossEntropyLossConfig = BinaryCrossEntropyLoss("binary_cross_entropy_loss_init"), |config| [
    cross_entropy_config(config.smoothing, config.weights.as_deref()),
];
impl TryInit for CrossEntropyLossConfig = CrossEntropyLoss("cross_entropy_loss_init"), |config| [
    cross_entropy_config(config.smoothing, config.weights.as_deref()),
];
impl TryInitStateless for HuberLossConfig = HuberLoss("huber_loss_init"), |config| [
    loss::non_negative("delta", f64::from(config.delta)),
];
impl TryInitStateless for LpLossConfig = LpLoss("lp_loss_init"), |config| [
    loss::positive("p", config.p),
];
impl TryInitStateless for MarginRankingLossConfig = MarginRankingLoss("margin_ranking_loss_init"), |config| [
    loss::non_negative("margin", config.margin),
];
impl TryInitStateless for MultiMarginLossConfig = MultiMarginLoss("multi_margin_loss_init"), |config| [
    loss::non_negative("margin", config.margin),
    loss::multi_margin_p(config.p),
];
impl TryInitStateless for PoissonNllLossConfig = PoissonNllLoss("poisson_nll_loss_init"), |config| [
    loss::positive("eps", config.eps),
];
impl TryInitStateless for SmoothL1LossConfig = SmoothL1Loss("smooth_l1_loss_init"), |config| [
    loss::positive("beta", f64::from(config.beta)),
];
}

// ------------------------------------------------------------------------------ element-wise losses

/// Declares the twin trait of an element-wise loss with `forward(a, b, reduction) -> [1]` and
/// `forward_no_reduction(a, b) -> [D]` (plus any extra operands), whose only rules are that
/// the operands broadcast, share a device, and that the reduction is one the loss accepts.
macro_rules! elementwise_loss {
    ($(
        $(#[$note:meta])*
        $module:ident, $trait:ident, $op:literal, batch_mean: $batch_mean:literal,
            ($($arg:ident),+), $what:literal, extra: $extra:path {
            $(#[$example:meta])*
        }
    )*) => {$(
        impl Sealed for $module {}

        #[doc = concat!("Twins of [`", stringify!($module), "::forward`] and [`",
            stringify!($module), "::forward_no_reduction`].")]
        pub trait $trait: Sealed {
            #[doc = concat!("Fallible twin of [`", stringify!($module), "::forward`]: ", $what,
                " → the loss reduced to `[1]`.")]
            ///
            /// Checks that the operands broadcast (burn combines them element-wise) and share
            /// a device, and the reduction.
            $(#[$note])*
            ///
            /// # Errors
            ///
            /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for operands
            /// that do not broadcast,
            /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a
            /// reduction the loss does not support,
            /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
            ///
            $(#[$example])*
            fn try_forward<const D: usize>(
                &self,
                $($arg: Tensor<D>,)+
                reduction: Reduction,
            ) -> Result<Tensor<1>>;

            #[doc = concat!("Fallible twin of [`", stringify!($module),
                "::forward_no_reduction`]: the element-wise loss, with [`try_forward`](Self::try_forward)'s shape checks.")]
            ///
            /// # Errors
            ///
            /// As [`try_forward`](Self::try_forward), without the reduction.
            fn try_forward_no_reduction<const D: usize>(
                &self,
                $($arg: Tensor<D>,)+
            ) -> Result<Tensor<D>>;
        }

        impl $trait for $module {
            fn try_forward<const D: usize>(
                &self,
                $($arg: Tensor<D>,)+
                reduction: Reduction,
            ) -> Result<Tensor<1>> {
                const OP: &str = $op;
                if !$batch_mean {
                    loss::reduction(OP, &reduction)?;
                }
                elementwise(OP, &[$(&$arg),+])?;
                $extra(OP, &[$(&$arg),+])?;
                catch(OP, || self.forward($($arg,)+ reduction))
            }

            fn try_forward_no_reduction<const D: usize>(
                &self,
                $($arg: Tensor<D>,)+
            ) -> Result<Tensor<D>> {
                const OP: &str = $op;
                elementwise(OP, &[$(&$arg),+])?;
                $extra(OP, &[$(&$arg),+])?;
                catch(OP, || self.forward_no_reduction($($arg),+))
            }
        }
    )*};
}

elementwise_loss! {
    GaussianNLLLoss, TryGaussianNLLLoss, "gaussian_nll_loss", batch_mean: false, (input, target, var), "predicted means, targets and variances", extra: no_extra {
        /// ```
        /// use burn::nn::loss::{GaussianNLLLossConfig, Reduction};
        /// use burn::tensor::{Device, Tensor};
        /// use burn_guard::prelude::*;
        ///
        /// let device = Device::flex();
        /// let loss = GaussianNLLLossConfig::new().init();
        /// let x = Tensor::<2>::ones([2, 3], &device);
        /// assert_eq!(loss.try_forward(x.clone(), x.clone(), x.clone(), Reduction::Mean)?.dims(), [1]);
        /// assert!(loss.try_forward(x.clone(), x.clone(), Tensor::ones([2, 2], &device), Reduction::Mean).is_err());
        /// assert!(loss.try_forward(x.clone(), x.clone(), x, Reduction::BatchMean).is_err());
        /// # Ok::<(), GuardError>(())
        /// ```
    }
    /// Beyond burn: the input must broadcast to the target's shape (rule `the input must broadcast
    /// to the target's shape`): burn's `mask_where` takes the target's shape, and NdArray panics on
    /// an input it cannot broadcast to it.
    HingeEmbeddingLoss, TryHingeEmbeddingLoss, "hinge_embedding_loss", batch_mean: false, (input, target), "distances and `±1` targets", extra: hinge_shapes {
        /// ```
        /// use burn::nn::loss::{HingeEmbeddingLossConfig, Reduction};
        /// use burn::tensor::{Device, Tensor};
        /// use burn_guard::prelude::*;
        ///
        /// let device = Device::flex();
        /// let loss = HingeEmbeddingLossConfig::new().init();
        /// let x = Tensor::<2>::ones([2, 3], &device);
        /// assert_eq!(loss.try_forward(x.clone(), x.clone(), Reduction::Sum)?.dims(), [1]);
        /// assert!(loss.try_forward(x, Tensor::ones([3, 3], &device), Reduction::Sum).is_err());
        /// # Ok::<(), GuardError>(())
        /// ```
    }
    KLDivLoss, TryKLDivLoss, "kl_div_loss", batch_mean: true, (predictions, targets), "log-probabilities and target probabilities", extra: no_extra {
        /// ```
        /// use burn::nn::loss::{KLDivLossConfig, Reduction};
        /// use burn::tensor::{Device, Tensor};
        /// use burn_guard::prelude::*;
        ///
        /// let device = Device::flex();
        /// let loss = KLDivLossConfig::new().init();
        /// let x = Tensor::<2>::full([2, 3], 0.5, &device);
        /// assert_eq!(loss.try_forward(x.clone(), x.clone(), Reduction::BatchMean)?.dims(), [1]);
        /// assert!(loss.try_forward(x, Tensor::ones([2, 2], &device), Reduction::Sum).is_err());
        /// # Ok::<(), GuardError>(())
        /// ```
    }
    MarginRankingLoss, TryMarginRankingLoss, "margin_ranking_loss", batch_mean: false, (first, second, target), "two scores and `±1` targets", extra: no_extra {
        /// ```
        /// use burn::nn::loss::{MarginRankingLossConfig, Reduction};
        /// use burn::tensor::{Device, Tensor};
        /// use burn_guard::prelude::*;
        ///
        /// let device = Device::flex();
        /// let loss = MarginRankingLossConfig::new().try_init()?;
        /// let x = Tensor::<1>::ones([3], &device);
        /// assert_eq!(loss.try_forward(x.clone(), x.clone(), x.clone(), Reduction::Mean)?.dims(), [1]);
        /// assert!(loss.try_forward(x.clone(), x, Tensor::ones([2], &device), Reduction::Mean).is_err());
        /// # Ok::<(), GuardError>(())
        /// ```
    }
    MseLoss, TryMseLoss, "mse_loss", batch_mean: false, (logits, targets), "predictions and targets", extra: no_extra {
        /// ```
        /// use burn::nn::loss::{MseLoss, Reduction};
        /// use burn::tensor::{Device, Tensor};
        /// use burn_guard::prelude::*;
        ///
        /// let device = Device::flex();
        /// let x = Tensor::<2>::ones([2, 3], &device);
        /// assert_eq!(MseLoss::new().try_forward(x.clone(), x.clone(), Reduction::Mean)?.dims(), [1]);
        /// assert!(MseLoss::new().try_forward(x, Tensor::ones([2, 2], &device), Reduction::Mean).is_err());
        /// # Ok::<(), GuardError>(())
        /// ```
    }
    SoftMarginLoss, TrySoftMarginLoss, "soft_margin_loss", batch_mean: false, (logits, targets), "scores and `±1` targets", extra: no_extra {
        /// ```
        /// use burn::nn::loss::{Reduction, SoftMarginLoss};
        /// use burn::tensor::{Device, Tensor};
        /// use burn_guard::prelude::*;
        ///
        /// let device = Device::flex();
        /// let x = Tensor::<2>::ones([2, 3], &device);
        /// assert_eq!(SoftMarginLoss::new().try_forward(x.clone(), x.clone(), Reduction::Sum)?.dims(), [1]);
        /// assert!(SoftMarginLoss::new().try_forward(x, Tensor::ones([2, 2], &device), Reduction::Sum).is_err());
        /// # Ok::<(), GuardError>(())
        /// ```
    }
}

/// `HingeEmbeddingLoss`'s selection: see [`loss::broadcasts_to`].
fn hinge_shapes<const D: usize>(op: &'static str, operands: &[&Tensor<D>]) -> Result<()> {
    match operands {
        [input, target] => loss::broadcasts_to(op, &input.dims(), &target.dims()),
        _ => Ok(()),
    }
}

/// No rule beyond the broadcast.
fn no_extra<const D: usize>(_: &'static str, _: &[&Tensor<D>]) -> Result<()> {
    Ok(())
}

/// The dims of `mean_dims`, each in `-D..D`.
fn reduce_dims(op: &'static str, dims: &[impl AsIndex], rank: usize) -> Result<()> {
    for dim in dims {
        check::dim(op, dim.as_index(), rank)?;
    }
    Ok(())
}

// ------------------------------------------------------------------------------ the other losses

/// `BinaryCrossEntropyLoss`'s asserts: targets of the logits' shape; with weights, one per
/// class (rank > 1) or, for rank 1, targets that index a weight (read once), and no empty dim.
fn bce<const D: usize>(
    op: &'static str,
    layer: &BinaryCrossEntropyLoss,
    logits: &Tensor<D>,
    targets: &Tensor<D, Int>,
) -> Result<()> {
    let dims = targets.dims();
    loss::same_shape(op, &logits.dims(), &dims)?;
    let mut devices = vec![logits.device(), targets.device()];
    if let Some(weights) = &layer.weights {
        devices.push(weights.device());
        let [count] = weights.dims();
        loss::expand_target(op, &dims)?;
        match dims.last() {
            Some(&classes) if D > 1 => loss::class_weights(op, &[count], classes)?,
            _ => loss::class_ids(op, &read_indices(op, targets)?, count, 0)?,
        }
    }
    same_devices(op, &devices)
}

/// `CrossEntropyLoss`'s asserts: targets `[batch]`, a class axis for logits, one weight per
/// class, the devices, and class ids in `0..classes` (read once).
fn cross_entropy(
    op: &'static str,
    layer: &CrossEntropyLoss,
    logits: &Tensor<2>,
    targets: &Tensor<1, Int>,
) -> Result<()> {
    let dims = logits.dims();
    let [_, classes] = dims;
    loss::class_targets(op, &dims, &targets.dims())?;
    if layer.logits {
        loss::class_axis(op, &dims)?;
    }
    let mut devices = vec![logits.device(), targets.device()];
    if let Some(weights) = &layer.weights {
        loss::class_weights(op, &weights.dims(), classes)?;
        devices.push(weights.device());
    }
    same_devices(op, &devices)?;
    loss::class_ids(op, &read_indices(op, targets)?, classes, 1)
}

/// `HuberLoss`'s `delta`, at least 0: burn clamps the residuals to `[-delta, delta]`.
fn huber_delta(op: &'static str, layer: &HuberLoss) -> Result<()> {
    loss::non_negative(op, "delta", f64::from(layer.delta))
}

fn cosine_embedding(
    op: &'static str,
    input1: &Tensor<2>,
    input2: &Tensor<2>,
    target: &Tensor<1, Int>,
) -> Result<()> {
    let dims = input1.dims();
    loss::same_shape(op, &dims, &input2.dims())?;
    loss::class_targets(op, &dims, &target.dims())?;
    same_devices(op, &[input1.device(), input2.device(), target.device()])
}

/// The labels of an alignment loss (CTC, RNN-T): target ids `[batch, max_target]`, and each
/// sample's input (or logit) length and target length `[batch]`.
type Labels<'a> = (&'a Tensor<2, Int>, &'a Tensor<1, Int>, &'a Tensor<1, Int>);

fn ctc(op: &'static str, layer: &CTCLoss, log_probs: &Tensor<3>, labels: Labels) -> Result<()> {
    let (targets, input_lengths, target_lengths) = labels;
    let [time, ..] = log_probs.dims();
    let blank = crate::upstream::ctc_blank(layer).ok_or(GuardError::Unreadable {
        op,
        what: "`CTCLoss`'s private `blank`",
    })?;
    let (input_values, target_values) =
        check_ctc(op, log_probs, targets, input_lengths, target_lengths, blank)?;
    let [_, width] = targets.dims();
    loss::ctc_lengths(op, &input_values, &target_values, time, width)
}

fn multi_margin(op: &'static str, input: &Tensor<2>, target: &Tensor<1, Int>) -> Result<()> {
    let dims = input.dims();
    let [_, classes] = dims;
    loss::class_targets(op, &dims, &target.dims())?;
    same_devices(op, &[input.device(), target.device()])?;
    loss::class_ids(op, &read_indices(op, target)?, classes, 1)
}

fn poisson<const D: usize>(
    op: &'static str,
    layer: &PoissonNllLoss,
    predictions: &Tensor<D>,
    targets: &Tensor<D>,
) -> Result<()> {
    loss::same_shape(op, &predictions.dims(), &targets.dims())?;
    same_devices(op, &[predictions.device(), targets.device()])?;
    let values: Vec<f32> = read_values(op, targets)?;
    loss::non_negative_values(op, "targets", &values)?;
    if !layer.log_input {
        let values: Vec<f32> = read_values(op, predictions)?;
        loss::non_negative_values(op, "predictions", &values)?;
    }
    Ok(())
}

fn rnnt(op: &'static str, layer: &RNNTLoss, logits: &Tensor<4>, labels: Labels) -> Result<()> {
    let (targets, logit_lengths, target_lengths) = labels;
    let dims = logits.dims();
    let [_, time, _, vocab] = dims;
    let [_, labels] = targets.dims();
    loss::rnnt(
        op,
        &dims,
        &targets.dims(),
        &logit_lengths.dims(),
        &target_lengths.dims(),
        Some(
            crate::upstream::rnnt_blank(layer).ok_or(GuardError::Unreadable {
                op,
                what: "`RNNTLoss`'s private `blank`",
            })?,
        ),
    )?;
    same_devices(
        op,
        &[
            logits.device(),
            targets.device(),
            logit_lengths.device(),
            target_lengths.device(),
        ],
    )?;
    loss::class_ids(op, &read_indices(op, targets)?, vocab, 3)?;
    loss::rnnt_lengths(
        op,
        &read_indices(op, logit_lengths)?,
        &read_indices(op, target_lengths)?,
        time,
        labels,
    )
}

fn triplet(
    op: &'static str,
    anchor: &Tensor<2>,
    positive: &Tensor<2>,
    negative: &Tensor<2>,
) -> Result<()> {
    let to_positive = elementwise(op, &[anchor, positive])?;
    let to_negative = elementwise(op, &[anchor, negative])?;
    loss::elementwise(
        op,
        &[
            to_positive.get(..1).unwrap_or_default(),
            to_negative.get(..1).unwrap_or_default(),
        ],
    )
    .map(drop)
}

twins! {
/// Twin of [`BinaryCrossEntropyLoss::forward`].
pub trait TryBinaryCrossEntropyLoss for BinaryCrossEntropyLoss = "binary_cross_entropy_loss" {
    /// Fallible twin of [`BinaryCrossEntropyLoss::forward`]: logits and `{0, 1}` targets of
    /// one shape → the mean loss `[1]`.
    ///
    /// Checks burn's asserts: targets of the logits' shape, and for rank > 1 one weight per
    /// class (the last dim); with weights, no empty dim (burn expands the weights to the
    /// targets' shape, and `expand` refuses a zero size). For rank 1 with weights, burn gathers the weights by target
    /// value: the targets are read (one synchronous read) and must be in `0..weights`;
    /// [`value_reads::vouched`](crate::value_reads::vouched) skips the read.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for a shape or weight
    /// count, [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange) for a
    /// rank-1 target that indexes no weight,
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::loss::BinaryCrossEntropyLossConfig;
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let loss = BinaryCrossEntropyLossConfig::new().try_init(&device)?;
    /// let logits = Tensor::<2>::full([2, 3], 0.5, &device);
    /// let targets = Tensor::<2, Int>::ones([2, 3], &device);
    /// assert_eq!(loss.try_forward(logits.clone(), targets)?.dims(), [1]);
    /// let err = loss.try_forward(logits, Tensor::<2, Int>::ones([2, 2], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, logits: Tensor<D>, targets: Tensor<D, Int>) -> Tensor<1> => forward(..) [bce(self, &logits, &targets)];
}

/// Twins of [`CosineEmbeddingLoss::forward`] and [`CosineEmbeddingLoss::forward_no_reduction`].
pub trait TryCosineEmbeddingLoss for CosineEmbeddingLoss = "cosine_embedding_loss" {
    /// Fallible twin of [`CosineEmbeddingLoss::forward`]: `[batch, dim]` pairs and `[batch]`
    /// targets → the loss reduced by the module's `reduction` `[1]`.
    ///
    /// Checks burn's asserts (`input2` of `input1`'s shape, `target` `[batch]`), the module's
    /// reduction (`BatchMean` panics in burn) and the devices.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for `BatchMean`,
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::loss::CosineEmbeddingLoss;
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let loss = CosineEmbeddingLoss::new();
    /// let x = Tensor::<2>::ones([2, 3], &device);
    /// let target = Tensor::<1, Int>::from_ints([1, -1], &device);
    /// assert_eq!(loss.try_forward(x.clone(), x.clone(), target.clone())?.dims(), [1]);
    /// let err = loss.try_forward(x, Tensor::ones([2, 4], &device), target).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input1: Tensor<2>, input2: Tensor<2>, target: Tensor<1, Int>) -> Tensor<1> => forward(..) [loss::reduction(&self.reduction), cosine_embedding(&input1, &input2, &target)];
    /// Fallible twin of [`CosineEmbeddingLoss::forward_no_reduction`]: the per-pair loss
    /// `[batch]`, with [`try_forward`](Self::try_forward)'s shape checks.
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward), without the reduction.
    fn try_forward_no_reduction(&self, input1: Tensor<2>, input2: Tensor<2>, target: Tensor<1, Int>) -> Tensor<1> => forward_no_reduction(..) [cosine_embedding(&input1, &input2, &target)];
}

/// Twin of [`CrossEntropyLoss::forward`].
pub trait TryCrossEntropyLoss for CrossEntropyLoss = "cross_entropy_loss" {
    /// Fallible twin of [`CrossEntropyLoss::forward`]: `[batch, classes]` logits (or
    /// probabilities) and `[batch]` class ids → the mean loss `[1]`.
    ///
    /// Checks burn's assert (targets `[batch]`), a non-empty class axis for logits (burn's
    /// `log_softmax` reduces it), the module's weights (one per class: burn
    /// reshapes them to `[1, classes]` when smoothing; without smoothing it gathers them by
    /// class id and silently ignores extra ones, refused here too by the rule
    /// `weights must hold one value per class`), and the devices. The class ids are read (one
    /// synchronous read) and must be in `0..classes`, pad tokens included (burn gathers every
    /// row before it masks the padded ones); [`value_reads::vouched`](crate::value_reads::vouched)
    /// skips the read. Pad token values themselves are free: burn only compares with them.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for the targets or the
    /// weights, [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange) for a
    /// class id, [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::loss::CrossEntropyLossConfig;
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let loss = CrossEntropyLossConfig::new().try_init(&device)?;
    /// let logits = Tensor::<2>::zeros([2, 3], &device);
    /// assert_eq!(loss.try_forward(logits.clone(), Tensor::from_ints([0, 2], &device))?.dims(), [1]);
    /// let err = loss.try_forward(logits, Tensor::from_ints([0, 3], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::IndexOutOfRange);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, logits: Tensor<2>, targets: Tensor<1, Int>) -> Tensor<1> => forward(..) [cross_entropy(self, &logits, &targets)];
}

/// Twins of [`CTCLoss::forward`] and [`CTCLoss::forward_with_reduction`].
pub trait TryCTCLoss for CTCLoss = "ctc_loss" {
    /// Fallible twin of [`CTCLoss::forward`]: `log_probs [T, N, C]`, `targets [N, S]`,
    /// `input_lengths [N]`, `target_lengths [N]` → the per-sample loss `[N]`.
    ///
    /// Checks what [`try_ctc_loss`](crate::tensor::module::try_ctc_loss) checks (batch sizes,
    /// `blank < C`, `T >= 1`, devices, target ids in `0..C`), and burn's length asserts:
    /// each target length in `0..=S`, each input length in `target_length..=T`. burn asserts
    /// the lengths in debug builds only; they are refused in every build here (the rule
    /// `each input length must be in target_length..=T`). Reads `targets`, `target_lengths`
    /// and `input_lengths` once each (three synchronous reads, skipped inside
    /// [`value_reads::vouched`](crate::value_reads::vouched)).
    ///
    /// # Errors
    ///
    /// As [`try_ctc_loss`](crate::tensor::module::try_ctc_loss), and
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for an input length;
    /// [`GuardError::Unreadable`](crate::GuardError::Unreadable) if a burn release no longer
    /// prints the layer's private blank where it is read.
    ///
    /// ```
    /// use burn::nn::loss::CTCLossConfig;
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let ctc = CTCLossConfig::new().init();
    /// let log_probs = Tensor::<3>::zeros([4, 1, 3], &device);
    /// let targets = Tensor::<2, Int>::from_ints([[1, 2]], &device);
    /// let lengths = |n| Tensor::<1, Int>::from_ints([n], &device);
    /// let loss = ctc.try_forward(log_probs.clone(), targets.clone(), lengths(4), lengths(2))?;
    /// assert_eq!(loss.dims(), [1]);
    /// // An input shorter than its target has no alignment.
    /// let err = ctc.try_forward(log_probs, targets, lengths(1), lengths(2)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::OutOfRange);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, log_probs: Tensor<3>, targets: Tensor<2, Int>, input_lengths: Tensor<1, Int>, target_lengths: Tensor<1, Int>) -> Tensor<1> => forward(..) [ctc(self, &log_probs, (&targets, &input_lengths, &target_lengths))];
    /// Fallible twin of [`CTCLoss::forward_with_reduction`]: the loss reduced to `[1]` (`Mean`
    /// divides each sample's loss by its target length, as PyTorch does).
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward), and
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for `BatchMean`.
    fn try_forward_with_reduction(&self, log_probs: Tensor<3>, targets: Tensor<2, Int>, input_lengths: Tensor<1, Int>, target_lengths: Tensor<1, Int>, reduction: Reduction) -> Tensor<1> => forward_with_reduction(..) [loss::reduction(&reduction), ctc(self, &log_probs, (&targets, &input_lengths, &target_lengths))];
}

/// Twins of [`HuberLoss::forward`], [`HuberLoss::forward_no_reduction`] and
/// [`HuberLoss::forward_residuals`].
pub trait TryHuberLoss for HuberLoss = "huber_loss" {
    /// Fallible twin of [`HuberLoss::forward`]: predictions and targets → the loss reduced to
    /// `[1]`.
    ///
    /// Checks that the operands broadcast and share a device, the reduction, and the module's
    /// `delta` (at least 0: burn clamps the residuals to `[-delta, delta]`, which panics for a
    /// negative or NaN `delta` loaded from a record).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for `BatchMean`,
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for `delta`,
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::loss::{HuberLossConfig, Reduction};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let loss = HuberLossConfig::new(0.5).try_init()?;
    /// let x = Tensor::<2>::ones([2, 3], &device);
    /// assert_eq!(loss.try_forward(x.clone(), x.clone(), Reduction::Mean)?.dims(), [1]);
    /// assert_eq!(loss.try_forward_residuals(x.clone())?.dims(), [2, 3]);
    /// assert!(loss.try_forward(x, Tensor::ones([2, 2], &device), Reduction::Mean).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, predictions: Tensor<D>, targets: Tensor<D>, reduction: Reduction) -> Tensor<1> => forward(..) [loss::reduction(&reduction), huber_delta(self), elementwise(&[&predictions, &targets])];
    /// Fallible twin of [`HuberLoss::forward_no_reduction`].
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward), without the reduction.
    fn try_forward_no_reduction<const D: usize>(&self, predictions: Tensor<D>, targets: Tensor<D>) -> Tensor<D> => forward_no_reduction(..) [huber_delta(self), elementwise(&[&predictions, &targets])];
    /// Fallible twin of [`HuberLoss::forward_residuals`]: any residuals; only `delta` is
    /// checked.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for `delta`.
    fn try_forward_residuals<const D: usize>(&self, residuals: Tensor<D>) -> Tensor<D> => forward_residuals(..) [huber_delta(self)];
}

/// Twins of [`LpLoss::forward`], [`LpLoss::forward_no_reduction`] and
/// [`LpLoss::forward_reduce_dims`].
pub trait TryLpLoss for LpLoss = "lp_loss" {
    /// Fallible twin of [`LpLoss::forward`]: predictions and targets → the loss reduced to
    /// `[1]`.
    ///
    /// Checks that the operands broadcast and share a device, and the reduction.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for `BatchMean`,
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::loss::{LpLossConfig, Reduction};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let loss = LpLossConfig::new(3.0).try_init()?;
    /// let x = Tensor::<2>::ones([2, 3], &device);
    /// assert_eq!(loss.try_forward(x.clone(), x.clone(), Reduction::Sum)?.dims(), [1]);
    /// assert_eq!(loss.try_forward_reduce_dims(x.clone(), x.clone(), &[1])?.dims(), [2, 1]);
    /// assert!(loss.try_forward_reduce_dims(x.clone(), x, &[2]).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, predictions: Tensor<D>, targets: Tensor<D>, reduction: Reduction) -> Tensor<1> => forward(..) [loss::reduction(&reduction), elementwise(&[&predictions, &targets])];
    /// Fallible twin of [`LpLoss::forward_no_reduction`].
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward), without the reduction.
    fn try_forward_no_reduction<const D: usize>(&self, predictions: Tensor<D>, targets: Tensor<D>) -> Tensor<D> => forward_no_reduction(..) [elementwise(&[&predictions, &targets])];
    /// Fallible twin of [`LpLoss::forward_reduce_dims`]: the loss averaged over `dims`, each
    /// in `-D..D`.
    ///
    /// # Errors
    ///
    /// As [`try_forward_no_reduction`](Self::try_forward_no_reduction), and
    /// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    fn try_forward_reduce_dims<const D: usize>(&self, predictions: Tensor<D>, targets: Tensor<D>, dims: &[impl AsIndex]) -> Tensor<D> => forward_reduce_dims(..) [elementwise(&[&predictions, &targets]), reduce_dims(dims, D)];
}

/// Twins of [`SmoothL1Loss::forward`], [`SmoothL1Loss::forward_with_reduction`] and
/// [`SmoothL1Loss::forward_reduce_dims`].
pub trait TrySmoothL1Loss for SmoothL1Loss = "smooth_l1_loss" {
    /// Fallible twin of [`SmoothL1Loss::forward`]: the element-wise loss (burn's `forward`
    /// does not reduce).
    ///
    /// Checks that the operands broadcast and share a device.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::loss::{Reduction, SmoothL1LossConfig};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let loss = SmoothL1LossConfig::new().try_init()?;
    /// let x = Tensor::<2>::ones([2, 3], &device);
    /// assert_eq!(loss.try_forward(x.clone(), x.clone())?.dims(), [2, 3]);
    /// assert_eq!(loss.try_forward_with_reduction(x.clone(), x.clone(), Reduction::Sum)?.dims(), [1]);
    /// assert!(loss.try_forward(x, Tensor::ones([2, 2], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, predictions: Tensor<D>, targets: Tensor<D>) -> Tensor<D> => forward(..) [elementwise(&[&predictions, &targets])];
    /// Fallible twin of [`SmoothL1Loss::forward_with_reduction`]: the loss reduced to `[1]`.
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward), and
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for `BatchMean`.
    fn try_forward_with_reduction<const D: usize>(&self, predictions: Tensor<D>, targets: Tensor<D>, reduction: Reduction) -> Tensor<1> => forward_with_reduction(..) [loss::reduction(&reduction), elementwise(&[&predictions, &targets])];
    /// Fallible twin of [`SmoothL1Loss::forward_reduce_dims`]: the loss averaged over `dims`,
    /// each in `-D..D`.
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward), and
    /// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange).
    fn try_forward_reduce_dims<const D: usize>(&self, predictions: Tensor<D>, targets: Tensor<D>, dims: &[impl AsIndex]) -> Tensor<D> => forward_reduce_dims(..) [elementwise(&[&predictions, &targets]), reduce_dims(dims, D)];
}

/// Twins of [`MultiMarginLoss::forward`] and [`MultiMarginLoss::forward_no_reduction`].
pub trait TryMultiMarginLoss for MultiMarginLoss = "multi_margin_loss" {
    /// Fallible twin of [`MultiMarginLoss::forward`]: `[batch, classes]` scores and `[batch]`
    /// class ids → the loss reduced to `[1]`.
    ///
    /// Checks the targets' shape (burn reshapes them to `[batch, 1]`), the reduction, the
    /// devices, and the class ids, read (one synchronous read, skipped inside
    /// [`value_reads::vouched`](crate::value_reads::vouched)): each in `0..classes` (burn
    /// gathers with them).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange) for a class id,
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for `BatchMean`,
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::loss::{MultiMarginLossConfig, Reduction};
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let loss = MultiMarginLossConfig::new().try_init()?;
    /// let x = Tensor::<2>::ones([2, 3], &device);
    /// let ok = loss.try_forward(x.clone(), Tensor::from_ints([0, 2], &device), Reduction::Mean)?;
    /// assert_eq!(ok.dims(), [1]);
    /// let err = loss.try_forward(x, Tensor::from_ints([0, 3], &device), Reduction::Mean).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::IndexOutOfRange);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, input: Tensor<2>, target: Tensor<1, Int>, reduction: Reduction) -> Tensor<1> => forward(..) [loss::reduction(&reduction), multi_margin(&input, &target)];
    /// Fallible twin of [`MultiMarginLoss::forward_no_reduction`]: the per-sample loss
    /// `[batch]`.
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward), without the reduction.
    fn try_forward_no_reduction(&self, input: Tensor<2>, target: Tensor<1, Int>) -> Tensor<1> => forward_no_reduction(..) [multi_margin(&input, &target)];
}

/// Twins of [`PoissonNllLoss::forward`] and [`PoissonNllLoss::forward_no_reduction`].
pub trait TryPoissonNllLoss for PoissonNllLoss = "poisson_nll_loss" {
    /// Fallible twin of [`PoissonNllLoss::forward`]: predictions and counts of one shape →
    /// the loss reduced to `[1]`.
    ///
    /// Checks burn's asserts: equal shapes, targets at least 0, and predictions at least 0
    /// when they are rates (`log_input` false); the reduction and the devices. The value
    /// rules read the targets (and the predictions when they are rates): one synchronous read
    /// each, skipped inside [`value_reads::vouched`](crate::value_reads::vouched) (burn then
    /// reads them itself for its assert).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a negative (or NaN)
    /// value, [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for
    /// `BatchMean`, [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::loss::{PoissonNllLossConfig, Reduction};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let loss = PoissonNllLossConfig::new().try_init()?;
    /// let x = Tensor::<2>::ones([2, 3], &device);
    /// assert_eq!(loss.try_forward(x.clone(), x.clone(), Reduction::Mean)?.dims(), [1]);
    /// let err = loss.try_forward(x.clone(), x.neg(), Reduction::Mean).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::OutOfRange);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, predictions: Tensor<D>, targets: Tensor<D>, reduction: Reduction) -> Tensor<1> => forward(..) [loss::reduction(&reduction), poisson(self, &predictions, &targets)];
    /// Fallible twin of [`PoissonNllLoss::forward_no_reduction`].
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward), without the reduction.
    fn try_forward_no_reduction<const D: usize>(&self, predictions: Tensor<D>, targets: Tensor<D>) -> Tensor<D> => forward_no_reduction(..) [poisson(self, &predictions, &targets)];
}

/// Twins of [`RNNTLoss::forward`] and [`RNNTLoss::forward_with_reduction`].
pub trait TryRNNTLoss for RNNTLoss = "rnnt_loss" {
    /// Fallible twin of [`RNNTLoss::forward`]: `logits [B, T, U + 1, V]`, `targets [B, U]`,
    /// `logit_lengths [B]`, `target_lengths [B]` → the per-sample loss `[B]`.
    ///
    /// Checks burn's asserts (the three shapes, `blank < V`), that the lattice has a first
    /// time step and a label (`T >= 1`, `U >= 1`), the devices, and by one
    /// synchronous read each of `targets`, `logit_lengths` and `target_lengths` (skipped
    /// inside [`value_reads::vouched`](crate::value_reads::vouched)) what burn gathers with:
    /// target ids in `0..V`, logit lengths in `1..=T`, target lengths in `0..=U`.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::Empty`](crate::GuardError::Empty),
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for the blank or a length,
    /// [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange) for a target id,
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch);
    /// [`GuardError::Unreadable`](crate::GuardError::Unreadable) if a burn release no longer
    /// prints the layer's private blank where it is read.
    ///
    /// ```
    /// use burn::nn::loss::RNNTLossConfig;
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let rnnt = RNNTLossConfig::new().init();
    /// let logits = Tensor::<4>::zeros([1, 3, 3, 4], &device);
    /// let targets = Tensor::<2, Int>::from_ints([[1, 2]], &device);
    /// let lengths = |n| Tensor::<1, Int>::from_ints([n], &device);
    /// assert_eq!(rnnt.try_forward(logits.clone(), targets.clone(), lengths(3), lengths(2))?.dims(), [1]);
    /// let err = rnnt.try_forward(logits, targets, lengths(4), lengths(2)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::OutOfRange);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, logits: Tensor<4>, targets: Tensor<2, Int>, logit_lengths: Tensor<1, Int>, target_lengths: Tensor<1, Int>) -> Tensor<1> => forward(..) [rnnt(self, &logits, (&targets, &logit_lengths, &target_lengths))];
    /// Fallible twin of [`RNNTLoss::forward_with_reduction`]: the loss reduced to `[1]`.
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward), and
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for `BatchMean`.
    fn try_forward_with_reduction(&self, logits: Tensor<4>, targets: Tensor<2, Int>, logit_lengths: Tensor<1, Int>, target_lengths: Tensor<1, Int>, reduction: Reduction) -> Tensor<1> => forward_with_reduction(..) [loss::reduction(&reduction), rnnt(self, &logits, (&targets, &logit_lengths, &target_lengths))];
}

/// Twins of [`TripletMarginLoss::forward`] and [`TripletMarginLoss::forward_no_reduction`].
pub trait TryTripletMarginLoss for TripletMarginLoss = "triplet_margin_loss" {
    /// Fallible twin of [`TripletMarginLoss::forward`]: `[batch, dim]` anchors, positives and
    /// negatives → the loss reduced to `[1]`.
    ///
    /// Checks that `anchor - positive` and `anchor - negative` broadcast, that their batch
    /// sizes do too (burn subtracts the two distances), the reduction and the devices.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for `BatchMean`,
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::loss::{Reduction, TripletMarginLossConfig};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let loss = TripletMarginLossConfig::new().init();
    /// let x = Tensor::<2>::ones([2, 3], &device);
    /// assert_eq!(loss.try_forward(x.clone(), x.clone(), x.clone(), Reduction::Mean)?.dims(), [1]);
    /// assert!(loss.try_forward(x.clone(), x, Tensor::ones([2, 4], &device), Reduction::Mean).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, anchor: Tensor<2>, positive: Tensor<2>, negative: Tensor<2>, reduction: Reduction) -> Tensor<1> => forward(..) [loss::reduction(&reduction), triplet(&anchor, &positive, &negative)];
    /// Fallible twin of [`TripletMarginLoss::forward_no_reduction`]: the per-triplet loss
    /// `[batch]`.
    ///
    /// # Errors
    ///
    /// As [`try_forward`](Self::try_forward), without the reduction.
    fn try_forward_no_reduction(&self, anchor: Tensor<2>, positive: Tensor<2>, negative: Tensor<2>) -> Tensor<1> => forward_no_reduction(..) [triplet(&anchor, &positive, &negative)];
}
}
