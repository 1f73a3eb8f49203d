//! Code and manifests describe the code, not the work that produced it: no line of `src/`,
//! `tests/`, `benches/`, `examples/`, `.ci/` or `Cargo.toml` may name a numbered tracker item
//! (the word for one, then a number: "… 8", "… #8") or who owns a part (see [`phrases`]).
//! References to upstream bugs by repository and number (`burn #4093`) stay allowed.
//!
//! The phrases are assembled at run time, so this file passes its own scan.

use std::fs;
use std::path::{Path, PathBuf};

/// Phrases that must not appear anywhere (matched case-insensitively, from a word start).
fn phrases() -> [String; 2] {
    [["owned", "by"].join(" "), ["engi", "neer"].concat()]
}

/// The word for a numbered tracker item; flagged when a number follows.
fn item_word() -> String {
    ["is", "sue"].concat()
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            files(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

fn starts_word(line: &str, at: usize) -> bool {
    !line[..at]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// What `line` says that it must not, if anything.
fn offence(line: &str) -> Option<String> {
    let lower = line.to_lowercase();
    for phrase in phrases() {
        if lower
            .match_indices(&phrase)
            .any(|(at, _)| starts_word(&lower, at))
        {
            return Some(phrase);
        }
    }
    let word = item_word();
    for (at, _) in lower.match_indices(&word) {
        if !starts_word(&lower, at) {
            continue;
        }
        let rest = lower[at + word.len()..].trim_start_matches('s');
        let rest = rest.trim_start_matches([' ', '\t', '#', ':']);
        if rest.starts_with(|c: char| c.is_ascii_digit()) {
            return Some(format!("{word} + number"));
        }
    }
    None
}

#[test]
fn no_tracker_words_in_code_or_manifests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = vec![root.join("Cargo.toml")];
    for dir in ["src", "tests", "benches", "examples", ".ci"] {
        let dir = root.join(dir);
        if dir.is_dir() {
            files(&dir, &mut paths).unwrap();
        }
    }
    paths.sort();
    let mut scanned = 0;
    let mut report = Vec::new();
    for path in &paths {
        // Binary data (the gzipped digits) has no lines to read.
        let Ok(text) = fs::read_to_string(path) else {
            continue;
        };
        scanned += 1;
        let relative = path.strip_prefix(root).unwrap().display().to_string();
        for (index, line) in text.lines().enumerate() {
            if let Some(what) = offence(line) {
                report.push(format!(
                    "{relative}:{}: ({what}) {}",
                    index + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        paths
            .iter()
            .any(|p| p.ends_with("tests/no_tracker_words.rs")),
        "the scan must include this file"
    );
    assert!(
        scanned > 20,
        "only {scanned} text files found under {root:?}"
    );
    assert!(
        report.is_empty(),
        "tracker words (say what the code does instead):\n{}",
        report.join("\n")
    );
}

#[test]
fn the_scanner_sees_what_it_should() {
    let word = item_word();
    let capital = format!("{}{}", word[..1].to_uppercase(), &word[1..]);
    for line in [
        format!("// {capital} 8: reliability."),
        format!("//! Hostile values ({word} 8): quantizing"),
        format!("# see {word} #12"),
        format!("{word}s 4 and 6"),
        format!("// lives in `quant`, {}.", phrases()[0]),
        format!("its {}", phrases()[1].to_uppercase()),
    ] {
        assert!(offence(&line).is_some(), "missed: {line}");
    }
    for line in [
        format!("// the {word} with NaN scales"),
        "tissue 5".to_owned(),
        "burn #4093 panicked on empty operands".to_owned(),
        "let owner = 3;".to_owned(),
    ] {
        assert_eq!(offence(&line), None, "flagged: {line}");
    }
}
