"""The runtime controller: state sets (clips and 1D blend spaces) and per-character
controllers that return a pose and the root motion each update, for simulations and learning
loops that drive characters."""
import collections

import numpy as np

from ._lib import ffi, lib, check, axis_code, InvalidArgumentError
from .clip import Clip

__all__ = ["State", "StateSet", "Controller", "Frame"]

State = collections.namedtuple("State", "name clips params loop param ranges")
State.__new__.__defaults__ = (None, True, 0.0, None)
State.__doc__ = """One state of a StateSet.

name: str (for lookups); clips: a Clip or a list of Clips (2 or more make a 1D blend space,
all looping, with strictly increasing params); params: each clip's position on the blend
axis (e.g. speeds); loop: play one gait cycle in a loop (else play once and hold the end);
param: the initial parameter; ranges: optional (start, end) frame ranges per clip (looping:
one cycle; default: detected from the feet)."""

Frame = collections.namedtuple("Frame", "rotations translations root_translation root_heading")
Frame.__doc__ = """What Controller.update returns: the local pose in place (rotations
(joints, 4), translations (joints, 3), as Clip.rotations and Clip.translations lay them out)
and the root motion of the step, in the character's frame at its start (root_translation
(3,), horizontal; root_heading, radians about up)."""

_MODES = {"crossfade": "MB_TRANSITION_CROSSFADE", "inertialize": "MB_TRANSITION_INERTIALIZE"}
_CURVES = {"smoothstep": "MB_CURVE_SMOOTHSTEP", "linear": "MB_CURVE_LINEAR"}


def _as_state(s):
    if isinstance(s, State):
        return s
    if isinstance(s, dict):
        return State(**s)
    raise TypeError(f"states: expected mblend.State or dict entries, got {type(s).__name__}")


class StateSet:
    """Immutable states built once from clips (analysed, cycles detected, root paths
    precomputed); shared by any number of Controllers. Raises mblend.Error naming the state
    and clip that failed."""

    def __init__(self, states, up_axis=None, root=None):
        states = [_as_state(s) for s in states]
        if not states:
            raise ValueError("states: at least one state")
        first = states[0].clips[0] if isinstance(states[0].clips, (list, tuple)) else states[0].clips
        if not isinstance(first, Clip):
            raise TypeError("State.clips: expected mblend.Clip objects")
        self.skeleton = first
        self.names = [s.name for s in states]
        keep = []  # every C array the desc points into, alive until the set is built
        cstates = ffi.new("mb_state_desc[]", len(states))
        for i, st in enumerate(states):
            self._fill_state(cstates[i], st, keep)
        d = ffi.new("mb_state_set_desc *")
        d.skeleton = first._skel
        d.states = cstates
        d.state_count = len(states)
        d.up_axis = axis_code(up_axis)
        if root is not None:
            keep.append(ffi.new("char[]", str(root).encode()))
            d.root = keep[-1]
        out = ffi.new("mb_state_set **")
        err = ffi.new("mb_error *")
        check(lib.mb_state_set_create(d, out, err), err, "StateSet")
        self._set = ffi.gc(out[0], lib.mb_state_set_destroy)
        # the set borrows the skeleton and the clips: keep their owners alive with it
        self._clips = [c for st in states for c in (st.clips if isinstance(st.clips, (list, tuple))
                                                    else [st.clips])]

    @staticmethod
    def _fill_state(cs, st, keep):
        clips = list(st.clips) if isinstance(st.clips, (list, tuple)) else [st.clips]
        if not all(isinstance(c, Clip) for c in clips):
            raise TypeError(f"state {st.name!r}: clips must be mblend.Clip objects")
        if not 1 <= len(clips) <= lib.MB_STATE_MAX_CLIPS:
            raise ValueError(f"state {st.name!r}: 1 to {lib.MB_STATE_MAX_CLIPS} clips")
        params = [0.0] * len(clips) if st.params is None else [float(p) for p in st.params]
        ranges = st.ranges or [None] * len(clips)
        if len(params) != len(clips) or len(ranges) != len(clips):
            raise ValueError(f"state {st.name!r}: one param and one range per clip")
        arr = ffi.new("mb_state_clip[]", len(clips))
        for j, c in enumerate(clips):
            arr[j].clip = c._clip
            arr[j].param = params[j]
            if ranges[j] is not None:
                arr[j].range.start, arr[j].range.end = (int(x) for x in ranges[j])
        name = ffi.new("char[]", str(st.name).encode()) if st.name is not None else ffi.NULL
        keep += [arr, name]
        cs.name = name
        cs.clips = arr
        cs.clip_count = len(clips)
        cs.loop = 1 if st.loop else 0
        cs.param = float(st.param)

    def __len__(self):
        return lib.mb_state_set_count(self._set)

    def find(self, name):
        """Index of the state named name, or -1."""
        return lib.mb_state_set_find(self._set, str(name).encode())

    def index(self, state):
        """A state index from an index or a name (InvalidArgumentError when there is none)."""
        if isinstance(state, str):
            i = self.find(state)
            if i < 0:
                raise InvalidArgumentError(f"no state named {state!r} (states: {self.names})")
            return i
        i = int(state)
        if not 0 <= i < len(self):
            raise InvalidArgumentError(f"state {i} is out of range (0 to {len(self) - 1})")
        return i

    def cycle_duration(self, state, param=0.0):
        """Seconds of one cycle of a state at a parameter value."""
        return lib.mb_state_set_cycle_duration(self._set, self.index(state), float(param))

    @property
    def up_axis(self):
        """The set's up axis: 0, 1, 2 = X, Y, Z."""
        return lib.mb_axis_index(lib.mb_state_set_up_axis(self._set))


class Controller:
    """One character playing a StateSet. update(dt) never allocates in C and the same calls
    give bit-identical poses."""

    def __init__(self, states, initial_state=0, initial_phase=0.0, max_tracks=0):
        if not isinstance(states, StateSet):
            raise TypeError("states: expected an mblend.StateSet")
        self.states = states
        d = ffi.new("mb_controller_desc *")
        d.states = states._set
        d.initial_state = states.index(initial_state)
        d.initial_phase = float(initial_phase)
        d.max_tracks = int(max_tracks)
        out = ffi.new("mb_controller **")
        err = ffi.new("mb_error *")
        check(lib.mb_controller_create(d, out, err), err, "Controller")
        self._c = ffi.gc(out[0], lib.mb_controller_destroy)
        skel = states.skeleton
        n = len(skel._node_names)
        self._joints = skel._joint_nodes
        self._pose_mem = ffi.new("mb_xform[]", n)
        self._pose = ffi.new("mb_pose *", {"joints": self._pose_mem, "count": n})
        self._pose_view = np.frombuffer(ffi.buffer(self._pose_mem), dtype=np.float32).reshape(n, 7)
        self._delta = ffi.new("mb_root_motion *")

    def request(self, state, duration=0.0, mode="crossfade", curve="smoothstep", sync=False,
                start_phase=0.0):
        """Goes to state (index or name): a cut (duration 0), a cross-fade (curve
        "smoothstep" or "linear"; sync: in gait phase) or an inertialization."""
        if mode not in _MODES or curve not in _CURVES:
            raise InvalidArgumentError(f"mode is one of {list(_MODES)}, curve one of "
                                       f"{list(_CURVES)}")
        t = ffi.new("mb_transition_desc *")
        t.duration = float(duration)
        t.mode = getattr(lib, _MODES[mode])
        t.curve = getattr(lib, _CURVES[curve])
        t.sync = 1 if sync else 0
        t.start_phase = float(start_phase)
        check(lib.mb_controller_request(self._c, self.states.index(state), t), None,
              "Controller.request")

    def set_param(self, state, value):
        """Sets a blend-space state's parameter (e.g. the speed)."""
        check(lib.mb_controller_set_param(self._c, self.states.index(state), float(value)),
              None, "Controller.set_param")

    def reset(self, state, phase=0.0):
        """Restarts in one state at a normalised position, with no transition."""
        check(lib.mb_controller_reset(self._c, self.states.index(state), float(phase)), None,
              "Controller.reset")

    def update(self, dt):
        """Advances by dt seconds and returns a Frame (arrays owned by Python)."""
        check(lib.mb_controller_update(self._c, float(dt), self._pose[0], self._delta), None,
              "Controller.update")
        p = self._pose_view[self._joints]
        return Frame(p[:, :4].copy(), p[:, 4:].copy(),
                     np.array(list(self._delta.translation), dtype=np.float32),
                     float(self._delta.heading))

    @property
    def status(self):
        """dict: state, transitioning, progress, phase, time, finished, tracks."""
        s = ffi.new("mb_controller_status *")
        check(lib.mb_controller_get_status(self._c, s), None, "Controller.status")
        return {"state": s.state, "transitioning": bool(s.transitioning),
                "progress": s.progress, "phase": s.phase, "time": s.time,
                "finished": bool(s.finished), "tracks": s.tracks}

    @property
    def weights(self):
        """float32 (states,): each state's blend weight (they sum to 1)."""
        n = len(self.states)
        out = np.empty(n, np.float32)
        check(lib.mb_controller_state_weights(self._c, ffi.from_buffer("float[]", out), n),
              None, "Controller.weights")
        return out
