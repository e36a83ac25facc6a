#!/usr/bin/env bash
# Checks that each of our controller modules (test/flux/<controller>/go.mod) builds the controller
# with the controller's own build list: every module its go.mod requires is selected at exactly
# that version in ours, and ours adds no requirement above it. Prints the replacements ours applies
# (the controller's own replace directives, which do not apply to a dependency, and the pins of
# zips the proxy refuses). Run it after changing a version:
#   bash test/flux/check-versions.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
status=0
for c in source-controller kustomize-controller; do
  (
    cd "$here/$c"
    export GOFLAGS="${GOFLAGS:-} -mod=readonly"
    upstream="$(go mod download -json "github.com/fluxcd/$c" | awk -F'"' '$2 == "GoMod" { print $4 }')"
    go list -m -f '{{.Path}} {{.Version}}{{with .Replace}} {{.Path}} {{.Version}}{{end}}' all > "$here/.$c.ours"
    go mod edit -json "$upstream" > "$here/.$c.upstream.json"
  )
  node - "$c" "$here/.$c.ours" "$here/.$c.upstream.json" << 'EOF' || status=1
const fs = require('node:fs');
const [c, oursFile, upstreamFile] = process.argv.slice(2);
const ours = new Map();
for (const line of fs.readFileSync(oursFile, 'utf8').split('\n').filter(Boolean)) {
  const [p, v, rp, rv] = line.split(' ');
  ours.set(p, { v, rp, rv });
}
const up = JSON.parse(fs.readFileSync(upstreamFile, 'utf8'));
let bad = 0;
for (const r of up.Require) {
  const o = ours.get(r.Path);
  if (!o) continue; // only the controller's tests use it: not in our build
  if (o.v !== r.Version) {
    console.log(`${c}: ${r.Path} is ${o.v} here, ${r.Version} in the controller's go.mod`);
    bad++;
  }
}
const upReplace = new Map((up.Replace ?? []).map((r) => [r.Old.Path, r.New]));
for (const [p, o] of ours) {
  if (!o.rp) continue;
  const u = upReplace.get(p);
  const same = u && u.Path === o.rp && (u.Version ?? '') === (o.rv ?? '');
  console.log(`${c}: ${p} ${o.v} => ${o.rp} ${o.rv ?? ''}${same ? " (the controller's own replace)" : ' (ours)'}`);
}
for (const [p, n] of upReplace) {
  if (ours.get(p)?.rp) continue;
  const local = n.Path.startsWith('./') || n.Path.startsWith('../');
  console.log(
    `${c}: the controller's replace of ${p} => ${n.Path} ${n.Version ?? ''}is not applied here` +
      (local ? ` (not in the module zip; ${p} ${ours.get(p)?.v} from the proxy instead)` : ''),
  );
  if (!local) bad++;
}
console.log(`${c}: ${up.Require.length} requirements of ${up.Module.Path}@${ours.get(up.Module.Path).v} checked, ${bad} differ`);
process.exit(bad ? 1 : 0);
EOF
  rm -f "$here/.$c.ours" "$here/.$c.upstream.json"
done
exit $status
