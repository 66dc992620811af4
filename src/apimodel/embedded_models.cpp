#include "apimodel/embedded_models.hpp"

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include "embed/embedded_files.hpp"

namespace smemu::apimodel {
namespace {

const ServiceModel& LoadEmbedded(const std::string& path) {
  const auto& files = EmbeddedFiles();
  auto it = files.find(path);
  if (it == files.end()) throw std::runtime_error("model not embedded: " + path);
  static std::map<std::string, std::unique_ptr<ServiceModel>> loaded;
  return *loaded.emplace(path, ServiceModel::Load(it->second)).first->second;
}

}  // namespace

const ServiceModel& ControlPlaneModel() {
  static const ServiceModel& model = LoadEmbedded("api/sagemaker/2017-07-24/service-2.json");
  return model;
}

const ServiceModel& RuntimeModel() {
  static const ServiceModel& model =
      LoadEmbedded("api/sagemaker-runtime/2017-05-13/service-2.json");
  return model;
}

}  // namespace smemu::apimodel
