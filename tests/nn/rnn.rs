//! `Rnn`, `Gru`, `Lstm` and `BiLstm`.

use burn::nn::activation::{ActivationConfig, PReluConfig, SwiGluConfig};
use burn::nn::{
    BiGruConfig, BiLstmConfig, BiRnnConfig, GruConfig, Initializer, LstmConfig, LstmState,
    RnnConfig, RnnState,
};
use burn::tensor::{Device, Tensor};
use burn_guard::prelude::*;
use proptest::prelude::*;

use crate::support::{cpu_devices, float_tensor, parity_on_cpus, raw, refusals, refused, snapshot};

type Snap = (Vec<usize>, Vec<f32>);

fn tensor<const D: usize>(dims: [usize; D], device: &Device) -> Tensor<D> {
    float_tensor(dims, device).div_scalar(4.0)
}

/// A state's batch: the input's, 1 (broadcast) or one more (wrong). Its hidden size is
/// picked the same way: the layer's, one more or one less (0 included).
fn state_batch(batch: usize, pick: u8) -> usize {
    match pick % 3 {
        0 => batch,
        1 => 1,
        _ => batch + 1,
    }
}

fn lstm_state(dims: [usize; 2], device: &Device) -> LstmState<2> {
    LstmState::new(tensor(dims, device), tensor(dims, device).neg())
}

fn lstm_snap((out, state): (Tensor<3>, LstmState<2>)) -> (Snap, Snap, Snap) {
    (snapshot(out), snapshot(state.cell), snapshot(state.hidden))
}

fn bilstm_snap((out, state): (Tensor<3>, LstmState<3>)) -> (Snap, Snap, Snap) {
    (snapshot(out), snapshot(state.cell), snapshot(state.hidden))
}

fn layout(batch_first: bool, [batch, seq, features]: [usize; 3]) -> [usize; 3] {
    if batch_first {
        [batch, seq, features]
    } else {
        [seq, batch, features]
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn rnn_parity(
        d_in in 1usize..4, hidden in 1usize..4, batch in 0usize..3, seq in 0usize..3,
        extra_feature: bool, state: Option<(u8, u8)>, batch_first: bool, reverse: bool, bias: bool,
    ) {
        let features = d_in + usize::from(extra_feature);
        let dims = layout(batch_first, [batch, seq, features]);
        let state_dims = state.map(|(b, h)| [state_batch(batch, b), hidden + 1 - usize::from(h % 3)]);
        let make_state = |device: &Device| state_dims.map(|d| RnnState::new(tensor(d, device)));
        parity_on_cpus(
            &format!("rnn {d_in}->{hidden} on {dims:?}, state {state_dims:?}, batch_first {batch_first}, reverse {reverse}"),
            |device| RnnConfig::new(d_in, hidden, bias).with_batch_first(batch_first).with_reverse(reverse).init(device),
            |layer, device| {
                let (out, state) = layer.forward(tensor(dims, device), make_state(device));
                (snapshot(out), snapshot(state.hidden))
            },
            |layer, device| layer
                .try_forward(tensor(dims, device), make_state(device))
                .map(|(out, state)| (snapshot(out), snapshot(state.hidden))),
        );
    }

    #[test]
    fn gru_parity(
        d_in in 1usize..4, hidden in 1usize..4, batch in 0usize..3, seq in 0usize..3,
        extra_feature: bool, state: Option<(u8, u8)>, reset_after: bool, bias: bool,
    ) {
        let dims = [batch, seq, d_in + usize::from(extra_feature)];
        let state_dims = state.map(|(b, h)| [state_batch(batch, b), hidden + 1 - usize::from(h % 3)]);
        parity_on_cpus(
            &format!("gru {d_in}->{hidden} on {dims:?}, state {state_dims:?}, reset_after {reset_after}"),
            |device| GruConfig::new(d_in, hidden, bias).with_reset_after(reset_after).init(device),
            |layer, device| snapshot(layer.forward(tensor(dims, device), state_dims.map(|d| tensor(d, device)))),
            |layer, device| layer
                .try_forward(tensor(dims, device), state_dims.map(|d| tensor(d, device)))
                .map(snapshot),
        );
    }

    #[test]
    fn lstm_parity(
        d_in in 1usize..4, hidden in 1usize..4, batch in 0usize..3, seq in 0usize..3,
        extra_feature: bool, state: Option<(u8, u8)>, batch_first: bool, reverse: bool,
        input_forget: bool, bias: bool,
    ) {
        let dims = layout(batch_first, [batch, seq, d_in + usize::from(extra_feature)]);
        let state_dims = state.map(|(b, h)| [state_batch(batch, b), hidden + 1 - usize::from(h % 3)]);
        parity_on_cpus(
            &format!("lstm {d_in}->{hidden} on {dims:?}, state {state_dims:?}, batch_first {batch_first}, reverse {reverse}, input_forget {input_forget}"),
            |device| LstmConfig::new(d_in, hidden, bias)
                .with_batch_first(batch_first)
                .with_reverse(reverse)
                .with_input_forget(input_forget)
                .init(device),
            |layer, device| lstm_snap(layer.forward(tensor(dims, device), state_dims.map(|d| lstm_state(d, device)))),
            |layer, device| layer
                .try_forward(tensor(dims, device), state_dims.map(|d| lstm_state(d, device)))
                .map(lstm_snap),
        );
    }

    #[test]
    fn lstm_forward_iter_parity(
        d_in in 1usize..4, hidden in 1usize..4, batch in 0usize..3, seq in 0usize..3,
        extra_feature: bool, state: Option<(u8, u8)>, reverse: bool,
        short_output: bool, other_batch: bool,
    ) {
        let dims = [batch, seq, d_in + usize::from(extra_feature)];
        let state_dims = state.map(|(b, h)| [state_batch(batch, b), hidden + 1 - usize::from(h % 3)]);
        // Every position of the output is written, or the call is refused: burn leaves the
        // others uninitialized.
        let seq_length = if short_output { seq.saturating_sub(1) } else { seq };
        let batch_size = batch + usize::from(other_batch);
        let steps = move |device: &Device| {
            let steps: Vec<(usize, Tensor<3>)> = tensor(dims, device).iter_dim(1).enumerate().collect();
            if reverse { steps.into_iter().rev().collect() } else { steps }
        };
        parity_on_cpus(
            &format!("lstm forward_iter {d_in}->{hidden} on {dims:?} into [{batch_size}, {seq_length}], state {state_dims:?}, reverse {reverse}"),
            |device| LstmConfig::new(d_in, hidden, true).init(device),
            |layer, device| lstm_snap(layer.forward_iter(
                steps(device).into_iter(), state_dims.map(|d| lstm_state(d, device)), batch_size, seq_length, device,
            )),
            |layer, device| layer.try_forward_iter(
                steps(device).into_iter(), state_dims.map(|d| lstm_state(d, device)), batch_size, seq_length, device,
            ).map(lstm_snap),
        );
    }

    #[test]
    fn birnn_parity(
        d_in in 1usize..4, hidden in 1usize..4, batch in 0usize..3, seq in 0usize..3,
        extra_feature: bool, state: Option<(u8, u8, u8)>, batch_first: bool, bias: bool,
    ) {
        let dims = layout(batch_first, [batch, seq, d_in + usize::from(extra_feature)]);
        let state_dims = state.map(|(b, h, directions)| {
            [1 + usize::from(directions % 3), state_batch(batch, b), hidden + 1 - usize::from(h % 3)]
        });
        parity_on_cpus(
            &format!("birnn {d_in}->{hidden} on {dims:?}, state {state_dims:?}, batch_first {batch_first}"),
            |device| BiRnnConfig::new(d_in, hidden, bias).with_batch_first(batch_first).init(device),
            |layer, device| {
                let (out, state) = layer.forward(tensor(dims, device), state_dims.map(|d| RnnState::new(tensor(d, device))));
                (snapshot(out), snapshot(state.hidden))
            },
            |layer, device| layer
                .try_forward(tensor(dims, device), state_dims.map(|d| RnnState::new(tensor(d, device))))
                .map(|(out, state)| (snapshot(out), snapshot(state.hidden))),
        );
    }

    #[test]
    fn bigru_parity(
        d_in in 1usize..4, hidden in 1usize..4, batch in 0usize..3, seq in 0usize..3,
        extra_feature: bool, state: Option<(u8, u8, u8)>, batch_first: bool, bias: bool,
    ) {
        let dims = layout(batch_first, [batch, seq, d_in + usize::from(extra_feature)]);
        let state_dims = state.map(|(b, h, directions)| {
            [1 + usize::from(directions % 3), state_batch(batch, b), hidden + 1 - usize::from(h % 3)]
        });
        parity_on_cpus(
            &format!("bigru {d_in}->{hidden} on {dims:?}, state {state_dims:?}, batch_first {batch_first}"),
            |device| BiGruConfig::new(d_in, hidden, bias).with_batch_first(batch_first).init(device),
            |layer, device| {
                let (out, state) = layer.forward(tensor(dims, device), state_dims.map(|d| tensor(d, device)));
                (snapshot(out), snapshot(state))
            },
            |layer, device| layer
                .try_forward(tensor(dims, device), state_dims.map(|d| tensor(d, device)))
                .map(|(out, state)| (snapshot(out), snapshot(state))),
        );
    }

    #[test]
    fn bilstm_parity(
        d_in in 1usize..4, hidden in 1usize..4, batch in 0usize..3, seq in 0usize..3,
        extra_feature: bool, state: Option<(u8, u8, u8)>, batch_first: bool, bias: bool,
    ) {
        let dims = layout(batch_first, [batch, seq, d_in + usize::from(extra_feature)]);
        let state_dims = state.map(|(b, h, directions)| {
            [1 + usize::from(directions % 3), state_batch(batch, b), hidden + 1 - usize::from(h % 3)]
        });
        let make_state = |device: &Device| state_dims.map(|d| LstmState::new(tensor(d, device), tensor(d, device).neg()));
        parity_on_cpus(
            &format!("bilstm {d_in}->{hidden} on {dims:?}, state {state_dims:?}, batch_first {batch_first}"),
            |device| BiLstmConfig::new(d_in, hidden, bias).with_batch_first(batch_first).init(device),
            |layer, device| bilstm_snap(layer.forward(tensor(dims, device), make_state(device))),
            |layer, device| layer.try_forward(tensor(dims, device), make_state(device)).map(bilstm_snap),
        );
    }
}

#[test]
fn recurrent_bad_inputs_are_refused_by_checks() {
    for (name, device) in cpu_devices() {
        let d = &device;
        let x = |dims: [usize; 3]| tensor(dims, d);
        let lstm = LstmConfig::new(4, 5, true).init(d);
        let rnn = RnnConfig::new(4, 5, true).init(d);
        let gru = GruConfig::new(4, 5, true).init(d);
        let bilstm = BiLstmConfig::new(4, 5, true).init(d);
        let birnn = BiRnnConfig::new(4, 5, true).init(d);
        let bigru = BiGruConfig::new(4, 5, true).init(d);
        let mixed = LstmState {
            cell: tensor([2, 5], d),
            hidden: tensor([3, 5], d),
        };
        let bi_state = |dims: [usize; 3]| LstmState::new(tensor(dims, d), tensor(dims, d));
        let one = || tensor([1, 2, 5], d);
        // A hidden size of 0: burn's step panics (Flex: index out of bounds; NdArray: divide
        // by zero).
        let zero = LstmConfig::new(4, 0, true).init(d);
        assert!(raw(|| zero.forward(x([2, 3, 4]), None)).is_none());
        let featureless = LstmConfig::new(0, 3, true).init(d);
        refusals! { name;
            // Wrong feature count: every layer names the gate's input transform.
            "lstm features", ShapeMismatch, "linear" at "input_gate.input_transform" =>
                lstm.try_forward(x([2, 3, 6]), None);
            "rnn features" at "gate.input_transform" => rnn.try_forward(x([2, 3, 3]), None);
            "gru features" at "update_gate.input_transform" => gru.try_forward(x([2, 3, 3]), None);
            "bilstm features" at "forward.input_gate.input_transform" =>
                bilstm.try_forward(x([2, 3, 6]), None);
            // A state of the wrong batch (burn: `add` panics) or hidden size (burn: linear).
            "lstm state batch", ShapeMismatch, "lstm" =>
                lstm.try_forward(x([2, 3, 4]), Some(lstm_state([3, 5], d)));
            "lstm state hidden" at "input_gate.hidden_transform" =>
                lstm.try_forward(x([2, 3, 4]), Some(lstm_state([2, 6], d)));
            "lstm cell unlike hidden" => lstm.try_forward(x([2, 3, 4]), Some(mixed));
            "rnn state batch" =>
                rnn.try_forward(x([2, 3, 4]), Some(RnnState::new(tensor([3, 5], d))));
            "gru state hidden" => gru.try_forward(x([2, 3, 4]), Some(tensor([2, 6], d)));
            // BiLstm: a state of one direction; an empty batch (burn panics on both backends).
            "bilstm one direction", ShapeMismatch => bilstm.try_forward(x([2, 3, 4]), Some(bi_state([1, 2, 5])));
            "bilstm empty batch", Empty => bilstm.try_forward(x([0, 3, 4]), None);
            "bilstm state batch" at "forward" => bilstm.try_forward(x([2, 3, 4]), Some(bi_state([2, 3, 5])));
            // BiRnn/BiGru: one direction, an empty batch, a state too small for the hidden size.
            "birnn one direction" => birnn.try_forward(x([2, 3, 4]), Some(RnnState::new(one())));
            "bigru one direction" => bigru.try_forward(x([2, 3, 4]), Some(one()));
            "birnn empty batch" => birnn.try_forward(x([0, 3, 4]), None);
            "bigru empty batch" => bigru.try_forward(x([0, 3, 4]), None);
            "bigru state hidden" at "forward.update_gate.hidden_transform" =>
                bigru.try_forward(x([2, 3, 4]), Some(tensor([2, 2, 4], d)));
            "lstm d_hidden 0", OutOfRange => zero.try_forward(x([2, 3, 4]), None);
            // Beyond burn: no features. NdArray's matmul divides by zero; Flex computes it.
            "lstm no features", Empty => featureless.try_forward(x([2, 3, 0]), None);
        }
    }
}

/// A gate parameter whose initializer panics when drawn (Kaiming with a fan of 0: no input
/// features) is drawn under the backstop when the twin reads its shape: the twin returns an
/// error naming the gate, nothing unwinds through it. burn's own forward panics there.
#[test]
fn a_gate_parameter_that_panics_when_drawn_comes_back_as_an_error() {
    let device = Device::flex();
    let kaiming = Initializer::KaimingUniform {
        gain: 1.0,
        fan_out_only: false,
    };
    let x = || Tensor::<3>::zeros([2, 3, 0], &device);

    let lstm = LstmConfig::new(0, 3, true)
        .with_initializer(kaiming.clone())
        .init(&device);
    assert!(!lstm.input_gate.input_transform.weight.is_initialized());
    assert!(raw(|| lstm.clone().forward(x(), None)).is_none());
    let err = lstm.try_forward(x(), None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BackendPanic, "{err}");
    assert_eq!(
        err.path().as_deref(),
        Some("input_gate.input_transform"),
        "{err}"
    );

    let gru = GruConfig::new(0, 3, true)
        .with_initializer(kaiming)
        .init(&device);
    let err = gru.try_forward(x(), None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BackendPanic, "{err}");
    assert_eq!(
        err.path().as_deref(),
        Some("update_gate.input_transform"),
        "{err}"
    );
}

#[test]
fn sequence_of_length_zero_is_burns_empty_output() {
    for (_, device) in cpu_devices() {
        let lstm = LstmConfig::new(4, 5, true).init(&device);
        let (out, state) = lstm.try_forward(tensor([2, 0, 4], &device), None).unwrap();
        assert_eq!((out.dims(), state.hidden.dims()), ([2, 0, 5], [2, 5]));
    }
}

#[test]
fn activations_with_parameters_are_checked_against_the_hidden_size() {
    for (name, device) in cpu_devices() {
        let d = &device;
        let prelu = |n: usize| ActivationConfig::PRelu(PReluConfig::new().with_num_parameters(n));
        let swiglu = |out: usize| ActivationConfig::SwiGlu(SwiGluConfig::new(5, out));
        let x = || tensor([2, 3, 4], d);
        // One weight per hidden unit, or one: burn runs them.
        for n in [1, 5] {
            let lstm = LstmConfig::new(4, 5, true)
                .with_hidden_activation(prelu(n))
                .init(d);
            let burn = raw(|| lstm_snap(lstm.forward(x(), None)));
            assert_eq!(burn, Some(lstm_snap(lstm.try_forward(x(), None).unwrap())));
        }
        let lstm = LstmConfig::new(4, 5, true)
            .with_hidden_activation(prelu(3))
            .init(d);
        assert!(raw(|| lstm.forward(x(), None)).is_none());
        let err = refused(name, "lstm prelu of 3", lstm.try_forward(x(), None));
        assert_eq!(err.path().as_deref(), Some("hidden_activation"));
        let gru = GruConfig::new(4, 5, true)
            .with_gate_activation(prelu(2))
            .init(d);
        assert!(raw(|| gru.forward(x(), None)).is_none());
        let err = refused(name, "gru prelu of 2", gru.try_forward(x(), None));
        assert_eq!(err.path().as_deref(), Some("gate_activation"));
        // A SwiGlu that changes the width.
        let rnn = RnnConfig::new(4, 5, true)
            .with_hidden_activation(swiglu(3))
            .init(d);
        assert!(raw(|| rnn.forward(x(), None)).is_none());
        let err = refused(name, "rnn swiglu 5->3", rnn.try_forward(x(), None));
        assert_eq!(err.path().as_deref(), Some("hidden_activation"));
        let rnn = RnnConfig::new(4, 5, true)
            .with_hidden_activation(swiglu(5))
            .init(d);
        let burn = raw(|| snapshot(rnn.forward(x(), None).0));
        assert_eq!(burn, Some(snapshot(rnn.try_forward(x(), None).unwrap().0)));
        // No step, no activation: burn returns the empty output.
        let (out, _) = lstm.try_forward(tensor([2, 0, 4], d), None).unwrap();
        assert_eq!(out.dims(), [2, 0, 5]);
    }
}

#[test]
fn inputs_on_another_device_are_refused() {
    let [(_, flex), (_, ndarray)] = <[_; 2]>::try_from(cpu_devices()).unwrap();
    let lstm = LstmConfig::new(4, 5, true).init(&flex);
    refusals! { "flex+ndarray";
        "lstm input on ndarray", DeviceMismatch =>
            lstm.try_forward(tensor([2, 3, 4], &ndarray), None);
        "lstm state on ndarray", DeviceMismatch =>
            lstm.try_forward(tensor([2, 3, 4], &flex), Some(lstm_state([2, 5], &ndarray)));
    }
}
