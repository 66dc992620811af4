// The service model's word on fault rules: an error rule may answer only what every operation it
// matches could answer (one of its modelled errors, or an error common to AWS APIs), with the
// status that error is sent with, so --check-responses holds for injected answers too.
#pragma once

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "apimodel/service_model.hpp"
#include "domain/faults.hpp"

namespace smemu::protocol {

// Checks each error rule of `rules` against the operations it matches among the control plane's
// operations that `emulates` and the runtime's, and fills the error's status and message where the
// rule gave none: the model's status (or the common error's), and AWS's text for throttling
// ("Rate exceeded"). A rule whose operation matches no served operation is refused too.
domain::Status CompleteFaultRules(std::vector<domain::FaultRule>& rules,
                                  const apimodel::ServiceModel& control_plane,
                                  const apimodel::ServiceModel& runtime,
                                  const std::function<bool(const std::string&)>& emulates);

// The resource a control-plane request names, as a rule's `resource` matches it: the input's
// `<Noun>Name` member whose noun begins what follows the operation's verb (EndpointName for
// CreateEndpoint and UpdateEndpointWeightsAndCapacities, ClusterName for ListClusterNodes), the
// longest such; "" when the request names none (AddTags, SearchTrainingPlanOfferings).
std::string FaultResourceOf(std::string_view operation, const nlohmann::json& input);

}  // namespace smemu::protocol
