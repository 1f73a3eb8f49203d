//! A module's parameters, read without running anything: the one walk that names each float
//! parameter by its module path ([`walk`]), the one reader of a layer's `Param` ([`read`]),
//! and the copy that shares no mutable storage with the original ([`detach`]).
//!
//! Low in the house: everything that walks a model — the quantizer, the loader, the optimizer's
//! census, the layer twins, the sentinel's reference copies — reads parameters through here, and
//! this module imports nothing above `check/`, `panic` and `upstream`.

pub(crate) mod detach;
pub(crate) mod read;
pub(crate) mod walk;
