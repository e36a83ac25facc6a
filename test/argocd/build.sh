#!/usr/bin/env bash
# Builds test/argocd (Argo CD's application controller and repo server, the real commands of
# github.com/argoproj/argo-cd/v3 at the version pinned in test/argocd/go.mod) into
# <repo>/.cache/argocd/<hash>/argocd and prints that path (test/helpers/go-build.sh).
# test/delivery/argocd.ts runs `argocd application-controller` and `argocd repo-server`.
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../helpers/go-build.sh" argocd \
  "Argo CD's application controller and repo server, github.com/argoproj/argo-cd/v3"
