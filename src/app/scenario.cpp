#include "app/scenario.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace smemu::app {
namespace {

using nlohmann::json;

// A failing step: "<file>: step 3 (CreateTrainingPlan): <reason>".
class StepError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

json ReadSteps(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error(path + ": cannot be read");
  std::stringstream text;
  text << file.rdbuf();
  json steps = json::parse(text.str(), nullptr, false);
  if (steps.is_discarded()) throw std::runtime_error(path + ": not valid JSON");
  if (!steps.is_array()) throw std::runtime_error(path + ": must be a JSON list of steps");
  return steps;
}

// Replaces "${account}" and "${region}" anywhere in a string by the step's caller, so one scenario
// serves whichever account (--account-id, or the step's "account") and region it runs in.
std::string SubstituteCaller(std::string text, const ScenarioDefaults& caller) {
  for (const auto& [name, value] :
       {std::pair<std::string, const std::string&>{"${account}", caller.account},
        std::pair<std::string, const std::string&>{"${region}", caller.region}}) {
    for (auto at = text.find(name); at != std::string::npos; at = text.find(name, at)) {
      text.replace(at, name.size(), value);
      at += value.size();
    }
  }
  return text;
}

// Replaces every "${id:/pointer}" string by the value it points at in an earlier step's output.
json Resolve(const json& value, const std::map<std::string, json>& outputs,
             const ScenarioDefaults& caller) {
  if (value.is_object() || value.is_array()) {
    json resolved = value;
    for (auto& item : resolved) item = Resolve(item, outputs, caller);
    return resolved;
  }
  if (!value.is_string()) return value;
  const std::string text = SubstituteCaller(value.get<std::string>(), caller);
  if (text.size() < 4 || text.rfind("${", 0) != 0 || text.back() != '}') return text;
  const std::string reference = text.substr(2, text.size() - 3);
  const auto colon = reference.find(':');
  const std::string id = reference.substr(0, colon);
  const auto output = outputs.find(id);
  if (output == outputs.end()) {
    throw StepError("refers to \"" + id + "\", which no earlier step has as its id");
  }
  if (colon == std::string::npos) return output->second;
  try {
    return output->second.at(json::json_pointer(reference.substr(colon + 1)));
  } catch (const json::exception&) {
    throw StepError("refers to " + text + ", which the output of step \"" + id + "\" lacks");
  }
}

json Answer(const protocol::Router& router, protocol::HttpRequest request) {
  const protocol::HttpResponse response = router.Handle(request);
  json body = json::parse(response.body, nullptr, false);
  if (response.status == 200) return body.is_discarded() ? json::object() : body;
  if (body.is_object() && body.contains("__type")) {
    throw StepError(body.value("__type", "") + ": " + body.value("message", ""));
  }
  throw StepError("HTTP " + std::to_string(response.status) + ": " + response.body);
}

protocol::HttpRequest AdminRequest(const std::string& path, const json& body) {
  return {"POST", path, {{"Content-Type", "application/json"}}, body.dump()};
}

void MoveClock(const protocol::Router& router, const json& clock) {
  const json body = clock.is_object() ? clock : json{{"now", clock}};
  Answer(router, AdminRequest("/_emulator/clock", body));
}

// One pool change, or a list of them, as POST /_emulator/capacity takes.
void ChangePools(const protocol::Router& router, const json& capacity) {
  for (const json& change : capacity.is_array() ? capacity : json::array({capacity})) {
    Answer(router, AdminRequest("/_emulator/capacity", change));
  }
}

// Fault rules as POST /_emulator/faults takes: one rule, or {"rules": [...]}.
void AddFaults(const protocol::Router& router, const json& faults) {
  Answer(router, AdminRequest("/_emulator/faults", faults));
}

json CallOperation(const protocol::Router& router, const json& step,
                   const ScenarioDefaults& defaults, const std::map<std::string, json>& outputs) {
  const std::string region = step.value("region", defaults.region);
  const std::string account = step.value("account", defaults.account);
  const json input = Resolve(step.value("input", json::object()), outputs, {region, account});
  if (!input.is_object()) throw StepError("'input' must be an object");
  // The credential scope names the caller, as a client's would; nothing is signed.
  const std::string authorization = "AWS4-HMAC-SHA256 Credential=" + account + "/20260101/" +
                                    region +
                                    "/sagemaker/aws4_request, SignedHeaders=host, Signature=0";
  return Answer(router, {"POST",
                         "/",
                         {{"X-Amz-Target", "SageMaker." + step["operation"].get<std::string>()},
                          {"Content-Type", "application/x-amz-json-1.1"},
                          {"Authorization", authorization}},
                         input.dump()});
}

void CheckStep(const json& step) {
  if (!step.is_object()) throw StepError("must be an object");
  static const char* const kMembers[] = {"id",        "clock",  "capacity", "faults",
                                         "operation", "region", "account",  "input"};
  for (const auto& [key, value] : step.items()) {
    if (std::find(std::begin(kMembers), std::end(kMembers), key) == std::end(kMembers)) {
      throw StepError(
          "unknown member '" + key +
          "'; a step has id, clock, capacity, faults, operation, region, account, input");
    }
  }
  if (!step.contains("operation") && !step.contains("clock") && !step.contains("capacity") &&
      !step.contains("faults")) {
    throw StepError("needs an 'operation', a 'clock', a 'capacity' or 'faults'");
  }
  if (step.contains("faults") && !step["faults"].is_object()) {
    throw StepError("'faults' must be an object as POST /_emulator/faults takes");
  }
  for (const char* text : {"id", "operation", "region", "account"}) {
    if (step.contains(text) && !step[text].is_string()) {
      throw StepError(std::string("'") + text + "' must be a string");
    }
  }
  if (step.contains("id") && (step["id"] == "account" || step["id"] == "region")) {
    throw StepError(
        "'id' must not be \"account\" or \"region\": ${account} and ${region} name "
        "the caller");
  }
  if (step.contains("capacity") && !step["capacity"].is_object() && !step["capacity"].is_array()) {
    throw StepError("'capacity' must be an object as POST /_emulator/capacity takes, or a list");
  }
}

}  // namespace

int ApplyScenario(const std::string& path, const protocol::Router& router,
                  const ScenarioDefaults& defaults) {
  const json steps = ReadSteps(path);
  std::map<std::string, json> outputs;
  for (size_t i = 0; i < steps.size(); ++i) {
    const json& step = steps[i];
    const std::string name =
        path + ": step " + std::to_string(i + 1) +
        (step.is_object() && step.contains("operation") && step["operation"].is_string()
             ? " (" + step["operation"].get<std::string>() + ")"
             : "");
    try {
      CheckStep(step);
      if (step.contains("clock")) MoveClock(router, step["clock"]);
      if (step.contains("capacity")) ChangePools(router, step["capacity"]);
      if (step.contains("faults")) AddFaults(router, step["faults"]);
      json output = step.contains("operation") ? CallOperation(router, step, defaults, outputs)
                                               : json::object();
      if (step.contains("id")) outputs[step["id"].get<std::string>()] = std::move(output);
    } catch (const StepError& e) {
      throw std::runtime_error(name + ": " + e.what());
    }
  }
  return static_cast<int>(steps.size());
}

int ApplyScenarios(const std::string& path, const protocol::Router& router,
                   const ScenarioDefaults& defaults) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return ApplyScenario(path, router, defaults);
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(path, ec)) {
    if (entry.path().extension() == ".json" && entry.is_regular_file(ec)) {
      files.push_back(entry.path());
    }
  }
  if (ec) throw std::runtime_error(path + ": cannot be read: " + ec.message());
  std::sort(files.begin(), files.end());
  int steps = 0;
  for (const fs::path& file : files) steps += ApplyScenario(file.string(), router, defaults);
  return steps;
}

}  // namespace smemu::app
