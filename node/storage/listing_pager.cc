#include "node/storage/listing_pager.h"

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/status_macros.h"
#include "common/text.h"

namespace ckpt {

ListingPager::ListingPager(const ListingBounds& bounds, std::string shown,
                           std::string token_name)
    : bounds_(bounds),
      shown_(EscapeForTerminal(shown)),
      token_name_(std::move(token_name)) {}

std::string ListingPager::Key(const char* name, const char* env) const {
  if (bounds_.keys.empty()) return "";
  return absl::StrCat(bounds_.keys, name, " (", env, ")");
}

absl::Status ListingPager::Exceeded(const std::string& what, uint64_t bound,
                                    const std::string& key) const {
  return absl::ResourceExhaustedError(absl::StrCat(
      "listing ", shown_, ": more than ", what, " ", bound, " after ", pages_,
      " page(s) (", entries_, " entries, ", FormatBytes(bytes_),
      " of answers); expected a smaller listing",
      key.empty() ? "" : absl::StrCat(", or a larger ", key)));
}

absl::Status ListingPager::BeforePage() {
  if (bounds_.abort != nullptr &&
      bounds_.abort->load(std::memory_order_relaxed)) {
    return absl::AbortedError(absl::StrCat("listing ", shown_,
                                           ": stopped after ", pages_,
                                           " page(s): the run was aborted"));
  }
  if (pages_ >= bounds_.max_pages) {
    return Exceeded("the pages allowed,", bounds_.max_pages,
                    Key("pages", "CKPT_LIST_MAX_PAGES"));
  }
  if (bytes_ >= bounds_.max_bytes) {
    return Exceeded("the bytes all pages may have,", bounds_.max_bytes,
                    Key("bytes", "CKPT_LIST_MAX_BYTES"));
  }
  ++pages_;
  return absl::OkStatus();
}

uint64_t ListingPager::PageCeiling() const {
  const uint64_t left =
      bounds_.max_bytes > bytes_ ? bounds_.max_bytes - bytes_ : 0;
  return std::max<uint64_t>(1, std::min(bounds_.max_page_bytes, left));
}

absl::Status ListingPager::AfterPage(uint64_t body_bytes, uint64_t entries,
                                     uint64_t name_bytes, bool truncated,
                                     const std::string& token) {
  bytes_ += body_bytes;
  entries_ += entries;
  name_bytes_ += name_bytes;
  if (body_bytes > bounds_.max_page_bytes) {
    return Exceeded("the bytes one page may have,", bounds_.max_page_bytes,
                    Key("page_bytes", "CKPT_LIST_MAX_PAGE_BYTES"));
  }
  if (bytes_ > bounds_.max_bytes) {
    return Exceeded("the bytes all pages may have,", bounds_.max_bytes,
                    Key("bytes", "CKPT_LIST_MAX_BYTES"));
  }
  if (entries_ > bounds_.max_entries) {
    return Exceeded("the objects and prefixes allowed,", bounds_.max_entries,
                    Key("objects", "CKPT_LIST_MAX_OBJECTS"));
  }
  if (name_bytes_ > bounds_.max_name_bytes) {
    return Exceeded("the bytes of names allowed,", bounds_.max_name_bytes,
                    Key("key_bytes", "CKPT_LIST_MAX_KEY_BYTES"));
  }
  const uint64_t held = entries_ * kListedEntryBytes + name_bytes_;
  if (bounds_.memory_bytes != 0 && held > bounds_.memory_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "listing ", shown_, ": its ", entries_, " entries would hold ",
        FormatBytes(held), " after ", pages_, " page(s), more than the ",
        FormatBytes(bounds_.memory_bytes),
        " (80% of the memory available) this node may use for it; expected "
        "a smaller listing, or a node with more memory"));
  }
  if (!truncated) {
    // A last page with a token is a server that does not say what it
    // means: the listing ends here, as every client reads it.
    return absl::OkStatus();
  }
  if (token.empty()) {
    return absl::DataLossError(
        absl::StrCat("listing ", shown_, ": page ", pages_,
                     " says more follows but gives no ", token_name_));
  }
  if (token.size() > kMaxListToken) {
    return absl::DataLossError(absl::StrCat(
        "listing ", shown_, ": page ", pages_, " gives a ", token_name_, " of ",
        token.size(), " bytes; expected at most ", kMaxListToken));
  }
  if (!tokens_.insert(std::hash<std::string>{}(token)).second) {
    return absl::DataLossError(absl::StrCat(
        "listing ", shown_, ": page ", pages_, " gives the ", token_name_, " '",
        EscapeForTerminal(token.substr(0, 64)), token.size() > 64 ? "..." : "",
        "' a page before it gave: the listing would never end"));
  }
  empty_in_a_row_ = entries == 0 ? empty_in_a_row_ + 1 : 0;
  if (empty_in_a_row_ > kMaxEmptyListPages) {
    return absl::DataLossError(
        absl::StrCat("listing ", shown_, ": more than ", kMaxEmptyListPages,
                     " empty pages in a row, each with a ", token_name_));
  }
  return absl::OkStatus();
}

absl::Status PageThrough(ListingPager& pager, const PageFetch& fetch,
                         const PageParser& parse) {
  std::string token;
  for (;;) {
    RETURN_IF_ERROR(pager.BeforePage());
    ASSIGN_OR_RETURN(const std::string body, fetch(token, pager.PageCeiling()));
    ASSIGN_OR_RETURN(PageTally t, parse(body));
    RETURN_IF_ERROR(pager.AfterPage(body.size(), t.entries, t.name_bytes,
                                    t.truncated, t.token));
    if (!t.truncated) return absl::OkStatus();
    token = std::move(t.token);
  }
}

}  // namespace ckpt
