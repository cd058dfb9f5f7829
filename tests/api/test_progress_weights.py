"""The job resource's overall progress: each stage takes the share of the bar it takes of the time on the job's
path (issue 57 item 9: a learned job sat at 11.2 % through most of its geometry stage), monotonic, from any thread."""

from __future__ import annotations

import itertools
import threading

import pytest

from api.worker import _Progress
from seed3d.errors import InvalidInputError
from seed3d.pipeline import BUILT_STAGES, POST_STAGES
from seed3d.progress import STAGE_SECONDS, OverallProgress, stage_weights

AUTO = ["program", *BUILT_STAGES, *POST_STAGES]  # what an auto job lists: the path is chosen before it reports


class Recorder:
    """The store the service's progress writes to."""

    def __init__(self) -> None:
        self.values: list[float] = []

    def set_progress(self, job_id: str, worker: str, stage: str | None, progress: float, message: str) -> bool:
        self.values.append(progress)
        return True


def test_the_learned_path_gives_geometry_most_of_the_bar() -> None:
    shown = OverallProgress(AUTO)
    assert shown("geometry", 0.0) == 0.0 and shown.path == "learned"  # no program report: the learned path
    table = STAGE_SECONDS["learned"]
    assert shown("geometry", 1.0) == pytest.approx(table["geometry"] / sum(table.values()))
    assert shown("geometry", 1.0) > 0.6  # it was 1/8 with equal shares
    assert shown("parts", 0.5) < shown("parts", 1.0) <= shown("texture", 0.0) + 1e-12
    assert shown("preview", 1.0) == pytest.approx(1.0)


def test_the_program_path_gives_nothing_to_the_stages_it_skips() -> None:
    shown = OverallProgress(AUTO)
    built = shown("program", 1.0)
    assert shown.path == "program" and 0.0 < built < 0.1
    assert shown("physics", 0.0) == pytest.approx(built)  # geometry .. articulation never run on this path
    assert shown("validate", 1.0) < 0.5 < shown("preview", 1.0) == pytest.approx(1.0)  # the turntable is most of it
    assert OverallProgress(AUTO, path="program")("geometry", 1.0) == pytest.approx(built)


def test_weights_sum_to_one_and_unknown_stages_share_equally() -> None:
    for path in STAGE_SECONDS:
        for n in range(1, len(AUTO) + 1):
            for stages in itertools.combinations(AUTO, n):
                assert sum(stage_weights(stages, path)) == pytest.approx(1.0)
    assert stage_weights(["scene"], "learned") == [1.0]
    assert stage_weights(["program"], "learned") == [1.0]  # all known ones weigh nothing: equal shares
    scene = OverallProgress(["scene"])
    assert scene("scene", 0.25) == 0.25 and scene("elsewhere", 1.0) == 0.25
    equal = OverallProgress(["a", "b"], weights=[1, 1])
    assert equal("b", 0.5) == 0.75 and equal("a", 1.0) == 0.75  # never back
    with pytest.raises(InvalidInputError, match="unknown path"):
        OverallProgress(AUTO, path="magic")
    with pytest.raises(InvalidInputError, match="one weight"):
        OverallProgress(["a", "b"], weights=[1])


def test_the_service_figure_stays_monotonic_below_100_from_two_threads() -> None:
    """Reports from a heartbeat thread and the job's own interleave: what is written never goes back."""
    store = Recorder()
    progress = _Progress(store, "job", "worker", [*BUILT_STAGES, *POST_STAGES])  # type: ignore[arg-type]
    go = threading.Barrier(2)

    def run(stage: str) -> None:
        go.wait()
        for k in range(200):
            progress(stage, k / 199, f"{stage} {k}")

    threads = [threading.Thread(target=run, args=(s,)) for s in ("geometry", "parts")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    progress("preview", 1.0, "done")
    assert store.values == sorted(store.values) and store.values[-1] == 99.0
    learned = STAGE_SECONDS["learned"]
    assert progress.value == 99.0
    assert store.values[0] <= 100 * learned["geometry"] / sum(learned.values()) + 0.1  # written rounded
