// An S3 front for Swift that adds what Swift's s3api refuses: conditional
// PUTs with `If-None-Match: *` (501 "Conditional object PUTs are not
// supported" there). A PUT carrying it gets 412 PreconditionFailed when the
// key exists upstream or another conditional PUT of the key went through
// this proxy before it (until a DELETE of the key); otherwise it is
// forwarded without the header, re-signed with the test credentials. Every
// other request passes through untouched. Atomic among the conditional
// PUTs it sees, which is what step claims need; its behaviour is checked
// with the AWS CLI (tests/integration/s3_claim_test.cc).
#ifndef CKPTBENCH_TESTS_TESTING_CONDITIONAL_PUT_PROXY_H_
#define CKPTBENCH_TESTS_TESTING_CONDITIONAL_PUT_PROXY_H_

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "tests/testing/fault_proxy.h"

namespace ckpt {

class ConditionalPutProxy {
 public:
  // Swift on upstream_port, with its access key and secret.
  // `ignore`: behave like stores that accept the header and ignore it
  // (every conditional PUT is forwarded, none refused).
  ConditionalPutProxy(int upstream_port, std::string access_key,
                      std::string secret_key, bool ignore = false);
  int port() const { return proxy_->port(); }
  // Conditional PUTs answered 412 / forwarded so far.
  int refused() const;
  int granted() const;

 private:
  Fault Rule(const ProxyRequest& r);
  // HEAD of /bucket/key upstream, signed: true when it answers 200.
  bool ExistsUpstream(const std::string& path);

  int upstream_port_;
  std::string access_key_, secret_key_;
  bool ignore_ = false;
  mutable std::mutex mu_;
  std::set<std::string> claimed_;  // "/bucket/key" of granted conditional PUTs
  int refused_ = 0, granted_ = 0;
  std::unique_ptr<FaultProxy> proxy_;  // last: its threads call Rule
};

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_CONDITIONAL_PUT_PROXY_H_
