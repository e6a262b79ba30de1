#!/usr/bin/env bash
# Times the README's first command from a bare Debian 12 root filesystem, as a
# new user meets it: each part of the command (install, build, run) on its
# own clock, and a peer's first run beside it (fio: install the package, write
# the same size with an fsync at the end, read it back with O_DIRECT).
#
# Each revision runs in a fresh container from the debootstrap image the
# Dockerfiles start FROM (tests/containers/base_image.sh makes it): root, the
# host's network for Debian's mirror only, an empty ccache, and the run's
# directory (/var/tmp/ckptbench) bound to a directory on the host's disk. The
# command is that revision's own: the first line of its README, split at its
# `&&`s. Nothing else runs on the machine meanwhile, or the times say so.
#
# usage: bench/first_command.sh [--no-peer] [REV...]   (default: HEAD)
#   REV  a git revision of this repository; its committed tree is what runs
#        (git archive), not the working tree's edits.
source "$(dirname "$0")/../tests/containers/lib.sh"
ctr_require

peer=1
revs=()
for a in "$@"; do
  case $a in
    --no-peer) peer=0 ;;
    -*) fail "unknown option $a (expected --no-peer or git revisions)" ;;
    *) revs+=("$a") ;;
  esac
done
[ ${#revs[@]} -gt 0 ] || revs=(HEAD)
for r in "${revs[@]}"; do
  git -C "$SRC" rev-parse --verify --quiet "$r^{commit}" >/dev/null ||
    fail "$r is not a revision of $SRC"
done
bash "$CTR_HERE/base_image.sh"
ctr_workdir

# Runs BODY (a bash script) in a fresh container with SRC_DIR at /src and a
# run directory at /var/tmp/ckptbench; its output goes to LOG.
in_bare_debian() {  # NAME SRC_DIR LOG BODY
  local name=$1 src=$2 log=$3 body=$4
  mkdir -p "$CTR_WORK/$name-run"
  ctr_on_exit "podman rm -f -t 0 'ckptbench-first-$name-$$'"
  podman run --rm --name "ckptbench-first-$name-$$" --network host \
    --privileged -e DEBIAN_FRONTEND=noninteractive \
    -v "$src:/src" -v "$CTR_WORK/$name-run:/var/tmp/ckptbench" -w /src \
    "$BASE_IMAGE" bash -c "$body" >"$log" 2>&1
}

# Seconds as "m min s s".
mmss() { awk -v s="$1" 'BEGIN { t = int(s + 0.5); printf "%d min %02d s", int(t / 60), t % 60 }'; }

rows=()
for r in "${revs[@]}"; do
  short=$(git -C "$SRC" rev-parse --short "$r")
  dir="$CTR_WORK/src-$short"
  mkdir -p "$dir"
  git -C "$SRC" archive "$r" | tar -x -C "$dir"
  line=$(sed -n '2p' "$dir/README.md")
  case $line in
    bash\ scripts/install-deps.sh*) ;;
    *) fail "$short: the README's second line is not its first command: $line" ;;
  esac
  parts=()
  rest=$line
  while [[ $rest == *' && '* ]]; do
    parts+=("${rest%% && *}")
    rest=${rest#* && }
  done
  parts+=("$rest")
  say "$short: ${#parts[@]} parts: $line"
  log="$CTR_WORK/$short.log"
  # date, bc and python3 are not all in a minbase image: the clock is bash's
  # own EPOCHREALTIME, which needs nothing.
  body='t() { local s=$EPOCHREALTIME; bash -c "$1"; local rc=$?; echo "TIMED $s $EPOCHREALTIME $rc"; return $rc; }'
  for p in "${parts[@]}"; do
    body+=$'\n'"echo $(printf '%q' "PART $p"); t $(printf '%q' "$p") || exit 1"
  done
  start=$SECONDS
  if ! in_bare_debian "$short" "$dir" "$log" "$body"; then
    tail -n 30 "$log" >&2
    fail "$short: the first command failed in a bare Debian 12 (the lines above; log $log)"
  fi
  say "$short: done in $((SECONDS - start)) s"
  mapfile -t secs < <(awk '/^TIMED / { printf "%.1f\n", $3 - $2 }' "$log")
  total=$(printf '%s\n' "${secs[@]}" | awk '{ s += $1 } END { printf "%.1f", s }')
  rows+=("$short | $(mmss "${secs[0]}") | $(mmss "${secs[1]}") | $(mmss "${secs[2]}") | $(mmss "$total")")
  # The run's summary table, as the user sees it.
  awk '/^PART .*ckptbench run/ { on = 1; next } /^TIMED / { on = 0 } on' "$log" | tail -n 25
  grep -c '^\[[0-9]*/[0-9]*\]' "$log" | sed "s/^/$short: build steps: /" || true
done

if [ "$peer" = 1 ]; then
  # The peer's first run: one package, then a write of the checkpoint's
  # size made durable at its end, and a read that bypasses the page cache.
  say "peer: fio"
  log="$CTR_WORK/fio.log"
  body='t() { local s=$EPOCHREALTIME; bash -c "$1"; local rc=$?; echo "TIMED $s $EPOCHREALTIME $rc"; return $rc; }
t "apt-get update -qq && apt-get install -y -qq --no-install-recommends fio >/dev/null" || exit 1
t "fio --name=save --rw=write --bs=1M --size=3900M --end_fsync=1 --directory=/var/tmp/ckptbench --output-format=terse >/dev/null && fio --name=save --rw=read --bs=1M --size=3900M --direct=1 --directory=/var/tmp/ckptbench --output-format=terse >/dev/null" || exit 1'
  mkdir -p "$CTR_WORK/peer"
  in_bare_debian fio "$CTR_WORK/peer" "$log" "$body" ||
    { tail -n 20 "$log" >&2; fail "fio's first run failed (log $log)"; }
  mapfile -t secs < <(awk '/^TIMED / { printf "%.1f\n", $3 - $2 }' "$log")
  total=$(printf '%s\n' "${secs[@]}" | awk '{ s += $1 } END { printf "%.1f", s }')
  rows+=("fio (peer) | $(mmss "${secs[0]}") | none | $(mmss "${secs[1]}") | $(mmss "$total")")
fi

echo
echo "revision | install | build | run | total"
echo "--- | --- | --- | --- | ---"
printf '%s\n' "${rows[@]}"
