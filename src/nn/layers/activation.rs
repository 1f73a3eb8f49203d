//! Every activation module of `burn::nn::activation`, the [`Activation`] wrapper, and the
//! configs whose `init` can panic.
//!
//! Most activations are element-wise functions with nothing to check: any float tensor of any
//! shape is valid. Their twins run burn's `forward` under the backstop (one macro). The
//! others check the layer's parameters against the input: [`PRelu`]'s weights against the
//! channels, [`GLU`]'s split dim, [`SwiGlu`]'s linear layers, [`Hardtanh`]'s and [`RRelu`]'s
//! bounds.

use burn::nn::LinearConfig;
use burn::nn::activation::{
    Activation, ActivationConfig, Celu, CeluConfig, Elu, GLU, Gelu, HardShrink, HardSigmoid,
    HardSwish, Hardtanh, HardtanhConfig, LeakyRelu, LogSigmoid, Mish, PRelu, RRelu, RReluConfig,
    Relu, Relu6, Selu, Shrink, SiLU, Sigmoid, SoftShrink, Softplus, Softsign, SwiGlu, SwiGluConfig,
    Tanh, Tanhshrink, Threshold, ThresholdedRelu,
};
use burn::tensor::{Device, Tensor};

use super::TryLinear;
use super::support::{Sealed, dims, in_layer};
use crate::check::quant::quantized_reshape;
use crate::check::{activation, layer};
use crate::error::{GuardError, Result, ResultExt};
use crate::nn::init::{TryInit, TryInitStateless, init_fitting};
use crate::panic::catch;
use crate::params::read as params;
use crate::tensor::activation::try_prelu;

/// One twin trait for an activation that no float input can make panic: burn's `forward`
/// under the backstop.
macro_rules! uniform_activation {
    ($($twin:ident, $module:ident, $op:literal, $make:literal;)*) => {$(
        impl Sealed for $module {}

        #[doc = concat!("Twin of [`", stringify!($module), "::forward`].")]
        pub trait $twin: Sealed {
            #[doc = concat!("Fallible twin of [`", stringify!($module), "::forward`]: any shape, same shape out.")]
            ///
            /// An element-wise function: no input can make it panic, so there is nothing to
            /// check; burn's forward runs under the backstop.
            ///
            /// # Errors
            ///
            /// None in practice; [`GuardError::BackendPanic`](crate::GuardError::BackendPanic)
            /// by contract.
            ///
            /// ```
            #[doc = concat!("use burn::nn::activation::*;")]
            /// use burn::tensor::{Device, Tensor};
            /// use burn_guard::prelude::*;
            ///
            #[doc = concat!("let layer = ", $make, ";")]
            /// let x = Tensor::<2>::from_floats([[-1.0, 0.0, 2.0]], &Device::flex());
            /// assert_eq!(layer.try_forward(x)?.dims(), [1, 3]);
            /// # Ok::<(), GuardError>(())
            /// ```
            fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Result<Tensor<D>>;
        }

        impl $twin for $module {
            fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Result<Tensor<D>> {
                catch($op, || self.forward(input))
            }
        }
    )*};
}

uniform_activation! {
    TryRelu, Relu, "relu", "Relu::new()";
    TryRelu6, Relu6, "relu6", "Relu6::new()";
    TryGelu, Gelu, "gelu", "Gelu::new()";
    TrySigmoid, Sigmoid, "sigmoid", "Sigmoid::new()";
    TryTanh, Tanh, "tanh", "Tanh::new()";
    TryLeakyRelu, LeakyRelu, "leaky_relu", "LeakyReluConfig::new().init()";
    TrySoftplus, Softplus, "softplus", "SoftplusConfig::new().init()";
    TryCelu, Celu, "celu", "CeluConfig::new().init()";
    TryElu, Elu, "elu", "EluConfig::new().init()";
    TryHardSigmoid, HardSigmoid, "hard_sigmoid", "HardSigmoidConfig::new().init()";
    TryHardSwish, HardSwish, "hard_swish", "HardSwish::new()";
    TryHardShrink, HardShrink, "hard_shrink", "HardShrinkConfig::new().init()";
    TryLogSigmoid, LogSigmoid, "log_sigmoid", "LogSigmoid::new()";
    TryMish, Mish, "mish", "Mish::new()";
    TrySelu, Selu, "selu", "Selu::new()";
    TryShrink, Shrink, "shrink", "ShrinkConfig::new().init()";
    TrySiLU, SiLU, "silu", "SiLU::new()";
    TrySoftShrink, SoftShrink, "soft_shrink", "SoftShrinkConfig::new().init()";
    TrySoftsign, Softsign, "softsign", "Softsign::new()";
    TryTanhshrink, Tanhshrink, "tanhshrink", "Tanhshrink::new()";
    TryThreshold, Threshold, "threshold", "ThresholdConfig::new(0.0, 0.0).init()";
    TryThresholdedRelu, ThresholdedRelu, "thresholded_relu", "ThresholdedReluConfig::new().init()";
}

impl Sealed for ActivationConfig {}

// ---------------------------------------------------------------- configs

config_twins! {
/// Checks that `alpha` is finite and not 0.
impl TryInitStateless for CeluConfig = Celu("celu_init"), |config| [
    layer::finite_nonzero("alpha", config.alpha),
];
/// Checks that both bounds are finite and `min_val <= max_val`.
impl TryInitStateless for HardtanhConfig = Hardtanh("hardtanh_init"), |config| [
    layer::ordered(("min_val", config.min_val), ("max_val", config.max_val), true),
];
/// Checks `lower <= upper` (burn asserts only the order).
impl TryInitStateless for RReluConfig = RRelu("rrelu_init"), |config| [
    layer::ordered(("lower", config.lower), ("upper", config.upper), false),
];
}

impl TryInit for ActivationConfig {
    type Module = Activation;

    /// The wrapped config's checks (celu's `alpha`; the others cannot panic).
    fn try_init(&self, device: &Device) -> Result<Activation> {
        match self {
            ActivationConfig::Celu(config) => config.try_init().map(Into::into),
            _ => init_fitting("activation_init", || self.init(device)),
        }
    }
}

// ---------------------------------------------------------------- layers with checks

twins! {
/// Twin of [`Hardtanh::forward`].
pub trait TryHardtanh for Hardtanh = "hardtanh" {
    /// Fallible twin of [`Hardtanh::forward`]: any shape, same shape out.
    ///
    /// Checks the layer's bounds (public fields): `min_val <= max_val`, neither NaN. Flex's
    /// clamp kernel panics otherwise (`min > max, or either was NaN`, burn 0.22.1); NdArray
    /// returns values, so the refusal goes beyond burn there.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfOrder`](crate::GuardError::OutOfOrder) for the bounds.
    ///
    /// ```
    /// use burn::nn::activation::HardtanhConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let mut layer = HardtanhConfig::new().try_init()?;
    /// let x = Tensor::<2>::from_floats([[-2.0, 0.5]], &Device::flex());
    /// assert_eq!(layer.try_forward(x.clone())?.dims(), [1, 2]);
    /// layer.min_val = 2.0;
    /// assert_eq!(layer.try_forward(x).unwrap_err().kind(), ErrorKind::OutOfOrder);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        layer::ordered(
            OP,
            ("min_val", self.min_val),
            ("max_val", self.max_val),
            false,
        )?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`RRelu::forward`].
pub trait TryRRelu for RRelu = "rrelu" {
    /// Fallible twin of [`RRelu::forward`]: any shape, same shape out.
    ///
    /// On the training path (an autodiff device, a layer not frozen) burn samples the slopes
    /// uniformly in `[lower, upper]` and panics when `lower > upper`: the layer's bounds
    /// (public fields) are checked there. Elsewhere it is a leaky relu with the mean slope,
    /// which nothing can make panic.
    ///
    /// # Errors
    ///
    /// [`GuardError::OutOfOrder`](crate::GuardError::OutOfOrder) for the bounds (training
    /// path).
    ///
    /// ```
    /// use burn::nn::activation::RReluConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let mut layer = RReluConfig::new().try_init()?;
    /// let device = Device::flex().autodiff();
    /// assert_eq!(layer.try_forward(Tensor::<2>::ones([1, 2], &device))?.dims(), [1, 2]);
    /// layer.lower = 0.5;
    /// layer.upper = 0.1;
    /// assert!(layer.try_forward(Tensor::<2>::ones([1, 2], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        if self.training.is_enabled() && input.device().is_autodiff() {
            layer::ordered(OP, ("lower", self.lower), ("upper", self.upper), false)?;
        }
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`PRelu::forward`].
pub trait TryPRelu for PRelu = "prelu" {
    /// Fallible twin of [`PRelu::forward`]: any shape, same shape out.
    ///
    /// Checks the layer's weights against the input, as
    /// [`try_prelu`](crate::tensor::activation::try_prelu) does: one weight, or (rank ≥ 2) one
    /// per channel (`dims[1]`), on the input's device. burn reshapes the weights to
    /// `[1, channels, 1, ..]`: quantized ones (a quantized model's) must keep whole blocks and
    /// packed words in that shape, or burn's quantized reshape panics (on wgpu, on the device
    /// thread).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch),
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch),
    /// [`GuardError::InvalidQuantScheme`](crate::GuardError::InvalidQuantScheme) (quantized
    /// weights whose blocks or words the reshape would split, with `alpha` as context).
    ///
    /// ```
    /// use burn::nn::PReluConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let prelu = PReluConfig::new().with_num_parameters(3).init(&device);
    /// assert_eq!(prelu.try_forward(Tensor::<3>::ones([2, 3, 4], &device))?.dims(), [2, 3, 4]);
    /// assert!(prelu.try_forward(Tensor::<3>::ones([2, 4, 4], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        // burn's forward is `prelu(input, alpha)`; the tensor twin runs it after its checks.
        // The shape rule first (the reshape below is only defined for valid weights), then
        // the reshape burn applies to the weights, for a quantized layer.
        let [alpha] = params::values(OP, [&self.alpha])?;
        let alpha_dims = dims(&alpha);
        activation::prelu(OP, &dims(&input), &alpha_dims)?;
        let weights = alpha_dims.first().copied().unwrap_or(0);
        let reshaped = activation::prelu_weights_shape(D, weights);
        in_layer(
            OP,
            quantized_reshape(OP, alpha.dtype(), &reshaped).context("alpha"),
        )?;
        try_prelu(input, alpha)
    }
}

/// Twin of [`GLU::forward`].
pub trait TryGLU for GLU = "glu" {
    /// Fallible twin of [`GLU::forward`]: the size along the layer's dim halved.
    ///
    /// Checks the layer's dim against the input's rank and that the size along it is even,
    /// as [`try_glu`](crate::tensor::activation::try_glu) does. burn keeps the dim private:
    /// it is read from the module's `Debug` output.
    ///
    /// # Errors
    ///
    /// [`GuardError::DimOutOfRange`](crate::GuardError::DimOutOfRange),
    /// [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument) for an odd size;
    /// [`GuardError::Unreadable`](crate::GuardError::Unreadable) if a burn release no longer
    /// prints the dim where it is read.
    ///
    /// ```
    /// use burn::nn::activation::GLU;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let glu = GLU::new(-1);
    /// assert_eq!(glu.try_forward(Tensor::<2>::ones([2, 4], &device))?.dims(), [2, 2]);
    /// assert!(glu.try_forward(Tensor::<2>::ones([2, 3], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        let dim = crate::upstream::glu_dim(self).ok_or(GuardError::Unreadable {
            op: OP,
            what: "`GLU`'s private `dim`",
        })?;
        activation::glu(OP, &dims(&input), dim)?;
        catch(OP, || self.forward(input))
    }
}

/// Twin of [`SwiGlu::forward`].
pub trait TrySwiGlu for SwiGlu = "swiglu" {
    /// Fallible twin of [`SwiGlu::forward`]: `[..., d_input]` → `[..., d_output]`.
    ///
    /// Checks the input against both linear layers, as their twins do
    /// ([`TryLinear::try_forward`]); an error names the layer (`swiglu: linear_inner: linear: …`).
    /// The two results are multiplied element-wise, so the layers must agree on `d_output`.
    ///
    /// # Errors
    ///
    /// The linear layers' errors, with their field name as context;
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) when the two layers'
    /// outputs do not broadcast.
    ///
    /// ```
    /// use burn::nn::SwiGluConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let swiglu = SwiGluConfig::new(3, 5).init(&device);
    /// assert_eq!(swiglu.try_forward(Tensor::<2>::ones([2, 3], &device))?.dims(), [2, 5]);
    /// let err = swiglu.try_forward(Tensor::<2>::ones([2, 4], &device)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        // The same calls as burn's forward, each through its twin: the inner linear, silu,
        // the outer linear, and the product.
        let inner = self.linear_inner.try_forward(input.clone());
        let inner = in_layer(OP, inner.context("linear_inner"))?;
        let outer = self.linear_outer.try_forward(input);
        let outer = in_layer(OP, outer.context("linear_outer"))?;
        crate::check::broadcast(OP, &dims(&inner), &dims(&outer))?;
        catch(OP, || burn::tensor::activation::silu(inner).mul(outer))
    }
}

/// Twin of [`Activation::forward`].
pub trait TryActivation for Activation = "activation" {
    /// Fallible twin of [`Activation::forward`]: the wrapped activation's twin.
    ///
    /// # Errors
    ///
    /// The wrapped activation's errors.
    ///
    /// ```
    /// use burn::nn::activation::ActivationConfig;
    /// use burn::nn::PReluConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let act = ActivationConfig::PRelu(PReluConfig::new().with_num_parameters(3)).try_init(&device)?;
    /// assert_eq!(act.try_forward(Tensor::<2>::ones([2, 3], &device))?.dims(), [2, 3]);
    /// assert!(act.try_forward(Tensor::<2>::ones([2, 4], &device)).is_err());
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward<const D: usize>(&self, input: Tensor<D>) -> Tensor<D> {
        match self {
            Activation::PRelu(layer) => layer.try_forward(input),
            Activation::SwiGlu(layer) => layer.try_forward(input),
            // Element-wise activations (and variants a later burn adds): burn's own forward,
            // under the backstop.
            _ => catch(OP, || self.forward(input)),
        }
    }
}
}

impl Sealed for SwiGluConfig {}

/// Both inner linears are built by `LinearConfig::init` with this config's initializer, so
/// the twin refuses what [`LinearConfig`]'s does (a fan of 0 that burn would hit at the first
/// draw), with the inner layer's name as context.
///
/// ```
/// use burn::nn::Initializer;
/// use burn::nn::activation::SwiGluConfig;
/// use burn::tensor::Device;
/// use burn_guard::prelude::*;
///
/// let device = Device::flex();
/// let kaiming = Initializer::KaimingUniform { gain: 1.0, fan_out_only: false };
/// assert!(SwiGluConfig::new(4, 8).try_init(&device).is_ok());
/// // No inputs: the weights are empty, but the bias is drawn with a fan of 0.
/// let config = SwiGluConfig::new(0, 8).with_bias(true).with_initializer(kaiming);
/// let err = config.try_init(&device).unwrap_err();
/// assert_eq!(err.path().as_deref(), Some("linear_inner"));
/// ```
impl TryInit for SwiGluConfig {
    type Module = SwiGlu;

    fn try_init(&self, device: &Device) -> Result<SwiGlu> {
        let linear = LinearConfig::new(self.d_input, self.d_output)
            .with_bias(self.bias)
            .with_initializer(self.initializer.clone())
            .with_layout(self.layout);
        // The same config twice: refusing it once names the first layer burn would build.
        let _checked = linear.try_init(device).context("linear_inner")?;
        init_fitting("swiglu_init", || self.init(device))
    }
}
