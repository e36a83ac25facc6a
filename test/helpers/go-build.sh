#!/usr/bin/env bash
# Builds the Go program in test/<name> (its own go.mod and committed go.sum, so -mod=readonly) into
#   <repo>/.cache/<name>/<hash of go.mod, go.sum and its *.go files>/<last element of name>
# and prints that path on stdout (last line). Progress goes to stderr. Modules come from the Go
# module proxy. A no-op when the binary already exists for these sources.
#
#   bash test/helpers/go-build.sh <name> "<what it builds, for the log>" [<package>]
#
# <name> may be nested (`flux/source-controller`: test/flux/source-controller/, binary
# source-controller).
# <package> is what `go build` builds in test/<name>: `.` (its main.go) unless given, or a command
# of a module its go.mod requires (a `tool` line), built at the version go.mod and go.sum pin.
#
# Environment:
#   GO_TOOL_CACHE_DIR  override <repo>/.cache (the binary goes to $GO_TOOL_CACHE_DIR/<name>/...)
set -euo pipefail

name="$1"
what="$2"
package="${3:-.}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="$root/test/$name"

mapfile -t sources < <(compgen -G "$src/*.go" | LC_ALL=C sort)
key="$(cat "$src/go.mod" "$src/go.sum" "${sources[@]}" | sha256sum | cut -c1-16)"
dir="${GO_TOOL_CACHE_DIR:-$root/.cache}/$name/$key"
base="${name##*/}"
bin="$dir/$base"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

if ! command -v go > /dev/null 2>&1; then
  echo "test/$name: 'go' was not found on PATH; it builds $what for the tests." >&2
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

echo "test/$name: building $bin ($what, first time only)" >&2
start=$SECONDS
(
  cd "$src"
  export CGO_ENABLED=0
  export GOFLAGS="${GOFLAGS:-} -mod=readonly"
  go build -trimpath -ldflags="-s -w" -o "$dir/.$base.tmp" "$package"
)
mv "$dir/.$base.tmp" "$bin"
echo "test/$name: built in $((SECONDS - start))s" >&2
echo "$bin"
