//! The harness of the fixed-count benches that callgrind reads (`tiny_ops_instructions`,
//! `quantize_instructions`, `training_instructions`): run each variant named on the command
//! line (all when none is),
//! and print its wall time per call beside the instruction counts.

/// Runs `run` for each variant `cargo bench` or callgrind named (the arguments that are not
/// flags; `cargo bench` passes `--bench`), or for every one of `all`, and prints the time per
/// call of `calls` calls.
pub fn run_variants(all: &[&str], calls: u32, mut run: impl FnMut(&str)) {
    let chosen: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    let variants: Vec<&str> = if chosen.is_empty() {
        all.to_vec()
    } else {
        chosen.iter().map(String::as_str).collect()
    };
    for variant in variants {
        let start = std::time::Instant::now();
        run(variant);
        println!("{variant}: {:?} per call", start.elapsed() / calls);
    }
}
