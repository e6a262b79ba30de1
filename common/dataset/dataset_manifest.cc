#include "common/dataset/dataset_manifest.h"

#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "nlohmann/json.hpp"

namespace ckpt {
namespace {

using json = nlohmann::json;

absl::Status Bad(const std::string& what, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", why));
}

absl::StatusOr<uint64_t> Unsigned(const json& j, const char* key,
                                  const std::string& what) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned()) {
    return Bad(what, absl::StrCat("\"", key,
                                  "\" is missing or not a whole number >= 0"));
  }
  return it->get<uint64_t>();
}

}  // namespace

std::string DatasetManifestToJson(const DatasetManifest& m) {
  json j = {
      {"ckptbench_dataset", kDatasetManifestVersion},
      {"generator", kPatternName},
      {"format", m.spec.format},
      {"samples", m.spec.samples},
      {"sample_bytes", m.spec.sample_bytes},
      {"sample_spread", m.spec.sample_spread},
      {"shard_bytes", m.spec.shard_bytes},
      {"spread_prefixes", m.spec.spread_prefixes},
      {"seed", m.spec.seed},
      {"objects", m.totals.objects},
      {"bytes", m.totals.bytes},
      {"samples_bytes", m.totals.sample_bytes},
      {"run_id", m.run_id},
      {"created_unix_ns", m.created_unix_ns},
  };
  return j.dump(2) + "\n";
}

absl::StatusOr<DatasetManifest> DatasetManifestFromJson(
    std::string_view text, const std::string& what) {
  if (text.size() > kMaxDatasetManifestBytes) {
    return Bad(what, absl::StrCat("is ", text.size(),
                                  " bytes; a manifest is "
                                  "at most ",
                                  kMaxDatasetManifestBytes));
  }
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Bad(what, "is not a JSON object");
  }
  auto version = j.find("ckptbench_dataset");
  if (version == j.end() || !version->is_number_integer() ||
      version->get<int64_t>() != kDatasetManifestVersion) {
    return Bad(what, absl::StrCat("is not a ckptbench dataset manifest of "
                                  "version ",
                                  kDatasetManifestVersion,
                                  " (\"ckptbench_dataset\")"));
  }
  auto generator = j.find("generator");
  if (generator == j.end() || !generator->is_string() ||
      generator->get<std::string>() != kPatternName) {
    return Bad(what, absl::StrCat("\"generator\" is not \"", kPatternName,
                                  "\", the one this build verifies"));
  }
  DatasetManifest m;
  auto format = j.find("format");
  std::optional<DatasetFormat> f;
  if (format != j.end() && format->is_string()) {
    f = ParseKind<DatasetFormat>(format->get<std::string>());
  }
  if (!f) {
    return Bad(what, absl::StrCat("\"format\" is not one of ",
                                  KindNames<DatasetFormat>()));
  }
  m.spec.format = *f;
  uint64_t prefixes = 0;
  struct Field {
    const char* key;
    uint64_t* out;
  };
  for (const Field& field :
       std::vector<Field>{{"samples", &m.spec.samples},
                          {"sample_bytes", &m.spec.sample_bytes},
                          {"sample_spread", &m.spec.sample_spread},
                          {"shard_bytes", &m.spec.shard_bytes},
                          {"spread_prefixes", &prefixes},
                          {"seed", &m.spec.seed},
                          {"objects", &m.totals.objects},
                          {"bytes", &m.totals.bytes},
                          {"samples_bytes", &m.totals.sample_bytes}}) {
    auto v = Unsigned(j, field.key, what);
    if (!v.ok()) return v.status();
    *field.out = *v;
  }
  if (prefixes > kMaxSpreadPrefixes) {
    return Bad(what, absl::StrCat("\"spread_prefixes\" is ", prefixes,
                                  "; expected at most ", kMaxSpreadPrefixes));
  }
  m.spec.spread_prefixes = static_cast<uint32_t>(prefixes);
  if (absl::Status s = CheckDatasetSpec(m.spec, what); !s.ok()) return s;
  auto run_id = j.find("run_id");
  if (run_id != j.end() && run_id->is_string()) {
    std::string id = run_id->get<std::string>();
    if (id.size() > 256) id.resize(256);
    m.run_id = EscapeForTerminal(id);
  }
  auto created = j.find("created_unix_ns");
  if (created != j.end() && created->is_number_integer()) {
    m.created_unix_ns = created->get<int64_t>();
  }
  return m;
}

absl::Status NoDatasetAt(const std::string& shown) {
  return absl::NotFoundError(absl::StrCat(
      "no dataset at ", shown, ": it holds no ", kDatasetManifestName,
      "; make one with `ckptbench datagen` (dataset.path), or read your own "
      "with dataset.source=listed"));
}

absl::Status CheckManifestTotals(const DatasetManifest& m,
                                 const std::string& what) {
  const DatasetTotals want = ComputeTotals(m.spec);
  for (const auto& [field, got, layout] :
       {std::tuple<const char*, uint64_t, uint64_t>{"objects", m.totals.objects,
                                                    want.objects},
        {"bytes", m.totals.bytes, want.bytes},
        {"samples_bytes", m.totals.sample_bytes, want.sample_bytes}}) {
    if (got != layout) {
      return absl::DataLossError(absl::StrCat(
          what, ": '", field, "' is ", got, ", but the dataset its numbers ",
          "describe has ", layout,
          " (an edited manifest, or not one ckptbench wrote)"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckManifestMatches(const DatasetManifest& m,
                                  const DatasetSpec& spec,
                                  const std::string& where) {
  std::vector<std::string> diff;
  auto cmp = [&](const char* key, uint64_t have, uint64_t want) {
    if (have != want) {
      diff.push_back(absl::StrCat(key, " ", have, " (asked: ", want, ")"));
    }
  };
  if (m.spec.format != spec.format) {
    diff.push_back(
        absl::StrFormat("format %s (asked: %s)", m.spec.format, spec.format));
  }
  cmp("samples", m.spec.samples, spec.samples);
  cmp("sample_bytes", m.spec.sample_bytes, spec.sample_bytes);
  cmp("sample_spread", m.spec.sample_spread, spec.sample_spread);
  if (spec.format == DatasetFormat::kTar) {
    cmp("shard_bytes", m.spec.shard_bytes, spec.shard_bytes);
  } else {
    cmp("spread_prefixes", m.spec.spread_prefixes, spec.spread_prefixes);
  }
  cmp("seed", m.spec.seed, spec.seed);
  if (diff.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the dataset at ", where,
      " is another one than asked for: ", absl::StrJoin(diff, ", "),
      "; use another dataset path, or remove it first (ckptbench datagen "
      "--remove)"));
}

}  // namespace ckpt
