//! Differential tests of the elementwise family: raw burn under `catch_unwind` vs our twin.

mod common;
