//! Coverage of `burn::nn`: every `forward*` method of every burn-nn module, and every config
//! `init` that can panic, has a twin or a listed exception with a reason.
//!
//! The names are found in burn-nn's own source (cargo's registry copy of the exact version we
//! build against), not in a list of ours, so a module burn adds shows up here as missing.
//! - A forward: `pub fn forward*` in an inherent `impl Type { .. }` outside `#[cfg(test)]`. Its
//!   twin is `fn try_forward*` in `pub trait TryType` under `src/nn/layers/`.
//! - An init that can panic: `pub fn init*` of a `*Config` whose body asserts, panics, divides by
//!   a field, indexes, or builds a config listed here as panicking (transitively: a
//!   `MultiHeadAttentionConfig` builds a `DropoutConfig`), or that the measured list below
//!   names (found by calling each init with zero sizes, NaN and out-of-range fields, see
//!   `tests/nn/init.rs`). Its twin is `impl TryInit for TypeConfig` or
//!   `impl TryInitStateless for TypeConfig` under `src/nn/`.
//! - Exceptions: `tests/data/burn_nn_exceptions.txt`, `Type::method<TAB>reason`.

#[path = "common/nn_twins.rs"]
mod nn_twins;
#[path = "common/sources.rs"]
mod sources;

use std::collections::{BTreeMap, BTreeSet};

use nn_twins::our_twins;
use sources::{manifest_dir, pinned_crate, rust_files, skip_generics};

/// Inits that panic through a helper the source scan does not follow (index out of bounds in
/// a table builder, a remainder by a zero field, a layer built by a function of another
/// module, a parameter drawn lazily with a fan of 0), as `tests/nn/init.rs` measures them.
const MEASURED_PANICKING_INITS: &[&str] = &[
    "GroupNormConfig",
    "LinearConfig",
    "MultiHeadAttentionConfig",
    "PositionalEncodingConfig",
    "RotaryEncodingConfig",
    "TransformerDecoderConfig",
    "TransformerEncoderConfig",
];

/// The source before its first `#[cfg(test)]`: burn-nn keeps its tests at the end of a file.
fn library_part(text: &str) -> &str {
    text.split("\n#[cfg(test)]").next().unwrap_or(text)
}

/// `(type, body)` of every inherent `impl Type {` block (first column, closed by `}` alone).
fn inherent_impls(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("impl") else {
            continue;
        };
        if !line.ends_with('{') || rest.contains(" for ") {
            continue;
        }
        // `impl Type {`, `impl<const D: usize> Type<D> {`: skip the generic parameters.
        let rest = skip_generics(rest).trim();
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut body = String::new();
        for inner in lines.by_ref() {
            if inner == "}" {
                break;
            }
            body.push_str(inner);
            body.push('\n');
        }
        out.push((name, body));
    }
    out
}

/// `(name, body)` of each `pub fn` at the impl's first indent level, with the doc comment
/// above it.
fn methods(body: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut doc = String::new();
    let mut lines = body.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("    ///") {
            doc.push_str(line);
            doc.push('\n');
            continue;
        }
        if let Some(rest) = line.strip_prefix("    pub fn ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let mut text = std::mem::take(&mut doc);
            text.push_str(line);
            text.push('\n');
            if !line.ends_with('}') {
                for inner in lines.by_ref() {
                    text.push_str(inner);
                    text.push('\n');
                    if inner == "    }" {
                        break;
                    }
                }
            }
            out.push((name, text));
        } else if !line.starts_with("    #") {
            doc.clear();
        }
    }
    out
}

struct BurnNn {
    /// `Type::forward*`.
    forwards: BTreeSet<String>,
    /// `TypeConfig` → the text of its `init*` methods.
    inits: BTreeMap<String, String>,
}

fn scan_burn_nn() -> BurnNn {
    let files = rust_files(&pinned_crate("burn-nn").join("src"));
    let (mut forwards, mut inits) = (BTreeSet::new(), BTreeMap::<String, String>::new());
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (ty, body) in inherent_impls(library_part(&text)) {
            for (name, text) in methods(&body) {
                if name.starts_with("forward") {
                    forwards.insert(format!("{ty}::{name}"));
                }
                if ty.ends_with("Config") && name.starts_with("init") {
                    inits.entry(ty.clone()).or_default().push_str(&text);
                }
            }
        }
    }
    BurnNn { forwards, inits }
}

/// The configs whose init can panic: directly, by the measured list, or through a config
/// that can.
fn panicking_inits(inits: &BTreeMap<String, String>) -> BTreeSet<String> {
    let direct = |text: &str| {
        [
            "assert",
            "panic!",
            "checks::",
            "assertions()",
            "unimplemented!",
            "# Panics",
            "/ self.",
        ]
        .iter()
        .any(|marker| text.contains(marker))
    };
    let mut found: BTreeSet<String> = inits
        .iter()
        .filter(|(ty, text)| direct(text) || MEASURED_PANICKING_INITS.contains(&ty.as_str()))
        .map(|(ty, _)| ty.clone())
        .collect();
    loop {
        let more: Vec<String> = inits
            .iter()
            .filter(|(ty, text)| {
                !found.contains(*ty) && found.iter().any(|p| text.contains(&format!("{p}::new")))
            })
            .map(|(ty, _)| ty.clone())
            .collect();
        if more.is_empty() {
            return found;
        }
        found.extend(more);
    }
}

fn exceptions() -> BTreeMap<String, String> {
    let text =
        std::fs::read_to_string(manifest_dir().join("tests/data/burn_nn_exceptions.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, reason) = l.split_once('\t').unwrap_or((l, ""));
            (name.to_owned(), reason.trim().to_owned())
        })
        .collect()
}

#[test]
fn every_burn_nn_forward_and_panicking_init_has_a_twin_or_a_reason() {
    let burn = scan_burn_nn();
    let panicking = panicking_inits(&burn.inits);
    let (forward_twins, init_twins) = our_twins();
    let exceptions = exceptions();
    let mut problems = Vec::new();

    let (mut forwards_twinned, mut forwards_excepted) = (0, 0);
    for forward in &burn.forwards {
        match (forward_twins.contains(forward), exceptions.get(forward)) {
            (true, None) => forwards_twinned += 1,
            (false, Some(reason)) if reason.len() > 8 => forwards_excepted += 1,
            (true, Some(_)) => problems.push(format!("{forward}: has a twin, drop its exception")),
            (false, _) => problems.push(format!("{forward}: no twin and no reason")),
        }
    }
    let (mut inits_twinned, mut inits_excepted) = (0, 0);
    for config in &panicking {
        let key = format!("{config}::init");
        match (init_twins.contains(config), exceptions.get(&key)) {
            (true, None) => inits_twinned += 1,
            (false, Some(reason)) if reason.len() > 8 => inits_excepted += 1,
            (true, Some(_)) => problems.push(format!("{key}: has a twin, drop its exception")),
            (false, _) => problems.push(format!("{key}: can panic; no try_init and no reason")),
        }
    }
    for name in exceptions.keys() {
        let known = burn.forwards.contains(name)
            || name
                .strip_suffix("::init")
                .is_some_and(|c| panicking.contains(c));
        if !known {
            problems.push(format!(
                "{name}: listed as an exception but burn-nn has no such item"
            ));
        }
    }
    println!(
        "burn-nn forwards: {} ({forwards_twinned} twinned, {forwards_excepted} exceptions); \
         inits that can panic: {} ({inits_twinned} twinned, {inits_excepted} exceptions)",
        burn.forwards.len(),
        panicking.len()
    );
    assert!(
        problems.is_empty(),
        "burn::nn coverage:\n{}",
        problems.join("\n")
    );

    let readme = std::fs::read_to_string(manifest_dir().join("README.md")).unwrap();
    for claim in [
        format!(
            "{forwards_twinned} of burn-nn's {} `forward` methods",
            burn.forwards.len()
        ),
        format!(
            "{inits_twinned} of the {} config `init`s that can panic",
            panicking.len()
        ),
    ] {
        assert!(readme.contains(&claim), "README.md must say {claim:?}");
    }
}
