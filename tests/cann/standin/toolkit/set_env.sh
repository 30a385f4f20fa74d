# Stand-in of <CANN>/ascend-toolkit/set_env.sh (tests/cann): the variables a CANN toolkit sets,
# pointing at this directory. Sourced by bash before every command of the `cann` backend.
_aopt_standin_root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export ASCEND_TOOLKIT_HOME="$_aopt_standin_root"
export ASCEND_HOME_PATH="$_aopt_standin_root"
export ASCEND_OPP_PATH="$_aopt_standin_root/opp"
export ASCEND_AICPU_PATH="$_aopt_standin_root"
export PATH="$_aopt_standin_root/bin:$PATH"
export LD_LIBRARY_PATH="$_aopt_standin_root/lib64:${LD_LIBRARY_PATH:-}"
unset _aopt_standin_root
