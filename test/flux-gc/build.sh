#!/usr/bin/env bash
# Builds test/flux-gc (Flux's apply and garbage collection, github.com/fluxcd/pkg/ssa at the version
# pinned in test/flux-gc/go.mod) into <repo>/.cache/flux-gc/<hash>/flux-gc and prints that path
# (test/helpers/go-build.sh).
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../helpers/go-build.sh" flux-gc "Flux's garbage collection, github.com/fluxcd/pkg/ssa"
