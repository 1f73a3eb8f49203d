//! Differential tests of the creation family: raw burn under `catch_unwind` vs our twin.

mod common;
