// PersistentMap: an ordered map whose copies are snapshots. Copying one costs a pointer copy, and
// a change gives this copy a new version that shares every node except the O(log n) ones on the
// changed path, so a copy taken earlier keeps seeing exactly what it saw.
//
// It exists so that readers (a listing page, a describe) can hold a consistent view of a table
// without a lock while a writer builds the next version: the writer changes its own copy and
// publishes it, and each reader keeps the version it started with for as long as it needs it.
// Nodes never change once built and hold no caches, so any number of threads may read distinct
// copies at the same time; as with any value type, one copy must not be read and written at once.
// A change copies the entries of the leaf it touches, so keys and values should be cheap to
// copy (views, shared pointers): the tables keep their rows behind shared pointers and key them
// by views of strings the rows hold.
//
// The tree is a B+tree with path copying, so that a change copies the 3 or 4 nodes on its path at
// 100k entries, each one allocation, where an AVL tree copied ~17. A leaf holds up to kNodeSize
// entries in place, sorted, so that loading n entries costs n / kNodeSize allocations; an inner
// node up to kNodeSize children, each with a raw pointer to the child's first entry to route by,
// which the child owns, so that no key is copied into inner nodes. Every node but the root is at
// least half full: an overflowing node splits into halves, and one that an erase leaves below half
// is merged with a neighbour, or shares the neighbour's slots evenly when both do not fit in one
// node. So the height stays within 1 + log_{kNodeSize/2}(n / 2) after any sequence of changes,
// which bounds lookups, changes and the start of an iteration to O(log n), and iteration to O(1)
// per entry.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace smemu::store {

template <class Key, class Value, class Compare = std::less<>, std::size_t kSlots = 32>
class PersistentMap {
  static_assert(kSlots >= 4 && kSlots % 2 == 0, "a split must leave two halves of >= 2 slots");

 public:
  // The most entries in a leaf, or children of an inner node; every node but the root holds at
  // least half as many. 32 was the fastest for Set at 24k-100k entries with Find no slower than
  // 64, and leaves only slightly fuller. Public for tests, which check the height bound.
  static constexpr std::size_t kNodeSize = kSlots;

  PersistentMap() = default;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The value of `key`, or nullptr. The pointer stays valid as long as any copy holding the
  // entry lives (the caller keeps this map alive).
  template <class K>
  const Value* Find(const K& key) const {
    const Node* node = root_.get();
    if (node == nullptr) return nullptr;
    while (node->level != 0) {
      const Inner& inner = AsInner(*node);
      node = inner.slots[ChildIndex(inner, key)].child.get();
    }
    const Leaf& leaf = AsLeaf(*node);
    const std::size_t at = LowerBound(leaf, key);
    if (at == leaf.count || compare_(key, leaf.slots[at].key)) return nullptr;
    return &leaf.slots[at].value;
  }

  // Inserts or replaces. Returns true when the key was new.
  bool Set(Key key, Value value) {
    const Entry entry{std::move(key), std::move(value)};
    const std::span<const Entry> added(&entry, 1);
    if (root_ == nullptr) {
      root_ = Make<Entry>(0, {added}, 0, 1);
      size_ = 1;
      return true;
    }
    bool inserted = false;
    auto [root, split] = Insert(*root_, added, inserted);
    if (split != nullptr) {  // the root split: the tree grows one level, at the top
      const std::array<InnerSlot, 2> halves{SlotFor(std::move(root)), SlotFor(std::move(split))};
      root = Make<InnerSlot>(root_->level + 1, {halves}, 0, 2);
    }
    root_ = std::move(root);
    if (inserted) ++size_;
    return inserted;
  }

  // Removes `key`. Returns true when it was there.
  template <class K>
  bool Erase(const K& key) {
    if (root_ == nullptr) return false;
    NodePtr root = Remove(*root_, key);
    if (root == nullptr) return false;
    // A root left with one child is a level too many, and a leaf without entries an empty map.
    if (root->level != 0 && root->count == 1) root = AsInner(*root).slots[0].child;
    root_ = root->count == 0 ? nullptr : std::move(root);
    --size_;
    return true;
  }

  void Clear() {
    root_.reset();
    size_ = 0;
  }

  // Visits entries in ascending key order, starting at the first key >= from (inclusive) or
  // > from (exclusive), calling visit(const Key&, const Value&) until it returns false or the map
  // ends.
  template <class K, class Visit>
  void Ascend(const K& from, bool inclusive, Visit&& visit) const {
    Walk<true>(
        [&](const Key& key) { return inclusive ? !compare_(key, from) : compare_(from, key); },
        visit);
  }

  // Descending order, from the last key <= from (inclusive) or < from (exclusive).
  template <class K, class Visit>
  void Descend(const K& from, bool inclusive, Visit&& visit) const {
    Walk<false>(
        [&](const Key& key) { return inclusive ? !compare_(from, key) : compare_(key, from); },
        visit);
  }

  // Every entry, ascending (or descending), until visit returns false.
  template <class Visit>
  void ForEach(Visit&& visit) const {
    Walk<true>([](const Key&) { return true; }, visit);
  }
  template <class Visit>
  void ForEachDescending(Visit&& visit) const {
    Walk<false>([](const Key&) { return true; }, visit);
  }

  // Builds a map from entries already sorted by key and unique (checked with assert only), in
  // O(n), for loading a table at start-up without n inserts. Each level is as few nodes as can
  // hold it, their sizes differing by at most one, so that all are at least half full (and as full
  // as they can be) and the tree is as short as any of n entries can be.
  static PersistentMap FromSorted(std::vector<std::pair<Key, Value>> sorted) {
    PersistentMap map;
    assert(std::adjacent_find(sorted.begin(), sorted.end(), [&map](const auto& a, const auto& b) {
             return !map.compare_(a.first, b.first);
           }) == sorted.end());
    if (sorted.empty()) return map;
    std::vector<NodePtr> nodes = Fill<Entry>(sorted.size(), 0, [&](std::size_t i) {
      auto& [key, value] = sorted[i];
      return Entry{std::move(key), std::move(value)};
    });
    for (std::size_t level = 1; nodes.size() > 1; ++level) {
      nodes = Fill<InnerSlot>(nodes.size(), level,
                              [&](std::size_t i) { return SlotFor(std::move(nodes[i])); });
    }
    map.root_ = std::move(nodes[0]);
    map.size_ = sorted.size();
    return map;
  }

  // The number of nodes on a path from the root to a leaf (all have the same length), 0 when
  // empty. For tests, which check that it stays within the bound of the header comment.
  std::size_t Height() const { return root_ == nullptr ? 0 : root_->level + std::size_t{1}; }

 private:
  static constexpr std::size_t kMinSize = kSlots / 2;

  // A leaf's slot. Leaves hold their entries in place, so a change copies the entries of the one
  // leaf it touches (Key and Value should be cheap to copy: views, shared pointers).
  struct Entry {
    Key key{};
    Value value{};
  };

  // What Leaf and Inner share. A node is filled in once, right after it is allocated, and only
  // read after that.
  struct Node {
    Node(std::size_t node_level, std::size_t node_count)
        : level(static_cast<std::uint32_t>(node_level)),
          count(static_cast<std::uint32_t>(node_count)) {}
    std::uint32_t level;  // 0 for a leaf, the height of the subtree minus one otherwise
    std::uint32_t count;  // slots in use
  };
  using NodePtr = std::shared_ptr<const Node>;

  struct InnerSlot {
    const Entry* first = nullptr;  // the child's first entry, which the child owns
    NodePtr child;
  };
  template <class Slot>
  struct NodeOf : Node {
    using Node::Node;
    std::array<Slot, kSlots> slots;
  };
  using Leaf = NodeOf<Entry>;
  using Inner = NodeOf<InnerSlot>;

  // A tree of h levels holds >= 2 kMinSize^(h - 1) entries, so at most this many inner levels.
  static constexpr std::size_t kMaxInnerLevels = [] {
    std::size_t levels = 0;
    for (auto n = std::numeric_limits<std::size_t>::max() / 2; n >= kMinSize; n /= kMinSize) {
      ++levels;
    }
    return levels;
  }();

  static const Leaf& AsLeaf(const Node& node) { return static_cast<const Leaf&>(node); }
  static const Inner& AsInner(const Node& node) { return static_cast<const Inner&>(node); }

  template <class Slot>
  static std::span<const Slot> Slots(const NodeOf<Slot>& node) {
    return {node.slots.data(), node.count};
  }

  static InnerSlot SlotFor(NodePtr child) {
    const Entry* first =
        child->level == 0 ? &AsLeaf(*child).slots[0] : AsInner(*child).slots[0].first;
    return {first, std::move(child)};
  }

  static const Entry& EntryOf(const Entry& slot) { return slot; }
  static const Entry& EntryOf(const InnerSlot& slot) { return *slot.first; }

  // For a leaf, how many of its entries `before` holds for, which must be a prefix of them. For an
  // inner node, the child to descend to: the last whose first entry `before` holds for, or the
  // first child.
  template <class Slot, class Before>
  static std::size_t CountBefore(const NodeOf<Slot>& node, const Before& before) {
    const std::span<const Slot> slots = Slots(node).subspan(std::is_same_v<Slot, Entry> ? 0 : 1);
    const auto end = std::partition_point(slots.begin(), slots.end(),
                                          [&](const Slot& slot) { return before(EntryOf(slot)); });
    return static_cast<std::size_t>(end - slots.begin());
  }

  template <class K>
  std::size_t LowerBound(const Leaf& leaf, const K& key) const {
    return CountBefore(leaf, [&](const Entry& entry) { return compare_(entry.key, key); });
  }
  template <class K>
  std::size_t ChildIndex(const Inner& inner, const K& key) const {
    return CountBefore(inner, [&](const Entry& first) { return !compare_(key, first.key); });
  }

  // Up to three runs of slots whose concatenation a change turns into one or two nodes.
  template <class Slot>
  using Runs = std::array<std::span<const Slot>, 3>;

  // A node of `level` holding the slots [begin, end) of the concatenation of `runs`.
  template <class Slot>
  static NodePtr Make(std::size_t level, const Runs<Slot>& runs, std::size_t begin,
                      std::size_t end) {
    auto node = std::make_shared<NodeOf<Slot>>(level, end - begin);
    Slot* out = node->slots.data();
    std::size_t at = 0;  // where `run` starts in the concatenation
    for (const std::span<const Slot>& run : runs) {
      const std::size_t from = std::clamp(begin, at, at + run.size()) - at;
      const std::size_t to = std::clamp(end, at, at + run.size()) - at;
      out = std::copy(run.data() + from, run.data() + to, out);
      at += run.size();
    }
    return node;
  }

  // The slots of `runs` in one node of `level`, or in two halves when they do not fit. Both
  // halves then hold >= kMinSize: the runs come from an insert into a full node (kSlots + 1
  // slots) or from two nodes that did not fit in one.
  template <class Slot>
  static std::pair<NodePtr, NodePtr> Pack(std::size_t level, const Runs<Slot>& runs) {
    const std::size_t total = runs[0].size() + runs[1].size() + runs[2].size();
    if (total <= kSlots) return {Make(level, runs, 0, total), nullptr};
    return {Make(level, runs, 0, total / 2), Make(level, runs, total / 2, total)};
  }

  // A copy of `node` whose `removed` slots from `at` are replaced by `added`, as one or two nodes.
  template <class Slot>
  static std::pair<NodePtr, NodePtr> Splice(const NodeOf<Slot>& node, std::size_t at,
                                            std::size_t removed, std::span<const Slot> added) {
    const std::span<const Slot> slots = Slots(node);
    return Pack<Slot>(node.level, {slots.first(at), added, slots.subspan(at + removed)});
  }

  // The two neighbours `left` and `right`, of one level, as one node or two balanced ones.
  static std::pair<NodePtr, NodePtr> Rejoin(const Node& left, const Node& right) {
    if (left.level == 0) return Pack<Entry>(0, {Slots(AsLeaf(left)), Slots(AsLeaf(right))});
    return Pack<InnerSlot>(left.level, {Slots(AsInner(left)), Slots(AsInner(right))});
  }

  // A copy of `inner` whose `removed` children from `at` are replaced by `left` and, unless it is
  // nullptr, `right`, as one or two nodes.
  static std::pair<NodePtr, NodePtr> Replace(const Inner& inner, std::size_t at,
                                             std::size_t removed, NodePtr left, NodePtr right) {
    const std::size_t added = right == nullptr ? 1 : 2;
    const std::array<InnerSlot, 2> slots{
        SlotFor(std::move(left)), right == nullptr ? InnerSlot{} : SlotFor(std::move(right))};
    return Splice(inner, at, removed, std::span<const InnerSlot>(slots).first(added));
  }

  // `node` with the one entry of `entry` added or replacing the one of its key: the copy, and the
  // right half of it when it split (else nullptr), which the parent takes as one more child.
  std::pair<NodePtr, NodePtr> Insert(const Node& node, std::span<const Entry> entry,
                                     bool& inserted) const {
    const Key& key = entry[0].key;
    if (node.level == 0) {
      const Leaf& leaf = AsLeaf(node);
      const std::size_t at = LowerBound(leaf, key);
      inserted = at == leaf.count || compare_(key, leaf.slots[at].key);
      return Splice(leaf, at, inserted ? 0 : 1, entry);
    }
    const Inner& inner = AsInner(node);
    const std::size_t at = ChildIndex(inner, key);
    auto [child, split] = Insert(*inner.slots[at].child, entry, inserted);
    return Replace(inner, at, 1, std::move(child), std::move(split));
  }

  // A copy of `node` without `key`, or nullptr when the key is absent, so that a miss copies
  // nothing. The copy may hold fewer than kMinSize slots (a leaf none); its parent repairs that,
  // and Erase the root.
  template <class K>
  NodePtr Remove(const Node& node, const K& key) const {
    if (node.level == 0) {
      const Leaf& leaf = AsLeaf(node);
      const std::size_t at = LowerBound(leaf, key);
      if (at == leaf.count || compare_(key, leaf.slots[at].key)) return nullptr;
      return Splice<Entry>(leaf, at, 1, {}).first;
    }
    const Inner& inner = AsInner(node);
    const std::size_t at = ChildIndex(inner, key);
    NodePtr child = Remove(*inner.slots[at].child, key);
    if (child == nullptr) return nullptr;
    if (child->count >= kMinSize) return Replace(inner, at, 1, std::move(child), nullptr).first;
    // Underfull: rejoin it with a neighbour, which every inner node has, holding >= 2 children.
    assert(inner.count >= 2);
    const std::size_t left = at == 0 ? 0 : at - 1;
    auto [joined, rest] =
        at == 0 ? Rejoin(*child, *inner.slots[1].child) : Rejoin(*inner.slots[left].child, *child);
    return Replace(inner, left, 2, std::move(joined), std::move(rest)).first;
  }

  // `count` slots made by slot(i) in order, packed into as few nodes of `level` as hold them.
  template <class Slot, class MakeSlot>
  static std::vector<NodePtr> Fill(std::size_t count, std::size_t level, const MakeSlot& slot) {
    const std::size_t nodes = (count + kSlots - 1) / kSlots;
    std::vector<NodePtr> filled;
    filled.reserve(nodes);
    for (std::size_t i = 0, n = 1; n <= nodes; ++n) {
      const std::size_t end = n * (count / nodes) + std::min(n, count % nodes);
      auto node = std::make_shared<NodeOf<Slot>>(level, end - i);
      for (Slot& out : std::span<Slot>(node->slots).first(end - i)) out = slot(i++);
      filled.push_back(std::move(node));
    }
    return filled;
  }

  // In-order walk from the first entry `in_range` accepts; `kAscending` picks the direction. The
  // stack holds the inner nodes above the current leaf, at most kMaxInnerLevels, so it lives on
  // the call stack. The walk keeps its own reference to the root, so a visitor that changes this
  // map cannot free the nodes it is on.
  template <bool kAscending, class InRange, class Visit>
  void Walk(const InRange& in_range, Visit& visit) const {
    const NodePtr root = root_;
    if (root == nullptr) return;
    // True for a prefix of the entries in key order: those before the start when ascending, and
    // those from the start down when descending.
    const auto before = [&](const Entry& entry) {
      return kAscending ? !in_range(entry.key) : in_range(entry.key);
    };
    struct Frame {
      const Inner* inner;
      std::size_t child;  // the one being walked
    };
    std::array<Frame, kMaxInnerLevels> stack{};
    std::size_t depth = 0;
    bool first_leaf = true;  // the descent to it searches; later leaves are entered at an edge
    for (const Node* node = root.get();;) {
      while (node->level != 0) {
        const Inner& inner = AsInner(*node);
        std::size_t child = kAscending ? 0 : inner.count - std::size_t{1};
        if (first_leaf) child = CountBefore(inner, before);
        stack[depth++] = {&inner, child};
        node = inner.slots[child].child.get();
      }
      const Leaf& leaf = AsLeaf(*node);
      std::size_t start = kAscending ? 0 : leaf.count;
      if (first_leaf) start = CountBefore(leaf, before);
      first_leaf = false;
      if constexpr (kAscending) {
        for (std::size_t i = start; i < leaf.count; ++i) {
          if (!visit(leaf.slots[i].key, leaf.slots[i].value)) return;
        }
      } else {
        for (std::size_t i = start; i > 0; --i) {
          if (!visit(leaf.slots[i - 1].key, leaf.slots[i - 1].value)) return;
        }
      }
      // On to the next leaf in the walk's direction: up to the lowest inner node with a child
      // left on that side, and down that child's near edge.
      while (depth > 0 &&
             stack[depth - 1].child == (kAscending ? stack[depth - 1].inner->count - 1 : 0)) {
        --depth;
      }
      if (depth == 0) return;
      Frame& frame = stack[depth - 1];
      frame.child = kAscending ? frame.child + 1 : frame.child - 1;
      node = frame.inner->slots[frame.child].child.get();
    }
  }

  NodePtr root_;
  std::size_t size_ = 0;
  [[no_unique_address]] Compare compare_;
};

}  // namespace smemu::store
