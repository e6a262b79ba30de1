// A listed TAR dataset's index (node/dataset/dataset_listing.h) is kept by
// the node that made it (KeptIndex), for its later epochs while the listing
// is unchanged: reused there with no request, made again when the listing
// changes, and never served to another node's KeptIndex.
#include "node/dataset/dataset_listing.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "common/dataset/dataset_layout.h"
#include "node/dataset/dataset_bytes.h"
#include "node/storage/listing_pager.h"
#include "node/storage/memory_storage.h"

namespace ckpt {
namespace {

// Shards 0..shards-1 of a small TAR dataset, as objects under b/ds/.
void PutShards(MemoryStore& store, size_t shards) {
  DatasetSpec spec;
  spec.format = DatasetFormat::kTar;
  spec.samples = 40;
  spec.sample_bytes = 9000;
  spec.sample_spread = 3000;
  spec.shard_bytes = 100 * 1024;
  spec.seed = 5;
  const ShardTable table = BuildShardTable(spec);
  ASSERT_GE(table.shards(), shards);
  for (size_t k = 0; k < shards; ++k) {
    ShardImage img(spec, table.first_sample[k], table.first_sample[k + 1]);
    std::string bytes(img.size(), '\0');
    img.Fill(0, reinterpret_cast<unsigned char*>(bytes.data()), bytes.size());
    store.Put("b/ds/shard-" + std::to_string(k) + ".tar", bytes);
  }
}

struct Node {
  explicit Node(std::shared_ptr<Storage> s) : storage(std::move(s)) {}
  std::shared_ptr<Storage> storage;
  ObjectStoreCounters counters;
  KeptIndex kept;
  absl::StatusOr<ListedDataset> List() {
    ListingBounds bounds = AtMost(1000);
    bounds.memory_bytes = 64 << 20;
    return ListDataset(*storage, counters, "b/ds", DatasetFormat::kTar,
                       "mem://b/ds", bounds, &kept);
  }
};

TEST(KeptIndex, ANodesLaterEpochsReuseItsIndexUntilTheListingChanges) {
  auto store = std::make_shared<MemoryStore>();
  PutShards(*store, 2);
  Node a(MemoryStorage::Make(store)), b(MemoryStorage::Make(store));

  auto first = a.List();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->index_reused);
  EXPECT_GT(first->samples, 0u);

  auto again = a.List();  // the node's next epoch
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->index_reused);
  EXPECT_EQ(again->index_requests, 0u);
  EXPECT_EQ(again->members, first->members);  // the same index, not a copy
  EXPECT_EQ(again->samples, first->samples);
  EXPECT_EQ(again->digest, first->digest);

  // Another node of the same process makes its own.
  auto other = b.List();
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_FALSE(other->index_reused);
  EXPECT_NE(other->members, first->members);
  EXPECT_EQ(other->digest, first->digest);

  // A shard more: the listing changed, the index is made again.
  PutShards(*store, 3);
  auto changed = a.List();
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(changed->index_reused);
  EXPECT_GT(changed->samples, first->samples);
  auto after = a.List();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(after->index_reused);
  EXPECT_EQ(after->samples, changed->samples);
}

}  // namespace
}  // namespace ckpt
