// Training and processing jobs on a capacity scheduler driven by the clock, as typed state and pure
// functions. A job has a list of instance options in priority order. It starts on the first option
// with free capacity (a plan's free instances, or the region's on-demand pool); otherwise it waits,
// first come first served, and is retried whenever something may have changed. A running job holds
// its instances until it completes (after its simulated run time), hits its maximum run time, is
// stopped, or loses its plan.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/aws_error.hpp"
#include "domain/capacity_facts.hpp"
#include "domain/holdings.hpp"
#include "domain/training_plan.hpp"
#include "smemu/clock.hpp"

namespace smemu::domain {

enum class JobKind { kTraining, kProcessing };
ResourceKind ResourceKindOf(JobKind kind);

// The model's TrainingJobStatus / ProcessingJobStatus values the emulator uses.
enum class JobStatus { kInProgress, kCompleted, kFailed, kStopping, kStopped };
std::string_view ToString(JobStatus status);
std::optional<JobStatus> ParseJobStatus(std::string_view text);
bool IsLive(JobStatus status);  // may still hold instances: InProgress or Stopping

// Where the scheduler has the job.
enum class JobPhase { kPending, kRunning, kEnded };
std::string_view ToString(JobPhase phase);
std::optional<JobPhase> ParseJobPhase(std::string_view text);

// Why a job ended.
enum class JobOutcome {
  kCompleted,
  kStopped,
  kMaxRuntimeExceeded,
  kPlanEnded,
  kPendingTimeExceeded,
  kNoOptionLeft,
  kCapacityError,  // a list without accelerated types found no capacity when it was evaluated
  kPendingLimit,   // pending for capacity on a plan for two days
  kFault           // failed on purpose, at a point of its run (a fault rule's job_failure)
};
std::string_view ToString(JobOutcome outcome);
std::optional<JobOutcome> ParseJobOutcome(std::string_view text);

struct JobOption {
  std::string instance_type;
  int instance_count = 0;
  std::string plan_arn;  // empty: on-demand capacity

  bool operator==(const JobOption&) const = default;
};

// "The job waits only if the list includes at least one accelerated computing instance type, such
// as ml.p, ml.g, or ml.trn. A CPU-only list is evaluated once: the job starts if one of the types
// has capacity, and otherwise fails with a capacity error without being re-evaluated."
// (instance preferences for training jobs)
bool WaitsForCapacity(const std::vector<JobOption>& options);

// "If a job has been pending for 2 days, it is terminated with an InsufficientCapacityError."
// (training plans for training jobs). Counted as MaxPendingTimeInSeconds is: not while a plan of
// the job's list has yet to start.
inline constexpr Millis kPlanPendingLimit = 2 * kDay;

// "You have full access to all reserved instances until 30 minutes before the Reserved Capacity end
// time. When there are 30 minutes remaining in your Reserved Capacity, SageMaker training plans
// begin the process of terminating any running instances within that Reserved Capacity."
// (training plans for training jobs): a job on a plan runs, and starts, only until then.
inline constexpr Millis kPlanJobCutoff{30 * 60 * 1000};

struct Job {
  std::string arn;
  JobKind kind = JobKind::kTraining;
  Owner owner;
  JobStatus status = JobStatus::kInProgress;
  TimePoint created{};
  TimePoint modified{};
  std::vector<JobOption> options;
  JobPhase phase = JobPhase::kPending;
  TimePoint queued{};  // orders jobs created at the same instant
  TimePoint as_of{};   // when the scheduler last looked at the waiting job
  Millis run{0};       // the simulated run time
  Millis max_runtime{0};
  // MaxPendingTimeInSeconds: the wait that counts so far, and since when it counts again.
  std::optional<Millis> max_pending;
  Millis pending_accrued{0};
  std::optional<TimePoint> pending_since;
  std::optional<JobOption> selected;  // the option it runs on, once started
  std::optional<TimePoint> start;
  // A job running on a plan of two reserved capacities is interrupted 30 minutes before its block
  // ends and goes on when the next block opens: the run time done before the interruption, when
  // it was interrupted, and when it went on.
  Millis ran{0};
  std::optional<TimePoint> interrupted;
  std::optional<TimePoint> resumed;
  std::optional<TimePoint> stop;      // when a stop was asked for
  std::optional<TimePoint> stop_due;  // when the stopping job has released its instances
  std::optional<TimePoint> end;
  std::optional<JobOutcome> outcome;
  std::optional<std::string> failure_reason;
  // A fault rule's job_failure: the run (`run`, cut short) ends Failed with this reason.
  std::optional<std::string> fails_with;

  bool operator==(const Job&) const = default;
};

// A job that a fault rule fails `after` that much of its run, with `reason`.
Job FailAfter(Job job, Millis after, std::string reason);

// A waiting job whose provisioning found no capacity (a fault rule's no_capacity): it ends
// Failed at `at` for want of capacity (an InsufficientCapacityError reason).
Job FailForCapacity(Job job, TimePoint at);

// A new job, waiting for capacity from `now`. Pending time counts only for jobs given a maximum,
// and not while a plan of its list has yet to start.
Job NewJob(std::string arn, JobKind kind, Owner owner, std::vector<JobOption> options,
           TimePoint now, Millis run, Millis max_runtime, std::optional<Millis> max_pending,
           const CapacityFacts& facts);

// A stop: only an InProgress job stops; it holds its instances while they shut down (`delay`).
Result<Job> StartStop(Job job, TimePoint now, Millis delay);

// A job's start or end, stamped with the moment it happened.
struct JobEvent {
  TimePoint at;
  std::string arn;
  JobPhase phase;  // kRunning: started; kEnded: ended (see the job's status and outcome)
};
struct Schedule {
  std::vector<Job> jobs;  // every job given, as of `now`
  std::vector<JobEvent> events;
};
// Replays every job event due by `now` in time order (ends, pending-time expiry, plans opening and
// closing), so each start and end is stamped with the moment it happened and sees the capacity of
// that moment; waiting jobs start in arrival order where capacity allows. `live` are the jobs
// that are InProgress or Stopping; `holdings` what every resource holds now, these jobs included.
Schedule ScheduleJobs(std::vector<Job> live, TimePoint now, const CapacityFacts& facts,
                      Holdings holdings);

// The earliest moment at which something falls due for one of these jobs as the scheduler left
// them (one ends or finishes stopping, a wait times out, a plan of its options opens or closes);
// nullopt when nothing will until something else changes (a write, another resource's transition).
std::optional<TimePoint> NextDue(const std::vector<Job>& jobs, const CapacityFacts& facts);
// What a job holds: its selected instances while it runs (and while it stops).
Holder HolderOf(const Job& job);

// The plan a job runs on, or will: its selection once started; before that, the plan of a job
// with a single option (a plain job with ResourceConfig.TrainingPlanArn).
std::string PlanOf(const Job& job);

}  // namespace smemu::domain
