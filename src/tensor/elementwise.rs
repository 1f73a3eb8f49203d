//! Twins of the element-wise family of every kind: comparisons, pairwise max/min, powers,
//! remainders, atan2, clamps, `bool`, `dot`, and every scalar op (class S); the bodies and docs
//! the element-wise files share. Float-only ops are in `float.rs`, Int and Bool ones in
//! `bitwise.rs`.
//!
//! Tensor–tensor operations check what burn's `TensorCheck::binary_ops_ew` checks
//! (broadcastable shapes, one device, one dtype), and the byte rule on a broadcast output, in
//! the one function of the arithmetic operators (`numeric.rs`), which holds that rule's error
//! list. Scalar operations check that the scalar is
//! representable in the tensor's dtype with
//! [`check::elementwise::scalar`](crate::check::elementwise::scalar), then hand burn the
//! scalar already widened to its family (`f64`, `i64`, `u64`, `bool`), which burn converts
//! to exactly the same value as the caller's.

use burn::tensor::kind::{Basic, FloatMath, Numeric, Ordered};
use burn::tensor::{Bool, DType, Element, ElementConversion, Tensor};

use super::numeric::{Output, binary_ew, int_divisors};
use super::sealed::Sealed;
use super::twins;
use crate::check;
use crate::check::elementwise::ScalarValue;
use crate::error::{GuardError, Result};
use crate::panic::catch;

/// Runs `$body` with `$x` bound to the native value of a [`ScalarValue`].
macro_rules! with_scalar {
    ($value:expr, $x:ident => $body:expr) => {
        match $value {
            $crate::check::elementwise::ScalarValue::Float($x) => $body,
            $crate::check::elementwise::ScalarValue::Int($x) => $body,
            $crate::check::elementwise::ScalarValue::UInt($x) => $body,
            $crate::check::elementwise::ScalarValue::Bool($x) => $body,
        }
    };
}

/// The caller's scalar, checked against `dtype` (see [`check::elementwise::scalar`]).
pub(super) fn scalar_arg<E: ElementConversion>(
    op: &'static str,
    value: E,
    dtype: &DType,
) -> Result<ScalarValue> {
    check::elementwise::scalar(op, super::convert::scalar(op, value)?, dtype)
}

/// burn's result of a float-to-float element-wise op on an input with no element: an empty
/// tensor of the same shape and dtype on the same device, built without a kernel. A quantized
/// dtype cannot be created directly; the device's default float dtype stands for it, as in
/// burn's own short-cuts (`Tensor::creation_dtype`).
pub(super) fn empty_float<const D: usize>(op: &'static str, like: &Tensor<D>) -> Result<Tensor<D>> {
    let (dims, device, dtype) = (like.dims(), like.device(), like.dtype());
    catch(op, || {
        if dtype.is_float() {
            Tensor::<D>::zeros(dims, (&device, dtype))
        } else {
            Tensor::<D>::zeros(dims, &device)
        }
    })
}

/// burn's result of an element-wise op with a bool output on an input with no element: an
/// empty bool tensor of the same shape on the same device, built without a kernel.
pub(super) fn empty_bool<const D: usize, K: Basic>(
    op: &'static str,
    like: &Tensor<D, K>,
) -> Result<Tensor<D, Bool>> {
    let (dims, device) = (like.dims(), like.device());
    catch(op, || Tensor::<D, Bool>::full(dims, false, &device))
}

/// The body of a scalar twin: the scalar widened and checked against the tensor's dtype, the
/// rule of the value if any (`rule(OP, value, &dtype)`), then burn's method with the native
/// value: `scalar!(self.add_scalar(other))`.
macro_rules! scalar {
    ($this:ident.$burn:ident($value:ident) $(, $rule:path)?) => {{
        let dtype = $this.dtype();
        let value = $crate::tensor::elementwise::scalar_arg(OP, $value, &dtype)?;
        $($rule(OP, value, &dtype)?;)?
        $crate::tensor::elementwise::with_scalar!(value, x => {
            $crate::panic::catch(OP, || $this.$burn(x))
        })
    }};
}

/// The body of a scalar comparison twin: the scalar widened and checked; an input with no
/// element is answered with an empty bool tensor without a kernel (wgpu's `not_equal_scalar`
/// kernel panics on a `[0, n]` input and poisons the device; the other comparisons share the
/// rule), else burn's method.
macro_rules! scalar_compare {
    ($this:ident.$burn:ident($value:ident)) => {{
        let value = $crate::tensor::elementwise::scalar_arg(OP, $value, &$this.dtype())?;
        if $crate::check::shape::no_elements(&$this.dims()) {
            return $crate::tensor::elementwise::empty_bool(OP, &$this);
        }
        $crate::tensor::elementwise::with_scalar!(value, x => {
            $crate::panic::catch(OP, || $this.$burn(x))
        })
    }};
}

/// The body of a twin burn checks nothing for: an input with no element (a dimension is 0)
/// is answered without a kernel by `$empty` (burn's result on Flex and NdArray; wgpu's kernels
/// panic on a `[0, n]` input, and a kernel panic poisons the device), else burn's method.
macro_rules! unless_empty {
    ($empty:ident, $this:ident.$burn:ident($($arg:expr),*)) => {{
        if $crate::check::shape::no_elements(&$this.dims()) {
            return $empty(OP, &$this);
        }
        $crate::panic::catch(OP, || $this.$burn($($arg),*))
    }};
}

pub(super) use {scalar, unless_empty, with_scalar};

/// Documents one scalar twin, a `twins!` row's doc template: it takes the row's signature
/// (where `fn try_<name>` appears literally) and puts its docs on it.
macro_rules! scalar_doc {
    ($alias:literal, OVERFLOW; $($sig:tt)*) => {
        scalar_doc! {
            $alias,
            "An element overflowing in the backend's integer arithmetic (checked in debug builds) \
             depends on the values and is not checked: the panic backstop returns it as \
             `GuardError::BackendPanic`.";
            $($sig)*
        }
    };
    ($alias:literal, ZERO_DIVISOR; $($sig:tt)*) => {
        scalar_doc! {
            $alias,
            "Beyond burn, refuses a zero divisor on an integer tensor (the backend panics); see \
             [`check::elementwise::nonzero_divisor`](crate::check::elementwise::nonzero_divisor).";
            $($sig)*
        }
    };
    ($alias:literal, $note:literal; $($sig:tt)*) => {
        scalar_doc! { in "TryElementwise"; $alias, $note; $($sig)* }
    };
    (in $trait:literal; $alias:literal, $note:literal; $($sig:tt)*) => {
        #[doc = concat!("Fallible twin of [`Tensor::", $alias, "`].")]
        #[doc = ""]
        #[doc = "Checks that the scalar is representable in the tensor's dtype, as burn's"]
        #[doc = "`Scalar::new` requires (NaN, ±inf or an out-of-range value on an integer"]
        #[doc = "tensor panic there), and beyond burn that it fits the tensor's own integer"]
        #[doc = "dtype (NdArray and wgpu panic; Flex wraps it and answers wrongly). See"]
        #[doc = "[`check::elementwise::scalar`](crate::check::elementwise::scalar)."]
        #[doc = $note]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = "[`GuardError::NotRepresentable`](crate::GuardError::NotRepresentable) with the"]
        #[doc = "scalar and the dtype; [`GuardError::OutOfRange`](crate::GuardError::OutOfRange)"]
        #[doc = "for a zero divisor or a shift amount outside `0..bits` (see the note)."]
        #[doc = ""]
        #[doc = "```"]
        #[doc = "use burn::tensor::{Device, Int, Tensor};"]
        #[doc = concat!("use burn_guard::tensor::", $trait, ";")]
        #[doc = ""]
        #[doc = "let t = Tensor::<1, Int>::from_ints([1, 2, 3], &Device::flex());"]
        #[doc = concat!("assert_eq!(t.clone().try_", $alias, "(2)?.dims(), [3]);")]
        #[doc = concat!("assert!(t.try_", $alias, "(f32::NAN).is_err());")]
        #[doc = "# Ok::<(), burn_guard::GuardError>(())"]
        #[doc = "```"]
        #[doc(alias = $alias)]
        $($sig)*
    };
}

/// Documents one tensor–tensor twin checked like `binary_ops_ew`, a `twins!` row's doc
/// template (here and in `float.rs`).
macro_rules! binary_doc {
    ($alias:literal, $note:literal, $kind:literal, $ctor:literal; $($sig:tt)*) => {
        binary_doc! { in "TryElementwise"; $alias, $note, $kind, $ctor; $($sig)* }
    };
    (in $trait:literal; $alias:literal, $note:literal, $kind:literal, $ctor:literal; $($sig:tt)*) => {
        #[doc = concat!("Fallible twin of [`Tensor::", $alias, "`].")]
        #[doc = ""]
        #[doc = "Checks what every element-wise tensor–tensor twin checks (burn's"]
        #[doc = "`TensorCheck::binary_ops_ew`: broadcastable shapes, one device, one dtype; the"]
        #[doc = "byte rule on a broadcast output): see [`TryNumeric::try_add`](crate::tensor::TryNumeric::try_add)."]
        #[doc = $note]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = "Those of [`TryNumeric::try_add`](crate::tensor::TryNumeric::try_add)."]
        #[doc = ""]
        #[doc = "```"]
        #[doc = concat!("use burn::tensor::{Device, ", $kind, "Tensor};")]
        #[doc = concat!("use burn_guard::tensor::", $trait, ";")]
        #[doc = ""]
        #[doc = "let device = Device::flex();"]
        #[doc = concat!("let a = Tensor::<2, ", $kind, ">::", $ctor, "([2, 3], &device);")]
        #[doc = concat!("let b = Tensor::<2, ", $kind, ">::", $ctor, "([1, 3], &device);")]
        #[doc = concat!("assert_eq!(a.clone().try_", $alias, "(b)?.dims(), [2, 3]);")]
        #[doc = concat!("let c = Tensor::<2, ", $kind, ">::", $ctor, "([2, 2], &device);")]
        #[doc = concat!("assert!(a.try_", $alias, "(c).is_err());")]
        #[doc = "# Ok::<(), burn_guard::GuardError>(())"]
        #[doc = "```"]
        #[doc(alias = $alias)]
        $($sig)*
    };
}

pub(super) use {binary_doc, scalar_doc};

twins! {
/// Fallible twins of the element-wise `burn::Tensor` methods of every kind: comparisons,
/// scalar arithmetic, powers, remainders, pairwise max/min and clamps (each method bounded
/// by the kind burn's own method needs: `Numeric`, `Ordered` or `FloatMath`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryElementwise<const D: usize, K: Basic> for Tensor<D, K> {
    binary_doc!("equal", "", "", "ones")
    fn try_equal(self, other: Self) -> Tensor<D, Bool> where K: Basic
    => equal(other) [binary_ew(&self, &other, Output::Bool)];

    binary_doc!("not_equal", "", "", "ones")
    fn try_not_equal(self, other: Self) -> Tensor<D, Bool> where K: Basic
    => not_equal(other) [binary_ew(&self, &other, Output::Bool)];

    binary_doc!("greater", "", "", "ones")
    fn try_greater(self, other: Self) -> Tensor<D, Bool> where K: Ordered
    => greater(other) [binary_ew(&self, &other, Output::Bool)];

    binary_doc!("greater_equal", "", "", "ones")
    fn try_greater_equal(self, other: Self) -> Tensor<D, Bool> where K: Ordered
    => greater_equal(other) [binary_ew(&self, &other, Output::Bool)];

    binary_doc!("lower", "", "", "ones")
    fn try_lower(self, other: Self) -> Tensor<D, Bool> where K: Ordered
    => lower(other) [binary_ew(&self, &other, Output::Bool)];

    binary_doc!("lower_equal", "", "", "ones")
    fn try_lower_equal(self, other: Self) -> Tensor<D, Bool> where K: Ordered
    => lower_equal(other) [binary_ew(&self, &other, Output::Bool)];

    binary_doc!("max_pair", "burn reaches the check through `lower`.", "", "ones")
    fn try_max_pair(self, other: Self) -> Self where K: Ordered
    => max_pair(other) [binary_ew(&self, &other, Output::Operands)];

    binary_doc!("min_pair", "burn reaches the check through `lower`.", "", "ones")
    fn try_min_pair(self, other: Self) -> Self where K: Ordered
    => min_pair(other) [binary_ew(&self, &other, Output::Operands)];

    binary_doc!("remainder",
    "\n\nOn an integer tensor it also reads the divisor (one synchronous read; skipped \
     inside [`value_reads::vouched`](crate::value_reads::vouched)) and refuses a zero \
     element with [`GuardError::OutOfRange`](crate::GuardError::OutOfRange): Flex and \
     NdArray panic on it.",
    "",
    "ones")
    fn try_remainder(self, other: Self) -> Self where K: Numeric
    => remainder(other) [binary_ew(&self, &other, Output::Operands), int_divisors(&other)];

    binary_doc!("powi",
    "\n\nOn an integer tensor on NdArray it also reads the exponents (one synchronous \
     read; skipped inside [`value_reads::vouched`](crate::value_reads::vouched)) and \
     refuses a negative one with [`GuardError::OutOfRange`](crate::GuardError::OutOfRange): \
     NdArray converts each to `u32` and panics; Flex takes it.",
    "Int, ",
    "ones")
    fn try_powi(self, other: Self) -> Self where K: Numeric => powi {
        binary_ew(OP, &self, &other, Output::Operands)?;
        let dtype = self.dtype();
        let quirks = crate::capability::quirks_of(&self.device());
        if (dtype.is_int() || dtype.is_uint()) && quirks.int_powi_negative_exponent_panics {
            let exponents = super::base::read_indices(OP, &other)?;
            check::elementwise::int_powi_exponents(OP, &exponents, &quirks)?;
        }
        catch(OP, || self.powi(other))
    }

    binary_doc!("atan2", "", "", "ones")
    fn try_atan2(self, other: Self) -> Self where K: FloatMath
    => atan2(other) [binary_ew(&self, &other, Output::Operands)];

    scalar_doc!("equal_scalar", "")
    fn try_equal_scalar<E: Element>(self, other: E) -> Tensor<D, Bool> where K: Basic
    => equal_scalar { scalar_compare!(self.equal_scalar(other)) }

    scalar_doc!("not_equal_scalar", "")
    fn try_not_equal_scalar<E: Element>(self, other: E) -> Tensor<D, Bool> where K: Basic
    => not_equal_scalar { scalar_compare!(self.not_equal_scalar(other)) }

    scalar_doc!("equal_elem", "")
    fn try_equal_elem<E: Element>(self, other: E) -> Tensor<D, Bool> where K: Basic
    => equal_elem { scalar_compare!(self.equal_elem(other)) }

    scalar_doc!("not_equal_elem", "")
    fn try_not_equal_elem<E: Element>(self, other: E) -> Tensor<D, Bool> where K: Basic
    => not_equal_elem { scalar_compare!(self.not_equal_elem(other)) }

    scalar_doc!("add_scalar", OVERFLOW)
    fn try_add_scalar<E: ElementConversion>(self, other: E) -> Self where K: Numeric
    => add_scalar { scalar!(self.add_scalar(other)) }

    scalar_doc!("sub_scalar", OVERFLOW)
    fn try_sub_scalar<E: ElementConversion>(self, other: E) -> Self where K: Numeric
    => sub_scalar { scalar!(self.sub_scalar(other)) }

    scalar_doc!("mul_scalar", OVERFLOW)
    fn try_mul_scalar<E: ElementConversion>(self, other: E) -> Self where K: Numeric
    => mul_scalar { scalar!(self.mul_scalar(other)) }

    scalar_doc!("div_scalar", ZERO_DIVISOR)
    fn try_div_scalar<E: ElementConversion>(self, other: E) -> Self where K: Numeric
    => div_scalar { scalar!(self.div_scalar(other), check::elementwise::nonzero_divisor) }

    scalar_doc!("remainder_scalar", ZERO_DIVISOR)
    fn try_remainder_scalar<E: ElementConversion>(self, other: E) -> Self where K: Numeric
    => remainder_scalar {
        scalar!(self.remainder_scalar(other), check::elementwise::nonzero_divisor)
    }

    scalar_doc!("powi_scalar",
    "Beyond burn, refuses an exponent the backends cannot convert (they `unwrap`); see \
     [`check::elementwise::powi_exponent`](crate::check::elementwise::powi_exponent).")
    fn try_powi_scalar<E: ElementConversion>(self, other: E) -> Self where K: Numeric
    => powi_scalar { scalar!(self.powi_scalar(other), check::elementwise::powi_exponent) }

    scalar_doc!("greater_scalar", "")
    fn try_greater_scalar<E: ElementConversion>(self, other: E) -> Tensor<D, Bool> where K: Ordered
    => greater_scalar { scalar_compare!(self.greater_scalar(other)) }

    scalar_doc!("greater_equal_scalar", "")
    fn try_greater_equal_scalar<E: ElementConversion>(self, other: E) -> Tensor<D, Bool>
    where K: Ordered => greater_equal_scalar {
        scalar_compare!(self.greater_equal_scalar(other))
    }

    scalar_doc!("lower_scalar", "")
    fn try_lower_scalar<E: ElementConversion>(self, other: E) -> Tensor<D, Bool> where K: Ordered
    => lower_scalar { scalar_compare!(self.lower_scalar(other)) }

    scalar_doc!("lower_equal_scalar", "")
    fn try_lower_equal_scalar<E: ElementConversion>(self, other: E) -> Tensor<D, Bool>
    where K: Ordered => lower_equal_scalar {
        scalar_compare!(self.lower_equal_scalar(other))
    }

    scalar_doc!("greater_elem", "")
    fn try_greater_elem<E: ElementConversion>(self, other: E) -> Tensor<D, Bool> where K: Ordered
    => greater_elem { scalar_compare!(self.greater_elem(other)) }

    scalar_doc!("greater_equal_elem", "")
    fn try_greater_equal_elem<E: ElementConversion>(self, other: E) -> Tensor<D, Bool>
    where K: Ordered => greater_equal_elem {
        scalar_compare!(self.greater_equal_elem(other))
    }

    scalar_doc!("lower_elem", "")
    fn try_lower_elem<E: ElementConversion>(self, other: E) -> Tensor<D, Bool> where K: Ordered
    => lower_elem { scalar_compare!(self.lower_elem(other)) }

    scalar_doc!("lower_equal_elem", "")
    fn try_lower_equal_elem<E: ElementConversion>(self, other: E) -> Tensor<D, Bool>
    where K: Ordered => lower_equal_elem {
        scalar_compare!(self.lower_equal_elem(other))
    }

    scalar_doc!("clamp_min", "")
    fn try_clamp_min<E: ElementConversion>(self, other: E) -> Self where K: Ordered
    => clamp_min { scalar!(self.clamp_min(other)) }

    scalar_doc!("clamp_max", "")
    fn try_clamp_max<E: ElementConversion>(self, other: E) -> Self where K: Ordered
    => clamp_max { scalar!(self.clamp_max(other)) }

    /// Fallible twin of [`Tensor::clamp`].
    ///
    /// Checks that `min` and `max` are representable in the tensor's dtype, as for
    /// [`TryElementwise::try_clamp_min`], and, beyond burn, that `min <= max`
    /// ([`check::elementwise::clamp_bounds`](crate::check::elementwise::clamp_bounds): Flex
    /// panics there, NdArray and CubeCL return a value).
    ///
    /// # Errors
    ///
    /// [`GuardError::NotRepresentable`](crate::GuardError::NotRepresentable) with the first bad
    /// bound and the dtype; [`GuardError::OutOfOrder`](crate::GuardError::OutOfOrder) with both
    /// bounds when `min > max`.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryElementwise;
    ///
    /// let t = Tensor::<1, Int>::from_ints([1, 5, 9], &Device::flex());
    /// assert_eq!(t.clone().try_clamp(2, 6)?.into_data().convert::<i64>().to_vec::<i64>().unwrap(), [2, 5, 6]);
    /// assert!(t.try_clamp(0.0, f64::INFINITY).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "clamp")]
    fn try_clamp<E: ElementConversion>(self, min: E, max: E) -> Self
    where K: Ordered => clamp {
        let dtype = self.dtype();
        let min = scalar_arg(OP, min, &dtype)?;
        let max = scalar_arg(OP, max, &dtype)?;
        check::elementwise::clamp_bounds(OP, min, max)?;
        // Both bounds were converted for the same dtype, so they share a variant.
        match (min, max) {
            (ScalarValue::Float(a), ScalarValue::Float(b)) => catch(OP, || self.clamp(a, b)),
            (ScalarValue::Int(a), ScalarValue::Int(b)) => catch(OP, || self.clamp(a, b)),
            (ScalarValue::UInt(a), ScalarValue::UInt(b)) => catch(OP, || self.clamp(a, b)),
            (ScalarValue::Bool(a), ScalarValue::Bool(b)) => catch(OP, || self.clamp(a, b)),
            (a, b) => Err(GuardError::InvalidArgument {
                op: OP,
                rule: "min and max must convert to the same scalar type",
                got: format!("min={a}, max={b}"),
            }),
        }
    }

    /// Fallible twin of [`Tensor::bool`] (`not_equal_scalar(0)`).
    ///
    /// burn checks nothing here. Beyond burn, an input with no element (a dimension is 0) is
    /// answered without dispatching: an empty bool tensor of the same shape, burn's result on
    /// Flex and NdArray. wgpu's `not_equal_scalar` kernel panics on a `[0, n]` input, and a
    /// kernel panic poisons the wgpu device for the rest of the process. See
    /// [`check::shape::no_elements`](crate::check::shape::no_elements).
    ///
    /// # Errors
    ///
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics on a
    /// non-empty input (none is known).
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryElementwise;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1, Int>::from_ints([0, 3, -1], &device);
    /// assert_eq!(t.try_bool()?.into_data().to_vec::<bool>().unwrap(), [false, true, true]);
    /// assert_eq!(Tensor::<2>::zeros([0, 3], &device).try_bool()?.dims(), [0, 3]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "bool")]
    fn try_bool(self) -> Tensor<D, Bool>
    where K: Numeric => bool { unless_empty!(empty_bool, self.bool()) }
}
}

twins! {
/// Fallible twin of the vector product of 1-D tensors.
///
/// Sealed: implemented for `burn::Tensor<1, K>` only.
pub trait TryElementwiseVector<K: Numeric> for Tensor<1, K> {
    /// Fallible twin of [`Tensor::dot`].
    ///
    /// Checks, as burn through `mul`, what every element-wise tensor–tensor twin checks (the
    /// lengths equal or one of them 1; see
    /// [`TryNumeric::try_add`](crate::tensor::TryNumeric::try_add)).
    ///
    /// # Errors
    ///
    /// Those of [`TryNumeric::try_add`](crate::tensor::TryNumeric::try_add).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseVector;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<1>::from_floats([1.0, 2.0, 3.0], &device);
    /// assert_eq!(a.clone().try_dot(a.clone())?.into_scalar::<f32>(), 14.0);
    /// assert!(a.try_dot(Tensor::from_floats([1.0, 2.0], &device)).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "dot")]
    fn try_dot(self, other: Self) -> Self
    => dot(other) [binary_ew(&self, &other, Output::Operands)];
}
}
