"""Progress that looks alive: a heartbeat for calls that cannot report from inside, and a job's overall figure.

Library code reports through callbacks (``seed3d.typed.ProgressCallback``: ``progress(fraction, message)``; the
pipeline's ``(stage, fraction, message)``). Most work reports from inside (per sampler step, extraction batch,
part, engine check). A single blocking call (pymeshlab's decimation, loading a model, one numpy pass over every
face) cannot: ``heartbeat`` reports for it through the same callback from a daemon thread while it runs.

``OverallProgress`` maps a job's ``(stage, fraction)`` reports onto one monotonic figure whose stages take the share
of the bar they take of the time (``STAGE_SECONDS``), as the REST service's job resource shows it.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from seed3d.errors import InvalidInputError
from seed3d.typed import ProgressCallback

log = logging.getLogger(__name__)

#: Seconds between two heartbeat reports.
HEARTBEAT_S = 1.0
#: The share of a heartbeat's span it reaches at most: it moves towards the step's end, never onto it (the caller
#: reports the end when the call returns).
HEARTBEAT_CEILING = 0.99


@contextmanager
def heartbeat(progress: ProgressCallback | None, start: float, end: float, message: str, expected_s: float,
              interval: float | None = None) -> Iterator[ProgressCallback]:
    """Report ``progress(fraction, "MESSAGE… N s")`` every ``interval`` seconds (default ``HEARTBEAT_S``) while the
    ``with`` block runs.

    The fraction moves from ``start`` towards ``end`` as ``1 − exp(−t / expected_s)`` of the span (``t``: seconds
    since the block began; at most ``HEARTBEAT_CEILING`` of it), so a call that takes ``expected_s`` shows 63 % of
    its step and one that takes much longer still moves, slower and slower, and never reaches the end. Reports come
    from a daemon thread; the block's own reports go through the callback this yields, which never lets the
    fraction go back. On leaving the block (returned or raised: the exception passes on) the thread is stopped and
    joined before ``with`` returns, and no report comes after it: every heartbeat call happens after the caller's
    last report before the block and before its first after it, never at the same time as another report made
    through the yielded callback, so the callback needs no lock of its own. An exception the callback raises in
    the thread stops the heartbeat (logged), not the call. ``progress`` None: nothing is reported.
    """
    interval = HEARTBEAT_S if interval is None else interval
    if not 0.0 <= start <= end:
        raise InvalidInputError(f"heartbeat needs 0 <= start <= end, got start={start}, end={end}")
    if not expected_s > 0 or not interval > 0:
        raise InvalidInputError(f"heartbeat needs expected_s > 0 and interval > 0, got {expected_s}, {interval}")
    if progress is None:
        yield lambda _f, _m="": None
        return
    lock = threading.Lock()
    stop = threading.Event()
    shown = [start]  # the highest fraction reported in the block (the heartbeat never goes below it)
    ended = [False]
    t0 = time.monotonic()

    def report(fraction: float, text: str = "") -> None:
        with lock:
            shown[0] = max(shown[0], float(fraction))
            progress(shown[0], text)

    def beat() -> None:
        while not stop.wait(interval):
            elapsed = time.monotonic() - t0
            share = min(-math.expm1(-elapsed / expected_s), HEARTBEAT_CEILING)
            with lock:
                if ended[0]:
                    return
                shown[0] = max(shown[0], start + (end - start) * share)
                try:
                    progress(shown[0], f"{message}… {elapsed:.0f} s")
                except Exception as exc:  # progress is advisory: a failing callback stops the beat, not the work
                    log.warning("heartbeat of %r stopped: its progress callback raised %r", message, exc)
                    return

    thread = threading.Thread(target=beat, name=f"heartbeat: {message[:40]}", daemon=True)
    thread.start()
    try:
        yield report
    finally:
        with lock:  # waits out a report in flight; none starts after this
            ended[0] = True
        stop.set()
        thread.join()


#: Seconds each stage takes, per path, at the default settings on 2 busy CPU cores (eval/results/progress.json:
#: "a small wooden cabinet", text, learned and program paths; ``python eval/bench_progress.py``): the share of the
#: overall figure each stage gets. The program path builds its object exactly and runs no geometry, parts, texture
#: or articulation stage; the learned path reports no ``program`` stage (choosing the path comes before its first
#: report). A stage not in the table (a scene job's ``scene``) weighs as the mean of the known ones present.
STAGE_SECONDS: dict[str, dict[str, float]] = {
    "learned": {"program": 0.0, "geometry": 220.0, "parts": 48.0, "texture": 15.0, "articulation": 15.0,
                "physics": 0.5, "export": 2.2, "validate": 3.3, "preview": 3.6},
    "program": {"program": 0.2, "geometry": 0.0, "parts": 0.0, "texture": 0.0, "articulation": 0.0,
                "physics": 0.2, "export": 0.8, "validate": 1.2, "preview": 3.9},
}


def stage_weights(stages: Sequence[str], path: str) -> list[float]:
    """The share (summing to 1) of the overall figure each of ``stages`` gets on ``path`` (``STAGE_SECONDS``);
    equal shares where the table knows none of them or gives them all nothing."""
    table = STAGE_SECONDS.get(path, {})
    known = [table[s] for s in stages if s in table]
    fill = sum(known) / len(known) if known and sum(known) > 0 else 1.0
    seconds = [table.get(s, fill) for s in stages]
    total = sum(seconds)
    if not total > 0:
        return [1.0 / len(stages)] * len(stages) if stages else []
    return [s / total for s in seconds]


class OverallProgress:
    """One monotonic figure in [0, 1] for a job's ``(stage, fraction)`` reports over ``stages`` in order, each
    stage weighted by ``stage_weights``.

    ``path`` (``learned`` or ``program``) picks the weights; None: the first report decides it (a ``program``
    report: the program path; any other stage: the learned path), as an ``auto`` job's path is chosen before it
    reports. ``weights`` (one per stage) replace the table's. A report of a stage not in ``stages`` leaves the
    figure where it is."""

    def __init__(self, stages: Sequence[str], path: str | None = None, weights: Sequence[float] | None = None
                 ) -> None:
        if path is not None and path not in STAGE_SECONDS:
            raise InvalidInputError(f"unknown path {path!r}; known: {', '.join(STAGE_SECONDS)}")
        if weights is not None and (len(weights) != len(stages) or not sum(weights) > 0
                                    or min(weights, default=0.0) < 0):
            raise InvalidInputError(f"need one weight >= 0 per stage ({len(stages)}), not all 0; got {weights}")
        self.stages, self.path, self.value = list(stages), path, 0.0
        self._weights = [] if weights is None else [w / sum(weights) for w in weights]
        self._starts = [sum(self._weights[:i]) for i in range(len(self._weights))]

    def figure(self, stage: str, fraction: float) -> float | None:
        """Where ``fraction`` of ``stage`` lies on the figure (None for a stage not in ``stages``); the first
        call fixes the path when none was given."""
        if stage not in self.stages:
            return None
        if not self._weights:
            self.path = self.path or ("program" if stage == "program" else "learned")
            self._weights = stage_weights(self.stages, self.path)
            self._starts = [sum(self._weights[:i]) for i in range(len(self._weights))]
        i = self.stages.index(stage)
        return min(self._starts[i] + self._weights[i] * min(max(float(fraction), 0.0), 1.0), 1.0)

    def __call__(self, stage: str, fraction: float) -> float:
        """Record a report; returns the overall figure (never lower than before)."""
        value = self.figure(stage, fraction)
        if value is not None:
            self.value = max(self.value, value)
        return self.value


__all__ = ["HEARTBEAT_S", "STAGE_SECONDS", "OverallProgress", "heartbeat", "stage_weights"]
