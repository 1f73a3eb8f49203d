//! What an isolation cell costs: a guarded forward of the transformer encoder of
//! `benches/nn.rs` at batch 64 on Flex, in-process against through a cell (the same weights:
//! both load the same checked save), paired in one run; then the restart time, from a child's
//! death to its successor's first good answer.
//!
//! Both paths start from the request's `TensorData` and end with the answer's, as a service
//! holds them. Each timed call follows 5 ms of idle (not timed): Flex runs on rayon, whose
//! workers spin for a while after a call, and in-process and in a cell they are two pools in
//! two processes on the same 2 cores; without the pause the parent's spinning workers, left
//! from its own in-process forward, slow the child's forward that follows (measured: the
//! child's forward 1.3× the parent's when interleaved back to back). A service that serves
//! through cells does not compute in the parent, so the pause is its case.
//!
//! The parent runs with glibc's allocator as it comes; the cell's child with
//! `CellOptions::keep_heap` (the default), and a second cell without it shows what it saves.
//!
//! `cargo bench --bench cells --all-features`.

#[path = "support/paired.rs"]
mod paired;

use std::cell::{Cell as Counter, RefCell};
use std::time::{Duration, Instant};

use burn::nn::transformer::{TransformerEncoder, TransformerEncoderConfig};
use burn::tensor::{Device, Distribution, Tensor, TensorData};
use burn_guard::cell::{Cell, CellContext, CellOptions, RestartPolicy, serve_if_cell};
use burn_guard::nn::transformer::TransformerEncoderInput;
use burn_guard::prelude::*;
use burn_guard::store::BurnpackStore;
use criterion::Criterion;
use paired::{paired_settled, print};

/// A request's second input, when it has one: what the child does besides or instead of the
/// forward.
const EXIT: i64 = 1;
const ECHO: i64 = 2;
const TIMED: i64 = 3;

fn encoder(device: &Device) -> TransformerEncoder {
    TransformerEncoderConfig::new(64, 128, 4, 2).init(device)
}

fn loaded(checkpoint: &std::path::Path, device: &Device) -> burn_guard::Result<TransformerEncoder> {
    let mut model = encoder(device);
    model.load_from_checked(&BurnpackStore::from_file(checkpoint))?;
    Ok(model)
}

fn forward(
    encoder: &TransformerEncoder,
    input: TensorData,
    device: &Device,
) -> burn_guard::Result<TensorData> {
    let tokens = Tensor::<3>::try_from_data(input, device)?;
    Ok(encoder
        .try_forward(TransformerEncoderInput::new(tokens))?
        .into_data())
}

/// The child: the encoder with the checkpoint's weights. A second input asks it to exit (the
/// restart measurement's death), to send the first input back (the transport alone), or to
/// add its own time for the forward as a second output.
fn child(
    cx: &CellContext,
) -> burn_guard::Result<impl FnMut(Vec<TensorData>) -> burn_guard::Result<Vec<TensorData>> + use<>>
{
    let device = Device::flex();
    let model = loaded(cx.checkpoint().unwrap(), &device)?;
    Ok(move |mut inputs: Vec<TensorData>| {
        let what = inputs
            .get(1)
            .map(|w| w.clone().convert::<i64>().try_to_vec::<i64>().unwrap()[0]);
        match what {
            Some(EXIT) => std::process::exit(3),
            Some(ECHO) => {
                inputs.truncate(1);
                Ok(inputs)
            }
            _ => {
                let started = Instant::now();
                let y = forward(&model, inputs.remove(0), &device)?;
                let inside = started.elapsed().as_secs_f64() * 1e6;
                Ok(match what {
                    Some(TIMED) => vec![y, TensorData::new(vec![inside], [1])],
                    _ => vec![y],
                })
            }
        }
    })
}

fn main() {
    serve_if_cell(child);

    let device = Device::flex();
    let dir = std::env::temp_dir().join(format!("burn-guard-bench-cells-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let checkpoint = dir.join("encoder.bpk");
    encoder(&device)
        .save_into_checked(&BurnpackStore::from_file(&checkpoint))
        .unwrap();
    let model = loaded(&checkpoint, &device).unwrap();
    let policy = RestartPolicy {
        max_restarts: 1000,
        ..RestartPolicy::default()
    };
    let options = CellOptions::new("encoder")
        .checkpoint(&checkpoint)
        .restart_policy(policy);
    let mut cell = Cell::start(options.clone()).unwrap();
    // The same cell with glibc's default trimming in its child: what `keep_heap` is for.
    let mut trimmed = Cell::start(options.keep_heap(false)).unwrap();

    let input = Tensor::<3>::random([64, 32, 64], Distribution::Default, &device).into_data();
    let here = forward(&model, input.clone(), &device).unwrap();
    let there = cell.call(vec![input.clone()]).unwrap();
    assert_eq!(
        there,
        vec![here],
        "the cell answers as the model in-process"
    );

    let code = |c: i64| TensorData::new(vec![c], [1]);
    let (echo, timed) = (code(ECHO), code(TIMED));
    let (inside, calls) = (Counter::new(0.0), Counter::new(0u64));
    let (inside_trimmed, calls_trimmed) = (Counter::new(0.0), Counter::new(0u64));
    // Two variants call the one cell.
    let shared = RefCell::new(cell);
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8))
        .sample_size(20)
        .configure_from_args();
    let group = "transformer encoder batch 64 flex".to_string();
    let record = paired_settled(
        &mut c,
        &group,
        Duration::from_millis(5),
        &mut [
            ("in-process", &mut || {
                forward(&model, input.clone(), &device)
                    .unwrap()
                    .bytes()
                    .len()
            }),
            ("cell", &mut || {
                let out = shared
                    .borrow_mut()
                    .call(vec![input.clone(), timed.clone()])
                    .unwrap();
                inside.set(inside.get() + out[1].clone().try_to_vec::<f64>().unwrap()[0]);
                calls.set(calls.get() + 1);
                out[0].bytes().len()
            }),
            ("cell, heap trimmed (keep_heap(false))", &mut || {
                let out = trimmed.call(vec![input.clone(), timed.clone()]).unwrap();
                inside_trimmed
                    .set(inside_trimmed.get() + out[1].clone().try_to_vec::<f64>().unwrap()[0]);
                calls_trimmed.set(calls_trimmed.get() + 1);
                out[0].bytes().len()
            }),
            // The same bytes there and back with no forward: what the transport costs.
            ("cell, echo only", &mut || {
                shared
                    .borrow_mut()
                    .call(vec![input.clone(), echo.clone()])
                    .unwrap()[0]
                    .bytes()
                    .len()
            }),
        ],
    );
    c.final_summary();
    print(
        &[(group, record)],
        "group: in-process mean, the variant's mean, variant / in-process (sums over the paired \
         run), difference per request, per-sample ratio quartiles",
    );
    println!(
        "the forward inside the child: {:.2} µs a request (mean over {} requests); with its heap \
         trimmed: {:.2} µs",
        inside.get() / calls.get() as f64,
        calls.get(),
        inside_trimmed.get() / calls_trimmed.get() as f64,
    );
    drop(trimmed);

    // Restarts: the child exits on a request; the next request finds it dead, starts a new
    // child (which loads the checkpoint), replays the last good request to verify it, then
    // answers.
    let mut cell = shared.into_inner();
    // The last good request is replayed to verify a restart: make it one whose answer does not
    // carry a time.
    cell.call(vec![input.clone()]).unwrap();
    let mut death_to_answer = Vec::new();
    for _ in 0..20 {
        cell.call(vec![input.clone(), code(EXIT)]).unwrap_err();
        let died = Instant::now();
        cell.call(vec![input.clone()]).unwrap();
        death_to_answer.push(died.elapsed());
    }
    death_to_answer.sort();
    let stats = cell.stats();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "restart (death to ready, verified by a replayed request): mean {:.1} ms, longest {:.1} \
         ms over {} restarts; death to the next good answer: median {:.1} ms, max {:.1} ms",
        ms(stats.time_down) / stats.restarts as f64,
        ms(stats.longest_restart),
        stats.restarts,
        ms(death_to_answer[death_to_answer.len() / 2]),
        ms(*death_to_answer.last().unwrap()),
    );
    drop(cell);
    let _ = std::fs::remove_dir_all(&dir);
}
