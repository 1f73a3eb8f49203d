//! Fallback has one engine: `src/policy/engine.rs`, with one decision (`Policy::route`: home,
//! a fallback target, or refused) and one record (`Policy::record`: native, a fallback with
//! its bytes, or an error). Outside `src/policy/`, no source file decides a fallback
//! (`may_fall_back`), counts one (the policy's recorder) or warns about one: guarded paths
//! ask the engine for a route and tell it what happened.

#[path = "common/sources.rs"]
mod sources;

use sources::{manifest_dir, rust_files};

#[test]
fn only_the_policy_decides_moves_and_records_fallbacks() {
    let src = manifest_dir().join("src");
    let policy = src.join("policy");
    let files = rust_files(&src);
    let tokens = [
        "may_fall_back(",
        "recorder()",
        "stats.fallback(",
        "stats.moved(",
        "stats.native(",
        "log::warn!",
    ];
    let mut hits = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&policy)) {
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for token in tokens {
                if code.contains(token) {
                    hits.push(format!(
                        "{}:{}: {}",
                        file.display(),
                        number + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "fallback logic outside src/policy/:\n{}",
        hits.join("\n")
    );
    // The engine itself is there: one decision, one record, and no bag of steps beside them.
    let engine = std::fs::read_to_string(policy.join("engine.rs")).unwrap();
    assert!(engine.contains("pub(crate) fn route<"));
    assert!(engine.contains("pub(crate) fn record("));
    assert!(
        !engine.contains("fn run<"),
        "the closure-driven entry is gone"
    );
    assert!(
        !engine.contains("struct Steps"),
        "the closure-driven entry is gone"
    );
}
