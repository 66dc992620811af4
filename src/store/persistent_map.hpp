// PersistentMap: an ordered map whose copies are snapshots. Copying one costs a pointer copy, and
// a change gives this copy a new version that shares every node except the O(log n) ones on the
// changed path, so a copy taken earlier keeps seeing exactly what it saw.
//
// It exists so that readers (a listing page, a describe) can hold a consistent view of a table
// without a lock while a writer builds the next version: the writer changes its own copy and
// publishes it, and each reader keeps the version it started with for as long as it needs it.
// Nodes never change once built and hold no caches, so any number of threads may read distinct
// copies at the same time; as with any value type, one copy must not be read and written at once.
// Each (key, value) pair lives once, in an immutable Entry shared by every version that holds it,
// so a change copies pointers, never keys or values.
//
// The tree is an AVL tree with path copying: its height stays below 1.4405 log2(n + 2), which
// bounds lookups, changes and the start of an iteration to O(log n) and iteration to O(1) more
// per entry visited.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace smemu::store {

template <class Key, class Value, class Compare = std::less<>>
class PersistentMap {
 public:
  PersistentMap() = default;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The value of `key`, or nullptr. The pointer stays valid as long as any copy holding the
  // entry lives (the caller keeps this map alive).
  template <class K>
  const Value* Find(const K& key) const {
    const Node* node = root_.get();
    while (node != nullptr) {
      if (compare_(key, node->entry->key)) {
        node = node->left.get();
      } else if (compare_(node->entry->key, key)) {
        node = node->right.get();
      } else {
        return &node->entry->value;
      }
    }
    return nullptr;
  }

  // Inserts or replaces. Returns true when the key was new.
  bool Set(Key key, Value value) {
    EntryPtr entry = std::make_shared<Entry>(std::move(key), std::move(value));
    bool inserted = false;
    root_ = Insert(root_, entry, inserted);
    if (inserted) ++size_;
    return inserted;
  }

  // Removes `key`. Returns true when it was there.
  template <class K>
  bool Erase(const K& key) {
    bool erased = false;
    NodePtr root = Remove(root_, key, erased);
    if (!erased) return false;
    root_ = std::move(root);
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
  // O(n), for loading a table at start-up without n rebalancing inserts.
  static PersistentMap FromSorted(std::vector<std::pair<Key, Value>> sorted) {
    PersistentMap map;
    assert(std::adjacent_find(sorted.begin(), sorted.end(), [&map](const auto& a, const auto& b) {
             return !map.compare_(a.first, b.first);
           }) == sorted.end());
    map.root_ = map.Build(sorted, 0, sorted.size());
    map.size_ = sorted.size();
    return map;
  }

  // The number of nodes on the longest path from the root, 0 when empty. For tests, which check
  // that it stays within the AVL bound.
  std::size_t Height() const { return static_cast<std::size_t>(HeightOf(root_.get())); }

 private:
  struct Entry {
    Entry(Key&& entry_key, Value&& entry_value)
        : key(std::move(entry_key)), value(std::move(entry_value)) {}
    Key key;
    Value value;
  };
  using EntryPtr = std::shared_ptr<const Entry>;

  struct Node;
  using NodePtr = std::shared_ptr<const Node>;
  struct Node {
    Node(EntryPtr node_entry, NodePtr node_left, NodePtr node_right, int node_height)
        : entry(std::move(node_entry)),
          left(std::move(node_left)),
          right(std::move(node_right)),
          height(node_height) {}
    EntryPtr entry;
    NodePtr left;
    NodePtr right;
    int height;
  };

  static int HeightOf(const Node* node) { return node == nullptr ? 0 : node->height; }

  static NodePtr MakeNode(EntryPtr entry, NodePtr left, NodePtr right) {
    const int height = 1 + std::max(HeightOf(left.get()), HeightOf(right.get()));
    return std::make_shared<Node>(std::move(entry), std::move(left), std::move(right), height);
  }

  // A node for `entry` over subtrees whose heights differ by at most 2, rotated so that they
  // differ by at most 1 again. Every change rebuilds its path through here.
  static NodePtr Balance(EntryPtr entry, NodePtr left, NodePtr right) {
    const int left_height = HeightOf(left.get());
    const int right_height = HeightOf(right.get());
    if (left_height > right_height + 1) {
      if (HeightOf(left->left.get()) >= HeightOf(left->right.get())) {
        return MakeNode(left->entry, left->left,
                        MakeNode(std::move(entry), left->right, std::move(right)));
      }
      const Node& pivot = *left->right;
      return MakeNode(pivot.entry, MakeNode(left->entry, left->left, pivot.left),
                      MakeNode(std::move(entry), pivot.right, std::move(right)));
    }
    if (right_height > left_height + 1) {
      if (HeightOf(right->right.get()) >= HeightOf(right->left.get())) {
        return MakeNode(right->entry, MakeNode(std::move(entry), std::move(left), right->left),
                        right->right);
      }
      const Node& pivot = *right->left;
      return MakeNode(pivot.entry, MakeNode(std::move(entry), std::move(left), pivot.left),
                      MakeNode(right->entry, pivot.right, right->right));
    }
    return MakeNode(std::move(entry), std::move(left), std::move(right));
  }

  NodePtr Insert(const NodePtr& node, EntryPtr& entry, bool& inserted) const {
    if (node == nullptr) {
      inserted = true;
      return MakeNode(std::move(entry), nullptr, nullptr);
    }
    if (compare_(entry->key, node->entry->key)) {
      return Balance(node->entry, Insert(node->left, entry, inserted), node->right);
    }
    if (compare_(node->entry->key, entry->key)) {
      return Balance(node->entry, node->left, Insert(node->right, entry, inserted));
    }
    return MakeNode(std::move(entry), node->left, node->right);
  }

  // `node` without `key`; `node` itself when the key is absent, so a miss copies nothing.
  template <class K>
  NodePtr Remove(const NodePtr& node, const K& key, bool& erased) const {
    if (node == nullptr) return nullptr;
    if (compare_(key, node->entry->key)) {
      NodePtr left = Remove(node->left, key, erased);
      return erased ? Balance(node->entry, std::move(left), node->right) : node;
    }
    if (compare_(node->entry->key, key)) {
      NodePtr right = Remove(node->right, key, erased);
      return erased ? Balance(node->entry, node->left, std::move(right)) : node;
    }
    erased = true;
    if (node->left == nullptr) return node->right;
    if (node->right == nullptr) return node->left;
    EntryPtr successor;
    NodePtr right = RemoveFirst(node->right, successor);
    return Balance(std::move(successor), node->left, std::move(right));
  }

  static NodePtr RemoveFirst(const NodePtr& node, EntryPtr& first) {
    if (node->left == nullptr) {
      first = node->entry;
      return node->right;
    }
    return Balance(node->entry, RemoveFirst(node->left, first), node->right);
  }

  // Splitting at the middle gives subtrees whose sizes, and so heights, differ by at most 1.
  NodePtr Build(std::vector<std::pair<Key, Value>>& sorted, std::size_t begin,
                std::size_t end) const {
    if (begin == end) return nullptr;
    const std::size_t middle = begin + (end - begin) / 2;
    NodePtr left = Build(sorted, begin, middle);
    NodePtr right = Build(sorted, middle + 1, end);
    auto& [key, value] = sorted[middle];
    return MakeNode(std::make_shared<Entry>(std::move(key), std::move(value)), std::move(left),
                    std::move(right));
  }

  // In-order walk from the first node `in_range` accepts; `kAscending` picks which child comes
  // first. The stack holds at most one node per level, so it is reserved once. The walk keeps its
  // own reference to the root, so a visitor that changes this map cannot free the nodes it is on.
  template <bool kAscending, class InRange, class Visit>
  void Walk(const InRange& in_range, Visit& visit) const {
    const NodePtr root = root_;
    const auto near = [](const Node* node) {
      return kAscending ? node->left.get() : node->right.get();
    };
    const auto far = [](const Node* node) {
      return kAscending ? node->right.get() : node->left.get();
    };
    std::vector<const Node*> stack;
    stack.reserve(static_cast<std::size_t>(HeightOf(root.get())));
    for (const Node* node = root.get(); node != nullptr;) {
      if (in_range(node->entry->key)) {
        stack.push_back(node);
        node = near(node);
      } else {
        node = far(node);
      }
    }
    while (!stack.empty()) {
      const Node* node = stack.back();
      stack.pop_back();
      if (!visit(node->entry->key, node->entry->value)) return;
      for (const Node* next = far(node); next != nullptr; next = near(next)) stack.push_back(next);
    }
  }

  NodePtr root_;
  std::size_t size_ = 0;
  [[no_unique_address]] Compare compare_;
};

}  // namespace smemu::store
