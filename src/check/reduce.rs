//! Checks for the reduction and ordering family: sum/mean/prod/max/min/max_abs over dims, argmax/argmin, sort/argsort, topk, cumulative ops, median, var/cov, any_dim/all_dim.
//!
//! Pure functions over shapes, dims and scalars; each names the burn check it mirrors.
