//! What the layer twins share.

use burn::nn::Linear;
use burn::tensor::{Device, Tensor};

use crate::check::linear::{LinearFeatures, linear_features};
use crate::error::Result;
use crate::params::read as params;

/// The seal of every twin trait (defined beside `TryInit`, the lowest layer that needs it).
pub use crate::nn::init::Sealed;

/// Every device equal to the first: a layer's parameters and its inputs.
pub(crate) use crate::tensor::same_devices;

/// The dims of a tensor, as the checks take them.
pub fn dims<const D: usize>(tensor: &Tensor<D>) -> Vec<usize> {
    tensor.dims().to_vec()
}

/// A layer twin's result, the layer named before the path of the part that refused
/// ([`GuardError::Layer`](crate::GuardError::Layer)): `lstm: input_gate.input_transform: linear: ...`.
/// An error of the layer's own op without a path already starts with its name and is kept as
/// it is; a container's inner layers are checked through its check functions, not their
/// twins, so only the layer the caller called is named.
pub fn in_layer<T>(layer: &'static str, result: Result<T>) -> Result<T> {
    result.map_err(|err| err.in_layer(layer))
}

/// The devices that are present equal `device`: a layer's optional parameters and inputs.
pub fn all_on(op: &'static str, device: &Device, others: &[Option<Device>]) -> Result<()> {
    for other in others.iter().flatten() {
        crate::capability::same_device(op, device, other)?;
    }
    Ok(())
}

/// A `Linear`'s weight and bias against an input of dims `input` (the rule of
/// [`try_linear`](crate::tensor::module::try_linear)), both on `device`.
pub fn linear_params(linear: &Linear, input: &[usize], device: &Device) -> Result<LinearFeatures> {
    const OP: &str = "linear";
    let (weight, weight_device) = params::layout(OP, &linear.weight)?;
    let bias = match &linear.bias {
        Some(bias) => Some(params::layout(OP, bias)?),
        None => None,
    };
    let features = linear_features(OP, input, &weight, bias.as_ref().map(|(dims, _)| &dims[..]))?;
    crate::capability::same_device(OP, device, &weight_device)?;
    all_on(OP, device, &[bias.map(|(_, device)| device)])?;
    Ok(features)
}

/// `dims` with its last dimension replaced by `last` (a linear's output from its input).
pub fn with_last<const D: usize>(mut dims: [usize; D], last: usize) -> [usize; D] {
    if let Some(slot) = dims.last_mut() {
        *slot = last;
    }
    dims
}

/// One row per layer twin of a family whose forward takes one tensor and returns one: the twin
/// trait, burn's module, the op name, the ranks in and out, the layouts; then the doc example: how the layer is built, an input and its output dims, a refused input and the
/// error kind. The family gives the check (`|layer, input, op| { .. }`, a `Result<()>` over
/// `&Module`, `&Tensor<D>` and the op name) and the doc's checks, errors and import. Each row
/// becomes a sealed `pub trait`, whose `try_forward` runs the check, then burn's `forward`
/// under the backstop, then, in anomaly mode, checks the output.
macro_rules! layer_twins {
    (
        checks $checks:expr;
        errors $errors:expr;
        import $import:literal;
        |$layer:ident, $input:ident, $op:ident| $check:block
        $($twin:ident, $module:ident, $name:literal, $d:literal => $d_out:literal, $layout:literal,
            $make:literal, $good:literal => $out:literal, $bad:literal => $kind:ident;)*
    ) => {$(
        impl Sealed for $module {}

        #[doc = concat!("Twin of [`", stringify!($module), "::forward`].")]
        pub trait $twin: Sealed {
            #[doc = concat!("Fallible twin of [`", stringify!($module), "::forward`]: ", $layout, ".")]
            ///
            #[doc = $checks]
            ///
            /// # Errors
            ///
            #[doc = $errors]
            ///
            /// ```
            #[doc = $import]
            /// use burn::tensor::{Device, Tensor};
            /// use burn_guard::prelude::*;
            ///
            /// let device = Device::flex();
            #[doc = concat!("let layer = ", $make, ";")]
            #[doc = concat!("let x = Tensor::<", $d, ">::ones(", $good, ", &device);")]
            #[doc = concat!("assert_eq!(layer.try_forward(x)?.dims(), ", $out, ");")]
            #[doc = concat!("let bad = Tensor::<", $d, ">::ones(", $bad, ", &device);")]
            #[doc = concat!("assert_eq!(layer.try_forward(bad).unwrap_err().kind(), ErrorKind::", stringify!($kind), ");")]
            /// # Ok::<(), GuardError>(())
            /// ```
            fn try_forward(&self, input: Tensor<$d>) -> Result<Tensor<$d_out>>;
        }

        impl $twin for $module {
            fn try_forward(&self, input: Tensor<$d>) -> Result<Tensor<$d_out>> {
                const OP: &str = $name;
                let ($layer, $input, $op) = (self, &input, OP);
                let checked: Result<()> = $check;
                checked?;
                crate::nn::anomaly::checked_in(OP, self, catch(OP, || self.forward(input)))
            }
        }
    )*};
}

/// One row per config twin whose `try_init` is rules on the config's fields, then burn's
/// `init`: `impl TryInit for Config = Module("op"), |config| [rule(args), ..];`
/// (`|config, device|` to name the device too). Each rule is a call to which the op name is
/// prepended (`layer::nonzero("size", config.size)` runs `layer::nonzero(OP, "size",
/// config.size)?`), in order. A `TryInit` row builds the module with
/// [`init_fitting`](crate::nn::init::init_fitting) (burn's `init` under the backstop, then the
/// byte rule on its parameters); a `TryInitStateless` row runs `init` under the backstop.
/// Attributes and doc comments before a row go on its `try_init`.
macro_rules! config_twins {
    ($(
        $(#[$doc:meta])*
        impl $twin:ident for $config:ident = $module:ident($op:literal),
            |$this:ident $(, $device:ident)?| [$($($rule:ident)::+ ($($arg:expr),*)),* $(,)?];
    )*) => {$(
        impl crate::nn::layers::support::Sealed for $config {}

        impl $twin for $config {
            type Module = $module;

            config_twins!(@try_init $twin, $module, $op, $(#[$doc])*
                |$this $(, $device)?| [$($($rule)::+ ($($arg),*)),*]);
        }
    )*};
    (@try_init TryInit, $module:ident, $op:literal, $(#[$doc:meta])*
        |$this:ident $(, $device:ident)?| [$($($rule:ident)::+ ($($arg:expr),*)),*]) => {
        $(#[$doc])*
        fn try_init(&self, device: &burn::tensor::Device) -> crate::error::Result<$module> {
            const OP: &str = $op;
            let $this = self;
            $(let $device = device;)?
            $($($rule)::+(OP, $($arg),*)?;)*
            crate::nn::init::init_fitting(OP, || self.init(device))
        }
    };
    (@try_init TryInitStateless, $module:ident, $op:literal, $(#[$doc:meta])*
        |$this:ident| [$($($rule:ident)::+ ($($arg:expr),*)),*]) => {
        $(#[$doc])*
        fn try_init(&self) -> crate::error::Result<$module> {
            const OP: &str = $op;
            let $this = self;
            $($($rule)::+(OP, $($arg),*)?;)*
            crate::panic::catch(OP, || self.init())
        }
    };
}

/// Twin traits written once, as rows of `crate::tensor::twins!` (`tensor/rows.rs`): each
/// method's signature is burn's with `try_` in front (its `Result` implied), and becomes both
/// the trait's declaration, with its docs, and the sealed impl's method. A method is either a
/// row, `=> burn_method(args) [rule(args), ..];` (`(..)` passes the twin's arguments as they
/// are), which runs the rules in order (each a call to which the op name is prepended:
/// `loss::reduction(&reduction)` runs `loss::reduction(OP, &reduction)?`) and then burn's
/// method under the backstop, or a body in braces (where `OP` is the op name too). Either way
/// the output is checked in anomaly mode ([`verify::detect_anomaly`](crate::verify::detect_anomaly)).
macro_rules! twins {
    ($($traits:tt)*) => {
        $crate::tensor::twins! { checked by $crate::nn::anomaly::checked_in; $($traits)* }
    };
}

/// Builder methods that set an optional field, as burn's input types have them
/// (`mask_pad`, `mask_attn`, ...), and getters for them: one row per field,
/// `field(argument) -> getter: Type;` with burn's argument name (`-> getter` where the input
/// type has one), after the builder's doc.
macro_rules! optional_fields {
    ($($(#[$doc:meta])* $field:ident($arg:ident) $(-> $getter:ident)?: $ty:ty;)*) => {$(
        $(#[$doc])*
        #[must_use]
        pub fn $field(mut self, $arg: $ty) -> Self {
            self.$field = Some($arg);
            self
        }

        $(
            #[doc = concat!("What [`", stringify!($field), "`](Self::", stringify!($field),
                ") set, if anything.")]
            pub fn $getter(&self) -> Option<&$ty> {
                self.$field.as_ref()
            }
        )?
    )*};
}

/// `input` with `mask` set by burn's builder method `set`, or as it is without a mask.
pub fn with_mask<T, M>(input: T, mask: Option<M>, set: fn(T, M) -> T) -> T {
    match mask {
        Some(mask) => set(input, mask),
        None => input,
    }
}

/// `From` burn-guard's input type for burn's, through its `into_burn`: one row per input type.
macro_rules! into_burn {
    ($($ours:ident => $burn:ident;)*) => {$(
        impl From<$ours> for $burn {
            fn from(input: $ours) -> Self {
                input.into_burn()
            }
        }
    )*};
}
