//! The normalization layers — [`BatchNorm`], [`LayerNorm`], [`GroupNorm`], [`InstanceNorm`],
//! [`RmsNorm`], [`LocalResponseNorm`] and the [`Normalization`] wrapper — and their configs.

use burn::module::Param;
use burn::nn::norm::{Normalization, NormalizationConfig};
use burn::nn::{
    BatchNorm, BatchNormConfig, GroupNorm, GroupNormConfig, InstanceNorm, LayerNorm,
    LocalResponseNorm, LocalResponseNormConfig, RmsNorm, RmsNormConfig,
};
use burn::tensor::{Device, Tensor};

use super::support::{Sealed, all_on, dims, in_layer, same_devices};
use crate::check;
use crate::check::norm::{batch_norm, batch_norm_train};
use crate::check::{layer, norm};
use crate::error::{GuardError, Result, ResultExt};
use crate::nn::init::{TryInit, TryInitStateless, init_fitting};
use crate::panic::catch;
use crate::params::read as params;

impl Sealed for GroupNorm {}
impl Sealed for InstanceNorm {}
impl Sealed for NormalizationConfig {}

// ---------------------------------------------------------------- configs

config_twins! {
/// Checks `num_features > 0`, `epsilon` finite and `> 0`, `momentum` finite in `[0, 1]`.
impl TryInit for BatchNormConfig = BatchNorm("batch_norm_init"), |config| [
    layer::nonzero("num_features", config.num_features),
    layer::positive("epsilon", config.epsilon, true),
    layer::finite_in("momentum", config.momentum, 0.0, 1.0),
];
/// Checks that `num_groups` is not 0 and divides `num_channels`.
impl TryInit for GroupNormConfig = GroupNorm("group_norm_init"), |config| [
    norm::groups(config.num_channels, config.num_groups),
];
/// Checks `epsilon > 0` (burn asserts only that: an infinite epsilon passes).
impl TryInit for RmsNormConfig = RmsNorm("rms_norm_init"), |config| [
    layer::positive("epsilon", config.epsilon, false),
];
/// Checks `size > 0`.
impl TryInitStateless for LocalResponseNormConfig = LocalResponseNorm("local_response_norm_init"), |config| [
    layer::nonzero("size", config.size),
];
}

impl TryInit for NormalizationConfig {
    type Module = Normalization;

    /// The wrapped config's checks (batch, group and rms norms; the others cannot panic).
    fn try_init(&self, device: &Device) -> Result<Normalization> {
        match self {
            NormalizationConfig::Batch(config) => config.try_init(device).map(Into::into),
            NormalizationConfig::Group(config) => config.try_init(device).map(Into::into),
            NormalizationConfig::Rms(config) => config.try_init(device).map(Into::into),
            _ => init_fitting("normalization_init", || self.init(device)),
        }
    }
}

// ---------------------------------------------------------------- layers

twins! {
/// Twin of [`BatchNorm::forward`].
pub trait TryBatchNorm for BatchNorm = "batch_norm" {
    /// Fallible twin of [`BatchNorm::forward`]: `[batch, channels, ..]`, same shape out.
    ///
    /// Checks the input's rank (≥ 2) and channels against `gamma`'s length, that `beta` and
    /// the running statistics have the same length, and that `gamma` and `beta` are on the
    /// input's device (the running statistics are moved there by burn). On the training path
    /// (an autodiff device and a layer not frozen) — beyond burn — an empty input is refused,
    /// as [`try_batch_norm_train`](crate::tensor::module::try_batch_norm_train) does.
    ///
    /// # Errors
    ///
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch),
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::Empty`](crate::GuardError::Empty) (training path),
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::BatchNormConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let norm = BatchNormConfig::new(3).try_init(&device)?;
    /// assert_eq!(norm.try_forward(Tensor::<3>::ones([2, 3, 4], &device))?.dims(), [2, 3, 4]);
    /// let err = norm.try_forward(Tensor::<3>::ones([2, 4, 4], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        let train = input.device().is_autodiff() && self.training.is_enabled();
        let (op, rule): (&'static str, fn(_, &_, &_) -> Result<usize>) = if train {
            ("batch_norm_train", batch_norm_train)
        } else {
            (OP, batch_norm)
        };
        let [gamma, beta] = params::values(op, [&self.gamma, &self.beta])?;
        let params = [
            ("gamma", dims(&gamma)),
            ("beta", dims(&beta)),
            ("mean", dims(&self.running_mean.value())),
            ("variance", dims(&self.running_var.value())),
        ];
        rule(op, &dims(&input), &params)?;
        same_devices(op, &[input.device(), gamma.device(), beta.device()])?;
        catch(op, || self.forward(input))
    }
}

/// Twin of [`LayerNorm::forward`].
pub trait TryLayerNorm for LayerNorm = "layer_norm" {
    /// Fallible twin of [`LayerNorm::forward`]: `[..., d_model]`, same shape out.
    ///
    /// Checks the input's last dim against `gamma`'s length (and `beta`'s), and that the
    /// parameters are on the input's device: the rule of
    /// [`try_layer_norm`](crate::tensor::module::try_layer_norm).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch) (rank 0),
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::LayerNormConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let norm = LayerNormConfig::new(4).init(&device);
    /// assert_eq!(norm.try_forward(Tensor::<2>::ones([2, 4], &device))?.dims(), [2, 4]);
    /// let err = norm.try_forward(Tensor::<2>::ones([2, 3], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        check_layer_norm(self, &input.dims(), &input.device())?;
        catch(OP, || self.forward(input))
    }
}
}

/// A layer norm's gamma and beta against an input of dims `input`, both on `device`: the
/// checks of the layer-norm twin and of the transformers' norms.
pub(super) fn check_layer_norm(norm: &LayerNorm, input: &[usize], device: &Device) -> Result<()> {
    const OP: &str = "layer_norm";
    let (gamma, gamma_device) = params::layout(OP, &norm.gamma)?;
    let beta = match &norm.beta {
        Some(beta) => Some(params::layout(OP, beta)?),
        None => None,
    };
    norm::layer_norm(OP, input, &gamma, beta.as_ref().map(|(dims, _)| &dims[..]))?;
    crate::capability::same_device(OP, device, &gamma_device)?;
    all_on(OP, device, &[beta.map(|(_, device)| device)])
}

/// The checks of a group norm (group and instance norms share burn's `group_norm`); gamma and
/// beta are read under the backstop.
fn check_group_norm<const D: usize>(
    op: &'static str,
    input: &Tensor<D>,
    num_groups: usize,
    num_channels: usize,
    affine: bool,
    gamma: Option<&Param<Tensor<1>>>,
    beta: Option<&Param<Tensor<1>>>,
) -> Result<()> {
    let params = match (affine, gamma, beta) {
        (false, _, _) => None,
        (true, Some(gamma), Some(beta)) => Some(params::values(op, [gamma, beta])?),
        (true, _, _) => {
            return Err(GuardError::InvalidArgument {
                op,
                rule: "an affine group norm needs gamma and beta",
                got: "gamma or beta is None".to_owned(),
            });
        }
    };
    let param_dims = params.as_ref().map(|[g, b]| (dims(g), dims(b)));
    norm::group_norm(
        op,
        &dims(input),
        num_groups,
        num_channels,
        param_dims
            .as_ref()
            .map(|(g, b)| (g.as_slice(), b.as_slice())),
    )?;
    if let Some([gamma, beta]) = &params {
        same_devices(op, &[input.device(), gamma.device(), beta.device()])?;
        // burn reshapes both to `[1, channels, 1, ..]`: a quantized parameter (a quantized
        // model's) must keep whole blocks and packed words there.
        let affine = norm::group_norm_affine_shape(D, num_channels);
        for (name, param) in [("gamma", gamma), ("beta", beta)] {
            let reshape = check::quant::quantized_reshape(op, param.dtype(), &affine);
            in_layer(op, reshape.context(name))?;
        }
    }
    Ok(())
}

/// Twin of [`GroupNorm::forward`].
pub trait TryGroupNorm: Sealed {
    /// Fallible twin of [`GroupNorm::forward`]: `[batch, channels, ..]`, same shape out.
    ///
    /// Checks the input's channels against the layer's, the layer's own fields (groups not 0
    /// and dividing the channels, gamma and beta present and `[channels]` when affine, on the
    /// input's device), and burn's test that the input has more than 2 elements (burn 0.22.1
    /// compares the element count where it means the rank: an input of 2 elements or fewer,
    /// an empty one included, panics). burn reshapes gamma and beta to `[1, channels, 1, ..]`:
    /// quantized ones (a quantized model's) must keep whole blocks and packed words in that
    /// shape, or burn's quantized reshape panics (on a rank-3 input, the trailing `1` splits a
    /// block of 32 on Flex, and a word of four packed values on wgpu's device thread).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch),
    /// [`GuardError::Empty`](crate::GuardError::Empty) (2 elements or fewer),
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) (0 groups),
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) (affine without
    /// parameters), [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch),
    /// [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme) (a
    /// quantized gamma or beta whose blocks or words the reshape would split, with its name
    /// as context).
    ///
    /// ```
    /// use burn::nn::GroupNormConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let norm = GroupNormConfig::new(2, 4).try_init(&device)?;
    /// assert_eq!(norm.try_forward(Tensor::<3>::ones([2, 4, 3], &device))?.dims(), [2, 4, 3]);
    /// assert!(norm.try_forward(Tensor::<3>::ones([2, 3, 3], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Result<Tensor<D>>;
}

/// Twin of [`InstanceNorm::forward`].
pub trait TryInstanceNorm: Sealed {
    /// Fallible twin of [`InstanceNorm::forward`]: `[batch, channels, ..]`, same shape out.
    ///
    /// The checks of [`TryGroupNorm::try_forward`] with one group per channel (burn runs the
    /// same `group_norm`): so an input of 2 elements or fewer is refused, as burn panics on it.
    ///
    /// # Errors
    ///
    /// As [`TryGroupNorm::try_forward`].
    ///
    /// ```
    /// use burn::nn::InstanceNormConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let norm = InstanceNormConfig::new(3).init(&device);
    /// assert_eq!(norm.try_forward(Tensor::<3>::ones([2, 3, 4], &device))?.dims(), [2, 3, 4]);
    /// assert!(norm.try_forward(Tensor::<3>::ones([2, 4, 4], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Result<Tensor<D>>;
}

/// The twins of the group and instance norms, which run burn's same `group_norm`: one check,
/// their group counts apart.
macro_rules! group_norm_twin {
    ($twin:ident for $module:ident, $op:literal, |$layer:ident| $groups:expr) => {
        impl $twin for $module {
            fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Result<Tensor<D>> {
                let $layer = self;
                let (gamma, beta) = (self.gamma.as_ref(), self.beta.as_ref());
                let (channels, affine) = (self.num_channels, self.affine);
                check_group_norm($op, &input, $groups, channels, affine, gamma, beta)?;
                crate::nn::anomaly::checked_in($op, self, catch($op, || self.forward(input)))
            }
        }
    };
}

group_norm_twin!(TryGroupNorm for GroupNorm, "group_norm", |layer| layer.num_groups);
group_norm_twin!(TryInstanceNorm for InstanceNorm, "instance_norm", |layer| layer.num_channels);

twins! {
/// Twin of [`RmsNorm::forward`].
pub trait TryRmsNorm for RmsNorm = "rms_norm" {
    /// Fallible twin of [`RmsNorm::forward`]: `[..., d_model]`, same shape out.
    ///
    /// Checks the input's last dim against `gamma`'s length, and `gamma`'s device.
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::RmsNormConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let norm = RmsNormConfig::new(4).try_init(&device)?;
    /// assert_eq!(norm.try_forward(Tensor::<2>::ones([2, 4], &device))?.dims(), [2, 4]);
    /// assert!(norm.try_forward(Tensor::<2>::ones([2, 5], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        let (gamma, gamma_device) = params::layout(OP, &self.gamma)?;
        norm::last_dim(
            OP,
            "the input's last dim must equal gamma's length, d_model",
            &input.dims(),
            &gamma,
        )?;
        crate::capability::same_device(OP, &input.device(), &gamma_device)?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`LocalResponseNorm::forward`].
pub trait TryLocalResponseNorm for LocalResponseNorm = "local_response_norm" {
    /// Fallible twin of [`LocalResponseNorm::forward`]: `[batch, channels, d1, ..]` (rank ≥ 3),
    /// same shape out.
    ///
    /// Checks the rank (burn's `assert_shape!(input, [_, _, _, ..])`) and refuses an empty
    /// spatial extent under a non-empty batch and channel dim (burn's pooling reshape panics
    /// on Flex and NdArray). The layer's fields are private, checked once by its config's
    /// `try_init`. Any other empty input is returned as is, without dispatch (NdArray's
    /// average pool panics on an empty channel dim; Flex returns the empty tensor).
    ///
    /// # Errors
    ///
    /// [`GuardError::RankMismatch`](crate::GuardError::RankMismatch),
    /// [`GuardError::Empty`](crate::GuardError::Empty).
    ///
    /// ```
    /// use burn::nn::LocalResponseNormConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let norm = LocalResponseNormConfig::new(3).try_init()?;
    /// assert_eq!(norm.try_forward(Tensor::<3>::ones([1, 4, 5], &device))?.dims(), [1, 4, 5]);
    /// assert!(norm.try_forward(Tensor::<2>::ones([1, 4], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        norm::local_response_norm(OP, &dims(&input))?;
        if input.dims().contains(&0) {
            // NdArray's average pool panics on an empty channel dim (Flex does not); the
            // result, empty, is the input.
            return Ok(input);
        }
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`Normalization::forward`].
pub trait TryNormalization for Normalization = "normalization" {
    /// Fallible twin of [`Normalization::forward`]: the wrapped layer's twin.
    ///
    /// # Errors
    ///
    /// The wrapped layer's errors.
    ///
    /// ```
    /// use burn::nn::LayerNormConfig;
    /// use burn::nn::norm::NormalizationConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let norm = NormalizationConfig::from(LayerNormConfig::new(4)).try_init(&device)?;
    /// assert_eq!(norm.try_forward(Tensor::<2>::ones([2, 4], &device))?.dims(), [2, 4]);
    /// assert!(norm.try_forward(Tensor::<2>::ones([2, 3], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        match self {
            Normalization::Batch(norm) => norm.try_forward(input),
            Normalization::Group(norm) => norm.try_forward(input),
            Normalization::Instance(norm) => norm.try_forward(input),
            Normalization::Layer(norm) => norm.try_forward(input),
            Normalization::Rms(norm) => norm.try_forward(input),
            // The identity, and variants a later burn adds: burn's own forward, under the
            // backstop.
            _ => catch(OP, || self.forward(input)),
        }
    }
}
}
