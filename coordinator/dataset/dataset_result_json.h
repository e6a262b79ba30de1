// The dataset workloads' parts of result.json, written (ResultToJson) and
// read back (ResultFromJson): a dataload round's "epoch", and the run's
// sections (dataset_results.h), a datagen's "dataset" and the accelerator
// search's "accelerator_search", with their codecs.
#ifndef CKPTBENCH_COORDINATOR_DATASET_DATASET_RESULT_JSON_H_
#define CKPTBENCH_COORDINATOR_DATASET_DATASET_RESULT_JSON_H_

#include <nlohmann/json.hpp>

#include "coordinator/dataset/dataset_results.h"
#include "coordinator/result_fields.h"
#include "coordinator/results.h"

namespace ckpt {

nlohmann::ordered_json EpochJson(const EpochResult& e);
nlohmann::ordered_json DatasetJson(const DatasetResult& d);
nlohmann::ordered_json AcceleratorSearchJson(const AcceleratorSearchResult& a);

void ReadEpoch(const Fields& f, EpochResult* e);
void ReadDataset(const Fields& f, DatasetResult* d);
void ReadAcceleratorSearch(const Fields& f, AcceleratorSearchResult* a);

// The sections' codecs, registered with datagen and dataload: the run's
// placed before the rounds, the epoch at its round's head; each read back
// as its type.
ResultSectionCodec DatasetSectionCodec();
ResultSectionCodec AcceleratorSearchSectionCodec();
ResultSectionCodec EpochSectionCodec();

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_DATASET_RESULT_JSON_H_
