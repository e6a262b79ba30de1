#!/usr/bin/env bash
# Builds the images every container test uses, once per CI run:
#  - the Debian 12 base images the Dockerfiles start FROM, made with
#    debootstrap from the machine's Debian mirror (no registry is reachable);
#  - ckptbench from the project's Dockerfile, unchanged, tagged with the
#    compose file's name (ckptbench:local) and ckptbench:latest, which the JobSet
#    test's images: entry sets in place of the manifests' placeholder;
#    the host's ccache directory is bound at /ccache and named by the
#    Dockerfile's CCACHE_DIR argument, so the build stage reuses the objects
#    of the host's build that came before it;
#  - the MinIO stand-in (minio-standin/) under the compose file's MinIO name.
# usage: tests/containers/build_images.sh
source "$(dirname "$0")/lib.sh"
ctr_require

bash "$CTR_HERE/base_image.sh"

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
