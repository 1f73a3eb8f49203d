//! Checks for the element-wise family: comparisons, pairwise max/min, closeness, powers, fmod/remainder, atan2/hypot, cross, dot, and every scalar op (class S).
//!
//! Pure functions over shapes, dims and scalars; each names the burn check it mirrors.
