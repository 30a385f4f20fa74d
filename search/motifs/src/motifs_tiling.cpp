#include "motifs_impl.h"
namespace aopt::motifs::detail {
void add_tiling_motifs(std::vector<std::unique_ptr<motif>>&) {}
}  // namespace aopt::motifs::detail
