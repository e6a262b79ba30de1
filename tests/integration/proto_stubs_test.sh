#!/usr/bin/env bash
# The protocol compiles the way any client compiles a published API: Python
# stubs made with `protoc -I proto` and grpc_python_plugin (Debian's
# protobuf-compiler-grpc), then imported by Debian's Python with grpcio.
# dataset.proto imported "proto/ckptbench/v1/node.proto", a path from the
# repository's root, which that command cannot resolve.
# Usage: proto_stubs_test.sh PROTO_DIR
set -euo pipefail
proto=$1
out=$(mktemp -d /tmp/ckptbench-stubs-XXXXXX)
trap 'rm -rf "$out"' EXIT
cd "$proto"
protoc -I . --python_out="$out" --grpc_python_out="$out" \
  --plugin=protoc-gen-grpc_python="$(command -v grpc_python_plugin)" \
  ckptbench/v1/*.proto
cd "$out"
/usr/bin/python3 - <<'PY'
from ckptbench.v1 import dataset_pb2, node_pb2, node_pb2_grpc
job = dataset_pb2.DataloadJob(dataset_uri="s3://b/ds", ranks=2, world=4)
job.backend.CopyFrom(node_pb2.BackendOptions())
again = dataset_pb2.DataloadJob.FromString(job.SerializeToString())
assert again.dataset_uri == "s3://b/ds" and again.world == 4, again
assert hasattr(node_pb2_grpc, "CoordinatorStub"), dir(node_pb2_grpc)
print("stubs: ok,", len(node_pb2.DESCRIPTOR.message_types_by_name), "node messages")
PY
