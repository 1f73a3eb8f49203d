#!/usr/bin/env bash
# Proves the migration lint. Clippy, run on lint/fixture with the generated clippy.toml, must
# report every raw call in src/raw.rs with exactly the paths of expected.txt (one line per
# call), and nothing else: no twin in src/twins.rs, no other warning. Then install.sh is tried
# on each kind of clippy.toml it merges into.
#
# Reuses the dependency build of burn-guard's `cargo clippy --all-targets --all-features` when
# both share CARGO_TARGET_DIR (.ci/run runs this right after that step).
set -euo pipefail
lint=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
fail() {
  echo "lint check FAILED: $*" >&2
  exit 1
}

cd "$lint/fixture"
rustfmt --check --edition 2024 src/*.rs >/dev/null || fail "lint/fixture is not formatted (rustfmt --edition 2024 lint/fixture/src/*.rs)"
cmp -s ../clippy.toml clippy.toml ||
  fail "lint/fixture/clippy.toml differs from lint/clippy.toml (BURN_GUARD_BLESS=1 cargo test --all-features --test twins)"
# The same versions as burn-guard, so that their build is reused.
cp ../../Cargo.lock Cargo.lock
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$lint/../target}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo clippy --quiet --message-format=short >"$log" 2>&1 || {
  cat "$log"
  fail "clippy did not finish on the fixture"
}

flag='^src/raw\.rs:[0-9]+:[0-9]+: warning: use of a disallowed method `'
flagged=$(grep -E "$flag" "$log" | sed -E 's/.*`([^`]+)`.*/\1/' | sort)
expected=$(grep -v '^#' expected.txt | sort)
configured=$(grep -o '{ path = "[^"]*"' clippy.toml | cut -d'"' -f2 | sort)
others=$(grep -vE "$flag" "$log" | grep -vE '^warning: `[^`]+` \(lib\) generated [0-9]+ warnings?' || true)
[ -z "$others" ] || fail "clippy reported more than the raw calls (a twin, a bad path, a warning):
$others"
diff <(echo "$expected") <(echo "$flagged") >&2 ||
  fail "the flagged calls differ from expected.txt (< expected but not flagged: add the call to
lint/fixture/src/raw.rs; > flagged but not expected: remove it)"
[ "$(echo "$configured")" = "$(echo "$flagged" | uniq)" ] ||
  fail "not every clippy.toml entry was flagged"

# install.sh: a new file, an update, a merge into the user's own array, a file without one.
tmp=$(mktemp -d)
trap 'rm -rf "$log" "$tmp"' EXIT
sh ../install.sh "$tmp" >/dev/null
cmp -s "$tmp/clippy.toml" ../clippy.toml || fail "install.sh: a new clippy.toml is not lint/clippy.toml"
printf 'msrv = "1.95"\ndisallowed-methods = [\n    { path = "std::process::exit", reason = "mine" },\n]\n' >"$tmp/clippy.toml"
sh ../install.sh "$tmp" >/dev/null
cp "$tmp/clippy.toml" "$tmp/once"
sh ../install.sh "$tmp" >/dev/null
cmp -s "$tmp/clippy.toml" "$tmp/once" || fail "install.sh: a second run changed the file"
[ "$(grep -c 'disallowed-methods' "$tmp/clippy.toml")" = 1 ] &&
  grep -q 'std::process::exit' "$tmp/clippy.toml" && grep -q '^msrv' "$tmp/clippy.toml" &&
  [ "$(grep -c '{ path = ' "$tmp/clippy.toml")" = "$(($(echo "$configured" | wc -l) + 1))" ] ||
  fail "install.sh: merging into an existing array"
printf 'msrv = "1.95"\n' >"$tmp/clippy.toml"
sh ../install.sh "$tmp" >/dev/null
[ "$(grep -c '{ path = ' "$tmp/clippy.toml")" = "$(echo "$configured" | wc -l)" ] &&
  grep -q '^msrv' "$tmp/clippy.toml" || fail "install.sh: adding the array"
printf 'disallowed-methods = ["std::process::exit"]\n' >"$tmp/clippy.toml"
! sh ../install.sh "$tmp" 2>/dev/null || fail "install.sh: a one-line array must be refused"

echo "migration lint: $(echo "$configured" | wc -l) entries, $(echo "$flagged" | wc -l) raw calls" \
  "flagged of $(echo "$expected" | wc -l) expected, $(echo "$flagged" | uniq | wc -l) distinct paths," \
  "0 twins flagged; install.sh ok ($(($(date +%s) - start)) s)"
