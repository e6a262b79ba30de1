// ThreadSanitizer build only: force-included (-include) into the two files
// that instantiate gRPC's server-side read of a v1::NodeMessage,
// coordinator/session_server.cc and the generated node.grpc.pb.cc.
//
// gRPC parses a read into the buffer given to StartRead on whichever of its
// threads completes the read, handed over from the thread that called
// StartRead by atomics inside libgrpc, which TSan cannot see. The parse
// itself runs in NodeMessage's instrumented code, so TSan reported it
// against the buffer's allocation or the previous callback's move out of it
// (docs/reliability.md). This specialization of gRPC's serialization traits
// for NodeMessage does what gRPC's own does, after telling TSan the
// hand-over that exists: the session reactor releases the buffer's address
// just before each StartRead (CKPT_HANDED_OVER), and this acquires it on the
// parsing thread. A write to the buffer by ckptbench's code after that
// release is still reported.
//
// An explicit specialization must be seen before any use of the type in
// every file that instantiates it; the node's client code (serialize only)
// instantiates gRPC's partial specialization, whose Serialize is the same
// code as this one's.
#ifndef CKPTBENCH_TESTS_TSAN_GRPC_READ_HANDOVER_H_
#define CKPTBENCH_TESTS_TSAN_GRPC_READ_HANDOVER_H_

#ifdef __cplusplus
#include <grpcpp/impl/codegen/proto_buffer_reader.h>
#include <grpcpp/impl/codegen/proto_buffer_writer.h>
#include <grpcpp/impl/codegen/proto_utils.h>
#include <sanitizer/tsan_interface.h>

#include "proto/ckptbench/v1/node.pb.h"

namespace grpc {

template <>
class SerializationTraits<ckptbench::v1::NodeMessage, void> {
 public:
  static Status Serialize(const grpc::protobuf::MessageLite& msg,
                          ByteBuffer* bb, bool* own_buffer) {
    return GenericSerialize<ProtoBufferWriter, ckptbench::v1::NodeMessage>(
        msg, bb, own_buffer);
  }

  static Status Deserialize(ByteBuffer* buffer,
                            grpc::protobuf::MessageLite* msg) {
    __tsan_acquire(msg);
    return GenericDeserialize<ProtoBufferReader, ckptbench::v1::NodeMessage>(
        buffer, msg);
  }
};

}  // namespace grpc

#endif  // __cplusplus
#endif  // CKPTBENCH_TESTS_TSAN_GRPC_READ_HANDOVER_H_
