//! The one reader of `tests/data/twins.tsv`, the registry of what burn-guard twins and what its
//! checks mirror (the file's header says what each column holds). Plain std.
#![allow(dead_code)]

use std::fmt;

use super::sources::manifest_dir;

/// Where the registry lives, from the crate's root.
pub const PATH: &str = "tests/data/twins.tsv";

/// How burn fails at a function, or what the row is when burn has no failure of its own there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// burn's own checks panic.
    Checked,
    /// A scalar conversion panics.
    Scalar,
    /// A backend panics on what burn's checks let through.
    Backend,
    /// A wrong result or no effect, without a word.
    Silent,
    /// The process aborts.
    Abort,
    /// A burn function whose logic a check of ours mirrors.
    Rule,
    /// A rule burn-guard adds.
    Own,
}

impl Class {
    const ALL: [(Class, &'static str); 7] = [
        (Class::Checked, "checked"),
        (Class::Scalar, "scalar"),
        (Class::Backend, "backend"),
        (Class::Silent, "silent"),
        (Class::Abort, "abort"),
        (Class::Rule, "rule"),
        (Class::Own, "own"),
    ];

    fn parse(word: &str) -> Option<Class> {
        Self::ALL.iter().find(|(_, w)| *w == word).map(|(c, _)| *c)
    }

    pub fn word(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("?", |(_, w)| w)
    }

    /// A failure of burn's that a user meets (not a rule row).
    pub fn is_failure(self) -> bool {
        !matches!(self, Class::Rule | Class::Own)
    }
}

/// What a user calls instead of the burn function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Twin {
    /// `x.try_name(..)`: a trait method, its path under `burn_guard::`.
    Method(String),
    /// `Tensor::try_name(..)`: a trait's associated function.
    Assoc(String),
    /// A free function.
    Function(String),
    /// A trait implemented for a burn type: `TryInit for LinearConfig`.
    Impl { trait_path: String, ty: String },
    /// No twin, for the reason in the note.
    Exception,
    /// Not twinned yet.
    Pending,
    /// A rule row: nothing to call.
    None,
}

impl Twin {
    fn parse(text: &str) -> Option<Twin> {
        Some(match text.split_once(' ') {
            Some(("method", path)) => Twin::Method(path.to_owned()),
            Some(("assoc", path)) => Twin::Assoc(path.to_owned()),
            Some(("fn", path)) => Twin::Function(path.to_owned()),
            Some(("impl", rest)) => {
                let (trait_path, ty) = rest.split_once(" for ")?;
                Twin::Impl {
                    trait_path: trait_path.to_owned(),
                    ty: ty.to_owned(),
                }
            }
            None if text == "exception" => Twin::Exception,
            None if text == "pending" => Twin::Pending,
            None if text == "-" => Twin::None,
            _ => return None,
        })
    }

    /// The path of what is called (for `Impl`, the trait's), under `burn_guard::`.
    pub fn path(&self) -> Option<&str> {
        match self {
            Twin::Method(p) | Twin::Assoc(p) | Twin::Function(p) => Some(p),
            Twin::Impl { trait_path, .. } => Some(trait_path),
            _ => None,
        }
    }

    /// The last segment of the path: `try_narrow`, `TryInit`.
    pub fn name(&self) -> Option<&str> {
        self.path().map(|p| p.rsplit("::").next().unwrap_or(p))
    }

    /// How a user calls it, as the lint's reason says it; `function` is the burn function's
    /// name as the row spells it (`Param::from_data`), whose type an associated twin is called
    /// on.
    pub fn call(&self, function: &str) -> Option<String> {
        Some(match self {
            Twin::Method(_) => format!("burn_guard's .{}(..)", self.name()?),
            Twin::Assoc(_) => {
                // `Param::from_data` is called on `Param`; a free burn function's twin
                // (`cartesian_grid`) on `Tensor`.
                let function = function.rsplit(" for ").next().unwrap_or(function);
                let ty = match function.split_once("::") {
                    Some((ty, _)) => ty,
                    None => "Tensor",
                };
                format!("burn_guard's {ty}::{}(..)", self.name()?)
            }
            Twin::Function(path) => format!("burn_guard::{path}(..)"),
            Twin::Impl { trait_path, ty } => format!("burn_guard::{trait_path} for {ty}"),
            _ => return None,
        })
    }

    pub fn exists(&self) -> bool {
        self.path().is_some()
    }
}

/// A burn function: where it is, as the hash reads it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mirror {
    pub krate: String,
    pub file: String,
    pub function: String,
}

impl fmt::Display for Mirror {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} fn {}", self.krate, self.file, self.function)
    }
}

/// One row of the registry.
#[derive(Clone, Debug)]
pub struct Row {
    /// The line in the file, for messages.
    pub line: usize,
    /// `None` for a rule of burn-guard's own; its check is then `function`.
    pub mirror: Option<Mirror>,
    /// The function's name as the row spells it (for an own rule, the check's path).
    pub function: String,
    pub hash: Option<u64>,
    pub classes: Vec<Class>,
    pub twin: Twin,
    pub checks: Vec<String>,
    pub lint: Vec<String>,
    pub note: String,
}

impl Row {
    pub fn krate(&self) -> &str {
        self.mirror.as_ref().map_or("-", |m| m.krate.as_str())
    }

    /// A failure of burn's that a user meets (twinned, excepted or pending), not a rule row.
    pub fn is_entry(&self) -> bool {
        self.classes.iter().any(|c| c.is_failure())
    }

    /// `burn-tensor Tensor::narrow`, for messages and tables.
    pub fn label(&self) -> String {
        format!("{} {}", self.krate(), self.function)
    }
}

/// The registry: its text (for the bless run, which rewrites it) and its rows.
pub struct Manifest {
    pub text: String,
    pub rows: Vec<Row>,
}

fn list(field: &str) -> Vec<String> {
    match field {
        "-" => Vec::new(),
        _ => field.split_whitespace().map(str::to_owned).collect(),
    }
}

/// Reads and validates the registry; a malformed row fails naming its line.
pub fn read() -> Manifest {
    let text = std::fs::read_to_string(manifest_dir().join(PATH)).unwrap();
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let n = index + 1;
        let fields: Vec<&str> = line.split('\t').collect();
        let [
            krate,
            file,
            function,
            hash,
            classes,
            twin,
            checks,
            lint,
            note,
        ] = fields[..]
        else {
            problems.push(format!("{PATH}:{n}: expected 9 tab-separated fields"));
            continue;
        };
        let parsed: Option<Vec<Class>> = classes.split(',').map(Class::parse).collect();
        let Some(classes) = parsed else {
            problems.push(format!("{PATH}:{n}: unknown class in {classes:?}"));
            continue;
        };
        let Some(twin) = Twin::parse(twin) else {
            problems.push(format!("{PATH}:{n}: bad twin {twin:?}"));
            continue;
        };
        let hash = match hash {
            "-" => None,
            hex => match u64::from_str_radix(hex, 16) {
                Ok(h) => Some(h),
                Err(_) => {
                    problems.push(format!("{PATH}:{n}: bad hash {hex:?}"));
                    continue;
                }
            },
        };
        let mirror = (krate != "-").then(|| Mirror {
            krate: krate.to_owned(),
            file: file.to_owned(),
            function: function.to_owned(),
        });
        let note = if note == "-" { "" } else { note }.to_owned();
        rows.push(Row {
            line: n,
            mirror,
            function: function.to_owned(),
            hash,
            classes,
            twin,
            checks: list(checks),
            lint: list(lint),
            note,
        });
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    Manifest { text, rows }
}

impl Manifest {
    /// The text with each row's hash replaced by `hash(row)` (`None` writes `-`).
    pub fn with_hashes(&self, mut hash: impl FnMut(&Row) -> Option<u64>) -> String {
        let by_line: std::collections::BTreeMap<usize, &Row> =
            self.rows.iter().map(|r| (r.line, r)).collect();
        let mut out = String::new();
        for (index, line) in self.text.lines().enumerate() {
            match by_line.get(&(index + 1)) {
                Some(row) => {
                    let mut fields: Vec<String> = line.split('\t').map(str::to_owned).collect();
                    fields[3] = hash(row).map_or("-".to_owned(), |h| format!("{h:016x}"));
                    out.push_str(&fields.join("\t"));
                }
                None => out.push_str(line),
            }
            out.push('\n');
        }
        out
    }
}
