// Storage locations as the configuration names them: a path,
// file:///PATH, s3://BUCKET[/PREFIX] or gs://BUCKET[/PREFIX]; checked
// before any round, with the placeholders the manifests ship refused.
#ifndef CKPTBENCH_COMMON_STORAGE_URI_H_
#define CKPTBENCH_COMMON_STORAGE_URI_H_

#include <string>

#include "absl/status/status.h"

namespace ckpt {

// With storage.node_local, "{node}" in a storage path stands for the node's
// index, so nodes sharing one host keep separate directories.
std::string ForNode(const std::string& uri, int node);

// True for s3:// and gs:// locations.
bool IsObjectStoreUri(const std::string& uri);
// A storage location is a path, file:///PATH, s3://BUCKET[/PREFIX] or
// gs://BUCKET[/PREFIX]; an object-store URI without a bucket or a file URI
// with a host is an error naming `name` (it would otherwise be taken for a
// relative local path).
absl::Status CheckStorageUri(const std::string& name, const std::string& v);

// An endpoint URL (s3.endpoint, gcs.endpoint): refused when its host is a
// placeholder under .invalid (RFC 2606), naming `key`.
absl::Status CheckEndpoint(const std::string& key, const std::string& v);

// Whether two storage locations (paths, file://, s3:// or gs:// URIs)
// overlap: one is the other or holds it, by whole path components
// (relative paths taken from the working directory, "." and ".." folded).
bool LocationsOverlap(const std::string& a, const std::string& b);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_STORAGE_URI_H_
