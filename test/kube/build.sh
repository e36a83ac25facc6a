#!/usr/bin/env bash
# Builds the test clusters' binaries from the Go module proxy into
#   <repo>/.cache/kube/<k8s-version>/bin/
# and prints that directory on stdout (last line). Progress goes to stderr.
#   control plane: kube-apiserver, kube-controller-manager, kube-scheduler (k8s.io/kubernetes, version
#                  pinned in test/kube/go.mod) and a small embedded etcd (test/kube/etcd)
#   node:          kubelet, kube-proxy (same version), pause (test/kube/pause, the sandbox image's
#                  program) and testpod (test/kube/testpod, the test image's program)
# All static (CGO off, as upstream builds them). A no-op when every binary exists for the pinned
# version.
#
# Environment:
#   KUBE_CACHE_DIR  override <repo>/.cache/kube
#   KUBE_REBUILD=1  rebuild even if the binaries exist
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

k8s_version="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v[0-9]/ { print $2; exit }' "$here/go.mod")"
if [[ -z "$k8s_version" ]]; then
  echo "test/kube/build.sh: cannot find the k8s.io/kubernetes version in $here/go.mod" >&2
  exit 1
fi

cache="${KUBE_CACHE_DIR:-$root/.cache/kube}"
bin="$cache/$k8s_version/bin"
binaries=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy etcd pause testpod)

have_all() {
  local b
  for b in "${binaries[@]}"; do
    [[ -x "$bin/$b" ]] || return 1
  done
}

if [[ "${KUBE_REBUILD:-}" != "1" ]] && have_all; then
  echo "$bin"
  exit 0
fi

if ! command -v go > /dev/null 2>&1; then
  cat >&2 << EOF
ERROR: 'go' was not found on PATH.
The end-to-end tests run real Kubernetes control planes and nodes (kube-apiserver $k8s_version,
kube-controller-manager, kube-scheduler, kubelet, kube-proxy, etcd) that are built from source
through the Go module proxy.
Install Go 1.24 or newer (https://go.dev/dl/) and run this again, or run only the unit tests
with 'npm run test:unit'.
EOF
  exit 127
fi

major="${k8s_version#v}"
major="${major%%.*}"
minor="${k8s_version#v*.}"
minor="${minor%%.*}"
vpkg=k8s.io/component-base/version
ldflags="-s -w"
ldflags+=" -X $vpkg.gitVersion=$k8s_version -X $vpkg.gitMajor=$major -X $vpkg.gitMinor=$minor"
ldflags+=" -X $vpkg.gitTreeState=clean -X $vpkg.buildDate=1970-01-01T00:00:00Z"
ldflags+=" -X k8s.io/client-go/pkg/version.gitVersion=$k8s_version"

mkdir -p "$cache/$k8s_version"
# One build at a time per version (parallel test runs on a fresh clone); the winner's binaries are reused.
if command -v flock > /dev/null 2>&1; then
  exec 9> "$cache/$k8s_version/.lock"
  flock 9
  if [[ "${KUBE_REBUILD:-}" != "1" ]] && have_all; then
    echo "$bin"
    exit 0
  fi
fi

echo "test/kube/build.sh: building Kubernetes $k8s_version control plane and node into $bin (this takes a while the first time)" >&2
tmp="$(mktemp -d "$cache/$k8s_version/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

start=$SECONDS
(
  cd "$here"
  # go.sum is committed and complete; -mod=readonly makes a stale go.sum an error, not an edit.
  export CGO_ENABLED=0
  export GOFLAGS="${GOFLAGS:-} -mod=readonly"
  go build -trimpath -ldflags="$ldflags" -o "$tmp/" \
    k8s.io/kubernetes/cmd/kube-apiserver \
    k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler \
    k8s.io/kubernetes/cmd/kubelet \
    k8s.io/kubernetes/cmd/kube-proxy \
    ./etcd ./pause ./testpod
)
for b in "${binaries[@]}"; do
  if [[ ! -x "$tmp/$b" ]]; then
    echo "test/kube/build.sh: go build did not produce $b" >&2
    exit 1
  fi
done
# Publish them all at once so an interrupted build never looks complete.
chmod 755 "$tmp"
rm -rf "$bin"
mv "$tmp" "$bin"
trap - EXIT
echo "test/kube/build.sh: built in $((SECONDS - start))s" >&2
echo "$bin"
