//! Every "after" call of `MIGRATING.md`, compiled and run on Flex: when a twin is renamed or
//! its signature changes, this stops compiling and the guide is updated with it.

use burn::tensor::{DType, Device, Int, Tensor};
use burn_guard::GuardError;
use burn_guard::prelude::*;

/// The whole-function example.
fn scores(x: Tensor<2>, w: Tensor<2>) -> burn_guard::Result<Tensor<1, Int>> {
    let logits = x.try_matmul(w)?.try_swap_dims(0, 1)?;
    logits
        .try_narrow(0, 0, 3)?
        .try_reshape([3, -1])?
        .try_argmax(1)?
        .try_reshape([3])
}

/// What anyhow needs of an error type for `?`: `std::error::Error + Send + Sync + 'static`.
fn converts_like_anyhow<E: std::error::Error + Send + Sync + 'static>() {}

fn with_box(
    a: Tensor<2>,
    b: Tensor<2>,
) -> Result<Tensor<2>, Box<dyn std::error::Error + Send + Sync>> {
    let c = a.try_matmul(b)?;
    Ok(c)
}

type BoxResult<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

#[test]
fn the_ten_calls() -> BoxResult<()> {
    let device = Device::flex();
    let a = Tensor::<2>::ones([2, 3], &device);
    let b = Tensor::<2>::ones([3, 4], &device);

    let m = a.clone().try_matmul(b.clone())?;
    assert_eq!(m.dims(), [2, 4]);
    assert_eq!(m.clone().try_reshape([4, -1])?.dims(), [4, 2]);
    assert_eq!(
        Tensor::try_cat(vec![a.clone(), a.clone()], 0)?.dims(),
        [4, 3]
    );
    assert_eq!(Tensor::<2>::try_zeros([2, 3], &device)?.dims(), [2, 3]);
    let z: Tensor<2> = Tensor::try_zeros([2, 3], &device)?;
    assert_eq!(z.dims(), [2, 3]);
    assert_eq!(a.clone().try_slice([0..2, 1..3])?.dims(), [2, 2]);
    assert_eq!(b.clone().try_narrow(0, 1, 2)?.dims(), [2, 4]);
    let one = Tensor::<1>::from_floats([2.5], &device);
    assert_eq!(one.clone().into_scalar_checked::<f32>()?, 2.5);
    // No twin: burn's own fallible read, whose error converts like GuardError.
    let data = one.try_into_data()?;
    assert_eq!(data.num_elements(), 1);
    assert_eq!(m.clone().try_argmax(1)?.dims(), [2, 1]);
    assert_eq!(m.clone().try_swap_dims(0, 1)?.dims(), [4, 2]);
    let moved = burn_guard::panic::catch("to_device", || m.to_device(&device))?;
    assert_eq!(moved.dims(), [2, 4]);

    // The errors these twins exist for.
    assert!(a.clone().try_matmul(a.clone()).is_err());
    assert!(a.clone().try_narrow(0, 1, 3).is_err());
    assert!(a.try_swap_dims(0, 2).is_err());
    Ok(())
}

#[test]
fn the_whole_function() -> burn_guard::Result<()> {
    let device = Device::flex();
    let x = Tensor::<2>::ones([2, 3], &device);
    assert_eq!(
        scores(x.clone(), Tensor::<2>::ones([3, 4], &device))?.dims(),
        [3]
    );
    let err = scores(x, Tensor::<2>::ones([4, 5], &device)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "matmul: lhs columns must equal rhs rows; got [2, 3] and [4, 5]"
    );
    Ok(())
}

#[test]
fn the_traps() -> burn_guard::Result<()> {
    let device = Device::flex();
    let t = Tensor::<1>::from_floats([4.0], &device);
    let raw = t.clone().try_into_scalar::<i32>();
    assert!(raw.is_ok());
    let data = t.to_data_as_checked::<i64>()?;
    assert_eq!(data.dtype(), DType::I64);
    let data = t.clone().into_data_dtype_checked(DType::F64)?;
    assert_eq!(data.dtype(), DType::F64);
    let x = t.into_scalar_checked::<f32>()?;
    assert_eq!(x, 4.0);
    // What the twin refuses: more than one element, and a value the type cannot hold.
    assert!(
        Tensor::<1>::ones([2], &device)
            .into_scalar_checked::<f32>()
            .is_err()
    );
    let nan = Tensor::<1>::from_floats([f32::NAN], &device);
    assert!(nan.clone().into_scalar_checked::<i32>().is_err());
    // burn's own inherent try_into_scalar still panics there, as MIGRATING.md says.
    let burns = std::panic::catch_unwind(|| nan.try_into_scalar::<i32>());
    assert!(
        burns.is_err(),
        "burn's try_into_scalar no longer panics on NaN: {burns:?}"
    );
    Ok(())
}

#[test]
fn question_mark_converts() {
    converts_like_anyhow::<GuardError>();
    let device = Device::flex();
    let a = Tensor::<2>::ones([2, 3], &device);
    let err = with_box(a.clone(), a).unwrap_err();
    assert!(err.downcast_ref::<GuardError>().is_some());
}

#[test]
fn clone_before_a_call_you_may_retry() -> burn_guard::Result<()> {
    let x = Tensor::<1>::ones([4], &Device::flex());
    let y = match x.clone().try_reshape([3, -1]) {
        Ok(y) => y,
        Err(err) => {
            eprintln!("{err}; falling back to a column");
            x.try_reshape([-1, 1])?
        }
    };
    assert_eq!(y.dims(), [4, 1]);
    Ok(())
}

#[test]
fn layers_and_configs() -> burn_guard::Result<()> {
    use burn::nn::attention::MultiHeadAttentionConfig;
    use burn::nn::loss::CrossEntropyLossConfig;
    use burn::nn::transformer::TransformerEncoderConfig;
    use burn::nn::{DropoutConfig, LinearConfig, LstmConfig};

    let device = Device::flex();
    let linear = LinearConfig::new(3, 4).init(&device);
    let x = Tensor::<2>::ones([2, 3], &device);
    assert_eq!(linear.try_forward(x)?.dims(), [2, 4]);

    let lstm = LstmConfig::new(3, 5, true).init(&device);
    let (out, _state) = lstm.try_forward(Tensor::<3>::ones([2, 4, 3], &device), None)?;
    assert_eq!(out.dims(), [2, 4, 5]);

    let loss = CrossEntropyLossConfig::new().try_init(&device)?;
    let logits = Tensor::<2>::ones([2, 3], &device);
    let targets = Tensor::<1, Int>::from_ints([0, 2], &device);
    assert_eq!(loss.try_forward(logits, targets)?.dims(), [1]);

    let _dropout = DropoutConfig::new(0.1).try_init()?;
    let mha = MultiHeadAttentionConfig::new(8, 2).try_init(&device)?;
    let q = Tensor::<3>::ones([1, 3, 8], &device);
    let input = burn_guard::nn::attention::MhaInput::new(q.clone(), q.clone(), q.clone());
    assert_eq!(mha.try_forward(input)?.context.dims(), [1, 3, 8]);

    let encoder = TransformerEncoderConfig::new(8, 16, 2, 1).try_init(&device)?;
    let input = burn_guard::nn::transformer::TransformerEncoderInput::new(q);
    assert_eq!(encoder.try_forward(input)?.dims(), [1, 3, 8]);
    Ok(())
}

/// "Quantize your model": the strict twin's `Err` naming the conv weight, then the same
/// scheme keeping in float what it cannot apply to, served through the model's own forward.
#[test]
fn quantize_your_model() -> burn_guard::Result<()> {
    use burn::module::{Module, Quantizer};
    use burn::nn::conv::{Conv2d, Conv2dConfig};
    use burn::nn::{Linear, LinearConfig};
    use burn::tensor::quantization::{
        Calibration, QuantScheme, QuantStore, QuantValue, ScaleDtype,
    };
    use burn_guard::module::WeightQuantizer;

    #[derive(Module, Debug)]
    struct Cnn {
        conv1: Conv2d,
        hidden: Linear,
    }

    impl Cnn {
        fn forward(&self, x: Tensor<4>) -> Tensor<2> {
            let x = self
                .conv1
                .forward(x)
                .mean_dim(3)
                .mean_dim(2)
                .flatten::<2>(1, 3);
            self.hidden.forward(x)
        }
    }

    let device = Device::flex();
    let model = Cnn {
        conv1: Conv2dConfig::new([1, 32], [3, 3]).init(&device),
        hidden: LinearConfig::new(32, 64).init(&device),
    };
    let images = Tensor::<4>::ones([2, 1, 8, 8], &device);
    let q4 = QuantScheme::default()
        .with_value(QuantValue::Q4S)
        .with_store(QuantStore::PackedU32(0))
        .per_block([32], ScaleDtype::F32);
    let mut quantizer = Quantizer::new(Calibration::MinMax, q4);
    let strict: burn_guard::Result<Cnn> = model.try_quantize_weights(&mut quantizer);
    let err = strict.unwrap_err();
    assert_eq!(err.path().as_deref(), Some("conv1.weight"));
    assert!(err.to_string().contains("block size must divide"), "{err}");
    let quantized = WeightQuantizer::new()
        .keep_unquantizable_in_float()
        .quantize(&model, &mut quantizer)?;
    let kept: Vec<&str> = quantized
        .report()
        .kept_in_float()
        .map(|p| p.path.as_str())
        .collect();
    assert_eq!(kept, ["conv1.weight"]);
    let logits = quantized.model().forward(images);
    assert_eq!(logits.dims(), [2, 64]);
    Ok(())
}

/// "Load a checkpoint": the twin borrows the model; a mismatched record is an `Err` naming the
/// parameter with the model intact; the right one loads and reports; the options compose.
#[test]
fn load_a_checkpoint() -> burn_guard::Result<()> {
    use burn::module::Module;
    use burn::nn::{Linear, LinearConfig};
    use burn_guard::store::{DTypeChoice, LoadOptions};

    let device = Device::flex();
    let trained: Linear = LinearConfig::new(3, 4).init(&device);
    let mut served: Linear = LinearConfig::new(3, 4).init(&device);
    let wrong: Linear = LinearConfig::new(4, 4).init(&device);
    let err = served.load_record_checked(wrong.into_record()).unwrap_err();
    assert_eq!(err.path().as_deref(), Some("weight"));
    let report = served.load_record_checked(trained.clone().into_record())?;
    assert_eq!(report.loaded().count(), 2);
    let options = LoadOptions::new()
        .dtype(DTypeChoice::AdoptFile)
        .scan_non_finite(true);
    options.load_record(&mut served, trained.into_record())?;
    Ok(())
}

/// "Train with a checked step": a model moved after its weights were drawn is refused; the
/// same model built right steps.
#[test]
fn train_with_a_checked_step() -> burn_guard::Result<()> {
    use burn::module::Module;
    use burn::nn::{Linear, LinearConfig};
    use burn::optim::{GradientsParams, SgdConfig};
    use burn_guard::optim::{GuardedOptimizer, OnNonFinite};

    let device = Device::flex().autodiff();
    let model: Linear = LinearConfig::new(3, 2).init(&device);
    let _ = model.forward(Tensor::<2>::ones([1, 3], &device));
    let moved = model.clone().to_device(&device);
    let loss = moved.forward(Tensor::<2>::ones([4, 3], &device)).sum();
    let grads = GradientsParams::from_grads(loss.backward(), &moved);
    let err = SgdConfig::new()
        .init()
        .try_step(0.1, moved, grads)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NoGradient);

    let loss = model.forward(Tensor::<2>::ones([4, 3], &device)).sum();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    let model = SgdConfig::new().init().try_step(0.1, model, grads)?;
    let mut model = model;
    let mut optimizer =
        GuardedOptimizer::new(SgdConfig::new().init()).on_non_finite(OnNonFinite::Skip {
            max_consecutive: Some(3),
        });
    let loss = model.forward(Tensor::<2>::ones([4, 3], &device)).sum();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    optimizer.step(0.1, &mut model, grads)?;
    Ok(())
}
