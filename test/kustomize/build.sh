#!/usr/bin/env bash
# Builds kustomize (sigs.k8s.io/kustomize/kustomize/v5 at the version pinned in
# test/kustomize/go.mod: v5.7.0, the version Argo CD v3.2.6 ships, hack/tool-versions.sh in
# github.com/argoproj/argo-cd/v3) into <repo>/.cache/kustomize/<hash>/kustomize and prints that
# path (test/helpers/go-build.sh). Argo CD's repo server (test/delivery/argocd.ts) runs it from PATH.
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../helpers/go-build.sh" kustomize \
  "kustomize, which Argo CD's repo server runs (sigs.k8s.io/kustomize/kustomize/v5)" \
  sigs.k8s.io/kustomize/kustomize/v5
