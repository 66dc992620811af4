#include "domain/job.hpp"

#include <algorithm>

#include "domain/quotas.hpp"
#include "domain/wire_names.hpp"

namespace smemu::domain {
namespace {

constexpr WireNames<JobStatus, 5> kJobStatuses({{
    {JobStatus::kInProgress, "InProgress"},
    {JobStatus::kCompleted, "Completed"},
    {JobStatus::kFailed, "Failed"},
    {JobStatus::kStopping, "Stopping"},
    {JobStatus::kStopped, "Stopped"},
}});
static_assert(kJobStatuses.Complete());

constexpr WireNames<JobPhase, 3> kJobPhases({{
    {JobPhase::kPending, "Pending"},
    {JobPhase::kRunning, "Running"},
    {JobPhase::kEnded, "Ended"},
}});
static_assert(kJobPhases.Complete());

constexpr WireNames<JobOutcome, 9> kJobOutcomes({{
    {JobOutcome::kCompleted, "Completed"},
    {JobOutcome::kStopped, "Stopped"},
    {JobOutcome::kMaxRuntimeExceeded, "MaxRuntimeExceeded"},
    {JobOutcome::kPlanEnded, "PlanEnded"},
    {JobOutcome::kPendingTimeExceeded, "PendingTimeExceeded"},
    {JobOutcome::kNoOptionLeft, "NoOptionLeft"},
    {JobOutcome::kCapacityError, "CapacityError"},
    {JobOutcome::kPendingLimit, "PendingLimit"},
    {JobOutcome::kFault, "Fault"},
}});

// Every FailureReason of a job that failed for want of capacity starts with the error AWS's job
// pages name, "InsufficientCapacityError"; clients such as the SageMaker Python SDK look for
// "CapacityError" anywhere in the reason, which this contains.
std::string InsufficientCapacity(std::string_view sentence) {
  return "InsufficientCapacityError: " + std::string(sentence);
}
constexpr std::string_view kCapacityErrorReason =
    "Unable to provision requested ML compute capacity. Please retry using a different ML instance "
    "type.";
constexpr std::string_view kPendingLimitReason =
    "The job was pending for capacity on its training plan for 2 days.";
static_assert(kJobOutcomes.Complete());

// When a running job ends and why.
struct Ending {
  TimePoint at;
  JobOutcome outcome;
  bool interruption = false;  // the job goes on in its plan's next reserved capacity
};

// When the job's current run began: its start, or when it went on after an interruption.
TimePoint RunningSince(const Job& job) { return job.resumed.value_or(*job.start); }

Ending EndingOf(const Job& job, const CapacityFacts& facts) {
  const TimePoint start = RunningSince(job);
  Ending ending{start + (job.run - job.ran),
                job.fails_with ? JobOutcome::kFault : JobOutcome::kCompleted};
  const TimePoint limit = start + (job.max_runtime - job.ran);
  if (limit < ending.at) ending = {limit, JobOutcome::kMaxRuntimeExceeded};
  if (!job.selected->plan_arn.empty()) {
    // "When there are 30 minutes remaining in your Reserved Capacity, SageMaker training plans
    // begin the process of terminating any running instances within that block": the block the
    // job started in.
    const auto plan = facts.Plan(job.owner, job.selected->plan_arn);
    const auto block = plan ? plan->BlockFrom(start) : std::nullopt;
    const TimePoint cutoff = block ? std::max(start, block->end - kPlanJobCutoff) : start;
    if (cutoff <= ending.at) {
      // "...if your job is interrupted between two reserved capacities": it goes on in the next.
      ending = {cutoff, JobOutcome::kPlanEnded, block && plan->BlockFrom(block->end).has_value()};
    }
  }
  return ending;
}

// A plan option's blocks, when the option is on a plan; a plan that is gone reads as long expired.
std::optional<std::vector<Window>> PlanBlocks(const Job& job, const JobOption& option,
                                              const CapacityFacts& facts) {
  if (option.plan_arn.empty()) return std::nullopt;
  const auto plan = facts.Plan(job.owner, option.plan_arn);
  if (!plan) return std::vector<Window>{Window{TimePoint{}, TimePoint{}}};
  return plan->blocks;
}

// How long the job may wait for capacity, counted while pending time counts: its
// MaxPendingTimeInSeconds and, for a job with an option on a plan, two days, whichever is shorter.
std::optional<Millis> PendingLimit(const Job& job) {
  std::optional<Millis> limit = job.max_pending;
  const bool on_plan =
      std::any_of(job.options.begin(), job.options.end(),
                  [](const JobOption& option) { return !option.plan_arn.empty(); });
  if (on_plan && (!limit || kPlanPendingLimit < *limit)) limit = kPlanPendingLimit;
  return limit;
}

// Pending time counts unless the job is waiting for a plan of its list to start.
bool PendingTimeCounts(const Job& job, TimePoint at, const CapacityFacts& facts) {
  if (!PendingLimit(job)) return false;
  for (const JobOption& option : job.options) {
    const auto blocks = PlanBlocks(job, option, facts);
    if (blocks && PlanStatusOf(*blocks, at) == PlanStatus::kScheduled) return false;
  }
  return true;
}

// True when no option can ever run again (every one is on a plan that has ended).
bool NoOptionLeft(const Job& job, TimePoint at, const CapacityFacts& facts) {
  for (const JobOption& option : job.options) {
    const auto blocks = PlanBlocks(job, option, facts);
    if (!blocks || PlanStatusOf(*blocks, at) != PlanStatus::kExpired) return false;
  }
  return true;
}

// The earliest moment after the job's last evaluation at which something changes for it.
std::optional<TimePoint> NextEvent(const Job& job, const CapacityFacts& facts) {
  if (job.stop_due) return job.stop_due;
  if (job.phase == JobPhase::kRunning) return EndingOf(job, facts).at;
  std::optional<TimePoint> next;
  auto consider = [&](TimePoint at) {
    if (at > job.as_of && (!next || at < *next)) next = at;
  };
  if (job.pending_since) consider(*job.pending_since + (*PendingLimit(job) - job.pending_accrued));
  for (const JobOption& option : job.options) {
    for (const Window& block : PlanBlocks(job, option, facts).value_or(std::vector<Window>{})) {
      consider(block.start);
      consider(block.end);
    }
  }
  return next;
}

void End(Job& job, TimePoint at, JobOutcome outcome, std::string failure_reason = "") {
  job.phase = JobPhase::kEnded;
  job.end = at;
  job.outcome = outcome;
  job.pending_since.reset();
  if (!failure_reason.empty()) job.failure_reason = std::move(failure_reason);
  const bool training = job.kind == JobKind::kTraining;
  if (outcome == JobOutcome::kCompleted) {
    job.status = JobStatus::kCompleted;
  } else if (outcome == JobOutcome::kStopped ||
             (outcome == JobOutcome::kMaxRuntimeExceeded && training)) {
    job.status = JobStatus::kStopped;
  } else {
    job.status = JobStatus::kFailed;
  }
  job.modified = at;
}

// The job stops running at `at`, when its plan's reserved capacity is about to end, and waits for
// the next one (or another of its options) with the run time it has done.
void Interrupt(Job& job, TimePoint at, const CapacityFacts& facts) {
  job.ran += at - RunningSince(job);
  job.phase = JobPhase::kPending;
  job.interrupted = at;
  job.resumed.reset();
  job.as_of = at;
  job.modified = at;
  if (PendingTimeCounts(job, at, facts)) job.pending_since = at;
}

// Brings a waiting job's pending-time account up to `at`; false when the time ran out (the job
// has then failed at the moment it ran out).
bool AccountPendingTime(Job& job, TimePoint at, const CapacityFacts& facts) {
  if (job.pending_since) {
    const TimePoint since = *job.pending_since;
    const Millis limit = *PendingLimit(job);
    const Millis left = limit - job.pending_accrued;
    if (at - since >= left) {
      if (job.max_pending && *job.max_pending == limit) {
        End(job, since + left, JobOutcome::kPendingTimeExceeded,
            InsufficientCapacity("No instance preference got capacity within "
                                 "MaxPendingTimeInSeconds (" +
                                 std::to_string(job.max_pending->count() / 1000) + " seconds)."));
      } else {
        End(job, since + left, JobOutcome::kPendingLimit,
            InsufficientCapacity(kPendingLimitReason));
      }
      return false;
    }
    job.pending_accrued += at - since;
    job.pending_since.reset();
  }
  if (PendingTimeCounts(job, at, facts)) job.pending_since = at;
  job.as_of = at;
  return true;
}

// Whether `option` has its instances free at `at`, given what is held already.
bool Fits(const Job& job, const JobOption& option, TimePoint at, const CapacityFacts& facts,
          const Holdings& holdings) {
  if (const QuotaTable* quotas = facts.Quotas();
      quotas && QuotaRoom(*quotas, holdings, job.owner.account, job.owner.region,
                          job.kind == JobKind::kTraining ? ResourceKind::kTrainingJob
                                                         : ResourceKind::kProcessingJob,
                          option.instance_type) < option.instance_count) {
    return false;
  }
  if (option.plan_arn.empty()) {
    return OnDemandFree(facts, holdings, job.owner.region, option.instance_type) >=
           option.instance_count;
  }
  const auto plan = facts.Plan(job.owner, option.plan_arn);
  if (!plan || plan->StatusAt(at) != PlanStatus::kActive ||
      at >= plan->BlockFrom(at)->end - kPlanJobCutoff) {
    return false;
  }
  return plan->instance_count - holdings.OnPlan(option.plan_arn) >= option.instance_count;
}

bool TryStart(Job& job, TimePoint at, const CapacityFacts& facts, Holdings& holdings) {
  for (const JobOption& option : job.options) {
    if (!Fits(job, option, at, facts, holdings)) continue;
    job.phase = JobPhase::kRunning;
    if (job.start) {
      job.resumed = at;  // after an interruption
    } else {
      job.start = at;
    }
    job.selected = option;
    job.pending_since.reset();
    job.modified = at;
    holdings.Put(HolderOf(job));
    return true;
  }
  return false;
}

// Ends what is due at `at` (running jobs, stops, waiting jobs whose time or plans ran out), then
// starts waiting jobs in arrival order where capacity allows. Ended jobs leave `jobs` for `done`.
void SettleAt(std::vector<Job>& jobs, std::vector<Job>& done, std::vector<JobEvent>& events,
              TimePoint at, const CapacityFacts& facts, Holdings& holdings) {
  for (Job& job : jobs) {
    if (job.stop_due) {  // stopping: nothing else can happen to it
      if (*job.stop_due <= at) End(job, *job.stop_due, JobOutcome::kStopped);
    } else if (job.phase == JobPhase::kRunning) {
      const Ending ending = EndingOf(job, facts);
      if (ending.at > at) continue;
      if (ending.interruption) {
        Interrupt(job, ending.at, facts);
        holdings.Put(HolderOf(job));
        events.push_back({ending.at, job.arn, JobPhase::kPending});
        continue;
      }
      std::string reason;
      if (ending.outcome == JobOutcome::kPlanEnded) {
        reason = "The job was stopped 30 minutes before the end of training plan " +
                 Excerpt(job.selected->plan_arn) + ", when the plan terminates its instances.";
      } else if (ending.outcome == JobOutcome::kFault) {
        reason = *job.fails_with;
      } else if (ending.outcome == JobOutcome::kMaxRuntimeExceeded &&
                 job.kind == JobKind::kProcessing) {
        reason = "The job exceeded MaxRuntimeInSeconds.";
      }
      End(job, ending.at, ending.outcome, reason);
    } else if (AccountPendingTime(job, at, facts) && NoOptionLeft(job, at, facts)) {
      End(job, at, JobOutcome::kNoOptionLeft,
          "Every instance preference of the job is on a training plan that has ended.");
    }
    if (job.phase == JobPhase::kEnded) {
      holdings.Remove(job.arn);
      events.push_back({*job.end, job.arn, JobPhase::kEnded});
    }
  }
  for (Job& job : jobs) {
    if (job.phase != JobPhase::kPending || job.stop_due) continue;
    if (TryStart(job, at, facts, holdings)) {
      events.push_back({at, job.arn, JobPhase::kRunning});
    } else if (!WaitsForCapacity(job.options)) {
      End(job, at, JobOutcome::kCapacityError, InsufficientCapacity(kCapacityErrorReason));
      events.push_back({at, job.arn, JobPhase::kEnded});
    }
  }
  auto ended = std::stable_partition(jobs.begin(), jobs.end(),
                                     [](const Job& job) { return job.phase != JobPhase::kEnded; });
  std::move(ended, jobs.end(), std::back_inserter(done));
  jobs.erase(ended, jobs.end());
}

}  // namespace

bool WaitsForCapacity(const std::vector<JobOption>& options) {
  return std::any_of(options.begin(), options.end(), [](const JobOption& option) {
    const std::string& type = option.instance_type;
    return type.rfind("ml.p", 0) == 0 || type.rfind("ml.g", 0) == 0 || type.rfind("ml.trn", 0) == 0;
  });
}

ResourceKind ResourceKindOf(JobKind kind) {
  return kind == JobKind::kTraining ? ResourceKind::kTrainingJob : ResourceKind::kProcessingJob;
}

std::string_view ToString(JobStatus status) { return kJobStatuses.NameOf(status); }

std::optional<JobStatus> ParseJobStatus(std::string_view text) { return kJobStatuses.Find(text); }

bool IsLive(JobStatus status) {
  return status == JobStatus::kInProgress || status == JobStatus::kStopping;
}

std::string_view ToString(JobPhase phase) { return kJobPhases.NameOf(phase); }

std::optional<JobPhase> ParseJobPhase(std::string_view text) { return kJobPhases.Find(text); }

std::string_view ToString(JobOutcome outcome) { return kJobOutcomes.NameOf(outcome); }

std::optional<JobOutcome> ParseJobOutcome(std::string_view text) { return kJobOutcomes.Find(text); }

Job NewJob(std::string arn, JobKind kind, Owner owner, std::vector<JobOption> options,
           TimePoint now, Millis run, Millis max_runtime, std::optional<Millis> max_pending,
           const CapacityFacts& facts) {
  Job job;
  job.arn = std::move(arn);
  job.kind = kind;
  job.owner = std::move(owner);
  job.created = job.modified = job.queued = job.as_of = now;
  job.options = std::move(options);
  job.run = run;
  job.max_runtime = max_runtime;
  job.max_pending = max_pending;
  if (PendingTimeCounts(job, now, facts)) job.pending_since = now;
  return job;
}

Result<Job> StartStop(Job job, TimePoint now, Millis delay) {
  if (job.status != JobStatus::kInProgress) {
    const std::string noun = job.kind == JobKind::kTraining ? "training" : "processing";
    return ValidationException("The request was rejected because the " + noun +
                               " job is in status " + std::string(ToString(job.status)) + ".");
  }
  job.stop = now;
  job.stop_due = now + delay;
  job.pending_since.reset();
  job.status = JobStatus::kStopping;
  job.modified = now;
  return job;
}

Job FailAfter(Job job, Millis after, std::string reason) {
  job.run = std::min(job.run, after);
  job.fails_with = std::move(reason);
  return job;
}

Job FailForCapacity(Job job, TimePoint at) {
  End(job, at, JobOutcome::kCapacityError, InsufficientCapacity(kCapacityErrorReason));
  return job;
}

Schedule ScheduleJobs(std::vector<Job> live, TimePoint now, const CapacityFacts& facts,
                      Holdings holdings) {
  // Waiting jobs are served in arrival order.
  std::stable_sort(live.begin(), live.end(), [](const Job& a, const Job& b) {
    return a.created < b.created || (a.created == b.created && a.queued < b.queued);
  });
  Schedule schedule;
  // Each step either moves time forward or ends a job that ran for no time: after a step at `at`,
  // a waiting job's next event lies after its as_of (= at), a started job's at or after `at`, and
  // an ended job is gone. So the replay ends.
  while (true) {
    std::optional<TimePoint> next;
    for (const Job& job : live) {
      const auto event = NextEvent(job, facts);
      if (event && *event <= now && (!next || *event < *next)) next = event;
    }
    if (!next) break;
    const std::size_t before = live.size();
    const std::size_t events_before = schedule.events.size();
    SettleAt(live, schedule.jobs, schedule.events, *next, facts, holdings);
    if (live.size() == before && schedule.events.size() == events_before && *next == now) break;
  }
  SettleAt(live, schedule.jobs, schedule.events, now, facts, holdings);
  std::move(live.begin(), live.end(), std::back_inserter(schedule.jobs));
  return schedule;
}

std::optional<TimePoint> NextDue(const std::vector<Job>& jobs, const CapacityFacts& facts) {
  std::optional<TimePoint> next;
  for (const Job& job : jobs) {
    if (job.phase == JobPhase::kEnded || !IsLive(job.status)) continue;
    next = Earliest(next, NextEvent(job, facts));
  }
  return next;
}

Holder HolderOf(const Job& job) {
  Holder holder{job.arn, ResourceKindOf(job.kind), job.owner.region, {}, job.owner.account};
  if (job.phase == JobPhase::kRunning && IsLive(job.status) && job.selected) {
    holder.holds.push_back(
        {job.selected->instance_type, job.selected->plan_arn, job.selected->instance_count});
  }
  return holder;
}

std::string PlanOf(const Job& job) {
  if (job.selected) return job.selected->plan_arn;
  if (job.options.size() == 1) return job.options[0].plan_arn;
  return "";
}

}  // namespace smemu::domain
