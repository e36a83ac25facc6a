#!/usr/bin/env bash
# Builds the reconciler image the way the README tells a team to, from the package as npm installs
# it: `npm pack` (its `prepack` builds dist/), the tarball unpacked, then that package's own
# `clusterset image build` (lib/cli/image.ts, image/Containerfile) with the podman of
# test/image/podman.sh as its engine, on the base images base.sh makes offline under the names the
# Containerfile defaults to, passed with --base and --runtime as a team would name its own. Tagged
# as the leader bundle's Deployment names it, ghcr.io/clusterset/clusterset:<package version>.
# podman's layer cache makes a build with unchanged inputs a no-op. `npm ci` in the build stage
# needs the npm registry: the build runs with the host's network. Progress goes to stderr; the last
# line on stdout is `<tag> <image ID>`.
#
#   bash test/image/build.sh
#
# Environment: IMAGE_TAG overrides the tag; IMAGE_PUSH=1 pushes it too (`--push`: then the last line
# ends with the pushed `<repository>@sha256:<digest>`).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

bash "$here/base.sh" > /dev/null
version="$(node -p "require('$root/package.json').version")"
tag="${IMAGE_TAG:-ghcr.io/clusterset/clusterset:$version}"

mkdir -p "$root/.cache/image"
# A machine whose HTTPS goes through an intercepting proxy trusts its CA through NODE_EXTRA_CA_CERTS;
# npm in the build stage gets that file as its `cafile`, mounted into RUN steps only (podman
# build --volume), so nothing of it is in any image config nor in the runtime stage.
volumes=()
if [[ -n "${NODE_EXTRA_CA_CERTS:-}" && -f "$NODE_EXTRA_CA_CERTS" ]]; then
  printf 'cafile=/run/host-ca/ca.crt\n' > "$root/.cache/image/npmrc"
  volumes=(--volume "$NODE_EXTRA_CA_CERTS:/run/host-ca/ca.crt:ro"
    --volume "$root/.cache/image/npmrc:/usr/local/etc/npmrc:ro")
fi
exec 9> "$root/.cache/image/.build.lock"
flock 9
start=$SECONDS
# The package as installed: packed, then unpacked under .cache/ (inside the repository, so its
# dependencies resolve from the repository's node_modules, as they would from a project's).
pack="$root/.cache/image/pack"
rm -rf "$pack" && mkdir -p "$pack"
tarball="$(cd "$root" && npm pack --silent --pack-destination "$pack" | tail -n 1)"
tar -xzf "$pack/$tarball" -C "$pack"
# --pull=never: the base images are the local ones; nothing comes from a registry.
push=()
[[ "${IMAGE_PUSH:-}" == 1 ]] && push=(--push)
node "$pack/package/bin/clusterset" image build --tag "$tag" "${push[@]}" --engine "$here/podman.sh" \
  --base docker.io/library/node:20-bookworm-slim --runtime gcr.io/distroless/nodejs20-debian12:nonroot \
  -- --pull=never --network=host --layers "${volumes[@]}" | tail -n 1
echo "test/image/build.sh: $tag built in $((SECONDS - start))s" >&2
