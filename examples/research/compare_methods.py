"""The seed paper's experiment, runnable: how much do blending methods differ on real motion?

Loads a walk and a run (CMU takes from ../shared/data/bvh by default), finds one gait cycle in
each (the library's rule, as `mblend blend`), samples both cycles at the same phases, and
blends every joint with mblend's log/exp method (eigenvector reference, tangent-space mean),
with nlerp (what most engines ship) and with the Karcher (geodesic) mean, at several weights.
Writes three plots:

  method_differences.png  per joint: mean angle of nlerp and Karcher away from log/exp
  eigen_gaps.png          per joint: the smallest relative eigen-gap over the cycle (how well
                          defined the reference quaternion is; below 1e-3 it is not)
  root_paths.png          top view of the root path of the walk, the run and the
                          phase-aligned blends (run + walk = jog)

Usage (after the README's set-up command):
  PYTHONPATH=build/python /usr/bin/python3 examples/research/compare_methods.py [-o DIR]
      [--walk FILE] [--run FILE] [--weights 0.25,0.5,0.75]
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import mblend  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "..", "shared", "data", "bvh")
METHODS = ("logexp", "nlerp", "karcher")


def angle(a, b):
    """Radians between the rotations of quaternion arrays a and b (sign-blind). The atan2
    form: 2 arccos |a . b| would turn float32 rounding (|q| = 1 +- 1e-7) into 0.05 degrees."""
    a = a.astype(np.float64) / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b.astype(np.float64) / np.linalg.norm(b, axis=-1, keepdims=True)
    s = np.where(np.sum(a * b, axis=-1, keepdims=True) < 0, -1.0, 1.0)
    return 2 * np.arctan2(np.linalg.norm(a - s * b, axis=-1), np.linalg.norm(a + s * b, axis=-1))


def cycle_rotations(clip, cycle, frames):
    """The clip's local rotations at `frames` evenly spaced phases of its cycle."""
    ft = clip.frame_time
    t = (cycle["start"] + np.arange(frames) / frames * (cycle["end"] - cycle["start"])) * ft
    rot, _ = clip.sample(t)
    return rot  # (frames, joints, 4)


def experiment(walk, run, weights, frames=60):
    """Per weight: per-joint mean angles of nlerp and Karcher from log/exp, per-joint minimum
    eigen-gap, and the blended clip's root path."""
    cyc = mblend.select_cycles([walk, run])
    q = np.stack([cycle_rotations(walk, cyc[0], frames), cycle_rotations(run, cyc[1], frames)])
    out = []
    for w in weights:
        wv = np.array([1 - w, w])
        res = {m: mblend.blend_rotations(q, wv, method=m) for m in METHODS}
        _, diag = mblend.blend_rotations(q, wv, diagnostics=True)
        out.append({
            "weight": w,
            "nlerp": np.degrees(angle(res["nlerp"], res["logexp"]).mean(axis=0)),
            "karcher": np.degrees(angle(res["karcher"], res["logexp"]).mean(axis=0)),
            "gap": diag["eigen_gap"].min(axis=0),
            "spread": np.degrees(diag["max_angle"].max(axis=0)),
            "path": mblend.blend([walk, run], wv).positions()[:, 0],
        })
    return cyc, out


def plot_differences(names, results, path):
    fig, ax = plt.subplots(figsize=(11, 4.2))
    x = np.arange(len(names))
    width = 0.8 / (2 * len(results))
    for k, r in enumerate(results):
        ax.bar(x + (2 * k) * width, r["nlerp"], width, label=f"nlerp, run weight {r['weight']:g}")
        ax.bar(x + (2 * k + 1) * width, r["karcher"], width, hatch="//",
               label=f"Karcher, run weight {r['weight']:g}")
    ax.set_yscale("log")
    ax.set_ylim(bottom=1e-6)
    ax.set_xticks(x + 0.4 - width / 2, names, rotation=70, fontsize=7)
    ax.set_ylabel("mean angle from log/exp (degrees)")
    ax.set_title("How far nlerp and the Karcher mean land from mblend's log/exp blend, per joint")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_gaps(names, results, path):
    fig, ax = plt.subplots(figsize=(11, 3.8))
    for r in results:
        ax.plot(names, np.maximum(r["gap"], 1e-8), "o-", ms=3, label=f"run weight {r['weight']:g}")
    ax.axhline(1e-3, color="k", lw=0.8, ls="--", label="ill-defined below 1e-3")
    ax.set_yscale("log")
    ax.tick_params(axis="x", rotation=70, labelsize=7)
    ax.set_ylabel("smallest relative eigen-gap")
    ax.set_title("How well defined the reference quaternion is over the cycle, per joint")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_paths(walk, run, cyc, results, up, path):
    h = [a for a in range(3) if a != up]
    fig, ax = plt.subplots(figsize=(6, 5))
    for clip, c, label in ((walk, cyc[0], "walk"), (run, cyc[1], "run")):
        p = clip.positions(slice(c["start"], c["end"] + 1))[:, 0]
        p = p - p[0]
        ax.plot(p[:, h[0]], p[:, h[1]], lw=2, label=f"{label} cycle ({c['seconds']:.2f} s)")
    for r in results:
        p = r["path"] - r["path"][0]
        ax.plot(p[:, h[0]], p[:, h[1]], "--", label=f"blend, run weight {r['weight']:g}")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("horizontal axis 1 (file units)")
    ax.set_ylabel("horizontal axis 2 (file units)")
    ax.set_title("Root path over one cycle (top view)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description="Compare log/exp, nlerp and Karcher blends on a "
                                 "walk and a run; writes three PNG plots.")
    ap.add_argument("--walk", default=os.path.join(SHARED, "cmu_02_01_walk.bvh"))
    ap.add_argument("--run", default=os.path.join(SHARED, "cmu_02_03_run.bvh"))
    ap.add_argument("--weights", default="0.25,0.5,0.75", help="run weights, comma-separated")
    ap.add_argument("-o", "--out", default="out/research", help="folder for the plots")
    a = ap.parse_args()
    walk, run = mblend.load(a.walk), mblend.load(a.run)
    weights = [float(x) for x in a.weights.split(",")]
    cyc, results = experiment(walk, run, weights)
    os.makedirs(a.out, exist_ok=True)
    names = walk.joint_names
    plot_differences(names, results, os.path.join(a.out, "method_differences.png"))
    plot_gaps(names, results, os.path.join(a.out, "eigen_gaps.png"))
    plot_paths(walk, run, cyc, results, mblend.analyze(walk)["up_axis"], os.path.join(a.out, "root_paths.png"))
    for r in results:
        j = int(np.argmax(r["nlerp"]))
        print(f"run weight {r['weight']:g}: nlerp differs most at {names[j]} "
              f"({r['nlerp'][j]:.3g} deg mean), Karcher at most {r['karcher'].max():.2g} deg; "
              f"smallest eigen-gap {r['gap'].min():.3g}, widest spread {r['spread'].max():.1f} deg")
    print(f"wrote {a.out}/method_differences.png, eigen_gaps.png, root_paths.png")


if __name__ == "__main__":
    main()
