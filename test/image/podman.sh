#!/usr/bin/env bash
# podman as the image build and tests run it: this directory's containers.conf, a storage.conf
# written into the state directory (overlay, with absolute paths there), the machine's
# registries.conf and policy.json (read, never written), and every piece of state (images, layers,
# containers, libpod's database, run-time files, temporary files) under <repo>/.cache/podman, so
# nothing outside the repository changes. Arguments go to podman. Needs root.
#
#   bash test/image/podman.sh images
#
# Environment: PODMAN_STATE_DIR overrides <repo>/.cache/podman.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
state="${PODMAN_STATE_DIR:-$root/.cache/podman}"
mkdir -p "$state/storage" "$state/run" "$state/libpod-tmp" "$state/tmp"
export CONTAINERS_CONF="$here/containers.conf"
# storage.conf needs absolute paths, so it is written here rather than committed.
storage_conf="$state/storage.conf"
want="$(printf '[storage]\ndriver = "overlay"\ngraphroot = "%s"\nrunroot = "%s"\n' "$state/storage" "$state/run")"
if [[ "$(cat "$storage_conf" 2> /dev/null)" != "$want" ]]; then
  printf '%s\n' "$want" > "$storage_conf.tmp.$$"
  mv "$storage_conf.tmp.$$" "$storage_conf"
fi
export CONTAINERS_STORAGE_CONF="$storage_conf"
# buildah's temporary files and RUN --mount=type=cache directories follow TMPDIR.
export TMPDIR="$state/tmp"
exec podman --tmpdir "$state/libpod-tmp" "$@"
