//! Finding Rust sources in tests: this crate's (`rust_files`) and burn's as cargo keeps them
//! (`tests/twins.rs`). Plain std: a test that includes this
//! module (`#[path = "common/sources.rs"] mod sources;`) links no burn.
//!
//! The burn version comes from one place, the `burn` pin in `Cargo.toml`; a crate's sources are
//! cargo's registry copy of that version (`$CARGO_HOME/registry/src/<index>/<crate>-<version>`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The crate's manifest directory.
pub fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The burn version this crate builds against: the `=X` pin of `burn` in `Cargo.toml`. Every
/// other `burn-*` dependency must carry the same pin, so the version is said once.
pub fn burn_version() -> String {
    let manifest = std::fs::read_to_string(manifest_dir().join("Cargo.toml")).unwrap();
    let pins = burn_pins(&manifest);
    let version = pins
        .iter()
        .find(|(name, _)| name == "burn")
        .map(|(_, pin)| pin.clone())
        .expect("Cargo.toml: no `burn` dependency");
    for (name, pin) in &pins {
        assert_eq!(
            *pin, version,
            "Cargo.toml: `{name}` pinned apart from `burn`"
        );
    }
    version
}

/// `(name, version)` of every dependency on a burn crate (`burn`, `burn-*`) in a manifest, each
/// of which must be pinned with `=`.
pub fn burn_pins(manifest: &str) -> Vec<(String, String)> {
    let mut pins = Vec::new();
    for line in manifest.lines() {
        let Some((name, spec)) = line.split_once(" = {") else {
            continue;
        };
        let name = name.trim();
        // burn's crates, not this one (a fixture depends on it by path).
        if !(name == "burn" || name.starts_with("burn-")) || name == "burn-guard" {
            continue;
        }
        let pin = spec
            .split("version = \"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("`{name}` has no version"));
        let pin = pin
            .strip_prefix('=')
            .unwrap_or_else(|| panic!("`{name}` must be pinned with `=`, got {pin}"));
        pins.push((name.to_owned(), pin.to_owned()));
    }
    pins
}

/// `$CARGO_HOME/registry/src`, where cargo unpacks the crates it downloads.
pub fn registry_src() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    home.join("registry/src")
}

/// The directory of `krate` at `version` in cargo's registry sources (any index), if cargo has
/// it.
pub fn registry_crate(krate: &str, version: &str) -> Option<PathBuf> {
    let dir_name = format!("{krate}-{version}");
    std::fs::read_dir(registry_src())
        .ok()?
        .filter_map(|index| Some(index.ok()?.path().join(&dir_name)))
        .find(|candidate| candidate.is_dir())
}

/// The directory of `krate` at the pinned burn version; a test fails when cargo lacks it.
pub fn pinned_crate(krate: &str) -> PathBuf {
    let version = burn_version();
    registry_crate(krate, &version).unwrap_or_else(|| {
        panic!(
            "{krate}-{version} not found under {} (run `cargo fetch`)",
            registry_src().display()
        )
    })
}

/// Every `.rs` file under `dir`, recursively, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// `text` after a balanced `<…>` at its start (an impl's generic parameters), or `text` itself.
pub fn skip_generics(text: &str) -> &str {
    let Some(rest) = text.strip_prefix('<') else {
        return text;
    };
    let mut depth = 1;
    for (i, c) in rest.char_indices() {
        depth += match c {
            '<' => 1,
            '>' => -1,
            _ => 0,
        };
        if depth == 0 {
            return &rest[i + 1..];
        }
    }
    ""
}
