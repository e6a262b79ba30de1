// A model on storage found and its headers read as a replica reads them
// (node/serving/model_headers.h): from its index or its directory, every
// header checked, the index held to the headers.
#include "node/serving/model_headers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/serving/model_files.h"
#include "node/storage/memory_storage.h"

namespace ckpt {
namespace {

using ::testing::HasSubstr;

StTensor T(std::string name, std::vector<uint64_t> shape) {
  StTensor t;
  t.name = std::move(name);
  t.dtype = StDtype::kBf16;
  t.shape = std::move(shape);
  return t;
}

// A model of three tensors in files of at most `max` bytes under b/m/.
std::vector<ModelFile> Put(MemoryStore& store, uint64_t max,
                           bool index = true) {
  std::vector<ModelFile> files =
      ShardModel({T("a", {8, 8}), T("b", {8, 8}), T("c", {4})}, max);
  for (const ModelFile& f : files) {
    store.Put("b/m/" + f.name,
              f.header + std::string(f.Size() - f.header.size(), 'x'));
  }
  if (index && files.size() > 1) {
    store.Put("b/m/" + std::string(kModelIndexName), ModelIndexJson(files));
  }
  return files;
}

absl::StatusOr<ModelHeaders> Read(const std::shared_ptr<MemoryStore>& store) {
  auto storage = MemoryStorage::Make(store);
  return ReadModelHeaders(*storage, "b/m", AtMost(1000));
}

TEST(ModelHeaders, AShardedModelIsReadThroughItsIndex) {
  auto store = std::make_shared<MemoryStore>();
  Put(*store, 200);
  store->Put("b/m/consolidated.safetensors", "not read: not in the index");
  store->Put("b/m/sub/model.safetensors", "not read: not directly in it");
  auto m = Read(store);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->indexed);
  ASSERT_EQ(m->files.size(), 2u);
  EXPECT_EQ(m->files[0].name, "model-00001-of-00002.safetensors");
  EXPECT_EQ(m->tensors, 3u);
  EXPECT_EQ(m->tensor_bytes, 128u + 128u + 8u);
  EXPECT_EQ(m->header_bytes + m->tensor_bytes,
            m->files[0].size + m->files[1].size);
}

TEST(ModelHeaders, WithoutAnIndexTheDirectorysFilesAreTheModel) {
  auto store = std::make_shared<MemoryStore>();
  Put(*store, 1000);
  auto m = Read(store);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_FALSE(m->indexed);
  ASSERT_EQ(m->files.size(), 1u);
  EXPECT_EQ(m->files[0].name, "model.safetensors");
  auto empty = std::make_shared<MemoryStore>();
  empty->Put("b/m/config.json", "{}");
  auto none = Read(empty);
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(absl::IsNotFound(none.status()));
  EXPECT_THAT(none.status().message(), HasSubstr("no .safetensors"));
}

TEST(ModelHeaders, AnIndexThatDisagreesWithTheHeadersIsRefusedOrNoted) {
  auto store = std::make_shared<MemoryStore>();
  std::vector<ModelFile> files = Put(*store, 200);
  std::string index = ModelIndexJson(files);
  std::string wrong = index;
  wrong.replace(wrong.find("\"total_size\": 264"), 17, "\"total_size\": 265");
  store->Put("b/m/model.safetensors.index.json", wrong);
  auto m = Read(store);
  ASSERT_TRUE(m.ok()) << m.status();  // loaders never read it: a note
  ASSERT_EQ(m->notes.size(), 1u);
  EXPECT_THAT(m->notes[0], HasSubstr("total_size 265"));

  wrong = index;
  wrong.replace(wrong.find("\"a\": \"model-00001"), 17, "\"a\": \"model-00002");
  store->Put("b/m/model.safetensors.index.json", wrong);
  m = Read(store);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("tensor 'a' is not in"));

  store->Put("b/m/model.safetensors.index.json",
             R"({"weight_map":{"a":"model-00009-of-00009.safetensors"}})");
  m = Read(store);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("which is not in"));
}

TEST(ModelHeaders, AHostileFileIsRefusedNamingIt) {
  auto store = std::make_shared<MemoryStore>();
  std::vector<ModelFile> files = Put(*store, 1000);
  // Its header's length claims more than the file holds.
  std::string bytes = files[0].header;
  bytes[0] = static_cast<char>(0xff);
  store->Put("b/m/model.safetensors", bytes);
  auto m = Read(store);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("b/m/model.safetensors"));
  EXPECT_THAT(m.status().message(), HasSubstr("a header of"));
  store->Put("b/m/model.safetensors", "short");
  m = Read(store);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("5 bytes"));
}

TEST(ModelHeaders, ATensorInTwoFilesIsRefused) {
  auto store = std::make_shared<MemoryStore>();
  std::vector<ModelFile> one = ShardModel({T("a", {4})}, 100);
  store->Put("b/m/x.safetensors", one[0].header + std::string(8, 'x'));
  store->Put("b/m/y.safetensors", one[0].header + std::string(8, 'x'));
  auto m = Read(store);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(),
              HasSubstr("tensor 'a' is in both 'x.safetensors' and "
                        "'y.safetensors'"));
}

}  // namespace
}  // namespace ckpt
