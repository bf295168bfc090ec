/* Reads a BVH text from memory through the installed library and prints one number. */
#include <stdio.h>
#include <string.h>

#include <mblend/mblend.h>

int main(void)
{
    static const char text[] = "HIERARCHY\nROOT A\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation "
                               "Xrotation Yrotation\n End Site\n {\n  OFFSET 0 2 0\n }\n}\n"
                               "MOTION\nFrames: 1\nFrame Time: 0.5\n90 0 0\n";
    mb_skeleton *s;
    mb_clip *c;
    mb_error e;
    if (mb_bvh_read_mem(text, strlen(text), "consumer", NULL, &s, &c, &e) != MB_OK) {
        char buf[600];
        fprintf(stderr, "%s\n", mb_error_format(&e, buf, sizeof buf));
        return 1;
    }
    mb_xform x[2];
    float w[2][16];
    mb_pose p = {x, 2};
    mb_clip_frame_pose(s, c, 0, p);
    mb_fk(s, &p, w, 2);
    /* Z by 90 degrees turns the End Site (0,2,0) to (-2,0,0). */
    printf("%.3f %.3f\n", w[1][12], w[1][13]);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    return 0;
}
