#!/usr/bin/env bash
# uvu, but a run in which fewer tests passed than ran fails. uvu 0.5 exits 0 when a suite's
# before/after hook throws: that suite's tests then neither run nor count as failed, and only the
# summary ("Total: 5", "Passed: 0") shows it. Arguments are uvu's; its output is passed through.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
node_modules/.bin/uvu "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
[ "$rc" -ne 0 ] && exit "$rc"
plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
total=$(grep -E '^\s*Total:' <<<"$plain" | tail -1 | grep -oE '[0-9]+')
passed=$(grep -E '^\s*Passed:' <<<"$plain" | tail -1 | grep -oE '[0-9]+')
skipped=$(grep -E '^\s*Skipped:' <<<"$plain" | tail -1 | grep -oE '[0-9]+')
if [ -z "$total" ] || [ "$passed" != "$total" ] || [ "${skipped:-0}" != 0 ]; then
  echo "uvu-strict: ${passed:-?} of ${total:-?} tests passed (${skipped:-?} skipped); a hook that threw stops its suite without a failure (see the output above)" >&2
  exit 1
fi
