//! Twins of the reduction and ordering family: sum/mean/prod/max/min/max_abs over dims, argmax/argmin, sort/argsort, topk, cumulative ops, median, var/cov, any/all and any_dim/all_dim.
//!
//! Four traits, one per set of kinds that has the methods in burn:
//!
//! | trait | kinds | burn file |
//! |---|---|---|
//! | [`TryReduce`] | every kind | `api/base.rs` (`any`, `all`, `any_dim`, `all_dim`) |
//! | [`TryReduceNumeric`] | Float, Int | `api/numeric.rs` (sums, means, products, cumulative sums) |
//! | [`TryReduceOrdered`] | Float, Int | `api/orderable.rs` (max/min, arg*, sort, topk, cummax/cummin) |
//! | [`TryReduceFloat`] | Float | `api/float.rs` (var, median, cov) |
//!
//! # Beyond burn
//!
//! - An empty reduced dimension is refused where burn's backends panic on it (max, min,
//!   argmax, argmin, max_abs and their `_dims`/`_with_indices` forms: an empty set has no
//!   extremum) and where burn itself fails (`var`, `var_mean`, `median`, Int `mean_dim`).
//! - `any_dim`/`all_dim` of a tensor with no elements is computed by the twin, as backends
//!   disagree on it; so are `any`/`all` (`[false]`/`[true]`, as Flex and NdArray answer), by
//!   the rule the element-wise twins share for empty inputs
//!   ([`check::shape::no_elements`](crate::check::shape::no_elements)).
//!
//! # Not checked
//!
//! Values are never read: an Int sum, product, cumulative sum or product, or mean that
//! overflows `i64`, or `max_abs` of `i64::MIN`, panics in Flex and NdArray when they are built
//! with overflow checks (debug builds) and wraps otherwise. Under overflow checks the twin
//! returns [`GuardError::BackendPanic`](crate::GuardError::BackendPanic).

use burn::tensor::kind::{Basic, Kind, Numeric, Ordered, TensorKind};
use burn::tensor::{AsIndex, Bool, Int, Tensor};

use super::sealed::Sealed;
use crate::check;
use crate::check::reduce;
use crate::error::Result;
use crate::panic::catch;

/// Documents one twin checked along one `dim`; the signature is written out at the call (so
/// that `fn try_<name>` appears literally in the source). The example runs the twin on
/// `[3.0, 1.0, 2.0]` along dim 0, binds the output to `$binding` and expects `out` read as
/// `$ty` to be `$values`, then runs it along dim 1, which it refuses. An `extremum` row is also
/// checked, and shown refused, on an empty dimension (an empty set has no extremum).
macro_rules! decl_dim {
    ($alias:literal, $trait:literal, $binding:literal, $ty:literal, $values:literal; $($sig:tt)*) => {
        decl_dim! { @doc $alias, $trait, $binding, $ty, $values,
            "Checks that `dim` is in `-D..D`.",
            "[`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.",
            ""; $($sig)* }
    };
    (extremum $alias:literal, $binding:literal, $ty:literal, $values:literal; $($sig:tt)*) => {
        decl_dim! { @doc $alias, "TryReduceOrdered", $binding, $ty, $values,
            "The checks of [`TryReduceOrdered::try_argmax`]: `dim` in `-D..D` and, beyond burn \
             (Flex and NdArray panic), a dimension that is not empty.",
            "As [`TryReduceOrdered::try_argmax`].",
            concat!("assert!(Tensor::<1>::zeros([0], &Device::flex()).try_", $alias, "(0).is_err());");
            $($sig)* }
    };
    (@doc $alias:literal, $trait:literal, $binding:literal, $ty:literal, $values:literal,
        $checks:expr, $errors:expr, $extra:expr; $($sig:tt)*) => {
        #[doc = concat!("Fallible twin of [`Tensor::", $alias, "`].")]
        #[doc = ""]
        #[doc = $checks]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = $errors]
        #[doc = ""]
        #[doc = "```"]
        #[doc = "use burn::tensor::{Device, Tensor};"]
        #[doc = concat!("use burn_guard::tensor::", $trait, ";")]
        #[doc = ""]
        #[doc = "let t = Tensor::<1>::from_floats([3.0, 1.0, 2.0], &Device::flex());"]
        #[doc = concat!("let ", $binding, " = t.clone().try_", $alias, "(0)?;")]
        #[doc = concat!("let out = out.into_data().convert::<", $ty, ">().to_vec::<", $ty, ">()?;")]
        #[doc = concat!("assert_eq!(out, ", $values, ");")]
        #[doc = concat!("let err = t.try_", $alias, "(1).unwrap_err();")]
        #[doc = concat!("assert_eq!(err.to_string(), \"", $alias, ": dimension out of range; got dim 1 for rank 1\");")]
        #[doc = $extra]
        #[doc = "# Ok::<(), burn_guard::GuardError>(())"]
        #[doc = "```"]
        #[doc(alias = $alias)]
        $($sig)*
    };
}

/// Documents one twin over a list of dims: the checks of `$single` (its one-dim form) for
/// every dim of the list, `$note` after them. The example reduces `[2, 3, 4]` ones over dims
/// 0 and -1, and is refused dim 3.
macro_rules! decl_dims {
    ($alias:literal, $trait:literal, $single:literal, $note:literal; $($sig:tt)*) => {
        #[doc = concat!("Fallible twin of [`Tensor::", $alias, "`]: [`", $single, "`]'s checks for")]
        #[doc = concat!("every dim of the list", $note, ".")]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = concat!("As [`", $single, "`], for the first bad dim.")]
        #[doc = ""]
        #[doc = "```"]
        #[doc = "use burn::tensor::{Device, Tensor};"]
        #[doc = concat!("use burn_guard::tensor::", $trait, ";")]
        #[doc = ""]
        #[doc = "let t = Tensor::<3>::ones([2, 3, 4], &Device::flex());"]
        #[doc = concat!("assert_eq!(t.clone().try_", $alias, "(&[0, -1])?.dims(), [1, 3, 1]);")]
        #[doc = concat!("assert!(t.try_", $alias, "(&[0, 3]).is_err());")]
        #[doc = "# Ok::<(), burn_guard::GuardError>(())"]
        #[doc = "```"]
        #[doc(alias = $alias)]
        $($sig)*
    };
}

/// Fallible twins of the reductions every tensor kind has: `any`, `all`, `any_dim` and
/// `all_dim` (burn's `api/base.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryReduce<const D: usize, K: Basic>: Sealed + Sized {
    /// Fallible twin of [`Tensor::any_dim`].
    ///
    /// Checks that `dim` is in `-D..D`.
    ///
    /// Beyond burn: on a tensor with no elements the backends disagree (Flex panics when a
    /// dimension other than `dim` is empty, wgpu panics on any empty input, NdArray computes
    /// the result). The twin computes it without dispatching: the reduced shape filled with
    /// `false` (the identity of `any`), which has no element when another dimension is empty.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics anyway.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduce;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(t.clone().try_any_dim(-1)?.dims(), [2, 1]);
    /// assert!(t.try_any_dim(2).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "any_dim")]
    fn try_any_dim(self, dim: impl AsIndex) -> Result<Tensor<D, Bool>>;

    /// Fallible twin of [`Tensor::all_dim`]; the same checks as [`TryReduce::try_any_dim`].
    ///
    /// On a tensor with no elements the twin computes the result itself, as
    /// [`TryReduce::try_any_dim`] does, filled with `true` (the identity of `all`).
    ///
    /// # Errors
    ///
    /// As [`TryReduce::try_any_dim`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduce;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(t.clone().try_all_dim(0)?.dims(), [1, 3]);
    /// assert!(t.try_all_dim(-3).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "all_dim")]
    fn try_all_dim(self, dim: impl AsIndex) -> Result<Tensor<D, Bool>>;

    /// Fallible twin of [`Tensor::any`]: `[true]` if any element is true (non-zero).
    ///
    /// burn checks nothing here. Beyond burn, an input with no element (a dimension is 0) is
    /// answered without dispatching: `[false]` (the identity of `any`), burn's result on Flex
    /// and NdArray. On wgpu a kernel panic poisons the device for the rest of the process,
    /// and wgpu's kernels panic on several ops of a `[0, n]` input, so the empty answer,
    /// which needs no kernel, is built here on every backend. See
    /// [`check::shape::no_elements`](crate::check::shape::no_elements).
    ///
    /// # Errors
    ///
    /// [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if burn panics on a
    /// non-empty input (none is known).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduce;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::from_floats([[0.0, 2.0]], &device);
    /// assert_eq!(t.try_any()?.into_data().to_vec::<bool>().unwrap(), [true]);
    /// let empty = Tensor::<2>::zeros([0, 3], &device);
    /// assert_eq!(empty.try_any()?.into_data().to_vec::<bool>().unwrap(), [false]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "any")]
    fn try_any(self) -> Result<Tensor<1, Bool>>;

    /// Fallible twin of [`Tensor::all`]: `[true]` if every element is true (non-zero).
    ///
    /// burn checks nothing here. Beyond burn, an input with no element is answered without
    /// dispatching: `[true]` (the identity of `all`), burn's result on Flex and NdArray; see
    /// [`TryReduce::try_any`] for why.
    ///
    /// # Errors
    ///
    /// As [`TryReduce::try_any`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduce;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::from_floats([[0.0, 2.0]], &device);
    /// assert_eq!(t.try_all()?.into_data().to_vec::<bool>().unwrap(), [false]);
    /// let empty = Tensor::<2>::zeros([0, 3], &device);
    /// assert_eq!(empty.try_all()?.into_data().to_vec::<bool>().unwrap(), [true]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "all")]
    fn try_all(self) -> Result<Tensor<1, Bool>>;
}

/// `any_dim` / `all_dim`: dim, then the empty-input result (filled with the reduction's
/// identity), then burn.
macro_rules! any_all {
    ($twin:ident, $burn:ident, $identity:expr) => {
        fn $twin(self, dim: impl AsIndex) -> Result<Tensor<D, Bool>> {
            const OP: &str = stringify!($burn);
            let dim = check::dim(OP, dim.as_index(), D)?;
            if let Some(shape) = reduce::empty_any_all(&self.dims(), dim) {
                let device = self.device();
                return catch(OP, || Tensor::<D, Bool>::full(shape, $identity, &device));
            }
            catch(OP, || self.$burn(dim))
        }
    };
}

/// `any` / `all`: the empty-input result (the reduction's identity) without a kernel, then
/// burn.
macro_rules! any_all_whole {
    ($twin:ident, $burn:ident, $identity:expr) => {
        fn $twin(self) -> Result<Tensor<1, Bool>> {
            const OP: &str = stringify!($burn);
            if check::shape::no_elements(&self.dims()) {
                let device = self.device();
                return catch(OP, || Tensor::<1, Bool>::full([1], $identity, &device));
            }
            catch(OP, || self.$burn())
        }
    };
}

impl<const D: usize, K: Basic> TryReduce<D, K> for Tensor<D, K> {
    any_all!(try_any_dim, any_dim, false);
    any_all!(try_all_dim, all_dim, true);
    any_all_whole!(try_any, any, false);
    any_all_whole!(try_all, all, true);
}

/// Fallible twins of the reductions of numeric kinds (Float, Int): sums, means, products and
/// cumulative sums and products (burn's `api/numeric.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryReduceNumeric<const D: usize, K: Numeric>: Sealed + Sized {
    /// Fallible twin of [`Tensor::mean`].
    ///
    /// Checks, for an Int tensor only, that it has at least one element (burn asserts it: an
    /// integer mean of nothing has no value). A Float mean of nothing is `NaN`, as in burn.
    ///
    /// # Errors
    ///
    /// [`GuardError::Empty`](crate::GuardError::Empty) for an empty Int tensor.
    ///
    /// ```
    /// use burn::tensor::{Device, Int, Tensor};
    /// use burn_guard::tensor::TryReduceNumeric;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1, Int>::from_ints([2, 4], &device);
    /// assert_eq!(t.try_mean()?.into_scalar::<i64>(), 3);
    /// assert!(Tensor::<1, Int>::zeros([0], &device).try_mean().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "mean")]
    fn try_mean(self) -> Result<Tensor<1, K>>;

    /// Fallible twin of [`Tensor::mean_dim`].
    ///
    /// Checks that `dim` is in `-D..D` and, for an Int tensor only, that the dimension is not
    /// empty (burn asserts it).
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::Empty`](crate::GuardError::Empty) for an empty dimension of an Int tensor.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceNumeric;
    ///
    /// let t = Tensor::<2>::ones([2, 3], &Device::flex());
    /// assert_eq!(t.clone().try_mean_dim(1)?.dims(), [2, 1]);
    /// assert!(t.try_mean_dim(2).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "mean_dim")]
    fn try_mean_dim<I: AsIndex>(self, dim: I) -> Result<Self>;

    decl_dims! { "mean_dims", "TryReduceNumeric", "TryReduceNumeric::try_mean_dim", "";
    fn try_mean_dims<I: AsIndex>(self, dims: &[I]) -> Result<Self>; }

    decl_dim! { "sum_dim", "TryReduceNumeric", "out", "f32", "[6.0]";
    fn try_sum_dim<I: AsIndex>(self, dim: I) -> Result<Self>; }

    decl_dims! { "sum_dims", "TryReduceNumeric", "TryReduceNumeric::try_sum_dim", " (repeats are allowed, as in burn)";
    fn try_sum_dims<I: AsIndex>(self, dims: &[I]) -> Result<Self>; }

    /// Fallible twin of [`Tensor::sum_dims_squeeze`].
    ///
    /// Checks that every dim is in `-D..D`, that not every dimension is squeezed and that `D2`
    /// is `D` minus the number of distinct dims. With an empty list burn sums nothing and
    /// squeezes every dimension of size 1; so does the twin.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad dim.
    /// - [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) when every
    ///   dimension would be squeezed.
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for a wrong `D2`.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceNumeric;
    ///
    /// let t = Tensor::<3>::ones([2, 3, 4], &Device::flex());
    /// let summed: Tensor<2> = t.clone().try_sum_dims_squeeze(&[1])?;
    /// assert_eq!(summed.dims(), [2, 4]);
    /// assert!(t.try_sum_dims_squeeze::<3, _>(&[1]).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "sum_dims_squeeze")]
    fn try_sum_dims_squeeze<const D2: usize, I: AsIndex>(self, dims: &[I])
    -> Result<Tensor<D2, K>>;

    decl_dim! { "prod_dim", "TryReduceNumeric", "out", "f32", "[6.0]";
    fn try_prod_dim<I: AsIndex>(self, dim: I) -> Result<Self>; }

    decl_dims! { "prod_dims", "TryReduceNumeric", "TryReduceNumeric::try_prod_dim", "";
    fn try_prod_dims<I: AsIndex>(self, dims: &[I]) -> Result<Self>; }

    decl_dim! { "cumsum", "TryReduceNumeric", "out", "f32", "[3.0, 4.0, 6.0]";
    fn try_cumsum<I: AsIndex>(self, dim: I) -> Result<Self>; }

    decl_dim! { "cumprod", "TryReduceNumeric", "out", "f32", "[3.0, 3.0, 6.0]";
    fn try_cumprod<I: AsIndex>(self, dim: I) -> Result<Self>; }
}

/// Whether the tensor kind `K` is Int (whose means burn asserts non-empty).
fn is_int<K: TensorKind>() -> bool {
    K::KIND == Kind::Int
}

/// Resolves a list of `AsIndex` dims against `D`.
fn resolve_dims<I: AsIndex>(op: &'static str, dims: &[I], rank: usize) -> Result<Vec<usize>> {
    let raw: Vec<isize> = dims.iter().map(|&d| d.as_index()).collect();
    reduce::dims(op, &raw, rank)
}

/// A twin that only resolves one dim, then calls burn's method with it.
macro_rules! dim_only {
    ($twin:ident, $burn:ident, $out:ty) => {
        fn $twin<I: AsIndex>(self, dim: I) -> Result<$out> {
            const OP: &str = stringify!($burn);
            let dim = check::dim(OP, dim.as_index(), D)?;
            catch(OP, || self.$burn(dim))
        }
    };
}

impl<const D: usize, K: Numeric> TryReduceNumeric<D, K> for Tensor<D, K> {
    fn try_mean(self) -> Result<Tensor<1, K>> {
        const OP: &str = "mean";
        if is_int::<K>() {
            reduce::int_mean(OP, &self.dims())?;
        }
        catch(OP, || self.mean())
    }

    fn try_mean_dim<I: AsIndex>(self, dim: I) -> Result<Self> {
        const OP: &str = "mean_dim";
        let dim = check::dim(OP, dim.as_index(), D)?;
        if is_int::<K>() {
            reduce::nonempty_dim(OP, &self.dims(), dim)?;
        }
        catch(OP, || self.mean_dim(dim))
    }

    fn try_mean_dims<I: AsIndex>(self, dims: &[I]) -> Result<Self> {
        const OP: &str = "mean_dims";
        let dims = resolve_dims(OP, dims, D)?;
        if is_int::<K>() {
            reduce::nonempty_dims(OP, &self.dims(), &dims)?;
        }
        catch(OP, || self.mean_dims(&dims))
    }

    dim_only!(try_sum_dim, sum_dim, Self);

    fn try_sum_dims<I: AsIndex>(self, dims: &[I]) -> Result<Self> {
        const OP: &str = "sum_dims";
        let dims = resolve_dims(OP, dims, D)?;
        catch(OP, || self.sum_dims(&dims))
    }

    fn try_sum_dims_squeeze<const D2: usize, I: AsIndex>(
        self,
        dims: &[I],
    ) -> Result<Tensor<D2, K>> {
        const OP: &str = "sum_dims_squeeze";
        let dims = resolve_dims(OP, dims, D)?;
        reduce::sum_dims_squeeze(OP, &self.dims(), &dims, D2)?;
        catch(OP, || self.sum_dims_squeeze::<D2, usize>(&dims))
    }

    dim_only!(try_prod_dim, prod_dim, Self);

    fn try_prod_dims<I: AsIndex>(self, dims: &[I]) -> Result<Self> {
        const OP: &str = "prod_dims";
        let dims = resolve_dims(OP, dims, D)?;
        catch(OP, || self.prod_dims(&dims))
    }

    dim_only!(try_cumsum, cumsum, Self);
    dim_only!(try_cumprod, cumprod, Self);
}

/// Fallible twins of the ordering reductions of Float and Int tensors: max/min and their
/// indices, sorts, top-k and cumulative max/min (burn's `api/orderable.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryReduceOrdered<const D: usize, K: Ordered>: Sealed + Sized {
    decl_dim! { "sort", "TryReduceOrdered", "out", "f32", "[1.0, 2.0, 3.0]";
    fn try_sort<I: AsIndex>(self, dim: I) -> Result<Self>; }

    decl_dim! { "sort_descending", "TryReduceOrdered", "out", "f32", "[3.0, 2.0, 1.0]";
    fn try_sort_descending<I: AsIndex>(self, dim: I) -> Result<Self>; }

    decl_dim! { "sort_with_indices", "TryReduceOrdered", "(_, out)", "i64", "[1, 2, 0]";
    fn try_sort_with_indices<I: AsIndex>(self, dim: I) -> Result<(Self, Tensor<D, Int>)>; }

    decl_dim! { "sort_descending_with_indices", "TryReduceOrdered", "(_, out)", "i64", "[0, 2, 1]";
    fn try_sort_descending_with_indices<I: AsIndex>(self, dim: I) -> Result<(Self, Tensor<D, Int>)>; }

    decl_dim! { "argsort", "TryReduceOrdered", "out", "i64", "[1, 2, 0]";
    fn try_argsort<I: AsIndex>(self, dim: I) -> Result<Tensor<D, Int>>; }

    decl_dim! { "argsort_descending", "TryReduceOrdered", "out", "i64", "[0, 2, 1]";
    fn try_argsort_descending<I: AsIndex>(self, dim: I) -> Result<Tensor<D, Int>>; }

    /// Fallible twin of [`Tensor::topk`].
    ///
    /// Checks that `dim` is in `-D..D` and `k <= shape[dim]` (`k == 0` is allowed, as in
    /// burn).
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for `k` too large.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceOrdered;
    ///
    /// let t = Tensor::<1>::from_floats([3.0, 1.0, 2.0], &Device::flex());
    /// assert_eq!(t.clone().try_topk(2, 0)?.to_data().try_to_vec::<f32>().unwrap(), [3.0, 2.0]);
    /// let err = t.try_topk(4, 0).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "topk: k must not exceed the dimension size; got k=4, expected at most 3"
    /// );
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "topk")]
    fn try_topk<I: AsIndex>(self, k: usize, dim: I) -> Result<Self>;

    /// Fallible twin of [`Tensor::topk_with_indices`]; the same checks as
    /// [`TryReduceOrdered::try_topk`].
    ///
    /// # Errors
    ///
    /// As [`TryReduceOrdered::try_topk`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceOrdered;
    ///
    /// let t = Tensor::<1>::from_floats([3.0, 1.0, 2.0], &Device::flex());
    /// let (_, indices) = t.clone().try_topk_with_indices(2, 0)?;
    /// assert_eq!(indices.to_data().convert::<i64>().try_to_vec::<i64>().unwrap(), [0, 2]);
    /// assert!(t.try_topk_with_indices(4, 0).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "topk_with_indices")]
    fn try_topk_with_indices<I: AsIndex>(self, k: usize, dim: I) -> Result<(Self, Tensor<D, Int>)>;

    /// Fallible twin of [`Tensor::argtopk`].
    ///
    /// Checks that `dim` is in `-D..D` and `k < shape[dim]`: burn asserts this stricter rule
    /// for `argtopk` (so `k == shape[dim]`, which [`TryReduceOrdered::try_topk`] accepts, is
    /// refused here, and so is any `k` on an empty dimension).
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for `k` too large.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceOrdered;
    ///
    /// let t = Tensor::<1>::from_floats([3.0, 1.0, 2.0], &Device::flex());
    /// assert_eq!(t.clone().try_argtopk(2, 0)?.dims(), [2]);
    /// assert!(t.try_argtopk(3, 0).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "argtopk")]
    fn try_argtopk(self, k: usize, dim: impl AsIndex) -> Result<Tensor<D, Int>>;

    /// Fallible twin of [`Tensor::max`].
    ///
    /// Beyond burn, which leaves it to the backend (Flex and NdArray panic), checks that the
    /// tensor is not empty.
    ///
    /// # Errors
    ///
    /// [`GuardError::Empty`](crate::GuardError::Empty) for an empty tensor.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceOrdered;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::from_floats([3.0, -5.0, 2.0], &device);
    /// assert_eq!(t.try_max()?.into_scalar::<f32>(), 3.0);
    /// assert!(Tensor::<2>::zeros([2, 0], &device).try_max().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "max")]
    fn try_max(self) -> Result<Tensor<1, K>>;

    /// Fallible twin of [`Tensor::min`]; the same check as [`TryReduceOrdered::try_max`].
    ///
    /// # Errors
    ///
    /// [`GuardError::Empty`](crate::GuardError::Empty) for an empty tensor.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceOrdered;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::from_floats([3.0, -5.0, 2.0], &device);
    /// assert_eq!(t.try_min()?.into_scalar::<f32>(), -5.0);
    /// assert!(Tensor::<1>::zeros([0], &device).try_min().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "min")]
    fn try_min(self) -> Result<Tensor<1, K>>;

    /// Fallible twin of [`Tensor::max_abs`]; the same check as [`TryReduceOrdered::try_max`].
    ///
    /// # Errors
    ///
    /// [`GuardError::Empty`](crate::GuardError::Empty) for an empty tensor.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceOrdered;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::from_floats([3.0, -5.0, 2.0], &device);
    /// assert_eq!(t.try_max_abs()?.into_scalar::<f32>(), 5.0);
    /// assert!(Tensor::<1>::zeros([0], &device).try_max_abs().is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "max_abs")]
    fn try_max_abs(self) -> Result<Tensor<1, K>>;

    /// Fallible twin of [`Tensor::argmax`].
    ///
    /// Checks that `dim` is in `-D..D` and — beyond burn, which leaves it to the backend
    /// (Flex and NdArray panic) — that the dimension is not empty.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::Empty`](crate::GuardError::Empty) for an empty dimension.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceOrdered;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::from_floats([3.0, 1.0, 2.0], &device);
    /// assert_eq!(t.try_argmax(0)?.into_scalar::<i64>(), 0);
    /// let err = Tensor::<2>::zeros([2, 0], &device).try_argmax(1).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "argmax: the reduced dimension must not be empty; got shape [2, 0] (dim 1)"
    /// );
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "argmax")]
    fn try_argmax(self, dim: impl AsIndex) -> Result<Tensor<D, Int>>;

    decl_dim! { extremum "argmin", "out", "i64", "[1]";
    fn try_argmin(self, dim: impl AsIndex) -> Result<Tensor<D, Int>>; }

    decl_dim! { extremum "max_dim", "out", "f32", "[3.0]";
    fn try_max_dim<I: AsIndex>(self, dim: I) -> Result<Self>; }

    decl_dims! { "max_dims", "TryReduceOrdered", "TryReduceOrdered::try_max_dim", "";
    fn try_max_dims<I: AsIndex>(self, dims: &[I]) -> Result<Self>; }

    decl_dim! { extremum "max_dim_with_indices", "(_, out)", "i64", "[0]";
    fn try_max_dim_with_indices<I: AsIndex>(self, dim: I) -> Result<(Self, Tensor<D, Int>)>; }

    decl_dim! { extremum "max_abs_dim", "out", "f32", "[3.0]";
    fn try_max_abs_dim<I: AsIndex>(self, dim: I) -> Result<Self>; }

    decl_dims! { "max_abs_dims", "TryReduceOrdered", "TryReduceOrdered::try_max_abs_dim", " (an empty list returns `abs()`, as in burn)";
    fn try_max_abs_dims<I: AsIndex>(self, dims: &[I]) -> Result<Self>; }

    decl_dim! { extremum "min_dim", "out", "f32", "[1.0]";
    fn try_min_dim<I: AsIndex>(self, dim: I) -> Result<Self>; }

    decl_dims! { "min_dims", "TryReduceOrdered", "TryReduceOrdered::try_min_dim", "";
    fn try_min_dims<I: AsIndex>(self, dims: &[I]) -> Result<Self>; }

    decl_dim! { extremum "min_dim_with_indices", "(_, out)", "i64", "[1]";
    fn try_min_dim_with_indices<I: AsIndex>(self, dim: I) -> Result<(Self, Tensor<D, Int>)>; }

    decl_dim! { "cummin", "TryReduceOrdered", "out", "f32", "[3.0, 1.0, 1.0]";
    fn try_cummin<I: AsIndex>(self, dim: I) -> Result<Self>; }

    decl_dim! { "cummax", "TryReduceOrdered", "out", "f32", "[3.0, 3.0, 3.0]";
    fn try_cummax<I: AsIndex>(self, dim: I) -> Result<Self>; }
}

/// A twin of an extremum along one dim: dim, non-empty dim, then burn's method.
macro_rules! extremum {
    ($twin:ident, $burn:ident, $out:ty) => {
        fn $twin<I: AsIndex>(self, dim: I) -> Result<$out> {
            const OP: &str = stringify!($burn);
            let dim = check::dim(OP, dim.as_index(), D)?;
            reduce::nonempty_dim(OP, &self.dims(), dim)?;
            catch(OP, || self.$burn(dim))
        }
    };
}

/// A twin of an extremum over a list of dims: every dim, every dim non-empty, then burn.
macro_rules! extremum_dims {
    ($twin:ident, $burn:ident) => {
        fn $twin<I: AsIndex>(self, dims: &[I]) -> Result<Self> {
            const OP: &str = stringify!($burn);
            let dims = resolve_dims(OP, dims, D)?;
            reduce::nonempty_dims(OP, &self.dims(), &dims)?;
            catch(OP, || self.$burn(&dims))
        }
    };
}

impl<const D: usize, K: Ordered> TryReduceOrdered<D, K> for Tensor<D, K> {
    dim_only!(try_sort, sort, Self);
    dim_only!(try_sort_descending, sort_descending, Self);
    dim_only!(
        try_sort_with_indices,
        sort_with_indices,
        (Self, Tensor<D, Int>)
    );
    dim_only!(
        try_sort_descending_with_indices,
        sort_descending_with_indices,
        (Self, Tensor<D, Int>)
    );
    dim_only!(try_argsort, argsort, Tensor<D, Int>);
    dim_only!(try_argsort_descending, argsort_descending, Tensor<D, Int>);

    fn try_topk<I: AsIndex>(self, k: usize, dim: I) -> Result<Self> {
        const OP: &str = "topk";
        let dim = check::dim(OP, dim.as_index(), D)?;
        reduce::topk(OP, k, &self.dims(), dim)?;
        catch(OP, || self.topk(k, dim))
    }

    fn try_topk_with_indices<I: AsIndex>(self, k: usize, dim: I) -> Result<(Self, Tensor<D, Int>)> {
        const OP: &str = "topk_with_indices";
        let dim = check::dim(OP, dim.as_index(), D)?;
        reduce::topk(OP, k, &self.dims(), dim)?;
        catch(OP, || self.topk_with_indices(k, dim))
    }

    fn try_argtopk(self, k: usize, dim: impl AsIndex) -> Result<Tensor<D, Int>> {
        const OP: &str = "argtopk";
        let dim = check::dim(OP, dim.as_index(), D)?;
        reduce::argtopk(OP, k, &self.dims(), dim)?;
        catch(OP, || self.argtopk(k, dim))
    }

    fn try_max(self) -> Result<Tensor<1, K>> {
        const OP: &str = "max";
        reduce::nonempty(OP, &self.dims())?;
        catch(OP, || self.max())
    }

    fn try_min(self) -> Result<Tensor<1, K>> {
        const OP: &str = "min";
        reduce::nonempty(OP, &self.dims())?;
        catch(OP, || self.min())
    }

    fn try_max_abs(self) -> Result<Tensor<1, K>> {
        const OP: &str = "max_abs";
        reduce::nonempty(OP, &self.dims())?;
        catch(OP, || self.max_abs())
    }

    fn try_argmax(self, dim: impl AsIndex) -> Result<Tensor<D, Int>> {
        const OP: &str = "argmax";
        let dim = check::dim(OP, dim.as_index(), D)?;
        reduce::nonempty_dim(OP, &self.dims(), dim)?;
        catch(OP, || self.argmax(dim))
    }

    fn try_argmin(self, dim: impl AsIndex) -> Result<Tensor<D, Int>> {
        const OP: &str = "argmin";
        let dim = check::dim(OP, dim.as_index(), D)?;
        reduce::nonempty_dim(OP, &self.dims(), dim)?;
        catch(OP, || self.argmin(dim))
    }

    extremum!(try_max_dim, max_dim, Self);
    extremum_dims!(try_max_dims, max_dims);
    extremum!(
        try_max_dim_with_indices,
        max_dim_with_indices,
        (Self, Tensor<D, Int>)
    );
    extremum!(try_max_abs_dim, max_abs_dim, Self);
    extremum_dims!(try_max_abs_dims, max_abs_dims);
    extremum!(try_min_dim, min_dim, Self);
    extremum_dims!(try_min_dims, min_dims);
    extremum!(
        try_min_dim_with_indices,
        min_dim_with_indices,
        (Self, Tensor<D, Int>)
    );
    dim_only!(try_cummin, cummin, Self);
    dim_only!(try_cummax, cummax, Self);
}

/// Fallible twins of the statistics of Float tensors: variance, median and covariance
/// (burn's `api/float.rs`).
///
/// Sealed: implemented for `burn::Tensor<D>` (Float) only.
pub trait TryReduceFloat<const D: usize>: Sealed + Sized {
    /// Fallible twin of [`Tensor::var`] (unbiased: divides by `n - 1`).
    ///
    /// Checks that `dim` is in `-D..D` and that the dimension is not empty. burn computes
    /// `shape[dim] - 1`, which underflows on an empty dimension: a panic in debug builds, a
    /// meaningless result in release builds. The twin refuses it in both.
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::Empty`](crate::GuardError::Empty) for an empty dimension.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceFloat;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::from_floats([1.0, 3.0], &device);
    /// assert_eq!(t.try_var(0)?.into_scalar::<f32>(), 2.0);
    /// assert!(Tensor::<2>::zeros([2, 0], &device).try_var(1).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "var")]
    fn try_var<I: AsIndex>(self, dim: I) -> Result<Self>;

    /// Fallible twin of [`Tensor::var_bias`] (biased: divides by `n`).
    ///
    /// Checks that `dim` is in `-D..D`. An empty dimension gives `NaN`, as in burn.
    ///
    /// # Errors
    ///
    /// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceFloat;
    ///
    /// let t = Tensor::<1>::from_floats([1.0, 3.0], &Device::flex());
    /// assert_eq!(t.clone().try_var_bias(0)?.into_scalar::<f32>(), 1.0);
    /// assert!(t.try_var_bias(1).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "var_bias")]
    fn try_var_bias<I: AsIndex>(self, dim: I) -> Result<Self>;

    /// Fallible twin of [`Tensor::var_mean`]: `(variance, mean)`; the same checks as
    /// [`TryReduceFloat::try_var`].
    ///
    /// # Errors
    ///
    /// As [`TryReduceFloat::try_var`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceFloat;
    ///
    /// let t = Tensor::<1>::from_floats([1.0, 3.0], &Device::flex());
    /// let (var, mean) = t.clone().try_var_mean(0)?;
    /// assert_eq!((var.into_scalar::<f32>(), mean.into_scalar::<f32>()), (2.0, 2.0));
    /// assert!(t.try_var_mean(-2).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "var_mean")]
    fn try_var_mean<I: AsIndex>(self, dim: I) -> Result<(Self, Self)>;

    /// Fallible twin of [`Tensor::var_mean_bias`]: `(biased variance, mean)`; the same checks
    /// as [`TryReduceFloat::try_var_bias`].
    ///
    /// # Errors
    ///
    /// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceFloat;
    ///
    /// let t = Tensor::<1>::from_floats([1.0, 3.0], &Device::flex());
    /// let (var, mean) = t.clone().try_var_mean_bias(0)?;
    /// assert_eq!((var.into_scalar::<f32>(), mean.into_scalar::<f32>()), (1.0, 2.0));
    /// assert!(t.try_var_mean_bias(1).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "var_mean_bias")]
    fn try_var_mean_bias<I: AsIndex>(self, dim: I) -> Result<(Self, Self)>;

    /// Fallible twin of [`Tensor::median`] (the lower median for an even count).
    ///
    /// Checks that `dim` is in `-D..D` and that the dimension is not empty (burn computes
    /// `shape[dim] - 1` and panics: an underflow in debug builds, the `narrow` check in
    /// release builds).
    ///
    /// # Errors
    ///
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::Empty`](crate::GuardError::Empty) for an empty dimension.
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceFloat;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<1>::from_floats([3.0, 1.0, 2.0, 4.0], &device);
    /// assert_eq!(t.try_median(0)?.into_scalar::<f32>(), 2.0);
    /// assert!(Tensor::<1>::zeros([0], &device).try_median(0).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "median")]
    fn try_median<I: AsIndex>(self, dim: I) -> Result<Self>;

    /// Fallible twin of [`Tensor::median_with_indices`]; the same checks as
    /// [`TryReduceFloat::try_median`].
    ///
    /// # Errors
    ///
    /// As [`TryReduceFloat::try_median`].
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceFloat;
    ///
    /// let t = Tensor::<1>::from_floats([3.0, 1.0, 2.0], &Device::flex());
    /// let (median, index) = t.clone().try_median_with_indices(0)?;
    /// assert_eq!((median.into_scalar::<f32>(), index.into_scalar::<i64>()), (2.0, 2));
    /// assert!(t.try_median_with_indices(1).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "median_with_indices")]
    fn try_median_with_indices<I: AsIndex>(self, dim: I) -> Result<(Self, Tensor<D, Int>)>;

    /// Fallible twin of [`Tensor::cov`].
    ///
    /// Checks that `D >= 2` (burn multiplies the centred tensor by its transpose, and
    /// `matmul` needs rank 2) and that `dim` is in `-D..D`. A `correction_factor` equal to the size
    /// of `dim` divides by zero (`inf`/`NaN`), as in burn.
    ///
    /// # Errors
    ///
    /// - [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) for `D < 2`.
    /// - [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.
    /// - [`GuardError::BackendPanic`](crate::GuardError::BackendPanic) if the backend panics
    ///   anyway (NdArray's `matmul` panics on some tensors with a zero-sized dimension, where
    ///   Flex returns a result).
    ///
    /// ```
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::tensor::TryReduceFloat;
    ///
    /// let device = Device::flex();
    /// let t = Tensor::<2>::from_floats([[1.0, 2.0], [3.0, 6.0]], &device);
    /// assert_eq!(t.try_cov(0, 1)?.dims(), [2, 2]);
    /// let err = Tensor::<1>::ones([3], &device).try_cov(0, 1).unwrap_err();
    /// assert!(err.to_string().starts_with("cov: cov needs a tensor of rank 2 or more"));
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    #[doc(alias = "cov")]
    fn try_cov<I: AsIndex>(self, dim: I, correction_factor: usize) -> Result<Tensor<D>>;
}

impl<const D: usize> TryReduceFloat<D> for Tensor<D> {
    extremum!(try_var, var, Self);
    dim_only!(try_var_bias, var_bias, Self);
    extremum!(try_var_mean, var_mean, (Self, Self));
    dim_only!(try_var_mean_bias, var_mean_bias, (Self, Self));
    extremum!(try_median, median, Self);
    extremum!(
        try_median_with_indices,
        median_with_indices,
        (Self, Tensor<D, Int>)
    );

    fn try_cov<I: AsIndex>(self, dim: I, correction_factor: usize) -> Result<Tensor<D>> {
        const OP: &str = "cov";
        reduce::cov(OP, &self.dims())?;
        let dim = check::dim(OP, dim.as_index(), D)?;
        let dims = self.dims();
        if !dims.contains(&0) {
            return catch(OP, || self.cov(dim, correction_factor));
        }
        // burn's own steps, with the product of an empty operand built without dispatch as
        // `try_matmul` does (NdArray's matmul divides by zero on it; Flex gives zeros).
        let n = dims.get(dim).copied().unwrap_or(0);
        catch(OP, || {
            let centered = (self.clone() - self.mean_dim(dim)).swap_dims(dim, 0);
            let lhs = centered.transpose();
            let lhs_dims = lhs.dims();
            let mut out = lhs_dims.to_vec();
            if let (Some(last), Some(&rows)) = (out.last_mut(), lhs_dims.get(D.saturating_sub(2))) {
                *last = rows;
            }
            super::numeric::zero_sized_product(&lhs, out)
                .div_scalar(n as f32 - correction_factor as f32)
        })
    }
}
