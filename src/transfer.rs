//! Moving data between backends for a fallback, and counting the bytes from the data's dtype.

use burn_backend::tensor::FloatTensor;
use burn_backend::{Backend, TensorData};

use crate::error::Result;
use crate::panic::catch;

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
