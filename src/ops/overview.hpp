// The whole emulator at one instant, as the dashboard (GET /_emulator/state) shows it: the clock,
// every pool with its free reservable instances ahead, the on-demand pools' use, and the plans,
// endpoints, jobs and HyperPod clusters with their statuses settled to the virtual clock. Plain
// values, built under Emulator's request lock; the protocol layer renders them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "domain/capacity_ledger.hpp"
#include "domain/job.hpp"
#include "smemu/clock.hpp"
#include "store/state_store.hpp"

namespace smemu::ops {

// One sold training plan.
struct PlanOverview {
  std::string name;
  std::string arn;
  std::string account;
  domain::PoolKey pool;
  int instance_count = 0;
  int in_use = 0;  // instances endpoints, jobs and clusters hold on it now
  domain::Window window;
  std::string status;  // Scheduled, Active, Expired
  std::vector<std::string> target_resources;
};

// Where an endpoint variant's instances come from.
struct VariantOverview {
  std::string name;
  std::string instance_type;
  int current_count = 0;
  int desired_count = 0;
  std::string training_plan_arn;  // empty: on demand
};

struct EndpointOverview {
  std::string name;
  std::string arn;
  std::string account;
  std::string region;
  std::string status;
  std::string failure_reason;
  std::vector<VariantOverview> variants;
};

struct JobOverview {
  std::string name;
  std::string arn;
  std::string account;
  std::string region;
  std::string kind;  // training-job, processing-job
  std::string status;
  std::string secondary_status;
  std::string instance_type;  // the selected one; empty while waiting
  int instance_count = 0;
  std::string training_plan_arn;  // the selected plan, or the only one a waiting job can use
  TimePoint created{};
  Millis waiting{0};  // from creation to start, or to now while it waits
  std::string failure_reason;
  // The options it may run on, in preference order (where a waiting job waits), and when it
  // started and ended.
  std::vector<domain::JobOption> options;
  std::optional<TimePoint> started;
  std::optional<TimePoint> ended;
};

// One instance group of a HyperPod cluster, with its nodes counted by ClusterInstanceStatus.
struct ClusterGroupOverview {
  std::string name;
  std::string instance_type;
  int target_count = 0;
  int current_count = 0;  // nodes that are not shutting down, as DescribeCluster counts them
  std::string training_plan_arn;  // empty: on demand
  int pending = 0;
  int running = 0;
  int shutting_down = 0;  // still holding their instances
};

struct ClusterOverview {
  std::string name;
  std::string arn;
  std::string account;
  std::string region;
  std::string status;
  std::string failure_message;
  std::vector<ClusterGroupOverview> groups;
};

// Every endpoint of every account (of `account` only, when set), in name order per account.
std::vector<EndpointOverview> EndpointOverviews(const store::StateStore& store,
                                                const std::optional<std::string>& account);

// Every training and processing job, as of `now` (statuses already settled up to it).
std::vector<JobOverview> JobOverviews(const store::StateStore& store, TimePoint now,
                                      const std::optional<std::string>& account);

// Every HyperPod cluster of every account (of `account` only, when set), in creation order, then
// by account and name.
std::vector<ClusterOverview> ClusterOverviews(const store::StateStore& store,
                                              const std::optional<std::string>& account);

}  // namespace smemu::ops
