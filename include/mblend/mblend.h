/* mblend/mblend.h: the umbrella header. */
#ifndef MBLEND_MBLEND_H
#define MBLEND_MBLEND_H

#include "base.h"
#include "math.h"
#include "runtime/anim.h"
#include "offline/bvh.h"
#include "runtime/blend.h"
#include "offline/motion.h"
#include "offline/prepare.h"
#include "offline/transition_build.h"
#include "runtime/controller.h"
#include "offline/mesh.h"
#include "runtime/skin.h"
#include "offline/source.h"

#endif
