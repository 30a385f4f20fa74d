# Stand-in of <CANN>/ascend-toolkit/set_env.sh (tests/cann): the variables a CANN toolkit sets,
# pointing at this directory. Sourced by bash before every command of the `cann` backend.
# The stand-in runtime's libascendcl.so and libnnopbase.so are built, not checked in: the
# profile names their directory in AOPT_STANDIN_LIB64 ([environment]), which goes first on
# LD_LIBRARY_PATH where a real toolkit has its lib64/.
_aopt_standin_root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export ASCEND_TOOLKIT_HOME="$_aopt_standin_root"
export ASCEND_HOME_PATH="$_aopt_standin_root"
export ASCEND_OPP_PATH="$_aopt_standin_root/opp"
export ASCEND_AICPU_PATH="$_aopt_standin_root"
# AOPT_STANDIN_BIN (the tests' [environment]): where the built aopt-acl-run is, as an operator
# puts it on PATH.
export PATH="${AOPT_STANDIN_BIN:+$AOPT_STANDIN_BIN:}$_aopt_standin_root/bin:$PATH"
export LD_LIBRARY_PATH="${AOPT_STANDIN_LIB64:+$AOPT_STANDIN_LIB64:}$_aopt_standin_root/lib64:${LD_LIBRARY_PATH:-}"
unset _aopt_standin_root
