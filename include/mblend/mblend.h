/* mblend/mblend.h: the umbrella header: every public header of the library.
 *
 * The layers (docs/architecture.md): base.h and math.h are used by both sides;
 * runtime/ holds what a game calls every frame (sampling, the blend job, FK, skinning,
 * the controller); offline/ holds what prepares data (readers and writers, analysis and
 * preparation, clip blending, transition building and search, state-set and skin
 * building). A runtime header never includes an offline one. Include a single header to
 * depend on less; include this one for everything (the Python package's cffi module
 * does). */
#ifndef MBLEND_MBLEND_H
#define MBLEND_MBLEND_H

#include "base.h"
#include "math.h"

#include "runtime/anim.h"
#include "runtime/blend.h"
#include "runtime/skin.h"
#include "runtime/transition.h"
#include "runtime/controller.h"

#include "offline/clip_build.h"
#include "offline/file.h"
#include "offline/bvh.h"
#include "offline/mesh.h"
#include "offline/scene.h"
#include "offline/clip_map.h"
#include "offline/export.h"
#include "offline/source.h"
#include "offline/motion.h"
#include "offline/prepare.h"
#include "offline/blend_rotations.h"
#include "offline/transition_build.h"
#include "offline/match.h"
#include "offline/state_set.h"
#include "offline/skin_gen.h"
#include "offline/roles.h"
#include "offline/mirror.h"
#include "offline/retarget.h"

#endif
