"""Helpers shared by the scene tests."""

from __future__ import annotations

from seed3d.scene.plan import LayoutPlan


def rels(plan: LayoutPlan) -> set[str]:
    """The plan's relations as text ("on(lamp, desk)"), for set comparisons."""
    return {str(r) for r in plan.relations}
