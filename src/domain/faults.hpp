// Fault rules: what a test asks the emulator to break on purpose, where and when. A rule names
// the requests (or lifecycle moments) it matches, how often it fires among its matches, and what
// it does then. Pure values and decisions; the registry that counts matches lives in
// ops/faults.hpp. No I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "domain/aws_error.hpp"
#include "smemu/clock.hpp"

namespace smemu::domain {

// What a rule is tried against: an operation of one caller, on one named resource ("" when the
// request names none).
struct FaultSubject {
  std::string_view operation;
  std::string_view account;
  std::string_view region;
  std::string_view resource;
};

// Whether `text` matches the shell glob `pattern` (fnmatch: `*`, `?`, `[...]`); "" and "*" match
// anything.
bool GlobMatches(const std::string& pattern, std::string_view text);

// Which subjects a rule matches. `operation` and `resource` are shell globs (fnmatch: `*`, `?`,
// `[...]`); an empty field matches anything.
struct FaultScope {
  std::string operation = "*";
  std::string account;
  std::string region;
  std::string resource;

  bool Matches(const FaultSubject& subject) const;
};

// How often a rule fires among its matches.
struct FaultFiring {
  enum class Kind { kAlways, kTimes, kEvery, kProbability };
  Kind kind = Kind::kAlways;
  long long count = 0;     // kTimes: the next `count` matches; kEvery: every `count`th match
  double probability = 0;  // kProbability: each match fires with this chance
  std::uint64_t seed = 0;  // kProbability: seeds the rule's draws, so a run repeats itself
};

// Whether the `match`th match of a rule (1 for the first) fires, when the rule has fired `fired`
// times before it and `draw` is the match's number in [0, 1) from the rule's seeded generator.
bool Fires(const FaultFiring& firing, long long match, long long fired, double draw);

// What a rule does when it fires.
struct ErrorFault {  // answers this AWS error instead of serving the request
  AwsError error;
};
struct LatencyFault {  // serves the request, then holds the answer this long (real time)
  Millis delay{0};
};
struct PaymentFault {  // the plan or extension bought by the matched request is never paid for
  std::string status_message;
};
struct NodeFault {  // a HyperPod node of the matched cluster fails at `at` on the virtual clock
  TimePoint at{};
  std::string instance_group;  // a glob; "" any group
};
// The matched endpoint, cluster or job finds no on-demand capacity of the instance types matching
// `instance_type` (a glob; "" any) when it is next provisioned: an endpoint or cluster fails (an
// endpoint variant with InstancePools falls back to its next pool), a job fails with a
// CapacityError.
struct NoCapacityFault {
  std::string instance_type;
};
// The matched training or processing job, once created, fails `after` that much of its run with
// `failure_reason` (unless it ends before).
struct JobFault {
  Millis after{0};
  std::string failure_reason;
};
// An invocation of the matched endpoint gets the ModelError the service sends when the model
// container answers `status` with `body`, or (`timeout`) does not answer in time.
struct ModelFault {
  int status = 500;
  std::string body;
  bool timeout = false;
};
using FaultAction = std::variant<ErrorFault, LatencyFault, PaymentFault, NodeFault, NoCapacityFault,
                                 JobFault, ModelFault>;

// When a rule is tried: as a request arrives (errors, latency), when a purchase is paid, when a
// cluster's transitions are settled, or when a resource is provisioned.
enum class FaultStage {
  kRequest,
  kPayment,
  kNodeFailure,
  kProvisioning,
  kJobCreation,
  kInvocation
};
FaultStage StageOf(const FaultAction& action);

// The longest latency a rule may add: long enough to trip any client timeout a test sets, short
// enough that a forgotten rule cannot hold a connection for minutes.
inline constexpr Millis kMaxFaultLatency{30'000};

struct FaultRule {
  std::string id;
  std::string description;  // the author's note, shown back
  FaultScope scope;
  FaultFiring firing;
  FaultAction action;
};

// The AWS error code named `name` that a fault rule can answer with; nullopt for one the emulator
// cannot send.
std::optional<ErrorCode> FaultErrorCode(std::string_view name);

}  // namespace smemu::domain
