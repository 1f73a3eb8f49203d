//! The migration lint is generated, and stays in step with the list it comes from.
//!
//! `lint/clippy.toml` holds one clippy `disallowed-methods` entry per raw burn call that has a
//! burn-guard twin: every `twin` row of `tests/data/burn_panicking_methods.txt`, plus the
//! extras below. `lint/fixture/clippy.toml` is the same file (clippy reads it from the
//! fixture's root), and `lint/fixture/expected.txt` lists, one line per raw call the fixture
//! makes, the path clippy must report (`lint/check.sh` compares them).
//!
//! This test regenerates all three and fails when a committed copy differs. To rewrite them:
//!
//! ```sh
//! BURN_GUARD_BLESS=1 cargo test --test migration_lint
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Raw calls with a twin that the burn-tensor list may lack (skipped when it has them):
/// `quantize_dynamic` panics in the backends (unsupported schemes, the router's `not
/// implemented`), not in burn-tensor; the list holds it in class B.
/// `(method, twin)`, both `burn::tensor::Tensor` methods.
const EXTRAS: &[(&str, &str)] = &[("quantize_dynamic", "try_quantize_dynamic")];

/// burn's own inherent `try_` reads: they return a `Result` for a failed read but still panic
/// on a value the requested type cannot hold, so they are raw calls too, and their twins are
/// the `_checked` reads (burn-guard cannot name a twin `try_into_scalar`: burn's inherent
/// method would win in method-call syntax). `(method, twin)`, both `Tensor` methods.
const BURN_TRY_READS: &[(&str, &str)] = &[
    ("try_into_scalar", "into_scalar_checked"),
    ("try_into_scalar_async", "into_scalar_async_checked"),
    ("try_to_data_as", "to_data_as_checked"),
    ("try_into_data_as", "into_data_as_checked"),
    ("try_to_data_dtype", "to_data_dtype_checked"),
    ("try_into_data_dtype", "into_data_dtype_checked"),
];

/// burn's `Module` methods that panic on a parameter the quantizer's scheme cannot apply to
/// (or on a device that cannot quantize it): `(method, twin)`, the twin a method of
/// burn-guard's `TryQuantizeWeights` (in the prelude), defined in `src/module/`.
const MODULE_METHODS: &[(&str, &str)] = &[
    ("quantize_weights", "try_quantize_weights"),
    ("quantize_weights_group", "try_quantize_weights_group"),
];

/// Marks the generated entries, so that `lint/install.sh` can find and replace them inside a
/// user's `clippy.toml`.
const BEGIN: &str = "# BEGIN burn-guard migration lint";
const END: &str = "# END burn-guard migration lint";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A `twin` row of the list.
struct Row {
    class: String,
    method: String,
    location: String,
}

fn twin_rows() -> Vec<Row> {
    let list = std::fs::read_to_string(root().join("tests/data/burn_panicking_methods.txt"))
        .expect("the list is readable");
    list.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [_class, method, location, _family, status] = fields[..] else {
                panic!("malformed line: {line:?}");
            };
            (status == "twin").then(|| Row {
                class: _class.to_owned(),
                method: method.to_owned(),
                location: location.to_owned(),
            })
        })
        .collect()
}

/// The rows that give a raw call of its own: a class-B row for a method that also has a row
/// in class A or S (`argmax` panics both in burn's checks and in the backends) names the same
/// call, so it adds no entry and no fixture line.
fn call_rows(rows: &[Row]) -> Vec<&Row> {
    let front: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter(|row| row.class != "B")
        .map(|row| row.method.as_str())
        .collect();
    rows.iter()
        .filter(|row| row.class != "B" || !front.contains(row.method.as_str()))
        .collect()
}

/// The paths clippy resolves for one row, from where burn defines it: inherent methods of
/// `Tensor` (in burn-tensor's `api/`), free functions by their public module, methods of
/// other types (`Transaction::register`) under that type. `burn::tensor` re-exports
/// burn-tensor; clippy resolves the path through the re-exports.
fn clippy_paths(row: &Row) -> Vec<String> {
    let method = row.method.as_str();
    if method.contains("::") {
        return vec![format!("burn::tensor::{method}")];
    }
    let file = row.location.split(':').next().unwrap_or_default();
    let module = match file {
        "module.rs" => Some("burn::tensor::module"),
        "loss/mod.rs" => Some("burn::tensor::loss"),
        "quantization.rs" => Some("burn::tensor::quantization"),
        "cartesian_grid.rs" => Some("burn::tensor"),
        f if f.starts_with("activation/") => Some("burn::tensor::activation"),
        f if f.starts_with("grid/") => Some("burn::tensor::grid"),
        "base.rs" | "numeric.rs" | "float.rs" | "int.rs" | "bool.rs" | "orderable.rs"
        | "autodiff.rs" | "fmod.rs" | "trunc.rs" | "pad.rs" | "take.rs" | "extension.rs" => None,
        other => panic!(
            "{method}: burn location {other:?} is new to the generator; say in clippy_paths \
             whether it holds Tensor methods or free functions"
        ),
    };
    let mut paths = vec![match module {
        Some(module) => format!("{module}::{method}"),
        None => format!("burn::tensor::Tensor::{method}"),
    }];
    // `cartesian_grid.rs:25 (+ `Tensor::cartesian_grid` int.rs:95)`: both spellings panic.
    if row.location.contains(&format!("`Tensor::{method}`")) {
        paths.push(format!("burn::tensor::Tensor::{method}"));
    }
    paths
}

/// The twin's name, as `tests/coverage.rs` finds it: `try_<name>`, or `<name>_checked` for the
/// reads whose `try_<name>` burn already uses for an inherent method.
fn twin_name(method: &str, sources: &str) -> String {
    let checked = format!("{method}_checked");
    if sources.contains(&format!("fn {checked}")) {
        return checked;
    }
    format!("try_{}", method.replace("::", "_").to_lowercase())
}

/// The text of every file in `src/tensor/`.
fn tensor_sources() -> String {
    let mut sources = String::new();
    let dir = root().join("src/tensor");
    for entry in std::fs::read_dir(dir).expect("src/tensor is readable") {
        let path: &Path = &entry.expect("a directory entry").path();
        sources.push_str(&std::fs::read_to_string(path).expect("a source file"));
        sources.push('\n');
    }
    sources
}

/// The text of every file in `src/module/` (where the `Module` twins are defined).
fn module_sources() -> String {
    let mut sources = String::new();
    let dir = root().join("src/module");
    for entry in std::fs::read_dir(dir).expect("src/module is readable") {
        let path: &Path = &entry.expect("a directory entry").path();
        sources.push_str(&std::fs::read_to_string(path).expect("a source file"));
        sources.push('\n');
    }
    sources
}

/// Twins defined as free functions in `src/tensor/` (`pub fn try_conv2d(..)` at the start of a
/// line, or a row of a free-function table: `    fn try_softmax = softmax(..)`).
fn is_free(twin: &str, sources: &str) -> bool {
    sources.lines().any(|line| {
        let rest = line
            .strip_prefix("pub fn ")
            .or_else(|| line.strip_prefix("pub async fn "));
        // A table row: `fn try_x = burn_fn(..)`, or `<family> fn try_x(..) = burn_fn(..)`
        // (a trait's method declaration is `fn try_x(self, ..)`: no family word, no `=`).
        let trimmed = line.trim_start();
        let (family, after) = match trimmed.split_once("fn ") {
            Some((before, after)) => (before.trim(), after),
            None => ("", ""),
        };
        let named = after.starts_with(twin)
            && !after[twin.len()..].starts_with(|c: char| c == '_' || c.is_alphanumeric());
        let tail = after.get(twin.len()..).unwrap_or("").trim_start();
        let plain_word = !family.is_empty()
            && family.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            && !["pub", "async", "const", "unsafe"].contains(&family);
        let row = named
            && ((family.is_empty() && trimmed.starts_with("fn ") && tail.starts_with('='))
                || (plain_word && (tail.starts_with('(') || tail.starts_with('='))));
        row || rest.is_some_and(|r| r.starts_with(twin) && r[twin.len()..].starts_with(['<', '(']))
    })
}

/// Twins declared in a trait without a `self` parameter (`fn try_zeros<S: ..>(shape: S, ..)`):
/// associated functions, called `Tensor::try_zeros(..)`.
fn is_associated(twin: &str, sources: &str) -> bool {
    let needle = format!("    fn {twin}");
    sources.match_indices(&needle).any(|(at, _)| {
        let rest = &sources[at + needle.len()..];
        let mut depth = 0usize;
        let mut params = None;
        for (i, c) in rest.char_indices() {
            match c {
                '<' => depth += 1,
                '>' => depth = depth.saturating_sub(1),
                '(' if depth == 0 => {
                    params = Some(&rest[i + 1..]);
                    break;
                }
                _ if depth == 0 && !c.is_whitespace() => break,
                _ => {}
            }
        }
        params.is_some_and(|p| {
            let p = p.trim_start();
            !["self", "&self", "&mut self", "mut self"]
                .iter()
                .any(|s| p.starts_with(s))
        })
    })
}

/// The public path of a free twin: burn's module path with the twin's name
/// (`burn::tensor::module::conv2d` → `burn_guard::tensor::module::try_conv2d`); a method of
/// another burn type is a function of `burn_guard::tensor` (`try_transaction_register`).
fn free_path(burn_path: &str, twin: &str) -> String {
    let module = burn_path
        .strip_prefix("burn::tensor")
        .and_then(|rest| rest.rsplit_once("::"))
        .map(|(module, _)| module)
        .filter(|module| module.chars().next().is_none_or(|c| c == ':'))
        .filter(|module| !module.contains(|c: char| c.is_uppercase()))
        .unwrap_or_default();
    format!("burn_guard::tensor{module}::{twin}")
}

/// The lint's reason: how to call the twin, spelled as in code.
fn reason(burn_path: &str, twin: &str, sources: &str) -> String {
    if is_free(twin, sources) {
        format!("use {}(..)", free_path(burn_path, twin))
    } else if is_associated(twin, sources) {
        format!("use burn_guard's Tensor::{twin}(..)")
    } else {
        format!("use burn_guard's .{twin}(..)")
    }
}

/// `(clippy.toml, expected.txt)`.
fn generate() -> (String, String) {
    let sources = tensor_sources();
    // path -> reason; a path shared by two rows (Float and Int `cast`) is one entry.
    let mut entries = BTreeMap::new();
    let mut expected = Vec::new();
    let all_rows = twin_rows();
    let rows = call_rows(&all_rows);
    for row in &rows {
        let twin = twin_name(&row.method, &sources);
        for path in clippy_paths(row) {
            entries.insert(path.clone(), reason(&path, &twin, &sources));
            expected.push(path);
        }
    }
    let listed = |method: &str| rows.iter().any(|row| row.method == method);
    for (method, twin) in EXTRAS.iter().chain(BURN_TRY_READS) {
        if listed(method) {
            continue;
        }
        let path = format!("burn::tensor::Tensor::{method}");
        entries.insert(path.clone(), reason(&path, twin, &sources));
        expected.push(path);
    }
    for (method, twin) in MODULE_METHODS {
        let path = format!("burn::module::Module::{method}");
        entries.insert(path.clone(), format!("use burn_guard's .{twin}(..)"));
        expected.push(path);
    }
    expected.sort();

    let mut toml = String::new();
    toml.push_str(&format!(
        "# burn-guard's migration lint: clippy flags every raw burn 0.22.1 call that has a\n\
         # burn-guard twin ({} entries: the {} `twin` rows of tests/data/burn_panicking_methods.txt\n\
         # that name a raw call of their own, burn's own `try_` reads that still panic, and\n\
         # `Module::quantize_weights{{,_group}}`). Generated by `BURN_GUARD_BLESS=1 cargo test --test\n\
         # migration_lint`; do not edit. Install it into your crate's clippy.toml with\n\
         # `sh lint/install.sh [crate-dir]` (see MIGRATING.md).\n",
        entries.len(),
        rows.len()
    ));
    toml.push_str("disallowed-methods = [\n");
    toml.push_str(&format!("    {BEGIN} ({} entries)\n", entries.len()));
    for (path, reason) in &entries {
        toml.push_str(&format!(
            "    {{ path = \"{path}\", reason = \"{reason}\" }},\n"
        ));
    }
    toml.push_str(&format!("    {END}\n]\n"));

    let mut calls = String::from(
        "# One line per raw call in lint/fixture/src/raw.rs: the path clippy must report for it.\n\
         # Generated by `BURN_GUARD_BLESS=1 cargo test --test migration_lint`; do not edit.\n",
    );
    for path in &expected {
        calls.push_str(path);
        calls.push('\n');
    }
    (toml, calls)
}

fn check_or_bless(relative: &str, generated: &str, stale: &mut Vec<String>) {
    let path = root().join(relative);
    if std::env::var_os("BURN_GUARD_BLESS").is_some() {
        std::fs::write(&path, generated).expect("write the generated file");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        stale.push(relative.to_owned());
    }
}

#[test]
fn the_lint_matches_the_list() {
    let (toml, expected) = generate();
    let mut stale = Vec::new();
    for file in ["lint/clippy.toml", "lint/fixture/clippy.toml"] {
        check_or_bless(file, &toml, &mut stale);
    }
    check_or_bless("lint/fixture/expected.txt", &expected, &mut stale);
    assert!(
        stale.is_empty(),
        "out of date: {stale:?}; regenerate with `BURN_GUARD_BLESS=1 cargo test --test migration_lint`"
    );
}

#[test]
fn every_entry_names_an_existing_twin() {
    let (toml, _) = generate();
    let sources = tensor_sources() + &module_sources();
    let mod_rs = std::fs::read_to_string(root().join("src/tensor/mod.rs")).expect("mod.rs");
    let mut missing = Vec::new();
    for line in toml.lines().filter(|l| l.contains("reason = \"use ")) {
        let call = line
            .split("reason = \"use ")
            .nth(1)
            .and_then(|r| r.split('(').next())
            .unwrap_or_default();
        let call = call.trim_start_matches("burn_guard's ");
        let twin = call.rsplit("::").next().unwrap_or_default();
        let twin = twin.trim_start_matches('.');
        let exists = sources.contains(&format!("fn {twin}"));
        // A path: its module is one of `src/tensor/mod.rs`'s `pub mod`s, re-exporting the twin.
        let reachable = match call.strip_prefix("burn_guard::tensor::") {
            Some(rest) => match rest.rsplit_once("::") {
                // An inline `pub mod` re-exporting the twin, or a file module defining it.
                Some((module, _)) => {
                    mod_rs
                        .split(&format!("pub mod {module} {{"))
                        .nth(1)
                        .and_then(|body| body.split("\n}").next())
                        .is_some_and(|body| body.contains(twin))
                        || (mod_rs.contains(&format!("pub mod {module};"))
                            && std::fs::read_to_string(
                                root().join(format!("src/tensor/{module}.rs")),
                            )
                            .is_ok_and(|file| file.contains(twin)))
                }
                None => mod_rs.contains(twin),
            },
            None => !call.starts_with("burn_guard::"),
        };
        if !exists || !reachable {
            missing.push(call.to_owned());
        }
    }
    assert!(missing.is_empty(), "no such twin: {missing:?}");
}
