#!/usr/bin/env bash
# Starts a single-host OpenStack Swift with s3api (Debian's swift 2.30) on
# loopback for S3 tests: tempauth user test:tester / secret "testing",
# region us-east-1, path-style. Everything lives under DIR.
#   tests/servers/swift_s3.sh start DIR PORT   -> prints "ready" when serving
#   tests/servers/swift_s3.sh stop DIR         -> stops what start started
# PROXY_BIND_IP (default 127.0.0.1) is the S3 endpoint's address, e.g.
# 0.0.0.0 inside a network namespace that other namespaces reach.
# S3_ACCESS_KEY / S3_SECRET_KEY add a user with that key pair, in the form
# AWS and MinIO issue (no colon): s3_key_alias.py maps key K to "K:K". The
# key may use letters, digits, '.' and '-'.
# Needs: swift swift-proxy swift-object swift-container swift-account
# python3-swift memcached (scripts/install-deps.sh --s3).
set -euo pipefail
cmd=${1:?start|stop}; dir=${2:?DIR}
run=$dir/run

stop() {
  for f in "$run"/*.pid; do
    [ -e "$f" ] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || true
    rm -f "$f"
  done
}
if [ "$cmd" = stop ]; then stop; exit 0; fi

port=${3:?PORT}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
etc=$dir/etc; dev=$dir/srv; log=$dir/log
alias_filter="" extra_user=""
if [ -n "${S3_ACCESS_KEY:-}" ]; then
  [[ $S3_ACCESS_KEY =~ ^[A-Za-z0-9.-]+$ ]] || {
    echo "swift_s3.sh: S3_ACCESS_KEY: expected letters, digits, '.' or '-'" >&2; exit 2; }
  [ -n "${S3_SECRET_KEY:-}" ] || { echo "swift_s3.sh: S3_SECRET_KEY is empty" >&2; exit 2; }
  alias_filter="keyalias "
  extra_user="user_${S3_ACCESS_KEY}_${S3_ACCESS_KEY} = ${S3_SECRET_KEY} .admin"
  export PYTHONPATH=$here${PYTHONPATH:+:$PYTHONPATH}
fi
mkdir -p "$etc" "$dev/d1" "$log" "$run" "$dir/cache"
obj=$((port + 1)); con=$((port + 2)); acc=$((port + 3)); mc=$((port + 4))
py=/usr/bin/python3

cat > "$etc/swift.conf" <<EOC
[swift-hash]
swift_hash_path_suffix = ckptbench-test
swift_hash_path_prefix = ckptbench-test
[storage-policy:0]
name = gold
default = yes
EOC

server_conf() {  # name port
  cat > "$etc/$1-server.conf" <<EOC
[DEFAULT]
swift_dir = $etc
devices = $dev
mount_check = false
disable_fallocate = true
bind_ip = 127.0.0.1
bind_port = $2
workers = 1
user = root
log_level = WARNING
log_address = $run/no-syslog
recon_cache_path = $dir/cache
[pipeline:main]
pipeline = $1-server
[app:$1-server]
use = egg:swift#$1
[$1-replicator]
[$1-auditor]
EOC
}
server_conf object "$obj"
server_conf container "$con"
server_conf account "$acc"

cat > "$etc/proxy-server.conf" <<EOC
[DEFAULT]
swift_dir = $etc
bind_ip = ${PROXY_BIND_IP:-127.0.0.1}
bind_port = $port
workers = 2
user = root
log_level = WARNING
log_address = $run/no-syslog
[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats bulk ${alias_filter}s3api tempauth copy slo dlo proxy-logging proxy-server
[app:proxy-server]
use = egg:swift#proxy
allow_account_management = true
account_autocreate = true
# A CI machine runs many tests at once on 2 cores, and the one container
# server can take more than Swift's default 0.5 s to accept. A lookup that
# times out makes an object PUT answer 404 NoSuchBucket, and ten such
# errors in a minute shut the only node out for a minute (the proxy's
# error suppression). Wait longer, and never shut the node out.
conn_timeout = 5
node_timeout = 60
error_suppression_limit = 1000000
[filter:s3api]
use = egg:swift#s3api
location = us-east-1
s3_acl = false
# Virtual-hosted requests: Host <bucket>.localhost[:port].
storage_domain = localhost
[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin
$extra_user
[filter:keyalias]
paste.filter_factory = s3_key_alias:filter_factory
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$mc
[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:bulk]
use = egg:swift#bulk
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
EOC

# One-device, one-replica rings, built in one Python process.
$py - "$etc" "$obj" "$con" "$acc" <<'EOP'
import sys
from swift.common.ring import RingBuilder
etc = sys.argv[1]
for name, port in zip(("object", "container", "account"), map(int, sys.argv[2:5])):
    b = RingBuilder(8, 1, 1)
    b.add_dev({"id": 0, "region": 1, "zone": 1, "ip": "127.0.0.1", "port": port,
               "device": "d1", "weight": 1})
    b.rebalance()
    b.get_ring().save(f"{etc}/{name}.ring.gz")
EOP

memcached -u root -l 127.0.0.1 -p "$mc" -U 0 -m 32 -d -P "$run/memcached.pid"
for s in object container account proxy; do
  nohup $py /usr/bin/swift-$s-server "$etc/$s-server.conf" --verbose > "$log/$s.log" 2>&1 &
  echo $! > "$run/$s.pid"
done
# Ready when every server answers on its own port (a server that could not
# bind its port keeps retrying for 30 s: fail sooner so the caller can pick
# other ports) and the proxy authenticates.
answers() { curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$1/"; }
for _ in $(seq 1 200); do
  for s in object container account proxy; do
    if ! kill -0 "$(cat "$run/$s.pid")" 2>/dev/null; then
      echo "swift-$s-server exited: $(tail -n 3 "$log/$s.log")" >&2
      stop
      exit 1
    fi
  done
  if answers "$obj" && answers "$con" && answers "$acc" &&
     curl -sf -o /dev/null "http://127.0.0.1:$port/healthcheck" &&
     curl -sf -o /dev/null -H "X-Auth-User: test:tester" -H "X-Auth-Key: testing" \
       "http://127.0.0.1:$port/auth/v1.0"; then
    echo ready
    exit 0
  fi
  sleep 0.1
done
echo "swift did not come up; logs in $log" >&2
stop
exit 1
