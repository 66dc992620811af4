#include "apimodel/embedded_models.hpp"

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "embed/embedded_files.hpp"

namespace smemu::apimodel {
namespace {

std::unique_ptr<const ServiceModel> LoadEmbedded(const std::string& path) {
  const auto& files = EmbeddedFiles();
  auto it = files.find(path);
  if (it == files.end()) throw std::runtime_error("model not embedded: " + path);
  return ServiceModel::Load(it->second);
}

}  // namespace

// One static each, and nothing shared between them: the server builds the control-plane model on
// a thread of its own while its main thread goes on (see Server::Start).
const ServiceModel& ControlPlaneModel() {
  static const std::unique_ptr<const ServiceModel> model =
      LoadEmbedded("api/sagemaker/2017-07-24/service-2.json");
  return *model;
}

const ServiceModel& RuntimeModel() {
  static const std::unique_ptr<const ServiceModel> model =
      LoadEmbedded("api/sagemaker-runtime/2017-05-13/service-2.json");
  return *model;
}

}  // namespace smemu::apimodel
