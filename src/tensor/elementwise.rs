//! Twins of the element-wise family: comparisons, pairwise max/min, closeness, powers, fmod/remainder, atan2/hypot, cross, dot, rounding (round/floor/trunc), fmod_scalar, is_finite, bool, int bitwise and bool logic ops, bool_not, nonzero/argwhere, `grid_sample_2d`, and every scalar op (class S).
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
use burn::tensor::ops::GridSampleOptions;
use burn::tensor::{AsIndex, Bool, DType, Element, ElementConversion, Int, Tensor};

use super::numeric::{Output, binary_ew, int_divisors};
use super::sealed::Sealed;
use crate::check;
use crate::check::elementwise::ScalarValue;
use crate::error::{GuardError, Result};
use crate::panic::catch;

/// Runs `$body` with `$x` bound to the native value of a [`ScalarValue`].
macro_rules! with_scalar {
    ($value:expr, $x:ident => $body:expr) => {
        match $value {
            ScalarValue::Float($x) => $body,
            ScalarValue::Int($x) => $body,
            ScalarValue::UInt($x) => $body,
            ScalarValue::Bool($x) => $body,
        }
    };
}

/// The caller's scalar, checked against `dtype` (see [`check::elementwise::scalar`]).
fn scalar_arg<E: ElementConversion>(
    op: &'static str,
    value: E,
    dtype: &DType,
) -> Result<ScalarValue> {
    check::elementwise::scalar(op, super::convert::scalar(op, value)?, dtype)
}

/// Documents one scalar twin, whose signature is written out at the call (so that
/// `fn try_<name>` appears literally in the source).
macro_rules! decl_scalar {
    ($alias:literal, $note:literal; $($sig:tt)*) => {
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
        #[doc = "use burn_guard::tensor::TryElementwise;"]
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

/// Documents one tensor–tensor twin checked like `binary_ops_ew`; the signature is written
/// out at the call.
macro_rules! decl_binary {
    ($alias:literal, $note:literal, $kind:literal, $ctor:literal; $($sig:tt)*) => {
        decl_binary! { in "TryElementwise"; $alias, $note, $kind, $ctor; $($sig)* }
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

/// Fallible twins of the element-wise `burn::Tensor` methods of every kind: comparisons,
/// scalar arithmetic, powers, remainders, pairwise max/min and clamps (each method bounded
/// by the kind burn's own method needs: `Numeric`, `Ordered` or `FloatMath`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryElementwise<const D: usize, K: Basic>: Sealed + Sized {
    decl_binary! { "equal", "", "", "ones";
    fn try_equal(self, other: Self) -> Result<Tensor<D, Bool>> where K: Basic; }
    decl_binary! { "not_equal", "", "", "ones";
    fn try_not_equal(self, other: Self) -> Result<Tensor<D, Bool>> where K: Basic; }
    decl_binary! { "greater", "", "", "ones";
    fn try_greater(self, other: Self) -> Result<Tensor<D, Bool>> where K: Ordered; }
    decl_binary! { "greater_equal", "", "", "ones";
    fn try_greater_equal(self, other: Self) -> Result<Tensor<D, Bool>> where K: Ordered; }
    decl_binary! { "lower", "", "", "ones";
    fn try_lower(self, other: Self) -> Result<Tensor<D, Bool>> where K: Ordered; }
    decl_binary! { "lower_equal", "", "", "ones";
    fn try_lower_equal(self, other: Self) -> Result<Tensor<D, Bool>> where K: Ordered; }
    decl_binary! { "max_pair", "burn reaches the check through `lower`.", "", "ones";
    fn try_max_pair(self, other: Self) -> Result<Self> where K: Ordered; }
    decl_binary! { "min_pair", "burn reaches the check through `lower`.", "", "ones";
    fn try_min_pair(self, other: Self) -> Result<Self> where K: Ordered; }
    decl_binary! {
    "remainder",
    "\n\nOn an integer tensor it also reads the divisor (one synchronous read; skipped \
     inside [`value_reads::vouched`](crate::value_reads::vouched)) and refuses a zero \
     element with [`GuardError::OutOfRange`](crate::GuardError::OutOfRange): Flex and \
     NdArray panic on it.",
    "",
    "ones";
    fn try_remainder(self, other: Self) -> Result<Self> where K: Numeric; }
    decl_binary! {
    "powi",
    "\n\nOn an integer tensor on NdArray it also reads the exponents (one synchronous \
     read; skipped inside [`value_reads::vouched`](crate::value_reads::vouched)) and \
     refuses a negative one with [`GuardError::OutOfRange`](crate::GuardError::OutOfRange): \
     NdArray converts each to `u32` and panics; Flex takes it.",
    "Int, ",
    "ones";
    fn try_powi(self, other: Self) -> Result<Self> where K: Numeric; }
    decl_binary! { "atan2", "", "", "ones";
    fn try_atan2(self, other: Self) -> Result<Self> where K: FloatMath; }

    decl_scalar! { "equal_scalar", "";
    fn try_equal_scalar<E: Element>(self, other: E) -> Result<Tensor<D, Bool>> where K: Basic; }
    decl_scalar! { "not_equal_scalar", "";
    fn try_not_equal_scalar<E: Element>(self, other: E) -> Result<Tensor<D, Bool>> where K: Basic; }
    decl_scalar! { "equal_elem", "";
    fn try_equal_elem<E: Element>(self, other: E) -> Result<Tensor<D, Bool>> where K: Basic; }
    decl_scalar! { "not_equal_elem", "";
    fn try_not_equal_elem<E: Element>(self, other: E) -> Result<Tensor<D, Bool>> where K: Basic; }
    decl_scalar! {
    "add_scalar",
    "An element overflowing in the backend's integer arithmetic (checked in debug builds) \
     depends on the values and is not checked: the panic backstop returns it as \
     `GuardError::BackendPanic`.";
    fn try_add_scalar<E: ElementConversion>(self, other: E) -> Result<Self> where K: Numeric; }
    decl_scalar! {
    "sub_scalar",
    "An element overflowing in the backend's integer arithmetic (checked in debug builds) \
     depends on the values and is not checked: the panic backstop returns it as \
     `GuardError::BackendPanic`.";
    fn try_sub_scalar<E: ElementConversion>(self, other: E) -> Result<Self> where K: Numeric; }
    decl_scalar! {
    "mul_scalar",
    "An element overflowing in the backend's integer arithmetic (checked in debug builds) \
     depends on the values and is not checked: the panic backstop returns it as \
     `GuardError::BackendPanic`.";
    fn try_mul_scalar<E: ElementConversion>(self, other: E) -> Result<Self> where K: Numeric; }
    decl_scalar! {
    "div_scalar",
    "Beyond burn, refuses a zero divisor on an integer tensor (the backend panics); see \
     [`check::elementwise::nonzero_divisor`](crate::check::elementwise::nonzero_divisor).";
    fn try_div_scalar<E: ElementConversion>(self, other: E) -> Result<Self> where K: Numeric; }
    decl_scalar! {
    "remainder_scalar",
    "Beyond burn, refuses a zero divisor on an integer tensor (the backend panics); see \
     [`check::elementwise::nonzero_divisor`](crate::check::elementwise::nonzero_divisor).";
    fn try_remainder_scalar<E: ElementConversion>(self, other: E) -> Result<Self> where K: Numeric; }
    decl_scalar! {
    "powi_scalar",
    "Beyond burn, refuses an exponent the backends cannot convert (they `unwrap`); see \
     [`check::elementwise::powi_exponent`](crate::check::elementwise::powi_exponent).";
    fn try_powi_scalar<E: ElementConversion>(self, other: E) -> Result<Self> where K: Numeric; }
    decl_scalar! { "greater_scalar", "";
    fn try_greater_scalar<E: ElementConversion>(self, other: E) -> Result<Tensor<D, Bool>> where K: Ordered; }
    decl_scalar! { "greater_equal_scalar", "";
    fn try_greater_equal_scalar<E: ElementConversion>(self, other: E) -> Result<Tensor<D, Bool>> where K: Ordered; }
    decl_scalar! { "lower_scalar", "";
    fn try_lower_scalar<E: ElementConversion>(self, other: E) -> Result<Tensor<D, Bool>> where K: Ordered; }
    decl_scalar! { "lower_equal_scalar", "";
    fn try_lower_equal_scalar<E: ElementConversion>(self, other: E) -> Result<Tensor<D, Bool>> where K: Ordered; }
    decl_scalar! { "greater_elem", "";
    fn try_greater_elem<E: ElementConversion>(self, other: E) -> Result<Tensor<D, Bool>> where K: Ordered; }
    decl_scalar! { "greater_equal_elem", "";
    fn try_greater_equal_elem<E: ElementConversion>(self, other: E) -> Result<Tensor<D, Bool>> where K: Ordered; }
    decl_scalar! { "lower_elem", "";
    fn try_lower_elem<E: ElementConversion>(self, other: E) -> Result<Tensor<D, Bool>> where K: Ordered; }
    decl_scalar! { "lower_equal_elem", "";
    fn try_lower_equal_elem<E: ElementConversion>(self, other: E) -> Result<Tensor<D, Bool>> where K: Ordered; }
    decl_scalar! { "clamp_min", "";
    fn try_clamp_min<E: ElementConversion>(self, other: E) -> Result<Self> where K: Ordered; }
    decl_scalar! { "clamp_max", "";
    fn try_clamp_max<E: ElementConversion>(self, other: E) -> Result<Self> where K: Ordered; }

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
    fn try_clamp<E: ElementConversion>(self, min: E, max: E) -> Result<Self>
    where
        K: Ordered;

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
    fn try_bool(self) -> Result<Tensor<D, Bool>>
    where
        K: Numeric;
}

/// One scalar twin: widen and check the scalar, then burn's method.
macro_rules! impl_scalar {
    ($twin:ident, $burn:ident, $bound:ident, $elem:ident, $out:ty) => {
        fn $twin<E: $elem>(self, other: E) -> Result<$out>
        where
            K: $bound,
        {
            const OP: &str = stringify!($burn);
            let value = scalar_arg(OP, other, &self.dtype())?;
            with_scalar!(value, x => catch(OP, || self.$burn(x)))
        }
    };
}

/// One scalar comparison twin: widen and check the scalar; an input with no element is
/// answered with an empty bool tensor without a kernel (wgpu's `not_equal_scalar` kernel
/// panics on a `[0, n]` input and poisons the device; the other comparisons share the rule),
/// else burn's method.
macro_rules! impl_scalar_compare {
    ($twin:ident, $burn:ident, $bound:ident, $elem:ident) => {
        fn $twin<E: $elem>(self, other: E) -> Result<Tensor<D, Bool>>
        where
            K: $bound,
        {
            const OP: &str = stringify!($burn);
            let value = scalar_arg(OP, other, &self.dtype())?;
            if check::shape::no_elements(&self.dims()) {
                return empty_bool(OP, &self);
            }
            with_scalar!(value, x => catch(OP, || self.$burn(x)))
        }
    };
}

/// One tensor–tensor twin checked like `binary_ops_ew`.
macro_rules! impl_binary {
    ($twin:ident, $burn:ident, $bound:ident, $out:ty, $output:ident) => {
        fn $twin(self, other: Self) -> Result<$out>
        where
            K: $bound,
        {
            const OP: &str = stringify!($burn);
            binary_ew(OP, &self, &other, Output::$output)?;
            catch(OP, || self.$burn(other))
        }
    };
}

impl<const D: usize, K: Basic> TryElementwise<D, K> for Tensor<D, K> {
    impl_binary!(try_equal, equal, Basic, Tensor<D, Bool>, Bool);
    impl_binary!(try_not_equal, not_equal, Basic, Tensor<D, Bool>, Bool);
    impl_binary!(try_greater, greater, Ordered, Tensor<D, Bool>, Bool);
    impl_binary!(try_greater_equal, greater_equal, Ordered, Tensor<D, Bool>, Bool);
    impl_binary!(try_lower, lower, Ordered, Tensor<D, Bool>, Bool);
    impl_binary!(try_lower_equal, lower_equal, Ordered, Tensor<D, Bool>, Bool);
    impl_binary!(try_max_pair, max_pair, Ordered, Self, Operands);
    impl_binary!(try_min_pair, min_pair, Ordered, Self, Operands);
    fn try_remainder(self, other: Self) -> Result<Self>
    where
        K: Numeric,
    {
        const OP: &str = "remainder";
        binary_ew(OP, &self, &other, Output::Operands)?;
        int_divisors(OP, &other)?;
        catch(OP, || self.remainder(other))
    }

    fn try_powi(self, other: Self) -> Result<Self>
    where
        K: Numeric,
    {
        const OP: &str = "powi";
        binary_ew(OP, &self, &other, Output::Operands)?;
        let dtype = self.dtype();
        let quirks = crate::capability::quirks_of(&self.device());
        if (dtype.is_int() || dtype.is_uint()) && quirks.int_powi_negative_exponent_panics {
            let exponents = super::base::read_indices(OP, &other)?;
            check::elementwise::int_powi_exponents(OP, &exponents, &quirks)?;
        }
        catch(OP, || self.powi(other))
    }
    impl_binary!(try_atan2, atan2, FloatMath, Self, Operands);

    impl_scalar_compare!(try_equal_scalar, equal_scalar, Basic, Element);
    impl_scalar_compare!(try_not_equal_scalar, not_equal_scalar, Basic, Element);
    impl_scalar_compare!(try_equal_elem, equal_elem, Basic, Element);
    impl_scalar_compare!(try_not_equal_elem, not_equal_elem, Basic, Element);
    impl_scalar!(try_add_scalar, add_scalar, Numeric, ElementConversion, Self);
    impl_scalar!(try_sub_scalar, sub_scalar, Numeric, ElementConversion, Self);
    impl_scalar!(try_mul_scalar, mul_scalar, Numeric, ElementConversion, Self);
    impl_scalar_compare!(
        try_greater_scalar,
        greater_scalar,
        Ordered,
        ElementConversion
    );
    impl_scalar_compare!(
        try_greater_equal_scalar,
        greater_equal_scalar,
        Ordered,
        ElementConversion
    );
    impl_scalar_compare!(try_lower_scalar, lower_scalar, Ordered, ElementConversion);
    impl_scalar_compare!(
        try_lower_equal_scalar,
        lower_equal_scalar,
        Ordered,
        ElementConversion
    );
    impl_scalar_compare!(try_greater_elem, greater_elem, Ordered, ElementConversion);
    impl_scalar_compare!(
        try_greater_equal_elem,
        greater_equal_elem,
        Ordered,
        ElementConversion
    );
    impl_scalar_compare!(try_lower_elem, lower_elem, Ordered, ElementConversion);
    impl_scalar_compare!(
        try_lower_equal_elem,
        lower_equal_elem,
        Ordered,
        ElementConversion
    );
    impl_scalar!(try_clamp_min, clamp_min, Ordered, ElementConversion, Self);
    impl_scalar!(try_clamp_max, clamp_max, Ordered, ElementConversion, Self);

    fn try_div_scalar<E: ElementConversion>(self, other: E) -> Result<Self>
    where
        K: Numeric,
    {
        const OP: &str = "div_scalar";
        let dtype = self.dtype();
        let value = scalar_arg(OP, other, &dtype)?;
        check::elementwise::nonzero_divisor(OP, value, &dtype)?;
        with_scalar!(value, x => catch(OP, || self.div_scalar(x)))
    }

    fn try_remainder_scalar<E: ElementConversion>(self, other: E) -> Result<Self>
    where
        K: Numeric,
    {
        const OP: &str = "remainder_scalar";
        let dtype = self.dtype();
        let value = scalar_arg(OP, other, &dtype)?;
        check::elementwise::nonzero_divisor(OP, value, &dtype)?;
        with_scalar!(value, x => catch(OP, || self.remainder_scalar(x)))
    }

    fn try_powi_scalar<E: ElementConversion>(self, other: E) -> Result<Self>
    where
        K: Numeric,
    {
        const OP: &str = "powi_scalar";
        let dtype = self.dtype();
        let value = scalar_arg(OP, other, &dtype)?;
        check::elementwise::powi_exponent(OP, value, &dtype)?;
        with_scalar!(value, x => catch(OP, || self.powi_scalar(x)))
    }

    fn try_clamp<E: ElementConversion>(self, min: E, max: E) -> Result<Self>
    where
        K: Ordered,
    {
        const OP: &str = "clamp";
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

    fn try_bool(self) -> Result<Tensor<D, Bool>>
    where
        K: Numeric,
    {
        const OP: &str = "bool";
        if check::shape::no_elements(&self.dims()) {
            return empty_bool(OP, &self);
        }
        catch(OP, || self.bool())
    }
}

/// Documents one float rounding twin (`round`, `ceil`, `floor`, `trunc`): no check, the empty
/// input answered without a kernel; the signature is written out at the call.
macro_rules! decl_rounding {
    ($alias:literal, $values:literal; $($sig:tt)*) => {
        #[doc = concat!("Fallible twin of [`Tensor::", $alias, "`].")]
        #[doc = ""]
        #[doc = "burn checks nothing here. Beyond burn, an input with no element (a dimension"]
        #[doc = "is 0) is answered without dispatching: an empty tensor of the same shape and"]
        #[doc = "dtype, burn's result on Flex and NdArray. wgpu's kernel panics on a `[0, n]`"]
        #[doc = "input, and a kernel panic poisons the wgpu device for the rest of the process."]
        #[doc = "See [`check::shape::no_elements`](crate::check::shape::no_elements)."]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = "[`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics on a"]
        #[doc = "non-empty input (none is known)."]
        #[doc = ""]
        #[doc = "```"]
        #[doc = "use burn::tensor::{Device, Tensor};"]
        #[doc = "use burn_guard::tensor::TryElementwiseFloat;"]
        #[doc = ""]
        #[doc = "let device = Device::flex();"]
        #[doc = "let t = Tensor::<1>::from_floats([1.4, -2.6], &device);"]
        #[doc = concat!("let y = t.try_", $alias, "()?;")]
        #[doc = concat!("assert_eq!(y.into_data().try_to_vec::<f32>()?, ", $values, ");")]
        #[doc = concat!("assert_eq!(Tensor::<2>::zeros([0, 3], &device).try_", $alias, "()?.dims(), [0, 3]);")]
        #[doc = "# Ok::<(), burn_guard::GuardError>(())"]
        #[doc = "```"]
        #[doc(alias = $alias)]
        $($sig)*
    };
}

/// burn's result of a float-to-float element-wise op on an input with no element: an empty
/// tensor of the same shape and dtype on the same device, built without a kernel. A quantized
/// dtype cannot be created directly; the device's default float dtype stands for it, as in
/// burn's own short-cuts (`Tensor::creation_dtype`).
fn empty_float<const D: usize>(op: &'static str, like: &Tensor<D>) -> Result<Tensor<D>> {
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
fn empty_bool<const D: usize, K: Basic>(
    op: &'static str,
    like: &Tensor<D, K>,
) -> Result<Tensor<D, Bool>> {
    let (dims, device) = (like.dims(), like.device());
    catch(op, || Tensor::<D, Bool>::full(dims, false, &device))
}

/// Float rounding twins: the empty input without a kernel, else burn.
macro_rules! impl_rounding {
    ($twin:ident, $burn:ident) => {
        fn $twin(self) -> Result<Self> {
            const OP: &str = stringify!($burn);
            if check::shape::no_elements(&self.dims()) {
                return empty_float(OP, &self);
            }
            catch(OP, || self.$burn())
        }
    };
}

/// Fallible twins of the element-wise `burn::Tensor` methods of float tensors only.
///
/// Sealed: implemented for `burn::Tensor<D>` (float) only.
pub trait TryElementwiseFloat<const D: usize>: Sealed + Sized {
    decl_binary! { in "TryElementwiseFloat"; "hypot", "", "", "ones";
    fn try_hypot(self, other: Self) -> Result<Self>; }

    decl_binary! { in "TryElementwiseFloat"; "powf", "", "", "ones";
    fn try_powf(self, other: Self) -> Result<Self>; }

    decl_binary! { in "TryElementwiseFloat"; "fmod", "burn reaches them through `div`.", "", "ones";
    fn try_fmod(self, other: Self) -> Result<Self>; }

    /// Fallible twin of [`Tensor::is_close`]; the same checks as
    /// [`TryElementwiseFloat::try_hypot`] (burn reaches them through `sub`).
    ///
    /// # Errors
    ///
    /// As [`TryElementwiseFloat::try_hypot`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseFloat;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<1>::from_floats([1.0, 2.0], &device);
    /// let close = a.clone().try_is_close(a.clone(), None, None)?;
    /// assert_eq!(close.into_data().to_vec::<bool>().unwrap(), [true, true]);
    /// assert!(a.try_is_close(Tensor::zeros([3], &device), None, None).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "is_close")]
    fn try_is_close(
        self,
        other: Self,
        rtol: Option<f64>,
        atol: Option<f64>,
    ) -> Result<Tensor<D, Bool>>;

    /// Fallible twin of [`Tensor::all_close`]; the same checks as
    /// [`TryElementwiseFloat::try_is_close`].
    ///
    /// # Errors
    ///
    /// As [`TryElementwiseFloat::try_hypot`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseFloat;
    ///
    /// let device = Device::flex();
    /// let a = Tensor::<1>::from_floats([1.0, 2.0], &device);
    /// assert!(a.clone().try_all_close(a.clone(), None, None)?);
    /// assert!(a.try_all_close(Tensor::zeros([3], &device), None, None).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "all_close")]
    fn try_all_close(self, other: Self, rtol: Option<f64>, atol: Option<f64>) -> Result<bool>;

    /// Fallible twin of [`Tensor::cross`].
    ///
    /// Checks that `dim` is in `-D..D`, that both tensors have size 3 along `dim`, that the
    /// other dimensions broadcast and that both are on the same device
    /// (`TensorCheck::cross`).
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with both shapes.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseFloat;
    ///
    /// let device = Device::flex();
    /// let x = Tensor::<2>::from_floats([[1.0, 0.0, 0.0]], &device);
    /// let y = Tensor::<2>::from_floats([[0.0, 1.0, 0.0]], &device);
    /// let z = x.clone().try_cross(y, -1)?;
    /// assert_eq!(z.into_data().to_vec::<f32>().unwrap(), [0.0, 0.0, 1.0]);
    /// assert!(x.clone().try_cross(x, 0).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "cross")]
    fn try_cross<Dim: AsIndex>(self, other: Tensor<D>, dim: Dim) -> Result<Tensor<D>>;

    /// Fallible twin of [`Tensor::grid_sample_2d`].
    ///
    /// burn checks nothing here; the backends assert. Checks that the input is
    /// `[N, C, H_in, W_in]` and the grid `[N, H_out, W_out, 2]` (see
    /// [`check::grid::grid_sample_2d`](crate::check::grid::grid_sample_2d)), the device,
    /// that both have the same dtype, and that the CPU backend implements the mode (Flex:
    /// bilinear and nearest; NdArray: bilinear; see
    /// [`check::grid::grid_sample_mode`](crate::check::grid::grid_sample_mode)).
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a rank other than 4.
    /// - [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for the grid's last
    ///   dimension or the batch sizes.
    /// - [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch),
    ///   [`GuardError::DTypeMismatch`](crate::GuardError::DTypeMismatch).
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for a mode the CPU
    ///   backend does not implement.
    ///
    /// ```
    /// use burn::tensor::ops::InterpolateMode;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseFloat;
    ///
    /// let device = Device::flex();
    /// let x = Tensor::<4>::ones([1, 2, 3, 3], &device);
    /// let grid = Tensor::<4>::zeros([1, 4, 4, 2], &device);
    /// let y = x.clone().try_grid_sample_2d(grid, InterpolateMode::Bilinear)?;
    /// assert_eq!(y.dims(), [1, 2, 4, 4]);
    /// let bad = Tensor::<4>::zeros([1, 4, 4, 3], &device);
    /// assert!(x.try_grid_sample_2d(bad, InterpolateMode::Bilinear).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "grid_sample_2d")]
    fn try_grid_sample_2d(
        self,
        grid: Tensor<D>,
        options: impl Into<GridSampleOptions>,
    ) -> Result<Tensor<D>>;

    decl_rounding! {
        "round", "[1.0, -3.0]";
        fn try_round(self) -> Result<Self>;
    }
    decl_rounding! {
        "floor", "[1.0, -3.0]";
        fn try_floor(self) -> Result<Self>;
    }
    decl_rounding! {
        "trunc", "[1.0, -2.0]";
        fn try_trunc(self) -> Result<Self>;
    }
    decl_rounding! {
        "ceil", "[2.0, -2.0]";
        fn try_ceil(self) -> Result<Self>;
    }

    /// Fallible twin of [`Tensor::fmod_scalar`].
    ///
    /// burn checks nothing here (any `f32` divisor is taken: a zero or NaN one gives NaN).
    /// Beyond burn, an input with no element is answered without dispatching: an empty tensor
    /// of the same shape and dtype, burn's result on Flex and NdArray. wgpu's `trunc` kernel,
    /// which burn runs here, panics on a `[0, n]` input, and a kernel panic poisons the wgpu
    /// device for the rest of the process. See
    /// [`check::shape::no_elements`](crate::check::shape::no_elements).
    ///
    /// # Errors
    ///
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics on a
    /// non-empty input (none is known).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseFloat;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::from_floats([5.0, -5.0], &device);
    /// assert_eq!(t.try_fmod_scalar(3.0)?.into_data().to_vec::<f32>().unwrap(), [2.0, -2.0]);
    /// assert_eq!(Tensor::<2>::zeros([0, 3], &device).try_fmod_scalar(3.0)?.dims(), [0, 3]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "fmod_scalar")]
    fn try_fmod_scalar(self, scalar: f32) -> Result<Self>;

    /// Fallible twin of [`Tensor::is_finite`].
    ///
    /// burn checks nothing here. Beyond burn, an input with no element is answered without
    /// dispatching: an empty bool tensor of the same shape, burn's result on Flex and NdArray.
    /// wgpu's `bool_not` kernel, which burn runs here, panics on a `[0, n]` input, and a
    /// kernel panic poisons the wgpu device for the rest of the process. See
    /// [`check::shape::no_elements`](crate::check::shape::no_elements).
    ///
    /// # Errors
    ///
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics on a
    /// non-empty input (none is known).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryElementwiseFloat;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::from_floats([1.0, f32::INFINITY, f32::NAN], &device);
    /// assert_eq!(t.try_is_finite()?.into_data().to_vec::<bool>().unwrap(), [true, false, false]);
    /// assert_eq!(Tensor::<2>::zeros([0, 3], &device).try_is_finite()?.dims(), [0, 3]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "is_finite")]
    fn try_is_finite(self) -> Result<Tensor<D, Bool>>;
}

impl<const D: usize> TryElementwiseFloat<D> for Tensor<D> {
    fn try_hypot(self, other: Self) -> Result<Self> {
        const OP: &str = "hypot";
        binary_ew(OP, &self, &other, Output::Operands)?;
        catch(OP, || self.hypot(other))
    }

    fn try_powf(self, other: Self) -> Result<Self> {
        const OP: &str = "powf";
        binary_ew(OP, &self, &other, Output::Operands)?;
        catch(OP, || self.powf(other))
    }

    fn try_fmod(self, other: Self) -> Result<Self> {
        const OP: &str = "fmod";
        binary_ew(OP, &self, &other, Output::Operands)?;
        catch(OP, || self.fmod(other))
    }

    fn try_is_close(
        self,
        other: Self,
        rtol: Option<f64>,
        atol: Option<f64>,
    ) -> Result<Tensor<D, Bool>> {
        const OP: &str = "is_close";
        binary_ew(OP, &self, &other, Output::Bool)?;
        catch(OP, || self.is_close(other, rtol, atol))
    }

    fn try_all_close(self, other: Self, rtol: Option<f64>, atol: Option<f64>) -> Result<bool> {
        const OP: &str = "all_close";
        binary_ew(OP, &self, &other, Output::Bool)?;
        catch(OP, || self.all_close(other, rtol, atol))
    }

    fn try_grid_sample_2d(
        self,
        grid: Tensor<D>,
        options: impl Into<GridSampleOptions>,
    ) -> Result<Tensor<D>> {
        const OP: &str = "grid_sample_2d";
        let options = options.into();
        check::grid::grid_sample_2d(OP, &self.dims(), &grid.dims())?;
        crate::capability::same_device(OP, &self.device(), &grid.device())?;
        check::elementwise::same_dtype(OP, self.dtype(), grid.dtype())?;
        check::grid::grid_sample_mode(
            OP,
            &options.mode,
            &crate::capability::quirks_of(&self.device()),
        )?;
        catch(OP, || self.grid_sample_2d(grid, options))
    }

    fn try_cross<Dim: AsIndex>(self, other: Tensor<D>, dim: Dim) -> Result<Tensor<D>> {
        const OP: &str = "cross";
        let dim = check::dim(OP, dim.as_index(), D)?;
        check::elementwise::cross(OP, &self.dims(), &other.dims(), dim)?;
        crate::capability::same_device(OP, &self.device(), &other.device())?;
        catch(OP, || self.cross(other, dim))
    }

    impl_rounding!(try_round, round);
    impl_rounding!(try_floor, floor);
    impl_rounding!(try_trunc, trunc);
    impl_rounding!(try_ceil, ceil);

    fn try_fmod_scalar(self, scalar: f32) -> Result<Self> {
        const OP: &str = "fmod_scalar";
        if check::shape::no_elements(&self.dims()) {
            return empty_float(OP, &self);
        }
        catch(OP, || self.fmod_scalar(scalar))
    }

    fn try_is_finite(self) -> Result<Tensor<D, Bool>> {
        const OP: &str = "is_finite";
        if check::shape::no_elements(&self.dims()) {
            return empty_bool(OP, &self);
        }
        catch(OP, || self.is_finite())
    }
}

/// Documents one bitwise scalar twin; the signature is written out at the call.
macro_rules! decl_bitwise {
    ($alias:literal, $note:literal; $($sig:tt)*) => {
        #[doc = concat!("Fallible twin of [`Tensor::", $alias, "`].")]
        #[doc = ""]
        #[doc = "Checks that the scalar is representable in the tensor's integer dtype (see"]
        #[doc = "[`check::elementwise::scalar`](crate::check::elementwise::scalar))."]
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
        #[doc = "use burn_guard::tensor::TryElementwiseInt;"]
        #[doc = ""]
        #[doc = "let t = Tensor::<1, Int>::from_ints([1, 2, 3], &Device::flex());"]
        #[doc = concat!("assert_eq!(t.clone().try_", $alias, "(1)?.dims(), [3]);")]
        #[doc = concat!("assert!(t.try_", $alias, "(f64::NAN).is_err());")]
        #[doc = "# Ok::<(), burn_guard::GuardError>(())"]
        #[doc = "```"]
        #[doc(alias = $alias)]
        $($sig)*
    };
}

/// Documents one int tensor–tensor twin; burn checks nothing for these (no
/// `binary_ops_ew`), the backends panic.
macro_rules! decl_int_binary {
    ($alias:literal, SHIFT_NOTE; $($sig:tt)*) => {
        decl_int_binary! {
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

/// Fallible twins of the element-wise `burn::Tensor` methods of integer tensors only.
///
/// Sealed: implemented for `burn::Tensor<D, Int>` only.
pub trait TryElementwiseInt<const D: usize>: Sealed + Sized {
    decl_int_binary! {
        "bitwise_and",
        "";
        fn try_bitwise_and(self, other: Self) -> Result<Self>;
    }
    decl_int_binary! {
        "bitwise_or",
        "";
        fn try_bitwise_or(self, other: Self) -> Result<Self>;
    }
    decl_int_binary! {
        "bitwise_xor",
        "";
        fn try_bitwise_xor(self, other: Self) -> Result<Self>;
    }
    decl_int_binary! {
        "bitwise_left_shift",
        SHIFT_NOTE;
        fn try_bitwise_left_shift(self, other: Self) -> Result<Self>;
    }
    decl_int_binary! {
        "bitwise_right_shift",
        SHIFT_NOTE;
        fn try_bitwise_right_shift(self, other: Self) -> Result<Self>;
    }
    decl_bitwise! {
        "bitwise_and_scalar",
        "";
        fn try_bitwise_and_scalar(self, other: impl ElementConversion) -> Result<Self>;
    }
    decl_bitwise! {
        "bitwise_or_scalar",
        "";
        fn try_bitwise_or_scalar(self, other: impl ElementConversion) -> Result<Self>;
    }
    decl_bitwise! {
        "bitwise_xor_scalar",
        "";
        fn try_bitwise_xor_scalar(self, other: impl ElementConversion) -> Result<Self>;
    }
    decl_bitwise! {
    "bitwise_left_shift_scalar",
    "Beyond burn, refuses a shift amount outside `0..bits` of the dtype (NdArray panics, \
     Flex wraps); see [`check::elementwise::shift_amount`](crate::check::elementwise::shift_amount).";
    fn try_bitwise_left_shift_scalar(self, other: impl ElementConversion) -> Result<Self>; }
    decl_bitwise! {
    "bitwise_right_shift_scalar",
    "Beyond burn, refuses a shift amount outside `0..bits` of the dtype (NdArray panics, \
     Flex wraps); see [`check::elementwise::shift_amount`](crate::check::elementwise::shift_amount).";
    fn try_bitwise_right_shift_scalar(self, other: impl ElementConversion) -> Result<Self>; }
}

/// One bitwise scalar twin.
macro_rules! impl_bitwise {
    ($twin:ident, $burn:ident) => {
        fn $twin(self, other: impl ElementConversion) -> Result<Self> {
            const OP: &str = stringify!($burn);
            let value = scalar_arg(OP, other, &self.dtype())?;
            with_scalar!(value, x => catch(OP, || self.$burn(x)))
        }
    };
    ($twin:ident, $burn:ident, shift) => {
        fn $twin(self, other: impl ElementConversion) -> Result<Self> {
            const OP: &str = stringify!($burn);
            let dtype = self.dtype();
            let value = scalar_arg(OP, other, &dtype)?;
            check::elementwise::shift_amount(OP, value, &dtype)?;
            with_scalar!(value, x => catch(OP, || self.$burn(x)))
        }
    };
}

impl<const D: usize> TryElementwiseInt<D> for Tensor<D, Int> {
    fn try_bitwise_and(self, other: Self) -> Result<Self> {
        const OP: &str = "bitwise_and";
        binary_ew(OP, &self, &other, Output::Operands)?;
        catch(OP, || self.bitwise_and(other))
    }

    fn try_bitwise_or(self, other: Self) -> Result<Self> {
        const OP: &str = "bitwise_or";
        binary_ew(OP, &self, &other, Output::Operands)?;
        catch(OP, || self.bitwise_or(other))
    }

    fn try_bitwise_xor(self, other: Self) -> Result<Self> {
        const OP: &str = "bitwise_xor";
        binary_ew(OP, &self, &other, Output::Operands)?;
        catch(OP, || self.bitwise_xor(other))
    }

    fn try_bitwise_left_shift(self, other: Self) -> Result<Self> {
        const OP: &str = "bitwise_left_shift";
        binary_ew(OP, &self, &other, Output::Operands)?;
        let amounts = super::base::read_indices(OP, &other)?;
        check::elementwise::shift_amounts(OP, &amounts, &self.dtype())?;
        catch(OP, || self.bitwise_left_shift(other))
    }

    fn try_bitwise_right_shift(self, other: Self) -> Result<Self> {
        const OP: &str = "bitwise_right_shift";
        binary_ew(OP, &self, &other, Output::Operands)?;
        let amounts = super::base::read_indices(OP, &other)?;
        check::elementwise::shift_amounts(OP, &amounts, &self.dtype())?;
        catch(OP, || self.bitwise_right_shift(other))
    }

    impl_bitwise!(try_bitwise_and_scalar, bitwise_and_scalar);
    impl_bitwise!(try_bitwise_or_scalar, bitwise_or_scalar);
    impl_bitwise!(try_bitwise_xor_scalar, bitwise_xor_scalar);
    impl_bitwise!(
        try_bitwise_left_shift_scalar,
        bitwise_left_shift_scalar,
        shift
    );
    impl_bitwise!(
        try_bitwise_right_shift_scalar,
        bitwise_right_shift_scalar,
        shift
    );
}

/// Documents one bool twin.
macro_rules! decl_bool {
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

/// Fallible twins of the logical operations of boolean tensors and of the index queries
/// `nonzero` and `argwhere` (burn's `api/bool.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, Bool>` only.
pub trait TryElementwiseBool<const D: usize>: Sealed + Sized {
    decl_bool! {
        "bool_and";
        fn try_bool_and(self, rhs: Self) -> Result<Self>;
    }
    decl_bool! {
        "bool_or";
        fn try_bool_or(self, rhs: Self) -> Result<Self>;
    }
    decl_bool! {
        "bool_xor";
        fn try_bool_xor(self, rhs: Self) -> Result<Self>;
    }

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
    fn try_bool_not(self) -> Result<Self>;

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
    fn try_nonzero(self) -> Result<Vec<Tensor<1, Int>>>;

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
    fn try_argwhere(self) -> Result<Tensor<2, Int>>;
}

impl<const D: usize> TryElementwiseBool<D> for Tensor<D, Bool> {
    fn try_bool_and(self, rhs: Self) -> Result<Self> {
        const OP: &str = "bool_and";
        binary_ew(OP, &self, &rhs, Output::Operands)?;
        catch(OP, || self.bool_and(rhs))
    }

    fn try_bool_or(self, rhs: Self) -> Result<Self> {
        const OP: &str = "bool_or";
        binary_ew(OP, &self, &rhs, Output::Operands)?;
        catch(OP, || self.bool_or(rhs))
    }

    fn try_bool_xor(self, rhs: Self) -> Result<Self> {
        const OP: &str = "bool_xor";
        binary_ew(OP, &self, &rhs, Output::Operands)?;
        catch(OP, || self.bool_xor(rhs))
    }

    fn try_bool_not(self) -> Result<Self> {
        const OP: &str = "bool_not";
        if check::shape::no_elements(&self.dims()) {
            return empty_bool(OP, &self);
        }
        catch(OP, || self.bool_not())
    }

    fn try_nonzero(self) -> Result<Vec<Tensor<1, Int>>> {
        const OP: &str = "nonzero";
        if check::shape::no_elements(&self.dims()) {
            return Ok(Vec::new());
        }
        catch(OP, || self.nonzero())
    }

    fn try_argwhere(self) -> Result<Tensor<2, Int>> {
        const OP: &str = "argwhere";
        if check::shape::no_elements(&self.dims()) {
            let device = self.device();
            // `Int` without a dtype is the device's default int dtype, the one burn's
            // `argwhere` writes its indices in.
            return catch(OP, || Tensor::<2, Int>::zeros([0, D], &device));
        }
        catch(OP, || self.argwhere())
    }
}

/// Fallible twin of the vector product of 1-D tensors.
///
/// Sealed: implemented for `burn::Tensor<1, K>` only.
pub trait TryElementwiseVector<K: Numeric>: Sealed + Sized {
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
    fn try_dot(self, other: Self) -> Result<Self>;
}

impl<K: Numeric> TryElementwiseVector<K> for Tensor<1, K> {
    fn try_dot(self, other: Self) -> Result<Self> {
        const OP: &str = "dot";
        binary_ew(OP, &self, &other, Output::Operands)?;
        catch(OP, || self.dot(other))
    }
}
