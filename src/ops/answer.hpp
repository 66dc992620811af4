// What a control-plane operation answers: a JSON tree that the protocol layer serialises, the
// JSON text itself, written by the handler straight from typed records (ops/json_writer.hpp), or a
// writer of that text that runs once the emulator's lock is released. The List* operations write
// text: building and serialising a tree of a hundred summaries cost more than everything else they
// do, and a page written after the lock leaves the lock to the next request sooner.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace smemu::ops {

class Answer {
 public:
  Answer(nlohmann::json tree) : tree_(std::move(tree)) {}  // NOLINT(runtime/explicit)

  // REQUIRES: `json_text` is one JSON object.
  static Answer Written(std::string json_text) {
    Answer answer(nlohmann::json{});
    answer.text_ = std::move(json_text);
    answer.written_ = true;
    return answer;
  }

  // REQUIRES: `writer` returns one JSON object, and reads only what it owns: it runs after the
  // emulator has released its lock, when the store and the ledger may be changing.
  static Answer WrittenLater(std::function<std::string()> writer) {
    Answer answer(nlohmann::json{});
    answer.writer_ = std::move(writer);
    answer.written_ = true;
    return answer;
  }

  // The JSON text the client gets.
  std::string Text() const& { return written_ ? WrittenText() : Serialised(); }
  std::string Text() && { return written_ && !writer_ ? std::move(text_) : Text(); }

  // The answer as a tree (tests, scenario steps, the micro-benchmarks): written text is parsed.
  nlohmann::json Tree() const { return written_ ? nlohmann::json::parse(WrittenText()) : tree_; }

 private:
  std::string Serialised() const {
    return tree_.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  std::string WrittenText() const { return writer_ ? writer_() : text_; }

  nlohmann::json tree_;
  std::string text_;
  std::function<std::string()> writer_;
  bool written_ = false;
};

}  // namespace smemu::ops
