# Seed3D: `make demo` sets everything up and runs the main job; `make test` sets up and runs the tests.
.PHONY: setup setup-dev demo test lint eval clean

VENV := .venv/bin
OUT ?= out

setup:
	@scripts/bootstrap.sh

setup-dev:
	@scripts/bootstrap.sh --dev

# Main job on embedded defaults: a procedural sim-ready cabinet, exported to every format and validated.
demo: setup
	$(VENV)/seed3d synth cabinet --seed 0 -o $(OUT)/cabinet --overwrite
	$(VENV)/seed3d validate $(OUT)/cabinet --report $(OUT)/cabinet/report.json

test: setup-dev
	$(VENV)/ruff check seed3d tests eval
	$(VENV)/python -m pytest -q

lint: setup-dev
	$(VENV)/ruff check seed3d tests eval

clean:
	rm -rf $(OUT) .pytest_cache .ruff_cache
