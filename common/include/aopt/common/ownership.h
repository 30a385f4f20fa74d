// Who owns a directory, and whether another user could put files in it: the daemon's socket
// directory, its state directory, the caches (docs/api.md, "Access"). Messages name the path, the
// owner found (user name and uid), the mode and what was expected, as ssh's StrictModes does.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <sys/types.h>

namespace aopt::common {

// "root (uid 0)", "nobody (uid 65534)", or "uid 1234" when the user has no name.
std::string describe_uid(uid_t uid);
// The user's uid from a name or a number; aopt::error(invalid_argument) naming `what` when unknown.
uid_t uid_of_user(const std::string& user, const std::string& what);

// Why `dir` cannot be trusted as a directory only `owners` control, or empty when it can: it must
// be a directory (lstat: not a symbolic link), owned by one of `owners`, not writable by its group
// or others, in a parent that no other user can rename it out of (a parent writable by others
// must be sticky, as /tmp is). One sentence naming the directory, its owner and mode and what was
// expected; a missing directory is a reason too.
std::string untrusted_dir(const std::filesystem::path& dir, const std::vector<uid_t>& owners);

// Makes `dir` private to this process's user: created with `mode` (0700; 0750 to let the group
// read) when missing, parents as needed; when it exists and this user owns it, permission bits
// beyond `mode` are removed (logged). A directory of another user is an aopt::error(io_error)
// naming its owner and what to do when `refuse_foreign`, else left alone (returns false). Not a
// directory, or not creatable: aopt::error(io_error). `what` names it in messages ("state directory").
bool make_private_dir(const std::filesystem::path& dir, mode_t mode, const std::string& what, bool refuse_foreign);

}  // namespace aopt::common
