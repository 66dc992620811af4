// The emulator's own admin API under /_emulator/: who may call it, its table of routes, and the
// routes other than the dashboard's (admin_dashboard.cpp): health, the virtual clock, capacity,
// metrics, reset, quotas, fault rules and costs.
#include <openssl/crypto.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "domain/aws_names.hpp"
#include "domain/time_format.hpp"
#include "ops/fault_document.hpp"
#include "ops/quota_document.hpp"
#include "protocol/admin_internal.hpp"
#include "protocol/cost_report.hpp"
#include "protocol/percent_encoding.hpp"
#include "smemu/version.hpp"

namespace smemu::protocol {
namespace {

using nlohmann::json;

domain::AwsError BadClockRequest(const std::string& message) {
  return domain::ValidationException(message);
}

// Reads {"now": ISO 8601 | epoch seconds, "advance_seconds": N >= 0, "frozen": bool}.
domain::Result<ops::ClockChange> ReadClockChange(const json& body) {
  ops::ClockChange change;
  for (const auto& [key, value] : body.items()) {
    if (key == "now") {
      if (value.is_string()) {
        change.set_to = domain::ParseIso8601(value.get<std::string>());
        if (!change.set_to) {
          return BadClockRequest("'now' must be an ISO 8601 time such as 2026-01-31T08:00:00Z.");
        }
      } else if (value.is_number()) {
        change.set_to = domain::FromEpochSeconds(value.get<double>());
      } else {
        return BadClockRequest("'now' must be an ISO 8601 string or epoch seconds.");
      }
    } else if (key == "advance_seconds") {
      if (!value.is_number() || value.get<double>() < 0 || value.get<double>() > 1e11) {
        return BadClockRequest("'advance_seconds' must be a number of seconds >= 0.");
      }
      change.advance_by = Millis{static_cast<long long>(std::llround(value.get<double>() * 1000))};
    } else if (key == "frozen") {
      if (!value.is_boolean()) return BadClockRequest("'frozen' must be true or false.");
      change.frozen = value.get<bool>();
    } else {
      return BadClockRequest("Unknown member '" + key +
                             "'; expected now, advance_seconds or frozen.");
    }
  }
  return change;
}

json PoolJson(const ops::PoolView& pool) {
  json reservations = json::array();
  for (const auto& r : pool.reservations) {
    reservations.push_back({{"training_plan_arn", r.training_plan_arn},
                            {"start", domain::FormatIso8601(r.window.start)},
                            {"end", domain::FormatIso8601(r.window.end)},
                            {"count", r.count}});
  }
  json free = json::array();
  for (const auto& [from, count] : pool.free_from_now) {
    free.push_back({{"from", domain::FormatIso8601(from)}, {"free", count}});
  }
  return {{"region", pool.key.region},
          {"availability_zone", pool.key.availability_zone},
          {"instance_type", pool.key.instance_type},
          {"reservable", pool.reservable},
          {"on_demand", pool.on_demand},
          {"reservations", std::move(reservations)},
          {"free_reservable", std::move(free)}};
}

// Reads {"region", "availability_zone", "instance_type", "reservable"?, "on_demand"?}.
domain::Result<ops::PoolChange> ReadPoolChange(const json& body) {
  ops::PoolChange change;
  for (const char* field : {"region", "availability_zone", "instance_type"}) {
    if (!body.contains(field) || !body[field].is_string() ||
        body[field].get<std::string>().empty()) {
      return domain::ValidationException(std::string("'") + field + "' is required (a string).");
    }
  }
  change.key = {body["region"], body["availability_zone"], body["instance_type"]};
  for (const auto& [key, value] : body.items()) {
    if (key == "reservable" || key == "on_demand") {
      if (!value.is_number_integer() || value.get<long long>() < 0 ||
          value.get<long long>() > 100000) {
        return domain::ValidationException("'" + domain::Excerpt(key) +
                                           "' must be an integer from 0 to 100000.");
      }
      (key == "reservable" ? change.reservable : change.on_demand) = value.get<int>();
    } else if (key != "region" && key != "availability_zone" && key != "instance_type") {
      return domain::ValidationException("Unknown member '" + domain::Excerpt(key) + "'.");
    }
  }
  if (!change.reservable && !change.on_demand) {
    return domain::ValidationException("Give 'reservable', 'on_demand' or both.");
  }
  return change;
}

}  // namespace

json ClockJson(const VirtualClock::State& state) {
  return {{"now", domain::FormatIso8601(state.now)},
          {"epoch", domain::ToEpochSeconds(state.now)},
          {"frozen", state.frozen}};
}

std::string QueryParameter(const std::string& target, const std::string& name) {
  const auto question = target.find('?');
  if (question == std::string::npos) return "";
  std::string_view query(target);
  query.remove_prefix(question + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const auto equals = pair.find('=');
    if (pair.substr(0, equals) == name) {
      return equals == std::string_view::npos ? "" : std::string(pair.substr(equals + 1));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return "";
}

json QuotasJson(const std::vector<ops::AdminViews::QuotaLine>& lines) {
  json quotas = json::array();
  for (const ops::AdminViews::QuotaLine& line : lines) {
    json entry = {{"name", line.name}, {"value", line.limit}, {"used", line.used}};
    if (!line.set_for_account.empty()) entry["set_for_account"] = line.set_for_account;
    if (!line.set_for_region.empty()) entry["set_for_region"] = line.set_for_region;
    quotas.push_back(std::move(entry));
  }
  return quotas;
}

json FaultsJson(const std::vector<ops::FaultRuleView>& views) {
  json rules = json::array();
  for (const ops::FaultRuleView& view : views) {
    json rule = ops::FaultRuleJson(view.rule);
    rule["source"] = view.source == ops::FaultSource::kFile ? "file" : "api";
    rule["matched"] = view.matched;
    rule["fired"] = view.fired;
    rules.push_back(std::move(rule));
  }
  return rules;
}

Router::AdminAccess Router::AccessOf(const HttpRequest& request, bool token_in_query) const {
  if (config_.admin_token.empty()) {
    if (!PeerMayAdminister(request.peer)) return AdminAccess::kDenied;
    // Without a token, an operator that --admin-from lets in (curl, the dashboard) sees
    // everything, as it may reset everything; a caller that signs as an AWS account sees only
    // that account.
    return request.Header("Authorization") == nullptr ? AdminAccess::kFull
                                                      : AdminAccess::kOwnAccount;
  }
  std::string presented;
  if (const std::string* header = request.Header("X-Emulator-Admin-Token")) {
    presented = *header;
  } else if (const std::string* authorization = request.Header("Authorization");
             authorization != nullptr && authorization->rfind("Bearer ", 0) == 0) {
    presented = authorization->substr(7);
  } else if (token_in_query) {
    presented = FormDecode(QueryParameter(request.target, "token"));
  }
  const std::string& expected = config_.admin_token;
  const bool match = presented.size() == expected.size() &&
                     CRYPTO_memcmp(presented.data(), expected.data(), expected.size()) == 0;
  return match ? AdminAccess::kFull : AdminAccess::kDenied;
}

bool Router::PeerMayAdminister(const std::string& peer) const {
  if (peer.empty() || config_.admin_peers == AdminPeers::kAnywhere) return true;
  const PeerScope scope = config_.peer_scope ? config_.peer_scope(peer) : PeerScope::kElsewhere;
  switch (config_.admin_peers) {
    case AdminPeers::kLoopback:
      return scope == PeerScope::kLoopback;
    case AdminPeers::kLocalNetworks:
      return scope != PeerScope::kElsewhere;
    case AdminPeers::kAnywhere:
      break;
  }
  return true;
}

std::string Router::AdminRefusal(const HttpRequest& request) const {
  if (!config_.admin_token.empty()) {
    return "The admin API requires the token given with --admin-token, in the "
           "X-Emulator-Admin-Token header or as Authorization: Bearer <token>.";
  }
  const bool loopback_only = config_.admin_peers == AdminPeers::kLoopback;
  return "The admin API answers callers on " +
         std::string(loopback_only
                         ? "loopback (--admin-from loopback)"
                         : "loopback and this machine's own networks (--admin-from local)") +
         " only, and this request came from " + request.peer + ". Start the server with " +
         (loopback_only ? "--admin-from local or --admin-from any" : "--admin-from any") +
         ", or give it an --admin-token.";
}

// One admin resource: its path, who may call it, and what answers each method.
struct Router::AdminRoute {
  std::string_view path;
  bool open;            // anyone may call it (health): no token, whatever the bind address
  bool token_in_query;  // the token may come as ?token= (the page a browser opens)
  HttpResponse (Router::*get)(const AdminCall&) const;  // nullptr: GET is not answered
  HttpResponse (Router::*post)(const AdminCall&) const;
  HttpResponse (Router::*del)(const AdminCall&) const = nullptr;  // nullptr: DELETE is not answered
};

const Router::AdminRoute* Router::FindAdminRoute(std::string_view path) {
  static const AdminRoute kRoutes[] = {
      {"/_emulator/health", true, false, &Router::AdminHealth, nullptr},
      {"/_emulator/clock", false, false, &Router::AdminClock, &Router::AdminChangeClock},
      {"/_emulator/capacity", false, false, &Router::AdminCapacity, &Router::AdminChangeCapacity},
      {"/_emulator/metrics", false, false, &Router::AdminMetrics, nullptr},
      {"/_emulator/ui", false, true, &Router::AdminPage, nullptr},
      {"/_emulator/state", false, false, &Router::AdminState, nullptr},
      {"/_emulator/reset", false, false, nullptr, &Router::AdminReset},
      {"/_emulator/quotas", false, false, &Router::AdminQuotas, &Router::AdminChangeQuotas},
      {"/_emulator/costs", false, true, &Router::AdminCosts, nullptr},
      {"/_emulator/report", false, true, &Router::AdminReport, nullptr},
      {"/_emulator/faults", false, false, &Router::AdminFaults, &Router::AdminAddFaults,
       &Router::AdminRemoveFaults},
  };
  for (const AdminRoute& route : kRoutes) {
    if (route.path == path) return &route;
  }
  return nullptr;
}

HttpResponse Router::HandleAdmin(const HttpRequest& request, Outcome& outcome) const {
  outcome.protocol = WireProtocol::kAdmin;
  const std::string_view path = request.Path();
  outcome.operation = std::string(path);
  const AdminRoute* route = FindAdminRoute(path);
  // Access is settled before the path: without the token, nothing reveals which paths exist.
  const AdminAccess access = route != nullptr && route->open
                                 ? AdminAccess::kFull
                                 : AccessOf(request, route != nullptr && route->token_in_query);
  const AdminCall call{request, outcome, access};
  if (access == AdminAccess::kDenied) {
    return call.Fail(domain::AccessDeniedException(AdminRefusal(request)));
  }
  if (route == nullptr) {
    return call.Fail({domain::ErrorCode::kNotFoundException,
                      "No admin resource at " + domain::Excerpt(path) + ".", 404});
  }
  const auto handler = request.method == "GET"      ? route->get
                       : request.method == "POST"   ? route->post
                       : request.method == "DELETE" ? route->del
                                                    : nullptr;
  if (handler != nullptr) return (this->*handler)(call);
  std::string allowed;
  for (auto [method, given] : {std::pair{"GET", route->get != nullptr},
                               {"POST", route->post != nullptr},
                               {"DELETE", route->del != nullptr}}) {
    if (given) allowed += (allowed.empty() ? "" : ", ") + std::string(method);
  }
  HttpResponse response = call.Fail(
      domain::MethodNotAllowedException(domain::Excerpt(path) + " accepts " + allowed + ", not " +
                                        domain::Excerpt(request.method) + "."));
  response.headers.emplace_back("Allow", allowed);
  return response;
}

HttpResponse Router::AdminHealth(const AdminCall& call) const {
  return call.Reply({{"status", "ok"}, {"version", kVersion}});
}

HttpResponse Router::AdminClock(const AdminCall& call) const {
  return call.Reply(ClockJson(emulator_.GetClock()));
}

HttpResponse Router::AdminChangeClock(const AdminCall& call) const {
  auto body = ParseJsonObject(call.request.body, config_.max_json_depth);
  if (!body) return call.Fail(body.error());
  auto change = ReadClockChange(*body);
  if (!change) return call.Fail(change.error());
  auto state = emulator_.ChangeClock(*change);
  if (!state) return call.Fail(state.error());
  return call.Reply(ClockJson(*state));
}

HttpResponse Router::AdminCapacity(const AdminCall& call) const {
  // Without the token a caller sees its own account's plans and holders only.
  const auto view = admin_views_.Capacity(QueryParameter(call.request.target, "region"),
                                          QueryParameter(call.request.target, "instance_type"),
                                          call.AccountFilter(*this));
  json pools = json::array();
  for (const ops::PoolView& pool : view.pools) pools.push_back(PoolJson(pool));
  json in_use = json::array();
  for (const ops::HeldInstances& holder : view.in_use) {
    json entry = {{"arn", holder.arn},
                  {"kind", holder.kind},
                  {"region", holder.region},
                  {"instance_type", holder.instance_type},
                  {"count", holder.count}};
    if (holder.training_plan_arn.empty()) {
      entry["on_demand"] = true;
    } else {
      entry["training_plan_arn"] = holder.training_plan_arn;
    }
    in_use.push_back(std::move(entry));
  }
  return call.Reply({{"now", domain::FormatIso8601(view.now)},
                     {"pools", std::move(pools)},
                     {"in_use", std::move(in_use)}});
}

HttpResponse Router::AdminChangeCapacity(const AdminCall& call) const {
  auto body = ParseJsonObject(call.request.body, config_.max_json_depth);
  if (!body) return call.Fail(body.error());
  auto change = ReadPoolChange(*body);
  if (!change) return call.Fail(change.error());
  auto pool = admin_views_.ChangeCapacity(*change);
  if (!pool) return call.Fail(pool.error());
  return call.Reply(PoolJson(*pool));
}

HttpResponse Router::AdminMetrics(const AdminCall& call) const {
  if (call.access == AdminAccess::kOwnAccount) {
    return call.Fail(domain::AccessDeniedException(
        "The metrics cover every account: ask without AWS credentials, or with the "
        "admin token."));
  }
  HttpResponse response;
  response.headers = {{"Content-Type", "text/plain; version=0.0.4; charset=utf-8"},
                      {"x-amzn-RequestId", call.outcome.request_id}};
  response.body =
      metrics_->Render(admin_views_.TakeCensus({config_.default_account, config_.default_region}));
  return response;
}

HttpResponse Router::AdminReset(const AdminCall& call) const {
  emulator_.Reset();
  return call.Reply({{"status", "reset"}, {"clock", ClockJson(emulator_.GetClock())}});
}

// GET /_emulator/quotas[?account=&region=]: the quotas in force for one account and region (the
// caller's by default), each with its limit and what is used now.
HttpResponse Router::AdminQuotas(const AdminCall& call) const {
  const ops::Caller caller = CallerOf(call.request, call.outcome.request_id);
  std::string account = FormDecode(QueryParameter(call.request.target, "account"));
  std::string region = FormDecode(QueryParameter(call.request.target, "region"));
  if (account.empty() || call.access == AdminAccess::kOwnAccount) account = caller.account;
  if (region.empty()) region = caller.region;
  if (!domain::IsAccountId(account) || !domain::IsRegionName(region)) {
    return call.Fail(domain::ValidationException(
        "account must be a 12-digit account id and region a region name."));
  }
  return call.Reply({{"account", account},
                     {"region", region},
                     {"quotas", QuotasJson(admin_views_.Quotas(account, region))}});
}

// POST /_emulator/quotas: a quota document (ops/quota_document.hpp). Answers with every setting.
HttpResponse Router::AdminChangeQuotas(const AdminCall& call) const {
  auto body = ParseJsonObject(call.request.body, config_.max_json_depth);
  if (!body) return call.Fail(body.error());
  auto change = ops::ReadQuotaDocument(*body);
  if (!change) return call.Fail(change.error());
  return call.Reply({{"quotas", ops::QuotaSettingsJson(emulator_.ChangeQuotas(*change))}});
}

// GET /_emulator/faults: the fault rules in force, in the order they are tried, each with where it
// came from and how often it matched and fired.
HttpResponse Router::AdminFaults(const AdminCall& call) const {
  return call.Reply({{"rules", FaultsJson(emulator_.faults().List())}});
}

// POST /_emulator/faults: adds one rule, or {"rules": [...]}, after those in force; all or none.
HttpResponse Router::AdminAddFaults(const AdminCall& call) const {
  auto body = ParseJsonObject(call.request.body, config_.max_json_depth);
  if (!body) return call.Fail(body.error());
  auto added = AddFaultRules(*body, ops::FaultSource::kRunTime);
  if (!added) return call.Fail(added.error());
  json rules = json::array();
  for (const domain::FaultRule& rule : *added) rules.push_back(ops::FaultRuleJson(rule));
  return call.Reply({{"rules", std::move(rules)}});
}

// DELETE /_emulator/faults?id=ID removes one rule; without an id, every rule (the file's too).
HttpResponse Router::AdminRemoveFaults(const AdminCall& call) const {
  const std::string id = FormDecode(QueryParameter(call.request.target, "id"));
  emulator_.FaultRulesChanged();
  if (id.empty()) return call.Reply({{"removed", emulator_.faults().Clear()}});
  if (!emulator_.faults().Remove(id)) {
    return call.Fail({domain::ErrorCode::kNotFoundException,
                      "No fault rule has the id '" + domain::Excerpt(id) + "'.", 404});
  }
  return call.Reply({{"removed", 1}});
}

// GET /_emulator/costs[?from=&to=&account=&format=csv]: the cost ledger for a span of virtual
// time, as JSON or (format=csv, or Accept: text/csv) CSV.
HttpResponse Router::AdminCosts(const AdminCall& call) const {
  const std::string& target = call.request.target;
  ops::CostQuery query;
  for (const auto& [name, bound] : {std::pair{"from", &query.from}, std::pair{"to", &query.to}}) {
    std::string text = FormDecode(QueryParameter(target, name));
    if (text.empty()) continue;
    // An offset's "+" written unencoded arrives as a space (form encoding).
    std::replace(text.begin(), text.end(), ' ', '+');
    *bound = domain::ParseIso8601(text);
    if (!*bound) {
      return call.Fail(domain::ValidationException(
          std::string(name) + " must be an ISO 8601 time such as 2027-01-15T00:00:00Z."));
    }
  }
  query.account = call.AccountFilter(*this);
  if (const std::string account = FormDecode(QueryParameter(target, "account"));
      !account.empty() && !query.account) {
    if (!domain::IsAccountId(account)) {
      return call.Fail(domain::ValidationException("account must be a 12-digit account id."));
    }
    query.account = account;
  }
  const std::string format = FormDecode(QueryParameter(target, "format"));
  const std::string* accept = call.request.Header("Accept");
  const bool csv = format == "csv" || (format.empty() && accept != nullptr &&
                                       accept->find("text/csv") != std::string::npos);
  if (!format.empty() && format != "csv" && format != "json") {
    return call.Fail(domain::ValidationException("format must be json or csv."));
  }
  auto ledger = admin_views_.Costs(query);
  if (!ledger) return call.Fail(ledger.error());
  if (!csv) return call.ReplyText(CostsText(*ledger, query.account));
  HttpResponse response;
  response.headers = {
      {"Content-Type", "text/csv; charset=utf-8"},
      {"Content-Disposition", "attachment; filename=\"sagemaker-emulator-costs.csv\""},
      {"x-amzn-RequestId", call.outcome.request_id}};
  response.body = CostsCsv(*ledger);
  return response;
}

}  // namespace smemu::protocol
