//! The losses of `burn::nn::loss`, `ctc_loss`, and the loss configs' `init`s.
//!
//! Refusals that go beyond burn (burn computes something, the twin refuses by a named rule):
//! - `CrossEntropyLoss` with weights whose count is not the class count, without smoothing
//!   (`weights must hold one value per class`: burn gathers the first ones and ignores the
//!   rest).
//! - `HingeEmbeddingLoss` with an input that does not broadcast to the target's shape (`the
//!   input must broadcast to the target's shape`): Flex computes it, NdArray panics.
//! - `ctc_loss` (the function) with `targets`, `input_lengths` or `target_lengths` whose
//!   batch is not `log_probs`' (`must share log_probs' batch N`): the `CTCLoss` module
//!   asserts it; the function computes on Flex; and input lengths outside `0..=T` (`each
//!   input length must be in 0..=T`): the CPU backends compute a number, the GPU kernel reads
//!   out of bounds.
//! - `RNNTLoss` lengths out of range (`each target length must be in 0..=U`, `each logit length
//!   must be in 1..=T`): Flex panics, NdArray's `gather_nd` reads out of bounds and
//!   returns a number (see `RNNT_BEYOND`).
//! - `HuberLoss` with a negative or NaN `delta` loaded from a record (`must be at least 0`):
//!   Flex panics in `clamp(-delta, delta)`, NdArray computes.
//! - `CTCLoss` lengths in release builds only (burn asserts them under `debug_assertions`,
//!   which these tests run with, so parity holds here).

use burn::nn::loss::{
    BinaryCrossEntropyLossConfig, CTCLossConfig, CosineEmbeddingLossConfig, CrossEntropyLossConfig,
    GaussianNLLLossConfig, HingeEmbeddingLossConfig, HuberLossConfig, KLDivLossConfig,
    LpLossConfig, MarginRankingLossConfig, MseLoss, MultiMarginLossConfig, PoissonNllLossConfig,
    RNNTLossConfig, Reduction, SmoothL1LossConfig, SoftMarginLoss, TripletMarginLossConfig,
};
use burn::tensor::module::ctc_loss;
use burn::tensor::{Device, Int, Tensor, TensorData};
use burn_guard::prelude::*;
use burn_guard::tensor::module::try_ctc_loss;
use proptest::prelude::*;

use crate::support::{cpu_devices, float_tensor, init_parity, parity_on_cpus, raw, refusals};

/// A float tensor's shape and bits (NaN-safe: both sides run the same computation).
fn snap<const D: usize>(t: Tensor<D>) -> (Vec<usize>, Vec<u32>) {
    let dims = t.dims().to_vec();
    let values = t.into_data().convert::<f32>().try_to_vec::<f32>().unwrap();
    (dims, values.into_iter().map(f32::to_bits).collect())
}

/// Deterministic floats of `dims`, plus `shift` (6.0 makes them all non-negative).
fn floats<const D: usize>(dims: [usize; D], shift: f32, device: &Device) -> Tensor<D> {
    float_tensor(dims, device) + shift
}

/// Ints of `dims` taken from `pool` (cycled), mapped by `f`.
fn ints<const D: usize>(
    dims: [usize; D],
    pool: &[i64],
    f: impl Fn(i64) -> i64,
    device: &Device,
) -> Tensor<D, Int> {
    let n: usize = dims.iter().product();
    if n == 0 {
        return Tensor::zeros(dims, device);
    }
    let values: Vec<i64> = pool.iter().cycle().take(n).map(|&v| f(v)).collect();
    Tensor::<1, Int>::from_data(TensorData::new(values, [n]), device).reshape(dims)
}

/// Probabilities in `(0, 1)`.
trait Sigmoid {
    fn sigmoid_(self) -> Self;
}

impl<const D: usize> Sigmoid for Tensor<D> {
    fn sigmoid_(self) -> Self {
        burn::tensor::activation::sigmoid(self)
    }
}

/// `RNNTLoss` refusals where NdArray returns a number (its `gather_nd` reads out of bounds)
/// and Flex panics.
const RNNT_BEYOND: &[&str] = &[
    "each target length must be in 0..=U",
    "each logit length must be in 1..=T",
];

/// A refusal beyond burn, by the named `rule`: where ours refuses by it, the outcome compared
/// is raw burn's (so the contract holds whether burn computes something or panics), and the
/// refusal must be a check.
fn beyond_burn<T>(
    rules: &[&str],
    burn: impl FnOnce() -> T,
    ours: Result<T, GuardError>,
) -> Result<T, GuardError> {
    match ours {
        Err(err) if rules.iter().any(|rule| err.to_string().contains(rule)) => {
            assert!(
                !matches!(err.root(), GuardError::BackendPanic { .. }),
                "refused by the backstop, not a check: {err}"
            );
            raw(burn).ok_or(err)
        }
        ours => ours,
    }
}

fn reduction(i: usize) -> Reduction {
    match i % 4 {
        0 => Reduction::Mean,
        1 => Reduction::Sum,
        2 => Reduction::Auto,
        _ => Reduction::BatchMean,
    }
}

fn pool() -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(0i64..1000, 8)
}

/// Shapes `[a, b]` with sizes in `0..3`: equal, broadcastable or not.
fn shape2() -> impl Strategy<Value = [usize; 2]> {
    [0usize..3, 0usize..3]
}

macro_rules! elementwise_parity {
    ($name:ident, $setup:expr, ($($arg:ident),+)) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

            #[test]
            fn $name($($arg in shape2(),)+ r in 0usize..4, shift in prop::bool::ANY) {
                let s = if shift { 6.0 } else { 0.0 };
                let case = format!(concat!(stringify!($name), " {:?} r{}", ), [$($arg),+], r);
                parity_on_cpus(
                    &case,
                    |_| $setup,
                    |l, d| snap(l.forward($(floats($arg, s, d),)+ reduction(r))),
                    |l, d| l.try_forward($(floats($arg, s, d),)+ reduction(r)).map(snap),
                );
                parity_on_cpus(
                    &format!("{case} no reduction"),
                    |_| $setup,
                    |l, d| snap(l.forward_no_reduction($(floats($arg, s, d)),+)),
                    |l, d| l.try_forward_no_reduction($(floats($arg, s, d)),+).map(snap),
                );
            }
        }
    };
}

elementwise_parity!(mse_parity, MseLoss::new(), (a, b));
elementwise_parity!(soft_margin_parity, SoftMarginLoss::new(), (a, b));
elementwise_parity!(kl_div_parity, KLDivLossConfig::new().init(), (a, b));
elementwise_parity!(huber_parity, HuberLossConfig::new(0.5).init(), (a, b));
elementwise_parity!(lp_parity, LpLossConfig::new(3.0).init(), (a, b));
elementwise_parity!(
    gaussian_nll_parity,
    GaussianNLLLossConfig::new().init(),
    (a, b, c)
);
elementwise_parity!(
    margin_ranking_parity,
    MarginRankingLossConfig::new().init(),
    (a, b, c)
);
elementwise_parity!(
    poisson_nll_parity,
    PoissonNllLossConfig::new().with_log_input(false).init(),
    (a, b)
);

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn smooth_l1_parity(a in shape2(), b in shape2(), r in 0usize..4, dim in -3isize..3) {
        let case = format!("smooth_l1 {a:?} {b:?} r{r} dim {dim}");
        let setup = |_: &Device| SmoothL1LossConfig::new().init();
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward(floats(a, 0.0, d), floats(b, 0.0, d))),
            |l, d| l.try_forward(floats(a, 0.0, d), floats(b, 0.0, d)).map(snap));
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward_with_reduction(floats(a, 0.0, d), floats(b, 0.0, d), reduction(r))),
            |l, d| l.try_forward_with_reduction(floats(a, 0.0, d), floats(b, 0.0, d), reduction(r)).map(snap));
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward_reduce_dims(floats(a, 0.0, d), floats(b, 0.0, d), &[dim])),
            |l, d| l.try_forward_reduce_dims(floats(a, 0.0, d), floats(b, 0.0, d), &[dim]).map(snap));
    }

    #[test]
    fn lp_reduce_dims_parity(a in shape2(), b in shape2(), d0 in -3isize..3, d1 in -3isize..3) {
        parity_on_cpus(&format!("lp reduce {a:?} {b:?} [{d0}, {d1}]"),
            |_| LpLossConfig::new(1.0).init(),
            |l, d| snap(l.forward_reduce_dims(floats(a, 0.0, d), floats(b, 0.0, d), &[d0, d1])),
            |l, d| l.try_forward_reduce_dims(floats(a, 0.0, d), floats(b, 0.0, d), &[d0, d1]).map(snap));
    }

    #[test]
    fn hinge_embedding_parity(a in shape2(), b in shape2(), r in 0usize..4) {
        let case = format!("hinge {a:?} {b:?} r{r}");
        let setup = |_: &Device| HingeEmbeddingLossConfig::new().init();
        let rule = "broadcast to the target's shape";
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward(floats(a, 0.0, d), floats(b, 0.0, d), reduction(r))),
            |l, d| beyond_burn(&[rule], || snap(l.forward(floats(a, 0.0, d), floats(b, 0.0, d), reduction(r))),
                l.try_forward(floats(a, 0.0, d), floats(b, 0.0, d), reduction(r)).map(snap)));
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward_no_reduction(floats(a, 0.0, d), floats(b, 0.0, d))),
            |l, d| beyond_burn(&[rule], || snap(l.forward_no_reduction(floats(a, 0.0, d), floats(b, 0.0, d))),
                l.try_forward_no_reduction(floats(a, 0.0, d), floats(b, 0.0, d)).map(snap)));
    }

    #[test]
    fn huber_residuals_parity(a in shape2()) {
        parity_on_cpus(&format!("huber residuals {a:?}"),
            |_| HuberLossConfig::new(1.0).init(),
            |l, d| snap(l.forward_residuals(floats(a, 0.0, d))),
            |l, d| l.try_forward_residuals(floats(a, 0.0, d)).map(snap));
    }

    #[test]
    fn triplet_parity(a in shape2(), p in shape2(), n in shape2(), r in 0usize..4) {
        let case = format!("triplet {a:?} {p:?} {n:?} r{r}");
        let setup = |_: &Device| TripletMarginLossConfig::new().init();
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward(floats(a, 0.0, d), floats(p, 1.0, d), floats(n, 2.0, d), reduction(r))),
            |l, d| l.try_forward(floats(a, 0.0, d), floats(p, 1.0, d), floats(n, 2.0, d), reduction(r)).map(snap));
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward_no_reduction(floats(a, 0.0, d), floats(p, 1.0, d), floats(n, 2.0, d))),
            |l, d| l.try_forward_no_reduction(floats(a, 0.0, d), floats(p, 1.0, d), floats(n, 2.0, d)).map(snap));
    }

    #[test]
    fn poisson_values_parity(a in shape2(), shift in prop::bool::ANY, log_input in prop::bool::ANY, full in prop::bool::ANY) {
        let s = if shift { 6.0 } else { 0.0 };
        parity_on_cpus(&format!("poisson {a:?} shift {s} log_input {log_input} full {full}"),
            |_| PoissonNllLossConfig::new().with_log_input(log_input).with_full(full).init(),
            |l, d| snap(l.forward(floats(a, 6.0, d), floats(a, s, d), Reduction::Sum)),
            |l, d| l.try_forward(floats(a, 6.0, d), floats(a, s, d), Reduction::Sum).map(snap));
    }

    #[test]
    fn cosine_embedding_parity(a in shape2(), b in shape2(), t in 0usize..3, r in 0usize..4, vals in pool()) {
        let case = format!("cosine {a:?} {b:?} [{t}] r{r}");
        let setup = move |_: &Device| CosineEmbeddingLossConfig::new().with_reduction(reduction(r)).init();
        let target = |d: &Device| ints([t], &vals, |v| if v % 2 == 0 { 1 } else { -1 }, d);
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward(floats(a, 0.0, d), floats(b, 1.0, d), target(d))),
            |l, d| l.try_forward(floats(a, 0.0, d), floats(b, 1.0, d), target(d)).map(snap));
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward_no_reduction(floats(a, 0.0, d), floats(b, 1.0, d), target(d))),
            |l, d| l.try_forward_no_reduction(floats(a, 0.0, d), floats(b, 1.0, d), target(d)).map(snap));
    }

    #[test]
    fn cross_entropy_parity(
        a in [0usize..3, 0usize..4], t in 0usize..3, vals in pool(),
        weights in prop::option::of(1usize..5), smoothing in prop::option::of(0.0f32..1.0),
        pad in prop::option::of(0usize..4), logits in prop::bool::ANY,
    ) {
        let [_, classes] = a;
        let case = format!("cross_entropy {a:?} [{t}] {vals:?} w{weights:?} s{smoothing:?} pad{pad:?} logits {logits}");
        parity_on_cpus(&case,
            |d| CrossEntropyLossConfig::new()
                .with_weights(weights.map(|w| (1..=w).map(|i| i as f32).collect()))
                .with_smoothing(smoothing)
                .with_pad_tokens(pad.map(|p| vec![p]))
                .with_logits(logits)
                .init(d),
            |l, d| snap(l.forward(floats(a, 0.0, d), ints([t], &vals, |v| v % (classes as i64 + 2) - 1, d))),
            |l, d| {
                let targets = || ints([t], &vals, |v| v % (classes as i64 + 2) - 1, d);
                let out = l.try_forward(floats(a, 0.0, d), targets()).map(snap);
                beyond_burn(&["one value per class"], || snap(l.forward(floats(a, 0.0, d), targets())), out)
            });
    }

    #[test]
    fn binary_cross_entropy_parity(
        a in shape2(), b in shape2(), vals in pool(),
        weights in prop::option::of(1usize..4), smoothing in prop::option::of(0.0f32..1.0),
        logits in prop::bool::ANY,
    ) {
        let case = format!("bce {a:?} {b:?} w{weights:?} s{smoothing:?} logits {logits}");
        let setup = |d: &Device| BinaryCrossEntropyLossConfig::new()
            .with_weights(weights.map(|w| (1..=w).map(|i| i as f32).collect()))
            .with_smoothing(smoothing)
            .with_logits(logits)
            .init(d);
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward(floats(a, 0.0, d).sigmoid_(), ints(b, &vals, |v| v % 2, d))),
            |l, d| l.try_forward(floats(a, 0.0, d).sigmoid_(), ints(b, &vals, |v| v % 2, d)).map(snap));
        // Rank 1: the weights are gathered by target value.
        let [n, _] = a;
        let [m, _] = b;
        parity_on_cpus(&format!("{case} rank 1"), setup,
            |l, d| snap(l.forward(floats([n], 0.0, d).sigmoid_(), ints([m], &vals, |v| v % 4, d))),
            |l, d| l.try_forward(floats([n], 0.0, d).sigmoid_(), ints([m], &vals, |v| v % 4, d)).map(snap));
    }

    #[test]
    fn multi_margin_parity(a in [0usize..3, 0usize..4], t in 0usize..3, vals in pool(), r in 0usize..4, p2 in prop::bool::ANY) {
        let [_, classes] = a;
        let target = |d: &Device| ints([t], &vals, |v| v % (classes as i64 + 2) - 1, d);
        let case = format!("multi_margin {a:?} [{t}] {vals:?} r{r}");
        let setup = |_: &Device| MultiMarginLossConfig::new().with_p(if p2 { 2 } else { 1 }).init();
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward(floats(a, 0.0, d), target(d), reduction(r))),
            |l, d| l.try_forward(floats(a, 0.0, d), target(d), reduction(r)).map(snap));
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward_no_reduction(floats(a, 0.0, d), target(d))),
            |l, d| l.try_forward_no_reduction(floats(a, 0.0, d), target(d)).map(snap));
    }

    #[test]
    fn ctc_parity(
        time in 0usize..4, batch in 1usize..3, classes in 1usize..4, width in 0usize..3,
        tb in 0usize..3, lb in 0usize..3, blank in 0usize..4,
        vals in pool(), il in pool(), tl in pool(), r in 0usize..4, zero_inf in prop::bool::ANY,
    ) {
        let case = format!("ctc T{time} N{batch} C{classes} S{width} tb{tb} lb{lb} blank{blank} {vals:?} {il:?} {tl:?}");
        let log_probs = |d: &Device| floats([time, batch, classes], 0.0, d);
        let targets = |d: &Device| ints([tb, width], &vals, |v| v % (classes as i64 + 1), d);
        let input_lengths = |d: &Device| ints([lb], &il, |v| v % (time as i64 + 2), d);
        let target_lengths = |d: &Device| ints([batch], &tl, |v| v % (width as i64 + 2), d);
        let setup = |_: &Device| CTCLossConfig::new().with_blank(blank).with_zero_infinity(zero_inf).init();
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward(log_probs(d), targets(d), input_lengths(d), target_lengths(d))),
            |l, d| l.try_forward(log_probs(d), targets(d), input_lengths(d), target_lengths(d)).map(snap));
        parity_on_cpus(&format!("{case} r{r}"), setup,
            |l, d| snap(l.forward_with_reduction(log_probs(d), targets(d), input_lengths(d), target_lengths(d), reduction(r))),
            |l, d| l.try_forward_with_reduction(log_probs(d), targets(d), input_lengths(d), target_lengths(d), reduction(r)).map(snap));
        parity_on_cpus(&format!("{case} function"), |_| (),
            |_, d| snap(ctc_loss(log_probs(d), targets(d), input_lengths(d), target_lengths(d), blank)),
            |_, d| beyond_burn(&["must share log_probs' batch N", "each input length must be in 0..=T"],
                || snap(ctc_loss(log_probs(d), targets(d), input_lengths(d), target_lengths(d), blank)),
                try_ctc_loss(log_probs(d), targets(d), input_lengths(d), target_lengths(d), blank).map(snap)));
    }

    #[test]
    fn rnnt_parity(
        batch in 1usize..3, time in 0usize..3, up1 in 0usize..3, vocab in 1usize..4,
        tw in 0usize..3, blank in 0usize..4,
        vals in pool(), ll in pool(), tl in pool(), r in 0usize..4, logits in prop::bool::ANY,
    ) {
        let case = format!("rnnt B{batch} T{time} U+1 {up1} V{vocab} tw{tw} blank{blank} {vals:?} {ll:?} {tl:?}");
        let x = |d: &Device| floats([batch, time, up1, vocab], 0.0, d);
        let targets = |d: &Device| ints([batch, tw], &vals, |v| v % (vocab as i64 + 1), d);
        let logit_lengths = |d: &Device| ints([batch], &ll, |v| v % (time as i64 + 2), d);
        let target_lengths = |d: &Device| ints([batch], &tl, |v| v % (tw as i64 + 2), d);
        let setup = |_: &Device| RNNTLossConfig::new().with_blank(blank).with_logits(logits).init();
        parity_on_cpus(&case, setup,
            |l, d| snap(l.forward(x(d), targets(d), logit_lengths(d), target_lengths(d))),
            |l, d| beyond_burn(RNNT_BEYOND,
                || snap(l.forward(x(d), targets(d), logit_lengths(d), target_lengths(d))),
                l.try_forward(x(d), targets(d), logit_lengths(d), target_lengths(d)).map(snap)));
        parity_on_cpus(&format!("{case} r{r}"), setup,
            |l, d| snap(l.forward_with_reduction(x(d), targets(d), logit_lengths(d), target_lengths(d), reduction(r))),
            |l, d| beyond_burn(RNNT_BEYOND,
                || snap(l.forward_with_reduction(x(d), targets(d), logit_lengths(d), target_lengths(d), reduction(r))),
                l.try_forward_with_reduction(x(d), targets(d), logit_lengths(d), target_lengths(d), reduction(r)).map(snap)));
    }
}

#[test]
fn loss_bad_inputs_are_refused_by_checks() {
    use Reduction::{BatchMean, Mean, Sum};
    for (name, d) in cpu_devices() {
        let d = &d;
        let x23 = || floats([2, 3], 0.0, d);
        let x22 = || floats([2, 2], 0.0, d);
        let poisson = PoissonNllLossConfig::new().init();
        let cosine = CosineEmbeddingLossConfig::new().init();
        let cosine_bm = CosineEmbeddingLossConfig::new()
            .with_reduction(BatchMean)
            .init();
        let pm = |n: usize| ints([n], &[1, -1], |v| v, d);
        let ce = CrossEntropyLossConfig::new().init(d);
        let ids = |v: &[i64]| ints([v.len()], v, |x| x, d);
        let padded = CrossEntropyLossConfig::new()
            .with_pad_tokens(Some(vec![7]))
            .init(d);
        let weighted = CrossEntropyLossConfig::new()
            .with_weights(Some(vec![1.0, 2.0]))
            .init(d);
        let smoothed = CrossEntropyLossConfig::new()
            .with_weights(Some(vec![1.0; 4]))
            .with_smoothing(Some(0.1))
            .init(d);
        let bce = BinaryCrossEntropyLossConfig::new()
            .with_weights(Some(vec![1.0, 2.0]))
            .init(d);
        let mm = MultiMarginLossConfig::new().init();
        let lp = || floats([4, 2, 3], 0.0, d);
        let targets = || ints([2, 2], &[1, 2], |v| v, d);
        let len = |v: &[i64]| ids(v);
        let ctc = CTCLossConfig::new().init();
        let ctc_blank = CTCLossConfig::new().with_blank(3).init();
        let rnnt = RNNTLossConfig::new().init();
        let rnnt_blank = RNNTLossConfig::new().with_blank(4).init();
        let logits = || floats([2, 3, 3, 4], 0.0, d);
        refusals! { name;
            "mse shapes", ShapeMismatch => MseLoss::new().try_forward(x23(), x22(), Mean);
            "mse batch mean", InvalidArgument =>
                MseLoss::new().try_forward(x23(), x23(), BatchMean);
            "soft margin shapes", ShapeMismatch =>
                SoftMarginLoss::new().try_forward(x23(), x22(), Sum);
            "hinge shapes", ShapeMismatch =>
                HingeEmbeddingLossConfig::new().init().try_forward(x23(), x22(), Sum);
            "kl shapes", ShapeMismatch =>
                KLDivLossConfig::new().init().try_forward(x23(), x22(), BatchMean);
            "huber shapes", ShapeMismatch =>
                HuberLossConfig::new(1.0).init().try_forward(x23(), x22(), Sum);
            "lp shapes", ShapeMismatch => LpLossConfig::l1().try_forward(x23(), x22(), Sum);
            "lp reduce dim", DimOutOfRange =>
                LpLossConfig::l1().try_forward_reduce_dims(x23(), x23(), &[2]);
            "smooth l1 shapes", ShapeMismatch =>
                SmoothL1LossConfig::new().init().try_forward(x23(), x22());
            "gaussian var shape", ShapeMismatch =>
                GaussianNLLLossConfig::new().init().try_forward(x23(), x23(), x22(), Mean);
            "margin ranking target", ShapeMismatch =>
                MarginRankingLossConfig::new().init().try_forward(x23(), x23(), x22(), Mean);
            "triplet negative", ShapeMismatch =>
                TripletMarginLossConfig::new().init().try_forward(x23(), x23(), x22(), Mean);
            "poisson shapes", ShapeMismatch =>
                poisson.try_forward(x23(), floats([2, 1], 6.0, d), Sum);
            "poisson negative target", OutOfRange => poisson.try_forward(x23(), x23(), Sum);
            "cosine dim", ShapeMismatch => cosine.try_forward(x23(), x22(), pm(2));
            "cosine target batch", ShapeMismatch => cosine.try_forward(x23(), x23(), pm(3));
            "cosine batch mean", InvalidArgument => cosine_bm.try_forward(x23(), x23(), pm(2));
            "ce batch", ShapeMismatch => ce.try_forward(x23(), ids(&[0, 1, 2]));
            "ce class id", IndexOutOfRange => ce.try_forward(x23(), ids(&[0, 3]));
            "ce negative class id", IndexOutOfRange => ce.try_forward(x23(), ids(&[-1, 0]));
            "ce pad id out of range", IndexOutOfRange => padded.try_forward(x23(), ids(&[7, 0]));
            "ce weights", ShapeMismatch => weighted.try_forward(x23(), ids(&[0, 1]));
            "ce smoothed weights", ShapeMismatch => smoothed.try_forward(x23(), ids(&[0, 1]));
            "bce shapes", ShapeMismatch => bce.try_forward(x23(), ints([2, 2], &[0, 1], |v| v, d));
            "bce weights", ShapeMismatch => bce.try_forward(x23(), ints([2, 3], &[0, 1], |v| v, d));
            "bce rank-1 weight index", IndexOutOfRange =>
                bce.try_forward(floats([2], 0.0, d), ids(&[0, 2]));
            "multi margin batch", ShapeMismatch => mm.try_forward(x23(), ids(&[0]), Sum);
            "multi margin class id", IndexOutOfRange => mm.try_forward(x23(), ids(&[0, 3]), Sum);
            "ctc targets batch", ShapeMismatch =>
                ctc.try_forward(lp(), ints([3, 2], &[1], |v| v, d), len(&[4, 4]), len(&[2, 2]));
            "ctc input lengths batch", ShapeMismatch =>
                ctc.try_forward(lp(), targets(), len(&[4]), len(&[2, 2]));
            "ctc target id", IndexOutOfRange =>
                ctc.try_forward(lp(), ints([2, 2], &[1, 3], |v| v, d), len(&[4, 4]), len(&[2, 2]));
            "ctc target length", OutOfRange =>
                ctc.try_forward(lp(), targets(), len(&[4, 4]), len(&[3, 2]));
            "ctc input length", OutOfRange =>
                ctc.try_forward(lp(), targets(), len(&[5, 4]), len(&[2, 2]));
            "ctc input shorter than target", OutOfRange =>
                ctc.try_forward(lp(), targets(), len(&[1, 4]), len(&[2, 2]));
            "ctc blank", OutOfRange =>
                ctc_blank.try_forward(lp(), targets(), len(&[4, 4]), len(&[2, 2]));
            "ctc empty time", Empty =>
                ctc.try_forward(floats([0, 2, 3], 0.0, d), targets(), len(&[0, 0]), len(&[0, 0]));
            "ctc batch mean", InvalidArgument => ctc.try_forward_with_reduction(
                lp(), targets(), len(&[4, 4]), len(&[2, 2]), BatchMean);
            "ctc_loss target id", IndexOutOfRange => try_ctc_loss(
                lp(), ints([2, 2], &[-1], |v| v, d), len(&[4, 4]), len(&[2, 2]), 0);
            "ctc_loss target length", OutOfRange =>
                try_ctc_loss(lp(), targets(), len(&[4, 4]), len(&[2, 3]), 0);
            "ctc_loss blank", OutOfRange =>
                try_ctc_loss(lp(), targets(), len(&[4, 4]), len(&[2, 2]), 3);
            "rnnt targets width", ShapeMismatch => rnnt.try_forward(
                logits(), ints([2, 3], &[1], |v| v, d), len(&[3, 3]), len(&[2, 2]));
            "rnnt target id", IndexOutOfRange => rnnt.try_forward(
                logits(), ints([2, 2], &[4], |v| v, d), len(&[3, 3]), len(&[2, 2]));
            "rnnt logit length 0", OutOfRange =>
                rnnt.try_forward(logits(), targets(), len(&[0, 3]), len(&[2, 2]));
            "rnnt target length", OutOfRange =>
                rnnt.try_forward(logits(), targets(), len(&[3, 3]), len(&[3, 2]));
            "rnnt blank", OutOfRange =>
                rnnt_blank.try_forward(logits(), targets(), len(&[3, 3]), len(&[2, 2]));
            "rnnt no label axis", Empty => rnnt.try_forward(
                floats([2, 3, 0, 4], 0.0, d), ints([2, 0], &[0], |v| v, d), len(&[3, 3]),
                len(&[0, 0]));
        }
    }
}

#[test]
fn cross_entropy_pad_tokens_of_any_value() {
    for pad in [usize::MAX, 1 << 40, 1 << 31, 3] {
        parity_on_cpus(
            &format!("cross_entropy pad {pad}"),
            |d| {
                CrossEntropyLossConfig::new()
                    .with_pad_tokens(Some(vec![pad, 1]))
                    .init(d)
            },
            |l, d| snap(l.forward(floats([2, 3], 0.0, d), ints([2], &[0, 1], |v| v, d))),
            |l, d| {
                l.try_forward(floats([2, 3], 0.0, d), ints([2], &[0, 1], |v| v, d))
                    .map(snap)
            },
        );
    }
}

#[test]
fn huber_delta_from_a_record() {
    for delta in [-1.0f32, f32::NAN, 0.0, 2.0] {
        let layer = || burn::nn::loss::HuberLoss {
            delta,
            lin_bias: delta * delta * 0.5,
        };
        parity_on_cpus(
            &format!("huber delta {delta}"),
            |_| layer(),
            |l, d| snap(l.forward_residuals(floats([2, 3], 0.0, d))),
            |l, d| {
                beyond_burn(
                    &["must be at least 0"],
                    || snap(l.forward_residuals(floats([2, 3], 0.0, d))),
                    l.try_forward_residuals(floats([2, 3], 0.0, d)).map(snap),
                )
            },
        );
    }
}

#[test]
fn loss_operands_on_two_devices_are_refused() {
    let devices = cpu_devices();
    let [(_, flex), (_, ndarray)] = &devices[..] else {
        panic!("two CPU backends");
    };
    let len = |d: &Device| ints([1], &[2], |v| v, d);
    let ce = CrossEntropyLossConfig::new().init(flex);
    refusals! { "flex+ndarray";
        "mse devices", DeviceMismatch => MseLoss::new().try_forward(
            floats([2, 3], 0.0, flex), floats([2, 3], 0.0, ndarray), Reduction::Mean);
        "cross entropy devices", DeviceMismatch =>
            ce.try_forward(floats([2, 3], 0.0, flex), ints([2], &[0, 1], |v| v, ndarray));
        "ctc_loss devices", DeviceMismatch => try_ctc_loss(
            floats([3, 1, 3], 0.0, flex), ints([1, 2], &[1, 2], |v| v, flex), len(flex),
            len(ndarray), 0);
    }
}

#[test]
fn vouched_loss_reads_are_skipped() {
    let d = Device::flex();
    let ce = CrossEntropyLossConfig::new().init(&d);
    let before = burn_guard::value_reads::count();
    ce.try_forward(floats([2, 3], 0.0, &d), ints([2], &[0, 2], |v| v, &d))
        .unwrap();
    assert_eq!(burn_guard::value_reads::count(), before + 1);
    burn_guard::value_reads::vouched(|| {
        ce.try_forward(floats([2, 3], 0.0, &d), ints([2], &[0, 2], |v| v, &d))
    })
    .unwrap();
    assert_eq!(burn_guard::value_reads::count(), before + 1);
    // Vouched and wrong: the id reaches the backend, whose panic the backstop returns.
    let err = burn_guard::value_reads::vouched(|| {
        ce.try_forward(floats([2, 3], 0.0, &d), ints([2], &[0, 3], |v| v, &d))
    })
    .unwrap_err();
    assert!(
        matches!(err.root(), GuardError::BackendPanic { .. }),
        "{err}"
    );
}

#[test]
fn loss_inits_refuse_what_burn_panics_on() {
    let d = Device::flex();
    let nums = [
        -1.0,
        -0.0,
        0.0,
        0.5,
        1.0,
        1.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    for &v in &nums {
        let f = v as f32;
        let c = HuberLossConfig::new(f);
        init_parity(&format!("huber {v}"), raw(|| c.init()), c.try_init());
        let c = LpLossConfig::new(v);
        init_parity(&format!("lp {v}"), raw(|| c.init()), c.try_init());
        let c = MarginRankingLossConfig::new().with_margin(v);
        init_parity(
            &format!("margin ranking {v}"),
            raw(|| c.init()),
            c.try_init(),
        );
        let c = PoissonNllLossConfig::new().with_eps(v);
        init_parity(&format!("poisson {v}"), raw(|| c.init()), c.try_init());
        let c = SmoothL1LossConfig::new().with_beta(f);
        init_parity(&format!("smooth l1 {v}"), raw(|| c.init()), c.try_init());
        for p in [-1, 0, 1, 2, 3] {
            let c = MultiMarginLossConfig::new().with_margin(v).with_p(p);
            init_parity(
                &format!("multi margin {v} p{p}"),
                raw(|| c.init()),
                c.try_init(),
            );
        }
        for weights in [None, Some(vec![1.0, f]), Some(vec![])] {
            for smoothing in [None, Some(f)] {
                let c = CrossEntropyLossConfig::new()
                    .with_weights(weights.clone())
                    .with_smoothing(smoothing);
                init_parity(
                    &format!("ce {weights:?} {smoothing:?}"),
                    raw(|| c.init(&d)),
                    c.try_init(&d),
                );
                let c = BinaryCrossEntropyLossConfig::new()
                    .with_weights(weights.clone())
                    .with_smoothing(smoothing);
                init_parity(
                    &format!("bce {weights:?} {smoothing:?}"),
                    raw(|| c.init(&d)),
                    c.try_init(&d),
                );
            }
        }
    }
}
