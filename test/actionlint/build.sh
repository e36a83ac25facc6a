#!/usr/bin/env bash
# Builds actionlint (github.com/rhysd/actionlint/cmd/actionlint at the version pinned in
# test/actionlint/go.mod, checked against the committed go.sum) into
# <repo>/.cache/actionlint/<hash>/actionlint and prints that path (test/helpers/go-build.sh).
# test/workflows.test.ts runs it over .github/workflows/ and the workflow `clusterset init` writes.
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/../helpers/go-build.sh" actionlint \
  "actionlint, the GitHub Actions workflow linter (github.com/rhysd/actionlint)" \
  github.com/rhysd/actionlint/cmd/actionlint
