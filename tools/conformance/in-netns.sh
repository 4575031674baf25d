#!/usr/bin/env bash
# in-netns.sh CMD [ARGS...] - runs CMD in a private network namespace with
# only the loopback interface up. The conformance suite's servers listen
# on every interface; in here, every interface is loopback, so nothing is
# exposed. Needs root (CI and the project's machines run as root): it
# fails loudly otherwise, never running the suite exposed.
set -u
if ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
  echo "in-netns.sh: needs unshare (util-linux) and ip (iproute2)" >&2
  exit 2
fi
if ! unshare --net true 2>/dev/null; then
  echo "in-netns.sh: cannot create a network namespace (run as root)" >&2
  exit 2
fi
exec unshare --net -- bash -c 'ip link set lo up && exec "$@"' in-netns "$@"
