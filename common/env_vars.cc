#include "common/env_vars.h"

namespace ckpt {

const std::vector<EnvVarDef>& OtherEnvVars() {
  static const std::vector<EnvVarDef> kVars = {
      {"JOB_COMPLETION_INDEX", "node index (Indexed Job / JobSet pod)"},
      {"NODE_RANK", "node index (torchrun-style launchers)"},
      {"KUBERNETES_SERVICE_HOST",
       "set in every Kubernetes pod: a register timeout then says where to "
       "look"},
      {"JOBSET_NAME",
       "the JobSet's name (deploy/k8s, from its pod label): named in the "
       "register-timeout hint and in --results-dir ${JOBSET_NAME}"},
      {"JOBSET_UID",
       "the JobSet's uid (deploy/k8s, from its pod label): in --results-dir "
       "${JOBSET_UID}"},
      {"HOME", "where ~/.aws and ~/.config/gcloud are looked up"},
      // AWS credential and endpoint chain.
      {"AWS_ACCESS_KEY_ID", "S3 static credentials"},
      {"AWS_SECRET_ACCESS_KEY", "S3 static credentials (secret)"},
      {"AWS_SESSION_TOKEN", "S3 temporary credentials (secret)"},
      {"AWS_PROFILE", "profile in the shared credentials file"},
      {"AWS_SHARED_CREDENTIALS_FILE", "shared credentials file"},
      {"AWS_DEFAULT_REGION",
       "s3.region while it is us-east-1 after every source (the "
       "coordinator's configuration reads it)"},
      {"AWS_ENDPOINT_URL",
       "s3.endpoint while it is empty after every source (the coordinator's "
       "configuration reads it)"},
      {"AWS_ROLE_ARN", "IRSA: role to assume with a web identity"},
      {"AWS_WEB_IDENTITY_TOKEN_FILE", "IRSA: projected token file"},
      {"AWS_ROLE_SESSION_NAME", "IRSA: session name"},
      {"AWS_ENDPOINT_URL_STS", "STS endpoint for IRSA"},
      {"AWS_CONTAINER_CREDENTIALS_FULL_URI",
       "EKS Pod Identity / ECS credential endpoint"},
      {"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "ECS credential endpoint"},
      {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "credential endpoint token"},
      {"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "EKS Pod Identity token file"},
      {"AWS_EC2_METADATA_DISABLED", "true: never ask the instance metadata"},
      {"AWS_EC2_METADATA_SERVICE_ENDPOINT", "instance metadata endpoint"},
      // Google credential chain.
      {"STORAGE_EMULATOR_HOST",
       "GCS emulator: gcs.endpoint while empty and gcs.anonymous (the "
       "coordinator's configuration reads it); a node's own: no credentials"},
      {"GOOGLE_OAUTH_ACCESS_TOKEN", "GCS bearer token (secret)"},
      {"GOOGLE_APPLICATION_CREDENTIALS", "GCS key or ADC file"},
      {"CLOUDSDK_CONFIG", "gcloud configuration directory"},
      {"GCE_METADATA_HOST", "metadata server host (workload identity)"},
      {"GCE_METADATA_IP", "metadata server address"},
      {"NO_GCE_CHECK", "true: never ask the metadata server"},
      {"METADATA_SERVER_DETECTION", "none: never ask the metadata server"},
  };
  return kVars;
}

}  // namespace ckpt
