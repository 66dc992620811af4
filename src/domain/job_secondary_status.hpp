// A training job's secondary status and its SecondaryStatusTransitions, as a pure function of the
// job's times (domain::Job) and the clock. "A training job can be in one of several states, for
// example, starting, downloading, training, or uploading. Within each state, there are a number of
// intermediate states. [...] These transitional states are referred to as the job's secondary
// status." (the model's SecondaryStatusTransition)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/job.hpp"
#include "smemu/clock.hpp"

namespace smemu::domain {

// Every value of the model's SecondaryStatus enum. The emulator shows Pending, Starting,
// Downloading, Training, Interrupted and Uploading while a job is InProgress, Stopping, and the
// final Completed, Failed, Stopped and MaxRuntimeExceeded; the model no longer supports
// LaunchingMLInstances, PreparingTrainingStack and DownloadingTrainingImage, and the emulator has
// no managed spot training (MaxWaitTimeExceeded) nor job updates (Updating, Restarting).
enum class SecondaryStatus {
  kStarting,
  kLaunchingMLInstances,
  kPreparingTrainingStack,
  kDownloading,
  kDownloadingTrainingImage,
  kTraining,
  kUploading,
  kStopping,
  kStopped,
  kMaxRuntimeExceeded,
  kCompleted,
  kFailed,
  kInterrupted,
  kMaxWaitTimeExceeded,
  kUpdating,
  kRestarting,
  kPending
};
std::string_view ToString(SecondaryStatus status);
std::optional<SecondaryStatus> ParseSecondaryStatus(std::string_view text);

// One step of SecondaryStatusTransitions: when the job entered `status`, when it left it (none
// while it is still in it), and the step's StatusMessage.
struct SecondaryStatusTransition {
  SecondaryStatus status = SecondaryStatus::kStarting;
  TimePoint start{};
  std::optional<TimePoint> end;
  std::string message;

  bool operator==(const SecondaryStatusTransition&) const = default;
};

// A job's SecondaryStatusTransitions at a moment, and its SecondaryStatus then (the last step's).
struct SecondaryStatusHistory {
  SecondaryStatus current = SecondaryStatus::kStarting;
  std::vector<SecondaryStatusTransition> transitions;
};

// The job's steps at `now`, from its times. Every step has its start and, once it is over, its
// end: Pending (while the job waits for capacity), the stages of its run (Starting, Downloading,
// Training and Uploading, as fractions of the simulated run time; Interrupted between two reserved
// capacities of its plan, after which the stage it was in goes on), Stopping (from a stop request
// until its instances are released), and the final status.
SecondaryStatusHistory SecondaryStatusHistoryOf(const Job& job, TimePoint now);

// The job's SecondaryStatus at `now` alone: SecondaryStatusHistoryOf(job, now).current, without
// laying out the steps of an ended job (ListTrainingJobs asks this of every job of a page).
SecondaryStatus SecondaryStatusOf(const Job& job, TimePoint now);

// An ended job's last secondary status, from why it ended: Completed, Stopped or
// MaxRuntimeExceeded, and Failed for any other ending.
SecondaryStatus FinalSecondaryStatus(const Job& job);

}  // namespace smemu::domain
