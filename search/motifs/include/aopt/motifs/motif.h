// Motifs: verified source transforms of AscendC kernels and tiling functions. Each motif has a
// forward direction (optimize) and an inverse (de-optimize); match() finds the sites where
// either applies, apply() turns one site into minimal text edits (the rest of every file stays
// byte-identical). Used by offline rewind (chains of inverse motifs on expert kernels) and by
// Stage II (the forward motif of a retrieved experience). See docs/motifs.md.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "aopt/motifs/edit.h"
#include "aopt/motifs/source.h"
#include "aopt/search/experience.h"

namespace aopt::motifs {

enum class direction { forward, inverse };  // forward = optimize, inverse = de-optimize
const char* to_string(direction d);

// A place where a motif applies, in one or both directions.
struct site {
  std::string motif;        // motif id
  std::string path;         // file of the anchor
  range anchor;             // bytes the site is about (a loop, a call, a constant, ...)
  bool forward = false;     // the forward direction applies here
  bool inverse = false;     // the inverse direction applies here
  std::string summary;      // one line: what would change
};

// The edits of one application, or why it does not apply.
struct outcome {
  bool ok = false;
  std::string reason;              // when !ok: what is missing, in one sentence
  std::vector<text_edit> edits;    // when ok: non-overlapping edits
  static outcome fail(std::string why) { return {false, std::move(why), {}}; }
  static outcome success(std::vector<text_edit> e) { return {true, {}, std::move(e)}; }
};

class motif {
 public:
  virtual ~motif() = default;
  virtual std::string_view id() const = 0;
  virtual std::string_view title() const = 0;
  virtual std::string_view description() const = 0;
  virtual search::bottleneck_class bottleneck() const = 0;
  // forward(inverse(x)) == x modulo whitespace at every inverse site (and inverse(forward(x))
  // at every forward site). False where docs/motifs.md says what differs.
  virtual bool exact_round_trip() const { return true; }
  virtual std::vector<site> match(const source_set& src) const = 0;
  // Edits for `s` in direction `d`; !ok with a reason when the site does not admit `d`
  // (or no longer matches the sources).
  virtual outcome apply(const source_set& src, const site& s, direction d) const = 0;
};

// Every motif, in a fixed order.
const std::vector<std::unique_ptr<motif>>& all_motifs();
const motif* find_motif(std::string_view id);

// Convenience: match, apply and diff in one go.
struct applied {
  bool ok = false;
  std::string reason;
  file_set files;    // the new file set (equal to the input when !ok)
  std::string diff;  // unified diff of the change
  std::vector<text_edit> edits;
};
applied apply_site(const motif& m, const source_set& src, const site& s, direction d);
// Sites of `m` that admit `d`.
std::vector<site> sites_for(const motif& m, const source_set& src, direction d);

}  // namespace aopt::motifs
