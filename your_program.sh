#!/usr/bin/env bash
# Runs the agent from any directory: the caller's cwd is the workspace. On first use it builds a
# virtual environment inside the repository from pyproject.toml (install output goes to stderr).
# The project is installed as a plain path (.pth) rather than through setuptools' editable-import
# finder, which cost every run about 15 ms at start-up.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$repo/.venv"
stamp="$venv/.installed-path"
if [ ! -x "$venv/bin/python" ] || [ ! -f "$stamp" ] || [ "$repo/pyproject.toml" -nt "$stamp" ]; then
  {
    echo "[agent] setting up $venv (first run)"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
      --config-settings editable_mode=compat -e "$repo"
  } >&2 </dev/null
  touch "$stamp"
fi
# -I: the user's cwd (the workspace) must not shadow our modules, and their PYTHON* variables and
# user site-packages must not change what the agent runs (the commands it runs still get them).
exec "$venv/bin/python" -I -m agent "$@"
