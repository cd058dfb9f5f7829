"""Handheld tools and small devices move as the real ones do: pivots open, temples fold, buttons press."""

from __future__ import annotations

import numpy as np
import pytest

from seed3d.asset import Asset
from seed3d.synth import generate
from seed3d.synth.kinematics import interference, posed_meshes
from seed3d.synth.primitives import signed_volume

TOOLS = ("scissors", "pliers", "eyeglasses", "stapler", "pen", "knife", "usb", "lighter", "remote", "phone", "mouse",
         "switch", "keyboard")


def _joint(asset: Asset, child: str):  # type: ignore[no-untyped-def]
    return next(j for j in asset.joints if j.child == child)


def _grams(asset: Asset) -> float:
    return 1000 * sum(signed_volume(p.mesh) * p.physical.density for p in asset.parts)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("kind", ["scissors", "pliers"])
def test_halves_turn_about_the_pivot_and_open_the_blades(kind: str, seed: int) -> None:
    a = generate(kind, seed)
    j = _joint(a, "half_b")
    assert j.type == "revolute" and np.allclose(np.abs(j.axis), [0, 0, 1]) and j.lower == 0.0
    rest = a.part("half_b").mesh
    opened = posed_meshes(a, {j.name: j.upper})
    # the pivot stays put: points on the axis do not move, the tip swings sideways by about 2 L sin(θ/2)
    tip = rest.vertices[np.argmax(rest.vertices[:, 0])]
    moved_tip = opened["half_b"].vertices[np.argmax(rest.vertices[:, 0])]
    reach = np.hypot(*(tip[:2] - j.origin[:2]))
    assert np.linalg.norm(moved_tip - tip) == pytest.approx(2 * reach * np.sin(j.upper / 2), rel=1e-6)
    assert moved_tip[1] > tip[1] + 0.01  # the upper blade (jaw) opens towards +Y
    # the handles spread apart as the blades open (the lower half's handle is on +Y, the upper's on -Y)
    hb_rest, hb_open = a.part("handle_b").mesh.bounds, opened["handle_b"].bounds
    assert hb_open[0][1] < hb_rest[0][1] - 0.005
    assert a.part("handle_a").mesh.bounds[0][1] > a.part("handle_b").mesh.bounds[1][1]
    for v in np.linspace(0, j.upper, 6):
        assert not interference(a, j.name, float(v))


def test_scissors_and_pliers_open_as_far_as_real_ones() -> None:
    for seed in range(4):
        s, p = generate("scissors", seed), generate("pliers", seed)
        assert 50 <= np.rad2deg(_joint(s, "half_b").upper) <= 80
        assert 20 <= np.rad2deg(_joint(p, "half_b").upper) <= 40
        assert 20 < _grams(s) < 150 and 60 < _grams(p) < 400


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_eyeglass_temples_fold_inward_behind_the_lenses(seed: int) -> None:
    a = generate("eyeglasses", seed)
    front = a.part("front").mesh.bounds
    for name, side in (("temple_left", 1), ("temple_right", -1)):
        j = _joint(a, name)
        assert j.type == "revolute" and j.upper >= np.deg2rad(60)
        rest = a.part(name).mesh.bounds
        assert rest[1][0] < front[0][0] + 0.01  # open: it runs back from the front
        folded = posed_meshes(a, {j.name: j.upper})[name].bounds
        # folded: it lies across, behind the front, on the way to the other side
        assert folded[1][0] < front[1][0] and folded[0][0] > rest[0][0] + 0.05
        assert side * folded.mean(axis=0)[1] < side * rest.mean(axis=0)[1] - 0.03
        assert not interference(a, j.name, j.upper)
    assert 10 < _grams(a) < 60


def test_stapler_arm_lifts_at_the_front_about_the_back_pin() -> None:
    for seed in range(3):
        a = generate("stapler", seed)
        j = _joint(a, "arm")
        rest = a.part("arm").mesh.bounds
        up = posed_meshes(a, {j.name: j.upper})["arm"].bounds
        assert j.origin[0] < rest[0][0] + 0.02  # hinged at the back
        assert up[1][2] > rest[1][2] + 0.05
        # at rest the arm hovers over the base (held by its spring), clear of the anvil
        assert rest[0][2] > a.part("anvil").mesh.bounds[1][2] + 0.001
        assert 100 < _grams(a) < 700


@pytest.mark.parametrize("seed", range(6))
def test_pen_button_clicks_into_the_barrel_or_cap_pulls_clear(seed: int) -> None:
    a = generate("pen", seed)
    if any(p.name == "button" for p in a.parts):
        j = _joint(a, "button")
        assert j.type == "prismatic" and 0.002 <= j.upper <= 0.005
        pressed = posed_meshes(a, {j.name: j.upper})["button"]
        assert pressed.bounds[0][0] - a.part("button").mesh.bounds[0][0] == pytest.approx(j.upper)
        assert not interference(a, j.name, j.upper)
    else:
        j = _joint(a, "cap")
        off = posed_meshes(a, {j.name: j.upper})["cap"].bounds
        tip_end = a.part("tip").mesh.bounds[1][0]
        assert off[0][0] > tip_end  # pulled clear of the writing tip
        assert a.part("cap").mesh.bounds[1][0] > tip_end  # and covering it at rest
    assert 3 < _grams(a) < 40


def test_knife_blade_swings_out_of_the_handle() -> None:
    for seed in range(3):
        a = generate("knife", seed)
        j = _joint(a, "blade")
        assert j.type == "revolute" and j.upper == pytest.approx(np.pi)
        handle = a.part("handle").mesh.bounds
        closed = a.part("blade").mesh.bounds
        assert closed[0][0] >= handle[0][0] and closed[1][0] <= handle[1][0]  # folded inside
        opened = posed_meshes(a, {j.name: j.upper})["blade"].bounds
        assert opened[1][0] > handle[1][0] + 0.05
        for v in np.linspace(0, np.pi, 7):
            assert not interference(a, j.name, float(v))


@pytest.mark.parametrize("style", ["cap", "swivel"])
def test_usb_cap_pulls_off_or_cover_swivels_round(style: str) -> None:
    a = generate("usb", 0, {"style": style})
    plug = a.part("plug").mesh.bounds
    if style == "cap":
        j = _joint(a, "cap")
        assert j.type == "prismatic" and np.allclose(j.axis, [1, 0, 0])
        assert a.part("cap").mesh.bounds[1][0] > plug[1][0]  # it covers the plug at rest
        assert posed_meshes(a, {j.name: j.upper})["cap"].bounds[0][0] > plug[1][0]  # and clears it pulled off
    else:
        j = _joint(a, "cover")
        assert j.type == "revolute" and j.upper == pytest.approx(np.pi)
        cover = a.part("cover").mesh.bounds
        assert cover[1][0] > plug[1][0]
        turned = posed_meshes(a, {j.name: j.upper})["cover"].bounds
        assert turned[1][0] < a.part("body").mesh.bounds[0][0] + 0.02  # swung round behind the body
        for v in np.linspace(0, np.pi, 7):
            assert not interference(a, j.name, float(v))
    assert 4 < _grams(a) < 30


def test_lighter_wheel_spins_on_its_axle_and_lever_presses_down() -> None:
    for seed in range(3):
        a = generate("lighter", seed)
        wheel, lever = _joint(a, "wheel"), _joint(a, "lever")
        assert wheel.type == "continuous" and np.allclose(np.abs(wheel.axis), [0, 1, 0])
        centre = a.part("wheel").mesh.bounds.mean(axis=0)
        assert centre[[0, 2]] == pytest.approx(wheel.origin[[0, 2]], abs=2e-4)
        for v in np.linspace(0, 2 * np.pi, 8):
            assert not interference(a, wheel.name, float(v))
        assert lever.type == "prismatic" and np.allclose(lever.axis, [0, 0, -1]) and lever.upper >= 0.002
        assert not interference(a, lever.name, lever.upper)
        assert 10 < _grams(a) < 40


def test_remote_keys_press_down_into_their_pockets() -> None:
    a = generate("remote", 1)
    keys = [j for j in a.joints if j.type == "prismatic"]
    assert len(keys) == a.metadata["attributes"]["buttons"] >= 7
    top = a.part("body").mesh.bounds[1][2]
    for j in keys:
        assert np.allclose(j.axis, [0, 0, -1]) and j.upper >= 0.002
        rest = a.part(j.child).mesh.bounds
        assert rest[1][2] > top  # standing proud of the body
        pressed = posed_meshes(a, {j.name: j.upper})[j.child].bounds
        assert pressed[1][2] == pytest.approx(rest[1][2] - j.upper)
        assert not interference(a, j.name, j.upper)


def test_phone_lid_flips_open_about_the_back_edge() -> None:
    a = generate("phone", 0)
    j = _joint(a, "lid")
    assert j.type == "revolute" and np.deg2rad(150) < j.upper <= np.pi
    rest = a.part("lid").mesh.bounds
    opened = posed_meshes(a, {j.name: j.upper})["lid"].bounds
    assert opened[1][0] < rest[0][0] + 0.01  # lies behind the base when open
    up = posed_meshes(a, {j.name: np.pi / 2})["lid"].bounds
    assert up[1][2] > rest[1][2] + 0.05
    for v in np.linspace(0, j.upper, 7):
        assert not interference(a, j.name, float(v))


def test_mouse_buttons_click_and_wheel_turns() -> None:
    a = generate("mouse", 2)
    for name in ("button_left", "button_right"):
        j = _joint(a, name)
        assert j.type == "prismatic" and np.allclose(j.axis, [0, 0, -1]) and j.upper >= 0.002
        assert not interference(a, j.name, j.upper)
    left, right = a.part("button_left").mesh.bounds, a.part("button_right").mesh.bounds
    assert left[0][1] > 0 > right[1][1]
    w = _joint(a, "wheel")
    assert w.type == "continuous" and left[0][1] > a.part("wheel").mesh.bounds[1][1]
    assert a.part("wheel").mesh.bounds[1][2] > min(left[1][2], right[1][2]) - 0.01


def test_switch_toggles_flip_from_down_to_up() -> None:
    for seed in range(4):
        a = generate("switch", seed)
        for j in (j for j in a.joints if j.type == "revolute"):
            rest = a.part(j.child).mesh
            tip = rest.vertices[np.argmax(rest.vertices[:, 0])]
            assert tip[2] < j.origin[2]  # off: leaning down
            flipped = posed_meshes(a, {j.name: j.upper})[j.child]
            assert flipped.vertices[np.argmax(rest.vertices[:, 0])][2] > j.origin[2]  # on: leaning up
            for v in np.linspace(0, j.upper, 5):
                assert not interference(a, j.name, float(v))


def test_keyboard_keys_press_down_on_their_own() -> None:
    a = generate("keyboard", 1)
    keys = [j for j in a.joints if j.type == "prismatic"]
    assert len(keys) == 4 * a.metadata["params"]["columns"] + 5 == a.metadata["attributes"]["buttons"]
    space = a.part("spacebar").mesh.bounds
    assert space[1][1] - space[0][1] > 3 * (a.part("key_0").mesh.bounds[1][1] - a.part("key_0").mesh.bounds[0][1])
    for j in keys[::7] + [next(j for j in keys if j.child == "spacebar")]:
        assert np.allclose(j.axis, [0, 0, -1]) and 0.003 <= j.upper <= 0.004
        pressed = posed_meshes(a, {j.name: j.upper})
        assert pressed[j.child].bounds[1][2] == pytest.approx(a.part(j.child).mesh.bounds[1][2] - j.upper)
        # only that key moves
        others = [p.name for p in a.parts if p.name != j.child]
        assert all(np.allclose(pressed[o].bounds, a.part(o).mesh.bounds) for o in others)
        assert not interference(a, j.name, j.upper)


def test_tools_are_described_with_their_nouns() -> None:
    from seed3d.synth import CATEGORIES

    for kind in TOOLS:
        text = generate(kind, 0).metadata["description"].lower()
        assert any(n in text for n in CATEGORIES[kind].nouns), text
