//! [`InputSpec`]: what a service promises about a user-supplied tensor — rank, per-dimension
//! bounds, dtype, finite values — checked in one call before a model sees it, with the same
//! one-line errors as every other refusal.
//!
//! Raw burn lets NaN flow through every layer without a word; a spec with
//! [`InputSpec::finite`] refuses it at the door.

use std::ops::RangeInclusive;

use burn::tensor::{DType, Tensor};

use crate::check;
use crate::error::{GuardError, Result};
use crate::panic::catch;

/// A declarative check of a service's float input.
///
/// The rank, bounds and dtype are read from the tensor's metadata (no device work); only
/// [`InputSpec::finite`] costs one reduction and one synchronous read of a count (a refused
/// input one read more, to tell NaN from `+inf` and `-inf`).
///
/// ```
/// use burn::tensor::{DType, Device, Tensor};
/// use burn_guard::input::InputSpec;
/// use burn_guard::ErrorKind;
///
/// // A batch of 1 to 256 rows of 64 finite f32 features.
/// let spec = InputSpec::new("features")
///     .rank(2)
///     .dim(0, 1..=256)
///     .dim(1, 64..=64)
///     .dtype(DType::F32)
///     .finite();
///
/// let device = Device::flex();
/// let ok = Tensor::<2>::ones([8, 64], &device);
/// spec.check(&ok)?;
///
/// let wrong_width = Tensor::<2>::ones([8, 63], &device);
/// assert_eq!(spec.check(&wrong_width).unwrap_err().kind(), ErrorKind::OutOfRange);
///
/// let nan = Tensor::<2>::ones([2, 64], &device).mul_scalar(f32::NAN);
/// let err = spec.check(&nan).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "features: values must be finite; got 128 non-finite of 128 values (128 NaN, 0 +inf, \
///      0 -inf) in F32 [2, 64]"
/// );
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputSpec {
    name: &'static str,
    rank: Option<usize>,
    dims: Vec<(usize, RangeInclusive<usize>)>,
    dtype: Option<DType>,
    finite: bool,
}

impl InputSpec {
    /// A spec that accepts anything; `name` is the op every refusal names.
    pub fn new(name: &'static str) -> Self {
        Self {
            name,
            rank: None,
            dims: Vec::new(),
            dtype: None,
            finite: false,
        }
    }

    /// The input must have this rank.
    #[must_use]
    pub fn rank(mut self, rank: usize) -> Self {
        self.rank = Some(rank);
        self
    }

    /// Dimension `dim` must have a size within `bounds` (`64..=64` for exactly 64).
    #[must_use]
    pub fn dim(mut self, dim: usize, bounds: RangeInclusive<usize>) -> Self {
        self.dims.push((dim, bounds));
        self
    }

    /// The input must have this dtype.
    #[must_use]
    pub fn dtype(mut self, dtype: DType) -> Self {
        self.dtype = Some(dtype);
        self
    }

    /// Every value must be finite (no NaN, no ±inf). Costs one reduction and one synchronous
    /// read of a count per [`check`](Self::check).
    #[must_use]
    pub fn finite(mut self) -> Self {
        self.finite = true;
        self
    }

    /// Checks the input's shape and dtype only: no device work, any tensor kind.
    ///
    /// # Errors
    ///
    /// [`GuardError::RankMismatch`], [`GuardError::OutOfRange`] (a dimension's size, named
    /// `dim N`, with the bounds as the limit), [`GuardError::DTypeMismatch`] (the input's
    /// dtype, then the spec's), in that order.
    pub fn check_meta(&self, shape: &[usize], dtype: DType) -> Result<()> {
        if let Some(rank) = self.rank {
            check::input::rank(self.name, shape, rank)?;
        }
        for (dim, bounds) in &self.dims {
            check::input::dim_size(self.name, shape, *dim, bounds)?;
        }
        if let Some(expected) = self.dtype {
            check::input::dtype(self.name, dtype, expected)?;
        }
        Ok(())
    }

    /// Checks a float input: [`check_meta`](Self::check_meta), then, when the spec asks for
    /// finite values, counts NaN and ±inf on the tensor's device.
    ///
    /// # Errors
    ///
    /// As [`check_meta`](Self::check_meta); [`GuardError::NonFinite`] with the count, split
    /// into NaN, `+inf` and `-inf`, and the tensor's dtype and shape;
    /// [`GuardError::Execution`] when the count cannot be read back; a caught
    /// [`GuardError::BackendPanic`] if the reduction panics.
    pub fn check<const D: usize>(&self, tensor: &Tensor<D>) -> Result<()> {
        self.check_meta(&tensor.dims(), tensor.dtype())?;
        if !self.finite {
            return Ok(());
        }
        let total = u64::try_from(tensor.shape().num_elements()).unwrap_or(u64::MAX);
        if total == 0 {
            return Ok(());
        }
        let values = tensor.clone();
        let count = catch(self.name, || {
            values
                .is_finite()
                .bool_not()
                .int()
                .sum()
                .try_into_scalar::<i64>()
        })?
        .map_err(|source| GuardError::from_read(self.name, source))?;
        check::finite(self.name, u64::try_from(count).unwrap_or(u64::MAX), total).map_err(|err| {
            // A refused input is read once more, for NaN, +inf and -inf apart; an accepted one
            // never is. Without that read the refusal stands as counted.
            let split = || crate::value_reads::read_non_finite_split(self.name, tensor).ok();
            err.of_tensor(split, tensor.dtype(), &tensor.dims())
        })
    }
}
