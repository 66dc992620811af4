#include "ops/cost_inputs.hpp"

#include <algorithm>

#include "domain/resource_kinds.hpp"
#include "domain/time_format.hpp"
#include "ops/lifecycle_records.hpp"
#include "ops/plan_records.hpp"

namespace smemu::ops {
namespace {

std::vector<domain::PlanBill> PlanBills(const Context& ctx,
                                        const std::optional<std::string>& account) {
  std::vector<domain::PlanBill> bills;
  for (const store::KeptRowPtr& kept : ctx.store.AllOfKind(domain::kPlanKind)) {
    const store::ResourceRow& row = kept->row();
    if (account && row.key.account != *account) continue;
    const auto decoded = ctx.store.DecodedRow<domain::Plan>(*kept, &PlanFromRow);
    const domain::Plan& plan = *decoded;
    if (plan.PaymentFails()) continue;  // never paid for: it costs nothing and reserves nothing
    domain::PlanBill bill;
    bill.arn = plan.arn;
    for (const domain::CapacityBlock& block : plan.blocks) {
      bill.reserved_capacity_arns.push_back(
          ReservedCapacityArn({row.key.account, row.key.region, {}}, block.id));
    }
    bill.name = plan.name;
    bill.account = row.key.account;
    bill.pool = plan.blocks.front().pool;
    bill.instance_count = plan.instance_count;
    bill.window = plan.Span();
    bill.blocks = domain::WindowsOf(plan.blocks);
    bill.paid_at = plan.paid_at;
    // Fees are stored as the API shows them ("1234.50"), exact to the cent.
    bill.fee = domain::ParseCents(plan.upfront_fee).value_or(0);
    bills.push_back(std::move(bill));
  }
  return bills;
}

std::vector<domain::HeldSpan> HeldSpans(const Context& ctx, TimePoint from, TimePoint to,
                                        const std::optional<std::string>& account) {
  std::vector<domain::HeldSpan> spans;
  if (ctx.history == nullptr) throw std::logic_error("the holdings log is read under the lock");
  for (store::HeldStretch& stretch : ctx.history->HeldBetween(from, to, account)) {
    spans.push_back({std::move(stretch.arn), std::move(stretch.name), std::move(stretch.kind),
                     std::move(stretch.account), std::move(stretch.region),
                     std::move(stretch.instance_type), std::move(stretch.plan_arn), stretch.count,
                     stretch.from, stretch.to});
  }
  return spans;
}

}  // namespace

domain::Result<domain::CostLedger> CostsAt(const Context& ctx, const CostQuery& query) {
  domain::CostInputs inputs;
  inputs.plans = PlanBills(ctx, query.account);
  inputs.prices = ctx.capacity.prices;
  // By default the ledger runs to now or, when later, to the end of the last plan: a plan's fee
  // is paid in full when it is bought.
  TimePoint to = ctx.now;
  if (!query.to) {
    for (const domain::PlanBill& plan : inputs.plans) to = std::max(to, plan.window.end);
  }
  to = query.to.value_or(to);
  TimePoint from = query.from.value_or(TimePoint::min());
  inputs.held = HeldSpans(ctx, from, to, query.account);
  if (!query.from) {
    // It starts with the first thing it has to show, or at `to` when there is none.
    from = to;
    for (const domain::PlanBill& plan : inputs.plans) from = std::min(from, plan.window.start);
    for (const domain::HeldSpan& span : inputs.held) from = std::min(from, span.from);
  }
  if (from >= to) {
    if (query.from) {
      return domain::ValidationException("from (" + domain::FormatIso8601(from) +
                                         ") must be before to (" + domain::FormatIso8601(to) +
                                         ").");
    }
    from = to;  // nothing to show yet: an empty range
  }
  inputs.preference_jobs = JobsWithPreferences(ctx.store, query.account);
  return domain::ComputeCosts(inputs, from, to, ctx.now);
}

}  // namespace smemu::ops
