//! The no-panic rule as a test: no line of `src/` outside comments may contain `unwrap(`,
//! `expect(`, `panic!`, `unreachable!`, `todo!` or `unimplemented!`. The one exception is the
//! test module of `src/panic.rs`, whose tests must panic to exercise the backstop.
//!
//! A comment is a line whose trimmed text starts with `//` (this covers `///` and `//!` doc
//! comments, doc examples included). Clippy enforces the same rule through the crate attributes
//! in `src/lib.rs`; this test catches what clippy cannot see, such as string literals.

#[path = "common/sources.rs"]
mod sources;

use std::fs;

use sources::{manifest_dir, rust_files};

const TOKENS: [&str; 6] = [
    "unwrap(",
    "expect(",
    "panic!",
    "unreachable!",
    "todo!",
    "unimplemented!",
];

/// The file whose test module is exempt, relative to the crate root.
const BACKSTOP: &str = "src/panic.rs";

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// `(line number, line)` for every line of `text` that holds a token outside a comment.
/// With `exempt_tests`, the lines from `#[cfg(test)]` to the closing `}` (at column 0) of the
/// `mod tests {` it gates are skipped; comments and further attributes may stand between the two.
fn offending_lines(text: &str, exempt_tests: bool) -> (Vec<(usize, String)>, bool) {
    let lines: Vec<&str> = text.lines().collect();
    let mut hits = Vec::new();
    let mut in_exempt = false;
    let mut found_exempt = false;
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if exempt_tests && !in_exempt && trimmed == "#[cfg(test)]" {
            let next = lines
                .iter()
                .skip(index + 1)
                .map(|l| l.trim())
                .find(|l| !l.starts_with("//") && !l.starts_with("#["));
            if next == Some("mod tests {") {
                in_exempt = true;
                found_exempt = true;
                continue;
            }
        }
        if in_exempt {
            if *line == "}" {
                in_exempt = false;
            }
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        if TOKENS.iter().any(|token| line.contains(token)) {
            hits.push((index + 1, (*line).to_string()));
        }
    }
    (hits, found_exempt)
}

#[test]
fn src_has_no_panic_tokens_outside_comments() -> TestResult {
    let root = manifest_dir();
    let files = rust_files(&root.join("src"));
    assert!(
        files.len() > 1,
        "found no Rust files under {}",
        root.display()
    );

    let mut report = Vec::new();
    let mut backstop_seen = false;
    for path in &files {
        let relative = path
            .strip_prefix(root)?
            .to_string_lossy()
            .replace('\\', "/");
        let is_backstop = relative == BACKSTOP;
        let text = fs::read_to_string(path)?;
        let (hits, found_exempt) = offending_lines(&text, is_backstop);
        if is_backstop {
            backstop_seen = true;
            assert!(
                found_exempt,
                "{BACKSTOP}: its `#[cfg(test)] mod tests {{` module was not found; \
                 update this test if the backstop's tests moved"
            );
        }
        for (number, line) in hits {
            report.push(format!("{relative}:{number}: {}", line.trim()));
        }
    }
    assert!(backstop_seen, "{BACKSTOP} was not found");
    assert!(
        report.is_empty(),
        "panic tokens outside comments in src/ (rewrite without {TOKENS:?}):\n{}",
        report.join("\n")
    );
    Ok(())
}

#[test]
fn the_scanner_sees_what_it_should() {
    let text = "\
fn f() -> u8 {
    // x.unwrap() in a comment is fine
    /// so is panic!() in a doc comment
    let s = \"todo!\";
    g().unwrap()
}
#[cfg(test)]
// the backstop's tests
#[allow(clippy::expect_used)]
mod tests {
    fn t() { None::<u8>.expect(\"boom\"); }
}
fn h() { unreachable!() }
";
    let (hits, found) = offending_lines(text, false);
    let lines: Vec<usize> = hits.iter().map(|(n, _)| *n).collect();
    assert_eq!(lines, vec![4, 5, 11, 13]);
    assert!(!found);

    let (hits, found) = offending_lines(text, true);
    let lines: Vec<usize> = hits.iter().map(|(n, _)| *n).collect();
    assert_eq!(lines, vec![4, 5, 13]);
    assert!(found);
}
