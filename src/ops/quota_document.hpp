// The JSON form of account service quotas, read from `--quotas FILE` and from POST
// /_emulator/quotas (schema: schemas/quotas.schema.json):
//   {"preset": "new-account" | "none",
//    "quotas": [{"name": "ml.g5.12xlarge for endpoint usage", "value": 2,
//                "account": "123456789012", "region": "us-east-1"}, ...]}
// A preset replaces every quota set before it; each entry then sets one (value null removes it).
// "account" and "region" are optional: without them a quota applies to every account or region.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "domain/aws_error.hpp"
#include "domain/quotas.hpp"

namespace smemu::ops {

struct QuotaDocument {
  std::optional<std::string> preset;  // "new-account" or "none"
  std::vector<domain::QuotaSetting> set;
  std::vector<domain::QuotaSetting> unset;  // value ignored
};

// Reads and checks a document; a problem is a ValidationException naming the member.
domain::Result<QuotaDocument> ReadQuotaDocument(const nlohmann::json& doc);

// Applies a document to `table`.
void ApplyQuotaDocument(const QuotaDocument& document, domain::QuotaTable& table);

// The table as a document of its settings (what GET shows and the store keeps), and back.
nlohmann::json QuotaSettingsJson(const domain::QuotaTable& table);
domain::QuotaTable QuotaTableFromJson(const nlohmann::json& settings);

}  // namespace smemu::ops
