//! Checks for the module, activation and loss functions: convolutions, linear, batch norm,
//! interpolate, einsum, affine grids, softmax family, glu, prelu, cross entropy.
//!
//! Pure functions over shapes and options; each names the burn check it mirrors.
