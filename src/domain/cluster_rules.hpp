// Private to cluster.cpp and cluster_clock.cpp: the rules that both the transitions a request asks
// for and those the clock brings apply to a cluster.
#pragma once

#include "domain/aws_error.hpp"
#include "domain/cluster.hpp"
#include "domain/plan_admission.hpp"
#include "smemu/clock.hpp"

namespace smemu::domain::cluster_rules {

// AWS starts terminating a HyperPod group's instances one hour before its reserved block ends.
inline constexpr Millis kPlanWindDown = kHyperPodWindDown;

// The refusal of a plan group asking for more instances than its plan has `available`.
AwsError ExceedsAvailable(const GroupSpec& spec, int available);

// From one hour before a reserved capacity ends, HyperPod takes its instances back.
bool WindingDown(const PlanFacts& plan, TimePoint at);

// Whether an update changed the group (a new group, or a new count).
bool Touched(const InstanceGroup& group);

void ShutDown(ClusterNode& node, TimePoint now, Millis delay);

}  // namespace smemu::domain::cluster_rules
