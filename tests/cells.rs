//! Isolation cells with real child processes and real faults: raw burn calls that abort and
//! segfault, a SIGKILL from outside, an exit, a hang, a panic handed over from wgpu's device
//! thread. Each request gets its named `Err`, this process lives, the cell restarts and its
//! next answer equals the answer before the fault.
//!
//! A cell's child is this test binary started again with only `cell_child` selected: the
//! ignored test that calls `serve_if_cell`, which serves when `BURN_GUARD_CELL` is set and
//! does nothing in a normal run.
#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::{Device, Tensor, TensorData};
use burn_guard::cell::{
    Cell, CellContext, CellFault, CellHealth, CellOptions, CellPool, RestartPolicy, serve_if_cell,
};
use burn_guard::prelude::*;
use burn_guard::store::BurnpackStore;
use burn_guard::{ErrorKind, GuardError};

/// Set in a child to make its weights differ from generation 1 on (the restart check's test).
const SHIFTED: &str = "BURN_GUARD_CELLS_SHIFTED";
/// Set in a child to run its model on the burn-remote server at this address.
const REMOTE: &str = "BURN_GUARD_CELLS_REMOTE";
/// Set in the parent process of the orphan test.
const ORPHAN_PARENT: &str = "BURN_GUARD_CELLS_ORPHAN_PARENT";

// What a request asks the child to do, in its second input.
const ANSWER: i64 = 0;
const ABORT: i64 = 1;
const SEGFAULT: i64 = 2;
const KILLED: i64 = 3;
const EXIT: i64 = 4;
const HANG: i64 = 5;
const DEVICE_THREAD_PANIC: i64 = 6;
const REFUSED: i64 = 7;
const ALLOCATOR_SETTINGS: i64 = 8;

/// glibc's allocator settings that `CellOptions::keep_heap` gives a child.
const HEAP_SETTINGS: [&str; 2] = ["MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_"];

#[derive(Module, Debug)]
struct Net {
    fc: Linear,
}

fn net(device: &Device) -> Net {
    Net {
        fc: LinearConfig::new(4, 3).init(device),
    }
}

/// The child's model: the checkpoint's weights, and what each kind of request does.
/// The returned closure captures nothing of `cx` (`use<>`): the model outlives the build.
fn build(
    cx: &CellContext,
) -> burn_guard::Result<impl FnMut(Vec<TensorData>) -> burn_guard::Result<Vec<TensorData>> + use<>>
{
    let device = match std::env::var(REMOTE) {
        Ok(address) => {
            burn_guard::devices::connect_remote_device(&address, 0, Duration::from_secs(10))?
        }
        Err(_) => Device::flex(),
    };
    let mut model = net(&device);
    if let Some(path) = cx.checkpoint() {
        model.load_from_checked(&BurnpackStore::from_file(path))?;
    }
    let shift = if std::env::var_os(SHIFTED).is_some() && cx.generation() > 0 {
        1.0
    } else {
        0.0
    };
    Ok(move |inputs: Vec<TensorData>| {
        let what = inputs
            .get(1)
            .map(|d| d.clone().convert::<i64>().try_to_vec::<i64>().unwrap()[0])
            .unwrap_or(ANSWER);
        let flex = Device::flex();
        match what {
            // Raw burn: a 4 TiB tensor. Rust's allocation-failure handler aborts (SIGABRT).
            ABORT => {
                let t = Tensor::<1>::zeros([1usize << 40], &flex);
                return Ok(vec![t.into_data()]);
            }
            // Raw burn: Flex's matmul of a batch of 0 against 1 reads out of bounds (SIGSEGV).
            SEGFAULT => {
                let a = Tensor::<3>::ones([0, 4, 4], &flex);
                let b = Tensor::<3>::ones([1, 4, 4], &flex);
                return Ok(vec![a.matmul(b).into_data()]);
            }
            // As the OOM killer does.
            KILLED => {
                let me = std::process::id().to_string();
                // The shell's own `kill`: no procps needed on a bare CI machine.
                let _ = std::process::Command::new("sh")
                    .args(["-c", &format!("kill -KILL {me}")])
                    .status();
                std::thread::sleep(Duration::from_secs(60));
            }
            EXIT => std::process::exit(3),
            // The child's allocator settings, -1 for one not set.
            ALLOCATOR_SETTINGS => {
                let values = HEAP_SETTINGS
                    .map(|key| std::env::var(key).map_or(-1, |v| v.parse::<i64>().unwrap()));
                return Ok(vec![TensorData::new(values.to_vec(), [2])]);
            }
            HANG => loop {
                std::thread::sleep(Duration::from_secs(1));
            },
            // Raw burn on wgpu: a tensor over the largest buffer, made in burn's persistent
            // pool, panics on the device thread; burn's runner hands the panic to this thread.
            DEVICE_THREAD_PANIC => {
                let d = common::wgpu_device().expect("a wgpu adapter");
                let limits = burn_guard::capability::limits_of(&d);
                let over = usize::try_from(limits.max_buffer_bytes.unwrap() / 4).unwrap() + 1024;
                let t = d.memory_persistent_allocations((), |_| Tensor::<1>::zeros([over], &d));
                return Ok(vec![t.into_data()]);
            }
            _ => {}
        }
        let x = Tensor::<2>::try_from_data(inputs[0].clone(), &device)?;
        // A wrong width is the twin's refusal, not a death.
        let x = if what == REFUSED {
            x.clone().try_reshape([1, 8])?
        } else {
            x
        };
        let y = model.fc.try_forward(x)?;
        let y = if shift != 0.0 { y.add_scalar(shift) } else { y };
        // A guarded read: a remote server that is gone is an `Err` here, not a panic.
        let timeout = burn_guard::devices::default_timeout();
        let y = burn_guard::devices::read_with_deadline("into_data", timeout, y.into_data_async())?;
        Ok(vec![y])
    })
}

/// The child: started by the tests below with `BURN_GUARD_CELL` set; a no-op otherwise.
#[test]
#[ignore = "the child of the cell tests, started by them"]
fn cell_child() {
    serve_if_cell(build);
}

/// The parent of `no_child_outlives_its_parent`, in a process of its own.
#[test]
#[ignore = "the parent process of no_child_outlives_its_parent, started by it"]
fn orphan_parent() {
    let Ok(dir) = std::env::var(ORPHAN_PARENT) else {
        return;
    };
    let pool = CellPool::start(options("orphans", &checkpoint(Path::new(&dir))), 2).unwrap();
    let pids: Vec<String> = pool
        .stats()
        .iter()
        .map(|s| match s.health {
            CellHealth::Up { pid, .. } => pid.to_string(),
            _ => panic!("{s:?}"),
        })
        .collect();
    std::fs::write(Path::new(&dir).join("pids"), pids.join(" ")).unwrap();
    // One child busy in an endless loop (its socket stays open, it reads nothing), one idle.
    let _ = pool.call(request(HANG));
    std::thread::sleep(Duration::from_secs(120));
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("burn-guard-cells-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A model saved once, with a checked save: every child loads these weights.
fn checkpoint(dir: &Path) -> PathBuf {
    let path = dir.join("net.bpk");
    if !path.exists() {
        net(&Device::flex())
            .save_into_checked(&BurnpackStore::from_file(&path))
            .unwrap();
    }
    path
}

fn options(name: &str, checkpoint: &Path) -> CellOptions {
    CellOptions::new(name)
        .args([
            "cell_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .checkpoint(checkpoint)
        .deadline(Duration::from_secs(10))
}

fn request(what: i64) -> Vec<TensorData> {
    vec![
        TensorData::new(
            (0..8).map(|i| i as f32 * 0.25 - 1.0).collect::<Vec<_>>(),
            [2, 4],
        ),
        TensorData::new(vec![what], [1]),
    ]
}

/// What a request asked for, and what it got.
type Answer = (i64, Result<Vec<TensorData>, GuardError>);

fn fault_of(err: &GuardError) -> &CellFault {
    match err.root() {
        GuardError::Cell { fault, .. } => fault,
        other => panic!("not a cell error: {other}"),
    }
}

/// The fault's request gets its `Err`, this process lives, and the next answer, from a new
/// child, equals the one before the fault.
fn survives(cell: &mut Cell, what: i64, expected: &[TensorData]) -> CellFault {
    let pid = cell.pid().unwrap();
    let err = cell.call(request(what)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cell, "{err}");
    let fault = fault_of(&err).clone();
    assert!(fault.is_death(), "{err}");
    assert_eq!(cell.health(), CellHealth::Dead);
    let again = cell.call(request(ANSWER)).unwrap();
    assert_eq!(again, expected, "after {fault}");
    assert_ne!(cell.pid().unwrap(), pid, "a new child answers");
    fault
}

#[test]
fn each_fault_is_a_named_err_and_the_restarted_cell_answers_as_before() {
    let dir = scratch("faults");
    let mut cell = Cell::start(options("net", &checkpoint(&dir))).unwrap();
    let good = cell.call(request(ANSWER)).unwrap();
    assert_eq!(good[0].shape().as_slice(), &[2, 3]);

    let abort = survives(&mut cell, ABORT, &good);
    assert_eq!(abort.cause(), "SIGABRT", "{abort}");
    assert!(
        abort
            .to_string()
            .contains("memory allocation of 4398046511104 bytes failed"),
        "{abort}"
    );
    let segfault = survives(&mut cell, SEGFAULT, &good);
    assert_eq!(segfault.cause(), "SIGSEGV", "{segfault}");
    let killed = survives(&mut cell, KILLED, &good);
    assert_eq!(killed.cause(), "SIGKILL", "{killed}");
    let exit = survives(&mut cell, EXIT, &good);
    assert!(matches!(exit, CellFault::Exit { code: 3, .. }), "{exit}");

    // A refusal in the child is an `Err` too, but the child lives.
    let pid = cell.pid();
    let err = cell.call(request(REFUSED)).unwrap_err();
    match fault_of(&err) {
        CellFault::Refused { op, kind, message } => {
            assert_eq!(op, "linear", "{err}");
            assert_eq!(kind, "ShapeMismatch", "{err}");
            assert!(message.starts_with("linear: "), "{err}");
        }
        other => panic!("{other}"),
    }
    assert_eq!(cell.pid(), pid);
    assert_eq!(cell.call(request(ANSWER)).unwrap(), good);

    let stats = cell.stats();
    println!("{}", serde_json::to_string(&stats).unwrap());
    assert_eq!(stats.requests, 11);
    assert_eq!(stats.answered, 6);
    assert_eq!(stats.refused, 1);
    assert_eq!(stats.failed, 4);
    assert_eq!(
        (
            stats.deaths.abort,
            stats.deaths.segfault,
            stats.deaths.kill,
            stats.deaths.exit
        ),
        (1, 1, 1, 1)
    );
    assert_eq!(stats.restarts, 4);
    assert!(stats.time_down > Duration::ZERO);
}

#[test]
fn a_child_keeps_its_heap_unless_told_otherwise_and_the_users_settings_win() {
    let dir = scratch("heap");
    let checkpoint = checkpoint(&dir);
    let settings = |options: CellOptions| {
        let mut cell = Cell::start(options).unwrap();
        let answer = cell.call(request(ALLOCATOR_SETTINGS)).unwrap();
        answer[0].clone().try_to_vec::<i64>().unwrap()
    };
    // What this test process itself was started with reaches the child in any case.
    let inherited = HEAP_SETTINGS.map(|key| std::env::var(key).map_or(-1, |v| v.parse().unwrap()));
    let kept = settings(options("heap-kept", &checkpoint));
    let defaults = [1 << 30, 32 << 20];
    for i in 0..2 {
        let expected = if inherited[i] >= 0 {
            inherited[i]
        } else {
            defaults[i]
        };
        assert_eq!(kept[i], expected, "{}", HEAP_SETTINGS[i]);
    }
    let trimmed = settings(options("heap-trimmed", &checkpoint).keep_heap(false));
    assert_eq!(trimmed, inherited.to_vec());
    let own = settings(options("heap-own", &checkpoint).env(HEAP_SETTINGS[0], "12345"));
    assert_eq!(own[0], 12345);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_hang_is_killed_at_the_deadline() {
    let dir = scratch("hang");
    let deadline = Duration::from_millis(1500);
    let mut cell = Cell::start(options("net", &checkpoint(&dir)).deadline(deadline)).unwrap();
    let good = cell.call(request(ANSWER)).unwrap();
    let started = Instant::now();
    let fault = survives(&mut cell, HANG, &good);
    assert_eq!(fault, CellFault::Deadline { after: deadline });
    assert!(started.elapsed() >= deadline);
    assert_eq!(cell.stats().deaths.deadline, 1);
}

#[test]
fn a_panic_from_wgpus_device_thread_kills_only_the_child() {
    if common::wgpu_device().is_none() {
        return;
    }
    let dir = scratch("device-thread");
    let mut cell = Cell::start(options("net", &checkpoint(&dir))).unwrap();
    let good = cell.call(request(ANSWER)).unwrap();
    let fault = survives(&mut cell, DEVICE_THREAD_PANIC, &good);
    // The runner thread's panic ends the child (exit code 101, burn-cubecl 0.22.1 with
    // cubecl 0.11); the fault names the thread and its message.
    match &fault {
        CellFault::Exit { stderr, .. } | CellFault::Signal { stderr, .. } => {
            assert!(stderr.starts_with("thread 'DSD-"), "{fault}");
            assert!(stderr.contains("can't allocate buffer"), "{fault}");
        }
        CellFault::Panicked { .. } => {}
        other => panic!("{other}"),
    }
    println!("{fault}");
}

#[test]
fn a_restarted_child_that_answers_differently_brings_the_cell_down() {
    let dir = scratch("diverged");
    let mut cell = Cell::start(options("net", &checkpoint(&dir)).env(SHIFTED, "1")).unwrap();
    cell.call(request(ANSWER)).unwrap();
    cell.call(request(EXIT)).unwrap_err();
    let err = cell.call(request(ANSWER)).unwrap_err();
    assert_eq!(fault_of(&err), &CellFault::RestartDiverged, "{err}");
    assert!(matches!(cell.health(), CellHealth::Down { .. }));
    // Down stays down.
    let err = cell.call(request(ANSWER)).unwrap_err();
    assert_eq!(fault_of(&err), &CellFault::RestartDiverged, "{err}");
}

#[test]
fn past_the_restart_intensity_the_cell_is_down_until_revived() {
    let dir = scratch("intensity");
    let policy = RestartPolicy {
        max_restarts: 2,
        within: Duration::from_secs(60),
        backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(4),
    };
    let mut cell = Cell::start(options("net", &checkpoint(&dir)).restart_policy(policy)).unwrap();
    let good = cell.call(request(ANSWER)).unwrap();
    for _ in 0..3 {
        assert!(fault_of(&cell.call(request(EXIT)).unwrap_err()).is_death());
    }
    let err = cell.call(request(ANSWER)).unwrap_err();
    assert_eq!(
        fault_of(&err),
        &CellFault::Down {
            max_restarts: 2,
            within: Duration::from_secs(60)
        },
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "cell: the cell must answer the request; got cell net that is down: it restarted more \
         than 2 times within 60s"
    );
    cell.revive();
    assert_eq!(cell.call(request(ANSWER)).unwrap(), good);
}

#[test]
fn a_model_that_cannot_be_built_is_a_start_failure() {
    let dir = scratch("start");
    let missing = dir.join("missing.bpk");
    let err = Cell::start(options("net", &missing)).unwrap_err();
    match fault_of(&err) {
        CellFault::StartFailed { reason } => {
            assert!(reason.contains("the model's build failed"), "{err}");
            assert!(reason.contains("missing.bpk"), "{err}");
        }
        other => panic!("{other}"),
    }
}

/// 10 000 requests to a pool of 3 cells, 1 % of them poison (aborts, segfaults, kills, exits,
/// hangs, in turn): every request answered exactly once, `Ok` with the right values or its
/// fault's `Err`; none lost. `BURN_GUARD_CELLS_REQUESTS` changes the count.
#[test]
fn a_pool_answers_every_request_of_a_poisoned_campaign_exactly_once() {
    let dir = scratch("campaign");
    let requests: usize = std::env::var("BURN_GUARD_CELLS_REQUESTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let policy = RestartPolicy {
        max_restarts: 1_000,
        ..RestartPolicy::default()
    };
    let pool = CellPool::start(
        options("campaign", &checkpoint(&dir))
            .deadline(Duration::from_millis(1500))
            .restart_policy(policy),
        3,
    )
    .unwrap();
    let good = pool.call(request(ANSWER)).unwrap();
    let poisons = [ABORT, SEGFAULT, KILLED, EXIT, HANG];
    let started = Instant::now();
    let (mut ok, mut refused_or_failed) = (0u64, std::collections::BTreeMap::<String, u64>::new());
    let threads = 3;
    let answers: Vec<Vec<Answer>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let pool = &pool;
                s.spawn(move || {
                    (t..requests)
                        .step_by(threads)
                        .map(|i| {
                            let what = if i % 100 == 99 {
                                poisons[(i / 100) % poisons.len()]
                            } else {
                                ANSWER
                            };
                            (what, pool.call(request(what)))
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let answers: Vec<_> = answers.into_iter().flatten().collect();
    assert_eq!(answers.len(), requests, "every request answered once");
    for (what, answer) in &answers {
        match (what, answer) {
            (&ANSWER, Ok(outputs)) => {
                assert_eq!(outputs, &good);
                ok += 1;
            }
            (&ANSWER, Err(e)) => panic!("a good request failed: {e}"),
            (_, Ok(_)) => panic!("a poison request ({what}) was answered"),
            (_, Err(e)) => {
                let fault = fault_of(e);
                assert!(fault.is_death(), "{e}");
                *refused_or_failed.entry(fault.cause()).or_default() += 1;
            }
        }
    }
    let stats = pool.stats();
    let restarts: u64 = stats.iter().map(|s| s.restarts).sum();
    let deaths: u64 = stats.iter().map(|s| s.deaths.total()).sum();
    let served: u64 = stats.iter().map(|s| s.requests).sum();
    let longest = stats.iter().map(|s| s.longest_restart).max().unwrap();
    println!(
        "{requests} requests in {:?}: {ok} answered, errors by cause {refused_or_failed:?}, \
         {deaths} deaths, {restarts} restarts, longest restart {longest:?}",
        started.elapsed()
    );
    let poisoned = u64::try_from(requests / 100).unwrap();
    assert_eq!(ok, u64::try_from(requests).unwrap() - poisoned);
    assert_eq!(refused_or_failed.values().sum::<u64>(), poisoned);
    assert_eq!(deaths, poisoned);
    assert_eq!(served, u64::try_from(requests).unwrap() + 1);
    // Each death was followed by a restart (the last ones may still be under way).
    assert!(
        restarts + 3 >= poisoned,
        "{restarts} restarts for {poisoned} deaths"
    );
}

/// A parent killed with SIGKILL runs no destructor: its children notice on their own and exit,
/// the idle one and the one busy in an endless loop alike.
#[test]
fn no_child_outlives_its_parent() {
    let dir = scratch("orphans");
    checkpoint(&dir);
    let exe = std::env::current_exe().unwrap();
    let mut parent = std::process::Command::new(exe)
        .args(["orphan_parent", "--exact", "--ignored", "--nocapture"])
        .env(ORPHAN_PARENT, &dir)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pids_file = dir.join("pids");
    let until = Instant::now() + Duration::from_secs(60);
    while !pids_file.exists() {
        assert!(Instant::now() < until, "the parent never started its cells");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Time for the hanging request to reach its child.
    std::thread::sleep(Duration::from_millis(300));
    let pids: Vec<u32> = std::fs::read_to_string(&pids_file)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2);
    let alive = |pid: u32| {
        // A zombie (state Z) is dead: only its exit status is left for init to reap.
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
    };
    assert!(pids.iter().all(|&p| alive(p)));
    parent.kill().unwrap();
    parent.wait().unwrap();
    let until = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(|&p| alive(p)) {
        assert!(
            Instant::now() < until,
            "children {pids:?} outlived their parent"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A cell whose model runs on a burn-remote server elsewhere (here a loopback server in this
/// process, standing for another host): the same handle, the same answers; a server that
/// stops is the child's refusal (its guarded read fails), not a death, and the cell goes on.
#[cfg(feature = "remote-device")]
#[test]
fn a_cell_reaches_a_device_on_another_host_through_burn_remote() {
    use burn_guard::devices::LoopbackRemoteDevice;

    let dir = scratch("remote");
    let path = checkpoint(&dir);
    let mut local = Cell::start(options("net", &path)).unwrap();
    let expected = local.call(request(ANSWER)).unwrap();

    let mut server = LoopbackRemoteDevice::start().unwrap();
    let mut cell = Cell::start(options("net-remote", &path).env(REMOTE, server.address())).unwrap();
    assert_eq!(cell.call(request(ANSWER)).unwrap(), expected);

    server.stop();
    let pid = cell.pid();
    let err = cell.call(request(ANSWER)).unwrap_err();
    println!("{err}");
    assert!(matches!(fault_of(&err), CellFault::Refused { .. }), "{err}");
    assert_eq!(cell.pid(), pid, "the child lives");
}

/// `try_forward`: a tensor in, a tensor out on the input's device, equal to the model's own
/// forward in this process; an answer of another rank is refused.
#[test]
fn a_tensor_forward_through_a_cell_equals_the_model_in_process() {
    let dir = scratch("forward");
    let path = checkpoint(&dir);
    let device = Device::flex();
    let mut model = net(&device);
    model
        .load_from_checked(&BurnpackStore::from_file(&path))
        .unwrap();
    let x = Tensor::<2>::from_data(request(ANSWER)[0].clone(), &device);
    let here = model.fc.forward(x.clone()).into_data();

    let mut cell = Cell::start(options("net", &path)).unwrap();
    let there: Tensor<2> = cell.try_forward(x.clone()).unwrap();
    assert_eq!(there.into_data(), here);
    let pool = CellPool::start(options("net", &path), 2).unwrap();
    let there: Tensor<2> = pool.try_forward(x.clone()).unwrap();
    assert_eq!(there.into_data(), here);

    let err = cell.try_forward::<2, 3>(x).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::RankMismatch, "{err}");
}

/// A policy that names a pool of cells runs burn-vision's `unsafe` CPU code there: the same
/// answers as in this process, counted as runs away from Flex; a child killed from outside (as
/// the OOM killer does) costs one call its `Err`, and the restarted child, verified by
/// replaying the last good operation, answers the next.
#[cfg(feature = "vision")]
#[test]
fn a_policy_runs_burn_visions_operations_in_a_pool_of_cells() {
    use std::sync::Arc;

    use burn::tensor::{Bool, Int};
    use burn_guard::policy::{Op, Policy};
    use burn_guard::vision::{Connectivity, NmsOptions, TryConnectedComponents, TryNms};

    let dir = scratch("policy");
    let pool = Arc::new(CellPool::start(options("vision", &checkpoint(&dir)), 1).unwrap());
    let policy = Policy::strict().in_cells(Arc::clone(&pool));
    let device = Device::flex();

    let pixels: Vec<bool> = (0..24 * 40).map(|i| (i * 7919 % 13) < 5).collect();
    let image = Tensor::<2, Bool>::from_data(TensorData::new(pixels, [24, 40]), &device);
    let labels = |t: Tensor<2, Int>| t.into_data().convert::<i64>();
    for connectivity in [Connectivity::Four, Connectivity::Eight] {
        let here = image
            .clone()
            .try_connected_components(connectivity)
            .unwrap();
        let there = image
            .clone()
            .try_connected_components_with(connectivity, &policy)
            .unwrap();
        assert_eq!(there.device(), device);
        assert_eq!(labels(there), labels(here), "{connectivity:?}");
    }
    let boxes = Tensor::<2>::from_data(
        [
            [0.0, 0.0, 10.0, 10.0],
            [1.0, 1.0, 11.0, 11.0],
            [20.0, 20.0, 30.0, 30.0],
            [21.0, 19.0, 31.0, 29.0],
        ],
        &device,
    );
    let scores = Tensor::<1>::from_data([0.9, 0.8, 0.3, 0.7], &device);
    let nms = NmsOptions {
        iou_threshold: 0.5,
        score_threshold: 0.1,
        max_output_boxes: 0,
    };
    let here = boxes.clone().try_nms(scores.clone(), nms).unwrap();
    let there = boxes
        .clone()
        .try_nms_with(scores.clone(), nms, &policy)
        .unwrap();
    let kept = |t: Tensor<1, Int>| t.into_data().convert::<i64>();
    let expected = kept(here);
    assert_eq!(expected.as_slice::<i64>().unwrap(), &[0, 3]);
    assert_eq!(kept(there), expected);

    let stats = policy.stats_of(Op::Vision);
    assert_eq!((stats.native, stats.fallbacks, stats.errors), (0, 3, 0));
    // Two images of 960 one-byte bools, four boxes and their scores in f32.
    assert_eq!(stats.bytes_to_fallback, 2 * 960 + 4 * 4 * 4 + 4 * 4);
    assert_eq!(pool.stats()[0].answered, 3);

    // The child killed while idle: the next call's `Err` names the signal, this process lives.
    let CellHealth::Up { pid, .. } = pool.stats()[0].health else {
        panic!("{:?}", pool.stats()[0].health);
    };
    std::process::Command::new("sh")
        .args(["-c", &format!("kill -KILL {pid}")])
        .status()
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let err = image
        .clone()
        .try_connected_components_with(Connectivity::Eight, &policy)
        .unwrap_err();
    assert!(
        matches!(fault_of(&err), CellFault::Signal { signal: 9, .. }),
        "{err}"
    );
    assert_eq!(policy.stats_of(Op::Vision).errors, 1);
    // The pool restarts the cell on a thread of its own; the next call waits for it.
    let again = boxes.try_nms_with(scores, nms, &policy).unwrap();
    assert_eq!(kept(again), expected);
    assert_eq!(pool.stats()[0].restarts, 1);
    let _ = std::fs::remove_dir_all(&dir);
}
