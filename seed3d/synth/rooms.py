"""Room furniture that scenes are furnished with: beds, sofas, desks, bathroom and kitchen fixtures."""

from __future__ import annotations

from seed3d.synth.core import Category

#: This module's categories, in the order ``seed3d.synth.CATEGORIES`` lists them.
CATEGORIES: tuple[Category, ...] = ()
