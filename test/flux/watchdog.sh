#!/usr/bin/env bash
# The Flux controllers' watchdog (test/delivery/flux.ts starts one per startFlux(), detached):
#   watchdog.sh <owner pid> <owner start time> <run dir>
# Once the owner (the test runner) is gone (no such pid, a zombie, or a pid reused by a process that
# started at another time: field 22 of /proc/<pid>/stat), SIGKILLs each process group listed in
# <run dir>/pids whose leader still runs with TMPDIR=<run dir>/tmp in its environment (as
# flux.ts starts them; a reused pid has not), then removes <run dir>
# (unless <run dir>/keep exists). So the controllers never outlive a runner killed with SIGKILL by
# more than a second or two. A runner that stops Flux kills the watchdog.
set -u
owner="$1"
started="$2"
root="$3"

gone() {
  local stat
  stat="$(cat "/proc/$owner/stat" 2> /dev/null)" || return 0
  stat="${stat##*) }" # the fields after the command name, from field 3 (state) on
  # shellcheck disable=SC2086 # split into fields on purpose
  set -- $stat
  [[ "$1" == Z || "${20}" != "$started" ]]
}

while ! gone; do sleep 1; done
while read -r pid; do
  if tr '\0' '\n' < "/proc/$pid/environ" 2> /dev/null | grep -qxF -- "TMPDIR=$root/tmp"; then
    kill -KILL -- "-$pid" 2> /dev/null
  fi
done < "$root/pids"
sleep 1
[[ -e "$root/keep" ]] || rm -rf -- "$root"
