//! The choices of a checked load: [`LoadOptions`], [`DTypeChoice`], [`AllowUnused`].

use serde::Serialize;

/// What a parameter's dtype is after a load.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DTypeChoice {
    /// Each parameter keeps its dtype; the checkpoint's values are cast on the host (the
    /// report lists every cast). The default: a model whose forward works before the load
    /// works after it.
    #[default]
    KeepModel,
    /// Each parameter takes the checkpoint's dtype (burn's default, `DTypePolicy::FromRecord`),
    /// checked against the device and refused when the model would end with two float dtypes.
    AdoptFile,
}

/// Which checkpoint keys that no parameter takes a checked load accepts (and lists in the
/// report) rather than refuses: [`LoadOptions::allow_unused`].
///
/// `false` and `true` convert into `None` and `All`; a pattern, an array, a slice or a `Vec`
/// of patterns into `Matching`. A pattern is a key where `*` stands for any run of characters
/// (dots included): `"aux_logits.*"`, `"*.num_batches_tracked"`
/// ([`check::load::key_matches`](crate::check::load::key_matches)). Patterns keep the load
/// strict for everything else: a file of another model is still refused.
///
/// ```
/// use burn_guard::store::{AllowUnused, LoadOptions};
///
/// let strict = LoadOptions::new();
/// let any = LoadOptions::new().allow_unused(true);
/// let heads = LoadOptions::new().allow_unused(["aux_logits.*", "classifier.*"]);
/// assert_eq!(heads.unused_keys(), &AllowUnused::Matching(vec!["aux_logits.*".into(), "classifier.*".into()]));
/// assert!(heads.unused_keys().accepts("aux_logits.fc.weight"));
/// assert!(!heads.unused_keys().accepts("layer1.2.conv1.weight"));
/// assert!(any.unused_keys().accepts("layer1.2.conv1.weight"));
/// assert!(!strict.unused_keys().accepts("aux_logits.fc.weight"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AllowUnused {
    /// Every unused key is refused (the default, as burn-core refuses them).
    #[default]
    None,
    /// Every unused key is accepted (burn-core's `allow_unused`; burn-store never refuses).
    All,
    /// The unused keys that match one of these patterns are accepted; the others refused.
    Matching(Vec<String>),
}

impl AllowUnused {
    /// Whether the unused checkpoint key `key` (as the file names it) is accepted.
    pub fn accepts(&self, key: &str) -> bool {
        match self {
            Self::None => false,
            Self::All => true,
            Self::Matching(patterns) => patterns
                .iter()
                .any(|pattern| crate::check::load::key_matches(pattern, key)),
        }
    }
}

impl From<bool> for AllowUnused {
    fn from(allow: bool) -> Self {
        if allow { Self::All } else { Self::None }
    }
}

impl From<&str> for AllowUnused {
    fn from(pattern: &str) -> Self {
        Self::Matching(vec![pattern.to_owned()])
    }
}

impl<const N: usize> From<[&str; N]> for AllowUnused {
    fn from(patterns: [&str; N]) -> Self {
        Self::Matching(patterns.iter().map(|p| (*p).to_owned()).collect())
    }
}

impl From<&[&str]> for AllowUnused {
    fn from(patterns: &[&str]) -> Self {
        Self::Matching(patterns.iter().map(|p| (*p).to_owned()).collect())
    }
}

impl From<Vec<String>> for AllowUnused {
    fn from(patterns: Vec<String>) -> Self {
        Self::Matching(patterns)
    }
}

/// The choices of a checked load. Strict by default: every parameter must be in the
/// checkpoint, every checkpoint key must go to a parameter, and the model keeps its dtypes.
///
/// ```
/// use burn::nn::{Linear, LinearConfig};
/// use burn::module::Module;
/// use burn::tensor::Device;
/// use burn_guard::store::LoadOptions;
///
/// let device = Device::flex();
/// let trained: Linear = LinearConfig::new(3, 4).init(&device);
/// let record = trained.clone().into_record();
/// let mut model: Linear = LinearConfig::new(3, 4).init(&device);
/// let report = LoadOptions::new().scan_non_finite(true).load_record(&mut model, record)?;
/// assert_eq!(report.loaded().count(), 2);
/// # Ok::<(), burn_guard::GuardError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadOptions {
    pub(crate) allow_partial: bool,
    pub(crate) allow_unused: AllowUnused,
    pub(crate) validate: bool,
    pub(crate) dtype: DTypeChoice,
    pub(crate) scan_non_finite: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            allow_partial: false,
            allow_unused: AllowUnused::None,
            validate: true,
            dtype: DTypeChoice::KeepModel,
            scan_non_finite: false,
        }
    }
}

impl LoadOptions {
    /// The strict defaults.
    pub fn new() -> Self {
        Self::default()
    }

    setters! {
        /// Accept a checkpoint that lacks some parameters: they keep their values and the report
        /// lists them (burn's `allow_partial`).
        pub fn allow_partial(allow: bool) => allow_partial;

        /// `false`: a tensor of the wrong shape or kind is not refused; its parameter keeps its
        /// value and the report says why (burn's `validate(false)`, which says nothing).
        pub fn validate(validate: bool) => validate;

        /// Keep the model's dtypes (the default) or adopt the checkpoint's.
        pub fn dtype(choice: DTypeChoice) => dtype;

        /// Read every float value before anything is written, and refuse a checkpoint holding NaN
        /// or ±inf (in the dtype the parameter ends with), naming the parameter and the count.
        /// Costs a read of the whole checkpoint on the host.
        pub fn scan_non_finite(scan: bool) => scan_non_finite;
    }

    /// Accept checkpoint keys that no parameter takes, all of them (`true`, burn-core's
    /// `allow_unused`; burn-store never refuses them) or those matching patterns
    /// (`["aux_logits.*"]`, see [`AllowUnused`]); the report lists them. Under
    /// [`Layout::PyTorch`](super::Layout::PyTorch), PyTorch's bookkeeping buffers (`num_batches_tracked`, ...) are
    /// skipped by name whatever this says, and listed as skipped.
    #[must_use]
    pub fn allow_unused(mut self, allow: impl Into<AllowUnused>) -> Self {
        self.allow_unused = allow.into();
        self
    }

    /// The unused keys this load accepts.
    pub fn unused_keys(&self) -> &AllowUnused {
        &self.allow_unused
    }
}
