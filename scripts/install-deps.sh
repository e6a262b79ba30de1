#!/usr/bin/env bash
# Installs the Debian 12 packages ckptbench needs to build, test and
# benchmark. Idempotent: installs only what is missing. Run as root.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libcurl4-openssl-dev libssl-dev libyaml-cpp-dev nlohmann-json3-dev
  libabsl-dev libxxhash-dev libisal-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  fio procps time clang-format openssl curl
  # S3 tests: OpenStack Swift with s3api, and the AWS CLI as a peer client
  swift swift-proxy swift-object swift-container swift-account python3-swift
  memcached awscli python3-awscrt
  # The S3 HTTPS test: nginx terminates TLS in front of Swift
  nginx-light
)

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
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
