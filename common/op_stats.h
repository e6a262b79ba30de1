// The latencies of a node's storage operations in a phase (nanoseconds):
// one set per file task (node/storage/timed_storage.h times into it),
// merged into the node's report, merged again across nodes.
#ifndef CKPTBENCH_COMMON_OP_STATS_H_
#define CKPTBENCH_COMMON_OP_STATS_H_

#include "common/histogram.h"

namespace ckpt {

// close: the durability point on FUSE object-store mounts, where the
// upload happens. On the wire each is named by its field ("open", ...).
struct OpStats {
  Histogram open, write, read, fsync, close;
  void Reserve() {
    open.Reserve();
    write.Reserve();
    read.Reserve();
    fsync.Reserve();
    close.Reserve();
  }
  void Merge(const OpStats& o) {
    close.Merge(o.close);
    open.Merge(o.open);
    write.Merge(o.write);
    read.Merge(o.read);
    fsync.Merge(o.fsync);
  }
};

// Calls f(name, histogram) for each operation, in this order: open, write,
// read, fsync, close (the names the wire uses). `Stats` is OpStats, const
// or not.
template <typename Stats, typename F>
void ForEachOp(Stats& s, F&& f) {
  f("open", s.open);
  f("write", s.write);
  f("read", s.read);
  f("fsync", s.fsync);
  f("close", s.close);
}

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_OP_STATS_H_
