#!/usr/bin/env bash
# Builds the images every container test uses, once per CI run:
#  - the Debian 12 base images the Dockerfiles start FROM, made with
#    debootstrap from the machine's Debian mirror (no registry is reachable);
#  - ckptbench from the project's Dockerfile, unchanged, tagged with the
#    compose file's name (ckptbench:local) and the manifests' (ckptbench:latest);
#    the host's ccache directory is bound at /ccache and named by the
#    Dockerfile's CCACHE_DIR argument, so the build stage reuses the objects
#    of the host's build that came before it;
#  - the MinIO stand-in (minio-standin/) under the compose file's MinIO name.
# usage: tests/containers/build_images.sh
source "$(dirname "$0")/lib.sh"
ctr_require

# The base image this script makes carries a label, so that it touches no
# image it did not make (another build on the machine may use one named
# debian:12, and removing it would take that build's containers down).
BASE_LABEL=org.ckptbench.base
ours() {
  [ "$(podman image inspect --format "{{index .Labels \"$BASE_LABEL\"}}" "$1" 2>/dev/null)" = debootstrap ]
}
# An image imported without the official image's PATH (an earlier version of
# this script) is made again: commands in pods would not be found. Only this
# script's own is removed, without -f (never a container's image).
if podman image exists "$BASE_IMAGE" &&
   ! podman image inspect --format '{{.Config.Env}}' "$BASE_IMAGE" | grep -q 'PATH='; then
  ours "$BASE_IMAGE" ||
    fail "$BASE_IMAGE has no PATH and was not made by this script: not removing it (remove it, or give this script another BASE_IMAGE)"
  podman rmi "$BASE_IMAGE" >/dev/null ||
    fail "cannot remove $BASE_IMAGE, this script's old base image (a container uses it?)"
fi
if ! podman image exists "$BASE_IMAGE"; then
  mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
    grep -E '^(URIs:|deb )' | grep -oE 'https?://[^ ]+' | grep -v security | head -n 1 || true)
  [ -n "$mirror" ] || fail "no Debian mirror in /etc/apt/sources.list*"
  root=$(mktemp -d /var/tmp/ckptbench-debootstrap.XXXXXX)
  ctr_on_exit "rm -rf '$root'"
  say "debootstrap bookworm from $mirror"
  debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.log" 2>&1 ||
    { tail -n 5 "$root.log" >&2; rm -f "$root.log"; fail "debootstrap failed"; }
  rm -f "$root.log"
  # The configuration Docker's official debian images carry.
  tar -C "$root" -c . | podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' --change "LABEL $BASE_LABEL=debootstrap" \
    - "$BASE_IMAGE" >/dev/null 2>&1
fi
# The names the Dockerfiles use, where free or already this script's: a
# debian:12 someone else has is used as it is.
for name in docker.io/library/debian:12 docker.io/library/debian:12-slim; do
  if ! podman image exists "$name" || ours "$name"; then
    podman tag "$BASE_IMAGE" "$name"
  fi
done

old_ids=()
for i in "$IMAGE" "$MINIO_IMAGE"; do
  id=$(podman image inspect --format '{{.Id}}' "$i" 2>/dev/null) && old_ids+=("$id")
done

ctr_build_args
log=$(mktemp /var/tmp/ckptbench-image-build.XXXXXX)
ctr_on_exit "rm -f '$log'"
say "podman build $SRC (Dockerfile unchanged${CTR_CCACHE:+, ccache $CTR_CCACHE})"
start=$SECONDS
if ! podman build "${CTR_BUILD_ARGS[@]}" \
    -t "$IMAGE" -t "$IMAGE_K8S" "$SRC" > "$log" 2>&1; then
  tail -n 40 "$log" >&2
  fail "podman build of the Dockerfile failed (the lines above)"
fi
say "ckptbench image built in $((SECONDS - start)) s: $(podman image inspect --format '{{.Size}}' "$IMAGE") bytes"

start=$SECONDS
if ! podman build --pull=never --network host -t "$MINIO_IMAGE" \
    -f "$CTR_HERE/minio-standin/Dockerfile" "$SRC/tests" > "$log" 2>&1; then
  tail -n 30 "$log" >&2
  fail "building the MinIO stand-in failed"
fi
say "MinIO stand-in ($MINIO_IMAGE) built in $((SECONDS - start)) s"
# This script's own earlier images that no tag names any more.
for id in "${old_ids[@]}"; do
  if [ -z "$(podman image inspect --format '{{join .RepoTags ","}}' "$id" 2>/dev/null)" ]; then
    podman rmi "$id" >/dev/null 2>&1 || true
  fi
done
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' |
  grep -E "ckptbench|minio" || true
