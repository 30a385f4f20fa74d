// Experience tuples: content ids, JSON round trip, strict/liberal parsing with located errors,
// the paper's JSON format with and without a wrapper, JSONL, bottleneck classification.
#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/common/sha256.h"
#include "aopt/search/experience.h"

namespace aopt::search {
namespace {

experience sample() {
  experience e;
  e.title = "Enable double buffering";
  e.description = "BUFFER_NUM 1 -> 2";
  e.bottleneck = "serialized_pipes";
  e.code_diff = "-BUFFER_NUM = 1\n+BUFFER_NUM = 2\n";
  e.evidence = experience_evidence{"add_custom", 120.5, 80.25, "sim", "910b4"};
  e.motif = "double_buffer";
  e.origin = provenance::rewind;
  e.embedding = experience_embedding{"test-embed", {0.5f, -1.0f, 2.0f}};
  e.created_ms = 1700000000123;
  e.extra["source"] = "unit test";
  finalize(e);
  return e;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const aopt::error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Experience, ContentIdIsSha256OfTheLengthPrefixedFourFields) {
  const auto e = sample();
  common::sha256 h;
  h.field(e.title).field(e.description).field(e.bottleneck).field(e.code_diff);
  EXPECT_EQ(e.id, h.finish_hex());
  EXPECT_EQ(e.id.size(), 64u);
  // Field boundaries matter, metadata does not.
  EXPECT_NE(content_id("ab", "c", "x", "y"), content_id("a", "bc", "x", "y"));
  auto other = e;
  other.evidence.reset();
  other.origin = provenance::import;
  EXPECT_EQ(content_id(other), e.id);
  other.code_diff += " ";
  EXPECT_NE(content_id(other), e.id);
}

TEST(Experience, JsonRoundTripKeepsEveryField) {
  const auto e = sample();
  const auto j = to_json(e);
  EXPECT_EQ(j["created"], "2023-11-14T22:13:20.123Z");
  const auto back = experience_from_json(j, "test");
  EXPECT_EQ(back.id, e.id);
  EXPECT_EQ(back.title, e.title);
  EXPECT_EQ(back.code_diff, e.code_diff);
  ASSERT_TRUE(back.evidence);
  EXPECT_EQ(back.evidence->op, "add_custom");
  EXPECT_DOUBLE_EQ(back.evidence->slow_us, 120.5);
  EXPECT_DOUBLE_EQ(back.evidence->fast_us, 80.25);
  EXPECT_EQ(back.evidence->profile, "910b4");
  EXPECT_EQ(back.motif, "double_buffer");
  EXPECT_EQ(back.origin, provenance::rewind);
  ASSERT_TRUE(back.embedding);
  EXPECT_EQ(back.embedding->vector, (std::vector<float>{0.5f, -1.0f, 2.0f}));
  EXPECT_EQ(back.created_ms, e.created_ms);
  EXPECT_EQ(back.extra["source"], "unit test");
  EXPECT_TRUE(validate(back).empty());
}

TEST(Experience, StrictAboutTheFourFields) {
  nlohmann::json j = {{"title", "t"}, {"description", "d"}, {"bottleneck", "b"}, {"code_diff", 3}};
  EXPECT_EQ(message_of([&] { experience_from_json(j, "bank.json:4:3: entry 2"); }),
            "bank.json:4:3: entry 2: field 'code_diff': expected a string, found number");
  j.erase("code_diff");
  EXPECT_NE(message_of([&] { experience_from_json(j, "w"); }).find("field 'code_diff': missing"),
            std::string::npos);
  j["code_diff"] = "";
  j["title"] = "  ";
  EXPECT_EQ(message_of([&] { experience_from_json(j, "w"); }), "w: field 'title': is empty");
  j["title"] = "t";
  j["provenance"] = "magic";
  EXPECT_NE(message_of([&] { experience_from_json(j, "w"); }).find("field 'provenance'"), std::string::npos);
  j.erase("provenance");
  j["evidence"] = {{"slow_us", "fast"}};
  EXPECT_NE(message_of([&] { experience_from_json(j, "w"); }).find("field 'evidence.slow_us'"),
            std::string::npos);
  EXPECT_NE(message_of([&] { experience_from_json(nlohmann::json::array(), "w"); }).find("expected an object"),
            std::string::npos);
}

TEST(Experience, GivenIdIsIgnoredAndRecomputed) {
  nlohmann::json j = {{"title", "t"}, {"description", "d"}, {"bottleneck", "b"}, {"code_diff", "c"},
                      {"id", "forged"}};
  EXPECT_EQ(experience_from_json(j, "w").id, content_id("t", "d", "b", "c"));
}

TEST(Experience, ValidateReportsProblems) {
  auto e = sample();
  e.id = "0000";
  e.title = "";
  const auto p = validate(e);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0], "title is empty");
  EXPECT_EQ(p[1], "id does not match the content hash of the four fields");
}

const char* k_paper = R"([
  {"title": "A", "description": "da", "bottleneck": "MTE2 bound", "code_diff": "-a\n+b"},
  {"title": "B", "description": "db", "bottleneck": "scalar loop", "code_diff": "", "extra_field": 7}
])";

TEST(ExperienceFile, PaperArrayAndWrappers) {
  auto v = parse_experience_text(k_paper, "paper.json");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].title, "A");
  EXPECT_EQ(v[0].origin, provenance::import);
  EXPECT_EQ(v[1].extra["extra_field"], 7);
  const std::string wrapped = std::string(R"({"version": 1, "experiences": )") + k_paper + "}";
  EXPECT_EQ(parse_experience_text(wrapped, "w.json").size(), 2u);
  const std::string odd_key = std::string(R"({"meta": {"n": 2}, "whatever": )") + k_paper + "}";
  EXPECT_EQ(parse_experience_text(odd_key, "w.json", file_format::json).size(), 2u);
  const auto one = parse_experience_text(R"({"title": "S", "description": "", "bottleneck": "b", "code_diff": ""})",
                                         "one.json", file_format::automatic, provenance::rewind);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].origin, provenance::rewind);
}

TEST(ExperienceFile, ErrorsNameFileLineEntryAndField) {
  const std::string bad = "[\n  {\"title\": \"A\", \"description\": \"d\", \"bottleneck\": \"b\", \"code_diff\": \"\"},\n"
                          "  {\"title\": \"B\", \"description\": 5, \"bottleneck\": \"b\", \"code_diff\": \"\"}\n]";
  EXPECT_EQ(message_of([&] { parse_experience_text(bad, "bank.json"); }),
            "bank.json:3:3: entry 1: field 'description': expected a string, found number");
  EXPECT_NE(message_of([&] { parse_experience_text(R"({"n": 1})", "x.json"); }).find("no array of experience entries"),
            std::string::npos);
  EXPECT_NE(message_of([&] { parse_experience_text("[1, 2", "x.json"); }).find("x.json:"), std::string::npos);
  EXPECT_NE(message_of([&] { parse_experience_text("", "x.json"); }).find("empty"), std::string::npos);
}

TEST(ExperienceFile, JsonlWithCommentsAndErrors) {
  const std::string text =
      "# exported\n"
      "{\"title\": \"A\", \"description\": \"d\", \"bottleneck\": \"b\", \"code_diff\": \"\"}\n"
      "\n"
      "{\"title\": \"B\", \"description\": \"d\", \"bottleneck\": \"b\", \"code_diff\": \"\", \"provenance\": \"refinement\"}\n";
  auto v = parse_experience_text(text, "t.jsonl");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].origin, provenance::refinement);
  const std::string bad = text + "{\"title\": \"C\", \"description\": \"d\", \"code_diff\": \"\"}\n";
  EXPECT_NE(message_of([&] { parse_experience_text(bad, "t.jsonl"); })
                .find("t.jsonl:5: entry 2: field 'bottleneck': missing"),
            std::string::npos);
  EXPECT_NE(message_of([&] { parse_experience_text(text + "{broken\n", "t.jsonl", file_format::jsonl); })
                .find("t.jsonl:5: entry 2: malformed JSON line"),
            std::string::npos);
  // Our own export reads back identically.
  const auto again = parse_experience_text(to_jsonl(v), "again.jsonl");
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].id, v[0].id);
  EXPECT_EQ(parse_experience_text(to_json_array(v), "again.json").size(), 2u);
}

TEST(Bottleneck, ClassNamesAndProse) {
  EXPECT_EQ(parse_bottleneck_class("mte2_bound"), bottleneck_class::mte2_bound);
  EXPECT_EQ(parse_bottleneck_class("MTE3-bound"), bottleneck_class::mte3_bound);
  EXPECT_EQ(parse_bottleneck_class("serialised"), bottleneck_class::serialized_pipes);
  EXPECT_FALSE(parse_bottleneck_class("fast"));
  using v = std::vector<bottleneck_class>;
  EXPECT_EQ(classify_bottleneck("UB under-used"), v{bottleneck_class::ub_underused});
  EXPECT_EQ(classify_bottleneck("MTE2 and small copies: GM->UB"),
            (v{bottleneck_class::mte2_bound, bottleneck_class::ub_underused}));
  // A "label: explanation" bottleneck is classified by its label when the label names a class.
  EXPECT_EQ(classify_bottleneck("MTE2 bound: GM->UB copies are small"), v{bottleneck_class::mte2_bound});
  EXPECT_EQ(classify_bottleneck("Serialized pipes: copy-in, compute and copy-out take turns"),
            v{bottleneck_class::serialized_pipes});
  EXPECT_EQ(classify_bottleneck("Note: AscendC::DataCopy copies are small"), v{bottleneck_class::ub_underused});
  EXPECT_EQ(classify_bottleneck("Bank conflicts in UB slow the vector Add."),
            v{bottleneck_class::bank_conflict});
  EXPECT_EQ(classify_bottleneck("PipeBarrier<PIPE_ALL> serializes the pipes"),
            v{bottleneck_class::serialized_pipes});
  EXPECT_EQ(classify_bottleneck("single-core execution"), v{bottleneck_class::load_imbalance});
  EXPECT_EQ(classify_bottleneck("GetValue loop"), v{bottleneck_class::scalar_bound});
  EXPECT_TRUE(classify_bottleneck("something else entirely").empty());
  EXPECT_EQ(all_bottleneck_classes().size(), bottleneck_class_count);
  for (auto c : all_bottleneck_classes()) EXPECT_EQ(parse_bottleneck_class(to_string(c)), c);
}

TEST(Time, FormatAndParse) {
  EXPECT_EQ(format_time_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(parse_time_ms("2023-11-14T22:13:20.123Z"), 1700000000123);
  EXPECT_EQ(parse_time_ms("2023-11-14T22:13:20Z"), 1700000000000);
  EXPECT_FALSE(parse_time_ms("2023-11-14 22:13:20"));
  EXPECT_FALSE(parse_time_ms("yesterday"));
}

}  // namespace
}  // namespace aopt::search
