// A training job's secondary status as a pure function (domain::SecondaryStatusHistoryOf): no
// store, no scheduler. Each case gives a job's times and the clock, and checks the steps of its
// SecondaryStatusTransitions and its SecondaryStatus; `aws` quotes what the API reference says the
// status means (DescribeTrainingJob, SecondaryStatus; the service model's documentation).
#include "domain/job_secondary_status.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "apimodel/embedded_models.hpp"

namespace smemu::secondary_status_test {
namespace {

using domain::Job;
using domain::JobOutcome;
using domain::JobPhase;
using domain::JobStatus;
using domain::SecondaryStatus;

// The StatusMessage of each step, as the emulator writes them.
constexpr const char* kWaiting = "Waiting for capacity for one of the instance preferences.";
constexpr const char* kLaunching = "Launching requested ML instances";
constexpr const char* kDownloadingData = "Downloading input data";
constexpr const char* kTrainingNow = "Training image download completed. Training in progress.";
constexpr const char* kUploadingModel = "Uploading generated training model";
constexpr const char* kInterruptedPlan =
    "Interrupted: the training plan's reserved capacity ended; waiting for the next one.";
constexpr const char* kStoppingJob = "Stopping the training job";

TimePoint At(long long seconds) { return TimePoint{} + std::chrono::seconds(seconds); }

long long SecondsOf(TimePoint at) {
  return std::chrono::duration_cast<std::chrono::seconds>(at - TimePoint{}).count();
}

// A step of SecondaryStatusTransitions, in seconds from the epoch.
struct Step {
  SecondaryStatus status;
  long long start;
  std::optional<long long> end;  // none while the job is in it
  std::string message;

  bool operator==(const Step&) const = default;
};
std::ostream& operator<<(std::ostream& out, const Step& step) {
  out << "{" << domain::ToString(step.status) << ", " << step.start << ", ";
  if (step.end) {
    out << *step.end;
  } else {
    out << "-";
  }
  return out << ", \"" << step.message << "\"}";
}

std::vector<Step> StepsOf(const domain::SecondaryStatusHistory& history) {
  std::vector<Step> steps;
  for (const domain::SecondaryStatusTransition& transition : history.transitions) {
    std::optional<long long> end;
    if (transition.end) end = SecondsOf(*transition.end);
    steps.push_back({transition.status, SecondsOf(transition.start), end, transition.message});
  }
  return steps;
}

// A training job created at 0 s with a simulated run of 100 s: its stages begin at 0, 10, 20 and
// 90 s of its run (Starting, Downloading, Training, Uploading).
Job WaitingJob() {
  Job job;
  job.arn = "arn:aws:sagemaker:us-west-2:111122223333:training-job/secondary";
  job.kind = domain::JobKind::kTraining;
  job.owner = {"111122223333", "us-west-2"};
  job.created = job.modified = job.queued = job.as_of = At(0);
  job.options = {{"ml.p5.48xlarge", 1, ""}};
  job.run = Millis{std::chrono::seconds(100)};
  job.max_runtime = Millis{std::chrono::hours(24)};
  return job;
}

Job StartedAt(long long start, Job job = WaitingJob()) {
  job.phase = JobPhase::kRunning;
  job.start = At(start);
  job.selected = job.options.front();
  return job;
}

Job StoppedAt(long long stop, long long released, Job job) {
  job.stop = At(stop);
  job.stop_due = At(released);
  job.status = JobStatus::kStopping;
  return job;
}

Job EndedAt(long long end, JobOutcome outcome, JobStatus status, Job job,
            std::optional<std::string> failure_reason = std::nullopt) {
  job.phase = JobPhase::kEnded;
  job.end = At(end);
  job.outcome = outcome;
  job.status = status;
  job.failure_reason = std::move(failure_reason);
  return job;
}

// Started at 0 s, interrupted at 50 s (50 s of its run done) when its plan's first reserved
// capacity closed, and waiting for the next one.
Job InterruptedJob() {
  Job job = StartedAt(0);
  job.phase = JobPhase::kPending;
  job.ran = Millis{std::chrono::seconds(50)};
  job.interrupted = At(50);
  return job;
}

Job ResumedAt(long long resumed) {
  Job job = InterruptedJob();
  job.phase = JobPhase::kRunning;
  job.resumed = At(resumed);
  return job;
}

Job WithMaxRuntime(long long seconds, Job job) {
  job.max_runtime = Millis{std::chrono::seconds(seconds)};
  return job;
}

struct SecondaryCase {
  std::string name;
  Job job;
  long long now;
  std::vector<Step> steps;
  SecondaryStatus current;
  const char* aws;  // the API reference's sentence for `current`
};

std::vector<SecondaryCase> SecondaryCases() {
  using S = SecondaryStatus;
  return {
      {"AWaitingJobIsPending",
       WaitingJob(),
       30,
       {{S::kPending, 0, std::nullopt, kWaiting}},
       S::kPending,
       "Pending - The training job is waiting for compute capacity or compute resource provision."},
      {"AJobStartedAtOnceIsStartingWithoutAPendingStep",
       StartedAt(0),
       5,
       {{S::kStarting, 0, std::nullopt, kLaunching}},
       S::kStarting,
       "Starting - Starting the training job."},
      {"ATenthOfTheRunInItDownloads",
       StartedAt(0),
       15,
       {{S::kStarting, 0, 10, kLaunching}, {S::kDownloading, 10, std::nullopt, kDownloadingData}},
       S::kDownloading,
       "Downloading - An optional stage for algorithms that support File training input mode. It "
       "indicates that data is being downloaded to the ML storage volumes."},
      {"AJobThatWaitedTrainsAfterItsPendingStep",
       StartedAt(20),
       70,
       {{S::kPending, 0, 20, kWaiting},
        {S::kStarting, 20, 30, kLaunching},
        {S::kDownloading, 30, 40, kDownloadingData},
        {S::kTraining, 40, std::nullopt, kTrainingNow}},
       S::kTraining,
       "Training - Training is in progress."},
      {"TheLastTenthOfTheRunUploads",
       StartedAt(0),
       95,
       {{S::kStarting, 0, 10, kLaunching},
        {S::kDownloading, 10, 20, kDownloadingData},
        {S::kTraining, 20, 90, kTrainingNow},
        {S::kUploading, 90, std::nullopt, kUploadingModel}},
       S::kUploading,
       "Uploading - Training is complete and the model artifacts are being uploaded to the S3 "
       "location."},
      {"ACompletedJobEndsWithACompletedStep",
       EndedAt(100, JobOutcome::kCompleted, JobStatus::kCompleted, StartedAt(0)),
       500,
       {{S::kStarting, 0, 10, kLaunching},
        {S::kDownloading, 10, 20, kDownloadingData},
        {S::kTraining, 20, 90, kTrainingNow},
        {S::kUploading, 90, 100, kUploadingModel},
        {S::kCompleted, 100, 100, "Training job completed"}},
       S::kCompleted,
       "Completed - The training job has completed."},
      {"AStopRequestEndsTheStageItCameIn",
       StoppedAt(50, 60, StartedAt(0)),
       55,
       {{S::kStarting, 0, 10, kLaunching},
        {S::kDownloading, 10, 20, kDownloadingData},
        {S::kTraining, 20, 50, kTrainingNow},
        {S::kStopping, 50, std::nullopt, kStoppingJob}},
       S::kStopping,
       "Stopping - Stopping the training job."},
      {"AStoppedJobStoppedOnceItsInstancesWereReleased",
       EndedAt(60, JobOutcome::kStopped, JobStatus::kStopped, StoppedAt(50, 60, StartedAt(0))),
       500,
       {{S::kStarting, 0, 10, kLaunching},
        {S::kDownloading, 10, 20, kDownloadingData},
        {S::kTraining, 20, 50, kTrainingNow},
        {S::kStopping, 50, 60, kStoppingJob},
        {S::kStopped, 60, 60, "Training job stopped"}},
       S::kStopped,
       "Stopped - The training job has stopped."},
      {"AJobStoppedWhileWaitingWasOnlyPending",
       EndedAt(40, JobOutcome::kStopped, JobStatus::kStopped, StoppedAt(30, 40, WaitingJob())),
       500,
       {{S::kPending, 0, 30, kWaiting},
        {S::kStopping, 30, 40, kStoppingJob},
        {S::kStopped, 40, 40, "Training job stopped"}},
       S::kStopped,
       "Stopped - The training job has stopped."},
      {"AJobCutAtItsMaxRuntimeNeverUploads",
       EndedAt(50, JobOutcome::kMaxRuntimeExceeded, JobStatus::kStopped,
               WithMaxRuntime(50, StartedAt(0))),
       500,
       {{S::kStarting, 0, 10, kLaunching},
        {S::kDownloading, 10, 20, kDownloadingData},
        {S::kTraining, 20, 50, kTrainingNow},
        {S::kMaxRuntimeExceeded, 50, 50, "Training job exceeded MaxRuntimeInSeconds"}},
       S::kMaxRuntimeExceeded,
       "MaxRuntimeExceeded - The job stopped because it exceeded the maximum allowed runtime."},
      {"AJobThatFoundNoCapacityFailedWithItsReason",
       EndedAt(0, JobOutcome::kCapacityError, JobStatus::kFailed, WaitingJob(),
               "InsufficientCapacityError: no capacity"),
       500,
       {{S::kPending, 0, 0, kWaiting},
        {S::kFailed, 0, 0, "InsufficientCapacityError: no capacity"}},
       S::kFailed,
       "Failed - The training job has failed. The reason for the failure is returned in the "
       "FailureReason field of DescribeTrainingJobResponse."},
      {"AJobFailedMidRunEndsTheStageItWasIn",
       EndedAt(30, JobOutcome::kFault, JobStatus::kFailed, StartedAt(0), "AlgorithmError: boom"),
       500,
       {{S::kStarting, 0, 10, kLaunching},
        {S::kDownloading, 10, 20, kDownloadingData},
        {S::kTraining, 20, 30, kTrainingNow},
        {S::kFailed, 30, 30, "AlgorithmError: boom"}},
       S::kFailed,
       "Failed - The training job has failed. The reason for the failure is returned in the "
       "FailureReason field of DescribeTrainingJobResponse."},
      {"AFailureWithoutAReasonSaysTheJobFailed",
       EndedAt(30, JobOutcome::kPlanEnded, JobStatus::kFailed, StartedAt(0)),
       500,
       {{S::kStarting, 0, 10, kLaunching},
        {S::kDownloading, 10, 20, kDownloadingData},
        {S::kTraining, 20, 30, kTrainingNow},
        {S::kFailed, 30, 30, "Training job failed"}},
       S::kFailed,
       "Failed - The training job has failed."},
      // AWS documents Interrupted for managed spot training; the emulator shows it for a job on a
      // plan between two reserved capacities, the nearest thing it has.
      {"AJobBetweenTwoReservedCapacitiesIsInterrupted",
       InterruptedJob(),
       70,
       {{S::kStarting, 0, 10, kLaunching},
        {S::kDownloading, 10, 20, kDownloadingData},
        {S::kTraining, 20, 50, kTrainingNow},
        {S::kInterrupted, 50, std::nullopt, kInterruptedPlan}},
       S::kInterrupted,
       "Interrupted - The job stopped because the managed spot training instances were "
       "interrupted."},
      {"AnInterruptedJobGoesOnInTheStageItWasIn",
       ResumedAt(80),
       100,
       {{S::kStarting, 0, 10, kLaunching},
        {S::kDownloading, 10, 20, kDownloadingData},
        {S::kTraining, 20, 50, kTrainingNow},
        {S::kInterrupted, 50, 80, kInterruptedPlan},
        {S::kTraining, 80, std::nullopt, kTrainingNow}},
       S::kTraining,
       "Training - Training is in progress."},
      {"AResumedJobUploadsInTheLastTenthOfItsRunTime",
       EndedAt(130, JobOutcome::kCompleted, JobStatus::kCompleted, ResumedAt(80)),
       500,
       {{S::kStarting, 0, 10, kLaunching},
        {S::kDownloading, 10, 20, kDownloadingData},
        {S::kTraining, 20, 50, kTrainingNow},
        {S::kInterrupted, 50, 80, kInterruptedPlan},
        {S::kTraining, 80, 120, kTrainingNow},
        {S::kUploading, 120, 130, kUploadingModel},
        {S::kCompleted, 130, 130, "Training job completed"}},
       S::kCompleted,
       "Completed - The training job has completed."},
  };
}

TEST(JobSecondaryStatus, TableOfCases) {
  for (const SecondaryCase& c : SecondaryCases()) {
    SCOPED_TRACE(c.name + " (AWS: \"" + c.aws + "\")");
    const domain::SecondaryStatusHistory history =
        domain::SecondaryStatusHistoryOf(c.job, At(c.now));
    EXPECT_EQ(StepsOf(history), c.steps);
    EXPECT_EQ(history.current, c.current);
    EXPECT_EQ(history.current, history.transitions.back().status) << "the last step's";
    EXPECT_EQ(domain::SecondaryStatusOf(c.job, At(c.now)), c.current);
  }
}

TEST(JobSecondaryStatus, AnEndedJobsStatusIsItsOutcomes) {
  // "Stopped: MaxRuntimeExceeded - The job stopped because it exceeded the maximum allowed
  // runtime. Stopped - The training job has stopped." Every other ending is a failure.
  const std::vector<std::pair<JobOutcome, SecondaryStatus>> endings = {
      {JobOutcome::kCompleted, SecondaryStatus::kCompleted},
      {JobOutcome::kStopped, SecondaryStatus::kStopped},
      {JobOutcome::kMaxRuntimeExceeded, SecondaryStatus::kMaxRuntimeExceeded},
      {JobOutcome::kPlanEnded, SecondaryStatus::kFailed},
      {JobOutcome::kPendingTimeExceeded, SecondaryStatus::kFailed},
      {JobOutcome::kNoOptionLeft, SecondaryStatus::kFailed},
      {JobOutcome::kCapacityError, SecondaryStatus::kFailed},
      {JobOutcome::kPendingLimit, SecondaryStatus::kFailed},
      {JobOutcome::kFault, SecondaryStatus::kFailed},
  };
  for (const auto& [outcome, status] : endings) {
    const Job job = EndedAt(10, outcome, JobStatus::kFailed, WaitingJob());
    EXPECT_EQ(domain::FinalSecondaryStatus(job), status) << domain::ToString(outcome);
    EXPECT_EQ(domain::SecondaryStatusOf(job, At(20)), status) << domain::ToString(outcome);
  }
}

TEST(JobSecondaryStatus, TheEnumIsTheModelsSecondaryStatusInOrder) {
  const apimodel::Shape* shape = apimodel::ControlPlaneModel().FindShape("SecondaryStatus");
  ASSERT_NE(shape, nullptr);
  ASSERT_EQ(shape->enum_values.size(), 17U);
  for (std::size_t i = 0; i < shape->enum_values.size(); ++i) {
    const auto status = static_cast<SecondaryStatus>(i);
    EXPECT_EQ(domain::ToString(status), shape->enum_values[i]);
    EXPECT_EQ(domain::ParseSecondaryStatus(shape->enum_values[i]), status);
  }
  EXPECT_EQ(domain::ParseSecondaryStatus("InProgress"), std::nullopt) << "a primary status";
  EXPECT_EQ(domain::ParseSecondaryStatus("pending"), std::nullopt);
}

}  // namespace
}  // namespace smemu::secondary_status_test
