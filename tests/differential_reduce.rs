//! Differential tests of the reduce family: raw burn under `catch_unwind` vs our twin.

mod common;
