#!/bin/sh
# Installs burn-guard's migration lint into a crate's clippy.toml: the `disallowed-methods`
# entries of the clippy.toml next to this script, one per raw burn call that has a twin.
#
#   sh install.sh [CRATE_DIR]        (default: the current directory)
#
# - no clippy.toml (nor .clippy.toml): writes one;
# - the lint already there: replaces its entries (run it again after updating burn-guard);
# - a `disallowed-methods = [` line: adds the entries inside that array, keeping yours;
# - no `disallowed-methods`: adds the array at the top of the file.
# A `disallowed-methods` array that opens and closes on one line is left alone: put its `[`
# at the end of the line and run this again.
set -eu
lint_dir=$(cd "$(dirname "$0")" && pwd)
source_file="$lint_dir/clippy.toml"
crate_dir=${1:-.}
begin='# BEGIN burn-guard migration lint'
end='# END burn-guard migration lint'
opening='^[[:space:]]*disallowed[-_]methods[[:space:]]*=[[:space:]]*\[[[:space:]]*(#.*)?$'

if [ ! -d "$crate_dir" ]; then
  echo "burn-guard lint: no directory $crate_dir" >&2
  exit 1
fi
entries=$(grep -c '{ path = ' "$source_file")
if [ -f "$crate_dir/clippy.toml" ]; then
  target="$crate_dir/clippy.toml"
elif [ -f "$crate_dir/.clippy.toml" ]; then
  target="$crate_dir/.clippy.toml"
else
  cp "$source_file" "$crate_dir/clippy.toml"
  echo "burn-guard lint: wrote $crate_dir/clippy.toml ($entries entries)"
  exit 0
fi

block=$(mktemp)
out=$(mktemp)
trap 'rm -f "$block" "$out"' EXIT
sed -n "/$begin/,/$end/p" "$source_file" >"$block"
if grep -q "$begin" "$target"; then
  awk -v b="$begin" -v e="$end" -v f="$block" '
    index($0, b) { while ((getline line < f) > 0) print line; skip = 1; next }
    skip && index($0, e) { skip = 0; next }
    !skip { print }' "$target" >"$out"
  action="updated"
elif grep -Eq "$opening" "$target"; then
  awk -v f="$block" -v re="$opening" '
    { print }
    !done && $0 ~ re { while ((getline line < f) > 0) print line; done = 1 }' "$target" >"$out"
  action="merged into"
elif grep -Eq '^[[:space:]]*disallowed[-_]methods' "$target"; then
  echo "burn-guard lint: $target has a one-line disallowed-methods array; put its [ at the end" \
    "of its line (one entry per line) and run this again" >&2
  exit 1
else
  {
    echo "disallowed-methods = ["
    cat "$block"
    echo "]"
    echo
    cat "$target"
  } >"$out"
  action="added to"
fi
cat "$out" >"$target"
echo "burn-guard lint: $action $target ($entries entries)"
