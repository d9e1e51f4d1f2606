/* request.c — the caller's spec read once at the plan's entrance, and its facts (request.h). */
#include "request.h"

#include "body_check.h"
#include "error.h"

#include <stdlib.h>

cls_status cls_request_init(cls_request *request, const cls_spec *spec)
{
    *request = (cls_request){0};
    cls_status status = cls_spec_read(spec, &request->spec);
    if (status == CLS_OK) status = cls_spec_validate(&request->spec);
    if (status != CLS_OK) return status;
    const cls_spec *s = &request->spec;
    request->masks = s->mask_count ? s->mask_count : 1;
    request->depth = cls_mask_depth(s);
    request->volume = cls_spec_is_volume(s);
    request->in_double = cls_spec_in_double(s);
    request->body_writes_rows = s->body && cls_body_writes_rows(s->body);
    request->body_in_lanes = s->body && !cls_spec_is_volume(s) ? cls_body_in_lanes(s->body) : 0;
    request->body_row_lanes = request->body_in_lanes && request->body_writes_rows ? cls_body_row_lanes(s->body) : 0;
    if (!(request->values = cls_spec_mask_values(s, request->masks)))
        return cls_fail(CLS_ERR_OUT_OF_MEMORY, "out of memory copying the mask");
    const size_t all = (size_t)request->masks * s->mask_width * s->mask_height * request->depth;
    for (size_t t = 0; t < all; ++t)
        request->computed_taps += s->bake_coefficients != CLS_COEFFICIENTS_LITERALS || request->values[t] != 0.0f;
    return CLS_OK;
}

void cls_request_free(cls_request *request)
{
    free(request->values);
    request->values = NULL;
}
