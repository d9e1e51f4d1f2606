/* axis.h — the axes of an image or a volume, as the generator, the models and the host name them. */
#ifndef CLS_AXIS_H
#define CLS_AXIS_H

typedef enum cls_axis { CLS_AXIS_X = 0, CLS_AXIS_Y = 1, CLS_AXIS_Z = 2 } cls_axis;

#endif
