/* policy_check.h — what the policy tests share: a valid spec of a 3x3 box, and a spec resolved
 * by a policy as the planner's entrance resolves it. */
#ifndef CLS_TEST_POLICY_CHECK_H
#define CLS_TEST_POLICY_CHECK_H

#include "policy.h"

static float box3[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

static cls_spec valid_spec(void)
{
    cls_spec spec;
    cls_spec_init(&spec);
    spec.coefficients = box3;
    return spec;
}

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
