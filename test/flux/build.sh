#!/usr/bin/env bash
# Builds Flux's source-controller and kustomize-controller (the real controllers, at the versions
# pinned in test/flux/{source-controller,kustomize-controller}/go.mod) from the Go module proxy and
# prints, on stdout (last line), a directory holding
#   source-controller, kustomize-controller   the two binaries (symlinks into .cache/flux/<name>/<hash>/)
#   crds/*.yaml                               the CRDs of those same module versions
#                                             (config/crd/bases of each controller's module)
# Progress goes to stderr. A no-op when everything exists for these go.mod and go.sum files.
#
# Each controller is a `main` package at its module's root whose go.mod says
# `replace github.com/fluxcd/<x>-controller/api => ./api`; api/ is not in the module zip, so
# `go install github.com/fluxcd/<x>-controller@vX` refuses it. Instead each has a module of ours
# that names it as a `tool` and requires its api module at the same version. The replace
# directives of a dependency's go.mod do not apply, so ours repeat the controller's other ones
# (go-digest with BLAKE3, kustomize and yaml.v3 pins) and pin what the proxy refuses (see the
# comments there). check-versions.sh checks that the build list is the controller's own.
# test/helpers/go-build.sh builds them: CGO off, -trimpath, -ldflags=-s -w, -mod=readonly against
# the committed go.sum.
#
# Environment:
#   GO_TOOL_CACHE_DIR  override <repo>/.cache
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/test/helpers/go-build.sh"

version_of() { # <controller>: its version in our go.mod
  awk -v m="github.com/fluxcd/$1" '$1 == m && $2 ~ /^v[0-9]/ { print $2; exit }' "$here/$1/go.mod"
}
sc_version="$(version_of source-controller)"
kc_version="$(version_of kustomize-controller)"

key="$(cat "$here/source-controller/go.mod" "$here/source-controller/go.sum" \
  "$here/kustomize-controller/go.mod" "$here/kustomize-controller/go.sum" "${BASH_SOURCE[0]}" |
  sha256sum | cut -c1-16)"
out="${GO_TOOL_CACHE_DIR:-$root/.cache}/flux/sc-$sc_version-kc-$kc_version-$key"

if [[ -x "$out/source-controller" && -x "$out/kustomize-controller" && -f "$out/crds/.done" ]]; then
  echo "$out"
  exit 0
fi

mkdir -p "$(dirname "$out")"
# One build at a time (parallel test runs on a fresh clone); the winner's result is reused.
if command -v flock > /dev/null 2>&1; then
  exec 9> "$(dirname "$out")/.lock"
  flock 9
  if [[ -x "$out/source-controller" && -x "$out/kustomize-controller" && -f "$out/crds/.done" ]]; then
    echo "$out"
    exit 0
  fi
fi

sc="$(bash "$build" flux/source-controller "Flux's source-controller $sc_version" \
  github.com/fluxcd/source-controller | tail -n 1)"
kc="$(bash "$build" flux/kustomize-controller "Flux's kustomize-controller $kc_version" \
  github.com/fluxcd/kustomize-controller | tail -n 1)"

module_dir() { # <controller>: the module's directory in the module cache (downloaded if needed)
  (
    cd "$here/$1"
    GOFLAGS="${GOFLAGS:-} -mod=readonly" go mod download -json "github.com/fluxcd/$1" |
      awk -F'"' '$2 == "Dir" { print $4 }'
  )
}
sc_dir="$(module_dir source-controller)"
kc_dir="$(module_dir kustomize-controller)"

tmp="$out.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp/crds"
ln -s "$sc" "$tmp/source-controller"
ln -s "$kc" "$tmp/kustomize-controller"
cp "$sc_dir"/config/crd/bases/*.yaml "$kc_dir"/config/crd/bases/*.yaml "$tmp/crds/"
chmod 0644 "$tmp"/crds/*.yaml
printf 'source-controller %s\nkustomize-controller %s\n' "$sc_version" "$kc_version" > "$tmp/crds/.done"
rm -rf "$out"
mv "$tmp" "$out"
echo "$out"
