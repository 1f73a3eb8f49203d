//! Burn's `examples/modern-lstm` on burn-guard: a bidirectional, stacked LSTM that predicts the
//! next number of a noisy Fibonacci-like sequence, served with `try_forward` and `?`.
//!
//! The port keeps modern-lstm's shapes and structure: sequences `[batch, 11, 1]` (two seeds
//! and `SEQ_LENGTH` = 10 sums, less the target), targets `[batch, 1]`, a `StackedLstm` of 2 layers of 32 with one saved state per layer, an optional
//! reverse stack run on the flipped sequence, dropout, and a linear head on the last step.
//! Each layer is burn's own `nn::Lstm` (modern-lstm writes its own cell with layer norms), so
//! the model's `try_forward` is built from burn-guard's layer twins. The data is synthetic and
//! deterministic (a fixed-seed generator instead of `rand`); training is left out.
//!
//! ```text
//! cargo run --all-features --example lstm
//! ```
//!
//! Prints max |raw − guarded| over the predictions (0: the twins run burn's own forward), then
//! the one-line error each bad service input gets, where raw burn panics.

use burn::module::Module;
use burn::nn::{Dropout, DropoutConfig, Linear, LinearConfig, Lstm, LstmConfig, LstmState};
use burn::tensor::{Device, Tensor, TensorData};
use burn_guard::prelude::*;

// Dataset parameters, as in modern-lstm.
const NUM_SEQUENCES: usize = 1000;
const SEQ_LENGTH: usize = 10;
const NOISE_LEVEL: f32 = 0.1;
const RANDOM_SEED: u64 = 5;

/// A sequence where each number is the sum of the previous two plus noise; the target is the
/// number that follows it.
#[derive(Clone, Debug)]
struct SequenceDatasetItem {
    sequence: Vec<f32>,
    target: f32,
}

/// SplitMix64: deterministic numbers without a `rand` dependency.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn uniform(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Normal(0, std), by Box-Muller.
    fn normal(&mut self, std: f32) -> f32 {
        let u1 = self.uniform().max(f32::MIN_POSITIVE);
        let u2 = self.uniform();
        std * (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos()
    }
}

impl SequenceDatasetItem {
    fn new(seq_length: usize, noise_level: f32, rng: &mut Rng) -> Self {
        let mut seq = vec![rng.uniform(), rng.uniform()];
        for _ in 0..seq_length {
            let next = seq[seq.len() - 2] + seq[seq.len() - 1] + rng.normal(noise_level);
            seq.push(next);
        }
        let target = seq.pop().unwrap_or_default();
        Self {
            sequence: seq,
            target,
        }
    }
}

fn dataset(num_sequences: usize, seq_length: usize, noise_level: f32) -> Vec<SequenceDatasetItem> {
    let mut rng = Rng(RANDOM_SEED);
    (0..num_sequences)
        .map(|_| SequenceDatasetItem::new(seq_length, noise_level, &mut rng))
        .collect()
}

struct SequenceBatch {
    sequences: Tensor<3>, // [batch_size, seq_length, input_size]
    targets: Tensor<2>,   // [batch_size, 1]
}

/// modern-lstm's batcher: one feature per step (`input_size` 1).
fn batch(items: &[SequenceDatasetItem], device: &Device) -> burn_guard::Result<SequenceBatch> {
    let seq_length = items.first().map_or(0, |item| item.sequence.len());
    let values: Vec<f32> = items
        .iter()
        .flat_map(|item| item.sequence.clone())
        .collect();
    let targets: Vec<f32> = items.iter().map(|item| item.target).collect();
    Ok(SequenceBatch {
        sequences: Tensor::try_from_data(
            TensorData::new(values, [items.len(), seq_length, 1]),
            device,
        )?,
        targets: Tensor::try_from_data(TensorData::new(targets, [items.len(), 1]), device)?,
    })
}

/// Stacked LSTM: each layer runs on the previous layer's output, with one state per layer.
#[derive(Module, Debug)]
struct StackedLstm {
    layers: Vec<Lstm>,
    dropout: Dropout,
}

impl StackedLstm {
    fn new(
        input_size: usize,
        hidden_size: usize,
        num_layers: usize,
        dropout: f64,
        device: &Device,
    ) -> Self {
        let layers = (0..num_layers)
            .map(|i| {
                let d_input = if i == 0 { input_size } else { hidden_size };
                LstmConfig::new(d_input, hidden_size, true).init(device)
            })
            .collect();
        Self {
            layers,
            dropout: DropoutConfig::new(dropout).init(),
        }
    }

    /// Raw burn: panics on a bad input.
    fn forward(
        &self,
        x: Tensor<3>,
        states: Option<Vec<LstmState<2>>>,
    ) -> (Tensor<3>, Vec<LstmState<2>>) {
        let mut output = x;
        let mut new_states = Vec::with_capacity(self.layers.len());
        for (i, layer) in self.layers.iter().enumerate() {
            let state = states.as_ref().map(|states| states[i].clone());
            let (out, state) = layer.forward(output, state);
            // No dropout after the last layer.
            output = if i + 1 < self.layers.len() {
                self.dropout.forward(out)
            } else {
                out
            };
            new_states.push(state);
        }
        (output, new_states)
    }

    fn try_forward(
        &self,
        x: Tensor<3>,
        states: Option<Vec<LstmState<2>>>,
    ) -> burn_guard::Result<(Tensor<3>, Vec<LstmState<2>>)> {
        if let Some(states) = &states
            && states.len() != self.layers.len()
        {
            return Err(GuardError::InvalidArgument {
                op: "states",
                rule: "one saved state per layer",
                got: format!("states={}, layers={}", states.len(), self.layers.len()),
            });
        }
        let mut states = states.map(Vec::into_iter);
        let mut output = x;
        let mut new_states = Vec::with_capacity(self.layers.len());
        for (i, layer) in self.layers.iter().enumerate() {
            let state = states.as_mut().and_then(Iterator::next);
            let (out, state) = layer
                .try_forward(output, state)
                .with_context(|| format!("layers.{i}"))?;
            output = if i + 1 < self.layers.len() {
                self.dropout.try_forward(out).context("dropout")?
            } else {
                out
            };
            new_states.push(state);
        }
        Ok((output, new_states))
    }
}

/// The network: forward stack, optional reverse stack on the flipped sequence, dropout, and a
/// linear head on the last step.
#[derive(Module, Debug)]
struct LstmNetwork {
    stacked_lstm: StackedLstm,
    reverse_lstm: Option<StackedLstm>,
    dropout: Dropout,
    fc: Linear,
}

struct LstmNetworkConfig {
    input_size: usize,
    hidden_size: usize,
    num_layers: usize,
    output_size: usize,
    dropout: f64,
    bidirectional: bool,
}

impl LstmNetworkConfig {
    /// modern-lstm's defaults.
    fn new() -> Self {
        Self {
            input_size: 1,
            hidden_size: 32,
            num_layers: 2,
            output_size: 1,
            dropout: 0.1,
            bidirectional: true,
        }
    }

    fn init(&self, device: &Device) -> LstmNetwork {
        let stack = || {
            StackedLstm::new(
                self.input_size,
                self.hidden_size,
                self.num_layers,
                self.dropout,
                device,
            )
        };
        let (reverse_lstm, hidden_size) = if self.bidirectional {
            (Some(stack()), 2 * self.hidden_size)
        } else {
            (None, self.hidden_size)
        };
        LstmNetwork {
            stacked_lstm: stack(),
            reverse_lstm,
            dropout: DropoutConfig::new(self.dropout).init(),
            fc: LinearConfig::new(hidden_size, self.output_size).init(device),
        }
    }
}

impl LstmNetwork {
    /// Raw burn, as modern-lstm writes it.
    fn forward(&self, x: Tensor<3>, states: Option<Vec<LstmState<2>>>) -> Tensor<2> {
        let (mut output, _states) = self.stacked_lstm.forward(x.clone(), states);
        if let Some(reverse_lstm) = &self.reverse_lstm {
            let (reverse_output, _states) = reverse_lstm.forward(x.flip([1]), None);
            output = Tensor::cat(vec![output, reverse_output.flip([1])], 2);
        }
        let output = self.dropout.forward(output);
        self.fc.forward(output.slice_dim(1, -1).squeeze_dim::<2>(1))
    }

    /// The same with burn-guard: every call that can panic is its `try_` twin.
    fn try_forward(
        &self,
        x: Tensor<3>,
        states: Option<Vec<LstmState<2>>>,
    ) -> burn_guard::Result<Tensor<2>> {
        let (mut output, _states) = self
            .stacked_lstm
            .try_forward(x.clone(), states)
            .context("stacked_lstm")?;
        if let Some(reverse_lstm) = &self.reverse_lstm {
            let (reverse_output, _states) = reverse_lstm
                .try_forward(x.try_flip([1])?, None)
                .context("reverse_lstm")?;
            output = Tensor::try_cat(vec![output, reverse_output.try_flip([1])?], 2)?;
        }
        let output = self.dropout.try_forward(output).context("dropout")?;
        let last_step = output
            .try_slice_dim(1, -1)
            .and_then(|last| last.try_squeeze_dim::<2>(1))
            .context("last_step")?;
        self.fc.try_forward(last_step).context("fc")
    }
}

fn max_abs_diff(a: Tensor<2>, b: Tensor<2>) -> burn_guard::Result<f32> {
    let a = a.into_data().try_to_vec::<f32>()?;
    let b = b.into_data().try_to_vec::<f32>()?;
    Ok(a.iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max))
}

fn main() -> burn_guard::Result<()> {
    let device = Device::flex();
    device.seed(RANDOM_SEED);
    let model = LstmNetworkConfig::new().init(&device);

    // modern-lstm's inference: a fifth of the dataset in one batch.
    let items = dataset(NUM_SEQUENCES / 5, SEQ_LENGTH, NOISE_LEVEL);
    let batch = batch(&items, &device)?;
    println!(
        "sequences {:?}, targets {:?}",
        batch.sequences.dims(),
        batch.targets.dims()
    );

    let raw = model.forward(batch.sequences.clone(), None);
    let guarded = model.try_forward(batch.sequences.clone(), None)?;
    println!("predictions {:?}", guarded.dims());
    println!("max |raw - guarded| = {:?}", max_abs_diff(raw, guarded)?);

    // Bad service inputs: raw burn panics on each; the guarded model says why, in one line.
    let state = |batch: usize| {
        LstmState::new(
            Tensor::zeros([batch, 32], &device),
            Tensor::zeros([batch, 32], &device),
        )
    };
    let requests: [(&str, Tensor<3>, Option<Vec<LstmState<2>>>); 4] = [
        ("sequence length 0", Tensor::zeros([4, 0, 1], &device), None),
        (
            "2 features",
            Tensor::zeros([4, SEQ_LENGTH + 1, 2], &device),
            None,
        ),
        (
            "one saved state for two layers",
            Tensor::zeros([4, SEQ_LENGTH + 1, 1], &device),
            Some(vec![state(4)]),
        ),
        (
            "saved states of batch 3 for 4 sequences",
            Tensor::zeros([4, SEQ_LENGTH + 1, 1], &device),
            Some(vec![state(3), state(3)]),
        ),
    ];
    for (what, x, states) in requests {
        match model.try_forward(x, states) {
            Ok(out) => println!("{what}: accepted, {:?}", out.dims()),
            Err(err) => println!("{what}: {err}"),
        }
    }
    Ok(())
}
