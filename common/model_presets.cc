#include "common/model_presets.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/bytes.h"
#include "common/text.h"

namespace ckpt {
namespace {

TensorSpec T(std::string name, std::vector<uint64_t> shape,
             Dtype dtype = kFp32) {
  TensorSpec t;
  t.name = std::move(name);
  t.dtype = dtype.name;
  t.dtype_bytes = dtype.bytes;
  t.shape = std::move(shape);
  return t;
}

void AddLinear(std::vector<TensorSpec>& v, const std::string& p, uint64_t out,
               uint64_t in) {
  v.push_back(T(p + ".weight", {out, in}));
  v.push_back(T(p + ".bias", {out}));
}

void AddNorm(std::vector<TensorSpec>& v, const std::string& p, uint64_t d) {
  v.push_back(T(p + ".weight", {d}));
  v.push_back(T(p + ".bias", {d}));
}

void AddMha(std::vector<TensorSpec>& v, const std::string& p, uint64_t d) {
  v.push_back(T(p + ".in_proj_weight", {3 * d, d}));
  v.push_back(T(p + ".in_proj_bias", {3 * d}));
  AddLinear(v, p + ".out_proj", d, d);
}

// lightning.pytorch.demos.Transformer (the GCS checkpoint benchmark's
// DemoTransformer): vocab 33278 (WikiText2), d_model 200, 2 heads,
// feed-forward 200, nn.Transformer with `layers` encoder and decoder layers.
std::vector<TensorSpec> DemoTransformer(uint64_t layers) {
  const uint64_t v = 33278, d = 200, ff = 200;
  std::vector<TensorSpec> t;
  t.push_back(T("embedding.weight", {v, d}));
  for (uint64_t i = 0; i < layers; ++i) {
    std::string p = absl::StrCat("transformer.encoder.layers.", i);
    AddMha(t, p + ".self_attn", d);
    AddLinear(t, p + ".linear1", ff, d);
    AddLinear(t, p + ".linear2", d, ff);
    AddNorm(t, p + ".norm1", d);
    AddNorm(t, p + ".norm2", d);
  }
  AddNorm(t, "transformer.encoder.norm", d);
  for (uint64_t i = 0; i < layers; ++i) {
    std::string p = absl::StrCat("transformer.decoder.layers.", i);
    AddMha(t, p + ".self_attn", d);
    AddMha(t, p + ".multihead_attn", d);
    AddLinear(t, p + ".linear1", ff, d);
    AddLinear(t, p + ".linear2", d, ff);
    AddNorm(t, p + ".norm1", d);
    AddNorm(t, p + ".norm2", d);
    AddNorm(t, p + ".norm3", d);
  }
  AddNorm(t, "transformer.decoder.norm", d);
  AddLinear(t, "decoder", v, d);
  return t;
}

// ViT-B/16 at 224x224 with a 1000-class head (timm vit_base_patch16_224).
std::vector<TensorSpec> VitBase() {
  const uint64_t d = 768, mlp = 3072, patches = 196, classes = 1000;
  std::vector<TensorSpec> t;
  t.push_back(T("cls_token", {1, 1, d}));
  t.push_back(T("pos_embed", {1, patches + 1, d}));
  t.push_back(T("patch_embed.proj.weight", {d, 3, 16, 16}));
  t.push_back(T("patch_embed.proj.bias", {d}));
  for (int i = 0; i < 12; ++i) {
    std::string p = absl::StrCat("blocks.", i);
    AddNorm(t, p + ".norm1", d);
    AddLinear(t, p + ".attn.qkv", 3 * d, d);
    AddLinear(t, p + ".attn.proj", d, d);
    AddNorm(t, p + ".norm2", d);
    AddLinear(t, p + ".mlp.fc1", mlp, d);
    AddLinear(t, p + ".mlp.fc2", d, mlp);
  }
  AddNorm(t, "norm", d);
  AddLinear(t, "head", classes, d);
  return t;
}

struct MlperfRow {
  const char* name;
  int tp, pp, dp, zero;
  double size;  // in `unit`
  uint64_t unit;
  const char* size_text;
};

// MLPerf Storage v2.0 Submission guidelines, Table 2.
constexpr MlperfRow kMlperf[] = {
    {"llama3-8b", 1, 1, 8, 3, 105, kGiB, "105 GB"},
    {"llama3-70b", 8, 1, 8, 3, 912, kGiB, "912 GB"},
    {"llama3-405b", 8, 32, 2, 1, 5.29, kTiB, "5.29 TB"},
    {"llama3-1t", 8, 64, 2, 1, 18, kTiB, "18 TB"},
};

struct LlamaRow {
  const char* name;
  LlamaShape shape;
};

// s3torchbenchmarking DCP FSDP benchmark (llama_model_config.py): vocab 50432.
constexpr LlamaRow kLlama[] = {
    {"llama-7b", {4096, 11008, 32, 32, 32, 50432}},
    {"llama-13b", {5120, 13824, 40, 40, 40, 50432}},
    {"llama-30b", {6656, 17920, 60, 52, 52, 50432}},
    {"llama-65b", {8192, 22016, 80, 64, 64, 50432}},
    {"llama-70b", {8192, 28672, 80, 64, 8, 50432}},
};

// Llama 3.1 as published: the config.json of meta-llama/Llama-3.1-8B and
// Llama-3.1-70B (head dim 128, 8 KV heads, vocab 128256, untied
// embeddings): 8,030,261,248 and 70,553,706,496 parameters.
constexpr LlamaRow kLlama31[] = {
    {"llama-3.1-8b", {4096, 14336, 32, 32, 8, 128256}},
    {"llama-3.1-70b", {8192, 28672, 80, 64, 8, 128256}},
};

// Not a published model: Llama 3's layout (grouped KV heads, untied
// embeddings) at 4.3 MB in bf16, for smoke runs and tests.
constexpr LlamaRow kLlamaTiny{"llama-3-tiny", {256, 512, 2, 4, 2, 2048}};

}  // namespace

std::vector<TensorSpec> LlamaTensors(const LlamaShape& s, Dtype dtype) {
  const uint64_t h = s.hidden, kv = s.hidden / s.heads * s.kv_heads;
  std::vector<TensorSpec> t;
  t.push_back(T("model.embed_tokens.weight", {s.vocab, h}, dtype));
  for (uint64_t i = 0; i < s.layers; ++i) {
    std::string p = absl::StrCat("model.layers.", i);
    t.push_back(T(p + ".self_attn.q_proj.weight", {h, h}, dtype));
    t.push_back(T(p + ".self_attn.k_proj.weight", {kv, h}, dtype));
    t.push_back(T(p + ".self_attn.v_proj.weight", {kv, h}, dtype));
    t.push_back(T(p + ".self_attn.o_proj.weight", {h, h}, dtype));
    t.push_back(T(p + ".mlp.gate_proj.weight", {s.ffn, h}, dtype));
    t.push_back(T(p + ".mlp.up_proj.weight", {s.ffn, h}, dtype));
    t.push_back(T(p + ".mlp.down_proj.weight", {h, s.ffn}, dtype));
    t.push_back(T(p + ".input_layernorm.weight", {h}, dtype));
    t.push_back(T(p + ".post_attention_layernorm.weight", {h}, dtype));
  }
  t.push_back(T("model.norm.weight", {h}, dtype));
  t.push_back(T("lm_head.weight", {s.vocab, h}, dtype));
  return t;
}

namespace {

ModelPreset DemoPreset(int num_layers) {
  ModelPreset p;
  p.weights = DemoTransformer(static_cast<uint64_t>(num_layers));
  p.description =
      absl::StrCat("Lightning demo Transformer, ", num_layers,
                   " encoder + decoder layers, d_model 200, vocab 33278, fp32");
  return p;
}

ModelPreset VitPreset(int /*num_layers*/) {
  ModelPreset p;
  p.weights = VitBase();
  p.description = "ViT-B/16 224x224, 1000 classes, fp32";
  return p;
}

// The presets that are one model each (the Llama and MLPerf rows are
// tables of their own).
struct NamedPreset {
  const char* name;
  ModelPreset (*make)(int num_layers);
};
constexpr NamedPreset kNamed[] = {{"transformer", DemoPreset},
                                  {"vit-base", VitPreset}};

}  // namespace

std::vector<std::string> PresetNames() {
  std::vector<std::string> names;
  for (const auto& r : kNamed) names.push_back(r.name);
  for (const auto& r : kLlama) names.push_back(r.name);
  for (const auto& r : kLlama31) names.push_back(r.name);
  names.push_back(kLlamaTiny.name);
  for (const auto& r : kMlperf) names.push_back(r.name);
  return names;
}

absl::StatusOr<ModelPreset> MakePreset(const std::string& name,
                                       int num_layers) {
  ModelPreset p;
  p.name = name;
  for (const auto& r : kNamed) {
    if (name == r.name) {
      p = r.make(num_layers);
      p.name = name;
      return p;
    }
  }
  for (const auto& r : kLlama) {
    if (name == r.name) {
      p.weights = LlamaTensors(r.shape, kFp32);
      p.head_dim = r.shape.hidden / r.shape.heads;
      p.llama = r.shape;
      p.description = absl::StrCat(
          "Llama (DCP benchmark shape) hidden ", r.shape.hidden, ", ffn ",
          r.shape.ffn, ", ", r.shape.layers, " layers, ", r.shape.heads,
          " heads / ", r.shape.kv_heads, " kv heads, vocab 50432, fp32");
      return p;
    }
  }
  for (const auto& r : kLlama31) {
    if (name == r.name) {
      p.weights = LlamaTensors(r.shape, kFp32);
      p.head_dim = r.shape.hidden / r.shape.heads;
      p.llama = r.shape;
      p.description = absl::StrCat(
          "Llama 3.1 shapes as published (fp32 here, as a "
          "checkpoint holds them; published in bf16): hidden ",
          r.shape.hidden, ", ffn ", r.shape.ffn, ", ", r.shape.layers,
          " layers, ", r.shape.heads, " heads / ", r.shape.kv_heads,
          " kv heads, vocab ", r.shape.vocab, ", fp32");
      return p;
    }
  }
  if (name == kLlamaTiny.name) {
    const LlamaShape& s = kLlamaTiny.shape;
    p.weights = LlamaTensors(s, kFp32);
    p.head_dim = s.hidden / s.heads;
    p.llama = s;
    p.description = absl::StrCat(
        "a Llama 3 layout at toy size, for smoke runs and tests: hidden ",
        s.hidden, ", ffn ", s.ffn, ", ", s.layers, " layers, ", s.heads,
        " heads / ", s.kv_heads, " kv heads, vocab ", s.vocab, ", fp32");
    return p;
  }
  for (const auto& r : kMlperf) {
    if (name == r.name) {
      p.is_mlperf = true;
      p.mlperf.tp = r.tp;
      p.mlperf.pp = r.pp;
      p.mlperf.dp = r.dp;
      p.mlperf.zero_stage = r.zero;
      double bytes = r.size * static_cast<double>(r.unit);
      p.mlperf.parameters = static_cast<uint64_t>(std::llround(bytes / 14.0));
      p.description =
          absl::StrCat("MLPerf Storage checkpoint ", r.name, ": ", r.size_text,
                       " (1024-based), TPxPPxDP ", r.tp, "x", r.pp, "x", r.dp,
                       ", ZeRO-", r.zero, ", bf16 weights + fp32 Adam state");
      return p;
    }
  }
  std::string msg = absl::StrCat("unknown model preset '", name, "'");
  std::string near = ClosestMatch(name, PresetNames());
  if (!near.empty()) absl::StrAppend(&msg, "; did you mean '", near, "'?");
  absl::StrAppend(&msg, " expected one of ",
                  absl::StrJoin(PresetNames(), ", "));
  return absl::InvalidArgumentError(msg);
}

}  // namespace ckpt
