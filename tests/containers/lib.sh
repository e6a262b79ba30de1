# Sourced by the container tests (tests/containers/*.sh): podman on these
# machines, the images they share, the checks on addresses, and cleanup that
# runs on any exit. Each test creates its own containers, pods, networks and
# volumes under names it owns, and removes them when it ends, failed or not.
set -euo pipefail
CTR_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$CTR_HERE/../.." && pwd)
export CONTAINERS_CONF=$CTR_HERE/containers.conf
# The images: ckptbench under the compose file's name and the one the JobSet
# test's images: entry sets (the manifests name a placeholder), and the MinIO
# stand-in under the compose file's MinIO name.
IMAGE=ckptbench:local
IMAGE_K8S=ckptbench:latest
MINIO_IMAGE=$(sed -n 's/^ *image: *\(quay\.io\/minio\/minio:[^ ]*\) *$/\1/p' \
  "$SRC/deploy/docker-compose.yaml" | head -n 1)
# CKPT_BASE_IMAGE: another name, for the test of build_images.sh itself.
BASE_IMAGE=${CKPT_BASE_IMAGE:-localhost/debian:12}

say() { echo "[$(date +%T)] $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# Root only (podman's networks, bind mounts owned by other users): else the
# test is skipped (CTest's SKIP_RETURN_CODE 77), saying why.
ctr_require() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: container tests need root (podman networks and bind mounts)"
    exit 77
  fi
  local missing=()
  for c in podman runc docker-compose debootstrap kubectl /usr/bin/python3; do
    command -v "$c" >/dev/null || missing+=("$c")
  done
  PATH=$PATH:/usr/sbin command -v iptables >/dev/null || missing+=(iptables)
  [ ${#missing[@]} -eq 0 ] ||
    fail "missing ${missing[*]}: run scripts/install-deps.sh (it installs podman and friends)"
}

# Runs on exit, last registered first. Commands are strings, run with eval.
CTR_CLEANUPS=()
ctr_on_exit() { CTR_CLEANUPS+=("$1"); }
ctr_cleanup() {
  local rc=$? i
  set +e
  for ((i = ${#CTR_CLEANUPS[@]} - 1; i >= 0; i--)); do
    eval "${CTR_CLEANUPS[$i]}" >/dev/null 2>&1
  done
  exit "$rc"
}
trap ctr_cleanup EXIT
trap 'exit 130' INT TERM

# A work directory for this test on the disk (not tmpfs), removed at exit.
ctr_workdir() {
  CTR_WORK=$(mktemp -d /var/tmp/ckptbench-ctr.XXXXXX)
  chmod 755 "$CTR_WORK"
  ctr_on_exit "rm -rf '$CTR_WORK'"
}

# A podman network of the test's own on SUBNET (a.b.c.0/24), removed at
# exit with everything on it. netavark makes the bridge only when the first
# container joins, so a silent container joins first; then every address the
# host will send to must route to that bridge, checked before any traffic.
ctr_network() {  # NAME SUBNET
  local name=$1 subnet=$2
  podman network rm -f "$name" >/dev/null 2>&1 || true
  podman network create --subnet "$subnet" "$name" >/dev/null
  ctr_on_exit "podman network rm -f '$name'"
  local anchor="${subnet%.*}.250"
  podman run -d --rm --name "$name-anchor" --network "$name" --ip "$anchor" \
    "$BASE_IMAGE" sleep 3600 >/dev/null
  ctr_on_exit "podman rm -f -t 0 '$name-anchor'"
  CTR_BRIDGE=$(podman network inspect "$name" --format '{{.NetworkInterface}}')
  [ -n "$CTR_BRIDGE" ] || fail "network $name has no bridge interface"
}
ctr_check_route() {  # ADDR: must leave through this test's bridge
  local via
  via=$(ip route get "$1" 2>&1) || fail "no route to $1: $via"
  [[ $via == *" dev $CTR_BRIDGE "* ]] ||
    fail "$1 does not route to the test's bridge $CTR_BRIDGE ($via): refusing to send"
}

# There is no systemd here, so podman never runs healthchecks by itself: a
# `service_healthy` dependency would wait forever. This loop runs them for
# the test's own containers still starting (FILTER: a podman ps --filter,
# e.g. label=com.docker.compose.project=NAME), until the test exits.
ctr_healthcheck_loop() {  # FILTER
  local filter=$1
  ( while sleep 1; do
      for c in $(podman ps -q --filter health=starting --filter "$filter" 2>/dev/null); do
        podman healthcheck run "$c" >/dev/null 2>&1 || true
      done
    done ) &
  local pid=$!
  ctr_on_exit "kill $pid; wait $pid"
}

# Whether the images build_images.sh made are there.
ctr_require_images() {
  local i
  for i in "$IMAGE" "$IMAGE_K8S" "$MINIO_IMAGE" "$BASE_IMAGE"; do
    podman image exists "$i" || fail "image $i is missing: run tests/containers/build_images.sh first"
  done
}

# The arguments build_images.sh builds the ckptbench image with
# (CTR_BUILD_ARGS), so that another build of the same context hits the same
# layers: no registry, and the host's ccache bound at /ccache and named by
# the Dockerfile's CCACHE_DIR argument (CTR_CCACHE; "" without ccache).
ctr_build_args() {
  CTR_CCACHE=$(ccache -k cache_dir 2>/dev/null || true)
  CTR_BUILD_ARGS=(--pull=never --network host)
  if [ -n "$CTR_CCACHE" ]; then
    mkdir -p "$CTR_CCACHE"
    CTR_BUILD_ARGS+=(-v "$CTR_CCACHE:/ccache" --build-arg CCACHE_DIR=/ccache)
  fi
}

# Reads a JSON file with python: ctr_json FILE EXPR (EXPR on `j`).
ctr_json() { /usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
