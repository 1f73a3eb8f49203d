//! Twins of the arithmetic operators and `matmul` of numeric tensors (float, int), from
//! burn-tensor's `src/tensor/api/numeric.rs`, and of `einsum` (its `api/einsum/`), the
//! contraction `matmul` generalises. The other methods of that file have their twins
//! by family (scalar ops in `elementwise.rs`, sums and means in `reduce.rs`, `eye` and
//! `random` in `creation.rs`, `tril` and `triu` in `indexing.rs`).

use burn::tensor::kind::{Basic, Numeric};
use burn::tensor::{DType, Device, Float, Tensor, TensorCreationOptions};

use super::output_fits;
use super::sealed::Sealed;
use super::twins;
use crate::check;
use crate::error::Result;
use crate::panic::catch;

twins! {
/// Fallible twins of `add`, `sub`, `mul`, `div` and `matmul` (burn's `api/numeric.rs`), and
/// of the associated function `einsum` (burn's `api/einsum/`):
/// `Tensor::<2>::try_einsum("ij,jk->ik", [a.into(), b.into()])?`.
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryNumeric<const D: usize, K: Numeric> for Tensor<D, K> {
    /// Fallible twin of [`Tensor::add`]: element-wise sum with broadcasting.
    ///
    /// The checks of every element-wise tensor–tensor twin (burn's `TensorCheck::binary_ops_ew`),
    /// in this order: each dimension is equal or 1 in one of the tensors
    /// ([`check::broadcast`](crate::check::broadcast)), both are on the same device, both have
    /// the same dtype ([`check::elementwise::same_dtype`](crate::check::elementwise::same_dtype));
    /// and, when the shapes differ, the broadcast output fits on the device (the byte rule).
    ///
    /// # Errors
    ///
    /// Of every element-wise tensor–tensor twin:
    ///
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with both shapes.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    /// - [`GuardError::DTypeMismatch`](crate::GuardError::DTypeMismatch) with both dtypes.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) /
    ///   [`GuardError::OutOfMemory`](crate::GuardError::OutOfMemory) for a broadcast output over
    ///   the device's largest buffer or the memory left for it.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryNumeric;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<2>::ones([2, 3], &device);
    /// assert_eq!(a.clone().try_add(Tensor::ones([1, 3], &device))?.dims(), [2, 3]);
    /// assert!(a.try_add(Tensor::ones([2, 2], &device)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "add")]
    fn try_add(self, other: Self) -> Self
    => add(other) [binary_ew(&self, &other, Output::Operands)];

    /// Fallible twin of [`Tensor::sub`]; the same checks as [`TryNumeric::try_add`].
    ///
    /// # Errors
    ///
    /// As [`TryNumeric::try_add`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryNumeric;
    ///
    /// let a = Tensor::<1>::ones([3], &Device::flex());
    /// assert_eq!(a.clone().try_sub(a)?.sum().into_scalar::<f32>(), 0.0);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "sub")]
    fn try_sub(self, other: Self) -> Self
    => sub(other) [binary_ew(&self, &other, Output::Operands)];

    /// Fallible twin of [`Tensor::mul`]; the same checks as [`TryNumeric::try_add`].
    ///
    /// # Errors
    ///
    /// As [`TryNumeric::try_add`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryNumeric;
    ///
    /// let a = Tensor::<1>::from_floats([2.0, 3.0], &Device::flex());
    /// assert_eq!(a.clone().try_mul(a)?.sum().into_scalar::<f32>(), 13.0);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "mul")]
    fn try_mul(self, other: Self) -> Self
    => mul(other) [binary_ew(&self, &other, Output::Operands)];

    /// Fallible twin of [`Tensor::div`]; the same checks as [`TryNumeric::try_add`]. On an
    /// integer tensor it also reads the divisor (one synchronous read; skipped inside
    /// [`value_reads::vouched`](crate::value_reads::vouched)) and refuses a zero element:
    /// Flex and NdArray panic on it (`attempt to divide by zero`).
    ///
    /// # Errors
    ///
    /// As [`TryNumeric::try_add`];
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for a zero integer divisor.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryNumeric;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<1>::from_floats([2.0, 3.0], &device);
    /// assert_eq!(a.clone().try_div(a)?.sum().into_scalar::<f32>(), 2.0);
    /// let i = Tensor::<1, Int>::from_ints([4, 6], &device);
    /// assert!(i.clone().try_div(Tensor::from_ints([2, 0], &device)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "div")]
    fn try_div(self, other: Self) -> Self
    => div(other) [binary_ew(&self, &other, Output::Operands), int_divisors(&other)];

    /// Fallible twin of [`Tensor::matmul`].
    ///
    /// Checks the device, a rank of at least 2, the inner dimensions (`lhs[.., k]`,
    /// `rhs[.., k, _]`) and that batch dimensions are equal or 1.
    ///
    /// When an operand has a zero-sized dimension, the product is built without a matmul
    /// kernel, on every backend: an empty tensor of the output shape, or zeros for
    /// `[.., m, 0] · [.., 0, n]` (an empty sum). burn 0.22.1 panics there on NdArray and
    /// returns an uninitialised buffer for `[m, 0] · [0, n]` on CubeCL (wgpu); Flex agrees
    /// with this result.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for rank < 2.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with both shapes.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's largest buffer, or whose size overflows.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryNumeric;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<2>::ones([2, 3], &device);
    /// assert_eq!(a.clone().try_matmul(Tensor::ones([3, 4], &device))?.dims(), [2, 4]);
    /// let err = a.try_matmul(Tensor::ones([4, 5], &device)).unwrap_err();
    /// assert_eq!(err.to_string(), "matmul: lhs columns must equal rhs rows; got [2, 3] and [4, 5]");
    ///
    /// // An empty inner dimension is an empty sum: zeros, on every backend.
    /// let zeros = Tensor::<2>::zeros([2, 0], &device).try_matmul(Tensor::zeros([0, 4], &device))?;
    /// assert_eq!(zeros.dims(), [2, 4]);
    /// assert_eq!(zeros.abs().sum().into_scalar::<f32>(), 0.0);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "matmul")]
    fn try_matmul(self, other: Self) -> Self => matmul {
        let shapes = matmul_shapes(OP, &self, &other)?;
        output_fits(OP, &shapes.out, self.dtype(), &shapes.device)?;
        if shapes.empty_operand {
            return catch(OP, || zero_sized_product(&self, shapes.out));
        }
        catch(OP, || self.matmul(other))
    }

    /// Fallible twin of [`Tensor::einsum`]: Einstein summation over `operands` by a runtime
    /// `equation` (explicit `"ij,jk->ik"` or implicit `"ij,jk"`, ellipses, repeated labels).
    ///
    /// Checks the equation and the operands by [`check::numeric::einsum`] (it parses, one
    /// operand per subscript of the rank it names, one dtype and not quantized, repeated labels
    /// of equal size, every label's sizes equal or 1 across operands, the output rank `D`),
    /// that the operands share a device, and that the output fits on it; then runs burn's
    /// `einsum`: the values are burn's.
    ///
    /// # Errors
    ///
    /// - As [`check::numeric::einsum`].
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch) for operands on
    ///   different devices.
    /// - [`GuardError::TooLarge`](crate::GuardError::TooLarge) for an output over the device's
    ///   largest buffer.
    /// - [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics anyway.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryNumeric;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<2>::ones([2, 3], &device);
    /// let b = Tensor::<2>::ones([3, 5], &device);
    /// let c = Tensor::<2>::try_einsum("ij,jk->ik", [(&a).into(), b.into()])?;
    /// assert_eq!(c.dims(), [2, 5]);
    ///
    /// // burn panics "incompatible broadcast dimensions for label 'j'".
    /// let err = Tensor::<2>::try_einsum("ij,jk->ik", [a.into(), Tensor::<2>::ones([4, 5], &device).into()])
    ///     .unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "einsum: every label's sizes must agree across operands, or be 1; got label 'j': operand 0 has size 3, operand 1 has size 4"
    /// );
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "einsum")]
    fn try_einsum(
        equation: &str,
        operands: impl IntoIterator<Item = EinsumOperand<K>>,
    ) -> Self => einsum {
        let operands: Vec<EinsumOperand<K>> = operands.into_iter().collect();
        let shapes: Vec<check::numeric::EinsumOperand<'_>> = operands
            .iter()
            .map(|o| check::numeric::EinsumOperand {
                shape: &o.shape,
                dtype: o.dtype,
            })
            .collect();
        let out = check::numeric::einsum(OP, equation, &shapes, D)?;
        let devices: Vec<Device> = operands.iter().map(|o| o.device.clone()).collect();
        super::same_devices(OP, &devices)?;
        if let Some(first) = operands.first() {
            crate::capability::require_fits(OP, &out, first.dtype, &first.device)?;
        }
        catch(OP, || {
            Tensor::einsum(equation, operands.into_iter().map(|o| o.operand))
        })
    }
}
}

/// What an element-wise binary operation's output holds, for the byte rule: the operands'
/// dtype, or the device's bool dtype (a comparison).
#[derive(Clone, Copy)]
pub(super) enum Output {
    Operands,
    Bool,
}

/// The checks of every element-wise binary twin (burn's `TensorCheck::binary_ops_ew`), in one
/// order: shapes that broadcast, same device, same dtype; and, when the shapes differ, the byte
/// rule on the broadcast output (`[n, 1] + [1, n]` allocates `n²` elements from `2n`), in the
/// dtype `output` names (a quantized operand's result counted as float,
/// [`check::bytes::output_dtype`]). Equal shapes give an output no larger than an operand
/// that already exists, so the common case computes no output shape.
#[inline]
pub(super) fn binary_ew<const D: usize, K: Basic>(
    op: &'static str,
    lhs: &Tensor<D, K>,
    rhs: &Tensor<D, K>,
    output: Output,
) -> Result<()> {
    let (lhs_dims, rhs_dims) = (lhs.dims(), rhs.dims());
    let out = if lhs_dims == rhs_dims {
        None
    } else {
        Some(check::broadcast(op, &lhs_dims, &rhs_dims)?)
    };
    let device = lhs.device();
    crate::capability::same_device(op, &device, &rhs.device())?;
    let dtype = lhs.dtype();
    check::elementwise::same_dtype(op, dtype, rhs.dtype())?;
    let Some(out) = out else {
        return Ok(());
    };
    let dtype = match output {
        Output::Operands => check::bytes::output_dtype(dtype),
        Output::Bool => device.settings().bool_dtype.into(),
    };
    crate::capability::require_fits(op, &out, dtype, &device).map(drop)
}

/// An integer divisor (of `div`, `remainder`) has no zero element: Flex and NdArray panic on
/// one (`attempt to divide by zero`). One synchronous read of `divisor`, skipped inside
/// [`value_reads::vouched`](crate::value_reads::vouched); a float divisor is not read.
pub(super) fn int_divisors<const D: usize, K: Basic>(
    op: &'static str,
    divisor: &Tensor<D, K>,
) -> Result<()> {
    let dtype = divisor.dtype();
    if dtype.is_int() || dtype.is_uint() {
        let divisors = super::base::read_indices(op, divisor)?;
        check::elementwise::nonzero_divisors(op, &divisors, &dtype)?;
    }
    Ok(())
}

/// What the checks of a `matmul` proved: the output shape, the operands' device, and whether
/// an operand has no elements.
pub(super) struct MatmulShapes {
    pub(super) out: Vec<usize>,
    pub(super) device: Device,
    pub(super) empty_operand: bool,
}

/// The checks of every `matmul` twin, in one order: same device, then the shapes
/// ([`check::matmul`]).
#[inline]
pub(super) fn matmul_shapes<const D: usize, K: Numeric>(
    op: &'static str,
    lhs: &Tensor<D, K>,
    rhs: &Tensor<D, K>,
) -> Result<MatmulShapes> {
    let device = lhs.device();
    crate::capability::same_device(op, &device, &rhs.device())?;
    let (lhs, rhs) = (lhs.dims(), rhs.dims());
    let out = check::matmul(op, &lhs, &rhs)?;
    Ok(MatmulShapes {
        out,
        device,
        empty_operand: lhs.contains(&0) || rhs.contains(&0),
    })
}

/// The product of operands of which one has no elements, built without a matmul kernel: an
/// empty tensor of the output shape `out` (from [`check::matmul`]), or zeros when only the
/// inner dimension `k` is zero (an empty sum). burn 0.22.1 disagrees across backends here:
/// NdArray panics on every such shape, and CubeCL's matmul returns its uninitialised output
/// buffer for `[m, 0] · [0, n]` (and a kernel panic on wgpu would happen on the fusion worker
/// thread, where it poisons the device). The backend-level `q_matmul` answers the same way.
pub(super) fn zero_sized_product<const D: usize, K: Numeric>(
    lhs_tensor: &Tensor<D, K>,
    out: Vec<usize>,
) -> Tensor<D, K> {
    let device = lhs_tensor.device();
    let options = match lhs_tensor.dtype() {
        DType::QFloat(_) => TensorCreationOptions::new(device),
        dtype => TensorCreationOptions::new(device).with_dtype(dtype),
    };
    if out.contains(&0) {
        Tensor::empty(out, options)
    } else {
        Tensor::zeros(out, options)
    }
}

/// An operand of [`TryNumeric::try_einsum`]: a tensor of any rank, built with `.into()` from a
/// `Tensor<D, K>` (or `&Tensor<D, K>`), as burn's `EinsumOperand` is.
///
/// burn's own operand keeps its tensor private, so nothing outside burn can read its shape
/// before the call; this one keeps the shape, dtype and device beside it.
#[derive(Clone, Debug)]
pub struct EinsumOperand<K: Numeric = Float> {
    shape: Vec<usize>,
    dtype: DType,
    device: Device,
    operand: burn::tensor::EinsumOperand<K>,
}

impl<const D: usize, K: Numeric> From<Tensor<D, K>> for EinsumOperand<K> {
    fn from(tensor: Tensor<D, K>) -> Self {
        Self {
            shape: tensor.dims().to_vec(),
            dtype: tensor.dtype(),
            device: tensor.device(),
            operand: tensor.into(),
        }
    }
}

impl<const D: usize, K: Numeric> From<&Tensor<D, K>> for EinsumOperand<K> {
    fn from(tensor: &Tensor<D, K>) -> Self {
        tensor.clone().into()
    }
}
