#!/usr/bin/env bash
# Builds test/argocd-gc (Argo CD's resource tracking and cascade deletion,
# github.com/argoproj/argo-cd/v3 at the version pinned in test/argocd-gc/go.mod) into
# <repo>/.cache/argocd-gc/<hash>/argocd-gc and prints that path (test/helpers/go-build.sh).
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../helpers/go-build.sh" argocd-gc "Argo CD's cascade deletion, github.com/argoproj/argo-cd/v3"
