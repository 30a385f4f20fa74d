// Stand-in of <CANN>/include/aclnn/acl_meta.h (tests/cann): what an installed aclnn_<op>.h
// includes. Here it is the stand-in runtime's own header (../../acl/standin_acl.h), which also
// declares the entry points the stand-in operator libraries call.
#pragma once

#include "../../../acl/standin_acl.h"
