// Private to the admin API's files (admin_api.cpp, admin_dashboard.cpp): what a route is given, and
// the JSON forms more than one route shows.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ops/admin_views.hpp"
#include "protocol/router_internal.hpp"
#include "smemu/clock.hpp"

namespace smemu::protocol {

// What an admin route is given: the request, its outcome for the log line, and who is asking.
struct Router::AdminCall {
  const HttpRequest& request;
  Outcome& outcome;
  AdminAccess access;

  HttpResponse Reply(const nlohmann::json& body) const { return ReplyText(body.dump()); }
  HttpResponse ReplyText(std::string json_text) const {
    return RenderJson(200, std::move(json_text), WireProtocol::kAdmin, outcome.request_id);
  }
  HttpResponse Fail(const domain::AwsError& error) const {
    return RenderError(error, WireProtocol::kAdmin, outcome.request_id);
  }
  // With strict callers (a signing AWS client without the token) a view is narrowed to the
  // caller's own account.
  std::optional<std::string> AccountFilter(const Router& router) const {
    if (access != AdminAccess::kOwnAccount) return std::nullopt;
    return router.CallerOf(request, outcome.request_id).account;
  }
};

// The value of `name` in the request's query string ("" when absent).
std::string QueryParameter(const std::string& target, const std::string& name);

// The virtual clock as GET /_emulator/clock and the state show it.
nlohmann::json ClockJson(const VirtualClock::State& state);

// The quotas in force with what is used, as GET /_emulator/quotas and the state show them.
nlohmann::json QuotasJson(const std::vector<ops::AdminViews::QuotaLine>& lines);

// Fault rules as GET /_emulator/faults and the state show them: each rule with where it came from
// and how often it matched and fired.
nlohmann::json FaultsJson(const std::vector<ops::FaultRuleView>& views);

}  // namespace smemu::protocol
