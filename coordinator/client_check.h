// Was ckptbench itself what stopped a round? A storage number is only worth
// publishing if the tool was not the limit. A round is client-bound when a
// node's file threads spent at least kClientDataBusy of their time making
// or checking bytes (generating and checksumming a save's, verifying a
// load's: the tool set the pace, not the storage), or its process used at
// least kClientCpuBusy of the CPUs it may run on (not judged for an async
// save, whose process runs the simulated training compute on purpose), or
// its staged copies (async saves, GPU staging) held at least
// kClientStagingShare of the memory it had (staged + still available at
// the phase's end): a larger checkpoint per node would swap or fail.
// The CPU share is the node process's: with several agents in one process
// (coordination_bench) each is charged the whole process's.
#ifndef CKPTBENCH_COORDINATOR_CLIENT_CHECK_H_
#define CKPTBENCH_COORDINATOR_CLIENT_CHECK_H_

#include "coordinator/results.h"

namespace ckpt {

inline constexpr double kClientDataBusy = 0.8;
inline constexpr double kClientCpuBusy = 0.9;
inline constexpr double kClientStagingShare = 0.8;

// For a timed round that succeeded and took at least kShortPhaseSeconds:
// flags it "client_bound", says why in round->client_bound (the node
// nearest its limit, and how many others were), and warns. Untimed,
// failed and short rounds are left alone.
void FlagClientBound(RoundResult* round);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CLIENT_CHECK_H_
