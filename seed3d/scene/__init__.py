"""Scenes from a sentence: layout planning (``plan``), placement (``solve``) and sim-ready assembly (``compose``).

Example::

    from seed3d.scene import generate_scene
    result = generate_scene("a kitchen with a fridge against the wall, a table with two chairs and a "
                            "microwave on the counter", seed=0, out="kitchen")
    result.report["checks"]["collision_free"], result.paths["urdf"]
    result.report["omissions"]  # what the sentence named that was left out or built as a stand-in, and why

``seed3d validate kitchen`` checks the written folder (PyBullet and MuJoCo load it, everything settles).
The layout search alone is ``seed3d.scene.solve.solve(plan, geometries, seed)`` (not re-exported here, so that
``seed3d.scene.solve`` stays the module).
"""

from seed3d.scene.compose import ComposeConfig, SceneResult, compose_scene, generate_scene
from seed3d.scene.omissions import MissingObjectsError
from seed3d.scene.plan import (
    PLAN_JSON_SCHEMA,
    PLAN_SCHEMA,
    PLAN_SCHEMA_VERSION,
    RELATION_TYPES,
    ROOM_TYPES,
    LayoutPlan,
    LLMPlanner,
    ObjectSpec,
    PlanError,
    Relation,
    Room,
    RulePlanner,
    plan_scene,
)
from seed3d.scene.solve import Layout, LayoutError, ObjectGeometry, Placement, SolverConfig

__all__ = [
    "PLAN_JSON_SCHEMA", "PLAN_SCHEMA", "PLAN_SCHEMA_VERSION", "RELATION_TYPES", "ROOM_TYPES", "ComposeConfig",
    "LLMPlanner", "Layout", "LayoutError", "LayoutPlan", "MissingObjectsError", "ObjectGeometry", "ObjectSpec",
    "Placement", "PlanError", "Relation", "Room", "RulePlanner", "SceneResult", "SolverConfig", "compose_scene",
    "generate_scene", "plan_scene",
]
