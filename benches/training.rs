//! What the guarded step costs against burn-optim's own, on a whole training step on Flex
//! (forward, backward, `GradientsParams::from_grads`, Adam's step), for the MLP and the
//! transformer encoder of `benches/nn.rs`.
//!
//! ```text
//! cargo bench --no-default-features --features flex,optim --bench training   # release, as shipped
//! cargo bench --profile dev --all-features --bench training                 # the test build's deps
//! ```
//!
//! One paired criterion benchmark per model (`benches/support/paired.rs`): each iteration runs
//! a raw step and a guarded step, alternating which goes first, on two copies of the model
//! that train side by side. The guard's extra work is the walk of the model against the
//! gradients (no device work) and the finite check: one reduction per gradient, one `cat` and one
//! read per device per step. After the report the bench prints the device reads per guarded
//! step.

#[path = "support/mlp.rs"]
mod mlp;
#[path = "support/paired.rs"]
mod paired;

use std::cell::RefCell;
use std::time::Duration;

use burn::module::Module;
use burn::nn::transformer::{
    TransformerEncoder, TransformerEncoderConfig, TransformerEncoderInput,
};
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::{Device, Distribution, Tensor};
use burn_guard::optim::GuardedOptimizer;
use criterion::Criterion;
use mlp::Mlp;
use paired::{Paired, paired};

/// A raw and a guarded training run of `model`, stepped by `loss`.
fn pair<M: Module + 'static>(
    c: &mut Criterion,
    group: &str,
    model: M,
    loss: impl Fn(&M) -> Tensor<1>,
    guarded_reads: &mut Vec<(String, f64)>,
) -> Paired {
    let raw_model = RefCell::new(Some(model.clone()));
    let mut guarded_model = model;
    let mut raw_optim: ModuleOptimizer = AdamConfig::new().init();
    let mut guarded = GuardedOptimizer::new(AdamConfig::new().init());
    let mut raw = || {
        let model = raw_model.borrow_mut().take().unwrap();
        let grads = GradientsParams::from_grads(loss(&model).backward(), &model);
        *raw_model.borrow_mut() = Some(raw_optim.step(1e-4, model, grads));
        1
    };
    let mut checked = || {
        let grads = GradientsParams::from_grads(loss(&guarded_model).backward(), &guarded_model);
        guarded.step(1e-4, &mut guarded_model, grads).unwrap();
        1
    };
    for _ in 0..3 {
        raw();
        checked();
    }
    let record = paired(
        c,
        group,
        &mut [
            ("burn step", &mut raw),
            ("GuardedOptimizer::step", &mut checked),
        ],
    );
    let stats = guarded.stats();
    guarded_reads.push((
        group.to_owned(),
        stats.device_reads as f64 / stats.steps.max(1) as f64,
    ));
    record
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(20)
        .configure_from_args();
    let device = Device::flex().autodiff();
    device.seed(5);
    let mut results = Vec::new();
    let mut reads = Vec::new();

    let x = Tensor::<2>::random([64, 64], Distribution::Default, &device);
    let group = "step mlp flex".to_owned();
    let record = pair(
        &mut c,
        &group,
        Mlp::new(&device),
        move |m: &Mlp| m.loss(x.clone()),
        &mut reads,
    );
    results.push((group, record));

    let tokens = Tensor::<3>::random([8, 32, 64], Distribution::Default, &device);
    let encoder: TransformerEncoder = TransformerEncoderConfig::new(64, 128, 4, 2).init(&device);
    let group = "step transformer encoder flex".to_owned();
    let record = pair(
        &mut c,
        &group,
        encoder,
        move |m: &TransformerEncoder| {
            m.forward(TransformerEncoderInput::new(tokens.clone()))
                .powi_scalar(2)
                .mean()
        },
        &mut reads,
    );
    results.push((group, record));

    c.final_summary();
    paired::print(
        &results,
        "group: burn's step mean, guarded mean, guarded / burn (sums over the paired run), \
         difference per call, per-sample ratio quartiles",
    );
    for (group, per_step) in reads {
        println!("{group}: {per_step:.2} device reads per guarded step");
    }
}
