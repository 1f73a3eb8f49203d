//! The registry of twins, `tests/data/twins.tsv`, held against burn and against this crate.
//!
//! - **Its rows agree with each other**: a failure has a twin, an exception with its reason, or
//!   `pending`; every check of `src/check/` is named by a row, and every check a row names
//!   exists.
//! - **burn is what the rows say it is** (`mirrored_burn_functions_are_unchanged`): each row's
//!   function is read from cargo's registry copy of the pinned burn and hashed; a changed body
//!   names the checks to re-read. The same test, pointed at another burn, writes the drift
//!   report instead of failing (below).
//! - **Nothing burn exposes is missed** (`every_public_burn_function_that_can_panic_has_a_row`):
//!   each burn crate in [`SCANS`] is read, and a public function that can panic (or a layer's
//!   `forward`) without a row fails, so a function burn adds shows up.
//! - **What is generated from it is current** (`generated_files_are_current`): the migration
//!   lint, the lint fixture's expected calls, `docs/twins.md` (whose links rustdoc resolves, so
//!   `cargo doc` fails on a twin that does not exist) and the counts in README.md and
//!   MIGRATING.md.
//!
//! Environment:
//! - `BURN_GUARD_BLESS=1`: rewrites the hash column from the pinned sources and every generated
//!   file, after the checks were re-read.
//! - `BURN_GUARD_MIRROR_VERSION=0.23.0` (cargo's registry copy of that version, after a `cargo
//!   fetch` of it) or `BURN_GUARD_MIRROR_ROOT=<dir>` (`<dir>/<crate>`, `<dir>/<crate>-<version>`
//!   or a burn checkout's `<dir>/crates/<crate>`): the drift report, per row unchanged / changed
//!   / gone, printed (or written to `BURN_GUARD_MIRROR_REPORT`) instead of failing; with
//!   `BURN_GUARD_MIRROR_STRICT=1` those sources fail as the pinned ones do.

#[path = "common/manifest.rs"]
mod manifest;
#[path = "common/rust_source.rs"]
mod rust_source;
#[path = "common/sources.rs"]
mod sources;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use manifest::{Class, Manifest, Mirror, Row, Twin};
use rust_source::{
    Block, Function, Miss, Source, find_function, find_functions, fnv1a64, functions_of,
};
use sources::{burn_version, manifest_dir, registry_crate, rust_files};

const BLESS: &str = "BURN_GUARD_BLESS=1 cargo test --all-features --test twins";

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn blessing() -> bool {
    env("BURN_GUARD_BLESS").is_some()
}

// ---------------------------------------------------------------- the rows

/// `check::<module>::<fn>` for every public function at the top level of `src/check/`.
fn our_checks() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let root = manifest_dir().join("src/check");
    for file in rust_files(&root) {
        // `check/view/mod.rs` is `check::view`, `check/view/tests.rs` `check::view::tests`.
        let relative = file.strip_prefix(&root).unwrap().with_extension("");
        let mut parts: Vec<&str> = relative.iter().map(|p| p.to_str().unwrap()).collect();
        if parts.last() == Some(&"mod") {
            parts.pop();
        }
        parts.insert(0, "check");
        let module = parts.join("::");
        for function in functions_of(&file).unwrap() {
            if function.public && function.blocks.is_empty() {
                out.insert(format!("{module}::{}", function.name));
            }
        }
    }
    out
}

#[test]
fn the_rows_agree_with_each_other_and_with_our_checks() {
    let Manifest { rows, .. } = manifest::read();
    let checks = our_checks();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    let mut named = BTreeSet::new();
    for row in &rows {
        let at = format!("{}:{} ({})", manifest::PATH, row.line, row.label());
        if !seen.insert((
            row.krate().to_owned(),
            row.mirror.clone(),
            row.function.clone(),
        )) {
            problems.push(format!("{at}: listed twice"));
        }
        let has_reason = row.note.len() > 8;
        match (&row.twin, row.is_entry()) {
            (Twin::Exception, true) if !has_reason => {
                problems.push(format!("{at}: an exception needs its reason in note"))
            }
            (Twin::None, true) => problems.push(format!(
                "{at}: a failure needs a twin, `exception` or `pending`"
            )),
            (twin, false) if *twin != Twin::None => {
                problems.push(format!("{at}: a rule row has no twin"))
            }
            _ => {}
        }
        if row.classes.contains(&Class::Own) {
            if row.mirror.is_some() || !has_reason || row.checks != [row.function.clone()] {
                problems.push(format!(
                    "{at}: an own rule has `-` for crate and file, its check as function and in checks, and its reason"
                ));
            }
        } else if row.mirror.is_none() {
            problems.push(format!("{at}: only an own rule has no burn function"));
        }
        if row.classes.contains(&Class::Rule) && row.checks.is_empty() {
            problems.push(format!("{at}: a rule row names the checks that mirror it"));
        }
        if !row.lint.is_empty()
            && !matches!(
                row.twin,
                Twin::Method(_) | Twin::Assoc(_) | Twin::Function(_)
            )
        {
            problems.push(format!(
                "{at}: the lint points at a twin, and there is none"
            ));
        }
        for check in &row.checks {
            if !check.starts_with("check::") || !checks.contains(check) {
                problems.push(format!("{at}: no check {check} in src/check/"));
            }
            named.insert(check.clone());
        }
    }
    for check in checks.difference(&named) {
        problems.push(format!(
            "{check}: no row names it (add it to the checks of the burn function it mirrors, or an own rule with its reason)"
        ));
    }
    let entries = rows.iter().filter(|r| r.is_entry()).count();
    println!(
        "{} rows, {entries} burn functions that fail, {} checks",
        rows.len(),
        checks.len()
    );
    assert!(
        problems.is_empty(),
        "{}:\n  {}",
        manifest::PATH,
        problems.join("\n  ")
    );
}

// ---------------------------------------------------------------- burn, as the rows say

/// Where burn's sources are read from.
enum Sources {
    /// cargo's registry copies of one version.
    Version(String),
    /// A directory of crate directories, or a burn checkout.
    Root(PathBuf),
}

impl Sources {
    fn crate_dir(&self, krate: &str) -> Option<PathBuf> {
        match self {
            Sources::Version(version) => registry_crate(krate, version),
            Sources::Root(root) => {
                let direct = [root.join(krate), root.join("crates").join(krate)];
                if let Some(dir) = direct.into_iter().find(|d| d.is_dir()) {
                    return Some(dir);
                }
                let prefix = format!("{krate}-");
                let mut versioned: Vec<PathBuf> = std::fs::read_dir(root)
                    .ok()?
                    .filter_map(|e| Some(e.ok()?.path()))
                    .filter(|p| {
                        p.is_dir()
                            && p.file_name()
                                .and_then(|n| n.to_str())
                                .and_then(|n| n.strip_prefix(&prefix))
                                .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
                    })
                    .collect();
                versioned.sort();
                versioned.pop()
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            Sources::Version(version) => format!("burn {version} (cargo's registry sources)"),
            Sources::Root(root) => format!("the sources under {}", root.display()),
        }
    }

    fn pinned() -> Self {
        Sources::Version(burn_version())
    }
}

/// A mirrored function as read: its hash, and the file it was found in when that is no longer
/// the row's (a function moved within its crate).
struct Found {
    hash: u64,
    moved_to: Option<String>,
}

/// Reads every row's function once. A function missing from its file is looked for in the rest
/// of its crate.
fn read_mirrors(sources: &Sources, rows: &[Row]) -> BTreeMap<Mirror, Result<Found, Miss>> {
    let mut files: BTreeMap<(String, String), Option<Vec<Function>>> = BTreeMap::new();
    let mut crates: BTreeMap<String, Vec<(String, Vec<Function>)>> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for mirror in rows.iter().filter_map(|r| r.mirror.as_ref()) {
        if out.contains_key(mirror) {
            continue;
        }
        let Some(dir) = sources.crate_dir(&mirror.krate) else {
            out.insert(mirror.clone(), Err(Miss::NoCrate));
            continue;
        };
        let functions = files
            .entry((mirror.krate.clone(), mirror.file.clone()))
            .or_insert_with(|| functions_of(&dir.join(&mirror.file)));
        let result = match functions {
            None => Err(Miss::NoFile),
            Some(functions) => find_functions(functions, &mirror.function),
        };
        let result = match result {
            Ok(text) => Ok(Found {
                hash: fnv1a64(text.as_bytes()),
                moved_to: None,
            }),
            Err(miss @ (Miss::NoFile | Miss::NoFunction)) => {
                let parsed = crates.entry(mirror.krate.clone()).or_insert_with(|| {
                    rust_files(&dir.join("src"))
                        .into_iter()
                        .filter_map(|file| {
                            let relative = file.strip_prefix(&dir).ok()?;
                            Some((
                                relative.to_string_lossy().into_owned(),
                                functions_of(&file)?,
                            ))
                        })
                        .collect()
                });
                let elsewhere: Vec<(&String, String)> = parsed
                    .iter()
                    .filter_map(|(file, functions)| {
                        Some((file, find_functions(functions, &mirror.function).ok()?))
                    })
                    .collect();
                match elsewhere.as_slice() {
                    [(file, text)] => Ok(Found {
                        hash: fnv1a64(text.as_bytes()),
                        moved_to: Some((*file).clone()),
                    }),
                    _ => Err(miss),
                }
            }
            Err(miss) => Err(miss),
        };
        out.insert(mirror.clone(), result);
    }
    out
}

fn sources_from_env() -> (Sources, bool) {
    let strict = env("BURN_GUARD_MIRROR_STRICT").is_some_and(|v| v != "0");
    if let Some(root) = env("BURN_GUARD_MIRROR_ROOT") {
        return (Sources::Root(PathBuf::from(root)), strict);
    }
    if let Some(version) = env("BURN_GUARD_MIRROR_VERSION") {
        return (Sources::Version(version), strict);
    }
    (Sources::pinned(), true)
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Drift {
    Unchanged,
    Changed,
    Gone,
}

/// The line that starts the generated part of a drift report.
const GENERATED_REPORT: &str = "<!-- generated by tests/twins.rs";

#[test]
fn mirrored_burn_functions_are_unchanged() {
    let manifest = manifest::read();
    let rows = &manifest.rows;
    if blessing() {
        return bless_hashes(&manifest);
    }
    let (sources, strict) = sources_from_env();
    let found = read_mirrors(&sources, rows);
    let mut results = Vec::new();
    for row in rows {
        let Some(mirror) = &row.mirror else {
            continue;
        };
        let (drift, detail) = match &found[mirror] {
            Err(miss) => (Drift::Gone, miss.to_string()),
            Ok(Found { hash, moved_to }) => {
                let drift = if Some(*hash) == row.hash {
                    Drift::Unchanged
                } else {
                    Drift::Changed
                };
                let detail = moved_to
                    .as_ref()
                    .map_or(String::new(), |file| format!("moved to `{file}`"));
                (drift, detail)
            }
        };
        results.push((row, mirror, drift, detail));
    }
    if strict {
        let problems: Vec<String> = results
            .iter()
            .filter(|(_, _, drift, detail)| *drift != Drift::Unchanged || !detail.is_empty())
            .map(|(row, mirror, drift, detail)| {
                let reread = match (row.checks.is_empty(), &row.twin) {
                    (false, _) => row.checks.join(", "),
                    (true, twin) => twin.path().unwrap_or("the row").to_owned(),
                };
                match (drift, detail.is_empty()) {
                    (Drift::Changed, true) => format!("{reread} ({mirror} changed)"),
                    (Drift::Changed, false) => format!("{reread} ({mirror} changed, {detail})"),
                    _ => format!("{reread} ({mirror}: {detail})"),
                }
            })
            .collect();
        println!(
            "{} rows, {} burn functions read from {}",
            rows.len(),
            found.len(),
            sources.describe()
        );
        assert!(
            problems.is_empty(),
            "re-read these against {} (then `{BLESS}` to record the new hashes):\n  {}",
            sources.describe(),
            problems.join("\n  ")
        );
        return;
    }
    let report = drift_report(&sources, rows, &results);
    match env("BURN_GUARD_MIRROR_REPORT") {
        Some(path) => {
            // What a person wrote above the generated part of an earlier report stays.
            let kept = std::fs::read_to_string(&path)
                .ok()
                .and_then(|old| Some(old[..old.find(GENERATED_REPORT)?].to_owned()))
                .unwrap_or_default();
            std::fs::write(&path, format!("{kept}{report}")).unwrap();
        }
        None => println!("{report}"),
    }
}

/// Rewrites the hash column from the pinned sources; a function that cannot be found fails.
fn bless_hashes(manifest: &Manifest) {
    let found = read_mirrors(&Sources::pinned(), &manifest.rows);
    let mut missing = Vec::new();
    let text = manifest.with_hashes(|row| {
        let mirror = row.mirror.as_ref()?;
        match &found[mirror] {
            Ok(Found {
                hash,
                moved_to: None,
            }) => Some(*hash),
            Ok(Found {
                moved_to: Some(file),
                ..
            }) => {
                missing.push(format!("{} ({mirror}: moved to {file})", row.label()));
                None
            }
            Err(miss) => {
                missing.push(format!("{} ({mirror}: {miss})", row.label()));
                None
            }
        }
    });
    std::fs::write(manifest_dir().join(manifest::PATH), text).unwrap();
    assert!(
        missing.is_empty(),
        "burn functions not found:\n  {}",
        missing.join("\n  ")
    );
}

/// The drift report: a summary, then one line per row.
fn drift_report(
    sources: &Sources,
    rows: &[Row],
    results: &[(&Row, &Mirror, Drift, String)],
) -> String {
    let count = |d: Drift| results.iter().filter(|r| r.2 == d).count();
    let mut to_reread: BTreeMap<String, Drift> = BTreeMap::new();
    for (row, _, drift, _) in results {
        let names: Vec<String> = match (&row.twin, row.checks.is_empty()) {
            (_, false) => row.checks.clone(),
            (twin, true) => twin.path().map(str::to_owned).into_iter().collect(),
        };
        for name in names {
            let entry = to_reread.entry(name).or_insert(Drift::Unchanged);
            *entry = (*entry).max(*drift);
        }
    }
    let family = |name: &str| -> String {
        let mut parts = name.split("::");
        match (parts.next(), parts.next()) {
            (Some("check"), Some(module)) => format!("check::{module}"),
            (Some(a), _) => format!("{a} (twins)"),
            _ => name.to_owned(),
        }
    };
    let mut families: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (name, drift) in &to_reread {
        let entry = families.entry(family(name)).or_default();
        entry.1 += 1;
        if *drift != Drift::Unchanged {
            entry.0 += 1;
        }
    }
    let command = match sources {
        Sources::Version(version) => format!("BURN_GUARD_MIRROR_VERSION={version}"),
        Sources::Root(root) => format!("BURN_GUARD_MIRROR_ROOT={}", root.display()),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{GENERATED_REPORT}: `{command} BURN_GUARD_MIRROR_REPORT=<this file> cargo test --test \
         twins mirrored` -->\n"
    );
    let _ = writeln!(
        out,
        "Compared with {}: {} rows name {} burn functions; {} unchanged, {} changed, {} gone. \
         To re-read: {} of {} checks and twins ({} rules burn-guard adds mirror nothing in burn).\n",
        sources.describe(),
        results.len(),
        results.iter().map(|r| r.1).collect::<BTreeSet<_>>().len(),
        count(Drift::Unchanged),
        count(Drift::Changed),
        count(Drift::Gone),
        to_reread
            .values()
            .filter(|d| **d != Drift::Unchanged)
            .count(),
        to_reread.len(),
        rows.iter().filter(|r| r.mirror.is_none()).count(),
    );
    let _ = writeln!(
        out,
        "| family | to re-read | with a burn function |\n|---|---|---|"
    );
    for (family, (changed, all)) in &families {
        let _ = writeln!(out, "| `{family}` | {changed} | {all} |");
    }
    let _ = writeln!(
        out,
        "\n| burn function | crate | file | ours | drift |\n|---|---|---|---|---|"
    );
    for (row, mirror, drift, detail) in results {
        let drift = match (drift, detail.is_empty()) {
            (Drift::Unchanged, true) => "unchanged".to_owned(),
            (Drift::Unchanged, false) => format!("unchanged, {detail}"),
            (Drift::Changed, true) => "**changed**".to_owned(),
            (Drift::Changed, false) => format!("**changed**, {detail}"),
            (Drift::Gone, _) => format!("**gone** ({detail})"),
        };
        let ours: Vec<String> = row
            .twin
            .path()
            .map(str::to_owned)
            .into_iter()
            .chain(row.checks.iter().cloned())
            .map(|name| format!("`{name}`"))
            .collect();
        let _ = writeln!(
            out,
            "| `{}` | {} | `{}` | {} | {drift} |",
            mirror.function,
            mirror.krate,
            mirror.file,
            ours.join(", ")
        );
    }
    let added = new_functions(sources, rows);
    if !added.is_empty() {
        let _ = writeln!(
            out,
            "\nFunctions in the listed files that the pinned version does not have (rules burn \
             may have added, for a new row):\n"
        );
        for ((krate, file), names) in &added {
            let _ = writeln!(out, "- {krate} `{file}`: `{}`", names.join("`, `"));
        }
    }
    let _ = writeln!(out, "\nRules burn-guard adds, mirroring nothing in burn:\n");
    for row in rows.iter().filter(|r| r.mirror.is_none()) {
        let _ = writeln!(out, "- `{}`: {}", row.function, row.note);
    }
    out
}

/// Per listed file: the functions `sources` has there and the pinned version does not.
fn new_functions(sources: &Sources, rows: &[Row]) -> BTreeMap<(String, String), Vec<String>> {
    let pinned = Sources::pinned();
    let names = |sources: &Sources, krate: &str, file: &str| -> Option<BTreeSet<String>> {
        let functions = functions_of(&sources.crate_dir(krate)?.join(file))?;
        Some(
            functions
                .iter()
                .filter(|f| f.is_item())
                .map(Function::qualified_name)
                .collect(),
        )
    };
    let files: BTreeSet<(&str, &str)> = rows
        .iter()
        .filter_map(|r| r.mirror.as_ref())
        .map(|m| (m.krate.as_str(), m.file.as_str()))
        .collect();
    let mut out = BTreeMap::new();
    for (krate, file) in files {
        let (Some(before), Some(after)) =
            (names(&pinned, krate, file), names(sources, krate, file))
        else {
            continue;
        };
        let added: Vec<String> = after.difference(&before).cloned().collect();
        if !added.is_empty() {
            out.insert((krate.to_owned(), file.to_owned()), added);
        }
    }
    out
}

// ---------------------------------------------------------------- discovery

/// Which public functions of a scanned file must have a row.
#[derive(Clone, Copy)]
enum Select {
    /// Any that can panic: its body asserts, checks, unwraps or gives up.
    CanPanic,
    /// A layer crate: every `forward*` of a type's own impl (a layer's forward panics in the
    /// backend on a wrong shape, with no marker in its body), and the configs' `init*` that
    /// can panic.
    Layers,
}

/// A burn crate that discovery reads: the paths inside it (files or folders) and the rule.
/// Adding a burn crate to burn-guard adds one line here.
struct Scan {
    krate: &'static str,
    paths: &'static [&'static str],
    select: Select,
}

/// The burn crates burn-guard twins, as they are read for new functions.
const SCANS: &[Scan] = &[
    Scan {
        krate: "burn-tensor",
        paths: &[
            "src/tensor/api",
            "src/tensor/activation",
            "src/tensor/grid",
            "src/tensor/loss",
            "src/tensor/module.rs",
            "src/tensor/quantization.rs",
        ],
        select: Select::CanPanic,
    },
    Scan {
        krate: "burn-nn",
        paths: &["src"],
        select: Select::Layers,
    },
    Scan {
        krate: "burn-core",
        paths: &["src/module/base.rs"],
        select: Select::CanPanic,
    },
    Scan {
        krate: "burn-linalg",
        paths: &["src/functions"],
        select: Select::CanPanic,
    },
    Scan {
        krate: "burn-signal",
        paths: &["src/functions"],
        select: Select::CanPanic,
    },
    Scan {
        krate: "burn-vision",
        paths: &[
            "src/tensor.rs",
            "src/filter.rs",
            "src/color.rs",
            "src/transform",
            "src/utils",
            "src/backends/cpu/morphology/mod.rs",
        ],
        select: Select::CanPanic,
    },
    Scan {
        krate: "burn-optim",
        paths: &["src/optim/module/module_optimizer.rs", "src/optim/grads.rs"],
        select: Select::CanPanic,
    },
    Scan {
        krate: "burn-store",
        paths: &[
            "src/traits.rs",
            "src/filter.rs",
            "src/adapter.rs",
            "src/burnpack.rs",
            "src/safetensors/store.rs",
            "src/pytorch/store.rs",
        ],
        select: Select::CanPanic,
    },
];

/// What in a function's text says it can panic.
const PANIC_MARKERS: &[&str] = &[
    "panic!",
    "assert",
    "check!",
    "checks::",
    ".unwrap()",
    ".expect(",
    "unimplemented!",
    "unreachable!",
    "todo!",
    "/ self.",
];

fn can_panic(function: &Function) -> bool {
    PANIC_MARKERS.iter().any(|m| function.text.contains(m))
}

fn selected(select: Select, function: &Function) -> bool {
    if !function.public || !function.is_item() {
        return false;
    }
    match select {
        Select::CanPanic => can_panic(function),
        Select::Layers => match function.blocks.last() {
            Some(Block::Impl {
                trait_name,
                self_type,
            }) if trait_name.is_empty() => {
                function.name.starts_with("forward")
                    || (self_type.ends_with("Config")
                        && function.name.starts_with("init")
                        && can_panic(function))
            }
            _ => false,
        },
    }
}

/// `(file inside the crate, qualified name)` of every function a scan selects.
fn discovered(scan: &Scan, dir: &Path) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for path in scan.paths {
        let full = dir.join(path);
        let files = if full.is_dir() {
            rust_files(&full)
        } else {
            vec![full]
        };
        for file in files {
            let relative = file
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            for function in functions_of(&file).unwrap_or_default() {
                if selected(scan.select, &function) {
                    out.insert((relative.clone(), function.qualified_name()));
                }
            }
        }
    }
    out
}

#[test]
fn every_public_burn_function_that_can_panic_has_a_row() {
    let Manifest { rows, .. } = manifest::read();
    // Whitespace aside: a row writes `[E; D2]` as burn does, the reader folds it.
    let unspaced = |text: &str| text.split_whitespace().collect::<String>();
    let listed: BTreeSet<(&str, &str, String)> = rows
        .iter()
        .filter_map(|r| r.mirror.as_ref())
        .map(|m| (m.krate.as_str(), m.file.as_str(), unspaced(&m.function)))
        .collect();
    let sources = Sources::pinned();
    let mut missing = Vec::new();
    for scan in SCANS {
        let dir = sources
            .crate_dir(scan.krate)
            .unwrap_or_else(|| panic!("{} not in cargo's registry (cargo fetch)", scan.krate));
        let found = discovered(scan, &dir);
        let new: Vec<String> = found
            .iter()
            .filter(|(file, function)| {
                !listed.contains(&(scan.krate, file.as_str(), unspaced(function)))
            })
            .map(|(file, function)| format!("{}\t{file}\t{function}", scan.krate))
            .collect();
        println!(
            "{}: {} functions selected, {} without a row",
            scan.krate,
            found.len(),
            new.len()
        );
        missing.extend(new);
    }
    assert!(
        missing.is_empty(),
        "public burn functions that can panic, with no row in {} (a twin, `exception` with the \
         reason, or `pending`):\n{}",
        manifest::PATH,
        missing.join("\n")
    );
}

// ---------------------------------------------------------------- what is generated

/// Marks the lint's entries, so that `lint/install.sh` can find and replace them inside a
/// user's `clippy.toml`.
const LINT_BEGIN: &str = "# BEGIN burn-guard migration lint";
const LINT_END: &str = "# END burn-guard migration lint";

/// The lint: `(clippy.toml, expected.txt)`. One entry per path; one expected call per (row,
/// path), as the fixture calls each listed function once (Float's and Int's `cast` share a
/// path and are called twice).
fn lint(rows: &[Row]) -> (String, String) {
    let mut entries = BTreeMap::new();
    let mut expected = Vec::new();
    for row in rows {
        for path in &row.lint {
            let call = row.twin.call(&row.function).unwrap_or_default();
            entries.insert(path.clone(), format!("use {call}"));
            expected.push(path.clone());
        }
    }
    expected.sort();
    let mut toml = format!(
        "# burn-guard's migration lint: clippy flags every raw burn {} call that has a\n\
         # burn-guard twin ({} entries, the `lint` column of tests/data/twins.tsv). Generated by\n\
         # `{BLESS}`; do not edit. Install it into your crate's clippy.toml with\n\
         # `sh lint/install.sh [crate-dir]` (see MIGRATING.md).\n\
         disallowed-methods = [\n    {LINT_BEGIN} ({} entries)\n",
        burn_version(),
        entries.len(),
        entries.len()
    );
    for (path, reason) in &entries {
        let _ = writeln!(toml, "    {{ path = \"{path}\", reason = \"{reason}\" }},");
    }
    let _ = writeln!(toml, "    {LINT_END}\n]");
    let mut calls = format!(
        "# One line per raw call in lint/fixture/src/raw.rs: the path clippy must report for it.\n\
         # Generated by `{BLESS}`; do not edit.\n"
    );
    for path in &expected {
        calls.push_str(path);
        calls.push('\n');
    }
    (toml, calls)
}

/// The crate docs' table of every burn function that fails, with its twin: each twin an
/// intra-doc link, so `cargo doc` (warnings denied) fails on a twin that does not exist.
fn twins_doc(rows: &[Row]) -> String {
    let mut out = format!(
        "Every burn function that can panic, abort or fail silently on what a caller passes it, \
         and what to call instead.\n\n\
         Generated from `tests/data/twins.tsv` by `{BLESS}`; do not edit. `fails` says how burn \
         fails: `checked` (burn's own checks panic), `scalar` (a scalar conversion panics), \
         `backend` (a backend panics on what burn's checks let through), `silent` (a wrong \
         result or no effect, without a word), `abort` (the process aborts).\n"
    );
    let mut by_crate: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for row in rows.iter().filter(|r| r.is_entry()) {
        by_crate.entry(row.krate()).or_default().push(row);
    }
    let mut impls = Vec::new();
    for (krate, rows) in &by_crate {
        let _ = writeln!(
            out,
            "\n## {krate}\n\n| burn | fails | instead |\n|---|---|---|"
        );
        for row in rows {
            let fails: Vec<&str> = row
                .classes
                .iter()
                .filter(|c| c.is_failure())
                .map(|c| c.word())
                .collect();
            let instead = match &row.twin {
                Twin::Method(path) | Twin::Assoc(path) | Twin::Function(path) => {
                    let name = row.twin.name().unwrap_or_default();
                    format!("[`{name}`](crate::{path})")
                }
                Twin::Impl { trait_path, ty } => {
                    impls.push((trait_path.clone(), ty.clone()));
                    let name = row.twin.name().unwrap_or_default();
                    format!("[`{name}`](crate::{trait_path}) for `{ty}`")
                }
                Twin::Exception => format!("none: {}", row.note.replace('|', "\\|")),
                Twin::Pending => "not yet".to_owned(),
                Twin::None => String::new(),
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | {instead} |",
                row.function,
                fails.join(", ")
            );
        }
    }
    // The trait impls a link cannot reach, checked by the compiler in a doctest.
    let _ = writeln!(
        out,
        "\nThe configs' `init` twins, as the compiler sees them:\n\n```\n\
         use burn::nn::{{activation::*, attention::*, conv::*, interpolate::*, loss::*, norm::*, pool::*, transformer::*, *}};\n\
         macro_rules! implements {{\n    ($trait:path, $ty:ty) => {{\n        \
         const _: fn() = || {{\n            fn has<T: $trait>() {{}}\n            has::<$ty>();\n        \
         }};\n    }};\n}}"
    );
    for (trait_path, ty) in &impls {
        // A type of another burn crate is named by its path under burn-guard (`vision::..`).
        let ty = if ty.contains("::") {
            format!("burn_guard::{ty}")
        } else {
            ty.clone()
        };
        let _ = writeln!(out, "implements!(burn_guard::{trait_path}, {ty});");
    }
    out.push_str("```\n");
    out
}

/// The counts README.md states, per burn crate.
fn counts_table(rows: &[Row]) -> String {
    #[derive(Default)]
    struct Counts {
        functions: usize,
        twinned: usize,
        exceptions: usize,
        pending: usize,
        classes: BTreeMap<Class, usize>,
    }
    let mut by_crate: BTreeMap<&str, Counts> = BTreeMap::new();
    for row in rows.iter().filter(|r| r.is_entry()) {
        let counts = by_crate.entry(row.krate()).or_default();
        counts.functions += 1;
        match row.twin {
            Twin::Exception => counts.exceptions += 1,
            Twin::Pending => counts.pending += 1,
            _ => counts.twinned += 1,
        }
        for class in row.classes.iter().filter(|c| c.is_failure()) {
            *counts.classes.entry(*class).or_default() += 1;
        }
    }
    let failures = [
        Class::Checked,
        Class::Scalar,
        Class::Backend,
        Class::Silent,
        Class::Abort,
    ];
    let mut out = String::from(
        "| burn crate | functions that fail | twinned | exceptions | pending | burn's checks | \
         scalar conversion | in a backend | silently | abort |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for (krate, c) in &by_crate {
        let _ = write!(
            out,
            "| {krate} | {} | {} | {} | {} |",
            c.functions, c.twinned, c.exceptions, c.pending
        );
        for class in failures {
            let _ = write!(out, " {} |", c.classes.get(&class).copied().unwrap_or(0));
        }
        out.push('\n');
    }
    out
}

/// The lint's counts, as MIGRATING.md states them.
fn lint_counts(rows: &[Row]) -> String {
    let (toml, expected) = lint(rows);
    let entries = toml.lines().filter(|l| l.contains("{ path = ")).count();
    let calls = expected.lines().filter(|l| !l.starts_with('#')).count();
    format!(
        "{entries} entries for burn {}, one per path in the `lint` column of \
         `tests/data/twins.tsv`; `lint/check.sh` checks that each of the fixture's {calls} raw \
         calls is flagged (Float's and Int's `cast` share an entry; `cartesian_grid` is flagged \
         as a free function and as a method).\n",
        burn_version()
    )
}

/// `text` with what lies between the markers of `name` replaced by `generated`.
fn with_block(text: &str, name: &str, generated: &str, file: &str) -> String {
    let begin = format!("<!-- BEGIN {name}: generated by `{BLESS}` -->\n");
    let end = format!("<!-- END {name} -->");
    let start = text
        .find(&begin)
        .unwrap_or_else(|| panic!("{file}: no `{}` marker", begin.trim()));
    let stop = text
        .find(&end)
        .unwrap_or_else(|| panic!("{file}: no `{end}` marker"));
    format!("{}{begin}{generated}{}", &text[..start], &text[stop..])
}

#[test]
fn generated_files_are_current() {
    let Manifest { rows, .. } = manifest::read();
    let (toml, expected) = lint(&rows);
    let read = |file: &str| std::fs::read_to_string(manifest_dir().join(file)).unwrap_or_default();
    let mut files = vec![
        ("lint/clippy.toml", toml.clone()),
        ("lint/fixture/clippy.toml", toml),
        ("lint/fixture/expected.txt", expected),
        ("docs/twins.md", twins_doc(&rows)),
    ];
    let readme = with_block(
        &read("README.md"),
        "twins",
        &counts_table(&rows),
        "README.md",
    );
    files.push(("README.md", readme));
    let migrating = with_block(
        &read("MIGRATING.md"),
        "lint",
        &lint_counts(&rows),
        "MIGRATING.md",
    );
    files.push(("MIGRATING.md", migrating));
    let mut stale = Vec::new();
    for (file, generated) in files {
        if blessing() {
            std::fs::write(manifest_dir().join(file), generated).unwrap();
        } else if read(file) != generated {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "out of date: {stale:?}; regenerate with `{BLESS}`"
    );
}

// ---------------------------------------------------------------- pins and the reader

/// The lint's fixture crate builds against burn too: its pins are the crate's.
#[test]
fn the_fixture_pins_the_same_burn() {
    let version = burn_version();
    let fixture = std::fs::read_to_string(manifest_dir().join("lint/fixture/Cargo.toml")).unwrap();
    let pins = sources::burn_pins(&fixture);
    assert!(
        !pins.is_empty(),
        "lint/fixture/Cargo.toml: no burn pin found"
    );
    for (name, pin) in pins {
        assert_eq!(pin, version, "lint/fixture/Cargo.toml: `{name}`");
    }
}

#[test]
fn the_reader_skips_literals_comments_and_test_modules() {
    let text = r##"
        // fn commented() { }
        /* fn in_block() { /* nested */ } */
        impl<B: Backend> Linear<B> {
            pub fn forward(&self, x: &str) -> Tensor<B, { 2 }> {
                let brace = '{'; let s = "}"; let r = r#"}"#; let q = '\'';
                x.map(|a: &'static str| { a })
            }
            pub(crate) fn hidden(&self) {}
        }
        impl<B> Module<B> for Linear<B> where B: Backend {
            fn forward(&self) {}
        }
        trait Ops { fn declared(&self); fn default_body(&self) { inner(); fn nested() {} } }
        impl<const D2: usize, I: AsIndex> ReshapeArgs<D2> for [I; D2] { fn into_shape(self) {} }
        #[cfg(test)]
        mod tests { fn forward() {} }
    "##;
    let source = Source::new(text).functions();
    let forward = find_function(&source, "Linear::forward").unwrap();
    assert!(forward.starts_with("fn forward(&self, x: &str) -> Tensor<B, { 2 }> {"));
    assert!(
        forward.ends_with("x.map(|a: &'static str| { a }) }"),
        "{forward}"
    );
    assert!(find_function(&source, "Module for Linear::forward").is_ok());
    assert!(matches!(
        find_function(&source, "forward"),
        Err(Miss::Ambiguous(2))
    ));
    assert!(find_function(&source, "Ops::default_body").is_ok());
    assert!(find_function(&source, "ReshapeArgs for [I; D2]::into_shape").is_ok());
    for absent in [
        "commented",
        "in_block",
        "declared",
        "nested",
        "Ops::forward",
    ] {
        assert!(
            matches!(find_function(&source, absent), Err(Miss::NoFunction)),
            "{absent}"
        );
    }
    // Visibility: `pub`, a trait's methods and a trait impl's are public; `pub(crate)` is not.
    let public: BTreeSet<String> = source
        .iter()
        .filter(|f| f.public && f.is_item())
        .map(Function::qualified_name)
        .collect();
    assert_eq!(
        public,
        [
            "Linear::forward",
            "Module for Linear::forward",
            "Ops::default_body",
            "ReshapeArgs for [I;D2]::into_shape"
        ]
        .map(str::to_owned)
        .into()
    );
    // Only whitespace and comments are folded away.
    let respaced = Source::new(&text.replace("let s = ", "let  s =\n // a comment\n ")).functions();
    assert_eq!(
        find_function(&respaced, "Linear::forward").unwrap(),
        forward
    );
    let edited = Source::new(&text.replace("{ a }", "{ a.trim() }")).functions();
    assert_ne!(find_function(&edited, "Linear::forward").unwrap(), forward);
    assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
}
