//! burn-guard's layer twins as its sources declare them, for the tests that pair them with
//! burn-nn (`tests/nn_coverage.rs`, `tests/burn_mirrors.rs`). Plain std, like `sources.rs`.
#![allow(dead_code)]

use std::collections::BTreeSet;

use super::sources::{manifest_dir, rust_files};

/// Our twins: `Type::try_forward*` from `pub trait TryType`, and the configs with an init twin.
pub fn our_twins() -> (BTreeSet<String>, BTreeSet<String>) {
    let files = rust_files(&manifest_dir().join("src/nn"));
    let (mut forwards, mut inits) = (BTreeSet::new(), BTreeSet::new());
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut trait_name: Option<String> = None;
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("pub trait Try") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                trait_name = Some(name);
            } else if line == "}" {
                trait_name = None;
            } else if let (Some(ty), Some(pos)) = (&trait_name, line.find("fn try_forward")) {
                let method: String = line[pos + "fn try_".len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                forwards.insert(format!("{ty}::{method}"));
            }
            // A twin from a macro table: `    TryRelu, Relu, "relu", ..;` (forward only).
            if let Some(rest) = line.strip_prefix("    Try") {
                let mut fields = rest.split(", ");
                if let (Some(twin), Some(module)) = (fields.next(), fields.next())
                    && twin == module
                    && fields.next().is_some_and(|op| op.starts_with('"'))
                {
                    forwards.insert(format!("{module}::forward"));
                }
            }
            // The element-wise loss table: `    MseLoss, TryMseLoss, "mse_loss", ..` (forward and
            // forward_no_reduction).
            if let Some(rest) = line.strip_prefix("    ") {
                let mut fields = rest.split(", ");
                if let (Some(module), Some(twin)) = (fields.next(), fields.next())
                    && twin == format!("Try{module}")
                    && fields.next().is_some_and(|op| op.starts_with('"'))
                {
                    forwards.insert(format!("{module}::forward"));
                    forwards.insert(format!("{module}::forward_no_reduction"));
                }
            }
            for prefix in ["impl TryInit for ", "impl TryInitStateless for "] {
                if let Some(rest) = line.strip_prefix(prefix) {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    inits.insert(name);
                }
            }
        }
    }
    (forwards, inits)
}
