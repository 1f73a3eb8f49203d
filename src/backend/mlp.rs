//! A small multilayer perceptron over backend primitives, differentiable to any order that
//! the backend stack offers: linear layers through [`linear`](super::linear) and elementwise
//! activations.

use burn_backend::tensor::FloatTensor;
use burn_backend::{Backend, TensorMetadata};

use crate::check;
use crate::check::rule::Rule;
#[cfg(doc)]
use crate::error::GuardError;
use crate::error::Result;
use crate::panic;

/// An elementwise activation between linear layers.
///
/// Each one's autodiff backward is built from differentiable float operations in burn 0.22.1,
/// so nested autodiff differentiates it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Activation {
    /// `tanh(x)`.
    Tanh,
    /// `1 / (1 + exp(-x))`.
    Sigmoid,
    /// `x · Φ(x)` (exact, with `erf`).
    Gelu,
    /// `max(x, 0)`.
    Relu,
    /// No activation.
    Identity,
}

impl Activation {
    /// Applies the activation to `x`.
    ///
    /// # Errors
    ///
    /// [`GuardError::BackendPanic`] if the backend panics.
    ///
    /// ```
    /// use burn_backend::ops::FloatTensorOps;
    /// use burn_backend::TensorData;
    /// use burn_flex::Flex;
    /// use burn_guard::backend::Activation;
    ///
    /// let x = Flex::float_from_data(TensorData::new(vec![-1.0f32, 2.0], [2]), &Default::default());
    /// let y = Activation::Relu.apply::<Flex>(x)?;
    /// # let y = burn_backend::read_sync(Flex::float_into_data(y)).unwrap();
    /// assert_eq!(y.try_to_vec::<f32>().unwrap(), vec![0.0, 2.0]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn apply<B: Backend>(self, x: FloatTensor<B>) -> Result<FloatTensor<B>> {
        panic::catch(self.name(), || match self {
            Self::Tanh => B::float_tanh(x),
            Self::Sigmoid => B::sigmoid(x),
            Self::Gelu => B::gelu(x),
            Self::Relu => B::relu(x),
            Self::Identity => x,
        })
    }

    /// The activation's name.
    ///
    /// ```
    /// assert_eq!(burn_guard::backend::Activation::Tanh.name(), "tanh");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Self::Tanh => "tanh",
            Self::Sigmoid => "sigmoid",
            Self::Gelu => "gelu",
            Self::Relu => "relu",
            Self::Identity => "identity",
        }
    }
}

/// One linear layer of an [`Mlp`]: `weight` `[d_input, d_output]`, optional `bias` `[d_output]`.
#[derive(Clone)]
pub struct Dense<B: Backend> {
    /// `[d_input, d_output]`, burn's layout.
    pub weight: FloatTensor<B>,
    /// `[d_output]`.
    pub bias: Option<FloatTensor<B>>,
}

impl<B: Backend> std::fmt::Debug for Dense<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dense")
            .field("weight", &self.weight.shape())
            .field("bias", &self.bias.as_ref().map(TensorMetadata::shape))
            .finish()
    }
}

/// A multilayer perceptron: linear layers with `activation` between them (none after the last).
///
/// Its forward pass goes through [`linear`](super::linear), so on nested autodiff it can be
/// differentiated twice (or more): the gradient of a gradient of its output w.r.t. its input
/// and weights.
#[derive(Clone, Debug)]
pub struct Mlp<B: Backend> {
    layers: Vec<Dense<B>>,
    activation: Activation,
}

impl<B: Backend> Mlp<B> {
    /// Builds a perceptron from its layers, checking that consecutive layers chain.
    ///
    /// # Errors
    ///
    /// - [`GuardError::OutOfRange`] when `layers` is empty.
    /// - [`GuardError::RankMismatch`] / [`GuardError::ShapeMismatch`] when a weight is not rank 2,
    ///   a bias does not match its weight, or a layer's `d_input` differs from the previous
    ///   layer's `d_output`.
    ///
    /// ```
    /// use burn_backend::ops::FloatTensorOps;
    /// use burn_backend::TensorData;
    /// use burn_flex::Flex;
    /// use burn_guard::backend::{Activation, Dense, Mlp};
    ///
    /// let device = Default::default();
    /// let dense = |i: usize, o: usize| Dense::<Flex> {
    ///     weight: Flex::float_from_data(TensorData::new(vec![0.5f32; i * o], [i, o]), &device),
    ///     bias: Some(Flex::float_from_data(TensorData::new(vec![0.0f32; o], [o]), &device)),
    /// };
    /// let mlp = Mlp::new(vec![dense(1, 4), dense(4, 1)], Activation::Tanh)?;
    /// let x = Flex::float_from_data(TensorData::new(vec![0.0f32, 1.0], [2, 1]), &device);
    /// let y = mlp.forward(x)?;
    /// assert_eq!(burn_backend::TensorMetadata::shape(&y).as_slice(), &[2, 1]);
    /// assert!(Mlp::new(vec![dense(1, 4), dense(3, 1)], Activation::Tanh).is_err());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn new(layers: Vec<Dense<B>>, activation: Activation) -> Result<Self> {
        const OP: &str = "mlp";
        let mut previous: Option<(usize, Vec<usize>)> = None;
        for layer in &layers {
            let weight = layer.weight.shape();
            let bias = layer.bias.as_ref().map(TensorMetadata::shape);
            let d_input = weight.as_slice().first().copied().unwrap_or(0);
            // One row of `d_input` features: the layer's own shapes, whatever the batch.
            let shapes =
                check::linear::linear(OP, &[1, d_input], weight.as_slice(), bias.as_deref())?;
            if let Some((d_output, previous_weight)) = &previous
                && *d_output != d_input
            {
                return Err(Rule(
                    OP,
                    "each layer's d_input must equal the previous layer's d_output",
                )
                .shape_mismatch(&[previous_weight, &weight]));
            }
            previous = Some((shapes.d_output, weight.to_vec()));
        }
        Rule(OP, "a perceptron needs at least one layer").at_least("layers", layers.len(), 1)?;
        Ok(Self { layers, activation })
    }

    /// The layers, first to last.
    ///
    /// ```
    /// # use burn_backend::ops::FloatTensorOps;
    /// # use burn_backend::TensorData;
    /// # use burn_flex::Flex;
    /// # use burn_guard::backend::{Activation, Dense, Mlp};
    /// # let w = Flex::float_from_data(TensorData::new(vec![1.0f32], [1, 1]), &Default::default());
    /// let mlp = Mlp::<Flex>::new(vec![Dense { weight: w, bias: None }], Activation::Tanh)?;
    /// assert_eq!(mlp.layers().len(), 1);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn layers(&self) -> &[Dense<B>] {
        &self.layers
    }

    /// The activation between layers.
    ///
    /// ```
    /// # use burn_backend::ops::FloatTensorOps;
    /// # use burn_backend::TensorData;
    /// # use burn_flex::Flex;
    /// # use burn_guard::backend::{Activation, Dense, Mlp};
    /// # let w = Flex::float_from_data(TensorData::new(vec![1.0f32], [1, 1]), &Default::default());
    /// let mlp = Mlp::<Flex>::new(vec![Dense { weight: w, bias: None }], Activation::Gelu)?;
    /// assert_eq!(mlp.activation(), Activation::Gelu);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// Consumes the perceptron, returning its layers.
    ///
    /// ```
    /// # use burn_backend::ops::FloatTensorOps;
    /// # use burn_backend::TensorData;
    /// # use burn_flex::Flex;
    /// # use burn_guard::backend::{Activation, Dense, Mlp};
    /// # let w = Flex::float_from_data(TensorData::new(vec![1.0f32], [1, 1]), &Default::default());
    /// let mlp = Mlp::<Flex>::new(vec![Dense { weight: w, bias: None }], Activation::Tanh)?;
    /// let layers = mlp.into_layers();
    /// assert!(layers[0].bias.is_none());
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn into_layers(self) -> Vec<Dense<B>> {
        self.layers
    }

    /// Runs the perceptron on `x` `[..., d_input]`, returning `[..., d_output]`.
    ///
    /// # Errors
    ///
    /// What [`linear`](super::linear) returns for the first layer (a later layer cannot fail
    /// its check, [`Mlp::new`] proved they chain), and [`GuardError::BackendPanic`] if the
    /// backend panics.
    ///
    /// ```
    /// # use burn_backend::ops::FloatTensorOps;
    /// # use burn_backend::TensorData;
    /// # use burn_flex::Flex;
    /// # use burn_guard::backend::{Activation, Dense, Mlp};
    /// # let device = Default::default();
    /// let w = Flex::float_from_data(TensorData::new(vec![2.0f32], [1, 1]), &device);
    /// let mlp = Mlp::<Flex>::new(vec![Dense { weight: w, bias: None }], Activation::Tanh)?;
    /// let x = Flex::float_from_data(TensorData::new(vec![1.5f32], [1]), &device);
    /// # let y = burn_backend::read_sync(Flex::float_into_data(mlp.forward(x)?)).unwrap();
    /// assert_eq!(y.try_to_vec::<f32>().unwrap(), vec![3.0]);
    /// # Ok::<(), burn_guard::GuardError>(())
    /// ```
    pub fn forward(&self, x: FloatTensor<B>) -> Result<FloatTensor<B>> {
        let last = self.layers.len().saturating_sub(1);
        let mut h = x;
        for (index, layer) in self.layers.iter().enumerate() {
            h = super::linear::<B>(h, layer.weight.clone(), layer.bias.clone())?;
            if index < last {
                h = self.activation.apply::<B>(h)?;
            }
        }
        Ok(h)
    }
}
