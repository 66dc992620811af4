// Seeded scenarios (--init FILE): a JSON list of API calls applied, in order, to an empty
// database, through the same router a client's request goes through (validation, handlers,
// logging), so a scenario can do nothing a client could not.
//
// Each step is an object with at least one of:
//   "clock":     move the virtual clock first: an ISO 8601 time or epoch seconds, or an object as
//                POST /_emulator/clock takes ({"now", "advance_seconds", "frozen"});
//   "capacity":  change pools first: an object as POST /_emulator/capacity takes, or a list;
//   "faults":    add fault rules first: an object as POST /_emulator/faults takes (one rule, or
//                {"rules": [...]}); they are run-time rules, which a reset drops;
//   "operation": a control-plane operation (e.g. "CreateModel") with "input" (default {}), called
//                in "region" and "account" (default: the server's).
// "${account}" and "${region}" anywhere in a string of the input are the step's caller.
// "id" names a step's output; a string "${id:/json/pointer}" anywhere in a later step's input is
// replaced by that value of the output, e.g. "${search:/TrainingPlanOfferings/0/...}".
#pragma once

#include <string>

#include "protocol/router.hpp"

namespace smemu::app {

struct ScenarioDefaults {
  std::string region;
  std::string account;
};

// Applies the scenario in `path` through `router`, which must accept admin requests. Returns the
// number of steps. Throws std::runtime_error naming the file, the step (1-based, with its
// operation) and the reason, when the file is unreadable or malformed or a step fails.
int ApplyScenario(const std::string& path, const protocol::Router& router,
                  const ScenarioDefaults& defaults);

// `path` is a scenario file, or a folder whose *.json files are applied in name order (other files
// are ignored; an empty folder applies nothing). Returns the number of steps.
int ApplyScenarios(const std::string& path, const protocol::Router& router,
                   const ScenarioDefaults& defaults);

}  // namespace smemu::app
