/* policy_check.h — what the policy tests share: a valid spec of a 3x3 box (valid_spec.h), and a
 * spec resolved by a policy as the planner's entrance resolves it. */
#ifndef CLS_TEST_POLICY_CHECK_H
#define CLS_TEST_POLICY_CHECK_H

#include "policy.h"
#include "support/valid_spec.h"

/* spec resolved by policy; a spec the request refuses: its status. */
static cls_status resolve(const cls_kernel_policy *policy, const cls_spec *spec, cls_spec *resolved)
{
    cls_request request;
    const cls_status status = cls_request_init(&request, spec);
    if (status == CLS_OK) cls_policy_resolve(policy, &request, resolved);
    cls_request_free(&request);
    return status;
}

#endif
