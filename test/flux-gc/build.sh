#!/usr/bin/env bash
# Builds test/flux-gc (Flux's apply and garbage collection, github.com/fluxcd/pkg/ssa at the version
# pinned in test/flux-gc/go.mod) into
#   <repo>/.cache/flux-gc/<hash of go.mod, go.sum and main.go>/flux-gc
# and prints that path on stdout (last line). Progress goes to stderr. Modules come from the Go
# module proxy; go.sum is committed, so the build runs with -mod=readonly.
# A no-op when the binary already exists for these sources.
#
# Environment:
#   FLUX_GC_CACHE_DIR  override <repo>/.cache/flux-gc
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

key="$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)"
cache="${FLUX_GC_CACHE_DIR:-$root/.cache/flux-gc}"
dir="$cache/$key"
bin="$dir/flux-gc"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

if ! command -v go > /dev/null 2>&1; then
  echo "test/flux-gc/build.sh: 'go' was not found on PATH; it builds Flux's garbage collection for test/e2e/removal.test.ts." >&2
  exit 127
fi

mkdir -p "$dir"
# One build at a time (parallel test runs on a fresh clone); the winner's binary is reused.
if command -v flock > /dev/null 2>&1; then
  exec 9> "$dir/.lock"
  flock 9
  if [[ -x "$bin" ]]; then
    echo "$bin"
    exit 0
  fi
fi

echo "test/flux-gc/build.sh: building $bin (github.com/fluxcd/pkg/ssa, first time only)" >&2
start=$SECONDS
(
  cd "$here"
  export CGO_ENABLED=0
  export GOFLAGS="${GOFLAGS:-} -mod=readonly"
  go build -trimpath -ldflags="-s -w" -o "$dir/.flux-gc.tmp" .
)
mv "$dir/.flux-gc.tmp" "$bin"
echo "test/flux-gc/build.sh: built in $((SECONDS - start))s" >&2
echo "$bin"
