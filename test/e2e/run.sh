#!/usr/bin/env bash
# End-to-end tests on real Kubernetes control planes (see test/kube/).
# Builds the control-plane and node binaries once (cached in .cache/kube/<version>/bin; needs Go),
# the real Flux controllers, source-controller and kustomize-controller (test/flux/build.sh, cached
# in .cache/flux; run by test/delivery/flux.ts), and the real Argo CD application controller and repo
# server with the kustomize they run (test/argocd/build.sh and test/kustomize/build.sh, cached in
# .cache/argocd and .cache/kustomize; run by test/delivery/argocd.ts), then runs
# every test/e2e/*.test.ts with uvu; image.test.ts builds the reconciler image with podman
# (test/image/build.sh, root, cached in .cache/image and .cache/podman). The exit code is uvu's
# (non-zero on any failure), or 1 when fewer tests passed than ran (scripts/uvu-strict.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bash test/kube/build.sh > /dev/null
bash test/flux/build.sh > /dev/null
bash test/argocd/build.sh > /dev/null
bash test/kustomize/build.sh > /dev/null
exec bash scripts/uvu-strict.sh -r tsx test/e2e '.*\.test\.ts$' "$@"
