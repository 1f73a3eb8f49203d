//! Twin of `burn::tensor::module::ctc_loss`.

use burn::tensor::module as burn_module;
use burn::tensor::{Int, Tensor};

use super::base::read_indices;
use crate::check::loss;
use crate::error::Result;
use crate::panic::catch;

/// Fallible twin of [`burn_module::ctc_loss`]: per-sample CTC loss `[N]` of `log_probs
/// [T, N, C]` against `targets [N, S]`.
///
/// burn's function checks nothing and leaves every precondition to the backend. Checked here
/// before dispatch: the batch `N` of `targets`, `input_lengths` and `target_lengths` (beyond
/// burn: Flex computes with some mismatched batches, rule `must share log_probs' batch N`);
/// `blank < C`; `T >= 1` (the recursion slices its first step); all four tensors on one
/// device. Then, by one synchronous read each of `targets`, `target_lengths` and
/// `input_lengths` (counted in [`value_reads`](crate::value_reads), skipped inside
/// [`value_reads::vouched`](crate::value_reads::vouched)): every target id in `0..C`,
/// padding included (the backend gathers the whole `targets` tensor), every target length
/// in `0..=S` (it gathers at `2 * target_length`), and every input length in `0..=T` (beyond
/// burn on the CPU backends, which compute a number; the GPU kernel reads `log_probs` out of
/// bounds: rule `each input length must be in 0..=T`).
///
/// # Errors
///
/// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for a batch mismatch.
/// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for the blank index or a
///   target length.
/// - [`GuardError::IndexOutOfRange`](crate::GuardError::IndexOutOfRange) for a target id.
/// - [`GuardError::Empty`](crate::GuardError::Empty) for `T = 0`.
/// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
///
/// ```
/// use burn::tensor::{Device, Int, Tensor};
/// use burn_guard::tensor::module::try_ctc_loss;
///
/// let device = Device::flex();
/// let log_probs = Tensor::<3>::zeros([4, 1, 3], &device);
/// let targets = Tensor::<2, Int>::from_ints([[1, 2]], &device);
/// let lengths = |n| Tensor::<1, Int>::from_ints([n], &device);
/// let loss = try_ctc_loss(log_probs.clone(), targets.clone(), lengths(4), lengths(2), 0)?;
/// assert_eq!(loss.dims(), [1]);
/// // A target length beyond the targets' width.
/// assert!(try_ctc_loss(log_probs, targets, lengths(4), lengths(3), 0).is_err());
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[doc(alias = "ctc_loss")]
pub fn try_ctc_loss(
    log_probs: Tensor<3>,
    targets: Tensor<2, Int>,
    input_lengths: Tensor<1, Int>,
    target_lengths: Tensor<1, Int>,
    blank: usize,
) -> Result<Tensor<1>> {
    const OP: &str = "ctc_loss";
    check_ctc(
        OP,
        &log_probs,
        &targets,
        &input_lengths,
        &target_lengths,
        blank,
    )?;
    catch(OP, || {
        burn_module::ctc_loss(log_probs, targets, input_lengths, target_lengths, blank)
    })
}

/// The checks of [`try_ctc_loss`], for the `CTCLoss` twin too. Returns the input and target
/// lengths it read (empty inside [`value_reads::vouched`](crate::value_reads::vouched)).
pub(crate) fn check_ctc(
    op: &'static str,
    log_probs: &Tensor<3>,
    targets: &Tensor<2, Int>,
    input_lengths: &Tensor<1, Int>,
    target_lengths: &Tensor<1, Int>,
    blank: usize,
) -> Result<(Vec<i64>, Vec<i64>)> {
    let [time, _, classes] = log_probs.dims();
    let [_, width] = targets.dims();
    loss::ctc(
        op,
        &log_probs.dims(),
        &targets.dims(),
        &input_lengths.dims(),
        &target_lengths.dims(),
        blank,
    )?;
    let device = log_probs.device();
    for other in [
        targets.device(),
        input_lengths.device(),
        target_lengths.device(),
    ] {
        crate::capability::same_device(op, &device, &other)?;
    }
    loss::class_ids(op, &read_indices(op, targets)?, classes, 2)?;
    let target_values = read_indices(op, target_lengths)?;
    loss::ctc_target_lengths(op, &target_values, width)?;
    let input_values = read_indices(op, input_lengths)?;
    loss::ctc_input_lengths(op, &input_values, time)?;
    Ok((input_values, target_values))
}
