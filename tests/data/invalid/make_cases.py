#!/usr/bin/env python3
"""Regenerates tests/data/invalid/<case>/input.bvh from a small valid base file.

Usage: python3 tests/data/invalid/make_cases.py [out_dir]   (default: this folder)
Only input.bvh is written. Each expected_error (and expected_status) was produced by the
reader, then reviewed by hand: the message must say what is wrong and what was expected.
When a message changes on purpose, review the new text before updating the golden file.
"""
import os, sys
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))

HEAD = """HIERARCHY
ROOT Hips
{
\tOFFSET 0.0 0.0 0.0
\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
\tJOINT Spine
\t{
\t\tOFFSET 0.0 5.0 0.0
\t\tCHANNELS 3 Zrotation Yrotation Xrotation
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0.0 3.0 0.0
\t\t}
\t}
}
"""
ROWS = ["0.0 90.0 0.0 0.0 0.0 0.0 10.0 0.0 0.0",
        "0.5 90.0 0.0 5.0 0.0 0.0 12.0 0.0 0.0",
        "1.0 90.0 0.0 10.0 0.0 0.0 14.0 0.0 0.0"]

def motion(frames="3", ft="0.0333333", rows=ROWS):
    return "MOTION\nFrames: %s\nFrame Time: %s\n" % (frames, ft) + "".join(r + "\n" for r in rows)

BASE = HEAD + motion()
cases = {}
def case(name, text):
    assert name not in cases, name
    cases[name] = text

def rep(old, new, text=BASE, count=1):
    assert text.count(old) >= 1, old
    return text.replace(old, new, count)

# --- motion data ---
case("truncated_mid_frame", HEAD + motion(rows=ROWS[:2] + ["1.0 90.0 0.0 10.0"]))
case("truncated_at_frame_boundary", HEAD + motion(rows=ROWS[:2]))
case("frames_count_larger_than_data", HEAD + motion(frames="5"))
case("frames_count_smaller_than_data", HEAD + motion(frames="2"))
case("non_numeric_value", HEAD + motion(rows=[ROWS[0], "0.5 90.0 0.0 abc 0.0 0.0 12.0 0.0 0.0", ROWS[2]]))
case("glued_numbers", HEAD + motion(rows=[ROWS[0], ROWS[1], "1.0 90.0 0.0-7.5 10.0 0.0 0.0 14.0 0.0"]))
case("nan_value", HEAD + motion(rows=[ROWS[0], "0.5 90.0 0.0 5.0 nan 0.0 12.0 0.0 0.0", ROWS[2]]))
case("inf_value", HEAD + motion(rows=[ROWS[0], ROWS[1], "1.0 90.0 0.0 10.0 0.0 0.0 14.0 -inf 0.0"]))
case("value_overflows_float", HEAD + motion(rows=["0.0 1e39 0.0 0.0 0.0 0.0 10.0 0.0 0.0", ROWS[1], ROWS[2]]))
case("frame_time_zero", HEAD + motion(ft="0"))
case("frame_time_negative", HEAD + motion(ft="-0.0333333"))
case("frame_time_non_numeric", HEAD + motion(ft="fast"))
case("frames_count_negative", HEAD + motion(frames="-3"))
case("frames_count_too_large", HEAD + motion(frames="1000000000000"))
case("frames_huge_tiny_file", HEAD + motion(frames="40000000", rows=ROWS[:2]))
case("frames_count_not_integer", HEAD + motion(frames="3.0"))
case("missing_frames_line", HEAD + "MOTION\nFrame Time: 0.0333333\n" + "".join(r + "\n" for r in ROWS))
case("missing_frame_time_line", HEAD + "MOTION\nFrames: 3\n" + "".join(r + "\n" for r in ROWS))
# --- hierarchy ---
case("missing_close_brace", rep("\t\t}\n\t}\n}\n", "\t\t}\n\t}\n"))
case("extra_close_brace", rep("\t\t}\n\t}\n}\n", "\t\t}\n\t}\n}\n}\n"))
case("early_close_brace", rep("\t\tEnd Site", "\t}\n\t\tEnd Site"))
case("missing_open_brace", rep("\tJOINT Spine\n\t{\n", "\tJOINT Spine\n"))
case("unknown_channel", rep("CHANNELS 3 Zrotation Yrotation Xrotation", "CHANNELS 3 Zrotation Yrotation Wrotation"))
case("repeated_channel", rep("CHANNELS 3 Zrotation Yrotation Xrotation", "CHANNELS 3 Zrotation Yrotation Zrotation"))
case("channels_count_larger_than_names", rep("CHANNELS 3 Zrotation Yrotation Xrotation", "CHANNELS 4 Zrotation Yrotation Xrotation"))
case("channels_count_smaller_than_names", rep("CHANNELS 3 Zrotation Yrotation Xrotation", "CHANNELS 2 Zrotation Yrotation Xrotation"))
case("channels_count_7", rep("CHANNELS 6 Xposition", "CHANNELS 7 Xposition"))
case("channels_count_missing", rep("CHANNELS 3 Zrotation", "CHANNELS Zrotation"))
case("duplicate_joint_name", rep("JOINT Spine", "JOINT Hips"))
case("missing_offset", rep("\t\tOFFSET 0.0 5.0 0.0\n", ""))
case("missing_end_site_offset", rep("\t\t\tOFFSET 0.0 3.0 0.0\n", ""))
case("offset_too_few_values", rep("OFFSET 0.0 5.0 0.0", "OFFSET 0.0 5.0"))
case("offset_non_numeric", rep("OFFSET 0.0 5.0 0.0", "OFFSET 0.0 five 0.0"))
case("offset_nan", rep("OFFSET 0.0 5.0 0.0", "OFFSET 0.0 NaN 0.0"))
case("second_offset", rep("\t\tOFFSET 0.0 5.0 0.0\n", "\t\tOFFSET 0.0 5.0 0.0\n\t\tOFFSET 0.0 5.0 0.0\n"))
case("channels_after_child", rep("\t\tCHANNELS 3 Zrotation Yrotation Xrotation\n\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0.0 3.0 0.0\n\t\t}\n",
                                 "\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0.0 3.0 0.0\n\t\t}\n\t\tCHANNELS 3 Zrotation Yrotation Xrotation\n"))
case("end_site_with_channels", rep("\t\t\tOFFSET 0.0 3.0 0.0\n", "\t\t\tOFFSET 0.0 3.0 0.0\n\t\t\tCHANNELS 1 Xrotation\n"))
case("end_without_site", rep("End Site", "End"))
case("joint_without_name", rep("JOINT Spine", "JOINT"))
case("unknown_keyword", rep("\t\tOFFSET 0.0 5.0 0.0\n", "\t\tOFFSET 0.0 5.0 0.0\n\t\tLIMITS 0 90\n"))
# A second ROOT whose motion rows still hold the first ROOT's values only.
case("second_root_values_missing", BASE.replace("MOTION", HEAD.replace("HIERARCHY\n", "").replace("Hips", "Hips2").replace("Spine", "Spine2") + "MOTION"))
# A second ROOT that reuses a joint name of the first.
case("second_root_duplicate_name", BASE.replace("MOTION", HEAD.replace("HIERARCHY\n", "") + "MOTION"))
case("empty_file", "")
case("whitespace_only", " \n\t\r\n")
case("no_hierarchy", BASE.replace("HIERARCHY\n", ""))
case("no_root", BASE.replace("ROOT Hips\n", ""))
case("no_motion", HEAD)
case("motion_misspelled", rep("MOTION", "MOTON"))
case("binary_garbage", "\x7fELF\x02\x01\x01")
case("binary_gltf_given_as_bvh", "glTF\x02\x00\x00\x00\x10\x00\x00\x00JSON{}")
case("frames_glued_not_a_number", HEAD + "MOTION\nFrames:x3\nFrame Time: 0.0333333\n" + "".join(r + "\n" for r in ROWS))
case("frame_time_glued_not_a_number", HEAD + "MOTION\nFrames:3\nFrame Time:0.03s\n" + "".join(r + "\n" for r in ROWS))

# --- more edge cases ---
case("no_channels_frames_nonzero", HEAD.replace("CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation", "CHANNELS 0")
     .replace("CHANNELS 3 Zrotation Yrotation Xrotation", "CHANNELS 0") + "MOTION\nFrames: 40000000\nFrame Time: 0.0333333\n")
case("number_too_long", HEAD + motion(rows=[ROWS[0], "0.5 90.0 0." + "0" * 500 + "1 5.0 0.0 0.0 12.0 0.0 0.0", ROWS[2]]))
case("bom_then_error", "\ufeff" + BASE.replace("HIERARCHY", "HIERARHY"))
case("cr_only_line_endings_error", rep("OFFSET 0.0 5.0 0.0", "OFFSET 0.0 5.0 x").replace("\n", "\r"))
case("crlf_line_endings_error", HEAD.replace("\n", "\r\n") + motion(rows=ROWS[:2] + ["1.0 90.0 0.0 10.0 0.0 0.0 14.0 0.0 0.0 0.0"]).replace("\n", "\r\n"))
case("joint_name_too_long", rep("JOINT Spine", "JOINT " + "S" * 130))
case("end_site_with_child", rep("\t\t\tOFFSET 0.0 3.0 0.0\n", "\t\t\tOFFSET 0.0 3.0 0.0\n\t\t\tJOINT Tip\n\t\t\t{\n\t\t\t\tOFFSET 0 1 0\n\t\t\t}\n"))
case("unexpected_open_brace", rep("\t\tOFFSET 0.0 5.0 0.0\n", "\t\tOFFSET 0.0 5.0 0.0\n\t\t{\n"))
case("channel_name_outside_channels", rep("\t\t\tOFFSET 0.0 3.0 0.0\n", "\t\t\tOFFSET 0.0 3.0 0.0 Xrotation\n"))
case("file_ends_after_frame_time_label", HEAD + "MOTION\nFrames: 3\nFrame Time:\n")
case("file_ends_inside_offset", HEAD.split("\tJOINT Spine")[0] + "\tJOINT Spine\n\t{\n\t\tOFFSET 0.0 5.0\n")
case("control_char_in_name", rep("JOINT Spine", "JOINT Sp\x01ine"))
case("second_channels_line", rep("\t\tCHANNELS 3 Zrotation Yrotation Xrotation\n", "\t\tCHANNELS 3 Zrotation Yrotation Xrotation\n\t\tCHANNELS 1 Xrotation\n"))
case("frame_time_overflows_double", HEAD + motion(ft="1e400"))

# > MB_MAX_JOINTS (4096) joints, flat under the root, ~100 KB.
lines = ["HIERARCHY", "ROOT Hips", "{", "OFFSET 0 0 0", "CHANNELS 3 Zrotation Yrotation Xrotation"]
for i in range(1, 4101):
    lines.append("JOINT j%d{OFFSET 0 1 0}" % i)
lines += ["}", "MOTION", "Frames: 0", "Frame Time: 0.01", ""]
case("too_many_joints", "\n".join(lines))

for name, text in cases.items():
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "input.bvh"), "w", newline="") as f:
        f.write(text)
print(len(cases), "cases")
