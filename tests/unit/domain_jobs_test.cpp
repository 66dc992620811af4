// The job scheduler as a pure function: no store, no router. Each case gives plans, pools and jobs,
// runs the scheduler to a time, and checks when each job started and ended, and how.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <sstream>

#include "domain/job.hpp"
#include "unit/domain_fakes.hpp"

namespace smemu {
namespace {

using domain::Job;
using domain::JobOption;
using domain::JobOutcome;
using domain::JobStatus;
using testing::FakeFacts;
using testing::Hour;
using testing::kOtherPlan;
using testing::kOwner;
using testing::kPlan;

struct JobSpec {
  JobSpec(std::string job_name, int created, std::vector<JobOption> job_options, int run = 1,
          int max_runtime = 24, std::optional<int> max_pending = std::nullopt)
      : name(std::move(job_name)),
        created_hour(created),
        options(std::move(job_options)),
        run_hours(run),
        max_runtime_hours(max_runtime),
        max_pending_hours(max_pending) {}
  std::string name;
  int created_hour;
  std::vector<JobOption> options;
  int run_hours = 1;
  int max_runtime_hours = 24;
  std::optional<int> max_pending_hours;
};

// What a job looks like after scheduling, for comparison in the tables.
struct Outcome {
  // In hours, with their fractions: a job on a plan ends 30 minutes before the plan.
  std::optional<double> start_hour;
  std::optional<double> end_hour;
  JobStatus status;
  std::optional<JobOutcome> outcome;
  std::string selected_type;  // empty: none selected

  bool operator==(const Outcome&) const = default;
};
std::ostream& operator<<(std::ostream& out, const Outcome& o) {
  const auto hour = [](const std::optional<double>& h) {
    std::ostringstream text;
    if (h)
      text << *h;
    else
      text << "-";
    return text.str();
  };
  out << "{start " << hour(o.start_hour) << ", end " << hour(o.end_hour) << ", "
      << domain::ToString(o.status) << ", " << (o.outcome ? domain::ToString(*o.outcome) : "-")
      << ", " << o.selected_type << "}";
  return out;
}

std::optional<double> HourOf(const std::optional<TimePoint>& at) {
  if (!at) return std::nullopt;
  return static_cast<double>(
             std::chrono::duration_cast<std::chrono::minutes>(*at - TimePoint{}).count()) /
         60.0;
}

Job MakeJob(const JobSpec& spec, const FakeFacts& facts) {
  std::optional<Millis> max_pending;
  if (spec.max_pending_hours) max_pending = Millis{std::chrono::hours(*spec.max_pending_hours)};
  return domain::NewJob("arn:aws:sagemaker:us-west-2:111122223333:training-job/" + spec.name,
                        domain::JobKind::kTraining, kOwner, spec.options, Hour(spec.created_hour),
                        Millis{std::chrono::hours(spec.run_hours)},
                        Millis{std::chrono::hours(spec.max_runtime_hours)}, max_pending, facts);
}

Outcome OutcomeOf(const Job& job) {
  return {HourOf(job.start), HourOf(job.end), job.status, job.outcome,
          job.selected ? job.selected->instance_type : ""};
}

// Submits each job at its creation hour and settles then, as CreateTrainingJob does, and once more
// at `until_hour`; with `every_hour`, also at every hour in between (requests that change nothing).
std::map<std::string, Outcome> RunScheduler(const FakeFacts& facts,
                                            const std::vector<JobSpec>& specs, int until_hour,
                                            bool every_hour = false) {
  domain::Holdings holdings;
  std::vector<Job> live;
  std::map<std::string, Outcome> outcomes;
  for (int hour = 0; hour <= until_hour; ++hour) {
    bool created = false;
    for (const JobSpec& spec : specs) {
      if (spec.created_hour != hour) continue;
      live.push_back(MakeJob(spec, facts));
      created = true;
    }
    if (!created && !every_hour && hour != until_hour) continue;
    domain::Schedule schedule = domain::ScheduleJobs(live, Hour(hour), facts, holdings);
    live.clear();
    for (Job& job : schedule.jobs) {
      holdings.Put(domain::HolderOf(job));
      outcomes[job.arn.substr(job.arn.rfind('/') + 1)] = OutcomeOf(job);
      if (domain::IsLive(job.status)) live.push_back(std::move(job));
    }
  }
  return outcomes;
}

struct SchedulerCase {
  std::string name;
  FakeFacts facts;
  std::vector<JobSpec> jobs;
  int until_hour;
  std::map<std::string, Outcome> expected;
};

std::vector<SchedulerCase> Cases() {
  const JobOption on_plan{"ml.p5.48xlarge", 2, kPlan};
  const JobOption on_demand{"ml.g5.12xlarge", 1, ""};
  return {
      {"QueueIsFirstComeFirstServed",
       FakeFacts().WithPlan(kPlan, 2, 0, 100),
       {{"first", 1, {on_plan}, 3}, {"second", 1, {on_plan}, 2}, {"third", 2, {on_plan}, 1}},
       20,
       {{"first", {1, 4, JobStatus::kCompleted, JobOutcome::kCompleted, "ml.p5.48xlarge"}},
        {"second", {4, 6, JobStatus::kCompleted, JobOutcome::kCompleted, "ml.p5.48xlarge"}},
        {"third", {6, 7, JobStatus::kCompleted, JobOutcome::kCompleted, "ml.p5.48xlarge"}}}},
      {"PreferenceFallsBackToTheNextOptionWithCapacity",
       FakeFacts().WithPlan(kPlan, 2, 0, 100).WithOnDemand("ml.g5.12xlarge", 1),
       {{"holder", 0, {on_plan}, 10}, {"fallback", 1, {on_plan, on_demand}, 2}},
       5,
       {{"holder", {0, std::nullopt, JobStatus::kInProgress, std::nullopt, "ml.p5.48xlarge"}},
        {"fallback", {1, 3, JobStatus::kCompleted, JobOutcome::kCompleted, "ml.g5.12xlarge"}}}},
      {"AJobWaitsForItsPlanToStartAndStartsAtTheWindow",
       FakeFacts().WithPlan(kPlan, 2, 5, 100),
       {{"early", 1, {on_plan}, 2}},
       10,
       {{"early", {5, 7, JobStatus::kCompleted, JobOutcome::kCompleted, "ml.p5.48xlarge"}}}},
      {"ARunningJobStopsAtTheEndOfItsPlan",
       FakeFacts().WithPlan(kPlan, 2, 0, 3),
       {{"long", 1, {on_plan}, 10}},
       10,
       // "When there are 30 minutes remaining in your Reserved Capacity, SageMaker training plans
       // begin the process of terminating any running instances within that Reserved Capacity."
       {{"long", {1, 2.5, JobStatus::kFailed, JobOutcome::kPlanEnded, "ml.p5.48xlarge"}}}},
      // A plan of two blocks, hours 0-10 and 20-30. "...if your job is interrupted between two
      // reserved capacities": it goes on in the next with what is left of its run; the gap counts
      // neither as run time nor as pending time (MaxPendingTime 2 h).
      {"AJobInterruptedBetweenTwoBlocksGoesOnInTheNext",
       FakeFacts().WithTwoBlockPlan(kPlan, 2, 0, 10, 20, 30),
       {{"across", 1, {on_plan}, 12, 24, 2}},
       40,
       {{"across", {1, 23.5, JobStatus::kCompleted, JobOutcome::kCompleted, "ml.p5.48xlarge"}}}},
      {"AJobLongerThanBothBlocksFailsAtTheLastOnesEnd",
       FakeFacts().WithTwoBlockPlan(kPlan, 2, 0, 10, 20, 30),
       {{"too-long", 1, {on_plan}, 30, 48}},
       40,
       {{"too-long", {1, 29.5, JobStatus::kFailed, JobOutcome::kPlanEnded, "ml.p5.48xlarge"}}}},
      {"AJobCreatedInTheGapWaitsForTheSecondBlock",
       FakeFacts().WithTwoBlockPlan(kPlan, 2, 0, 10, 20, 30),
       {{"late", 12, {on_plan}, 2, 24, 1}},
       40,
       {{"late", {20, 22, JobStatus::kCompleted, JobOutcome::kCompleted, "ml.p5.48xlarge"}}}},
      {"MaxRuntimeStopsATrainingJob",
       FakeFacts().WithOnDemand("ml.g5.12xlarge", 1),
       {{"slow", 0, {on_demand}, 10, 4}},
       10,
       {{"slow", {0, 4, JobStatus::kStopped, JobOutcome::kMaxRuntimeExceeded, "ml.g5.12xlarge"}}}},
      {"PendingTimeRunsOutWhileCapacityIsHeld",
       FakeFacts().WithOnDemand("ml.g5.12xlarge", 1),
       {{"holder", 0, {on_demand}, 10}, {"impatient", 1, {on_demand}, 1, 24, 2}},
       20,
       {{"holder", {0, 10, JobStatus::kCompleted, JobOutcome::kCompleted, "ml.g5.12xlarge"}},
        {"impatient",
         {std::nullopt, 3, JobStatus::kFailed, JobOutcome::kPendingTimeExceeded, ""}}}},
      {"PendingTimeDoesNotCountWhileAPlanHasYetToStart",
       FakeFacts().WithPlan(kPlan, 2, 5, 100),
       {{"patient", 0, {on_plan}, 1, 24, 2}},
       10,
       {{"patient", {5, 6, JobStatus::kCompleted, JobOutcome::kCompleted, "ml.p5.48xlarge"}}}},
      {"AJobWhosePlansAllEndedFails",
       FakeFacts().WithPlan(kPlan, 1, 0, 2),
       {{"holder", 0, {{"ml.p5.48xlarge", 1, kPlan}}, 5},
        {"starved", 1, {{"ml.p5.48xlarge", 1, kPlan}}, 1}},
       10,
       {{"holder", {0, 1.5, JobStatus::kFailed, JobOutcome::kPlanEnded, "ml.p5.48xlarge"}},
        {"starved", {std::nullopt, 2, JobStatus::kFailed, JobOutcome::kNoOptionLeft, ""}}}},
      {"AnEndedJobsInstancesGoToTheWaitingJobAtThatMoment",
       FakeFacts().WithPlan(kPlan, 2, 0, 100).WithPlan(kOtherPlan, 2, 0, 100),
       {{"a", 0, {on_plan}, 2},
        {"b", 0, {{"ml.p5.48xlarge", 2, kOtherPlan}}, 3},
        {"c", 1, {on_plan}, 1}},
       10,
       {{"a", {0, 2, JobStatus::kCompleted, JobOutcome::kCompleted, "ml.p5.48xlarge"}},
        {"b", {0, 3, JobStatus::kCompleted, JobOutcome::kCompleted, "ml.p5.48xlarge"}},
        {"c", {2, 3, JobStatus::kCompleted, JobOutcome::kCompleted, "ml.p5.48xlarge"}}}},
  };
}

TEST(DomainScheduler, TableOfCases) {
  for (const SchedulerCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(RunScheduler(c.facts, c.jobs, c.until_hour), c.expected);
  }
}

// Settling is idempotent in time: requests in between that change nothing change no outcome.
TEST(DomainScheduler, SettlingEveryHourGivesWhatSettlingAtEachCreationGives) {
  for (const SchedulerCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(RunScheduler(c.facts, c.jobs, c.until_hour, /*every_hour=*/true), c.expected);
  }
}

// The emulator settles jobs again only when something was written or this moment has come, so it
// must name every event that time alone brings.
TEST(DomainScheduler, NextDueIsTheFirstEventTimeAloneBrings) {
  FakeFacts facts;
  facts.WithOnDemand("ml.g5.12xlarge", 1).WithPlan(kPlan, 2, 5, 100);
  const std::vector<Job> created = {
      MakeJob({"runs-10h", 0, {{"ml.g5.12xlarge", 1, ""}}, 10}, facts),  // starts at hour 1
      MakeJob({"waits", 0, {{"ml.g5.12xlarge", 1, ""}}}, facts),
      MakeJob({"waits-3h-at-most", 0, {{"ml.g5.12xlarge", 1, ""}}, 1, 24, 3}, facts),
      MakeJob({"on-the-plan", 0, {{"ml.p5.48xlarge", 1, kPlan}}, 1}, facts)};
  const auto schedule = domain::ScheduleJobs(created, Hour(1), facts, {});
  std::map<std::string, std::optional<int>> due;
  for (const Job& job : schedule.jobs) {
    due[job.arn.substr(job.arn.rfind('/') + 1)] = HourOf(domain::NextDue({job}, facts));
  }
  EXPECT_EQ(
      due,
      (std::map<std::string, std::optional<int>>{
          {"runs-10h", 11}, {"waits", std::nullopt}, {"waits-3h-at-most", 3}, {"on-the-plan", 5}}));
  EXPECT_EQ(HourOf(domain::NextDue(schedule.jobs, facts)), 3);
  domain::Holdings holdings;
  for (const Job& job : schedule.jobs) holdings.Put(domain::HolderOf(job));
  const auto later = domain::ScheduleJobs(schedule.jobs, Hour(200), facts, holdings);
  EXPECT_EQ(domain::NextDue(later.jobs, facts), std::nullopt);  // all ended: nothing is due
}

TEST(DomainScheduler, AStoppedJobHoldsItsInstancesUntilTheStopCompletes) {
  FakeFacts facts;
  facts.WithOnDemand("ml.g5.12xlarge", 1);
  Job running = MakeJob({"running", 0, {{"ml.g5.12xlarge", 1, ""}}, 10}, facts);
  Job waiting = MakeJob({"waiting", 0, {{"ml.g5.12xlarge", 1, ""}}, 1}, facts);
  auto schedule = domain::ScheduleJobs({running, waiting}, Hour(1), facts, {});
  running = schedule.jobs[0];
  waiting = schedule.jobs[1];
  ASSERT_EQ(running.phase, domain::JobPhase::kRunning);
  auto stopping = domain::StartStop(running, Hour(1), Millis{std::chrono::hours(1)});
  ASSERT_TRUE(stopping);
  EXPECT_EQ(stopping->status, JobStatus::kStopping);
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(*stopping));
  EXPECT_EQ(holdings.OnDemand(kOwner.region, "ml.g5.12xlarge"), 1);
  schedule = domain::ScheduleJobs({*stopping, waiting}, Hour(3), facts, holdings);
  EXPECT_EQ(schedule.jobs[0].status, JobStatus::kStopped);
  EXPECT_EQ(HourOf(schedule.jobs[0].end), 2);
  EXPECT_EQ(HourOf(schedule.jobs[1].start), 2);  // the instance went to the waiting job then

  auto again = domain::StartStop(schedule.jobs[0], Hour(3), Millis{0});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().message,
            "The request was rejected because the training job is in status Stopped.");
}

// Many jobs with random options, sizes and times: at no moment do the running jobs hold more
// than a plan or a pool has, and every job that could never fit stays waiting or fails.
TEST(DomainScheduler, CapacityIsNeverOverCommitted) {
  std::mt19937 random(7);
  for (int round = 0; round < 30; ++round) {
    FakeFacts facts;
    facts.WithPlan(kPlan, 4, 2, 30).WithPlan(kOtherPlan, 3, 0, 12).WithOnDemand("ml.g5.xlarge", 5);
    const std::vector<std::string> plans = {kPlan, kOtherPlan, ""};
    std::vector<JobSpec> specs;
    for (int i = 0; i < 25; ++i) {
      JobSpec spec{"job" + std::to_string(i),
                   static_cast<int>(random() % 20),
                   {},
                   1 + static_cast<int>(random() % 6)};
      const int options = 1 + static_cast<int>(random() % 3);
      for (int o = 0; o < options; ++o) {
        const std::string& plan = plans[random() % plans.size()];
        spec.options.push_back({plan.empty() ? "ml.g5.xlarge" : "ml.p5.48xlarge",
                                1 + static_cast<int>(random() % 3), plan});
      }
      specs.push_back(std::move(spec));
    }
    domain::Holdings holdings;
    std::vector<Job> live;
    std::map<std::string, Job> last;
    for (int hour = 0; hour <= 40; ++hour) {
      for (const JobSpec& spec : specs) {
        if (spec.created_hour == hour) live.push_back(MakeJob(spec, facts));
      }
      domain::Schedule schedule = domain::ScheduleJobs(live, Hour(hour), facts, holdings);
      live.clear();
      for (Job& job : schedule.jobs) {
        holdings.Put(domain::HolderOf(job));
        if (domain::IsLive(job.status)) live.push_back(job);
        last[job.arn] = std::move(job);
      }
    }
    ASSERT_EQ(last.size(), specs.size());
    int started = 0;
    for (const auto& [arn, job] : last) started += job.start ? 1 : 0;
    EXPECT_GT(started, 5);  // the check below has something to check
    for (int hour = 0; hour < 40; ++hour) {
      std::map<std::string, int> held;  // plan ARN or on-demand type
      for (const auto& [arn, job] : last) {
        if (!job.start || *job.start > Hour(hour)) continue;
        if (job.end && *job.end <= Hour(hour)) continue;
        held[job.selected->plan_arn.empty() ? job.selected->instance_type
                                            : job.selected->plan_arn] +=
            job.selected->instance_count;
      }
      EXPECT_LE(held[kPlan], 4) << "round " << round << " hour " << hour;
      EXPECT_LE(held[kOtherPlan], 3) << "round " << round << " hour " << hour;
      EXPECT_LE(held["ml.g5.xlarge"], 5) << "round " << round << " hour " << hour;
      if (hour < 2) {
        EXPECT_EQ(held[kPlan], 0);  // not open yet
      }
      if (hour >= 12) {
        EXPECT_EQ(held[kOtherPlan], 0);  // closed
      }
    }
  }
}

}  // namespace
}  // namespace smemu
