import os
import sys
import threading

from agent.cli import main
from agent.cli.report import reader_gone
from agent.cli.signals import SIGNALLED

try:
    code = main()
    sys.stdout.flush()
except BrokenPipeError:  # `./your_program.sh ... | head`: the reader has all it wanted
    code = reader_gone()
if code > SIGNALLED and threading.active_count() > 1:
    # Ctrl-C, SIGTERM, SIGHUP (128 + the signal): subagents still waiting on a model reply stop at
    # their next step, but the interpreter would wait for them before exiting; the user asked to stop now.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
raise SystemExit(code)
