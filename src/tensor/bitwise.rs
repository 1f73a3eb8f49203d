//! Twins of the bitwise ops of Int tensors (burn's `api/int.rs`) and of the logic ops and
//! index queries of Bool tensors (burn's `api/bool.rs`: `bool_and`, `bool_or`, `bool_xor`,
//! `bool_not`, `nonzero`, `argwhere`). Their shared bodies are in `elementwise.rs`.
//!
//! burn runs no check for these (no `binary_ops_ew`); the backends panic on shapes that do not
//! broadcast, and NdArray on different int dtypes, so the tensor–tensor ones check what every
//! element-wise tensor–tensor twin checks ([`TryNumeric::try_add`](super::TryNumeric::try_add)).

use burn::tensor::{Bool, ElementConversion, Int, Tensor};

use super::elementwise::{empty_bool, scalar, scalar_doc, unless_empty};
use super::numeric::{Output, binary_ew};
use super::sealed::Sealed;
use super::twins;
use crate::check;
use crate::error::Result;
use crate::panic::catch;

/// Shift amounts inside `0..bits` of `tensor`'s dtype, read from `amounts` (one synchronous
/// read; skipped inside [`value_reads::vouched`](crate::value_reads::vouched)): NdArray
/// panics on another, Flex wraps.
fn shift_amounts<const D: usize>(
    op: &'static str,
    tensor: &Tensor<D, Int>,
    amounts: &Tensor<D, Int>,
) -> Result<()> {
    let amounts = super::base::read_indices(op, amounts)?;
    check::elementwise::shift_amounts(op, &amounts, &tensor.dtype())
}

/// Documents one bitwise scalar twin, a `twins!` row's doc template: it takes the row's
/// signature and puts its docs on it.
macro_rules! bitwise_doc {
    ($alias:literal, SHIFT_NOTE; $($sig:tt)*) => {
        bitwise_doc! {
            $alias,
            "Beyond burn, refuses a shift amount outside `0..bits` of the dtype (NdArray panics, \
             Flex wraps); see \
             [`check::elementwise::shift_amount`](crate::check::elementwise::shift_amount).";
            $($sig)*
        }
    };
    ($alias:literal, $note:literal; $($sig:tt)*) => {
        scalar_doc! { in "TryElementwiseInt"; $alias, $note; $($sig)* }
    };
}

/// Documents one int tensor–tensor twin; burn checks nothing for these (no
/// `binary_ops_ew`), the backends panic.
macro_rules! int_binary_doc {
    ($alias:literal, SHIFT_NOTE; $($sig:tt)*) => {
        int_binary_doc! {
            $alias,
            "\n\nBeyond burn, reads the amounts (one synchronous read; skipped inside \
             [`value_reads::vouched`](crate::value_reads::vouched)) and refuses one outside \
             `0..bits` of the dtype: NdArray panics on it, Flex wraps. See \
             [`check::elementwise::shift_amounts`](crate::check::elementwise::shift_amounts).";
            $($sig)*
        }
    };
    ($alias:literal, $note:literal; $($sig:tt)*) => {
        #[doc = concat!("Fallible twin of [`Tensor::", $alias, "`].")]
        #[doc = ""]
        #[doc = "burn runs no check here (no `binary_ops_ew`); the backends panic on shapes"]
        #[doc = "that do not broadcast (Flex, NdArray) and on different int dtypes (NdArray)."]
        #[doc = "Checks what every element-wise tensor–tensor twin checks: see"]
        #[doc = "[`TryNumeric::try_add`](crate::tensor::TryNumeric::try_add)."]
        #[doc = $note]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = "- Those of [`TryNumeric::try_add`](crate::tensor::TryNumeric::try_add)."]
        #[doc = "- [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a shift amount (shifts only)."]
        #[doc = ""]
        #[doc = "```"]
        #[doc = "use burn::tensor::{Device, Int, Tensor};"]
        #[doc = "use burn_guard::tensor::TryElementwiseInt;"]
        #[doc = ""]
        #[doc = "let device = Device::flex();"]
        #[doc = "let a = Tensor::<2, Int>::ones([2, 3], &device);"]
        #[doc = "let b = Tensor::<2, Int>::ones([1, 3], &device);"]
        #[doc = concat!("assert_eq!(a.clone().try_", $alias, "(b)?.dims(), [2, 3]);")]
        #[doc = "let c = Tensor::<2, Int>::ones([2, 2], &device);"]
        #[doc = concat!("assert!(a.try_", $alias, "(c).is_err());")]
        #[doc = "# Ok::<(), burn_guard::GuardError>(())"]
        #[doc = "```"]
        #[doc(alias = $alias)]
        $($sig)*
    };
}

/// Documents one bool twin.
macro_rules! bool_doc {
    ($alias:literal; $($sig:tt)*) => {
        #[doc = concat!("Fallible twin of [`Tensor::", $alias, "`].")]
        #[doc = ""]
        #[doc = "burn runs no check here (no `binary_ops_ew`); Flex and NdArray panic on shapes"]
        #[doc = "that do not broadcast. Checks what every element-wise tensor–tensor twin checks:"]
        #[doc = "see [`TryNumeric::try_add`](crate::tensor::TryNumeric::try_add)."]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = "Those of [`TryNumeric::try_add`](crate::tensor::TryNumeric::try_add)."]
        #[doc = ""]
        #[doc = "```"]
        #[doc = "use burn::tensor::{Bool, Device, Tensor};"]
        #[doc = "use burn_guard::tensor::TryElementwiseBool;"]
        #[doc = ""]
        #[doc = "let device = Device::flex();"]
        #[doc = "let a = Tensor::<2, Bool>::from_data([[true, false, true], [false, true, true]], &device);"]
        #[doc = "let b = Tensor::<2, Bool>::from_data([[true, false, false]], &device);"]
        #[doc = concat!("assert_eq!(a.clone().try_", $alias, "(b)?.dims(), [2, 3]);")]
        #[doc = "let c = Tensor::<2, Bool>::from_data([[true, false], [true, true]], &device);"]
        #[doc = concat!("assert!(a.try_", $alias, "(c).is_err());")]
        #[doc = "# Ok::<(), burn_guard::GuardError>(())"]
        #[doc = "```"]
        #[doc(alias = $alias)]
        $($sig)*
    };
}

twins! {
/// Fallible twins of the element-wise `burn::Tensor` methods of integer tensors only.
///
/// Sealed: implemented for `burn::Tensor<D, Int>` only.
pub trait TryElementwiseInt<const D: usize> for Tensor<D, Int> {
    int_binary_doc!("bitwise_and", "")
    fn try_bitwise_and(self, other: Self) -> Self
    => bitwise_and(other) [binary_ew(&self, &other, Output::Operands)];

    int_binary_doc!("bitwise_or", "")
    fn try_bitwise_or(self, other: Self) -> Self
    => bitwise_or(other) [binary_ew(&self, &other, Output::Operands)];

    int_binary_doc!("bitwise_xor", "")
    fn try_bitwise_xor(self, other: Self) -> Self
    => bitwise_xor(other) [binary_ew(&self, &other, Output::Operands)];

    int_binary_doc!("bitwise_left_shift", SHIFT_NOTE)
    fn try_bitwise_left_shift(self, other: Self) -> Self
    => bitwise_left_shift(other) [
        binary_ew(&self, &other, Output::Operands),
        shift_amounts(&self, &other)
    ];

    int_binary_doc!("bitwise_right_shift", SHIFT_NOTE)
    fn try_bitwise_right_shift(self, other: Self) -> Self
    => bitwise_right_shift(other) [
        binary_ew(&self, &other, Output::Operands),
        shift_amounts(&self, &other)
    ];

    bitwise_doc!("bitwise_and_scalar", "")
    fn try_bitwise_and_scalar(self, other: impl ElementConversion) -> Self
    => bitwise_and_scalar { scalar!(self.bitwise_and_scalar(other)) }

    bitwise_doc!("bitwise_or_scalar", "")
    fn try_bitwise_or_scalar(self, other: impl ElementConversion) -> Self
    => bitwise_or_scalar { scalar!(self.bitwise_or_scalar(other)) }

    bitwise_doc!("bitwise_xor_scalar", "")
    fn try_bitwise_xor_scalar(self, other: impl ElementConversion) -> Self
    => bitwise_xor_scalar { scalar!(self.bitwise_xor_scalar(other)) }

    bitwise_doc!("bitwise_left_shift_scalar", SHIFT_NOTE)
    fn try_bitwise_left_shift_scalar(self, other: impl ElementConversion) -> Self
    => bitwise_left_shift_scalar {
        scalar!(self.bitwise_left_shift_scalar(other), check::elementwise::shift_amount)
    }

    bitwise_doc!("bitwise_right_shift_scalar", SHIFT_NOTE)
    fn try_bitwise_right_shift_scalar(self, other: impl ElementConversion) -> Self
    => bitwise_right_shift_scalar {
        scalar!(self.bitwise_right_shift_scalar(other), check::elementwise::shift_amount)
    }
}
}

twins! {
/// Fallible twins of the logical operations of boolean tensors and of the index queries
/// `nonzero` and `argwhere` (burn's `api/bool.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, Bool>` only.
pub trait TryElementwiseBool<const D: usize> for Tensor<D, Bool> {
    bool_doc!("bool_and")
    fn try_bool_and(self, rhs: Self) -> Self
    => bool_and(rhs) [binary_ew(&self, &rhs, Output::Operands)];

    bool_doc!("bool_or")
    fn try_bool_or(self, rhs: Self) -> Self
    => bool_or(rhs) [binary_ew(&self, &rhs, Output::Operands)];

    bool_doc!("bool_xor")
    fn try_bool_xor(self, rhs: Self) -> Self
    => bool_xor(rhs) [binary_ew(&self, &rhs, Output::Operands)];

    /// Fallible twin of [`Tensor::bool_not`].
    ///
    /// burn checks nothing here. Beyond burn, an input with no element (a dimension is 0) is
    /// answered without dispatching: an empty bool tensor of the same shape, burn's result on
    /// Flex and NdArray. wgpu's `bool_not` kernel panics on a `[0, n]` input, and a kernel
    /// panic poisons the wgpu device for the rest of the process. See
    /// [`check::shape::no_elements`](crate::check::shape::no_elements).
    ///
    /// # Errors
    ///
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics on a
    /// non-empty input (none is known).
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseBool;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1, Bool>::from_bool([true, false], &device);
    /// assert_eq!(t.try_bool_not()?.into_data().to_vec::<bool>().unwrap(), [false, true]);
    /// assert_eq!(Tensor::<2, Bool>::empty([0, 3], &device).try_bool_not()?.dims(), [0, 3]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "bool_not")]
    fn try_bool_not(self) -> Self => bool_not { unless_empty!(empty_bool, self.bool_not()) }

    /// Fallible twin of [`Tensor::nonzero`]: one index tensor per dimension, or none when no
    /// element is true (burn returns an empty `Vec` then).
    ///
    /// burn checks nothing here; it reads the indices back synchronously. Beyond burn, an
    /// input with no element (a dimension is 0) is answered without dispatching: an empty
    /// `Vec`, burn's result on Flex and NdArray. On wgpu a kernel panic poisons the device
    /// for the rest of the process, and wgpu's kernels panic on several ops of a `[0, n]`
    /// input, so the empty answer, which needs no kernel, is built here on every backend.
    /// See [`check::shape::no_elements`](crate::check::shape::no_elements).
    ///
    /// # Errors
    ///
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics on a
    /// non-empty input (the synchronous read failing, for one).
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseBool;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2, Bool>::from_bool([[true, false], [false, true]], &device);
    /// let indices = t.try_nonzero()?;
    /// assert_eq!(indices.len(), 2);
    /// assert_eq!(indices[0].clone().into_data().convert::<i64>().to_vec::<i64>().unwrap(), [0, 1]);
    /// assert!(Tensor::<2, Bool>::empty([0, 3], &device).try_nonzero()?.is_empty());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "nonzero")]
    fn try_nonzero(self) -> Vec<Tensor<1, Int>> => nonzero {
        if check::shape::no_elements(&self.dims()) {
            return Ok(Vec::new());
        }
        catch(OP, || self.nonzero())
    }

    /// Fallible twin of [`Tensor::argwhere`]: the indices of the true elements, one row each.
    ///
    /// burn checks nothing here; it reads the indices back synchronously. Beyond burn, an
    /// input with no element (a dimension is 0) is answered without dispatching: an int
    /// tensor of shape `[0, D]` in the device's default int dtype, burn's result on Flex and
    /// NdArray. On wgpu a kernel panic poisons the device for the rest of the process, and
    /// wgpu's kernels panic on several ops of a `[0, n]` input, so the empty answer, which
    /// needs no kernel, is built here on every backend. See
    /// [`check::shape::no_elements`](crate::check::shape::no_elements).
    ///
    /// # Errors
    ///
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics on a
    /// non-empty input (the synchronous read failing, for one).
    ///
    /// ```
    /// use burn::tensor::{Bool, Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseBool;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2, Bool>::from_bool([[true, false], [false, true]], &device);
    /// assert_eq!(t.try_argwhere()?.dims(), [2, 2]);
    /// assert_eq!(Tensor::<2, Bool>::empty([0, 3], &device).try_argwhere()?.dims(), [0, 2]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "argwhere")]
    fn try_argwhere(self) -> Tensor<2, Int> => argwhere {
        if check::shape::no_elements(&self.dims()) {
            let device = self.device();
            // `Int` without a dtype is the device's default int dtype, the one burn's
            // `argwhere` writes its indices in.
            return catch(OP, || Tensor::<2, Int>::zeros([0, D], &device));
        }
        catch(OP, || self.argwhere())
    }
}
}
