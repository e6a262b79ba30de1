// Helpers that build KeyDefs (config.h), shared by the files that define
// the keys: config_run_keys.cc (general keys), config_store_keys.cc (s3.*,
// gcs.*) and each workload's own (common/checkpoint/checkpoint_keys.cc,
// common/dataset/dataset_keys.cc). Internal to common/.
#ifndef CKPTBENCH_COMMON_CONFIG_KEYS_H_
#define CKPTBENCH_COMMON_CONFIG_KEYS_H_

#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/bytes.h"
#include "common/config.h"
#include "common/kinds.h"

namespace ckpt {
namespace keydefs {

absl::Status Expect(const std::string& what);
// "an integer from MIN to MAX": every integer key states both bounds.
std::string IntRange(int min, int max);
absl::Status ParseInt(const std::string& v, int min, int* out);
absl::Status ParseU64(const std::string& v, uint64_t* out);
absl::Status ParseBool(const std::string& v, bool* out);
absl::Status ParseEnum(const std::string& v,
                       const std::vector<std::string>& allowed,
                       std::string* out);
std::string BoolStr(bool b);
// "5MiB", "256KiB", "1GiB" for whole units, else bytes ("1000").
std::string SizeText(uint64_t bytes);
// A duration: seconds ("90", "1.5") or a number with a unit s, m, h or d
// ("30m", "24h", "7d"), >= 0 and at most 10 years; *out in seconds.
absl::Status ParseDuration(const std::string& v, double* out);

// A KeyDef with its names and texts; set and get are the caller's.
inline KeyDef NewKey(std::string key, std::string env, std::string expected,
                     std::string desc) {
  KeyDef k;
  k.key = std::move(key);
  k.env = std::move(env);
  k.expected = std::move(expected);
  k.description = std::move(desc);
  return k;
}

template <typename Member>
KeyDef SecondsKey(std::string key, std::string env, Member member,
                  std::string desc) {
  KeyDef k = NewKey(std::move(key), std::move(env), "seconds, a number > 0",
                    std::move(desc));
  k.set = [member](Config& c, const std::string& v) -> absl::Status {
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(d > 0) || d > 1e7) {
      return Expect("seconds, a number > 0");
    }
    member(c) = d;
    return absl::OkStatus();
  };
  k.get = [member](const Config& c) { return absl::StrCat(member(c)); };
  return k;
}

// A duration (ParseDuration); 0 means off.
template <typename Member>
KeyDef DurationKey(std::string key, std::string env, Member member,
                   std::string desc) {
  KeyDef k = NewKey(std::move(key), std::move(env),
                    "a duration >= 0: seconds, or a number with s, m, h or d "
                    "such as 90, 30m or 24h",
                    std::move(desc));
  k.set = [member](Config& c, const std::string& v) {
    return ParseDuration(v, &member(c));
  };
  k.get = [member](const Config& c) { return absl::StrCat(member(c)); };
  return k;
}

// A duration from 0 to `max` seconds (the bound the node checks too, where
// it receives the value).
template <typename Member>
KeyDef DurationKey(std::string key, std::string env, double max, Member member,
                   std::string desc) {
  const std::string expected = absl::StrCat(
      "a duration from 0 to ", max,
      " s: seconds, or a number with s, m or h such as 0.05 or 2m");
  KeyDef k = NewKey(std::move(key), std::move(env), expected, std::move(desc));
  k.set = [max, expected, member](Config& c, const std::string& v) {
    double d = 0;
    if (!ParseDuration(v, &d).ok() || d > max) return Expect(expected);
    member(c) = d;
    return absl::OkStatus();
  };
  k.get = [member](const Config& c) { return absl::StrCat(member(c)); };
  return k;
}

// An integer from min to max (the bound the node checks too, where it
// receives the value: one constant for both).
template <typename Member>
KeyDef IntKey(std::string key, std::string env, int min, int max, Member member,
              std::string desc) {
  const std::string expected = IntRange(min, max);
  KeyDef k = NewKey(std::move(key), std::move(env), expected, std::move(desc));
  k.set = [min, max, expected, member](Config& c, const std::string& v) {
    int n = 0;
    if (!ParseInt(v, min, &n).ok() || n > max) return Expect(expected);
    member(c) = n;
    return absl::OkStatus();
  };
  k.get = [member](const Config& c) { return std::to_string(member(c)); };
  return k;
}

template <typename Member>
KeyDef IntKey(std::string key, std::string env, int min, Member member,
              std::string desc) {
  return IntKey(std::move(key), std::move(env), min,
                std::numeric_limits<int>::max(), std::move(member),
                std::move(desc));
}

// A count (a uint64) from min to max.
template <typename Member>
KeyDef CountKey(std::string key, std::string env, uint64_t min, uint64_t max,
                Member member, std::string desc) {
  const std::string expected =
      absl::StrCat("an integer from ", min, " to ", max);
  KeyDef k = NewKey(std::move(key), std::move(env), expected, std::move(desc));
  k.set = [min, max, expected, member](Config& c, const std::string& v) {
    uint64_t n = 0;
    if (!ParseU64(v, &n).ok() || n < min || n > max) return Expect(expected);
    member(c) = n;
    return absl::OkStatus();
  };
  k.get = [member](const Config& c) { return std::to_string(member(c)); };
  return k;
}

// "auto" (stored as -1) or an integer from min to max (no upper bound when
// max is INT_MAX).
template <typename Member>
KeyDef AutoIntKey(std::string key, std::string env, int min, int max,
                  Member member, std::string desc) {
  const std::string expected = absl::StrCat("auto or ", IntRange(min, max));
  KeyDef k = NewKey(std::move(key), std::move(env), expected, std::move(desc));
  k.set = [min, max, expected, member](Config& c, const std::string& v) {
    if (v == "auto") {
      member(c) = -1;
      return absl::OkStatus();
    }
    int n = 0;
    if (!ParseInt(v, min, &n).ok() || n > max) return Expect(expected);
    member(c) = n;
    return absl::OkStatus();
  };
  k.get = [member](const Config& c) {
    const int n = member(c);
    return n < 0 ? std::string("auto") : std::to_string(n);
  };
  return k;
}

template <typename Member>
KeyDef BoolKey(std::string key, std::string env, Member member,
               std::string desc) {
  KeyDef k =
      NewKey(std::move(key), std::move(env), "true or false", std::move(desc));
  k.set = [member](Config& c, const std::string& v) {
    return ParseBool(v, &member(c));
  };
  k.get = [member](const Config& c) { return BoolStr(member(c)); };
  return k;
}

template <typename Member>
KeyDef EnumKey(std::string key, std::string env,
               std::vector<std::string> allowed, Member member,
               std::string desc) {
  KeyDef k = NewKey(std::move(key), std::move(env),
                    absl::StrCat("one of ", absl::StrJoin(allowed, ", ")),
                    std::move(desc));
  k.set = [allowed, member](Config& c, const std::string& v) {
    return ParseEnum(v, allowed, &member(c));
  };
  k.get = [member](const Config& c) { return member(c); };
  return k;
}

// A key whose value is one of the names of kind E (common/kinds.h).
template <typename E, typename Member>
KeyDef KindKey(std::string key, std::string env, Member member,
               std::string desc) {
  const std::string expected = absl::StrCat("one of ", KindNames<E>());
  KeyDef k = NewKey(std::move(key), std::move(env), expected, std::move(desc));
  k.set = [expected, member](Config& c, const std::string& v) {
    const std::optional<E> e = ParseKind<E>(v);
    if (!e) return Expect(expected);
    member(c) = *e;
    return absl::OkStatus();
  };
  k.get = [member](const Config& c) { return std::string(Name(member(c))); };
  return k;
}

template <typename Member>
KeyDef StringKey(std::string key, std::string env, std::string expected,
                 Member member, std::string desc) {
  KeyDef k = NewKey(std::move(key), std::move(env), std::move(expected),
                    std::move(desc));
  k.set = [member](Config& c, const std::string& v) {
    member(c) = v;
    return absl::OkStatus();
  };
  k.get = [member](const Config& c) { return member(c); };
  return k;
}

// A byte size ("8MiB", "262144") in [min, max], a multiple of `multiple`.
template <typename Member>
KeyDef SizeKey(std::string key, std::string env, uint64_t min, uint64_t max,
               uint64_t multiple, Member member, std::string desc) {
  std::string expected =
      absl::StrCat("a byte size from ", SizeText(min), " to ", SizeText(max));
  if (multiple > 1) {
    absl::StrAppend(&expected, ", a multiple of ", SizeText(multiple));
  }
  KeyDef k = NewKey(std::move(key), std::move(env), expected, std::move(desc));
  k.set = [expected = k.expected, min, max, multiple, member](
              Config& c, const std::string& v) -> absl::Status {
    auto s = ParseByteSize(v);
    if (!s.ok() || *s < min || *s > max || *s % multiple != 0) {
      return Expect(expected);
    }
    member(c) = *s;
    return absl::OkStatus();
  };
  k.get = [member](const Config& c) { return std::to_string(member(c)); };
  return k;
}

}  // namespace keydefs

// A flag of a workload's own command: the key=value it adds.
struct WorkloadFlag {
  std::string name;     // "--remove"
  std::string help;     // its line in `ckptbench keys --json`
  std::string applies;  // "dataset.remove=true"
};

// A workload run.workload can name: its name and what it does (the key's
// help in `ckptbench keys` says each). A workload's own keys function (e.g.
// common/dataset/dataset_keys.h), called by BuildConfigKeys, appends its
// keys and its choice. Its choice also says how the command line reaches
// it beyond run.workload: an experiment's `prepare: <name>`, and a
// command `ckptbench <name>` of its own (main/cli.cc lists both).
struct WorkloadChoice {
  std::string name;
  std::string does;
  // What it makes for a sweep's points when an experiment file says
  // `prepare: <name>` ("" = it prepares none).
  std::string prepares;
  // `ckptbench <name>`, a run of it ("" = no command of its own): its
  // lines in `ckptbench help` after run's, and its flags.
  std::vector<std::string> usage;
  std::vector<WorkloadFlag> flags;
};

// A run of a workload's keys and the key they follow in the table: where
// `ckptbench keys` lists them (the checkpoint's have always sat among the
// shared run.* keys: common/checkpoint/checkpoint_keys.h).
struct KeysAfter {
  std::string after;
  std::vector<KeyDef> keys;
};

// Every key (config_run_keys.cc), once: ConfigKeys() keeps them; and
// every workload's choice, in registration order, to `workloads`.
std::vector<KeyDef> BuildConfigKeys(std::vector<WorkloadChoice>* workloads);
// The choices BuildConfigKeys made, once (the checkpoint's first).
const std::vector<WorkloadChoice>& WorkloadChoices();
// Appends the s3.* and gcs.* keys (config_store_keys.cc).
void AddObjectStoreKeys(std::vector<KeyDef>* keys);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_CONFIG_KEYS_H_
