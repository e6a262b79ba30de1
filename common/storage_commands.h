// The storage steps a node does for the coordinator outside a round's
// transfer, as both sides know them (their ckptbench.v1 messages on the
// wire; wire/storage_commands_codec.h converts): a save's commit (writing
// .metadata), claiming a step, removing what a run wrote, and writing a
// result file through the node's storage.
#ifndef CKPTBENCH_COMMON_STORAGE_COMMANDS_H_
#define CKPTBENCH_COMMON_STORAGE_COMMANDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"

namespace ckpt {

// Writes `metadata` as step_uri/.metadata: the commit point of a save.
struct CommitJob {
  std::string run_id;
  uint64_t round_id = 0;
  std::string step_uri;
  std::string metadata;
  BackendOptions backend;
};

// Claims step `step` under steps_uri for run_id (or, with `release`,
// gives back the claim `claim_name` made).
struct ClaimJob {
  std::string run_id;
  std::string steps_uri;  // the run's steps (Config::StepsPath)
  uint64_t step = 0;
  bool release = false;
  std::string claim_name;
  BackendOptions backend;
};

// A claim's answer: won (claim_name), or `taken` by another run (`holder`
// says which). Neither is a failure.
struct ClaimOutcome {
  bool taken = false;
  std::string holder;
  std::string claim_name;
};

// Removes run_id's own files from the steps `remove_steps` (file_names:
// the shard and claim files this run writes), and with abort_uploads its
// unfinished uploads there.
struct CleanupJob {
  std::string run_id;
  std::string steps_uri;  // the run's steps (Config::StepsPath)
  std::vector<uint64_t> remove_steps;
  std::vector<std::string> file_names;
  bool abort_uploads = false;
  BackendOptions backend;
};

struct CleanupOutcome {
  int aborted_uploads = 0;
};

// Writes `data` as dir_uri/name (result.json, a dataset's manifest); with
// check_only, only says whether one is there (`exists`, unless
// `overwrite`); with release_claim, instead removes the datagen claim of
// the dataset dir_uri is (its kMakeClaimDir: the pending manifest and
// claim entries, nothing else), once every node of the round reported.
struct PutResultJob {
  std::string dir_uri;
  std::string name;
  std::string data;
  bool check_only = false;
  bool overwrite = false;
  BackendOptions backend;
  bool release_claim = false;
};

struct PutResultOutcome {
  bool exists = false;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_STORAGE_COMMANDS_H_
