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
  echo "[agent] setting up $venv (first run)" >&2
  # pip's own retries would print forty lines over a minute when the network is down: one short
  # attempt, its output kept in a log, and one line saying what to do
  log="$repo/.venv-install.log"
  if ! { python3 -m venv "$venv" && "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
           --retries 1 --timeout 15 --config-settings editable_mode=compat -e "$repo"; } >"$log" 2>&1 </dev/null; then
    echo "error: could not build the agent's environment in $venv (no network, or no python3 venv?); see $log." \
         "Build it once while online (./your_program.sh --version) and cache $venv, keyed on pyproject.toml" >&2
    exit 2
  fi
  rm -f "$log"
  touch "$stamp"
fi
# -I: the user's cwd (the workspace) must not shadow our modules, and their PYTHON* variables and
# user site-packages must not change what the agent runs (the commands it runs still get them).
exec "$venv/bin/python" -I -m agent "$@"
