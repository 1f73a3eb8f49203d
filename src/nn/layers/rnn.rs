//! [`burn::nn::Rnn`], [`burn::nn::Gru`], [`burn::nn::Lstm`] and their bidirectional forms
//! ([`burn::nn::BiRnn`], [`burn::nn::BiGru`], [`burn::nn::BiLstm`]).
//!
//! Their configs' `init`s assert nothing (the weights are drawn lazily): no init twins.

use burn::nn::activation::Activation;
use burn::nn::{BiGru, BiLstm, BiRnn, GateController, Gru, Linear, Lstm, LstmState, Rnn, RnnState};
use burn::tensor::{DType, Device, Tensor};

use super::support::{Sealed, dims, in_layer, same_devices};
use crate::check::rnn::{
    ActivationShapes, DirectionSlice, Gate, Plan, activation, bidirectional, recurrent, step,
};
use crate::error::{Result, ResultExt};
use crate::panic::catch;
use crate::params::read as params;

/// One gate's parameter shapes, owned, for the checks.
struct GateDims {
    name: &'static str,
    input_weight: Vec<usize>,
    input_bias: Option<Vec<usize>>,
    hidden_weight: Vec<usize>,
    hidden_bias: Option<Vec<usize>>,
    devices: Vec<Device>,
}

impl GateDims {
    /// The gate's two linears as the forward will see them ([`params::layout`]: a lazy
    /// parameter is drawn under the backstop).
    fn read(op: &'static str, name: &'static str, gate: &GateController) -> Result<Self> {
        let input = LinearDims::read(op, &gate.input_transform)
            .context("input_transform")
            .context(name)?;
        let hidden = LinearDims::read(op, &gate.hidden_transform)
            .context("hidden_transform")
            .context(name)?;
        Ok(Self {
            name,
            input_weight: input.weight,
            input_bias: input.bias,
            hidden_weight: hidden.weight,
            hidden_bias: hidden.bias,
            devices: [input.devices, hidden.devices].concat(),
        })
    }

    fn gate(&self) -> Gate<'_> {
        Gate {
            name: self.name,
            input_weight: &self.input_weight,
            input_bias: self.input_bias.as_deref(),
            hidden_weight: &self.hidden_weight,
            hidden_bias: self.hidden_bias.as_deref(),
        }
    }
}

/// A `Linear`'s parameter dims and devices (weight first), as the forward will see them.
struct LinearDims {
    weight: Vec<usize>,
    bias: Option<Vec<usize>>,
    devices: Vec<Device>,
}

impl LinearDims {
    fn read(op: &'static str, linear: &Linear) -> Result<Self> {
        let (weight, weight_device) = params::layout(op, &linear.weight)?;
        let mut devices = vec![weight_device];
        let bias = match &linear.bias {
            Some(bias) => {
                let (dims, device) = params::layout(op, bias)?;
                devices.push(device);
                Some(dims.to_vec())
            }
            None => None,
        };
        Ok(Self {
            weight: weight.to_vec(),
            bias,
            devices,
        })
    }
}

/// The checks every single-direction layer runs: shapes against the gates, then one device.
/// What the checks read from one single-direction layer.
struct Parts<'a> {
    d_hidden: usize,
    gates: &'a [GateDims],
    activations: &'a [(&'static str, &'a Activation)],
}

fn check_layer(
    op: &'static str,
    input: [usize; 3],
    Parts {
        d_hidden,
        gates,
        activations,
    }: Parts<'_>,
    state: Option<(&[usize], Device)>,
    cell: Option<(&[usize], Device)>,
    input_device: Device,
) -> Result<Plan> {
    let views: Vec<Gate<'_>> = gates.iter().map(GateDims::gate).collect();
    let plan = recurrent(
        op,
        input,
        d_hidden,
        &views,
        state.as_ref().map(|(s, _)| *s),
        cell.as_ref().map(|(c, _)| *c),
    )?;
    // The activations run on each step's `[batch, d_hidden]`; no step, no activation.
    if input[1] > 0 {
        let step = [input[0], d_hidden];
        for (name, layer) in activations {
            activation_rules(op, &step, layer).context(*name)?;
        }
    }
    let mut devices = vec![input_device];
    devices.extend(state.map(|(_, d)| d));
    devices.extend(cell.map(|(_, d)| d));
    devices.extend(gates.iter().flat_map(|g| g.devices.iter().cloned()));
    same_devices(op, &devices)?;
    Ok(plan)
}

/// An activation's parameter shapes against one step.
fn activation_rules(op: &'static str, step: &[usize], layer: &Activation) -> Result<()> {
    match layer {
        Activation::PRelu(prelu) => {
            let (alpha, _) = params::layout(op, &prelu.alpha)?;
            activation(op, step, ActivationShapes::PRelu { alpha: &alpha })
        }
        Activation::SwiGlu(swiglu) => {
            let inner = LinearDims::read(op, &swiglu.linear_inner).context("linear_inner")?;
            let outer = LinearDims::read(op, &swiglu.linear_outer).context("linear_outer")?;
            activation(
                op,
                step,
                ActivationShapes::SwiGlu {
                    inner_weight: &inner.weight,
                    inner_bias: inner.bias.as_deref(),
                    outer_weight: &outer.weight,
                    outer_bias: outer.bias.as_deref(),
                },
            )
        }
        _ => Ok(()),
    }
}

/// A state's shape and device as the checks take them.
fn view(side: &Option<(Vec<usize>, Device)>) -> Option<(&[usize], Device)> {
    side.as_ref().map(|(d, dev)| (d.as_slice(), dev.clone()))
}

/// `[batch, seq, features]` of an input in the layer's layout.
fn in_batch_order(dims: [usize; 3], batch_first: bool) -> [usize; 3] {
    let [a, b, features] = dims;
    if batch_first {
        [a, b, features]
    } else {
        [b, a, features]
    }
}

/// A zero tensor of the input's float dtype: the outputs of an empty batch.
fn empty_like<const D: usize>(dims: [usize; D], device: &Device, dtype: DType) -> Tensor<D> {
    if dtype.is_float() {
        Tensor::zeros(dims, (device, dtype))
    } else {
        Tensor::zeros(dims, device)
    }
}

/// The output dims of an empty batch in the layer's layout.
fn output_dims(input: [usize; 3], d_hidden: usize, batch_first: bool) -> [usize; 3] {
    let [batch, seq, _] = input;
    if batch_first {
        [batch, seq, d_hidden]
    } else {
        [seq, batch, d_hidden]
    }
}

/// A single-direction recurrent layer as its checks see it: hidden size, gates and
/// activations, in the order burn's forward runs them.
trait Recurrent {
    fn d_hidden(&self) -> usize;

    /// The gates, each under its field name; `Err` for a layer burn cannot run.
    fn gates(&self, op: &'static str) -> Result<Vec<GateDims>>;

    fn activations(&self) -> Vec<(&'static str, &Activation)>;

    /// The checks of one direction on an input already in `[batch, seq, features]` order:
    /// shapes against the gates and activations, then one device.
    fn check(
        &self,
        op: &'static str,
        input: [usize; 3],
        hidden: Option<(&[usize], Device)>,
        cell: Option<(&[usize], Device)>,
        device: Device,
    ) -> Result<Plan> {
        let gates = self.gates(op)?;
        let activations = self.activations();
        let d_hidden = self.d_hidden();
        let parts = Parts {
            d_hidden,
            gates: &gates,
            activations: &activations,
        };
        check_layer(op, input, parts, hidden, cell, device)
    }
}

impl Recurrent for Rnn {
    fn d_hidden(&self) -> usize {
        self.d_hidden
    }

    fn gates(&self, op: &'static str) -> Result<Vec<GateDims>> {
        Ok(vec![GateDims::read(op, "gate", &self.gate)?])
    }

    fn activations(&self) -> Vec<(&'static str, &Activation)> {
        vec![("hidden_activation", &self.hidden_activation)]
    }
}

impl Recurrent for Gru {
    fn d_hidden(&self) -> usize {
        self.d_hidden
    }

    fn gates(&self, op: &'static str) -> Result<Vec<GateDims>> {
        Ok(vec![
            GateDims::read(op, "update_gate", &self.update_gate)?,
            GateDims::read(op, "reset_gate", &self.reset_gate)?,
            GateDims::read(op, "new_gate", &self.new_gate)?,
        ])
    }

    fn activations(&self) -> Vec<(&'static str, &Activation)> {
        let gate = ("gate_activation", &self.gate_activation);
        vec![gate, ("hidden_activation", &self.hidden_activation)]
    }
}

impl Recurrent for Lstm {
    fn d_hidden(&self) -> usize {
        self.d_hidden
    }

    fn gates(&self, op: &'static str) -> Result<Vec<GateDims>> {
        let mut gates = vec![GateDims::read(op, "input_gate", &self.input_gate)?];
        match (&self.forget_gate, self.input_forget) {
            (Some(gate), false) => gates.push(GateDims::read(op, "forget_gate", gate)?),
            (None, false) => {
                return Err(crate::GuardError::InvalidArgument {
                    op,
                    rule: "an LSTM without input_forget needs its forget_gate (burn expects it)",
                    got: "forget_gate=None, input_forget=false".to_string(),
                });
            }
            // burn derives the forget values from the input gate; the gate is unused.
            (_, true) => {}
        }
        gates.push(GateDims::read(op, "output_gate", &self.output_gate)?);
        gates.push(GateDims::read(op, "cell_gate", &self.cell_gate)?);
        Ok(gates)
    }

    fn activations(&self) -> Vec<(&'static str, &Activation)> {
        vec![
            ("gate_activation", &self.gate_activation),
            ("cell_activation", &self.cell_activation),
            ("hidden_activation", &self.hidden_activation),
        ]
    }
}

/// What the checks read from a recurrent twin's input and state before burn takes them.
struct Inputs {
    /// The input's dims in `[batch, seq, features]` order, whatever the layer's layout.
    dims: [usize; 3],
    batch_first: bool,
    device: Device,
    dtype: DType,
    /// The state's hidden and (an LSTM's) cell: dims and device.
    states: [Option<(Vec<usize>, Device)>; 2],
}

impl Inputs {
    fn read<const S: usize>(
        input: &Tensor<3>,
        batch_first: bool,
        states: [Option<&Tensor<S>>; 2],
    ) -> Self {
        Self {
            dims: in_batch_order(input.dims(), batch_first),
            batch_first,
            device: input.device(),
            dtype: input.dtype(),
            states: states.map(|state| state.map(|s| (dims(s), s.device()))),
        }
    }
}

/// Zeros in the input's float dtype on its device: the outputs of an empty batch.
struct Zeros {
    output: [usize; 3],
    d_hidden: usize,
    device: Device,
    dtype: DType,
}

impl Zeros {
    fn output(&self) -> Tensor<3> {
        empty_like(self.output, &self.device, self.dtype)
    }

    fn state(&self) -> Tensor<2> {
        empty_like([0, self.d_hidden], &self.device, self.dtype)
    }
}

/// A single-direction twin: the layer's checks, its errors named after it; then burn's
/// `forward`, or for an empty batch the empty outputs without dispatch (NdArray panics on
/// them).
fn run_single<L: Recurrent, T>(
    layer: &L,
    op: &'static str,
    inputs: Inputs,
    forward: impl FnOnce() -> T,
    empty: impl FnOnce(&Zeros) -> T,
) -> Result<T> {
    let [hidden, cell] = &inputs.states;
    let device = inputs.device.clone();
    let plan = layer.check(op, inputs.dims, view(hidden), view(cell), device);
    match in_layer(op, plan)? {
        Plan::Dispatch => catch(op, forward),
        Plan::EmptyBatch => {
            let d_hidden = layer.d_hidden();
            let zeros = Zeros {
                output: output_dims(inputs.dims, d_hidden, inputs.batch_first),
                d_hidden,
                device: inputs.device,
                dtype: inputs.dtype,
            };
            catch(op, || empty(&zeros))
        }
    }
}

/// A bidirectional twin: the stacked state's directions (`slice`: how burn cuts them), then
/// each direction as its single-direction twin checks it, under `forward` or `reverse`, the
/// errors named after the layer; then burn's `forward`.
fn run_bidirectional<L: Recurrent, T>(
    op: &'static str,
    directions: [&L; 2],
    inputs: &Inputs,
    slice: DirectionSlice,
    forward: impl FnOnce() -> T,
) -> Result<T> {
    in_layer(op, check_directions(op, directions, inputs, slice))?;
    catch(op, forward)
}

/// A stacked state's dims, as the bidirectional rule takes them.
fn stacked(state: &Option<(Vec<usize>, Device)>) -> Option<&[usize]> {
    state.as_ref().map(|(dims, _)| dims.as_slice())
}

fn check_directions<L: Recurrent>(
    op: &'static str,
    [forward, reverse]: [&L; 2],
    inputs: &Inputs,
    slice: DirectionSlice,
) -> Result<()> {
    let [hidden, cell] = &inputs.states;
    let direction = bidirectional(op, inputs.dims, stacked(hidden), stacked(cell), slice)?;
    // Each direction runs on its slice of the stacked state: `[batch, d_hidden]`.
    let sliced = |state: &Option<(Vec<usize>, Device)>| {
        let device = state.as_ref().map(|(_, device)| device.clone());
        direction.as_deref().zip(device)
    };
    for (name, layer) in [("forward", forward), ("reverse", reverse)] {
        let device = inputs.device.clone();
        let checked = layer.check(op, inputs.dims, sliced(hidden), sliced(cell), device);
        checked.context(name)?;
    }
    Ok(())
}

twins! {
/// Twin of [`Rnn::forward`].
pub trait TryRnn for Rnn = "rnn" {
    /// Fallible twin of [`Rnn::forward`]: `[batch, seq, d_input]` (or `[seq, batch, d_input]`
    /// when the layer is not batch-first) and an optional state `[batch, d_hidden]`.
    ///
    /// Checks, before anything runs, the input's features against `gate.input_transform`'s
    /// weight, the state against `gate.hidden_transform`'s and the batch (a state of batch 1
    /// is broadcast, as burn does), a hidden size of 0 (burn's step panics on it), an
    /// activation with parameters against the step's `[batch, d_hidden]` (a `PRelu`'s alpha, a
    /// `SwiGlu`'s linears and width; path `hidden_activation`) and one device. A sequence of length 0 runs no step: burn returns the empty output and the
    /// state as given. An empty batch gives the empty outputs without dispatch (NdArray
    /// panics on it). Beyond burn: an input with no features is refused (NdArray divides by
    /// zero on it).
    ///
    /// # Errors
    ///
    /// [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) with the path
    /// `gate.input_transform` / `gate.hidden_transform` for a wrong feature count or state
    /// size, or for a state of another batch;
    /// [`GuardError::OutOfRange`](crate::GuardError::OutOfRange) for `d_hidden = 0`;
    /// [`GuardError::Empty`](crate::GuardError::Empty) for no features;
    /// [`GuardError::DeviceMismatch`](crate::GuardError::DeviceMismatch).
    ///
    /// ```
    /// use burn::nn::RnnConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let rnn = RnnConfig::new(4, 5, true).init(&device);
    /// let (out, state) = rnn.try_forward(Tensor::ones([2, 3, 4], &device), None)?;
    /// assert_eq!((out.dims(), state.hidden.dims()), ([2, 3, 5], [2, 5]));
    /// let Err(err) = rnn.try_forward(Tensor::ones([2, 3, 6], &device), None) else {
    ///     unreachable!("6 features for a layer of 4")
    /// };
    /// assert_eq!(err.path().as_deref(), Some("gate.input_transform"));
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, batched_input: Tensor<3>, state: Option<RnnState<2>>) -> (Tensor<3>, RnnState<2>) {
        let hidden = state.as_ref().map(|s| &s.hidden);
        let inputs = Inputs::read(&batched_input, self.batch_first, [hidden, None]);
        let forward = || self.forward(batched_input, state);
        run_single(self, OP, inputs, forward, |zeros| (zeros.output(), RnnState::new(zeros.state())))
    }
}

/// Twin of [`Gru::forward`].
pub trait TryGru for Gru = "gru" {
    /// Fallible twin of [`Gru::forward`]: `[batch, seq, d_input]` (burn's `Gru` is always
    /// batch-first) and an optional state `[batch, d_hidden]`.
    ///
    /// The checks of [`TryRnn::try_forward`], for each of `update_gate`, `reset_gate` and
    /// `new_gate`.
    ///
    /// # Errors
    ///
    /// As [`TryRnn::try_forward`], the path naming the gate
    /// (`update_gate.input_transform`, …).
    ///
    /// ```
    /// use burn::nn::GruConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let gru = GruConfig::new(4, 5, true).init(&device);
    /// assert_eq!(gru.try_forward(Tensor::ones([2, 3, 4], &device), None)?.dims(), [2, 3, 5]);
    /// let state = Tensor::zeros([3, 5], &device); // batch 3 for an input of batch 2
    /// let err = gru.try_forward(Tensor::ones([2, 3, 4], &device), Some(state)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, batched_input: Tensor<3>, state: Option<Tensor<2>>) -> Tensor<3> {
        // burn's `Gru` is always batch-first.
        let inputs = Inputs::read(&batched_input, true, [state.as_ref(), None]);
        run_single(self, OP, inputs, || self.forward(batched_input, state), Zeros::output)
    }
}
}

/// One step of [`TryLstm::try_forward_iter`]: its index `t` and its input `[batch, 1, d_input]`.
type TimeStep = (usize, Tensor<3>);

twins! {
/// Twin of [`Lstm::forward`].
pub trait TryLstm for Lstm = "lstm" {
    /// Fallible twin of [`Lstm::forward`]: `[batch, seq, d_input]` (or `[seq, batch, d_input]`
    /// when the layer is not batch-first) and an optional state whose cell and hidden are
    /// `[batch, d_hidden]`.
    ///
    /// The checks of [`TryRnn::try_forward`], for each of `input_gate`, `forget_gate` (absent
    /// with `input_forget`), `output_gate` and `cell_gate`; and the state's cell and hidden of
    /// one shape (burn's `LstmState::new` asserts it in debug builds; refused in every build).
    ///
    /// # Errors
    ///
    /// As [`TryRnn::try_forward`], the path naming the gate
    /// (`input_gate.input_transform`, …); [`GuardError::InvalidArgument`](crate::GuardError::InvalidArgument)
    /// for a module without the forget gate it needs.
    ///
    /// ```
    /// use burn::nn::{LstmConfig, LstmState};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let lstm = LstmConfig::new(4, 5, true).init(&device);
    /// let (out, state) = lstm.try_forward(Tensor::ones([2, 3, 4], &device), None)?;
    /// assert_eq!((out.dims(), state.hidden.dims()), ([2, 3, 5], [2, 5]));
    ///
    /// // A saved state of batch 3 for a request of batch 2: burn panics in `add`.
    /// let state = LstmState::new(Tensor::zeros([3, 5], &device), Tensor::zeros([3, 5], &device));
    /// let err = lstm.try_forward(Tensor::ones([2, 3, 4], &device), Some(state)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, batched_input: Tensor<3>, state: Option<LstmState<2>>) -> (Tensor<3>, LstmState<2>) {
        let states = [
            state.as_ref().map(|s| &s.hidden),
            state.as_ref().map(|s| &s.cell),
        ];
        let inputs = Inputs::read(&batched_input, self.batch_first, states);
        let forward = || self.forward(batched_input, state);
        run_single(self, OP, inputs, forward, |zeros| {
            let state = LstmState::new(zeros.state(), zeros.state());
            (zeros.output(), state)
        })
    }

    /// Fallible twin of [`Lstm::forward_iter`]: steps `(t, input_t)` with `input_t` of shape
    /// `[batch, 1, d_input]`, written at `t` of an output `[batch_size, seq_length,
    /// d_hidden]` (batch-first, whatever the layer's layout).
    ///
    /// Collects the steps, then checks each as [`TryLstm::try_forward`] checks an input: dim 1
    /// of size 1, and the step's batch (broadcast with the state's, as burn computes it) equal
    /// to `batch_size` where the step is written; every tensor on `device`. As in burn, a step
    /// with `t` past `seq_length` is computed and not written, and the output's positions no
    /// step writes are left uninitialized ([`Tensor::empty`]). Steps of an empty batch give
    /// the empty outputs without dispatch (NdArray panics on them); beyond burn, such steps
    /// after non-empty ones are refused.
    ///
    /// # Errors
    ///
    /// As [`TryLstm::try_forward`].
    ///
    /// ```
    /// use burn::nn::LstmConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let lstm = LstmConfig::new(4, 5, true).init(&device);
    /// let x = Tensor::<3>::ones([2, 3, 4], &device);
    /// let steps = || x.clone().iter_dim(1).enumerate();
    /// let (out, _) = lstm.try_forward_iter(steps(), None, 2, 3, &device)?;
    /// assert_eq!(out.dims(), [2, 3, 5]);
    /// // Steps of batch 2 for an output of batch 3: burn panics in `slice_assign`.
    /// let err = lstm.try_forward_iter(steps(), None, 3, 3, &device).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward_iter<I: Iterator<Item = TimeStep>>(&self, input_timestep_iter: I, state: Option<LstmState<2>>, batch_size: usize, seq_length: usize, device: &Device) -> (Tensor<3>, LstmState<2>) {
        let steps: Vec<(usize, Tensor<3>)> = input_timestep_iter.collect();
        let hidden = state.as_ref().map(|s| (dims(&s.hidden), s.hidden.device()));
        let cell = state.as_ref().map(|s| (dims(&s.cell), s.cell.device()));
        let mut hidden_batch = hidden
            .as_ref()
            .and_then(|(d, _)| d.first().copied())
            .unwrap_or(batch_size);
        let mut plans = Vec::with_capacity(steps.len());
        for (i, (t, input_t)) in steps.iter().enumerate() {
            let input = input_t.dims();
            let rows = step(
                OP,
                (*t, &input),
                hidden_batch,
                batch_size,
                seq_length,
                self.d_hidden,
            )?;
            // The given state feeds the first step; each next step gets the previous one's.
            let first = i == 0;
            plans.push(in_layer(
                OP,
                self.check(
                    OP,
                    [rows, 1, input[2]],
                    view(&hidden).filter(|_| first),
                    view(&cell).filter(|_| first),
                    input_t.device(),
                ),
            )?);
            hidden_batch = rows;
        }
        let plan = if plans.iter().all(|p| *p == Plan::EmptyBatch) && !plans.is_empty() {
            Plan::EmptyBatch
        } else if plans.contains(&Plan::EmptyBatch) {
            return Err(crate::GuardError::InvalidArgument {
                op: OP,
                rule: "steps of an empty batch must not follow steps of a non-empty one \
                       (NdArray's matmul divides by zero on them)",
                got: format!("batch_size={batch_size}"),
            });
        } else {
            Plan::Dispatch
        };
        // Without a step, the state is only read back: its two shapes and its device.
        if steps.is_empty() {
            in_layer(
                OP,
                self.check(
                    OP,
                    [batch_size, 0, 0],
                    view(&hidden),
                    view(&cell),
                    device.clone(),
                ),
            )?;
        }
        let mut devices = vec![device.clone()];
        devices.extend(steps.iter().map(|(_, x)| x.device()));
        same_devices(OP, &devices)?;
        match plan {
            Plan::Dispatch => catch(OP, || {
                self.forward_iter(steps.into_iter(), state, batch_size, seq_length, device)
            }),
            Plan::EmptyBatch => {
                let zeros = Zeros {
                    output: [batch_size, seq_length, self.d_hidden],
                    d_hidden: self.d_hidden,
                    device: device.clone(),
                    dtype: steps.first().map_or(DType::F32, |(_, x)| x.dtype()),
                };
                catch(OP, || {
                    (zeros.output(), LstmState::new(zeros.state(), zeros.state()))
                })
            }
        }
    }
}
}

twins! {
/// Twin of [`BiLstm::forward`].
pub trait TryBiLstm for BiLstm = "bilstm" {
    /// Fallible twin of [`BiLstm::forward`]: `[batch, seq, d_input]` (or `[seq, batch,
    /// d_input]` when not batch-first) and an optional state whose cell and hidden are
    /// `[2, batch, d_hidden]` (direction 0 forward, 1 reverse; burn ignores a third).
    ///
    /// Checks the state's directions, then each direction as [`TryLstm::try_forward`] does,
    /// its error under the path `forward` or `reverse` (`bilstm: reverse.input_gate.input_transform:
    /// linear: …`). An empty batch is refused: burn's `BiLstm` panics on it on Flex and
    /// NdArray (stacking the final states; a state of batch 1 given with an empty sequence is
    /// returned as burn returns it).
    ///
    /// # Errors
    ///
    /// As [`TryLstm::try_forward`]; [`GuardError::Empty`](crate::GuardError::Empty) for an
    /// empty batch; [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for a
    /// state of one direction.
    ///
    /// ```
    /// use burn::nn::{BiLstmConfig, LstmState};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let bilstm = BiLstmConfig::new(4, 5, true).init(&device);
    /// let (out, state) = bilstm.try_forward(Tensor::ones([2, 3, 4], &device), None)?;
    /// assert_eq!((out.dims(), state.hidden.dims()), ([2, 3, 10], [2, 2, 5]));
    ///
    /// let one_direction = LstmState::new(Tensor::zeros([1, 2, 5], &device), Tensor::zeros([1, 2, 5], &device));
    /// let err = bilstm.try_forward(Tensor::ones([2, 3, 4], &device), Some(one_direction)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, batched_input: Tensor<3>, state: Option<LstmState<3>>) -> (Tensor<3>, LstmState<3>) {
        let states = [state.as_ref().map(|s| &s.hidden), state.as_ref().map(|s| &s.cell)];
        let inputs = Inputs::read(&batched_input, self.batch_first, states);
        let forward = || self.forward(batched_input, state);
        run_bidirectional(OP, [&self.forward, &self.reverse], &inputs, DirectionSlice::Whole, forward)
    }
}

/// Twin of [`BiRnn::forward`].
pub trait TryBiRnn for BiRnn = "birnn" {
    /// Fallible twin of [`BiRnn::forward`]: `[batch, seq, d_input]` (or `[seq, batch,
    /// d_input]` when not batch-first) and an optional state `[2, batch, d_hidden]`
    /// (direction 0 forward, 1 reverse).
    ///
    /// burn slices each direction's state with ranges it clamps (`0..batch`, `0..d_hidden`):
    /// a larger state is cut to size, as burn does; a smaller one is checked as it is. Then
    /// each direction is checked as [`TryRnn::try_forward`] does, under the path `forward` or
    /// `reverse`. An empty batch is refused: burn's `BiRnn` panics on it, on Flex and NdArray.
    ///
    /// # Errors
    ///
    /// As [`TryRnn::try_forward`]; [`GuardError::Empty`](crate::GuardError::Empty) for an
    /// empty batch; [`GuardError::ShapeMismatch`](crate::GuardError::ShapeMismatch) for a
    /// state of one direction.
    ///
    /// ```
    /// use burn::nn::{BiRnnConfig, RnnState};
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let birnn = BiRnnConfig::new(4, 5, true).init(&device);
    /// let (out, state) = birnn.try_forward(Tensor::ones([2, 3, 4], &device), None)?;
    /// assert_eq!((out.dims(), state.hidden.dims()), ([2, 3, 10], [2, 2, 5]));
    /// let Err(err) = birnn.try_forward(Tensor::ones([2, 3, 6], &device), None) else {
    ///     unreachable!("6 features for a layer of 4")
    /// };
    /// assert_eq!(err.path().as_deref(), Some("forward.gate.input_transform"));
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, batched_input: Tensor<3>, state: Option<RnnState<3>>) -> (Tensor<3>, RnnState<3>) {
        let hidden = state.as_ref().map(|s| &s.hidden);
        let inputs = Inputs::read(&batched_input, self.batch_first, [hidden, None]);
        // burn slices each direction's state with ranges it clamps to the batch and d_hidden.
        let slice = DirectionSlice::Clamped { d_hidden: self.d_hidden };
        let forward = || self.forward(batched_input, state);
        run_bidirectional(OP, [&self.forward, &self.reverse], &inputs, slice, forward)
    }
}

/// Twin of [`BiGru::forward`].
pub trait TryBiGru for BiGru = "bigru" {
    /// Fallible twin of [`BiGru::forward`]: `[batch, seq, d_input]` (or `[seq, batch,
    /// d_input]` when not batch-first) and an optional state `[2, batch, d_hidden]`.
    ///
    /// The checks of [`TryBiRnn::try_forward`], each direction's as
    /// [`TryGru::try_forward`]'s.
    ///
    /// # Errors
    ///
    /// As [`TryBiRnn::try_forward`].
    ///
    /// ```
    /// use burn::nn::BiGruConfig;
    /// use burn::tensor::{Device, Tensor};
    /// use burn_guard::prelude::*;
    ///
    /// let device = Device::flex();
    /// let bigru = BiGruConfig::new(4, 5, true).init(&device);
    /// let (out, state) = bigru.try_forward(Tensor::ones([2, 3, 4], &device), None)?;
    /// assert_eq!((out.dims(), state.dims()), ([2, 3, 10], [2, 2, 5]));
    /// let one_direction = Tensor::zeros([1, 2, 5], &device);
    /// let err = bigru.try_forward(Tensor::ones([2, 3, 4], &device), Some(one_direction)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
    /// # Ok::<(), GuardError>(())
    /// ```
    fn try_forward(&self, batched_input: Tensor<3>, state: Option<Tensor<3>>) -> (Tensor<3>, Tensor<3>) {
        let inputs = Inputs::read(&batched_input, self.batch_first, [state.as_ref(), None]);
        let slice = DirectionSlice::Clamped { d_hidden: self.d_hidden };
        run_bidirectional(OP, [&self.forward, &self.reverse], &inputs, slice, || {
            self.forward(batched_input, state)
        })
    }
}
}
