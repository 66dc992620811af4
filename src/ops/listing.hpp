// The listing engine: every List* operation pages through it. An operation states its sort keys
// and defaults (ListSpec); the engine reads SortBy / SortOrder / MaxResults / NextToken, orders the
// items by (sort value, unique tiebreak), applies the filters, cuts the page and writes an opaque
// NextToken that carries the full sort position of the last item the page consumed. A token is a
// position, not an offset: items added or removed between pages neither repeat nor vanish.
//
// Items come from a Source: the store (a keyset query in SQL, for sort values kept in columns) or
// a vector built in memory (for values computed from the clock, such as a plan's status). Both
// answer "the next n items after this position, in this order"; the engine does the rest.
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "domain/aws_error.hpp"
#include "ops/context.hpp"
#include "ops/json_writer.hpp"
#include "store/state_store.hpp"

namespace smemu::ops {

// Where an item stands in a listing: its sort value, then a tiebreak unique among the items of
// the listing (the lower-cased name: names are unique per kind, account and region).
struct SortPosition {
  store::SortValue value;
  std::string tiebreak;
  auto operator<=>(const SortPosition&) const = default;
};

// One sort key an operation offers: its SortBy value on the wire and the store column behind it
// (nullopt: computed, so the operation lists from memory).
struct SortKey {
  const char* wire_name;
  std::optional<store::SortField> column;
  bool numeric = false;  // a computed value that is an integer (a time in milliseconds)
};

// What a List* operation offers. `operation` is bound into its tokens: a token from another
// listing is refused.
struct ListSpec {
  const char* operation;
  std::vector<SortKey> sort_keys;  // the first is the default
  bool descending_by_default;
  int default_limit = 10;  // MaxResults when the request has none: SageMaker's List* default
};

// A request's paging parameters, read and checked.
struct ListRequest {
  const SortKey* sort = nullptr;
  bool descending = true;
  int limit = 10;
  bool limit_given = false;  // MaxResults was in the request
  std::optional<SortPosition> after;
};

// Reads SortBy, SortOrder, MaxResults and NextToken. The model has already checked the enums and
// ranges; a token that is malformed or belongs to another listing or order is refused as AWS
// refuses it.
domain::Result<ListRequest> ReadListRequest(const nlohmann::json& input, const ListSpec& spec);

// The token that continues `request` after `last`.
std::string EncodeNextToken(const ListSpec& spec, const ListRequest& request,
                            const SortPosition& last);

template <class Item>
struct Positioned {
  SortPosition position;
  Item item;
};

// The next `count` items strictly after `after` (all from the start when nullopt), in the
// request's order. Fewer than `count` means the source is exhausted.
template <class Item>
using Source = std::function<std::vector<Positioned<Item>>(const std::optional<SortPosition>& after,
                                                           int count)>;

template <class Item>
struct Filters {
  // Applied before paging: a page holds `limit` items that pass, unless the listing ends first.
  std::function<bool(const Item&)> before_paging;
  // Applied after paging: `limit` items are taken ignoring it, then filtered, so a page may hold
  // fewer (AWS's rule for ListTrainingJobs with StatusEquals and MaxResults).
  std::function<bool(const Item&)> after_paging;
};

template <class Item>
struct Page {
  std::vector<Item> items;
  std::optional<std::string> next_token;  // absent on the last page
};

// A List* answer, written as it goes: {"<list_member>": [one summary per item], "NextToken": ...}.
template <class Item, class WriteSummary>
Answer WriteListAnswer(const char* list_member, const Page<Item>& page,
                       WriteSummary&& write_summary) {
  JsonWriter out;
  out.BeginObject().Key(list_member).BeginArray();
  for (const Item& item : page.items) {
    out.BeginObject();
    write_summary(out, item);
    out.EndObject();
  }
  out.EndArray().OptionalMember("NextToken", page.next_token).EndObject();
  return Answer::Written(out.Text());
}

// The same answer, written after the emulator's lock is released (Answer::WrittenLater): for
// summaries made of the page's own items alone. `write_summary` must not read the context, the
// store or anything else the lock guards; it is copied, and the page moved, into the writer.
// `list_member` must outlive the answer (a string literal).
template <class Item, class WriteSummary>
Answer WriteListAnswerLater(const char* list_member, Page<Item>&& page,
                            WriteSummary write_summary) {
  auto shared_page = std::make_shared<const Page<Item>>(std::move(page));
  return Answer::WrittenLater([list_member, shared_page, write_summary]() {
    return WriteListAnswer(list_member, *shared_page, write_summary).Text();
  });
}

// One summary's text, written once, by whichever answer that shows it is written first (after
// the emulator's lock), and then copied by every answer that shows it.
class SummaryText {
 public:
  // The text; `write` writes the summary's members into an open object, the first time only.
  template <class Write>
  const std::string& Get(Write&& write) const {
    std::call_once(written_, [&] {
      JsonWriter out;
      out.BeginObject();
      write(out);
      out.EndObject();
      text_ = out.Text();
    });
    return text_;
  }

 private:
  mutable std::once_flag written_;
  mutable std::string text_;
};

// What a listing keeps with a row (Tables::RowMemo): the text of its summary, for as long as
// what the summary shows besides the row (`Shown`: a status that follows the clock, the
// instances in use) stays the same. A write to the row makes a new row without it. Listings on
// several threads share it.
template <class Shown>
class SummaryMemo {
 public:
  std::shared_ptr<const SummaryText> For(const Shown& shown) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!text_ || !(shown_ == shown)) {
      shown_ = shown;
      text_ = std::make_shared<const SummaryText>();
    }
    return text_;
  }

 private:
  std::mutex mutex_;
  Shown shown_{};
  std::shared_ptr<const SummaryText> text_;
};

// WriteListAnswerLater for items that carry their summary's text (`Item::text`, from a
// SummaryMemo): each summary is written at most once while it stays the same, then copied.
// `write_summary` writes an item's members, as for WriteListAnswerLater.
template <class Item, class WriteSummary>
Answer WriteKeptSummariesLater(const char* list_member, Page<Item>&& page,
                               WriteSummary write_summary) {
  auto shared_page = std::make_shared<const Page<Item>>(std::move(page));
  return Answer::WrittenLater([list_member, shared_page, write_summary]() {
    std::vector<const std::string*> texts;
    texts.reserve(shared_page->items.size());
    size_t size = 0;
    for (const Item& item : shared_page->items) {
      texts.push_back(&item.text->Get([&](JsonWriter& summary) { write_summary(summary, item); }));
      size += texts.back()->size() + 1;
    }
    // The texts are objects JsonWriter wrote, joined as its array would join them.
    JsonWriter tail;
    tail.BeginObject().OptionalMember("NextToken", shared_page->next_token).EndObject();
    const std::string rest = tail.Text();  // {} or {"NextToken":"..."}
    std::string answer;
    answer.reserve(size + std::strlen(list_member) + rest.size() + 8);
    answer.append("{\"").append(list_member).append("\":[");
    for (size_t i = 0; i < texts.size(); ++i) {
      if (i > 0) answer.push_back(',');
      answer.append(*texts[i]);
    }
    answer.push_back(']');
    if (rest.size() > 2) answer.push_back(',');
    answer.append(rest, 1, std::string::npos);
    return answer;
  });
}

// Cuts one page from `source`.
template <class Item>
Page<Item> Paginate(const ListSpec& spec, const ListRequest& request, const Source<Item>& source,
                    const Filters<Item>& filters = {}) {
  Page<Item> page;
  std::optional<SortPosition> cursor = request.after;
  std::optional<SortPosition> last_taken;
  int taken = 0;
  bool more = false;
  // Fetch in chunks until limit + 1 items pass before_paging: the extra one proves that another
  // page exists. The token is the position of the last item taken, so the next page starts
  // right after it whatever was added or removed meanwhile. Without a filter before paging the
  // first fetch settles the page; with one, each further fetch is twice as large.
  constexpr int kLargestChunk = 4096;
  int chunk = request.limit + 1;
  while (!more) {
    auto batch = source(cursor, chunk);
    const bool exhausted = static_cast<int>(batch.size()) < chunk;
    for (auto& candidate : batch) {
      cursor = candidate.position;
      if (filters.before_paging && !filters.before_paging(candidate.item)) continue;
      if (taken == request.limit) {
        more = true;
        break;
      }
      ++taken;
      last_taken = candidate.position;
      if (!filters.after_paging || filters.after_paging(candidate.item)) {
        page.items.push_back(std::move(candidate.item));
      }
    }
    if (exhausted) break;
    chunk = std::min(chunk * 2, kLargestChunk);
  }
  if (more && last_taken) page.next_token = EncodeNextToken(spec, request, *last_taken);
  return page;
}

// A source over items already in memory: sorts them once by position in the request's order.
template <class Item>
Source<Item> InMemorySource(std::vector<Positioned<Item>> items, bool descending) {
  std::sort(items.begin(), items.end(), [descending](const auto& a, const auto& b) {
    return descending ? b.position < a.position : a.position < b.position;
  });
  auto sorted = std::make_shared<std::vector<Positioned<Item>>>(std::move(items));
  return [sorted, descending](const std::optional<SortPosition>& after, int count) {
    auto it = sorted->begin();
    if (after) {
      it = std::find_if(sorted->begin(), sorted->end(), [&](const Positioned<Item>& item) {
        return descending ? item.position < *after : *after < item.position;
      });
    }
    std::vector<Positioned<Item>> batch;
    for (; it != sorted->end() && static_cast<int>(batch.size()) < count; ++it) {
      batch.push_back(*it);
    }
    return batch;
  };
}

// The store filters a listing of one kind can push into its query (all optional).
struct StoreFilters {
  std::optional<std::string> name_contains;
  std::optional<TimePoint> created_after;
  std::optional<TimePoint> created_before;
  std::optional<TimePoint> modified_after;
  std::optional<TimePoint> modified_before;
  std::optional<std::string> status;
  std::optional<store::ListQuery::PlanWindow> plan;  // training plans: by their window
};

// Reads NameContains, CreationTime{After,Before}, LastModifiedTime{After,Before} and StatusEquals.
StoreFilters ReadStoreFilters(const nlohmann::json& input);

// A source over the caller's rows of `kind`, ordered and filtered by the store: the rows the
// store keeps, shared rather than copied, for ctx.store.DecodedRow() and RowMemo() to decode and
// remember without looking them up again. The request's sort key must have a column. An item
// may outlive the lock that guards the store only if nothing but its row() is read then.
Source<store::KeptRowPtr> StoreSource(const Context& ctx, const std::string& kind,
                                      const ListRequest& request, const StoreFilters& filters);

// A whole List* operation whose summaries are just name, ARN and creation time (ListModels,
// ListEndpointConfigs): e.g. members {"Models", "ModelName", "ModelArn"}.
struct SimpleListing {
  const char* kind;
  const char* list_member;
  const char* name_member;
  const char* arn_member;
};
domain::Result<Answer> ListSimple(const nlohmann::json& input, const Context& ctx,
                                  const ListSpec& spec, const SimpleListing& listing);

}  // namespace smemu::ops
