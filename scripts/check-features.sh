#!/usr/bin/env bash
# Each feature builds on its own: `cargo check` of the library with no default feature and
# that feature alone (and with none at all). Every one is a different feature set of burn's
# stack, so each compiles its own dependency build: about an hour on 2 cores, cold. Not run by
# CI (it does not fit the budget); run it before a release and after touching a `cfg`.
set -uo pipefail
cd "$(dirname "$0")/.."
features=("" flex ndarray wgpu autodiff remote remote-device store optim linalg signal vision)
failed=()
for feature in "${features[@]}"; do
  start=$(date +%s)
  if cargo check --quiet --lib --no-default-features --features "$feature" 2>"target/check-features-${feature:-none}.log"; then
    verdict=ok
  else
    verdict=FAILED
    failed+=("${feature:-(none)}")
  fi
  printf '%-14s %-6s %4ss\n' "${feature:-(none)}" "$verdict" "$(( $(date +%s) - start ))"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]} (logs: target/check-features-<feature>.log)" >&2
  exit 1
fi
