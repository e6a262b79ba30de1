#!/usr/bin/env bash
# The JobSet's pods without a cluster: each kustomization that can run here
# is rendered with `kubectl kustomize`, expanded into the pods the JobSet and
# Job controllers would create (jobset_pods.py), and run with `podman kube
# play` on a network of the test's own, with the image build_images.sh made:
#   base            as shipped (its ConfigMap unchanged)
#   boot-disk-save  then boot-disk-load on the same per-node host directories
#   s3-compatible   as shipped, against the MinIO stand-in (a real S3 server)
#                   started with the keys of the overlay's own Secret
# Checked for each: every container's exit code, result.json on the results
# claim, and the gRPC health service answering SERVING on the ports the
# probes name (podman runs no gRPC probes; grpc_health.py asks as a kubelet
# would). What podman does differently from a kubelet is handled here and in
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
for p in $(podman pod ps -q --filter label=jobset.sigs.k8s.io/jobset-name=ckptbench 2>/dev/null); do
  podman pod rm -f -t 0 "$p" > /dev/null
done
podman rm -f -t 0 ckptbench-jobset-s3 > /dev/null 2>&1 || true
for v in $(podman volume ls -q | grep -E '^ckptbench-(results|(coordinator|nodes)-0-[0-9]+-data)$' || true); do
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

probe() {  # HOST IP PORTS
  local port
  [ "$3" = - ] && return
  for port in ${3//,/ }; do
    ctr_check_route "$2"
    /usr/bin/python3 "$CTR_HERE/grpc_health.py" "$2:$port" 30 > "$W/probe.out" ||
      fail "$1: gRPC health at $2:$port: $(cat "$W/probe.out")"
    say "   $1: health $(cut -d' ' -f2- "$W/probe.out") on :$port"
  done
}

# Renders, expands and plays KUSTOMIZATION; waits for every pod; checks exit
# codes and health. Extra arguments go to jobset_pods.py (KEY=VALUE
# ConfigMap overrides, --alias NAME=IP).
play() {  # NAME KUSTOMIZATION [ARGS...]
  local name=$1 kdir=$2 out=$W/$1
  shift 2
  mkdir -p "$out"
  kubectl kustomize "$SRC/$kdir" > "$out/rendered.yaml" 2> "$out/kustomize.err" ||
    { cat "$out/kustomize.err"; fail "kubectl kustomize $kdir failed"; }
  FIRST=$((FIRST + 10))  # addresses of this play's own (see jobset_pods.py)
  /usr/bin/python3 "$CTR_HERE/jobset_pods.py" "$out/rendered.yaml" "$out" "$PFX" "$FIRST" "$HOSTROOT" "$@"
  secrets "$out"
  local claim
  for claim in $(sed -n 's/^ *claimName: *//p' "$out"/pod-*.yaml | sort -u); do volume "$claim"; done
  local host ip rj containers probes
  local -a coordinator=() nodes=()
  while IFS=$'\t' read -r host ip rj containers probes; do
    if [ "$rj" = coordinator ]; then coordinator+=("$host $ip $probes"); else nodes+=("$host $ip $probes"); fi
  done < "$out/pods.tsv"
  local start=$SECONDS
  kube() {  # HOST IP
    echo "$1" >> "$W/pods"
    podman kube play --network "$NET" --ip "$2" --configmap "$out/configmap.yaml" \
      "$out/pod-$1.yaml" > "$out/play-$1.log" 2>&1 || { cat "$out/play-$1.log"; fail "kube play $1 failed"; }
  }
  # The coordinator first (it waits for the nodes to register), then all
  # nodes but the last (they register and wait), each probed while it
  # waits; the last node starts the run and is probed during it.
  local p last=$((${#nodes[@]} - 1)) i
  for p in "${coordinator[@]}"; do set -- $p; kube "$1" "$2"; probe "$1" "$2" "$3"; done
  for ((i = 0; i < last; i++)); do set -- ${nodes[$i]}; kube "$1" "$2"; probe "$1" "$2" "$3"; done
  set -- ${nodes[$last]}; kube "$1" "$2"; probe "$1" "$2" "$3"
  # One deadline for the whole play, well inside CTest's limit.
  local bad=0 code left end=$((SECONDS + 240))
  while IFS=$'\t' read -r host ip rj containers probes; do
    for c in ${containers//,/ }; do
      left=$((end - SECONDS)); [ $left -gt 1 ] || left=1
      code=$(timeout $left podman wait "$host-$c") || code="no exit within 240 s"
      echo "$host-$c $code" >> "$out/exits"
      podman logs "$host-$c" > "$out/log-$host-$c.log" 2>&1 || true
      [ "$code" = 0 ] || bad=1
    done
  done < "$out/pods.tsv"
  say "   $name: every pod done after $((SECONDS - start)) s: $(awk '{print $2}' "$out/exits" | sort | uniq -c | xargs)"
  if [ $bad = 1 ]; then
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
  # An emptyDir lives as long as its pod: the pods go, and their volumes.
  while IFS=$'\t' read -r host _; do podman pod rm -f -t 0 "$host" > /dev/null; done < "$out/pods.tsv"
  for claim in $(sed -n 's/^ *claimName: *//p' "$out"/pod-*.yaml | sort -u | grep -v "^$RESULTS\$"); do
    podman volume rm -f "$claim" > /dev/null
  done
}

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

say "base, as shipped"
play base deploy/k8s/base
check_result "$results_dir/ckptbench/result.json" save+load
hosts=$(ctr_json "$results_dir/ckptbench/result.json" '" ".join(sorted({n["host"] for r in j["rounds"] for n in r["nodes"]}))')
[ "$hosts" = "ckptbench-nodes-0-0 ckptbench-nodes-0-1 ckptbench-nodes-0-2 ckptbench-nodes-0-3" ] ||
  fail "base: nodes named '$hosts', expected their pod host names"

# Smaller than shipped (sizes only): two runs on 2 cores.
small=(NUM_LAYERS=40)
say "boot-disk-save, then boot-disk-load on the same host directories"
play boot-disk-save deploy/k8s/overlays/boot-disk-save "${small[@]}"
check_result "$results_dir/ckptbench/boot-disk-save/result.json" save-only
for i in 0 1 2 3; do
  ls "$HOSTROOT/ckptbench-nodes-0-$i/var/lib/ckptbench/ckptbench/checkpoints/"step-*/.metadata > /dev/null 2>&1 ||
    fail "boot-disk-save: node $i's host directory holds no committed step"
done
play boot-disk-load deploy/k8s/overlays/boot-disk-load "${small[@]}"
check_result "$results_dir/ckptbench/boot-disk-load/result.json" load-only
[ "$(ctr_json "$results_dir/ckptbench/boot-disk-load/result.json" 'any(r.get("staged") for r in j["rounds"])')" != True ] ||
  fail "boot-disk-load staged its own checkpoint instead of loading the saved one"
check_result "$results_dir/ckptbench/boot-disk-save/result.json" save-only   # still there

say "s3-compatible, as shipped, against the MinIO stand-in"
out=$W/s3-compatible; mkdir -p "$out"
kubectl kustomize "$SRC/deploy/k8s/overlays/s3-compatible" > "$out/pre.yaml" 2> "$out/pre.err" ||
  { cat "$out/pre.err"; fail "kubectl kustomize s3-compatible failed"; }
/usr/bin/python3 - "$out/pre.yaml" > "$out/s3.txt" <<'EOP' || fail "s3-compatible: cannot read the endpoint, bucket and keys"
import sys, urllib.parse, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
cm = next(d for d in docs if d["kind"] == "ConfigMap")["data"]
s = next(d for d in docs if d["kind"] == "Secret")
keys = s.get("stringData") or {}
print(urllib.parse.urlparse(cm["AWS_ENDPOINT_URL_S3"]).hostname,
      urllib.parse.urlparse(cm["CKPT_DIR_PATH"]).netloc,
      keys["AWS_ACCESS_KEY_ID"], keys["AWS_SECRET_ACCESS_KEY"])
EOP
read -r endpoint_host bucket key secret < "$out/s3.txt"
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
play s3-compatible deploy/k8s/overlays/s3-compatible --alias "$endpoint_host=$S3IP" "${small[@]}"
r=$results_dir/ckptbench/s3-compatible/result.json
check_result "$r" save+load
[ "$(ctr_json "$r" 'j["environment"]["storage"]')" = s3 ] || fail "s3-compatible: storage is not s3"
# The Secret's key reached the nodes (the run authenticated) and nothing
# printed it.
if grep -lF -- "$secret" "$W"/s3-compatible/log-*.log "$r"; then
  fail "s3-compatible: the secret key appears in the files above"
fi
say "jobset test passed"
