// What a request may make aoptd read, and what text it may send (issue 33, findings 1, 4, 6):
// - `profile` is a name (a device class of this aoptd, or a profile of its profile directory),
//   never a path: `/dev/zero` is a quick 400, `/etc/shadow`-like files say nothing of themselves;
// - an uploaded package's aopt.json names no file outside the package (a root-owned 0600 file's
//   line never reaches a response, an event or the log);
// - malformed UTF-8 anywhere in a request is a 400 naming where, never a 500; a seeded fuzz of
//   invalid bytes in paths, queries, bodies and JSON strings (AOPT_UTF8_FUZZ_SEED,
//   AOPT_UTF8_FUZZ_REQUESTS) never gets a 500 and leaves the daemon serving.
#include <random>

#include "daemon_process.h"

namespace aopt::testing {
namespace {

using nlohmann::json;

// The error object of a reply, or null when the body is not JSON with one.
json error_object(const http_reply& r) {
  try {
    const auto j = json::parse(r.body);
    return j.contains("error") ? j["error"] : json();
  } catch (const std::exception&) {
    return json();
  }
}

// Expects status `status`, error code `code`, field `field`; returns the message.
std::string refused(const http_reply& r, int status, const std::string& code, const json& field) {
  EXPECT_EQ(r.status, status) << r.head << "\n" << r.body;
  const auto e = error_object(r);
  EXPECT_TRUE(e.is_object()) << r.body;
  if (!e.is_object()) return {};
  EXPECT_EQ(e.value("code", ""), code) << r.body;
  EXPECT_EQ(e["field"], field) << r.body;
  return e.value("message", "");
}

// add_custom's files as a client uploads them, with aopt.json's reference set to `reference`.
std::string package_with_reference(const std::string& reference) {
  auto files = common::read_tree(source_dir() / "examples" / "ops" / "add_custom");
  auto& spec = files.at("aopt.json");
  const std::string from = "\"reference\": \"baseline\"";
  spec.replace(spec.find(from), from.size(), "\"reference\": \"" + reference + "\"");
  return common::tar_write(files);
}

// A root-owned 0600 file under `dir` (created), holding `line`.
fs::path secret_file(const fs::path& dir, const std::string& name, const std::string& line) {
  fs::create_directories(dir);
  const fs::path f = dir / name;
  common::write_text_file(f, line + "\n");
  fs::permissions(f, fs::perms::owner_read | fs::perms::owner_write);
  return f;
}

long rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string l; std::getline(in, l);) {
    if (l.rfind("VmRSS:", 0) == 0) return std::atol(l.c_str() + 6);
  }
  return -1;
}

void cancel_all(const daemon_process& d) {
  const auto r = request(d.socket(), "GET", "/v1/jobs");
  if (r.status != 200) return;
  for (const auto& j : r.json()["jobs"]) (void)request(d.socket(), "POST", "/v1/jobs/" + j["id"].get<std::string>() + "/cancel");
}

TEST(daemon_confinement, AProfileIsANameNeverAPath) {
  temp_dir t;
  const auto secret = secret_file(t.path / "outside", "shadow", "root:SECRET_HASH_91c2e:19000:0:99999:7:::");
  daemon_process d(t.path);
  ASSERT_TRUE(d.start()) << d.log();
  const auto tar = add_custom_tar();
  auto submit_with = [&](const std::string& profile) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = request(d.socket(), "POST", "/v1/jobs?budget=1&priority=-100&profile=" + profile, tar, 8000);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 4.0) << profile << ": no quick answer";
    EXPECT_EQ(r.body.find("SECRET"), std::string::npos) << r.body;
    return r;
  };
  std::map<std::string, std::string> messages;
  for (const std::string& p : {secret.string(), (t.path / "outside" / "absent").string(), std::string("/etc/shadow"),
                               std::string("..%2F..%2F..%2Fetc%2Fshadow"), std::string(".."), std::string("a2.json"),
                               std::string("/proc/self/environ"), std::string("nope")}) {
    const auto m = refused(submit_with(p), 400, "invalid_argument", "profile");
    EXPECT_NE(m.find("known profiles: "), std::string::npos) << m;
    EXPECT_NE(m.find("910b4"), std::string::npos) << m;  // this aoptd's class
    EXPECT_NE(m.find("a2"), std::string::npos) << m;     // a profile of the profile directory
    messages[p] = m;
  }
  EXPECT_NE(messages["/etc/shadow"].find("not a profile name"), std::string::npos) << messages["/etc/shadow"];
  // An existing file and a missing one get the same answer: nothing tells them apart.
  std::string there = messages[secret.string()], absent = messages[(t.path / "outside" / "absent").string()];
  there.replace(there.find("shadow"), 6, "NAME");
  absent.replace(absent.find("absent"), 6, "NAME");
  EXPECT_EQ(there, absent);
  // A device that never ends (it drove aoptd to 9 GB with no answer) is refused unread.
  refused(submit_with("/dev/zero"), 400, "invalid_argument", "profile");
  EXPECT_TRUE(d.alive()) << d.log();
  EXPECT_LT(rss_kib(d.pid()), 1L << 20) << "aoptd grew past 1 GiB";
  EXPECT_EQ(request(d.socket(), "GET", "/v1/health").status, 200);
  // A name of this aoptd's devices is accepted.
  const auto ok = request(d.socket(), "POST", "/v1/jobs?budget=1&priority=-100&profile=910b4", tar);
  ASSERT_EQ(ok.status, 201) << ok.body;
  EXPECT_EQ(ok.json()["options"]["profile"], "910b4");
  cancel_all(d);
  EXPECT_EQ(d.log().find("SECRET"), std::string::npos);
}

TEST(daemon_confinement, ACalibratedProfileIsNamedByItsNameNotItsFile) {
  temp_dir t;
  auto p = json::parse(common::read_text_file(source_dir() / "sim" / "profiles" / "a2.json"));
  p["name"]["value"] = "a2-site";
  fs::create_directories(t.path / "profiles");
  common::write_text_file(t.path / "profiles" / "site.json", p.dump(1));
  daemon_process d(t.path);
  d.set_jobs_key("profile", "\"profiles/site.json\"");
  ASSERT_TRUE(d.start()) << d.log();
  const auto tar = add_custom_tar();
  const auto ok = request(d.socket(), "POST", "/v1/jobs?budget=1&priority=-100&profile=a2-site", tar);
  ASSERT_EQ(ok.status, 201) << ok.body;
  EXPECT_EQ(ok.json()["options"]["chip"], (t.path / "profiles" / "site.json").string());
  // Its file, even as configured, is a path: refused.
  const auto m = refused(request(d.socket(), "POST", "/v1/jobs?profile=" + (t.path / "profiles" / "site.json").string(), tar),
                         400, "invalid_argument", "profile");
  EXPECT_NE(m.find("a2-site"), std::string::npos) << m;
  cancel_all(d);
}

TEST(daemon_confinement, AReferenceOutsideThePackageNeverLeaks) {
  if (::getuid() != 0) GTEST_SKIP() << "the claim is about a daemon running as root reading root's 0600 file";
  temp_dir t;
  const auto secret = secret_file(t.path / "outside", "secret_ref.cpp", "int SECRET_LINE_4b1d = nope;");
  daemon_process d(t.path);
  ASSERT_TRUE(d.start()) << d.log();
  std::string up;
  for (int i = 0; i < 16; ++i) up += "../";
  std::vector<std::string> ids;
  for (const std::string& ref : {secret.string(), up + secret.string().substr(1)}) {
    const auto r = request(d.socket(), "POST", "/v1/jobs?budget=1", package_with_reference(ref));
    const auto m = refused(r, 422, "invalid_package", "body");
    EXPECT_NE(m.find("field 'reference'"), std::string::npos) << m;
    EXPECT_NE(m.find("is outside the directory of aopt.json"), std::string::npos) << m;
    EXPECT_EQ(r.body.find("SECRET"), std::string::npos) << r.body;
    if (r.status == 201) ids.push_back(r.json()["id"]);
  }
  // Had a job been accepted, its failure would have quoted the file: look everywhere.
  (void)wait_final(d, ids, 240);
  const auto list = request(d.socket(), "GET", "/v1/jobs");
  EXPECT_EQ(list.body.find("SECRET"), std::string::npos) << list.body;
  for (const auto& id : ids) {
    for (const auto& e : all_events(d, id)) EXPECT_EQ(e.dump().find("SECRET"), std::string::npos) << e.dump();
  }
  EXPECT_EQ(d.log().find("SECRET"), std::string::npos) << d.log();
}

TEST(daemon_confinement, InvalidUtf8AnywhereIsA400NamingWhere) {
  temp_dir t;
  daemon_process d(t.path);
  ASSERT_TRUE(d.start()) << d.log();
  const auto s = d.socket();
  const auto tar = add_custom_tar();
  // Was 500 internal (nlohmann's type_error 316 while answering 404 with the id in the message).
  auto m = refused(request(s, "GET", "/v1/jobs/%FF%FE"), 400, "invalid_utf8", "path");
  EXPECT_NE(m.find("byte 9 is 0xFF"), std::string::npos) << m;
  refused(raw_request(s, "GET /v1/jobs/\xC3\x28 HTTP/1.1\r\nHost: x\r\n\r\n"), 400, "invalid_utf8", "path");
  refused(request(s, "GET", "/v1/bank/%ED%A0%80"), 400, "invalid_utf8", "path");  // a surrogate
  refused(request(s, "GET", "/v1/jobs?%FF=1"), 400, "invalid_utf8", "\xEF\xBF\xBD");
  refused(request(s, "GET", "/v1/bank/search?q=%E2%82"), 400, "invalid_utf8", "q");
  refused(request(s, "POST", "/v1/jobs?budget=1&name=%C0%AF", tar), 400, "invalid_utf8", "name");  // overlong '/'
  // A bank import holding such bytes in a JSON string (was 500).
  m = refused(request(s, "POST", "/v1/bank/import", "{\"title\": \"a\"}\n{\"title\": \"\xFF\xFE\"}\n"), 400, "invalid_utf8", "body");
  EXPECT_NE(m.find("line 2"), std::string::npos) << m;
  // Escaped lone surrogates are valid UTF-8 text but not JSON strings: a 422 that is JSON.
  refused(request(s, "POST", "/v1/bank/import", "{\"title\": \"\\udcff\"}\n"), 422, "invalid_tuples", "body");
  // A string of a package's aopt.json (its file names: the tar reader refuses any but UTF-8).
  auto bad_spec = common::read_tree(source_dir() / "examples" / "ops" / "add_custom");
  bad_spec["aopt.json"].insert(bad_spec["aopt.json"].find("\"kernel\""), "\"description\": \"\xFF\xFE\",\n  ");
  refused(request(s, "POST", "/v1/jobs?budget=1", common::tar_write(bad_spec)), 422, "invalid_package", "body");
  // A name cut at 200 bytes stays whole characters (it was cut inside one, then failed to dump).
  const auto ok = request(s, "POST", "/v1/jobs?budget=1&priority=-100&name=" + std::string(199, 'a') + "%C3%A9", tar);
  ASSERT_EQ(ok.status, 201) << ok.body;
  EXPECT_EQ(ok.json()["name"], std::string(199, 'a'));
  EXPECT_EQ(request(s, "GET", "/v1/jobs").status, 200);
  cancel_all(d);
  EXPECT_TRUE(d.alive()) << d.log();
}

TEST(daemon_confinement, SeededInvalidBytesFuzzNeverGetsA500) {
  const char* seed_env = std::getenv("AOPT_UTF8_FUZZ_SEED");
  const char* n_env = std::getenv("AOPT_UTF8_FUZZ_REQUESTS");
  const unsigned seed = seed_env != nullptr ? static_cast<unsigned>(std::atol(seed_env)) : 3301u;
  const long n = n_env != nullptr ? std::atol(n_env) : 600;
  std::cout << "utf-8 fuzz: seed " << seed << ", " << n << " requests\n";
  temp_dir t;
  daemon_process d(t.path);
  ASSERT_TRUE(d.start()) << d.log();
  std::mt19937 rng(seed);
  // Bytes that are mostly not UTF-8: continuation bytes, lead bytes without followers,
  // overlongs, surrogates, bytes above U+10FFFF; sometimes a valid character among them.
  auto bad = [&] {
    static const std::vector<std::string> pieces = {"\x80", "\xBF", "\xC0\xAF", "\xC3", "\xC3\x28", "\xE0\x80\x80",
                                                    "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xF8", "\xFE", "\xFF",
                                                    "\xE2\x82", "\xC3\xA9", "a"};
    std::string s;
    for (unsigned k = 1 + rng() % 3; k > 0; --k) s += pieces[rng() % pieces.size()];
    if (rng() % 4 == 0) s += static_cast<char>(0x80 | (rng() & 0x7F));
    return s;
  };
  auto pct = [](const std::string& s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) out += std::string("%") + hex[c >> 4] + hex[c & 15];
    return out;
  };
  const std::vector<std::string> gets = {"/v1/jobs/", "/v1/jobs/j000001/", "/v1/bank/", "/v1/", "/v1/jobs/X/events",
                                         "/v1/jobs/X/report.md", "/v1/bank/search?q=", "/v1/jobs/j000001/events?from=",
                                         "/v1/bank?after=", "/v1/jobs?", "/v1/devices?x="};
  const std::string tuple_line = common::read_text_file(source_dir() / "tests" / "integration" / "data" / "pipe_all_tuple.jsonl");
  const auto files = common::read_tree(source_dir() / "examples" / "ops" / "add_custom");
  std::map<int, int> statuses;
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    http_reply r;
    std::string what;
    switch (rng() % 6) {
      case 0: {  // percent-encoded into a path or a query
        std::string target = gets[rng() % gets.size()];
        const auto x = target.find('X');
        if (x != std::string::npos) target.replace(x, 1, pct(bad()));
        else target += pct(bad());
        what = "GET " + target;
        r = request(d.socket(), "GET", target);
        break;
      }
      case 1: {  // raw bytes in the request target
        const std::string target = gets[rng() % gets.size()] + bad();
        what = "raw GET " + target;
        r = raw_request(d.socket(), "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n");
        break;
      }
      case 2: {  // a query parameter's name or value of a submission
        const std::vector<std::string> keys = {"name", "profile", "engine", "budget", "seed", "priority"};
        const std::string q = rng() % 3 == 0 ? pct(bad()) + "=1" : keys[rng() % keys.size()] + "=" + pct(bad());
        what = "POST /v1/jobs?" + q;
        r = request(d.socket(), "POST", "/v1/jobs?priority=-100&budget=1&" + q, common::tar_write(files));
        break;
      }
      case 3: {  // bytes inside a JSON string of a bank import, raw or as escapes
        std::string body = tuple_line;
        const auto at = body.find("\"title\": \"") + 10 + rng() % 20;
        body.insert(at, rng() % 3 == 0 ? std::string("\\ud") + "abcdef"[rng() % 6] + "ff" : bad());
        what = "POST /v1/bank/import";
        r = request(d.socket(), "POST", "/v1/bank/import", body);
        break;
      }
      case 4: {  // bytes inside a string of the package's aopt.json
        auto f = files;
        auto& spec = f.at("aopt.json");
        const std::vector<std::string> anchors = {"\"perf\"", "\"tail\"", "\"add_custom\"", "\"float16\""};
        const auto at = spec.find(anchors[rng() % anchors.size()]);
        spec.insert(at + 1 + rng() % 3, bad());
        what = "POST /v1/jobs (aopt.json)";
        r = request(d.socket(), "POST", "/v1/jobs?priority=-100&budget=1", common::tar_write(f));
        break;
      }
      default: {  // a name of the submission, and bytes in a case name of its aopt.json
        auto f = files;
        auto& spec = f.at("aopt.json");
        spec.insert(spec.find("\"small\"") + 1, bad());
        what = "POST /v1/jobs (name, case name)";
        r = request(d.socket(), "POST", "/v1/jobs?priority=-100&budget=1&name=" + pct(bad()), common::tar_write(f));
        break;
      }
    }
    ++statuses[r.status];
    ASSERT_NE(r.status, 0) << "request " << i << " (" << what << "): no answer\n" << d.log();
    EXPECT_NE(r.status, 500) << "request " << i << " (" << what << "): " << r.body;
    if (r.status >= 400) {
      EXPECT_TRUE(error_object(r).contains("code")) << "request " << i << " (" << what << "): " << r.body;
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "utf-8 fuzz: " << n << " requests in " << secs << " s; statuses:";
  for (const auto& [st, c] : statuses) std::cout << " " << st << "x" << c;
  std::cout << "\n";
  EXPECT_TRUE(d.alive()) << d.log();
  EXPECT_EQ(request(d.socket(), "GET", "/v1/health").status, 200);
  EXPECT_EQ(request(d.socket(), "GET", "/v1/jobs").status, 200);
  cancel_all(d);
}

}  // namespace
}  // namespace aopt::testing
