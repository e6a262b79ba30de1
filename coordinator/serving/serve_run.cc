// ServeRun (coordinator/serving/serve_run.h).
#include "coordinator/serving/serve_run.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/log.h"
#include "common/serving/serve_job.h"
#include "common/serving/serve_options.h"
#include "common/status_macros.h"
#include "coordinator/client_check.h"
#include "coordinator/round/round_protocol.h"
#include "coordinator/serving/serve_round.h"

namespace ckpt {
namespace {

constexpr std::string_view kLargerModel =
    "a larger model (model.name, serve.dtype)";

absl::StatusOr<ServePlan> PlanOf(RunContext& ctx) {
  const Config& config = ctx.config();
  const ServeOptions& serve = ServeOf(config);
  ServePlan plan;
  plan.run_id = ctx.run_id();
  plan.uri = ServeModelPath(config);
  plan.node_local = config.storage.node_local;
  plan.generated = serve.source == DatasetSource::kCkptbench;
  plan.model.preset = config.model.name;
  plan.model.num_layers = config.model.num_layers;
  plan.model.dtype = serve.dtype;
  plan.model.file_bytes = serve.file_bytes;
  plan.model.seed = serve.seed;
  if (plan.generated && !serve.remove) {
    ASSIGN_OR_RETURN(const GeneratedFiles files,
                     GeneratedModelFiles(plan.model));
    plan.model_bytes = files.bytes;
    plan.model_files = files.files.size();
  }
  plan.ranks = static_cast<uint32_t>(config.RanksPerNode());
  plan.read_mode = serve.read_mode;
  plan.split = serve.split;
  plan.concurrency = static_cast<uint32_t>(serve.concurrency);
  plan.chunk_bytes = serve.chunk_bytes;
  plan.download_path = serve.download_path;
  plan.hold = serve.hold;
  plan.on_gpu = config.cluster.accelerator == Accelerator::kGpu;
  plan.stagger_seconds = serve.stagger_seconds;
  plan.write_threads = static_cast<uint32_t>(serve.write_threads);
  plan.block_size = config.io.block_size;
  plan.fsync = config.io.fsync;
  plan.cache_mode =
      config.io.direct_read ? CacheMode::kDirect : config.io.cache_mode;
  plan.backend = ctx.backend();
  return plan;
}

}  // namespace

absl::Status ServeRun::Preflight(RunContext& ctx, RunResult* result) {
  // Loading into GPU memory: every node has one, before a model is made.
  if (ctx.config().cluster.accelerator == Accelerator::kGpu &&
      !ServeOf(ctx.config()).remove) {
    RETURN_IF_ERROR(ctx.CheckGpusOnEveryNode(result));
  }
  return absl::OkStatus();
}

absl::Status ServeRun::Run(RunContext& ctx, RunResult* result) {
  ASSIGN_OR_RETURN(const ServePlan plan, PlanOf(ctx));
  const ServeOptions& serve = ServeOf(ctx.config());
  auto model = std::make_shared<ServingModelResult>();
  model->uri = plan.uri;
  model->source = serve.source;
  if (plan.generated) {
    model->preset = plan.model.preset;
    model->dtype = plan.model.dtype;
    model->file_bytes = plan.model.file_bytes;
    model->seed = plan.model.seed;
    model->bytes = plan.model_bytes;
  }
  result->sections[kServingModelSection] = model;
  RoundProtocol protocol(ctx.nodes(), ctx.progress(),
                         ctx.config().run.progress_interval);
  auto run_round = [&](ServeAction action, int index) -> absl::Status {
    ServeRound round(ctx.nodes(), plan, action, index, model.get());
    result->rounds.push_back(protocol.Run(round, ctx.NextRound()));
    RoundResult& r = result->rounds.back();
    if (r.status != RunStatus::kOk) {
      ctx.Publish(result);
      return absl::AbortedError(r.error);
    }
    if (action != ServeAction::kRemove &&
        !(action == ServeAction::kMake && model->reused)) {
      FlagShortPhase(&r, kLargerModel);
      FlagClientBound(&r);
    }
    ctx.Publish(result);
    return absl::OkStatus();
  };
  if (serve.remove) {
    RETURN_IF_ERROR(run_round(ServeAction::kRemove, 0));
    LOG_INFO("removed the model at %s", plan.uri);
    return absl::OkStatus();
  }
  if (plan.generated) {
    RETURN_IF_ERROR(run_round(ServeAction::kMake, 1));
    if (model->reused) {
      result->notes.push_back(absl::StrCat(
          "the model at ", plan.uri,
          " is there already (its manifest matches): reused, nothing "
          "written"));
    } else {
      LOG_INFO("serve: made the model, %d files, %s, %.3f s",
               model->written_files, FormatBytes(model->written_bytes),
               model->written_seconds);
    }
  }
  for (int i = 1; i <= serve.loads && !ctx.interrupted(); ++i) {
    RETURN_IF_ERROR(run_round(ServeAction::kLoad, i));
  }
  return absl::OkStatus();
}

}  // namespace ckpt
