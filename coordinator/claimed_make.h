// What a make under a claim (datagen's dataset, serve's generated model:
// the claim is kMakeClaimDir, common/dataset/dataset_manifest.h) does on
// the coordinator once every node wrote its share, on each owner of a
// copy, through that node (NodeClient::PutResult): the claim checked still
// this run's (a removal that took the path meanwhile removed what was
// written: nothing may be declared made), the manifest written, the claim
// released. Errors name the node and the step, with the node's error kind.
#ifndef CKPTBENCH_COORDINATOR_CLAIMED_MAKE_H_
#define CKPTBENCH_COORDINATOR_CLAIMED_MAKE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "common/config.h"
#include "coordinator/round/node_client.h"

namespace ckpt {

// At `uri` on `node`: the claim checked, `manifest_name` written with
// `text`, the claim released. `thing` names what was made in errors ("the
// dataset", "the model"); `removal` what would have taken the claim ("a
// datagen --remove").
absl::Status CommitUnderClaim(NodeClient& node, const std::string& uri,
                              const std::string& manifest_name,
                              const std::string& text,
                              const BackendOptions& backend,
                              std::string_view thing, std::string_view removal);

// The claim at `uri` released on `node` (a removal's last step).
absl::Status ReleaseClaimOn(NodeClient& node, const std::string& uri,
                            const BackendOptions& backend,
                            std::string_view thing);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CLAIMED_MAKE_H_
