#!/bin/sh
# ENTRYPOINT of the node:20-bookworm-slim base image made by base.sh, with the upstream image's
# convention: when the first argument is an option (`-e ...`), or is not a command found on PATH
# (a script path), or is a file that is not executable, the arguments are given to node; anything
# else (`npm ci`, `bash`) runs as it is.
set -e
if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ] || ! command -v "$1" > /dev/null 2>&1 || { [ -f "$1" ] && ! [ -x "$1" ]; }; then
  set -- node "$@"
fi
exec "$@"
