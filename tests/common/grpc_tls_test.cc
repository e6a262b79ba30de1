// The control channel's certificate and key files are read as hostile
// input: a device, a FIFO or a huge file is refused at once, by kind or
// size, naming the key and its environment variable.
#include "common/grpc_tls.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "tests/testing/fifo.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

// Issue 27, items 3 and 4, for tls.cert / tls.key / tls.ca.
TEST(GrpcTls, CertificateFilesThatAreDevicesFifosOrHugeAreRefusedAtOnce) {
  TempDir t;
  std::ofstream(t.Sub("cert.pem")) << "-----BEGIN CERTIFICATE-----\n";
  ASSERT_EQ(mkfifo(t.Sub("key.pem").c_str(), 0600), 0);
  std::ofstream(t.Sub("ca.pem")) << "-----BEGIN CERTIFICATE-----\n"
                                 << std::string((4 << 20) + 1, 'A');

  ControlOptions device;
  device.tls_cert = "/dev/zero";
  device.tls_key = t.Sub("key.pem");
  auto d = MakeServerCredentials(device);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find(
                "tls.cert (CKPT_TLS_CERT) /dev/zero is a character device: "
                "expected a regular file"),
            std::string::npos)
      << d.status();

  ControlOptions fifo;
  fifo.tls_cert = t.Sub("cert.pem");
  fifo.tls_key = t.Sub("key.pem");
  bool blocked = false;
  auto f = CallBesideFifo(t.Sub("key.pem"), 5, &blocked,
                          [&] { return MakeChannelCredentials(fifo); });
  ASSERT_FALSE(blocked) << "blocked opening the FIFO";
  ASSERT_FALSE(f.ok());
  EXPECT_NE(
      f.status().message().find("tls.key (CKPT_TLS_KEY) " + t.Sub("key.pem") +
                                " is a FIFO: expected a regular file"),
      std::string::npos)
      << f.status();

  ControlOptions huge;
  huge.tls_ca = t.Sub("ca.pem");
  auto h = MakeChannelCredentials(huge);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("more than the 4.00 MiB allowed"),
            std::string::npos)
      << h.status();
}

}  // namespace
}  // namespace ckpt
