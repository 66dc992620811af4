#include "ops/admin_views.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "domain/resource_kinds.hpp"
#include "ops/arn.hpp"
#include "ops/handlers.hpp"
#include "ops/kinds.hpp"
#include "ops/quota_checks.hpp"

namespace smemu::ops {
namespace {

PoolView ViewOf(const domain::CapacityLedger& ledger, const domain::PoolKey& key, TimePoint now) {
  PoolView view;
  view.key = key;
  const auto* pool = ledger.Find(key);
  if (pool == nullptr) return view;
  view.reservable = pool->reservable;
  view.on_demand = pool->on_demand;
  // The free count changes only where a reservation starts or ends; show a year ahead.
  const domain::Window ahead{now, now + 366 * domain::kDay};
  for (const auto& [from, committed] : pool->reserved.Steps(ahead)) {
    view.free_from_now.emplace_back(from, std::max(0, pool->reservable - committed));
  }
  return view;
}

// Every holding in `region` (all regions when empty), endpoints first, then jobs.
std::vector<HeldInstances> HeldIn(const domain::Holdings& holdings, const std::string& region) {
  std::vector<HeldInstances> lines;
  for (const domain::Holder* holder : holdings.All()) {
    if (!region.empty() && holder->region != region) continue;
    for (const domain::Hold& hold : holder->holds) {
      lines.push_back({holder->arn, domain::WireName(holder->kind), holder->region,
                       hold.instance_type, hold.plan_arn, hold.count});
    }
  }
  return lines;
}

// The quotas in force for `account` in `region`, with what it uses now of each.
std::vector<AdminViews::QuotaLine> QuotasIn(const Context& ctx, const std::string& account,
                                            const std::string& region) {
  std::vector<AdminViews::QuotaLine> lines;
  QuotaUsage usage(ctx, account, region);
  std::string previous;
  for (const domain::QuotaSetting& setting : ctx.quotas.All()) {  // ordered by name
    if (setting.name == previous) continue;
    previous = setting.name;
    const auto in_force = ctx.quotas.InForce(account, region, setting.name);
    if (!in_force) continue;
    const auto subject = domain::ParseQuotaName(in_force->name);
    lines.push_back({in_force->name, in_force->value, in_force->account, in_force->region,
                     subject ? usage.Of(*subject) : 0});
  }
  return lines;
}

// Whose quotas the metrics report: `default_owner`; every account and region with a resource that
// quotas count (instances, plans); and every account and region a setting names. A setting that
// leaves the account open is shown for the default account; one that leaves the region open, in
// the regions where its account has resources, or else in the default region.
std::set<std::pair<std::string, std::string>> QuotaOwners(const Context& ctx,
                                                          const domain::Owner& default_owner) {
  std::set<std::pair<std::string, std::string>> owners = {
      {default_owner.account, default_owner.region}};
  std::set<std::string> accounts_with_resources;
  for (const KindDescriptor* kind : Kinds()) {
    if (!kind->quota_counted) continue;
    for (const store::KeptRowPtr& kept : ctx.store.AllOfKind(domain::WireName(kind->kind))) {
      const store::ResourceKey& key = kept->row().key;
      owners.emplace(key.account, key.region);
      accounts_with_resources.insert(key.account);
    }
  }
  for (const domain::QuotaSetting& setting : ctx.quotas.All()) {
    const std::string& account = setting.account.empty() ? default_owner.account : setting.account;
    if (!setting.region.empty()) {
      owners.emplace(account, setting.region);
    } else if (!accounts_with_resources.count(account)) {
      owners.emplace(account, default_owner.region);
    }
  }
  return owners;
}

}  // namespace

AdminViews::AdminViews(Emulator& emulator)
    : emulator_(emulator), snapshot_epoch_(std::to_string(std::random_device{}() & 0xffffff)) {}

AdminViews::CapacityView AdminViews::Capacity(const std::string& region,
                                              const std::string& instance_type,
                                              const std::optional<std::string>& account) {
  auto visible = [&account](const std::string& arn) {
    return !account || ArnAccount(arn) == *account;
  };
  return emulator_.Administer([&](const Context& ctx) {
    std::map<domain::PoolKey, PoolView> views;
    for (const auto& [key, pool] : ctx.ledger.pools()) {
      if (!region.empty() && key.region != region) continue;
      if (!instance_type.empty() && key.instance_type != instance_type) continue;
      views.emplace(key, ViewOf(ctx.ledger, key, ctx.now));
    }
    for (const PlanCommitment& plan : StoredPlanCommitments(ctx.store)) {
      auto it = views.find(plan.pool);
      if (it == views.end() || !visible(plan.training_plan_arn)) continue;
      if (plan.lapses_at && *plan.lapses_at <= ctx.now) continue;  // its payment failed
      it->second.reservations.push_back({plan.training_plan_arn, plan.window, plan.count});
    }
    CapacityView result{ctx.now, {}, {}};
    for (auto& [key, view] : views) {
      std::sort(view.reservations.begin(), view.reservations.end(),
                [](const auto& a, const auto& b) {
                  return std::tie(a.window.start, a.training_plan_arn) <
                         std::tie(b.window.start, b.training_plan_arn);
                });
      result.pools.push_back(std::move(view));
    }
    for (HeldInstances& holder : HeldIn(ctx.holdings, region)) {
      if ((instance_type.empty() || holder.instance_type == instance_type) && visible(holder.arn)) {
        result.in_use.push_back(std::move(holder));
      }
    }
    return result;
  });
}

namespace {

// Resources by kind and status: the stored counts, except for the kinds whose status follows the
// clock, which count their own.
std::vector<store::KindStatusCount> CountResources(const Context& ctx) {
  std::vector<store::KindStatusCount> counted;
  for (const KindDescriptor* descriptor : Kinds()) {
    if (descriptor->count_by_status == nullptr) continue;
    for (auto& count : descriptor->count_by_status(ctx)) counted.push_back(std::move(count));
  }
  std::set<std::string> counted_kinds;
  for (const auto& count : counted) counted_kinds.insert(count.kind);
  for (auto& count : ctx.store.CountByKindAndStatus()) {
    if (!counted_kinds.contains(count.kind)) counted.push_back(std::move(count));
  }
  std::sort(counted.begin(), counted.end(), [](const auto& a, const auto& b) {
    return std::tie(a.kind, a.status) < std::tie(b.kind, b.status);
  });
  return counted;
}

}  // namespace

AdminViews::Census AdminViews::TakeCensus(const domain::Owner& default_owner) {
  CapacityView capacity = Capacity("", "");  // settles everything due first
  Census census = emulator_.Administer([&](const Context& ctx) {
    Census taken;
    taken.resources = CountResources(ctx);
    if (ctx.quotas.empty()) return taken;  // nothing is limited: no account has a quota to show
    for (const auto& [account, region] : QuotaOwners(ctx, default_owner)) {
      auto quotas = QuotasIn(ctx, account, region);
      if (!quotas.empty()) taken.quotas.push_back({{account, region}, std::move(quotas)});
    }
    return taken;
  });
  census.capacity = std::move(capacity);
  if (auto costs = Costs({})) census.costs = std::move(*costs);
  return census;
}

AdminViews::Overview AdminViews::Snapshot(const domain::Owner& quotas_for,
                                          const std::optional<std::string>& account,
                                          const std::string& since) {
  const VirtualClock::State clock = emulator_.GetClock();
  return emulator_.Administer([&](const Context& ctx) -> Overview {
    // Settled to ctx.now: the content changes only with a write (settling included) or the time.
    const std::uint64_t faults = emulator_.faults().Revision();
    if (ctx.store.TotalChanges() != snapshot_mark_.changes || ctx.now != snapshot_mark_.now ||
        faults != snapshot_mark_.faults) {
      ++snapshot_mark_.version;
      snapshot_mark_.changes = ctx.store.TotalChanges();
      snapshot_mark_.now = ctx.now;
      snapshot_mark_.faults = faults;
    }
    const std::string version = snapshot_epoch_ + "-" + std::to_string(snapshot_mark_.version);
    Overview result;
    result.version = version;
    result.clock = {ctx.now, clock.frozen};
    if (!since.empty() && since == version) {
      result.unchanged = true;
      return result;
    }
    std::map<std::pair<std::string, std::string>, Overview::OnDemandUse> on_demand;
    for (const auto& [key, pool] : ctx.ledger.pools()) {
      result.pools.push_back(ViewOf(ctx.ledger, key, ctx.now));
      auto& use = on_demand[{key.region, key.instance_type}];
      use.total = use.total.value_or(0) + pool.on_demand;
    }
    for (const HeldInstances& holder : HeldIn(ctx.holdings, "")) {
      if (holder.training_plan_arn.empty()) {
        on_demand[{holder.region, holder.instance_type}].in_use += holder.count;
      }
    }
    for (auto& [key, use] : on_demand) {
      use.region = key.first;
      use.instance_type = key.second;
      result.on_demand.push_back(std::move(use));
    }
    result.sections = StateSections(StateQuery(ctx, account));
    // Quotas live in the store's settings, so changing them moves the version like any write.
    result.quotas_for = quotas_for;
    result.quotas = QuotasIn(ctx, quotas_for.account, quotas_for.region);
    result.faults = emulator_.faults().List();
    return result;
  });
}

std::vector<AdminViews::QuotaLine> AdminViews::Quotas(const std::string& account,
                                                      const std::string& region) {
  return emulator_.Administer([&](const Context& ctx) { return QuotasIn(ctx, account, region); });
}

domain::Result<domain::CostLedger> AdminViews::Costs(const CostQuery& query) {
  return emulator_.Administer([&](const Context& ctx) -> domain::Result<domain::CostLedger> {
    // Under the emulator's lock, like the snapshot's mark.
    const long long changes = ctx.store.TotalChanges();
    CostsMark& mark = costs_mark_;
    if (mark.changes == changes && mark.now == ctx.now && mark.query == query) return mark.ledger;
    auto ledger = CostsAt(ctx, query);
    if (!ledger) return ledger;
    mark = {changes, ctx.now, query, std::move(*ledger)};
    return domain::Result<domain::CostLedger>(mark.ledger);
  });
}

domain::Result<PoolView> AdminViews::ChangeCapacity(const PoolChange& change) {
  return emulator_.AdministerChange(
      [&](const Context& ctx, Applier& applier) -> domain::Result<PoolView> {
        // Everything due before the change has happened by now (Administer settles first).
        const auto* pool = ctx.ledger.Find(change.key);
        const int reservable = change.reservable.value_or(pool ? pool->reservable : 0);
        if (reservable > 0 && !ctx.capacity.prices.count(change.key.instance_type)) {
          return domain::ValidationException("No plan prices are configured for instance type " +
                                             domain::Excerpt(change.key.instance_type) +
                                             ": only on-demand instances can be set.");
        }
        const int on_demand = change.on_demand.value_or(pool ? pool->on_demand : 0);
        if (reservable < 0 || on_demand < 0) {
          return domain::ValidationException("Instance counts must not be negative.");
        }
        // Plans already sold keep their instances: the pool can shrink only to what they still
        // hold.
        const int sold = pool ? pool->reserved.MaxCommitted({ctx.now, TimePoint::max()}) : 0;
        if (reservable < sold) {
          return domain::ValidationException(
              "reservable cannot go below " + std::to_string(sold) +
              ": that many instances of this pool are sold to training plans from now on.");
        }
        applier.Apply(Edit::SetPool{change.key, reservable, on_demand}, ctx.now);
        SettleWaiting(ctx, applier);  // waiting jobs take instances that appeared
        return ViewOf(ctx.ledger, change.key, ctx.now);
      });
}

}  // namespace smemu::ops
