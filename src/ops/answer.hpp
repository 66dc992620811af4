// What a control-plane operation answers: a JSON tree that the protocol layer serialises, or the
// JSON text itself, written by the handler straight from typed records (ops/json_writer.hpp). The
// List* operations write text: building and serialising a tree of a hundred summaries cost more
// than everything else they do.
#pragma once

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

  // The JSON text the client gets.
  std::string Text() const& { return written_ ? text_ : Serialised(); }
  std::string Text() && { return written_ ? std::move(text_) : Serialised(); }

  // The answer as a tree (tests, scenario steps, the micro-benchmarks): written text is parsed.
  nlohmann::json Tree() const { return written_ ? nlohmann::json::parse(text_) : tree_; }

 private:
  std::string Serialised() const {
    return tree_.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  nlohmann::json tree_;
  std::string text_;
  bool written_ = false;
};

}  // namespace smemu::ops
