#!/usr/bin/env bash
# GPU figures: the quantized-model bench (benches/quantized_models.rs) and the layer-twin bench
# (benches/nn.rs) through wgpu on Vulkan, on a machine with a real NVIDIA GPU; prints the
# ratio lines both benches compute from their own paired runs. Then the canary
# (examples/sentinel.rs) on the GPU against Flex, under CubeCL's minimal and full autotune
# (CUBECL_AUTOTUNE_LEVEL; fusion is on, as burn-wgpu's default build has it), printing each
# output's largest differences.
#
# Two steps, because the GPU machine that the device tool's `run` lends has no Rust toolchain
# and no network (it gets the working tree, the paths named in `carry`, 64 MiB in all):
#
#   1. On a machine with cargo and crates.io, x86-64 Linux, in the repository root:
#
#        benches/gpu.sh prepare
#
#      builds both benches in the bench profile (`cargo bench --no-run --all-features`; a
#      release build of every dependency the first time), copies the two binaries, stripped
#      and gzipped, into .gpu/, and downloads the Vulkan loader's packages into .gl/ (both
#      ignored through .git/info/exclude). It prints what `carry` must name and the sizes.
#
#   2. Through the device tool (it sends the session's own checkout: prepare in that one):
#
#        run(command = "bash benches/gpu.sh run", carry = [".gpu", ".gl"], timeout_s = 540)
#
#      unpacks the loader, points Vulkan at NVIDIA's driver when the loader finds none,
#      checks that wgpu sees the GPU (and stops if it only sees a CPU driver), runs both
#      benches filtered to their wgpu groups with short criterion times, and prints their
#      ratio lines; the whole logs land in $OUT (they come back with the reply). About 3 to
#      5 minutes of device time, most of it compiling the kernels on first use.
#
# BURN_GUARD_GPU_BENCH_ARGS overrides the criterion arguments (default: the wgpu groups,
# 1 s warm-up, 3 s measurement).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
benches=(quantized_models nn)

prepare() {
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
  exclude=$(git rev-parse --git-path info/exclude)
  mkdir -p "$(dirname "$exclude")"
  for f in /.gpu/ /.gl/; do
    grep -qxF "$f" "$exclude" 2>/dev/null || echo "$f" >>"$exclude"
  done
  mkdir -p .gpu
  rm -f .gpu/*
  for bench in "${benches[@]}"; do
    # The executable cargo built for this bench: the last JSON line naming it.
    exe=$(cargo bench --all-features --no-run --bench "$bench" --message-format=json 2>/dev/null |
      grep -F "\"name\":\"$bench\"" | grep -F '"kind":["bench"]' | grep -o '"executable":"[^"]*"' | tail -n 1 | cut -d'"' -f4)
    [ -n "$exe" ] || { echo "gpu.sh: cargo built no executable for bench $bench" >&2; exit 1; }
    strip -o ".gpu/$bench" "$exe"
    gzip -9 ".gpu/$bench"
  done
  exe=$(cargo build --profile bench --all-features --example sentinel --message-format=json 2>/dev/null |
    grep -F '"name":"sentinel"' | grep -F '"kind":["example"]' | grep -o '"executable":"[^"]*"' | tail -n 1 | cut -d'"' -f4)
  [ -n "$exe" ] || { echo "gpu.sh: cargo built no executable for example sentinel" >&2; exit 1; }
  strip -o .gpu/sentinel "$exe"
  gzip -9 .gpu/sentinel
  # The Vulkan loader (and the GL libraries wgpu may probe), as the device tool's notes say.
  mkdir -p .gl /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  # shellcheck disable=SC2086
  apt-get $o update >/dev/null
  # shellcheck disable=SC2086
  (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
  du -ch .gpu/* .gl/* | tail -n 1 | sed 's/total/to carry (.gpu, .gl; 64 MiB at most with the tree)/'
  echo 'now: run(command = "bash benches/gpu.sh run", carry = [".gpu", ".gl"], timeout_s = 540)'
}

run() {
  out="${OUT:-/tmp/gpu-bench}"
  mkdir -p "$out"
  [ -d .gpu ] && [ -d .gl ] || { echo "gpu.sh: .gpu/ or .gl/ missing: run 'benches/gpu.sh prepare' first and carry both" >&2; exit 1; }
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  if ! ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  fi
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
  # Criterion writes its reports here (it cannot ask cargo where the target directory is).
  export CRITERION_HOME=/tmp/criterion
  # CubeCL's autotune cache and compiled kernels: fresh for this machine.
  export CUBECL_ENVIRONMENT=gpu-bench
  read -r -a args <<<"${BURN_GUARD_GPU_BENCH_ARGS:-wgpu --warm-up-time 1 --measurement-time 3}"
  mkdir -p /tmp/gpu-bin
  for bench in "${benches[@]}"; do
    gunzip -c ".gpu/$bench.gz" >"/tmp/gpu-bin/$bench"
    chmod +x "/tmp/gpu-bin/$bench"
  done
  for bench in "${benches[@]}"; do
    log="$out/$bench.log"
    echo "== $bench: ${args[*]}"
    start=$(date +%s)
    "/tmp/gpu-bin/$bench" --bench "${args[@]}" >"$log" 2>&1 || {
      tail -n 40 "$log"
      echo "gpu.sh: bench $bench failed (log: $log)" >&2
      exit 1
    }
    if grep -q 'no wgpu adapter' "$log"; then
      grep 'no wgpu adapter' "$log"
      echo "gpu.sh: wgpu found no adapter: no GPU figure" >&2
      exit 1
    fi
    # The adapter wgpu chose (quantized_models prints it): a CPU driver gives no GPU figure.
    if adapter=$(grep -m 1 '^wgpu adapter: ' "$log"); then
      echo "$adapter"
      case "$adapter" in *llvmpipe* | *lavapipe* | *SwiftShader*)
        echo "gpu.sh: wgpu chose a CPU driver: no GPU figure" >&2
        exit 1
        ;;
      esac
    fi
    # The ratio lines printed after criterion's report.
    sed -n '/^group: \|^model \/ device: /,$p' "$log" | grep -F 'wgpu'
    echo "($(($(date +%s) - start)) s)"
  done
  # The canary on the GPU against Flex, at both ends of CubeCL's autotune.
  gunzip -c .gpu/sentinel.gz >/tmp/gpu-bin/sentinel
  chmod +x /tmp/gpu-bin/sentinel
  for level in minimal full; do
    log="$out/sentinel-$level.log"
    echo "== sentinel, CUBECL_AUTOTUNE_LEVEL=$level"
    CUBECL_AUTOTUNE_LEVEL=$level /tmp/gpu-bin/sentinel >"$log" 2>&1 || {
      tail -n 40 "$log"
      echo "gpu.sh: sentinel failed (log: $log)" >&2
      exit 1
    }
    grep -E '^serving on|^canary:|^  input|^shadow:' "$log"
  done
}

case "${1:-}" in
  prepare) prepare ;;
  run) run ;;
  *)
    echo "usage: benches/gpu.sh prepare   (here: build, strip, fetch the Vulkan loader)" >&2
    echo "       benches/gpu.sh run       (on the GPU machine, carry = [\".gpu\", \".gl\"])" >&2
    exit 2
    ;;
esac
