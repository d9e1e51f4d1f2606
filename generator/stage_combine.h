/* stage_combine.h — how a staged body's output combines the filter's input with its last stage's
 * result (internal): the top-hats' subtraction, which a combination kernel, the last van Herk pass
 * (van_herk.h) or the fused kernel (staged_body.h) computes. */
#ifndef CLS_STAGE_COMBINE_H
#define CLS_STAGE_COMBINE_H

typedef enum cls_stage_combine {
    CLS_COMBINE_NONE = 0,           /* the last stage writes the output */
    CLS_COMBINE_INPUT_MINUS_RESULT, /* output = input - result (a white top-hat) */
    CLS_COMBINE_RESULT_MINUS_INPUT, /* output = result - input (a black top-hat) */
} cls_stage_combine;

#endif
