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
