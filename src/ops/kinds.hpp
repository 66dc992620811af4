// The registry of resource kinds: what the operation layer needs to know of each kind, said once
// in the kind's own file (its descriptor), and looped over by everything that used to name kinds:
// the Emulator's handler table and settling, the holdings rebuild, quota use, tags and the admin
// views. Adding a kind is its domain type, its handlers and one descriptor added to kinds.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "domain/holdings.hpp"
#include "domain/quotas.hpp"
#include "domain/resource_kinds.hpp"
#include "ops/apply.hpp"
#include "ops/handlers.hpp"
#include "ops/state_view.hpp"

namespace smemu::ops {

// When a kind's lifecycle settles, within one settling up to a moment.
enum class SettleStage {
  kNone,  // no lifecycle: its resources do not change with the clock
  // Settled together at every moment something of theirs falls due, in registry order: endpoints
  // and clusters compete for the same on-demand instances, so what falls due first happens first.
  kInTimeOrder,
  // Settled after every kInTimeOrder kind, so they take what those gave back: jobs wait in one
  // first-come, first-served queue for the instances endpoints and clusters leave free.
  kAfterReleases,
};

// Settles every resource of the kind due at ctx.now, applying what changes through `applier`;
// returns when the next one falls due.
using Settler = std::optional<TimePoint> (*)(const Context& ctx, Applier& applier);

struct KindDescriptor {
  domain::ResourceKind kind;
  void (*add_handlers)(HandlerTable& table) = nullptr;
  // TagResource, ListTags and DeleteTags accept its ARNs.
  bool taggable = false;
  SettleStage stage = SettleStage::kNone;
  // Kinds that share a lifecycle (training and processing jobs wait in one queue) name the same
  // settler; it runs once per settling.
  Settler settle = nullptr;
  // Adds what its stored resources hold now (after a start, a rollback or a reset).
  void (*add_holders)(const store::Tables& store, domain::Holdings& holdings) = nullptr;
  // Adds the instances its resources of `account` in `region` are about to take (Creating
  // endpoints and clusters): quota checks count them as used.
  void (*add_claims)(const store::Tables& store, const std::string& account,
                     const std::string& region, std::vector<domain::Hold>& claims) = nullptr;
  // Its resources count against the account's service quotas (instances or plans): the metrics
  // show the quotas of every account and region that has one.
  bool quota_counted = false;
  // How its resources show in the dashboard's state: under the key `state_section` (kinds of one
  // family share one), as the entries `add_state` writes into the section's open array, in
  // registry order. Kinds without a section do not show there.
  const char* state_section = nullptr;
  void (*add_state)(const StateQuery& query, JsonWriter& entries) = nullptr;
  // For a kind whose status follows the clock rather than the stored column: its rows counted by
  // kind and status at ctx.now, for every row kind it writes (a plan writes its reserved capacity
  // too). The census takes these in place of the stored counts of those row kinds.
  std::vector<store::KindStatusCount> (*count_by_status)(const Context& ctx) = nullptr;
};

// Every kind, in settle order.
const std::vector<const KindDescriptor*>& Kinds();
const KindDescriptor& DescriptorOf(domain::ResourceKind kind);
// The kind a store row's `kind` column names; nullptr for one the registry does not know.
const KindDescriptor* DescriptorNamed(std::string_view wire);

// Settles every lifecycle up to ctx.now, in time order (see SettleStage). Returns when the next
// event falls due by time alone.
std::optional<TimePoint> SettleEverything(const Context& ctx, Applier& applier);
// Settles every lifecycle at ctx.now only, in stage order: after a request changed the store at
// ctx.now, when everything due before it has already happened.
std::optional<TimePoint> SettleAtNow(const Context& ctx, Applier& applier);
// Settles the kAfterReleases kinds at ctx.now: waiting jobs take instances that a change outside
// a request (a pool, a quota) made free.
std::optional<TimePoint> SettleWaiting(const Context& ctx, Applier& applier);

// What every resource in the store holds.
domain::Holdings HoldingsFromStore(const store::Tables& store);

// Every kind's section of the dashboard's state, each a list of entries (ops/state_view.hpp): the
// JSON text of one object, written straight from the records (10,000 plans are megabytes).
std::string StateSections(const StateQuery& query);

// The descriptors, one per kind, each defined in its kind's file.
extern const KindDescriptor kModelDescriptor;
extern const KindDescriptor kEndpointConfigDescriptor;
extern const KindDescriptor kEndpointDescriptor;
extern const KindDescriptor kTrainingPlanDescriptor;
extern const KindDescriptor kTrainingJobDescriptor;
extern const KindDescriptor kProcessingJobDescriptor;
extern const KindDescriptor kClusterDescriptor;

}  // namespace smemu::ops
