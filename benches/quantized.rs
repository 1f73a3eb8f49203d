//! Placeholder; filled in by issue 6.
fn main() {}
