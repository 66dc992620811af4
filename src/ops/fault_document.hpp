// The JSON form of fault rules, read from `--faults FILE`, SAGEMAKER_EMULATOR_FAULTS and POST
// /_emulator/faults (schema: schemas/faults.schema.json):
//   {"rules": [{"id": "slow-lists", "operation": "List*", "latency_ms": 800},
//              {"operation": "ListTrainingJobs", "account": "123456789012", "every": 3,
//               "error": "ThrottlingException"},
//              {"operation": "CreateTrainingPlan", "resource": "doomed-*", "times": 1,
//               "payment": {"status_message": "..."}}]}
// A POST may also send one rule alone. Each rule does exactly one of `error` (a code, or
// {"code", "status", "message"}), `latency_ms` or `payment`, and fires on every match unless
// `times`, `every` or `probability` (with an optional `seed`) says otherwise.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "domain/aws_error.hpp"
#include "domain/faults.hpp"

namespace smemu::ops {

// Reads and checks a document's rules; a problem is a ValidationException naming the rule and
// member. An error's status and message are left 0 and empty when the document gives none (the
// protocol layer fills them from the service model: protocol::CompleteFaultRules).
domain::Result<std::vector<domain::FaultRule>> ReadFaultRules(const nlohmann::json& doc);

// A rule as GET /_emulator/faults and the state view show it: the document's form.
nlohmann::json FaultRuleJson(const domain::FaultRule& rule);

// The StatusMessage of a plan whose payment failed, when the rule gives none (our own text: AWS
// does not publish its).
inline constexpr const char* kPaymentFailedMessage =
    "The payment for this training plan could not be processed. No capacity was reserved.";

// The FailureReason of a job a job_failure rule fails, when the rule gives none (our own text,
// in the form of the service's algorithm errors).
inline constexpr const char* kJobFailedReason =
    "AlgorithmError: The training script exited with a non-zero code (injected by a fault rule).";

}  // namespace smemu::ops
