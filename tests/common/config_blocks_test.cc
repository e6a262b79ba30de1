// A workload's block of the configuration (common/config_blocks.h): its
// defaults until set, set through its keys, copied with the Config.
#include "common/config_blocks.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "common/config.h"
#include "common/dataset/dataset_options.h"

namespace ckpt {
namespace {

struct TestBlock {
  int count = 7;
  std::string name = "default";
};

TEST(ConfigBlocks, ABlockReadsItsDefaultsUntilSetAndKeepsWhatWasSet) {
  ConfigBlocks blocks;
  const ConfigBlocks& read = blocks;
  EXPECT_EQ(read.Get<TestBlock>().count, 7);
  EXPECT_EQ(read.Get<TestBlock>().name, "default");
  blocks.Get<TestBlock>().count = 3;
  EXPECT_EQ(read.Get<TestBlock>().count, 3);
  EXPECT_EQ(read.Get<TestBlock>().name, "default");
  // Another type is another block.
  EXPECT_EQ(read.Get<DataloadOptions>().epochs, DataloadOptions{}.epochs);
}

TEST(ConfigBlocks, ACopiedConfigHoldsItsOwnBlocks) {
  Config a;
  DataloadOf(a).epochs = 5;
  Config b = a;
  DataloadOf(b).epochs = 9;
  DatasetOf(b).samples = 42;
  EXPECT_EQ(DataloadOf(std::as_const(a)).epochs, 5);
  EXPECT_EQ(DataloadOf(std::as_const(b)).epochs, 9);
  EXPECT_EQ(DatasetOf(std::as_const(a)).samples, DatasetOptions{}.samples);
  EXPECT_EQ(DatasetOf(std::as_const(b)).samples, 42u);
}

// Every key reads a Config it is given as const: a key of a block never set
// reads the block's defaults, and setting it through the table is seen.
TEST(ConfigBlocks, TheKeyTableReadsAndSetsABlocksKeys) {
  const Config untouched;
  const KeyDef* epochs = FindKey("dataload.epochs");
  ASSERT_NE(epochs, nullptr);
  EXPECT_EQ(epochs->get(untouched), std::to_string(DataloadOptions{}.epochs));
  Config c;
  ASSERT_TRUE(epochs->set(c, "4").ok());
  EXPECT_EQ(epochs->get(c), "4");
  EXPECT_EQ(DataloadOf(std::as_const(c)).epochs, 4);
  const absl::Status bad = epochs->set(c, "many");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(DataloadOf(std::as_const(c)).epochs, 4);
}

}  // namespace
}  // namespace ckpt
