#include "ops/record_codec.hpp"

namespace smemu::ops::codec {

json Document(const store::ResourceRow& row) { return json::parse(row.doc); }

void FailOn(const store::ResourceRow& row, const std::string& why) {
  throw store::StoreFailure("the stored " + row.key.kind + " " + row.arn +
                            " cannot be read: " + why);
}

void FailOnSetting(const std::string& key, const std::string& why) {
  throw store::StoreFailure("the stored setting '" + key + "' cannot be read: " + why);
}

}  // namespace smemu::ops::codec
