//! What a backend panics on where burn checks nothing, as data: the [`Quirks`] of one backend.
//!
//! The values come from the capability layer's table
//! ([`capability::quirks_of`](crate::capability::quirks_of), shown by
//! `examples/capabilities.rs`); the checks that refuse what a backend would panic on take them
//! as an argument, so that no check names, or reaches, a device.

use burn::tensor::ops::InterpolateMode;

/// A set of burn's [`InterpolateMode`]s, one bit each.
///
/// ```
/// use burn::tensor::ops::InterpolateMode;
/// use burn_guard::check::quirks::Modes;
///
/// let modes = Modes::BILINEAR.with(Modes::NEAREST);
/// assert!(modes.contains(&InterpolateMode::Nearest));
/// assert!(!modes.contains(&InterpolateMode::Bicubic));
/// assert_eq!(modes.names(), ["nearest", "bilinear"]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Modes(u8);

impl Modes {
    /// `InterpolateMode::Nearest`.
    pub const NEAREST: Modes = Modes(1);
    /// `InterpolateMode::NearestExact`.
    pub const NEAREST_EXACT: Modes = Modes(1 << 1);
    /// `InterpolateMode::Bilinear`.
    pub const BILINEAR: Modes = Modes(1 << 2);
    /// `InterpolateMode::Bicubic`.
    pub const BICUBIC: Modes = Modes(1 << 3);
    /// `InterpolateMode::Lanczos3`.
    pub const LANCZOS3: Modes = Modes(1 << 4);
    /// Every mode.
    pub const ALL: Modes = Modes(0b1_1111);
    /// No mode.
    pub const EMPTY: Modes = Modes(0);

    /// Whether the set holds no mode.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The modes of both sets.
    pub const fn with(self, other: Modes) -> Modes {
        Modes(self.0 | other.0)
    }

    /// These modes but `other`'s.
    pub const fn without(self, other: Modes) -> Modes {
        Modes(self.0 & !other.0)
    }

    /// The one-mode set of `mode`.
    pub const fn of(mode: &InterpolateMode) -> Modes {
        match mode {
            InterpolateMode::Nearest => Self::NEAREST,
            InterpolateMode::NearestExact => Self::NEAREST_EXACT,
            InterpolateMode::Bilinear => Self::BILINEAR,
            InterpolateMode::Bicubic => Self::BICUBIC,
            InterpolateMode::Lanczos3 => Self::LANCZOS3,
        }
    }

    /// Whether `mode` is in the set.
    pub const fn contains(self, mode: &InterpolateMode) -> bool {
        self.0 & Self::of(mode).0 != 0
    }

    /// The modes' names in burn's order, lower case (`nearest`, `nearest_exact`, …).
    pub fn names(self) -> Vec<&'static str> {
        [
            (Self::NEAREST, "nearest"),
            (Self::NEAREST_EXACT, "nearest_exact"),
            (Self::BILINEAR, "bilinear"),
            (Self::BICUBIC, "bicubic"),
            (Self::LANCZOS3, "lanczos3"),
        ]
        .into_iter()
        .filter(|(mode, _)| self.0 & mode.0 != 0)
        .map(|(_, name)| name)
        .collect()
    }
}

/// The known quirks of one backend: the inputs it panics on although burn checks nothing, and
/// what its reductions do with NaN where a check leans on it.
///
/// [`Quirks::NONE`] is the answer for a backend nobody measured: every such check passes and
/// the backend answers (under the panic backstop), and nothing is assumed of its reductions.
///
/// ```
/// use burn::tensor::ops::InterpolateMode;
/// use burn_guard::check::quirks::Quirks;
///
/// assert!(!Quirks::NONE.int_powi_negative_exponent_panics);
/// assert!(Quirks::NONE.interpolate_modes.contains(&InterpolateMode::NearestExact));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Quirks {
    /// The backend, as errors name it (`flex`, `ndarray`; `unmeasured` for [`Quirks::NONE`]).
    pub backend: &'static str,
    /// `powi` of an integer tensor panics on a negative exponent.
    pub int_powi_negative_exponent_panics: bool,
    /// A float to int cast panics on NaN, ±inf or a value outside `i64`.
    pub float_to_int_unrepresentable_panics: bool,
    /// The modes `interpolate` runs; it panics on the others.
    pub interpolate_modes: Modes,
    /// The modes `grid_sample_2d` runs; it panics on the others.
    pub grid_sample_modes: Modes,
    /// `float_min` and `float_max`, whole-tensor and along a dimension, return NaN when a
    /// value they reduce is NaN (±inf reaches a min or a max on every backend). Where it
    /// holds, a finite min and max prove every value finite, and the weight quantizer reads
    /// burn's own range for its finiteness check; elsewhere it reduces the values once more.
    pub extrema_propagate_nan: bool,
    /// The backend runs on the calling thread over host memory (a CPU backend): an op costs a
    /// function call, not a kernel launch, and a float scalar op on F32 values is one IEEE-754
    /// f32 operation. Where it holds, the weight quantizer concatenates every parameter's
    /// range into one read, and computes a per-tensor scale on the host
    /// ([`quant_scale`](crate::check::quant::quant_scale)), bit for bit burn's.
    pub runs_on_host: bool,
}

impl Quirks {
    /// No known quirk: a backend nobody measured.
    pub const NONE: Quirks = Quirks {
        backend: "unmeasured",
        int_powi_negative_exponent_panics: false,
        float_to_int_unrepresentable_panics: false,
        interpolate_modes: Modes::ALL,
        grid_sample_modes: Modes::ALL,
        extrema_propagate_nan: false,
        runs_on_host: false,
    };

    /// A backend's quirks, field by field: the capability table's constructor.
    pub const fn new(
        backend: &'static str,
        int_powi_negative_exponent_panics: bool,
        float_to_int_unrepresentable_panics: bool,
        interpolate_modes: Modes,
        grid_sample_modes: Modes,
    ) -> Quirks {
        Quirks {
            backend,
            int_powi_negative_exponent_panics,
            float_to_int_unrepresentable_panics,
            interpolate_modes,
            grid_sample_modes,
            extrema_propagate_nan: false,
            runs_on_host: false,
        }
    }

    /// These quirks, with min and max reductions that return NaN when they meet one
    /// ([`Quirks::extrema_propagate_nan`]).
    ///
    /// ```
    /// use burn_guard::check::quirks::Quirks;
    ///
    /// assert!(!Quirks::NONE.extrema_propagate_nan);
    /// assert!(Quirks::NONE.with_extrema_propagating_nan().extrema_propagate_nan);
    /// ```
    #[must_use]
    pub const fn with_extrema_propagating_nan(self) -> Quirks {
        Quirks {
            extrema_propagate_nan: true,
            ..self
        }
    }

    /// These quirks, on a backend that runs on the host ([`Quirks::runs_on_host`]).
    ///
    /// ```
    /// use burn_guard::check::quirks::Quirks;
    ///
    /// assert!(!Quirks::NONE.runs_on_host);
    /// assert!(Quirks::NONE.on_host().runs_on_host);
    /// ```
    #[must_use]
    pub const fn on_host(self) -> Quirks {
        Quirks {
            runs_on_host: true,
            ..self
        }
    }
}
