#include "protocol/metrics.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "domain/time_format.hpp"
#include "protocol/cost_report.hpp"

namespace smemu::protocol {
namespace {

constexpr const char* kPrefix = "sagemaker_emulator_";

// A label value with backslash, double quote and newline escaped, as the format requires.
std::string Quoted(const std::string& value) {
  std::string out = "\"";
  for (const char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string Number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.12g", value);
  return buffer;
}

class Exposition {
 public:
  void Family(const std::string& name, const char* type, const char* help) {
    out_ << "# HELP " << kPrefix << name << ' ' << help << "\n# TYPE " << kPrefix << name << ' '
         << type << '\n';
  }
  void Sample(const std::string& name,
              const std::vector<std::pair<const char*, std::string>>& labels,
              const std::string& value) {
    out_ << kPrefix << name;
    if (!labels.empty()) {
      out_ << '{';
      for (size_t i = 0; i < labels.size(); ++i) {
        out_ << (i ? "," : "") << labels[i].first << '=' << Quoted(labels[i].second);
      }
      out_ << '}';
    }
    out_ << ' ' << value << '\n';
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

// The cost ledger's totals from the beginning to now, per account, region and instance type (a
// series per plan would grow with every plan sold; GET /_emulator/costs has them).
void RenderCosts(Exposition& out, const domain::CostLedger& costs) {
  using Totals = domain::CostTotals;
  struct Series {
    const char* label_value;  // nullptr: the family has no label of its own
    double (*value)(const Totals&);
  };
  struct Gauge {
    const char* name;
    const char* help;
    const char* label;
    std::vector<Series> series;
  };
  const Gauge gauges[] = {
      {"cost_dollars",
       "What was paid up to now, in US dollars: training plan fees (for their whole windows) and "
       "on-demand instance-hours at on-demand prices.",
       "source",
       {{"training_plan", [](const Totals& t) { return Dollars(t.plan_fees); }},
        {"on_demand", [](const Totals& t) { return Dollars(t.on_demand_cost); }}}},
      {"instance_hours",
       "Instance-hours up to now: reserved by training plans (whole windows), used on plans, and "
       "used on demand.",
       "use",
       {{"reserved", [](const Totals& t) { return InstanceHours(t.reserved); }},
        {"used_on_plan", [](const Totals& t) { return InstanceHours(t.plan_used); }},
        {"on_demand", [](const Totals& t) { return InstanceHours(t.on_demand_used); }}}},
      {"on_demand_equivalent_dollars",
       "What the instance-hours used up to now, on plans and on demand, would have cost at "
       "on-demand prices.",
       nullptr,
       {{nullptr, [](const Totals& t) { return Dollars(t.on_demand_equivalent); }}}},
  };
  for (const Gauge& gauge : gauges) {
    out.Family(gauge.name, "gauge", gauge.help);
    for (const auto& [key, totals] : costs.by_account_region_type) {
      for (const Series& series : gauge.series) {
        std::vector<std::pair<const char*, std::string>> labels = {
            {"account", std::get<0>(key)},
            {"region", std::get<1>(key)},
            {"instance_type", std::get<2>(key)}};
        if (gauge.label != nullptr) labels.emplace_back(gauge.label, series.label_value);
        out.Sample(gauge.name, labels, Number(series.value(totals)));
      }
    }
  }
}

void RenderCensus(Exposition& out, const ops::AdminViews::Census& census) {
  out.Family("resources", "gauge", "Resources of every account, by kind and status.");
  for (const auto& resource : census.resources) {
    out.Sample("resources", {{"kind", resource.kind}, {"status", resource.status}},
               std::to_string(resource.count));
  }
  out.Family("pool_instances", "gauge",
             "Instances of each capacity pool, reservable for training plans or on demand.");
  for (const ops::PoolView& pool : census.capacity.pools) {
    const std::vector<std::pair<const char*, std::string>> where = {
        {"region", pool.key.region},
        {"availability_zone", pool.key.availability_zone},
        {"instance_type", pool.key.instance_type}};
    auto labelled = [&](const char* kind) {
      auto labels = where;
      labels.emplace_back("kind", kind);
      return labels;
    };
    out.Sample("pool_instances", labelled("reservable"), std::to_string(pool.reservable));
    out.Sample("pool_instances", labelled("on_demand"), std::to_string(pool.on_demand));
  }
  out.Family("reserved_instances", "gauge",
             "Instances of each pool sold to training plans whose window holds now.");
  for (const ops::PoolView& pool : census.capacity.pools) {
    int reserved = 0;
    for (const auto& reservation : pool.reservations) {
      if (reservation.window.start <= census.capacity.now &&
          census.capacity.now < reservation.window.end) {
        reserved += reservation.count;
      }
    }
    out.Sample("reserved_instances",
               {{"region", pool.key.region},
                {"availability_zone", pool.key.availability_zone},
                {"instance_type", pool.key.instance_type}},
               std::to_string(reserved));
  }
  out.Family("instances_in_use", "gauge",
             "Instances held now by endpoints, jobs and HyperPod clusters, by region, instance "
             "type, holder kind and source (a training plan or on demand).");
  std::map<std::vector<std::string>, int> in_use;
  for (const ops::HeldInstances& holder : census.capacity.in_use) {
    in_use[{holder.region, holder.instance_type, holder.kind,
            holder.training_plan_arn.empty() ? "on_demand" : "training_plan"}] += holder.count;
  }
  for (const auto& [labels, count] : in_use) {
    out.Sample("instances_in_use",
               {{"region", labels[0]},
                {"instance_type", labels[1]},
                {"holder", labels[2]},
                {"source", labels[3]}},
               std::to_string(count));
  }
  // Only quotas that are set: a quota the emulator does not limit has no value to report.
  out.Family("quota_limit", "gauge",
             "Account service quotas in force, by account, region and quota name.");
  for (const auto& [owner, quotas] : census.quotas) {
    for (const ops::AdminViews::QuotaLine& quota : quotas) {
      out.Sample("quota_limit",
                 {{"account", owner.account}, {"region", owner.region}, {"name", quota.name}},
                 std::to_string(quota.limit));
    }
  }
  out.Family("quota_used", "gauge",
             "What each account and region uses now of its quotas in force: instances held or "
             "asked for by resources being created, the largest cluster, or live training plans.");
  for (const auto& [owner, quotas] : census.quotas) {
    for (const ops::AdminViews::QuotaLine& quota : quotas) {
      out.Sample("quota_used",
                 {{"account", owner.account}, {"region", owner.region}, {"name", quota.name}},
                 std::to_string(quota.used));
    }
  }
  RenderCosts(out, census.costs);
  out.Family("virtual_clock_seconds", "gauge", "The virtual clock, in seconds since the epoch.");
  out.Sample("virtual_clock_seconds", {}, Number(domain::ToEpochSeconds(census.capacity.now)));
}

}  // namespace

void RequestMetrics::Record(const std::string& operation, int status, double seconds) {
  const auto bucket = static_cast<size_t>(
      std::lower_bound(kBuckets.begin(), kBuckets.end(), seconds) - kBuckets.begin());
  MutexLock lock(mutex_);
  ++requests_[{operation, status}];
  Latency& latency = latency_[operation];
  ++latency.counts[bucket];
  latency.sum += seconds;
  ++latency.count;
}

void RequestMetrics::RecordFault(const std::string& rule, const std::string& operation) {
  MutexLock lock(mutex_);
  ++faults_[{rule, operation}];
}

void RequestMetrics::RecordThrottled(const std::string& operation) {
  MutexLock lock(mutex_);
  ++throttled_[operation];
}

std::string RequestMetrics::Render(const ops::AdminViews::Census& census) const {
  Exposition out;
  {
    MutexLock lock(mutex_);
    out.Family("requests_total", "counter", "Requests answered, by operation and HTTP status.");
    for (const auto& [key, count] : requests_) {
      out.Sample("requests_total",
                 {{"operation", key.first}, {"status", std::to_string(key.second)}},
                 std::to_string(count));
    }
    out.Family("request_duration_seconds", "histogram",
               "Time from a request's arrival to its answer, by operation.");
    for (const auto& [operation, latency] : latency_) {
      unsigned long long cumulative = 0;
      for (size_t i = 0; i <= kBuckets.size(); ++i) {
        cumulative += latency.counts[i];
        out.Sample(
            "request_duration_seconds_bucket",
            {{"operation", operation}, {"le", i < kBuckets.size() ? Number(kBuckets[i]) : "+Inf"}},
            std::to_string(cumulative));
      }
      out.Sample("request_duration_seconds_sum", {{"operation", operation}}, Number(latency.sum));
      out.Sample("request_duration_seconds_count", {{"operation", operation}},
                 std::to_string(latency.count));
    }
    out.Family(
        "fault_rule_fired_total", "counter",
        "Requests a fault rule answered with its error or held back, by rule and operation.");
    for (const auto& [key, count] : faults_) {
      out.Sample("fault_rule_fired_total", {{"rule", key.first}, {"operation", key.second}},
                 std::to_string(count));
    }
    out.Family("throttled_total", "counter",
               "Requests refused for their rate (--rate-limits), by operation.");
    for (const auto& [operation, count] : throttled_) {
      out.Sample("throttled_total", {{"operation", operation}}, std::to_string(count));
    }
  }
  RenderCensus(out, census);
  return out.str();
}

}  // namespace smemu::protocol
