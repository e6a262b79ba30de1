#!/usr/bin/env bash
# deploy/docker-compose.yaml as several hosts, without Docker: each service
# runs in a network namespace of its own with its own address, joined by a
# bridge in another namespace, with the compose file's commands and
# environment and service names resolving as in compose (/etc/netns/NS/hosts).
# The object store (MinIO in the compose file) is Swift with s3api from
# Debian, under the same name and port (minio:9000), with Swift's test user
# in place of MinIO's keys. Nothing in the root namespace sends to a
# namespace address.
#  1. A save+load run with the compose file's settings completes across the
#     namespaces and its result names 3 nodes on their own addresses.
#  2. The same services again, with a larger checkpoint: node-1's link is
#     cut mid-save; the coordinator fails the round naming node 1, writes
#     its result (status failed), commits nothing, and nodes 0 and 2 exit.
# Exit 0 pass, 1 fail, 77 skipped (not root, or no ip/node/aws/swift).
set -euo pipefail
BIN=${CKPTBENCH_BIN:?set CKPTBENCH_BIN to the ckptbench binary}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
COMPOSE=$SRC/deploy/docker-compose.yaml

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "network namespaces need root"
for tool in ip /usr/bin/node /usr/bin/aws /usr/bin/swift-proxy-server; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done
[ -d "$SRC/tests/deploy/node_modules/js-yaml" ] ||
  skip "tests/deploy/node_modules (npm ci --prefix tests/deploy)"

tag=ck$$                               # names: unique per run, <= 15 chars
net=10.$((100 + $$ % 100)).$(( ($$ / 100) % 250 ))
tmp=$(mktemp -d /tmp/ckptbench-netns-XXXXXX)
pids=()
namespaces=()

cleanup() {
  set +e
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  [ -d "$tmp/swift" ] && bash "$SRC/tests/servers/swift_s3.sh" stop "$tmp/swift"
  for ns in "${namespaces[@]}"; do
    ip netns del "$ns" 2>/dev/null
    rm -rf "/etc/netns/$ns"
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# --- The compose file's services, anchors resolved --------------------------
mkdir -p "$tmp/svc"
NODE_PATH=$SRC/tests/deploy/node_modules /usr/bin/node -e '
const fs = require("fs"), yaml = require("js-yaml");
const c = yaml.load(fs.readFileSync(process.argv[1], "utf8"));
for (const [name, s] of Object.entries(c.services)) {
  const env = Array.isArray(s.environment)
    ? s.environment : Object.entries(s.environment || {}).map(([k, v]) => `${k}=${v}`);
  fs.writeFileSync(`${process.argv[2]}/${name}.env`, env.join("\n") + "\n");
  fs.writeFileSync(`${process.argv[2]}/${name}.cmd`, [].concat(s.command || []).join("\n") + "\n");
  fs.writeFileSync(`${process.argv[2]}/${name}.image`, (s.image || "") + "\n");
}' "$COMPOSE" "$tmp/svc"
services=(minio coordinator node-0 node-1 node-2)
for s in "${services[@]}"; do
  [ -f "$tmp/svc/$s.env" ] || fail "the compose file has no service $s"
done
grep -q '^ckptbench' "$tmp/svc/coordinator.image" || fail "coordinator is not ckptbench"

# --- Hosts: a bridge namespace and one namespace per service ----------------
br=$tag-br
ip netns add "$br"; namespaces+=("$br")
ip -n "$br" link add br0 type bridge
ip -n "$br" link set br0 up
declare -A addr ns_of link_of
i=2
for s in "${services[@]}"; do
  ns=$tag-$s; ns_of[$s]=$ns; addr[$s]=$net.$i
  ip netns add "$ns"; namespaces+=("$ns")
  # Both ends are created inside their namespaces: no root-namespace device.
  ip link add eth0 netns "$ns" type veth peer name "v$i" netns "$br"
  ip -n "$ns" addr add "${addr[$s]}/24" dev eth0
  ip -n "$ns" link set lo up
  ip -n "$ns" link set eth0 up
  ip -n "$br" link set "v$i" master br0 up
  link_of[$s]=v$i
  i=$((i + 1))
done
for s in "${services[@]}"; do
  mkdir -p "/etc/netns/${ns_of[$s]}"
  {
    echo "127.0.0.1 localhost"
    for t in "${services[@]}"; do echo "${addr[$t]} $t"; done
  } > "/etc/netns/${ns_of[$s]}/hosts"
done
# Every address must route over the namespace's own link, never elsewhere.
for s in "${services[@]}"; do
  for t in "${services[@]}"; do
    [ "$s" = "$t" ] && continue
    route=$(ip netns exec "${ns_of[$s]}" ip route get "${addr[$t]}")
    [[ "$route" == *" dev eth0 "* ]] ||
      fail "${addr[$t]} does not route over eth0 in ${ns_of[$s]}: $route"
  done
done

# --- The object store: Swift s3api as "minio", port 9000 ---------------------
mkdir -p "$tmp/home"
export HOME=$tmp/home
ip netns exec "${ns_of[minio]}" env PROXY_BIND_IP=0.0.0.0 \
  bash "$SRC/tests/servers/swift_s3.sh" start "$tmp/swift" 9000 >/dev/null ||
  fail "swift did not start"
s3() {  # the compose file's createbucket step, with the AWS CLI
  ip netns exec "${ns_of[minio]}" env AWS_ACCESS_KEY_ID=test:tester \
    AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION=us-east-1 \
    AWS_EC2_METADATA_DISABLED=true HOME="$tmp/home" \
    /usr/bin/aws --endpoint-url http://127.0.0.1:9000 s3 "$@"
}
s3 mb s3://bench >/dev/null || fail "cannot create the bucket"
# And its "+segments" container, through Swift's own API: two nodes starting
# multipart uploads in a fresh bucket race in s3api on the proxy's cached
# 404 for it (tests/testing/swift_server.h, MakeBucket, says how). A busy
# Swift may answer 5xx for a while: each request is tried up to 6 times.
ip netns exec "${ns_of[minio]}" bash -c '
  try=(--retry 5 --retry-delay 1 --retry-all-errors --max-time 10)
  h=$(curl -sf "${try[@]}" -D - -o /dev/null -H "X-Auth-User: test:tester" \
    -H "X-Auth-Key: testing" http://127.0.0.1:9000/auth/v1.0) || exit 1
  t=$(sed -n "s/^X-Auth-Token: *//Ip" <<< "$h" | tr -d "\r")
  u=$(sed -n "s/^X-Storage-Url: *//Ip" <<< "$h" | tr -d "\r")
  curl -sf "${try[@]}" -o /dev/null -X PUT -H "X-Auth-Token: $t" \
    "http://127.0.0.1:9000/${u#*://*/}/bench+segments"' ||
  fail "cannot create the bucket's +segments container"

# --- Running a service: its namespace, the compose env, its command --------
# $1 service, $2 log name, further args: extra env (the test's overrides).
# Sets `started` to its PID (a child of this shell).
start_service() {
  local s=$1 log=$2; shift 2
  local env=()
  while IFS= read -r line; do [ -n "$line" ] && env+=("$line"); done < "$tmp/svc/$s.env"
  # Swift's test user instead of MinIO's keys; HOME without ~/.aws.
  env+=(AWS_ACCESS_KEY_ID=test:tester AWS_SECRET_ACCESS_KEY=testing
        HOME="$tmp/home" "$@")
  local cmd=()
  while IFS= read -r a; do
    [ -n "$a" ] && cmd+=("${a//\/results/$tmp/results-$log}")
  done < "$tmp/svc/$s.cmd"
  ip netns exec "${ns_of[$s]}" env -i PATH=/usr/bin:/bin "${env[@]}" \
    "$BIN" "${cmd[@]}" > "$tmp/$log-$s.log" 2>&1 &
  started=$!
  pids+=("$started")
}

wait_for() {  # pid timeout: sets `rc` to its exit status (124: timed out)
  local pid=$1 limit=$2 t=0
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.5; t=$((t + 1))
    if [ $t -ge $((limit * 2)) ]; then rc=124; return; fi
  done
  rc=0
  wait "$pid" || rc=$?
}

json() {  # file, python expression on j
  /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

# --- 1. A save+load run across the namespaces --------------------------------
start_service node-0 run1; n0=$started
start_service node-1 run1; n1=$started
start_service node-2 run1; n2=$started
start_service coordinator run1; c=$started
wait_for "$c" 240
[ "$rc" = 0 ] || { tail -20 "$tmp/run1-coordinator.log"; fail "run 1: coordinator exit $rc"; }
for p in "$n0" "$n1" "$n2"; do
  wait_for "$p" 60
  [ "$rc" = 0 ] || fail "run 1: a node exited $rc"
done
res=$tmp/results-run1/result.json
[ "$(json "$res" 'j["status"]')" = ok ] || fail "run 1: status not ok"
[ "$(json "$res" 'j["plan"]["num_nodes"]')" = 3 ] || fail "run 1: not 3 nodes"
[ "$(json "$res" 'sum(r["phase"]=="save" for r in j["rounds"])')" = 3 ] || fail "run 1: saves"
[ "$(json "$res" 'all(r.get("verified") for r in j["rounds"] if r["phase"]=="load")')" = True ] ||
  fail "run 1: a load was not verified"
[ "$(json "$res" 'sum(r["phase"]=="load" for r in j["rounds"])')" = 3 ] || fail "run 1: loads"
[ "$(json "$res" 'min(len(r["nodes"]) for r in j["rounds"])')" = 3 ] || fail "run 1: nodes per round"
[ "$(json "$res" 'len(j["clock"]["nodes"])')" = 3 ] || fail "run 1: clocks"
[ "$(json "$res" 'j["environment"]["storage"]')" = s3 ] || fail "run 1: storage"
# (Listed into a variable first: `grep -q` would close the pipe on the CLI.)
listing=$(s3 ls --recursive s3://bench/ckptbench/checkpoints/)
grep -q '/.metadata$' <<< "$listing" || fail "run 1: no committed step in the bucket"
echo "run 1: save+load across 3 node namespaces ok ($(json "$res" \
  '", ".join("%s %.1f MiB/s" % (r["phase"], r["throughput_mib_s"]) for r in j["rounds"])'))"

# --- 2. node-1's link cut mid-save ------------------------------------------
# The test's overrides: a checkpoint large enough to cut into, progress
# lines to see the save running, and a 5 s node timeout (default 15 s).
over=(NUM_LAYERS=150 NUM_LOAD_CALLS=0 NUM_SAVE_CALLS=2 CKPT_PROGRESS_INTERVAL=0.5
      CKPT_NODE_TIMEOUT=5)
start_service node-0 run2; n0=$started
start_service node-1 run2; n1=$started
start_service node-2 run2; n2=$started
start_service coordinator run2 "${over[@]}"; c=$started
for _ in $(seq 1 240); do
  grep -q "progress: save 1 " "$tmp/run2-coordinator.log" && break
  sleep 0.5
done
grep -q "progress: save 1 " "$tmp/run2-coordinator.log" || fail "run 2: no save seen"
ip -n "$br" link set "${link_of[node-1]}" down   # the cut
cut_at=$(date +%s)
wait_for "$c" 60
took=$(( $(date +%s) - cut_at ))
# 3: a node lost (README, "Exit status"), not a storage failure's 1.
[ "$rc" = 3 ] || { tail -20 "$tmp/run2-coordinator.log"; fail "run 2: coordinator exit $rc, expected 3"; }
res=$tmp/results-run2/result.json
[ "$(json "$res" 'j["status"]')" = failed ] || fail "run 2: status not failed"
error=$(json "$res" 'j["errors"][0]')
[[ "$error" == *"node 1"* ]] || fail "run 2: the error does not name node 1: $(json "$res" 'j["errors"]')"
[ "$(json "$res" 'j["rounds"][0]["status"]')" = failed ] || fail "run 2: save 1 not failed"
codes=""
for p in "$n0" "$n2"; do
  wait_for "$p" 60
  [ "$rc" != 124 ] || fail "run 2: a connected node did not exit"
  [ "$rc" = 3 ] || fail "run 2: a connected node exited $rc, expected the coordinator's 3"
  codes="$codes $rc"
done
# Nothing committed by the failed save: the only .metadata is run 1's step.
listing=$(s3 ls --recursive s3://bench/ckptbench/checkpoints/)
[ "$(grep -c '/.metadata$' <<< "$listing")" = 1 ] ||
  fail "run 2: the failed save committed a step"
echo "run 2: node-1's link cut mid-save; coordinator exit 3 after ${took}s: $(json "$res" 'j["errors"][0]'); nodes 0 and 2 exited with$codes"
echo PASS
