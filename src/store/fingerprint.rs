//! A checkpoint's fingerprint: FNV-1a 64 of every tensor's bytes, by the key the file gives
//! the tensor, stored by a checked save as one metadata entry ([`KEY`]: a JSON object, key →
//! 16 hex digits) and verified by every checked load of a file that carries one.

use std::collections::BTreeMap;

use crate::error::{GuardError, Result};

/// The metadata key a checked save stores the fingerprint under.
pub(crate) const KEY: &str = "burn_guard.fingerprint";

/// The rule a tensor that does not match its fingerprint breaks.
pub(crate) const RULE: &str = "a tensor's bytes must match the checkpoint's fingerprint";

/// FNV-1a 64 of `bytes`.
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(PRIME))
}

/// Every tensor's hash, by the key the file gives it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    hashes: BTreeMap<String, u64>,
}

impl Fingerprint {
    /// The hash the fingerprint holds for the file's `key`.
    pub(crate) fn get(&self, key: &str) -> Option<u64> {
        self.hashes.get(key).copied()
    }

    /// The keys the fingerprint names.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.hashes.keys().map(String::as_str)
    }

    /// Refuses `bytes`, read for the file's `key`, unless they hash to `expected`.
    pub(crate) fn verify(op: &'static str, key: &str, expected: u64, bytes: &[u8]) -> Result<()> {
        let found = fnv1a64(bytes);
        if found == expected {
            return Ok(());
        }
        Err(GuardError::InvalidArgument {
            op,
            rule: RULE,
            got: format!(
                "key={key}: the fingerprint holds {expected:016x}, its {} bytes hash to \
                 {found:016x} (the file changed after it was saved)",
                bytes.len()
            ),
        })
    }
}

/// The fingerprint a checkpoint's metadata value holds (`None` when it has none).
///
/// Without the `store` feature (no JSON reader) a fingerprint is not read, and not verified.
#[cfg(feature = "store")]
pub(crate) fn from_metadata(op: &'static str, value: Option<&str>) -> Result<Option<Fingerprint>> {
    value.map(|json| Fingerprint::parse(op, json)).transpose()
}

/// The fingerprint a checkpoint's metadata value holds (`None` when it has none).
///
/// Without the `store` feature (no JSON reader) a fingerprint is not read, and not verified.
#[cfg(not(feature = "store"))]
#[allow(clippy::unnecessary_wraps, reason = "the `store` build's signature")]
pub(crate) fn from_metadata(
    _op: &'static str,
    _value: Option<&str>,
) -> Result<Option<Fingerprint>> {
    Ok(None)
}

#[cfg(feature = "store")]
impl Fingerprint {
    /// Records `bytes` as the file's `key`.
    pub(crate) fn insert(&mut self, key: String, bytes: &[u8]) {
        self.hashes.insert(key, fnv1a64(bytes));
    }

    /// The metadata value: a JSON object, key → 16 lower-case hex digits.
    pub(crate) fn to_json(&self) -> String {
        let map: BTreeMap<&str, String> = self
            .hashes
            .iter()
            .map(|(k, v)| (k.as_str(), format!("{v:016x}")))
            .collect();
        serde_json::to_string(&map).unwrap_or_default()
    }

    /// Reads a metadata value written by [`to_json`](Self::to_json).
    pub(crate) fn parse(op: &'static str, json: &str) -> Result<Self> {
        let refuse = |got: String| GuardError::InvalidArgument {
            op,
            rule: "the checkpoint's fingerprint (`burn_guard.fingerprint`) must be a JSON object \
                   of tensor keys to 16 hex digits",
            got,
        };
        let map: BTreeMap<String, String> =
            serde_json::from_str(json).map_err(|e| refuse(format!("{e}")))?;
        let mut hashes = BTreeMap::new();
        for (key, hex) in map {
            let hash = match u64::from_str_radix(&hex, 16) {
                Ok(hash) if hex.len() == 16 => hash,
                _ => return Err(refuse(format!("key={key}: {hex:?}"))),
            };
            hashes.insert(key, hash);
        }
        Ok(Self { hashes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_reference_values() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[cfg(feature = "store")]
    #[test]
    fn the_json_round_trips_and_a_malformed_one_is_refused() {
        let mut fingerprint = Fingerprint::default();
        fingerprint.insert("fc.weight".into(), b"abc");
        let json = fingerprint.to_json();
        assert_eq!(
            Fingerprint::parse("load_from", &json).ok(),
            Some(fingerprint)
        );
        assert!(Fingerprint::parse("load_from", r#"{"fc.weight":"xyz"}"#).is_err());
        assert!(Fingerprint::parse("load_from", "[]").is_err());
    }
}
