#include "tests/testing/lying_node.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include "common/protocol_version.h"
#include "proto/ckptbench/v1/node.grpc.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

LyingNode::LyingNode(int port, const std::string& token,
                     const std::string& host) {
  thread_ = std::thread([this, port, token, host] {
    auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                       grpc::InsecureChannelCredentials());
    auto stub = v1::Coordinator::NewStub(channel);
    grpc::ClientContext ctx;
    auto stream = stub->Session(&ctx);
    v1::NodeMessage reg;
    reg.mutable_register_()->set_protocol_version(
        static_cast<v1::ProtocolVersion>(kProtocolVersion));
    reg.mutable_register_()->set_host(host);
    reg.mutable_register_()->set_token(token);
    stream->Write(reg);
    v1::CoordinatorMessage cmd;
    while (!stop_ && stream->Read(&cmd)) {
      if (cmd.has_register_reply() || cmd.has_shutdown()) continue;
      v1::NodeMessage answer;
      answer.set_call_id(cmd.call_id());
      answer.mutable_commit();
      stream->Write(answer);
    }
    stream->WritesDone();
    ctx.TryCancel();
  });
}

LyingNode::~LyingNode() {
  stop_ = true;
  thread_.join();
}

}  // namespace ckpt
