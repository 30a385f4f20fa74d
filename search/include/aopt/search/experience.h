// The experience tuple as the search names it: the record itself is vocab's
// (aopt/vocab/experience.h, shared with storage/); these using-declarations keep the names the
// search code and its users spell (search::experience, search::to_json, ...).
#pragma once

#include "aopt/vocab/experience.h"

namespace aopt::search {

using vocab::all_bottleneck_classes;
using vocab::bottleneck_class;
using vocab::bottleneck_class_count;
using vocab::classify_bottleneck;
using vocab::content_id;
using vocab::experience;
using vocab::experience_embedding;
using vocab::experience_evidence;
using vocab::experience_from_json;
using vocab::file_format;
using vocab::finalize;
using vocab::format_time_ms;
using vocab::now_ms;
using vocab::parse_bottleneck_class;
using vocab::parse_experience_text;
using vocab::parse_file_format;
using vocab::parse_provenance;
using vocab::parse_time_ms;
using vocab::provenance;
using vocab::read_experience_file;
using vocab::to_json;
using vocab::to_json_array;
using vocab::to_jsonl;
using vocab::to_string;
using vocab::validate;

}  // namespace aopt::search
