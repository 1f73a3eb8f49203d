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
use super::twins;
use crate::check;
use crate::check::reduce;
use crate::error::Result;
use crate::panic::catch;

/// Documents one twin checked along one `dim`, a `twins!` row's doc template: it takes the
/// row's signature (where `fn try_<name>` appears literally) and puts its docs on it. The
/// example runs the twin on `[3.0, 1.0, 2.0]` along dim 0, binds the output to `$binding` and
/// expects `out` read as `$ty` to be `$values`, then runs it along dim 1, which it refuses. An
/// `extremum` row is also checked, and shown refused, on an empty dimension (an empty set has
/// no extremum).
macro_rules! dim_doc {
    ($alias:literal, $trait:literal, $binding:literal, $ty:literal, $values:literal; $($sig:tt)*) => {
        dim_doc! { @doc $alias, $trait, $binding, $ty, $values,
            "Checks that `dim` is in `-D..D`.",
            "[`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange) for a bad `dim`.",
            ""; $($sig)* }
    };
    (extremum $alias:literal, $binding:literal, $ty:literal, $values:literal; $($sig:tt)*) => {
        dim_doc! { @doc $alias, "TryReduceOrdered", $binding, $ty, $values,
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
macro_rules! dims_doc {
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

/// The body of a twin that resolves one dim, then calls burn's method with it:
/// `dim_only!(self.sort(dim))`.
macro_rules! dim_only {
    ($this:ident.$burn:ident($dim:ident)) => {{
        let $dim = check::dim(OP, $dim.as_index(), D)?;
        catch(OP, || $this.$burn($dim))
    }};
}

/// The body of a twin of an extremum along one dim: the dim, a dimension that is not empty
/// (an empty set has no extremum), then burn's method.
macro_rules! extremum {
    ($this:ident.$burn:ident($dim:ident)) => {{
        let $dim = check::dim(OP, $dim.as_index(), D)?;
        reduce::nonempty_dim(OP, &$this.dims(), $dim)?;
        catch(OP, || $this.$burn($dim))
    }};
}

/// The body of a twin of an extremum over a list of dims: every dim, every dim non-empty,
/// then burn.
macro_rules! extremum_dims {
    ($this:ident.$burn:ident($dims:ident)) => {{
        let $dims = resolve_dims(OP, $dims, D)?;
        reduce::nonempty_dims(OP, &$this.dims(), &$dims)?;
        catch(OP, || $this.$burn(&$dims))
    }};
}

/// The body of `any_dim` / `all_dim`: the dim, then the empty-input result (filled with the
/// reduction's identity), then burn.
macro_rules! any_all {
    ($this:ident.$burn:ident($dim:ident), $identity:expr) => {{
        let $dim = check::dim(OP, $dim.as_index(), D)?;
        if let Some(shape) = reduce::empty_any_all(&$this.dims(), $dim) {
            let device = $this.device();
            return catch(OP, || Tensor::<D, Bool>::full(shape, $identity, &device));
        }
        catch(OP, || $this.$burn($dim))
    }};
}

/// The body of `any` / `all`: the empty-input result (the reduction's identity) without a
/// kernel, then burn.
macro_rules! any_all_whole {
    ($this:ident.$burn:ident(), $identity:expr) => {{
        if check::shape::no_elements(&$this.dims()) {
            let device = $this.device();
            return catch(OP, || Tensor::<1, Bool>::full([1], $identity, &device));
        }
        catch(OP, || $this.$burn())
    }};
}

twins! {
/// Fallible twins of the reductions every tensor kind has: `any`, `all`, `any_dim` and
/// `all_dim` (burn's `api/base.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryReduce<const D: usize, K: Basic> for Tensor<D, K> {
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
    fn try_any_dim(self, dim: impl AsIndex) -> Tensor<D, Bool>
    => any_dim { any_all!(self.any_dim(dim), false) }

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
    fn try_all_dim(self, dim: impl AsIndex) -> Tensor<D, Bool>
    => all_dim { any_all!(self.all_dim(dim), true) }

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
    fn try_any(self) -> Tensor<1, Bool> => any { any_all_whole!(self.any(), false) }

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
    fn try_all(self) -> Tensor<1, Bool> => all { any_all_whole!(self.all(), true) }
}
}

twins! {
/// Fallible twins of the reductions of numeric kinds (Float, Int): sums, means, products and
/// cumulative sums and products (burn's `api/numeric.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryReduceNumeric<const D: usize, K: Numeric> for Tensor<D, K> {
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
    fn try_mean(self) -> Tensor<1, K> => mean {
        if is_int::<K>() {
            reduce::int_mean(OP, &self.dims())?;
        }
        catch(OP, || self.mean())
    }

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
    fn try_mean_dim<I: AsIndex>(self, dim: I) -> Self => mean_dim {
        let dim = check::dim(OP, dim.as_index(), D)?;
        if is_int::<K>() {
            reduce::nonempty_dim(OP, &self.dims(), dim)?;
        }
        catch(OP, || self.mean_dim(dim))
    }

    dims_doc!("mean_dims", "TryReduceNumeric", "TryReduceNumeric::try_mean_dim", "")
    fn try_mean_dims<I: AsIndex>(self, dims: &[I]) -> Self => mean_dims {
        let dims = resolve_dims(OP, dims, D)?;
        if is_int::<K>() {
            reduce::nonempty_dims(OP, &self.dims(), &dims)?;
        }
        catch(OP, || self.mean_dims(&dims))
    }

    dim_doc!("sum_dim", "TryReduceNumeric", "out", "f32", "[6.0]")
    fn try_sum_dim<I: AsIndex>(self, dim: I) -> Self => sum_dim { dim_only!(self.sum_dim(dim)) }

    dims_doc!("sum_dims", "TryReduceNumeric", "TryReduceNumeric::try_sum_dim",
        " (repeats are allowed, as in burn)")
    fn try_sum_dims<I: AsIndex>(self, dims: &[I]) -> Self => sum_dims {
        let dims = resolve_dims(OP, dims, D)?;
        catch(OP, || self.sum_dims(&dims))
    }

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
    -> Tensor<D2, K> => sum_dims_squeeze {
        let dims = resolve_dims(OP, dims, D)?;
        reduce::sum_dims_squeeze(OP, &self.dims(), &dims, D2)?;
        catch(OP, || self.sum_dims_squeeze::<D2, usize>(&dims))
    }

    dim_doc!("prod_dim", "TryReduceNumeric", "out", "f32", "[6.0]")
    fn try_prod_dim<I: AsIndex>(self, dim: I) -> Self => prod_dim { dim_only!(self.prod_dim(dim)) }

    dims_doc!("prod_dims", "TryReduceNumeric", "TryReduceNumeric::try_prod_dim", "")
    fn try_prod_dims<I: AsIndex>(self, dims: &[I]) -> Self => prod_dims {
        let dims = resolve_dims(OP, dims, D)?;
        catch(OP, || self.prod_dims(&dims))
    }

    dim_doc!("cumsum", "TryReduceNumeric", "out", "f32", "[3.0, 4.0, 6.0]")
    fn try_cumsum<I: AsIndex>(self, dim: I) -> Self => cumsum { dim_only!(self.cumsum(dim)) }

    dim_doc!("cumprod", "TryReduceNumeric", "out", "f32", "[3.0, 3.0, 6.0]")
    fn try_cumprod<I: AsIndex>(self, dim: I) -> Self => cumprod { dim_only!(self.cumprod(dim)) }
}
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

twins! {
/// Fallible twins of the ordering reductions of Float and Int tensors: max/min and their
/// indices, sorts, top-k and cumulative max/min (burn's `api/orderable.rs`).
///
/// Sealed: implemented for `burn::Tensor<D, K>` only.
pub trait TryReduceOrdered<const D: usize, K: Ordered> for Tensor<D, K> {
    dim_doc!("sort", "TryReduceOrdered", "out", "f32", "[1.0, 2.0, 3.0]")
    fn try_sort<I: AsIndex>(self, dim: I) -> Self => sort { dim_only!(self.sort(dim)) }

    dim_doc!("sort_descending", "TryReduceOrdered", "out", "f32", "[3.0, 2.0, 1.0]")
    fn try_sort_descending<I: AsIndex>(self, dim: I) -> Self
    => sort_descending { dim_only!(self.sort_descending(dim)) }

    dim_doc!("sort_with_indices", "TryReduceOrdered", "(_, out)", "i64", "[1, 2, 0]")
    fn try_sort_with_indices<I: AsIndex>(self, dim: I) -> (Self, Tensor<D, Int>)
    => sort_with_indices { dim_only!(self.sort_with_indices(dim)) }

    dim_doc!("sort_descending_with_indices", "TryReduceOrdered", "(_, out)", "i64", "[0, 2, 1]")
    fn try_sort_descending_with_indices<I: AsIndex>(self, dim: I) -> (Self, Tensor<D, Int>)
    => sort_descending_with_indices { dim_only!(self.sort_descending_with_indices(dim)) }

    dim_doc!("argsort", "TryReduceOrdered", "out", "i64", "[1, 2, 0]")
    fn try_argsort<I: AsIndex>(self, dim: I) -> Tensor<D, Int>
    => argsort { dim_only!(self.argsort(dim)) }

    dim_doc!("argsort_descending", "TryReduceOrdered", "out", "i64", "[0, 2, 1]")
    fn try_argsort_descending<I: AsIndex>(self, dim: I) -> Tensor<D, Int>
    => argsort_descending { dim_only!(self.argsort_descending(dim)) }

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
    fn try_topk<I: AsIndex>(self, k: usize, dim: I) -> Self => topk {
        let dim = check::dim(OP, dim.as_index(), D)?;
        reduce::topk(OP, k, &self.dims(), dim)?;
        catch(OP, || self.topk(k, dim))
    }

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
    fn try_topk_with_indices<I: AsIndex>(self, k: usize, dim: I) -> (Self, Tensor<D, Int>)
    => topk_with_indices {
        let dim = check::dim(OP, dim.as_index(), D)?;
        reduce::topk(OP, k, &self.dims(), dim)?;
        catch(OP, || self.topk_with_indices(k, dim))
    }

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
    fn try_argtopk(self, k: usize, dim: impl AsIndex) -> Tensor<D, Int> => argtopk {
        let dim = check::dim(OP, dim.as_index(), D)?;
        reduce::argtopk(OP, k, &self.dims(), dim)?;
        catch(OP, || self.argtopk(k, dim))
    }

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
    fn try_max(self) -> Tensor<1, K> => max() [reduce::nonempty(&self.dims())];

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
    fn try_min(self) -> Tensor<1, K> => min() [reduce::nonempty(&self.dims())];

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
    fn try_max_abs(self) -> Tensor<1, K> => max_abs() [reduce::nonempty(&self.dims())];

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
    fn try_argmax(self, dim: impl AsIndex) -> Tensor<D, Int>
    => argmax { extremum!(self.argmax(dim)) }

    dim_doc!(extremum "argmin", "out", "i64", "[1]")
    fn try_argmin(self, dim: impl AsIndex) -> Tensor<D, Int>
    => argmin { extremum!(self.argmin(dim)) }

    dim_doc!(extremum "max_dim", "out", "f32", "[3.0]")
    fn try_max_dim<I: AsIndex>(self, dim: I) -> Self => max_dim { extremum!(self.max_dim(dim)) }

    dims_doc!("max_dims", "TryReduceOrdered", "TryReduceOrdered::try_max_dim", "")
    fn try_max_dims<I: AsIndex>(self, dims: &[I]) -> Self
    => max_dims { extremum_dims!(self.max_dims(dims)) }

    dim_doc!(extremum "max_dim_with_indices", "(_, out)", "i64", "[0]")
    fn try_max_dim_with_indices<I: AsIndex>(self, dim: I) -> (Self, Tensor<D, Int>)
    => max_dim_with_indices { extremum!(self.max_dim_with_indices(dim)) }

    dim_doc!(extremum "max_abs_dim", "out", "f32", "[3.0]")
    fn try_max_abs_dim<I: AsIndex>(self, dim: I) -> Self
    => max_abs_dim { extremum!(self.max_abs_dim(dim)) }

    dims_doc!("max_abs_dims", "TryReduceOrdered", "TryReduceOrdered::try_max_abs_dim",
        " (an empty list returns `abs()`, as in burn)")
    fn try_max_abs_dims<I: AsIndex>(self, dims: &[I]) -> Self
    => max_abs_dims { extremum_dims!(self.max_abs_dims(dims)) }

    dim_doc!(extremum "min_dim", "out", "f32", "[1.0]")
    fn try_min_dim<I: AsIndex>(self, dim: I) -> Self => min_dim { extremum!(self.min_dim(dim)) }

    dims_doc!("min_dims", "TryReduceOrdered", "TryReduceOrdered::try_min_dim", "")
    fn try_min_dims<I: AsIndex>(self, dims: &[I]) -> Self
    => min_dims { extremum_dims!(self.min_dims(dims)) }

    dim_doc!(extremum "min_dim_with_indices", "(_, out)", "i64", "[1]")
    fn try_min_dim_with_indices<I: AsIndex>(self, dim: I) -> (Self, Tensor<D, Int>)
    => min_dim_with_indices { extremum!(self.min_dim_with_indices(dim)) }

    dim_doc!("cummin", "TryReduceOrdered", "out", "f32", "[3.0, 1.0, 1.0]")
    fn try_cummin<I: AsIndex>(self, dim: I) -> Self => cummin { dim_only!(self.cummin(dim)) }

    dim_doc!("cummax", "TryReduceOrdered", "out", "f32", "[3.0, 3.0, 3.0]")
    fn try_cummax<I: AsIndex>(self, dim: I) -> Self => cummax { dim_only!(self.cummax(dim)) }
}
}

twins! {
/// Fallible twins of the statistics of Float tensors: variance, median and covariance
/// (burn's `api/float.rs`).
///
/// Sealed: implemented for `burn::Tensor<D>` (Float) only.
pub trait TryReduceFloat<const D: usize> for Tensor<D> {
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
    fn try_var<I: AsIndex>(self, dim: I) -> Self => var { extremum!(self.var(dim)) }

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
    fn try_var_bias<I: AsIndex>(self, dim: I) -> Self => var_bias { dim_only!(self.var_bias(dim)) }

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
    fn try_var_mean<I: AsIndex>(self, dim: I) -> (Self, Self)
    => var_mean { extremum!(self.var_mean(dim)) }

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
    fn try_var_mean_bias<I: AsIndex>(self, dim: I) -> (Self, Self)
    => var_mean_bias { dim_only!(self.var_mean_bias(dim)) }

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
    fn try_median<I: AsIndex>(self, dim: I) -> Self => median { extremum!(self.median(dim)) }

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
    fn try_median_with_indices<I: AsIndex>(self, dim: I) -> (Self, Tensor<D, Int>)
    => median_with_indices { extremum!(self.median_with_indices(dim)) }

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
    fn try_cov<I: AsIndex>(self, dim: I, correction_factor: usize) -> Tensor<D> => cov {
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
}
