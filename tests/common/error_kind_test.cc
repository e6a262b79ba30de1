// A node's failure crosses to the coordinator as one Status: its kind goes
// with it through every client (NodeClient turns a reply's `error` into
// the call's Status), a prefix keeps it, and a transport failure has none.
#include "wire/error_kind.h"

#include <gtest/gtest.h>

#include "coordinator/round/node_client.h"

namespace ckpt {
namespace {

constexpr ErrorKind kKinds[] = {ErrorKind::kRetryable, ErrorKind::kAuth,
                                ErrorKind::kNotFound,  ErrorKind::kNoSpace,
                                ErrorKind::kBadInput,  ErrorKind::kDataLoss,
                                ErrorKind::kInternal};

TEST(ErrorKind, ANodesFailureKeepsItsKindThroughAPrefix) {
  for (ErrorKind kind : kKinds) {
    const absl::Status s = NodeErrorStatus(kind, "disk full");
    EXPECT_EQ(s.code(), StatusOfKind(kind, "").code()) << Name(kind);
    EXPECT_EQ(ErrorKindOf(s), kind);
    EXPECT_TRUE(IsNodeError(s));
    EXPECT_EQ(NodeErrorKindOf(s), kind);
    const absl::Status named = WithPrefix(s, "node 3 (vm): ");
    EXPECT_EQ(named.message(), "node 3 (vm): disk full");
    EXPECT_EQ(named.code(), s.code());
    EXPECT_EQ(NodeErrorKindOf(named), kind);
  }
  // An older node's failure without a kind is still the node's.
  const absl::Status old = NodeErrorStatus(ErrorKind::kUnspecified, "x");
  EXPECT_TRUE(IsNodeError(old));
  EXPECT_TRUE(absl::IsUnknown(old));
  EXPECT_EQ(NodeErrorKindOf(old), ErrorKind::kUnspecified);
  // The transport's failure: no kind, whatever its code.
  const absl::Status gone = absl::UnavailableError("node 1 (vm) disconnected");
  EXPECT_FALSE(IsNodeError(gone));
  EXPECT_EQ(NodeErrorKindOf(gone), ErrorKind::kUnspecified);
  EXPECT_FALSE(IsNodeError(WithPrefix(gone, "listing: ")));
  EXPECT_TRUE(WithPrefix(absl::OkStatus(), "x").ok());
}

TEST(ErrorKind, AReplysErrorIsItsStatusButALostClaimIsAnAnswer) {
  v1::CommitReply commit;
  EXPECT_TRUE(StatusOfReply(commit).ok());
  commit.set_error("rename failed");
  commit.set_error_kind(v1::ERROR_KIND_NO_SPACE);
  EXPECT_TRUE(absl::IsResourceExhausted(StatusOfReply(commit)));
  EXPECT_EQ(NodeErrorKindOf(StatusOfReply(commit)), ErrorKind::kNoSpace);
  v1::ClaimReply claim;
  claim.set_taken(true);
  claim.set_error("step-4 is claimed by run-b");
  EXPECT_TRUE(StatusOfReply(claim).ok());
  claim.set_taken(false);
  claim.set_error_kind(v1::ERROR_KIND_AUTH);
  EXPECT_EQ(NodeErrorKindOf(StatusOfReply(claim)), ErrorKind::kAuth);
}

// Every kind crosses the wire and back as itself; a number this build does
// not know reads as unspecified (its message still says what failed).
TEST(ErrorKind, EveryKindCrossesTheWireAsItself) {
  for (ErrorKind kind : kKinds) {
    EXPECT_NE(ToWire(kind), v1::ERROR_KIND_UNSPECIFIED) << Name(kind);
    EXPECT_EQ(FromWire(ToWire(kind)), kind);
    EXPECT_FALSE(Name(kind).empty());
    EXPECT_EQ(ParseKind<ErrorKind>(Name(kind)), kind);
  }
  EXPECT_EQ(ToWire(ErrorKind::kUnspecified), v1::ERROR_KIND_UNSPECIFIED);
  EXPECT_EQ(Name(ErrorKind::kUnspecified), "");
  EXPECT_EQ(FromWire(static_cast<v1::ErrorKind>(99)), ErrorKind::kUnspecified);
  v1::CommitReply newer;
  newer.set_error("a newer node's failure");
  newer.set_error_kind(static_cast<v1::ErrorKind>(99));
  const absl::Status s = StatusOfReply(newer);
  EXPECT_TRUE(IsNodeError(s));
  EXPECT_TRUE(absl::IsUnknown(s));
  EXPECT_EQ(NodeErrorKindOf(s), ErrorKind::kUnspecified);
}

// A node that answers every call with a failed reply, as a node whose
// storage refused.
class RefusingNode : public NodeClient {
 public:
  int index() const override { return 2; }
  std::string host() const override { return "vm"; }

 protected:
  template <typename Reply>
  static Reply Refused() {
    Reply r;
    r.set_error("403 Forbidden");
    r.set_error_kind(v1::ERROR_KIND_AUTH);
    return r;
  }
  absl::StatusOr<v1::InspectReply> SendInspect(
      const v1::InspectRequest&) override {
    return Refused<v1::InspectReply>();
  }
  absl::StatusOr<v1::PrepareReply> SendPrepare(v1::PrepareRequest) override {
    return absl::UnavailableError("node 2 (vm) disconnected");
  }
  absl::StatusOr<v1::PhaseReport> SendStartPhase(const v1::StartPhaseRequest&,
                                                 const WireListener&) override {
    v1::PhaseReport r = Refused<v1::PhaseReport>();
    r.add_ranks()->set_bytes(4096);  // what it did before failing
    return r;
  }
  absl::StatusOr<v1::CommitReply> SendCommit(v1::CommitRequest) override {
    return Refused<v1::CommitReply>();
  }
  absl::StatusOr<v1::ClaimReply> SendClaim(const v1::ClaimRequest&) override {
    return Refused<v1::ClaimReply>();
  }
  absl::StatusOr<v1::CleanupReply> SendCleanup(
      const v1::CleanupRequest&) override {
    return Refused<v1::CleanupReply>();
  }
  absl::StatusOr<v1::PutResultReply> SendPutResult(
      const v1::PutResultRequest&) override {
    return Refused<v1::PutResultReply>();
  }
  absl::StatusOr<v1::AbortReply> SendAbort(const v1::AbortRequest&) override {
    return v1::AbortReply();
  }
  absl::StatusOr<v1::PingReply> SendPing(const v1::PingRequest&) override {
    return v1::PingReply();
  }
};

TEST(ErrorKind, EveryCallOfAClientReturnsTheNodesFailureAsItsStatus) {
  RefusingNode n;
  std::vector<absl::Status> failed = {
      n.Inspect({}).status(), n.Commit({}), n.Claim({}).status(),
      n.Cleanup({}).status(), n.PutResult({}).status()};
  absl::Status async_commit;
  n.CommitAsync({}, [&](absl::Status s) { async_commit = s; });
  failed.push_back(async_commit);
  for (const absl::Status& s : failed) {
    EXPECT_TRUE(absl::IsPermissionDenied(s)) << s;
    EXPECT_EQ(s.message(), "403 Forbidden");
    EXPECT_EQ(NodeErrorKindOf(s), ErrorKind::kAuth);
  }
  // Not reached: the transport's status, no kind.
  absl::Status prepared;
  n.PrepareAsync(
      {}, [&](absl::StatusOr<PrepareOutcome> r) { prepared = r.status(); });
  EXPECT_TRUE(absl::IsUnavailable(prepared));
  EXPECT_FALSE(IsNodeError(prepared));
  // A failed phase: its status, and what it measured is kept.
  ReportedPhase phase = n.StartPhase({}, {});
  EXPECT_EQ(NodeErrorKindOf(phase.status), ErrorKind::kAuth);
  ASSERT_EQ(phase.report.ranks.size(), 1u);
  EXPECT_EQ(phase.report.ranks[0].bytes, 4096u);
  EXPECT_TRUE(n.Ping(0).ok());
}

}  // namespace
}  // namespace ckpt
