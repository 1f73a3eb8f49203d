//! A checkpoint's fingerprint: a 64-bit hash of every tensor's bytes ([`content_hash`]), by
//! the key the file gives
//! the tensor, stored by a checked save as one metadata entry ([`KEY`]: a JSON object, key →
//! 16 hex digits) and verified by every checked load of a file that carries one.

use std::collections::BTreeMap;

use crate::error::{GuardError, Result};

/// The metadata key a checked save stores the fingerprint under.
pub(crate) const KEY: &str = "burn_guard.fingerprint";

/// The rule a tensor that does not match its fingerprint breaks.
pub(crate) const RULE: &str = "a tensor's bytes must match the checkpoint's fingerprint";

/// A 64-bit hash of `bytes`: FNV-1a's step (xor, then multiply by its prime) over
/// little-endian 64-bit words in four interleaved lanes, 32 bytes a round, then the tail bytes
/// one by one, the lanes and the length folded in at the end. Each step is a bijection of its
/// lane's state, so a change confined to one word always changes the hash. Several times
/// FNV-1a's byte-at-a-time speed (a checkpoint of 50 MB is hashed on every checked save and
/// load of it); not cryptographic: it finds corruption, not an attacker.
pub(crate) fn content_hash(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let step = |hash: u64, value: u64| (hash ^ value).wrapping_mul(PRIME);
    let mut lanes = [OFFSET, OFFSET ^ 1, OFFSET ^ 2, OFFSET ^ 3];
    let mut rounds = bytes.chunks_exact(32);
    for round in &mut rounds {
        for (lane, word) in lanes.iter_mut().zip(round.chunks_exact(8)) {
            let word: [u8; 8] = word.try_into().unwrap_or_default();
            *lane = step(*lane, u64::from_le_bytes(word));
        }
    }
    let folded = lanes.iter().fold(OFFSET, |hash, &lane| step(hash, lane));
    let tail = rounds
        .remainder()
        .iter()
        .fold(folded, |hash, &b| step(hash, u64::from(b)));
    step(tail, bytes.len() as u64)
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
        let found = content_hash(bytes);
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
        self.insert_hash(key, content_hash(bytes));
    }

    /// Records `hash`, the [`content_hash`] of its bytes, as the file's `key`.
    pub(crate) fn insert_hash(&mut self, key: String, hash: u64) {
        self.hashes.insert(key, hash);
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
    fn a_changed_bit_or_length_changes_the_hash() {
        let bytes: Vec<u8> = (0..100u8).map(|i| i.wrapping_mul(37)).collect();
        for len in 0..bytes.len() {
            let base = content_hash(&bytes[..len]);
            assert_ne!(base, content_hash(&bytes[..len + 1]), "length {len}");
            for at in 0..len {
                let mut flipped = bytes[..len].to_vec();
                flipped[at] ^= 1 << (at % 8);
                assert_ne!(base, content_hash(&flipped), "length {len}, byte {at}");
            }
        }
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
