#!/usr/bin/env bash
# build_images.sh removes only images it made (issue 27): given a base image
# without PATH that it did not make, with a container of someone else's on
# it, it stops with a clear error and both stay. (It once ran
# `podman rmi -f` on it, taking the container down with the image.)
source "$(dirname "$0")/lib.sh"
ctr_require
name=localhost/ckptbench-test-foreign-$$:12
tmp=$(mktemp -d /var/tmp/ckptbench-base-test.XXXXXX)
ctr_on_exit "rm -rf '$tmp'"
mkdir -p "$tmp/root/etc"
echo "not debian" > "$tmp/root/etc/issue"
# Imported with no PATH in its configuration, as another tool might.
tar -C "$tmp/root" -c . | podman import - "$name" >/dev/null
ctr_on_exit "podman rmi '$name' >/dev/null 2>&1 || true"
cid=$(podman create "$name" /bin/true)
ctr_on_exit "podman rm '$cid' >/dev/null 2>&1 || true"
set +e
out=$(CKPT_BASE_IMAGE=$name bash "$CTR_HERE/build_images.sh" 2>&1)
rc=$?
set -e
echo "$out" | tail -n 3
[ "$rc" -ne 0 ] || fail "build_images.sh went on with a foreign base image that has no PATH"
grep -q "was not made by this script: not removing it" <<<"$out" ||
  fail "the error does not say why it stopped"
podman image exists "$name" || fail "build_images.sh removed $name, which it did not make"
podman container exists "$cid" || fail "build_images.sh removed container $cid"
say "PASS: $name and its container are untouched"
