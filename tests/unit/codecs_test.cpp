// The codecs of every stored record (ops/record_codec.hpp and each kind's record file): every row
// of the stored-release fixture, of every kind in every status, decodes and encodes back to the
// same row byte for byte; and a row that cannot be read (not JSON, a member missing, a status this
// release does not know) is a StoreFailure naming the row, never a silent default.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>

#include "domain/resource_kinds.hpp"
#include "ops/cluster_records.hpp"
#include "ops/endpoint_config_record.hpp"
#include "ops/kinds.hpp"
#include "ops/lifecycle_records.hpp"
#include "ops/model_record.hpp"
#include "ops/plan_records.hpp"
#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kFixtureDb =
    fs::path(SMEMU_SOURCE_DIR) / "tests/fixtures/before-kind-registry/state.db";
// The release before the one write path: UltraServer and two-block plans, failed payments and
// extensions, failed nodes, every job and endpoint status.
const fs::path kLastReleaseDb =
    fs::path(SMEMU_SOURCE_DIR) / "tests/fixtures/before-one-state/state.db";

// Decodes a row and encodes the result again.
using RoundTrip = std::function<store::ResourceRow(const store::ResourceRow&)>;

const std::map<std::string, RoundTrip>& RoundTrips() {
  static const std::map<std::string, RoundTrip> trips = {
      {domain::kModelKind,
       [](const store::ResourceRow& row) { return ops::EncodeModel(ops::DecodeModel(row)); }},
      {domain::kEndpointConfigKind,
       [](const store::ResourceRow& row) {
         return ops::EncodeEndpointConfig(ops::DecodeEndpointConfig(row));
       }},
      {domain::kEndpointKind,
       [](const store::ResourceRow& row) {
         return ops::EncodeEndpoint(ops::EndpointFromRow(row));
       }},
      {domain::kPlanKind,
       [](const store::ResourceRow& row) {
         return ops::EncodePlan(row.key, ops::PlanFromRow(row), row.created, row.modified);
       }},
      {domain::kTrainingJobKind,
       [](const store::ResourceRow& row) { return ops::EncodeJob(ops::JobFromRow(row)); }},
      {domain::kProcessingJobKind,
       [](const store::ResourceRow& row) { return ops::EncodeJob(ops::JobFromRow(row)); }},
      {domain::kClusterKind,
       [](const store::ResourceRow& row) { return ops::EncodeCluster(ops::ClusterFromRow(row)); }},
  };
  return trips;
}

class Codecs : public ::testing::Test {
 protected:
  explicit Codecs(const fs::path& fixture = kFixtureDb) {
    fs::copy_file(fixture, copy_, fs::copy_options::overwrite_existing);
    store_ = std::make_unique<store::StateStore>(copy_.string());
  }
  ~Codecs() override {
    store_.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(copy_.string() + suffix);
  }

  const fs::path copy_ =
      fs::temp_directory_path() / ("codecs-" + std::to_string(::getpid()) + ".db");
  std::unique_ptr<store::StateStore> store_;
};

// The rows as they are kept, copied.
std::vector<store::ResourceRow> RowsOf(const std::vector<store::KeptRowPtr>& kept) {
  std::vector<store::ResourceRow> rows;
  for (const store::KeptRowPtr& row : kept) rows.push_back(row->row());
  return rows;
}

void ExpectEveryRowRoundTrips(const store::StateStore& store) {
  for (const ops::KindDescriptor* kind : ops::Kinds()) {
    const std::string wire = domain::WireName(kind->kind);
    ASSERT_TRUE(RoundTrips().count(wire)) << wire << " has no codec round trip";
    const std::vector<store::ResourceRow> rows = RowsOf(store.Rows().AllOfKind(wire));
    EXPECT_FALSE(rows.empty()) << "the fixture has no " << wire;
    for (const store::ResourceRow& row : rows) {
      EXPECT_EQ(RoundTrips().at(wire)(row), row) << wire << " " << row.arn;
    }
  }
}

TEST_F(Codecs, EveryStoredRowOfEveryKindRoundTripsByteForByte) {
  ExpectEveryRowRoundTrips(*store_);
}

class CodecsOfTheLastRelease : public Codecs {
 protected:
  CodecsOfTheLastRelease() : Codecs(kLastReleaseDb) {}
};

TEST_F(CodecsOfTheLastRelease, EveryStoredRowOfEveryKindRoundTripsByteForByte) {
  ExpectEveryRowRoundTrips(*store_);
}

// The same row with one thing broken.
store::ResourceRow Broken(store::ResourceRow row,
                          const std::function<void(store::ResourceRow&)>& break_it) {
  break_it(row);
  return row;
}

void ExpectStoreFailure(const RoundTrip& trip, const store::ResourceRow& row,
                        const std::string& why) {
  try {
    trip(row);
    ADD_FAILURE() << row.arn << " was read: " << why;
  } catch (const store::StoreFailure& e) {
    EXPECT_THAT(e.what(), HasSubstr(row.arn)) << why;
    EXPECT_THAT(e.what(), HasSubstr(row.key.kind)) << why;
  }
}

TEST_F(Codecs, ARowThatCannotBeReadIsAStoreFailureNamingIt) {
  for (const auto& [wire, trip] : RoundTrips()) {
    const std::vector<store::ResourceRow> rows = RowsOf(store_->Rows().AllOfKind(wire));
    ASSERT_FALSE(rows.empty()) << wire;
    const store::ResourceRow& row = rows.front();
    ExpectStoreFailure(trip, Broken(row, [](auto& r) { r.doc = "{not json"; }), "not JSON");
    ExpectStoreFailure(trip, Broken(row, [](auto& r) { r.doc = "[]"; }), "not an object");
    if (!row.status.empty() && wire != domain::kPlanKind) {
      ExpectStoreFailure(trip, Broken(row, [](auto& r) { r.status = "Exploded"; }),
                         "an unknown status");
    }
  }
}

TEST_F(Codecs, UnknownValuesInsideADocumentAreStoreFailuresToo) {
  auto first = [this](const char* kind, const std::string& status) {
    for (const store::ResourceRow& row : RowsOf(store_->Rows().AllOfKind(kind))) {
      if (row.status == status) return row;
    }
    ADD_FAILURE() << "no " << kind << " is " << status;
    return store::ResourceRow{};
  };
  const store::ResourceRow job = first(domain::kTrainingJobKind, "InProgress");
  ExpectStoreFailure(RoundTrips().at(domain::kTrainingJobKind),
                     Broken(job,
                            [](auto& r) {
                              auto doc = nlohmann::json::parse(r.doc);
                              doc["Phase"] = "Sleeping";
                              r.doc = doc.dump();
                            }),
                     "an unknown phase");
  for (const char* member : {"Phase", "PendingAccruedMs"}) {  // migration 10 fills them
    ExpectStoreFailure(RoundTrips().at(domain::kTrainingJobKind),
                       Broken(job,
                              [member](auto& r) {
                                auto doc = nlohmann::json::parse(r.doc);
                                doc.erase(member);
                                r.doc = doc.dump();
                              }),
                       std::string("no ") + member);
  }
  const store::ResourceRow cluster = first(domain::kClusterKind, "InService");
  ExpectStoreFailure(RoundTrips().at(domain::kClusterKind),
                     Broken(cluster,
                            [](auto& r) {
                              auto doc = nlohmann::json::parse(r.doc);
                              doc["Groups"][0]["Nodes"][0]["Status"] = "Levitating";
                              r.doc = doc.dump();
                            }),
                     "an unknown node status");
  const store::ResourceRow endpoint = first(domain::kEndpointKind, "InService");
  ExpectStoreFailure(RoundTrips().at(domain::kEndpointKind),
                     Broken(endpoint,
                            [](auto& r) {
                              auto doc = nlohmann::json::parse(r.doc);
                              doc.erase("Variants");
                              r.doc = doc.dump();
                            }),
                     "a member missing");
  // Members every release has written are read strictly: one missing is a StoreFailure, not a
  // default (absent members that mean "none", like a node's Failed, stay optional).
  const auto without = [](const std::string& pointer) {
    return [pointer](auto& r) {
      auto doc = nlohmann::json::parse(r.doc);
      const nlohmann::json::json_pointer at(pointer);
      doc[at.parent_pointer()].erase(at.back());
      r.doc = doc.dump();
    };
  };
  for (const char* pointer :
       {"/EndpointConfigName", "/Variants/0/InstanceType", "/Variants/0/CurrentInstanceCount",
        "/Variants/0/DesiredInstanceCount", "/Variants/0/Weight"}) {
    ExpectStoreFailure(RoundTrips().at(domain::kEndpointKind), Broken(endpoint, without(pointer)),
                       std::string("no ") + pointer);
  }
  for (const char* pointer : {"/Settings", "/NodesLaunched", "/Groups/0/Status", "/Groups/0/Nodes",
                              "/Groups/0/Nodes/0/Status"}) {
    ExpectStoreFailure(RoundTrips().at(domain::kClusterKind), Broken(cluster, without(pointer)),
                       std::string("no ") + pointer);
  }
}

// Plans are read member by member (ops/record_reader.hpp): each accessor checks the type it reads,
// so a member of the wrong type, a missing one or a block list that is not a list fails.
TEST_F(Codecs, APlanDocumentWithAMemberOfTheWrongTypeIsAStoreFailure) {
  const std::vector<store::ResourceRow> plans = RowsOf(store_->Rows().AllOfKind(domain::kPlanKind));
  ASSERT_FALSE(plans.empty());
  const RoundTrip& trip = RoundTrips().at(domain::kPlanKind);
  const auto with = [&](const std::function<void(nlohmann::json&)>& change) {
    return Broken(plans.front(), [&](auto& r) {
      auto doc = nlohmann::json::parse(r.doc);
      change(doc);
      r.doc = doc.dump();
    });
  };
  ExpectStoreFailure(trip, with([](auto& doc) { doc["InstanceCount"] = "four"; }),
                     "a count that is text");
  ExpectStoreFailure(trip, with([](auto& doc) { doc["InstanceCount"] = 4.5; }),
                     "a count that is not an integer");
  ExpectStoreFailure(trip, with([](auto& doc) { doc.erase("InstanceType"); }),
                     "an instance type missing");
  ExpectStoreFailure(trip, with([](auto& doc) { doc["TargetResources"] = "training-job"; }),
                     "target resources that are not a list");
  ExpectStoreFailure(trip, with([](auto& doc) { doc["TargetResources"] = {1}; }),
                     "a target resource that is not text");
  ExpectStoreFailure(trip, with([](auto& doc) {
                       doc["Blocks"] = {{"StartMs", 1}};
                     }),
                     "blocks that are not a list of objects");
  ExpectStoreFailure(trip, with([](auto& doc) {
                       doc["Extensions"] = {{{"OfferingId", 7}}};
                     }),
                     "an extension whose offering is a number");
  // And the unchanged document still reads.
  EXPECT_EQ(trip(with([](auto&) {})), plans.front());
}

// Through the whole stack: a corrupt row answers 500 InternalFailure, and the rows beside it are
// still served.
class CorruptRow : public testing::EmulatorFixture {};

TEST_F(CorruptRow, AnswersInternalFailureAndLeavesTheOthersServed) {
  Call("CreateModel", {{"ModelName", "good"}});
  Call("CreateModel", {{"ModelName", "bad"}});
  auto row = store_.Rows().Get({"123456789012", "us-west-2", domain::kModelKind, "bad"});
  ASSERT_TRUE(row);
  row->doc = "{not json";
  {
    store::StateStore::WriteScope writes(store_);
    ASSERT_TRUE(store_.Update(*row));
    writes.Commit();
  }
  Open();  // as a server started on a database holding that row
  const testing::json refused = Call("DescribeModel", {{"ModelName", "bad"}}, 500);
  EXPECT_EQ(refused["__type"], "InternalFailure");
  Call("DescribeModel", {{"ModelName", "good"}});
}

}  // namespace
}  // namespace smemu
