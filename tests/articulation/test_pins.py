"""Parts that run on a pin turn about it, whatever label the segmenter guessed: a lever on its pin (labelled knob),
and a laptop screen on its hinge barrel (labelled door)."""

from __future__ import annotations

import numpy as np
import pytest

from seed3d.articulation import articulate
from seed3d.asset import Asset, Part
from seed3d.synth.primitives import box, cylinder, difference, union
from tests.articulation._helpers import FAST

Y = np.array([0.0, 1.0, 0.0])


def _joint(asset: Asset, child: str):  # type: ignore[no-untyped-def]
    return next(j for j in asset.joints if j.child == child)


def lever_on_a_pin() -> Asset:
    """A housing open at the top with a pin along Y; a stick with a hub round the pin (1 mm clearance)."""
    z = 0.03
    housing = difference(box([-0.06, -0.03, 0.0], [0.06, 0.03, 0.05]),
                         box([-0.055, -0.025, 0.005], [0.055, 0.025, 0.06]))
    pin = cylinder(0.004, 0.05, 32, Y, (0.0, -0.025, z))
    hub = difference(cylinder(0.009, 0.02, 32, Y, (0.0, -0.01, z)), cylinder(0.005, 0.03, 32, Y, (0.0, -0.015, z)))
    stick = box([-0.004, -0.004, z + 0.008], [0.004, 0.004, z + 0.15])
    return Asset("lever", [Part("body", union(housing, pin), label="body"),
                           Part("knob_0", union(hub, stick), label="knob")], joints_known=False)


def laptop_on_a_barrel() -> Asset:
    """A base slab; a screen standing up at its back edge on a hinge barrel (Y) resting 1 mm above the slab."""
    base = box([-0.16, -0.11, 0.0], [0.16, 0.11, 0.016])
    z = 0.016 + 0.006 + 0.001
    barrel = cylinder(0.006, 0.2, 48, Y, (-0.15, -0.1, z))
    screen = box([-0.156, -0.11, z], [-0.149, 0.11, z + 0.21])
    return Asset("laptop", [Part("body", base, label="body"),
                            Part("door_0", union(barrel, screen), label="door")], joints_known=False)


@pytest.mark.parametrize(("make", "child", "pivot"), [(lever_on_a_pin, "knob_0", (0.0, 0.03)),
                                                       (laptop_on_a_barrel, "door_0", (-0.15, 0.023))])
def test_a_part_on_a_pin_turns_about_the_pin(make, child: str, pivot: tuple[float, float]) -> None:  # type: ignore[no-untyped-def]
    out = articulate(make(), config=FAST)
    j = _joint(out, child)
    assert j.type == "revolute", out.metadata["articulation"]["parts"][child]
    assert abs(float(j.axis @ Y)) > 0.999
    assert np.hypot(j.origin[0] - pivot[0], j.origin[2] - pivot[1]) < 0.003
    assert j.upper - j.lower > 0.3  # it turns, as far as its housing or the base lets it
