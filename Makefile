# Seed3D: `make demo` sets everything up and runs the main job; `make test` sets up and runs the tests.
.PHONY: setup setup-dev demo test lint eval clean

VENV := .venv/bin
OUT ?= out

setup:
	@scripts/bootstrap.sh

setup-dev:
	@scripts/bootstrap.sh --dev

# Main job on embedded defaults: the service (SQLite job store, one local worker, shipped weights) with its
# web page; it prints the URL. PORT=8000 by default.
PORT ?= 8000
demo: setup
	$(VENV)/seed3d serve --port $(PORT)

test: setup-dev
	$(VENV)/ruff check seed3d tests eval
	$(VENV)/python -m pytest -q

lint: setup-dev
	$(VENV)/ruff check seed3d tests eval

clean:
	rm -rf $(OUT) .pytest_cache .ruff_cache
