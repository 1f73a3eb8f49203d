//! Coverage: every burn method that panics on user input (class A: burn's front-end checks;
//! class B: inside a backend, past those checks) or through scalar conversion (class S) has a
//! `try_` twin, or an exception with its reason.
//!
//! The list is `tests/data/burn_panicking_methods.txt` (from the panic inventory). A twin is
//! found by its `fn try_<name>` in `src/tensor/`, or its `fn <name>_checked` for the reads whose
//! `try_<name>` burn already uses for an inherent method. The test fails naming:
//! - a method marked `twin` whose twin does not exist;
//! - a method marked `pending` whose twin now exists (update the list);
//! - an `exception` without a reason.

use std::collections::BTreeSet;
use std::path::Path;

fn twins() -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tensor");
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for (index, _) in text.match_indices("fn try_") {
            let name: String = text[index + "fn try_".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.insert(name);
        }
        for (index, _) in text.match_indices("_checked") {
            let before = &text[..index];
            if let Some(start) = before.rfind("fn ") {
                let name = &before[start + "fn ".len()..];
                if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    found.insert(name.to_owned());
                }
            }
        }
    }
    found
}

/// `Transaction::register` → `transaction_register`: the twin of an associated function of
/// another type is named after both.
fn twin_name(method: &str) -> String {
    method.replace("::", "_").to_lowercase()
}

#[test]
fn every_panicking_method_has_a_twin_or_a_reason() {
    let list = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/burn_panicking_methods.txt"),
    )
    .unwrap();
    let twins = twins();
    let mut problems = Vec::new();
    let (mut twinned, mut pending, mut exceptions) = (BTreeSet::new(), BTreeSet::new(), 0);
    // Rows, not names: `cast` is two methods (Float and Int), one twin name.
    let (mut rows, mut twinned_rows) = (0, 0);
    for line in list
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        rows += 1;
        let fields: Vec<&str> = line.split('\t').collect();
        let [_class, method, _location, _family, status] = fields[..] else {
            problems.push(format!("malformed line: {line:?}"));
            continue;
        };
        let has_twin = twins.contains(&twin_name(method));
        match status {
            "twin" if has_twin => {
                twinned.insert(method);
                twinned_rows += 1;
            }
            "twin" => problems.push(format!(
                "{method}: marked twin but no fn try_{}",
                twin_name(method)
            )),
            "pending" if has_twin => {
                problems.push(format!("{method}: twin exists, mark it `twin`"))
            }
            "pending" => {
                pending.insert(method);
            }
            status
                if status.starts_with("exception: ") && status.len() > "exception: ".len() + 8 =>
            {
                exceptions += 1;
            }
            other => problems.push(format!("{method}: bad status {other:?}")),
        }
    }
    println!(
        "{} twinned, {} exceptions, {} pending: {:?}",
        twinned.len(),
        exceptions,
        pending.len(),
        pending
    );
    assert!(
        problems.is_empty(),
        "coverage problems:\n{}",
        problems.join("\n")
    );

    // The README states these counts: keep them true.
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let names = twins.iter().filter(|name| !name.is_empty()).count();
    for claim in [
        format!("{twinned_rows} of those {rows} methods"),
        format!("{names} distinct names"),
    ] {
        assert!(readme.contains(&claim), "README.md must say {claim:?}");
    }
}
