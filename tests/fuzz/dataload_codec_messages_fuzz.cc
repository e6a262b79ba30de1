// libFuzzer target: the readers this codec adds for what a node sends
// about its dataload epoch (wire/dataload_report_codec.h), fed as hostile
// bytes: the first byte picks the reader (a DataloadReport, an
// EpochSaveAsk, an EpochSaveAnswer), the rest is the message. Each either
// refuses the bytes or decodes them into values that encode and decode
// again to the same bytes (nothing held that the wire cannot carry, nothing
// carried that was not held); a report's histograms are ones Histogram
// can hold (merged and read without undefined behaviour). Nothing may
// crash, leak or be undefined.
//
// Seeds (tests/fuzz/corpus/dataload_codec_messages): a report with a rank,
// a worker, a save and latencies; a start, a saved and a finished ask; an
// answer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "wire/dataload_report_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ckpt;
  if (size == 0) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      auto r = DecodeDataloadReport(bytes);
      if (!r.ok()) return 0;
      Histogram all;
      for (const auto& e : r->ranks) all.Merge(e.wait);
      all.Merge(r->sample_first_byte);
      all.Merge(r->sample_last_byte);
      (void)all.Percentile(0.99);
      const std::string once = EncodeDataloadReport(*r);
      auto again = DecodeDataloadReport(once);
      if (!again.ok() || EncodeDataloadReport(*again) != once) std::abort();
      break;
    }
    case 1: {
      auto a = DecodeEpochSaveAsk(bytes);
      if (!a.ok()) return 0;
      if (a->save == 0) std::abort();  // refused above
      if (!a->unheld.ok()) return 0;   // its save fails; nothing re-sent
      const std::string once = EncodeEpochSaveAsk(*a);
      auto again = DecodeEpochSaveAsk(once);
      if (!again.ok() || !again->unheld.ok() ||
          EncodeEpochSaveAsk(*again) != once) {
        std::abort();
      }
      break;
    }
    default: {
      auto a = DecodeEpochSaveAnswer(bytes);
      if (!a.ok()) return 0;
      auto again = DecodeEpochSaveAnswer(EncodeEpochSaveAnswer(*a));
      if (!again.ok() || !(*again == *a)) std::abort();
      break;
    }
  }
  return 0;
}
