//! Serving a model in a pool of isolation cells while some requests kill the process that
//! serves them: raw burn calls known to abort (a 4 TiB tensor on Flex) and to segfault
//! (Flex's matmul of a batch of 0 against 1), `std::process::abort`, an endless loop. Each
//! poison request gets its fault as an `Err`; every other request is answered, with the
//! values the model gives in-process; the cells restart and the service goes on.
//!
//! ```text
//! cargo run --release --all-features --example cells
//! cargo run --release --all-features --example cells -- 3000   # more requests
//! ```

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData};
use burn_guard::cell::{CellContext, CellOptions, CellPool, RestartPolicy, serve_if_cell};
use burn_guard::prelude::*;
use burn_guard::store::BurnpackStore;
use burn_guard::{ErrorKind, GuardError};

#[derive(Module, Debug)]
struct Mlp {
    fc1: Linear,
    fc2: Linear,
}

impl Mlp {
    fn new(device: &Device) -> Self {
        Self {
            fc1: LinearConfig::new(16, 32).init(device),
            fc2: LinearConfig::new(32, 4).init(device),
        }
    }

    fn try_forward(&self, x: Tensor<2>) -> burn_guard::Result<Tensor<2>> {
        let h = self.fc1.try_forward(x)?;
        self.fc2.try_forward(relu(h))
    }
}

/// What a request carries besides its input: the poison, if any.
const POISONS: [(&str, i64); 4] = [
    ("raw burn abort", 1),
    ("std::process::abort", 2),
    ("raw burn segfault", 3),
    ("endless loop", 4),
];

/// The child: the checkpoint's weights, and what each poison does.
fn serve(
    cx: &CellContext,
) -> burn_guard::Result<impl FnMut(Vec<TensorData>) -> burn_guard::Result<Vec<TensorData>> + use<>>
{
    let device = Device::flex();
    let mut model = Mlp::new(&device);
    if let Some(path) = cx.checkpoint() {
        model.load_from_checked(&BurnpackStore::from_file(path))?;
    }
    Ok(move |inputs: Vec<TensorData>| {
        let poison = inputs[1]
            .clone()
            .convert::<i64>()
            .try_to_vec::<i64>()
            .unwrap()[0];
        match poison {
            1 => drop(Tensor::<1>::zeros([1usize << 40], &device)),
            2 => std::process::abort(),
            3 => {
                drop(Tensor::<3>::ones([0, 4, 4], &device).matmul(Tensor::ones([1, 4, 4], &device)))
            }
            4 => loop {
                std::thread::sleep(Duration::from_millis(100));
            },
            _ => {}
        }
        let x = Tensor::<2>::try_from_data(inputs[0].clone(), &device)?;
        Ok(vec![model.try_forward(x)?.into_data()])
    })
}

fn main() -> burn_guard::Result<()> {
    // In a cell's child this serves and exits; here it returns at once.
    serve_if_cell(serve);

    let requests: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(600);
    let device = Device::flex();
    let model = Mlp::new(&device);
    let dir = std::env::temp_dir().join(format!("burn-guard-example-cells-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let checkpoint = dir.join("mlp.bpk");
    model.save_into_checked(&BurnpackStore::from_file(&checkpoint))?;

    let pool = CellPool::start(
        CellOptions::new("mlp")
            .checkpoint(&checkpoint)
            .deadline(Duration::from_millis(500))
            .restart_policy(RestartPolicy {
                max_restarts: 100,
                ..RestartPolicy::default()
            }),
        3,
    )?;
    println!(
        "serving on {} cells; every 50th request is poison",
        pool.len()
    );

    let started = Instant::now();
    let (mut answered, mut wrong) = (0, 0);
    let mut errors: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..requests {
        let x: Vec<f32> = (0..32).map(|k| ((i * 31 + k) % 17) as f32 / 17.0).collect();
        let x = TensorData::new(x, [2, 16]);
        let poison = if i % 50 == 49 {
            POISONS[(i / 50) % POISONS.len()]
        } else {
            ("", 0)
        };
        match pool.call(vec![x.clone(), TensorData::new(vec![poison.1], [1])]) {
            Ok(outputs) => {
                let here = model.try_forward(Tensor::<2>::try_from_data(x, &device)?)?;
                if outputs[0] == here.into_data() {
                    answered += 1;
                } else {
                    wrong += 1;
                }
            }
            Err(err) => {
                assert_eq!(err.kind(), ErrorKind::Cell);
                let GuardError::Cell { fault, .. } = err.root() else {
                    unreachable!()
                };
                println!("request {i} ({}): {err}", poison.0);
                *errors.entry(fault.cause()).or_default() += 1;
            }
        }
    }
    let stats = pool.stats();
    let restarts: u64 = stats.iter().map(|s| s.restarts).sum();
    let longest = stats
        .iter()
        .map(|s| s.longest_restart)
        .max()
        .unwrap_or_default();
    println!(
        "\n{requests} requests in {:.1} s: {answered} answered as in-process, {wrong} answered \
         differently, errors by cause {errors:?}; {restarts} restarts (longest {:.1} ms)",
        started.elapsed().as_secs_f64(),
        longest.as_secs_f64() * 1e3,
    );
    for s in &stats {
        println!("  {}: {:?}", s.name, s.deaths);
    }
    drop(pool);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
