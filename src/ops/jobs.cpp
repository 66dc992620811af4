// Training and processing jobs on a capacity scheduler driven by the clock. A job has a list of
// instance options (see ops/job_options.hpp). It starts on the first option with free capacity (a
// plan's free instances, or the region's on-demand pool); otherwise it waits, first come first
// served, and is retried whenever something may have changed: at every request, and at each moment
// a plan opens or closes or a running job ends. A running job holds its instances until it
// completes (after a simulated run time), hits MaxRuntimeInSeconds, is stopped, or loses its plan.
#include <algorithm>

#include "ops/arn.hpp"
#include "ops/capacity_use.hpp"
#include "ops/handlers.hpp"
#include "ops/job_options.hpp"
#include "ops/listing.hpp"
#include "ops/overview.hpp"
#include "ops/plan_records.hpp"
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
constexpr JobFamily kTraining{kTrainingJobKind, "Training",          "TrainingJobName",
                              "TrainingJobArn", "TrainingJobStatus", true};
constexpr JobFamily kProcessing{kProcessingJobKind, "Processing",          "ProcessingJobName",
                                "ProcessingJobArn", "ProcessingJobStatus", false};

const JobFamily& FamilyOf(const std::string& kind) {
  return kind == kTrainingJobKind ? kTraining : kProcessing;
}

TimePoint AtMs(const json& doc, const char* member) {
  return TimePoint{Millis{doc.at(member).get<int64_t>()}};
}
int64_t Ms(TimePoint time) { return time.time_since_epoch().count(); }

Caller OwnerOf(const store::ResourceRow& row) { return {row.key.account, row.key.region, ""}; }

Context OwnerContext(const Context& ctx, const store::ResourceRow& row) {
  Context owner = ctx;
  owner.caller = OwnerOf(row);
  return owner;
}

std::vector<JobOption> OptionsOf(const json& doc) {
  std::vector<JobOption> options;
  for (const json& option : doc.at("Options")) {
    options.push_back(
        {option.at("InstanceType"), option.at("InstanceCount"), option.value("PlanArn", "")});
  }
  return options;
}

json OptionJson(const JobOption& option) {
  json out = {{"InstanceType", option.instance_type}, {"InstanceCount", option.instance_count}};
  if (!option.plan_arn.empty()) out["PlanArn"] = option.plan_arn;
  return out;
}

// ---- Scheduling
// ----------------------------------------------------------------------------------

// When a running job ends and why.
struct Ending {
  TimePoint at;
  std::string outcome;  // Completed, MaxRuntimeExceeded, PlanEnded
};

Ending EndingOf(const Context& owner, const json& doc) {
  const TimePoint start = AtMs(doc, "StartMs");
  Ending ending{start + Millis{doc.at("RunMs").get<int64_t>()}, "Completed"};
  const TimePoint limit = start + Millis{doc.at("MaxRuntimeMs").get<int64_t>()};
  if (limit < ending.at) ending = {limit, "MaxRuntimeExceeded"};
  const std::string plan_arn = doc["Selected"].value("PlanArn", "");
  if (!plan_arn.empty()) {
    const auto plan = PlanByReservationArn(owner, plan_arn);
    const TimePoint plan_end = plan ? plan->window.end : start;
    if (plan_end <= ending.at) ending = {plan_end, "PlanEnded"};
  }
  return ending;
}

// A plan option's window, when the option has a plan that still exists.
std::optional<domain::Window> PlanWindow(const Context& owner, const JobOption& option) {
  if (option.plan_arn.empty()) return std::nullopt;
  const auto plan = PlanByReservationArn(owner, option.plan_arn);
  if (!plan) return domain::Window{TimePoint{}, TimePoint{}};  // gone: as if long expired
  return plan->window;
}

// Pending time counts unless the job is waiting for a plan of its list to start.
bool PendingTimeCounts(const Context& owner, const json& doc, TimePoint at) {
  if (!doc.contains("MaxPendingMs")) return false;
  for (const JobOption& option : OptionsOf(doc)) {
    const auto window = PlanWindow(owner, option);
    if (window && domain::PlanStatusAt(*window, at) == "Scheduled") return false;
  }
  return true;
}

// True when no option can ever run again (every one is on a plan that has ended).
bool NoOptionLeft(const Context& owner, const json& doc, TimePoint at) {
  for (const JobOption& option : OptionsOf(doc)) {
    const auto window = PlanWindow(owner, option);
    if (!window || domain::PlanStatusAt(*window, at) != "Expired") return false;
  }
  return true;
}

// The earliest moment after the job's last evaluation at which something changes for it.
std::optional<TimePoint> NextEvent(const Context& ctx, const store::ResourceRow& row,
                                   const json& doc) {
  const Context owner = OwnerContext(ctx, row);
  if (doc.contains("StopDueMs")) return AtMs(doc, "StopDueMs");
  if (doc.value("Phase", "") == "Running") return EndingOf(owner, doc).at;
  const TimePoint as_of = AtMs(doc, "AsOfMs");
  std::optional<TimePoint> next;
  auto consider = [&](TimePoint at) {
    if (at > as_of && (!next || at < *next)) next = at;
  };
  if (doc.contains("PendingSinceMs")) {
    consider(AtMs(doc, "PendingSinceMs") +
             Millis{doc["MaxPendingMs"].get<int64_t>() - doc["PendingAccruedMs"].get<int64_t>()});
  }
  for (const JobOption& option : OptionsOf(doc)) {
    if (const auto window = PlanWindow(owner, option)) {
      consider(window->start);
      consider(window->end);
    }
  }
  return next;
}

void EndJob(store::ResourceRow& row, json& doc, TimePoint at, const std::string& outcome,
            const std::string& failure_reason = "") {
  const bool training = FamilyOf(row.key.kind).training;
  doc["Phase"] = "Ended";
  doc["EndMs"] = Ms(at);
  doc["Outcome"] = outcome;
  doc.erase("PendingSinceMs");
  if (!failure_reason.empty()) doc["FailureReason"] = failure_reason;
  if (outcome == "Completed") {
    row.status = "Completed";
  } else if (outcome == "Stopped" || (outcome == "MaxRuntimeExceeded" && training)) {
    row.status = "Stopped";
  } else {
    row.status = "Failed";
  }
  row.modified = at;
}

// Brings a waiting job's pending-time account up to `at`; false when the time ran out (the job
// has then failed at the moment it ran out).
bool AccountPendingTime(const Context& owner, store::ResourceRow& row, json& doc, TimePoint at) {
  if (doc.contains("PendingSinceMs")) {
    const TimePoint since = AtMs(doc, "PendingSinceMs");
    const int64_t left =
        doc["MaxPendingMs"].get<int64_t>() - doc["PendingAccruedMs"].get<int64_t>();
    if ((at - since).count() >= left) {
      EndJob(row, doc, since + Millis{left}, "PendingTimeExceeded",
             "No instance preference got capacity within MaxPendingTimeInSeconds (" +
                 std::to_string(doc["MaxPendingMs"].get<int64_t>() / 1000) + " seconds).");
      return false;
    }
    doc["PendingAccruedMs"] = doc["PendingAccruedMs"].get<int64_t>() + (at - since).count();
    doc.erase("PendingSinceMs");
  }
  if (PendingTimeCounts(owner, doc, at)) doc["PendingSinceMs"] = Ms(at);
  doc["AsOfMs"] = Ms(at);
  return true;
}

// Whether `option` has its instances free at `at`, given what is held already.
bool Fits(const Context& owner, const JobOption& option, Holdings& holdings, TimePoint at) {
  if (option.plan_arn.empty()) {
    return OnDemandFree(owner, owner.caller.region, option.instance_type, holdings) >=
           option.instance_count;
  }
  const auto plan = PlanByReservationArn(owner, option.plan_arn);
  if (!plan || domain::PlanStatusAt(plan->window, at) != "Active") return false;
  return plan->instance_count - holdings.by_plan[option.plan_arn] >= option.instance_count;
}

bool TryStart(const Context& owner, json& doc, Holdings& holdings, TimePoint at) {
  for (const JobOption& option : OptionsOf(doc)) {
    if (!Fits(owner, option, holdings, at)) continue;
    if (option.plan_arn.empty()) {
      holdings.on_demand_by_type[option.instance_type] += option.instance_count;
    } else {
      holdings.by_plan[option.plan_arn] += option.instance_count;
    }
    doc["Phase"] = "Running";
    doc["StartMs"] = Ms(at);
    doc["Selected"] = OptionJson(option);
    doc.erase("PendingSinceMs");
    return true;
  }
  return false;
}

struct LiveJob {
  store::ResourceRow row;
  json doc;
  bool changed = false;
};

// Every job still in progress or stopping, oldest first: the order in which waiting jobs are
// served.
std::vector<LiveJob> LiveJobs(const store::StateStore& store) {
  std::vector<LiveJob> jobs;
  for (const char* kind : {kTrainingJobKind, kProcessingJobKind}) {
    for (const char* status : kLiveJobStatuses) {
      for (store::ResourceRow& row : store.AllOfKind(kind, std::string(status))) {
        json doc = json::parse(row.doc);
        jobs.push_back({std::move(row), std::move(doc), false});
      }
    }
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const LiveJob& a, const LiveJob& b) {
    return a.row.created < b.row.created ||
           (a.row.created == b.row.created && AtMs(a.doc, "QueuedMs") < AtMs(b.doc, "QueuedMs"));
  });
  return jobs;
}

// Applies everything due at `at`: running jobs that end, waiting jobs whose time runs out or whose
// plans end, then starts waiting jobs in arrival order where capacity allows.
void SettleAt(Context& ctx, std::vector<LiveJob>& jobs, TimePoint at) {
  for (LiveJob& job : jobs) {
    const Context owner = OwnerContext(ctx, job.row);
    if (job.doc.contains("StopDueMs")) {  // stopping: nothing else can happen to it
      const TimePoint due = AtMs(job.doc, "StopDueMs");
      if (due <= at) {
        EndJob(job.row, job.doc, due, "Stopped");
        job.changed = true;
      }
      continue;
    }
    if (job.doc["Phase"] == "Running") {
      const Ending ending = EndingOf(owner, job.doc);
      if (ending.at > at) continue;
      std::string reason;
      if (ending.outcome == "PlanEnded") {
        reason = "The job was stopped at the end of training plan " +
                 job.doc["Selected"].value("PlanArn", "") + ".";
      } else if (ending.outcome == "MaxRuntimeExceeded" && !FamilyOf(job.row.key.kind).training) {
        reason = "The job exceeded MaxRuntimeInSeconds.";
      }
      EndJob(job.row, job.doc, ending.at, ending.outcome, reason);
      job.changed = true;
    } else if (job.doc["Phase"] == "Pending") {
      job.changed = true;
      if (!AccountPendingTime(owner, job.row, job.doc, at)) continue;
      if (NoOptionLeft(owner, job.doc, at)) {
        EndJob(job.row, job.doc, at, "NoOptionLeft",
               "Every instance preference of the job is on a training plan that has ended.");
      }
    }
  }
  std::map<std::string, Holdings> by_region;
  for (LiveJob& job : jobs) {
    if (job.doc["Phase"] != "Pending" || job.doc.contains("StopDueMs")) continue;
    // Ended jobs above are not saved yet: release their instances in the holdings first.
    if (!by_region.count(job.row.key.region)) {
      Holdings holdings = HoldingsIn(ctx.store, job.row.key.region);
      for (const LiveJob& other : jobs) {
        if (other.row.key.region != job.row.key.region || other.doc["Phase"] != "Ended" ||
            !other.doc.contains("Selected")) {
          continue;
        }
        const json& selected = other.doc["Selected"];
        const std::string plan = selected.value("PlanArn", "");
        int& held = plan.empty() ? holdings.on_demand_by_type[selected["InstanceType"]]
                                 : holdings.by_plan[plan];
        held -= selected["InstanceCount"].get<int>();
      }
      by_region.emplace(job.row.key.region, std::move(holdings));
    }
    if (TryStart(OwnerContext(ctx, job.row), job.doc, by_region[job.row.key.region], at)) {
      job.row.modified = at;
      job.changed = true;
    }
  }
  for (LiveJob& job : jobs) {
    if (!job.changed) continue;
    job.row.doc = job.doc.dump();
    ctx.store.Update(job.row);
    job.changed = false;
  }
  jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                            [](const LiveJob& job) { return job.doc["Phase"] == "Ended"; }),
             jobs.end());
}

}  // namespace

bool SettleJobs(Context& ctx) {
  std::vector<LiveJob> jobs = LiveJobs(ctx.store);
  if (jobs.empty()) return false;
  // Replays the events that fell due since the last request, in time order, so each start and
  // end is stamped with the moment it happened and sees the capacity of that moment.
  for (int guard = 0; guard < 100000; ++guard) {
    std::optional<TimePoint> next;
    for (const LiveJob& job : jobs) {
      const auto event = NextEvent(ctx, job.row, job.doc);
      if (event && *event <= ctx.now && (!next || *event < *next)) next = event;
    }
    if (!next) break;
    SettleAt(ctx, jobs, *next);
  }
  SettleAt(ctx, jobs, ctx.now);
  return !jobs.empty();
}

namespace {

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
  const long long run_seconds = RunSeconds(in);
  if (run_seconds < 0) {
    return domain::ValidationException(std::string(kRunSecondsVariable) +
                                       " must be a number of seconds.");
  }
  const json stopping = in.value("StoppingCondition", json::object());
  json request = in;
  request.erase("Tags");
  json doc = {
      {"Request", request},
      {"Options", json::array()},
      {"Phase", "Pending"},
      {"QueuedMs", Ms(ctx.now)},
      {"AsOfMs", Ms(ctx.now)},
      {"PendingAccruedMs", 0},
      {"RunMs", run_seconds * 1000},
      {"MaxRuntimeMs", stopping.value("MaxRuntimeInSeconds", kDefaultMaxRuntimeSeconds) * 1000}};
  for (const JobOption& option : *options) doc["Options"].push_back(OptionJson(option));
  if (family.training && stopping.contains("MaxPendingTimeInSeconds") &&
      HasAcceleratedType(*options)) {
    doc["MaxPendingMs"] = stopping["MaxPendingTimeInSeconds"].get<int64_t>() * 1000;
    if (PendingTimeCounts(ctx, doc, ctx.now)) doc["PendingSinceMs"] = Ms(ctx.now);
  }
  const std::string arn = SageMakerArn(ctx.caller, family.kind, name);
  const store::ResourceRow row{{ctx.caller.account, ctx.caller.region, family.kind, name},
                               arn,
                               "InProgress",
                               ctx.now,
                               ctx.now,
                               doc.dump()};
  if (!ctx.store.Insert(row, ReadTags(in))) {
    std::string noun = family.noun;
    std::transform(noun.begin(), noun.end(), noun.begin(), ::tolower);
    return domain::ResourceInUse(std::string(family.noun) +
                                 " job names must be unique within an AWS account and region, and "
                                 "a " +
                                 noun + " job with this name already exists (" + arn + ")");
  }
  SettleJobs(ctx);  // starts at once when capacity is free
  return json{{family.arn_member, arn}};
}

// Training's secondary statuses while running, as fractions of the simulated run time.
struct Stage {
  const char* status;
  double from;  // fraction of the run time
  const char* message;
};
constexpr Stage kStages[] = {
    {"Starting", 0.0, "Launching requested ML instances"},
    {"Downloading", 0.1, "Downloading input data"},
    {"Training", 0.2, "Training image download completed. Training in progress."},
    {"Uploading", 0.9, "Uploading generated training model"},
};

json Transition(const std::string& status, TimePoint start, std::optional<TimePoint> end,
                const std::string& message) {
  json out = {{"Status", status}, {"StartTime", WriteTimestamp(start)}, {"StatusMessage", message}};
  if (end) out["EndTime"] = WriteTimestamp(*end);
  return out;
}

std::string FinalSecondary(const json& doc) {
  const std::string outcome = doc.value("Outcome", "");
  if (outcome == "Completed" || outcome == "Stopped" || outcome == "MaxRuntimeExceeded") {
    return outcome;
  }
  return "Failed";
}

std::string FinalMessage(const json& doc) {
  const std::string outcome = doc.value("Outcome", "");
  if (outcome == "Completed") return "Training job completed";
  if (outcome == "Stopped") return "Training job stopped";
  if (outcome == "MaxRuntimeExceeded") return "Training job exceeded MaxRuntimeInSeconds";
  return doc.value("FailureReason", "Training job failed");
}

// SecondaryStatusTransitions and the current SecondaryStatus, from the job's times. Every step
// has its start and, once it is over, its end: Pending (while waiting for capacity), the stages of
// the run, Stopping (from a stop request until the instances are released), and the final status.
json Transitions(const store::ResourceRow& row, const json& doc, TimePoint now,
                 std::string& current) {
  json transitions = json::array();
  const bool ended = doc["Phase"] == "Ended";
  const TimePoint end = ended ? AtMs(doc, "EndMs") : now;
  const std::optional<TimePoint> stop =
      doc.contains("StopMs") ? std::optional<TimePoint>(AtMs(doc, "StopMs")) : std::nullopt;
  // The run's own stages end when it ends or when a stop is asked for.
  const bool run_over = ended || stop;
  const TimePoint run_end = stop ? *stop : end;
  const std::optional<TimePoint> start =
      doc.contains("StartMs") ? std::optional<TimePoint>(AtMs(doc, "StartMs")) : std::nullopt;
  const TimePoint waited_until = start ? *start : run_end;
  if (waited_until > row.created || !start) {
    const bool still = !run_over && !start;
    transitions.push_back(Transition("Pending", row.created,
                                     still ? std::nullopt : std::optional<TimePoint>(waited_until),
                                     "Waiting for capacity for one of the instance preferences."));
    current = "Pending";
  }
  if (start) {
    const Millis run{doc["RunMs"].get<int64_t>()};
    for (size_t i = 0; i < std::size(kStages); ++i) {
      const TimePoint from = *start + std::chrono::duration_cast<Millis>(run * kStages[i].from);
      if (from > run_end || (from == run_end && run_over && i > 0)) break;
      const TimePoint to =
          i + 1 < std::size(kStages)
              ? *start + std::chrono::duration_cast<Millis>(run * kStages[i + 1].from)
              : *start + run;
      const bool open = !run_over && to > now;
      transitions.push_back(
          Transition(kStages[i].status, from,
                     open ? std::nullopt : std::optional<TimePoint>(std::min(to, run_end)),
                     kStages[i].message));
      current = kStages[i].status;
    }
  }
  if (stop) {
    current = "Stopping";
    transitions.push_back(Transition(current, *stop,
                                     ended ? std::optional<TimePoint>(end) : std::nullopt,
                                     "Stopping the training job"));
  }
  if (ended) {
    current = FinalSecondary(doc);
    transitions.push_back(Transition(current, end, end, FinalMessage(doc)));
  }
  return transitions;
}

Result<store::ResourceRow> FindJob(const JobFamily& family, const Context& ctx,
                                   const std::string& name) {
  auto row = ctx.store.Get({ctx.caller.account, ctx.caller.region, family.kind, name});
  if (!row) {
    if (family.training) return domain::ValidationException("Requested resource not found.");
    return domain::ValidationException("Could not find requested job with name " + name);
  }
  return *row;
}

void AddTimes(const json& doc, const char* start_member, const char* end_member, json& out) {
  if (doc.contains("StartMs")) out[start_member] = WriteTimestamp(AtMs(doc, "StartMs"));
  if (doc.contains("EndMs") && doc.contains("StartMs")) {
    out[end_member] = WriteTimestamp(AtMs(doc, "EndMs"));
  }
}

Result<json> DescribeTrainingJob(const json& in, Context& ctx) {
  auto row = FindJob(kTraining, ctx, in.at("TrainingJobName"));
  if (!row) return row.error();
  const json doc = json::parse(row->doc);
  const json& request = doc["Request"];
  json out = request;
  out["TrainingJobName"] = row->key.name;
  out["TrainingJobArn"] = row->arn;
  out["TrainingJobStatus"] = row->status;
  std::string secondary = "Starting";
  out["SecondaryStatusTransitions"] = Transitions(*row, doc, ctx.now, secondary);
  out["SecondaryStatus"] = secondary;
  const std::string output_path = request["OutputDataConfig"].value("S3OutputPath", "");
  out["ModelArtifacts"] = {
      {"S3ModelArtifacts", output_path +
                               (output_path.empty() || output_path.back() == '/' ? "" : "/") +
                               row->key.name + "/output/model.tar.gz"}};
  json stopping = request.value("StoppingCondition", json::object());
  if (!stopping.contains("MaxRuntimeInSeconds")) {
    stopping["MaxRuntimeInSeconds"] = kDefaultMaxRuntimeSeconds;
  }
  out["StoppingCondition"] = stopping;
  if (doc.contains("Selected")) {
    out["ResourceConfig"]["SelectedInstanceType"] = doc["Selected"]["InstanceType"];
    out["ResourceConfig"]["SelectedInstanceCount"] = doc["Selected"]["InstanceCount"];
  }
  if (doc.contains("FailureReason")) out["FailureReason"] = doc["FailureReason"];
  AddTimes(doc, "TrainingStartTime", "TrainingEndTime", out);
  if (doc.contains("StartMs") && doc.contains("EndMs")) {
    // Reported once the job has ended, in whole seconds; the model's minimum is 1 (a job stopped
    // in the second it started is billed one).
    const long long seconds = std::max<long long>(
        1,
        std::chrono::duration_cast<std::chrono::seconds>(AtMs(doc, "EndMs") - AtMs(doc, "StartMs"))
            .count());
    out["TrainingTimeInSeconds"] = seconds;
    out["BillableTimeInSeconds"] = seconds;
  }
  for (const char* flag : {"EnableNetworkIsolation", "EnableInterContainerTrafficEncryption",
                           "EnableManagedSpotTraining"}) {
    if (!out.contains(flag)) out[flag] = false;
  }
  out["CreationTime"] = WriteTimestamp(row->created);
  out["LastModifiedTime"] = WriteTimestamp(row->modified);
  return out;
}

Result<json> DescribeProcessingJob(const json& in, Context& ctx) {
  auto row = FindJob(kProcessing, ctx, in.at("ProcessingJobName"));
  if (!row) return row.error();
  const json doc = json::parse(row->doc);
  json out = doc["Request"];
  out["ProcessingJobName"] = row->key.name;
  out["ProcessingJobArn"] = row->arn;
  out["ProcessingJobStatus"] = row->status;
  if (doc.contains("Selected")) {
    json& cluster = out["ProcessingResources"]["ClusterConfig"];
    cluster["SelectedInstanceType"] = doc["Selected"]["InstanceType"];
    cluster["SelectedInstanceCount"] = doc["Selected"]["InstanceCount"];
  }
  if (doc.contains("FailureReason")) out["FailureReason"] = doc["FailureReason"];
  if (doc.value("Outcome", "") == "Completed") out["ExitMessage"] = "Processing job completed";
  AddTimes(doc, "ProcessingStartTime", "ProcessingEndTime", out);
  out["CreationTime"] = WriteTimestamp(row->created);
  out["LastModifiedTime"] = WriteTimestamp(row->modified);
  return out;
}

Result<json> StopJob(const JobFamily& family, const json& in, Context& ctx) {
  auto row = FindJob(family, ctx, in.at(family.name_member));
  if (!row) return row.error();
  if (row->status != "InProgress") {
    std::string noun = family.noun;
    std::transform(noun.begin(), noun.end(), noun.begin(), ::tolower);
    return domain::ValidationException("The request was rejected because the " + noun +
                                       " job is in status " + row->status + ".");
  }
  // As on SageMaker, the job is Stopping (holding its instances while they shut down) for the
  // provisioning delay, then Stopped.
  json doc = json::parse(row->doc);
  doc["StopMs"] = Ms(ctx.now);
  doc["StopDueMs"] = Ms(ctx.now + ctx.hosting.provisioning_delay);
  doc.erase("PendingSinceMs");
  row->status = "Stopping";
  row->modified = ctx.now;
  row->doc = doc.dump();
  ctx.store.Update(*row);
  SettleJobs(ctx);  // without a delay the stop completes now, and may start a waiting job
  return json::object();
}

// The plan a job runs on, or will: its selection once started; before that, the plan of a job
// with a single option (a plain job with ResourceConfig.TrainingPlanArn).
std::string PlanOfJob(const json& doc) {
  if (doc.contains("Selected")) return doc["Selected"].value("PlanArn", "");
  if (doc["Options"].size() == 1) return doc["Options"][0].value("PlanArn", "");
  return "";
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

Result<json> ListJobs(const JobFamily& family, const char* list_member, const json& in,
                      Context& ctx) {
  const ListSpec& spec = ListSpecOf(family);
  auto request = ReadListRequest(in, spec);
  if (!request) return request.error();
  StoreFilters store_filters = ReadStoreFilters(in);
  Filters<store::ResourceRow> filters;
  // As AWS documents for ListTrainingJobs: with StatusEquals and MaxResults both set, MaxResults
  // jobs are taken ignoring the status, and then filtered by it.
  if (family.training && store_filters.status && request->limit_given) {
    filters.after_paging = [status = *store_filters.status](const store::ResourceRow& row) {
      return row.status == status;
    };
    store_filters.status.reset();
  }
  const std::string plan_filter = in.value("TrainingPlanArnEquals", "");
  // No job here keeps a warm pool, so a warm pool status matches none.
  const bool warm_pool_filter =
      in.contains("WarmPoolStatusEquals") && !in["WarmPoolStatusEquals"].is_null();
  if (!plan_filter.empty() || warm_pool_filter) {
    filters.before_paging = [&](const store::ResourceRow& row) {
      return !warm_pool_filter && PlanOfJob(json::parse(row.doc)) == plan_filter;
    };
  }
  const auto page = Paginate<store::ResourceRow>(
      spec, *request, StoreSource(ctx, family.kind, *request, store_filters), filters);
  json items = json::array();
  for (const store::ResourceRow& row : page.items) {
    const json doc = json::parse(row.doc);
    json item = {{family.name_member, row.key.name},
                 {family.arn_member, row.arn},
                 {"CreationTime", WriteTimestamp(row.created)},
                 {"LastModifiedTime", WriteTimestamp(row.modified)},
                 {family.status_member, row.status}};
    if (doc.contains("EndMs")) {
      item[family.training ? "TrainingEndTime" : "ProcessingEndTime"] =
          WriteTimestamp(AtMs(doc, "EndMs"));
    }
    if (family.training) {
      std::string secondary = "Starting";
      Transitions(row, doc, ctx.now, secondary);
      item["SecondaryStatus"] = secondary;
      if (const std::string plan = PlanOfJob(doc); !plan.empty()) item["TrainingPlanArn"] = plan;
    } else if (doc.contains("FailureReason")) {
      item["FailureReason"] = doc["FailureReason"];
    }
    items.push_back(std::move(item));
  }
  json out = {{list_member, std::move(items)}};
  if (page.next_token) out["NextToken"] = *page.next_token;
  return out;
}

}  // namespace

std::vector<JobOverview> JobOverviews(const store::StateStore& store, TimePoint now,
                                      const std::optional<std::string>& account) {
  std::vector<JobOverview> jobs;
  for (const char* kind : {kTrainingJobKind, kProcessingJobKind}) {
    for (const store::ResourceRow& row : store.AllOfKind(kind)) {
      if (account && row.key.account != *account) continue;
      const json doc = json::parse(row.doc);
      JobOverview job;
      job.name = row.key.name;
      job.arn = row.arn;
      job.account = row.key.account;
      job.region = row.key.region;
      job.kind = kind;
      job.status = row.status;
      if (FamilyOf(kind).training) {
        job.secondary_status = "Starting";
        Transitions(row, doc, now, job.secondary_status);
      } else {  // processing jobs have no secondary status on AWS: say what the scheduler does
        const std::string phase = doc.value("Phase", "");
        job.secondary_status = phase == "Ended"            ? FinalSecondary(doc)
                               : doc.contains("StopDueMs") ? "Stopping"
                                                           : phase;
      }
      if (doc.contains("Selected")) {
        job.instance_type = doc["Selected"].value("InstanceType", "");
        job.instance_count = doc["Selected"].value("InstanceCount", 0);
      }
      job.training_plan_arn = PlanOfJob(doc);
      job.created = row.created;
      // The wait ends when the job starts, or when it ended without ever starting.
      const TimePoint waited_until = doc.contains("StartMs") ? AtMs(doc, "StartMs")
                                     : doc.contains("EndMs") ? AtMs(doc, "EndMs")
                                                             : now;
      job.waiting = std::max(Millis{0}, waited_until - row.created);
      job.failure_reason = doc.value("FailureReason", "");
      jobs.push_back(std::move(job));
    }
  }
  return jobs;
}

void AddJobHandlers(HandlerTable& table) {
  table.emplace("CreateTrainingJob",
                [](const json& in, Context& ctx) { return CreateJob(kTraining, in, ctx); });
  table.emplace("DescribeTrainingJob", &DescribeTrainingJob);
  table.emplace("StopTrainingJob",
                [](const json& in, Context& ctx) { return StopJob(kTraining, in, ctx); });
  table.emplace("ListTrainingJobs", [](const json& in, Context& ctx) {
    return ListJobs(kTraining, "TrainingJobSummaries", in, ctx);
  });
  table.emplace("CreateProcessingJob",
                [](const json& in, Context& ctx) { return CreateJob(kProcessing, in, ctx); });
  table.emplace("DescribeProcessingJob", &DescribeProcessingJob);
  table.emplace("StopProcessingJob",
                [](const json& in, Context& ctx) { return StopJob(kProcessing, in, ctx); });
  table.emplace("ListProcessingJobs", [](const json& in, Context& ctx) {
    return ListJobs(kProcessing, "ProcessingJobSummaries", in, ctx);
  });
}

}  // namespace smemu::ops
