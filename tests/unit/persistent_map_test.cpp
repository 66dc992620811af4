#include "store/persistent_map.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <compare>
#include <cstddef>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace smemu::store {
namespace {

using StringMap = PersistentMap<std::string, std::string>;
using IntMap = PersistentMap<int, int>;
using Pairs = std::vector<std::pair<std::string, std::string>>;

Pairs Ascending(const StringMap& map) {
  Pairs out;
  map.ForEach([&](const std::string& key, const std::string& value) {
    out.emplace_back(key, value);
    return true;
  });
  return out;
}

Pairs Descending(const StringMap& map) {
  Pairs out;
  map.ForEachDescending([&](const std::string& key, const std::string& value) {
    out.emplace_back(key, value);
    return true;
  });
  return out;
}

Pairs Contents(const std::map<std::string, std::string>& model) {
  return Pairs(model.begin(), model.end());
}

// The tallest a B+tree of n entries with nodes of up to `node_size` slots can be when every node
// but the root is at least half full: the largest h whose sparsest tree fits in n. That tree has
// a root of 2 children and node_size / 2 slots in every other node, so 2 (node_size / 2)^(h - 1)
// entries for h >= 2. Exact, so it catches a small map that is off by one level.
std::size_t MaxHeight(std::size_t n, std::size_t node_size) {
  if (n == 0) return 0;
  std::size_t height = 1;
  for (std::size_t fewest = node_size; fewest <= n; fewest *= node_size / 2) ++height;
  return height;
}

// The shortest it can be: the smallest h with node_size^h >= n.
std::size_t MinHeight(std::size_t n, std::size_t node_size) {
  if (n == 0) return 0;
  std::size_t height = 1;
  for (std::size_t most = node_size; most < n; most *= node_size) ++height;
  return height;
}

std::vector<int> AscendKeys(const IntMap& map, int from, bool inclusive) {
  std::vector<int> keys;
  map.Ascend(from, inclusive, [&](int key, int) {
    keys.push_back(key);
    return true;
  });
  return keys;
}

std::vector<int> DescendKeys(const IntMap& map, int from, bool inclusive) {
  std::vector<int> keys;
  map.Descend(from, inclusive, [&](int key, int) {
    keys.push_back(key);
    return true;
  });
  return keys;
}

TEST(PersistentMap, MatchesStdMapOverRandomSetsAndErases) {
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<int> key_number(0, 2999);
  std::uniform_int_distribution<int> action(0, 9);
  StringMap map;
  std::map<std::string, std::string> model;
  for (int op = 1; op <= 20000; ++op) {
    const std::string key = "k" + std::to_string(key_number(rng));
    if (action(rng) < 6) {
      const std::string value = "v" + std::to_string(op);
      const bool was_new = model.find(key) == model.end();
      model[key] = value;
      ASSERT_EQ(map.Set(key, value), was_new) << "op " << op;
    } else {
      const bool was_there = model.erase(key) == 1;
      ASSERT_EQ(map.Erase(key), was_there) << "op " << op;
    }
    ASSERT_EQ(map.size(), model.size()) << "op " << op;
    const std::string probe = "k" + std::to_string(key_number(rng));
    const auto it = model.find(probe);
    const std::string* found = map.Find(probe);
    if (it == model.end()) {
      ASSERT_EQ(found, nullptr) << probe;
    } else {
      ASSERT_NE(found, nullptr) << probe;
      ASSERT_EQ(*found, it->second);
    }
    if (op % 500 == 0) {
      ASSERT_EQ(Ascending(map), Contents(model)) << "op " << op;
      Pairs reversed = Contents(model);
      std::reverse(reversed.begin(), reversed.end());
      ASSERT_EQ(Descending(map), reversed) << "op " << op;
      ASSERT_LE(map.Height(), MaxHeight(map.size(), StringMap::kNodeSize)) << "op " << op;
      ASSERT_GE(map.Height(), MinHeight(map.size(), StringMap::kNodeSize)) << "op " << op;
      // A bounded range read from a random bound, both ways, as a listing page would.
      const std::string from = "k" + std::to_string(key_number(rng));
      std::vector<std::string> ascended;
      map.Ascend(from, false, [&](const std::string& k, const std::string&) {
        ascended.push_back(k);
        return ascended.size() < 20;
      });
      std::vector<std::string> expected_ascended;
      for (auto i = model.upper_bound(from); i != model.end() && expected_ascended.size() < 20;
           ++i) {
        expected_ascended.push_back(i->first);
      }
      ASSERT_EQ(ascended, expected_ascended) << "from " << from;
      std::vector<std::string> descended;
      map.Descend(from, true, [&](const std::string& k, const std::string&) {
        descended.push_back(k);
        return descended.size() < 20;
      });
      std::vector<std::string> expected_descended;
      for (auto i = std::make_reverse_iterator(model.upper_bound(from));
           i != model.rend() && expected_descended.size() < 20; ++i) {
        expected_descended.push_back(i->first);
      }
      ASSERT_EQ(descended, expected_descended) << "from " << from;
    }
  }
  EXPECT_GT(model.size(), 1000u);  // the pool is large enough for the tree to have depth
}

TEST(PersistentMap, AnOldCopySeesWhatItSawBeforeAChange) {
  StringMap map;
  const StringMap empty = map;
  map.Set("a", "1");
  map.Set("b", "2");
  map.Set("c", "3");
  const StringMap abc = map;
  EXPECT_TRUE(map.Set("d", "4"));
  const StringMap abcd = map;
  EXPECT_FALSE(map.Set("b", "20"));
  const StringMap replaced_b = map;
  EXPECT_TRUE(map.Erase("a"));
  EXPECT_FALSE(map.Erase("zz"));
  const StringMap erased_a = map;
  map.Clear();

  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.Find("b"), nullptr);
  EXPECT_EQ(Ascending(map), Pairs{});
  EXPECT_EQ(Ascending(empty), Pairs{});
  EXPECT_EQ(Ascending(abc), (Pairs{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  EXPECT_EQ(Ascending(abcd), (Pairs{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}}));
  EXPECT_EQ(Ascending(replaced_b), (Pairs{{"a", "1"}, {"b", "20"}, {"c", "3"}, {"d", "4"}}));
  EXPECT_EQ(Ascending(erased_a), (Pairs{{"b", "20"}, {"c", "3"}, {"d", "4"}}));
  EXPECT_EQ(abc.size(), 3u);
  EXPECT_EQ(abcd.size(), 4u);
  EXPECT_EQ(replaced_b.size(), 4u);
  EXPECT_EQ(erased_a.size(), 3u);
  EXPECT_EQ(*abcd.Find("b"), "2");
  EXPECT_EQ(*replaced_b.Find("b"), "20");
  EXPECT_EQ(abc.Find("d"), nullptr);
  ASSERT_NE(abcd.Find("a"), nullptr);
  EXPECT_EQ(*abcd.Find("a"), "1");
  EXPECT_EQ(erased_a.Find("a"), nullptr);
}

TEST(PersistentMap, AChangeSharesTheEntriesItDoesNotTouch) {
  StringMap map;
  for (int i = 0; i < 1000; ++i) map.Set("key" + std::to_string(i), "value" + std::to_string(i));
  const StringMap before = map;
  map.Set("key500", "changed");
  map.Erase("key10");
  map.Set("new", "entry");
  // The same address in both versions: a leaf off the changed paths was shared, not copied (the
  // keys order as strings, so key250 and key750 are far from key500, key10 and new).
  EXPECT_EQ(map.Find("key250"), before.Find("key250"));
  EXPECT_EQ(map.Find("key750"), before.Find("key750"));
  EXPECT_NE(map.Find("key500"), before.Find("key500"));
  EXPECT_EQ(*before.Find("key500"), "value500");
}

struct CopyCounted {
  static inline int copies = 0;
  CopyCounted() = default;
  CopyCounted(const CopyCounted&) { ++copies; }
  CopyCounted(CopyCounted&&) noexcept = default;
  CopyCounted& operator=(const CopyCounted&) {
    ++copies;
    return *this;
  }
  CopyCounted& operator=(CopyCounted&&) noexcept = default;
};

// Leaves hold their entries in place: a change copies those of the leaves it rebuilds (one, or
// two when it splits a leaf or joins it with a neighbour), never more, whatever the map's size.
TEST(PersistentMap, AChangeCopiesOnlyTheEntriesOfTheLeavesOnItsPath) {
  using Map = PersistentMap<int, CopyCounted>;
  Map map;
  int most = 0;
  auto counted = [&most](auto change) {
    CopyCounted::copies = 0;
    change();
    most = std::max(most, CopyCounted::copies);
  };
  for (int i = 0; i < 20000; ++i) counted([&] { map.Set(i, CopyCounted{}); });
  const auto snapshot = map;
  for (int i = 0; i < 20000; i += 2) counted([&] { map.Erase(i); });
  for (int i = 0; i < 1000; ++i) counted([&] { map.Set(i, CopyCounted{}); });
  EXPECT_LE(most, static_cast<int>(2 * Map::kNodeSize));
  EXPECT_GT(most, 0) << "the count would not see a copy";
  EXPECT_EQ(snapshot.size(), 20000u);
  EXPECT_EQ(map.size(), 10500u);
}

TEST(PersistentMap, AscendAndDescendHonourTheirBounds) {
  IntMap map;
  for (int key : {30, 10, 50, 20, 40}) map.Set(key, key * 10);
  using Keys = std::vector<int>;

  EXPECT_EQ(AscendKeys(map, 30, true), (Keys{30, 40, 50}));
  EXPECT_EQ(AscendKeys(map, 30, false), (Keys{40, 50}));
  EXPECT_EQ(AscendKeys(map, 25, true), (Keys{30, 40, 50}));
  EXPECT_EQ(AscendKeys(map, 25, false), (Keys{30, 40, 50}));
  EXPECT_EQ(AscendKeys(map, 5, false), (Keys{10, 20, 30, 40, 50}));
  EXPECT_EQ(AscendKeys(map, 10, true), (Keys{10, 20, 30, 40, 50}));
  EXPECT_EQ(AscendKeys(map, 50, true), (Keys{50}));
  EXPECT_EQ(AscendKeys(map, 50, false), Keys{});
  EXPECT_EQ(AscendKeys(map, 60, true), Keys{});

  EXPECT_EQ(DescendKeys(map, 30, true), (Keys{30, 20, 10}));
  EXPECT_EQ(DescendKeys(map, 30, false), (Keys{20, 10}));
  EXPECT_EQ(DescendKeys(map, 35, true), (Keys{30, 20, 10}));
  EXPECT_EQ(DescendKeys(map, 35, false), (Keys{30, 20, 10}));
  EXPECT_EQ(DescendKeys(map, 60, false), (Keys{50, 40, 30, 20, 10}));
  EXPECT_EQ(DescendKeys(map, 50, true), (Keys{50, 40, 30, 20, 10}));
  EXPECT_EQ(DescendKeys(map, 10, true), (Keys{10}));
  EXPECT_EQ(DescendKeys(map, 10, false), Keys{});
  EXPECT_EQ(DescendKeys(map, 5, true), Keys{});

  EXPECT_EQ(AscendKeys(IntMap{}, 0, true), Keys{});
  EXPECT_EQ(DescendKeys(IntMap{}, 0, true), Keys{});
}

TEST(PersistentMap, AVisitThatReturnsFalseStopsTheWalk) {
  IntMap map;
  for (int key = 1; key <= 100; ++key) map.Set(key, -key);
  std::vector<std::pair<int, int>> seen;
  map.Ascend(40, false, [&](int key, int value) {
    seen.emplace_back(key, value);
    return seen.size() < 3;
  });
  EXPECT_EQ(seen, (std::vector<std::pair<int, int>>{{41, -41}, {42, -42}, {43, -43}}));

  seen.clear();
  map.Descend(40, true, [&](int key, int value) {
    seen.emplace_back(key, value);
    return seen.size() < 2;
  });
  EXPECT_EQ(seen, (std::vector<std::pair<int, int>>{{40, -40}, {39, -39}}));

  int visits = 0;
  map.ForEach([&](int, int) { return ++visits < 5; });
  EXPECT_EQ(visits, 5);
  visits = 0;
  int last = 0;
  map.ForEachDescending([&](int key, int) {
    last = key;
    return ++visits < 7;
  });
  EXPECT_EQ(visits, 7);
  EXPECT_EQ(last, 94);
}

struct ResourceKey {
  std::string account;
  std::string name;
  auto operator<=>(const ResourceKey&) const = default;
};

TEST(PersistentMap, FindsStructKeysAndStringKeysByStringView) {
  PersistentMap<ResourceKey, int> resources;
  resources.Set({"111", "b"}, 1);
  resources.Set({"111", "a"}, 2);
  resources.Set({"222", "a"}, 3);
  ASSERT_NE(resources.Find(ResourceKey{"111", "a"}), nullptr);
  EXPECT_EQ(*resources.Find(ResourceKey{"111", "a"}), 2);
  EXPECT_EQ(*resources.Find(ResourceKey{"222", "a"}), 3);
  EXPECT_EQ(resources.Find(ResourceKey{"222", "b"}), nullptr);
  std::vector<int> order;
  resources.ForEach([&](const ResourceKey&, int value) {
    order.push_back(value);
    return true;
  });
  EXPECT_EQ(order, (std::vector<int>{2, 1, 3}));

  StringMap names;
  names.Set("alpha", "1");
  names.Set("beta", "2");
  const std::string buffer = "alphabet";
  const std::string_view alpha = std::string_view(buffer).substr(0, 5);
  ASSERT_NE(names.Find(alpha), nullptr);
  EXPECT_EQ(*names.Find(alpha), "1");
  EXPECT_EQ(names.Find(std::string_view(buffer)), nullptr);
  EXPECT_TRUE(names.Erase(std::string_view("beta")));
  EXPECT_FALSE(names.Erase(std::string_view("beta")));
  std::vector<std::string> after_alpha;
  names.Ascend(std::string_view("alpha"), false, [&](const std::string& key, const std::string&) {
    after_alpha.push_back(key);
    return true;
  });
  EXPECT_EQ(after_alpha, std::vector<std::string>{});
  EXPECT_EQ(names.size(), 1u);
}

TEST(PersistentMap, FromSortedEqualsInsertingOneByOne) {
  for (std::size_t n : {0u, 1u, 2u, 3u, 7u, 8u, 100u, 1000u}) {
    Pairs sorted;
    StringMap inserted;
    for (std::size_t i = 0; i < n; ++i) {
      std::string key = std::to_string(i);
      key.insert(0, 6 - key.size(), '0');  // zero-padded, so that text order is number order
      key.insert(0, "key");
      sorted.emplace_back(key, "value" + std::to_string(i));
      inserted.Set(key, "value" + std::to_string(i));
    }
    StringMap built = StringMap::FromSorted(sorted);
    EXPECT_EQ(built.size(), n);
    EXPECT_EQ(built.empty(), n == 0);
    EXPECT_EQ(Ascending(built), sorted) << n;
    EXPECT_EQ(Ascending(built), Ascending(inserted)) << n;
    EXPECT_EQ(Descending(built), Descending(inserted)) << n;
    // Built of nodes as full as they can be, the tree is as short as a B+tree can be.
    EXPECT_EQ(built.Height(), MinHeight(n, StringMap::kNodeSize)) << n;
    for (const auto& [key, value] : sorted) {
      ASSERT_NE(built.Find(key), nullptr) << key;
      EXPECT_EQ(*built.Find(key), value);
    }
    // A built tree takes changes like any other.
    EXPECT_TRUE(built.Set("zzz", "last"));
    EXPECT_EQ(built.Erase("key000000"), n > 0);
    EXPECT_EQ(built.size(), n + 1 - (n > 0 ? 1 : 0));
    ASSERT_NE(built.Find("zzz"), nullptr);
    EXPECT_EQ(*built.Find("zzz"), "last");
  }
}

TEST(PersistentMap, HeightStaysLogarithmicAfterAscendingInsertsAndErases) {
  IntMap map;
  constexpr int kKeys = 30000;  // several levels at 32 slots a node
  for (int key = 0; key < kKeys; ++key) map.Set(key, key);
  EXPECT_EQ(map.size(), static_cast<std::size_t>(kKeys));
  EXPECT_LE(map.Height(), MaxHeight(map.size(), IntMap::kNodeSize));
  for (int key = 0; key < kKeys; key += 2) ASSERT_TRUE(map.Erase(key));
  EXPECT_EQ(map.size(), static_cast<std::size_t>(kKeys / 2));
  EXPECT_LE(map.Height(), MaxHeight(map.size(), IntMap::kNodeSize));
  // A tree of 15,000 entries cannot be shorter than this.
  EXPECT_GE(map.Height(), MinHeight(map.size(), IntMap::kNodeSize));
  EXPECT_EQ(map.Find(4), nullptr);
  ASSERT_NE(map.Find(5), nullptr);
  EXPECT_EQ(*map.Find(5), 5);
  // Erasing from one end only is the hardest case for the rebalancing of Erase.
  for (int key = 1; key < kKeys - 2000; key += 2) ASSERT_TRUE(map.Erase(key));
  EXPECT_EQ(map.size(), 1000u);
  EXPECT_LE(map.Height(), MaxHeight(map.size(), IntMap::kNodeSize));
  // Erasing down to a few entries, all from one end, must shrink the tree to a single leaf.
  for (int key = kKeys - 2000 + 1; key < kKeys - 2; key += 2) ASSERT_TRUE(map.Erase(key));
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(map.Height(), 1u);
  ASSERT_TRUE(map.Erase(kKeys - 1));
  EXPECT_EQ(map.Height(), 0u);
}

TEST(PersistentMap, MaxHeightAndMinHeightAreTheBTreeBounds) {
  EXPECT_EQ(MaxHeight(0, 4), 0u);
  EXPECT_EQ(MaxHeight(1, 4), 1u);
  EXPECT_EQ(MaxHeight(3, 4), 1u);
  EXPECT_EQ(MaxHeight(4, 4), 2u);
  EXPECT_EQ(MaxHeight(7, 4), 2u);
  EXPECT_EQ(MaxHeight(8, 4), 3u);
  EXPECT_EQ(MaxHeight(15, 4), 3u);
  EXPECT_EQ(MaxHeight(16, 4), 4u);
  EXPECT_EQ(MaxHeight(31, 32), 1u);
  EXPECT_EQ(MaxHeight(32, 32), 2u);
  EXPECT_EQ(MaxHeight(511, 32), 2u);
  EXPECT_EQ(MaxHeight(512, 32), 3u);
  EXPECT_EQ(MinHeight(0, 4), 0u);
  EXPECT_EQ(MinHeight(1, 4), 1u);
  EXPECT_EQ(MinHeight(4, 4), 1u);
  EXPECT_EQ(MinHeight(5, 4), 2u);
  EXPECT_EQ(MinHeight(16, 4), 2u);
  EXPECT_EQ(MinHeight(17, 4), 3u);
  EXPECT_EQ(MinHeight(32, 32), 1u);
  EXPECT_EQ(MinHeight(33, 32), 2u);
  EXPECT_EQ(MinHeight(1024, 32), 2u);
  EXPECT_EQ(MinHeight(1025, 32), 3u);
}

// Small maps churned hard in nodes of 4 slots hit every split, merge and rebalancing of
// neighbours at every level, and in them one level too many breaks the bound.
TEST(PersistentMap, SmallMapsStayWithinTheBoundsAfterEveryChange) {
  using TinyNodeMap = PersistentMap<int, int, std::less<>, 4>;
  // Trees that FromSorted built too, erased from the front so that their last nodes stay as built.
  for (int n = 1; n <= 200; ++n) {
    std::vector<std::pair<int, int>> sorted;
    for (int k = 0; k < n; ++k) sorted.emplace_back(k, k);
    TinyNodeMap built = TinyNodeMap::FromSorted(sorted);
    for (int k = 0; k < n; ++k) {
      ASSERT_LE(built.Height(), MaxHeight(built.size(), 4)) << n << " entries, erased " << k;
      ASSERT_TRUE(built.Erase(k));
    }
  }
  std::mt19937 rng(7);
  for (int key_count : {8, 20, 60, 200}) {
    std::uniform_int_distribution<int> key(0, key_count - 1);
    std::uniform_int_distribution<int> action(0, 1);
    TinyNodeMap map;
    std::map<int, int> model;
    for (int op = 0; op < 20000; ++op) {
      const int k = key(rng);
      if (action(rng) == 0) {
        ASSERT_EQ(map.Set(k, op), model.insert_or_assign(k, op).second);
      } else {
        ASSERT_EQ(map.Erase(k), model.erase(k) == 1);
      }
      ASSERT_LE(map.Height(), MaxHeight(map.size(), 4)) << key_count << " keys, op " << op;
      ASSERT_GE(map.Height(), MinHeight(map.size(), 4)) << key_count << " keys, op " << op;
      std::vector<std::pair<int, int>> contents;
      map.ForEach([&](int mk, int mv) {
        contents.emplace_back(mk, mv);
        return true;
      });
      ASSERT_EQ(contents, (std::vector<std::pair<int, int>>(model.begin(), model.end())))
          << key_count << " keys, op " << op;
    }
  }
}

// Each split leaves two halves, so ordered inserts fill nodes only by half and build the
// tallest tree the bound allows, in either direction.
TEST(PersistentMap, OrderedInsertsInEitherDirectionStayWithinTheBound) {
  IntMap ascending;
  IntMap descending;
  constexpr int kKeys = 20000;  // 3 levels if packed full, 4 at half
  for (int key = 0; key < kKeys; ++key) {
    ascending.Set(key, key);
    descending.Set(kKeys - 1 - key, key);
  }
  EXPECT_EQ(ascending.Height(), MaxHeight(kKeys, IntMap::kNodeSize));
  EXPECT_EQ(descending.Height(), MaxHeight(kKeys, IntMap::kNodeSize));
}

TEST(PersistentMap, ReadersOfASnapshotNeverSeeTheWritersChanges) {
  StringMap snapshot;
  for (int i = 0; i < 2000; ++i) snapshot.Set("key" + std::to_string(i), std::to_string(i));
  const Pairs expected = Ascending(snapshot);
  StringMap writer_copy = snapshot;
  std::atomic<bool> stop{false};
  std::atomic<int> mismatches{0};
  std::atomic<int> reads{0};

  std::thread writer([&] {
    int round = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      const std::string key = "key" + std::to_string(round % 3000);
      writer_copy.Set(key, "changed" + std::to_string(round));
      if (round % 3 == 0) writer_copy.Erase("key" + std::to_string((round * 7) % 2000));
      ++round;
    }
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
        const StringMap mine = snapshot;
        if (Ascending(mine) != expected || mine.size() != expected.size()) ++mismatches;
        const std::string* value = snapshot.Find("key1234");
        if (value == nullptr || *value != "1234") ++mismatches;
        ++reads;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  stop = true;
  writer.join();
  for (std::thread& reader : readers) reader.join();

  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(Ascending(snapshot), expected);
  EXPECT_NE(Ascending(writer_copy), expected);
}

}  // namespace
}  // namespace smemu::store
