// The control channel with a throwaway CA: mutual TLS works; a node with a
// certificate from another CA, without a certificate, or with a wrong token
// is refused; the token never appears in output or results.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "tests/testing/certs.h"
#include "tests/testing/cluster.h"
#include "tests/testing/health_probe.h"

namespace ckpt {
namespace {

TEST(Tls, MutualTlsAndTokenAdmitOnlyTheRightNode) {
  Cluster c;
  const std::string d = c.tmp().path();
  const std::string token = "s3cret-token-value";
  ASSERT_TRUE(MakeCa(d, "ca1"));
  ASSERT_TRUE(MakeCa(d, "ca2"));
  ASSERT_TRUE(MakeCert(d, "ca1", "server",
                       "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                       "extendedKeyUsage=serverAuth\n"));
  ASSERT_TRUE(MakeCert(d, "ca1", "node", "extendedKeyUsage=clientAuth\n"));
  ASSERT_TRUE(MakeCert(d, "ca2", "intruder", "extendedKeyUsage=clientAuth\n"));
  auto p = [&](const std::string& f) { return d + "/" + f; };

  auto coord = c.StartCoordinator({{"NUM_NODES", "1"},
                                   {"CKPT_TLS_CERT", p("server.pem")},
                                   {"CKPT_TLS_KEY", p("server.key")},
                                   {"CKPT_TLS_CA", p("ca1.pem")},
                                   {"CKPT_TOKEN", token}});
  ASSERT_TRUE(coord->WaitForOutput("client certificates required", 20))
      << coord->Err();
  Env good = {{"CKPT_TLS_CA", p("ca1.pem")},
              {"CKPT_TLS_CERT", p("node.pem")},
              {"CKPT_TLS_KEY", p("node.key")},
              {"CKPT_TLS_SERVER_NAME", "localhost"},
              {"CKPT_TOKEN", token}};

  Env other_ca = good;
  other_ca["CKPT_TLS_CERT"] = p("intruder.pem");
  other_ca["CKPT_TLS_KEY"] = p("intruder.key");
  other_ca["CKPT_CONNECT_TIMEOUT"] = "3";
  auto intruder = c.StartNode(0, other_ca);
  EXPECT_EQ(intruder->Wait(20), 1) << intruder->Err();
  EXPECT_NE(intruder->Err().find("could not reach the coordinator"),
            std::string::npos)
      << intruder->Err();

  Env no_cert = {{"CKPT_TLS_CA", p("ca1.pem")},
                 {"CKPT_TLS_SERVER_NAME", "localhost"},
                 {"CKPT_TOKEN", token},
                 {"CKPT_CONNECT_TIMEOUT", "3"}};
  auto anonymous = c.StartNode(0, no_cert);
  EXPECT_EQ(anonymous->Wait(20), 1) << anonymous->Err();

  Env wrong_token = good;
  wrong_token["CKPT_TOKEN"] = "guess";
  auto guesser = c.StartNode(0, wrong_token);
  EXPECT_EQ(guesser->Wait(20), 2) << guesser->Err();
  EXPECT_NE(guesser->Err().find("a wrong token"), std::string::npos)
      << guesser->Err();

  auto node = c.StartNode(0, good);
  ASSERT_EQ(coord->Wait(60), 0) << coord->Err();
  EXPECT_EQ(node->Wait(10), 0) << node->Err();
  EXPECT_EQ(coord->Err().find("without TLS"), std::string::npos);

  std::string result = ReadFile(c.ResultPath());
  for (const std::string& text :
       {coord->Err(), coord->Out(), node->Err(), guesser->Err(), result}) {
    EXPECT_EQ(text.find(token), std::string::npos) << "token leaked";
  }
  auto j = nlohmann::json::parse(result);
  EXPECT_EQ(j["config"]["auth.token"]["value"], "<redacted>");
}

// Kubernetes' gRPC probes speak no TLS: with TLS on the control port, the
// coordinator's own health port answers them in plaintext, and the control
// port does not.
TEST(Tls, TheCoordinatorAnswersPlaintextProbesOnItsHealthPort) {
  Cluster c;
  const std::string d = c.tmp().path();
  ASSERT_TRUE(MakeCa(d, "ca"));
  ASSERT_TRUE(MakeCert(d, "ca", "server",
                       "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                       "extendedKeyUsage=serverAuth\n"));
  auto p = [&](const std::string& f) { return d + "/" + f; };
  const int health = FreePort();
  auto coord = c.StartCoordinator(
      {{"NUM_NODES", "1"},
       {"CKPT_TLS_CERT", p("server.pem")},
       {"CKPT_TLS_KEY", p("server.key")},
       {"CKPT_COORDINATOR_HEALTH_PORT", std::to_string(health)}});
  ASSERT_TRUE(coord->WaitForOutput("waiting up to", 20)) << coord->Err();
  std::string error;
  EXPECT_EQ(ProbeHealth(health, 100, &error),
            grpc::health::v1::HealthCheckResponse::SERVING)
      << error << coord->Err();
  EXPECT_EQ(ProbeHealth(c.port(), 5, &error),
            grpc::health::v1::HealthCheckResponse::UNKNOWN)
      << "the TLS control port answered a plaintext probe";
  auto node = c.StartNode(
      0, {{"CKPT_TLS_CA", p("ca.pem")}, {"CKPT_TLS_SERVER_NAME", "localhost"}});
  EXPECT_EQ(coord->Wait(60), 0) << coord->Err();
  EXPECT_EQ(node->Wait(10), 0) << node->Err();
}

// The port the coordinator's health service would take is held by another
// process, one that allows SO_REUSEPORT (as gRPC's servers do by default):
// a clear error naming the key, exit 2, not two servers sharing the port.
TEST(Tls, ACoordinatorHealthPortInUseIsNamed) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  int one = 1;
  ASSERT_EQ(setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)), 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int busy = ntohs(addr.sin_port);
  Cluster c;
  auto coord = c.StartCoordinator(
      {{"NUM_NODES", "1"},
       {"CKPT_COORDINATOR_HEALTH_PORT", std::to_string(busy)}});
  EXPECT_EQ(coord->Wait(20), 2) << coord->Err();
  EXPECT_NE(coord->Err().find("control.coordinator_health_port = " +
                              std::to_string(busy) + ": cannot listen"),
            std::string::npos)
      << coord->Err();
  close(fd);
}

TEST(Tls, MissingCertificateFileIsAClearError) {
  Cluster c;
  auto coord = c.StartCoordinator({{"CKPT_TLS_CERT", c.tmp().Sub("nope.pem")},
                                   {"CKPT_TLS_KEY", c.tmp().Sub("nope.key")}});
  EXPECT_EQ(coord->Wait(20), 2);
  EXPECT_NE(
      coord->Err().find("tls.cert (CKPT_TLS_CERT) = '" +
                        c.tmp().Sub("nope.pem") + "': cannot open the file"),
      std::string::npos)
      << coord->Err();
}

}  // namespace
}  // namespace ckpt
