//! Runs an example binary that `cargo test` builds beside the test binaries, for the tests that
//! check its output. Included with `#[path]` by tests that cannot take all of `common/mod.rs`.

/// The standard output of `examples/<name>` run with `args`.
///
/// # Panics
///
/// When the binary is missing (`build` says what builds it) or exits with a failure.
pub fn run_example(name: &str, args: &[&str], build: &str) -> Vec<u8> {
    let exe = std::env::current_exe().unwrap();
    let examples = exe.parent().unwrap().parent().unwrap().join("examples");
    let binary = examples.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.exists(),
        "{} is missing: {build} builds it",
        binary.display()
    );
    let output = std::process::Command::new(&binary)
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// The number an example printed right after `marker` (`"max |difference| = "`).
///
/// # Panics
///
/// When `marker` is missing or no number follows it.
#[allow(dead_code)] // Not every test that runs an example reads a number.
pub fn number_after(stdout: &str, marker: &str) -> f32 {
    stdout
        .split(marker)
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("no number after {marker:?} in: {stdout}"))
}

/// `capabilities --json`'s support for `op` per backend (`native`, `fallback`, ...): the
/// report is run once, the closure answers for a backend, `None` without that record.
#[allow(dead_code)] // Only the tests of a backend extension read the report.
pub fn report_support(op: &str) -> impl Fn(&str) -> Option<String> {
    let stdout = run_example("capabilities", &["--json"], "`cargo test --all-features`");
    let records: Vec<serde_json::Value> = serde_json::from_slice(&stdout).unwrap();
    let op = op.to_owned();
    move |backend| {
        records
            .iter()
            .find(|r| r["op"] == op.as_str() && r["backend"] == backend)
            .map(|r| r["support"].as_str().unwrap_or("").to_owned())
    }
}
