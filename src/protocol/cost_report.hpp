// The cost ledger (domain/costs.hpp) as GET /_emulator/costs renders it: JSON, or CSV for a
// spreadsheet. Money in dollars rounded to the cent, use in instance-hours to 4 decimals.
#pragma once

#include <optional>
#include <string>

#include "domain/costs.hpp"

namespace smemu::protocol {

// The JSON text of the ledger; `account` is the one it was narrowed to, if any.
std::string CostsText(const domain::CostLedger& ledger, const std::optional<std::string>& account);
std::string CostsCsv(const domain::CostLedger& ledger);

// Dollars from cents, and instance-hours from instance-milliseconds, as the report shows them.
double Dollars(domain::Cents cents);
double InstanceHours(domain::InstanceMillis used);

}  // namespace smemu::protocol
