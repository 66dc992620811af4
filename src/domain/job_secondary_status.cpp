#include "domain/job_secondary_status.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>

#include "domain/wire_names.hpp"

namespace smemu::domain {
namespace {

constexpr WireNames<SecondaryStatus, 17> kSecondaryStatuses({{
    {SecondaryStatus::kStarting, "Starting"},
    {SecondaryStatus::kLaunchingMLInstances, "LaunchingMLInstances"},
    {SecondaryStatus::kPreparingTrainingStack, "PreparingTrainingStack"},
    {SecondaryStatus::kDownloading, "Downloading"},
    {SecondaryStatus::kDownloadingTrainingImage, "DownloadingTrainingImage"},
    {SecondaryStatus::kTraining, "Training"},
    {SecondaryStatus::kUploading, "Uploading"},
    {SecondaryStatus::kStopping, "Stopping"},
    {SecondaryStatus::kStopped, "Stopped"},
    {SecondaryStatus::kMaxRuntimeExceeded, "MaxRuntimeExceeded"},
    {SecondaryStatus::kCompleted, "Completed"},
    {SecondaryStatus::kFailed, "Failed"},
    {SecondaryStatus::kInterrupted, "Interrupted"},
    {SecondaryStatus::kMaxWaitTimeExceeded, "MaxWaitTimeExceeded"},
    {SecondaryStatus::kUpdating, "Updating"},
    {SecondaryStatus::kRestarting, "Restarting"},
    {SecondaryStatus::kPending, "Pending"},
}});
static_assert(kSecondaryStatuses.Complete());

// Training's secondary statuses while running, as fractions of the simulated run time.
struct Stage {
  SecondaryStatus status;
  double from;  // fraction of the run time
  std::string_view message;
};
constexpr Stage kStages[] = {
    {SecondaryStatus::kStarting, 0.0, "Launching requested ML instances"},
    {SecondaryStatus::kDownloading, 0.1, "Downloading input data"},
    {SecondaryStatus::kTraining, 0.2, "Training image download completed. Training in progress."},
    {SecondaryStatus::kUploading, 0.9, "Uploading generated training model"},
};

constexpr std::string_view kPendingMessage =
    "Waiting for capacity for one of the instance preferences.";
constexpr std::string_view kInterruptedMessage =
    "Interrupted: the training plan's reserved capacity ended; waiting for the next one.";
constexpr std::string_view kStoppingMessage = "Stopping the training job";

// A stage of a started job on the clock; TimePoint::max() for a time not come yet.
struct TimedStage {
  SecondaryStatus status;
  TimePoint from;
  TimePoint to;
  std::string_view message;
};

// The stages of a started job's run on the clock. The run time is split into kStages; a job
// interrupted between two reserved capacities of its plan is `Interrupted` from then until it
// goes on, and the stage it was in resumes with it.
std::vector<TimedStage> RunStages(const Job& job) {
  constexpr TimePoint kNotYet = TimePoint::max();
  const TimePoint start = *job.start;
  // Run time done before the interruption (job.ran); the run goes on at `resumed`.
  const bool interrupted = job.interrupted.has_value();
  const Millis before = job.ran;
  auto on_clock = [&](Millis done) {
    if (!interrupted || done < before) return start + done;
    return job.resumed ? *job.resumed + (done - before) : kNotYet;
  };
  std::vector<TimedStage> stages;
  bool interruption_shown = false;
  auto show_interruption = [&] {
    stages.push_back({SecondaryStatus::kInterrupted, *job.interrupted,
                      job.resumed.value_or(kNotYet), kInterruptedMessage});
    interruption_shown = true;
  };
  for (size_t i = 0; i < std::size(kStages); ++i) {
    const Millis from = std::chrono::duration_cast<Millis>(job.run * kStages[i].from);
    const Millis to = i + 1 < std::size(kStages)
                          ? std::chrono::duration_cast<Millis>(job.run * kStages[i + 1].from)
                          : job.run;
    if (interrupted && !interruption_shown && from >= before) show_interruption();
    if (interrupted && !interruption_shown && to > before) {  // the stage it was interrupted in
      stages.push_back({kStages[i].status, on_clock(from), *job.interrupted, kStages[i].message});
      show_interruption();
      stages.push_back(
          {kStages[i].status, job.resumed.value_or(kNotYet), on_clock(to), kStages[i].message});
      continue;
    }
    stages.push_back({kStages[i].status, on_clock(from), on_clock(to), kStages[i].message});
  }
  return stages;
}

std::string FinalMessage(const Job& job) {
  if (job.outcome == JobOutcome::kCompleted) return "Training job completed";
  if (job.outcome == JobOutcome::kStopped) return "Training job stopped";
  if (job.outcome == JobOutcome::kMaxRuntimeExceeded) {
    return "Training job exceeded MaxRuntimeInSeconds";
  }
  return job.failure_reason.value_or("Training job failed");
}

}  // namespace

std::string_view ToString(SecondaryStatus status) { return kSecondaryStatuses.NameOf(status); }

std::optional<SecondaryStatus> ParseSecondaryStatus(std::string_view text) {
  return kSecondaryStatuses.Find(text);
}

SecondaryStatus FinalSecondaryStatus(const Job& job) {
  switch (job.outcome.value_or(JobOutcome::kFault)) {
    case JobOutcome::kCompleted:
      return SecondaryStatus::kCompleted;
    case JobOutcome::kStopped:
      return SecondaryStatus::kStopped;
    case JobOutcome::kMaxRuntimeExceeded:
      return SecondaryStatus::kMaxRuntimeExceeded;
    default:
      return SecondaryStatus::kFailed;
  }
}

SecondaryStatusHistory SecondaryStatusHistoryOf(const Job& job, TimePoint now) {
  SecondaryStatusHistory history;
  auto step = [&history](SecondaryStatus status, TimePoint from, std::optional<TimePoint> to,
                         std::string message) {
    history.transitions.push_back({status, from, to, std::move(message)});
    history.current = status;
  };
  const bool ended = job.phase == JobPhase::kEnded;
  const TimePoint end = ended ? *job.end : now;
  const std::optional<TimePoint> stop = job.stop;
  // The run's own stages end when it ends or when a stop is asked for.
  const bool run_over = ended || stop;
  const TimePoint run_end = stop ? *stop : end;
  const std::optional<TimePoint> start = job.start;
  const TimePoint waited_until = start ? *start : run_end;
  if (waited_until > job.created || !start) {
    const bool still = !run_over && !start;
    step(SecondaryStatus::kPending, job.created,
         still ? std::nullopt : std::optional<TimePoint>(waited_until),
         std::string(kPendingMessage));
  }
  if (start) {
    const std::vector<TimedStage> stages = RunStages(job);
    for (size_t i = 0; i < stages.size(); ++i) {
      const TimedStage& stage = stages[i];
      if (stage.from > run_end || (stage.from == run_end && run_over && i > 0)) break;
      const bool open = !run_over && stage.to > now;
      step(stage.status, stage.from,
           open ? std::nullopt : std::optional<TimePoint>(std::min(stage.to, run_end)),
           std::string(stage.message));
    }
  }
  if (stop) {
    step(SecondaryStatus::kStopping, *stop, ended ? std::optional<TimePoint>(end) : std::nullopt,
         std::string(kStoppingMessage));
  }
  if (ended) step(FinalSecondaryStatus(job), end, end, FinalMessage(job));
  return history;
}

SecondaryStatus SecondaryStatusOf(const Job& job, TimePoint now) {
  // An ended job's is its last transition's, whatever came before (ListTrainingJobs asks this of
  // every job of a page, and laying out the transitions was a fifth of its time).
  if (job.phase == JobPhase::kEnded) return FinalSecondaryStatus(job);
  return SecondaryStatusHistoryOf(job, now).current;
}

}  // namespace smemu::domain
