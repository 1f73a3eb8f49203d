//! Moving data between backends for a fallback, and counting the bytes from the data's dtype.

use burn::tensor::Tensor;
use burn_backend::tensor::FloatTensor;
use burn_backend::{Backend, TensorData};

use crate::error::Result;
use crate::panic::catch;

/// Bytes a tensor of any kind occupies in transit: elements × the size of its dtype (2 for
/// f16 and bf16, 4 for f32, 8 for f64), the stored bytes for a quantized one
/// ([`check::bytes::counted_bytes`](crate::check::bytes::counted_bytes)).
pub(crate) fn bytes_of_any<const D: usize, K>(tensor: &Tensor<D, K>) -> u64
where
    K: burn::tensor::kind::Basic,
{
    crate::check::bytes::counted_bytes(tensor.shape().as_slice(), tensor.dtype())
}

/// Moves a `burn::Tensor` of any kind to `device`; returns it and the bytes moved. A tensor
/// already on `device` does not move (0 bytes).
///
/// From a remote device the data is read back under
/// [`devices::default_timeout`](crate::devices::default_timeout) and created on `device` in
/// its own dtype: burn's `to_device` reads it with no bound (a frozen server blocks it
/// forever) and panics when the server has gone, which the deadline read reports as
/// [`GuardError::Execution`](crate::GuardError::Execution) or
/// [`GuardError::Timeout`](crate::GuardError::Timeout) instead. Other devices use `to_device`,
/// except for bool tensors, which are read and created in the target's own bool storage, and
/// moves into or out of autodiff, which go through the data (the result carries no graph).
pub(crate) fn move_any<const D: usize, K>(
    op: &'static str,
    tensor: Tensor<D, K>,
    device: &burn::tensor::Device,
) -> Result<(Tensor<D, K>, u64)>
where
    K: burn::tensor::kind::Basic + 'static,
{
    let from = crate::capability::stack_of(&tensor.device());
    // Into or out of autodiff, a tensor goes through its data: burn compares an autodiff
    // device equal to its inner one, and its `to_device` keeps the autodiff wrapper there (the
    // backend extensions then refuse it).
    let same_autodiff =
        from.autodiff_depth() == crate::capability::stack_of(device).autodiff_depth();
    if &tensor.device() == device && same_autodiff {
        return Ok((tensor, 0));
    }
    let bytes = bytes_of_any(&tensor);
    let bool_kind = <K as burn::tensor::kind::TensorKind>::KIND == burn::tensor::kind::Kind::Bool;
    if from.base() != Some(&crate::capability::Layer::Remote) && !bool_kind && same_autodiff {
        let moved = catch(op, || tensor.to_device(device))?;
        return Ok((moved, bytes));
    }
    let data = crate::devices::read_with_deadline(
        op,
        crate::devices::default_timeout(),
        tensor.into_data_async(),
    )?;
    // A bool tensor takes the target's own bool storage: burn's `to_device` keeps the source's
    // (Flex's native bools), which CubeCL's `bool_from_data` does not take.
    let options = burn::tensor::TensorCreationOptions::new(device.clone());
    let options = if bool_kind {
        options
    } else {
        options.with_dtype(data.dtype())
    };
    let moved = catch(op, || Tensor::<D, K>::from_data(data, options))?;
    Ok((moved, bytes))
}

/// A fallback's round trip for a composite operation: tensors moved out to the device that
/// runs it, results moved back home, with the bytes each way and the time spent moving
/// (burn-linalg's `svd`, burn-signal's FFTs).
#[cfg(any(feature = "linalg", feature = "signal", feature = "vision"))]
pub(crate) struct Trip<'a> {
    op: &'static str,
    to: &'a burn::tensor::Device,
    home: &'a burn::tensor::Device,
    // At home nothing moves: `out` and `back` hand the tensor through, with no device look-up.
    stays: bool,
    moved: crate::policy::Moved,
}

#[cfg(any(feature = "linalg", feature = "signal", feature = "vision"))]
impl<'a> Trip<'a> {
    /// A trip for `op` from `home` to `to`.
    pub(crate) fn new(
        op: &'static str,
        home: &'a burn::tensor::Device,
        to: &'a burn::tensor::Device,
    ) -> Self {
        Self {
            op,
            to,
            home,
            stays: false,
            moved: crate::policy::Moved::default(),
        }
    }

    /// A trip that stays at `home`: the operation runs where its inputs are.
    pub(crate) fn at_home(op: &'static str, home: &'a burn::tensor::Device) -> Self {
        Self {
            stays: true,
            ..Self::new(op, home, home)
        }
    }

    /// `tensor` on the device that runs the operation.
    pub(crate) fn out<const D: usize, K>(&mut self, tensor: Tensor<D, K>) -> Result<Tensor<D, K>>
    where
        K: burn::tensor::kind::Basic + 'static,
    {
        self.carry(tensor, true)
    }

    /// A result back on the caller's device.
    pub(crate) fn back<const D: usize, K>(&mut self, tensor: Tensor<D, K>) -> Result<Tensor<D, K>>
    where
        K: burn::tensor::kind::Basic + 'static,
    {
        self.carry(tensor, false)
    }

    /// `tensor` out to the device that runs the operation, or back home; its bytes counted
    /// that way, and the time added.
    fn carry<const D: usize, K>(&mut self, tensor: Tensor<D, K>, out: bool) -> Result<Tensor<D, K>>
    where
        K: burn::tensor::kind::Basic + 'static,
    {
        if self.stays {
            return Ok(tensor);
        }
        let start = std::time::Instant::now();
        let to = if out { self.to } else { self.home };
        let (moved, bytes) = move_any(self.op, tensor, to)?;
        if out {
            self.moved.bytes_out += bytes;
        } else {
            self.moved.bytes_back += bytes;
        }
        self.moved.elapsed += start.elapsed();
        Ok(moved)
    }

    /// What the trip moved.
    pub(crate) fn moved(&self) -> crate::policy::Moved {
        self.moved
    }
}

/// A backend extension a fallback can route: its policy [`Op`](crate::policy::Op), the family
/// its refusals name (`"signal"` → "signal stft"), and its capability answer per device.
#[cfg(any(feature = "linalg", feature = "signal", feature = "vision"))]
pub(crate) struct Extension {
    pub(crate) routed: crate::policy::Op,
    pub(crate) family: &'static str,
    pub(crate) support: fn(&burn::tensor::Device) -> crate::capability::Support,
}

#[cfg(any(feature = "linalg", feature = "signal", feature = "vision"))]
impl Extension {
    /// Runs `op`, a composite function of the extension, where the extension can: `call` gets
    /// a [`Trip`] on which it moves its inputs out and its results back. At `home`, when its
    /// backend can, the trip moves nothing; else, when `policy` allows the extension's op, it
    /// goes to the policy's first capable device, counted with what moved; otherwise the call
    /// is refused naming every gap. One closure, so burn's call is written once per twin.
    pub(crate) fn run<T>(
        &self,
        op: &'static str,
        policy: &crate::policy::Policy,
        home: &burn::tensor::Device,
        call: impl FnOnce(&mut Trip<'_>) -> Result<T>,
    ) -> Result<T> {
        use crate::capability::stack_of;
        use crate::policy::Target;

        let routed = self.routed;
        let home_label = || stack_of(home).label().to_owned();
        let capability = || format!("{} {op}", self.family);
        let targets = policy.devices().iter().map(|device| Target {
            support: (self.support)(device),
            label: stack_of(device).label().to_owned(),
            place: device.clone(),
        });
        let route = policy.route(
            routed,
            &home_label,
            &capability,
            (self.support)(home),
            targets,
        );
        policy.run(routed, route, &home_label, |place| match place {
            crate::policy::Place::Home => {
                call(&mut Trip::at_home(op, home)).map(|out| (out, crate::policy::Moved::default()))
            }
            crate::policy::Place::Away(target) => {
                let mut trip = Trip::new(op, home, &target.place);
                call(&mut trip).map(|out| (out, trip.moved()))
            }
        })
    }
}

/// Moves a float primitive from `B` to `C` through [`TensorData`] (the read bounded by
/// [`devices::default_timeout`](crate::devices::default_timeout): a frozen remote server would
/// block it forever); returns it and the bytes moved, as the data holds them.
pub(crate) fn move_float<B: Backend, C: Backend>(
    op: &'static str,
    tensor: FloatTensor<B>,
    device: &C::Device,
) -> Result<(FloatTensor<C>, u64)> {
    let data: TensorData = crate::devices::read_with_deadline(
        op,
        crate::devices::default_timeout(),
        B::float_into_data(tensor),
    )?;
    let bytes = u64::try_from(data.bytes().len()).unwrap_or(u64::MAX);
    let moved = catch(op, || C::float_from_data(data, device))?;
    Ok((moved, bytes))
}

#[cfg(all(test, feature = "flex"))]
mod tests {
    use burn::tensor::{DType, Device, Tensor, TensorCreationOptions};
    use burn_flex::Flex;

    type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    #[test]
    fn bytes_moved_follow_the_dtype() -> TestResult {
        let device = Default::default();
        for (dtype, size) in [
            (DType::F64, 8),
            (DType::F32, 4),
            (DType::F16, 2),
            (DType::BF16, 2),
        ] {
            let options = TensorCreationOptions::new(Device::flex()).with_dtype(dtype);
            let primitive = Tensor::<2>::ones([3, 5], options)
                .try_into_primitive::<Flex>()
                .map_err(|err| format!("{err:?}"))?;
            let (moved, bytes) = super::move_float::<Flex, Flex>("test", primitive, &device)?;
            assert_eq!(bytes, 15 * size, "{dtype:?}");
            assert_eq!(moved.dtype(), dtype);
        }
        Ok(())
    }
}
