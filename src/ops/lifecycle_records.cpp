#include "ops/lifecycle_records.hpp"

#include "domain/resource_kinds.hpp"
#include "ops/endpoint_config_record.hpp"
#include "ops/plan_records.hpp"
#include "ops/record_codec.hpp"

namespace smemu::ops {
namespace {

using codec::At;
using codec::Known;
using codec::Ms;
using codec::OptionalAt;
using codec::OptionalText;
using codec::PutOptional;
using nlohmann::json;

domain::Owner OwnerOf(const store::ResourceKey& key) { return {key.account, key.region}; }

// ---- Endpoint documents

domain::Variant VariantFromDoc(const json& doc) {
  domain::Variant variant;
  variant.name = doc.at("VariantName");
  variant.instance_type = doc.at("InstanceType");
  variant.current_count = doc.at("CurrentInstanceCount");
  variant.desired_count = doc.at("DesiredInstanceCount");
  variant.weight = doc.at("Weight");
  if (doc.contains("DesiredWeight")) variant.desired_weight = doc["DesiredWeight"].get<double>();
  variant.model_name = OptionalText(doc, "ModelName");
  ReadPlacement(doc, variant);
  return variant;
}

json VariantDoc(const domain::Variant& variant) {
  json doc = {{"VariantName", variant.name},
              {"InstanceType", variant.instance_type},
              {"DesiredInstanceCount", variant.desired_count},
              {"CurrentInstanceCount", variant.current_count},
              {"Weight", variant.weight}};
  if (variant.desired_weight) doc["DesiredWeight"] = *variant.desired_weight;
  if (variant.model_name) doc["ModelName"] = *variant.model_name;
  if (variant.reservation) {
    json config = json::object();
    if (!variant.reservation->preference.empty()) {
      config["CapacityReservationPreference"] = variant.reservation->preference;
    }
    if (!variant.reservation->ml_reservation_arn.empty()) {
      config["MlReservationArn"] = variant.reservation->ml_reservation_arn;
    }
    doc["CapacityReservationConfig"] = std::move(config);
  }
  if (!variant.instance_pools.empty()) {
    json pools = json::array();
    for (const domain::InstancePool& pool : variant.instance_pools) {
      json kept = {{"InstanceType", pool.instance_type}, {"Priority", pool.priority}};
      if (pool.model_name_override) kept["ModelNameOverride"] = *pool.model_name_override;
      pools.push_back(std::move(kept));
    }
    doc["InstancePools"] = std::move(pools);
  }
  return doc;
}

std::vector<domain::Variant> VariantsFromDoc(const json& variants) {
  std::vector<domain::Variant> out;
  for (const json& variant : variants) out.push_back(VariantFromDoc(variant));
  return out;
}

json VariantsDoc(const std::vector<domain::Variant>& variants) {
  json out = json::array();
  for (const domain::Variant& variant : variants) out.push_back(VariantDoc(variant));
  return out;
}

std::string EndpointDoc(const domain::Endpoint& endpoint) {
  json doc = {{"EndpointConfigName", endpoint.config_name},
              {"Variants", VariantsDoc(endpoint.variants)}};
  PutOptional(doc, "DueMs", endpoint.due);
  if (endpoint.failure_reason) doc["FailureReason"] = *endpoint.failure_reason;
  if (endpoint.pending) {
    doc["Pending"] = {{"EndpointConfigName", endpoint.pending->config_name},
                      {"Variants", VariantsDoc(endpoint.pending->variants)}};
  }
  return doc.dump();
}

}  // namespace

store::ResourceRow EncodeEndpoint(const EndpointRecord& record) {
  const domain::Endpoint& endpoint = record.endpoint;
  return {record.key,     endpoint.arn,      std::string(domain::ToString(endpoint.status)),
          record.created, endpoint.modified, EndpointDoc(endpoint)};
}

namespace {

// ---- Job documents

json OptionDoc(const domain::JobOption& option) {
  json doc = {{"InstanceType", option.instance_type}, {"InstanceCount", option.instance_count}};
  if (!option.plan_arn.empty()) doc["PlanArn"] = option.plan_arn;
  return doc;
}

domain::JobOption OptionFromDoc(const json& doc) {
  return {doc.at("InstanceType"), doc.at("InstanceCount"), doc.value("PlanArn", "")};
}

std::string JobDoc(const JobRecord& record) {
  const domain::Job& job = record.job;
  json doc = {{"Request", record.request},
              {"Options", json::array()},
              {"Phase", domain::ToString(job.phase)},
              {"QueuedMs", Ms(job.queued)},
              {"AsOfMs", Ms(job.as_of)},
              {"PendingAccruedMs", job.pending_accrued.count()},
              {"RunMs", job.run.count()},
              {"MaxRuntimeMs", job.max_runtime.count()}};
  for (const domain::JobOption& option : job.options) doc["Options"].push_back(OptionDoc(option));
  if (job.max_pending) doc["MaxPendingMs"] = job.max_pending->count();
  PutOptional(doc, "PendingSinceMs", job.pending_since);
  if (job.selected) doc["Selected"] = OptionDoc(*job.selected);
  PutOptional(doc, "StartMs", job.start);
  if (job.ran != Millis{0}) doc["RanMs"] = job.ran.count();
  PutOptional(doc, "InterruptedMs", job.interrupted);
  PutOptional(doc, "ResumedMs", job.resumed);
  PutOptional(doc, "StopMs", job.stop);
  PutOptional(doc, "StopDueMs", job.stop_due);
  PutOptional(doc, "EndMs", job.end);
  if (job.outcome) doc["Outcome"] = domain::ToString(*job.outcome);
  if (job.failure_reason) doc["FailureReason"] = *job.failure_reason;
  if (job.fails_with) doc["FailsWith"] = *job.fails_with;
  return doc.dump();
}

}  // namespace

store::ResourceRow EncodeJob(const JobRecord& record) {
  const domain::Job& job = record.job;
  return {record.key,  job.arn,      std::string(domain::ToString(job.status)),
          job.created, job.modified, JobDoc(record)};
}

// ---- Capacity facts

std::optional<domain::PlanFacts> StoreCapacityFacts::Plan(const domain::Owner& owner,
                                                          const std::string& arn) const {
  // Each plan is decoded once per stored version (StateStore::GetDecoded), not once per lookup.
  const auto plan = PlanByReservationArn(ctx_.store, owner, arn);
  if (!plan) return std::nullopt;
  return FactsOf(*plan);
}

std::optional<int> StoreCapacityFacts::OnDemandTotal(const std::string& region,
                                                     const std::string& instance_type) const {
  bool listed = false;
  int total = 0;
  for (const auto& [key, pool] : ctx_.ledger.pools()) {
    if (key.region == region && key.instance_type == instance_type) {
      listed = true;
      total += pool.on_demand;
    }
  }
  if (!listed) return std::nullopt;
  return total;
}

// ---- Endpoints

namespace {

EndpointRecord DecodeEndpoint(const store::ResourceRow& row) {
  const json doc = codec::Document(row);
  EndpointRecord record{row.key, row.created, {}};
  domain::Endpoint& endpoint = record.endpoint;
  endpoint.arn = row.arn;
  endpoint.owner = OwnerOf(row.key);
  endpoint.status = Known(domain::ParseEndpointStatus(row.status), "status", row.status);
  endpoint.modified = row.modified;
  endpoint.config_name = doc.at("EndpointConfigName");
  endpoint.variants = VariantsFromDoc(doc.at("Variants"));
  endpoint.due = OptionalAt(doc, "DueMs");
  endpoint.failure_reason = OptionalText(doc, "FailureReason");
  if (doc.contains("Pending")) {
    endpoint.pending = domain::PendingUpdate{doc["Pending"].at("EndpointConfigName"),
                                             VariantsFromDoc(doc["Pending"].at("Variants"))};
  }
  return record;
}

}  // namespace

EndpointRecord EndpointFromRow(const store::ResourceRow& row) {
  return codec::Decoding(row, &DecodeEndpoint);
}

std::optional<EndpointRecord> LoadEndpoint(const Context& ctx, const store::ResourceKey& key) {
  return ctx.store.GetDecoded<EndpointRecord>(key, &EndpointFromRow);
}

// ---- Jobs

namespace {

JobRecord DecodeJob(const store::ResourceRow& row) {
  json doc = codec::Document(row);
  JobRecord record{row.key, std::move(doc["Request"]), {}};
  domain::Job& job = record.job;
  job.arn = row.arn;
  job.kind = row.key.kind == domain::kTrainingJobKind ? domain::JobKind::kTraining
                                                      : domain::JobKind::kProcessing;
  job.owner = OwnerOf(row.key);
  job.status = Known(domain::ParseJobStatus(row.status), "status", row.status);
  job.created = row.created;
  job.modified = row.modified;
  for (const json& option : doc.at("Options")) job.options.push_back(OptionFromDoc(option));
  const std::string phase = doc.at("Phase");
  job.phase = Known(domain::ParseJobPhase(phase), "phase", phase);
  job.queued = At(doc.at("QueuedMs"));
  job.as_of = At(doc.at("AsOfMs"));
  job.run = Millis{doc.at("RunMs").get<int64_t>()};
  job.max_runtime = Millis{doc.at("MaxRuntimeMs").get<int64_t>()};
  if (doc.contains("MaxPendingMs")) job.max_pending = Millis{doc["MaxPendingMs"].get<int64_t>()};
  job.pending_accrued = Millis{doc.at("PendingAccruedMs").get<int64_t>()};
  job.pending_since = OptionalAt(doc, "PendingSinceMs");
  if (doc.contains("Selected")) job.selected = OptionFromDoc(doc["Selected"]);
  job.start = OptionalAt(doc, "StartMs");
  job.ran = Millis{doc.value("RanMs", int64_t{0})};  // written only once the job has run
  job.interrupted = OptionalAt(doc, "InterruptedMs");
  job.resumed = OptionalAt(doc, "ResumedMs");
  job.stop = OptionalAt(doc, "StopMs");
  job.stop_due = OptionalAt(doc, "StopDueMs");
  job.end = OptionalAt(doc, "EndMs");
  if (doc.contains("Outcome")) {
    const std::string outcome = doc["Outcome"];
    job.outcome = Known(domain::ParseJobOutcome(outcome), "outcome", outcome);
  }
  job.failure_reason = OptionalText(doc, "FailureReason");
  job.fails_with = OptionalText(doc, "FailsWith");
  return record;
}

}  // namespace

JobRecord JobFromRow(const store::ResourceRow& row) { return codec::Decoding(row, &DecodeJob); }

std::optional<JobRecord> LoadJob(const Context& ctx, const store::ResourceKey& key) {
  const auto row = ctx.store.Get(key);
  if (!row) return std::nullopt;
  return JobFromRow(*row);
}

std::vector<JobRecord> LiveJobs(const store::Tables& store, domain::JobKind kind) {
  std::vector<JobRecord> jobs;
  for (domain::JobStatus status : {domain::JobStatus::kInProgress, domain::JobStatus::kStopping}) {
    for (const store::KeptRowPtr& kept : store.AllOfKind(domain::WireName(ResourceKindOf(kind)),
                                                         std::string(domain::ToString(status)))) {
      jobs.push_back(*store.DecodedRow<JobRecord>(*kept, &JobFromRow));
    }
  }
  return jobs;
}

std::vector<JobRecord> LiveJobs(const store::Tables& store) {
  std::vector<JobRecord> jobs = LiveJobs(store, domain::JobKind::kTraining);
  std::vector<JobRecord> processing = LiveJobs(store, domain::JobKind::kProcessing);
  jobs.insert(jobs.end(), std::make_move_iterator(processing.begin()),
              std::make_move_iterator(processing.end()));
  return jobs;
}

std::vector<domain::PreferenceJob> JobsWithPreferences(const store::Tables& store,
                                                       const std::optional<std::string>& account) {
  std::vector<domain::PreferenceJob> jobs;
  for (const char* kind : {domain::kTrainingJobKind, domain::kProcessingJobKind}) {
    for (const store::KeptRowPtr& kept : store.AllOfKind(kind)) {
      const store::ResourceRow& row = kept->row();
      if (account && row.key.account != *account) continue;
      const auto record = store.DecodedRow<JobRecord>(*kept, &JobFromRow);
      const domain::Job& job = record->job;
      if (job.options.size() < 2 || !job.start || !job.selected) continue;
      jobs.push_back({job.arn, row.key.name, kind, row.key.account, row.key.region,
                      job.options.front(), *job.selected, *job.start, job.end});
    }
  }
  return jobs;
}

}  // namespace smemu::ops
