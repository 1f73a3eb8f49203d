//! Checks for the creation, conversion, autodiff and misc family: empty/zeros/ones/full (+ _like), from_data/floats/ints/bool, random, arange, eye, cartesian_grid, cast, scalar/data reads, autodiff switches, quantize.
//!
//! Pure functions over shapes, dims and scalars; each names the burn check it mirrors.
