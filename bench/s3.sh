#!/usr/bin/env bash
# ckptbench's S3 backend vs the AWS CLI (Debian's /usr/bin/aws, s3 cp
# --recursive with its defaults: 8 MiB parts, 10 requests in flight) against
# the same OpenStack Swift + s3api on loopback, interleaved. Same object
# count and sizes (one per rank); the CLI uploads from and downloads to
# tmpfs, ckptbench generates and verifies the bytes itself. ckptbench's
# figure is its round time (common start to commit); the CLI's is wall
# time of the command, shown also without its start-up cost (a no-op
# `aws s3 ls` timed in the same rep). Swift on this machine's cores is the
# ceiling for both: the ratio says whether ckptbench's client keeps up with
# a peer users trust, not what S3 itself would do.
#   bench/s3.sh   (env: REPS=3 NUM_LAYERS=100 NUM_DEVICES=2)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
LAYERS=${NUM_LAYERS:-100}
RANKS=${NUM_DEVICES:-2}
BIN=${CKPTBENCH_BIN:-build/ckptbench}
AWS=/usr/bin/aws
[ -x "$AWS" ] || { echo "AWS CLI missing: scripts/install-deps.sh" >&2; exit 1; }

WORK=$(mktemp -d /var/tmp/ckptbench-s3bench.XXXXXX)
SHM=$(mktemp -d /dev/shm/ckptbench-s3bench.XXXXXX)
cleanup() {
  bash tests/servers/swift_s3.sh stop "$WORK/swift" || true
  rm -rf "$WORK" "$SHM"
}
trap cleanup EXIT

# Five consecutive free ports below the ephemeral range.
port=""
for _ in $(seq 50); do
  p=$((20000 + RANDOM % 12000))
  if ! ss -ltn | awk '{print $4}' | grep -qE ":($p|$((p + 1))|$((p + 2))|$((p + 3))|$((p + 4)))\$"; then
    port=$p; break
  fi
done
[ -n "$port" ] || { echo "no free ports" >&2; exit 1; }
bash tests/servers/swift_s3.sh start "$WORK/swift" "$port" >/dev/null

export AWS_ACCESS_KEY_ID=test:tester AWS_SECRET_ACCESS_KEY=testing
export AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
export HOME=$WORK/home AWS_ENDPOINT_URL_S3=http://127.0.0.1:$port
unset AWS_CA_BUNDLE AWS_PROFILE
mkdir -p "$HOME"
aws() { "$AWS" --endpoint-url "$AWS_ENDPOINT_URL_S3" "$@"; }
for _ in $(seq 10); do aws s3 mb s3://bench >/dev/null 2>&1 && break; sleep 1; done
for _ in $(seq 10); do aws s3api put-object --bucket bench --key ready >/dev/null 2>&1 && break; sleep 1; done

now() { date +%s.%N; }
mib_s() { python3 -c "print($1 / 1048576 / ($3 - $2))"; }

ratios=()
for i in $(seq "$REPS"); do
  # ckptbench: one save and one verified load.
  rm -rf "$WORK/res"
  CKPT_DIR_PATH=s3://bench/ckpt$i NUM_LAYERS="$LAYERS" NUM_DEVICES="$RANKS" \
    "$BIN" run -q NUM_SAVE_CALLS=1 NUM_LOAD_CALLS=1 --results-dir "$WORK/res" >/dev/null 2>&1
  read -r cs cl bytes < <(python3 -c "
import json; j = json.load(open('$WORK/res/result.json'))
r = {x['phase']: x for x in j['rounds']}
print(r['save']['throughput_mib_s'], r['load']['throughput_mib_s'], r['save']['bytes'])")

  # The AWS CLI: the same objects, byte for byte (fetched once, untimed).
  if [ ! -d "$SHM/up" ]; then
    aws s3 cp --recursive --exclude '*' --include '*.distcp' \
      "s3://bench/ckpt$i/checkpoints/step-1/" "$SHM/up/" >/dev/null
  fi
  t0=$(now); aws s3 ls s3://bench/none/ >/dev/null 2>&1 || true; t1=$(now)
  startup=$(python3 -c "print($t1 - $t0)")
  t0=$(now); aws s3 cp --recursive "$SHM/up/" "s3://bench/peer$i/" >/dev/null; t1=$(now)
  rm -rf "$SHM/down"
  t2=$(now); aws s3 cp --recursive "s3://bench/peer$i/" "$SHM/down/" >/dev/null; t3=$(now)
  cmp -s <(cat "$SHM"/up/*) <(cat "$SHM"/down/*) || { echo "AWS CLI download differs" >&2; exit 1; }
  aw=$(mib_s "$bytes" "$t0" "$t1"); ar=$(mib_s "$bytes" "$t2" "$t3")
  aw0=$(python3 -c "print($bytes / 1048576 / max(1e-9, $t1 - $t0 - $startup))")
  ar0=$(python3 -c "print($bytes / 1048576 / max(1e-9, $t3 - $t2 - $startup))")
  rm -rf "$SHM/down"
  aws s3 rm --recursive "s3://bench/peer$i/" >/dev/null
  aws s3 rm --recursive "s3://bench/ckpt$i/" >/dev/null
  ratios+=("$(python3 -c "print($cs/$aw, $cl/$ar, $cs/$aw0, $cl/$ar0)")")
  printf "rep %d  %d MiB  save: ckptbench %6.1f  aws %6.1f (%6.1f w/o %.2f s start-up) MiB/s | load: ckptbench %6.1f  aws %6.1f (%6.1f) MiB/s\n" \
    "$i" "$((bytes / 1048576))" "$cs" "$aw" "$aw0" "$startup" "$cl" "$ar" "$ar0"
done
python3 - "${ratios[@]}" <<'PY'
import statistics, sys
rows = [[float(x) for x in r.split()] for r in sys.argv[1:]]
med = [statistics.median(c) for c in zip(*rows)]
print(f"median ratio ckptbench/aws: save {med[0]:.2f}, load {med[1]:.2f}"
      f" (against the CLI without start-up: save {med[2]:.2f}, load {med[3]:.2f})")
PY
