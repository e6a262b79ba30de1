#!/usr/bin/env bash
# The ckptbench image as docs/deploy.md documents it: help, keys --json, the
# non-root user, docs/deploy.md's single-node volume example pasted as it is
# (results in the mounted directory, cold loads by fadvise on the
# bind-mounted disk), a root-owned directory refused before any round, a
# second run refusing to replace the first's results, what cold loads
# become on the container's overlay and on a tmpfs, and a shipped sweep.
# Needs the images from build_images.sh.
source "$(dirname "$0")/lib.sh"
ctr_require
ctr_require_images
ctr_workdir
W=$CTR_WORK
NAME=ckptbench-image-test
ctr_on_exit "podman rm -f -t 0 \$(podman ps -aq --filter name='^$NAME') 2>/dev/null"
# Every container of this test: named, removed at exit, no network needed.
crun() { podman run --rm --name "$NAME-$1" --network none "${@:2}"; }

say "every shared library the binary links is in the image"
missing=$(podman run --rm --name "$NAME-ldd" --network none --entrypoint /usr/bin/ldd "$IMAGE" \
  /usr/local/bin/ckptbench 2>&1 | grep 'not found' || true)
[ -z "$missing" ] || fail "the image lacks runtime libraries (add their packages to the Dockerfile's runtime stage):
$missing"

say "the shipped binary is stripped"
podman create --name "$NAME-bin" "$IMAGE" > /dev/null
podman cp "$NAME-bin:/usr/local/bin/ckptbench" "$W/ckptbench"
podman rm "$NAME-bin" > /dev/null
readelf -S "$W/ckptbench" > "$W/sections"
if grep -qE '\.(symtab|debug_info)' "$W/sections"; then
  fail "the image's ckptbench has symbols or debug sections (strip it in the build stage)"
fi
say "  ckptbench: $(stat -c %s "$W/ckptbench") bytes; image: $(podman image inspect --format '{{.Size}}' "$IMAGE") bytes"

say "an edit outside the binary's sources rebuilds nothing"
# A copy of the checkout, built with build_images.sh's arguments: the same
# image, every layer from its cache; then with the docs, a manifest, a test
# and a benchmark edited: the same image again (.dockerignore keeps them out
# of the context). Any new image this makes is removed.
mkdir "$W/src"
tar -C "$SRC" --exclude=./.git --exclude='./build' --exclude='./build-*' \
  --exclude='node_modules' -c . | tar -C "$W/src" -x
ctr_build_args
want=$(podman image inspect --format '{{.Id}}' "$IMAGE")
same_image() {  # WHAT
  local id
  id=$(podman build -q "${CTR_BUILD_ARGS[@]}" "$W/src" 2> "$W/rebuild.err") ||
    { tail -n 20 "$W/rebuild.err"; fail "building the copy ($1) failed"; }
  if [ "$id" != "$want" ]; then
    [ "${id#"$want"}" != "$id" ] && return  # a longer form of the same id
    podman rmi "$id" > /dev/null 2>&1 || true
    fail "$1: a new image $id, not $want (a layer was rebuilt)"
  fi
}
same_image "an unchanged copy"
echo "edited" >> "$W/src/docs/deploy.md"
echo "# edited" >> "$W/src/deploy/k8s/base/jobset.yaml"
echo "// edited" >> "$W/src/tests/integration/deploy_test.cc"
echo "# edited" >> "$W/src/bench/CMakeLists.txt"
echo "edited" >> "$W/src/README.md"
same_image "docs, a manifest, a test, a benchmark and the README edited"

say "help and version"
out=$(crun help "$IMAGE" 2>&1) || fail "the image's default command (its CMD) failed: $out"
[[ $out == *"usage: ckptbench <command>"* ]] || fail "the image's default command (its CMD) printed no usage: $out"
out=$(crun help2 "$IMAGE" --help 2>&1) || fail "--help failed: $out"
[[ $out == *"--results-dir DIR"* ]] || fail "--help printed no options: $out"
out=$(crun version "$IMAGE" version 2>&1) && [[ $out == "ckptbench "* ]] || fail "version: $out"

say "keys --json"
crun keys "$IMAGE" keys --json > "$W/keys.json" 2> "$W/keys.err" ||
  fail "keys --json failed: $(cat "$W/keys.err")"
[ "$(ctr_json "$W/keys.json" 'j["schema"]')" = ckptbench.interface/v1 ] || fail "keys --json: wrong schema"
ctr_json "$W/keys.json" '[k["env"] for k in j["keys"]]' | grep -q CKPT_DIR_PATH ||
  fail "keys --json does not list CKPT_DIR_PATH"

say "the image runs as uid 10001, not root"
[ "$(podman image inspect --format '{{.Config.User}}' "$IMAGE")" = 10001:10001 ] || fail "image USER is not 10001:10001"
uid=$(podman run --rm --name "$NAME-uid" --network none --entrypoint id "$IMAGE_K8S" -u)
[ "$uid" = 10001 ] || fail "container runs as uid $uid"

say "docs/deploy.md's single-node example, pasted"
# The fenced block after the 'image_test.sh runs the lines' marker, with
# /mnt/nvme -> a directory of this test's and docker -> podman.
block=$(awk '/image_test.sh runs the lines of this block/ {m=1} m && /^```sh/ {b=1; next}
             b && /^```/ {exit} b {print}' "$SRC/docs/deploy.md")
[ -n "$block" ] || fail "docs/deploy.md: the tested single-node block is missing"
mkdir -p "$W/mnt/nvme"
script=${block//\/mnt\/nvme/$W/mnt/nvme}
script=${script//sudo /}  # this test runs as root
script=${script//docker run --rm/podman run --rm --name $NAME-docs --network none}
echo "$script" | sed 's/^/  $ /'
(cd "$W" && bash -euo pipefail -c "$script") > "$W/docs.out" 2>&1 || { cat "$W/docs.out"; fail "the docs example failed"; }
res=$W/mnt/nvme/ckptbench/results/result.json
[ -f "$res" ] || fail "docs example: no $res"
[ "$(ctr_json "$res" 'j["status"]')" = ok ] || fail "docs example: status $(ctr_json "$res" 'j["status"]')"
[ "$(ctr_json "$res" 'all(r["verified"] for r in j["rounds"] if r["phase"]=="load")')" = True ] ||
  fail "docs example: a load was not verified"
[ "$(ctr_json "$res" 'sorted({r["page_cache"]["method"] for r in j["rounds"] if r["phase"]=="load"})')" = "['fadvise_dontneed']" ] ||
  fail "docs example: loads on the bind-mounted disk did not evict with fadvise: $(ctr_json "$res" '[r["page_cache"] for r in j["rounds"] if r["phase"]=="load"]')"
[ "$(ctr_json "$res" 'max(r["page_cache"]["resident_bytes_at_start"] for r in j["rounds"] if r["phase"]=="load")')" = 0 ] ||
  fail "docs example: bytes stayed resident"
say "  ok: $(ctr_json "$res" '", ".join("%s %.0f MiB/s" % (r["phase"], r["throughput_mib_s"]) for r in j["rounds"])')"
say "  probe: $(ctr_json "$res" '[r["page_cache"]["probe"] for r in j["rounds"] if r["phase"]=="load"][0]')"

say "the same command again refuses to replace that result.json"
if (cd "$W" && bash -c "${script#*$'\n'}") > "$W/again.out" 2>&1; then
  fail "a second run replaced the first's result.json"
else
  rc=$?
  [ $rc = 2 ] || { cat "$W/again.out"; fail "second run: exit $rc, expected 2"; }
fi
grep -q "refusing to replace it" "$W/again.out" || { cat "$W/again.out"; fail "second run: no reason given"; }
[ "$(ctr_json "$res" 'j["status"]')" = ok ] || fail "the first result.json was changed"

# Results of the next runs go to a mounted directory owned by 10001.
mkdir -p "$W/results" && chown 10001:10001 "$W/results"

say "a root-owned host directory fails before any round, naming the path and the uids"
mkdir -p "$W/rootowned"
set +e
crun rootowned -v "$W/rootowned:/data" -v "$W/results:/results" -e CKPT_DIR_PATH=/data/ckpt \
  "$IMAGE" run --results-dir /results/rootowned > "$W/rootowned.out" 2>&1
rc=$?
set -e
[ $rc = 2 ] || { cat "$W/rootowned.out"; fail "a root-owned data directory: exit $rc, expected 2"; }
grep -q "/data/ckpt.*Permission denied.*runs as uid 10001; /data belongs to uid 0" "$W/rootowned.out" ||
  { cat "$W/rootowned.out"; fail "the error does not name the path and who owns it"; }
r=$W/results/rootowned/result.json
[ "$(ctr_json "$r" 'j["status"], len(j["rounds"])')" = "('failed', 0)" ] || fail "rootowned: result.json is not failed with no rounds"
say "  exit $rc: $(grep -m1 'ckptbench:' "$W/rootowned.out")"
set +e
crun rootowned2 -v "$W/rootowned:/data" "$IMAGE" run --results-dir /data/results > "$W/rootowned2.out" 2>&1
rc=$?
set -e
[ $rc = 2 ] && grep -q -- "--results-dir /data/results: cannot create it: Permission denied" "$W/rootowned2.out" ||
  { cat "$W/rootowned2.out"; fail "an unwritable --results-dir: exit $rc, or no reason naming it"; }

load_methods() { ctr_json "$1" '" ".join(sorted({r["page_cache"]["method"] for r in j["rounds"] if r["phase"]=="load"}))'; }

say "CKPT_DIR_PATH on the container's own overlay: O_DIRECT chosen up front"
crun overlay -v "$W/results:/results" -e CKPT_DIR_PATH=/tmp/ckpt -e NUM_LAYERS=2 \
  -e CKPT_CACHE_MODE=auto "$IMAGE" run -q --results-dir /results/overlay > "$W/overlay.out" 2>&1 ||
  { cat "$W/overlay.out"; fail "run on the overlay failed"; }
r=$W/results/overlay/result.json
[ "$(load_methods "$r")" = o_direct ] || fail "overlay: loads used $(load_methods "$r"), expected o_direct"
ctr_json "$r" '[r["page_cache"]["note"] for r in j["rounds"] if r["phase"]=="load"][0]' | grep -q "does not evict on overlay" ||
  fail "overlay: the note does not say why: $(ctr_json "$r" '[r["page_cache"] for r in j["rounds"] if r["phase"]=="load"][0]')"
say "  probe: $(ctr_json "$r" '[r["page_cache"]["probe"] for r in j["rounds"] if r["phase"]=="load"][0]')"

say "CKPT_DIR_PATH on a tmpfs: no cold reads there, and the result says so"
crun tmpfs -v "$W/results:/results" --tmpfs /scratch:size=512m,mode=1777 -e CKPT_DIR_PATH=/scratch/ckpt \
  -e NUM_LAYERS=2 "$IMAGE" run -q --results-dir /results/tmpfs > "$W/tmpfs.out" 2>&1 ||
  { cat "$W/tmpfs.out"; fail "run on tmpfs failed"; }
r=$W/results/tmpfs/result.json
[ "$(load_methods "$r")" = memory ] || fail "tmpfs: loads used $(load_methods "$r"), expected memory"
ctr_json "$r" '[r["page_cache"]["note"] for r in j["rounds"] if r["phase"]=="load"][0]' | grep -q "never cold" ||
  fail "tmpfs: the note does not say loads are never cold"
grep -q "never cold" "$W/tmpfs.out" || fail "tmpfs: no warning on the terminal"

say "a shipped sweep (conf/smoke.yaml from the image), results in the mounted directory"
crun sweep -v "$W/results:/results" "$IMAGE" sweep /etc/ckptbench/conf/smoke.yaml \
  --results-dir /results/smoke > "$W/sweep.out" 2>&1 || { tail -n 20 "$W/sweep.out"; fail "the smoke sweep failed"; }
s=$W/results/smoke
for f in sweep.json collated_results.json results.csv report.html; do
  [ -s "$s/$f" ] || fail "sweep: $f missing"
done
n=$( (compgen -G "$s/0*/result.json" || true) | wc -l)
[ "$n" = 8 ] || fail "sweep: $n run results, expected 8"
[ "$(ctr_json "$s/collated_results.json" 'all(r["status"]=="ok" for r in j["runs"])')" = True ] ||
  fail "sweep: a run was not ok"
[ "$(stat -c %u "$s/report.html")" = 10001 ] || fail "sweep: files not written by uid 10001"
say "image test passed"
