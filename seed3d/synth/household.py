"""Household appliances and fixtures (PartNet-Mobility classes): lids, levers, trays, blades, sashes."""

from __future__ import annotations

from seed3d.synth.core import Category

#: This module's categories, in the order ``seed3d.synth.CATEGORIES`` lists them.
CATEGORIES: tuple[Category, ...] = ()
