#include "config/capacity_config.hpp"

#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "apimodel/embedded_models.hpp"
#include "domain/aws_names.hpp"
#include "embed/embedded_files.hpp"

namespace smemu::config {
namespace {

using nlohmann::json;

constexpr int kMaxInstances = 100000;

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void Fail(const std::string& path, const std::string& problem) const {
    throw std::runtime_error(source_ + ": " + (path.empty() ? "" : path + ": ") + problem);
  }

  const json& Object(const json& value, const std::string& path) const {
    if (!value.is_object()) Fail(path, "must be a JSON object");
    return value;
  }

  void OnlyKeys(const json& object, const std::string& path, std::set<std::string> allowed) const {
    for (const auto& [key, value] : object.items()) {
      if (!allowed.count(key)) Fail(Join(path, key), "unknown field");
    }
  }

  int Count(const json& pool, const std::string& path, const char* field) const {
    if (!pool.contains(field)) return 0;
    const json& value = pool.at(field);
    if (!value.is_number_integer() || value.get<long long>() < 0 ||
        value.get<long long>() > kMaxInstances) {
      Fail(Join(path, field), "must be an integer from 0 to " + std::to_string(kMaxInstances));
    }
    return value.get<int>();
  }

  // A pool sold as UltraServers: both members or neither; the reservable instances are whole
  // UltraServers of the type's pattern (the model's UltraServerType).
  std::optional<domain::UltraServerShape> UltraServer(const json& pool, const std::string& path,
                                                      int reservable) const {
    const bool typed = pool.contains("ultraserver_type");
    if (typed != pool.contains("instances_per_ultraserver")) {
      Fail(path, "ultraserver_type and instances_per_ultraserver go together");
    }
    if (!typed) return std::nullopt;
    const json& type = pool.at("ultraserver_type");
    if (!type.is_string() || type.get<std::string>().rfind("ml.", 0) != 0) {
      Fail(Join(path, "ultraserver_type"), "must be an UltraServer type, e.g. ml.u-p6e-gb200x72");
    }
    const int instances = Count(pool, path, "instances_per_ultraserver");
    if (instances < 1) Fail(Join(path, "instances_per_ultraserver"), "must be at least 1");
    if (reservable % instances != 0) {
      Fail(Join(path, "reservable"),
           "must be a whole number of UltraServers (a multiple of instances_per_ultraserver)");
    }
    return domain::UltraServerShape{type.get<std::string>(), instances};
  }

  double Price(const json& prices, const std::string& path, const char* field) const {
    if (!prices.contains(field)) Fail(Join(path, field), "is required");
    const json& value = prices.at(field);
    if (!value.is_number() || value.get<double>() < 0) {
      Fail(Join(path, field), "must be a number >= 0");
    }
    return value.get<double>();
  }

  // Plans can reserve only the model's ReservedCapacityInstanceType values.
  static bool IsReservable(const std::string& type) {
    return IsOneOf(type, "ReservedCapacityInstanceType");
  }

  // Any instance type an endpoint, training job or processing job can run on.
  void CheckInstanceType(const std::string& type, const std::string& path) const {
    for (const char* shape : {"ReservedCapacityInstanceType", "ProductionVariantInstanceType",
                              "TrainingInstanceType", "ProcessingInstanceType"}) {
      if (IsOneOf(type, shape)) return;
    }
    Fail(path, "not a SageMaker instance type");
  }

  static bool IsOneOf(const std::string& type, const char* enum_shape) {
    const auto* shape = apimodel::ControlPlaneModel().FindShape(enum_shape);
    if (shape == nullptr) return false;
    const auto& allowed = shape->enum_values;
    return std::find(allowed.begin(), allowed.end(), type) != allowed.end();
  }

  static std::string Join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  std::string source_;
};

}  // namespace

domain::CapacityConfig ParseCapacityConfig(std::string_view text, const std::string& source) {
  Parser parser(source);
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) parser.Fail("", "not valid JSON");
  parser.Object(doc, "");
  parser.OnlyKeys(doc, "", {"regions", "prices"});
  if (!doc.contains("regions")) parser.Fail("regions", "is required");
  if (!doc.contains("prices")) parser.Fail("prices", "is required");

  domain::CapacityConfig config;
  for (const auto& [type, prices] : parser.Object(doc.at("prices"), "prices").items()) {
    const std::string path = "prices." + type;
    parser.CheckInstanceType(type, path);
    parser.Object(prices, path);
    parser.OnlyKeys(prices, path, {"on_demand_hourly", "plan_hourly"});
    config.prices[type] = {parser.Price(prices, path, "on_demand_hourly"),
                           parser.Price(prices, path, "plan_hourly")};
  }
  for (const auto& [region, zones] : parser.Object(doc.at("regions"), "regions").items()) {
    const std::string region_path = "regions." + region;
    if (!domain::IsRegionName(region)) parser.Fail(region_path, "not a region name");
    for (const auto& [zone, pools] : parser.Object(zones, region_path).items()) {
      const std::string zone_path = region_path + "." + zone;
      if (zone.rfind(region, 0) != 0 || zone.size() == region.size()) {
        parser.Fail(zone_path,
                    "an availability zone name must start with its region, e.g. " + region + "a");
      }
      for (const auto& [type, pool] : parser.Object(pools, zone_path).items()) {
        const std::string path = zone_path + "." + type;
        parser.CheckInstanceType(type, path);
        parser.Object(pool, path);
        parser.OnlyKeys(
            pool, path,
            {"reservable", "on_demand", "ultraserver_type", "instances_per_ultraserver"});
        const int reservable = parser.Count(pool, path, "reservable");
        if (reservable > 0 && !Parser::IsReservable(type)) {
          parser.Fail(path + ".reservable", "must be 0: training plans cannot reserve " + type +
                                                " (not a ReservedCapacityInstanceType)");
        }
        if (reservable > 0 && !config.prices.count(type)) {
          parser.Fail(path, "has reservable instances but no entry in prices");
        }
        config.pools.push_back({{region, zone, type},
                                reservable,
                                parser.Count(pool, path, "on_demand"),
                                parser.UltraServer(pool, path, reservable)});
      }
    }
  }
  return config;
}

domain::CapacityConfig LoadCapacityConfig(const std::optional<std::string>& path) {
  if (!path) {
    return ParseCapacityConfig(EmbeddedFiles().at("config/default-capacity.json"),
                               "built-in capacity configuration");
  }
  std::ifstream file(*path);
  if (!file) throw std::runtime_error(*path + ": cannot read the capacity configuration");
  std::stringstream text;
  text << file.rdbuf();
  return ParseCapacityConfig(text.str(), *path);
}

}  // namespace smemu::config
