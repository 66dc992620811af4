#include "ops/kinds.hpp"

#include <algorithm>
#include <map>
#include <string_view>

namespace smemu::ops {

const std::vector<const KindDescriptor*>& Kinds() {
  // Settle order, a rule of the emulator's: within one moment, clusters take on-demand instances
  // before endpoints do (a HyperPod cluster and an endpoint that fall due together compete for the
  // same pool, and the cluster wins), then jobs take what both leave (SettleStage).
  static const std::vector<const KindDescriptor*> kinds = {
      &kModelDescriptor,         &kEndpointConfigDescriptor, &kTrainingPlanDescriptor,
      &kClusterDescriptor,       &kEndpointDescriptor,       &kTrainingJobDescriptor,
      &kProcessingJobDescriptor,
  };
  return kinds;
}

const KindDescriptor& DescriptorOf(domain::ResourceKind kind) {
  for (const KindDescriptor* descriptor : Kinds()) {
    if (descriptor->kind == kind) return *descriptor;
  }
  // Unreachable while the registry test holds: every kind has a descriptor.
  throw std::logic_error(std::string("no descriptor for kind ") + domain::WireName(kind));
}

const KindDescriptor* DescriptorNamed(std::string_view wire) {
  const auto kind = domain::ResourceKindNamed(wire);
  return kind ? &DescriptorOf(*kind) : nullptr;
}

namespace {

// The distinct settlers of `stage`, in registry order (kinds that share a lifecycle name one).
std::vector<Settler> SettlersOf(SettleStage stage) {
  std::vector<Settler> settlers;
  for (const KindDescriptor* descriptor : Kinds()) {
    if (descriptor->stage != stage || descriptor->settle == nullptr) continue;
    if (std::find(settlers.begin(), settlers.end(), descriptor->settle) == settlers.end()) {
      settlers.push_back(descriptor->settle);
    }
  }
  return settlers;
}

// Runs each settler of `stage` at ctx.now.
std::optional<TimePoint> SettleStageAt(const Context& ctx, Applier& applier, SettleStage stage) {
  static const std::vector<Settler> in_time_order = SettlersOf(SettleStage::kInTimeOrder);
  static const std::vector<Settler> after_releases = SettlersOf(SettleStage::kAfterReleases);
  std::optional<TimePoint> next;
  for (Settler settle : stage == SettleStage::kInTimeOrder ? in_time_order : after_releases) {
    next = Earliest(next, settle(ctx, applier));
  }
  return next;
}

}  // namespace

std::optional<TimePoint> SettleEverything(const Context& ctx, Applier& applier) {
  // The kInTimeOrder kinds are settled together at each moment one of them falls due, up to
  // ctx.now. Settling at a moment before anything is due changes nothing and tells when the first
  // transition falls due.
  Context at = ctx;
  at.now = TimePoint::min();
  std::optional<TimePoint> next = SettleStageAt(at, applier, SettleStage::kInTimeOrder);
  // A step at a moment not after the last one (an endpoint retried on every settling) ends the
  // walk; the final settling at ctx.now applies what is left.
  while (next && at.now < *next && *next < ctx.now) {
    at.now = *next;
    next = SettleStageAt(at, applier, SettleStage::kInTimeOrder);
  }
  return SettleAtNow(ctx, applier);
}

std::optional<TimePoint> SettleAtNow(const Context& ctx, Applier& applier) {
  // Capacity held by purchases whose payment failed goes back first: nothing settled here uses
  // it, and the next purchase or search must find it free.
  applier.Apply(Edit::ReleaseLapsedHolds{}, ctx.now);
  const std::optional<TimePoint> lapse = ctx.ledger.NextLapse();
  const std::optional<TimePoint> next = SettleStageAt(ctx, applier, SettleStage::kInTimeOrder);
  return Earliest(lapse, Earliest(next, SettleStageAt(ctx, applier, SettleStage::kAfterReleases)));
}

std::optional<TimePoint> SettleWaiting(const Context& ctx, Applier& applier) {
  return SettleStageAt(ctx, applier, SettleStage::kAfterReleases);
}

std::string StateSections(const StateQuery& query) {
  // The sections in name order, each with its kinds in registry order.
  std::map<std::string_view, std::vector<const KindDescriptor*>> sections;
  for (const KindDescriptor* descriptor : Kinds()) {
    if (descriptor->state_section != nullptr) {
      sections[descriptor->state_section].push_back(descriptor);
    }
  }
  JsonWriter out;
  out.BeginObject();
  for (const auto& [section, descriptors] : sections) {
    out.Key(section).BeginArray();
    for (const KindDescriptor* descriptor : descriptors) descriptor->add_state(query, out);
    out.EndArray();
  }
  out.EndObject();
  return out.Text();
}

domain::Holdings HoldingsFromStore(const store::Tables& store) {
  domain::Holdings holdings;
  for (const KindDescriptor* descriptor : Kinds()) {
    if (descriptor->add_holders != nullptr) descriptor->add_holders(store, holdings);
  }
  return holdings;
}

}  // namespace smemu::ops
