/* Private helpers shared by the mesh, scene and export files of the io layer. */
#ifndef MB_MESH_INTERNAL_H
#define MB_MESH_INTERNAL_H

#include <stddef.h>

#include "mblend/mesh.h"

#include "base/error_internal.h"


/* Column-major 4x4 inverse (computed in double); returns 0 when singular (a pivot below
 * 1e-12 of the largest entry) or not finite. */
int mb_mesh_invert4d_(const double m[16], double out[16]);
int mb_mesh_invert4_(const float m[16], float out[16]);

/* The rotation of a column-major matrix's 3x3 with its columns normalised (a uniform scale
 * drops out), as a unit quaternion x, y, z, w. */
void mb_mesh_quat_from_matrix_(const double m[16], double q[4]);

#endif
