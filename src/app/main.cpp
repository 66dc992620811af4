// sagemaker-emulator: command line -> ServerOptions, logging, Server, wait for SIGINT/SIGTERM.
#include <CLI/CLI.hpp>
#include <cctype>
#include <csignal>
#include <iostream>

#include "domain/time_format.hpp"
#include "http/allocator.hpp"
#include "log/log.hpp"
#include "smemu/server.hpp"
#include "smemu/version.hpp"

namespace {

// Every option can also come from the environment, as SAGEMAKER_EMULATOR_<NAME> (--db:
// SAGEMAKER_EMULATOR_DB, --admin-from: SAGEMAKER_EMULATOR_ADMIN_FROM), so that a container image
// sets defaults that arguments after the image name still override.
void ReadOptionsFromEnvironment(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string& name = option->get_single_name();
    if (option->get_lnames().empty() || name == "help" || name == "version") continue;
    std::string variable = "SAGEMAKER_EMULATOR_";
    for (const char c : name) {
      variable += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    option->envname(variable);
  }
}

int Run(int argc, char** argv) {
  smemu::http::KeepAnswerMemory();
  smemu::ServerOptions options;
  CLI::App app{"sagemaker-emulator: a local Amazon SageMaker capacity-reservation control plane",
               "sagemaker-emulator"};
  app.set_version_flag("--version", std::string("sagemaker-emulator ") + smemu::kVersion);
  app.add_option("--host", options.host, "Address to listen on")->capture_default_str();
  app.add_option("--admin-token", options.admin_token,
                 "Token the admin API (/_emulator/) then requires from every caller, in the "
                 "X-Emulator-Admin-Token header or as Authorization: Bearer");
  std::string admin_from = "loopback";
  app.add_option("--admin-from", admin_from,
                 "Without --admin-token, who may use the admin API: loopback (callers on this "
                 "machine), local (also this machine's own networks: in a container, the host "
                 "and the containers beside it) or any")
      ->capture_default_str()
      ->check(CLI::IsMember({"loopback", "local", "any"}));
  app.add_option("--port", options.port, "Port to listen on (0 picks a free port)")
      ->capture_default_str();
  app.add_option("--db", options.db_path, "SQLite state file (:memory: keeps nothing)")
      ->capture_default_str();
  app.add_option("--account-id", options.account_id,
                 "Account for callers whose access key id is not 12 digits")
      ->capture_default_str();
  app.add_option("--region", options.region, "Region for callers without a SigV4 scope")
      ->capture_default_str();
  app.add_option("--threads", options.threads, "Server threads (0: one per core)")
      ->capture_default_str();
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error, critical or off")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  std::string log_format = "text";
  app.add_option("--log-format", log_format, "text or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  std::string clock_start;
  app.add_option("--clock-start", clock_start,
                 "Start the virtual clock at this ISO 8601 time, e.g. 2027-01-25T00:00:00Z");
  app.add_flag("--frozen-clock", options.frozen_clock,
               "The virtual clock does not run; it moves only through the admin API");
  std::string capacity_path;
  app.add_option("--capacity", capacity_path,
                 "Capacity configuration (JSON, schemas/capacity.schema.json); default: built in")
      ->check(CLI::ExistingFile);
  std::string quotas_path;
  app.add_option("--quotas", quotas_path,
                 "Account service quotas to enforce (JSON, schemas/quotas.schema.json), e.g. "
                 "{\"preset\": \"new-account\"}; default: none")
      ->check(CLI::ExistingFile);
  std::string faults_path;
  app.add_option("--faults", faults_path,
                 "Fault rules to start with (JSON, schemas/faults.schema.json): errors, latency "
                 "and failed purchases on purpose; a reset keeps them")
      ->check(CLI::ExistingFile);
  std::string rate_limits;
  app.add_option("--rate-limits", rate_limits,
                 "Throttle requests at AWS's rates, per account, region and operation: aws (the "
                 "built-in table: AWS's published rates, the emulator's own elsewhere) or a JSON "
                 "file (schemas/rate-limits.schema.json); default: no throttling");
  std::string init_path;
  app.add_option("--init", init_path,
                 "Scenario to apply when the database holds no resources: a JSON list of API "
                 "calls (see examples/scenarios/), or a folder of them, applied in name order")
      ->check(CLI::ExistingPath);
  std::string credentials_path;
  app.add_option("--credentials", credentials_path,
                 "Strict authentication: JSON file of access keys "
                 "({\"credentials\": [{\"access_key_id\", \"secret_access_key\", "
                 "\"account_id\"?}]}); every AWS request must then carry a valid SigV4 signature "
                 "by one of them")
      ->check(CLI::ExistingFile);
  app.add_flag("--check-responses", options.check_responses,
               "Check every answer to an AWS request against the operation's output or error "
               "shapes in the model; one that departs from them becomes a 500 InternalFailure "
               "naming each violation (for test suites)");
  double provisioning_seconds = 0;
  app.add_option("--provisioning-seconds", provisioning_seconds,
                 "Virtual seconds an endpoint spends Creating, Updating or Deleting, and a "
                 "stopped job Stopping, before the next status")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  double plan_payment_seconds =
      std::chrono::duration<double>(smemu::kDefaultPlanPaymentDelay).count();
  app.add_option("--plan-payment-seconds", plan_payment_seconds,
                 "Virtual seconds a training plan or extension purchase stays Pending while its "
                 "payment is processed, before it is Scheduled (an offering must then start at "
                 "least 5 minutes after the payment completes); 0 pays at once")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--routing-seed", options.routing_seed,
                 "Seed of the traffic split between weighted production variants")
      ->capture_default_str();
  double container_timeout_seconds = 60;
  app.add_option("--container-timeout", container_timeout_seconds,
                 "Seconds a real model container (SAGEMAKER_EMULATOR_UPSTREAM) has to answer an "
                 "invocation")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  double read_timeout_seconds = 30;
  app.add_option("--read-timeout", read_timeout_seconds,
                 "Seconds to receive a request once its first byte has arrived")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  std::size_t max_connections = 0;
  app.add_option("--max-connections", max_connections,
                 "Open connections at most; at the limit a new connection closes the oldest idle "
                 "one, or is closed at once when none is idle (0: 10000, or fewer when the "
                 "descriptor limit, ulimit -n, is lower)")
      ->capture_default_str();
  ReadOptionsFromEnvironment(app);
  CLI11_PARSE(app, argc, argv);

  if (!clock_start.empty()) {
    options.clock_start = smemu::domain::ParseIso8601(clock_start);
    if (!options.clock_start) {
      std::cerr << "--clock-start: not an ISO 8601 time: " << clock_start << "\n";
      return 2;
    }
  }
  options.admin_from = admin_from == "any"     ? smemu::AdminPeers::kAnywhere
                       : admin_from == "local" ? smemu::AdminPeers::kLocalNetworks
                                               : smemu::AdminPeers::kLoopback;
  if (!capacity_path.empty()) options.capacity_path = capacity_path;
  if (!credentials_path.empty()) options.credentials_path = credentials_path;
  if (!init_path.empty()) options.init_path = init_path;
  if (!quotas_path.empty()) options.quotas_path = quotas_path;
  if (!faults_path.empty()) options.faults_path = faults_path;
  if (!rate_limits.empty()) options.rate_limits = rate_limits;
  options.provisioning_delay =
      std::chrono::milliseconds(static_cast<long long>(provisioning_seconds * 1000));
  options.plan_payment_delay =
      std::chrono::milliseconds(static_cast<long long>(plan_payment_seconds * 1000));
  options.read_timeout =
      std::chrono::milliseconds(static_cast<long long>(read_timeout_seconds * 1000));
  options.container_timeout =
      std::chrono::milliseconds(static_cast<long long>(container_timeout_seconds * 1000));
  options.max_connections = max_connections;
  smemu::log::Configure(
      log_format == "json" ? smemu::log::Format::kJson : smemu::log::Format::kText,
      spdlog::level::from_str(log_level));

  // Block the stop signals in every thread; this one waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  smemu::Server server(options);
  unsigned short port = 0;
  try {
    port = server.Start();
  } catch (const std::exception& e) {
    std::cerr << "sagemaker-emulator: cannot start: " << e.what() << "\n";
    return 1;
  }
  const std::string host =
      options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host;
  std::cout << "sagemaker-emulator listening on http://" << host << ":" << port << std::endl;
  smemu::log::Event(spdlog::level::info, "started",
                    {{"version", smemu::kVersion}, {"port", port}, {"db", options.db_path}});

  int received = 0;
  sigwait(&stop_signals, &received);
  smemu::log::Event(spdlog::level::info, "stopping", {{"signal", received}});
  server.Stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Run(argc, argv); }
