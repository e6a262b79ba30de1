#!/usr/bin/python3
"""What a kubelet's gRPC probe does: grpc.health.v1.Health/Check for service
"" at HOST:PORT. Polls until SERVING or the deadline; prints the answer.
Exit 0 when SERVING, 1 otherwise.
usage: grpc_health.py HOST:PORT [DEADLINE_SECONDS]"""
import sys
import time

import grpc

# HealthCheckRequest{service: ""} is the empty message; HealthCheckResponse
# is field 1 (status), a varint: SERVING = 1, NOT_SERVING = 2.
STATUS = {0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"}


def check(channel):
    call = channel.unary_unary("/grpc.health.v1.Health/Check",
                               request_serializer=lambda b: b,
                               response_deserializer=lambda b: b)
    reply = call(b"", timeout=2)
    if len(reply) >= 2 and reply[0] == 0x08:
        return STATUS.get(reply[1], str(reply[1]))
    return "UNKNOWN" if not reply else "malformed %r" % reply


def main():
    target = sys.argv[1]
    deadline = time.time() + (float(sys.argv[2]) if len(sys.argv) > 2 else 10)
    last = "no answer"
    # A new channel per attempt, as a kubelet's probe makes a new
    # connection each period: one stuck connection attempt cannot use up
    # the whole deadline.
    while time.time() < deadline:
        with grpc.insecure_channel(target) as channel:
            try:
                last = check(channel)
                if last == "SERVING":
                    break
            except grpc.RpcError as e:
                last = "%s: %s" % (e.code().name, e.details())
        time.sleep(0.2)
    print("%s %s" % (target, last))
    return 0 if last == "SERVING" else 1


if __name__ == "__main__":
    sys.exit(main())
