//! Checks for the reshape/view and split family: reshape, permute, movedim, flip, flatten, squeeze*, unsqueeze*, expand, unfold, roll*, repeat*, pad, chunk, split*, iter_dim, meshgrid*.
//!
//! Pure functions over shapes, dims and scalars; each names the burn check it mirrors.
