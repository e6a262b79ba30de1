// Text both object-store backends put into HTTP requests: header and query
// lists, and RFC 3986 percent-encoding (S3's SigV4 canonical form and GCS's
// object paths use the same rule). Pure functions; thread-safe.
#ifndef CKPTBENCH_NODE_STORAGE_HTTP_TEXT_H_
#define CKPTBENCH_NODE_STORAGE_HTTP_TEXT_H_

#include <string>
#include <utility>
#include <vector>

namespace ckpt {

// Ordered name/value pairs: headers, or a query's parameters.
using HeaderList = std::vector<std::pair<std::string, std::string>>;

// Keeps the unreserved characters A-Z a-z 0-9 - _ . ~ (and '/' unless
// encode_slash); every other byte becomes %XX, upper-case hex.
std::string UriEncode(const std::string& s, bool encode_slash);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_HTTP_TEXT_H_
