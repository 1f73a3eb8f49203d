//! Differential tests of the module family: raw burn under `catch_unwind` vs our twin.

mod common;
