//! Differential tests of the indexing family: raw burn under `catch_unwind` vs our twin.

mod common;
