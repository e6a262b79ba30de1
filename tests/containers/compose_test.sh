#!/usr/bin/env bash
# deploy/docker-compose.yaml for real: Debian's docker-compose 1.29 through
# podman's Docker API, with the images build_images.sh made (ckptbench:local,
# and the MinIO stand-in under MinIO's name), as docs/deploy.md runs it:
#  1. `up --exit-code-from coordinator coordinator`: exit 0; result.json ok,
#     3 nodes in every round, loads verified, nodes named node-0..2;
#  2. the profile `dataloading`, as docs/deploy.md runs it (an override file
#     makes the dataset and checkpoint small; sizes only): exit 0; the
#     dataset made once by datagen on the 3 nodes, then a sync and an async
#     run, each an epoch that read every sample once with checkpoints saved
#     during it (tests/containers/check_dataloading.py);
#  3. the first run again with node-1's container killed mid-save (an
#     override file makes the checkpoint bigger; sizes and timeouts only): the
#     coordinator names node 1 and exits non-zero; result.json says failed.
# Everything (containers, networks, volumes, the API service) is removed at
# exit, failed or not.
source "$(dirname "$0")/lib.sh"
ctr_require
ctr_require_images
ctr_workdir
W=$CTR_WORK
P=ckptbench-compose-test
COMPOSE=(docker-compose -p "$P" -f "$SRC/deploy/docker-compose.yaml")
export DOCKER_HOST=unix://$W/podman.sock

podman system service --time=0 "$DOCKER_HOST" > "$W/podman-service.log" 2>&1 &
svc=$!
ctr_on_exit "kill $svc; wait $svc"
for _ in $(seq 100); do [ -S "$W/podman.sock" ] && break; sleep 0.1; done
[ -S "$W/podman.sock" ] || fail "podman system service did not start: $(tail -n 3 "$W/podman-service.log")"
ctr_on_exit "${COMPOSE[*]} down -v -t 0"
ctr_healthcheck_loop "label=com.docker.compose.project=$P"
# Nothing of an earlier, interrupted run of this test.
"${COMPOSE[@]}" down -v -t 0 > /dev/null 2>&1 || true

# Nodes start before the coordinator (compose starts it last), so its name
# does not resolve at first: they must still join well before gRPC's own
# reconnect backoff would have let them (~90 s, seen before the node dialed
# with bounded attempts). Usually they join within a second; under load one
# sometimes takes 30-55 s with every attempt failing (cause not found yet):
# then its log is shown, and only past 100 s does the test fail.
joined_promptly() {  # LOG
  local t
  t=$(sed 's/\x1b\[[0-9;]*m//g' "$1" | awk '
    function secs(s) { split(s, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
    / coordinator listening on / { start = secs($4) }
    / node [0-9]+ registered from / { last = secs($4) }
    END { if (start == "" || last == "") print "none"; else printf "%.1f", last - start }')
  [ "$t" != none ] || { tail -n 20 "$1"; fail "no registration lines in the coordinator's log"; }
  say "   all nodes registered $t s after the coordinator listened"
  if ! awk -v t="$t" 'BEGIN { exit !(t <= 15) }'; then
    for n in 0 1 2; do
      echo "---- node-$n"
      podman logs "$(podman ps -aq --filter "label=com.docker.compose.project=$P" \
        --filter "label=com.docker.compose.service=node-$n" | head -n 1)" 2>&1 | head -n 12
    done
    awk -v t="$t" 'BEGIN { exit !(t <= 100) }' ||
      fail "the nodes took $t s to register after the coordinator listened"
    say "   WARNING: slow registration ($t s), logs above"
  fi
}

# The logs of SERVICEs' containers in this project (what a failed `up`
# hides: it names only a container id).
service_logs() {  # SERVICE...
  local s c
  for s in "$@"; do
    for c in $(podman ps -aq --filter "label=com.docker.compose.project=$P" \
        --filter "label=com.docker.compose.service=$s"); do
      echo "---- $s ($c)"
      podman logs "$c" 2>&1 | tail -n 20
    done
  done
}

result() {  # -> $W/$1.json: the results volume's result.json
  "${COMPOSE[@]}" run --rm --no-deps --entrypoint cat coordinator /results/result.json \
    > "$W/$1.json" 2> "$W/$1.err" || { cat "$W/$1.err"; fail "cannot read result.json from the results volume"; }
}

say "1. docker-compose up --exit-code-from coordinator coordinator"
start=$SECONDS
set +e
# Bounded here, well inside CTest's limit: a killed test runs no cleanup.
timeout 300 "${COMPOSE[@]}" up --exit-code-from coordinator coordinator > "$W/up1.log" 2>&1
rc=$?
set -e
say "   exit $rc after $((SECONDS - start)) s"
[ $rc = 0 ] || { tail -n 40 "$W/up1.log"; service_logs minio createbucket; fail "compose run: exit $rc, expected 0"; }
joined_promptly "$W/up1.log"
grep -E 'save +[0-9]|load +[0-9]|MiB/s' "$W/up1.log" | tail -n 8 || true
result run1
r=$W/run1.json
[ "$(ctr_json "$r" 'j["status"]')" = ok ] || fail "result.json status $(ctr_json "$r" 'j["status"]')"
[ "$(ctr_json "$r" 'j["environment"]["storage"]')" = s3 ] || fail "storage is not s3"
[ "$(ctr_json "$r" '[r["phase"] for r in j["rounds"]]')" = "['save', 'save', 'save', 'load', 'load', 'load']" ] ||
  fail "rounds: $(ctr_json "$r" '[r["phase"] for r in j["rounds"]]')"
[ "$(ctr_json "$r" 'sorted({len(r["nodes"]) for r in j["rounds"]})')" = "[3]" ] || fail "a round had other than 3 nodes"
[ "$(ctr_json "$r" 'all(r["verified"] for r in j["rounds"] if r["phase"]=="load")')" = True ] || fail "a load was not verified"
hosts=$(ctr_json "$r" '" ".join(sorted({n["host"] for r in j["rounds"] for n in r["nodes"]}))')
[ "$hosts" = "node-0 node-1 node-2" ] || fail "nodes are named '$hosts', expected node-0 node-1 node-2"
say "   ok: $(ctr_json "$r" '", ".join("%s %.0f MiB/s" % (r["phase"], r["throughput_mib_s"]) for r in j["rounds"])')"
"${COMPOSE[@]}" down -v -t 0 > /dev/null 2>&1

say "2. the dataloading profile: datagen, then an epoch with checkpoints, sync and async"
cat > "$W/small.yaml" <<'EOY'
# Sizes only: a dataset and checkpoints of seconds.
services:
  dataloading:
    environment:
      CKPT_DATASET_SAMPLES: "600"
      CKPT_SAMPLE_BYTES: 16KiB
      CKPT_SAMPLE_SPREAD: 4KiB
      CKPT_SHARD_BYTES: 256KiB
      CKPT_BATCH_SIZE: "8"
      CKPT_COMPUTE_TIME: "0.01"
      CKPT_CHECKPOINT_EVERY: "4"
      NUM_LAYERS: "4"
      CKPT_OPTIMIZER: none
EOY
start=$SECONDS
set +e
timeout 300 "${COMPOSE[@]}" -f "$W/small.yaml" --profile dataloading up \
  --exit-code-from dataloading dataloading > "$W/up-dl.log" 2>&1
rc=$?
set -e
say "   exit $rc after $((SECONDS - start)) s"
[ $rc = 0 ] || { tail -n 40 "$W/up-dl.log"; service_logs minio createbucket; fail "dataloading profile: exit $rc, expected 0"; }
joined_promptly "$W/up-dl.log"
grep -E 'sweep dataloading-checkpoints: ' "$W/up-dl.log" | sed 's/^[^|]*| */   /' || true
mkdir "$W/dl"
"${COMPOSE[@]}" run --rm --no-deps --entrypoint tar coordinator -C /results -c dataloading \
  2> "$W/dl.err" | tar -x -C "$W/dl" || { cat "$W/dl.err"; fail "cannot read dataloading/ from the results volume"; }
/usr/bin/python3 "$CTR_HERE/check_dataloading.py" "$W/dl/dataloading" 3 s3 node-0 node-1 node-2 ||
  fail "dataloading profile: the results above"
"${COMPOSE[@]}" down -v -t 0 > /dev/null 2>&1

say "3. the first run again, node-1 killed mid-save"
cat > "$W/bigger.yaml" <<'EOY'
# Sizes and timeouts only: a save long enough to kill a node during it.
services:
  coordinator:
    environment:
      NUM_LAYERS: "150"
      NUM_SAVE_CALLS: "2"
      NUM_LOAD_CALLS: "1"
      CKPT_PROGRESS_INTERVAL: "0.5"
      CKPT_NODE_TIMEOUT: "5"
EOY
COMPOSE+=(-f "$W/bigger.yaml")
start=$SECONDS
timeout 300 "${COMPOSE[@]}" up --exit-code-from coordinator coordinator > "$W/up2.log" 2>&1 &
up=$!
ctr_on_exit "kill $up"
for _ in $(seq 600); do
  grep -q 'progress: save 1' "$W/up2.log" && break
  kill -0 $up 2>/dev/null || break
  sleep 0.2
done
grep -q 'progress: save 1' "$W/up2.log" || { tail -n 30 "$W/up2.log"; service_logs minio createbucket; fail "the save never showed progress"; }
joined_promptly "$W/up2.log"
node1=$(podman ps --filter "label=com.docker.compose.project=$P" \
  --filter "label=com.docker.compose.service=node-1" --format '{{.Names}}')
[ -n "$node1" ] || fail "no running node-1 container"
podman kill "$node1" > /dev/null
say "   killed $node1 at $((SECONDS - start)) s"
set +e
wait $up
rc=$?
set -e
say "   exit $rc after $((SECONDS - start)) s"
# 3: a node lost (README, "Exit status"), not a storage failure's 1.
[ $rc -eq 3 ] || { tail -n 30 "$W/up2.log"; fail "the coordinator exited $rc after losing node 1, expected 3"; }
grep -E 'ckptbench: .*node 1' "$W/up2.log" > "$W/named" || { tail -n 30 "$W/up2.log"; fail "the coordinator did not name node 1"; }
say "   $(head -n 1 "$W/named")"
result run2
r=$W/run2.json
[ "$(ctr_json "$r" 'j["status"]')" = failed ] || fail "result.json status $(ctr_json "$r" 'j["status"]'), expected failed"
ctr_json "$r" '" ".join(j["errors"])' | grep -q 'node 1' || fail "result.json errors do not name node 1"
[ "$(ctr_json "$r" '[(r["phase"], r["status"]) for r in j["rounds"]][-1]')" = "('save', 'failed')" ] ||
  fail "the last round is not a failed save: $(ctr_json "$r" '[(r["phase"], r["status"]) for r in j["rounds"]]')"
"${COMPOSE[@]}" down -v -t 0 > /dev/null 2>&1
left=$(podman ps -a --filter "label=com.docker.compose.project=$P" -q; podman volume ls -q --filter "label=com.docker.compose.project=$P")
[ -z "$left" ] || fail "left behind: $left"
say "compose test passed"
