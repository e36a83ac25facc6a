#!/usr/bin/env bash
# Builds the repository's Dockerfile, as a user builds it upstream, with the podman of
# test/image/podman.sh: first the base images its FROM lines name (test/image/base.sh, made offline
# and cached), then the image, tagged as the leader bundle's Deployment names it,
# ghcr.io/clusterset/clusterset:<package version>. podman's layer cache makes a build with
# unchanged inputs a no-op. `npm ci` in the build stages needs the npm registry: the build runs
# with the host's network. Progress goes to stderr; the last line on stdout is `<tag> <image ID>`.
#
#   bash test/image/build.sh
#
# Environment: IMAGE_TAG overrides the tag.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
podman=(bash "$here/podman.sh")

bash "$here/base.sh" > /dev/null
version="$(node -p "require('$root/package.json').version")"
tag="${IMAGE_TAG:-ghcr.io/clusterset/clusterset:$version}"

mkdir -p "$root/.cache/image"
# A machine whose HTTPS goes through an intercepting proxy trusts its CA through NODE_EXTRA_CA_CERTS;
# npm in the build stages gets that file as its `cafile`, mounted into RUN steps only (podman
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
# --pull=never: the base images are the local ones; nothing comes from a registry.
"${podman[@]}" build --pull=never --network=host --layers "${volumes[@]}" \
  --tag "$tag" --file "$root/Dockerfile" "$root" >&2
id="$("${podman[@]}" image inspect --format '{{.Id}}' "$tag")"
echo "test/image/build.sh: $tag built in $((SECONDS - start))s" >&2
echo "$tag $id"
