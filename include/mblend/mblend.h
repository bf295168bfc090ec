/* mblend/mblend.h: the umbrella header. */
#ifndef MBLEND_MBLEND_H
#define MBLEND_MBLEND_H

#include "base.h"
#include "math.h"
#include "anim.h"
#include "bvh.h"
#include "blend.h"
#include "motion.h"
#include "prepare.h"
#include "transition.h"
#include "controller.h"
#include "mesh.h"
#include "skin.h"
#include "source.h"

#endif
