#!/usr/bin/env bash
# Installs the Debian 12 packages ckptbench needs to build, test and
# benchmark. Idempotent: installs only what is missing. Run as root.
set -euo pipefail

# --build: only what building the ckptbench binary needs (the Dockerfile's
# build stage; the tests are built and run by scripts/test.sh).
BUILD_ONLY=0
if [ "${1:-}" = "--build" ]; then BUILD_ONLY=1; fi

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libcurl4-openssl-dev libssl-dev libyaml-cpp-dev nlohmann-json3-dev
  libabsl-dev libxxhash-dev libisal-dev
)
if [ "$BUILD_ONLY" = 0 ]; then PACKAGES+=(
  zlib1g-dev  # the pattern test gzips a shard
  libgtest-dev libgmock-dev libbenchmark-dev
  openssl  # unit tests make their keys and certificates with it
  fio procps time clang-format curl strace
  # S3 tests: OpenStack Swift with s3api, and the AWS CLI as a peer client
  swift swift-proxy swift-object swift-container swift-account python3-swift
  memcached awscli python3-awscrt
  # The S3 HTTPS test: nginx terminates TLS in front of Swift
  nginx-light
  # The FUSE test mounts a Swift bucket with s3fs
  s3fs fuse3
  # The sweep test opens the HTML report in a real browser (headless)
  chromium fonts-liberation
  # The deploy test validates deploy/docker-compose.yaml with compose 1.29
  docker-compose
  # The container tests (tests/containers): podman with runc (crun fails on
  # these hosts), its networks (netavark, aardvark-dns, iptables), the pods'
  # pause binary (catatonit), base images from debootstrap, and the gRPC
  # health client and YAML reader of the JobSet test
  podman runc netavark aardvark-dns iptables catatonit debootstrap
  python3-grpcio python3-yaml
  # The sanitizer build and the fuzz targets: clang with libFuzzer
  clang libclang-rt-14-dev
  # bench/fair.py's loader suite: a real PyTorch DataLoader (boto3 on S3)
  # beside ckptbench's; its smoke run is a test
  python3-torch python3-boto3
); fi
# The deploy test renders the kustomizations with `kubectl kustomize`; a
# kubectl already on the machine is used as it is (Debian's is 1.20).
if [ "$BUILD_ONLY" = 0 ] && ! command -v kubectl >/dev/null; then
  PACKAGES+=(kubernetes-client)
fi
# The GCS test server is checked by Google's Node client (tests/gcs_node);
# a Node.js already on the machine is used as it is.
if [ "$BUILD_ONLY" = 0 ] && { ! command -v node >/dev/null || ! command -v npm >/dev/null; }; then
  PACKAGES+=(nodejs npm)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages (${missing[*]}); run as root" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Packages must not start their services (nginx would listen on :80): a
# policy layer that denies it, for this install only, unless one is there.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
