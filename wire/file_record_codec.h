// A file's record (common/file_record.h) as it crosses the wire:
// ckptbench.v1.FileRecord, field by field, in one place for both sides.
#ifndef CKPTBENCH_WIRE_FILE_RECORD_CODEC_H_
#define CKPTBENCH_WIRE_FILE_RECORD_CODEC_H_

#include "common/file_record.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

// Everything but `node` (the coordinator's to set).
void ToWire(const FileRecord& record, v1::FileRecord* wire);
// As the node sent it: times from the node's phase start, node 0.
FileRecord FromWire(const v1::FileRecord& wire);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_FILE_RECORD_CODEC_H_
