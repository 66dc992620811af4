// Training and processing jobs on a capacity scheduler driven by the clock. A job has a list of
// instance options (see ops/job_options.hpp). It starts on the first option with free capacity (a
// plan's free instances, or the region's on-demand pool); otherwise it waits, first come first
// served, and is retried whenever something may have changed: at every request, and at each moment
// a plan opens or closes or a running job ends. A running job holds its instances until it
// completes (after a simulated run time), hits MaxRuntimeInSeconds, is stopped, or loses its plan.
#include <algorithm>
#include <utility>

#include "domain/job_secondary_status.hpp"
#include "domain/time_format.hpp"
#include "ops/arn.hpp"
#include "ops/edit.hpp"
#include "ops/job_options.hpp"
#include "ops/kinds.hpp"
#include "ops/lifecycle_records.hpp"
#include "ops/listing.hpp"
#include "ops/plan_records.hpp"
#include "ops/quota_checks.hpp"
#include "ops/tag_input.hpp"
#include "ops/wire_values.hpp"

namespace smemu::ops {
namespace {

using domain::Result;
using nlohmann::json;

constexpr const char* kRunSecondsVariable = "SAGEMAKER_EMULATOR_RUN_SECONDS";
constexpr long long kDefaultRunSeconds = 60;
constexpr long long kDefaultMaxRuntimeSeconds = 86400;  // the service's default: one day

// The two job families differ only in names and a few members.
struct JobFamily {
  const char* kind;
  const char* noun;  // in messages: "Training job", "Processing job"
  const char* name_member;
  const char* arn_member;
  const char* status_member;
  bool training;
};
constexpr JobFamily kTraining{domain::kTrainingJobKind, "Training",          "TrainingJobName",
                              "TrainingJobArn",         "TrainingJobStatus", true};
constexpr JobFamily kProcessing{domain::kProcessingJobKind, "Processing",
                                "ProcessingJobName",        "ProcessingJobArn",
                                "ProcessingJobStatus",      false};

// Applies every job event that is due at ctx.now, in time order: jobs end, waiting jobs time out
// or start where capacity is free (first come, first served). Returns when the next job event
// falls due by time alone (domain::NextDue); a write may bring one sooner.
std::optional<TimePoint> SettleJobs(const Context& ctx, Applier& applier) {
  std::vector<JobRecord> records = LiveJobs(ctx.store);
  if (records.empty()) return std::nullopt;
  std::map<std::string, std::size_t, std::less<>> by_arn;
  std::vector<domain::Job> live;
  for (std::size_t i = 0; i < records.size(); ++i) {
    JobRecord& record = records[i];
    // A waiting job that a no_capacity fault rule matches (for one of its instance types) fails
    // for capacity, as its provisioning would.
    if (record.job.phase == domain::JobPhase::kPending && !record.job.stop_due &&
        record.job.status == domain::JobStatus::kInProgress) {
      const std::string operation = record.job.kind == domain::JobKind::kTraining
                                        ? "CreateTrainingJob"
                                        : "CreateProcessingJob";
      if (auto types = ctx.faults.NoCapacityFor(
              {operation, record.key.account, record.key.region, record.key.name});
          types && std::any_of(record.job.options.begin(), record.job.options.end(),
                               [&](const domain::JobOption& option) {
                                 return domain::GlobMatches(*types, option.instance_type);
                               })) {
        const domain::Job before =
            std::exchange(record.job, domain::FailForCapacity(std::move(record.job), ctx.now));
        applier.Apply(Edit::SaveJob{record, before}, ctx.now);
        continue;
      }
    }
    by_arn.emplace(record.job.arn, i);
    live.push_back(record.job);
  }
  const StoreCapacityFacts facts(ctx);
  domain::Schedule schedule = domain::ScheduleJobs(std::move(live), ctx.now, facts, ctx.holdings);
  for (domain::Job& job : schedule.jobs) {
    JobRecord& record = records[by_arn.at(job.arn)];
    if (job == record.job) continue;
    const domain::Job before = std::exchange(record.job, std::move(job));
    applier.Apply(Edit::SaveJob{record, before}, ctx.now);
  }
  std::vector<domain::Job> settled;
  for (JobRecord& record : records) {
    if (by_arn.count(record.job.arn) != 0) settled.push_back(std::move(record.job));
  }
  return domain::NextDue(settled, facts);
}

template <domain::JobKind kJobKind>
void AddJobHolders(const store::Tables& store, domain::Holdings& holdings) {
  for (const JobRecord& record : LiveJobs(store, kJobKind)) {
    holdings.Put(domain::HolderOf(record.job));
  }
}

// ---- Handlers
// ------------------------------------------------------------------------------------

long long RunSeconds(const json& input) {
  const json environment = input.value("Environment", json::object());
  const auto it = environment.find(kRunSecondsVariable);
  if (it == environment.end() || !it->is_string()) return kDefaultRunSeconds;
  try {
    size_t used = 0;
    const double seconds = std::stod(it->get<std::string>(), &used);
    if (used == it->get<std::string>().size() && seconds >= 0 && seconds < 1e9) {
      return static_cast<long long>(seconds);
    }
  } catch (const std::exception&) {
  }
  return -1;
}

Result<json> CreateJob(const JobFamily& family, const json& in, Context& ctx) {
  const std::string name = in.at(family.name_member);
  auto options = family.training ? TrainingJobOptions(in, ctx) : ProcessingJobOptions(in);
  if (!options) return options.error();
  if (auto allowed = CheckJobQuotas(ctx, family.training, *options); !allowed) {
    return allowed.error();
  }
  const long long run_seconds = RunSeconds(in);
  if (run_seconds < 0) {
    return domain::ValidationException(std::string(kRunSecondsVariable) +
                                       " must be a number of seconds.");
  }
  const json stopping = in.value("StoppingCondition", json::object());
  std::optional<Millis> max_pending;
  if (family.training && stopping.contains("MaxPendingTimeInSeconds") &&
      domain::WaitsForCapacity(*options)) {
    max_pending = Millis{stopping["MaxPendingTimeInSeconds"].get<int64_t>() * 1000};
  }
  const std::string arn = SageMakerArn(ctx.caller, family.kind, name);
  json request = in;
  // Describe answers with the stored request: keep only what its output shape has. Tags are
  // listed by ListTags; a session's tag chaining is not shown back by DescribeTrainingJob.
  for (const char* member : {"Tags", "SessionChainingConfig"}) request.erase(member);
  JobRecord record{
      {ctx.caller.account, ctx.caller.region, family.kind, name},
      std::move(request),
      domain::NewJob(
          arn, family.training ? domain::JobKind::kTraining : domain::JobKind::kProcessing,
          {ctx.caller.account, ctx.caller.region}, std::move(*options), ctx.now,
          Millis{run_seconds * 1000},
          Millis{stopping.value("MaxRuntimeInSeconds", kDefaultMaxRuntimeSeconds) * 1000},
          max_pending, StoreCapacityFacts(ctx))};
  if (const auto fault =
          ctx.faults.ForLifecycle(domain::FaultStage::kJobCreation,
                                  {family.training ? "CreateTrainingJob" : "CreateProcessingJob",
                                   ctx.caller.account, ctx.caller.region, name})) {
    const auto& failure = std::get<domain::JobFault>(*fault);
    record.job = domain::FailAfter(std::move(record.job), failure.after, failure.failure_reason);
  }
  if (ctx.store.Get(record.key)) {
    std::string noun = family.noun;
    std::transform(noun.begin(), noun.end(), noun.begin(), ::tolower);
    return domain::ResourceInUse(std::string(family.noun) +
                                 " job names must be unique within an AWS account and region, and "
                                 "a " +
                                 noun + " job with this name already exists (" +
                                 domain::Excerpt(arn) + ")");
  }
  ctx.edit.Add(Edit::InsertJob{std::move(record), ReadTags(in)});
  return json{{family.arn_member, arn}};
}

// SecondaryStatusTransitions as the model writes them (domain::SecondaryStatusHistoryOf).
json TransitionsJson(const std::vector<domain::SecondaryStatusTransition>& transitions) {
  json out = json::array();
  for (const domain::SecondaryStatusTransition& transition : transitions) {
    json step = {{"Status", domain::ToString(transition.status)},
                 {"StartTime", WriteTimestamp(transition.start)},
                 {"StatusMessage", transition.message}};
    if (transition.end) step["EndTime"] = WriteTimestamp(*transition.end);
    out.push_back(std::move(step));
  }
  return out;
}

Result<JobRecord> FindJob(const JobFamily& family, const Context& ctx, const std::string& name) {
  const domain::ResourceKind kind =
      family.training ? domain::ResourceKind::kTrainingJob : domain::ResourceKind::kProcessingJob;
  auto record = LoadJob(ctx, KeyOf(ctx.caller, kind, name));
  if (!record) return NotFound(ctx.caller, kind, name);
  return std::move(*record);
}

void AddTimes(const domain::Job& job, const char* start_member, const char* end_member, json& out) {
  if (job.start) out[start_member] = WriteTimestamp(*job.start);
  if (job.end && job.start) out[end_member] = WriteTimestamp(*job.end);
}

// The instances a started job runs on, as its Describe answer shows them.
void AddSelected(const domain::JobOption& selected, json& into) {
  into["SelectedInstanceType"] = selected.instance_type;
  into["SelectedInstanceCount"] = selected.instance_count;
}

Result<json> DescribeTrainingJob(const json& in, Context& ctx) {
  auto record = FindJob(kTraining, ctx, in.at("TrainingJobName"));
  if (!record) return record.error();
  const domain::Job& job = record->job;
  const json& request = record->request;
  json out = request;
  out["TrainingJobName"] = record->key.name;
  out["TrainingJobArn"] = job.arn;
  out["TrainingJobStatus"] = domain::ToString(job.status);
  const domain::SecondaryStatusHistory secondary = domain::SecondaryStatusHistoryOf(job, ctx.now);
  out["SecondaryStatusTransitions"] = TransitionsJson(secondary.transitions);
  out["SecondaryStatus"] = domain::ToString(secondary.current);
  const std::string output_path = request["OutputDataConfig"].value("S3OutputPath", "");
  out["ModelArtifacts"] = {
      {"S3ModelArtifacts", output_path +
                               (output_path.empty() || output_path.back() == '/' ? "" : "/") +
                               record->key.name + "/output/model.tar.gz"}};
  json stopping = request.value("StoppingCondition", json::object());
  if (!stopping.contains("MaxRuntimeInSeconds")) {
    stopping["MaxRuntimeInSeconds"] = kDefaultMaxRuntimeSeconds;
  }
  out["StoppingCondition"] = stopping;
  if (job.selected) AddSelected(*job.selected, out["ResourceConfig"]);
  if (job.failure_reason) out["FailureReason"] = *job.failure_reason;
  AddTimes(job, "TrainingStartTime", "TrainingEndTime", out);
  if (job.start && job.end) {
    // Reported once the job has ended, in whole seconds; the model's minimum is 1 (a job stopped
    // in the second it started is billed one).
    // The time between two reserved capacities is not training time.
    const bool ended_interrupted = job.interrupted && !job.resumed;
    const Millis trained =
        job.ran + (ended_interrupted ? Millis{0} : *job.end - job.resumed.value_or(*job.start));
    const long long seconds =
        std::max<long long>(1, std::chrono::duration_cast<std::chrono::seconds>(trained).count());
    out["TrainingTimeInSeconds"] = seconds;
    out["BillableTimeInSeconds"] = seconds;
  }
  for (const char* flag : {"EnableNetworkIsolation", "EnableInterContainerTrafficEncryption",
                           "EnableManagedSpotTraining"}) {
    if (!out.contains(flag)) out[flag] = false;
  }
  out["CreationTime"] = WriteTimestamp(job.created);
  out["LastModifiedTime"] = WriteTimestamp(job.modified);
  return out;
}

Result<json> DescribeProcessingJob(const json& in, Context& ctx) {
  auto record = FindJob(kProcessing, ctx, in.at("ProcessingJobName"));
  if (!record) return record.error();
  const domain::Job& job = record->job;
  json out = record->request;
  out["ProcessingJobName"] = record->key.name;
  out["ProcessingJobArn"] = job.arn;
  out["ProcessingJobStatus"] = domain::ToString(job.status);
  if (job.selected) AddSelected(*job.selected, out["ProcessingResources"]["ClusterConfig"]);
  if (job.failure_reason) out["FailureReason"] = *job.failure_reason;
  if (job.outcome == domain::JobOutcome::kCompleted)
    out["ExitMessage"] = "Processing job completed";
  AddTimes(job, "ProcessingStartTime", "ProcessingEndTime", out);
  out["CreationTime"] = WriteTimestamp(job.created);
  out["LastModifiedTime"] = WriteTimestamp(job.modified);
  return out;
}

Result<json> StopJob(const JobFamily& family, const json& in, Context& ctx) {
  auto record = FindJob(family, ctx, in.at(family.name_member));
  if (!record) return record.error();
  // As on SageMaker, the job is Stopping (holding its instances while they shut down) for the
  // provisioning delay, then Stopped.
  auto stopping = domain::StartStop(record->job, ctx.now, ctx.hosting.provisioning_delay);
  if (!stopping) return stopping.error();
  domain::Job before = std::exchange(record->job, std::move(*stopping));
  ctx.edit.Add(Edit::SaveJob{std::move(*record), std::move(before)});
  return json::object();
}

const ListSpec& ListSpecOf(const JobFamily& family) {
  static const std::vector<SortKey> kSortKeys = {{"CreationTime", store::SortField::kCreationTime},
                                                 {"Name", store::SortField::kName},
                                                 {"Status", store::SortField::kStatus}};
  // ListTrainingJobs' model says Ascending is the default, while its own example lists "from the
  // most current to the oldest", as the service does: Descending (README, "Known differences").
  // ListProcessingJobs' model says Ascending and nothing else.
  static const ListSpec kTrainingSpec{"ListTrainingJobs", kSortKeys, true};
  static const ListSpec kProcessingSpec{"ListProcessingJobs", kSortKeys, false};
  return family.training ? kTrainingSpec : kProcessingSpec;
}

Result<Answer> ListJobs(const JobFamily& family, const char* list_member, const json& in,
                        Context& ctx) {
  const ListSpec& spec = ListSpecOf(family);
  auto request = ReadListRequest(in, spec);
  if (!request) return request.error();
  StoreFilters store_filters = ReadStoreFilters(in);
  Filters<store::KeptRowPtr> filters;
  // As AWS documents for ListTrainingJobs: with StatusEquals and MaxResults both set, MaxResults
  // jobs are taken ignoring the status, and then filtered by it.
  if (family.training && store_filters.status && request->limit_given) {
    filters.after_paging = [status = *store_filters.status](const store::KeptRowPtr& row) {
      return row->row().status == status;
    };
    store_filters.status.reset();
  }
  const std::string plan_filter = in.value("TrainingPlanArnEquals", "");
  // No job here keeps a warm pool, so a warm pool status matches none.
  const bool warm_pool_filter =
      in.contains("WarmPoolStatusEquals") && !in["WarmPoolStatusEquals"].is_null();
  if (!plan_filter.empty() || warm_pool_filter) {
    filters.before_paging = [&](const store::KeptRowPtr& row) {
      return !warm_pool_filter &&
             domain::PlanOf(ctx.store.DecodedRow<JobRecord>(*row, &JobFromRow)->job) == plan_filter;
    };
  }
  auto page = Paginate<store::KeptRowPtr>(
      spec, *request, StoreSource(ctx, family.kind, *request, store_filters), filters);
  // The decoded jobs are taken now; the summaries are written after the lock is released, from
  // the rows (which never change) and the records (immutable).
  struct Summary {
    store::KeptRowPtr row;
    std::shared_ptr<const JobRecord> record;
  };
  Page<Summary> summaries{{}, std::move(page.next_token)};
  summaries.items.reserve(page.items.size());
  for (store::KeptRowPtr& row : page.items) {
    auto record = ctx.store.DecodedRow<JobRecord>(*row, &JobFromRow);
    summaries.items.push_back({std::move(row), std::move(record)});
  }
  // `family` is one of the two static families: the reference outlives the request.
  return WriteListAnswerLater(
      list_member, std::move(summaries),
      [&family = family, now = ctx.now](JsonWriter& out, const Summary& summary) {
        const store::ResourceRow& row = summary.row->row();
        const domain::Job& job = summary.record->job;
        out.Member(family.name_member, row.key.name)
            .Member(family.arn_member, row.arn)
            .TimestampMember("CreationTime", row.created);
        if (job.end) {
          out.TimestampMember(family.training ? "TrainingEndTime" : "ProcessingEndTime", *job.end);
        }
        out.TimestampMember("LastModifiedTime", row.modified)
            .Member(family.status_member, row.status);
        if (family.training) {
          out.Member("SecondaryStatus", domain::ToString(domain::SecondaryStatusOf(job, now)));
          if (const std::string plan = domain::PlanOf(job); !plan.empty()) {
            out.Member("TrainingPlanArn", plan);
          }
        } else {
          out.OptionalMember("FailureReason", job.failure_reason);
        }
      });
}

}  // namespace

namespace {

// Set in a training container on a plan: when its reserved capacity block ends.
constexpr std::string_view kCapacityBlockExpirationVariable =
    "SAGEMAKER_CURRENT_CAPACITY_BLOCK_EXPIRATION_TIMESTAMP";

// Every job of the family, with what it waits for or runs on.
void AddJobState(const JobFamily& family, const StateQuery& query, JsonWriter& entries) {
  const TimePoint now = query.ctx().now;
  const store::Tables& store = query.ctx().store;
  for (const store::KeptRowPtr& kept : store.AllOfKind(family.kind)) {
    const store::ResourceRow& row = kept->row();
    if (!query.Shows(row.key.account)) continue;
    const auto record = store.DecodedRow<JobRecord>(*kept, &JobFromRow);
    const domain::Job& job = record->job;
    std::string_view secondary;
    if (family.training) {
      secondary = domain::ToString(domain::SecondaryStatusOf(job, now));
    } else {  // processing jobs have no secondary status on AWS: say what the scheduler does
      secondary = job.phase == domain::JobPhase::kEnded
                      ? domain::ToString(domain::FinalSecondaryStatus(job))
                  : job.stop_due ? domain::ToString(domain::SecondaryStatus::kStopping)
                                 : domain::ToString(job.phase);
    }
    // The wait ends when the job starts, or when it ended without ever starting.
    const TimePoint waited_until = job.start ? *job.start : job.end ? *job.end : now;
    const Millis waiting = std::max(Millis{0}, waited_until - row.created);
    entries.BeginObject()
        .Member("name", row.key.name)
        .Member("arn", row.arn)
        .Member("account", row.key.account)
        .Member("region", row.key.region)
        .Member("kind", family.kind)
        .Member("status", row.status)
        .Member("secondary_status", secondary)
        .Member("instance_count", job.selected ? job.selected->instance_count : 0)
        .Member("created", domain::FormatIso8601(row.created))
        .Member("waiting_seconds", waiting.count() / 1000);
    if (job.selected && !job.selected->instance_type.empty()) {
      entries.Member("instance_type", job.selected->instance_type);
    }
    if (const std::string plan = domain::PlanOf(job); !plan.empty()) {
      entries.Member("training_plan_arn", plan);
    }
    if (job.failure_reason && !job.failure_reason->empty()) {
      entries.Member("failure_reason", *job.failure_reason);
    }
    // What the training container would find in its environment to checkpoint by: "you can use
    // the SAGEMAKER_CURRENT_CAPACITY_BLOCK_EXPIRATION_TIMESTAMP environment variable. This
    // variable helps determine when to initiate the checkpointing process." (training plans for
    // training jobs; AWS's sample reads it as whole epoch seconds).
    if (job.phase == domain::JobPhase::kRunning && job.selected &&
        !job.selected->plan_arn.empty()) {
      // The reserved capacity the job runs in: the one in force when it started or went on.
      const auto plan = PlanByArn(query.ctx().store, job.owner, job.selected->plan_arn);
      const domain::CapacityBlock* block =
          plan && job.start ? plan->BlockFrom(job.resumed.value_or(*job.start)) : nullptr;
      if (block != nullptr) {
        entries.Key("environment")
            .BeginObject()
            .Member(kCapacityBlockExpirationVariable,
                    std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                       block->window.end.time_since_epoch())
                                       .count()))
            .EndObject();
      }
    }
    // The options it may run on, in preference order (where a waiting job waits).
    entries.Key("options").BeginArray();
    for (const domain::JobOption& option : job.options) {
      entries.BeginObject()
          .Member("instance_type", option.instance_type)
          .Member("instance_count", option.instance_count);
      query.WriteSource(entries, job.owner, option.plan_arn);
      entries.EndObject();
    }
    entries.EndArray();
    if (job.start) entries.Member("started", domain::FormatIso8601(*job.start));
    if (job.end) entries.Member("ended", domain::FormatIso8601(*job.end));
    entries.EndObject();
  }
}

}  // namespace

namespace {

void AddTrainingJobHandlers(HandlerTable& table) {
  table.emplace("CreateTrainingJob",
                [](const json& in, Context& ctx) { return CreateJob(kTraining, in, ctx); });
  table.emplace("DescribeTrainingJob", &DescribeTrainingJob);
  table.emplace("StopTrainingJob",
                [](const json& in, Context& ctx) { return StopJob(kTraining, in, ctx); });
  table.emplace("ListTrainingJobs", [](const json& in, Context& ctx) {
    return ListJobs(kTraining, "TrainingJobSummaries", in, ctx);
  });
}

void AddProcessingJobHandlers(HandlerTable& table) {
  table.emplace("CreateProcessingJob",
                [](const json& in, Context& ctx) { return CreateJob(kProcessing, in, ctx); });
  table.emplace("DescribeProcessingJob", &DescribeProcessingJob);
  table.emplace("StopProcessingJob",
                [](const json& in, Context& ctx) { return StopJob(kProcessing, in, ctx); });
  table.emplace("ListProcessingJobs", [](const json& in, Context& ctx) {
    return ListJobs(kProcessing, "ProcessingJobSummaries", in, ctx);
  });
}

}  // namespace

// Training and processing jobs wait in one queue: they share one settler, and show in one section.
const KindDescriptor kTrainingJobDescriptor{
    .kind = domain::ResourceKind::kTrainingJob,
    .add_handlers = &AddTrainingJobHandlers,
    .taggable = true,
    .stage = SettleStage::kAfterReleases,
    .settle = &SettleJobs,
    .add_holders = &AddJobHolders<domain::JobKind::kTraining>,
    .quota_counted = true,
    .state_section = "jobs",
    .add_state = [](const StateQuery& query, JsonWriter& entries) {
      AddJobState(kTraining, query, entries);
    }};
const KindDescriptor kProcessingJobDescriptor{
    .kind = domain::ResourceKind::kProcessingJob,
    .add_handlers = &AddProcessingJobHandlers,
    .taggable = true,
    .stage = SettleStage::kAfterReleases,
    .settle = &SettleJobs,
    .add_holders = &AddJobHolders<domain::JobKind::kProcessing>,
    .quota_counted = true,
    .state_section = "jobs",
    .add_state = [](const StateQuery& query, JsonWriter& entries) {
      AddJobState(kProcessing, query, entries);
    }};

}  // namespace smemu::ops
