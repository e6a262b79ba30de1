// One file of a round, the one record of it from the node's file loop to
// result.json: the node fills it as the file ends (node/checkpoint/
// checkpoint_phase.cc), it crosses the wire as node.proto's FileRecord
// (wire/file_record_codec.h), and the coordinator keeps it in the round's
// result with its node and its times moved to the round's common clock
// (coordinator/checkpoint/round_aggregate.cc), as result.json's "files"
// table writes it.
#ifndef CKPTBENCH_COMMON_FILE_RECORD_H_
#define CKPTBENCH_COMMON_FILE_RECORD_H_

#include <cstdint>
#include <string>

namespace ckpt {

struct FileRecord {
  int node = 0;  // the coordinator's node index; 0 on the node itself
  uint32_t rank = 0, file_index = 0;
  std::string name;  // the file's name in the step (the writer's)
  uint64_t bytes = 0;
  // Seconds: on the node, from its phase's start; in a result, from the
  // coordinator's start instant (the node's start lag added), so files of
  // different nodes line up. first_byte -1: no byte moved.
  double start = 0, first_byte = -1, last_byte = 0, done = 0;
  // Making or checking bytes; inside storage calls (open, write/read);
  // fsync and close (saves: durability).
  double data = 0, io = 0, sync = 0;
  // Storage requests for its bytes (HTTP requests on object stores, retries
  // included; read/write calls on file systems) and object-store retries.
  uint64_t requests = 0, retries = 0;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_FILE_RECORD_H_
