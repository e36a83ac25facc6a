#!/usr/bin/env bash
# End-to-end tests on real Kubernetes control planes (see test/kube/).
# Builds the control-plane and node binaries once (cached in .cache/kube/<version>/bin; needs Go),
# and for removal.test.ts and uninstall-runbook.test.ts Flux's apply and garbage collection
# (test/flux-gc, cached in .cache/flux-gc) and Argo CD's tracking and cascade deletion
# (test/argocd-gc, cached in .cache/argocd-gc), then runs
# every test/e2e/*.test.ts with uvu; image.test.ts builds the reconciler image with podman
# (test/image/build.sh, root, cached in .cache/image and .cache/podman). The exit code is uvu's
# (non-zero on any failure), or 1 when fewer tests passed than ran (scripts/uvu-strict.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bash test/kube/build.sh > /dev/null
bash test/flux-gc/build.sh > /dev/null
bash test/argocd-gc/build.sh > /dev/null
exec bash scripts/uvu-strict.sh -r tsx test/e2e '.*\.test\.ts$' "$@"
