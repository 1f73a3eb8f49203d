//! Checks for the indexing family: slice*, select_dim, select_assign, gather*, scatter*, mask_select*, mask_fill, take, one_hot*, tril/triu and their masks.
//!
//! Pure functions over shapes, dims and scalars; each names the burn check it mirrors.
