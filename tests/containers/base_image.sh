#!/usr/bin/env bash
# Makes the bare Debian 12 base image the Dockerfiles start FROM (and
# bench/first_command.sh times the README's first command on), with
# debootstrap from the machine's Debian mirror: no registry is reachable.
# Leaves an image of that name alone when it is already there.
# usage: tests/containers/base_image.sh
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
# build_images.sh) is made again: commands in pods would not be found. Only this
# script's own is removed, without -f (never a container's image).
if podman image exists "$BASE_IMAGE" &&
   ! podman image inspect --format '{{.Config.Env}}' "$BASE_IMAGE" | grep -q 'PATH='; then
  ours "$BASE_IMAGE" ||
    fail "$BASE_IMAGE has no PATH and was not made by this script: not removing it (remove it, or name another with CKPT_BASE_IMAGE)"
  podman rmi "$BASE_IMAGE" >/dev/null ||
    fail "cannot remove $BASE_IMAGE, base_image.sh's old base image (a container uses it?)"
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

