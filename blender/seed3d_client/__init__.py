"""Plain-Python side of the Seed3D Blender add-on: the REST client and asset.json kinematics (no bpy)."""

from .client import (
    FORMATS,
    GENERATORS,
    IMPORT_FILES,
    STAGES,
    TERMINAL,
    Client,
    ClientError,
    GenerationRequest,
    GenerationResult,
    StoppedWaiting,
    describe_generator,
    describe_validity,
    format_params,
    parse_params,
    parse_sse,
    run_generation,
)
from .kinematics import AssetInfo, JointInfo, blender_from_asset, match_objects, parse_asset

__all__ = [
    "FORMATS", "GENERATORS", "IMPORT_FILES", "STAGES", "TERMINAL", "AssetInfo", "Client", "ClientError",
    "GenerationRequest", "GenerationResult", "JointInfo", "StoppedWaiting", "blender_from_asset", "describe_generator",
    "describe_validity", "format_params", "match_objects", "parse_asset", "parse_params", "parse_sse", "run_generation",
]
