//! Reading Rust sources as items, not lines: burn's (the functions the registry mirrors, the
//! public functions discovery lists) and this crate's (its checks). Comments, string and char
//! literals and test modules are skipped, so neither side's formatting matters. Plain std.
#![allow(dead_code)]

use std::path::Path;

use super::sources::skip_generics;

/// FNV-1a, 64 bits: stable across Rust releases, unlike std's `DefaultHasher`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A source file without its comments, each char marked code or literal (inside a string or
/// char literal, where braces and `//` mean nothing).
pub struct Source {
    chars: Vec<char>,
    code: Vec<bool>,
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl Source {
    pub fn new(text: &str) -> Self {
        let input: Vec<char> = text.chars().collect();
        let (mut chars, mut code) = (Vec::with_capacity(input.len()), Vec::new());
        let at = |i: usize| input.get(i).copied().unwrap_or('\0');
        let mut i = 0;
        while i < input.len() {
            let c = input[i];
            let literal_end = if c == '/' && at(i + 1) == '/' {
                while i < input.len() && input[i] != '\n' {
                    i += 1;
                }
                continue;
            } else if c == '/' && at(i + 1) == '*' {
                let mut depth = 0;
                loop {
                    if at(i) == '/' && at(i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if at(i) == '*' && at(i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else if i >= input.len() {
                        break;
                    } else {
                        i += 1;
                    }
                }
                chars.push(' ');
                code.push(true);
                continue;
            } else if c == 'r'
                && !is_ident(if i == 0 { ' ' } else { input[i - 1] })
                && (at(i + 1) == '"' || (at(i + 1) == '#' && matches!(at(i + 2), '#' | '"')))
            {
                // A raw string: r"…", r#"…"#.
                let mut j = i + 1;
                let mut hashes = 0;
                while at(j) == '#' {
                    hashes += 1;
                    j += 1;
                }
                j += 1;
                loop {
                    if j >= input.len() {
                        break input.len();
                    }
                    if input[j] == '"' && (1..=hashes).all(|k| at(j + k) == '#') {
                        break j + hashes + 1;
                    }
                    j += 1;
                }
            } else if c == '"' {
                let mut j = i + 1;
                loop {
                    match at(j) {
                        '\\' => j += 2,
                        '"' => break j + 1,
                        _ if j >= input.len() => break input.len(),
                        _ => j += 1,
                    }
                }
            } else if c == '\'' && at(i + 1) == '\\' {
                // An escaped char: '\n', '\'', '\u{..}'.
                let mut j = i + 3;
                while j < input.len() && input[j] != '\'' {
                    j += 1;
                }
                j + 1
            } else if c == '\'' && at(i + 2) == '\'' {
                i + 3
            } else {
                // Code, a lifetime's quote included.
                chars.push(c);
                code.push(true);
                i += 1;
                continue;
            };
            let end = literal_end.min(input.len());
            chars.extend_from_slice(&input[i..end]);
            code.extend(std::iter::repeat_n(false, end - i));
            i = end;
        }
        Self { chars, code }
    }

    fn is_code(&self, i: usize, c: char) -> bool {
        self.code.get(i) == Some(&true) && self.chars[i] == c
    }

    /// The index just past the brace that closes the one at `open`.
    fn closing(&self, open: usize) -> Option<usize> {
        let mut depth = 0usize;
        for i in open..self.chars.len() {
            if !self.code[i] {
                continue;
            }
            match self.chars[i] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The text of `start..end`, whitespace runs outside literals folded to one space.
    fn normalised(&self, start: usize, end: usize) -> String {
        let mut out = String::new();
        let mut space = false;
        for i in start..end {
            let c = self.chars[i];
            if self.code[i] && c.is_whitespace() {
                space = true;
                continue;
            }
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
        out
    }

    /// Every function item: its name, the headers of the blocks around it (innermost last)
    /// and its text from `fn` to the closing brace. Declarations without a body are skipped.
    pub fn functions(&self) -> Vec<Function> {
        let mut out = Vec::new();
        let mut stack: Vec<String> = Vec::new();
        let mut boundary = 0;
        // Parentheses and brackets open: a `;` inside them (`[I; D2]`) ends no header.
        let mut nested = 0usize;
        let mut i = 0;
        while i < self.chars.len() {
            if !self.code[i] {
                i += 1;
                continue;
            }
            match self.chars[i] {
                '(' | '[' => nested += 1,
                ')' | ']' => nested = nested.saturating_sub(1),
                '{' => {
                    stack.push(self.normalised(boundary, i));
                    boundary = i + 1;
                }
                '}' => {
                    stack.pop();
                    boundary = i + 1;
                }
                ';' if nested == 0 => boundary = i + 1,
                'f' if self.is_code(i + 1, 'n')
                    && (i == 0 || !is_ident(self.chars[i - 1]))
                    && self.chars.get(i + 2).is_some_and(|c| c.is_whitespace()) =>
                {
                    let header = self.normalised(boundary, i);
                    if let Some(function) = self.function_at(i, &stack, &header) {
                        out.push(function);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        out
    }

    fn function_at(&self, at: usize, stack: &[String], header: &str) -> Option<Function> {
        let mut i = at + 2;
        while self.chars.get(i)?.is_whitespace() {
            i += 1;
        }
        let name: String = self.chars[i..]
            .iter()
            .take_while(|c| is_ident(**c))
            .collect();
        if name.is_empty() {
            return None;
        }
        // The body: the first `{` outside parentheses, brackets and generics; a `;` first means
        // a declaration.
        let (mut parens, mut angles) = (0i32, 0i32);
        let mut j = i + name.chars().count();
        let open = loop {
            let c = *self.chars.get(j)?;
            if self.code[j] {
                match c {
                    '(' | '[' => parens += 1,
                    ')' | ']' => parens -= 1,
                    '<' => angles += 1,
                    '>' if self.chars[j - 1] != '-' => angles -= 1,
                    ';' if parens == 0 => return None,
                    '{' if parens == 0 && angles <= 0 => break j,
                    '{' => {
                        j = self.closing(j)?;
                        continue;
                    }
                    _ => {}
                }
            }
            j += 1;
        };
        let end = self.closing(open)?;
        let blocks: Vec<Block> = stack.iter().map(|h| Block::parse(h)).collect();
        let in_trait = match blocks.last() {
            Some(Block::Trait(_)) => true,
            Some(Block::Impl { trait_name, .. }) => !trait_name.is_empty(),
            _ => false,
        };
        let public = in_trait || header.split_whitespace().any(|word| word == "pub");
        Some(Function {
            name,
            blocks,
            text: self.normalised(at, end),
            public,
        })
    }
}

pub struct Function {
    pub name: String,
    /// The blocks around the function, innermost last.
    pub blocks: Vec<Block>,
    /// From `fn` to the closing brace, whitespace folded.
    pub text: String,
    /// Declared `pub` (not `pub(crate)`), or a method of a trait or of a trait's impl.
    pub public: bool,
}

/// What a block around a function is.
pub enum Block {
    /// `impl Trait for Type` (`trait_name` empty for an inherent impl).
    Impl {
        trait_name: String,
        self_type: String,
    },
    Trait(String),
    Module {
        name: String,
        test_only: bool,
    },
    /// A function body, a macro, an expression: the function inside is not an item we name.
    Other,
}

/// The last path segment of a type, without its generics: `burn::Foo<B>` → `Foo`; an array
/// type without spaces: `[I; D2]` → `[I;D2]`.
fn type_name(text: &str) -> String {
    let text = text.trim().trim_start_matches('&').trim();
    if text.starts_with('[') {
        let end = text.find(']').map_or(text.len(), |i| i + 1);
        return text[..end].split_whitespace().collect();
    }
    let text = text.strip_prefix("dyn ").unwrap_or(text);
    let path: String = text
        .chars()
        .take_while(|c| is_ident(*c) || *c == ':')
        .collect();
    // A trait's supertraits follow a colon: `Module: Clone + Debug` is `Module`.
    let path = path.trim_end_matches(':');
    path.rsplit("::").next().unwrap_or("").to_owned()
}

impl Block {
    fn parse(header: &str) -> Self {
        let mut text = header.trim();
        let mut test_only = false;
        // Attributes.
        while text.starts_with("#[") || text.starts_with("#![") {
            let mut depth = 0;
            let end = text
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '[' => 1,
                        ']' => -1,
                        _ => 0,
                    };
                    c == ']' && depth == 0
                })
                .map_or(text.len(), |(i, _)| i + 1);
            test_only |= text[..end].contains("cfg(test)");
            text = text[end..].trim_start();
        }
        // Visibility and qualifiers.
        loop {
            let before = text;
            for word in ["pub(crate) ", "pub(super) ", "pub ", "unsafe ", "default "] {
                text = text.strip_prefix(word).unwrap_or(text).trim_start();
            }
            if let Some(rest) = text.strip_prefix("pub(in ") {
                text = rest.split_once(')').map_or("", |(_, r)| r).trim_start();
            }
            if text == before {
                break;
            }
        }
        if let Some(rest) = text.strip_prefix("impl") {
            let rest = skip_generics(rest.trim_start()).trim();
            let rest = rest.split(" where ").next().unwrap_or(rest);
            // ` for ` outside generics separates the trait from the type.
            let mut depth = 0;
            let mut split = None;
            for (i, c) in rest.char_indices() {
                depth += match c {
                    '<' => 1,
                    '>' => -1,
                    _ => 0,
                };
                if depth == 0 && rest[i..].starts_with(" for ") {
                    split = Some(i);
                    break;
                }
            }
            return match split {
                Some(i) => Block::Impl {
                    trait_name: type_name(&rest[..i]),
                    self_type: type_name(&rest[i + 5..]),
                },
                None => Block::Impl {
                    trait_name: String::new(),
                    self_type: type_name(rest),
                },
            };
        }
        if let Some(rest) = text.strip_prefix("trait ") {
            return Block::Trait(type_name(rest));
        }
        if let Some(rest) = text.strip_prefix("mod ") {
            return Block::Module {
                name: type_name(rest),
                test_only,
            };
        }
        Block::Other
    }

    /// Whether a function's qualifier names this block: `Type` (an inherent impl, or the trait
    /// declared), `Trait for Type` (a trait's impl), or a module's name.
    fn matches(&self, qualifier: &str) -> bool {
        match self {
            Block::Impl {
                trait_name,
                self_type,
            } => match qualifier.split_once(" for ") {
                Some((t, s)) => {
                    t == trait_name && s.split_whitespace().collect::<String>() == *self_type
                }
                None => trait_name.is_empty() && qualifier == self_type,
            },
            Block::Trait(name) => qualifier == name,
            Block::Module { name, .. } => qualifier == name,
            Block::Other => false,
        }
    }
}

/// `Type::name` → (`Some("Type")`, `"name"`); `name` → (`None`, `"name"`).
pub fn split_function(function: &str) -> (Option<&str>, &str) {
    match function.rsplit_once("::") {
        Some((qualifier, name)) => (Some(qualifier), name),
        None => (None, function),
    }
}

/// Why a mirrored function could not be read.
#[derive(Debug)]
pub enum Miss {
    NoCrate,
    NoFile,
    NoFunction,
    Ambiguous(usize),
}

impl std::fmt::Display for Miss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Miss::NoCrate => write!(f, "crate not found"),
            Miss::NoFile => write!(f, "file not found"),
            Miss::NoFunction => write!(f, "function not found"),
            Miss::Ambiguous(n) => write!(f, "{n} functions match: qualify the name"),
        }
    }
}

/// The normalised text of `function` among a file's `functions` (outside test modules and
/// function bodies).
pub fn find_function(functions: &[Function], function: &str) -> Result<String, Miss> {
    let (qualifier, name) = split_function(function);
    let found: Vec<&Function> = functions
        .iter()
        .filter(|f| f.name == name)
        .filter(|f| f.is_item())
        .filter(|f| match qualifier {
            None => true,
            Some(q) => f.blocks.last().is_some_and(|b| b.matches(q)),
        })
        .collect();
    // A bare name that a method shares names the free function.
    let free: Vec<&Function> = found
        .iter()
        .copied()
        .filter(|f| qualifier.is_none() && !f.in_impl_or_trait())
        .collect();
    match (found.as_slice(), free.as_slice()) {
        ([one], _) | (_, [one]) => Ok(one.text.clone()),
        ([], _) => Err(Miss::NoFunction),
        (many, _) => Err(Miss::Ambiguous(many.len())),
    }
}

/// Every function `function` names, joined in file order: a row can name a method that several
/// impls of one trait define (`Cast for FloatDType::cast`, for each `Cast<D, K>`), and then
/// stands for all of them.
pub fn find_functions(functions: &[Function], function: &str) -> Result<String, Miss> {
    match find_function(functions, function) {
        Err(Miss::Ambiguous(_)) => {
            let (qualifier, name) = split_function(function);
            let texts: Vec<&str> = functions
                .iter()
                .filter(|f| f.name == name && f.is_item())
                .filter(|f| {
                    qualifier.is_some_and(|q| f.blocks.last().is_some_and(|b| b.matches(q)))
                })
                .map(|f| f.text.as_str())
                .collect();
            match texts.as_slice() {
                [] => Err(Miss::NoFunction),
                texts => Ok(texts.join("\n")),
            }
        }
        found => found,
    }
}

impl Function {
    /// Defined in an impl or a trait, not a free function.
    pub fn in_impl_or_trait(&self) -> bool {
        matches!(
            self.blocks.last(),
            Some(Block::Impl { .. } | Block::Trait(_))
        )
    }

    /// An item a row can name: outside test modules and function bodies.
    pub fn is_item(&self) -> bool {
        self.blocks.iter().all(|b| match b {
            Block::Module { test_only, .. } => !test_only,
            Block::Other => false,
            _ => true,
        })
    }

    /// The name qualified by the block around it, as a row names it: `name`, `Type::name`,
    /// `Trait for Type::name`, `Trait::name`.
    pub fn qualified_name(&self) -> String {
        match self.blocks.last() {
            Some(Block::Impl {
                trait_name,
                self_type,
            }) if trait_name.is_empty() => format!("{self_type}::{}", self.name),
            Some(Block::Impl {
                trait_name,
                self_type,
            }) => format!("{trait_name} for {self_type}::{}", self.name),
            Some(Block::Trait(name)) => format!("{name}::{}", self.name),
            _ => self.name.clone(),
        }
    }
}

/// The functions of a file, or `None` when it cannot be read.
pub fn functions_of(path: &Path) -> Option<Vec<Function>> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(Source::new(&text).functions())
}
