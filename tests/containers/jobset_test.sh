#!/usr/bin/env bash
# The JobSet's pods without a cluster: each kustomization that can run here
# is rendered with `kubectl kustomize`, expanded into the pods the JobSet and
# Job controllers would create (jobset_pods.py), and run with `podman kube
# play` on a network of the test's own, with the image build_images.sh made:
#   base            as shipped (its ConfigMap unchanged), and at the same
#                   time a renamed copy (namePrefix b-): two runs at once
#   boot-disk-save  then boot-disk-load on the per-node host directories,
#                   permuted between the two (pods land on other machines)
#   base            with input to fix found once the nodes joined: every
#                   pod exits 2, which fails the JobSet at once
#   sweep           a node pod killed mid-sweep: the others exit 3, which
#                   restarts the JobSet; restarted as a whole as its
#                   controller would, the sweep finished
# (podman runs no controller: jobset_verdict.py applies the manifests'
# podFailurePolicy and failurePolicy.rules to the exit codes as the Job and
# JobSet controllers do)
#   s3-compatible   without its Secret first: every pod exits 2 naming it,
#                   which fails the JobSet at once (not a wait for the
#                   register timeout); then set up as its header says,
#                   against the MinIO stand-in (a real S3 server): the
#                   user's Secret made by the docs' `kubectl create secret`,
#                   the endpoint and bucket set over the placeholders
#   dataloading     on s3-compatible's storage (the same server): datagen,
#                   then an epoch with checkpoints, sync and async
#                   (check_dataloading.py)
# and then docs/deploy.md's steps to read the results back. Checked for
# each: every container's exit code, result.json in the JobSet's own
# directory (<name>-<uid>) on the results claim (deploy/k8s/results), and
# the gRPC health service answering SERVING on the ports the probes name
# (podman runs no gRPC probes; grpc_health.py asks as a kubelet would). What podman does differently from a kubelet is handled here and in
# jobset_pods.py, never in the manifests; the test changes only sizes and
# timeouts, through the ConfigMap. Everything is removed at exit.
source "$(dirname "$0")/lib.sh"
ctr_require
ctr_require_images
ctr_workdir
W=$CTR_WORK
NET=ckptbench-jobset-test
PFX=10.89.211
HOSTROOT=$W/hosts        # each pod's Kubernetes node: hostPath lives here
RESULTS=ckptbench-results  # the PVC's claim name = the podman volume
FIRST=0                    # plays use $PFX.10-, .20-, ...
# What an earlier run of this test left when it was killed (CTest's timeout
# sends SIGKILL: no trap runs): its pods, the JobSet's, and its volumes.
for js in ckptbench b-ckptbench; do
  for p in $(podman pod ps -q --filter label=jobset.sigs.k8s.io/jobset-name=$js 2>/dev/null); do
    podman pod rm -f -t 0 "$p" > /dev/null
  done
done
podman pod rm -f -t 0 ckptbench-results-reader > /dev/null 2>&1 || true
podman secret rm ckptbench-s3 > /dev/null 2>&1 || true  # secrets() makes it
podman rm -f -t 0 ckptbench-jobset-s3 > /dev/null 2>&1 || true
for v in $(podman volume ls -q | grep -E '^(b-)?ckptbench-(results|sweep|(coordinator|nodes)-0-[0-9]+-data)$' || true); do
  podman volume rm -f "$v" > /dev/null
done
ctr_network "$NET" "$PFX.0/24"
touch "$W/pods" "$W/volumes"
ctr_on_exit "for p in \$(cat '$W/pods'); do podman pod rm -f -t 0 \"\$p\"; done"
ctr_on_exit "for v in \$(cat '$W/volumes'); do podman volume rm -f \"\$v\"; done"

# A podman volume standing in for a claim or an emptyDir, owned by uid/gid
# 10001 as the pods' fsGroup would make it (podman ignores fsGroup).
volume() {
  podman volume exists "$1" && return
  podman volume create "$1" > /dev/null
  echo "$1" >> "$W/volumes"
  chown 10001:10001 "$(podman volume inspect --format '{{.Mountpoint}}' "$1")"
}
volume "$RESULTS"
results_dir=$(podman volume inspect --format '{{.Mountpoint}}' "$RESULTS")

# Secrets: podman 4.3's kube play stores a Secret it is given, then cannot
# read it back for envFrom (it wants a JSON map of base64 values): each
# rendered Secret is made a podman secret in that form.
secrets() {  # OUTDIR
  local f name
  for f in "$1"/secret-*.yaml; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .yaml); name=${name#secret-}
    /usr/bin/python3 - "$f" > "$1/$name.secret.json" <<'EOP'
import base64, json, sys, yaml
s = yaml.safe_load(open(sys.argv[1]))
d = dict(s.get("data") or {})
for k, v in (s.get("stringData") or {}).items():
    d[k] = base64.b64encode(v.encode()).decode()
print(json.dumps(d))
EOP
    podman secret rm "$name" > /dev/null 2>&1 || true
    podman secret create "$name" "$1/$name.secret.json" > /dev/null
    ctr_on_exit "podman secret rm '$name'"
  done
}

show_logs() {  # OUTDIR: the end of every container's log, on failure
  local f
  for f in "$1"/log-*.log; do
    echo "---- ${f##*/log-} (exit $(grep -F "$(basename "${f#*/log-}" .log) " "$1/exits" | cut -d' ' -f2-))"
    grep -v 'failed to connect to syslog' "$f" | tail -n 15
  done
}

probe() {  # HOST IP PORTS (none while PROBE=0: a run that ends at once)
  local port
  [ "$3" = - ] || [ "${PROBE:-1}" = 0 ] && return
  for port in ${3//,/ }; do
    ctr_check_route "$2"
    /usr/bin/python3 "$CTR_HERE/grpc_health.py" "$2:$port" 30 > "$W/probe.out" ||
      fail "$1: gRPC health at $2:$port: $(cat "$W/probe.out")"
    say "   $1: health $(cut -d' ' -f2- "$W/probe.out") on :$port"
  done
}

# Renders, expands and plays KUSTOMIZATION, without waiting for the run:
# play_wait does. Extra arguments go to jobset_pods.py (KEY=VALUE ConfigMap
# overrides, --alias NAME=IP).
play_start() {  # NAME KUSTOMIZATION [ARGS...]
  local name=$1 kdir=$2 out=$W/$1
  shift 2
  local mine=$W/mine-$name  # beside what is played, never inside it
  mkdir -p "$out" "$mine"
  # The image set as the docs say: one images: entry in a kustomization of
  # the user's own on top of what is played (the manifests name a placeholder).
  cat > "$mine/kustomization.yaml" <<EOK
resources:
- $(realpath --relative-to="$mine" "$kdir")
images:
- name: ckptbench
  newName: ${IMAGE_K8S%:*}
  newTag: ${IMAGE_K8S##*:}
EOK
  kubectl kustomize "$mine" > "$out/rendered.yaml" 2> "$out/kustomize.err" ||
    { cat "$out/kustomize.err"; fail "kubectl kustomize $kdir failed"; }
  grep -q "image: $IMAGE_K8S\$" "$out/rendered.yaml" &&
    ! grep -q "set-your-image" "$out/rendered.yaml" ||
    fail "$kdir: the images: entry did not set every container's image"
  FIRST=$((FIRST + 10))  # addresses of this play's own (see jobset_pods.py)
  /usr/bin/python3 "$CTR_HERE/jobset_pods.py" "$out/rendered.yaml" "$out" "$PFX" "$FIRST" "$HOSTROOT" "$@"
  secrets "$out"
  local claim
  for claim in $(sed -n 's/^ *claimName: *//p' "$out"/pod-*.yaml | sort -u); do volume "$claim"; done
  # podman makes a volume for each ConfigMap a pod mounts: this test's.
  /usr/bin/python3 -c 'import sys,yaml
for f in sys.argv[1:]:
    for v in yaml.safe_load(open(f))["spec"].get("volumes", []):
        if "configMap" in v: print(v["configMap"]["name"])' "$out"/pod-*.yaml | sort -u >> "$W/volumes"
  local host ip rj containers probes
  local -a coordinator=() nodes=()
  while IFS=$'\t' read -r host ip rj containers probes; do
    if [ "$rj" = coordinator ]; then coordinator+=("$host $ip $probes"); else nodes+=("$host $ip $probes"); fi
  done < "$out/pods.tsv"
  date +%s > "$out/start"
  kube() {  # HOST IP
    echo "$1" >> "$W/pods"
    local maps=() cm
    for cm in "$out"/configmap-*.yaml; do maps+=(--configmap "$cm"); done
    podman kube play --network "$NET" --ip "$2" "${maps[@]}" \
      "$out/pod-$1.yaml" > "$out/play-$1.log" 2>&1 || { cat "$out/play-$1.log"; fail "kube play $1 failed"; }
  }
  # The coordinator first (it waits for the nodes to register), then all
  # nodes but the last (they register and wait), each probed while it
  # waits; the last node starts the run and is probed during it.
  local p last=$((${#nodes[@]} - 1)) i
  for p in "${coordinator[@]}"; do set -- $p; kube "$1" "$2"; probe "$1" "$2" "$3"; done
  for ((i = 0; i < last; i++)); do set -- ${nodes[$i]}; kube "$1" "$2"; probe "$1" "$2" "$3"; done
  set -- ${nodes[$last]}; kube "$1" "$2"; probe "$1" "$2" "$3"
}

# Waits up to SECONDS from the play's start for every container of play
# NAME: its exit code to OUTDIR/exits ("HOST-CONTAINER CODE"), its log to
# OUTDIR/log-HOST-CONTAINER.log.
wait_exits() {  # NAME SECONDS
  local name=$1 out=$W/$1
  local code left end=$(($(cat "$out/start") + $2)) host ip rj containers probes
  : > "$out/exits"
  while IFS=$'\t' read -r host ip rj containers probes; do
    for c in ${containers//,/ }; do
      left=$((end - $(date +%s))); [ $left -gt 1 ] || left=1
      code=$(timeout $left podman wait "$host-$c") || code="no-exit-within-$2-s"
      echo "$host-$c $code" >> "$out/exits"
      podman logs "$host-$c" > "$out/log-$host-$c.log" 2>&1 || true
    done
  done < "$out/pods.tsv"
  say "   $name: every pod done after $(($(date +%s) - $(cat "$out/start"))) s: $(awk '{print $2}' "$out/exits" | sort | uniq -c | xargs)"
}

# What the Job and JobSet controllers would make of play NAME's exit codes
# (jobset_verdict.py; extra arguments go to it), checked against WANT (the
# action).
verdict() {  # NAME WANT [ARGS...]
  local name=$1 want=$2 out=$W/$1 v
  shift 2
  v=$(/usr/bin/python3 "$CTR_HERE/jobset_verdict.py" "$out/rendered.yaml" "$out/pods.tsv" "$out/exits" "$@") ||
    fail "$name: jobset_verdict.py failed: $v"
  say "   $name: the controllers would do: $v"
  [ "${v%% *}" = "$want" ] || { show_logs "$out"; fail "$name: expected $want, the controllers would do: $v"; }
}

# An emptyDir lives as long as its pod: play NAME's pods go, and their
# volumes (a new pod's emptyDir is new).
remove_pods() {  # NAME
  local out=$W/$1 host claim
  while IFS=$'\t' read -r host _; do podman pod rm -f -t 0 "$host" > /dev/null; done < "$out/pods.tsv"
  for claim in $(sed -n 's/^ *claimName: *//p' "$out"/pod-*.yaml | sort -u | grep -v "^$RESULTS\$"); do
    podman volume rm -f "$claim" > /dev/null
  done
}

# Waits for every container of play NAME; checks exit codes; removes its
# pods and their emptyDirs. RESULT (the play's result.json on the results
# claim: <jobset name>-<jobset uid>/result.json) is set.
play_wait() {  # NAME
  local name=$1 out=$W/$1
  wait_exits "$name" 240
  if grep -qv ' 0$' "$out/exits"; then
    show_logs "$out"
    # Each failed container's own reason (its last "ckptbench: ..." line).
    local why
    why=$(for f in "$out"/log-*.log; do
            c=$(basename "$f" .log); c=${c#log-}
            grep -q "^$c 0\$" "$out/exits" && continue
            echo "  $c: $(grep -hE '^ckptbench( node [0-9]+)?: ' "$f" | tail -n 1)"
          done)
    fail "$name: containers exited non-zero:
$why"
  fi
  remove_pods "$name"
  RESULT=$results_dir/$(/usr/bin/python3 -c 'import sys,yaml; print(next(d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"]=="JobSet")["metadata"]["name"])' "$out/rendered.yaml")-$(cat "$out/jobset-uid")/result.json
}

play() { play_start "$@"; play_wait "$1"; }

check_result() {  # FILE MODE: status ok, rounds of MODE, every node in each
  local r=$1 want_nodes
  [ -f "$r" ] || fail "no result.json at ${r#$results_dir/} on the results claim"
  want_nodes=$(ctr_json "$r" 'j["plan"]["num_nodes"]')
  [ "$(ctr_json "$r" 'j["status"]')" = ok ] || fail "$r: status $(ctr_json "$r" 'j["status"]'): $(ctr_json "$r" 'j["errors"]')"
  [ "$(ctr_json "$r" 'j["config"]["run.mode"]["value"]')" = "$2" ] ||
    fail "$r: mode is not $2"
  [ "$(ctr_json "$r" 'sorted({len(r["nodes"]) for r in j["rounds"]})')" = "[$want_nodes]" ] ||
    fail "$r: a round lacked nodes"
  [ "$(ctr_json "$r" 'all(r["verified"] for r in j["rounds"] if r["phase"]=="load")')" = True ] ||
    fail "$r: a load was not verified"
  # Loads from a disk were cold: evicted, nothing resident at their start.
  [ "$(ctr_json "$r" 'j["environment"]["storage"]=="s3" or all(r["page_cache"]["method"]=="o_direct" or (r["page_cache"]["method"] in ("fadvise_dontneed","drop_caches") and r["page_cache"]["resident_bytes_at_start"]==0) for r in j["rounds"] if r["phase"]=="load")')" = True ] ||
    fail "$r: a load was not cold: $(ctr_json "$r" '[r["page_cache"] for r in j["rounds"] if r["phase"]=="load"]')"
  say "   result: $(ctr_json "$r" '"%s, %d node(s) x %d rank(s), %.1f MiB: " % (j["plan"]["model"], j["plan"]["num_nodes"], j["plan"]["ranks_per_node"], j["plan"]["checkpoint_bytes"]/2**20) + ", ".join("%s %.0f MiB/s" % (r["phase"], r["throughput_mib_s"]) for r in j["rounds"])')"
}

say "base, as shipped, and at the same time a renamed copy (namePrefix b-)"
# The claim from its own kustomization (../results), as the docs apply it.
kubectl kustomize "$SRC/deploy/k8s/results" > "$W/results.yaml"
[ "$(/usr/bin/python3 -c 'import sys,yaml; print([d for d in yaml.safe_load_all(open(sys.argv[1])) if d][0]["metadata"]["name"])' "$W/results.yaml")" = "$RESULTS" ] ||
  fail "deploy/k8s/results does not make the claim $RESULTS"
mkdir -p "$W/renamed"
cat > "$W/renamed/kustomization.yaml" <<EOK
resources:
- $(realpath --relative-to="$W/renamed" "$SRC/deploy/k8s/base")
namePrefix: b-
EOK
play_start base "$SRC/deploy/k8s/base"
play_start renamed "$W/renamed"
play_wait base; base_result=$RESULT
play_wait renamed; renamed_result=$RESULT
check_result "$base_result" save+load
check_result "$renamed_result" save+load
hosts=$(ctr_json "$base_result" '" ".join(sorted({n["host"] for r in j["rounds"] for n in r["nodes"]}))')
[ "$hosts" = "ckptbench-nodes-0-0 ckptbench-nodes-0-1 ckptbench-nodes-0-2 ckptbench-nodes-0-3" ] ||
  fail "base: nodes named '$hosts', expected their pod host names"
hosts=$(ctr_json "$renamed_result" '" ".join(sorted({n["host"] for r in j["rounds"] for n in r["nodes"]}))')
[ "$hosts" = "b-ckptbench-nodes-0-0 b-ckptbench-nodes-0-1 b-ckptbench-nodes-0-2 b-ckptbench-nodes-0-3" ] ||
  fail "renamed: nodes named '$hosts': the runs mixed"
# The runs overlapped in time: each started before the other ended.
[ "$(/usr/bin/python3 - "$base_result" "$renamed_result" <<'EOP'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
span = lambda j: (j["started_at"], j["finished_at"])
(s1, e1), (s2, e2) = span(a), span(b)
print(s1 < e2 and s2 < e1)
EOP
)" = True ] || fail "the two runs did not run at the same time"

# Smaller than shipped (sizes only): the runs that follow, on 2 cores.
small=(NUM_LAYERS=40)
say "boot-disk-save, then boot-disk-load on the same host directories"
play boot-disk-save "$SRC/deploy/k8s/overlays/boot-disk-save" "${small[@]}"
save_result=$RESULT
check_result "$save_result" save-only
for i in 0 1 2 3; do
  ls "$HOSTROOT/ckptbench-nodes-0-$i/var/lib/ckptbench/ckptbench/checkpoints/"step-*/.metadata > /dev/null 2>&1 ||
    fail "boot-disk-save: node $i's host directory holds no committed step"
done
# Nothing keeps a pod index on the machine it saved on: the load's pods
# land elsewhere, here each index on the next index's machine (index 0 on
# the machine where index 3 saved). The coordinator matches them up.
mv "$HOSTROOT/ckptbench-nodes-0-3" "$HOSTROOT/moved"
for i in 2 1 0; do mv "$HOSTROOT/ckptbench-nodes-0-$i" "$HOSTROOT/ckptbench-nodes-0-$((i + 1))"; done
mv "$HOSTROOT/moved" "$HOSTROOT/ckptbench-nodes-0-0"
play boot-disk-load "$SRC/deploy/k8s/overlays/boot-disk-load" "${small[@]}"
check_result "$RESULT" load-only
want="node 0 (ckptbench-nodes-0-0) loads what index 3 saved; node 1 (ckptbench-nodes-0-1) loads what index 0 saved; node 2 (ckptbench-nodes-0-2) loads what index 1 saved; node 3 (ckptbench-nodes-0-3) loads what index 2 saved"
[[ "$(ctr_json "$RESULT" '"\n".join(j["notes"])')" == *"$want"* ]] ||
  fail "boot-disk-load: the notes do not say which disk each node loaded: $(ctr_json "$RESULT" 'j["notes"]')"
[ "$(ctr_json "$RESULT" 'any(r.get("staged") for r in j["rounds"])')" != True ] ||
  fail "boot-disk-load staged its own checkpoint instead of loading the saved one"
check_result "$save_result" save-only   # still there, in a directory of its own

say "input to fix found once the nodes joined: every pod exits 2, the JobSet fails at once"
# The storage path runs through a file of the image: the coordinator's
# preflight refuses it after the nodes registered, and tells them.
PROBE=0 play_start bad-input "$SRC/deploy/k8s/base" "${small[@]}" \
  CKPT_DIR_PATH=/etc/ckptbench/conf/dataloading-checkpoints.yaml/ckpt
wait_exits bad-input 120
[ "$(awk '{print $2}' "$W/bad-input/exits" | sort -u | xargs)" = 2 ] ||
  { show_logs "$W/bad-input"; fail "bad-input: expected every container to exit 2"; }
grep -q "storage.path (CKPT_DIR_PATH) is not usable" "$W/bad-input/log-ckptbench-coordinator-0-0-coordinator.log" ||
  { show_logs "$W/bad-input"; fail "bad-input: the coordinator did not name storage.path"; }
# With maxRestarts 3 too (the sweep's): input to fix is never restarted.
verdict bad-input FailJobSet --restarts 0
sed -i 's/^    maxRestarts: 0/    maxRestarts: 3/' "$W/bad-input/rendered.yaml"
verdict bad-input FailJobSet --restarts 0
remove_pods bad-input

say "sweep: a node pod killed mid-sweep, the JobSet restarted as a whole, the sweep finished"
# What the JobSet controller does when a node pod is lost (its Job fails
# with backoffLimit 0; the other pods exit 3, which is no failurePolicy
# rule's: RestartJobSet while maxRestarts 3 allows; jobset_verdict.py says
# so from the exit codes): every Job is deleted (their pods get SIGTERM,
# then SIGKILL after the grace period) and made again, pods new and
# labelled restart-attempt 1, the JobSet's uid unchanged. This test does
# those steps itself.
sweep_args=(NUM_SAVE_CALLS=3 NUM_LOAD_CALLS=1)
play_start sweep "$SRC/deploy/k8s/overlays/sweep" "${sweep_args[@]}"
uid=$(cat "$W/sweep/jobset-uid")
sweep_dir=$results_dir/ckptbench-$uid
coord=ckptbench-coordinator-0-0-coordinator
# (Not `podman logs | grep -q`: under pipefail, grep's early exit fails it.)
logged() { podman logs "$coord" > "$W/sweep/coordinator.log" 2>&1; grep -qE "$1" "$W/sweep/coordinator.log"; }
# Point 2's first round done: node 2 goes with rounds of it still to run.
second_point_saved() {
  logged "sweep run 2/3" &&
    awk '/sweep run 2\/3/ {m = 1} m && /save 1: step-/ {f = 1} END {exit !f}' "$W/sweep/coordinator.log"
}
for _ in $(seq 600); do second_point_saved && break; sleep 0.2; done
second_point_saved ||
  { tail -n 20 "$W/sweep/coordinator.log"; fail "sweep: the second point's first save never finished"; }
first_id=$(ctr_json "$sweep_dir/000-NUM_LAYERS=40/result.json" 'j["run_id"]')
podman kill -s KILL ckptbench-nodes-0-2-node > /dev/null
say "   killed node 2's container after point 2's first save (preempted)"
# The coordinator sees its node go (the point fails); then the restart.
lost="node 2 \(ckptbench-nodes-0-2\) disconnected"
for _ in $(seq 150); do logged "$lost" && break; sleep 0.2; done
logged "$lost" ||
  { tail -n 20 "$W/sweep/coordinator.log"; fail "sweep: the coordinator did not see node 2 go"; }
# The sweep stops at the lost node: the coordinator and the other nodes
# exit 3 (interrupted or a node lost), node 2 137 (SIGKILL).
wait_exits sweep 600
want="ckptbench-coordinator-0-0-coordinator 3
ckptbench-nodes-0-0-node 3
ckptbench-nodes-0-1-node 3
ckptbench-nodes-0-2-node 137
ckptbench-nodes-0-3-node 3"
[ "$(sort "$W/sweep/exits")" = "$want" ] ||
  { show_logs "$W/sweep"; fail "sweep: exit codes after node 2's loss: $(sort "$W/sweep/exits" | xargs)"; }
verdict sweep RestartJobSet --restarts 0
# The same exits from a preempted node pod (its DisruptionTarget
# condition): a restart too.
verdict sweep RestartJobSet --restarts 0 --disrupted ckptbench-nodes-0-2
remove_pods sweep
play_start sweep-restart "$SRC/deploy/k8s/overlays/sweep" --uid "$uid" --restart-attempt 1 "${sweep_args[@]}"
play_wait sweep-restart
/usr/bin/python3 - "$sweep_dir" "$first_id" <<'EOP' || fail "sweep: the results after the restart are not every point once"
import json, os, sys
d, first_id = sys.argv[1:3]
c = json.load(open(os.path.join(d, "collated_results.json")))
names = sorted(r["name"] for r in c["runs"])
assert names == ["000-NUM_LAYERS=40", "001-NUM_LAYERS=80", "002-NUM_LAYERS=120"], names
assert all(r["status"] == "ok" for r in c["runs"]), [r["status"] for r in c["runs"]]
# The point finished before the loss was not run again.
assert json.load(open(os.path.join(d, "000-NUM_LAYERS=40", "result.json")))["run_id"] == first_id
# The point in flight when the node was lost is a failed round in its
# result, kept beside the one its rerun wrote.
lost = json.load(open(os.path.join(d, "001-NUM_LAYERS=80", "result.failed.json")))
assert lost["status"] == "failed", lost["status"]
assert any("node 2 (ckptbench-nodes-0-2) disconnected" in e for e in lost["errors"]), lost["errors"]
assert any(r["status"] != "ok" for r in lost["rounds"]), [r["status"] for r in lost["rounds"]]
print("   points:", ", ".join(names), "- point 2's lost attempt:", lost["errors"][0][:90])
EOP
# The new coordinator resumed: it ran the two points left, not the first.
grep -qF "3 of 3 run(s) finished (2 this time, 1 before)" "$W/sweep-restart/log-$coord.log" ||
  { tail -n 20 "$W/sweep-restart/log-$coord.log"; fail "sweep: the restarted coordinator did not resume"; }

say "s3-compatible, set up as its header says, against the MinIO stand-in"
out=$W/s3-compatible; mkdir -p "$out"
# The overlay ships no Secret: the user's, made by the docs' command (its
# podman form is made by secrets() when the play starts).
key=ckptbench-test
secret=$(head -c 64 /dev/urandom | base64 | tr -dc A-Za-z0-9 | head -c 24)
kubectl create secret generic ckptbench-s3 --from-literal=AWS_ACCESS_KEY_ID="$key" \
  --from-literal=AWS_SECRET_ACCESS_KEY="$secret" --dry-run=client -o yaml \
  > "$out/secret-ckptbench-s3.yaml" || fail "kubectl create secret --dry-run failed"
# The endpoint and bucket, set over the placeholders (names under .invalid,
# which ckptbench refuses: Deploy.TheDataloadingOverlayRendersOnEvery...).
endpoint_host=s3.storage.test bucket=ckptbench
s3_set=("AWS_ENDPOINT_URL_S3=http://$endpoint_host:9000" "CKPT_DIR_PATH=s3://$bucket/checkpoints")
S3IP=$PFX.5
podman run -d --name ckptbench-jobset-s3 --network "$NET" --ip "$S3IP" \
  -e MINIO_ROOT_USER="$key" -e MINIO_ROOT_PASSWORD="$secret" "$MINIO_IMAGE" server /data > /dev/null
ctr_on_exit "podman rm -f -t 0 ckptbench-jobset-s3"
for _ in $(seq 150); do podman exec ckptbench-jobset-s3 mc ready local > /dev/null 2>&1 && break; sleep 0.2; done
podman exec ckptbench-jobset-s3 mc ready local > /dev/null || fail "the S3 stand-in did not come up"
for _ in $(seq 20); do
  podman exec ckptbench-jobset-s3 mc mb --ignore-existing "local/$bucket" > "$W/mb.out" 2>&1 && break
  sleep 0.5
done
podman exec ckptbench-jobset-s3 mc mb --ignore-existing "local/$bucket" > "$W/mb.out" 2>&1 || {
  cat "$W/mb.out"; podman exec ckptbench-jobset-s3 sh -c 'tail -n 20 /data/swift/log/*.log'
  fail "cannot create bucket $bucket on the S3 stand-in"; }
# First without the Secret (none made yet): the nodes start without keys
# (the overlay's secretRef is optional) and stop at once, naming it.
say "   s3-compatible without its Secret: every pod exits 2 naming it, the JobSet fails at once"
PROBE=0 play_start s3-no-secret "$SRC/deploy/k8s/overlays/s3-compatible" --alias "$endpoint_host=$S3IP" "${small[@]}" "${s3_set[@]}"
wait_exits s3-no-secret 120
[ "$(awk '{print $2}' "$W/s3-no-secret/exits" | sort -u | xargs)" = 2 ] ||
  { show_logs "$W/s3-no-secret"; fail "s3-no-secret: expected every container to exit 2"; }
for want in "the Kubernetes Secret 'ckptbench-s3'" "kubectl create secret generic ckptbench-s3 "; do
  grep -qF "$want" "$W/s3-no-secret/log-ckptbench-coordinator-0-0-coordinator.log" ||
    { show_logs "$W/s3-no-secret"; fail "s3-no-secret: the coordinator's log does not say: $want"; }
done
say "   s3-no-secret: $(grep -ohE "node [0-9] \([^)]*\): no S3 access keys on this node" "$W/s3-no-secret/log-ckptbench-coordinator-0-0-coordinator.log" | head -n 1) ..."
verdict s3-no-secret FailJobSet --restarts 0
remove_pods s3-no-secret
play s3-compatible "$SRC/deploy/k8s/overlays/s3-compatible" --alias "$endpoint_host=$S3IP" "${small[@]}" "${s3_set[@]}"
r=$RESULT
check_result "$r" save+load
[ "$(ctr_json "$r" 'j["environment"]["storage"]')" = s3 ] || fail "s3-compatible: storage is not s3"
# The Secret's key reached the nodes (the run authenticated) and nothing
# printed it.
if grep -lF -- "$secret" "$W"/s3-compatible/log-*.log "$r"; then
  fail "s3-compatible: the secret key appears in the files above"
fi
s3_result=$r

say "dataloading on s3-compatible's storage: datagen, then an epoch with checkpoints, sync and async"
# Sizes only: a dataset of 800 samples, a checkpoint of 60 MiB.
mkdir -p "$W/dataloading"; cp "$out/secret-ckptbench-s3.yaml" "$W/dataloading/"
play dataloading "$SRC/deploy/k8s/overlays/dataloading" --alias "$endpoint_host=$S3IP" "${s3_set[@]}" \
  CKPT_DATASET_SAMPLES=800 CKPT_SAMPLE_BYTES=16KiB CKPT_SAMPLE_SPREAD=4KiB \
  CKPT_SHARD_BYTES=256KiB CKPT_BATCH_SIZE=8 CKPT_COMPUTE_TIME=0.01 \
  CKPT_CHECKPOINT_EVERY=4 NUM_LAYERS=4 CKPT_OPTIMIZER=none
dl_dir=$(dirname "$RESULT")
/usr/bin/python3 "$CTR_HERE/check_dataloading.py" "$dl_dir" 4 s3 \
  ckptbench-nodes-0-{0,1,2,3} || fail "dataloading: the results above"
if grep -lF -- "$secret" "$W"/dataloading/log-*.log "$dl_dir"/*/result.json; then
  fail "dataloading: the secret key appears in the files above"
fi
say "docs/deploy.md's steps to read the results back, as written"
# The fenced block after the marker, run by bash with `kubectl` a function
# that does each step's podman equivalent (a pod from a manifest: kube play
# on this test's network; exec and cp: the pod's container).
block=$(awk '/jobset_test.sh runs the lines of this block/ {m=1} m && /^```sh/ {b=1; next}
             b && /^```/ {exit} b {print}' "$SRC/docs/deploy.md")
[ -n "$block" ] || fail "docs/deploy.md: the tested block on reading results is missing"
echo "$block" | sed 's/^/  $ /'
READER_IP=$PFX.9
cat > "$W/kubectl.sh" <<EOK
kubectl() {
  local pod
  case "\$1 \$2" in
    "apply -f") echo ckptbench-results-reader >> "$W/pods"
                podman kube play --network "$NET" --ip "$READER_IP" "$SRC/\$3" > /dev/null ;;
    "wait --for=condition=Ready")
                pod=\${3#pod/}
                for _ in \$(seq 50); do
                  [ "\$(podman inspect -f '{{.State.Running}}' "\$pod-reader" 2>/dev/null)" = true ] && return 0
                  sleep 0.2
                done; return 1 ;;
    "delete -f") podman kube down "$SRC/\$3" > /dev/null ;;
    *) case "\$1" in
         exec) pod=\$2; shift 3; podman exec "\$pod-reader" "\$@" ;;
         cp) pod=\${2%%:*}; podman cp "\$pod-reader:\${2#*:}" "\$3" ;;
         *) echo "kubectl \$*: no podman equivalent in this test" >&2; return 1 ;;
       esac ;;
  esac
}
EOK
mkdir "$W/reader"
(cd "$W/reader" && bash -euo pipefail -c "source '$W/kubectl.sh'
$block") > "$W/reader.out" 2>&1 || { cat "$W/reader.out"; fail "the docs' steps to read results failed"; }
for r in "$base_result" "$renamed_result" "$save_result" "$s3_result" \
    "$dl_dir/001-run.async=true/result.json"; do
  copy=$W/reader/ckptbench-results/${r#$results_dir/}
  cmp -s "$r" "$copy" || fail "the docs' steps did not copy ${r#$results_dir/} (looked for $copy)"
done
grep -qF "$(basename "$(dirname "$base_result")")" "$W/reader.out" ||
  { cat "$W/reader.out"; fail "the docs' listing does not show the base run's directory"; }
podman pod exists ckptbench-results-reader && fail "the docs' steps left the reader pod"
say "   copied: $(cd "$W/reader/ckptbench-results" && ls -d */ | xargs)"
say "jobset test passed"
