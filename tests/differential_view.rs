//! Differential tests of the view family: raw burn under `catch_unwind` vs our twin.

mod common;
